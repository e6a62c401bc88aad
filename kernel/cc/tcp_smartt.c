// SPDX-License-Identifier: GPL-2.0
/*
 * TCP congestion control "smartt": the SMaRTT core of kernel/algo/smartt.c
 * driven per ACK from tcp_ack()'s rate sample (cong_control).
 *
 * Per ACK: newly (S)ACKed bytes, the ACK's RTT sample, the CE-marked share
 * from the delivered_ce delta (DCTCP's receiver state machine keeps the
 * echo per packet), packets newly marked lost as a "NACK" (TCP has no
 * trimming, so loss detection drives QuickAdapt), undo on spurious
 * recovery.  The core's window becomes snd_cwnd and the pacing rate, with
 * packet conservation in the first round of fast recovery; an RTO drops it
 * to the loss window of one packet, from which the core's rules regrow it.
 * Documentation/tcp.rst, "Loss".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/tcp.h>

#include "smartt.h"
#include "cc/cc_glue.h"
#include "trace_cc.h"

/**
 * struct smartt_tcp - private state of one smartt flow
 * @g: glue state (first: the shared hooks of cc_glue.c find it there)
 * @s: core state
 */
struct smartt_tcp {
	struct smartt_cc_sock g;
	struct smartt_state s;
};

static void smartt_tcp_trace(struct sock *sk, u8 ev, u32 rules, u64 before,
			     const struct smartt_tcp *ca, u32 rtt, u32 bytes,
			     u32 ce_bytes)
{
	trace_smartt_cc(sk, SMARTT_CC_ALGO_SMARTT, ev, rules, before,
			ca->s.cwnd, rtt, ca->s.base_rtt, bytes, ce_bytes,
			smartt_cc_in_flight(sk));
}

static void smartt_tcp_init(struct sock *sk)
{
	struct smartt_tcp *ca = inet_csk_ca(sk);
	const struct smartt_cc_cfg *cfg;
	const struct smartt_params *p;
	struct smartt_params tmp;
	u32 rtt0;
	u64 cwnd;

	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	smartt_cc_sock_init(sk, &ca->g, cfg);
	p = smartt_cc_smartt_params(cfg, &ca->g, &tmp);
	rtt0 = smartt_cc_base_rtt0(sk, cfg, p->base_rtt0);
	cwnd = smartt_cc_start_cwnd(sk, cfg, p->k.link_mbps, rtt0);
	smartt_init(&ca->s, p, cwnd);
	/* start from the handshake's RTT, within the bounds it implies */
	ca->s.base_rtt = rtt0;
	ca->s.cwnd = clamp_t(u64, cwnd, p->k.mtu, smartt_maxwnd(p, rtt0));
	smartt_cc_apply(sk, &ca->g, cfg, ca->s.cwnd, rtt0, NULL);
	smartt_tcp_trace(sk, SMARTT_CC_EV_INIT, 0, cwnd, ca, 0, 0, 0);
	rcu_read_unlock();
}

/* The glue's base-RTT rules (smartt_cc_base_rtt()), cwnd within the bounds. */
static void smartt_tcp_base(struct sock *sk, struct smartt_tcp *ca,
			    const struct smartt_params *p, u32 rtt)
{
	u32 base = smartt_cc_base_rtt(sk, &ca->g, p->k.learn_base_rtt, rtt,
				      ca->s.base_rtt);

	if (base == ca->s.base_rtt)
		return;
	ca->s.base_rtt = base;
	ca->s.cwnd = min(ca->s.cwnd, smartt_maxwnd(p, base));
}

static void smartt_tcp_control(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct smartt_tcp *ca = inet_csk_ca(sk);
	const struct smartt_cc_cfg *cfg;
	const struct smartt_params *p;
	struct smartt_params tmp;
	struct smartt_event e;
	u32 mss = tp->mss_cache, ce, acked, rules;
	u64 before;

	/* tcp_ack() of the handshake runs before init(): nothing to do */
	if (!inet_csk(sk)->icsk_ca_initialized)
		return;
	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	if (!cfg->p.link_mbps)
		smartt_cc_rate_update(sk, &ca->g, rs);
	p = smartt_cc_smartt_params(cfg, &ca->g, &tmp);
	e.rtt = smartt_cc_rtt_sample(rs);
	smartt_tcp_base(sk, ca, p, e.rtt);
	ce = smartt_cc_ce_pkts(sk, &ca->g);
	acked = rs->acked_sacked;
	e.now = smartt_cc_now(sk);
	e.in_flight = smartt_cc_in_flight(sk);

	if (rs->losses > 0) {
		before = ca->s.cwnd;
		e.bytes = min_t(u64, (u64)rs->losses * mss, U32_MAX);
		e.ecn = false;
		rules = smartt_on_nack(&ca->s, p, &e);
		smartt_tcp_trace(sk, SMARTT_CC_EV_LOSS, rules, before, ca,
				 e.rtt, e.bytes, 0);
	}
	if (acked) {
		u32 ce_pk = min(ce, acked);

		/* CE-marked and unmarked bytes as separate events */
		if (ce_pk) {
			before = ca->s.cwnd;
			e.bytes = min_t(u64, (u64)ce_pk * mss, U32_MAX);
			e.ecn = true;
			rules = smartt_on_ack(&ca->s, p, &e);
			smartt_tcp_trace(sk, SMARTT_CC_EV_ACK, rules, before,
					 ca, e.rtt, e.bytes, e.bytes);
		}
		if (acked > ce_pk) {
			before = ca->s.cwnd;
			e.bytes = min_t(u64, (u64)(acked - ce_pk) * mss, U32_MAX);
			e.ecn = false;
			rules = smartt_on_ack(&ca->s, p, &e);
			smartt_tcp_trace(sk, SMARTT_CC_EV_ACK, rules, before,
					 ca, e.rtt, e.bytes, 0);
		}
	}
	smartt_cc_apply(sk, &ca->g, cfg, ca->s.cwnd, ca->s.base_rtt, rs);
	rcu_read_unlock();
}

#ifdef SMARTT_HAVE_CONG_CONTROL_ACK_FLAG
static void smartt_tcp_cong_control(struct sock *sk, u32 ack, int flag,
				    const struct rate_sample *rs)
{
	smartt_tcp_control(sk, rs);
}
#else
static void smartt_tcp_cong_control(struct sock *sk, const struct rate_sample *rs)
{
	smartt_tcp_control(sk, rs);
}
#endif

/*
 * Every congestion state change: fast recovery starts packet conservation
 * (smartt_cc_set_state()); an RTO (TCP_CA_Loss) drops the core's window to
 * the loss window, one packet (RFC 5681 3.1), from which the core's own
 * increase rules regrow it on the next ACKs.
 */
static void smartt_tcp_set_state(struct sock *sk, u8 new_state)
{
	struct smartt_tcp *ca = inet_csk_ca(sk);
	const struct smartt_cc_cfg *cfg;
	const struct smartt_params *p;
	struct smartt_params tmp;
	u64 before = ca->s.cwnd;

	if (!inet_csk(sk)->icsk_ca_initialized)
		return;
	smartt_cc_set_state(sk, &ca->g, new_state);
	if (new_state != TCP_CA_Loss)
		return;
	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	p = smartt_cc_smartt_params(cfg, &ca->g, &tmp);
	ca->s.cwnd = p->k.mtu;
	smartt_tcp_trace(sk, SMARTT_CC_EV_RTO, 0, before, ca, 0,
			 tcp_sk(sk)->mss_cache, 0);
	rcu_read_unlock();
}

/*
 * Spurious recovery: the window before it (tp->prior_cwnd, saved by TCP on
 * entering recovery or loss) comes back and the ignore phase ends.
 */
static u32 smartt_tcp_undo_cwnd(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct smartt_tcp *ca = inet_csk_ca(sk);
	const struct smartt_cc_cfg *cfg;
	const struct smartt_params *p;
	struct smartt_params tmp;
	u64 before = ca->s.cwnd, w;

	if (!inet_csk(sk)->icsk_ca_initialized)
		return tcp_snd_cwnd(tp);
	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	p = smartt_cc_smartt_params(cfg, &ca->g, &tmp);
	ca->s.cwnd = smartt_cc_undo_bytes(ca->s.cwnd, tp->prior_cwnd,
					  tp->mss_cache, p->k.mtu,
					  smartt_maxwnd(p, ca->s.base_rtt));
	ca->s.bytes_ignored = ca->s.bytes_to_ignore;
	smartt_tcp_trace(sk, SMARTT_CC_EV_UNDO, 0, before, ca, 0, 0, 0);
	w = smartt_cc_cwnd_pkts(sk, cfg, ca->s.cwnd);
	rcu_read_unlock();
	return w;
}

static struct tcp_congestion_ops smartt_tcp_ops __read_mostly = {
	.flags		= TCP_CONG_NEEDS_ECN,
	.init		= smartt_tcp_init,
	.cong_control	= smartt_tcp_cong_control,
	.ssthresh	= smartt_cc_ssthresh,
	.undo_cwnd	= smartt_tcp_undo_cwnd,
	.set_state	= smartt_tcp_set_state,
	.cwnd_event	= smartt_cc_cwnd_event,
	.owner		= THIS_MODULE,
	.name		= "smartt",
};

/**
 * smartt_tcp_register() - register the "smartt" congestion control
 *
 * Return: 0 or a negative errno.
 */
int smartt_tcp_register(void)
{
	BUILD_BUG_ON(sizeof(struct smartt_tcp) > ICSK_CA_PRIV_SIZE);
	BUILD_BUG_ON(!SMARTT_FITS_TCP_PRIV(struct smartt_tcp));
	/* smartt_cc_cwnd_event() finds the glue state at the start */
	BUILD_BUG_ON(offsetof(struct smartt_tcp, g) != 0);
	return tcp_register_congestion_control(&smartt_tcp_ops);
}

/**
 * smartt_tcp_unregister() - undo smartt_tcp_register()
 */
void smartt_tcp_unregister(void)
{
	tcp_unregister_congestion_control(&smartt_tcp_ops);
}
