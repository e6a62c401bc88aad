/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the TCP congestion controls' glue computes that does not depend on
 * where it runs: the configuration (the net.smartt.tcp_* values, their
 * ranges and parsing, the core parameters built from them) and the
 * conversions between TCP's counters and the cores' samples (link-rate
 * estimate, base RTT, window in segments, pacing rate).
 *
 * One implementation for three users: the module's glue (kernel/cc/), the
 * BPF struct_ops builds (bpf/tcp_*.bpf.c) and smarttctl's loader, which
 * validates `smarttctl cc set` exactly as the sysctls do.  Pure C like the
 * rest of kernel/algo/: no struct sock, no allocation, no clock.
 * Documentation/tcp.rst and Documentation/bpf-cc.rst.
 */
#ifndef SMARTT_ALGO_TCPCC_H
#define SMARTT_ALGO_TCPCC_H

#include "algo_types.h"
#include "hostdelay.h"
#include "smartt.h"
#include "strack.h"

/* tcp_start */
#define SMARTT_CC_START_IW	0	/* kernel initial window (tcp_init_cwnd) */
#define SMARTT_CC_START_BDP	1	/* line rate: cwnd = BDP, no slow start */

/* tcp_strack_loss */
#define SMARTT_CC_STRACK_LOSS_OFF	0	/* the paper's: no window rule */
#define SMARTT_CC_STRACK_LOSS_MD	1	/* one md_min decrease per episode */

/* TCP's congestion states the glue follows (enum tcp_ca_state). */
#define SMARTT_CC_CA_OPEN		0
#define SMARTT_CC_CA_RECOVERY		3
#define SMARTT_CC_CA_LOSS		4

/* Defaults and ranges of the values (Documentation/sysctl.rst). */
#define SMARTT_CC_DEF_NETWORK_RTT_US	12
#define SMARTT_CC_DEF_MSS		1448
#define SMARTT_CC_DEF_MIN_CWND		2	/* segments, as tcp_dctcp.c */
#define SMARTT_CC_MIN_CWND_MAX		1024U	/* segments */
#define SMARTT_CC_LINK_MAX_MBPS		10000000U	/* 10 Tb/s */
#define SMARTT_CC_RTT_MAX_US		1000000U	/* 1 s */
/* Placeholder link rate of the shared parameters in measured mode. */
#define SMARTT_CC_PLACEHOLDER_MBPS	100000
/* Largest measured link-rate estimate, Mbit/s: the largest link rate. */
#define SMARTT_CC_RATE_MAX		SMARTT_CC_LINK_MAX_MBPS
/* Length of the knob-override strings, with the NUL. */
#define SMARTT_CC_KNOBS_LEN		256

/**
 * struct smartt_cc_vals - the values of the net.smartt.tcp_* sysctls
 * @profile: SMaRTT profile (enum smartt_profile_id)
 * @link_mbps: link rate, Mbit/s; 0 = measured delivery rate
 * @base_rtt_us: base RTT, us; 0 = learned (windowed minimum)
 * @network_rtt_us: unloaded fabric RTT, us (core network_rtt)
 * @mss: bytes per packet the rules count in (core mtu)
 * @start: SMARTT_CC_START_*
 * @min_cwnd: fewest segments TCP's window may hold
 * @strack_loss: SMARTT_CC_STRACK_LOSS_*: what strack's window does with
 *	the segments TCP marks lost
 * @host_target_us: host-delay target, us: the sender's own queueing
 *	delay up to it is not the fabric's (hostdelay.h); 0 = the whole RTT
 *	sample is the fabric's
 * @smartt_knobs: "name=value ..." overrides of the SMaRTT core knobs
 * @strack_knobs: "name=value ..." overrides of the STrack core knobs
 */
struct smartt_cc_vals {
	u32 profile;
	u32 link_mbps;
	u32 base_rtt_us;
	u32 network_rtt_us;
	u32 mss;
	u32 start;
	u32 min_cwnd;
	u32 strack_loss;
	u32 host_target_us;
	char smartt_knobs[SMARTT_CC_KNOBS_LEN];
	char strack_knobs[SMARTT_CC_KNOBS_LEN];
};

/**
 * struct smartt_cc_params - one configuration, built from the values
 * @sp: SMaRTT parameters (link rate 100 Gb/s as a placeholder when measured)
 * @tp: STrack parameters (ditto)
 * @link_mbps: configured link rate, 0 = measured
 * @base_rtt_ns: configured base RTT, 0 = learned
 * @start: SMARTT_CC_START_*
 * @min_cwnd: fewest segments TCP's window may hold
 * @strack_loss: SMARTT_CC_STRACK_LOSS_*
 * @host_target_ns: host-delay target, ns; 0 = no split
 */
struct smartt_cc_params {
	struct smartt_params sp;
	struct strack_params tp;
	u32 link_mbps;
	u32 base_rtt_ns;
	u32 start;
	u32 min_cwnd;
	u32 strack_loss;
	u32 host_target_ns;
};

/**
 * struct smartt_cc_sock - glue state of one flow, first in the private
 * state of both congestion controls (so that the hooks that need only it
 * are shared: smartt_cc_cwnd_event()); the BPF builds keep it in their
 * socket-local storage
 * @prior_rcv_nxt: receiver: rcv_nxt when the CE state last changed
 * @rate_mbps: measured link-rate estimate (max delivery rate), Mbit/s
 * @prior_ce: low 16 bits of tp->delivered_ce at the last ACK (one ACK never
 *	delivers 65536 packets, so 16-bit deltas are exact)
 * @base_known: a data ACK's RTT sample replaced the handshake's base RTT
 * @state: SMARTT_CC_S_*: the receiver's CE mark of the last data packet
 *	(not TCP_ECN_DEMAND_CWR, which a CWR from the sender clears), and
 *	the sender's fast-recovery state
 * @rec_round: tp->delivered when fast recovery began: packet conservation
 *	lasts until an ACK of data sent after that (one round trip)
 *
 * 16 bytes: with the SMaRTT core's state it fills TCP's private area.
 */
struct smartt_cc_sock {
	u32 prior_rcv_nxt;
	u32 rate_mbps;
	u16 prior_ce;
	u8 base_known;
	u8 state;
	u32 rec_round;
};

/* struct smartt_cc_sock.state */
#define SMARTT_CC_S_CE		0x1	/* receiver: last data packet had CE */
#define SMARTT_CC_S_RECOVERY	0x2	/* sender: in fast recovery */
#define SMARTT_CC_S_CONSERVE	0x4	/* ... and in its first round */
#define SMARTT_CC_S_CUT		0x8	/* sender: this episode's loss decrease done */

void smartt_cc_vals_default(struct smartt_cc_vals *v);
int smartt_cc_parse_num(const char *s, bool frac, u32 *out);
int smartt_cc_apply_text(const char *text, bool strack, void *knobs);
int smartt_cc_params_build(struct smartt_cc_params *cp,
			   const struct smartt_cc_vals *v);

/**
 * smartt_cc_rate_sample_mbps() - one link-rate sample from a rate sample
 * @delivered: packets delivered over the sample's interval
 * @mss: bytes per packet
 * @interval_us: the sample's interval, us (non-zero)
 * @srtt_us: smoothed RTT, us
 * @min_us: windowed minimum RTT, us
 *
 * The cores' BDP is link rate x base RTT; what a flow can measure is its
 * delivery rate, which is cwnd / RTT, not cwnd / base RTT.  So each
 * delivery-rate sample is scaled by srtt / min_rtt: the estimate x base
 * RTT is then the window the flow got delivered per round trip, and the
 * bound (maxwnd x BDP) never shrinks below what the flow achieved when the
 * RTT is inflated by queueing or jitter.  Without a usable srtt/min_rtt
 * pair the factor is 1.
 *
 * Return: the sample in Mbit/s, at most %SMARTT_CC_RATE_MAX.
 */
static inline u64 smartt_cc_rate_sample_mbps(u32 delivered, u32 mss,
					     u32 interval_us, u32 srtt_us,
					     u32 min_us)
{
	u64 num, prod, mbps;

	if (!srtt_us || !min_us || min_us == U32_MAX || srtt_us < min_us) {
		srtt_us = 1;
		min_us = 1;
	}
	/* delivered x mss x 8 < 2^51; the product with srtt is checked */
	num = div_u64((u64)delivered * mss * 8, interval_us);
	if (smartt_mul_overflow(num, (u64)srtt_us, &prod))
		mbps = U64_MAX;
	else
		mbps = div64_u64(prod, min_us);
	return min_t(u64, mbps, SMARTT_CC_RATE_MAX);
}

/* Steps per octave of a measured link rate (smartt_cc_rate_step()). */
#define SMARTT_CC_RATE_STEP_BITS	4
#define SMARTT_CC_RATE_STEPS		16U	/* 2^SMARTT_CC_RATE_STEP_BITS */
/*
 * Distinct steps up to %SMARTT_CC_RATE_MAX (10^7 < 2^24): the rates below
 * %SMARTT_CC_RATE_STEPS exactly, then 16 per octave of the 20 above.
 */
#define SMARTT_CC_RATE_SLOTS		(21 * SMARTT_CC_RATE_STEPS)

/**
 * smartt_cc_rate_step() - a measured link rate rounded down to its step
 * @mbps: the rate, Mbit/s (at most %SMARTT_CC_RATE_MAX)
 * @slot: set to the step's index, below %SMARTT_CC_RATE_SLOTS
 *
 * Sixteen steps per octave: the step is at most 1/16 (6.25 %) below the
 * rate.  The estimate the cores use is this step, so that the parameters
 * derived from it change at most a few dozen times in a flow's life and
 * can be built once per step and shared (cc_glue.c).
 *
 * Return: the rate's step, Mbit/s.
 */
static inline u32 smartt_cc_rate_step(u32 mbps, u32 *slot)
{
	u32 e = 0, m;

	mbps = min_t(u32, mbps, SMARTT_CC_RATE_MAX);
	if (mbps < SMARTT_CC_RATE_STEPS) {
		*slot = mbps;
		return mbps;
	}
	/* e = ilog2(mbps), 4..23; a bounded loop, for BPF */
	while (e < 31 && (mbps >> (e + 1)))
		e++;
	m = (mbps >> (e - SMARTT_CC_RATE_STEP_BITS)) & (SMARTT_CC_RATE_STEPS - 1);
	*slot = (e - SMARTT_CC_RATE_STEP_BITS + 1) * SMARTT_CC_RATE_STEPS + m;
	return (SMARTT_CC_RATE_STEPS + m) << (e - SMARTT_CC_RATE_STEP_BITS);
}

/**
 * smartt_cc_base_rtt_next() - the glue's part in learning a base RTT
 * @learn: the base RTT is learned (not configured)
 * @base_known: in/out: a data ACK's sample replaced the handshake's RTT
 * @rtt: this ACK's RTT sample, ns (0: none)
 * @base: the core's base RTT, ns
 * @windowed_min: the kernel's windowed minimum RTT, ns (0: none)
 *
 * The cores learn the minimum of the samples they are given.  The glue
 * adds two things.  The handshake's RTT is only provisional: SYN and
 * SYN-ACK are small, and where serialising one full-size packet is a
 * sizeable part of the RTT (slow emulated links) their RTT is well below
 * any data packet's, so the first data ACK's sample replaces it, up or
 * down.  And once the kernel's windowed minimum (tcp_min_rtt(),
 * net.ipv4.tcp_min_rtt_wlen) has expired a smaller value, the base RTT
 * rises to it.
 *
 * Return: the base RTT the core should use from this ACK on, ns.
 */
static inline u32 smartt_cc_base_rtt_next(bool learn, u8 *base_known, u32 rtt,
					  u32 base, u32 windowed_min)
{
	if (!learn)
		return base;
	if (!*base_known) {
		if (!rtt)
			return base;
		*base_known = 1;
		return max_t(u32, rtt, SMARTT_RTT_MIN_NS);
	}
	return max_t(u32, base, windowed_min);
}

/**
 * smartt_cc_us_to_ns() - an RTT in us from TCP as the cores' ns
 * @us: microseconds; 0 and U32_MAX (TCP's "no sample") give 0
 *
 * Return: ns, at most %SMARTT_RTT_MAX_NS.
 */
static inline u32 smartt_cc_us_to_ns(u32 us)
{
	if (!us || us == U32_MAX)
		return 0;
	return min_t(u64, (u64)us * 1000, SMARTT_RTT_MAX_NS);
}

/**
 * smartt_cc_pkts() - TCP's window for a core window
 * @cwnd: the core's window, bytes
 * @mss: TCP's MSS, bytes
 * @min_cwnd: tcp_min_cwnd, segments
 * @clamp: snd_cwnd_clamp, segments
 *
 * cwnd / MSS, but at least @min_cwnd segments and at most @clamp.  The
 * cores' lower bound is one packet, as in the papers; TCP needs two: with
 * one segment in flight a Linux receiver holds its ACK for the delayed-ACK
 * timer (at least 40 ms) and the flow sends one segment per 40 ms
 * (tcp_dctcp.c keeps 2 for the same reason, tcp_bbr.c 4).
 *
 * Return: the window in segments.
 */
static inline u32 smartt_cc_pkts(u64 cwnd, u32 mss, u32 min_cwnd, u32 clamp)
{
	u64 pkts = div_u64(cwnd, max_t(u32, mss, 1));

	pkts = max_t(u64, pkts, min_cwnd);
	return min_t(u64, pkts, max_t(u32, clamp, 1));
}

/**
 * smartt_cc_pacing_rate() - the pacing rate for a window
 * @pkts: window, segments
 * @mss: bytes per segment
 * @srtt_us: smoothed RTT, us (0: none yet)
 * @base_rtt: the flow's base RTT, ns (used while there is no srtt)
 *
 * 1.2 x pkts x MSS / srtt: TCP's congestion-avoidance ratio.
 *
 * Return: bytes per second.
 */
static inline u64 smartt_cc_pacing_rate(u32 pkts, u32 mss, u32 srtt_us,
					u32 base_rtt)
{
	if (!srtt_us)
		srtt_us = max_t(u32, base_rtt / 1000, 1);
	/* pkts < 2^32, mss < 2^16: x 1.2e6 stays below 2^63 */
	return div_u64((u64)pkts * max_t(u32, mss, 1) * 1000000 * 6 / 5, srtt_us);
}

/**
 * smartt_cc_start_bytes() - initial window of a flow
 * @cp: configuration
 * @link_mbps: link rate the flow's parameters use
 * @base_rtt: the flow's initial base RTT, ns
 * @iw_bytes: TCP's initial window x MSS
 *
 * Return: link rate x base RTT (one BDP) with tcp_start = 1 and a
 * configured link rate; @iw_bytes otherwise.
 */
static inline u64 smartt_cc_start_bytes(const struct smartt_cc_params *cp,
					u32 link_mbps, u32 base_rtt, u64 iw_bytes)
{
	if (cp->start == SMARTT_CC_START_BDP && cp->link_mbps)
		return div_u64((u64)link_mbps * base_rtt, 8000);
	return iw_bytes;
}

/**
 * smartt_cc_idle_bytes() - the window after the sender was idle
 * @cwnd: the core's window, bytes
 * @restart: the window a flow starts with (smartt_cc_start_bytes()), bytes
 * @idle: time since the last data was sent, jiffies
 * @rto: the retransmission timeout, jiffies
 *
 * tcp_cwnd_restart()'s rule (RFC 2861, RFC 5681 4.1), which TCP does not
 * apply to a congestion control that owns the window (cong_control): after
 * more than one RTO without sending, the window is halved for every RTO
 * of idleness, but not below the restart window, the smaller of the start
 * window and @cwnd.  The loop halves, so it runs at most 64 times.
 *
 * Return: the window, bytes; @cwnd unchanged after less than one RTO.
 */
static inline u64 smartt_cc_idle_bytes(u64 cwnd, u64 restart, u32 idle, u32 rto)
{
	int i;

	if (!rto || idle <= rto)
		return cwnd;
	restart = min_t(u64, restart, cwnd);
	for (i = 0; i < 64 && idle > rto && cwnd > restart; i++) {
		idle -= rto;
		cwnd >>= 1;
	}
	return max_t(u64, cwnd, restart);
}

/**
 * smartt_cc_undo_bytes() - the core's window after a spurious recovery
 * @cwnd: the core's window now, bytes
 * @prior_cwnd: tp->prior_cwnd, segments (saved by TCP on entering recovery
 *	or loss)
 * @mss: bytes per segment
 * @mtu: the core's smallest window, bytes
 * @maxwnd: the core's bound at the flow's base RTT, bytes
 *
 * Return: at least the window before the recovery, within the core's
 * bounds.
 */
static inline u64 smartt_cc_undo_bytes(u64 cwnd, u32 prior_cwnd, u32 mss,
				       u32 mtu, u64 maxwnd)
{
	u64 w = max_t(u64, cwnd, (u64)prior_cwnd * mss);

	return clamp_t(u64, w, mtu, max_t(u64, maxwnd, mtu));
}

/**
 * smartt_cc_rec_state() - follow TCP's congestion state (set_state())
 * @g: glue state
 * @state: the new state (TCP_CA_*)
 * @delivered: tp->delivered now
 *
 * Entering fast recovery starts packet conservation for one round trip;
 * any other state ends it (an RTO has its own rule, the loss window).
 */
static inline void smartt_cc_rec_state(struct smartt_cc_sock *g, u8 state,
				       u32 delivered)
{
	if (state != SMARTT_CC_CA_RECOVERY) {
		g->state &= ~(SMARTT_CC_S_RECOVERY | SMARTT_CC_S_CONSERVE);
		/* an RTO has cut the window; an episode's end rearms */
		if (state == SMARTT_CC_CA_LOSS)
			g->state |= SMARTT_CC_S_CUT;
		else
			g->state &= ~SMARTT_CC_S_CUT;
	} else if (!(g->state & SMARTT_CC_S_RECOVERY)) {
		g->state |= SMARTT_CC_S_RECOVERY | SMARTT_CC_S_CONSERVE;
		g->rec_round = delivered;
	}
}

/**
 * smartt_cc_strack_loss() - strack's answer to TCP's loss detection
 * (tcp_strack_loss = 1)
 * @g: glue state
 * @s: STrack core state
 * @p: STrack parameters
 *
 * The first loss of an episode (fast recovery, until TCP leaves it)
 * multiplies the window by md_min, STrack's largest multiplicative
 * decrease (0.5 by default: as Reno and DCTCP halve on loss); later
 * losses of the same episode change nothing, as one reduction per
 * recovery is Linux's rule.  At least one packet.
 *
 * Return: STRACK_R_MD (and STRACK_R_CLAMPED at the bound) when the window
 * was cut, 0 when this episode's cut is done.
 */
static inline u32 smartt_cc_strack_loss(struct smartt_cc_sock *g,
					struct strack_state *s,
					const struct strack_params *p)
{
	u64 w;

	if (g->state & SMARTT_CC_S_CUT)
		return 0;
	g->state |= SMARTT_CC_S_CUT;
	w = smartt_mul_ppm(s->cwnd, p->k.md_min);
	if (w <= p->k.mtu) {
		s->cwnd = p->k.mtu;
		return STRACK_R_MD | STRACK_R_CLAMPED;
	}
	s->cwnd = w;
	return STRACK_R_MD;
}

/**
 * smartt_cc_rec_pkts() - the window TCP gets, with packet conservation
 * @g: glue state
 * @pkts: the core's window, segments (smartt_cc_pkts())
 * @in_flight: tcp_packets_in_flight() after this ACK
 * @acked: segments this ACK newly (S)ACKed
 * @prior_delivered: rs->prior_delivered, meaningful when @acked > 0
 * @floor: tcp_min_cwnd
 *
 * In the first round of fast recovery TCP sends at most one new segment
 * per segment delivered (PRR's and tcp_bbr.c's packet conservation, RFC
 * 6937): the window is at most in_flight + acked, and never more than the
 * core's.  The round ends with the first ACK of data sent after recovery
 * began; from then on the core's window, which already took the losses,
 * holds.
 *
 * Return: the window in segments.
 */
static inline u32 smartt_cc_rec_pkts(struct smartt_cc_sock *g, u32 pkts,
				     u32 in_flight, u32 acked,
				     u32 prior_delivered, u32 floor)
{
	u32 cons;

	if (!(g->state & SMARTT_CC_S_CONSERVE))
		return pkts;
	if (acked && (s32)(prior_delivered - g->rec_round) >= 0) {
		g->state &= ~SMARTT_CC_S_CONSERVE;
		return pkts;
	}
	cons = max_t(u32, in_flight + acked, floor);
	return min_t(u32, pkts, cons);
}

#endif /* SMARTT_ALGO_TCPCC_H */
