/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test vectors for kernel/algo/smartt.c, shared by the userspace unit tests
 * (selftests/unit/unit_smartt.c) and the KUnit suite (smartt_kunit.c).
 *
 * Each vector starts a flow of one profile (with a few knobs overridden),
 * feeds it events and gives, after each event, the window and the exact set
 * of rules (SMARTT_R_*) that must have fired.  Every number is worked out by
 * hand from the paper/reference formula in the comment next to it; the
 * rounding is the core's (Q.16 gains, ppm fractions, floor everywhere).
 *
 * Reference network of every profile unless overridden: 100 Gb/s, base RTT
 * = network RTT = 12 us, so BDP = 100000 x 12000 / 8000 = 150000 B and
 * every BDP scaling factor is 1.
 *   smartt-2024: mtu 4096, trtt 18000 ns, maxwnd 1.25 BDP = 187500,
 *     fi 0.25 (Q.16 16384), mi = brtt/(trtt-brtt) = 2 (131072), md 2
 *     (131072), fd 0.8 (Q.16 52428), FastIncrease 2 MTU = 8192 B.
 *   smartt: mtu 4096, trtt 18000, maxwnd 1.5 BDP = 225000, gamma 0.8,
 *     delay EWMA 0.125.
 *   nscc: mtu 4160, MSS 4096, target_qdelay 0.75 x 12000 = 9000 ns,
 *     maxwnd 225000, fi = 5 MSS = 20480 B, alpha = 4 MSS / 12 us =
 *     1.3653 B/ns (Q.16 floor(4 x 4096 x 65536 / 12000) = 89478),
 *     eta = floor(0.15 x 4096) = 614 B, FastIncrease 0.25 x nb,
 *     QA window base_rtt + target = 21000 ns, QA gate 225000 >> 3 = 28125,
 *     fulfill after > 8 x 4160 = 33280 B or > 12000 ns.
 */
#ifndef SMARTT_VECTORS_SMARTT_H
#define SMARTT_VECTORS_SMARTT_H

#include "vectors_common.h"

enum { SV_ACK = 0, SV_NACK = 1, SV_TIMEOUT = 2 };

struct smartt_vec_step {
	u8 ev;
	u64 now;
	u32 rtt;
	u32 bytes;
	u64 in_flight;
	u8 ecn;
	u64 cwnd;	/* expected window after the event */
	u32 rules;	/* expected SMARTT_R_* bits */
};

struct smartt_vec_set {
	const char *knob;
	u32 val;
};

#define SV_MAX_STEPS	8

struct smartt_vec {
	const char *name;
	u8 profile;
	struct smartt_vec_set set[3];
	u64 cwnd0;
	u64 avg_delay0_ns;
	u32 wtd0;
	unsigned int nsteps;
	struct smartt_vec_step steps[SV_MAX_STEPS];
};

#define A(t, r, b, f, e, c, rl)	{ SV_ACK, t, r, b, f, e, c, rl }
#define N(t, r, b, f, c, rl)	{ SV_NACK, t, r, b, f, 0, c, rl }
#define T(t, b, f, c, rl)	{ SV_TIMEOUT, t, 0, b, f, 0, c, rl }

static const struct smartt_vec smartt_vectors[] = {
	/*
	 * 2024 Eq. 3, fair increase (no ECN, rtt 20000 > trtt 18000):
	 * nb x mtu x fi / cwnd = 4096 x 4096 x 0.25 / 100000 = 41.94 -> +41.
	 */
	{ "2024_fair_increase", SMARTT_PROFILE_2024, {}, 100000, 0, 0, 1, {
		A(1000, 20000, 4096, 0, 0, 100041, SMARTT_R_FI),
	} },
	/*
	 * 2024 Eq. 4 then Eq. 3 (no ECN, rtt = brtt = 12000 <= trtt):
	 * MI: (18000-12000)/12000 x 4096/100000 x 4096 x mi(2) = 167.77 -> +167
	 * = 100167; FI with the new cwnd: 4194304 / 100167 = 41.87 -> 100208.
	 */
	{ "2024_mi_then_fi", SMARTT_PROFILE_2024, {}, 100000, 0, 0, 1, {
		A(1000, 12000, 4096, 0, 0, 100208, SMARTT_R_PI | SMARTT_R_FI),
	} },
	/*
	 * 2024 Alg. 3 FastIncrease, cwnd0 = 8192, uncongested ACKs (delay 0):
	 * 1: count 4096 <= cwnd: MI 16777216/8192 = 2048 -> 10240, FI
	 *    4194304/10240 = 409 -> 10649
	 * 2: count 8192 <= 10649: MI 16777216/10649 = 1575 -> 12224,
	 *    FI 4194304/12224 = 343 -> 12567
	 * 3: count 12288 <= 12567: MI 16777216/12567 = 1335 -> 13902,
	 *    FI 4194304/13902 = 301 -> 14203
	 * 4: count 16384 > 14203: +k x mtu = +8192 -> 22395
	 * 5: still increasing: +8192 -> 30587
	 * 6: delay 8000 > 1000 ends it; FI 4194304/30587 = 137 -> 30724
	 */
	{ "2024_fast_increase", SMARTT_PROFILE_2024, {}, 8192, 0, 0, 6, {
		A(1000, 12000, 4096, 0, 0, 10649, SMARTT_R_PI | SMARTT_R_FI),
		A(2000, 12000, 4096, 0, 0, 12567, SMARTT_R_PI | SMARTT_R_FI),
		A(3000, 12000, 4096, 0, 0, 14203, SMARTT_R_PI | SMARTT_R_FI),
		A(4000, 12000, 4096, 0, 0, 22395, SMARTT_R_FAST_INC),
		A(5000, 12000, 4096, 0, 0, 30587, SMARTT_R_FAST_INC),
		A(6000, 20000, 4096, 0, 0, 30724, SMARTT_R_FI),
	} },
	/*
	 * 2024 Wait-to-Decrease, alpha 0.05, threshold 0.25, ECN ACKs:
	 * avg_wtd = 0.05, 0.0975, 0.142625, 0.185493, 0.226218 (< 0.25: hold),
	 * 6th: 0.05 + 0.95 x 0.226218 = 0.264907 >= 0.25: fair decrease
	 * (rtt 12000 <= trtt): cwnd/bdp x fd x nb = floor(100000 x 4096 /
	 * 150000) = 2730 x 0.8 (Q.16) = 2183 -> 97817.
	 * 7th, rtt 24000 > trtt: MD (24000-18000)/24000 x 2 x 4096 = 2048
	 * plus FD floor(97817 x 4096 / 150000) = 2671 x 0.8 = 2136, total
	 * 4184 capped at one packet 4096 -> 93721.
	 */
	{ "2024_wtd_fd_md", SMARTT_PROFILE_2024, {}, 100000, 0, 0, 7, {
		A(1000, 12000, 4096, 0, 1, 100000, SMARTT_R_WTD_HOLD),
		A(2000, 12000, 4096, 0, 1, 100000, SMARTT_R_WTD_HOLD),
		A(3000, 12000, 4096, 0, 1, 100000, SMARTT_R_WTD_HOLD),
		A(4000, 12000, 4096, 0, 1, 100000, SMARTT_R_WTD_HOLD),
		A(5000, 12000, 4096, 0, 1, 100000, SMARTT_R_WTD_HOLD),
		A(6000, 12000, 4096, 0, 1, 97817, SMARTT_R_FD),
		A(7000, 24000, 4096, 0, 1, 93721, SMARTT_R_MD),
	} },
	/*
	 * 2024 md = 2 derivation: at rtt = 2 x trtt = 36000 the MD term is
	 * (36000-18000)/36000 x 2 x 4096 = exactly one packet -> 95904.
	 * At rtt 27000: 9000/27000 (Q.16 21845) x 2 x 4096 = 2730 -> 93174.
	 * At rtt = trtt (18000) the ACK is a fair-decrease case; fd = 0 here.
	 */
	{ "2024_md_constant", SMARTT_PROFILE_2024,
	  { { "fd", 0 }, { "wtd_enable", 0 } }, 100000, 0, 0, 3, {
		A(1000, 36000, 4096, 0, 1, 95904, SMARTT_R_MD),
		A(2000, 27000, 4096, 0, 1, 93174, SMARTT_R_MD),
		A(3000, 18000, 4096, 0, 1, 93174, SMARTT_R_FD),
	} },
	/*
	 * 2024 Fig. 4, 2:1 incast, 4-packet start window, qa_scaling 1 as in
	 * the figure.  ACKs are ECN-marked with rtt 20000 but WTD (avg < 0.25)
	 * holds every decrease.  t=12000 first ACK opens the QA window
	 * (end 12000 + trtt = 30000).  t=14000 trim: cwnd -= 4096 = 12288,
	 * trigger_qa.  ACKs at 20000, 28000 are the 2 packets delivered in the
	 * window.  t=31000 trim: cwnd 8192, then QuickAdapt: window ended,
	 * cwnd = max(acked = 8192, mtu) = 2 packets, ignore the 8192 B in
	 * flight.  t=33000 ACK is ignored (4096 < 8192); t=35000 is not.
	 */
	{ "2024_qa_fig4", SMARTT_PROFILE_2024,
	  { { "qa_scaling", 1000000 } }, 16384, 0, 0, 7, {
		A(12000, 20000, 4096, 12288, 1, 16384, SMARTT_R_WTD_HOLD),
		N(14000, 0, 4096, 8192, 12288, SMARTT_R_LOSS_DEC),
		A(20000, 20000, 4096, 8192, 1, 12288, SMARTT_R_WTD_HOLD),
		A(28000, 20000, 4096, 8192, 1, 12288, SMARTT_R_WTD_HOLD),
		N(31000, 0, 4096, 8192, 8192, SMARTT_R_LOSS_DEC | SMARTT_R_QA),
		A(33000, 20000, 4096, 8192, 1, 8192, SMARTT_R_IGNORED),
		A(35000, 20000, 4096, 8192, 1, 8192, SMARTT_R_WTD_HOLD),
	} },
	/* Same with the paper's qa_scaling 0.8: 8192 x 0.8 = 6553.6 -> 6553. */
	{ "2024_qa_scaled", SMARTT_PROFILE_2024, {}, 16384, 0, 0, 6, {
		A(12000, 20000, 4096, 12288, 1, 16384, SMARTT_R_WTD_HOLD),
		N(14000, 0, 4096, 8192, 12288, SMARTT_R_LOSS_DEC),
		A(20000, 20000, 4096, 8192, 1, 12288, SMARTT_R_WTD_HOLD),
		A(28000, 20000, 4096, 8192, 1, 12288, SMARTT_R_WTD_HOLD),
		N(31000, 0, 4096, 8192, 6553, SMARTT_R_LOSS_DEC | SMARTT_R_QA),
		A(33000, 20000, 4096, 8192, 1, 6553, SMARTT_R_IGNORED),
	} },
	/* Without trimming a timeout plays the trim's part (2024 Sec. 3.3). */
	{ "2024_qa_timeout", SMARTT_PROFILE_2024,
	  { { "qa_scaling", 1000000 }, { "trimming", 0 } }, 16384, 0, 0, 5, {
		A(12000, 20000, 4096, 12288, 1, 16384, SMARTT_R_WTD_HOLD),
		T(14000, 4096, 8192, 12288, SMARTT_R_LOSS_DEC),
		A(20000, 20000, 4096, 8192, 1, 12288, SMARTT_R_WTD_HOLD),
		A(28000, 20000, 4096, 8192, 1, 12288, SMARTT_R_WTD_HOLD),
		T(31000, 4096, 8192, 8192, SMARTT_R_LOSS_DEC | SMARTT_R_QA),
	} },
	/* smartt: ECN with rtt 15000 <= trtt changes nothing but the path. */
	{ "smartt_ecn_low_rtt_noop", SMARTT_PROFILE_SMARTT, {}, 100000, 0, 0, 1, {
		A(1000, 15000, 4096, 0, 1, 100000, SMARTT_R_NOOP),
	} },
	/*
	 * smartt MD, avg delay 12000 (avg rtt 24000 > trtt 18000):
	 * cwnd x max(0.5, 1 - 0.8 x (24000-18000)/24000) = 0.8 x cwnd.
	 * t=100000: 80000.  t=105000: within one base RTT of the last MD:
	 * held.  t=112001: 12001 ns > base RTT: 64000.
	 */
	{ "smartt_md_once_per_brtt", SMARTT_PROFILE_SMARTT, {}, 100000, 12000, 0, 3, {
		A(100000, 24000, 4096, 0, 1, 80000, SMARTT_R_MD),
		A(105000, 24000, 4096, 0, 1, 80000, SMARTT_R_MD_HELD),
		A(112001, 24000, 4096, 0, 1, 64000, SMARTT_R_MD),
	} },
	/*
	 * trtt_abs: the target is base + target_qdelay = 12000 + 3000, not
	 * 1.5 x 12000.  ECN at rtt 15000: no-op (avg delay 4000 -> 3875);
	 * ECN at rtt 16000 (a no-op under the 18000 ratio target): avg
	 * delay 3890.6, avg rtt 15890.6 > 15000: MD,
	 * 1 - 0.8 x 890.6/15890.6 = 0.9552 (Q.16 factor: 95519).
	 */
	{ "smartt_abs_target", SMARTT_PROFILE_SMARTT,
	  { { "trtt_abs", 1 }, { "target_qdelay", 3000 } }, 100000, 4000, 0, 2, {
		A(100000, 15000, 4096, 0, 1, 100000, SMARTT_R_NOOP),
		A(100001, 16000, 4096, 0, 1, 95519, SMARTT_R_MD),
	} },
	/* avg rtt 112000: 1 - 0.8 x 94000/112000 = 0.33 < 0.5 -> halve. */
	{ "smartt_md_floor", SMARTT_PROFILE_SMARTT, {}, 100000, 100000, 0, 1, {
		A(100000, 112000, 4096, 0, 1, 50000, SMARTT_R_MD),
	} },
	/*
	 * smartt fair increase scaled by the path BDP: base RTT 6000 ->
	 * BDP 75000 = half the reference, fi 0.25 x 0.5: trtt 9000,
	 * 4096 x 4096 x 0.125 / 50000 = 41.9 -> 50041.
	 */
	{ "smartt_fi_path_bdp", SMARTT_PROFILE_SMARTT,
	  { { "base_rtt", 6000 } }, 50000, 0, 0, 1, {
		A(1000, 10000, 4096, 0, 0, 50041, SMARTT_R_FI | SMARTT_R_ADJUST),
	} },
	/*
	 * smartt proportional + fair increase accumulated then applied once:
	 * (16777216 + 4194304) / 100000 = 209.7 -> 100209.
	 */
	{ "smartt_pi_fi", SMARTT_PROFILE_SMARTT, {}, 100000, 0, 0, 1, {
		A(1000, 12000, 4096, 0, 0, 100209,
		  SMARTT_R_PI | SMARTT_R_FI | SMARTT_R_ADJUST),
	} },
	/* Adjustment period of 4 ACKs: 4 x 4194304 / 100000 = 167 at the 4th. */
	{ "smartt_adjust_acks", SMARTT_PROFILE_SMARTT,
	  { { "adjust_acks", 4 } }, 100000, 0, 0, 4, {
		A(1000, 20000, 4096, 0, 0, 100000, SMARTT_R_FI),
		A(2000, 20000, 4096, 0, 0, 100000, SMARTT_R_FI),
		A(3000, 20000, 4096, 0, 0, 100000, SMARTT_R_FI),
		A(4000, 20000, 4096, 0, 0, 100167, SMARTT_R_FI | SMARTT_R_ADJUST),
	} },
	/*
	 * Accumulate up to a base RTT (adjust_rtt, n = 65535 ACKs): ACKs at
	 * 1000 and 5000 ns only accumulate 4194304 each; at 12500 ns, 12500 >=
	 * 12000 since the last adjustment (t = 0): 3 x 4194304 / 100000 =
	 * 125.8 -> 100125.
	 */
	{ "smartt_adjust_rtt", SMARTT_PROFILE_SMARTT,
	  { { "adjust_acks", 65535 }, { "adjust_rtt", 1 } }, 100000, 0, 0, 3, {
		A(1000, 20000, 4096, 0, 0, 100000, SMARTT_R_FI),
		A(5000, 20000, 4096, 0, 0, 100000, SMARTT_R_FI),
		A(12500, 20000, 4096, 0, 0, 100125, SMARTT_R_FI | SMARTT_R_ADJUST),
	} },
	/*
	 * smartt QuickAdapt without trimming: delay trigger 4 x (trtt - brtt)
	 * = 24000 ns, gate cwnd >> 3 = 25000.  t=1000 opens the window (end
	 * 19000) and MD is held (first base RTT).  t=19000: window ended,
	 * delay 28000 > 24000 and acked 4096 < 25000: cwnd = 4096, ignore the
	 * 96000 B in flight; the next ACK is ignored.
	 */
	{ "smartt_qa_no_trim", SMARTT_PROFILE_SMARTT,
	  { { "trimming", 0 } }, 200000, 0, 0, 3, {
		A(1000, 40000, 4096, 100000, 1, 200000, SMARTT_R_MD_HELD),
		A(19000, 40000, 4096, 96000, 1, 4096, SMARTT_R_QA),
		A(20000, 40000, 4096, 92000, 1, 4096, SMARTT_R_IGNORED),
	} },
	/*
	 * Same, but 30000 B acked in the window: gate closed, no QuickAdapt.
	 * avg delay 0.125 x 28000 = 3500, then 3500 + 0.875 x 3500 = 6562;
	 * avg rtt 18562 > 18000 -> MD 1 - 0.8 x 562/18562 = 0.975779 ->
	 * 200000 x 0.975779 = 195155.
	 */
	{ "smartt_qa_gate", SMARTT_PROFILE_SMARTT,
	  { { "trimming", 0 } }, 200000, 0, 0, 2, {
		A(1000, 40000, 4096, 100000, 1, 200000, SMARTT_R_MD_HELD),
		A(19000, 40000, 30000, 96000, 1, 195155, SMARTT_R_MD),
	} },
	/*
	 * nscc fair increase (delay 9000 >= target 9000, no ECN): inc +=
	 * 20480 x 4160 = 85196800 per ACK.  The second ACK is > 12000 ns after
	 * the last adjustment: fulfill 170393600 / 100000 = 1703, + eta 614.
	 */
	{ "nscc_fi_fulfill_eta", SMARTT_PROFILE_NSCC, {}, 100000, 0, 0, 2, {
		A(1000, 21000, 4160, 0, 0, 100000, SMARTT_R_FI),
		A(13000, 21000, 4160, 0, 0, 102317,
		  SMARTT_R_FI | SMARTT_R_ADJUST | SMARTT_R_ETA),
	} },
	/*
	 * nscc proportional increase, delay 2000: inc += alpha x nb x (9000 -
	 * 2000) = 89478/65536 x 4160 x 7000 = 39758290 (reference: 1.36533e-3
	 * B/ps x 4160 x 7e6 ps = 39758506).  Two ACKs, then fulfill:
	 * 79516580 / 100000 = 795, + eta 614 = 101409.
	 */
	{ "nscc_pi", SMARTT_PROFILE_NSCC, {}, 100000, 0, 0, 2, {
		A(1000, 14000, 4160, 0, 0, 100000, SMARTT_R_PI),
		A(13000, 14000, 4160, 0, 0, 101409,
		  SMARTT_R_PI | SMARTT_R_ADJUST | SMARTT_R_ETA),
	} },
	/*
	 * nscc MD on queuing delays: avg 20000 > target 9000, ECN, delay
	 * 20000 >= target: 1 - 0.8 x (20000-9000)/20000 = 0.56 -> 56000; the
	 * same ACK is > 12000 ns after the last eta: + 614 = 56614.
	 */
	{ "nscc_md", SMARTT_PROFILE_NSCC, {}, 100000, 20000, 0, 1, {
		A(20000, 32000, 4160, 0, 1, 56614,
		  SMARTT_R_MD | SMARTT_R_ADJUST | SMARTT_R_ETA),
	} },
	{ "nscc_ecn_low_delay_noop", SMARTT_PROFILE_NSCC, {}, 100000, 0, 0, 1, {
		A(1000, 13000, 4160, 0, 1, 100000, SMARTT_R_NOOP),
	} },
	/*
	 * nscc QuickAdapt on a trim: t=1000 opens the window (end 1000 +
	 * 21000 = 22000).  t=5000 NACK: window not over, cwnd -= 4160.
	 * t=22001: acked in window 2 x 4160 = 8320 < gate 28125 -> cwnd 8320,
	 * ignore 47520 B.  t=23000 ECN ACK ignored.  t=24000 clean ACK: the
	 * FastIncrease count (4160 + 4160 + 4160 = 12480 > 8320) fires:
	 * +0.25 x 4160 = 1040; then fulfill (> 12000 ns): + eta 614 = 9974.
	 */
	{ "nscc_qa_nack", SMARTT_PROFILE_NSCC, {}, 100000, 0, 0, 6, {
		A(1000, 12000, 4160, 60000, 0, 100000, SMARTT_R_PI),
		N(5000, 0, 4160, 55840, 95840, SMARTT_R_LOSS_DEC),
		A(10000, 12000, 4160, 51680, 0, 95840, SMARTT_R_PI),
		A(22001, 12000, 4160, 47520, 0, 8320, SMARTT_R_QA),
		A(23000, 12000, 4160, 43360, 1, 8320, SMARTT_R_IGNORED),
		A(24000, 12000, 4160, 39200, 0, 9974,
		  SMARTT_R_FAST_INC | SMARTT_R_ADJUST | SMARTT_R_ETA),
	} },
	/*
	 * nscc QuickAdapt from delay alone (no trim): t=1000 opens the window
	 * (over from 1000 + 21000 + 1); the ECN ACK's MD is held (avg 500 ns
	 * < target).  t=22001: delay 40000 > 4 x 9000 and 4160 acked < 28125:
	 * cwnd = 4160, ignore 50000 B.  A NACK in the ignore phase is
	 * swallowed.
	 */
	{ "nscc_qa_delay", SMARTT_PROFILE_NSCC, {}, 100000, 0, 0, 3, {
		A(1000, 52000, 4160, 54000, 1, 100000, SMARTT_R_MD_HELD),
		A(22001, 52000, 4160, 50000, 1, 4160, SMARTT_R_QA),
		N(23000, 0, 4160, 45840, 4160, SMARTT_R_IGNORED),
	} },
	/* nscc FastIncrease: count 12480 > 8320 at the 3rd ACK, +1040 each. */
	{ "nscc_fast_increase", SMARTT_PROFILE_NSCC, {}, 8320, 0, 0, 5, {
		A(1000, 12000, 4160, 0, 0, 8320, SMARTT_R_PI),
		A(2000, 12000, 4160, 0, 0, 8320, SMARTT_R_PI),
		A(3000, 12000, 4160, 0, 0, 9360, SMARTT_R_FAST_INC),
		A(4000, 12000, 4160, 0, 0, 10400, SMARTT_R_FAST_INC),
		A(5000, 14000, 4160, 0, 0, 10400, SMARTT_R_PI),
	} },
	/* nscc timeout: cwnd -= size, never below one MTU. */
	{ "nscc_timeout", SMARTT_PROFILE_NSCC, {}, 100000, 0, 0, 2, {
		T(1000, 4160, 0, 95840, SMARTT_R_LOSS_DEC),
		T(2000, 200000, 0, 4160, SMARTT_R_LOSS_DEC | SMARTT_R_CLAMPED),
	} },
	/*
	 * Learned base RTT: a 6000 ns sample halves BDP (75000) and maxwnd
	 * (1.5 x 75000 = 112500); the 225000 start window is clamped.
	 */
	{ "nscc_base_rtt_learned", SMARTT_PROFILE_NSCC, {}, 0, 0, 0, 1, {
		A(1000, 6000, 4160, 0, 0, 112500, SMARTT_R_PI | SMARTT_R_CLAMPED),
	} },
};

#undef A
#undef N
#undef T

/*
 * Build the knobs of a vector: the profile's preset plus its overrides.
 * Return: 0, or SMARTT_EINVAL for an unknown knob or invalid combination.
 */
static inline int smartt_vec_params(const struct smartt_vec *v,
				    struct smartt_params *p)
{
	struct smartt_knobs k = smartt_profiles[v->profile];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v->set) && v->set[i].knob; i++) {
		int idx = smartt_knob_find(v->set[i].knob);

		if (idx < 0)
			return idx;
		smartt_knob_set(&k, idx, v->set[i].val);
	}
	return smartt_params_init(p, &k);
}

/*
 * Run one vector.  Return: the index of the first step whose window or
 * rules differ (with what was seen in *cwnd / *rules), v->nsteps if all
 * match, or -1 if the knobs are rejected.
 */
static inline int smartt_vec_run(const struct smartt_vec *v, u64 *cwnd,
				 u32 *rules)
{
	struct smartt_params p;
	struct smartt_state s;
	unsigned int i;

	if (smartt_vec_params(v, &p))
		return -1;
	smartt_init(&s, &p, v->cwnd0);
	s.avg_delay = v->avg_delay0_ns * 1000;
	s.wtd = v->wtd0;
	for (i = 0; i < v->nsteps; i++) {
		const struct smartt_vec_step *st = &v->steps[i];
		struct smartt_event e = {
			.now = st->now, .rtt = st->rtt, .bytes = st->bytes,
			.in_flight = st->in_flight, .ecn = st->ecn,
		};

		if (st->ev == SV_ACK)
			*rules = smartt_on_ack(&s, &p, &e);
		else if (st->ev == SV_NACK)
			*rules = smartt_on_nack(&s, &p, &e);
		else
			*rules = smartt_on_timeout(&s, &p, &e);
		*cwnd = s.cwnd;
		if (*cwnd != st->cwnd || *rules != st->rules)
			return i;
	}
	return i;
}

/*
 * Random flows: link 1 Gb/s .. 1.6 Tb/s, RTT 1 us .. 10 ms, every profile,
 * @events random ACK/NACK/timeout events with RTTs from 0.5 to 20 x base and
 * random ECN and byte counts up to 4 GiB.  After every event the window is
 * within [mtu, maxwnd(current base RTT)].  UBSan catches any overflow.
 * Returns a digest of the run for the determinism test.
 */
static inline u64 smartt_vec_random_run(u64 seed, int events, int *violations)
{
	static const u32 rates[] = { 1000, 10000, 100000, 400000, 800000, 1600000 };
	static const u32 rtts[] = { 1000, 4000, 12000, 100000, 1000000, 10000000 };
	u64 x = seed, digest = 0, now = 0;
	struct smartt_params p;
	struct smartt_state s;
	struct smartt_knobs k;
	int i;

	k = smartt_profiles[vec_mod(smartt_prng_next(&x), SMARTT_PROFILE_COUNT)];
	k.link_mbps = rates[vec_mod(smartt_prng_next(&x), ARRAY_SIZE(rates))];
	k.network_rtt = rtts[vec_mod(smartt_prng_next(&x), ARRAY_SIZE(rtts))];
	k.trimming = smartt_prng_next(&x) & 1;
	k.mtu = (smartt_prng_next(&x) & 1) ? 9000 : 1500;
	if (k.rules == SMARTT_RULES_NSCC)
		k.hdr_bytes = 64;
	if (smartt_params_init(&p, &k))
		return 0;
	smartt_init(&s, &p, vec_mod(smartt_prng_next(&x), 4 * smartt_maxwnd(&p, p.base_rtt0) + 1));
	for (i = 0; i < events; i++) {
		u64 r = smartt_prng_next(&x);
		struct smartt_event e = {
			.now = now += vec_mod(r, 2 * k.network_rtt),
			.rtt = (r >> 8) & 7 ? (u32)min_t(u64,
				(u64)p.base_rtt0 / 2 + vec_mod(r >> 16, 20ULL * p.base_rtt0),
				U32_MAX) : 0,
			.bytes = (r >> 40) & 0xff ? (u32)vec_mod(r >> 44, 4 * k.mtu) + 1 :
				 (u32)(r >> 32),
			.in_flight = vec_mod(smartt_prng_next(&x), 2 * s.cwnd + 1),
			.ecn = (r >> 12) & 1,
		};
		u32 kind = (r >> 20) & 31;

		if (kind == 0)
			smartt_on_nack(&s, &p, &e);
		else if (kind == 1)
			smartt_on_timeout(&s, &p, &e);
		else
			smartt_on_ack(&s, &p, &e);
		if (s.cwnd < k.mtu || s.cwnd > smartt_maxwnd(&p, s.base_rtt))
			(*violations)++;
		digest = digest * 31 + s.cwnd;
	}
	return digest;
}

#endif /* SMARTT_VECTORS_SMARTT_H */
