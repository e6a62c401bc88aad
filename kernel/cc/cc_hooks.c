// SPDX-License-Identifier: GPL-2.0
/*
 * The tcp_congestion_ops hooks of both congestion controls, smartt and
 * strack: one glue, driven by each algorithm's small table (struct
 * smartt_cc_core_ops, in tcp_smartt.c and tcp_strack.c).  Per ACK it turns
 * the rate sample into core events; it follows TCP's congestion state, the
 * RTO, idle restarts (CA_EVENT_TX_START) and undo; a
 * connection that did not negotiate ECN is handed to the algorithm's Reno
 * fallback.  Window decisions are the cores' (kernel/algo/).
 * Documentation/tcp.rst.
 */
#include <net/inet_ecn.h>
#include <net/tcp.h>

#include "smartt.h"
#include "cc/cc_glue.h"
#include "trace_cc.h"

/* The algorithm of a socket that runs one of the module's. */
static const struct smartt_cc_core_ops *smartt_cc_core(const struct sock *sk)
{
	return container_of(inet_csk(sk)->icsk_ca_ops, struct smartt_cc_tcp_ops,
			    ops)->core;
}

static void smartt_cc_trace(struct sock *sk, const struct smartt_cc_core_ops *a,
			    u8 ev, u32 rules, u64 before,
			    const struct smartt_cc_core *c, u32 rtt, u32 bytes,
			    u32 ce_bytes)
{
	trace_smartt_cc(sk, a->id, ev, rules, before, *c->cwnd, rtt,
			*c->base_rtt, bytes, ce_bytes, smartt_cc_in_flight(sk));
}

/*
 * What tcp_dctcp.c does for a connection without ECN: the data leave
 * Not-ECT (INET_ECN_dontxmit(), as TCP itself leaves ECT set for a
 * TCP_CONG_NEEDS_ECN congestion control) and losses are answered by Reno.
 * The module reference taken for the algorithm covers the fallback, which
 * has the same owner.
 */
static void smartt_cc_noecn(struct sock *sk)
{
	const struct smartt_cc_tcp_ops *t;
	u64 w = (u64)tcp_snd_cwnd(tcp_sk(sk)) * tcp_sk(sk)->mss_cache;

	t = container_of(inet_csk(sk)->icsk_ca_ops, struct smartt_cc_tcp_ops, ops);
	inet_csk(sk)->icsk_ca_ops = t->reno;
	INET_ECN_dontxmit(sk);
	trace_smartt_cc(sk, t->core->id, SMARTT_CC_EV_NOECN, 0, w, w, 0, 0, 0, 0,
			smartt_cc_in_flight(sk));
}

/**
 * smartt_cc_hook_init() - tcp_congestion_ops.init of both algorithms
 * @sk: socket
 *
 * A connection that has not negotiated ECN gets no core: it is handed to
 * the algorithm's Reno fallback (smartt_cc_noecn()), so that it sends no
 * ECT that nobody would echo.  A listener or closed socket keeps the
 * algorithm (its connections negotiate for themselves).
 */
void smartt_cc_hook_init(struct sock *sk)
{
	const struct smartt_cc_core_ops *a = smartt_cc_core(sk);
	struct smartt_cc_sock *g = inet_csk_ca(sk);
	const struct smartt_cc_cfg *cfg;
	union smartt_cc_scratch tmp;
	struct smartt_cc_core c;
	u32 rtt0;
	u64 cwnd;

	if (!(tcp_sk(sk)->ecn_flags & TCP_ECN_OK) &&
	    !((1 << sk->sk_state) & (TCPF_LISTEN | TCPF_CLOSE))) {
		smartt_cc_noecn(sk);
		return;
	}
	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	smartt_cc_sock_init(sk, g, cfg);
	a->core(g, cfg, &tmp, &c);
	rtt0 = smartt_cc_base_rtt0(sk, cfg, c.base_rtt0);
	cwnd = smartt_cc_start_cwnd(sk, cfg, c.link_mbps, rtt0);
	a->init(g, c.p, cwnd);
	/* start from the handshake's RTT, within the bounds it implies */
	*c.base_rtt = rtt0;
	*c.cwnd = clamp_t(u64, cwnd, c.mtu, a->maxwnd(c.p, rtt0));
	smartt_cc_apply(sk, g, cfg, *c.cwnd, rtt0, NULL);
	smartt_cc_trace(sk, a, SMARTT_CC_EV_INIT, 0, cwnd, &c, 0, 0, 0);
	rcu_read_unlock();
}

/* The glue's base-RTT rules (smartt_cc_base_rtt()), cwnd within the bounds. */
static void smartt_cc_base(struct sock *sk, const struct smartt_cc_core_ops *a,
			   struct smartt_cc_sock *g,
			   const struct smartt_cc_core *c, u32 rtt)
{
	u32 base = smartt_cc_base_rtt(sk, g, c->learn_base_rtt, rtt,
				      *c->base_rtt);

	if (base == *c->base_rtt)
		return;
	*c->base_rtt = base;
	*c->cwnd = min(*c->cwnd, a->maxwnd(c->p, base));
}

/*
 * tcp_congestion_ops.cong_control of both (smartt_cc_hook_control()).
 * Packets newly marked lost are one loss event, then the (S)ACKed packets
 * are one or two ACK events: the CE-echoed ones with ecn set, the others
 * without, so that each byte is counted with its own mark.  Each event's
 * RTT is the fabric's part of the ACK's sample (smartt_cc_fabric_rtt()).
 * The core's window becomes snd_cwnd and the pacing rate
 * (smartt_cc_apply()).
 */
static void smartt_cc_control(struct sock *sk, const struct rate_sample *rs)
{
	const struct smartt_cc_core_ops *a = smartt_cc_core(sk);
	struct smartt_cc_sock *g = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	const struct smartt_cc_cfg *cfg;
	union smartt_cc_scratch tmp;
	struct smartt_cc_core c;
	struct smartt_event e;
	u32 mss = tp->mss_cache, ce, acked, rules, rtt, host;
	u64 before;

	/* tcp_ack() of the handshake runs before init(): nothing to do */
	if (!inet_csk(sk)->icsk_ca_initialized)
		return;
	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	if (!cfg->p.link_mbps)
		smartt_cc_rate_update(sk, g, rs);
	a->core(g, cfg, &tmp, &c);
	rtt = smartt_cc_rtt_sample(rs);
	smartt_cc_base(sk, a, g, &c, rtt);
	/* the core sees the fabric's part of the sample (host delay apart) */
	host = smartt_cc_host_delay(sk, rs);
	ce = smartt_cc_ce_pkts(sk, g);
	acked = rs->acked_sacked;
	e.now = smartt_cc_now(sk);
	e.in_flight = smartt_cc_in_flight(sk);

	if (rs->losses > 0) {
		before = *c.cwnd;
		e.bytes = min_t(u64, (u64)rs->losses * mss, U32_MAX);
		e.ecn = false;
		e.rtt = smartt_cc_fabric_rtt(cfg, rs, rtt, *c.base_rtt, host, false);
		rules = a->loss(g, cfg, c.p, &e);
		smartt_cc_trace(sk, a, SMARTT_CC_EV_LOSS, rules, before, &c,
				e.rtt, e.bytes, 0);
	}
	if (acked) {
		u32 ce_pk = min(ce, acked);

		if (ce_pk) {
			before = *c.cwnd;
			e.bytes = min_t(u64, (u64)ce_pk * mss, U32_MAX);
			e.ecn = true;
			e.rtt = smartt_cc_fabric_rtt(cfg, rs, rtt, *c.base_rtt,
						     host, true);
			rules = a->ack(g, c.p, &e);
			smartt_cc_trace(sk, a, SMARTT_CC_EV_ACK, rules, before,
					&c, e.rtt, e.bytes, e.bytes);
		}
		if (acked > ce_pk) {
			before = *c.cwnd;
			e.bytes = min_t(u64, (u64)(acked - ce_pk) * mss, U32_MAX);
			e.ecn = false;
			e.rtt = smartt_cc_fabric_rtt(cfg, rs, rtt, *c.base_rtt,
						     host, false);
			rules = a->ack(g, c.p, &e);
			smartt_cc_trace(sk, a, SMARTT_CC_EV_ACK, rules, before,
					&c, e.rtt, e.bytes, 0);
		}
	}
	smartt_cc_apply(sk, g, cfg, *c.cwnd, *c.base_rtt, rs);
	rcu_read_unlock();
}

/**
 * smartt_cc_hook_control() - tcp_congestion_ops.cong_control of both
 * @sk: socket
 * @ack: the ACK's sequence number (since Linux 6.10; unused)
 * @flag: tcp_ack()'s FLAG_* (since Linux 6.10; unused)
 * @rs: the ACK's rate sample
 */
#ifdef SMARTT_HAVE_CONG_CONTROL_ACK_FLAG
void smartt_cc_hook_control(struct sock *sk, u32 ack, int flag,
			    const struct rate_sample *rs)
{
	smartt_cc_control(sk, rs);
}
#else
void smartt_cc_hook_control(struct sock *sk, const struct rate_sample *rs)
{
	smartt_cc_control(sk, rs);
}
#endif

/*
 * An RTO: the algorithm's timeout rule.  TCP enters TCP_CA_Loss on a
 * retransmission timeout (tcp_enter_loss(), from the retransmit timer) and
 * on a path-MTU drop (tcp_simple_retransmit(), from an ICMP "fragmentation
 * needed" or "packet too big"), which is no congestion: only the first
 * takes this rule.  CA_EVENT_LOSS is not the signal: TCP raises it only
 * when it lowers ssthresh, not for a timeout during fast recovery, while
 * the loss window applies after every timeout (RFC 5681 3.1).
 */
static void smartt_cc_rto(struct sock *sk, const struct smartt_cc_core_ops *a)
{
	struct smartt_cc_sock *g = inet_csk_ca(sk);
	u32 mss = tcp_sk(sk)->mss_cache, rules;
	const struct smartt_cc_cfg *cfg;
	union smartt_cc_scratch tmp;
	struct smartt_cc_core c;
	u64 before;

	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	a->core(g, cfg, &tmp, &c);
	before = *c.cwnd;
	rules = a->rto(g, cfg, c.p, mss);
	smartt_cc_trace(sk, a, SMARTT_CC_EV_RTO, rules, before, &c, 0, mss, 0);
	rcu_read_unlock();
}

/**
 * smartt_cc_hook_set_state() - tcp_congestion_ops.set_state of both
 * @sk: socket
 * @new_state: the state TCP enters (TCP_CA_*)
 *
 * Fast recovery starts packet conservation (smartt_cc_rec_state()).
 * Entering TCP_CA_Loss from the retransmit timer is an RTO: the timer
 * handler clears icsk_pending before it calls tcp_retransmit_timer(),
 * while a path-MTU drop finds the timer of the data in flight armed.
 */
void smartt_cc_hook_set_state(struct sock *sk, u8 new_state)
{
	if (!inet_csk(sk)->icsk_ca_initialized)
		return;
	smartt_cc_rec_state(inet_csk_ca(sk), new_state, tcp_sk(sk)->delivered);
	if (new_state == TCP_CA_Loss && !inet_csk(sk)->icsk_pending)
		smartt_cc_rto(sk, smartt_cc_core(sk));
}

/**
 * smartt_cc_hook_undo() - tcp_congestion_ops.undo_cwnd of both
 * @sk: socket
 *
 * Spurious recovery: the window before it (tp->prior_cwnd, saved by TCP on
 * entering recovery or loss) comes back, within the core's bound.
 *
 * Return: TCP's new window, segments.
 */
u32 smartt_cc_hook_undo(struct sock *sk)
{
	const struct smartt_cc_core_ops *a = smartt_cc_core(sk);
	struct smartt_cc_sock *g = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	const struct smartt_cc_cfg *cfg;
	union smartt_cc_scratch tmp;
	struct smartt_cc_core c;
	u64 before;
	u32 w;

	if (!inet_csk(sk)->icsk_ca_initialized)
		return tcp_snd_cwnd(tp);
	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	a->core(g, cfg, &tmp, &c);
	before = *c.cwnd;
	*c.cwnd = smartt_cc_undo_bytes(*c.cwnd, tp->prior_cwnd, tp->mss_cache,
				       c.mtu, a->maxwnd(c.p, *c.base_rtt));
	if (a->undone)
		a->undone(g);
	smartt_cc_trace(sk, a, SMARTT_CC_EV_UNDO, 0, before, &c, 0, 0, 0);
	w = smartt_cc_cwnd_pkts(sk, cfg, *c.cwnd);
	rcu_read_unlock();
	return w;
}

/* tcp_init_cwnd(), which is not exported: the route's initcwnd or IW10. */
static u32 smartt_cc_init_cwnd(struct sock *sk)
{
	const struct dst_entry *dst = __sk_dst_get(sk);
	u32 iw = dst ? dst_metric(dst, RTAX_INITCWND) : 0;

	return min(iw ?: TCP_INIT_CWND, tcp_sk(sk)->snd_cwnd_clamp);
}

/*
 * CA_EVENT_TX_START: data leave with nothing in flight.  After more than
 * one RTO without sending, tcp_cwnd_restart()'s rule
 * (smartt_cc_idle_bytes()) when net.ipv4.tcp_slow_start_after_idle is on;
 * TCP skips it for a congestion control that owns the window.  The
 * restart window is the flow's start window (smartt_cc_start_bytes()) at
 * its current base RTT.
 */
static void smartt_cc_idle(struct sock *sk, const struct smartt_cc_core_ops *a)
{
	struct smartt_cc_sock *g = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	const struct smartt_cc_cfg *cfg;
	union smartt_cc_scratch tmp;
	struct smartt_cc_core c;
	u32 idle = tcp_jiffies32 - tp->lsndtime;
	u64 before, iw;

	if (!READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_slow_start_after_idle) ||
	    idle <= inet_csk(sk)->icsk_rto)
		return;
	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	a->core(g, cfg, &tmp, &c);
	before = *c.cwnd;
	iw = (u64)smartt_cc_init_cwnd(sk) * tp->mss_cache;
	*c.cwnd = smartt_cc_idle_bytes(*c.cwnd,
				       smartt_cc_start_bytes(&cfg->p, c.link_mbps,
							     *c.base_rtt, iw),
				       idle, inet_csk(sk)->icsk_rto);
	*c.cwnd = max_t(u64, *c.cwnd, c.mtu);
	smartt_cc_apply(sk, g, cfg, *c.cwnd, *c.base_rtt, NULL);
	smartt_cc_trace(sk, a, SMARTT_CC_EV_IDLE, 0, before, &c, 0, idle, 0);
	rcu_read_unlock();
}

/**
 * smartt_cc_hook_event() - tcp_congestion_ops.cwnd_event of both
 * @sk: socket
 * @ev: the event
 *
 * The receiver's CE state machine (smartt_cc_cwnd_event()) and the restart
 * after idle (CA_EVENT_TX_START).  CA_EVENT_CWND_RESTART never comes: TCP
 * raises it only for congestion controls without cong_control.  The RTO
 * is taken in smartt_cc_hook_set_state().
 */
void smartt_cc_hook_event(struct sock *sk, enum tcp_ca_event ev)
{
	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
	case CA_EVENT_ECN_NO_CE:
		smartt_cc_cwnd_event(sk, ev);
		break;
	case CA_EVENT_TX_START:
		if (inet_csk(sk)->icsk_ca_initialized)
			smartt_cc_idle(sk, smartt_cc_core(sk));
		break;
	default:
		break;
	}
}
