/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion-control glue shared by tcp_smartt.c and tcp_strack.c: the
 * per-netns configuration (net.smartt.tcp_*), the conversion of tcp_sock
 * and rate_sample state into core samples, the DCTCP-style receiver CE
 * state machine, window and pacing output, get_info.  It makes no window
 * decision: those are in kernel/algo/.  See Documentation/tcp.rst.
 */
#ifndef SMARTT_CC_GLUE_H
#define SMARTT_CC_GLUE_H

#include <linux/rcupdate.h>
#include <linux/types.h>
#include <net/tcp.h>

#include "algo/smartt.h"
#include "algo/strack.h"
#include "algo/tcpcc.h"

/* Which congestion control, in tracepoints. */
#define SMARTT_CC_ALGO_SMARTT	0
#define SMARTT_CC_ALGO_STRACK	1

/* Events, in tracepoints. */
#define SMARTT_CC_EV_ACK	0	/* an ACK (core on_ack) */
#define SMARTT_CC_EV_LOSS	1	/* packets newly marked lost (on_nack) */
#define SMARTT_CC_EV_RTO	2	/* retransmission timeout (on_nack) */
#define SMARTT_CC_EV_UNDO	3	/* spurious recovery undone */
#define SMARTT_CC_EV_INIT	4	/* flow started */

/**
 * struct smartt_cc_cfg - one immutable configuration, replaced under RCU
 * @rcu: for kfree_rcu()
 * @p: the parameters (algo/tcpcc.h)
 * @smartt_knobs: net.smartt.tcp_smartt_knobs as written, for the transport,
 *	which applies it over the SMaRTT profile a socket picks
 */
struct smartt_cc_cfg {
	struct rcu_head rcu;
	struct smartt_cc_params p;
	char smartt_knobs[SMARTT_CC_KNOBS_LEN];
};

const struct smartt_cc_cfg *smartt_cc_cfg_get(const struct sock *sk);
const struct smartt_params *smartt_cc_smartt_params(const struct smartt_cc_cfg *cfg,
						    const struct smartt_cc_sock *g,
						    struct smartt_params *tmp);
const struct strack_params *smartt_cc_strack_params(const struct smartt_cc_cfg *cfg,
						    const struct smartt_cc_sock *g,
						    struct strack_params *tmp);
void smartt_cc_sock_init(struct sock *sk, struct smartt_cc_sock *g,
			 const struct smartt_cc_cfg *cfg);
u32 smartt_cc_base_rtt0(const struct sock *sk, const struct smartt_cc_cfg *cfg,
			u32 fallback);
u64 smartt_cc_start_cwnd(const struct sock *sk, const struct smartt_cc_cfg *cfg,
			 u32 link_mbps, u32 base_rtt);
u32 smartt_cc_ce_pkts(const struct sock *sk, struct smartt_cc_sock *g);
void smartt_cc_rate_update(const struct sock *sk, struct smartt_cc_sock *g,
			   const struct rate_sample *rs);
u32 smartt_cc_rtt_sample(const struct rate_sample *rs);
u32 smartt_cc_host_delay(const struct sock *sk, const struct rate_sample *rs);
u32 smartt_cc_fabric_rtt(const struct smartt_cc_cfg *cfg,
			 const struct rate_sample *rs, u32 rtt, u32 base_rtt,
			 u32 host, bool ce);
u32 smartt_cc_windowed_min_rtt(const struct sock *sk);
u32 smartt_cc_base_rtt(const struct sock *sk, struct smartt_cc_sock *g,
		       bool learn, u32 rtt, u32 base);
u32 smartt_cc_cwnd_pkts(const struct sock *sk, const struct smartt_cc_cfg *cfg,
			u64 cwnd);
void smartt_cc_apply(struct sock *sk, struct smartt_cc_sock *g,
		     const struct smartt_cc_cfg *cfg, u64 cwnd, u32 base_rtt,
		     const struct rate_sample *rs);
void smartt_cc_set_state(struct sock *sk, struct smartt_cc_sock *g,
			 u8 new_state);
u32 smartt_cc_ssthresh(struct sock *sk);
void smartt_cc_cwnd_event(struct sock *sk, enum tcp_ca_event ev);

/**
 * smartt_cc_now() - the time of the ACK being processed
 * @sk: socket
 *
 * Return: tp->tcp_mstamp (refreshed per packet) in ns.
 */
static inline u64 smartt_cc_now(const struct sock *sk)
{
	return tcp_sk(sk)->tcp_mstamp * NSEC_PER_USEC;
}

/**
 * smartt_cc_in_flight() - bytes in flight
 * @sk: socket
 *
 * Return: tcp_packets_in_flight() x MSS.
 */
static inline u64 smartt_cc_in_flight(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return (u64)tcp_packets_in_flight(tp) * tp->mss_cache;
}

int smartt_cc_pernet_init(void);
void smartt_cc_pernet_exit(void);

#endif /* SMARTT_CC_GLUE_H */
