/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Knob tables shared by the algorithm cores and the path selectors.
 *
 * Every core describes its struct of u32 knobs with one const array of
 * struct smartt_knob_desc: the name smartt-replay --set, the sysctls and
 * the documentation use, the knob's place in the struct and its valid
 * range.  The helpers below walk such a table; the cores wrap them with
 * their own typed names (smartt_knob_find(), strack_knob_set(), ...).
 */
#ifndef SMARTT_ALGO_KNOBS_H
#define SMARTT_ALGO_KNOBS_H

#include "algo_types.h"

/**
 * struct smartt_knob_desc - name, place and range of one knob
 * @name: the name used by smartt-replay --set and the documentation
 * @offset: offsetof() of the u32 knob in its knob struct
 * @min: smallest valid value (raw: ppm for fractions)
 * @max: largest valid value
 * @frac: 1 = a fraction in ppm (decimal input accepted)
 * @unit: unit, for help texts
 */
struct smartt_knob_desc {
	const char *name;
	u16 offset;
	u32 min;
	u32 max;
	bool frac;
	const char *unit;
};

/* One table entry for the u32 member @field of @type, named @name. */
#define SMARTT_KNOB_DESC(type, name, field, lo, hi, f, u) \
	{ name, (u16)__builtin_offsetof(type, field), lo, hi, f, u }

bool smartt_knob_streq(const char *a, const char *b);
int smartt_knob_table_find(const struct smartt_knob_desc *t, unsigned int n,
			   const char *name);
int smartt_knob_table_check(const struct smartt_knob_desc *t, unsigned int n,
			    const void *knobs);

/**
 * smartt_knob_table_get() - read a knob through its descriptor
 * @d: the knob's descriptor
 * @knobs: the knob struct @d describes
 *
 * Return: the raw value (ppm for fractions).
 */
static inline u32 smartt_knob_table_get(const struct smartt_knob_desc *d,
					const void *knobs)
{
	return *(const u32 *)((const u8 *)knobs + d->offset);
}

/**
 * smartt_knob_table_set() - write a knob through its descriptor, unvalidated
 * @d: the knob's descriptor
 * @knobs: the knob struct @d describes
 * @v: raw value; the core's validation judges it later
 */
static inline void smartt_knob_table_set(const struct smartt_knob_desc *d,
					 void *knobs, u32 v)
{
	*(u32 *)((u8 *)knobs + d->offset) = v;
}

#endif /* SMARTT_ALGO_KNOBS_H */
