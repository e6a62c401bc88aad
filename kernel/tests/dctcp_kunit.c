// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "smartt-dctcp": the DCTCP-style core (kernel/algo/dctcp.c)
 * checked with the same vectors as selftests/unit/unit_dctcp.c.
 */
#include <kunit/test.h>

#include "../algo/dctcp.h"
#include "../algo/fixed.h"
#include "vectors_dctcp.h"

static void dctcp_vectors_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dctcp_vectors); i++) {
		const struct dctcp_vec *v = &dctcp_vectors[i];
		u64 cwnd = 0;
		u32 rules = 0, alpha = 0;
		int r = dctcp_vec_run(v, &cwnd, &rules, &alpha);

		KUNIT_EXPECT_EQ_MSG(test, r, (int)v->nsteps,
				    "vector %s: step %d: cwnd %llu rules 0x%x alpha %u",
				    v->name, r, cwnd, rules, alpha);
	}
}

static void dctcp_params_test(struct kunit *test)
{
	struct dctcp_params p;

	dctcp_params_default(&p, 4076, 64 * 4076);
	KUNIT_ASSERT_EQ(test, dctcp_params_validate(&p), 0);
	KUNIT_EXPECT_EQ(test, p.g_shift, 4U);
	KUNIT_EXPECT_EQ(test, p.alpha_init, 1024U);
	KUNIT_EXPECT_EQ(test, p.init_cwnd, 40760ULL);
	p.g_shift = DCTCP_G_SHIFT_MAX + 1;
	KUNIT_EXPECT_EQ(test, dctcp_params_validate(&p), -EINVAL);
}

static void dctcp_property_test(struct kunit *test)
{
	int v = 0;
	u64 seed;

	for (seed = 1; seed <= 30; seed++)
		dctcp_vec_random_run(seed, 5000, &v);
	KUNIT_EXPECT_EQ(test, v, 0);
}

static struct kunit_case dctcp_cases[] = {
	KUNIT_CASE(dctcp_vectors_test),
	KUNIT_CASE(dctcp_params_test),
	KUNIT_CASE(dctcp_property_test),
	{}
};

static struct kunit_suite dctcp_suite = {
	.name = "smartt-dctcp",
	.test_cases = dctcp_cases,
};

kunit_test_suite(dctcp_suite);
