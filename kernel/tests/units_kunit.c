// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite smartt-units: kernel/algo/units.c inside a real kernel, on the
 * same vectors as the userspace unit tests (vectors_units.h).
 */
#include <kunit/test.h>

#include "../algo/units.h"
#include "vectors_units.h"

static void smartt_bdp_bytes__vectors(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smartt_bdp_vectors); i++) {
		const struct smartt_bdp_vector *v = &smartt_bdp_vectors[i];

		KUNIT_EXPECT_EQ_MSG(test, v->bdp_bytes,
				    smartt_bdp_bytes(v->link_mbps, v->rtt_ns),
				    "vector %s", v->name);
	}
}

static struct kunit_case smartt_units_cases[] = {
	KUNIT_CASE(smartt_bdp_bytes__vectors),
	{}
};

static struct kunit_suite smartt_units_suite = {
	.name = "smartt-units",
	.test_cases = smartt_units_cases,
};

kunit_test_suite(smartt_units_suite);
