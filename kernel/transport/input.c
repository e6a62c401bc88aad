// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the receiving side.  The UDP encapsulation socket's
 * encap_rcv drops what was not sent to this host alone, validates every
 * header field before use and hands the packet to the socket bound to the
 * destination transport port (or to its backlog); DATA is deduplicated
 * by PSN, reassembled by offset and delivered as one skb per message; ACK,
 * NACK and error packets drive the sender.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>

#include "smartt.h"
#include "transport/transport.h"

/* Count and free a packet not used; returns 0 for the callers' returns. */
static int smartt_drop(struct net *net, struct sk_buff *skb, enum smartt_stat why,
		       bool malformed)
{
	if (malformed)
		smartt_stat_inc(net, SMARTT_STAT_MALFORMED);
	smartt_stat_inc(net, why);
	kfree_skb(skb);
	return 0;
}

static struct smartt_hdr *smartt_hdr_of(const struct sk_buff *skb)
{
	return (struct smartt_hdr *)(skb->data + sizeof(struct udphdr));
}

/* A peer's message being reassembled, by id: O(log n) per packet. */
static struct smartt_rx_msg *smartt_rx_msg_find(struct smartt_peer *peer, u64 id)
{
	struct rb_node *n = peer->rx_ids.rb_node;

	while (n) {
		struct smartt_rx_msg *m = rb_entry(n, struct smartt_rx_msg, idnode);

		if (id < m->id)
			n = n->rb_left;
		else if (id > m->id)
			n = n->rb_right;
		else
			return m;
	}
	return NULL;
}

/* The caller found no message @m->id (smartt_rx_msg_find()). */
static void smartt_rx_msg_link(struct smartt_peer *peer, struct smartt_rx_msg *m)
{
	struct rb_node **link = &peer->rx_ids.rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (m->id < rb_entry(parent, struct smartt_rx_msg, idnode)->id)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&m->idnode, parent, link);
	rb_insert_color(&m->idnode, &peer->rx_ids);
	list_add_tail(&m->node, &peer->rx_msgs);
}

/* Undo smartt_rx_msg_link(). */
static void smartt_rx_msg_unlink(struct smartt_peer *peer, struct smartt_rx_msg *m)
{
	list_del(&m->node);
	rb_erase(&m->idnode, &peer->rx_ids);
}

/**
 * smartt_rx_msg_free() - drop a message being reassembled
 * @sk: socket (locked)
 * @peer: its sender
 * @m: the message
 */
void smartt_rx_msg_free(struct sock *sk, struct smartt_peer *peer,
			struct smartt_rx_msg *m)
{
	struct rb_node *n;

	while ((n = rb_first(&m->segs))) {
		struct sk_buff *skb = rb_to_skb(n);

		rb_erase(n, &m->segs);
		skb->next = NULL;
		skb->prev = NULL;
		skb->dev = NULL;
		kfree_skb(skb);
	}
	kfree_skb(m->head);
	peer->rx_charge -= m->charge;
	smartt_sk(sk)->rx_reserved -= m->reserve;
	smartt_sk(sk)->rx_missing -= m->len - m->received;
	smartt_rx_msg_unlink(peer, m);
	kfree(m);
}

/**
 * smartt_rx_advance() - move rcv_nxt forward
 * @peer: the peer (its socket locked)
 * @to: to this PSN (forgetting the bitmap below), then over every PSN
 *	already received
 */
void smartt_rx_advance(struct smartt_peer *peer, u64 to)
{
	if (to - peer->rcv_nxt >= SMARTT_WIN) {
		bitmap_zero(peer->rx_bitmap, SMARTT_WIN);
		peer->rcv_nxt = to;
	}
	for (; peer->rcv_nxt < to; peer->rcv_nxt++)
		clear_bit(peer->rcv_nxt % SMARTT_WIN, peer->rx_bitmap);
	while (test_bit(peer->rcv_nxt % SMARTT_WIN, peer->rx_bitmap)) {
		clear_bit(peer->rcv_nxt % SMARTT_WIN, peer->rx_bitmap);
		peer->rcv_nxt++;
	}
}

/**
 * smartt_rx_reset() - a new epoch of the peer: it restarted its sequence space
 * @sk: socket (locked)
 * @peer: the peer
 * @epoch: its new epoch
 * @base: its snd_una: the receive window starts there
 */
void smartt_rx_reset(struct sock *sk, struct smartt_peer *peer, u32 epoch, u64 base)
{
	struct smartt_rx_msg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &peer->rx_msgs, node)
		smartt_rx_msg_free(sk, peer, m);
	peer->rx_epoch = epoch;
	peer->rcv_bytes = 0;
	smartt_rel_ack_sent(peer);	/* a pending ACK was of the old epoch */
	bitmap_zero(peer->rx_bitmap, SMARTT_WIN);
	peer->rcv_nxt = base;
}

/* Insert by offset; false if that offset is already there. */
static bool smartt_rx_insert(struct smartt_rx_msg *m, struct sk_buff *skb)
{
	struct rb_node **p = &m->segs.rb_node, *parent = NULL;
	u64 off = SMARTT_SKB_CB(skb)->offset;

	while (*p) {
		struct sk_buff *o = rb_to_skb(*p);

		parent = *p;
		if (off < SMARTT_SKB_CB(o)->offset)
			p = &parent->rb_left;
		else if (off > SMARTT_SKB_CB(o)->offset)
			p = &parent->rb_right;
		else
			return false;
	}
	rb_link_node(&skb->rbnode, parent, p);
	rb_insert_color(&skb->rbnode, &m->segs);
	return true;
}

/* Every byte is there: chain the segments in order under the head skb
 * and queue it on the socket.
 */
static void smartt_rx_deliver(struct sock *sk, struct smartt_peer *peer,
			      struct smartt_rx_msg *m)
{
	struct sk_buff *head = m->head, *skb, **tail;
	struct smartt_skb_cb *cb = SMARTT_SKB_CB(head);
	struct rb_node *n;

	/*
	 * The segments' charges move to the head, which alone keeps an
	 * owner: freeing the message (recvmsg(), under the socket lock)
	 * uncharges it all at once, as for any frag_list.
	 */
	tail = &skb_shinfo(head)->frag_list;
	while ((n = rb_first(&m->segs))) {
		skb = rb_to_skb(n);
		rb_erase(n, &m->segs);
		skb->next = NULL;
		skb->prev = NULL;
		skb->dev = NULL;
		head->truesize += skb->truesize;
		skb->destructor = NULL;
		skb->sk = NULL;
		*tail = skb;
		tail = &skb->next;
	}
	head->len = m->len;
	head->data_len = m->len;
	peer->rx_charge -= m->charge;
	smartt_sk(sk)->rx_reserved -= m->reserve;
	memset(cb, 0, sizeof(*cb));
	cb->family = peer->family;
	cb->saddr = peer->addr;
	cb->sport = peer->port;
	m->head = NULL;
	smartt_rx_msg_unlink(peer, m);
	kfree(m);
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_MSGS_DELIVERED);
	if (sock_flag(sk, SOCK_DEAD)) {
		kfree_skb(head);
		return;
	}
	skb_queue_tail(&sk->sk_receive_queue, head);
	sk->sk_data_ready(sk);
}

/*
 * Whether a new message of @len bytes and reservation @need fits the
 * socket: its payload next to the receive memory and the payload still
 * missing of the messages being reassembled within SO_RCVBUF, and its
 * reservation next to the receive memory and the unused reservations
 * within %SMARTT_RX_CHARGE_RATIO times SO_RCVBUF (what segments cost on
 * top of their payload); or the socket holds nothing at all (a message
 * larger than the buffer is received alone).  And the protocol is below
 * memory pressure.
 */
static bool smartt_rx_admit(struct sock *sk, u64 len, u64 need)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	u64 rmem = atomic_read(&sk->sk_rmem_alloc);
	u64 rcvbuf = READ_ONCE(sk->sk_rcvbuf);

	if (!smartt_rx_mem_room(need))
		return false;
	if (!rmem && !ssk->rx_reserved && !ssk->rx_missing)
		return true;
	return rmem + ssk->rx_missing + len <= rcvbuf &&
	       rmem + ssk->rx_reserved + need <= SMARTT_RX_CHARGE_RATIO * rcvbuf;
}

/* A new message: its state, its head skb charged, its reservation made. */
static struct smartt_rx_msg *smartt_rx_msg_new(struct sock *sk, struct smartt_peer *peer,
					       u64 id, u64 len, u32 seg, u64 need,
					       u64 now)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_rx_msg *m;

	m = kzalloc(sizeof(*m), GFP_ATOMIC);
	if (!m)
		return NULL;
	m->head = alloc_skb(0, GFP_ATOMIC);
	/* The head carries the charge of the message's state too. */
	if (!m->head || !smartt_rx_charge(sk, m->head, sizeof(*m))) {
		kfree_skb(m->head);
		kfree(m);
		return NULL;
	}
	m->id = id;
	m->len = len;
	m->seg_size = seg;
	m->segs = RB_ROOT;
	m->charge = need;
	m->reserve = need - smartt_rx_head_charge();
	m->last_ns = now;
	smartt_rx_msg_link(peer, m);
	peer->rx_charge += need;
	ssk->rx_reserved += m->reserve;
	ssk->rx_missing += len;
	/* its expiry (smartt_rx_expire()) */
	smartt_peer_due(sk, peer, now + ssk->timeout_ns);
	return m;
}

/*
 * The skb a segment of @len payload bytes is kept in: @skb itself, pulled
 * to its payload, if it is charged no more than smartt_rx_seg_charge()
 * reserved for it; else a copy that is (its skb->cb copied).  NULL if no
 * memory.
 */
static struct sk_buff *smartt_rx_seg_skb(struct net *net, struct sk_buff *skb,
					 u32 hoff, u32 len)
{
	struct sk_buff *n;

	if (skb->truesize <= smartt_rx_seg_charge(len)) {
		__skb_pull(skb, hoff);
		skb_dst_drop(skb);
		/* skb->rbnode shares its words with next, prev and dev. */
		skb->dev = NULL;
		return skb;
	}
	n = alloc_skb(len, GFP_ATOMIC);
	if (!n)
		return NULL;
	if (skb_copy_bits(skb, hoff, skb_put(n, len), len)) {
		kfree_skb(n);
		return NULL;
	}
	memcpy(n->cb, skb->cb, sizeof(struct smartt_skb_cb));
	smartt_stat_inc(net, SMARTT_STAT_RX_COPIED);
	return n;
}

/*
 * The checks of a DATA packet that need no state: a malformed packet is
 * counted and dropped before any socket sees it.  Return: 0 or the reason.
 */
static enum smartt_stat smartt_data_valid(const struct sk_buff *skb)
{
	const struct smartt_hdr *h = smartt_hdr_of(skb);
	const struct smartt_data_ext *dx = (const void *)(h + 1);
	u32 hlen = h->hdr_words * 8;
	u32 paylen = skb->len - sizeof(struct udphdr) - hlen;
	u32 plen = ntohs(h->payload_len);
	u64 msg_len = be64_to_cpu(dx->msg_len);
	u64 off = be64_to_cpu(dx->offset);
	u32 seg = ntohl(dx->seg_size);
	u64 rem = off;

	if (!dx->x.epoch)
		return SMARTT_STAT_DROP_EPOCH;
	if ((ntohs(h->flags) & SMARTT_F_TRIMMED) ? paylen > plen : paylen != plen)
		return SMARTT_STAT_DROP_LEN;
	if (seg < SMARTT_SEG_MIN || seg > SMARTT_SEG_MAX || msg_len > SMARTT_MSG_MAX_LIMIT)
		return SMARTT_STAT_DROP_LEN;
	if (msg_len ? off >= msg_len : off)
		return SMARTT_STAT_DROP_OFFSET;
	if (do_div(rem, seg))
		return SMARTT_STAT_DROP_OFFSET;
	if (plen != min_t(u64, off + seg, msg_len) - off)
		return SMARTT_STAT_DROP_LEN;
	if (be64_to_cpu(h->psn) < be64_to_cpu(dx->snd_una))
		return SMARTT_STAT_DROP_WINDOW;
	return 0;
}

static int smartt_rcv_data(struct sock *sk, struct sk_buff *skb)
{
	struct smartt_skb_cb *cb = SMARTT_SKB_CB(skb);
	struct smartt_sock *ssk = smartt_sk(sk);
	const struct smartt_data_ext *dx;
	struct net *net = sock_net(sk);
	const struct smartt_hdr *h;
	struct smartt_peer *peer;
	u64 msg_len, off, psn, una, old_rcv_nxt, now;
	struct sk_buff *seg_skb;
	u32 hlen, plen, seg, epoch, rsv;
	struct smartt_rx_msg *m;
	bool trimmed;

	h = smartt_hdr_of(skb);
	dx = (const struct smartt_data_ext *)(h + 1);
	hlen = h->hdr_words * 8;
	plen = ntohs(h->payload_len);
	trimmed = ntohs(h->flags) & SMARTT_F_TRIMMED;
	msg_len = be64_to_cpu(dx->msg_len);
	off = be64_to_cpu(dx->offset);
	seg = ntohl(dx->seg_size);
	psn = be64_to_cpu(h->psn);
	una = be64_to_cpu(dx->snd_una);
	epoch = ntohl(dx->x.epoch);

	/* smartt_data_valid() checked the fields on their own. */
	if (msg_len > ssk->msg_max) {
		smartt_send_error(net, NULL, skb, dx, SMARTT_ERR_MSG_SIZE);
		return smartt_drop(net, skb, SMARTT_STAT_ERR_MSGSIZE, false);
	}

	peer = smartt_peer_get(sk, cb->family, &cb->saddr, cb->sport, GFP_ATOMIC);
	if (IS_ERR(peer))
		return smartt_drop(net, skb, SMARTT_STAT_DROP_PEERS, false);
	now = ktime_get_ns();
	smartt_peer_touch(sk, peer, now);
	if (epoch != peer->rx_epoch)
		smartt_rx_reset(sk, peer, epoch, una);
	else if (una > peer->rcv_nxt)
		smartt_rx_advance(peer, una);

	if (psn < peer->rcv_nxt ||
	    (psn - peer->rcv_nxt < SMARTT_WIN && test_bit(psn % SMARTT_WIN, peer->rx_bitmap))) {
		smartt_stat_inc(net, SMARTT_STAT_RX_DUP);
		smartt_send_ack(sk, peer, SMARTT_PKT_ACK, h, dx, cb->ce);
		kfree_skb(skb);
		return 0;
	}
	if (psn - peer->rcv_nxt >= SMARTT_WIN)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_WINDOW, false);
	if (trimmed) {
		smartt_stat_inc(net, SMARTT_STAT_RX_TRIMMED);
		smartt_send_ack(sk, peer, SMARTT_PKT_NACK, h, dx, cb->ce);
		kfree_skb(skb);
		return 0;
	}

	m = smartt_rx_msg_find(peer, be64_to_cpu(dx->msg_id));
	if (m && (m->len != msg_len || m->seg_size != seg))
		return smartt_drop(net, skb, SMARTT_STAT_DROP_LEN, true);
	if (!m) {
		u64 need = smartt_rx_msg_charge(msg_len, seg);

		/* Tiny segments would make the kernel hold far more than the message. */
		if (need > READ_ONCE(sk->sk_rcvbuf) &&
		    need > SMARTT_RX_CHARGE_RATIO * msg_len + smartt_rx_head_charge()) {
			smartt_send_error(net, NULL, skb, dx, SMARTT_ERR_MSG_SIZE);
			return smartt_drop(net, skb, SMARTT_STAT_DROP_SEG_CHARGE, false);
		}
		/* After an eviction, the buffer goes to the waiter it was for. */
		if (ssk->rx_grace_until && now < ssk->rx_grace_until &&
		    ssk->rx_grace_for != peer)
			return smartt_drop(net, skb, SMARTT_STAT_DROP_RMEM, false);
		if (!smartt_rx_admit(sk, msg_len, need)) {
			/*
			 * Others being reassembled hold the buffer: the wait
			 * is noted, unless the peer has a message of its own
			 * in reassembly (its next waits for it, as any sender's
			 * second message waits for its first).
			 */
			if (ssk->rx_missing && list_empty(&peer->rx_msgs) &&
			    !ssk->rx_wait_since) {
				ssk->rx_wait_since = now;
				ssk->rx_waiter = peer;
				smartt_timer_arm_at(sk, now + ssk->timeout_ns / 2);
			}
			return smartt_drop(net, skb, smartt_rx_mem_room(need) ?
					   SMARTT_STAT_DROP_RMEM : SMARTT_STAT_DROP_MEM, false);
		}
		m = smartt_rx_msg_new(sk, peer, be64_to_cpu(dx->msg_id), msg_len, seg,
				      need, now);
		if (!m)
			return smartt_drop(net, skb, SMARTT_STAT_DROP_NOMEM, false);
		ssk->rx_wait_since = 0;
		ssk->rx_grace_until = 0;
	}

	/*
	 * Keep the payload only, in an skb charged no more than its share
	 * of the reservation, and charged to the socket.
	 */
	cb->offset = off;
	rsv = smartt_rx_seg_charge(plen);
	seg_skb = smartt_rx_seg_skb(net, skb, sizeof(struct udphdr) + hlen, plen);
	if (!seg_skb)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_NOMEM, false);
	if (rsv > m->reserve || !smartt_rx_charge(sk, seg_skb, 0)) {
		if (seg_skb != skb)
			kfree_skb(seg_skb);
		/* Over the reservation: only an offset seen before gets there. */
		return smartt_drop(net, skb, rsv > m->reserve ? SMARTT_STAT_DROP_OFFSET :
				   SMARTT_STAT_DROP_MEM, rsv > m->reserve);
	}
	if (!smartt_rx_insert(m, seg_skb)) {
		if (seg_skb != skb)
			kfree_skb(seg_skb);
		return smartt_drop(net, skb, SMARTT_STAT_DROP_OFFSET, true);
	}
	m->reserve -= rsv;
	ssk->rx_reserved -= rsv;
	ssk->rx_missing -= plen;
	m->last_ns = now;
	list_move_tail(&m->node, &peer->rx_msgs);

	old_rcv_nxt = peer->rcv_nxt;
	set_bit(psn % SMARTT_WIN, peer->rx_bitmap);
	smartt_rx_advance(peer, peer->rcv_nxt);
	peer->rcv_bytes += plen;
	m->received += plen;
	smartt_stat_inc(net, SMARTT_STAT_RX_DATA);
	if (cb->ce)
		smartt_stat_inc(net, SMARTT_STAT_RX_CE);
	/* h and dx are still valid: in skb, kept (pulled) or freed below. */
	smartt_rel_data_ack(sk, peer, h, dx, cb->ce, plen, old_rcv_nxt);
	if (seg_skb != skb)
		consume_skb(skb);
	if (m->received == m->len)
		smartt_rx_deliver(sk, peer, m);
	return 0;
}

static struct smartt_peer *smartt_peer_of(struct sock *sk, const struct sk_buff *skb)
{
	const struct smartt_skb_cb *cb = SMARTT_SKB_CB(skb);

	return smartt_peer_lookup(sk, cb->family, &cb->saddr, cb->sport);
}

/*
 * The fabric RTT from NIC timestamps (Documentation/protocol.rst): the
 * sender-clock interval minus the receiver's turnaround.  0 when the ACK or
 * the acknowledged packet was not stamped.
 */
static u64 smartt_fabric_rtt(const struct smartt_hdr *h)
{
	u16 both = SMARTT_F_TX_TS | SMARTT_F_RX_TS;
	u64 ack_rx, ack_tx, echo_tx, echo_rx;

	if ((ntohs(h->flags) & both) != both)
		return 0;
	ack_rx = be64_to_cpu(h->rx_ts_ns);
	ack_tx = be64_to_cpu(h->tx_ts_ns);
	echo_tx = be64_to_cpu(h->echo_tx_ts_ns);
	echo_rx = be64_to_cpu(h->echo_rx_ts_ns);
	if (!echo_tx || !echo_rx || ack_rx < echo_tx || ack_tx < echo_rx ||
	    ack_rx - echo_tx < ack_tx - echo_rx)
		return 0;
	return (ack_rx - echo_tx) - (ack_tx - echo_rx);
}

static int smartt_rcv_ack(struct sock *sk, struct sk_buff *skb)
{
	const struct smartt_hdr *h = smartt_hdr_of(skb);
	const struct smartt_ack_ext *a = (const void *)(h + 1);
	struct net *net = sock_net(sk);
	u64 cum, psn, echo, highest = 0, now, acked = 0, rtt = 0, frtt;
	u32 nacked_len, rules = 0;
	struct smartt_cc_sample cs;
	struct smartt_peer *peer;
	bool progress;

	peer = smartt_peer_of(sk, skb);
	if (!peer)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_NO_PEER, false);
	/* Nothing was ever sent to it: no window to acknowledge. */
	if (!peer->win)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_ACK_UNSENT, true);
	if (ntohl(a->x.epoch) != peer->tx_epoch)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_EPOCH, true);
	cum = be64_to_cpu(a->cum_psn);
	psn = be64_to_cpu(h->psn);
	if (cum > peer->snd_nxt || psn >= peer->snd_nxt)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_ACK_UNSENT, true);
	smartt_stat_inc(net, h->type == SMARTT_PKT_NACK ? SMARTT_STAT_RX_NACKS :
			SMARTT_STAT_RX_ACKS);

	now = ktime_get_ns();
	smartt_peer_touch(sk, peer, now);
	echo = be64_to_cpu(a->echo_tx_time);
	if (echo && echo <= now) {
		rtt = now - echo;
		smartt_rtt_sample(peer, rtt);
	}

	progress = smartt_rel_acked(sk, peer, a, &acked, &highest);
	nacked_len = smartt_rel_losses(sk, peer, h->type == SMARTT_PKT_NACK ? psn : U64_MAX,
				       highest, now);
	if (nacked_len && (ntohs(h->flags) & SMARTT_F_CRP_SPEC_DROP))
		smartt_crp_spec_drop(sk, peer, psn);
	smartt_rel_on_ack(sk, peer, h, a, highest, rtt, progress, now);
	if (progress) {
		peer->last_progress = now;
		peer->rto_at = 0;
	}
	/* A probe's answer acknowledges no data of its own (STrack Alg. 2). */
	if ((acked || nacked_len) && h->type != SMARTT_PKT_PROBE_ACK) {
		/* The core wants the fabric's RTT; the host's when unstamped. */
		frtt = smartt_fabric_rtt(h);
		cs.now = now;
		cs.rtt = min_t(u64, frtt ? frtt : rtt, U32_MAX);
		cs.bytes = nacked_len ? nacked_len : min_t(u64, acked, U32_MAX);
		cs.in_flight = peer->in_flight;
		cs.ecn = !!(ntohs(h->flags) & SMARTT_F_ECN_ECHO);
		cs.nack = !!nacked_len;
		rules = smartt_cc_ack(sk, peer, &cs);
	}
	smartt_path_on_ack(sk, peer, h, ntohl(a->ack_entropy), rules, now);
	kfree_skb(skb);
	if (list_empty(&peer->tx_msgs))
		peer->rto_at = 0;
	else
		smartt_push(sk, peer);
	return 0;
}

static int smartt_rcv_ctrl(struct sock *sk, struct sk_buff *skb)
{
	const struct smartt_hdr *h = smartt_hdr_of(skb);
	const struct smartt_ctrl_ext *c = (const void *)(h + 1);
	struct net *net = sock_net(sk);
	struct smartt_peer *peer;
	u32 code = ntohl(c->code);
	enum smartt_stat why;
	int err;

	peer = smartt_peer_of(sk, skb);
	if (!peer)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_NO_PEER, false);
	if (ntohl(c->x.epoch) != peer->tx_epoch)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_EPOCH, true);
	switch (code) {
	case SMARTT_ERR_PORT_UNREACH:
		err = -ECONNREFUSED;
		why = SMARTT_STAT_ERR_CONNREFUSED;
		break;
	case SMARTT_ERR_MSG_SIZE:
		err = -EMSGSIZE;
		why = SMARTT_STAT_ERR_MSGSIZE;
		break;
	case SMARTT_ERR_EXPIRED:
		err = -ETIMEDOUT;
		why = SMARTT_STAT_ERR_TIMEDOUT;
		break;
	case SMARTT_ERR_NOBUFS:
		err = -ENOBUFS;
		why = SMARTT_STAT_ERR_NOBUFS;
		break;
	default:
		return smartt_drop(net, skb, SMARTT_STAT_DROP_TYPE, true);
	}
	/*
	 * The peer's socket is gone: every message fails, with a new epoch.
	 * The other errors are about one message: it alone fails, if it is
	 * still being sent.
	 */
	if (code == SMARTT_ERR_PORT_UNREACH) {
		if (!list_empty(&peer->tx_msgs))
			smartt_peer_fail(sk, peer, err);
	} else if (!smartt_msg_fail(sk, peer, be64_to_cpu(c->msg_id), err)) {
		return smartt_drop(net, skb, SMARTT_STAT_DROP_CTRL_STALE, false);
	}
	smartt_stat_inc(net, why);
	smartt_stat_inc(net, SMARTT_STAT_RX_ERRORS);
	kfree_skb(skb);
	return 0;
}

/**
 * smartt_rcv() - handle a validated packet for a socket
 * @sk: the socket bound to the destination port (locked or owned)
 * @skb: the packet, data at the UDP header, headers validated and linear,
 *	&struct smartt_skb_cb filled by smartt_encap_rcv()
 */
void smartt_rcv(struct sock *sk, struct sk_buff *skb)
{
	if (smartt_sk(sk)->closing) {
		smartt_drop(sock_net(sk), skb, SMARTT_STAT_DROP_CLOSED, false);
		return;
	}
	switch (smartt_hdr_of(skb)->type) {
	case SMARTT_PKT_DATA:
		smartt_rcv_data(sk, skb);
		break;
	case SMARTT_PKT_ACK:
	case SMARTT_PKT_NACK:
	case SMARTT_PKT_PROBE_ACK:
		smartt_rcv_ack(sk, skb);
		break;
	case SMARTT_PKT_PROBE:
		smartt_rcv_probe(sk, skb);
		break;
	case SMARTT_PKT_CRP_REQ:
	case SMARTT_PKT_CRP_GRANT:
	case SMARTT_PKT_CRP_RETRY:
		smartt_crp_rcv(sk, skb);
		break;
	default:
		smartt_rcv_ctrl(sk, skb);
		break;
	}
}

/**
 * smartt_encap_rcv() - encap_rcv of the UDP encapsulation sockets
 * @usk: the UDP socket
 * @skb: the packet, data at the UDP header, checksum verified by UDP
 *
 * Context: softirq.
 * Return: 0: the packet is always consumed.
 */
int smartt_encap_rcv(struct sock *usk, struct sk_buff *skb)
{
	struct net *net = sock_net(usk);
	const struct smartt_xhdr *x;
	const struct smartt_hdr *h;
	struct smartt_skb_cb *cb;
	u32 need, hlen;
	struct sock *sk;
	u16 family;

	smartt_stat_inc(net, SMARTT_STAT_RX_PKTS);
	smartt_stat_add(net, SMARTT_STAT_RX_BYTES, skb->len);
	/*
	 * The transport is unicast: a packet to a group (or overheard) must
	 * create no peer and get no answer, which would come from the group
	 * address or multiply one packet by the group's size.
	 */
	if (smartt_skb_not_unicast(skb))
		return smartt_drop(net, skb, SMARTT_STAT_DROP_NOT_UNICAST, false);
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + SMARTT_HDR_LEN))
		goto short_pkt;
	h = smartt_hdr_of(skb);
	if (h->magic != htons(SMARTT_MAGIC))
		return smartt_drop(net, skb, SMARTT_STAT_DROP_MAGIC, true);
	if (h->version != SMARTT_WIRE_VERSION)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_VERSION, true);
	switch (h->type) {
	case SMARTT_PKT_DATA:
		need = SMARTT_V1_DATA_HLEN;
		break;
	case SMARTT_PKT_ACK:
	case SMARTT_PKT_NACK:
	case SMARTT_PKT_PROBE_ACK:
		need = SMARTT_V1_ACK_HLEN;
		break;
	case SMARTT_PKT_PROBE:
		need = SMARTT_V1_PROBE_HLEN;
		break;
	case SMARTT_PKT_CTRL:
		need = SMARTT_V1_CTRL_HLEN;
		break;
	case SMARTT_PKT_CRP_REQ:
	case SMARTT_PKT_CRP_GRANT:
	case SMARTT_PKT_CRP_RETRY:
		need = SMARTT_CRP_HLEN;
		break;
	default:
		return smartt_drop(net, skb, SMARTT_STAT_DROP_TYPE, true);
	}
	hlen = h->hdr_words * 8;
	if (hlen < need)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_HLEN, true);
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + hlen))
		goto short_pkt;
	h = smartt_hdr_of(skb);
	x = (const struct smartt_xhdr *)(h + 1);
	if (h->type == SMARTT_PKT_DATA) {
		enum smartt_stat why = smartt_data_valid(skb);

		if (why)
			return smartt_drop(net, skb, why, true);
	} else if (h->type == SMARTT_PKT_PROBE && !x->epoch) {
		return smartt_drop(net, skb, SMARTT_STAT_DROP_EPOCH, true);
	} else if (h->type >= SMARTT_PKT_CRP_REQ) {
		int why = smartt_crp_valid(skb);

		if (why)
			return smartt_drop(net, skb, why, true);
	}

	cb = SMARTT_SKB_CB(skb);
	memset(cb, 0, sizeof(*cb));
	if (ip_hdr(skb)->version == 4) {
		family = AF_INET;
		cb->saddr.v4 = ip_hdr(skb)->saddr;
		cb->ce = INET_ECN_is_ce(ip_hdr(skb)->tos);
	} else {
		family = AF_INET6;
		cb->saddr.v6 = ipv6_hdr(skb)->saddr;
		cb->ce = INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
	}
	cb->family = family;
	cb->sport = ntohs(x->sport);

	sk = smartt_lookup(net, ntohs(x->dport));
	if (!sk || sk->sk_family != family) {
		if (sk)
			sock_put(sk);
		if (h->type == SMARTT_PKT_DATA)
			smartt_send_error(net, usk, skb, (const struct smartt_data_ext *)x,
					  SMARTT_ERR_PORT_UNREACH);
		smartt_drop(net, skb, SMARTT_STAT_DROP_NO_SOCKET, false);
		return 0;
	}
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk)) {
		smartt_rcv(sk, skb);
	} else if (sk_add_backlog(sk, skb, READ_ONCE(sk->sk_rcvbuf) +
				  READ_ONCE(sk->sk_sndbuf))) {
		bh_unlock_sock(sk);
		smartt_drop(net, skb, SMARTT_STAT_DROP_BACKLOG, false);
		sock_put(sk);
		return 0;
	}
	bh_unlock_sock(sk);
	sock_put(sk);
	return 0;

short_pkt:
	smartt_drop(net, skb, SMARTT_STAT_DROP_SHORT, true);
	return 0;
}
