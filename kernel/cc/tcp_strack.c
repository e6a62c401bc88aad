// SPDX-License-Identifier: GPL-2.0
/*
 * TCP congestion control "strack": the STrack core of kernel/algo/strack.c
 * behind the shared hooks of cc_hooks.c.
 *
 * What is STrack's own: newly (S)ACKed bytes are strack_on_ack() events,
 * with the CE-echoed ones marked.  STrack's only window rule for loss is
 * its timeout's (one packet off).  With net.smartt.tcp_strack_loss = 1
 * (the default) the first loss of a recovery episode halves the window
 * (md_min, STrack's largest decrease) and an RTO drops it to one packet;
 * with 0 only an RTO changes it, by the paper's rule.  Without negotiated
 * ECN the connection runs "strack-reno".  Documentation/tcp.rst, "Loss".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/tcp.h>

#include "smartt.h"
#include "cc/cc_glue.h"

/**
 * struct strack_tcp - private state of one strack flow
 * @g: glue state (first: the shared hooks find it there)
 * @s: core state
 */
struct strack_tcp {
	struct smartt_cc_sock g;
	struct strack_state s;
};

static void strack_tcp_core(void *priv, const struct smartt_cc_cfg *cfg,
			    union smartt_cc_scratch *tmp,
			    struct smartt_cc_core *c)
{
	struct strack_tcp *ca = priv;
	const struct strack_params *p;

	p = smartt_cc_strack_params(cfg, &ca->g, &tmp->strack);
	smartt_cc_core_fill(c, p, &ca->s);
}

static void strack_tcp_start(void *priv, const void *p, u64 cwnd)
{
	struct strack_tcp *ca = priv;

	strack_init(&ca->s, p, cwnd);
}

static u64 strack_tcp_maxwnd(const void *p, u32 base)
{
	return strack_maxwnd(p, base);
}

static u32 strack_tcp_ack(void *priv, const void *p,
			  const struct smartt_event *e)
{
	struct strack_tcp *ca = priv;

	return strack_on_ack(&ca->s, p, e->now, e->rtt, e->ecn, e->bytes);
}

static u32 strack_tcp_loss(void *priv, const struct smartt_cc_cfg *cfg,
			   const void *p, const struct smartt_event *e)
{
	struct strack_tcp *ca = priv;

	if (cfg->p.strack_loss != SMARTT_CC_STRACK_LOSS_MD)
		return 0;
	return smartt_cc_strack_loss(&ca->g, &ca->s, p);
}

/*
 * The loss window, one packet (RFC 5681 3.1), with tcp_strack_loss = 1;
 * STrack's timeout rule (one packet off) with 0.
 */
static u32 strack_tcp_rto(void *priv, const struct smartt_cc_cfg *cfg,
			  const void *p, u32 mss)
{
	struct strack_tcp *ca = priv;

	if (cfg->p.strack_loss != SMARTT_CC_STRACK_LOSS_MD)
		return strack_on_timeout(&ca->s, p, mss);
	ca->s.cwnd = ((const struct strack_params *)p)->k.mtu;
	return 0;
}

static const struct smartt_cc_core_ops strack_tcp_algo = {
	.id	= SMARTT_CC_ALGO_STRACK,
	.core	= strack_tcp_core,
	.init	= strack_tcp_start,
	.maxwnd	= strack_tcp_maxwnd,
	.ack	= strack_tcp_ack,
	.loss	= strack_tcp_loss,
	.rto	= strack_tcp_rto,
};

/* Without negotiated ECN: Reno, Not-ECT (smartt_cc_hook_init()). */
static struct tcp_congestion_ops strack_reno_ops __read_mostly = {
	.ssthresh	= tcp_reno_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.owner		= THIS_MODULE,
	.name		= "strack-reno",
};

static struct smartt_cc_tcp_ops strack_tcp_ops __read_mostly = {
	.ops = {
		.flags		= TCP_CONG_NEEDS_ECN,
		.init		= smartt_cc_hook_init,
		.cong_control	= smartt_cc_hook_control,
		.ssthresh	= smartt_cc_ssthresh,
		.undo_cwnd	= smartt_cc_hook_undo,
		.set_state	= smartt_cc_hook_set_state,
		.cwnd_event	= smartt_cc_hook_event,
		.owner		= THIS_MODULE,
		.name		= "strack",
	},
	.core	= &strack_tcp_algo,
	.reno	= &strack_reno_ops,
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
	/* the shared hooks find the glue state at the start */
	BUILD_BUG_ON(offsetof(struct strack_tcp, g) != 0);
	return tcp_register_congestion_control(&strack_tcp_ops.ops);
}

/**
 * strack_tcp_unregister() - undo strack_tcp_register()
 */
void strack_tcp_unregister(void)
{
	tcp_unregister_congestion_control(&strack_tcp_ops.ops);
}
