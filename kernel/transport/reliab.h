/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt transport: per-peer state of the reliability modes and of the
 * congestion-control dispatch (reliab.c, cc.c).  Documentation/transport.rst,
 * "Congestion control" and "Reliability".
 */
#ifndef SMARTT_TRANSPORT_RELIAB_H
#define SMARTT_TRANSPORT_RELIAB_H

#include <linux/types.h>

/* &struct smartt_sock.cc_algo */
enum smartt_cc_algo {
	SMARTT_CCA_NONE = 0,	/* fixed window (SMARTT_WINDOW) */
	SMARTT_CCA_SMARTT,	/* a SMaRTT profile (kernel/algo/smartt.c) */
	SMARTT_CCA_STRACK,	/* STrack (kernel/algo/strack.c) */
	SMARTT_CCA_CRP,		/* CRP reservations (transport/crp.c), fixed window */
	SMARTT_CCA_DCTCP,	/* DCTCP-style, ECN only (kernel/algo/dctcp.c) */
};

/* &struct smartt_sock.rel: SMARTT_RELIABILITY */
enum smartt_rel_mode {
	SMARTT_REL_AUTO = 0,	/* "strack" with cc strack, "sack" otherwise */
	SMARTT_REL_SACK,
	SMARTT_REL_STRACK,
};

/* OOO threshold: max(cwnd in packets, this), STrack's min_threshold */
#define SMARTT_OOO_MIN		5
/* Probe after this many base RTTs without an ACK (STrack's n) */
#define SMARTT_PROBE_RTTS	3
/* A probe's answer faster than this many base RTTs means "loss" */
#define SMARTT_PROBE_FAST_RTTS	2
/* A coalescing receiver sends a pending ACK at the latest after this */
#define SMARTT_ACK_DELAY_NS	(1 * NSEC_PER_MSEC)

/* What became of a probe (tracepoint smartt_probe) */
enum smartt_probe_verdict {
	SMARTT_PROBE_V_SENT,		/* it left */
	SMARTT_PROBE_V_LOSS,		/* fast answer, nothing acknowledged: loss */
	SMARTT_PROBE_V_LATE,		/* answered %SMARTT_PROBE_FAST_RTTS late */
	SMARTT_PROBE_V_ACKED,		/* the answer acknowledged new data */
	SMARTT_PROBE_V_ACKED_SINCE,	/* an ACK of new data came after it left */
	SMARTT_PROBE_V_STALE,		/* no probe outstanding (RTO, reset) */
	SMARTT_PROBE_V_NO_RTT,		/* the answer echoed no send time */
};

/**
 * struct smartt_rel - reliability state of one peer
 * @rec_end: sender: loss recovery lasts until snd_una reaches it (0: not
 *	in recovery)
 * @probe_at: sender: when to send a probe (ns, 0: not armed)
 * @probe_sent: sender: when the last unanswered probe left (ns, 0: none)
 * @last_ack: sender: when an ACK (of any kind) last came (ns)
 * @rtt_min: sender: smallest host RTT sample (ns, 0: none)
 * @probe_opaque: sender: the number of the last probe sent
 * @probe_entropy: sender: the entropy it was sent on
 * @ack_due: receiver: when the pending ACK must go (ns, 0: none pending)
 * @ack_psn: receiver: PSN of the last DATA packet not yet acknowledged
 * @ack_rx_ns: receiver: its arrival time
 * @ack_pending: receiver: payload bytes received since the last ACK
 * @ack_flow: receiver: its IPv6 flow label
 * @ack_usport: receiver: its UDP source port (entropy), network order
 * @ack_ce: receiver: it carried CE
 */
struct smartt_rel {
	u64 rec_end;
	u64 probe_at;
	u64 probe_sent;
	u64 last_ack;
	u64 rtt_min;
	u16 probe_opaque;
	u32 probe_entropy;
	u64 ack_due;
	u64 ack_psn;
	u64 ack_rx_ns;
	u32 ack_pending;
	u32 ack_flow;
	__be16 ack_usport;
	bool ack_ce;
};

#endif /* SMARTT_TRANSPORT_RELIAB_H */
