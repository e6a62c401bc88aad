// SPDX-License-Identifier: GPL-2.0
/*
 * TCP congestion control "smartt": the SMaRTT core of kernel/algo/smartt.c
 * behind the shared hooks of cc_hooks.c.
 *
 * What is SMaRTT's own: newly (S)ACKed bytes are smartt_on_ack() events,
 * with the CE-echoed ones marked; packets TCP newly marks lost are a
 * "NACK" (smartt_on_nack(): TCP has no trimming, so loss detection drives
 * QuickAdapt); an RTO drops the window to the loss window of one packet,
 * from which the core's rules regrow it; an undone recovery also ends the
 * ignore phase.  Without negotiated ECN the connection runs "smartt-reno".
 * Documentation/tcp.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/tcp.h>

#include "smartt.h"
#include "cc/cc_glue.h"

/**
 * struct smartt_tcp - private state of one smartt flow
 * @g: glue state (first: the shared hooks find it there)
 * @s: core state
 */
struct smartt_tcp {
	struct smartt_cc_sock g;
	struct smartt_state s;
};

static void smartt_tcp_core(void *priv, const struct smartt_cc_cfg *cfg,
			    union smartt_cc_scratch *tmp,
			    struct smartt_cc_core *c)
{
	struct smartt_tcp *ca = priv;
	const struct smartt_params *p;

	p = smartt_cc_smartt_params(cfg, &ca->g, &tmp->smartt);
	smartt_cc_core_fill(c, p, &ca->s);
}

static void smartt_tcp_start(void *priv, const void *p, u64 cwnd)
{
	struct smartt_tcp *ca = priv;

	smartt_init(&ca->s, p, cwnd);
}

static u64 smartt_tcp_maxwnd(const void *p, u32 base)
{
	return smartt_maxwnd(p, base);
}

static u32 smartt_tcp_ack(void *priv, const void *p,
			  const struct smartt_event *e)
{
	struct smartt_tcp *ca = priv;

	return smartt_on_ack(&ca->s, p, e);
}

static u32 smartt_tcp_loss(void *priv, const struct smartt_cc_cfg *cfg,
			   const void *p, const struct smartt_event *e)
{
	struct smartt_tcp *ca = priv;

	return smartt_on_nack(&ca->s, p, e);
}

/* RFC 5681 3.1: after a timeout the flight is presumed lost, one packet. */
static u32 smartt_tcp_rto(void *priv, const struct smartt_cc_cfg *cfg,
			  const void *p, u32 mss)
{
	struct smartt_tcp *ca = priv;

	ca->s.cwnd = ((const struct smartt_params *)p)->k.mtu;
	return 0;
}

static void smartt_tcp_undone(void *priv)
{
	struct smartt_tcp *ca = priv;

	ca->s.bytes_ignored = ca->s.bytes_to_ignore;
}

static const struct smartt_cc_core_ops smartt_tcp_algo = {
	.id	= SMARTT_CC_ALGO_SMARTT,
	.core	= smartt_tcp_core,
	.init	= smartt_tcp_start,
	.maxwnd	= smartt_tcp_maxwnd,
	.ack	= smartt_tcp_ack,
	.loss	= smartt_tcp_loss,
	.rto	= smartt_tcp_rto,
	.undone	= smartt_tcp_undone,
};

/* Without negotiated ECN: Reno, Not-ECT (smartt_cc_hook_init()). */
static struct tcp_congestion_ops smartt_reno_ops __read_mostly = {
	.ssthresh	= tcp_reno_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.owner		= THIS_MODULE,
	.name		= "smartt-reno",
};

static struct smartt_cc_tcp_ops smartt_tcp_ops __read_mostly = {
	.ops = {
		.flags		= TCP_CONG_NEEDS_ECN,
		.init		= smartt_cc_hook_init,
		.cong_control	= smartt_cc_hook_control,
		.ssthresh	= smartt_cc_ssthresh,
		.undo_cwnd	= smartt_cc_hook_undo,
		.set_state	= smartt_cc_hook_set_state,
		.cwnd_event	= smartt_cc_hook_event,
		.owner		= THIS_MODULE,
		.name		= "smartt",
	},
	.core	= &smartt_tcp_algo,
	.reno	= &smartt_reno_ops,
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
	/* the shared hooks find the glue state at the start */
	BUILD_BUG_ON(offsetof(struct smartt_tcp, g) != 0);
	return tcp_register_congestion_control(&smartt_tcp_ops.ops);
}

/**
 * smartt_tcp_unregister() - undo smartt_tcp_register()
 */
void smartt_tcp_unregister(void)
{
	tcp_unregister_congestion_control(&smartt_tcp_ops.ops);
}
