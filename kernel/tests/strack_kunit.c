// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "smartt-strack": the STrack core (kernel/algo/strack.c)
 * checked with the same vectors as selftests/unit/unit_strack.c.
 */
#include <kunit/test.h>

#include "../algo/strack.h"
#include "../algo/smartt.h"
#include "vectors_strack.h"

static void strack_vectors_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(strack_vectors); i++) {
		const struct strack_vec *v = &strack_vectors[i];
		u64 cwnd = 0;
		u32 rules = 0;
		int r = strack_vec_run(v, &cwnd, &rules);

		KUNIT_EXPECT_EQ_MSG(test, r, (int)v->nsteps,
				    "vector %s: step %d: cwnd %llu rules 0x%x",
				    v->name, r, cwnd, rules);
	}
}

static void strack_params_test(struct kunit *test)
{
	struct strack_params p;

	KUNIT_ASSERT_EQ(test, strack_params_init(&p, &strack_defaults), 0);
	KUNIT_EXPECT_EQ(test, p.qhigh, 36000ULL);	/* 3 x 12000 */
	KUNIT_EXPECT_EQ(test, p.eta_fp, 9830ULL);	/* 0.15 in Q.16 */
	KUNIT_EXPECT_EQ(test, strack_maxwnd(&p, 12000), 225000ULL);
}

/* max_cwnd 225000 at Table 1; each timeout takes one 4096-byte packet. */
static void strack_timeout_test(struct kunit *test)
{
	struct strack_params p;
	struct strack_state s;

	KUNIT_ASSERT_EQ(test, strack_params_init(&p, &strack_defaults), 0);
	strack_init(&s, &p, 0);
	KUNIT_ASSERT_EQ(test, s.cwnd, 225000ULL);
	KUNIT_EXPECT_EQ(test, strack_on_timeout(&s, &p, 4096), 0U);
	KUNIT_EXPECT_EQ(test, s.cwnd, 220904ULL);
	s.cwnd = 4096 + 100;
	KUNIT_EXPECT_EQ(test, strack_on_timeout(&s, &p, 4096), (u32)STRACK_R_CLAMPED);
	KUNIT_EXPECT_EQ(test, s.cwnd, 4096ULL);
}

static void strack_property_test(struct kunit *test)
{
	int v = 0;
	u64 seed;

	for (seed = 1; seed <= 30; seed++)
		strack_vec_random_run(seed, 5000, &v);
	KUNIT_EXPECT_EQ(test, v, 0);
}

static void strack_state_size_test(struct kunit *test)
{
	KUNIT_EXPECT_LE(test, sizeof(struct strack_state), (size_t)SMARTT_TCP_STATE_MAX);
}

static struct kunit_case strack_cases[] = {
	KUNIT_CASE(strack_vectors_test),
	KUNIT_CASE(strack_params_test),
	KUNIT_CASE(strack_timeout_test),
	KUNIT_CASE(strack_property_test),
	KUNIT_CASE(strack_state_size_test),
	{}
};

static struct kunit_suite strack_suite = {
	.name = "smartt-strack",
	.test_cases = strack_cases,
};

kunit_test_suite(strack_suite);
