/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF struct_ops congestion controls bpf_smartt, bpf_strack and
 * bpf_dctcp: what their programs and their loader (smartt-cc-bpf, run as
 * `smarttctl cc ...`) share.  Built into BPF (after vmlinux.h) and into
 * hosted C; the layouts are the same on both sides (LP64, little endian).
 * Documentation/bpf-cc.rst.
 */
#ifndef SMARTT_BPF_CC_H
#define SMARTT_BPF_CC_H

#include "algo/tcpcc.h"

/* Where the loader pins the registered struct_ops maps and shared maps. */
#define SMARTT_CC_PIN_ROOT	"/sys/fs/bpf/smartt"

/* Which algorithm a flow runs (struct smartt_cc_flow.algo). */
#define SMARTT_CC_BPF_SMARTT	1
#define SMARTT_CC_BPF_STRACK	2
#define SMARTT_CC_BPF_DCTCP	3

/* Rule counters per flow: one per bit of the cores' rule masks. */
#define SMARTT_CC_RULE_BITS	16

/**
 * struct smartt_cc_bpf_cfg - the value of the pinned map smartt_cc_cfg:
 * what every callback of bpf_smartt and bpf_strack reads
 * @p: the parameters, built and validated by the loader from @vals
 *	(smartt_cc_params_build(), exactly as the module's sysctls)
 * @vals: the values @p was built from (for `smarttctl cc status`)
 * @gen: incremented on every change; flows whose measured-rate
 *	parameters were built from an older one rebuild them
 * @dctcp_g_shift: bpf_dctcp's EWMA gain g = 1 / 2^shift (RFC 8257: 1/16)
 * @dctcp_alpha_init: bpf_dctcp's initial alpha, in 1/1024 (1024 = 1.0)
 */
struct smartt_cc_bpf_cfg {
	struct smartt_cc_params p;
	struct smartt_cc_vals vals;
	u32 gen;
	u32 dctcp_g_shift;
	u32 dctcp_alpha_init;
	u32 pad;
};

/* Indices of the pinned per-CPU counter map smartt_cc_stats. */
enum smartt_cc_bpf_stat {
	SMARTT_CC_STAT_FLOWS,		/* flows started */
	SMARTT_CC_STAT_NO_STORAGE,	/* flows without state: ran Reno */
	SMARTT_CC_STAT_NO_CFG,		/* callbacks without a configuration */
	SMARTT_CC_STAT_NOECN,		/* flows without negotiated ECN: reno */
	SMARTT_CC_STAT_COUNT,
};

/**
 * struct smartt_cc_dctcp - bpf_dctcp's per-flow state (RFC 8257 section 3.3)
 * @alpha: estimate of the marked fraction, in 2^-20 (1.0 = 1048576)
 * @prior_delivered: tp->delivered at the start of the observation window
 * @prior_delivered_ce: tp->delivered_ce at its start
 * @next_seq: snd_nxt at its start: the window ends when it is acked
 * @loss_cwnd: the window before the last reduction (undo)
 * @windows: observation windows completed
 */
struct smartt_cc_dctcp {
	u32 alpha;
	u32 prior_delivered;
	u32 prior_delivered_ce;
	u32 next_seq;
	u32 loss_cwnd;
	u32 windows;
};

/**
 * struct smartt_cc_flow - per-flow state of the BPF congestion controls,
 * in the socket-local storage map smartt_cc_flows
 * @algo: SMARTT_CC_BPF_*
 * @params_gen: smartt_cc_bpf_cfg.gen @sp/@tp were built from (measured
 *	link rate only), 0 = not built
 * @params_rate: the rate estimate they were built with, Mbit/s
 * @last_rules: the core's rule mask of the last event
 * @g: glue state, as the module's
 * @s: SMaRTT core state (bpf_smartt)
 * @t: STrack core state (bpf_strack)
 * @d: DCTCP state (bpf_dctcp)
 * @sp: SMaRTT parameters at the measured link rate
 * @tp: STrack parameters at the measured link rate
 * @acks: ACK events given to the core
 * @ce_acks: those that carried CE echoes
 * @losses: loss events (packets newly marked lost)
 * @rtos: retransmission timeouts
 * @undos: spurious recoveries undone
 * @idles: restarts after idle (the window lowered)
 * @rules: how often each bit of the core's rule mask was returned
 * @host_ns: average host delay, ns (smartt_hd_avg() of smartt_hd_local_ns())
 * @pad: zero
 */
struct smartt_cc_flow {
	u32 algo;
	u32 params_gen;
	u32 params_rate;
	u32 last_rules;
	struct smartt_cc_sock g;
	union {
		struct smartt_state s;
		struct strack_state t;
		struct smartt_cc_dctcp d;
	};
	union {
		struct smartt_params sp;
		struct strack_params tp;
	};
	u64 acks;
	u64 ce_acks;
	u64 losses;
	u64 rtos;
	u64 undos;
	u64 idles;
	u32 rules[SMARTT_CC_RULE_BITS];
	u32 host_ns;
	u32 pad;
};

/* Kinds of struct smartt_cc_flow_rec. */
#define SMARTT_CC_REC_MODULE	1	/* the module's smartt/strack: @priv */
#define SMARTT_CC_REC_BPF	2	/* a BPF one: @flow */

/* The TCP congestion-control private area the iterator copies, bytes. */
#define SMARTT_CC_PRIV_LEN	104

/**
 * struct smartt_cc_flow_rec - one flow, as the iterator smartt_cc_iter
 * writes it (`smarttctl cc flows` reads a sequence of these)
 * @kind: SMARTT_CC_REC_*
 * @family: AF_INET or AF_INET6
 * @sport: local port, host order
 * @dport: remote port, host order
 * @state: TCP state
 * @ca_state: TCP congestion state (TCP_CA_*)
 * @ca: the congestion control's name
 * @saddr: local address (IPv4 in the first 4 bytes)
 * @daddr: remote address
 * @snd_cwnd: TCP's window, segments
 * @mss: MSS, bytes
 * @srtt_us: smoothed RTT, us
 * @min_rtt_us: windowed minimum RTT, us
 * @delivered: packets delivered
 * @delivered_ce: of them with a CE echo
 * @total_retrans: segments retransmitted
 * @wmem: bytes the socket has below TCP (sk_wmem_alloc less its bias)
 * @rate_delivered: packets of TCP's last delivery-rate sample
 * @rate_interval_us: its interval, us
 * @pacing_rate: bytes per second
 * @priv: the module's private area (struct smartt_cc_sock, then the
 *	core state at offset 16)
 * @flow: the BPF flow state
 */
struct smartt_cc_flow_rec {
	u32 kind;
	u16 family;
	u16 sport;
	u16 dport;
	u8 state;
	u8 ca_state;
	char ca[16];
	u8 saddr[16];
	u8 daddr[16];
	u32 snd_cwnd;
	u32 mss;
	u32 srtt_us;
	u32 min_rtt_us;
	u32 delivered;
	u32 delivered_ce;
	u32 total_retrans;
	u32 wmem;
	u32 rate_delivered;
	u32 rate_interval_us;
	u64 pacing_rate;
	union {
		u8 priv[SMARTT_CC_PRIV_LEN];
		struct smartt_cc_flow flow;
	};
};

#endif /* SMARTT_BPF_CC_H */
