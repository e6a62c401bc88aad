/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMaRTT congestion-control core: one set of rules, three profiles.
 *
 * A profile is a const preset of knobs (constants and feature switches):
 *
 *   smartt-2024  SMaRTT as in smartt-reps-2024.txt (fair/multiplicative
 *                decrease per ACK, fair/multiplicative increase, WTD,
 *                QuickAdapt from trims or timeouts, FastIncrease).
 *   smartt       SMaRTT as in smartt-uec-nscc.txt (ECN with low RTT is a
 *                no-op, MD on the average RTT once per base RTT,
 *                proportional + fair increase, adjustment period).
 *   nscc         the UEC NSCC as the public UEC simulator implements it
 *                (design/reference-semantics.md section 2).
 *
 * Units: time in ns (u64 absolute, u32 durations), sizes in bytes,
 * fractions in parts per million (SMARTT_PPM), derived gains in Q.16.
 * No clock: the caller passes the time of each event.  No allocation.
 * Documentation/cc-smartt.rst describes every rule and knob.
 */
#ifndef SMARTT_ALGO_SMARTT_H
#define SMARTT_ALGO_SMARTT_H

#include "algo_types.h"
#include "fixed.h"
#include "knobs.h"

/* The TCP congestion-control private area (ICSK_CA_PRIV_SIZE on 6.1/6.12). */
#define SMARTT_TCP_STATE_MAX	104
/*
 * For the congestion-control glue, whose private struct embeds a core
 * state: BUILD_BUG_ON(!SMARTT_FITS_TCP_PRIV(struct tcp_smartt)), next to
 * BUILD_BUG_ON(sizeof(struct tcp_smartt) > ICSK_CA_PRIV_SIZE).
 */
#define SMARTT_FITS_TCP_PRIV(type)	(sizeof(type) <= SMARTT_TCP_STATE_MAX)

/* Largest BDP (bytes) any configuration may reach: 16 GiB. */
#define SMARTT_BDP_MAX		17179869184ULL	/* 2^34 */
/* Largest fractional knob: 64.0. */
#define SMARTT_FRAC_MAX		(64U * SMARTT_PPM)
/* MTU range in bytes. */
#define SMARTT_MTU_MIN		64U
#define SMARTT_MTU_MAX		65536U
/* RTT knob range in ns: 100 ns .. 1 s. */
#define SMARTT_RTT_MIN_NS	100U
#define SMARTT_RTT_MAX_NS	1000000000U

/**
 * enum smartt_rules - which family of per-ACK rules a profile runs
 * @SMARTT_RULES_2024: smartt-reps-2024.txt Algorithm 1
 * @SMARTT_RULES_RTT: smartt-uec-nscc.txt Algorithm 4 and its core cases
 * @SMARTT_RULES_NSCC: reference-semantics.md section 2.3
 */
enum smartt_rules {
	SMARTT_RULES_2024 = 0,
	SMARTT_RULES_RTT = 1,
	SMARTT_RULES_NSCC = 2,
};

/**
 * enum smartt_qa_delay_mode - when a high delay alone may trigger QuickAdapt
 * @SMARTT_QA_DELAY_NEVER: only trims/NACKs (and timeouts if enabled)
 * @SMARTT_QA_DELAY_NO_TRIM: only when @trimming is off (smartt-uec-nscc.txt)
 * @SMARTT_QA_DELAY_ALWAYS: always (the UEC reference)
 */
enum smartt_qa_delay_mode {
	SMARTT_QA_DELAY_NEVER = 0,
	SMARTT_QA_DELAY_NO_TRIM = 1,
	SMARTT_QA_DELAY_ALWAYS = 2,
};

/**
 * struct smartt_knobs - every tunable of the SMaRTT core
 *
 * Fractions are in parts per million (1.5 = 1500000).  Field names are the
 * names smartt-replay's --set and the documentation use.
 *
 * @rules: enum smartt_rules
 * @mtu: bytes per full packet incl. headers; the minimum window
 * @hdr_bytes: header bytes per packet; MSS = mtu - hdr_bytes (nscc gains)
 * @link_mbps: sender link rate, Mbit/s
 * @base_rtt: initial base RTT, ns; 0 = start from @network_rtt
 * @network_rtt: unloaded RTT of the fabric, ns (nscc scaling, NACK delay)
 * @learn_base_rtt: 1 = base RTT is the minimum RTT sample seen
 * @trimming: 1 = the fabric trims (NACKs exist)
 * @ref_bdp: reference BDP for scaling, bytes (100 Gb/s x 12 us = 150000)
 * @ref_rtt: reference RTT for the STrack/NSCC delay scaling, ns (12000)
 * @trtt: target RTT as a fraction of base RTT (2024/smartt; 1.5)
 * @target_qdelay: nscc target queuing delay (and the 2024/smartt one with
 *	@trtt_abs), ns; 0 = 0.75 x network_rtt
 *	with trimming, 1.0 x without
 * @trtt_abs: 2024/smartt: 1 = the target RTT is base RTT + @target_qdelay,
 *	the same queuing delay for every flow whatever its base RTT (as
 *	nscc); 0 = @trtt x base RTT (the papers)
 * @maxwnd: window upper bound as a fraction of the path BDP
 * @md: 2024: md constant (2); smartt/nscc: gamma (0.8)
 * @md_min: smartt/nscc: smallest MD factor (0.5)
 * @md_no_trim: 2024: factor on @md when @trimming is off (2 = doubled)
 * @fd: 2024: fair decrease constant (0.8)
 * @fi: 2024/smartt: fair increase constant (0.25 MTU at the reference
 *	BDP); nscc: fair increase in MSS per RTT at the reference BDP (5)
 * @pi: 2024/smartt: proportional increase; 0 = brtt / (trtt - brtt);
 *	nscc: alpha in MSS per RTT per reference RTT of headroom (4)
 * @eta: nscc: additive increase per adjust period, MSS (0.15)
 * @fast_k: 2024/smartt: FastIncrease step in MTU per ACK (2);
 *	nscc: FastIncrease gain per acked byte at the reference BDP (0.25)
 * @fast_delay: queuing delay below which "rtt ~ brtt", ns (1000);
 *	2024/smartt use <=, nscc uses <
 * @fast_inc: 1 = FastIncrease on
 * @wtd_enable: 1 = Wait-to-Decrease gates the 2024 decreases
 * @wtd_alpha: WTD EWMA weight of each ACK's ECN bit (0.05)
 * @wtd_threshold: decreases allowed once the ECN average reaches this (0.25)
 * @qa: 1 = QuickAdapt on
 * @qa_scaling: QuickAdapt window = max(acked, mtu) x qa_scaling
 * @qa_on_timeout: 1 = timeouts trigger QuickAdapt like trims (2024)
 * @qa_delay_mode: enum smartt_qa_delay_mode
 * @qa_delay: delay trigger, as a multiple of the target queuing delay (4)
 * @qa_gate: delay-triggered QA needs acked < (gate window >> qa_gate) (3)
 * @qa_gate_cwnd: 1 = the gate window is cwnd (paper), 0 = maxwnd (nscc)
 * @qa_inclusive: 1 = a QA window ends at now >= end, 0 = now > end
 * @ignore_ecn_only: 1 = the ignore phase drops only ECN-marked ACKs
 *	(reference), 0 = every ACK (papers)
 * @delay_ewma: weight of a sample in the average delay (0.0125 / 0.125)
 * @adjust_acks: smartt: apply accumulated increases every n ACKs (1)
 * @adjust_period: smartt: ... or when this many ns passed (0 = off);
 *	nscc: the fulfill/eta period, ns; 0 = network_rtt
 * @adjust_rtt: smartt: 1 = the period is the current base RTT
 *	("accumulate up to an RTT"), overriding @adjust_period
 * @adjust_bytes: nscc: fulfill once this many bytes were acked;
 *	0 = 8 x mtu
 */
struct smartt_knobs {
	u32 rules;
	u32 mtu;
	u32 hdr_bytes;
	u32 link_mbps;
	u32 base_rtt;
	u32 network_rtt;
	u32 learn_base_rtt;
	u32 trimming;
	u32 ref_bdp;
	u32 ref_rtt;
	u32 trtt;
	u32 target_qdelay;
	u32 trtt_abs;
	u32 maxwnd;
	u32 md;
	u32 md_min;
	u32 md_no_trim;
	u32 fd;
	u32 fi;
	u32 pi;
	u32 eta;
	u32 fast_k;
	u32 fast_delay;
	u32 fast_inc;
	u32 wtd_enable;
	u32 wtd_alpha;
	u32 wtd_threshold;
	u32 qa;
	u32 qa_scaling;
	u32 qa_on_timeout;
	u32 qa_delay_mode;
	u32 qa_delay;
	u32 qa_gate;
	u32 qa_gate_cwnd;
	u32 qa_inclusive;
	u32 ignore_ecn_only;
	u32 delay_ewma;
	u32 adjust_acks;
	u32 adjust_period;
	u32 adjust_bytes;
	u32 adjust_rtt;
};

/**
 * struct smartt_params - validated knobs plus the constants derived from them
 * @k: the knobs
 * @base_rtt0: initial base RTT, ns
 * @target_qdelay: nscc target queuing delay, ns
 * @adjust_period: nscc fulfill period / smartt accumulation period, ns
 * @adjust_bytes: nscc fulfill byte threshold
 * @net_bdp: network_rtt x link rate, bytes
 * @maxwnd_fp: @k.maxwnd in Q.16 (per-ACK bound without a division)
 * @trtt_fp: @k.trtt in Q.16 (1.0 with @k.trtt_abs)
 * @trtt_add: @target_qdelay with @k.trtt_abs, else 0 (ns)
 * @qa_win_fp: QuickAdapt window per ns of base RTT (Q.16): @trtt_fp, or
 *	1.0 for the nscc rules
 * @qa_win_add: QuickAdapt window's constant part, ns: @trtt_add, or
 *	@target_qdelay for the nscc rules, plus 1 for an exclusive end
 *	(@k.qa_inclusive = 0); the window ends at now + base RTT x
 *	@qa_win_fp + @qa_win_add
 * @qa_scaling_fp: @k.qa_scaling in Q.16 (0.8 -> 52428: 8192 B -> 6553 B)
 * @fi_fp: 2024/smartt: fi (Q.16); nscc: fi x MSS x sf_a, bytes (Q.16)
 * @pi_fp: 2024/smartt: pi (Q.16); nscc: alpha, bytes per ns (Q.16)
 * @md_fp: 2024: md (Q.16), already doubled without trimming
 * @fd_fp: 2024: fd (Q.16)
 * @fast_fp: nscc: FastIncrease gain per byte (Q.16)
 * @eta: nscc: bytes added per adjust period
 * @fast_bytes: 2024/smartt: FastIncrease step, bytes
 * @qa_delay: QuickAdapt delay trigger, ns of queuing delay (0 = off)
 * @ewma_keep: 10^6 - @k.delay_ewma, ppm (the average's own weight)
 * @wtd_keep: 10^6 - @k.wtd_alpha, ppm
 * @ewma_ps: @k.delay_ewma x 1000 (weight of a sample in ns, for ps)
 * @maxwnd_lb_k: floor(@k.link_mbps x @maxwnd_fp / 16000) (< 2^32): base
 *	RTT (ns) x @maxwnd_lb_k >> 15 - @maxwnd_lb_slack is below maxwnd
 *	(smartt_maxwnd_above())
 * @maxwnd_lb_slack: (@maxwnd_fp >> 16) + 2, bytes
 */
struct smartt_params {
	struct smartt_knobs k;
	u32 base_rtt0;
	u32 target_qdelay;
	u32 adjust_period;
	u32 adjust_bytes;
	u64 net_bdp;
	u64 maxwnd_fp;
	u64 trtt_fp;
	u64 trtt_add;
	u64 qa_win_fp;
	u64 qa_win_add;
	u64 qa_scaling_fp;
	u64 fi_fp;
	u64 pi_fp;
	u64 md_fp;
	u64 fd_fp;
	u64 fast_fp;
	u64 eta;
	u64 fast_bytes;
	u64 qa_delay;
	u32 ewma_keep;
	u32 wtd_keep;
	u32 ewma_ps;
	u64 maxwnd_lb_k;
	u64 maxwnd_lb_slack;
};

/*
 * Might @cwnd be above maxwnd(@base_rtt) (smartt_maxwnd(), strack_maxwnd())?
 * False only when it is not: one multiply instead of the BDP and maxwnd,
 * for the bounds of rules that did not move the window up.
 *
 * With L = link_mbps, M = maxwnd_fp, b = base_rtt and lb = b x lb_k >>
 * 15, lb_k = floor(L M / 16000): b L M / (8000 x 2^16) is in [lb, lb +
 * 2^17 + 1) (b < 2^32).  maxwnd >= w = floor(max(1, floor(L b / 8000)) M
 * / 2^16) > (L b / 8000 - 1) M / 2^16 - 1 >= lb - M / 2^16 - 1, so w >
 * lb - (M >> 16) - 2, unless the product of w wraps: below lb = 2^47 it
 * is < 2^16 x (2^47 + 2^18) < 2^64.  lb_k <= 10^7 x 2^22 / 16000 < 2^32
 * and b < 2^32: b x lb_k fits; cwnd < 2^49.
 */
static inline bool smartt_maxwnd_above(u64 cwnd, u32 base_rtt, u64 lb_k,
				       u64 lb_slack)
{
	u64 lb = (base_rtt * lb_k) >> 15;

	return cwnd + lb_slack > lb || lb >> 47;
}

/* maxwnd_lb_k and maxwnd_lb_slack of a link rate and a maxwnd (Q.16). */
static inline void smartt_maxwnd_lb_init(u64 *k, u64 *slack, u32 link_mbps,
					 u64 maxwnd_fp)
{
	*k = div_u64(link_mbps * maxwnd_fp, 16000);
	*slack = (maxwnd_fp >> SMARTT_FP_SHIFT) + 2;
}

/* Bits of smartt_state.flags. */
#define SMARTT_ST_TRIGGER_QA	0x01	/* a trim asked for QuickAdapt */
#define SMARTT_ST_INCREASE	0x02	/* FastIncrease active */

/* smartt_state.fi_count saturates here (56 bits, see struct smartt_state) */
#define SMARTT_FI_COUNT_MAX	((1ULL << 56) - 1)

/**
 * struct smartt_state - per-flow state (fits SMARTT_TCP_STATE_MAX)
 * @cwnd: congestion window, bytes, in [mtu, maxwnd] after every event
 * @inc: accumulated increase numerator, bytes^2, applied as inc / cwnd;
 *	64-bit and saturating where the reference's uint32 wraps
 * @achieved: bytes acked in the current QuickAdapt window
 * @qa_end: first time at which the current QuickAdapt window is over, ns
 *	(end + 1 for the exclusive end of qa_inclusive = 0; 0 = no window yet)
 * @last_dec: smartt/nscc rules: time of the last once-per-base-RTT MD, ns
 * @wtd: 2024 rules: ECN EWMA for Wait-to-Decrease, ppm, in [0, 10^6]
 *	(shares @last_dec's place: no 2024 rule reads the other)
 * @last_adjust: time of the last adjustment (smartt) / eta (nscc), ns
 * @avg_delay: EWMA of the queuing delay, ps (the reference keeps integer
 *	ps; ns inputs times 1000 truncate exactly like it)
 * @bytes_to_ignore: size of the ignore phase after QuickAdapt, bytes
 * @bytes_ignored: bytes acked/nacked since QuickAdapt fired
 * @fi_count: consecutive uncongested bytes (FastIncrease), saturating at
 *	%SMARTT_FI_COUNT_MAX = 2^56 - 1.  It is only ever compared with cwnd,
 *	and cwnd <= maxwnd < 2^49 bytes (BDP <= 10^7 Mbit/s x 2^32 ns / 8000
 *	< 2^43 bytes, times maxwnd <= 64), so the comparison is the same as
 *	with a 64-bit counter.
 * @flags: SMARTT_F_* (shares @fi_count's word)
 * @fi_word: @fi_count and @flags as one word, for the per-ACK update of
 *	both (on a little-endian machine @fi_count is its low 56 bits and
 *	@flags its top byte)
 * @base_rtt: base RTT, ns; BDP and maxwnd follow it
 * @received: nscc rules: bytes acked since the last fulfill (saturating)
 * @acks: smartt rules: ACKs since the last adjustment (saturating)
 *
 * 88 bytes: a state belongs to the rule family (@k.rules) it was
 * initialised for; the per-family fields @last_dec/@wtd and
 * @received/@acks share their places.
 */
struct smartt_state {
	u64 cwnd;
	u64 inc;
	u64 achieved;
	u64 qa_end;
	union {
		u64 last_dec;
		u32 wtd;
	};
	u64 last_adjust;
	u64 avg_delay;
	u64 bytes_to_ignore;
	u64 bytes_ignored;
	union {
		struct {
			u64 fi_count : 56;
			u64 flags : 8;
		};
		u64 fi_word;
	};
	u32 base_rtt;
	union {
		u32 received;
		u16 acks;
	};
};

static_assert(SMARTT_FITS_TCP_PRIV(struct smartt_state),
	      "struct smartt_state must fit the TCP CC private area");

/**
 * struct smartt_event - one ACK, NACK or timeout, as the core sees it
 * @now: time of the event, ns
 * @rtt: RTT sample, ns; 0 = no valid sample
 * @bytes: ACK: newly acked bytes; NACK/timeout: the packet's size
 * @in_flight: bytes in flight after the caller accounted for this event
 * @ecn: ACK/NACK carried an ECN-CE echo
 */
struct smartt_event {
	u64 now;
	u32 rtt;
	u32 bytes;
	u64 in_flight;
	bool ecn;
};

/* Rules that fired, returned by the event functions (a bit mask). */
#define SMARTT_R_IGNORED	0x0001	/* ignore phase swallowed the event */
#define SMARTT_R_QA		0x0002	/* QuickAdapt set the window */
#define SMARTT_R_FAST_INC	0x0004	/* FastIncrease */
#define SMARTT_R_FD		0x0008	/* fair decrease (2024) */
#define SMARTT_R_MD		0x0010	/* multiplicative decrease */
#define SMARTT_R_FI		0x0020	/* fair increase */
#define SMARTT_R_PI		0x0040	/* multiplicative/proportional increase */
#define SMARTT_R_NOOP		0x0080	/* ECN with low RTT: path change only */
#define SMARTT_R_WTD_HOLD	0x0100	/* WTD held a decrease back */
#define SMARTT_R_ADJUST		0x0200	/* accumulated increase applied */
#define SMARTT_R_ETA		0x0400	/* nscc periodic additive increase */
#define SMARTT_R_LOSS_DEC	0x0800	/* cwnd -= packet on trim/timeout */
#define SMARTT_R_CLAMPED	0x1000	/* bounds changed the window */
#define SMARTT_R_MD_HELD	0x2000	/* MD skipped: once per base RTT */

/**
 * enum smartt_profile_id - the named presets
 * @SMARTT_PROFILE_2024: "smartt-2024"
 * @SMARTT_PROFILE_SMARTT: "smartt"
 * @SMARTT_PROFILE_NSCC: "nscc"
 * @SMARTT_PROFILE_COUNT: number of profiles
 */
enum smartt_profile_id {
	SMARTT_PROFILE_2024 = 0,
	SMARTT_PROFILE_SMARTT = 1,
	SMARTT_PROFILE_NSCC = 2,
	SMARTT_PROFILE_COUNT = 3,
};

extern const struct smartt_knobs smartt_profiles[SMARTT_PROFILE_COUNT];
extern const char *const smartt_profile_names[SMARTT_PROFILE_COUNT];

int smartt_profile_by_name(const char *name);
int smartt_knobs_validate(const struct smartt_knobs *k);
int smartt_params_init(struct smartt_params *p, const struct smartt_knobs *k);
u64 smartt_bdp(const struct smartt_params *p, u32 base_rtt);
u64 smartt_maxwnd(const struct smartt_params *p, u32 base_rtt);
void smartt_init(struct smartt_state *s, const struct smartt_params *p, u64 cwnd);
u32 smartt_on_ack(struct smartt_state *s, const struct smartt_params *p,
		  const struct smartt_event *e);
u32 smartt_on_nack(struct smartt_state *s, const struct smartt_params *p,
		   const struct smartt_event *e);
u32 smartt_on_timeout(struct smartt_state *s, const struct smartt_params *p,
		      const struct smartt_event *e);

/* The knob table of struct smartt_knobs (see knobs.h). */
extern const struct smartt_knob_desc smartt_knob_descs[];
extern const unsigned int smartt_knob_count;

int smartt_knob_find(const char *name);
u32 smartt_knob_get(const struct smartt_knobs *k, unsigned int i);
void smartt_knob_set(struct smartt_knobs *k, unsigned int i, u32 v);

#endif /* SMARTT_ALGO_SMARTT_H */
