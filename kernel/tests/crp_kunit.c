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

/*
 * The sender's own availability (crp_vec_from()): a request decided in
 * the middle of slot 10 no longer gets slot 10 from its start, already
 * past; the same case as unit_crp's.
 */
static void crp_vec_from_test(struct kunit *test)
{
	struct crp_knobs k = crp_defaults;
	struct crp_table t;
	struct crp_grant g;
	u64 vec;

	k.cells = 5;
	k.cmax = 512;
	k.slot_ns = 1000;
	k.nmax = 1024;
	KUNIT_ASSERT_EQ(test, crp_table_init(&t, &k, 10), 0);
	vec = crp_vec_full(5);
	KUNIT_ASSERT_EQ(test, crp_dest_decide(&t, 600, &vec, &g), CRP_GRANT);
	KUNIT_EXPECT_LT(test, crp_grant_ns(&k, &g), 10600ULL);
	KUNIT_ASSERT_EQ(test, crp_table_init(&t, &k, 10), 0);
	vec = crp_vec_from(5, 10, 1000, 10900);
	KUNIT_EXPECT_EQ(test, vec, 0x1eULL);
	KUNIT_ASSERT_EQ(test, crp_dest_decide(&t, 600, &vec, &g), CRP_GRANT);
	KUNIT_EXPECT_GE(test, crp_grant_ns(&k, &g), 10900ULL);
	KUNIT_EXPECT_EQ(test, crp_vec_from(5, 10, 1000, 10000), 0x1fULL);
	KUNIT_EXPECT_EQ(test, crp_vec_from(5, 10, 1000, 14001), 0ULL);
}

static struct kunit_case smartt_crp_cases[] = {
	KUNIT_CASE(crp_vectors_test),
	KUNIT_CASE(crp_knobs_test),
	KUNIT_CASE(crp_vec_from_test),
	{}
};

static struct kunit_suite smartt_crp_suite = {
	.name = "smartt-crp",
	.test_cases = smartt_crp_cases,
};

kunit_test_suite(smartt_crp_suite);
