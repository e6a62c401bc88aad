// SPDX-License-Identifier: GPL-2.0
/*
 * Glue shared by the TCP congestion controls smartt and strack: per-netns
 * configuration (net.smartt.tcp_*), tcp_sock/rate_sample -> core samples,
 * the receiver's CE state machine, window and pacing output, get_info and
 * the tracepoints.  Decisions are the cores' (kernel/algo/).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet_diag.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/tcp.h>

#include "smartt.h"
#include "cc/cc_glue.h"

#define CREATE_TRACE_POINTS
#include "trace_cc.h"

/**
 * struct smartt_cc_net - per-netns state of the congestion-control glue
 * @cfg: current configuration, read under RCU by every ACK
 * @lock: serialises writers
 * @vals: the sysctl values @cfg was built from
 * @table: this netns' sysctl table
 * @hdr: its registration
 */
struct smartt_cc_net {
	struct smartt_cc_cfg __rcu *cfg;
	struct mutex lock;	/* serialises sysctl writers */
	struct smartt_cc_vals vals;
	struct ctl_table *table;
	struct ctl_table_header *hdr;
};

static unsigned int smartt_cc_net_id __read_mostly;

/*
 * The defaults, for a callback that runs after its netns' configuration
 * was freed: kernel sockets that do not pin their netns (NFS, SMB, iSCSI)
 * are closed by pernet exits that run after this one, and their timers
 * and ACKs can still reach the congestion control.  Built once by
 * smartt_cc_pernet_init().
 */
static struct smartt_cc_cfg smartt_cc_fallback __read_mostly;

static void smartt_cc_cfg_free(struct smartt_cc_cfg *cfg)
{
	u32 i;

	for (i = 0; cfg->rated && i < SMARTT_CC_RATE_SLOTS; i++)
		kfree(cfg->rated[i]);
	kfree(cfg->rated);
	kfree(cfg);
}

static void smartt_cc_cfg_free_rcu(struct rcu_head *head)
{
	smartt_cc_cfg_free(container_of(head, struct smartt_cc_cfg, rcu));
}

/* Build a configuration from sysctl values; ERR_PTR(-EINVAL) if invalid. */
static struct smartt_cc_cfg *smartt_cc_cfg_build(const struct smartt_cc_vals *v)
{
	struct smartt_cc_cfg *cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);

	if (!cfg)
		return ERR_PTR(-ENOMEM);
	if (smartt_cc_params_build(&cfg->p, v)) {
		kfree(cfg);
		return ERR_PTR(-EINVAL);
	}
	strscpy(cfg->smartt_knobs, v->smartt_knobs, sizeof(cfg->smartt_knobs));
	if (!cfg->p.link_mbps) {
		cfg->rated = kcalloc(SMARTT_CC_RATE_SLOTS, sizeof(*cfg->rated),
				     GFP_KERNEL);
		if (!cfg->rated) {
			kfree(cfg);
			return ERR_PTR(-ENOMEM);
		}
	}
	return cfg;
}

/*
 * The parameters at measured rate @rate (a step), built on first use and
 * kept with @cfg; NULL if they cannot be (no memory, or the fallback
 * configuration): the caller builds them on its stack.  Entries are set
 * once and never change while @cfg lives, so readers need no lock.  At
 * most %SMARTT_CC_RATE_SLOTS of them, about 160 KB, per configuration.
 */
static const struct smartt_cc_rated *smartt_cc_rated(const struct smartt_cc_cfg *cfg,
						     u32 rate)
{
	struct smartt_cc_rated *r, *old;
	struct smartt_knobs sk;
	struct strack_knobs tk;
	u32 slot;

	if (!cfg->rated)
		return NULL;
	rate = smartt_cc_rate_step(rate, &slot);
	/* pairs with the cmpxchg() below: the entry is built before it is seen */
	r = smp_load_acquire(&cfg->rated[slot]);
	if (r)
		return r;
	r = kmalloc(sizeof(*r), GFP_ATOMIC | __GFP_NOWARN);
	if (!r)
		return NULL;
	sk = cfg->p.sp.k;
	sk.link_mbps = rate;
	tk = cfg->p.tp.k;
	tk.link_mbps = rate;
	if (smartt_params_init(&r->sp, &sk) || strack_params_init(&r->tp, &tk)) {
		kfree(r);
		return NULL;
	}
	old = cmpxchg_release(&cfg->rated[slot], NULL, r);
	if (old) {
		kfree(r);
		/* the winner's entry, published by its cmpxchg_release() */
		return smp_load_acquire(&cfg->rated[slot]);
	}
	return r;
}

/**
 * smartt_cc_cfg_get() - the configuration of a socket's netns
 * @sk: socket
 *
 * Context: rcu_read_lock() held; the result is valid until it is dropped.
 * Return: the current configuration, or the defaults once the netns is
 * being dismantled (never NULL).
 */
const struct smartt_cc_cfg *smartt_cc_cfg_get(const struct sock *sk)
{
	struct smartt_cc_net *cn = net_generic(sock_net(sk), smartt_cc_net_id);
	const struct smartt_cc_cfg *cfg = rcu_dereference(cn->cfg);

	return cfg ?: &smartt_cc_fallback;
}

/**
 * smartt_cc_smartt_params() - SMaRTT parameters for one flow
 * @cfg: configuration
 * @g: the flow's glue state (its measured link rate)
 * @tmp: scratch space for measured mode
 *
 * With a configured link rate every flow shares @cfg's parameters.  Without
 * one the flow's measured rate (a step of smartt_cc_rate_step()) replaces
 * the link rate: the parameters at that step are built once and kept with
 * @cfg (smartt_cc_rated()); only when that fails are they computed again
 * in @tmp.
 *
 * Return: the parameters to use.
 */
const struct smartt_params *smartt_cc_smartt_params(const struct smartt_cc_cfg *cfg,
						    const struct smartt_cc_sock *g,
						    struct smartt_params *tmp)
{
	const struct smartt_cc_rated *r;
	struct smartt_knobs k;

	if (cfg->p.link_mbps || !g->rate_mbps)
		return &cfg->p.sp;
	r = smartt_cc_rated(cfg, g->rate_mbps);
	if (r)
		return &r->sp;
	k = cfg->p.sp.k;
	k.link_mbps = g->rate_mbps;
	if (smartt_params_init(tmp, &k))
		return &cfg->p.sp;
	return tmp;
}

/**
 * smartt_cc_strack_params() - STrack parameters for one flow
 * @cfg: configuration
 * @g: the flow's glue state
 * @tmp: scratch space for measured mode
 *
 * As smartt_cc_smartt_params().
 *
 * Return: the parameters to use.
 */
const struct strack_params *smartt_cc_strack_params(const struct smartt_cc_cfg *cfg,
						    const struct smartt_cc_sock *g,
						    struct strack_params *tmp)
{
	const struct smartt_cc_rated *r;
	struct strack_knobs k;

	if (cfg->p.link_mbps || !g->rate_mbps)
		return &cfg->p.tp;
	r = smartt_cc_rated(cfg, g->rate_mbps);
	if (r)
		return &r->tp;
	k = cfg->p.tp.k;
	k.link_mbps = g->rate_mbps;
	if (strack_params_init(tmp, &k))
		return &cfg->p.tp;
	return tmp;
}

/**
 * smartt_cc_windowed_min_rtt() - the kernel's windowed minimum RTT
 * @sk: socket
 *
 * tcp_sock keeps a windowed minimum of its RTT samples
 * (net.ipv4.tcp_min_rtt_wlen, 300 s by default).
 *
 * Return: that minimum in ns, or 0 when there is no sample yet.
 */
u32 smartt_cc_windowed_min_rtt(const struct sock *sk)
{
	return smartt_cc_us_to_ns(tcp_min_rtt(tcp_sk(sk)));
}

/**
 * smartt_cc_base_rtt() - the glue's part in learning a flow's base RTT
 * @sk: socket
 * @g: glue state
 * @learn: the base RTT is learned (not configured)
 * @rtt: this ACK's RTT sample, ns (0: none)
 * @base: the core's base RTT, ns
 *
 * smartt_cc_base_rtt_next() with the kernel's windowed minimum RTT.
 *
 * Return: the base RTT the core should use from this ACK on, ns.
 */
u32 smartt_cc_base_rtt(const struct sock *sk, struct smartt_cc_sock *g,
		       bool learn, u32 rtt, u32 base)
{
	return smartt_cc_base_rtt_next(learn, &g->base_known, rtt, base,
				       learn && g->base_known ?
				       smartt_cc_windowed_min_rtt(sk) : 0);
}

/**
 * smartt_cc_base_rtt0() - the base RTT a flow starts with
 * @sk: socket
 * @cfg: configuration
 * @fallback: the core's initial base RTT (network_rtt)
 *
 * Return: the configured base RTT, else the handshake's RTT sample, else
 * @fallback; ns.
 */
u32 smartt_cc_base_rtt0(const struct sock *sk, const struct smartt_cc_cfg *cfg,
			u32 fallback)
{
	u32 rtt;

	if (cfg->p.base_rtt_ns)
		return cfg->p.base_rtt_ns;
	rtt = smartt_cc_windowed_min_rtt(sk);
	return rtt ? max_t(u32, rtt, SMARTT_RTT_MIN_NS) : fallback;
}

/**
 * smartt_cc_start_cwnd() - initial window of a flow
 * @sk: socket
 * @cfg: configuration
 * @link_mbps: link rate the flow's parameters use
 * @base_rtt: the flow's initial base RTT, ns
 *
 * Return: link rate x base RTT (one BDP) with tcp_start = 1 and a
 * configured link rate; the kernel's initial window otherwise; bytes.
 */
u64 smartt_cc_start_cwnd(const struct sock *sk, const struct smartt_cc_cfg *cfg,
			 u32 link_mbps, u32 base_rtt)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return smartt_cc_start_bytes(&cfg->p, link_mbps, base_rtt,
				     (u64)tcp_snd_cwnd(tp) * tp->mss_cache);
}

/**
 * smartt_cc_sock_init() - start the glue state of a flow
 * @sk: socket
 * @g: glue state
 * @cfg: configuration
 *
 * Takes the current CE counter and rcv_nxt, seeds the measured link rate
 * with the initial window over the handshake RTT, and asks for pacing
 * (TCP's internal pacing when the qdisc is not fq).
 */
void smartt_cc_sock_init(struct sock *sk, struct smartt_cc_sock *g,
			 const struct smartt_cc_cfg *cfg)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 rtt_us = tcp_min_rtt(tp);

	g->prior_ce = (u16)tp->delivered_ce;
	g->prior_rcv_nxt = tp->rcv_nxt;
	g->rate_mbps = 0;
	g->base_known = 0;
	g->state = 0;
	g->rec_round = 0;
	if (!cfg->p.link_mbps && rtt_us && rtt_us != ~0U) {
		u64 mbps = div_u64((u64)tcp_snd_cwnd(tp) * tp->mss_cache * 8, rtt_us);
		u32 slot;

		g->rate_mbps = smartt_cc_rate_step(clamp_t(u64, mbps, 1,
							   SMARTT_CC_RATE_MAX),
						   &slot);
	}
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
}

/**
 * smartt_cc_ce_pkts() - packets delivered with a CE echo since the last ACK
 * @sk: socket
 * @g: glue state
 *
 * The delta of tp->delivered_ce, which tcp_ack() raises by the delivered
 * packets of every ACK that carries ECE; with the DCTCP receiver state
 * machine (smartt_cc_cwnd_event()) ECE echoes exactly the CE marks of the
 * packets it acknowledges.
 *
 * Return: the packet count.
 */
u32 smartt_cc_ce_pkts(const struct sock *sk, struct smartt_cc_sock *g)
{
	u16 now = (u16)tcp_sk(sk)->delivered_ce;
	u16 d = now - g->prior_ce;

	g->prior_ce = now;
	return d;
}

/**
 * smartt_cc_rate_update() - raise the measured link-rate estimate
 * @sk: socket
 * @g: glue state
 * @rs: rate sample of this ACK
 *
 * Used only without a configured link rate: the estimate is the maximum
 * of smartt_cc_rate_sample_mbps() over the flow's rate samples
 * (app-limited ones can only be lower), in Mbit/s, rounded down to its
 * step (smartt_cc_rate_step(): at most 6.25 % lower).
 */
void smartt_cc_rate_update(const struct sock *sk, struct smartt_cc_sock *g,
			   const struct rate_sample *rs)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 slot;
	u64 mbps;

	if (rs->delivered <= 0 || rs->interval_us <= 0)
		return;
	mbps = smartt_cc_rate_sample_mbps(rs->delivered, tp->mss_cache,
					  min_t(long, rs->interval_us, U32_MAX),
					  tp->srtt_us >> 3, tcp_min_rtt(tp));
	mbps = smartt_cc_rate_step(mbps, &slot);
	if (mbps > g->rate_mbps)
		g->rate_mbps = mbps;
}

/**
 * smartt_cc_rtt_sample() - the ACK's RTT sample
 * @rs: rate sample
 *
 * Return: rs->rtt_us in ns (at most 1 s), 0 when the ACK has none.
 */
u32 smartt_cc_rtt_sample(const struct rate_sample *rs)
{
	return rs->rtt_us > 0 ? smartt_cc_us_to_ns(rs->rtt_us) : 0;
}

/**
 * smartt_cc_host_delay() - the host delay of an ACK
 * @sk: socket
 * @rs: the ACK's rate sample
 *
 * The sender's own queue below TCP (sk_wmem_alloc less its bias: qdisc,
 * driver, NIC ring until TX completion) over the ACK's delivery rate, or
 * the pacing rate without one (smartt_hd_local_ns()).
 *
 * Return: ns.
 */
u32 smartt_cc_host_delay(const struct sock *sk, const struct rate_sample *rs)
{
	int w = refcount_read(&sk->sk_wmem_alloc) - 1;

	return smartt_hd_local_ns(max(w, 0),
				  rs->delivered > 0 ? rs->delivered : 0,
				  tcp_sk(sk)->mss_cache,
				  rs->interval_us > 0 ?
				  min_t(long, rs->interval_us, U32_MAX) : 0,
				  READ_ONCE(sk->sk_pacing_rate));
}

/**
 * smartt_cc_fabric_rtt() - the RTT sample the core's fabric rules see
 * @cfg: configuration (net.smartt.tcp_host_target_us)
 * @rs: the ACK's rate sample
 * @rtt: the ACK's RTT sample, ns (smartt_cc_rtt_sample())
 * @base_rtt: the flow's base RTT, ns, after this ACK's base-RTT rules
 * @host: the ACK's measured host delay, ns (smartt_cc_host_delay())
 * @ce: the event is the ACK's CE-marked part
 *
 * smartt_hd_fabric_rtt(): the sample less the host delay within its
 * target, none for an ACK the receiver may have delayed
 * (Documentation/tcp.rst, "Host and fabric delay").  The per-ACK control
 * functions give the result to the core in place of the sample.
 *
 * Return: the fabric RTT, ns (0: no sample).
 */
u32 smartt_cc_fabric_rtt(const struct smartt_cc_cfg *cfg,
			 const struct rate_sample *rs, u32 rtt, u32 base_rtt,
			 u32 host, bool ce)
{
	return smartt_hd_fabric_rtt(rtt, base_rtt, host, cfg->p.host_target_ns,
				    (rs->is_ack_delayed ? SMARTT_HD_F_DELAYED : 0) |
				    (ce ? SMARTT_HD_F_CE : 0));
}

/**
 * smartt_cc_cwnd_pkts() - TCP's window for a core window
 * @sk: socket
 * @cfg: configuration
 * @cwnd: the core's window, bytes
 *
 * smartt_cc_pkts() with the socket's MSS and snd_cwnd_clamp.  The core's
 * own window is left as it is.
 *
 * Return: the window in segments.
 */
u32 smartt_cc_cwnd_pkts(const struct sock *sk, const struct smartt_cc_cfg *cfg,
			u64 cwnd)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return smartt_cc_pkts(cwnd, tp->mss_cache, cfg->p.min_cwnd,
			      tp->snd_cwnd_clamp);
}

/**
 * smartt_cc_apply() - hand the core's window to TCP and set the pacing rate
 * @sk: socket
 * @g: glue state
 * @cfg: configuration
 * @cwnd: window, bytes
 * @base_rtt: the flow's base RTT, ns (used while there is no srtt)
 * @rs: the ACK's rate sample, NULL outside an ACK
 *
 * snd_cwnd = smartt_cc_cwnd_pkts(), within packet conservation in the
 * first round of fast recovery (smartt_cc_rec_pkts()); sk_pacing_rate =
 * 1.2 x snd_cwnd x MSS / srtt (TCP's congestion-avoidance ratio), at most
 * sk_max_pacing_rate.  fq paces at it; without fq TCP's internal pacing
 * does (smartt_cc_sock_init() asked for it).
 */
void smartt_cc_apply(struct sock *sk, struct smartt_cc_sock *g,
		     const struct smartt_cc_cfg *cfg, u64 cwnd, u32 base_rtt,
		     const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 pkts = smartt_cc_cwnd_pkts(sk, cfg, cwnd);
	u64 rate;

	if (rs)
		pkts = smartt_cc_rec_pkts(g, pkts, tcp_packets_in_flight(tp),
					  max(rs->acked_sacked, 0),
					  rs->prior_delivered, cfg->p.min_cwnd);
	tcp_snd_cwnd_set(tp, pkts);
	rate = smartt_cc_pacing_rate(pkts, tp->mss_cache, tp->srtt_us >> 3,
				     base_rtt);
	rate = min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate));
	WRITE_ONCE(sk->sk_pacing_rate, rate);
}

/**
 * smartt_cc_ssthresh() - tcp_congestion_ops.ssthresh of both algorithms
 * @sk: socket
 *
 * Informational only: cong_control owns the window.
 *
 * Return: the current window, at least 2.
 */
u32 smartt_cc_ssthresh(struct sock *sk)
{
	return max(tcp_snd_cwnd(tcp_sk(sk)), 2U);
}

static void smartt_cc_ece_ack_cwr(struct sock *sk, u32 ce_state)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ce_state)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

/**
 * smartt_cc_cwnd_event() - tcp_congestion_ops.cwnd_event of both algorithms:
 * the receiver's CE state machine (DCTCP's)
 * @sk: socket; its private state starts with struct smartt_cc_sock
 * @ev: the event; only CA_EVENT_ECN_IS_CE and CA_EVENT_ECN_NO_CE matter
 *
 * On a change of the CE state of arriving data, first send a delayed ACK
 * (if one is pending) with the old state for the old data, then ACK at
 * once, so that every ACK's ECE echoes the CE marks of exactly the packets
 * it acknowledges.  ECE follows TCP_ECN_DEMAND_CWR; the state itself is
 * SMARTT_CC_S_CE in g->state (tcp_dctcp.h keeps its own too), because a
 * CWR from the sender clears TCP_ECN_DEMAND_CWR just before the next
 * packet's CE event: read back
 * from there, every CWR looked like a state change and sent an extra ACK
 * without ECE for CE-marked data (smartt_cc_rules.sh, "marking forced
 * on", saw 944 of 2026 ACK events unmarked).  This runs in the receiver's
 * congestion control: both ends must run an ECN-aware one (smartt, strack
 * or dctcp) for the echo to be per packet.
 */
void smartt_cc_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct smartt_cc_sock *g = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 old = !!(g->state & SMARTT_CC_S_CE);
	u32 new = ev == CA_EVENT_ECN_IS_CE;

	if (ev != CA_EVENT_ECN_IS_CE && ev != CA_EVENT_ECN_NO_CE)
		return;
	if (old != new) {
		if (inet_csk(sk)->icsk_ack.pending & ICSK_ACK_TIMER) {
			smartt_cc_ece_ack_cwr(sk, old);
			smartt_tcp_send_ack(sk, g->prior_rcv_nxt);
		}
		inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	g->prior_rcv_nxt = tp->rcv_nxt;
	g->state = new ? g->state | SMARTT_CC_S_CE : g->state & ~SMARTT_CC_S_CE;
	smartt_cc_ece_ack_cwr(sk, new);
}

/* ---- net.smartt.tcp_* sysctls ---- */

/* Build and publish a configuration from @v; on success @v becomes current. */
static int smartt_cc_publish(struct smartt_cc_net *cn, const struct smartt_cc_vals *v)
{
	struct smartt_cc_cfg *cfg = smartt_cc_cfg_build(v), *old;

	if (IS_ERR(cfg))
		return PTR_ERR(cfg);
	old = rcu_replace_pointer(cn->cfg, cfg, lockdep_is_held(&cn->lock));
	cn->vals = *v;
	if (old)
		call_rcu(&old->rcu, smartt_cc_cfg_free_rcu);
	return 0;
}

/* A write replaces one value, rebuilds the configuration or fails -EINVAL. */
static int smartt_cc_sysctl(SMARTT_CTL_TABLE_CONST struct ctl_table *table,
			    int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	struct smartt_cc_net *cn = table->extra1;
	size_t off = (uintptr_t)table->extra2;
	struct smartt_cc_vals v;
	struct ctl_table t = *table;
	char prof[32];
	bool is_str = table->maxlen > sizeof(u32);
	bool is_prof = off == offsetof(struct smartt_cc_vals, profile);
	int err;

	mutex_lock(&cn->lock);
	v = cn->vals;
	if (is_prof) {
		strscpy(prof, smartt_profile_names[v.profile], sizeof(prof));
		t.data = prof;
		t.maxlen = sizeof(prof);
		err = proc_dostring(&t, write, buffer, lenp, ppos);
	} else {
		t.data = (char *)&v + off;
		err = is_str ? proc_dostring(&t, write, buffer, lenp, ppos) :
			proc_douintvec(&t, write, buffer, lenp, ppos);
	}
	if (err || !write)
		goto out;
	if (is_prof) {
		int id = smartt_profile_by_name(strim(prof));

		if (id < 0) {
			err = -EINVAL;
			goto out;
		}
		v.profile = id;
	}
	err = smartt_cc_publish(cn, &v) ? -EINVAL : 0;
out:
	mutex_unlock(&cn->lock);
	return err;
}

#define SMARTT_CC_ENTRY(name, field, len)				\
	{								\
		.procname = name,					\
		.maxlen = len,						\
		.mode = 0644,						\
		.proc_handler = smartt_cc_sysctl,			\
		.extra2 = (void *)offsetof(struct smartt_cc_vals, field), \
	}

static const struct ctl_table smartt_cc_table_tmpl[] = {
	SMARTT_CC_ENTRY("tcp_smartt_profile", profile, 32),
	SMARTT_CC_ENTRY("tcp_link_mbps", link_mbps, sizeof(u32)),
	SMARTT_CC_ENTRY("tcp_base_rtt_us", base_rtt_us, sizeof(u32)),
	SMARTT_CC_ENTRY("tcp_network_rtt_us", network_rtt_us, sizeof(u32)),
	SMARTT_CC_ENTRY("tcp_mss", mss, sizeof(u32)),
	SMARTT_CC_ENTRY("tcp_start", start, sizeof(u32)),
	SMARTT_CC_ENTRY("tcp_min_cwnd", min_cwnd, sizeof(u32)),
	SMARTT_CC_ENTRY("tcp_strack_loss", strack_loss, sizeof(u32)),
	SMARTT_CC_ENTRY("tcp_host_target_us", host_target_us, sizeof(u32)),
	SMARTT_CC_ENTRY("tcp_smartt_knobs", smartt_knobs,
			sizeof_field(struct smartt_cc_vals, smartt_knobs)),
	SMARTT_CC_ENTRY("tcp_strack_knobs", strack_knobs,
			sizeof_field(struct smartt_cc_vals, strack_knobs)),
	{ }
};

static int __net_init smartt_cc_net_init(struct net *net)
{
	struct smartt_cc_net *cn = net_generic(net, smartt_cc_net_id);
	struct smartt_cc_vals v;
	unsigned int i, n = ARRAY_SIZE(smartt_cc_table_tmpl) - 1;
	int err;

	smartt_cc_vals_default(&v);
	mutex_init(&cn->lock);
	mutex_lock(&cn->lock);
	err = smartt_cc_publish(cn, &v);
	mutex_unlock(&cn->lock);
	if (err)
		return err;

	cn->table = kmemdup(smartt_cc_table_tmpl, sizeof(smartt_cc_table_tmpl),
			    GFP_KERNEL);
	if (!cn->table) {
		err = -ENOMEM;
		goto free_cfg;
	}
	for (i = 0; i < n; i++)
		cn->table[i].extra1 = cn;
	cn->hdr = smartt_register_net_sysctl(net, "net/smartt", cn->table, n);
	if (!cn->hdr) {
		err = -ENOMEM;
		goto free_table;
	}
	return 0;

free_table:
	kfree(cn->table);
free_cfg:
	smartt_cc_cfg_free(rcu_dereference_protected(cn->cfg, true));
	return err;
}

static void __net_exit smartt_cc_net_exit(struct net *net)
{
	struct smartt_cc_net *cn = net_generic(net, smartt_cc_net_id);
	struct smartt_cc_cfg *cfg;

	unregister_net_sysctl_table(cn->hdr);
	kfree(cn->table);
	/*
	 * Sockets of this netns may still run (see smartt_cc_fallback):
	 * they read the defaults from now on, and this configuration after
	 * every reader that may hold it.
	 */
	cfg = rcu_replace_pointer(cn->cfg, NULL, true);
	call_rcu(&cfg->rcu, smartt_cc_cfg_free_rcu);
}

static struct pernet_operations smartt_cc_net_ops = {
	.init = smartt_cc_net_init,
	.exit = smartt_cc_net_exit,
	.id = &smartt_cc_net_id,
	.size = sizeof(struct smartt_cc_net),
};

/**
 * smartt_cc_pernet_init() - register the per-netns congestion-control
 * configuration and its net.smartt.tcp_* sysctls
 *
 * Return: 0 or a negative errno.
 */
int smartt_cc_pernet_init(void)
{
	struct smartt_cc_vals v;

	smartt_cc_vals_default(&v);
	if (smartt_cc_params_build(&smartt_cc_fallback.p, &v))
		return -EINVAL;
	return register_pernet_subsys(&smartt_cc_net_ops);
}

/**
 * smartt_cc_pernet_exit() - undo smartt_cc_pernet_init()
 *
 * Waits for configurations still queued for call_rcu().
 */
void smartt_cc_pernet_exit(void)
{
	unregister_pernet_subsys(&smartt_cc_net_ops);
	rcu_barrier();
}
