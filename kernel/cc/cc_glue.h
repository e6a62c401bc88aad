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
#define SMARTT_CC_EV_IDLE	5	/* restart after idle (tcp_cwnd_restart()) */
#define SMARTT_CC_EV_NOECN	6	/* ECN not negotiated: Reno fallback */

/**
 * struct smartt_cc_rated - both cores' parameters at one measured link
 * rate (a step of smartt_cc_rate_step())
 * @sp: SMaRTT's
 * @tp: STrack's
 */
struct smartt_cc_rated {
	struct smartt_params sp;
	struct strack_params tp;
};

/**
 * struct smartt_cc_cfg - one immutable configuration, replaced under RCU
 * @rcu: for call_rcu()
 * @p: the parameters (algo/tcpcc.h)
 * @smartt_knobs: net.smartt.tcp_smartt_knobs as written, for the transport,
 *	which applies it over the SMaRTT profile a socket picks
 * @rated: the parameters at each measured rate step a flow reached, built
 *	once by the first ACK that needs them (%SMARTT_CC_RATE_SLOTS
 *	pointers, each set once by cmpxchg(), freed with the configuration;
 *	NULL for the fallback configuration); without a configured link rate
 *	only
 */
struct smartt_cc_cfg {
	struct rcu_head rcu;
	struct smartt_cc_params p;
	char smartt_knobs[SMARTT_CC_KNOBS_LEN];
	struct smartt_cc_rated **rated;
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

/**
 * struct smartt_cc_core - one flow's core, as the shared hooks see it
 * @p: the core's parameters (struct smartt_params or struct strack_params)
 * @cwnd: the core's window, bytes
 * @base_rtt: the core's base RTT, ns
 * @mtu: the core's smallest window, bytes
 * @base_rtt0: the core's initial base RTT, ns
 * @link_mbps: the link rate of @p, Mbit/s
 * @learn_base_rtt: the base RTT is learned, not configured
 */
struct smartt_cc_core {
	const void *p;
	u64 *cwnd;
	u32 *base_rtt;
	u32 mtu;
	u32 base_rtt0;
	u32 link_mbps;
	bool learn_base_rtt;
};

/*
 * Fill struct smartt_cc_core @c from the parameters @prm and the state @st
 * of either core (both have the same names for these fields).
 */
#define smartt_cc_core_fill(c, prm, st)				\
	do {								\
		struct smartt_cc_core *__c = (c);			\
		typeof(prm) __p = (prm);				\
		typeof(st) __s = (st);					\
									\
		__c->p = __p;						\
		__c->cwnd = &__s->cwnd;					\
		__c->base_rtt = &__s->base_rtt;				\
		__c->mtu = __p->k.mtu;					\
		__c->base_rtt0 = __p->base_rtt0;			\
		__c->link_mbps = __p->k.link_mbps;			\
		__c->learn_base_rtt = __p->k.learn_base_rtt;		\
	} while (0)

/* Scratch space for parameters rebuilt for one flow (measured rate). */
union smartt_cc_scratch {
	struct smartt_params smartt;
	struct strack_params strack;
};

/**
 * struct smartt_cc_core_ops - what differs between the two congestion controls
 * @id: SMARTT_CC_ALGO_*, in tracepoints
 * @core: fill @c for the flow whose private state is @ca (parameters in
 *	@cfg, or rebuilt in @tmp for a measured link rate)
 * @init: start the core with window @cwnd, bytes
 * @maxwnd: the core's bound at base RTT @base, bytes
 * @ack: @e->bytes acknowledged, CE-echoed if @e->ecn; returns the rules
 * @loss: @e->bytes newly marked lost by TCP; returns the rules
 * @rto: a retransmission timeout; returns the rules
 * @undone: a spurious recovery was undone (the window is restored)
 *
 * The private state of both starts with struct smartt_cc_sock.
 */
struct smartt_cc_core_ops {
	u8 id;
	void (*core)(void *ca, const struct smartt_cc_cfg *cfg,
		     union smartt_cc_scratch *tmp, struct smartt_cc_core *c);
	void (*init)(void *ca, const void *p, u64 cwnd);
	u64 (*maxwnd)(const void *p, u32 base);
	u32 (*ack)(void *ca, const void *p, const struct smartt_event *e);
	u32 (*loss)(void *ca, const struct smartt_cc_cfg *cfg, const void *p,
		    const struct smartt_event *e);
	u32 (*rto)(void *ca, const struct smartt_cc_cfg *cfg, const void *p,
		   u32 mss);
	void (*undone)(void *ca);
};

/**
 * struct smartt_cc_tcp_ops - a congestion control of the module
 * @ops: what TCP sees (registered; the hooks of cc_hooks.c)
 * @core: the algorithm's own part
 * @reno: the Reno fallback of connections without ECN
 */
struct smartt_cc_tcp_ops {
	struct tcp_congestion_ops ops;
	const struct smartt_cc_core_ops *core;
	const struct tcp_congestion_ops *reno;
};

void smartt_cc_hook_init(struct sock *sk);
#ifdef SMARTT_HAVE_CONG_CONTROL_ACK_FLAG
void smartt_cc_hook_control(struct sock *sk, u32 ack, int flag,
			    const struct rate_sample *rs);
#else
void smartt_cc_hook_control(struct sock *sk, const struct rate_sample *rs);
#endif
void smartt_cc_hook_set_state(struct sock *sk, u8 new_state);
u32 smartt_cc_hook_undo(struct sock *sk);
void smartt_cc_hook_event(struct sock *sk, enum tcp_ca_event ev);

int smartt_cc_pernet_init(void);
void smartt_cc_pernet_exit(void);

#endif /* SMARTT_CC_GLUE_H */
