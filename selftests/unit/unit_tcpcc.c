// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kernel/algo/tcpcc.c: the TCP congestion controls'
 * configuration, shared by the module's sysctls and `smarttctl cc set`.
 */
#include "kselftest_harness.h"

#include <string.h>

#include "algo/tcpcc.h"

struct num_case {
	const char *s;
	bool frac;
	int err;
	u32 v;
};

static const struct num_case num_cases[] = {
	{ "12", false, 0, 12 },
	{ "12\n", false, 0, 12 },
	{ "+7", false, 0, 7 },
	{ "0x10", false, 0, 16 },
	{ "010", false, 0, 8 },
	{ "0", false, 0, 0 },
	{ "4294967295", false, 0, U32_MAX },
	{ "4294967296", false, SMARTT_EINVAL, 0 },
	{ "18446744073709551616", false, SMARTT_EINVAL, 0 },
	{ "1.5", false, SMARTT_EINVAL, 0 },
	{ "", false, SMARTT_EINVAL, 0 },
	{ "+", false, SMARTT_EINVAL, 0 },
	{ "0x", false, SMARTT_EINVAL, 0 },
	{ "09", false, SMARTT_EINVAL, 0 },
	{ "-1", false, SMARTT_EINVAL, 0 },
	{ "1 2", false, SMARTT_EINVAL, 0 },
	{ "1.5", true, 0, 1500000 },
	{ "0.0125", true, 0, 12500 },
	{ "2", true, 0, 2000000 },
	{ "4294", true, 0, 4294000000U },
	{ "4295", true, SMARTT_EINVAL, 0 },
	{ "0.123456", true, 0, 123456 },
	{ "0.1234567", true, SMARTT_EINVAL, 0 },
	{ ".5", true, SMARTT_EINVAL, 0 },
	{ "1.", true, 0, 1000000 },
	{ "1.2.3", true, SMARTT_EINVAL, 0 },
	{ "1.x", true, SMARTT_EINVAL, 0 },
	{ "18446744073709551615", true, SMARTT_EINVAL, 0 },
};

TEST(smartt_cc_parse_num__cases)
{
	unsigned int i;

	for (i = 0; i < sizeof(num_cases) / sizeof(num_cases[0]); i++) {
		const struct num_case *c = &num_cases[i];
		u32 v = 0xdeadbeef;
		int err = smartt_cc_parse_num(c->s, c->frac, &v);

		EXPECT_EQ(c->err, err) TH_LOG("\"%s\" frac=%d", c->s, c->frac);
		if (!c->err) {
			EXPECT_EQ(c->v, v) TH_LOG("\"%s\" frac=%d", c->s, c->frac);
		} else {
			EXPECT_EQ(0xdeadbeef, v) TH_LOG("\"%s\" changed the output", c->s);
		}
	}
}

TEST(smartt_cc_apply_text__sets_knobs)
{
	struct smartt_knobs k = smartt_profiles[SMARTT_PROFILE_SMARTT];
	struct strack_knobs t = strack_defaults;

	ASSERT_EQ(0, smartt_cc_apply_text("trtt=2 fi=0.5,trtt_abs=1\tmtu=9000", false, &k));
	EXPECT_EQ(2000000U, k.trtt);
	EXPECT_EQ(500000U, k.fi);
	EXPECT_EQ(1U, k.trtt_abs);
	EXPECT_EQ(9000U, k.mtu);
	ASSERT_EQ(0, smartt_cc_apply_text("  beta=1 ", true, &t));
	EXPECT_EQ(1000000U, t.beta);
	ASSERT_EQ(0, smartt_cc_apply_text("", true, &t));
}

TEST(smartt_cc_apply_text__rejects)
{
	struct smartt_knobs k = smartt_profiles[SMARTT_PROFILE_SMARTT];

	EXPECT_EQ(SMARTT_EINVAL, smartt_cc_apply_text("trtt", false, &k));
	EXPECT_EQ(SMARTT_EINVAL, smartt_cc_apply_text("nosuch=1", false, &k));
	EXPECT_EQ(SMARTT_EINVAL, smartt_cc_apply_text("beta=1", false, &k));
	EXPECT_EQ(SMARTT_EINVAL, smartt_cc_apply_text("mtu=1.5", false, &k));
	EXPECT_EQ(SMARTT_EINVAL, smartt_cc_apply_text("fi=", false, &k));
	EXPECT_EQ(SMARTT_EINVAL, smartt_cc_apply_text("=1", false, &k));
}

/* A string that fills the whole buffer: nothing is read past it. */
TEST(smartt_cc_apply_text__bounded)
{
	struct smartt_knobs k = smartt_profiles[SMARTT_PROFILE_SMARTT];
	char text[SMARTT_CC_KNOBS_LEN + 8];

	memset(text, ' ', sizeof(text));
	memcpy(text + SMARTT_CC_KNOBS_LEN - 5, "fi=19999", 8);
	text[sizeof(text) - 1] = '\0';
	/* the 255 characters read end after "fi=1" */
	ASSERT_EQ(0, smartt_cc_apply_text(text, false, &k));
	EXPECT_EQ(1000000U, k.fi);
}

TEST(smartt_cc_params_build__defaults)
{
	struct smartt_cc_params cp;
	struct smartt_cc_vals v;

	smartt_cc_vals_default(&v);
	ASSERT_EQ(0, smartt_cc_params_build(&cp, &v));
	EXPECT_EQ((u32)SMARTT_RULES_RTT, cp.sp.k.rules);
	EXPECT_EQ(1448U, cp.sp.k.mtu);
	EXPECT_EQ(1448U, cp.tp.k.mtu);
	EXPECT_EQ((u32)SMARTT_CC_PLACEHOLDER_MBPS, cp.sp.k.link_mbps);
	EXPECT_EQ(12000U, cp.sp.k.network_rtt);
	EXPECT_EQ(1U, cp.sp.k.learn_base_rtt);
	EXPECT_EQ(0U, cp.sp.k.trimming);
	EXPECT_EQ(0U, cp.link_mbps);
	EXPECT_EQ(0U, cp.base_rtt_ns);
	EXPECT_EQ(2U, cp.min_cwnd);
}

TEST(smartt_cc_params_build__values)
{
	struct smartt_cc_params cp;
	struct smartt_cc_vals v;

	smartt_cc_vals_default(&v);
	v.profile = SMARTT_PROFILE_2024;
	v.link_mbps = 1000;
	v.base_rtt_us = 100;
	v.start = SMARTT_CC_START_BDP;
	strcpy(v.smartt_knobs, "fi=1");
	strcpy(v.strack_knobs, "beta=2");
	ASSERT_EQ(0, smartt_cc_params_build(&cp, &v));
	EXPECT_EQ((u32)SMARTT_RULES_2024, cp.sp.k.rules);
	EXPECT_EQ(1000U, cp.sp.k.link_mbps);
	EXPECT_EQ(100000U, cp.sp.k.base_rtt);
	EXPECT_EQ(0U, cp.sp.k.learn_base_rtt);
	EXPECT_EQ(1000000U, cp.sp.k.fi);
	EXPECT_EQ(2000000U, cp.tp.k.beta);
	EXPECT_EQ(1000U, cp.link_mbps);
	EXPECT_EQ(100000U, cp.base_rtt_ns);
	EXPECT_EQ((u32)SMARTT_CC_START_BDP, cp.start);
}

TEST(smartt_cc_params_build__rejects)
{
	struct smartt_cc_params cp;
	struct smartt_cc_vals v;

#define REJECT(field, val) do {					\
		smartt_cc_vals_default(&v);				\
		v.field = (val);					\
		EXPECT_EQ(SMARTT_EINVAL, smartt_cc_params_build(&cp, &v)) \
			TH_LOG(#field " = " #val);			\
	} while (0)
	REJECT(profile, SMARTT_PROFILE_COUNT);
	REJECT(start, 2);
	REJECT(link_mbps, SMARTT_CC_LINK_MAX_MBPS + 1);
	REJECT(base_rtt_us, SMARTT_CC_RTT_MAX_US + 1);
	REJECT(network_rtt_us, 0);
	REJECT(network_rtt_us, SMARTT_CC_RTT_MAX_US + 1);
	REJECT(min_cwnd, 0);
	REJECT(min_cwnd, SMARTT_CC_MIN_CWND_MAX + 1);
	REJECT(mss, 10);
	REJECT(strack_loss, SMARTT_CC_STRACK_LOSS_MD + 1);
#undef REJECT
	smartt_cc_vals_default(&v);
	strcpy(v.smartt_knobs, "trtt=1");	/* below its range */
	EXPECT_EQ(SMARTT_EINVAL, smartt_cc_params_build(&cp, &v));
	smartt_cc_vals_default(&v);
	strcpy(v.strack_knobs, "nosuch=1");
	EXPECT_EQ(SMARTT_EINVAL, smartt_cc_params_build(&cp, &v));
}

TEST(smartt_cc_rec__conserves_one_round)
{
	struct smartt_cc_sock g = { .state = SMARTT_CC_S_CE };

	/* outside recovery the core's window holds */
	EXPECT_EQ(40U, smartt_cc_rec_pkts(&g, 40, 10, 1, 0, 2));
	smartt_cc_rec_state(&g, SMARTT_CC_CA_RECOVERY, 1000);
	EXPECT_EQ(SMARTT_CC_S_CE | SMARTT_CC_S_RECOVERY | SMARTT_CC_S_CONSERVE,
		  g.state);
	EXPECT_EQ(1000U, g.rec_round);
	/* one new segment per segment delivered, never above the core's */
	EXPECT_EQ(12U, smartt_cc_rec_pkts(&g, 40, 10, 2, 990, 2));
	EXPECT_EQ(8U, smartt_cc_rec_pkts(&g, 8, 10, 2, 995, 2));
	/* the floor: tcp_min_cwnd */
	EXPECT_EQ(2U, smartt_cc_rec_pkts(&g, 40, 0, 1, 999, 2));
	/* an ACK without delivery does not end the round */
	EXPECT_EQ(10U, smartt_cc_rec_pkts(&g, 40, 10, 0, 0, 2));
	/* a second Recovery call (still in it) does not restart the round */
	smartt_cc_rec_state(&g, SMARTT_CC_CA_RECOVERY, 5000);
	EXPECT_EQ(1000U, g.rec_round);
	/* data sent after recovery began is ACKed: the core's window */
	EXPECT_EQ(40U, smartt_cc_rec_pkts(&g, 40, 10, 2, 1000, 2));
	EXPECT_EQ(SMARTT_CC_S_CE | SMARTT_CC_S_RECOVERY, g.state);
	EXPECT_EQ(40U, smartt_cc_rec_pkts(&g, 40, 10, 2, 1001, 2));
	/* leaving recovery clears it; the CE bit is the receiver's */
	smartt_cc_rec_state(&g, SMARTT_CC_CA_OPEN, 2000);
	EXPECT_EQ(SMARTT_CC_S_CE, g.state);
}

TEST(smartt_cc_rec__wraps_and_rto)
{
	struct smartt_cc_sock g = { 0 };

	/* tp->delivered wraps within the round */
	smartt_cc_rec_state(&g, SMARTT_CC_CA_RECOVERY, U32_MAX - 5);
	EXPECT_EQ(7U, smartt_cc_rec_pkts(&g, 40, 5, 2, U32_MAX - 6, 2));
	EXPECT_EQ(40U, smartt_cc_rec_pkts(&g, 40, 5, 2, 3, 2));
	/* an RTO during recovery ends conservation (the loss window rules) */
	smartt_cc_rec_state(&g, SMARTT_CC_CA_RECOVERY, 10);
	smartt_cc_rec_state(&g, SMARTT_CC_CA_RECOVERY, 10);
	g.state |= SMARTT_CC_S_CONSERVE;
	smartt_cc_rec_state(&g, SMARTT_CC_CA_LOSS, 20);
	EXPECT_EQ(SMARTT_CC_S_CUT, g.state);
	EXPECT_EQ(40U, smartt_cc_rec_pkts(&g, 40, 1, 1, 0, 2));
	/* recovery after the loss state starts a new round */
	smartt_cc_rec_state(&g, SMARTT_CC_CA_RECOVERY, 30);
	EXPECT_EQ(30U, g.rec_round);
	EXPECT_EQ(3U, smartt_cc_rec_pkts(&g, 40, 2, 1, 29, 2));
}

TEST(smartt_cc_strack_loss__once_per_episode)
{
	struct smartt_cc_sock g = { 0 };
	struct strack_params p;
	struct strack_state st;
	struct strack_knobs k = strack_defaults;

	k.mtu = 1000;
	ASSERT_EQ(0, strack_params_init(&p, &k));
	strack_init(&st, &p, 64000);
	st.cwnd = 64000;
	smartt_cc_rec_state(&g, SMARTT_CC_CA_RECOVERY, 1);
	/* the first loss of the episode: x md_min (0.5) */
	EXPECT_EQ((u32)STRACK_R_MD, smartt_cc_strack_loss(&g, &st, &p));
	EXPECT_EQ(32000U, st.cwnd);
	/* the rest of the episode's losses change nothing */
	EXPECT_EQ(0U, smartt_cc_strack_loss(&g, &st, &p));
	EXPECT_EQ(32000U, st.cwnd);
	/* the episode ends: the next one cuts again */
	smartt_cc_rec_state(&g, SMARTT_CC_CA_OPEN, 2);
	smartt_cc_rec_state(&g, SMARTT_CC_CA_RECOVERY, 3);
	EXPECT_EQ((u32)STRACK_R_MD, smartt_cc_strack_loss(&g, &st, &p));
	EXPECT_EQ(16000U, st.cwnd);
	/* an RTO's loss window counts as the episode's cut */
	smartt_cc_rec_state(&g, SMARTT_CC_CA_LOSS, 4);
	EXPECT_EQ(0U, smartt_cc_strack_loss(&g, &st, &p));
	/* never below one packet */
	smartt_cc_rec_state(&g, SMARTT_CC_CA_OPEN, 5);
	st.cwnd = 1500;
	EXPECT_EQ((u32)(STRACK_R_MD | STRACK_R_CLAMPED), smartt_cc_strack_loss(&g, &st, &p));
	EXPECT_EQ(1000U, st.cwnd);
}

TEST(smartt_cc_undo_bytes__bounds)
{
	/* the window before the recovery comes back */
	EXPECT_EQ(14480ULL, smartt_cc_undo_bytes(2896, 10, 1448, 1000, 100000));
	/* a larger core window stays */
	EXPECT_EQ(50000ULL, smartt_cc_undo_bytes(50000, 10, 1448, 1000, 100000));
	/* within the core's bound ... */
	EXPECT_EQ(100000ULL, smartt_cc_undo_bytes(2896, 1000, 1448, 1000, 100000));
	/* ... and at least its smallest window, even with a bound below it */
	EXPECT_EQ(1000ULL, smartt_cc_undo_bytes(0, 0, 1448, 1000, 500));
}

TEST(smartt_cc_rate_step__steps)
{
	u32 slot, prev_slot = 0, r, prev = 0;

	/* below 16 Mbit/s every rate is its own step */
	EXPECT_EQ(1U, smartt_cc_rate_step(1, &slot));
	EXPECT_EQ(1U, slot);
	EXPECT_EQ(15U, smartt_cc_rate_step(15, &slot));
	EXPECT_EQ(15U, slot);
	EXPECT_EQ(16U, smartt_cc_rate_step(16, &slot));
	EXPECT_EQ(16U, slot);
	/* 16 per octave: 1000 = 0b1111101000 -> 31 x 32 = 992 */
	EXPECT_EQ(992U, smartt_cc_rate_step(1000, &slot));
	EXPECT_EQ(992U, smartt_cc_rate_step(1023, &slot));
	EXPECT_EQ(1024U, smartt_cc_rate_step(1024, &slot));
	/* the largest rate, and above it, in the last slots */
	EXPECT_EQ(9961472U, smartt_cc_rate_step(SMARTT_CC_RATE_MAX, &slot));
	EXPECT_LT(slot, SMARTT_CC_RATE_SLOTS);
	EXPECT_EQ(9961472U, smartt_cc_rate_step(~0U, &slot));
	/* every rate: at most 1/16 below, never above; slots grow with it */
	for (r = 1; r <= SMARTT_CC_RATE_MAX; r += r / 97 + 1) {
		u32 st = smartt_cc_rate_step(r, &slot);

		ASSERT_LE(st, r);
		ASSERT_GE((u64)st * 17, (u64)r * 16);
		ASSERT_LT(slot, SMARTT_CC_RATE_SLOTS);
		ASSERT_GE(slot, prev_slot);
		ASSERT_EQ(st == prev, slot == prev_slot);
		prev = st;
		prev_slot = slot;
	}
}

TEST(smartt_cc_idle_bytes__restart)
{
	/* less than one RTO of idleness: unchanged */
	EXPECT_EQ(100000ULL, smartt_cc_idle_bytes(100000, 14480, 50, 50));
	EXPECT_EQ(100000ULL, smartt_cc_idle_bytes(100000, 14480, 10, 50));
	/* tcp_cwnd_restart(): one halving per RTO beyond the first */
	EXPECT_EQ(50000ULL, smartt_cc_idle_bytes(100000, 14480, 51, 50));
	EXPECT_EQ(50000ULL, smartt_cc_idle_bytes(100000, 14480, 100, 50));
	EXPECT_EQ(25000ULL, smartt_cc_idle_bytes(100000, 14480, 101, 50));
	/* never below the restart window */
	EXPECT_EQ(14480ULL, smartt_cc_idle_bytes(100000, 14480, 1000, 50));
	/* a window below the restart window stays */
	EXPECT_EQ(8000ULL, smartt_cc_idle_bytes(8000, 14480, 1000, 50));
	/* no RTO (not armed yet): unchanged; at most 64 halvings */
	EXPECT_EQ(100000ULL, smartt_cc_idle_bytes(100000, 14480, 1000, 0));
	EXPECT_EQ(1ULL, smartt_cc_idle_bytes(~0ULL, 1, ~0U, 1));
	EXPECT_EQ(0ULL, smartt_cc_idle_bytes(~0ULL, 0, ~0U, 1));
}

TEST(smartt_cc_pkts__bounds)
{
	EXPECT_EQ(2U, smartt_cc_pkts(1, 1448, 2, 1000));
	EXPECT_EQ(10U, smartt_cc_pkts(14480, 1448, 2, 1000));
	EXPECT_EQ(1000U, smartt_cc_pkts(1ULL << 40, 1448, 2, 1000));
	EXPECT_EQ(1U, smartt_cc_pkts(0, 0, 2, 0));
}

TEST(smartt_cc_rate_sample_mbps__scales)
{
	/* 100 packets of 1250 bytes in 1000 us = 1000 Mbit/s */
	EXPECT_EQ(1000U, smartt_cc_rate_sample_mbps(100, 1250, 1000, 0, 0));
	/* srtt twice the minimum: the estimate doubles */
	EXPECT_EQ(2000U, smartt_cc_rate_sample_mbps(100, 1250, 1000, 200, 100));
	/* srtt below the minimum (stale): factor 1 */
	EXPECT_EQ(1000U, smartt_cc_rate_sample_mbps(100, 1250, 1000, 50, 100));
	/* saturates at the largest link rate */
	EXPECT_EQ((u64)SMARTT_CC_RATE_MAX,
		  smartt_cc_rate_sample_mbps(U32_MAX, 65535, 1, U32_MAX - 1, 1));
}

TEST(smartt_cc_base_rtt_next__rules)
{
	u8 known = 0;

	EXPECT_EQ(5000U, smartt_cc_base_rtt_next(false, &known, 1000, 5000, 0));
	EXPECT_EQ(0U, known);
	EXPECT_EQ(5000U, smartt_cc_base_rtt_next(true, &known, 0, 5000, 0));
	EXPECT_EQ(0U, known);
	/* the first data sample replaces the handshake's, up or down */
	EXPECT_EQ(9000U, smartt_cc_base_rtt_next(true, &known, 9000, 5000, 0));
	EXPECT_EQ(1U, known);
	/* then only the windowed minimum moves it, and only up */
	EXPECT_EQ(9000U, smartt_cc_base_rtt_next(true, &known, 100, 9000, 8000));
	EXPECT_EQ(9500U, smartt_cc_base_rtt_next(true, &known, 100, 9000, 9500));
	known = 0;
	EXPECT_EQ((u32)SMARTT_RTT_MIN_NS, smartt_cc_base_rtt_next(true, &known, 1, 9000, 0));
}

TEST(smartt_cc_pacing_rate__ratio)
{
	/* 10 x 1000 B per 100 us x 1.2 = 120 MB/s */
	EXPECT_EQ(120000000U, smartt_cc_pacing_rate(10, 1000, 100, 0));
	/* no srtt yet: the base RTT */
	EXPECT_EQ(120000000U, smartt_cc_pacing_rate(10, 1000, 0, 100000));
	EXPECT_EQ(12000000000ULL, smartt_cc_pacing_rate(10, 1000, 0, 0));
}

TEST_HARNESS_MAIN
