// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "smartt-crp": the CRP reservation core (kernel/algo/crp.c)
 * checked with the same vectors as selftests/unit/unit_crp.c.
 */
#include <kunit/test.h>

#include "../algo/crp.h"
#include "vectors_crp.h"

static void crp_vectors_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(crp_vectors); i++)
		KUNIT_EXPECT_EQ_MSG(test, crp_vec_run(&crp_vectors[i]), 0,
				    "vector %s", crp_vectors[i].name);
}

static void crp_knobs_test(struct kunit *test)
{
	struct crp_knobs k = crp_defaults;

	KUNIT_EXPECT_EQ(test, crp_knobs_validate(&k), 0);
	k.cells = CRP_CELLS_MAX + 1;
	KUNIT_EXPECT_EQ(test, crp_knobs_validate(&k), -EINVAL);
	k = crp_defaults;
	k.nmax = 2 * k.cmax + 1;
	KUNIT_EXPECT_EQ(test, crp_knobs_validate(&k), -EINVAL);
}

static struct kunit_case smartt_crp_cases[] = {
	KUNIT_CASE(crp_vectors_test),
	KUNIT_CASE(crp_knobs_test),
	{}
};

static struct kunit_suite smartt_crp_suite = {
	.name = "smartt-crp",
	.test_cases = smartt_crp_cases,
};

kunit_test_suite(smartt_crp_suite);
