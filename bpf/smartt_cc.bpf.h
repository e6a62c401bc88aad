/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Glue of the BPF struct_ops congestion controls: the BPF counterpart of
 * kernel/cc/cc_glue.c.  It converts tcp_sock and rate_sample state into
 * the cores' samples and their windows back into snd_cwnd and the pacing
 * rate, with the conversions of kernel/algo/tcpcc.h; every decision is the
 * cores' (kernel/algo/), compiled into these programs.
 *
 * The per-flow state lives in socket-local storage (smartt_cc_flows), not
 * in icsk_ca_priv: the verifier refuses an instruction that loads through
 * a socket pointer on one path and a map pointer on another, which the
 * compiler makes of the cores' code when the state and the parameters
 * come from different kinds of memory.  Both are map values here.
 * Documentation/bpf-cc.rst.
 */
#ifndef SMARTT_CC_BPF_H
#define SMARTT_CC_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "smartt_core.bpf.h"
#include "smartt_cc.h"
#include "smartt_cc_flows.bpf.h"

/* A BPF subprogram of its own (the cores' noinline means nothing in BPF). */
#define SMARTT_BPF_NOINLINE	__attribute__((__noinline__))

#define SMARTT_TCP_CA_LOSS	SMARTT_CC_CA_LOSS	/* TCP_CA_Loss */
#define TCP_CONG_NEEDS_ECN	0x2
#define SMARTT_ECN_DEMAND_CWR	4	/* TCP_ECN_DEMAND_CWR */
#define SMARTT_ACK_TIMER	2	/* ICSK_ACK_TIMER */
#define SMARTT_ACK_NOW		4	/* ICSK_ACK_NOW */
#define SMARTT_TCP_ECN_OK	1	/* TCP_ECN_OK */
#define SMARTT_TCP_LISTEN	10	/* TCP_LISTEN */
#define SMARTT_TCP_CLOSE	7	/* TCP_CLOSE */
#define SMARTT_SOL_TCP		6	/* SOL_TCP */
#define SMARTT_TCP_CONGESTION	13	/* TCP_CONGESTION */
#define SMARTT_TCP_INIT_CWND	10	/* TCP_INIT_CWND */

char LICENSE[] SEC("license") = "GPL";

/*
 * cong_control(sk, ack, flag, rs) since Linux 6.10, (sk, rs) before: the
 * objects are built once for each (SMARTT_CC_CONG_CONTROL_V1 for the old
 * one) and the loader picks by the kernel's BTF.
 */
#ifdef SMARTT_CC_CONG_CONTROL_V1
#define SMARTT_CC_CONG_CONTROL(name, fn)				\
SEC("struct_ops/" #name)						\
void BPF_PROG(name, struct sock *sk, const struct rate_sample *rs)	\
{									\
	fn(sk, rs);							\
}
#else
#define SMARTT_CC_CONG_CONTROL(name, fn)				\
SEC("struct_ops/" #name)						\
void BPF_PROG(name, struct sock *sk, u32 ack, int flag,		\
	      const struct rate_sample *rs)				\
{									\
	fn(sk, rs);							\
}
#endif

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct smartt_cc_bpf_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} smartt_cc_cfg SEC(".maps");


struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SMARTT_CC_STAT_COUNT);
	__type(key, u32);
	__type(value, u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} smartt_cc_stats SEC(".maps");

static __always_inline struct tcp_sock *cc_tp(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline void cc_stat(u32 idx)
{
	u64 *v = bpf_map_lookup_elem(&smartt_cc_stats, &idx);

	if (v)
		__sync_fetch_and_add(v, 1);
}

static __always_inline const struct smartt_cc_bpf_cfg *cc_cfg(void)
{
	u32 zero = 0;
	const struct smartt_cc_bpf_cfg *cfg = bpf_map_lookup_elem(&smartt_cc_cfg, &zero);

	/* the loader writes it before it registers a congestion control */
	if (!cfg || !cfg->gen) {
		cc_stat(SMARTT_CC_STAT_NO_CFG);
		return NULL;
	}
	return cfg;
}

/* The flow's state if it is one of @algo's, else NULL. */
static __always_inline struct smartt_cc_flow *cc_flow(struct sock *sk, u32 algo)
{
	struct smartt_cc_flow *f = bpf_sk_storage_get(&smartt_cc_flows, sk, NULL, 0);

	return f && f->algo == algo ? f : NULL;
}

/* A new flow's state, or NULL (counted) when there is no memory for it. */
static __always_inline struct smartt_cc_flow *cc_flow_new(struct sock *sk, u32 algo)
{
	struct smartt_cc_flow *f;

	cc_stat(SMARTT_CC_STAT_FLOWS);
	f = bpf_sk_storage_get(&smartt_cc_flows, sk, NULL,
			       BPF_SK_STORAGE_GET_F_CREATE);
	if (!f) {
		cc_stat(SMARTT_CC_STAT_NO_STORAGE);
		return NULL;
	}
	__builtin_memset(f, 0, sizeof(*f));
	f->algo = algo;
	return f;
}

/* tcp_min_rtt(), us (~0U: none) */
static __always_inline u32 cc_min_rtt_us(const struct tcp_sock *tp)
{
	return tp->rtt_min.s[0].v;
}

/* smartt_cc_windowed_min_rtt(): the kernel's windowed minimum RTT, ns */
static __always_inline u32 cc_windowed_min_rtt(const struct tcp_sock *tp)
{
	return smartt_cc_us_to_ns(cc_min_rtt_us(tp));
}

/* smartt_cc_in_flight(): tcp_packets_in_flight() x MSS, bytes */
static __always_inline u64 cc_in_flight(const struct tcp_sock *tp)
{
	u32 left = tp->packets_out - (tp->sacked_out + tp->lost_out);

	return (u64)(left + tp->retrans_out) * tp->mss_cache;
}

/* smartt_cc_now(): the time of the ACK being processed, ns */
static __always_inline u64 cc_now(const struct tcp_sock *tp)
{
	return tp->tcp_mstamp * 1000;
}

/* smartt_cc_sock_init() */
static __always_inline void cc_sock_init(struct sock *sk, struct smartt_cc_sock *g,
					 const struct smartt_cc_bpf_cfg *cfg)
{
	struct tcp_sock *tp = cc_tp(sk);
	u32 rtt_us = cc_min_rtt_us(tp);

	g->prior_ce = (u16)tp->delivered_ce;
	g->prior_rcv_nxt = tp->rcv_nxt;
	if (!cfg->p.link_mbps && rtt_us && rtt_us != ~0U) {
		u64 mbps = (u64)tp->snd_cwnd * tp->mss_cache * 8 / rtt_us;
		u32 slot;

		g->rate_mbps = smartt_cc_rate_step(clamp_t(u64, mbps, 1,
							   SMARTT_CC_RATE_MAX),
						   &slot);
	}
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
}

/* smartt_cc_base_rtt0() */
static __always_inline u32 cc_base_rtt0(const struct tcp_sock *tp,
					const struct smartt_cc_bpf_cfg *cfg,
					u32 fallback)
{
	u32 rtt;

	if (cfg->p.base_rtt_ns)
		return cfg->p.base_rtt_ns;
	rtt = cc_windowed_min_rtt(tp);
	return rtt ? max_t(u32, rtt, SMARTT_RTT_MIN_NS) : fallback;
}

/* smartt_cc_rate_update() */
static __always_inline void cc_rate_update(const struct tcp_sock *tp,
					   struct smartt_cc_sock *g,
					   const struct rate_sample *rs)
{
	long interval = rs->interval_us;
	s32 delivered = rs->delivered;
	u32 slot;
	u64 mbps;

	if (delivered <= 0 || interval <= 0)
		return;
	mbps = smartt_cc_rate_sample_mbps(delivered, tp->mss_cache,
					  min_t(long, interval, U32_MAX),
					  tp->srtt_us >> 3, cc_min_rtt_us(tp));
	mbps = smartt_cc_rate_step(mbps, &slot);
	if (mbps > g->rate_mbps)
		g->rate_mbps = mbps;
}

/* smartt_cc_rtt_sample() */
static __always_inline u32 cc_rtt_sample(const struct rate_sample *rs)
{
	long us = rs->rtt_us;

	return us > 0 ? smartt_cc_us_to_ns(min_t(long, us, U32_MAX - 1)) : 0;
}

/* smartt_cc_base_rtt() */
static __always_inline u32 cc_base_rtt(const struct tcp_sock *tp,
				       struct smartt_cc_sock *g, bool learn,
				       u32 rtt, u32 base)
{
	return smartt_cc_base_rtt_next(learn, &g->base_known, rtt, base,
				       learn && g->base_known ?
				       cc_windowed_min_rtt(tp) : 0);
}

/*
 * The host-delay split as global BPF functions: each is verified once,
 * for any arguments, and its result is a scalar of unknown value to the
 * caller, so the split's branches do not multiply the states the
 * verifier walks through the core after it (inlined, they took
 * bpf_strack's control past the verifier's million instructions).
 */
__attribute__((__noinline__)) u32 smartt_cc_bpf_host_ns(u64 bytes, u32 delivered, u32 mss,
							u32 interval_us, u64 pacing_rate)
{
	return smartt_hd_local_ns(bytes, delivered, mss, interval_us, pacing_rate);
}

__attribute__((__noinline__)) u32 smartt_cc_bpf_fabric_rtt(u32 rtt, u32 base_rtt, u32 host,
							   u32 target, u32 flags)
{
	return smartt_hd_fabric_rtt(rtt, base_rtt, host, target, flags);
}

/*
 * smartt_cc_host_delay(): the measured host delay of this ACK (the
 * sender's own queue below TCP over the ACK's delivery rate), also into
 * the flow's average for `smarttctl cc flows`.
 */
static __always_inline u32 cc_host_delay(struct sock *sk, struct smartt_cc_flow *f,
					 const struct rate_sample *rs)
{
	const struct tcp_sock *tp = cc_tp(sk);
	long interval = rs->interval_us;
	s32 delivered = rs->delivered;
	u32 host;

	host = smartt_cc_bpf_host_ns(cc_below_tcp(sk), delivered > 0 ? delivered : 0,
				     tp->mss_cache,
				     interval > 0 ? min_t(long, interval, U32_MAX) : 0,
				     sk->sk_pacing_rate);
	f->host_ns = smartt_hd_avg(f->host_ns, host);
	return host;
}

/* smartt_cc_fabric_rtt(): the RTT sample the core's fabric rules see */
static __always_inline u32 cc_fabric_rtt(const struct smartt_cc_bpf_cfg *cfg,
					 const struct rate_sample *rs, u32 rtt,
					 u32 base, u32 host, bool ce)
{
	return smartt_cc_bpf_fabric_rtt(rtt, base, host, cfg->p.host_target_ns,
					(rs->is_ack_delayed ? SMARTT_HD_F_DELAYED : 0) |
					(ce ? SMARTT_HD_F_CE : 0));
}

/* smartt_cc_ce_pkts() */
static __always_inline u32 cc_ce_pkts(const struct tcp_sock *tp,
				      struct smartt_cc_sock *g)
{
	u16 now = (u16)tp->delivered_ce;
	u16 d = now - g->prior_ce;

	g->prior_ce = now;
	return d;
}

/* smartt_cc_cwnd_pkts() */
static __always_inline u32 cc_cwnd_pkts(const struct tcp_sock *tp,
					const struct smartt_cc_bpf_cfg *cfg,
					u64 cwnd)
{
	return smartt_cc_pkts(cwnd, tp->mss_cache, cfg->p.min_cwnd,
			      tp->snd_cwnd_clamp);
}

/* tcp_packets_in_flight() */
static __always_inline u32 cc_in_flight_pkts(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

/* smartt_cc_apply(): @rs NULL outside an ACK */
static __always_inline void cc_apply(struct sock *sk, struct smartt_cc_sock *g,
				     const struct smartt_cc_bpf_cfg *cfg,
				     u64 cwnd, u32 base_rtt,
				     const struct rate_sample *rs)
{
	struct tcp_sock *tp = cc_tp(sk);
	u32 pkts = cc_cwnd_pkts(tp, cfg, cwnd);
	u64 rate;

	if (rs) {
		s32 acked = rs->acked_sacked;

		pkts = smartt_cc_rec_pkts(g, pkts, cc_in_flight_pkts(tp),
					  acked > 0 ? acked : 0,
					  rs->prior_delivered, cfg->p.min_cwnd);
	}
	tp->snd_cwnd = pkts;
	rate = smartt_cc_pacing_rate(pkts, tp->mss_cache, tp->srtt_us >> 3,
				     base_rtt);
	rate = min_t(u64, rate, sk->sk_max_pacing_rate);
	sk->sk_pacing_rate = rate;
}

/* smartt_cc_ssthresh() */
static __always_inline u32 cc_ssthresh(struct sock *sk)
{
	return max_t(u32, cc_tp(sk)->snd_cwnd, 2);
}

static __always_inline void cc_ece_ack_cwr(struct tcp_sock *tp, u32 ce_state)
{
	if (ce_state)
		tp->ecn_flags |= SMARTT_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~SMARTT_ECN_DEMAND_CWR;
}

/*
 * smartt_cc_cwnd_event(): the receiver's CE state machine (DCTCP's), with
 * the state in @g (SMARTT_CC_S_CE).  On a change of the CE state of arriving data, a
 * pending delayed ACK goes out first with the old state, then the new
 * data is ACKed at once: every ACK's ECE echoes exactly the CE marks of
 * the packets it acknowledges.
 */
static __always_inline void cc_cwnd_event(struct sock *sk, struct smartt_cc_sock *g,
					  enum tcp_ca_event ev)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct tcp_sock *tp = cc_tp(sk);
	u32 new = ev == CA_EVENT_ECN_IS_CE;
	u32 old = !!(g->state & SMARTT_CC_S_CE);

	if (ev != CA_EVENT_ECN_IS_CE && ev != CA_EVENT_ECN_NO_CE)
		return;
	if (old != new) {
		if (icsk->icsk_ack.pending & SMARTT_ACK_TIMER) {
			cc_ece_ack_cwr(tp, old);
			bpf_tcp_send_ack(tp, g->prior_rcv_nxt);
		}
		icsk->icsk_ack.pending |= SMARTT_ACK_NOW;
	}
	g->prior_rcv_nxt = tp->rcv_nxt;
	g->state = new ? g->state | SMARTT_CC_S_CE : g->state & ~SMARTT_CC_S_CE;
	cc_ece_ack_cwr(tp, new);
}

/*
 * The module's smartt_cc_hook_init() test: a connection that did not
 * negotiate ECN runs Reno instead (TCP_CONGESTION from the init callback,
 * as the kernel's BPF DCTCP sample does), whose reinit leaves the data
 * Not-ECT.  Return: true if it was handed over (counted); if the switch
 * fails the flow keeps its core.
 */
static __always_inline bool cc_noecn(struct sock *sk)
{
	static const char reno[] = "reno";
	struct tcp_sock *tp = cc_tp(sk);
	int state = sk->__sk_common.skc_state;

	if ((tp->ecn_flags & SMARTT_TCP_ECN_OK) ||
	    state == SMARTT_TCP_LISTEN || state == SMARTT_TCP_CLOSE)
		return false;
	if (bpf_setsockopt(sk, SMARTT_SOL_TCP, SMARTT_TCP_CONGESTION,
			   (void *)reno, sizeof(reno)))
		return false;
	cc_stat(SMARTT_CC_STAT_NOECN);
	return true;
}

/*
 * smartt_cc_idle() of the module: after more than one RTO without sending
 * (CA_EVENT_TX_START), tcp_cwnd_restart()'s rule, with
 * net.ipv4.tcp_slow_start_after_idle on.  The start window is the
 * configured BDP (tcp_start = 1) or IW10 (the module also honours a
 * route's initcwnd, which BPF cannot read).  Return: true if @cwnd changed.
 */
static __always_inline bool cc_idle(struct sock *sk,
				    const struct smartt_cc_bpf_cfg *cfg,
				    u64 *cwnd, u32 base_rtt, u32 link_mbps,
				    u32 mtu)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct tcp_sock *tp = cc_tp(sk);
	u32 idle = (u32)bpf_jiffies64() - tp->lsndtime;
	u32 iw = min_t(u32, SMARTT_TCP_INIT_CWND, tp->snd_cwnd_clamp);
	u64 w;

	if (!sk->__sk_common.skc_net.net->ipv4.sysctl_tcp_slow_start_after_idle ||
	    idle <= icsk->icsk_rto)
		return false;
	w = smartt_cc_idle_bytes(*cwnd,
				 smartt_cc_start_bytes(&cfg->p, link_mbps, base_rtt,
						       (u64)iw * tp->mss_cache),
				 idle, icsk->icsk_rto);
	*cwnd = max_t(u64, w, mtu);
	return true;
}

/* Count each rule that fired in @f->rules. */
static __always_inline void cc_count_rules(struct smartt_cc_flow *f, u32 rules)
{
	int i;

#pragma unroll
	for (i = 0; i < SMARTT_CC_RULE_BITS; i++)
		if (rules & (1U << i))
			f->rules[i]++;
}

#endif /* SMARTT_CC_BPF_H */
