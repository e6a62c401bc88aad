// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "smartt-smartt": the SMaRTT core (kernel/algo/smartt.c)
 * checked with the same vectors as selftests/unit/unit_smartt.c.
 */
#include <kunit/test.h>

#include "../algo/smartt.h"
#include "vectors_smartt.h"

static void smartt_vectors_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smartt_vectors); i++) {
		const struct smartt_vec *v = &smartt_vectors[i];
		u64 cwnd = 0;
		u32 rules = 0;
		int r = smartt_vec_run(v, &cwnd, &rules);

		KUNIT_EXPECT_EQ_MSG(test, r, (int)v->nsteps,
				    "vector %s: step %d: cwnd %llu rules 0x%x",
				    v->name, r, cwnd, rules);
	}
}

static void smartt_params_test(struct kunit *test)
{
	struct smartt_params p;

	/* reference-semantics.md 2.1, 100 G / 12 us / MTU 4160 column */
	KUNIT_ASSERT_EQ(test, smartt_params_init(&p, &smartt_profiles[SMARTT_PROFILE_NSCC]), 0);
	KUNIT_EXPECT_EQ(test, p.target_qdelay, 9000U);
	KUNIT_EXPECT_EQ(test, p.fi_fp, 20480ULL << 16);
	KUNIT_EXPECT_EQ(test, p.pi_fp, 89478ULL);
	KUNIT_EXPECT_EQ(test, p.eta, 614ULL);
	/* 2024: mi = brtt / (trtt - brtt) = 2, md = 2 */
	KUNIT_ASSERT_EQ(test, smartt_params_init(&p, &smartt_profiles[SMARTT_PROFILE_2024]), 0);
	KUNIT_EXPECT_EQ(test, p.pi_fp, 2ULL << 16);
	KUNIT_EXPECT_EQ(test, p.md_fp, 2ULL << 16);
}

static void smartt_validate_test(struct kunit *test)
{
	struct smartt_knobs k = smartt_profiles[SMARTT_PROFILE_SMARTT];

	KUNIT_EXPECT_EQ(test, smartt_knobs_validate(&k), 0);
	k.trtt = 1000000;
	KUNIT_EXPECT_EQ(test, smartt_knobs_validate(&k), SMARTT_EINVAL);
	k = smartt_profiles[SMARTT_PROFILE_NSCC];
	k.md = 1500000;
	KUNIT_EXPECT_EQ(test, smartt_knobs_validate(&k), SMARTT_EINVAL);
}

static void smartt_property_test(struct kunit *test)
{
	int v = 0;
	u64 seed;

	for (seed = 1; seed <= 30; seed++)
		smartt_vec_random_run(seed, 5000, &v);
	KUNIT_EXPECT_EQ(test, v, 0);
	KUNIT_EXPECT_EQ(test, smartt_vec_random_run(42, 5000, &v),
			smartt_vec_random_run(42, 5000, &v));
}

static void smartt_state_size_test(struct kunit *test)
{
	KUNIT_EXPECT_LE(test, sizeof(struct smartt_state), (size_t)SMARTT_TCP_STATE_MAX);
}

static struct kunit_case smartt_cases[] = {
	KUNIT_CASE(smartt_vectors_test),
	KUNIT_CASE(smartt_params_test),
	KUNIT_CASE(smartt_validate_test),
	KUNIT_CASE(smartt_property_test),
	KUNIT_CASE(smartt_state_size_test),
	{}
};

static struct kunit_suite smartt_suite = {
	.name = "smartt-smartt",
	.test_cases = smartt_cases,
};

kunit_test_suite(smartt_suite);
