// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kernel/algo/strack.c.
 */
#include "kselftest_harness.h"

#include "algo/strack.h"
#include "algo/smartt.h"
#include "../../kernel/tests/vectors_strack.h"

TEST(strack_on_ack__vectors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(strack_vectors); i++) {
		const struct strack_vec *v = &strack_vectors[i];
		u64 cwnd = 0;
		u32 rules = 0;
		int r = strack_vec_run(v, &cwnd, &rules);

		EXPECT_EQ((int)v->nsteps, r)
			TH_LOG("vector %s: step %d: cwnd %llu rules 0x%x",
			       v->name, r, (unsigned long long)cwnd, rules);
	}
}

TEST(strack_params_init__table1)
{
	struct strack_params p;

	ASSERT_EQ(0, strack_params_init(&p, &strack_defaults));
	EXPECT_EQ(12000U, p.target);		/* target_Qdelay = net_base_rtt */
	EXPECT_EQ(36000ULL, p.qhigh);		/* 3 x target */
	EXPECT_EQ(5ULL << 16, p.beta_fp);
	EXPECT_EQ(4ULL << 16, p.alpha_fp);
	EXPECT_EQ(9830ULL, p.eta_fp);		/* 0.15 x 65536 = 9830.4 */
	EXPECT_EQ(225000ULL, strack_maxwnd(&p, 12000));
}

TEST(strack_knobs_validate__rejects_nonsense)
{
	struct strack_knobs k = strack_defaults;

	EXPECT_EQ(0, strack_knobs_validate(&k));
	k.qhigh = 500000;	/* Qhigh below the target */
	EXPECT_EQ(SMARTT_EINVAL, strack_knobs_validate(&k));
	k = strack_defaults;
	k.gamma = 1200000;
	EXPECT_EQ(SMARTT_EINVAL, strack_knobs_validate(&k));
	k = strack_defaults;
	k.ewma = 0;
	EXPECT_EQ(SMARTT_EINVAL, strack_knobs_validate(&k));
	k = strack_defaults;
	k.mtu = 0;
	EXPECT_EQ(SMARTT_EINVAL, strack_knobs_validate(&k));
	EXPECT_EQ(SMARTT_EINVAL, strack_knob_find("beta2"));
}

/* max_cwnd 225000 at Table 1; each timeout takes one 4096-byte packet. */
TEST(strack_on_timeout__minus_one_packet_floor_mtu)
{
	struct strack_params p;
	struct strack_state s;

	ASSERT_EQ(0, strack_params_init(&p, &strack_defaults));
	strack_init(&s, &p, 0);
	ASSERT_EQ(225000ULL, s.cwnd);
	EXPECT_EQ(0U, strack_on_timeout(&s, &p, 4096));
	EXPECT_EQ(220904ULL, s.cwnd);
	s.cwnd = 4096 + 100;		/* less than mtu + bytes left */
	EXPECT_EQ((u32)STRACK_R_CLAMPED, strack_on_timeout(&s, &p, 4096));
	EXPECT_EQ(4096ULL, s.cwnd);
	EXPECT_EQ((u32)STRACK_R_CLAMPED, strack_on_timeout(&s, &p, 4096));
	EXPECT_EQ(4096ULL, s.cwnd);
	s.cwnd = 8192;			/* exactly mtu + bytes: no clamp */
	EXPECT_EQ(0U, strack_on_timeout(&s, &p, 4096));
	EXPECT_EQ(4096ULL, s.cwnd);
}

TEST(strack_state__fits_tcp_private_area)
{
	EXPECT_LE(sizeof(struct strack_state), (size_t)SMARTT_TCP_STATE_MAX);
}

TEST(strack_on_ack__property_bounds_and_determinism)
{
	int v = 0;
	u64 seed;

	for (seed = 1; seed <= 300; seed++)
		strack_vec_random_run(seed, 20000, &v);
	EXPECT_EQ(0, v);
	EXPECT_EQ(strack_vec_random_run(7, 20000, &v), strack_vec_random_run(7, 20000, &v));
}

TEST_HARNESS_MAIN
