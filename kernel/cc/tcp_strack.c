// SPDX-License-Identifier: GPL-2.0
/*
 * TCP congestion control "strack": the STrack core of kernel/algo/strack.c
 * driven per ACK from tcp_ack()'s rate sample (cong_control).
 *
 * Per ACK: newly (S)ACKed bytes, the ACK's RTT sample and the CE-marked
 * share from the delivered_ce delta.  STrack's only window rule for loss
 * is its timeout's (one packet off).  With net.smartt.tcp_strack_loss = 1
 * (the default) the first loss of a recovery episode halves the window
 * (md_min, STrack's largest decrease), an RTO drops it to one packet, and
 * a spurious recovery is undone; with 0 only an RTO changes it, by the
 * paper's rule.  Packet conservation holds in the first round of fast
 * recovery either way.  Documentation/tcp.rst, "Loss".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/tcp.h>

#include "smartt.h"
#include "cc/cc_glue.h"
#include "trace_cc.h"

/**
 * struct strack_tcp - private state of one strack flow
 * @g: glue state (first: the shared hooks of cc_glue.c find it there)
 * @s: core state
 */
struct strack_tcp {
	struct smartt_cc_sock g;
	struct strack_state s;
};

static void strack_tcp_trace(struct sock *sk, u8 ev, u32 rules, u64 before,
			     const struct strack_tcp *ca, u32 rtt, u32 bytes,
			     u32 ce_bytes)
{
	trace_smartt_cc(sk, SMARTT_CC_ALGO_STRACK, ev, rules, before,
			ca->s.cwnd, rtt, ca->s.base_rtt, bytes, ce_bytes,
			smartt_cc_in_flight(sk));
}

static void strack_tcp_init(struct sock *sk)
{
	struct strack_tcp *ca = inet_csk_ca(sk);
	const struct smartt_cc_cfg *cfg;
	const struct strack_params *p;
	struct strack_params tmp;
	u32 rtt0;
	u64 cwnd;

	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	smartt_cc_sock_init(sk, &ca->g, cfg);
	p = smartt_cc_strack_params(cfg, &ca->g, &tmp);
	rtt0 = smartt_cc_base_rtt0(sk, cfg, p->base_rtt0);
	cwnd = smartt_cc_start_cwnd(sk, cfg, p->k.link_mbps, rtt0);
	strack_init(&ca->s, p, cwnd);
	ca->s.base_rtt = rtt0;
	ca->s.cwnd = clamp_t(u64, cwnd, p->k.mtu, strack_maxwnd(p, rtt0));
	smartt_cc_apply(sk, &ca->g, cfg, ca->s.cwnd, rtt0, NULL);
	strack_tcp_trace(sk, SMARTT_CC_EV_INIT, 0, cwnd, ca, 0, 0, 0);
	rcu_read_unlock();
}

static void strack_tcp_control(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct strack_tcp *ca = inet_csk_ca(sk);
	const struct smartt_cc_cfg *cfg;
	const struct strack_params *p;
	struct strack_params tmp;
	u32 mss = tp->mss_cache, ce, acked, rules, rtt, base, bytes;
	u64 before, now;

	/* tcp_ack() of the handshake runs before init(): nothing to do */
	if (!inet_csk(sk)->icsk_ca_initialized)
		return;
	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	if (!cfg->p.link_mbps)
		smartt_cc_rate_update(sk, &ca->g, rs);
	p = smartt_cc_strack_params(cfg, &ca->g, &tmp);
	rtt = smartt_cc_rtt_sample(rs);
	base = smartt_cc_base_rtt(sk, &ca->g, p->k.learn_base_rtt, rtt,
				  ca->s.base_rtt);
	if (base != ca->s.base_rtt) {
		ca->s.base_rtt = base;
		ca->s.cwnd = min(ca->s.cwnd, strack_maxwnd(p, base));
	}
	ce = smartt_cc_ce_pkts(sk, &ca->g);
	acked = rs->acked_sacked;
	now = smartt_cc_now(sk);

	if (rs->losses > 0) {
		before = ca->s.cwnd;
		bytes = min_t(u64, (u64)rs->losses * mss, U32_MAX);
		rules = 0;
		if (cfg->p.strack_loss == SMARTT_CC_STRACK_LOSS_MD)
			rules = smartt_cc_strack_loss(&ca->g, &ca->s, p);
		strack_tcp_trace(sk, SMARTT_CC_EV_LOSS, rules, before, ca, rtt,
				 bytes, 0);
	}
	if (acked) {
		u32 ce_pk = min(ce, acked);

		if (ce_pk) {
			before = ca->s.cwnd;
			bytes = min_t(u64, (u64)ce_pk * mss, U32_MAX);
			rules = strack_on_ack(&ca->s, p, now, rtt, true, bytes);
			strack_tcp_trace(sk, SMARTT_CC_EV_ACK, rules, before,
					 ca, rtt, bytes, bytes);
		}
		if (acked > ce_pk) {
			before = ca->s.cwnd;
			bytes = min_t(u64, (u64)(acked - ce_pk) * mss, U32_MAX);
			rules = strack_on_ack(&ca->s, p, now, rtt, false, bytes);
			strack_tcp_trace(sk, SMARTT_CC_EV_ACK, rules, before,
					 ca, rtt, bytes, 0);
		}
	}
	smartt_cc_apply(sk, &ca->g, cfg, ca->s.cwnd, ca->s.base_rtt, rs);
	rcu_read_unlock();
}

#ifdef SMARTT_HAVE_CONG_CONTROL_ACK_FLAG
static void strack_tcp_cong_control(struct sock *sk, u32 ack, int flag,
				    const struct rate_sample *rs)
{
	strack_tcp_control(sk, rs);
}
#else
static void strack_tcp_cong_control(struct sock *sk, const struct rate_sample *rs)
{
	strack_tcp_control(sk, rs);
}
#endif

/*
 * Every congestion state change: fast recovery starts packet conservation
 * (smartt_cc_set_state()).  An RTO (TCP_CA_Loss) drops the window to the
 * loss window, one packet (RFC 5681 3.1), with tcp_strack_loss = 1, or
 * takes STrack's timeout rule (one packet off) with 0; the core's rules
 * regrow it.
 */
static void strack_tcp_set_state(struct sock *sk, u8 new_state)
{
	struct strack_tcp *ca = inet_csk_ca(sk);
	const struct smartt_cc_cfg *cfg;
	const struct strack_params *p;
	struct strack_params tmp;
	u32 mss = tcp_sk(sk)->mss_cache, rules = 0;
	u64 before = ca->s.cwnd;

	if (!inet_csk(sk)->icsk_ca_initialized)
		return;
	smartt_cc_set_state(sk, &ca->g, new_state);
	if (new_state != TCP_CA_Loss)
		return;
	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	p = smartt_cc_strack_params(cfg, &ca->g, &tmp);
	if (cfg->p.strack_loss == SMARTT_CC_STRACK_LOSS_MD)
		ca->s.cwnd = p->k.mtu;
	else
		rules = strack_on_timeout(&ca->s, p, mss);
	strack_tcp_trace(sk, SMARTT_CC_EV_RTO, rules, before, ca, 0, mss, 0);
	rcu_read_unlock();
}

/*
 * Spurious recovery: the window before it (tp->prior_cwnd, saved by TCP on
 * entering recovery or loss) comes back, within the core's bound.
 */
static u32 strack_tcp_undo_cwnd(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct strack_tcp *ca = inet_csk_ca(sk);
	const struct smartt_cc_cfg *cfg;
	const struct strack_params *p;
	struct strack_params tmp;
	u64 before = ca->s.cwnd, w;

	if (!inet_csk(sk)->icsk_ca_initialized)
		return tcp_snd_cwnd(tp);
	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	p = smartt_cc_strack_params(cfg, &ca->g, &tmp);
	ca->s.cwnd = smartt_cc_undo_bytes(ca->s.cwnd, tp->prior_cwnd,
					  tp->mss_cache, p->k.mtu,
					  strack_maxwnd(p, ca->s.base_rtt));
	strack_tcp_trace(sk, SMARTT_CC_EV_UNDO, 0, before, ca, 0, 0, 0);
	w = smartt_cc_cwnd_pkts(sk, cfg, ca->s.cwnd);
	rcu_read_unlock();
	return w;
}

static struct tcp_congestion_ops strack_tcp_ops __read_mostly = {
	.flags		= TCP_CONG_NEEDS_ECN,
	.init		= strack_tcp_init,
	.cong_control	= strack_tcp_cong_control,
	.ssthresh	= smartt_cc_ssthresh,
	.undo_cwnd	= strack_tcp_undo_cwnd,
	.set_state	= strack_tcp_set_state,
	.cwnd_event	= smartt_cc_cwnd_event,
	.owner		= THIS_MODULE,
	.name		= "strack",
};

/**
 * strack_tcp_register() - register the "strack" congestion control
 *
 * Return: 0 or a negative errno.
 */
int strack_tcp_register(void)
{
	BUILD_BUG_ON(sizeof(struct strack_tcp) > ICSK_CA_PRIV_SIZE);
	BUILD_BUG_ON(!SMARTT_FITS_TCP_PRIV(struct strack_tcp));
	/* smartt_cc_cwnd_event() finds the glue state at the start */
	BUILD_BUG_ON(offsetof(struct strack_tcp, g) != 0);
	return tcp_register_congestion_control(&strack_tcp_ops);
}

/**
 * strack_tcp_unregister() - undo strack_tcp_register()
 */
void strack_tcp_unregister(void)
{
	tcp_unregister_congestion_control(&strack_tcp_ops);
}
