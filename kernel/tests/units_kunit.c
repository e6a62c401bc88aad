// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "smartt-units": kernel/algo/units.c with the vectors of
 * selftests/unit/unit_units.c.
 */
#include <kunit/test.h>

#include "../algo/units.h"
#include "vectors_units.h"

static void units_bdp_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smartt_bdp_vectors); i++) {
		const struct smartt_bdp_vector *v = &smartt_bdp_vectors[i];

		KUNIT_EXPECT_EQ_MSG(test, smartt_bdp_bytes(v->link_mbps, v->rtt_ns),
				    v->bdp_bytes, "vector %s", v->name);
	}
}

static struct kunit_case units_cases[] = {
	KUNIT_CASE(units_bdp_test),
	{}
};

static struct kunit_suite units_suite = {
	.name = "smartt-units",
	.test_cases = units_cases,
};

kunit_test_suite(units_suite);
