// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: multipath.  Every DATA packet (retransmissions
 * included) gets an entropy from its peer's path selector (kernel/algo/lb.c:
 * reps, reps-single, strack-bitmap, oblivious, ecmp); the entropy goes to
 * the IPv6 flow label and the UDP source port, which is what the fabric's
 * ECMP hashes.  ACKs, NACKs and timeouts feed the selector as the UEC
 * reference does (Documentation/path-selection.rst).  Also here: the
 * per-entropy counters and the tracepoints.  The sysctls and socket
 * options that set and read all this are in ctl.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>

#include "smartt.h"
#include "transport/transport.h"

#define CREATE_TRACE_POINTS
#include "trace_path.h"

/**
 * struct smartt_path - a peer's path selector and its counters
 * @lb: the selector
 * @tx_pkts: DATA packets sent
 * @freezes: REPS freezes
 * @unfreezes: REPS freezes ended
 * @ecn_noop: ECN echoes the congestion control answered with a path change
 *	only (SMARTT_R_NOOP)
 * @tx: packets sent per entropy bucket
 * @ecn: ECN feedback per entropy bucket
 * @nack: NACK feedback (trim not at the last hop) per entropy bucket
 * @timeout: timeout feedback per entropy bucket
 * @lost: loss feedback (SACK, out-of-order count, probe) per entropy bucket
 */
struct smartt_path {
	struct smartt_lb lb;
	u64 tx_pkts;
	u64 freezes;
	u64 unfreezes;
	u64 ecn_noop;
	u32 tx[SMARTT_PATH_BUCKETS];
	u32 ecn[SMARTT_PATH_BUCKETS];
	u32 nack[SMARTT_PATH_BUCKETS];
	u32 timeout[SMARTT_PATH_BUCKETS];
	u32 lost[SMARTT_PATH_BUCKETS];
};

static u32 smartt_path_paths(const struct smartt_lb_knobs *k)
{
	return k->kind == SMARTT_LB_BITMAP ? k->max_paths : k->reps.paths;
}

static bool smartt_path_frozen(const struct smartt_path *pa)
{
	return pa->lb.k.kind == SMARTT_LB_REPS && pa->lb.u.reps.frozen;
}

/* Start (or restart) a peer's selector from the socket's knobs. */
static void smartt_path_start(const struct smartt_sock *ssk, struct smartt_path *pa)
{
	struct smartt_lb_knobs k = ssk->lb;

	/* Seed 0: every peer draws its own (ecmp flows spread). */
	if (!k.seed)
		k.seed = get_random_u32() | 1;
	memset(pa, 0, sizeof(*pa));
	/* The knobs were validated when they were set. */
	if (WARN_ON_ONCE(smartt_lb_init(&pa->lb, &k)))
		smartt_lb_init(&pa->lb, &smartt_lb_defaults);
}

/**
 * smartt_path_init() - give a new peer its path selector
 * @sk: socket (locked)
 * @peer: the peer
 * @gfp: allocation flags
 *
 * Return: 0 or -ENOBUFS.
 */
int smartt_path_init(struct sock *sk, struct smartt_peer *peer, gfp_t gfp)
{
	peer->path = kmalloc(sizeof(*peer->path), gfp);
	if (!peer->path)
		return -ENOBUFS;
	smartt_path_start(smartt_sk(sk), peer->path);
	return 0;
}

/**
 * smartt_path_free() - free a peer's path selector
 * @peer: the peer
 */
void smartt_path_free(struct smartt_peer *peer)
{
	kfree(peer->path);
	peer->path = NULL;
}

/**
 * smartt_path_sport() - the UDP source port that carries an entropy
 * @net: network namespace
 * @entropy: the entropy
 *
 * net.smartt.transport_sport_base + @entropy modulo
 * net.smartt.transport_sport_range.
 *
 * Return: the port, network order.
 */
__be16 smartt_path_sport(struct net *net, u32 entropy)
{
	u32 v = READ_ONCE(smartt_net(net)->sport);

	return htons((v >> 16) + entropy % ((v & 0xffff) + 1));
}

/**
 * smartt_path_next() - the entropy of a DATA packet about to be sent
 * @sk: socket (locked)
 * @peer: the destination
 * @psn: the packet's PSN
 * @len: its payload bytes
 * @rtx: it is a retransmission (which also asks the selector afresh)
 *
 * Return: the entropy, below the selector's number of paths (2^20 at most:
 * it fits the IPv6 flow label).
 */
u32 smartt_path_next(struct sock *sk, struct smartt_peer *peer, u64 psn, u32 len,
		     bool rtx)
{
	struct smartt_path *pa = peer->path;
	u64 cwnd_pkts = div_u64(peer->cwnd, max_t(u32, peer->mss, 1));
	u32 ev = smartt_lb_next(&pa->lb, cwnd_pkts, len);

	pa->tx_pkts++;
	pa->tx[ev % SMARTT_PATH_BUCKETS]++;
	trace_smartt_path_select(smartt_sk(sk)->port, peer->port, pa->lb.k.kind, psn,
				 ev, rtx);
	return ev;
}

static const enum smartt_stat smartt_path_fb_stat[] = {
	[SMARTT_FB_GOOD] = SMARTT_STAT_PATH_GOOD,
	[SMARTT_FB_ECN] = SMARTT_STAT_PATH_ECN,
	[SMARTT_FB_NACK] = SMARTT_STAT_PATH_NACK,
	[SMARTT_FB_TIMEOUT] = SMARTT_STAT_PATH_TIMEOUT,
	[SMARTT_FB_LOST] = SMARTT_STAT_PATH_LOST,
};

static void smartt_path_fb(struct sock *sk, struct smartt_peer *peer, u64 now,
			   u32 ev, enum smartt_path_fb fb)
{
	struct smartt_path *pa = peer->path;
	struct net *net = sock_net(sk);
	bool was = smartt_path_frozen(pa), is;
	u32 b = ev % SMARTT_PATH_BUCKETS;

	/* An echoed entropy we cannot have sent: the peer is broken. */
	if (ev >= smartt_path_paths(&pa->lb.k)) {
		smartt_stat_inc(net, SMARTT_STAT_PATH_BAD_ENTROPY);
		return;
	}
	smartt_lb_feedback(&pa->lb, now, ev, fb);
	is = smartt_path_frozen(pa);
	if (!was && is) {
		pa->freezes++;
		smartt_stat_inc(net, SMARTT_STAT_PATH_FREEZES);
	} else if (was && !is) {
		pa->unfreezes++;
		smartt_stat_inc(net, SMARTT_STAT_PATH_UNFREEZES);
	}
	smartt_stat_inc(net, smartt_path_fb_stat[fb]);
	switch (fb) {
	case SMARTT_FB_ECN:
		pa->ecn[b]++;
		break;
	case SMARTT_FB_NACK:
		pa->nack[b]++;
		break;
	case SMARTT_FB_TIMEOUT:
		pa->timeout[b]++;
		break;
	case SMARTT_FB_LOST:
		pa->lost[b]++;
		break;
	default:
		break;
	}
	trace_smartt_path_feedback(smartt_sk(sk)->port, peer->port, pa->lb.k.kind, ev,
				   fb, is);
}

/**
 * smartt_path_on_ack() - feed the selector an ACK or a NACK
 * @sk: socket (locked)
 * @peer: the peer that sent it
 * @kind: &enum smartt_path_ack: an ACK, or a NACK and what it says
 * @ecn: the acknowledged packet carried CE (the M flag)
 * @ev: the entropy the acknowledged packet was sent on (the sender's
 *	record of its PSN)
 * @cc_rules: what the congestion control did with it (SMARTT_R_*, 0 for
 *	cc "none")
 * @now: time, ns
 *
 * As the UEC reference simulator: an ACK is GOOD,
 * or ECN when it echoes CE; a NACK for a trim at the last hop (NACK code
 * TRIMMED_LASTHOP) does not blame the path and counts as an ACK; nor does a
 * NACK for a speculative packet a CRP port trimmed after TTW (it only had
 * to yield); any other NACK is NACK.
 */
void smartt_path_on_ack(struct sock *sk, struct smartt_peer *peer,
			enum smartt_path_ack kind, bool ecn, u32 ev, u32 cc_rules,
			u64 now)
{
	enum smartt_path_fb fb;

	if (kind == SMARTT_PATH_NACK) {
		fb = SMARTT_FB_NACK;
	} else {
		fb = ecn ? SMARTT_FB_ECN : SMARTT_FB_GOOD;
		if (kind == SMARTT_PATH_NACK_LASTHOP)
			smartt_stat_inc(sock_net(sk), SMARTT_STAT_PATH_LAST_HOP);
	}
	if (cc_rules & SMARTT_R_NOOP) {
		peer->path->ecn_noop++;
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_PATH_ECN_NOOP);
	}
	smartt_path_fb(sk, peer, now, ev, fb);
}

/**
 * smartt_path_on_rto() - feed the selector a retransmission timeout
 * @sk: socket (locked)
 * @peer: the peer
 * @now: time, ns
 *
 * Called before the segments in flight are declared lost: each one's
 * entropy gets TIMEOUT feedback (the reference reports entropy 0 because
 * it does not know; we keep the entropy per PSN).  REPS freezes on the
 * first; strack-bitmap marks every path that lost a packet.
 */
void smartt_path_on_rto(struct sock *sk, struct smartt_peer *peer, u64 now)
{
	u64 psn;

	for (psn = peer->snd_una; psn < peer->snd_nxt; psn++) {
		const struct smartt_txseg *s = &peer->win[psn % SMARTT_WIN];

		if (s->state == SMARTT_SEG_INFLIGHT)
			smartt_path_fb(sk, peer, now, s->entropy, SMARTT_FB_TIMEOUT);
	}
}

/**
 * smartt_path_on_lost() - feed the selector a packet declared lost
 * @sk: socket (locked)
 * @peer: the peer
 * @entropy: the entropy the lost packet was last sent on
 * @now: time, ns
 *
 * For losses found without a timeout or a NACK: SACK (dupthresh), the
 * receiver's out-of-order count, a probe's answer.  Without trimming
 * these are the only news of a path that drops packets.  REPS does not
 * cache the entropy (it freezes on timeouts only, as the reference);
 * strack-bitmap penalises it as a timeout.
 */
void smartt_path_on_lost(struct sock *sk, struct smartt_peer *peer, u32 entropy,
			 u64 now)
{
	smartt_path_fb(sk, peer, now, entropy, SMARTT_FB_LOST);
}

/* ---- socket options ---- */

/**
 * smartt_path_sock_init() - a new socket takes its netns's selector
 * @sk: the socket
 *
 * Context: process (takes the netns's configuration mutex).
 */
void smartt_path_sock_init(struct sock *sk)
{
	struct smartt_net *sn = smartt_net(sock_net(sk));

	mutex_lock(&sn->cfg_lock);
	smartt_sk(sk)->lb = sn->lb;
	mutex_unlock(&sn->cfg_lock);
}

/**
 * smartt_path_set_kind() - a socket changes its selector
 * @sk: socket (locked)
 * @kind: &enum smartt_lb_kind
 *
 * Every peer's selector restarts, with its counters.
 */
void smartt_path_set_kind(struct sock *sk, u32 kind)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_peer *p;

	ssk->lb.kind = kind;
	list_for_each_entry(p, &ssk->peers, node)
		if (p->path)
			smartt_path_start(ssk, p->path);
}

/**
 * smartt_path_fill_info() - a peer's selector and counters for
 *	getsockopt(SMARTT_PATH_INFO)
 * @peer: the peer (its socket locked)
 * @pi: filled but for &struct smartt_path_info.addr
 *
 * Return: 0, or -ENOENT for a peer never sent to (it has no path state).
 */
int smartt_path_fill_info(const struct smartt_peer *peer, struct smartt_path_info *pi)
{
	const struct smartt_path *pa = peer->path;

	if (!pa)
		return -ENOENT;
	pi->paths = smartt_path_paths(&pa->lb.k);
	strscpy(pi->lb, smartt_lb_names[pa->lb.k.kind], sizeof(pi->lb));
	pi->tx_pkts = pa->tx_pkts;
	pi->freezes = pa->freezes;
	pi->unfreezes = pa->unfreezes;
	pi->ecn_noop = pa->ecn_noop;
	memcpy(pi->tx, pa->tx, sizeof(pi->tx));
	memcpy(pi->ecn, pa->ecn, sizeof(pi->ecn));
	memcpy(pi->nack, pa->nack, sizeof(pi->nack));
	memcpy(pi->timeout, pa->timeout, sizeof(pi->timeout));
	memcpy(pi->lost, pa->lost, sizeof(pi->lost));
	return 0;
}
