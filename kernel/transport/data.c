// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: DATA.  The PDC of the sender (SYN, and the rules that
 * keep a forged packet from replacing it), the PSN window and CLEAR_PSN,
 * duplicates (answered with a finished message's outcome), trimmed
 * packets (NACKed), message ids, admission under the receive memory
 * rules, reassembly by offset and delivery of one skb per message.
 * Documentation/transport.rst, "Receiving" and "Receive memory".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/udp.h>

#include "smartt.h"
#include "transport/rx.h"
#include "transport/transport.h"

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

	if (!smartt_rx_mem_room(sock_net(sk), need))
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

/**
 * smartt_data_valid() - the checks of a DATA packet that need no state
 * @skb: the packet, data at the UDP header: the headers and, unless
 *	@trimmed, exactly the payload (the trailer is gone)
 * @trimmed: a switch trimmed it (its DSCP says so)
 *
 * A malformed packet is counted and dropped before any socket sees it.
 *
 * Return: 0 or the reason.
 */
enum smartt_stat smartt_data_valid(const struct sk_buff *skb, bool trimmed)
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

/**
 * smartt_rcv_data() - a DATA packet for a socket
 * @sk: the socket (locked or owned)
 * @skb: the packet, checked by smartt_data_valid()
 *
 * Its PDC, PSN and message: deduplicated by PSN, reassembled by offset,
 * admitted under the receive memory rules, acknowledged (the ACK of the
 * packet that completes a message with its SES response), delivered as one
 * skb per message.
 *
 * Return: 0 (the packet is consumed).
 */
int smartt_rcv_data(struct sock *sk, struct sk_buff *skb)
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
			return smartt_drop(net, skb, smartt_rx_mem_room(net, need) ?
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
