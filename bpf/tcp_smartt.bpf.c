// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_smartt: the SMaRTT core of kernel/algo/smartt.c as a BPF struct_ops
 * TCP congestion control, the twin of the module's "smartt"
 * (kernel/cc/tcp_smartt.c): the same core, the same glue rules (see
 * smartt_cc.bpf.h), the same net.smartt.tcp_* values (the pinned map
 * smartt_cc_cfg, written by `smarttctl cc set`).
 *
 * Per ACK: newly (S)ACKed bytes, the ACK's RTT sample, the CE-marked share
 * from the delivered_ce delta (the receiver's CE state machine keeps the
 * echo per packet), packets newly marked lost as a NACK, packet
 * conservation in fast recovery, an RTO to the loss window, undo on
 * spurious recovery.  Documentation/bpf-cc.rst.
 */
#include "smartt_cc.bpf.h"

/* smartt_cc_smartt_params(): the parameters of one flow */
static __always_inline const struct smartt_params *
cc_smartt_params(const struct smartt_cc_bpf_cfg *cfg, struct smartt_cc_flow *f)
{
	u32 rate = f->g.rate_mbps;
	struct smartt_knobs k;

	if (cfg->p.link_mbps || !rate)
		return &cfg->p.sp;
	/* rebuilt when the estimate or the configuration changed */
	if (f->params_gen != cfg->gen || f->params_rate != rate) {
		k = cfg->p.sp.k;
		k.link_mbps = rate;
		f->params_gen = cfg->gen;
		f->params_rate = smartt_params_init(&f->sp, &k) ? 0 : rate;
	}
	return f->params_rate == rate ? &f->sp : &cfg->p.sp;
}

/*
 * The core's event functions as BPF subprograms, each called from several
 * places: one copy of each in the program (the core inlines into them).
 * Their callers keep the result (last_rules): a result nobody reads is not
 * computed, and the verifier refuses a subprogram whose R0 is then left
 * pointing into its stack.
 */
static SMARTT_BPF_NOINLINE u32 cc_ack(struct smartt_cc_flow *f, const struct smartt_params *p,
			     const struct smartt_event *e)
{
	u32 rules = smartt_on_ack(&f->s, p, e);

	cc_count_rules(f, rules);
	return rules;
}

static SMARTT_BPF_NOINLINE u32 cc_nack(struct smartt_cc_flow *f, const struct smartt_params *p,
			      const struct smartt_event *e)
{
	u32 rules = smartt_on_nack(&f->s, p, e);

	cc_count_rules(f, rules);
	return rules;
}

SEC("struct_ops/bpf_smartt_init")
void BPF_PROG(bpf_smartt_init, struct sock *sk)
{
	const struct smartt_cc_bpf_cfg *cfg = cc_cfg();
	const struct smartt_params *p;
	struct smartt_cc_flow *f;
	u32 rtt0;
	u64 cwnd;

	if (!cfg || cc_noecn(sk))
		return;
	f = cc_flow_new(sk, SMARTT_CC_BPF_SMARTT);
	if (!f)
		return;
	cc_sock_init(sk, &f->g, cfg);
	p = cc_smartt_params(cfg, f);
	rtt0 = cc_base_rtt0(cc_tp(sk), cfg, p->base_rtt0);
	cwnd = smartt_cc_start_bytes(&cfg->p, p->k.link_mbps, rtt0,
				     (u64)cc_tp(sk)->snd_cwnd * cc_tp(sk)->mss_cache);
	smartt_init(&f->s, p, cwnd);
	/* start from the handshake's RTT, within the bounds it implies */
	f->s.base_rtt = rtt0;
	f->s.cwnd = clamp_t(u64, cwnd, p->k.mtu, smartt_maxwnd(p, rtt0));
	cc_apply(sk, &f->g, cfg, f->s.cwnd, rtt0, NULL);
}

static __always_inline void bpf_smartt_control(struct sock *sk,
					       const struct rate_sample *rs)
{
	const struct smartt_cc_bpf_cfg *cfg;
	struct tcp_sock *tp = cc_tp(sk);
	const struct smartt_params *p;
	struct smartt_cc_flow *f;
	struct smartt_event e;
	u32 mss = tp->mss_cache, ce, acked, base, losses, rtt, host;

	/* tcp_ack() of the handshake runs before init(): no state yet */
	f = cc_flow(sk, SMARTT_CC_BPF_SMARTT);
	if (!f)
		return;
	cfg = cc_cfg();
	if (!cfg)
		return;
	if (!cfg->p.link_mbps)
		cc_rate_update(tp, &f->g, rs);
	p = cc_smartt_params(cfg, f);
	e.rtt = cc_rtt_sample(rs);
	base = cc_base_rtt(tp, &f->g, p->k.learn_base_rtt, e.rtt, f->s.base_rtt);
	if (base != f->s.base_rtt) {
		f->s.base_rtt = base;
		f->s.cwnd = min_t(u64, f->s.cwnd, smartt_maxwnd(p, base));
	}
	rtt = e.rtt;
	host = cc_host_delay(sk, f, rs);
	ce = cc_ce_pkts(tp, &f->g);
	acked = rs->acked_sacked;
	losses = rs->losses;
	e.now = cc_now(tp);
	e.in_flight = cc_in_flight(tp);

	if (losses > 0) {
		e.bytes = min_t(u64, (u64)losses * mss, U32_MAX);
		e.ecn = false;
		e.rtt = cc_fabric_rtt(cfg, rs, rtt, base, host, false);
		f->losses++;
		f->last_rules = cc_nack(f, p, &e);
	}
	if (acked) {
		u32 ce_pk = min_t(u32, ce, acked);

		/* CE-marked and unmarked bytes as separate events */
		if (ce_pk) {
			e.bytes = min_t(u64, (u64)ce_pk * mss, U32_MAX);
			e.ecn = true;
			e.rtt = cc_fabric_rtt(cfg, rs, rtt, base, host, true);
			f->acks++;
			f->ce_acks++;
			f->last_rules = cc_ack(f, p, &e);
		}
		if (acked > ce_pk) {
			e.bytes = min_t(u64, (u64)(acked - ce_pk) * mss, U32_MAX);
			e.ecn = false;
			e.rtt = cc_fabric_rtt(cfg, rs, rtt, base, host, false);
			f->acks++;
			f->last_rules = cc_ack(f, p, &e);
		}
	}
	cc_apply(sk, &f->g, cfg, f->s.cwnd, f->s.base_rtt, rs);
}

SMARTT_CC_CONG_CONTROL(bpf_smartt_cong_control, bpf_smartt_control)

/* An RTO: the loss window, one packet, from which the core's rules regrow it. */
static __always_inline void cc_smartt_rto(struct sock *sk, struct smartt_cc_flow *f)
{
	const struct smartt_cc_bpf_cfg *cfg = cc_cfg();

	if (!cfg)
		return;
	f->rtos++;
	f->s.cwnd = cc_smartt_params(cfg, f)->k.mtu;
}

/*
 * Every congestion state change: fast recovery starts packet conservation
 * (smartt_cc_rec_state()).  Entering TCP_CA_Loss from the retransmit timer
 * (icsk_pending cleared) is an RTO (cc_smartt_rto()); from a path-MTU drop it
 * is no congestion and leaves the window alone.
 */
SEC("struct_ops/bpf_smartt_set_state")
void BPF_PROG(bpf_smartt_set_state, struct sock *sk, u8 new_state)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct smartt_cc_flow *f = cc_flow(sk, SMARTT_CC_BPF_SMARTT);

	if (!f)
		return;
	smartt_cc_rec_state(&f->g, new_state, cc_tp(sk)->delivered);
	if (new_state == SMARTT_TCP_CA_LOSS && !icsk->icsk_pending)
		cc_smartt_rto(sk, f);
}

/*
 * Spurious recovery: the window before it (tp->prior_cwnd, saved by TCP on
 * entering recovery or loss) comes back and the ignore phase ends.
 */
SEC("struct_ops/bpf_smartt_undo_cwnd")
u32 BPF_PROG(bpf_smartt_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = cc_tp(sk);
	const struct smartt_cc_bpf_cfg *cfg;
	const struct smartt_params *p;
	struct smartt_cc_flow *f;

	f = cc_flow(sk, SMARTT_CC_BPF_SMARTT);
	cfg = f ? cc_cfg() : NULL;
	if (!cfg)
		return tp->snd_cwnd;
	p = cc_smartt_params(cfg, f);
	f->s.cwnd = smartt_cc_undo_bytes(f->s.cwnd, tp->prior_cwnd, tp->mss_cache,
					 p->k.mtu, smartt_maxwnd(p, f->s.base_rtt));
	f->s.bytes_ignored = f->s.bytes_to_ignore;
	f->undos++;
	return cc_cwnd_pkts(tp, cfg, f->s.cwnd);
}

SEC("struct_ops/bpf_smartt_ssthresh")
u32 BPF_PROG(bpf_smartt_ssthresh, struct sock *sk)
{
	return cc_ssthresh(sk);
}

/* The receiver's CE state machine; after idle the restart rule (cc_idle()). */
SEC("struct_ops/bpf_smartt_cwnd_event")
void BPF_PROG(bpf_smartt_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct smartt_cc_flow *f = cc_flow(sk, SMARTT_CC_BPF_SMARTT);
	const struct smartt_cc_bpf_cfg *cfg;
	const struct smartt_params *p;

	if (!f)
		return;
	if (ev != CA_EVENT_TX_START) {
		cc_cwnd_event(sk, &f->g, ev);
		return;
	}
	cfg = cc_cfg();
	if (!cfg)
		return;
	p = cc_smartt_params(cfg, f);
	if (cc_idle(sk, cfg, &f->s.cwnd, f->s.base_rtt, p->k.link_mbps, p->k.mtu)) {
		f->idles++;
		cc_apply(sk, &f->g, cfg, f->s.cwnd, f->s.base_rtt, NULL);
	}
}

SEC(".struct_ops")
struct tcp_congestion_ops bpf_smartt = {
	.flags		= TCP_CONG_NEEDS_ECN,
	.init		= (void *)bpf_smartt_init,
	.cong_control	= (void *)bpf_smartt_cong_control,
	.ssthresh	= (void *)bpf_smartt_ssthresh,
	.undo_cwnd	= (void *)bpf_smartt_undo_cwnd,
	.set_state	= (void *)bpf_smartt_set_state,
	.cwnd_event	= (void *)bpf_smartt_cwnd_event,
	.name		= "bpf_smartt",
};
