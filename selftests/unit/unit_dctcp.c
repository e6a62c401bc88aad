// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kernel/algo/dctcp.c.
 */
#include "kselftest_harness.h"

#include "algo/dctcp.h"
#include "algo/fixed.h"
#include "../../kernel/tests/vectors_dctcp.h"

TEST(dctcp_on_ack__vectors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dctcp_vectors); i++) {
		const struct dctcp_vec *v = &dctcp_vectors[i];
		u64 cwnd = 0;
		u32 rules = 0, alpha = 0;
		int r = dctcp_vec_run(v, &cwnd, &rules, &alpha);

		EXPECT_EQ((int)v->nsteps, r)
			TH_LOG("vector %s: step %d: cwnd %llu rules 0x%x alpha %u",
			       v->name, r, (unsigned long long)cwnd, rules, alpha);
	}
}

TEST(dctcp_params_default__rfc8257)
{
	struct dctcp_params p;

	dctcp_params_default(&p, 4076, 64 * 4076);
	ASSERT_EQ(0, dctcp_params_validate(&p));
	EXPECT_EQ(4U, p.g_shift);		/* g = 1/16 */
	EXPECT_EQ(1024U, p.alpha_init);		/* alpha starts at 1.0 */
	EXPECT_EQ(40760ULL, p.init_cwnd);	/* ten packets */
	dctcp_params_default(&p, 4076, 3 * 4076);
	EXPECT_EQ(3ULL * 4076, p.init_cwnd);	/* the bound, if smaller */
	dctcp_params_default(&p, 4076, 0);
	EXPECT_EQ(4076ULL, p.max_cwnd);		/* at least one packet */
	EXPECT_EQ(0, dctcp_params_validate(&p));
}

TEST(dctcp_params_validate__rejects_nonsense)
{
	struct dctcp_params p, d;

	dctcp_params_default(&d, 1000, 64000);
	p = d;
	p.mss = 0;
	EXPECT_EQ(SMARTT_EINVAL, dctcp_params_validate(&p));
	p = d;
	p.max_cwnd = 999;
	EXPECT_EQ(SMARTT_EINVAL, dctcp_params_validate(&p));
	p = d;
	p.init_cwnd = 65000;
	EXPECT_EQ(SMARTT_EINVAL, dctcp_params_validate(&p));
	p = d;
	p.init_cwnd = 999;
	EXPECT_EQ(SMARTT_EINVAL, dctcp_params_validate(&p));
	p = d;
	p.g_shift = DCTCP_G_SHIFT_MAX + 1;
	EXPECT_EQ(SMARTT_EINVAL, dctcp_params_validate(&p));
	p = d;
	p.alpha_init = DCTCP_ALPHA_ONE + 1;
	EXPECT_EQ(SMARTT_EINVAL, dctcp_params_validate(&p));
	p = d;
	p.max_cwnd = (1ULL << 40) + 1;
	EXPECT_EQ(SMARTT_EINVAL, dctcp_params_validate(&p));
}

/* Every window fully marked: alpha converges to 1.0, the window to the MSS. */
TEST(dctcp_on_ack__all_marked_converges)
{
	struct dctcp_params p;
	struct dctcp_state s;
	int i;

	dctcp_params_default(&p, 1000, 64000);
	dctcp_init(&s, &p);
	s.alpha = 0;
	for (i = 0; i < 2000; i++)
		dctcp_on_ack(&s, &p, 1000, true, false);
	EXPECT_EQ(1024U, s.alpha);
	EXPECT_EQ(1000ULL, s.cwnd);
}

/* Half the bytes of every window marked: alpha settles near 0.5. */
TEST(dctcp_on_ack__half_marked_alpha)
{
	struct dctcp_params p;
	struct dctcp_state s;
	int i;

	dctcp_params_default(&p, 1000, 1000000);
	dctcp_init(&s, &p);
	for (i = 0; i < 20000; i++)
		dctcp_on_ack(&s, &p, 1000, i & 1, false);
	EXPECT_GE(s.alpha, 480U);
	EXPECT_LE(s.alpha, 560U);
}

TEST(dctcp_on_ack__property)
{
	int v = 0;
	u64 seed;

	for (seed = 1; seed <= 200; seed++)
		dctcp_vec_random_run(seed, 5000, &v);
	EXPECT_EQ(0, v);
}

TEST_HARNESS_MAIN
