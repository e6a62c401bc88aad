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

TEST(strack_state__fits_tcp_private_area)
{
	EXPECT_LE(sizeof(struct strack_state), (size_t)SMARTT_TCP_STATE_MAX);
}

static u64 strack_random_run(u64 seed, int *violations)
{
	static const u32 rates[] = { 1000, 10000, 100000, 400000, 800000, 1600000 };
	static const u32 rtts[] = { 1000, 4000, 12000, 100000, 1000000, 10000000 };
	struct strack_knobs k = strack_defaults;
	struct strack_params p;
	struct strack_state s;
	u64 x = seed, now = 0, digest = 0;
	int i;

	k.link_mbps = rates[smartt_prng_next(&x) % ARRAY_SIZE(rates)];
	k.network_rtt = rtts[smartt_prng_next(&x) % ARRAY_SIZE(rtts)];
	k.mtu = (smartt_prng_next(&x) & 1) ? 9000 : 1500;
	k.scale_path = smartt_prng_next(&x) & 1;
	if (strack_params_init(&p, &k))
		return 0;
	strack_init(&s, &p, smartt_prng_next(&x) % (3 * strack_maxwnd(&p, p.base_rtt0)));
	for (i = 0; i < 20000; i++) {
		u64 r = smartt_prng_next(&x);
		u32 rtt = (r & 7) ? (u32)min_t(u64, p.base_rtt0 / 2 +
			(r >> 16) % (20ULL * p.base_rtt0), U32_MAX) : 0;
		u32 bytes = (r >> 40) & 0xff ? (u32)((r >> 44) % (4 * k.mtu)) + 1 :
			    (u32)(r >> 32);

		now += (r >> 3) % (2 * k.network_rtt);
		strack_on_ack(&s, &p, now, rtt, (r >> 12) & 1, bytes);
		if (s.cwnd < k.mtu || s.cwnd > strack_maxwnd(&p, s.base_rtt))
			(*violations)++;
		digest = digest * 31 + s.cwnd;
	}
	return digest;
}

TEST(strack_on_ack__property_bounds_and_determinism)
{
	int v = 0;
	u64 seed;

	for (seed = 1; seed <= 300; seed++)
		strack_random_run(seed, &v);
	EXPECT_EQ(0, v);
	EXPECT_EQ(strack_random_run(7, &v), strack_random_run(7, &v));
}

TEST_HARNESS_MAIN
