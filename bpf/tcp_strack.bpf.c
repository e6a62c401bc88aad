// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_strack: the STrack core of kernel/algo/strack.c as a BPF struct_ops
 * TCP congestion control, the twin of the module's "strack"
 * (kernel/cc/tcp_strack.c): the same core, the same glue rules (see
 * smartt_cc.bpf.h), the same net.smartt.tcp_* values (the pinned map
 * smartt_cc_cfg, shared with bpf_smartt).
 *
 * Per ACK: newly (S)ACKed bytes, the ACK's RTT sample and the CE-marked
 * share from the delivered_ce delta.  Loss as in the module: packet
 * conservation in fast recovery; with tcp_strack_loss = 1 the first loss
 * of an episode halves the window (md_min), an RTO drops it to one packet
 * and a spurious recovery is undone; with 0 only an RTO, by the paper's
 * rule.  Documentation/bpf-cc.rst.
 */
#include "smartt_cc.bpf.h"

/* smartt_cc_strack_params(): the parameters of one flow */
static __always_inline const struct strack_params *
cc_strack_params(const struct smartt_cc_bpf_cfg *cfg, struct smartt_cc_flow *f)
{
	u32 rate = f->g.rate_mbps;
	struct strack_knobs k;

	if (cfg->p.link_mbps || !rate)
		return &cfg->p.tp;
	/* rebuilt when the estimate or the configuration changed */
	if (f->params_gen != cfg->gen || f->params_rate != rate) {
		k = cfg->p.tp.k;
		k.link_mbps = rate;
		f->params_gen = cfg->gen;
		f->params_rate = strack_params_init(&f->tp, &k) ? 0 : rate;
	}
	return f->params_rate == rate ? &f->tp : &cfg->p.tp;
}

SEC("struct_ops/bpf_strack_init")
void BPF_PROG(bpf_strack_init, struct sock *sk)
{
	const struct smartt_cc_bpf_cfg *cfg = cc_cfg();
	const struct strack_params *p;
	struct smartt_cc_flow *f;
	u32 rtt0;
	u64 cwnd;

	if (!cfg || cc_noecn(sk))
		return;
	f = cc_flow_new(sk, SMARTT_CC_BPF_STRACK);
	if (!f)
		return;
	cc_sock_init(sk, &f->g, cfg);
	p = cc_strack_params(cfg, f);
	rtt0 = cc_base_rtt0(cc_tp(sk), cfg, p->base_rtt0);
	cwnd = smartt_cc_start_bytes(&cfg->p, p->k.link_mbps, rtt0,
				     (u64)cc_tp(sk)->snd_cwnd * cc_tp(sk)->mss_cache);
	strack_init(&f->t, p, cwnd);
	f->t.base_rtt = rtt0;
	f->t.cwnd = clamp_t(u64, cwnd, p->k.mtu, strack_maxwnd(p, rtt0));
	cc_apply(sk, &f->g, cfg, f->t.cwnd, rtt0, NULL);
}

static __always_inline void bpf_strack_control(struct sock *sk,
					       const struct rate_sample *rs)
{
	const struct smartt_cc_bpf_cfg *cfg;
	struct tcp_sock *tp = cc_tp(sk);
	const struct strack_params *p;
	struct smartt_cc_flow *f;
	u32 mss = tp->mss_cache, ce, acked, rtt, base, bytes, host, frtt;
	u64 now;

	/* tcp_ack() of the handshake runs before init(): no state yet */
	f = cc_flow(sk, SMARTT_CC_BPF_STRACK);
	if (!f)
		return;
	cfg = cc_cfg();
	if (!cfg)
		return;
	if (!cfg->p.link_mbps)
		cc_rate_update(tp, &f->g, rs);
	p = cc_strack_params(cfg, f);
	rtt = cc_rtt_sample(rs);
	base = cc_base_rtt(tp, &f->g, p->k.learn_base_rtt, rtt, f->t.base_rtt);
	if (base != f->t.base_rtt) {
		f->t.base_rtt = base;
		f->t.cwnd = min_t(u64, f->t.cwnd, strack_maxwnd(p, base));
	}
	host = cc_host_delay(sk, f, rs);
	ce = cc_ce_pkts(tp, &f->g);
	acked = rs->acked_sacked;
	now = cc_now(tp);

	if (rs->losses > 0) {
		f->losses++;
		f->last_rules = 0;
		if (cfg->p.strack_loss == SMARTT_CC_STRACK_LOSS_MD) {
			f->last_rules = smartt_cc_strack_loss(&f->g, &f->t, p);
			cc_count_rules(f, f->last_rules);
		}
	}
	if (acked) {
		u32 ce_pk = min_t(u32, ce, acked);

		if (ce_pk) {
			bytes = min_t(u64, (u64)ce_pk * mss, U32_MAX);
			f->acks++;
			f->ce_acks++;
			frtt = cc_fabric_rtt(cfg, rs, rtt, base, host, true);
			f->last_rules = strack_on_ack(&f->t, p, now, frtt, true, bytes);
			cc_count_rules(f, f->last_rules);
		}
		if (acked > ce_pk) {
			bytes = min_t(u64, (u64)(acked - ce_pk) * mss, U32_MAX);
			f->acks++;
			frtt = cc_fabric_rtt(cfg, rs, rtt, base, host, false);
			f->last_rules = strack_on_ack(&f->t, p, now, frtt, false, bytes);
			cc_count_rules(f, f->last_rules);
		}
	}
	cc_apply(sk, &f->g, cfg, f->t.cwnd, f->t.base_rtt, rs);
}

SMARTT_CC_CONG_CONTROL(bpf_strack_cong_control, bpf_strack_control)

/*
 * An RTO: the loss window, one packet, with tcp_strack_loss = 1; STrack's
 * timeout rule (one packet off) with 0.
 */
static __always_inline void cc_strack_rto(struct sock *sk, struct smartt_cc_flow *f)
{
	const struct smartt_cc_bpf_cfg *cfg = cc_cfg();
	const struct strack_params *p;

	if (!cfg)
		return;
	f->rtos++;
	p = cc_strack_params(cfg, f);
	if (cfg->p.strack_loss == SMARTT_CC_STRACK_LOSS_MD)
		f->t.cwnd = p->k.mtu;
	else
		f->last_rules = strack_on_timeout(&f->t, p, cc_tp(sk)->mss_cache);
}

/*
 * Every congestion state change: fast recovery starts packet conservation
 * (smartt_cc_rec_state()).  Entering TCP_CA_Loss from the retransmit timer
 * (icsk_pending cleared) is an RTO (cc_strack_rto()); from a path-MTU drop it
 * is no congestion and leaves the window alone.
 */
SEC("struct_ops/bpf_strack_set_state")
void BPF_PROG(bpf_strack_set_state, struct sock *sk, u8 new_state)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct smartt_cc_flow *f = cc_flow(sk, SMARTT_CC_BPF_STRACK);

	if (!f)
		return;
	smartt_cc_rec_state(&f->g, new_state, cc_tp(sk)->delivered);
	if (new_state == SMARTT_TCP_CA_LOSS && !icsk->icsk_pending)
		cc_strack_rto(sk, f);
}

/*
 * Spurious recovery: the window before it (tp->prior_cwnd, saved by TCP on
 * entering recovery or loss) comes back, within the core's bound.
 */
SEC("struct_ops/bpf_strack_undo_cwnd")
u32 BPF_PROG(bpf_strack_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = cc_tp(sk);
	const struct smartt_cc_bpf_cfg *cfg;
	const struct strack_params *p;
	struct smartt_cc_flow *f;

	f = cc_flow(sk, SMARTT_CC_BPF_STRACK);
	cfg = f ? cc_cfg() : NULL;
	if (!cfg)
		return tp->snd_cwnd;
	p = cc_strack_params(cfg, f);
	f->t.cwnd = smartt_cc_undo_bytes(f->t.cwnd, tp->prior_cwnd, tp->mss_cache,
					 p->k.mtu, strack_maxwnd(p, f->t.base_rtt));
	f->undos++;
	return cc_cwnd_pkts(tp, cfg, f->t.cwnd);
}

SEC("struct_ops/bpf_strack_ssthresh")
u32 BPF_PROG(bpf_strack_ssthresh, struct sock *sk)
{
	return cc_ssthresh(sk);
}

/* The receiver's CE state machine; after idle the restart rule (cc_idle()). */
SEC("struct_ops/bpf_strack_cwnd_event")
void BPF_PROG(bpf_strack_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct smartt_cc_flow *f = cc_flow(sk, SMARTT_CC_BPF_STRACK);
	const struct smartt_cc_bpf_cfg *cfg;
	const struct strack_params *p;

	if (!f)
		return;
	if (ev != CA_EVENT_TX_START) {
		cc_cwnd_event(sk, &f->g, ev);
		return;
	}
	cfg = cc_cfg();
	if (!cfg)
		return;
	p = cc_strack_params(cfg, f);
	if (cc_idle(sk, cfg, &f->t.cwnd, f->t.base_rtt, p->k.link_mbps, p->k.mtu)) {
		f->idles++;
		cc_apply(sk, &f->g, cfg, f->t.cwnd, f->t.base_rtt, NULL);
	}
}

SEC(".struct_ops")
struct tcp_congestion_ops bpf_strack = {
	.flags		= TCP_CONG_NEEDS_ECN,
	.init		= (void *)bpf_strack_init,
	.cong_control	= (void *)bpf_strack_cong_control,
	.ssthresh	= (void *)bpf_strack_ssthresh,
	.undo_cwnd	= (void *)bpf_strack_undo_cwnd,
	.set_state	= (void *)bpf_strack_set_state,
	.cwnd_event	= (void *)bpf_strack_cwnd_event,
	.name		= "bpf_strack",
};
