// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the congestion-control dispatch and the RTT estimator
 * that the RTO comes from.  One place decides
 * what an ACK, a NACK or a timeout does to a peer's window: nothing for
 * "none" (a fixed window) and "crp" (a fixed window; its reservations in
 * crp.c decide when each packet leaves), the SMaRTT core
 * (kernel/algo/smartt.c) for its profiles, the STrack core
 * (kernel/algo/strack.c) for "strack", the DCTCP-style core
 * (kernel/algo/dctcp.c) for "dctcp".  The cores make every window
 * decision; this file only feeds them.
 * Documentation/transport.rst, "Congestion control".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "algo/dctcp.h"
#include "cc/cc_glue.h"
#include "smartt.h"
#include "transport/transport.h"
#include "transport/trace.h"

/* Tracepoint smartt_transport_cc for one event of a core. */
static void smartt_cc_trace(struct sock *sk, struct smartt_peer *peer, u8 ev,
			    u32 rules, u64 before, u32 rtt, u32 bytes, bool ecn,
			    u64 now, u64 in_flight)
{
	trace_smartt_transport_cc(smartt_sk(sk)->port, peer->port,
				  smartt_sk(sk)->cc_algo == SMARTT_CCA_STRACK, ev,
				  rules, before, peer->cwnd, rtt, bytes, ecn, now, in_flight);
}

static u64 smartt_default_cwnd(const struct smartt_sock *ssk, const struct smartt_peer *p)
{
	return ssk->window ? ssk->window : (u64)p->mss * SMARTT_WINDOW_SEGS;
}

/* cc "dctcp": RFC 8257's constants, bounded by the window of cc "none". */
static void smartt_cc_dctcp_params(const struct smartt_sock *ssk,
				   const struct smartt_peer *p, struct dctcp_params *dp)
{
	dctcp_params_default(dp, p->mss, smartt_default_cwnd(ssk, p));
}

/**
 * smartt_cc_peer_init() - (re)start a peer's congestion control
 * @ssk: socket (locked)
 * @p: the peer
 *
 * The core's initial window (SMaRTT, STrack: its window bound; dctcp: ten
 * packets), or the fixed window.
 */
void smartt_cc_peer_init(struct smartt_sock *ssk, struct smartt_peer *p)
{
	struct dctcp_params dp;

	switch (ssk->cc_algo) {
	case SMARTT_CCA_SMARTT:
		smartt_init(&p->ss, ssk->sp, 0);
		p->cwnd = p->ss.cwnd;
		break;
	case SMARTT_CCA_STRACK:
		strack_init(&p->st, ssk->tp, 0);
		p->cwnd = p->st.cwnd;
		break;
	case SMARTT_CCA_DCTCP:
		smartt_cc_dctcp_params(ssk, p, &dp);
		dctcp_init(&p->dc, &dp);
		p->cwnd = p->dc.cwnd;
		break;
	default:
		p->cwnd = smartt_default_cwnd(ssk, p);
		break;
	}
}

/**
 * smartt_cc_ack() - an ACK acknowledged new bytes, or a NACK came
 * @sk: socket (locked)
 * @peer: the peer
 * @cs: the sample
 *
 * SMaRTT: smartt_on_ack() or smartt_on_nack().  STrack: strack_on_ack()
 * with the RTT sample and the ECN echo; a NACK (a switch trimmed the
 * packet: its queue was full) is an ECN-marked sample at the current
 * average delay that acknowledges nothing, so it never increases the
 * window and decreases it when the average delay is above target (the
 * paper defines no reaction to trims: STrack assumes none happen).
 * dctcp: dctcp_on_ack() with the bytes, the ECN echo, and a NACK as a
 * mark for the trimmed packet's bytes.
 *
 * Return: the SMaRTT core's rules (SMARTT_R_*), 0 for the other controls.
 */
u32 smartt_cc_ack(struct sock *sk, struct smartt_peer *peer,
		  const struct smartt_cc_sample *cs)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	u64 before = peer->cwnd;
	struct dctcp_params dp;
	u32 rules = 0;

	switch (ssk->cc_algo) {
	case SMARTT_CCA_SMARTT: {
		struct smartt_event ev = {
			.now = cs->now,
			.rtt = cs->rtt,
			.bytes = cs->bytes,
			.in_flight = cs->in_flight,
			.ecn = cs->ecn,
		};

		if (cs->nack)
			rules = smartt_on_nack(&peer->ss, ssk->sp, &ev);
		else
			rules = smartt_on_ack(&peer->ss, ssk->sp, &ev);
		peer->cwnd = peer->ss.cwnd;
		break;
	}
	case SMARTT_CCA_STRACK:
		if (cs->nack)
			strack_on_ack(&peer->st, ssk->tp, cs->now, 0, true, 0);
		else
			strack_on_ack(&peer->st, ssk->tp, cs->now, cs->rtt, cs->ecn,
				      cs->bytes);
		peer->cwnd = peer->st.cwnd;
		break;
	case SMARTT_CCA_DCTCP:
		smartt_cc_dctcp_params(ssk, peer, &dp);
		dctcp_on_ack(&peer->dc, &dp, cs->bytes, cs->ecn, cs->nack);
		peer->cwnd = peer->dc.cwnd;
		break;
	default:
		return 0;
	}
	smartt_cc_trace(sk, peer, cs->nack, rules, before, cs->rtt, cs->bytes, cs->ecn,
			cs->now, cs->in_flight);
	return rules;
}

/**
 * smartt_cc_timeout() - the retransmission timer of a peer expired
 * @sk: socket (locked)
 * @peer: the peer
 * @now: time, ns
 */
void smartt_cc_timeout(struct sock *sk, struct smartt_peer *peer, u64 now)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	u64 before = peer->cwnd;
	struct dctcp_params dp;
	u32 rules = 0;

	switch (ssk->cc_algo) {
	case SMARTT_CCA_SMARTT: {
		struct smartt_event ev = {
			.now = now,
			.bytes = peer->mss,
			.in_flight = peer->in_flight,
		};

		rules = smartt_on_timeout(&peer->ss, ssk->sp, &ev);
		peer->cwnd = peer->ss.cwnd;
		break;
	}
	case SMARTT_CCA_STRACK:
		strack_on_timeout(&peer->st, ssk->tp, peer->mss);
		peer->cwnd = peer->st.cwnd;
		break;
	case SMARTT_CCA_DCTCP:
		smartt_cc_dctcp_params(ssk, peer, &dp);
		dctcp_on_timeout(&peer->dc, &dp);
		peer->cwnd = peer->dc.cwnd;
		break;
	default:
		return;
	}
	smartt_cc_trace(sk, peer, 2, rules, before, 0, peer->mss, false, now, peer->in_flight);
}

/**
 * smartt_cc_name() - the name SMARTT_CC reports
 * @ssk: socket
 *
 * Return: "none", a SMaRTT profile's name, "strack", "dctcp" or "crp".
 */
const char *smartt_cc_name(const struct smartt_sock *ssk)
{
	int cc;

	switch (READ_ONCE(ssk->cc_algo)) {
	case SMARTT_CCA_SMARTT:
		/* unlocked: a concurrent change may leave cc behind cc_algo */
		cc = READ_ONCE(ssk->cc);
		return cc >= 0 && cc < SMARTT_PROFILE_COUNT ? smartt_profile_names[cc] :
			"none";
	case SMARTT_CCA_STRACK:
		return "strack";
	case SMARTT_CCA_DCTCP:
		return "dctcp";
	case SMARTT_CCA_CRP:
		return "crp";
	default:
		return "none";
	}
}

/*
 * Core parameters for a socket: the profile's rules and gains (SMaRTT) or
 * the net.smartt.tcp_strack_knobs (STrack), the fabric's description (link
 * rate, RTTs, MTU) from the netns's net.smartt.tcp_* configuration, then
 * net.smartt.tcp_smartt_knobs over SMaRTT's, as TCP applies them over its
 * profile.  The overrides were validated against TCP's profile: one that
 * this profile rejects is -EINVAL here.
 */
static int smartt_cc_smartt_cfg(struct sock *sk, int profile, struct smartt_params *sp)
{
	struct smartt_knobs k = smartt_profiles[profile];
	const struct smartt_cc_cfg *cfg;
	int bad;

	rcu_read_lock();
	cfg = smartt_cc_cfg_get(sk);
	k.link_mbps = cfg->p.sp.k.link_mbps;
	k.base_rtt = cfg->p.sp.k.base_rtt;
	k.network_rtt = cfg->p.sp.k.network_rtt;
	k.learn_base_rtt = cfg->p.sp.k.learn_base_rtt;
	k.mtu = cfg->p.sp.k.mtu;
	bad = smartt_cc_apply_text(cfg->smartt_knobs, false, &k);
	rcu_read_unlock();
	if (bad)
		return -EINVAL;
	return smartt_params_init(sp, &k) ? -EINVAL : 0;
}

static void smartt_cc_strack_cfg(struct sock *sk, struct strack_params *tp)
{
	rcu_read_lock();
	*tp = smartt_cc_cfg_get(sk)->p.tp;
	rcu_read_unlock();
}

/**
 * smartt_cc_valid_name() - is this a congestion control SMARTT_CC takes?
 * @name: NUL-terminated
 *
 * Return: 0, or -EINVAL.
 */
int smartt_cc_valid_name(const char *name)
{
	if (!strcmp(name, "none") || !strcmp(name, "strack") || !strcmp(name, "dctcp") ||
	    !strcmp(name, "crp"))
		return 0;
	return smartt_profile_by_name(name) < 0 ? -EINVAL : 0;
}

/**
 * smartt_cc_set_default() - a new socket takes net.smartt.transport_cc
 * @sk: the socket, being created
 *
 * Return: 0, or smartt_cc_set()'s error.
 */
int smartt_cc_set_default(struct sock *sk)
{
	struct smartt_net *sn = smartt_net(sock_net(sk));
	char name[SMARTT_CC_NAME_MAX];

	mutex_lock(&sn->cfg_lock);
	strscpy(name, sn->cc_default, sizeof(name));
	mutex_unlock(&sn->cfg_lock);
	if (!strcmp(name, "none"))
		return 0;
	return smartt_cc_set(sk, KERNEL_SOCKPTR(name), strlen(name));
}

/* The netns's CRP knobs (net.smartt.transport_crp_knobs), for a socket. */
static struct smartt_crp_cfg *smartt_cc_crp_cfg(struct sock *sk)
{
	struct smartt_net *sn = smartt_net(sock_net(sk));
	struct smartt_crp_cfg *c = kmalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	mutex_lock(&sn->cfg_lock);
	*c = sn->crp;
	mutex_unlock(&sn->cfg_lock);
	return c;
}

/**
 * smartt_cc_set() - setsockopt(SMARTT_CC)
 * @sk: socket
 * @optval: the name, "none", a SMaRTT profile, "strack", "dctcp" or "crp"
 * @optlen: its length (with or without the NUL)
 *
 * Every peer's congestion control restarts, and its CRP reservations
 * end.  "crp" takes the netns's net.smartt.transport_crp_knobs as they
 * are now.
 *
 * Return: 0, -EINVAL for an unknown name, -EFAULT, -ENOMEM.
 */
int smartt_cc_set(struct sock *sk, sockptr_t optval, unsigned int optlen)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	char name[SMARTT_CC_NAME_MAX] = {};
	struct smartt_params *sp = NULL, *old_sp;
	struct strack_params *tp = NULL, *old_tp;
	struct smartt_crp_cfg *crp = NULL, *old_crp;
	int profile = SMARTT_CC_NONE, err;
	u8 algo = SMARTT_CCA_NONE;
	struct smartt_peer *p;

	if (!optlen || optlen > sizeof(name))
		return -EINVAL;
	if (copy_from_sockptr(name, optval, optlen))
		return -EFAULT;
	name[sizeof(name) - 1] = 0;
	if (!strcmp(name, "crp")) {
		algo = SMARTT_CCA_CRP;
		crp = smartt_cc_crp_cfg(sk);
		if (!crp)
			return -ENOMEM;
	} else if (!strcmp(name, "dctcp")) {
		algo = SMARTT_CCA_DCTCP;
	} else if (!strcmp(name, "strack")) {
		algo = SMARTT_CCA_STRACK;
		tp = kmalloc(sizeof(*tp), GFP_KERNEL);
		if (!tp)
			return -ENOMEM;
		smartt_cc_strack_cfg(sk, tp);
	} else if (strcmp(name, "none")) {
		profile = smartt_profile_by_name(name);
		if (profile < 0)
			return -EINVAL;
		algo = SMARTT_CCA_SMARTT;
		sp = kmalloc(sizeof(*sp), GFP_KERNEL);
		if (!sp)
			return -ENOMEM;
		err = smartt_cc_smartt_cfg(sk, profile, sp);
		if (err) {
			kfree(sp);
			return err;
		}
	}
	lock_sock(sk);
	old_sp = ssk->sp;
	old_tp = ssk->tp;
	old_crp = ssk->crp;
	ssk->sp = sp;
	ssk->tp = tp;
	ssk->crp = crp;
	WRITE_ONCE(ssk->cc, profile);
	WRITE_ONCE(ssk->cc_algo, algo);
	list_for_each_entry(p, &ssk->peers, node) {
		smartt_cc_peer_init(ssk, p);
		smartt_crp_reset(p);
		smartt_push(sk, p);
	}
	release_sock(sk);
	kfree(old_sp);
	kfree(old_tp);
	kfree(old_crp);
	return 0;
}

/**
 * smartt_cc_release() - free the core parameters (socket closing)
 * @ssk: socket (locked, no peer left)
 */
void smartt_cc_release(struct smartt_sock *ssk)
{
	kfree(ssk->sp);
	kfree(ssk->tp);
	kfree(ssk->crp);
	ssk->sp = NULL;
	ssk->tp = NULL;
	ssk->crp = NULL;
	ssk->cc_algo = SMARTT_CCA_NONE;
	ssk->cc = SMARTT_CC_NONE;
}

/**
 * smartt_rtt_sample() - feed the RTO estimator (RFC 6298)
 * @peer: the peer
 * @rtt_ns: a round-trip time measured from an echoed send time
 *
 * srtt and rttvar with gains 1/8 and 1/4; rto = srtt + max(1 ms,
 * 4 rttvar), clamped to [%SMARTT_RTO_MIN_NS, %SMARTT_RTO_MAX_NS].  A new
 * sample also ends any exponential backoff.
 */
void smartt_rtt_sample(struct smartt_peer *peer, u64 rtt_ns)
{
	u64 var;

	if (!rtt_ns || rtt_ns > SMARTT_RTO_MAX_NS)
		return;
	if (!peer->srtt_ns) {
		peer->srtt_ns = rtt_ns;
		peer->rttvar_ns = rtt_ns / 2;
	} else {
		u64 d = peer->srtt_ns > rtt_ns ? peer->srtt_ns - rtt_ns :
						 rtt_ns - peer->srtt_ns;

		peer->rttvar_ns = peer->rttvar_ns - (peer->rttvar_ns >> 2) + (d >> 2);
		peer->srtt_ns = peer->srtt_ns - (peer->srtt_ns >> 3) + (rtt_ns >> 3);
	}
	var = max_t(u64, NSEC_PER_MSEC, 4 * peer->rttvar_ns);
	peer->rto_ns = clamp_t(u64, peer->srtt_ns + var, SMARTT_RTO_MIN_NS,
			       SMARTT_RTO_MAX_NS);
}
