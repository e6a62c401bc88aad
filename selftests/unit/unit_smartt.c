// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kernel/algo/smartt.c: the shared vectors (every rule of
 * every profile, worked by hand in vectors_smartt.h), derived constants,
 * validation, and property tests over long random event sequences.
 */
#include <string.h>

#include "kselftest_harness.h"

#include "algo/smartt.h"
#include "algo/units.h"
#include "../../kernel/tests/vectors_smartt.h"

TEST(smartt_on_ack__vectors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smartt_vectors); i++) {
		const struct smartt_vec *v = &smartt_vectors[i];
		u64 cwnd = 0;
		u32 rules = 0;
		int r = smartt_vec_run(v, &cwnd, &rules);

		EXPECT_EQ((int)v->nsteps, r)
			TH_LOG("vector %s: step %d: cwnd %llu rules 0x%x, want %llu 0x%x",
			       v->name, r, (unsigned long long)cwnd, rules,
			       r >= 0 && r < (int)v->nsteps ?
			       (unsigned long long)v->steps[r].cwnd : 0ULL,
			       r >= 0 && r < (int)v->nsteps ? v->steps[r].rules : 0);
	}
}

TEST(smartt_params_init__nscc_reference_table)
{
	struct smartt_params p;
	struct smartt_knobs k = smartt_profiles[SMARTT_PROFILE_NSCC];

	/* reference-semantics.md 2.1, 100 G, 12 us, MTU 4160 column. */
	ASSERT_EQ(0, smartt_params_init(&p, &k));
	EXPECT_EQ(150000ULL, p.net_bdp);
	EXPECT_EQ(9000U, p.target_qdelay);		/* 0.75 x 12 us */
	EXPECT_EQ(20480ULL << 16, p.fi_fp);		/* 5 x 4096 x 1.0 */
	EXPECT_EQ(89478ULL, p.pi_fp);			/* 1.36533 B/ns */
	EXPECT_EQ(614ULL, p.eta);			/* 0.15 x 4096 = 614.4 */
	EXPECT_EQ(16384ULL, p.fast_fp);			/* 0.25 */
	EXPECT_EQ(36000ULL, p.qa_delay);		/* 4 x target */
	EXPECT_EQ(12000U, p.adjust_period);
	EXPECT_EQ(33280U, p.adjust_bytes);		/* 8 x 4160 */
	EXPECT_EQ(225000ULL, smartt_maxwnd(&p, 12000));	/* 1.5 BDP */

	/*
	 * Default 16-node 3-tier network: 400 G, MTU 4150, network RTT
	 * 12.50568 us -> 12506 ns here.  net_bdp = 400000 x 12506 / 8000 =
	 * 625300 (reference 625284); sf_a = 625300/150000 = 4.16867 (Q.16
	 * 273207); fi = 5 x 4086 x 273207 / 65536 = 85165.6 -> 85165 B
	 * (reference 85163.7 with its 12.50568 us).
	 */
	k.link_mbps = 400000;
	k.network_rtt = 12506;
	k.mtu = 4150;
	ASSERT_EQ(0, smartt_params_init(&p, &k));
	EXPECT_EQ(625300ULL, p.net_bdp);
	EXPECT_EQ(9379U, p.target_qdelay);		/* 0.75 x 12506 */
	EXPECT_EQ(85165ULL, p.fi_fp >> 16);
	EXPECT_EQ(2554ULL, p.eta);			/* 0.15 x 4086 x 4.16867 */
	/* without trimming the target is one network RTT */
	k.trimming = 0;
	ASSERT_EQ(0, smartt_params_init(&p, &k));
	EXPECT_EQ(12506U, p.target_qdelay);
}

TEST(smartt_params_init__paper_constants)
{
	struct smartt_params p;
	struct smartt_knobs k = smartt_profiles[SMARTT_PROFILE_2024];

	ASSERT_EQ(0, smartt_params_init(&p, &k));
	/* mi = brtt / (trtt - brtt) = 1 / 0.5 = 2 */
	EXPECT_EQ(2ULL << 16, p.pi_fp);
	/* md = 2: (rtt - trtt)/rtt x md = 1 at rtt = 2 trtt */
	EXPECT_EQ(2ULL << 16, p.md_fp);
	EXPECT_EQ(8192ULL, p.fast_bytes);		/* k = 2 MTU */
	EXPECT_EQ(187500ULL, smartt_maxwnd(&p, 12000));	/* 1.25 BDP */
	/* without trimming md is doubled (2024 Sec. 3.3) */
	k.trimming = 0;
	ASSERT_EQ(0, smartt_params_init(&p, &k));
	EXPECT_EQ(4ULL << 16, p.md_fp);
	/* trtt 1.25 -> mi = 4 */
	k.trtt = 1250000;
	ASSERT_EQ(0, smartt_params_init(&p, &k));
	EXPECT_EQ(4ULL << 16, p.pi_fp);
}

TEST(smartt_knobs_validate__rejects_nonsense)
{
	struct smartt_knobs k;
	int i;

	for (i = 0; i < SMARTT_PROFILE_COUNT; i++) {
		k = smartt_profiles[i];
		EXPECT_EQ(0, smartt_knobs_validate(&k));
	}
	k = smartt_profiles[SMARTT_PROFILE_SMARTT];
	k.mtu = 63;
	EXPECT_EQ(SMARTT_EINVAL, smartt_knobs_validate(&k));
	k = smartt_profiles[SMARTT_PROFILE_SMARTT];
	k.trtt = 1000000;	/* trtt = brtt: mi would divide by zero */
	EXPECT_EQ(SMARTT_EINVAL, smartt_knobs_validate(&k));
	k = smartt_profiles[SMARTT_PROFILE_NSCC];
	k.hdr_bytes = k.mtu;	/* MSS 0 */
	EXPECT_EQ(SMARTT_EINVAL, smartt_knobs_validate(&k));
	k = smartt_profiles[SMARTT_PROFILE_NSCC];
	k.md = 1500000;		/* gamma > 1 would make the MD factor negative */
	EXPECT_EQ(SMARTT_EINVAL, smartt_knobs_validate(&k));
	k = smartt_profiles[SMARTT_PROFILE_NSCC];
	k.link_mbps = 10000000;	/* 10 Tb/s x 1 s: BDP 1.25e12 > 2^34 */
	k.network_rtt = 1000000000;
	EXPECT_EQ(SMARTT_EINVAL, smartt_knobs_validate(&k));
	k = smartt_profiles[SMARTT_PROFILE_NSCC];
	k.wtd_alpha = 0;
	EXPECT_EQ(SMARTT_EINVAL, smartt_knobs_validate(&k));
	k = smartt_profiles[SMARTT_PROFILE_NSCC];
	k.qa_delay_mode = 3;
	EXPECT_EQ(SMARTT_EINVAL, smartt_knobs_validate(&k));
	k = smartt_profiles[SMARTT_PROFILE_NSCC];
	k.base_rtt = 50;	/* below 100 ns */
	EXPECT_EQ(SMARTT_EINVAL, smartt_knobs_validate(&k));
	EXPECT_EQ(SMARTT_EINVAL, smartt_knob_find("no_such_knob"));
	EXPECT_EQ(SMARTT_EINVAL, smartt_profile_by_name("smartt-2025"));
	EXPECT_EQ(SMARTT_PROFILE_NSCC, smartt_profile_by_name("nscc"));
}

TEST(smartt_on_ack__nscc_stale_delay_pulls_avg_to_quarter_base)
{
	struct smartt_params p;
	struct smartt_state s;
	struct smartt_event e = { .now = 1000, .rtt = 32000, .bytes = 4160 };

	ASSERT_EQ(0, smartt_params_init(&p, &smartt_profiles[SMARTT_PROFILE_NSCC]));
	smartt_init(&s, &p, 100000);
	/* no ECN, delay 20000 > target 9000: sample base/4 = 3000 ns;
	 * avg = 0.0125 x 3000 ns = 37.5 ns = 37500 ps.
	 */
	smartt_on_ack(&s, &p, &e);
	EXPECT_EQ(37500ULL, s.avg_delay);
	/* with ECN the real delay counts: 37500 x 0.9875 + 0.0125 x 2e7 ps
	 * = 37031.25 + 250000 = 287031 ps.
	 */
	e.ecn = true;
	e.now = 2000;
	smartt_on_ack(&s, &p, &e);
	EXPECT_EQ(287031ULL, s.avg_delay);
}

TEST(smartt_on_nack__nscc_delay_sample_is_network_rtt)
{
	struct smartt_params p;
	struct smartt_state s;
	struct smartt_event e = { .now = 1000, .bytes = 4160 };

	ASSERT_EQ(0, smartt_params_init(&p, &smartt_profiles[SMARTT_PROFILE_NSCC]));
	smartt_init(&s, &p, 100000);
	/* avg = 0.0125 x 12000 ns = 150 ns */
	smartt_on_nack(&s, &p, &e);
	EXPECT_EQ(150000ULL, s.avg_delay);
	EXPECT_TRUE(s.flags & SMARTT_ST_TRIGGER_QA);
}

/*
 * reference-semantics.md 2.7: at 800 Gb/s the reference's uint32 inc_bytes
 * wraps.  800 G, network RTT 12500 ns: net BDP 1250000, sf_a = 8.3333
 * (Q.16 546133), MSS 4086: fi = 5 x 4086 x 546133 = 11157497190 (Q.16,
 * 170249.6 B).  Three coalesced 16600 B ACKs with delay = target (9375 ns):
 * inc += floor(11157497190 x 16600 / 65536) = 2826148275 each; after the
 * third received = 49800 > 8 x 4150 = 33200: fulfill with inc = 8478444825
 * > 2^32: cwnd 1000000 + 8478 = 1008478.  The reference would add
 * (8478444825 mod 2^32) / 1e6 = 4183 instead.
 */
TEST(smartt_on_ack__nscc_wide_accumulator)
{
	struct smartt_knobs k = smartt_profiles[SMARTT_PROFILE_NSCC];
	struct smartt_params p;
	struct smartt_state s;
	struct smartt_event e = { .rtt = 12500 + 9375, .bytes = 16600 };
	int i;

	k.link_mbps = 800000;
	k.network_rtt = 12500;
	k.mtu = 4150;
	ASSERT_EQ(0, smartt_params_init(&p, &k));
	EXPECT_EQ(11157497190ULL, p.fi_fp);
	smartt_init(&s, &p, 1000000);
	for (i = 1; i <= 2; i++) {
		e.now = 1000 * i;
		EXPECT_EQ((u32)SMARTT_R_FI, smartt_on_ack(&s, &p, &e));
	}
	EXPECT_EQ(2ULL * 2826148275ULL, s.inc);
	e.now = 3000;
	EXPECT_EQ((u32)(SMARTT_R_FI | SMARTT_R_ADJUST), smartt_on_ack(&s, &p, &e));
	EXPECT_EQ(1008478ULL, s.cwnd);
}

TEST(smartt_state__fits_tcp_private_area)
{
	EXPECT_LE(sizeof(struct smartt_state), (size_t)SMARTT_TCP_STATE_MAX);
}

/* The TCP glue embeds the state next to at least 16 bytes of its own. */
TEST(smartt_state__leaves_room_for_the_tcp_glue)
{
	EXPECT_LE(sizeof(struct smartt_state) + 16, (size_t)SMARTT_TCP_STATE_MAX);
}

/*
 * fi_count shares a word with the flags and saturates at 2^56 - 1: still
 * above any window, so FastIncrease fires, and the flags stay intact.
 */
TEST(smartt_on_ack__fast_increase_counter_saturates_below_flags)
{
	struct smartt_params p;
	struct smartt_state s;
	/* rtt = base RTT (12 us): no queuing delay, no ECN */
	struct smartt_event e = { .now = 1000, .rtt = 12000, .bytes = 4096 };
	u32 r;

	ASSERT_EQ(0, smartt_params_init(&p, &smartt_profiles[SMARTT_PROFILE_2024]));
	smartt_init(&s, &p, 100000);
	s.fi_count = SMARTT_FI_COUNT_MAX - 100;
	s.flags = SMARTT_ST_TRIGGER_QA;
	r = smartt_on_ack(&s, &p, &e);
	EXPECT_NE(0U, r & SMARTT_R_FAST_INC);
	EXPECT_TRUE(s.fi_count == SMARTT_FI_COUNT_MAX);
	EXPECT_EQ(SMARTT_ST_TRIGGER_QA | SMARTT_ST_INCREASE, (int)s.flags);
	EXPECT_EQ(100000ULL + 2 * 4096, s.cwnd);
}

/*
 * A base RTT of 0 (only a caller can set it): no sample still means the
 * average delay, a sample is all queuing delay.
 */
TEST(smartt_on_ack__zero_base_rtt_takes_the_general_path)
{
	struct smartt_params p;
	struct smartt_state s;
	struct smartt_event e = { .now = 1000, .rtt = 0, .bytes = 4096 };

	ASSERT_EQ(0, smartt_params_init(&p, &smartt_profiles[SMARTT_PROFILE_SMARTT]));
	smartt_init(&s, &p, 100000);
	s.base_rtt = 0;
	s.avg_delay = 8000000;	/* 8 us */
	smartt_on_ack(&s, &p, &e);
	EXPECT_EQ(8000000ULL, s.avg_delay);	/* no sample: no EWMA step */
	e.rtt = 16000;
	e.now = 2000;
	smartt_on_ack(&s, &p, &e);
	/* 0.125 x 16 us + 0.875 x 8 us = 9 us */
	EXPECT_EQ(9000000ULL, s.avg_delay);
}

TEST(smartt_on_ack__property_bounds_all_rates)
{
	int v = 0;
	u64 seed;

	for (seed = 1; seed <= 300; seed++)
		smartt_vec_random_run(seed, 20000, &v);
	EXPECT_EQ(0, v);
}

TEST(smartt_on_ack__property_deterministic_for_seed)
{
	int v = 0;

	EXPECT_EQ(smartt_vec_random_run(42, 20000, &v), smartt_vec_random_run(42, 20000, &v));
	EXPECT_NE(smartt_vec_random_run(42, 20000, &v), smartt_vec_random_run(43, 20000, &v));
}

TEST_HARNESS_MAIN
