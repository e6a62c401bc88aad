// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the receiving side.  The UDP encapsulation socket's
 * encap_rcv drops what was not sent to this host alone, checks the CRC32C
 * trailer (unless the DSCP says a switch trimmed the packet), validates
 * every header field against the packet's own length before use, and hands
 * the packet to its socket (or its backlog): DATA by the SES PIDonFEP, ACK,
 * NACK, errors and CTRL by the DPDCID through the netns's PDC table.  DATA
 * is deduplicated by PSN, reassembled by offset and delivered as one skb
 * per message; ACK, NACK and error packets drive the sender.
 * Documentation/protocol.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>

#include "smartt.h"
#include "transport/transport.h"
#include "transport/trace.h"

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

/* The PDS header of a received packet (data at the UDP header). */
static void *smartt_pds_of(const struct sk_buff *skb)
{
	return skb->data + sizeof(struct udphdr);
}

static u8 smartt_type_of(const struct sk_buff *skb)
{
	return smartt_pds_type(*(const __be16 *)smartt_pds_of(skb));
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
	smartt_peer_charge(peer, -(s64)m->charge);
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
 * smartt_rx_reset() - a SYN from a new sender PDC of the peer: it
 *	restarted its sequence space
 * @sk: socket (locked)
 * @peer: the peer
 * @rpdcid: the sender's PDC id (its DATA's SPDCID)
 * @base: the receive window starts there (the SYN's start PSN)
 *
 * The old PDC's partial messages and outcomes go: it has been quiet long
 * enough that its sender is not waiting for them (smartt_rx_pdc()).
 */
void smartt_rx_reset(struct sock *sk, struct smartt_peer *peer, u16 rpdcid, u64 base)
{
	struct smartt_rx_msg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &peer->rx_msgs, node)
		smartt_rx_msg_free(sk, peer, m);
	smartt_rx_done_purge(peer);
	peer->rx_rpdcid = rpdcid;
	peer->rx_msg_hi = U64_MAX;
	peer->rcv_bytes = 0;
	smartt_rel_ack_sent(peer);	/* a pending ACK was of the old PDC */
	bitmap_zero(peer->rx_bitmap, SMARTT_WIN);
	peer->rcv_nxt = base;
}

/**
 * smartt_rx_close() - the peer's sender PDC is gone: forget its state
 * @sk: socket (locked)
 * @peer: the peer
 *
 * Its partial messages and outcomes go (its sender said it knows the PDC
 * no more); the next SYN from the peer starts a new one at once.
 */
void smartt_rx_close(struct sock *sk, struct smartt_peer *peer)
{
	smartt_rx_reset(sk, peer, 0, peer->rcv_nxt);
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_RX_PDC_CLOSED);
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
 * and queue it on the socket; its outcome is kept (ses.c).
 */
static void smartt_rx_deliver(struct sock *sk, struct smartt_peer *peer,
			      struct smartt_rx_msg *m)
{
	u64 id = m->id, psn_hi = m->psn_hi, len = m->len;
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
	smartt_peer_charge(peer, -(s64)m->charge);
	smartt_sk(sk)->rx_reserved -= m->reserve;
	memset(cb, 0, sizeof(*cb));
	cb->family = peer->family;
	cb->saddr = peer->addr;
	cb->sport = peer->port;
	m->head = NULL;
	smartt_rx_msg_unlink(peer, m);
	kfree(m);
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_MSGS_DELIVERED);
	smartt_rx_done_add(sk, peer, id, psn_hi, len, SMARTT_SES_RC_OK);
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
	smartt_peer_charge(peer, need);
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

/**
 * struct smartt_data_view - the fields of a checked DATA packet
 * @d: its headers
 * @len: request_length: the message's bytes
 * @off: the payload's offset in the message
 * @plen: payload bytes (as sent: a trimmed packet holds none)
 * @psn: the wire PSN
 * @clear: the signed CLEAR_PSN offset (-%SMARTT_WIN to -1)
 * @flags: PDS flags
 * @sflags: SES flags
 */
struct smartt_data_view {
	const struct smartt_data_hdr *d;
	u64 len;
	u64 off;
	u32 plen;
	u32 psn;
	s16 clear;
	u8 flags;
	u8 sflags;
};

static void smartt_data_view(const struct sk_buff *skb, struct smartt_data_view *v)
{
	const struct smartt_data_hdr *d = smartt_pds_of(skb);

	v->d = d;
	v->flags = smartt_pds_flags(d->pds.prologue);
	v->sflags = d->ses.ver_flags & ~SMARTT_SES_VER_MASK;
	v->psn = ntohl(d->pds.psn);
	v->clear = (s16)ntohs(d->pds.clear_psn_offset);
	v->len = ntohl(d->ses.request_length);
	if (v->sflags & SMARTT_SES_F_SOM) {
		v->off = 0;
		v->plen = skb->len - sizeof(struct udphdr) - SMARTT_DATA_HLEN;
	} else {
		v->off = ntohl(d->ses.hdata_lo);
		v->plen = smartt_ses_payload_len(&d->ses);
	}
}

/*
 * The checks of a DATA packet that need no state: a malformed packet is
 * counted and dropped before any socket sees it.  @skb holds the headers
 * and, unless @trimmed, exactly the payload (the trailer is gone).
 * Return: 0 or the reason.
 */
static enum smartt_stat smartt_data_valid(const struct sk_buff *skb, bool trimmed)
{
	u32 paylen = skb->len - sizeof(struct udphdr) - SMARTT_DATA_HLEN;
	struct smartt_data_view v;
	bool som, eom;

	smartt_data_view(skb, &v);
	som = v.sflags & SMARTT_SES_F_SOM;
	eom = v.sflags & SMARTT_SES_F_EOM;
	if ((v.d->ses.opcode & SMARTT_SES_OPCODE_MASK) != SMARTT_SES_OPCODE_SEND ||
	    (v.d->ses.ver_flags & SMARTT_SES_VER_MASK) ||
	    (v.flags & ~(SMARTT_PDS_REQ_F_RETX | SMARTT_PDS_REQ_F_AR | SMARTT_PDS_REQ_F_SYN)))
		return SMARTT_STAT_DROP_FIELD;
	if (!v.d->pds.spdcid)
		return SMARTT_STAT_DROP_FIELD;
	if (v.flags & SMARTT_PDS_REQ_F_SYN) {
		if (ntohs(v.d->pds.dpdcid) & SMARTT_PDS_PDC_INFO_MASK)
			return SMARTT_STAT_DROP_FIELD;
	} else if (!v.d->pds.dpdcid) {
		return SMARTT_STAT_DROP_DPDCID;
	}
	if (!ntohl(v.d->ses.initiator) || ntohl(v.d->ses.initiator) > SMARTT_PORT_MAX)
		return SMARTT_STAT_DROP_FIELD;
	/*
	 * CLEAR_PSN (the highest PSN the sender cleared: its snd_una - 1) is
	 * below the PSN, at most a window below
	 */
	if (v.clear >= 0 || v.clear < -SMARTT_WIN)
		return SMARTT_STAT_DROP_WINDOW;
	if (v.len > SMARTT_MSG_MAX_LIMIT)
		return SMARTT_STAT_DROP_LEN;
	if (!som && (!v.off || v.off >= v.len))
		return SMARTT_STAT_DROP_OFFSET;
	if (trimmed)
		return 0;
	if (!som && v.plen != paylen)
		return SMARTT_STAT_DROP_LEN;
	if (v.plen > SMARTT_SEG_MAX || v.off + v.plen > v.len ||
	    eom != (v.off + v.plen == v.len) || (!eom && v.plen < SMARTT_SEG_MIN))
		return SMARTT_STAT_DROP_LEN;
	return 0;
}

/* The NACK of a trimmed packet, by the DSCP it came with. */
static void smartt_nack_trimmed(struct sock *sk, struct smartt_peer *peer,
				const struct smartt_ack_info *ai, u8 trim)
{
	if (trim == SMARTT_TRIM_SPEC_DROPPED)
		smartt_send_nack(sk, peer, ai, SMARTT_NACK_EXP_NORMAL,
				 SMARTT_NACK_VENDOR_CRP_SPEC_DROP);
	else
		smartt_send_nack(sk, peer, ai, trim == SMARTT_TRIM_LASTHOP ?
				 SMARTT_NACK_TRIMMED_LASTHOP : SMARTT_NACK_TRIMMED, 0);
}

/*
 * The receive state of the DATA packet's sender PDC.  DATA of the PDC
 * being received goes on (without SYN, to our id of it only).  A SYN of
 * another sender PDC (the peer restarted its sequence space) replaces it
 * only if it holds no partial message and took no DATA for
 * %SMARTT_EVICT_IDLE_NS (more than a sender's longest RTO: its sender is
 * waiting for nothing), else it is dropped (drop_syn_busy) and its sender
 * sends it again: so a forged SYN, which costs an attacker nothing to make,
 * can neither free what a sender is sending nor forget the outcomes it may
 * ask for.  The caller challenges the PDC then (smartt_rx_challenge()): a
 * sender that really restarted says it knows it no more, which closes it.
 * DATA without SYN of a PDC this side does not know makes no state: its
 * sender is told (NACK INV_DPDCID) and starts a new PDC.
 * Return: 0 or the reason to drop.
 */
static enum smartt_stat smartt_rx_pdc(struct sock *sk, struct smartt_peer *peer,
				      const struct smartt_data_view *v, u64 now)
{
	u16 spdcid = ntohs(v->d->pds.spdcid), dpdcid = ntohs(v->d->pds.dpdcid);
	bool syn = v->flags & SMARTT_PDS_REQ_F_SYN;
	u32 start;

	if (peer->rx_rpdcid && spdcid == peer->rx_rpdcid)
		return !syn && dpdcid != peer->rx_lpdcid ? SMARTT_STAT_DROP_DPDCID : 0;
	if (!syn)
		return SMARTT_STAT_DROP_SPDCID;
	if (peer->rx_rpdcid && (!list_empty(&peer->rx_msgs) ||
				now - peer->rx_last_ns < SMARTT_EVICT_IDLE_NS))
		return SMARTT_STAT_DROP_SYN_BUSY;
	start = v->psn - (dpdcid & SMARTT_PDS_PSN_OFFSET_MASK);
	smartt_rx_reset(sk, peer, spdcid, SMARTT_RX_BIAS + start);
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_RX_PDC_RESET);
	return 0;
}

/*
 * A SYN of another sender PDC came while the peer's PDC is active: an ACK
 * of that PDC goes to the peer, on the SYN's entropy, at most one per
 * %SMARTT_RTO_MIN_NS.  A sender that has the PDC takes it as a duplicate
 * ACK; one that restarted knows no such PDC and answers NACK INV_DPDCID
 * with its CACK_PSN (smartt_encap_rcv()), which closes it here
 * (smartt_rcv_inv()), so that its SYN, sent again, is taken.  Never larger
 * than the SYN (36 bytes for at least 60).
 */
static void smartt_rx_challenge(struct sock *sk, struct smartt_peer *peer,
				const struct smartt_skb_cb *cb, u64 now)
{
	struct smartt_ack_info ai = {
		.psn = peer->rcv_nxt - 1,
		.rx_ns = cb->rx_ns,
		.flow = cb->flow,
		.usport = cb->usport,
	};

	if (peer->rx_chal_ns && now - peer->rx_chal_ns < SMARTT_RTO_MIN_NS)
		return;
	peer->rx_chal_ns = now;
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_RX_CHALLENGES);
	smartt_send_ack(sk, peer, &ai);
}

/*
 * The message number of a DATA packet: its 16-bit id extended against the
 * highest one received.  Out of window (more than %SMARTT_SES_MSG_MAX_MSGS
 * behind, or more than %SMARTT_WIN ahead: each message in between holds a
 * PSN of the window): false.
 */
static bool smartt_rx_msg_id(struct smartt_peer *peer, u16 wire, u64 *id)
{
	u64 hi = peer->rx_msg_hi;

	if (hi == U64_MAX) {
		*id = SMARTT_RX_BIAS + wire;
		peer->rx_msg_hi = *id;
		return true;
	}
	*id = smartt_msg_id_extend(wire, hi);
	if (*id + SMARTT_SES_MSG_MAX_MSGS < hi || *id > hi + SMARTT_WIN)
		return false;
	if (*id > hi)
		peer->rx_msg_hi = *id;
	return true;
}

/*
 * The answer to a DATA packet whose PSN was received already: an ACK,
 * with the message's outcome if it is kept (the sender asks for a lost
 * response this way, ses.c).
 */
static int smartt_rcv_dup(struct sock *sk, struct smartt_peer *peer, struct sk_buff *skb,
			  const struct smartt_data_view *v, struct smartt_ack_info *ai)
{
	const struct smartt_rx_done *d = NULL;

	smartt_stat_inc(sock_net(sk), SMARTT_STAT_RX_DUP);
	if (peer->rx_msg_hi != U64_MAX)
		d = smartt_rx_done_find(peer, smartt_msg_id_extend(ntohs(v->d->ses.msg_id),
								   peer->rx_msg_hi));
	if (d)
		smartt_rx_done_rsp(d, ai);
	smartt_send_ack(sk, peer, ai);
	kfree_skb(skb);
	return 0;
}

/*
 * A new PSN of a message that finished: one freed undelivered takes it
 * (its sender learns the outcome from the ACK, and the PSN is not sent
 * again); one delivered cannot have a new segment, the packet is dropped.
 */
static int smartt_rcv_done(struct sock *sk, struct smartt_peer *peer, struct sk_buff *skb,
			   u64 psn, struct smartt_rx_done *d, struct smartt_ack_info *ai)
{
	if (d->rc == SMARTT_SES_RC_OK)
		return smartt_drop(sock_net(sk), skb, SMARTT_STAT_DROP_MSG_ID, true);
	set_bit(psn % SMARTT_WIN, peer->rx_bitmap);
	smartt_rx_advance(peer, peer->rcv_nxt);
	d->psn_hi = max(d->psn_hi, psn);
	smartt_rx_done_rsp(d, ai);
	smartt_send_ack(sk, peer, ai);
	consume_skb(skb);
	return 0;
}

static int smartt_rcv_data(struct sock *sk, struct sk_buff *skb)
{
	struct smartt_skb_cb *cb = SMARTT_SKB_CB(skb);
	struct smartt_sock *ssk = smartt_sk(sk);
	struct net *net = sock_net(sk);
	struct smartt_ack_info ai = {};
	struct smartt_data_view v;
	struct smartt_rx_done *done;
	struct smartt_peer *peer;
	u64 psn, clear, id, old_rcv_nxt, now;
	struct sk_buff *seg_skb;
	enum smartt_stat why;
	struct smartt_rx_msg *m;
	u32 seg, rsv;
	bool eom;

	smartt_data_view(skb, &v);
	eom = v.sflags & SMARTT_SES_F_EOM;
	/* smartt_data_valid() checked the fields on their own. */
	if (v.len > ssk->msg_max) {
		smartt_send_error(net, NULL, skb, v.d, SMARTT_SES_RC_UNSUPPORTED_SIZE);
		return smartt_drop(net, skb, SMARTT_STAT_ERR_MSGSIZE, false);
	}

	/* DATA without SYN from a peer this side does not know makes no state. */
	peer = smartt_peer_lookup(sk, cb->family, &cb->saddr, cb->sport);
	if (!peer && !(v.flags & SMARTT_PDS_REQ_F_SYN)) {
		smartt_send_nack_inv(net, skb, v.d);
		return smartt_drop(net, skb, SMARTT_STAT_DROP_SPDCID, false);
	}
	if (!peer) {
		peer = smartt_peer_get(sk, cb->family, &cb->saddr, cb->sport, GFP_ATOMIC);
		if (IS_ERR(peer))
			return smartt_drop(net, skb, PTR_ERR(peer) == -EADDRINUSE ?
					   SMARTT_STAT_DROP_HOST_PEERS :
					   SMARTT_STAT_DROP_PEERS, false);
	}
	now = ktime_get_ns();
	why = smartt_rx_pdc(sk, peer, &v, now);
	if (why == SMARTT_STAT_DROP_SPDCID)
		smartt_send_nack_inv(net, skb, v.d);
	if (why == SMARTT_STAT_DROP_SYN_BUSY)
		smartt_rx_challenge(sk, peer, cb, now);
	if (why)
		return smartt_drop(net, skb, why, why == SMARTT_STAT_DROP_DPDCID);
	psn = smartt_psn_extend(v.psn, peer->rcv_nxt);
	if (psn + SMARTT_WIN < peer->rcv_nxt || psn >= peer->rcv_nxt + SMARTT_WIN)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_WINDOW, false);
	smartt_peer_touch(sk, peer, now);
	peer->rx_last_ns = now;
	/* the first PSN not cleared: the outcomes below it were had */
	clear = psn + v.clear + 1;
	if (clear > peer->rcv_nxt)
		smartt_rx_advance(peer, clear);
	smartt_rx_done_clear(peer, clear);

	ai.psn = psn;
	ai.rx_ns = cb->rx_ns;
	ai.flow = cb->flow;
	ai.usport = cb->usport;
	ai.ce = cb->ce;
	ai.retx = v.flags & SMARTT_PDS_REQ_F_RETX;
	if (psn < peer->rcv_nxt ||
	    (psn - peer->rcv_nxt < SMARTT_WIN && test_bit(psn % SMARTT_WIN, peer->rx_bitmap)))
		return smartt_rcv_dup(sk, peer, skb, &v, &ai);
	if (cb->trim) {
		smartt_stat_inc(net, SMARTT_STAT_RX_TRIMMED);
		smartt_nack_trimmed(sk, peer, &ai, cb->trim);
		kfree_skb(skb);
		return 0;
	}
	if (!smartt_rx_msg_id(peer, ntohs(v.d->ses.msg_id), &id))
		return smartt_drop(net, skb, SMARTT_STAT_DROP_MSG_ID, true);
	done = smartt_rx_done_find(peer, id);
	if (done)
		return smartt_rcv_done(sk, peer, skb, psn, done, &ai);

	m = smartt_rx_msg_find(peer, id);
	if (m) {
		u64 rem = v.off;

		seg = m->seg_size;
		if (m->len != v.len || do_div(rem, seg))
			return smartt_drop(net, skb, m->len != v.len ? SMARTT_STAT_DROP_LEN :
					   SMARTT_STAT_DROP_OFFSET, true);
		if (v.plen != min_t(u64, seg, v.len - v.off))
			return smartt_drop(net, skb, SMARTT_STAT_DROP_LEN, true);
	} else {
		u64 need;

		/*
		 * The segment size is not on the wire: a packet that is not
		 * the last one tells it (a one-packet message has one).  A
		 * last packet that comes first makes no state: it is sent
		 * again.
		 */
		if (eom && !(v.sflags & SMARTT_SES_F_SOM))
			return smartt_drop(net, skb, SMARTT_STAT_DROP_SEG_UNKNOWN, false);
		seg = eom ? max_t(u32, v.plen, SMARTT_SEG_MIN) : v.plen;
		if (!eom) {
			u64 rem = v.off;

			if (do_div(rem, seg))
				return smartt_drop(net, skb, SMARTT_STAT_DROP_OFFSET, true);
		}
		need = smartt_rx_msg_charge(v.len, seg);
		/* Tiny segments would make the kernel hold far more than the message. */
		if (need > READ_ONCE(sk->sk_rcvbuf) &&
		    need > SMARTT_RX_CHARGE_RATIO * v.len + smartt_rx_head_charge()) {
			smartt_send_error(net, NULL, skb, v.d, SMARTT_SES_RC_TOO_LONG);
			return smartt_drop(net, skb, SMARTT_STAT_DROP_SEG_CHARGE, false);
		}
		/* After an eviction, the buffer goes to the waiter's host. */
		if (ssk->rx_grace_until && now < ssk->rx_grace_until &&
		    ssk->rx_grace_for != peer->host)
			return smartt_drop(net, skb, SMARTT_STAT_DROP_RMEM, false);
		if (!smartt_rx_admit(sk, v.len, need)) {
			/*
			 * Others being reassembled hold the buffer: the wait
			 * is noted, unless the peer's host has a message in
			 * reassembly (its next waits for it, as any sender's
			 * second message waits for its first: one host cannot
			 * hold the buffer with one port and wait for it with
			 * another).
			 */
			if (ssk->rx_missing && !peer->host->rx_charge && !ssk->rx_wait_since) {
				ssk->rx_wait_since = now;
				ssk->rx_waiter = peer->host;
				smartt_timer_arm_at(sk, now + ssk->timeout_ns / 2);
			}
			return smartt_drop(net, skb, smartt_rx_mem_room(need) ?
					   SMARTT_STAT_DROP_RMEM : SMARTT_STAT_DROP_MEM, false);
		}
		m = smartt_rx_msg_new(sk, peer, id, v.len, seg, need, now);
		if (!m)
			return smartt_drop(net, skb, SMARTT_STAT_DROP_NOMEM, false);
		ssk->rx_wait_since = 0;
		ssk->rx_grace_until = 0;
	}

	/*
	 * Keep the payload only, in an skb charged no more than its share
	 * of the reservation, and charged to the socket.
	 */
	cb->offset = v.off;
	rsv = smartt_rx_seg_charge(v.plen);
	seg_skb = smartt_rx_seg_skb(net, skb, sizeof(struct udphdr) + SMARTT_DATA_HLEN, v.plen);
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
	ssk->rx_missing -= v.plen;
	m->last_ns = now;
	m->psn_hi = max(m->psn_hi, psn);
	list_move_tail(&m->node, &peer->rx_msgs);

	old_rcv_nxt = peer->rcv_nxt;
	set_bit(psn % SMARTT_WIN, peer->rx_bitmap);
	smartt_rx_advance(peer, peer->rcv_nxt);
	peer->rcv_bytes += v.plen;
	m->received += v.plen;
	smartt_stat_inc(net, SMARTT_STAT_RX_DATA);
	if (cb->ce)
		smartt_stat_inc(net, SMARTT_STAT_RX_CE);
	if (seg_skb != skb)
		consume_skb(skb);
	if (m->received < m->len) {
		smartt_rel_data_ack(sk, peer, &ai, v.flags & SMARTT_PDS_REQ_F_AR, v.plen,
				    old_rcv_nxt);
		return 0;
	}
	/* The ACK of the packet that completed a message carries its response. */
	ai.rsp_rc = SMARTT_SES_RC_OK;
	ai.rsp_id = (u16)m->id;
	ai.rsp_len = m->len;
	smartt_rx_deliver(sk, peer, m);
	smartt_send_ack(sk, peer, &ai);
	return 0;
}

/*
 * Did @skb come from @peer's address?  smartt_encap_rcv() checked it for
 * the peer that held the DPDCID then; a packet that waited in the backlog
 * is matched again, and the id may have gone to another peer since.
 */
static bool smartt_peer_from(const struct smartt_peer *peer, const struct sk_buff *skb)
{
	const struct smartt_skb_cb *cb = SMARTT_SKB_CB(skb);

	if (peer->family != cb->family)
		return false;
	return cb->family == AF_INET ? peer->addr.v4 == cb->saddr.v4 :
	       ipv6_addr_equal(&peer->addr.v6, &cb->saddr.v6);
}

/*
 * The sender's peer of an ACK, NACK or error (@tx) or the receiver's of a
 * CTRL: the socket's peer holding the packet's DPDCID in that role, with
 * the SPDCID it knows (@stateless: a packet from a host without state,
 * errors and NACK INV_DPDCID, may carry SPDCID 0; its caller checks the
 * PSN it names instead).  NULL: dropped, counted.
 */
static struct smartt_peer *smartt_ctl_peer(struct sock *sk, struct sk_buff *skb,
					   bool want_tx, u16 spdcid, bool stateless)
{
	struct net *net = sock_net(sk);
	struct smartt_peer *peer;
	bool tx;

	peer = smartt_pdc_peer(sk, SMARTT_SKB_CB(skb)->lpdcid, &tx);
	if (!peer || tx != want_tx) {
		smartt_drop(net, skb, SMARTT_STAT_DROP_DPDCID, false);
		return NULL;
	}
	if (!smartt_peer_from(peer, skb)) {
		smartt_drop(net, skb, SMARTT_STAT_DROP_SRC, false);
		return NULL;
	}
	if (!want_tx) {
		if (spdcid != peer->rx_rpdcid) {
			smartt_drop(net, skb, SMARTT_STAT_DROP_SPDCID, true);
			return NULL;
		}
		return peer;
	}
	if (!peer->win) {
		smartt_drop(net, skb, SMARTT_STAT_DROP_ACK_UNSENT, true);
		return NULL;
	}
	if (stateless && !spdcid)
		return peer;
	if (!spdcid || (peer->tx_est && spdcid != peer->tx_rpdcid)) {
		smartt_drop(net, skb, SMARTT_STAT_DROP_SPDCID, true);
		return NULL;
	}
	return peer;
}

/* A receiver's next expected PSN (wire) extended; false if not sent yet. */
static bool smartt_ack_rcv_nxt(const struct smartt_peer *peer, u32 wire, u64 *rcv_nxt)
{
	*rcv_nxt = smartt_psn_extend(wire, peer->snd_una);
	return *rcv_nxt <= peer->snd_nxt && *rcv_nxt + SMARTT_WIN >= peer->snd_una;
}

/*
 * The segment a packet from a host without state names by its PSN (wire):
 * one being sent and not acknowledged (INFLIGHT or LOST).  A random
 * initial PSN makes it a guess of one in 2^32 / %SMARTT_WIN for whoever
 * does not see the PDC's packets.  NULL if there is none.
 */
static struct smartt_txseg *smartt_tx_named(const struct smartt_peer *peer, u32 wire)
{
	u64 psn = smartt_psn_extend(wire, peer->snd_una);
	struct smartt_txseg *s;

	if (psn < peer->snd_una || psn >= peer->snd_nxt)
		return NULL;
	s = &peer->win[psn % SMARTT_WIN];
	if (s->psn != psn || (s->state != SMARTT_SEG_INFLIGHT && s->state != SMARTT_SEG_LOST))
		return NULL;
	return s;
}

/* The replayer's ack_cc lines read the wire's fields in the same units. */
static_assert(UET_ACK_SERVICE_UNIT_NS == SMARTT_NSCC_SERVICE_TIME_NS);
static_assert(UET_ACK_RCVD_BYTES_MASK == SMARTT_NSCC_RCVD_BYTES_MASK);

/*
 * The sender's record of @psn for the RTT samples of an ACK_CC: the RTO
 * estimator's (the whole interval) and the core's (less the receiver's
 * service time), both under Karn's rule (kernel/algo/uet_ack.c).
 */
static void smartt_ack_tx(const struct smartt_peer *peer, u64 psn, struct uet_ack_tx *tx)
{
	const struct smartt_txseg *s = &peer->win[psn % SMARTT_WIN];

	if (s->psn != psn || s->state == SMARTT_SEG_FREE)
		return;
	tx->sent_ns = s->sent_ns;
	tx->tx_count = s->tx_count;
}

/*
 * An ACK_CC or a NACK for our DATA: what it acknowledges, the losses it
 * reveals, the RTT, the congestion control and the path selector.
 */
static int smartt_rcv_ack(struct sock *sk, struct sk_buff *skb);

/*
 * A NACK INV_DPDCID: the host it came from knows no PDC of ours with it.
 * For a PDC we send on (it answered our DATA): a new one, if it names a
 * packet in flight (smartt_peer_restart()).  For a PDC we receive on (it
 * answered our challenge, smartt_rx_challenge()): closed, if it names a
 * PSN of the receive window, so that its sender's SYN is taken.  Without
 * the PDC ids (random) and a PSN in the window (from a random initial PSN)
 * nobody can make one that is taken.
 */
static int smartt_rcv_inv(struct sock *sk, struct sk_buff *skb)
{
	const struct smartt_pds_nack *n = smartt_pds_of(skb);
	struct net *net = sock_net(sk);
	struct smartt_peer *peer;
	u64 psn;
	bool tx;

	peer = smartt_pdc_peer(sk, SMARTT_SKB_CB(skb)->lpdcid, &tx);
	if (!peer)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_DPDCID, false);
	if (!smartt_peer_from(peer, skb))
		return smartt_drop(net, skb, SMARTT_STAT_DROP_SRC, false);
	if (n->spdcid)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_SPDCID, true);
	if (tx) {
		if (!peer->win || !smartt_tx_named(peer, ntohl(n->nack_psn)))
			return smartt_drop(net, skb, SMARTT_STAT_DROP_RSP, false);
		smartt_stat_inc(net, SMARTT_STAT_RX_NACKS);
		kfree_skb(skb);
		smartt_peer_restart(sk, peer);
		return 0;
	}
	psn = smartt_psn_extend(ntohl(n->nack_psn), peer->rcv_nxt);
	if (!peer->rx_rpdcid || psn >= peer->rcv_nxt || psn + SMARTT_WIN < peer->rcv_nxt)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_RSP, false);
	smartt_stat_inc(net, SMARTT_STAT_RX_NACKS);
	smartt_rx_close(sk, peer);
	kfree_skb(skb);
	return 0;
}

static int smartt_rcv_ack(struct sock *sk, struct sk_buff *skb)
{
	const struct smartt_pds_ack_cc *a = smartt_pds_of(skb);
	const struct smartt_pds_nack *n = smartt_pds_of(skb);
	bool nack = smartt_type_of(skb) == SMARTT_PDS_NACK;
	u8 flags = smartt_pds_flags(a->ack.prologue);
	u64 rcv_nxt, psn = 0, base = 0, map = 0, highest = 0, now, acked = 0;
	u64 raw = 0;
	struct net *net = sock_net(sk);
	enum smartt_path_ack kind = SMARTT_PATH_ACK;
	bool probe = false, have_psn = true, have_ev = false, progress;
	u32 nacked_len, rules = 0, ev = 0, ooo = 0, nb = 0;
	u16 opaque = 0, service = SMARTT_NSCC_SERVICE_TIME_MAX;
	struct uet_ack_tx utx = { 0 };
	struct smartt_cc_sample cs;
	struct uet_ack_cc ua = { 0 };
	struct smartt_peer *peer;

	if (nack && n->nack_code == SMARTT_NACK_INV_DPDCID)
		return smartt_rcv_inv(sk, skb);
	peer = smartt_ctl_peer(sk, skb, true, ntohs(nack ? n->spdcid : a->ack.spdcid), false);
	if (!peer)
		return 0;
	if (nack) {
		switch (n->nack_code) {
		case SMARTT_NACK_TRIMMED:
			kind = SMARTT_PATH_NACK;
			break;
		case SMARTT_NACK_TRIMMED_LASTHOP:
			kind = SMARTT_PATH_NACK_LASTHOP;
			break;
		case SMARTT_NACK_EXP_NORMAL:
			if (n->vendor_code == SMARTT_NACK_VENDOR_CRP_SPEC_DROP) {
				kind = SMARTT_PATH_NACK_SPEC;
				break;
			}
			fallthrough;
		default:
			return smartt_drop(net, skb, SMARTT_STAT_DROP_FIELD, true);
		}
		if (!smartt_ack_rcv_nxt(peer, ntohl(n->payload), &rcv_nxt))
			return smartt_drop(net, skb, SMARTT_STAT_DROP_ACK_UNSENT, true);
		psn = smartt_psn_extend(ntohl(n->nack_psn), peer->snd_una);
	} else {
		if (!smartt_ack_rcv_nxt(peer, ntohl(a->ack.cack_psn) + 1, &rcv_nxt))
			return smartt_drop(net, skb, SMARTT_STAT_DROP_ACK_UNSENT, true);
		probe = flags & SMARTT_PDS_ACK_F_P;
		if (probe) {
			opaque = ntohs(a->ack.ack_psn_offset);
			have_psn = false;
		} else {
			psn = rcv_nxt - 1 + (s16)ntohs(a->ack.ack_psn_offset);
		}
		base = rcv_nxt - 1 + (s16)ntohs(a->sack_psn_offset);
		map = smartt_ack_sack(a);
		service = ntohs(a->nscc.service_time);
		ooo = ntohs(a->nscc.ooo_count);
		ua.rcvd_bytes = smartt_nscc_rcvd_bytes(&a->nscc);
		ua.service_time = service;
		ua.m = flags & SMARTT_PDS_ACK_F_M;
		ua.retx = flags & SMARTT_PDS_ACK_F_RETX;
	}
	if (have_psn && psn >= peer->snd_nxt)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_ACK_UNSENT, true);
	if (!peer->tx_est) {
		peer->tx_est = true;
		peer->tx_rpdcid = ntohs(nack ? n->spdcid : a->ack.spdcid);
	}
	smartt_stat_inc(net, nack ? SMARTT_STAT_RX_NACKS : SMARTT_STAT_RX_ACKS);

	now = ktime_get_ns();
	smartt_peer_touch(sk, peer, now);
	if (have_psn && psn + SMARTT_WIN > peer->snd_una) {
		const struct smartt_txseg *s = &peer->win[psn % SMARTT_WIN];

		/* the path of the transmission answered: RETX says which */
		have_ev = s->psn == psn;
		ev = flags & SMARTT_PDS_ACK_F_RETX ? s->entropy : s->entropy0;
		if (!nack) {
			smartt_ack_tx(peer, psn, &utx);
			raw = uet_ack_rtt(&ua, &utx, now, 0);
		}
	} else if (probe && peer->rel.probe_sent && opaque == peer->rel.probe_opaque &&
		   now > peer->rel.probe_sent) {
		have_ev = true;
		ev = peer->rel.probe_entropy;
		raw = now - peer->rel.probe_sent;
	}
	if (raw)
		smartt_rtt_sample(peer, raw);

	progress = smartt_rel_acked(sk, peer, rcv_nxt, base, map, &acked, &highest);
	nacked_len = smartt_rel_losses(sk, peer, nack ? psn : U64_MAX, highest, now);
	if (nacked_len && kind == SMARTT_PATH_NACK_SPEC)
		smartt_crp_spec_drop(sk, peer, psn);
	smartt_rel_on_ack(sk, peer, probe, opaque, ooo, highest, raw, progress, now);
	if (progress) {
		peer->last_progress = now;
		peer->rto_at = 0;
	}
	/*
	 * The core takes an ACK_CC's NSCC state as UEC's NSCC does: the bytes
	 * the receiver's count grew by, the RTT of the timed transmission less
	 * its service time (kernel/algo/uet_ack.c); a NACK the trimmed packet.
	 * The receiver's count is taken up to the bytes the ACK newly
	 * acknowledged here: a receiver cannot claim more than it acknowledged.
	 * A probe's answer acknowledges no data of its own (STrack Alg. 2).
	 */
	if (!nack && !probe)
		nb = min_t(u64, uet_ack_newly_rcvd(&peer->tx_rcvd, ua.rcvd_bytes), acked);
	if ((nb || nacked_len) && !probe) {
		cs.now = now;
		cs.rtt = nacked_len ? 0 : min_t(u64, uet_ack_rtt(&ua, &utx, now,
							       SMARTT_NSCC_SERVICE_TIME_NS),
						U32_MAX);
		cs.bytes = nacked_len ? nacked_len : nb;
		cs.in_flight = peer->in_flight;
		cs.ecn = !!(flags & SMARTT_PDS_ACK_F_M);
		cs.nack = !!nacked_len;
		rules = smartt_cc_ack(sk, peer, &cs);
		if (!nack)
			trace_smartt_ack_cc(smartt_sk(sk)->port, peer->port, &ua, &utx, now,
					    nb, cs.in_flight, peer->cwnd);
	}
	if (have_ev)
		smartt_path_on_ack(sk, peer, kind, flags & SMARTT_PDS_ACK_F_M, ev, rules, now);
	/* the SES response of a message, after the ACK of its last packet */
	if (!nack && smartt_pds_nh(a->ack.prologue) == SMARTT_PDS_NH_RSP)
		smartt_rsp_rcv(sk, peer, (const struct smartt_ses_rsp *)(a + 1));
	kfree_skb(skb);
	if (list_empty(&peer->tx_msgs))
		peer->rto_at = 0;
	else
		smartt_push(sk, peer);
	return 0;
}

/*
 * An error (PDS ACK + SES response) about our messages.  From the
 * receiver's state (SPDCID its PDC's id, once known here): a message it
 * freed undelivered (expired, evicted), CACK_PSN within the window.  From
 * a host without state (SPDCID 0): BAD_PID (no socket; every message
 * fails) or a message too large, naming by CACK_PSN and its offset the
 * DATA packet it answers, which must be one being sent (smartt_tx_named()).
 */
static int smartt_rcv_error(struct sock *sk, struct sk_buff *skb)
{
	const struct smartt_err_hdr *e = smartt_pds_of(skb);
	u8 rc = e->rsp.ver_rc & SMARTT_SES_RSP_RC_MASK;
	u16 spdcid = ntohs(e->ack.spdcid);
	struct net *net = sock_net(sk);
	struct smartt_peer *peer;
	struct smartt_txseg *s;
	enum smartt_stat why;
	u64 rcv_nxt;
	int err;

	peer = smartt_ctl_peer(sk, skb, true, spdcid, true);
	if (!peer)
		return 0;
	err = smartt_ses_errno(rc, &why);
	if (err >= 0)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_FIELD, true);
	if (spdcid) {
		if (!peer->tx_est || rc == SMARTT_SES_RC_BAD_PID ||
		    !smartt_ack_rcv_nxt(peer, ntohl(e->ack.cack_psn) + 1, &rcv_nxt))
			return smartt_drop(net, skb, SMARTT_STAT_DROP_RSP, false);
	} else {
		s = smartt_tx_named(peer, ntohl(e->ack.cack_psn) +
				    (s16)ntohs(e->ack.ack_psn_offset));
		if (!s || rc == SMARTT_SES_RC_CANCELLED || rc == SMARTT_SES_RC_DROPPED ||
		    (rc != SMARTT_SES_RC_BAD_PID && (u16)s->msg->id != ntohs(e->rsp.msg_id)))
			return smartt_drop(net, skb, SMARTT_STAT_DROP_RSP, false);
	}
	/*
	 * The peer's socket is gone: every message fails, with a new sequence
	 * space (a new PDC).  The other errors are about one message: it
	 * alone fails, if it is still being sent.
	 */
	if (err == -ECONNREFUSED) {
		if (!list_empty(&peer->tx_msgs))
			smartt_peer_fail(sk, peer, err);
	} else if (!smartt_msg_fail(sk, peer, ntohs(e->rsp.msg_id), err)) {
		return smartt_drop(net, skb, SMARTT_STAT_DROP_CTRL_STALE, false);
	}
	smartt_stat_inc(net, why);
	smartt_stat_inc(net, SMARTT_STAT_RX_ERRORS);
	kfree_skb(skb);
	return 0;
}

/**
 * smartt_rcv() - handle a validated packet for a socket
 * @sk: the socket it is for (locked or owned)
 * @skb: the packet, data at the UDP header, headers validated and linear,
 *	trailer removed, &struct smartt_skb_cb filled by smartt_encap_rcv()
 */
void smartt_rcv(struct sock *sk, struct sk_buff *skb)
{
	const struct smartt_pds_ctrl *c;
	struct smartt_peer *peer;

	if (smartt_sk(sk)->closing) {
		smartt_drop(sock_net(sk), skb, SMARTT_STAT_DROP_CLOSED, false);
		return;
	}
	if (SMARTT_SKB_CB(skb)->crp) {
		smartt_crp_rcv(sk, skb);
		return;
	}
	switch (smartt_type_of(skb)) {
	case SMARTT_PDS_RUD_REQ:
		smartt_rcv_data(sk, skb);
		break;
	case SMARTT_PDS_ACK_CC:
	case SMARTT_PDS_NACK:
		smartt_rcv_ack(sk, skb);
		break;
	case SMARTT_PDS_ACK:
		smartt_rcv_error(sk, skb);
		break;
	default:
		c = smartt_pds_of(skb);
		peer = smartt_ctl_peer(sk, skb, false, ntohs(c->spdcid), false);
		if (peer)
			smartt_rcv_probe(sk, peer, skb);
		break;
	}
}

/*
 * PDS header bytes of a packet type smartt receives (with its next header
 * or CTRL type), 0 for any other.
 */
static u32 smartt_pds_need(u8 type, u8 nh)
{
	switch (type) {
	case SMARTT_PDS_RUD_REQ:
		return nh == SMARTT_PDS_NH_REQ_STD ? SMARTT_DATA_HLEN : 0;
	case SMARTT_PDS_ACK_CC:
		if (nh == SMARTT_PDS_NH_RSP)
			return SMARTT_ACK_LEN + sizeof(struct smartt_ses_rsp);
		return nh == SMARTT_PDS_NH_NONE ? SMARTT_ACK_LEN : 0;
	case SMARTT_PDS_ACK:
		return nh == SMARTT_PDS_NH_RSP ? SMARTT_ERR_LEN : 0;
	case SMARTT_PDS_NACK:
		return nh == SMARTT_PDS_NH_NONE ? SMARTT_NACK_LEN : 0;
	case SMARTT_PDS_CTRL:
		return nh == SMARTT_PDS_CTL_PROBE ? SMARTT_CTRL_LEN : 0;
	}
	return 0;
}

/* An SES response header: a response without data, version 0. */
static bool smartt_rsp_valid(const struct smartt_ses_rsp *r)
{
	return (r->list_opcode & SMARTT_SES_RSP_OPCODE_MASK) == SMARTT_SES_RSP_RESPONSE &&
	       !(r->ver_rc & SMARTT_SES_VER_MASK);
}

/* The checks of an ACK_CC, NACK, error or CTRL that need no state. */
static enum smartt_stat smartt_ctl_valid(const struct sk_buff *skb, u8 type)
{
	const struct smartt_pds_ack_cc *a = smartt_pds_of(skb);
	const struct smartt_pds_nack *n = smartt_pds_of(skb);
	const struct smartt_err_hdr *e = smartt_pds_of(skb);
	const struct smartt_pds_ctrl *c = smartt_pds_of(skb);
	u8 flags = smartt_pds_flags(a->ack.prologue);

	switch (type) {
	case SMARTT_PDS_ACK_CC:
		if ((a->cc_type_flags & SMARTT_PDS_CC_TYPE_MASK) >> SMARTT_PDS_CC_TYPE_SHIFT !=
		    SMARTT_PDS_CC_NSCC || (flags & SMARTT_PDS_ACK_F_REQ_MASK))
			return SMARTT_STAT_DROP_FIELD;
		if (smartt_pds_nh(a->ack.prologue) == SMARTT_PDS_NH_RSP &&
		    !smartt_rsp_valid((const struct smartt_ses_rsp *)(a + 1)))
			return SMARTT_STAT_DROP_FIELD;
		break;
	case SMARTT_PDS_NACK:
		/* INV_DPDCID comes from a host without the PDC: SPDCID 0 */
		if (flags & SMARTT_PDS_NACK_F_NT ||
		    (!n->spdcid && n->nack_code != SMARTT_NACK_INV_DPDCID))
			return SMARTT_STAT_DROP_FIELD;
		break;
	case SMARTT_PDS_ACK:
		if (!smartt_rsp_valid(&e->rsp))
			return SMARTT_STAT_DROP_FIELD;
		break;
	default:
		if (flags & (SMARTT_PDS_CTRL_F_SYN | SMARTT_PDS_CTRL_F_ISROD) || !c->spdcid)
			return SMARTT_STAT_DROP_FIELD;
		break;
	}
	return 0;
}

/* What the IP DSCP of a received packet says of it (&enum smartt_trim). */
static u8 smartt_trim_of(struct net *net, u8 dscp)
{
	if (dscp == smartt_dscp(net, SMARTT_DSCP_C_TRIMMED))
		return SMARTT_TRIM_TRIMMED;
	if (dscp == smartt_dscp(net, SMARTT_DSCP_C_TRIMMED_LASTHOP))
		return SMARTT_TRIM_LASTHOP;
	if (dscp == smartt_dscp(net, SMARTT_DSCP_C_CRP_SPEC_DROPPED))
		return SMARTT_TRIM_SPEC_DROPPED;
	return SMARTT_TRIM_NONE;
}

/*
 * The CRC32C trailer of an untrimmed packet (smartt_crc(): the IP
 * addresses, the UDP header at skb->data, the UDP payload): checked and
 * removed.  The skb is made linear first (the CRC covers it all).
 * Return: 0 or the reason.
 */
static enum smartt_stat smartt_crc_check(struct sk_buff *skb)
{
	unsigned int n = skb->len - SMARTT_CRC_LEN;
	__le32 want;
	u32 crc;

	if (skb_linearize(skb))
		return SMARTT_STAT_DROP_NOMEM;
	if (ip_hdr(skb)->version == 4)
		crc = smartt_crc(&ip_hdr(skb)->saddr, &ip_hdr(skb)->daddr,
				 sizeof(ip_hdr(skb)->saddr), skb->data, n);
	else
		crc = smartt_crc(&ipv6_hdr(skb)->saddr, &ipv6_hdr(skb)->daddr,
				 sizeof(ipv6_hdr(skb)->saddr), skb->data, n);
	memcpy(&want, skb->data + n, sizeof(want));
	if (le32_to_cpu(want) != crc)
		return SMARTT_STAT_DROP_CRC;
	if (pskb_trim(skb, skb->len - SMARTT_CRC_LEN))
		return SMARTT_STAT_DROP_NOMEM;
	return 0;
}

/**
 * smartt_encap_rcv() - encap_rcv of the UDP encapsulation sockets (udp_port)
 * @usk: the UDP socket
 * @skb: the packet, data at the UDP header, a non-zero checksum verified by
 *	UDP
 *
 * Every check against the packet's own lengths, the trailer's CRC, the
 * stateless field checks, then the socket: by PIDonFEP for DATA, by DPDCID
 * (and the peer's address) for the others.  Each drop is counted by reason;
 * no state is made for a packet dropped here.
 *
 * Context: softirq.
 * Return: 0: the packet is always consumed.
 */
int smartt_encap_rcv(struct sock *usk, struct sk_buff *skb)
{
	struct net *net = sock_net(usk);
	union smartt_addr paddr;
	struct smartt_skb_cb *cb;
	enum smartt_stat why;
	u8 type, dscp;
	struct sock *sk;
	u16 family, pfam;
	__be16 pro;
	u32 need;

	smartt_stat_inc(net, SMARTT_STAT_RX_PKTS);
	smartt_stat_add(net, SMARTT_STAT_RX_BYTES, skb->len);
	/*
	 * The transport is unicast: a packet to a group (or overheard) must
	 * create no peer and get no answer, which would come from the group
	 * address or multiply one packet by the group's size.
	 */
	if (smartt_skb_not_unicast(skb))
		return smartt_drop(net, skb, SMARTT_STAT_DROP_NOT_UNICAST, false);
	cb = SMARTT_SKB_CB(skb);
	memset(cb, 0, sizeof(*cb));
	cb->rx_ns = ktime_get_ns();
	cb->usport = udp_hdr(skb)->source;
	if (ip_hdr(skb)->version == 4) {
		family = AF_INET;
		cb->saddr.v4 = ip_hdr(skb)->saddr;
		dscp = ipv4_get_dsfield(ip_hdr(skb));
	} else {
		family = AF_INET6;
		cb->saddr.v6 = ipv6_hdr(skb)->saddr;
		dscp = ipv6_get_dsfield(ipv6_hdr(skb));
		cb->flow = ntohl(ip6_flowlabel(ipv6_hdr(skb)));
	}
	cb->family = family;
	cb->ce = INET_ECN_is_ce(dscp);
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + sizeof(pro)))
		goto short_pkt;
	pro = *(const __be16 *)smartt_pds_of(skb);
	type = smartt_pds_type(pro);
	need = smartt_pds_need(type, smartt_pds_nh(pro));
	if (!need)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_TYPE, true);
	/* Only DATA is trimmed; its trailer is gone with its payload. */
	if (type == SMARTT_PDS_RUD_REQ)
		cb->trim = smartt_trim_of(net, dscp >> 2);
	if (skb->len < sizeof(struct udphdr) + need + (cb->trim ? 0 : SMARTT_CRC_LEN))
		goto short_pkt;
	if (!cb->trim) {
		why = smartt_crc_check(skb);
		if (why)
			return smartt_drop(net, skb, why, why == SMARTT_STAT_DROP_CRC);
	}
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + need))
		goto short_pkt;
	why = type == SMARTT_PDS_RUD_REQ ? smartt_data_valid(skb, cb->trim) :
					   smartt_ctl_valid(skb, type);
	if (why)
		return smartt_drop(net, skb, why, true);

	if (type == SMARTT_PDS_RUD_REQ) {
		const struct smartt_data_hdr *d = smartt_pds_of(skb);

		if (smartt_ses_job(&d->ses) != READ_ONCE(smartt_net(net)->job_id))
			return smartt_drop(net, skb, SMARTT_STAT_DROP_JOB, false);
		cb->sport = ntohl(d->ses.initiator);
		sk = smartt_lookup(net, smartt_ses_pid(&d->ses));
		if (!sk || sk->sk_family != family) {
			if (sk)
				sock_put(sk);
			smartt_send_error(net, usk, skb, d, SMARTT_SES_RC_BAD_PID);
			return smartt_drop(net, skb, SMARTT_STAT_DROP_NO_SOCKET, false);
		}
	} else {
		/* DPDCID: bytes 10-11 of ACK, ACK_CC, NACK and CTRL alike */
		const struct smartt_pds_ack *a = smartt_pds_of(skb);

		cb->lpdcid = ntohs(a->dpdcid);
		sk = smartt_pdc_find(net, cb->lpdcid, &pfam, &paddr);
		if (!sk) {
			/* an ACK_CC of a PDC we do not know (a challenge): say so */
			if (type == SMARTT_PDS_ACK_CC)
				smartt_send_nack_inv_ack(net, skb, a);
			return smartt_drop(net, skb, SMARTT_STAT_DROP_DPDCID, false);
		}
		if (pfam != family || (family == AF_INET ? paddr.v4 != cb->saddr.v4 :
				       !ipv6_addr_equal(&paddr.v6, &cb->saddr.v6))) {
			sock_put(sk);
			return smartt_drop(net, skb, SMARTT_STAT_DROP_SRC, false);
		}
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
