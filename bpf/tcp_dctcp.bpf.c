// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_dctcp: DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257) as a BPF
 * struct_ops TCP congestion control, for kernels without tcp_dctcp: the
 * baseline the SMaRTT and STrack papers compare against.
 *
 * Sender (RFC 8257 section 3.3): per observation window of about one RTT
 * (it ends when the data outstanding at its start is acknowledged) the
 * fraction F of delivered packets that carried a CE echo updates
 *
 *	alpha = (1 - g) x alpha + g x F,	g = 1 / 2^dctcp_g_shift
 *
 * and an ECE makes TCP reduce its window once per window of data to
 * cwnd x (1 - alpha / 2) (ssthresh; TCP's CWR state and PRR do the
 * reduction).  A loss halves the window as in standard TCP (section 3.5);
 * growth is Reno's.  Receiver (section 3.2): the CE state machine of
 * smartt_cc.bpf.h, which echoes the CE mark of exactly the packets each
 * ACK acknowledges.  alpha and F are kept in units of 2^-20, so that the
 * truncation of (1 - g) x alpha leaves no floor: with 10 bits (Linux's
 * tcp_dctcp.c) alpha cannot decay below 2^g - 1 units without a special
 * case.  The dctcp_alpha_init knob is in 1/1024 as Linux's
 * dctcp_alpha_on_init.
 * Documentation/bpf-cc.rst.
 */
#include "smartt_cc.bpf.h"

#define DCTCP_ALPHA_SHIFT	20
#define DCTCP_ALPHA_ONE		(1U << DCTCP_ALPHA_SHIFT)	/* alpha = 1.0 */
#define DCTCP_TCP_CA_RECOVERY	3	/* TCP_CA_Recovery */

extern void tcp_reno_cong_avoid(struct sock *sk, u32 ack, u32 acked) __ksym;

static __always_inline void dctcp_window_reset(const struct tcp_sock *tp,
					       struct smartt_cc_dctcp *d)
{
	d->next_seq = tp->snd_nxt;
	d->prior_delivered = tp->delivered;
	d->prior_delivered_ce = tp->delivered_ce;
}

SEC("struct_ops/bpf_dctcp_init")
void BPF_PROG(bpf_dctcp_init, struct sock *sk)
{
	const struct smartt_cc_bpf_cfg *cfg = cc_cfg();
	struct smartt_cc_flow *f;

	if (!cfg)
		return;
	f = cc_flow_new(sk, SMARTT_CC_BPF_DCTCP);
	if (!f)
		return;
	f->g.prior_rcv_nxt = cc_tp(sk)->rcv_nxt;
	f->d.alpha = min_t(u32, cfg->dctcp_alpha_init, 1024) << (DCTCP_ALPHA_SHIFT - 10);
	dctcp_window_reset(cc_tp(sk), &f->d);
}

/* End of an observation window: alpha moves towards its marked fraction. */
SEC("struct_ops/bpf_dctcp_in_ack_event")
void BPF_PROG(bpf_dctcp_in_ack_event, struct sock *sk, u32 flags)
{
	const struct smartt_cc_bpf_cfg *cfg;
	struct tcp_sock *tp = cc_tp(sk);
	struct smartt_cc_flow *f;
	struct smartt_cc_dctcp *d;
	u32 delivered, marked, frac, g, alpha;

	f = cc_flow(sk, SMARTT_CC_BPF_DCTCP);
	cfg = f ? cc_cfg() : NULL;
	if (!cfg)
		return;
	d = &f->d;
	f->acks++;
	/* before(snd_una, next_seq): the window is not over yet */
	if ((s32)(tp->snd_una - d->next_seq) < 0)
		return;
	delivered = tp->delivered - d->prior_delivered;
	marked = tp->delivered_ce - d->prior_delivered_ce;
	g = min_t(u32, cfg->dctcp_g_shift, 10);
	alpha = d->alpha;
	if (delivered) {
		/* F in 2^-20; marked <= delivered */
		frac = ((u64)min_t(u32, marked, delivered) << DCTCP_ALPHA_SHIFT) /
			delivered;
		alpha = alpha - (alpha >> g) + (frac >> g);
		d->alpha = min_t(u32, alpha, DCTCP_ALPHA_ONE);
		f->ce_acks += marked;
		d->windows++;
	}
	dctcp_window_reset(tp, d);
}

/* An ECE: cwnd x (1 - alpha / 2); TCP's CWR state applies it. */
SEC("struct_ops/bpf_dctcp_ssthresh")
u32 BPF_PROG(bpf_dctcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = cc_tp(sk);
	struct smartt_cc_flow *f = cc_flow(sk, SMARTT_CC_BPF_DCTCP);
	u32 cwnd = tp->snd_cwnd;

	if (!f)
		return max_t(u32, cwnd >> 1, 2);
	f->d.loss_cwnd = cwnd;
	return max_t(u32, cwnd - (u32)(((u64)cwnd * f->d.alpha) >>
				      (DCTCP_ALPHA_SHIFT + 1)), 2);
}

/* A loss episode: halve, as standard TCP (RFC 8257 section 3.5). */
static __always_inline void dctcp_react_to_loss(struct sock *sk,
						struct smartt_cc_flow *f)
{
	struct tcp_sock *tp = cc_tp(sk);

	f->d.loss_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = max_t(u32, tp->snd_cwnd >> 1, 2);
	f->losses++;
}

SEC("struct_ops/bpf_dctcp_set_state")
void BPF_PROG(bpf_dctcp_set_state, struct sock *sk, u8 new_state)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct smartt_cc_flow *f = cc_flow(sk, SMARTT_CC_BPF_DCTCP);

	if (!f)
		return;
	if (new_state == DCTCP_TCP_CA_RECOVERY && icsk->icsk_ca_state != new_state)
		dctcp_react_to_loss(sk, f);
	if (new_state == SMARTT_TCP_CA_LOSS)
		f->rtos++;
}

SEC("struct_ops/bpf_dctcp_cwnd_event")
void BPF_PROG(bpf_dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct smartt_cc_flow *f = cc_flow(sk, SMARTT_CC_BPF_DCTCP);

	if (!f)
		return;
	/* an RTO: once per loss episode, here rather than in set_state */
	if (ev == CA_EVENT_LOSS)
		dctcp_react_to_loss(sk, f);
	else
		cc_cwnd_event(sk, &f->g, ev);
}

SEC("struct_ops/bpf_dctcp_undo_cwnd")
u32 BPF_PROG(bpf_dctcp_undo_cwnd, struct sock *sk)
{
	struct smartt_cc_flow *f = cc_flow(sk, SMARTT_CC_BPF_DCTCP);
	u32 cwnd = cc_tp(sk)->snd_cwnd;

	if (f) {
		f->undos++;
		return max_t(u32, cwnd, f->d.loss_cwnd);
	}
	return cwnd;
}

SEC("struct_ops/bpf_dctcp_cong_avoid")
void BPF_PROG(bpf_dctcp_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC(".struct_ops")
struct tcp_congestion_ops bpf_dctcp = {
	.flags		= TCP_CONG_NEEDS_ECN,
	.init		= (void *)bpf_dctcp_init,
	.in_ack_event	= (void *)bpf_dctcp_in_ack_event,
	.cong_avoid	= (void *)bpf_dctcp_cong_avoid,
	.ssthresh	= (void *)bpf_dctcp_ssthresh,
	.undo_cwnd	= (void *)bpf_dctcp_undo_cwnd,
	.set_state	= (void *)bpf_dctcp_set_state,
	.cwnd_event	= (void *)bpf_dctcp_cwnd_event,
	.name		= "bpf_dctcp",
};
