// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the socket API.  socket(AF_INET or AF_INET6,
 * SOCK_DGRAM, IPPROTO_SMARTT); bind to a transport port; sendto() queues a
 * whole message; recvmsg() returns whole messages; completions and errors
 * on the error queue; options at SOL_SMARTT.  See smartt(7).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/addrconf.h>
#include <net/inet_common.h>
#include <net/protocol.h>
#include <net/route.h>

#include "smartt.h"
#include "transport/transport.h"

/* Bytes charged per queued message on top of its payload. */
#define SMARTT_MSG_OVERHEAD	256

static u64 smartt_msg_charge(const struct smartt_tx_msg *m)
{
	return m->len + SMARTT_MSG_OVERHEAD;
}

/*
 * Room for a message of @len bytes: what is queued, and the completions
 * not yet read, within the send buffer (one message always fits an empty
 * socket).
 */
static bool smartt_tx_room(const struct sock *sk, u64 len)
{
	const struct smartt_sock *ssk = smartt_sk(sk);
	u64 queued = READ_ONCE(ssk->tx_queued) + atomic_read(&ssk->compl_queued);

	return !queued || queued + len + SMARTT_MSG_OVERHEAD <= (u64)READ_ONCE(sk->sk_sndbuf);
}

/**
 * smartt_write_space() - wake writers when queued bytes dropped
 * @sk: socket
 */
void smartt_write_space(struct sock *sk)
{
	if (!sock_flag(sk, SOCK_DEAD) && smartt_tx_room(sk, 0))
		sk->sk_write_space(sk);
}

static int smartt_hash_port(struct sock *sk, u16 port)
{
	struct smartt_net *sn = smartt_net(sock_net(sk));
	struct smartt_sock *ssk = smartt_sk(sk), *o;
	u32 range = SMARTT_PORT_EPH_HI - SMARTT_PORT_EPH_LO + 1;
	u32 i, start = get_random_u32_below(range);
	int err = -EADDRINUSE;

	spin_lock_bh(&sn->bind_lock);
	for (i = 0; i < (port ? 1 : range); i++) {
		u16 p = port ? port : SMARTT_PORT_EPH_LO + (start + i) % range;
		bool used = false;

		hlist_for_each_entry(o, &sn->bind[hash_32(p, SMARTT_BIND_BITS)], bind_node) {
			if (o->port == p) {
				used = true;
				break;
			}
		}
		if (used)
			continue;
		WRITE_ONCE(ssk->port, p);
		ssk->inet.inet_sport = htons(p);
		hlist_add_head_rcu(&ssk->bind_node, &sn->bind[hash_32(p, SMARTT_BIND_BITS)]);
		err = 0;
		break;
	}
	spin_unlock_bh(&sn->bind_lock);
	return err;
}

static int smartt_hash(struct sock *sk)
{
	return 0;
}

static void smartt_unhash(struct sock *sk)
{
	struct smartt_net *sn = smartt_net(sock_net(sk));
	struct smartt_sock *ssk = smartt_sk(sk);

	spin_lock_bh(&sn->bind_lock);
	if (!hlist_unhashed(&ssk->bind_node))
		hlist_del_init_rcu(&ssk->bind_node);
	spin_unlock_bh(&sn->bind_lock);
}

/* Parse a sockaddr of the socket's family; port 0 allowed only if @bind. */
static int smartt_parse_addr(struct sock *sk, const void *uaddr, int len,
			     union smartt_addr *a, u16 *port, bool bind)
{
	if (sk->sk_family == AF_INET) {
		const struct sockaddr_in *sin = uaddr;

		if (len < (int)sizeof(*sin))
			return -EINVAL;
		if (sin->sin_family != AF_INET)
			return -EAFNOSUPPORT;
		a->v4 = sin->sin_addr.s_addr;
		*port = ntohs(sin->sin_port);
		if (!bind && (ipv4_is_zeronet(a->v4) || ipv4_is_multicast(a->v4) ||
			      ipv4_is_lbcast(a->v4)))
			return -EINVAL;
	} else {
		const struct sockaddr_in6 *sin6 = uaddr;
		int t;

		if (len < SIN6_LEN_RFC2133)
			return -EINVAL;
		if (sin6->sin6_family != AF_INET6)
			return -EAFNOSUPPORT;
		a->v6 = sin6->sin6_addr;
		*port = ntohs(sin6->sin6_port);
		t = ipv6_addr_type(&a->v6);
		if (t & IPV6_ADDR_MAPPED)
			return -EAFNOSUPPORT;
		if (!bind && (t == IPV6_ADDR_ANY || (t & IPV6_ADDR_MULTICAST)))
			return -EINVAL;
	}
	if ((!bind && !*port) || *port > SMARTT_PORT_MAX)
		return -EINVAL;
	return 0;
}

static int smartt_bind(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct net *net = sock_net(sk);
	union smartt_addr a;
	u16 port;
	int err;

	err = smartt_parse_addr(sk, uaddr, addr_len, &a, &port, true);
	if (err)
		return err;
	if (sk->sk_family == AF_INET) {
		if (a.v4 != htonl(INADDR_ANY) && inet_addr_type(net, a.v4) != RTN_LOCAL)
			return -EADDRNOTAVAIL;
	} else if (!ipv6_addr_any(&a.v6) && !ipv6_chk_addr(net, &a.v6, NULL, 0)) {
		return -EADDRNOTAVAIL;
	}
	lock_sock(sk);
	if (ssk->port || ssk->closing) {
		err = -EINVAL;
		goto out;
	}
	err = smartt_hash_port(sk, port);
	if (err)
		goto out;
	if (sk->sk_family == AF_INET) {
		ssk->inet.inet_rcv_saddr = a.v4;
		ssk->inet.inet_saddr = a.v4;
	} else {
		sk->sk_v6_rcv_saddr = a.v6;
	}
out:
	release_sock(sk);
	return err;
}

static struct hlist_head *smartt_peer_bucket(struct smartt_sock *ssk, u16 family,
					     const union smartt_addr *a, u16 port)
{
	u32 h = family == AF_INET ? jhash_2words((__force u32)a->v4, port, ssk->peer_seed) :
		jhash2((const u32 *)&a->v6, 4, ssk->peer_seed ^ port);

	return &ssk->peer_hash[hash_32(h, SMARTT_PEER_HASH_BITS)];
}

/**
 * smartt_peer_lookup() - the state of a peer, if the socket has it
 * @sk: socket (locked)
 * @family: AF_INET or AF_INET6
 * @a: the peer's address
 * @port: the peer's transport port
 *
 * A bucket of a hash seeded per socket: whoever picks the addresses and
 * ports of its packets cannot aim them at one bucket, so a lookup costs
 * about %SMARTT_MAX_PEERS >> %SMARTT_PEER_HASH_BITS comparisons at most.
 *
 * Return: the peer, or NULL.
 */
struct smartt_peer *smartt_peer_lookup(struct sock *sk, u16 family,
				       const union smartt_addr *a, u16 port)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_peer *p;

	hlist_for_each_entry(p, smartt_peer_bucket(ssk, family, a, port), hnode) {
		if (p->port != port || p->family != family)
			continue;
		if (family == AF_INET ? p->addr.v4 == a->v4 : ipv6_addr_equal(&p->addr.v6, &a->v6))
			return p;
	}
	return NULL;
}

static bool smartt_addr_eq(u16 family, const union smartt_addr *a,
			   const union smartt_addr *b)
{
	return family == AF_INET ? a->v4 == b->v4 : ipv6_addr_equal(&a->v6, &b->v6);
}

/* The host at an address (the peers' bucket of port 0), NULL if none. */
static struct smartt_host *smartt_host_lookup(struct smartt_sock *ssk, u16 family,
					      const union smartt_addr *a)
{
	struct hlist_head *b = smartt_peer_bucket(ssk, family, a, 0);
	struct smartt_host *h;

	hlist_for_each_entry(h, &ssk->host_hash[b - ssk->peer_hash], hnode)
		if (h->family == family && smartt_addr_eq(family, &h->addr, a))
			return h;
	return NULL;
}

/* The host of a new peer, made if needed: NULL without memory. */
static struct smartt_host *smartt_host_get(struct smartt_sock *ssk, u16 family,
					   const union smartt_addr *a, gfp_t gfp)
{
	struct smartt_host *h = smartt_host_lookup(ssk, family, a);

	if (h)
		return h;
	h = kzalloc(sizeof(*h), gfp);
	if (!h)
		return NULL;
	INIT_LIST_HEAD(&h->peers);
	h->family = family;
	h->addr = *a;
	hlist_add_head(&h->hnode, &ssk->host_hash[smartt_peer_bucket(ssk, family, a, 0) -
						  ssk->peer_hash]);
	return h;
}

/* A peer leaves its host, which is freed with its last peer. */
static void smartt_host_put(struct smartt_peer *p)
{
	struct smartt_host *h = p->host;

	list_del(&p->host_node);
	if (--h->npeers)
		return;
	hlist_del(&h->hnode);
	kfree(h);
}

/**
 * smartt_peer_charge() - a peer's reservations for messages in reassembly
 *	grew or shrank
 * @peer: the peer (its socket locked)
 * @bytes: by this many bytes (negative: shrank)
 *
 * Kept per peer and per host (smartt_rx_wait_expired() evicts the host
 * that holds the most).
 */
void smartt_peer_charge(struct smartt_peer *peer, s64 bytes)
{
	peer->rx_charge += bytes;
	peer->host->rx_charge += bytes;
}

/*
 * A new sequence space towards the peer: a new local PDC id (drawn when
 * the next packet goes, smartt_push()), SYN until the peer answers, and a
 * random initial PSN: with the random PDC ids, what an attacker who sees
 * no packet must guess to forge an ACK, a NACK or an error the PDC takes.
 */
static void smartt_peer_tx_init(struct smartt_peer *p)
{
	smartt_pdc_del(sock_net(p->sk), p, true);
	p->tx_est = false;
	p->tx_rpdcid = 0;
	uet_ack_track_init(&p->tx_rcvd);
	p->snd_una = get_random_u32();
	p->snd_nxt = p->snd_una;
	p->in_flight = 0;
	p->lost = 0;
	p->rto_at = 0;
	p->rto_ns = SMARTT_RTO_INIT_NS;
	p->rel.rec_end = 0;
	p->rel.probe_at = 0;
	p->rel.probe_sent = 0;
	if (p->win)
		memset(p->win, 0, SMARTT_WIN * sizeof(*p->win));
	smartt_crp_reset(p);
}

/**
 * smartt_peer_tx_alloc() - give a peer the state for sending to it
 * @sk: socket (locked)
 * @peer: the peer
 *
 * The PSN window, the CRP reservations and the path selector (26 KiB of
 * slab objects), made when a message is first queued to the peer: a peer
 * that only sends to us, or a packet that claims to be one, never costs
 * them.
 *
 * Context: process (GFP_KERNEL).
 * Return: 0 or -ENOBUFS.
 */
int smartt_peer_tx_alloc(struct sock *sk, struct smartt_peer *peer)
{
	if (!peer->tx_lpdcid && smartt_pdc_add(sock_net(sk), peer, true))
		return -ENOBUFS;
	if (peer->win)
		return 0;
	peer->win = kcalloc(SMARTT_WIN, sizeof(*peer->win), GFP_KERNEL_ACCOUNT);
	peer->crp = kcalloc(SMARTT_CRP_SEGS, sizeof(*peer->crp), GFP_KERNEL_ACCOUNT);
	if (!peer->win || !peer->crp || smartt_path_init(sk, peer, GFP_KERNEL_ACCOUNT)) {
		kfree(peer->win);
		kfree(peer->crp);
		peer->win = NULL;
		peer->crp = NULL;
		return -ENOBUFS;
	}
	return 0;
}

static void smartt_peer_free(struct sock *sk, struct smartt_peer *peer);

/*
 * At the peer limit: free the least recently active peer if it has no
 * message either way and has been idle for %SMARTT_EVICT_IDLE_NS (or its
 * reclaim time, if shorter).  The list is in order of activity, so the
 * first peer that is not idle long enough ends the search, and at most
 * %SMARTT_EVICT_SCAN idle ones with messages are passed over.
 */
static bool smartt_peer_evict(struct sock *sk)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	u64 now = ktime_get_ns();
	u64 idle = min_t(u64, smartt_idle_ns(ssk), SMARTT_EVICT_IDLE_NS);
	struct smartt_peer *p;
	unsigned int n = 0;

	list_for_each_entry(p, &ssk->peers, node) {
		if (now - p->last_active < idle || ++n > SMARTT_EVICT_SCAN)
			return false;
		if (list_empty(&p->tx_msgs) && list_empty(&p->rx_msgs)) {
			smartt_peer_free(sk, p);
			smartt_stat_inc(sock_net(sk), SMARTT_STAT_PEERS_EVICTED);
			return true;
		}
	}
	return false;
}

/**
 * smartt_peer_touch() - a peer is active: a message was queued to it or a
 *	valid packet came from it
 * @sk: socket (locked)
 * @peer: the peer
 * @now: current time, ns
 *
 * Keeps the socket's peer list in order of activity, the least recently
 * active first, for smartt_peer_evict() and smartt_peers_gc().
 */
void smartt_peer_touch(struct sock *sk, struct smartt_peer *peer, u64 now)
{
	peer->last_active = now;
	list_move_tail(&peer->node, &smartt_sk(sk)->peers);
	list_move_tail(&peer->host_node, &peer->host->peers);
}

/*
 * A host at its share of peers: its least recently active one makes room
 * if it has no message either way and has been idle long enough (as in
 * smartt_peer_evict()).
 */
static bool smartt_host_evict(struct sock *sk, struct smartt_host *h)
{
	u64 idle = min_t(u64, smartt_idle_ns(smartt_sk(sk)), SMARTT_EVICT_IDLE_NS);
	struct smartt_peer *p = list_first_entry(&h->peers, struct smartt_peer, host_node);

	if (ktime_get_ns() - p->last_active < idle ||
	    !list_empty(&p->tx_msgs) || !list_empty(&p->rx_msgs))
		return false;
	smartt_peer_free(sk, p);
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_PEERS_EVICTED);
	return true;
}

/* A new peer (smartt_peer_get()), its host made if needed. */
static struct smartt_peer *smartt_peer_new(struct sock *sk, u16 family,
					   const union smartt_addr *a, u16 port, gfp_t gfp)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	union smartt_addr src = {};
	struct smartt_peer *p;
	struct smartt_host *h;
	int err = -ENOBUFS;

	/* (an eviction may have freed the host) */
	h = smartt_host_get(ssk, family, a, gfp);
	if (!h)
		return ERR_PTR(-ENOBUFS);
	p = kzalloc(sizeof(*p), gfp);
	if (!p) {
		if (!h->npeers) {
			hlist_del(&h->hnode);
			kfree(h);
		}
		return ERR_PTR(-ENOBUFS);
	}
	p->sk = sk;
	p->host = h;
	list_add_tail(&p->host_node, &h->peers);
	h->npeers++;
	INIT_HLIST_NODE(&p->pdc_tx_node);
	INIT_HLIST_NODE(&p->pdc_rx_node);
	if (dst_cache_init(&p->dst_cache, gfp))
		goto fail;
	if (smartt_pdc_add(sock_net(sk), p, false)) {
		dst_cache_destroy(&p->dst_cache);
		goto fail;
	}
	p->family = family;
	p->addr = *a;
	p->port = port;
	p->last_active = ktime_get_ns();
	INIT_LIST_HEAD(&p->tx_msgs);
	INIT_LIST_HEAD(&p->rx_msgs);
	p->rx_ids = RB_ROOT;
	INIT_LIST_HEAD(&p->rx_done);
	p->rx_done_ids = RB_ROOT;
	timerqueue_init(&p->due);
	smartt_peer_tx_init(p);
	if (family == AF_INET)
		src.v4 = ssk->inet.inet_saddr;
	else
		src.v6 = sk->sk_v6_rcv_saddr;
	err = smartt_peer_route(sock_net(sk), p, &src);
	if (err) {
		smartt_pdc_del(sock_net(sk), p, false);
		dst_cache_destroy(&p->dst_cache);
		smartt_host_put(p);
		/* seen by a reader of the PDC table: freed after a grace period */
		kfree_rcu(p, rcu);
		return ERR_PTR(err);
	}
	smartt_cc_peer_init(ssk, p);
	list_add_tail(&p->node, &ssk->peers);
	hlist_add_head(&p->hnode, smartt_peer_bucket(ssk, family, a, port));
	ssk->npeers++;
	/* its idle time's end (smartt_peers_gc()) */
	smartt_peer_due(sk, p, p->last_active + smartt_idle_ns(ssk));
	return p;
fail:
	smartt_host_put(p);
	kfree(p);
	return ERR_PTR(err);
}

/**
 * smartt_peer_get() - find or create the state of a peer
 * @sk: socket (locked)
 * @family: AF_INET or AF_INET6
 * @a: the peer's address
 * @port: the peer's transport port
 * @gfp: allocation flags (GFP_ATOMIC in the receive path)
 *
 * A new peer has the state for receiving from it and for answering
 * (ACKs); smartt_peer_tx_alloc() adds what sending to it takes.
 *
 * At %SMARTT_MAX_PEERS, an idle peer makes room (smartt_peer_evict()).
 * The receive path (@gfp GFP_ATOMIC) makes peers up to
 * %SMARTT_RX_PEERS_MAX only, so that packets from others never take the
 * room sendmsg() needs for a new destination, and at most
 * %SMARTT_HOST_PEERS_MAX of one address (transport ports), its idle ones
 * making room, so that one host cannot take the table by changing ports.
 *
 * Return: the peer, or an ERR_PTR: -ENOBUFS at a limit with no peer to
 * evict (-EADDRINUSE: the address's share) or without memory, a routing
 * error when the peer cannot be reached.
 */
struct smartt_peer *smartt_peer_get(struct sock *sk, u16 family,
				    const union smartt_addr *a, u16 port, gfp_t gfp)
{
	bool rx = !gfpflags_allow_blocking(gfp);
	struct smartt_sock *ssk = smartt_sk(sk);
	struct mem_cgroup *old_memcg;
	struct smartt_peer *p;
	struct smartt_host *h;

	p = smartt_peer_lookup(sk, family, a, port);
	if (p)
		return p;
	h = smartt_host_lookup(ssk, family, a);
	if (rx && h && h->npeers >= SMARTT_HOST_PEERS_MAX && !smartt_host_evict(sk, h))
		return ERR_PTR(-EADDRINUSE);
	if (ssk->npeers >= (rx ? SMARTT_RX_PEERS_MAX : SMARTT_MAX_PEERS) &&
	    !smartt_peer_evict(sk))
		return ERR_PTR(-ENOBUFS);
	/*
	 * What the peer holds is charged to the socket's memory cgroup (its
	 * creator's, as its receive memory is), from softirq too.
	 */
	old_memcg = set_active_memcg(sk->sk_memcg);
	p = smartt_peer_new(sk, family, a, port, gfp | __GFP_ACCOUNT);
	set_active_memcg(old_memcg);
	return p;
}

/* A completion was read (or purged with the socket): its room is back. */
static void smartt_compl_free(struct sk_buff *skb)
{
	struct sock *sk = skb->sk;

	atomic_sub(skb->truesize, &smartt_sk(sk)->compl_queued);
	smartt_write_space(sk);
}

/*
 * Queue a completion on the error queue.  Its memory counts against the
 * send buffer until it is read, not against the receive buffer as
 * sock_queue_err_skb() would: so a sender that reads its completions late
 * is slowed down (sendmsg() waits for room) instead of losing them.
 */
static void smartt_compl_queue(struct sock *sk, struct sk_buff *skb)
{
	skb->sk = sk;
	skb->destructor = smartt_compl_free;
	atomic_add(skb->truesize, &smartt_sk(sk)->compl_queued);
	skb_queue_tail(&sk->sk_error_queue, skb);
	if (!sock_flag(sk, SOCK_DEAD))
		sk_error_report(sk);
}

/* A message is finished: success (@status 0) or failure (-errno). */
static void smartt_msg_done(struct sock *sk, struct smartt_tx_msg *m, int status)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct net *net = sock_net(sk);

	if (status)
		smartt_stat_inc(net, SMARTT_STAT_MSGS_FAILED);
	else
		smartt_stat_inc(net, SMARTT_STAT_MSGS_SENT);
	if (m->has_cookie && !ssk->closing) {
		struct smartt_completion *c;
		struct sk_buff *skb;

		BUILD_BUG_ON(sizeof(*c) > sizeof(skb->cb));
		skb = alloc_skb(0, GFP_ATOMIC);
		if (skb) {
			c = (struct smartt_completion *)skb->cb;
			memset(c, 0, sizeof(*c));
			c->cookie = m->cookie;
			c->msg_len = m->len;
			c->status = status;
			c->fct_ns = ktime_get_ns() - m->start_ns;
			smartt_compl_queue(sk, skb);
		}
		smartt_stat_inc(net, skb ? SMARTT_STAT_COMPLETIONS :
				SMARTT_STAT_COMPLETIONS_DROPPED);
	} else if (status && !ssk->closing) {
		WRITE_ONCE(sk->sk_err, -status);
		sk_error_report(sk);
	}
	list_del(&m->node);
	WRITE_ONCE(ssk->tx_queued, ssk->tx_queued - smartt_msg_charge(m));
	kvfree(m->data);
	kfree(m);
}

/**
 * smartt_msg_acked() - a segment of a message was acknowledged
 * @m: the message
 *
 * Return: true when it was the last: the message waits for its receiver's
 * SES response (ses.c), from now on.
 */
bool smartt_msg_acked(struct smartt_tx_msg *m)
{
	if (++m->acked < m->nsegs)
		return false;
	if (!m->wait_ns)
		m->wait_ns = ktime_get_ns();
	return true;
}

/**
 * smartt_peer_fail() - fail every message to a peer, restart its sequence
 * @sk: socket (locked)
 * @peer: the peer
 * @err: negative errno reported for each message
 *
 * The receive half (what the peer sends us) is kept: it holds the
 * duplicate suppression of the peer's sequence space.
 */
void smartt_peer_fail(struct sock *sk, struct smartt_peer *peer, int err)
{
	struct smartt_tx_msg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &peer->tx_msgs, node)
		smartt_msg_done(sk, m, err);
	smartt_peer_tx_init(peer);
	smartt_cc_peer_init(smartt_sk(sk), peer);
	smartt_write_space(sk);
}

/**
 * smartt_snd_una_advance() - move snd_una past the slots done with
 * @peer: the peer (its socket locked)
 *
 * Past every slot from snd_una on that is free: acknowledged, or taken
 * out of the window with its failed message.
 */
void smartt_snd_una_advance(struct smartt_peer *peer)
{
	while (peer->snd_una < peer->snd_nxt &&
	       peer->win[peer->snd_una % SMARTT_WIN].state == SMARTT_SEG_FREE)
		peer->snd_una++;
}

/**
 * smartt_tx_msg_find() - a message being sent, by its SES message id
 * @peer: the peer (its socket locked)
 * @id: the message id (its number's low 16 bits: at most
 *	%SMARTT_SES_MSG_MAX_MSGS messages are unfinished, the id is unique)
 *
 * Return: the message, or NULL.
 */
struct smartt_tx_msg *smartt_tx_msg_find(struct smartt_peer *peer, u16 id)
{
	struct smartt_tx_msg *m;

	list_for_each_entry(m, &peer->tx_msgs, node)
		if ((u16)m->id == id)
			return m;
	return NULL;
}

/*
 * A message leaves the window: its segments' slots are freed (snd_una
 * passes them, and the receiver learns it from the next CLEAR_PSN), it is
 * reported with @status, and the peer's window is refilled.  O(%SMARTT_WIN).
 */
static void smartt_msg_finish(struct sock *sk, struct smartt_peer *peer,
			      struct smartt_tx_msg *m, int status)
{
	struct smartt_txseg *s;
	u64 psn;

	for (psn = peer->snd_una; psn < peer->snd_nxt; psn++) {
		s = &peer->win[psn % SMARTT_WIN];
		if (s->psn != psn || s->msg != m)
			continue;
		if (s->state == SMARTT_SEG_INFLIGHT)
			peer->in_flight -= s->len;
		else if (s->state == SMARTT_SEG_LOST)
			peer->lost--;
		s->state = SMARTT_SEG_FREE;
		s->msg = NULL;
	}
	smartt_snd_una_advance(peer);
	if (status)
		smartt_crp_msg_gone(peer, m->id);
	smartt_msg_done(sk, m, status);
	if (list_empty(&peer->tx_msgs))
		peer->rto_at = 0;
	else
		smartt_push(sk, peer);
	smartt_write_space(sk);
}

/**
 * smartt_msg_complete() - the receiver delivered a message
 * @sk: socket (locked)
 * @peer: the receiver
 * @m: the message, every segment sent
 *
 * Its SES response said so (ses.c): the message succeeds, whatever of it
 * is still unacknowledged here (the ACKs that would say so were lost).
 */
void smartt_msg_complete(struct sock *sk, struct smartt_peer *peer, struct smartt_tx_msg *m)
{
	smartt_msg_finish(sk, peer, m, 0);
}

/**
 * smartt_msg_fail() - fail one message to a peer, the others going on
 * @sk: socket (locked)
 * @peer: the peer
 * @id: the message's SES message id
 * @err: negative errno reported for it
 *
 * For an error the receiver gives about one message (too large, expired,
 * evicted), or a message whose response never came.  Its segments leave
 * the window as if acknowledged, without counting as delivered: snd_una
 * passes them, and the receiver skips the hole when the next DATA tells it
 * its CLEAR_PSN (snd_una).  O(%SMARTT_WIN).
 *
 * Return: false if no message @id is being sent (it completed, or failed
 * already).
 */
bool smartt_msg_fail(struct sock *sk, struct smartt_peer *peer, u16 id, int err)
{
	struct smartt_tx_msg *m = smartt_tx_msg_find(peer, id);

	if (!m)
		return false;
	smartt_msg_finish(sk, peer, m, err);
	return true;
}

/**
 * smartt_peer_restart() - the receiver knows no PDC of ours: a new one
 * @sk: socket (locked)
 * @peer: the peer
 *
 * Its state is gone (its socket restarted, or it reclaimed the peer): a
 * message of which a segment was sent may or may not have been delivered,
 * and fails with ECONNRESET; the messages not begun go on in a new sequence
 * space, which starts with SYN.
 */
void smartt_peer_restart(struct sock *sk, struct smartt_peer *peer)
{
	struct smartt_tx_msg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &peer->tx_msgs, node)
		if (m->next_seg)
			smartt_msg_done(sk, m, -ECONNRESET);
	smartt_peer_tx_init(peer);
	smartt_cc_peer_init(smartt_sk(sk), peer);
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_TX_PDC_RESTART);
	smartt_push(sk, peer);
	smartt_write_space(sk);
}

static void smartt_peer_free(struct sock *sk, struct smartt_peer *peer)
{
	struct smartt_rx_msg *r, *rtmp;
	struct smartt_tx_msg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &peer->tx_msgs, node)
		smartt_msg_done(sk, m, -ECONNRESET);
	list_for_each_entry_safe(r, rtmp, &peer->rx_msgs, node)
		smartt_rx_msg_free(sk, peer, r);
	smartt_rx_done_purge(peer);
	dst_cache_destroy(&peer->dst_cache);
	smartt_path_free(peer);
	smartt_peer_due_unlink(sk, peer);
	list_del(&peer->node);
	hlist_del(&peer->hnode);
	smartt_host_put(peer);
	smartt_sk(sk)->npeers--;
	smartt_pdc_del(sock_net(sk), peer, true);
	smartt_pdc_del(sock_net(sk), peer, false);
	kfree(peer->win);
	kfree(peer->crp);
	/* a reader of the PDC table may still look at it */
	kfree_rcu(peer, rcu);
}

/**
 * smartt_idle_ns() - how long a peer may stay idle before it is reclaimed
 * @ssk: socket
 *
 * %SMARTT_IDLE_TIMEOUTS times the socket's timeout, at least
 * %SMARTT_IDLE_MIN_NS: far longer than any packet lives in a fabric, so
 * nothing of the peer's sequence space can still arrive.
 *
 * Return: nanoseconds.
 */
u64 smartt_idle_ns(const struct smartt_sock *ssk)
{
	return max_t(u64, ssk->timeout_ns * SMARTT_IDLE_TIMEOUTS, SMARTT_IDLE_MIN_NS);
}

/**
 * smartt_peers_gc() - reclaim idle peers
 * @sk: socket (locked)
 * @now: current time, ns
 *
 * A peer with no message to send and none half reassembled that has been
 * idle for smartt_idle_ns() is freed.  If it comes back, new state starts
 * where its packets say (their CLEAR_PSN, or a SYN's start PSN): every message
 * it had started was delivered whole, so nothing can be lost.  A half
 * reassembled message keeps its peer (its sender may only be slow or cut
 * off for a while) until the message expires (smartt_rx_expire()) or
 * its sender restarts (a new sender PDC).
 */
void smartt_peers_gc(struct sock *sk, u64 now)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_peer *p, *tmp;
	u64 idle = smartt_idle_ns(ssk);

	list_for_each_entry_safe(p, tmp, &ssk->peers, node) {
		/* the list is in order of activity: the rest are newer */
		if (now - p->last_active < idle)
			break;
		if (list_empty(&p->tx_msgs) && list_empty(&p->rx_msgs))
			smartt_peer_free(sk, p);
	}
}

static int smartt_cmsg_cookie(struct msghdr *msg, u64 *cookie, bool *has)
{
	struct cmsghdr *cmsg;

	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg))
			return -EINVAL;
		if (cmsg->cmsg_level != SOL_SMARTT ||
		    cmsg->cmsg_type != SMARTT_CMSG_COOKIE ||
		    cmsg->cmsg_len != CMSG_LEN(sizeof(u64)))
			return -EINVAL;
		memcpy(cookie, CMSG_DATA(cmsg), sizeof(u64));
		*has = true;
	}
	return 0;
}

static int smartt_wait_room(struct sock *sk, u64 len, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	while (!smartt_tx_room(sk, len)) {
		if (sk->sk_err) {
			err = sock_error(sk);
			break;
		}
		if (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN) {
			err = -EPIPE;
			break;
		}
		if (!*timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(*timeo);
			break;
		}
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		sk_wait_event(sk, timeo, smartt_tx_room(sk, len) || sk->sk_err ||
			      smartt_sk(sk)->closing ||
			      (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN), &wait);
		if (smartt_sk(sk)->closing) {
			err = -EPIPE;
			break;
		}
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

/* The destination connect() set: -EDESTADDRREQ if none.  Socket locked. */
static int smartt_connected_dst(struct sock *sk, union smartt_addr *a, u16 *port)
{
	if (sk->sk_state != TCP_ESTABLISHED)
		return -EDESTADDRREQ;
	if (sk->sk_family == AF_INET)
		a->v4 = inet_sk(sk)->inet_daddr;
	else
		a->v6 = sk->sk_v6_daddr;
	*port = ntohs(inet_sk(sk)->inet_dport);
	return 0;
}

static int smartt_sendmsg(struct sock *sk, struct msghdr *msg, size_t len)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_tx_msg *m;
	struct smartt_peer *peer;
	union smartt_addr a;
	bool has_cookie = false;
	u64 cookie = 0;
	long timeo;
	u16 port;
	int err;

	/* MSG_CMSG_COMPAT: the socket layer converted a compat msg_control. */
	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR | MSG_CMSG_COMPAT))
		return -EOPNOTSUPP;
	if (msg->msg_name) {
		err = smartt_parse_addr(sk, msg->msg_name, msg->msg_namelen, &a, &port,
					false);
		if (err)
			return err;
	}
	if (msg->msg_controllen) {
		err = smartt_cmsg_cookie(msg, &cookie, &has_cookie);
		if (err)
			return err;
	}
	if (len > READ_ONCE(ssk->msg_max))
		return -EMSGSIZE;
	/*
	 * Without room a non-blocking send fails before copying anything
	 * (unless an error or a shutdown is to be reported: below).
	 */
	if ((msg->msg_flags & MSG_DONTWAIT) && !READ_ONCE(sk->sk_err) &&
	    !(READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN) &&
	    (msg->msg_name || READ_ONCE(sk->sk_state) == TCP_ESTABLISHED) &&
	    !smartt_tx_room(sk, len))
		return -EAGAIN;

	/*
	 * The copy is made before the socket is locked, so that the peers'
	 * packets are not held in the backlog while a large message is
	 * copied.  It is charged to the sender's memory cgroup.
	 */
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOBUFS;
	m->data = kvmalloc(max_t(size_t, len, 1), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!m->data) {
		kfree(m);
		return -ENOBUFS;
	}
	if (len && !copy_from_iter_full(m->data, len, &msg->msg_iter)) {
		err = -EFAULT;
		goto free;
	}

	lock_sock(sk);
	err = sock_error(sk);
	if (err)
		goto out;
	if (ssk->closing || (sk->sk_shutdown & SEND_SHUTDOWN)) {
		err = -EPIPE;
		goto out;
	}
	if (!msg->msg_name) {
		/* No address: the one connect() set. */
		err = smartt_connected_dst(sk, &a, &port);
		if (err)
			goto out;
	}
	if (len > ssk->msg_max) {
		err = -EMSGSIZE;
		goto out;
	}
	if (!ssk->port) {
		err = smartt_hash_port(sk, 0);
		if (err)
			goto out;
	}
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	err = smartt_wait_room(sk, len, &timeo);
	if (err)
		goto out;

	peer = smartt_peer_get(sk, sk->sk_family, &a, port, GFP_KERNEL);
	if (IS_ERR(peer)) {
		err = PTR_ERR(peer);
		if (err != -ENOBUFS)
			smartt_stat_inc(sock_net(sk), SMARTT_STAT_ERR_NOROUTE);
		goto out;
	}
	err = smartt_peer_tx_alloc(sk, peer);
	if (err)
		goto out;
	m->len = len;
	m->nsegs = len ? DIV_ROUND_UP_ULL(len, peer->mss) : 1;
	m->id = peer->next_msg_id++;
	m->cookie = cookie;
	m->has_cookie = has_cookie;
	m->start_ns = ktime_get_ns();
	if (list_empty(&peer->tx_msgs)) {
		peer->last_progress = m->start_ns;
		smartt_peer_due(sk, peer, peer->last_progress + ssk->timeout_ns);
	}
	smartt_peer_touch(sk, peer, m->start_ns);
	list_add_tail(&m->node, &peer->tx_msgs);
	WRITE_ONCE(ssk->tx_queued, ssk->tx_queued + smartt_msg_charge(m));
	smartt_push(sk, peer);
	release_sock(sk);
	return len;
out:
	release_sock(sk);
free:
	kvfree(m->data);
	kfree(m);
	return err;
}

static int smartt_recv_error(struct sock *sk, struct msghdr *msg)
{
	struct smartt_completion c;
	struct sk_buff *skb;
	int err;

	skb = skb_dequeue(&sk->sk_error_queue);
	if (!skb)
		return -EAGAIN;
	memcpy(&c, skb->cb, sizeof(c));
	err = put_cmsg(msg, SOL_SMARTT, SMARTT_CMSG_COMPLETION, sizeof(c), &c);
	if (err) {
		skb_queue_head(&sk->sk_error_queue, skb);
		return err;
	}
	msg->msg_flags |= MSG_ERRQUEUE;
	consume_skb(skb);
	return 0;
}

/*
 * Free a received message.  Its charge goes back to the socket's forward
 * allocation, which the receive path changes under the socket lock: so
 * does this (the destructor runs there, the memory is freed after).
 */
static void smartt_free_datagram(struct sock *sk, struct sk_buff *skb)
{
	bool slow;

	if (!skb_unref(skb))
		return;
	slow = lock_sock_fast(sk);
	skb_orphan(skb);
	unlock_sock_fast(sk, slow);
	consume_skb(skb);
}

static int smartt_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
			  int flags, int *addr_len)
{
	struct smartt_skb_cb *cb;
	struct sk_buff *skb;
	size_t copied;
	int err;

	if (flags & MSG_ERRQUEUE)
		return smartt_recv_error(sk, msg);
	if (flags & ~(MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC | MSG_WAITALL | MSG_CMSG_COMPAT |
		      MSG_CMSG_CLOEXEC))
		return -EOPNOTSUPP;
	skb = skb_recv_datagram(sk, flags, &err);
	if (!skb)
		return err;
	copied = skb->len;
	if (copied > len) {
		copied = len;
		msg->msg_flags |= MSG_TRUNC;
	}
	err = skb_copy_datagram_msg(skb, 0, msg, copied);
	if (err)
		goto out;
	cb = SMARTT_SKB_CB(skb);
	if (msg->msg_name) {
		if (sk->sk_family == AF_INET) {
			DECLARE_SOCKADDR(struct sockaddr_in *, sin, msg->msg_name);

			memset(sin, 0, sizeof(*sin));
			sin->sin_family = AF_INET;
			sin->sin_port = htons(cb->sport);
			sin->sin_addr.s_addr = cb->saddr.v4;
			*addr_len = sizeof(*sin);
		} else {
			DECLARE_SOCKADDR(struct sockaddr_in6 *, sin6, msg->msg_name);

			memset(sin6, 0, sizeof(*sin6));
			sin6->sin6_family = AF_INET6;
			sin6->sin6_port = htons(cb->sport);
			sin6->sin6_addr = cb->saddr.v6;
			*addr_len = sizeof(*sin6);
		}
	}
	err = (flags & MSG_TRUNC) ? skb->len : copied;
out:
	smartt_free_datagram(sk, skb);
	return err;
}

static int smartt_setsockopt(struct sock *sk, int level, int optname,
			     sockptr_t optval, unsigned int optlen)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_peer *p;
	u32 val;
	int err = 0;

	if (level != SOL_SMARTT)
		return -ENOPROTOOPT;
	if (optname == SMARTT_CC)
		return smartt_cc_set(sk, optval, optlen);
	if (optname == SMARTT_RELIABILITY)
		return smartt_rel_set(sk, optval, optlen);
	if (optname == SMARTT_LB)
		return smartt_ctl_set_lb(sk, optval, optlen);
	if (optlen < sizeof(val))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;
	lock_sock(sk);
	switch (optname) {
	case SMARTT_MSG_MAX:
		if (!val || val > SMARTT_MSG_MAX_LIMIT)
			err = -EINVAL;
		else
			ssk->msg_max = val;
		break;
	case SMARTT_TIMEOUT_MS:
		if (!val || val > SMARTT_TIMEOUT_MS_MAX) {
			err = -EINVAL;
		} else {
			ssk->timeout_ns = (u64)val * NSEC_PER_MSEC;
			/* every peer's deadlines moved */
			smartt_peers_due_reset(sk);
		}
		break;
	case SMARTT_WINDOW:
		if (val < SMARTT_SEG_MIN || val > SMARTT_MSG_MAX_DEFAULT) {
			err = -EINVAL;
			break;
		}
		ssk->window = val;
		if (ssk->cc_algo != SMARTT_CCA_NONE)
			break;
		list_for_each_entry(p, &ssk->peers, node) {
			p->cwnd = val;
			smartt_push(sk, p);
		}
		break;
	case SMARTT_ACK_BYTES:
		if (val > SMARTT_ACK_BYTES_MAX)
			err = -EINVAL;
		else
			WRITE_ONCE(ssk->ack_bytes, val);
		break;
	default:
		err = -ENOPROTOOPT;
	}
	release_sock(sk);
	return err;
}

static u32 smartt_list_count(const struct list_head *h)
{
	const struct list_head *pos;
	u32 n = 0;

	list_for_each(pos, h)
		n++;
	return n;
}

static void smartt_peer_info(struct smartt_peer *p, struct smartt_peer_info *pi)
{
	pi->srtt_us = div_u64(p->srtt_ns, NSEC_PER_USEC);
	pi->rttvar_us = div_u64(p->rttvar_ns, NSEC_PER_USEC);
	pi->rto_us = div_u64(p->rto_ns, NSEC_PER_USEC);
	pi->cwnd = p->cwnd;
	pi->in_flight = p->in_flight;
	pi->mss = p->mss;
	pi->tx_msgs = smartt_list_count(&p->tx_msgs);
	pi->rx_msgs = smartt_list_count(&p->rx_msgs);
	pi->snd_una = p->snd_una;
	pi->snd_nxt = p->snd_nxt;
	pi->rcv_nxt = smartt_rx_psn(p);
	pi->retransmits = p->retransmits;
	pi->rtos = p->rtos;
}

static int smartt_getsockopt(struct sock *sk, int level, int optname,
			     char __user *optval, int __user *optlen)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_peer_info pi;
	struct smartt_peer *p;
	union smartt_addr a;
	int len, err = 0;
	u32 val;
	u16 port;

	if (level != SOL_SMARTT)
		return -ENOPROTOOPT;
	if (optname == SMARTT_LB)
		return smartt_ctl_get_lb(sk, optval, optlen);
	if (optname == SMARTT_PATH_INFO)
		return smartt_ctl_get_info(sk, optval, optlen);
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	switch (optname) {
	case SMARTT_CC:
	case SMARTT_RELIABILITY: {
		const char *name = optname == SMARTT_CC ? smartt_cc_name(ssk) :
						     smartt_rel_name(ssk);

		len = min_t(int, len, strlen(name) + 1);
		if (put_user(len, optlen) || copy_to_user(optval, name, len))
			return -EFAULT;
		return 0;
	}
	case SMARTT_PEER_INFO:
		if (len < (int)sizeof(pi))
			return -EINVAL;
		memset(&pi, 0, sizeof(pi));
		if (copy_from_user(pi.addr, optval, sizeof(pi.addr)))
			return -EFAULT;
		err = smartt_parse_addr(sk, pi.addr, sizeof(pi.addr), &a, &port, false);
		if (err)
			return err;
		lock_sock(sk);
		p = smartt_peer_lookup(sk, sk->sk_family, &a, port);
		if (p)
			smartt_peer_info(p, &pi);
		release_sock(sk);
		if (!p)
			return -ENOENT;
		len = sizeof(pi);
		if (put_user(len, optlen) || copy_to_user(optval, &pi, len))
			return -EFAULT;
		return 0;
	case SMARTT_MSG_MAX:
		val = READ_ONCE(ssk->msg_max);
		break;
	case SMARTT_TIMEOUT_MS:
		val = div_u64(READ_ONCE(ssk->timeout_ns), NSEC_PER_MSEC);
		break;
	case SMARTT_WINDOW:
		val = READ_ONCE(ssk->window);
		break;
	case SMARTT_ACK_BYTES:
		val = READ_ONCE(ssk->ack_bytes);
		break;
	default:
		return -ENOPROTOOPT;
	}
	if (len < (int)sizeof(val))
		return -EINVAL;
	len = sizeof(val);
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}

static int smartt_init_sock(struct sock *sk)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	unsigned int i;
	int err;

	INIT_LIST_HEAD(&ssk->peers);
	for (i = 0; i < ARRAY_SIZE(ssk->peer_hash); i++) {
		INIT_HLIST_HEAD(&ssk->peer_hash[i]);
		INIT_HLIST_HEAD(&ssk->host_hash[i]);
	}
	ssk->peer_seed = get_random_u32();
	INIT_HLIST_NODE(&ssk->bind_node);
	ssk->msg_max = SMARTT_MSG_MAX_DEFAULT;
	ssk->timeout_ns = (u64)SMARTT_TIMEOUT_MS_DEFAULT * NSEC_PER_MSEC;
	ssk->cc = SMARTT_CC_NONE;
	ssk->cc_algo = SMARTT_CCA_NONE;
	ssk->rel = SMARTT_REL_AUTO;
	ssk->ack_bytes = SMARTT_ACK_BYTES_DEFAULT;
	smartt_path_sock_init(sk);
	timerqueue_init_head(&ssk->due);
	timer_setup(&ssk->timer, smartt_timer_fn, 0);
	/* The port table is read under RCU. */
	sock_set_flag(sk, SOCK_RCU_FREE);
	/* net.smartt.transport_cc; the sysctl accepted only valid names */
	err = smartt_cc_set_default(sk);
	if (err)
		return err;
	/* On failure inet_create() releases the socket without close(). */
	err = smartt_udp_get(sock_net(sk));
	if (err)
		smartt_cc_release(ssk);
	return err;
}

static void smartt_close(struct sock *sk, long timeout)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_peer *p, *tmp;

	lock_sock(sk);
	ssk->closing = true;
	smartt_unhash(sk);
	list_for_each_entry_safe(p, tmp, &ssk->peers, node)
		smartt_peer_free(sk, p);
	smartt_cc_release(ssk);
	release_sock(sk);
	/* The timer sees ->closing and never re-arms. */
	sk_stop_timer_sync(sk, &ssk->timer);
	smartt_udp_put(sock_net(sk));
	sk_common_release(sk);
}

/**
 * smartt_backlog_rcv() - a packet queued while the socket was owned
 * @sk: socket (owned by the caller)
 * @skb: packet, see smartt_rcv()
 *
 * Return: 0 (the packet is consumed).
 */
int smartt_backlog_rcv(struct sock *sk, struct sk_buff *skb)
{
	smartt_rcv(sk, skb);
	return 0;
}

static __poll_t smartt_poll(struct file *file, struct socket *sock, poll_table *wait)
{
	__poll_t mask = datagram_poll(file, sock, wait);

	if (!smartt_tx_room(sock->sk, 0)) {
		mask &= ~(EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND);
		set_bit(SOCK_NOSPACE, &sock->flags);
	}
	return mask;
}

static int smartt_ops_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	return smartt_bind(sock->sk, uaddr, len);
}

/*
 * connect(): the default destination of send() and write() (and of
 * getpeername()); AF_UNSPEC forgets it.  Binds a port if there is none.
 * Unlike UDP, messages from other peers are still received: the transport
 * acknowledges a message before the application reads it, so a filter
 * there would lose acknowledged messages.  sendto() to other peers works,
 * as on a connected UDP socket.
 */
static int smartt_ops_connect(struct socket *sock, struct sockaddr *uaddr, int len,
			      int flags)
{
	struct sock *sk = sock->sk;
	struct inet_sock *inet = inet_sk(sk);
	union smartt_addr a;
	u16 port;
	int err;

	if (len >= (int)sizeof(uaddr->sa_family) && uaddr->sa_family == AF_UNSPEC) {
		lock_sock(sk);
		sk->sk_state = TCP_CLOSE;
		inet->inet_daddr = 0;
		inet->inet_dport = 0;
		if (sk->sk_family == AF_INET6)
			sk->sk_v6_daddr = in6addr_any;
		release_sock(sk);
		return 0;
	}
	err = smartt_parse_addr(sk, uaddr, len, &a, &port, false);
	if (err)
		return err;
	lock_sock(sk);
	if (!smartt_sk(sk)->port) {
		err = smartt_hash_port(sk, 0);
		if (err)
			goto out;
	}
	if (sk->sk_family == AF_INET)
		inet->inet_daddr = a.v4;
	else
		sk->sk_v6_daddr = a.v6;
	inet->inet_dport = htons(port);
	sk->sk_state = TCP_ESTABLISHED;
out:
	release_sock(sk);
	return err;
}

/*
 * shutdown(): SHUT_WR makes later sends fail with EPIPE (messages already
 * queued are still delivered); SHUT_RD makes recv() return 0 once the
 * queue is empty.  As UDP: ENOTCONN on an unconnected socket, the shutdown
 * applied all the same.
 */
static int smartt_ops_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	int err = 0;

	/* SHUT_RD 0 -> RCV_SHUTDOWN 1, SHUT_WR 1 -> SEND_SHUTDOWN 2, ... */
	how++;
	if ((how & ~SHUTDOWN_MASK) || !how)
		return -EINVAL;
	lock_sock(sk);
	if (sk->sk_state != TCP_ESTABLISHED)
		err = -ENOTCONN;
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | how);
	sk->sk_state_change(sk);
	release_sock(sk);
	return err;
}

static int smartt_ops_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	return smartt_sendmsg(sock->sk, msg, len);
}

static int smartt_ops_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
			      int flags)
{
	int addr_len = 0;
	int err;

	err = smartt_recvmsg(sock->sk, msg, len, flags, &addr_len);
	if (err >= 0)
		msg->msg_namelen = addr_len;
	return err;
}

struct proto smartt_prot = {
	.name = "SMARTT",
	.owner = THIS_MODULE,
	.close = smartt_close,
	.init = smartt_init_sock,
	.setsockopt = smartt_setsockopt,
	.getsockopt = smartt_getsockopt,
	.sendmsg = smartt_sendmsg,
	.recvmsg = smartt_recvmsg,
	.bind = smartt_bind,
	.backlog_rcv = smartt_backlog_rcv,
	.hash = smartt_hash,
	.unhash = smartt_unhash,
	.no_autobind = true,
	.memory_allocated = &smartt_memory_allocated,
	.per_cpu_fw_alloc = &smartt_memory_per_cpu_fw_alloc,
	.sysctl_mem = smartt_sysctl_mem,
	.sysctl_rmem = &smartt_sysctl_rmem_min,
	.obj_size = sizeof(struct smartt_sock),
};

struct proto smartt_prot6 = {
	.name = "SMARTTv6",
	.owner = THIS_MODULE,
	.close = smartt_close,
	.init = smartt_init_sock,
	.setsockopt = smartt_setsockopt,
	.getsockopt = smartt_getsockopt,
	.sendmsg = smartt_sendmsg,
	.recvmsg = smartt_recvmsg,
	.bind = smartt_bind,
	.backlog_rcv = smartt_backlog_rcv,
	.hash = smartt_hash,
	.unhash = smartt_unhash,
	.no_autobind = true,
	.memory_allocated = &smartt_memory_allocated,
	.per_cpu_fw_alloc = &smartt_memory_per_cpu_fw_alloc,
	.sysctl_mem = smartt_sysctl_mem,
	.sysctl_rmem = &smartt_sysctl_rmem_min,
	.obj_size = sizeof(struct smartt_sock),
#ifdef SMARTT_HAVE_IPV6_PINFO_OFFSET
	.ipv6_pinfo_offset = offsetof(struct smartt_sock, inet6),
#endif
};

static const struct proto_ops smartt_ops = {
	.family = PF_INET,
	.owner = THIS_MODULE,
	.release = inet_release,
	.bind = smartt_ops_bind,
	.connect = smartt_ops_connect,
	.socketpair = sock_no_socketpair,
	.accept = sock_no_accept,
	.getname = inet_getname,
	.poll = smartt_poll,
	.ioctl = inet_ioctl,
	.listen = sock_no_listen,
	.shutdown = smartt_ops_shutdown,
	.setsockopt = sock_common_setsockopt,
	.getsockopt = sock_common_getsockopt,
	.sendmsg = smartt_ops_sendmsg,
	.recvmsg = smartt_ops_recvmsg,
	.mmap = sock_no_mmap,
};

static const struct proto_ops smartt_ops6 = {
	.family = PF_INET6,
	.owner = THIS_MODULE,
	.release = inet6_release,
	.bind = smartt_ops_bind,
	.connect = smartt_ops_connect,
	.socketpair = sock_no_socketpair,
	.accept = sock_no_accept,
	.getname = inet6_getname,
	.poll = smartt_poll,
	.ioctl = inet6_ioctl,
	.listen = sock_no_listen,
	.shutdown = smartt_ops_shutdown,
	.setsockopt = sock_common_setsockopt,
	.getsockopt = sock_common_getsockopt,
	.sendmsg = smartt_ops_sendmsg,
	.recvmsg = smartt_ops_recvmsg,
	.mmap = sock_no_mmap,
};

static struct inet_protosw smartt_protosw = {
	.type = SOCK_DGRAM,
	.protocol = IPPROTO_SMARTT,
	.prot = &smartt_prot,
	.ops = &smartt_ops,
};

static struct inet_protosw smartt_protosw6 = {
	.type = SOCK_DGRAM,
	.protocol = IPPROTO_SMARTT,
	.prot = &smartt_prot6,
	.ops = &smartt_ops6,
};

/**
 * smartt_sock_register() - register the socket types
 *
 * Return: 0 or a negative errno (nothing stays registered).
 */
int smartt_sock_register(void)
{
	int err;

	/* inet6_sk_generic() before 6.7 finds ipv6_pinfo at the end. */
	BUILD_BUG_ON(offsetof(struct smartt_sock, inet6) + sizeof(struct ipv6_pinfo) !=
		     sizeof(struct smartt_sock));
	err = proto_register(&smartt_prot, 1);
	if (err)
		return err;
	err = proto_register(&smartt_prot6, 1);
	if (err)
		goto fail_prot;
	inet_register_protosw(&smartt_protosw);
	err = inet6_register_protosw(&smartt_protosw6);
	if (err)
		goto fail_sw;
	return 0;
fail_sw:
	inet_unregister_protosw(&smartt_protosw);
	proto_unregister(&smartt_prot6);
fail_prot:
	proto_unregister(&smartt_prot);
	return err;
}

/**
 * smartt_sock_unregister() - undo smartt_sock_register()
 */
void smartt_sock_unregister(void)
{
	inet6_unregister_protosw(&smartt_protosw6);
	inet_unregister_protosw(&smartt_protosw);
	proto_unregister(&smartt_prot6);
	proto_unregister(&smartt_prot);
}
