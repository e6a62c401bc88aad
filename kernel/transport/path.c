// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: multipath.  Every DATA packet (retransmissions
 * included) gets an entropy from its peer's path selector (kernel/algo/lb.c:
 * reps, reps-single, strack-bitmap, oblivious, ecmp); the entropy goes to
 * the IPv6 flow label and the UDP source port, which is what the fabric's
 * ECMP hashes.  ACKs, NACKs and timeouts feed the selector as the UEC
 * reference does (Documentation/path-selection.rst).  Also here: the
 * per-netns net.smartt.transport_* sysctls, the SMARTT_LB and
 * SMARTT_PATH_INFO socket options, per-entropy counters and tracepoints.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "smartt.h"
#include "transport/transport.h"

#define CREATE_TRACE_POINTS
#include "trace_path.h"

/* Defaults of net.smartt.transport_sport_base and _range: 49152-65535. */
#define SMARTT_SPORT_BASE_DEF	49152U
#define SMARTT_SPORT_RANGE_DEF	16384U

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
 * @h: its common header
 * @ev: the entropy it echoes (of the DATA packet that triggered it)
 * @cc_rules: what the congestion control did with it (SMARTT_R_*, 0 for
 *	cc "none")
 * @now: time, ns
 *
 * As the UEC reference (reference-semantics.md 2.4, 5.1): an ACK is GOOD,
 * or ECN when it echoes CE; a NACK for a trim at the last hop (the
 * receiver's downlink, %SMARTT_F_TRIM_LAST_HOP) does not blame the path and
 * counts as an ACK; any other NACK is NACK.
 */
void smartt_path_on_ack(struct sock *sk, struct smartt_peer *peer,
			const struct smartt_hdr *h, u32 ev, u32 cc_rules, u64 now)
{
	u16 flags = ntohs(h->flags);
	enum smartt_path_fb fb;

	if (h->type == SMARTT_PKT_NACK && !(flags & SMARTT_F_TRIM_LAST_HOP)) {
		fb = SMARTT_FB_NACK;
	} else {
		fb = (flags & SMARTT_F_ECN_ECHO) ? SMARTT_FB_ECN : SMARTT_FB_GOOD;
		if (h->type == SMARTT_PKT_NACK)
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
 * smartt_path_set_lb() - setsockopt(SMARTT_LB)
 * @sk: socket
 * @optval: the selector's name
 * @optlen: its length (a NUL is optional)
 *
 * Every peer's selector restarts, with its counters.
 *
 * Return: 0, -EINVAL for an unknown name, -EFAULT.
 */
int smartt_path_set_lb(struct sock *sk, sockptr_t optval, unsigned int optlen)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	char name[SMARTT_LB_NAME_MAX] = {};
	struct smartt_peer *p;
	int kind;

	if (!optlen || optlen > sizeof(name))
		return -EINVAL;
	if (copy_from_sockptr(name, optval, optlen))
		return -EFAULT;
	name[sizeof(name) - 1] = 0;
	kind = smartt_lb_by_name(name);
	if (kind < 0)
		return -EINVAL;
	lock_sock(sk);
	ssk->lb.kind = kind;
	list_for_each_entry(p, &ssk->peers, node)
		if (p->path)
			smartt_path_start(ssk, p->path);
	release_sock(sk);
	return 0;
}

/**
 * smartt_path_get_lb() - getsockopt(SMARTT_LB)
 * @sk: socket
 * @optval: user buffer
 * @optlen: in: its size; out: bytes written
 *
 * Return: 0, -EINVAL, -EFAULT.
 */
int smartt_path_get_lb(struct sock *sk, char __user *optval, int __user *optlen)
{
	u32 kind = READ_ONCE(smartt_sk(sk)->lb.kind);
	const char *name = smartt_lb_names[kind < SMARTT_LB_COUNT ? kind : 0];
	int len;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	len = min_t(int, len, strlen(name) + 1);
	if (put_user(len, optlen) || copy_to_user(optval, name, len))
		return -EFAULT;
	return 0;
}

/*
 * The peer a struct smartt_path_info names (a sockaddr of the socket's
 * family), by smartt_peer_lookup(): -EINVAL for an address of another
 * family, NULL for no such peer.
 */
static struct smartt_peer *smartt_path_peer(struct sock *sk, const u8 *addr)
{
	const struct sockaddr_in6 *sin6 = (const void *)addr;
	const struct sockaddr_in *sin = (const void *)addr;
	union smartt_addr a = {};

	if (sin->sin_family != sk->sk_family)
		return ERR_PTR(-EINVAL);
	if (sk->sk_family == AF_INET) {
		a.v4 = sin->sin_addr.s_addr;
		return smartt_peer_lookup(sk, AF_INET, &a, ntohs(sin->sin_port));
	}
	a.v6 = sin6->sin6_addr;
	return smartt_peer_lookup(sk, AF_INET6, &a, ntohs(sin6->sin6_port));
}

/**
 * smartt_path_get_info() - getsockopt(SMARTT_PATH_INFO)
 * @sk: socket
 * @optval: in: &struct smartt_path_info.addr names the peer; out: the info
 * @optlen: in: at least %SMARTT_PATH_INFO_LEN_MIN; out: bytes written
 *	(the smaller of it and %SMARTT_PATH_INFO_LEN, as TCP_INFO)
 *
 * Return: 0, -EINVAL (short buffer, an address not of the socket's
 * family), -ENOENT (no such peer, or one never sent to: it has no path
 * state),
 * -ENOMEM, -EFAULT.
 */
int smartt_path_get_info(struct sock *sk, char __user *optval, int __user *optlen)
{
	struct smartt_path_info *pi;
	struct smartt_peer *p;
	int len, err = 0;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < SMARTT_PATH_INFO_LEN_MIN)
		return -EINVAL;
	pi = kzalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi)
		return -ENOMEM;
	if (copy_from_user(pi->addr, optval, sizeof(pi->addr))) {
		err = -EFAULT;
		goto out;
	}
	lock_sock(sk);
	p = smartt_path_peer(sk, pi->addr);
	if (IS_ERR(p))
		err = PTR_ERR(p);
	else if (!p || !p->path)
		err = -ENOENT;
	if (!err) {
		const struct smartt_path *pa = p->path;

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
	}
	release_sock(sk);
	if (err)
		goto out;
	len = min_t(int, len, sizeof(*pi));
	if (put_user(len, optlen) || copy_to_user(optval, pi, len))
		err = -EFAULT;
out:
	kfree(pi);
	return err;
}

/* ---- net.smartt.transport_* sysctls ---- */

enum smartt_path_ctl {
	SMARTT_CTL_LB,
	SMARTT_CTL_LB_KNOBS,
	SMARTT_CTL_SPORT_BASE,
	SMARTT_CTL_SPORT_RANGE,
	SMARTT_CTL_ERR_RATELIMIT,
};

/* Apply "name=value ..." (lb.c's knob names, decimal) to @k. */
static int smartt_path_parse_knobs(const char *text, struct smartt_lb_knobs *k)
{
	char buf[sizeof_field(struct smartt_net, lb_text)];
	char *p = buf, *tok;

	strscpy(buf, text, sizeof(buf));
	while ((tok = strsep(&p, " \t\n,")) != NULL) {
		char *val = strchr(tok, '=');
		u32 v;
		int i;

		if (!*tok)
			continue;
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		i = smartt_lb_knob_find(tok);
		if (i < 0 || kstrtou32(val, 0, &v))
			return -EINVAL;
		smartt_lb_knob_set(k, i, v);
	}
	return 0;
}

/* The knobs of a selector @kind with the overrides @text; -EINVAL if bad. */
static int smartt_path_build(u32 kind, const char *text, struct smartt_lb_knobs *k)
{
	*k = smartt_lb_defaults;
	/* Transport default: a random seed per peer (see smartt_path_start()). */
	k->seed = 0;
	if (smartt_path_parse_knobs(text, k))
		return -EINVAL;
	k->kind = kind;
	return smartt_lb_validate(k) ? -EINVAL : 0;
}

static int smartt_path_sysctl(SMARTT_CTL_TABLE_CONST struct ctl_table *table,
			      int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	struct smartt_net *sn = table->extra1;
	enum smartt_path_ctl id = (uintptr_t)table->extra2;
	char text[sizeof_field(struct smartt_net, lb_text)];
	struct ctl_table t = *table;
	struct smartt_lb_knobs k;
	u32 base, range, val;
	int err, kind;

	mutex_lock(&sn->cfg_lock);
	kind = sn->lb.kind;
	base = sn->sport >> 16;
	range = (sn->sport & 0xffff) + 1;
	switch (id) {
	case SMARTT_CTL_LB:
		strscpy(text, smartt_lb_names[kind], sizeof(text));
		break;
	case SMARTT_CTL_LB_KNOBS:
		strscpy(text, sn->lb_text, sizeof(text));
		break;
	case SMARTT_CTL_SPORT_BASE:
		val = base;
		break;
	case SMARTT_CTL_ERR_RATELIMIT:
		val = READ_ONCE(sn->err_ratelimit);
		break;
	default:
		val = range;
		break;
	}
	if (id == SMARTT_CTL_LB || id == SMARTT_CTL_LB_KNOBS) {
		t.data = text;
		t.maxlen = sizeof(text);
		err = proc_dostring(&t, write, buffer, lenp, ppos);
	} else {
		t.data = &val;
		t.maxlen = sizeof(val);
		err = proc_douintvec(&t, write, buffer, lenp, ppos);
	}
	if (err || !write)
		goto out;
	err = -EINVAL;
	switch (id) {
	case SMARTT_CTL_LB:
		kind = smartt_lb_by_name(strim(text));
		if (kind < 0 || smartt_path_build(kind, sn->lb_text, &k))
			goto out;
		sn->lb = k;
		break;
	case SMARTT_CTL_LB_KNOBS:
		if (smartt_path_build(kind, text, &k))
			goto out;
		sn->lb = k;
		strscpy(sn->lb_text, text, sizeof(sn->lb_text));
		break;
	case SMARTT_CTL_SPORT_BASE:
	case SMARTT_CTL_SPORT_RANGE:
		if (id == SMARTT_CTL_SPORT_BASE)
			base = val;
		else
			range = val;
		if (!base || !range || (u64)base + range - 1 > U16_MAX)
			goto out;
		WRITE_ONCE(sn->sport, base << 16 | (range - 1));
		break;
	case SMARTT_CTL_ERR_RATELIMIT:
		if (val > SMARTT_ERR_RATELIMIT_MAX)
			goto out;
		smartt_err_ratelimit_set(sn, val);
		break;
	}
	err = 0;
out:
	mutex_unlock(&sn->cfg_lock);
	return err;
}

#define SMARTT_PATH_ENTRY(name, id)					\
	{								\
		.procname = name,					\
		.maxlen = sizeof_field(struct smartt_net, lb_text),	\
		.mode = 0644,						\
		.proc_handler = smartt_path_sysctl,			\
		.extra2 = (void *)(id),					\
	}

static const struct ctl_table smartt_path_table_tmpl[] = {
	SMARTT_PATH_ENTRY("transport_lb", SMARTT_CTL_LB),
	SMARTT_PATH_ENTRY("transport_lb_knobs", SMARTT_CTL_LB_KNOBS),
	SMARTT_PATH_ENTRY("transport_sport_base", SMARTT_CTL_SPORT_BASE),
	SMARTT_PATH_ENTRY("transport_sport_range", SMARTT_CTL_SPORT_RANGE),
	SMARTT_PATH_ENTRY("transport_err_ratelimit", SMARTT_CTL_ERR_RATELIMIT),
	{ }
};

/**
 * smartt_path_net_init() - a netns's multipath defaults and sysctls
 * @net: the netns
 *
 * Return: 0 or -ENOMEM.
 */
int smartt_path_net_init(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);
	unsigned int i, n = ARRAY_SIZE(smartt_path_table_tmpl) - 1;

	mutex_init(&sn->cfg_lock);
	spin_lock_init(&sn->err_lock);
	smartt_err_ratelimit_set(sn, SMARTT_ERR_RATELIMIT_DEF);
	if (smartt_path_build(SMARTT_LB_REPS, "", &sn->lb))
		return -EINVAL;
	sn->lb_text[0] = 0;
	sn->sport = SMARTT_SPORT_BASE_DEF << 16 | (SMARTT_SPORT_RANGE_DEF - 1);
	sn->table = kmemdup(smartt_path_table_tmpl, sizeof(smartt_path_table_tmpl),
			    GFP_KERNEL);
	if (!sn->table)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		sn->table[i].extra1 = sn;
	sn->sysctl = smartt_register_net_sysctl(net, "net/smartt", sn->table, n);
	if (!sn->sysctl) {
		kfree(sn->table);
		return -ENOMEM;
	}
	return 0;
}

/**
 * smartt_path_net_exit() - undo smartt_path_net_init()
 * @net: the netns
 */
void smartt_path_net_exit(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);

	unregister_net_sysctl_table(sn->sysctl);
	kfree(sn->table);
}
