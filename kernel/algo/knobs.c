// SPDX-License-Identifier: GPL-2.0
/*
 * Knob tables shared by the algorithm cores (see knobs.h).
 */
#include "knobs.h"

/**
 * smartt_knob_streq() - string equality without the C library
 * @a: NUL-terminated string
 * @b: NUL-terminated string
 *
 * Return: true if @a and @b are equal.
 */
bool smartt_knob_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/**
 * smartt_knob_table_find() - index of a knob in a table
 * @t: the table
 * @n: its number of entries
 * @name: the knob's documented name
 *
 * Return: the index, or SMARTT_EINVAL for an unknown name.
 */
int smartt_knob_table_find(const struct smartt_knob_desc *t, unsigned int n,
			   const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (smartt_knob_streq(name, t[i].name))
			return i;
	return SMARTT_EINVAL;
}

/**
 * smartt_knob_table_check() - every knob within its table range
 * @t: the table
 * @n: its number of entries
 * @knobs: the knob struct @t describes
 *
 * Return: 0, or SMARTT_EINVAL if a knob is out of its [min, max].
 */
int smartt_knob_table_check(const struct smartt_knob_desc *t, unsigned int n,
			    const void *knobs)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		u32 v = smartt_knob_table_get(&t[i], knobs);

		if (v < t[i].min || v > t[i].max)
			return SMARTT_EINVAL;
	}
	return 0;
}
