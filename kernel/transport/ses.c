// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: end-to-end completion.  A message is reported sent only
 * when its receiver says it delivered it, with UET's own mechanism: the SES
 * response (return code, message id, length) that the target returns per
 * message, carried on the PDS ACK_CC of the packet that completed it (or
 * on an error packet when the receiver frees it undelivered).
 *
 * The receiver keeps the outcome of every finished message (delivered, or
 * freed undelivered with the reason) until the sender's CLEAR_PSN passes
 * the message's last PSN: the sender clears a message's PSNs only once it
 * has the response, so an outcome is kept for as long as it can be asked
 * for.  The sender holds the message's last acknowledged PSN
 * (%SMARTT_SEG_WAIT) until the response comes; without one for an RTO it
 * sends that segment again, and the receiver answers the duplicate with the
 * outcome it kept.  A message that gets no response for the socket's
 * timeout fails with ETIMEDOUT: a lost response never becomes a success.
 * Documentation/transport.rst, "End-to-end completion".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rbtree.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "smartt.h"
#include "transport/transport.h"

static int smartt_rx_done_cmp(const void *key, const struct rb_node *n)
{
	u64 id = *(const u64 *)key, other = rb_entry(n, struct smartt_rx_done, idnode)->id;

	return id < other ? -1 : id > other;
}

static bool smartt_rx_done_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct smartt_rx_done, idnode)->id <
	       rb_entry(b, struct smartt_rx_done, idnode)->id;
}

/**
 * smartt_rx_done_find() - the outcome kept of a finished message
 * @peer: its sender (its socket locked)
 * @id: the message number (extended)
 *
 * Return: the outcome, or NULL.
 */
struct smartt_rx_done *smartt_rx_done_find(struct smartt_peer *peer, u64 id)
{
	struct rb_node *n = rb_find(&id, &peer->rx_done_ids, smartt_rx_done_cmp);

	return n ? rb_entry(n, struct smartt_rx_done, idnode) : NULL;
}

static void smartt_rx_done_free(struct smartt_peer *peer, struct smartt_rx_done *d)
{
	rb_erase(&d->idnode, &peer->rx_done_ids);
	list_del(&d->node);
	peer->rx_ndone--;
	kfree(d);
}

/**
 * smartt_rx_done_add() - keep the outcome of a finished message
 * @sk: socket (locked)
 * @peer: its sender
 * @id: the message number (extended); no outcome of it is kept yet
 * @psn_hi: the highest PSN of it received (extended)
 * @len: its bytes
 * @rc: %SMARTT_SES_RC_OK (delivered) or the error it was freed with
 *
 * At %SMARTT_RX_DONE_MAX outcomes the oldest is forgotten (counted
 * rx_outcomes_dropped): a sender that asks for it again gets no answer and
 * fails the message with ETIMEDOUT, never with success.  Without memory
 * nothing is kept, to the same effect.
 */
void smartt_rx_done_add(struct sock *sk, struct smartt_peer *peer, u64 id, u64 psn_hi,
			u32 len, u8 rc)
{
	struct mem_cgroup *old_memcg;
	struct smartt_rx_done *d;

	if (peer->rx_ndone >= SMARTT_RX_DONE_MAX) {
		smartt_rx_done_free(peer, list_first_entry(&peer->rx_done,
							   struct smartt_rx_done, node));
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_RX_DONE_DROPPED);
	}
	/* charged to the socket's memory cgroup, as the peer is */
	old_memcg = set_active_memcg(sk->sk_memcg);
	d = kmalloc(sizeof(*d), GFP_ATOMIC | __GFP_ACCOUNT);
	set_active_memcg(old_memcg);
	if (!d) {
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_RX_DONE_DROPPED);
		return;
	}
	d->id = id;
	d->psn_hi = psn_hi;
	d->len = len;
	d->rc = rc;
	rb_add(&d->idnode, &peer->rx_done_ids, smartt_rx_done_less);
	list_add_tail(&d->node, &peer->rx_done);
	peer->rx_ndone++;
}

/**
 * smartt_rx_done_clear() - forget the outcomes the sender cleared
 * @peer: the sender (its socket locked)
 * @clear: the first PSN its last DATA did not clear (CLEAR_PSN + 1)
 *
 * From the oldest on, while their last PSN is cleared: the sender had
 * their responses.  O(1) per outcome forgotten.
 */
void smartt_rx_done_clear(struct smartt_peer *peer, u64 clear)
{
	struct smartt_rx_done *d;

	while ((d = list_first_entry_or_null(&peer->rx_done, struct smartt_rx_done, node)) &&
	       d->psn_hi < clear)
		smartt_rx_done_free(peer, d);
}

/**
 * smartt_rx_done_purge() - forget every outcome (a new sender PDC, or the
 *	peer is freed)
 * @peer: the sender (its socket locked)
 */
void smartt_rx_done_purge(struct smartt_peer *peer)
{
	struct smartt_rx_done *d, *tmp;

	list_for_each_entry_safe(d, tmp, &peer->rx_done, node)
		smartt_rx_done_free(peer, d);
}

/**
 * smartt_rx_done_rsp() - the response an ACK carries for a finished message
 *	(an ACK that carries none repeats the oldest outcome kept,
 *	smartt_send_ack())
 * @d: its outcome
 * @ai: the ACK
 */
void smartt_rx_done_rsp(const struct smartt_rx_done *d, struct smartt_ack_info *ai)
{
	ai->rsp_rc = d->rc;
	ai->rsp_id = (u16)d->id;
	ai->rsp_len = d->len;
}

/**
 * smartt_ses_errno() - what a sender reports for an SES return code
 * @rc: the return code (&enum smartt_ses_rc)
 * @why: set to the counter of that error
 *
 * Return: the negative errno, 0 for %SMARTT_SES_RC_OK, 1 for a code the
 * transport never sends (the packet is malformed).
 */
int smartt_ses_errno(u8 rc, enum smartt_stat *why)
{
	switch (rc) {
	case SMARTT_SES_RC_OK:
		return 0;
	case SMARTT_SES_RC_BAD_PID:
		*why = SMARTT_STAT_ERR_CONNREFUSED;
		return -ECONNREFUSED;
	case SMARTT_SES_RC_UNSUPPORTED_SIZE:
	case SMARTT_SES_RC_TOO_LONG:
		*why = SMARTT_STAT_ERR_MSGSIZE;
		return -EMSGSIZE;
	case SMARTT_SES_RC_CANCELLED:
		*why = SMARTT_STAT_ERR_TIMEDOUT;
		return -ETIMEDOUT;
	case SMARTT_SES_RC_DROPPED:
		*why = SMARTT_STAT_ERR_NOBUFS;
		return -ENOBUFS;
	}
	return 1;
}

/**
 * smartt_rsp_rcv() - a message's SES response, on an ACK_CC
 * @sk: socket (locked)
 * @peer: its receiver, the ACK's PDC checked
 * @r: the response (return code checked by the parser)
 *
 * Success completes a message every segment of which was sent; an error
 * fails a message being sent.  A response for no message being sent (one
 * finished already: ACKs repeat the oldest outcome the sender has not
 * cleared) is counted rx_responses_dup, anything else drop_rsp.
 */
void smartt_rsp_rcv(struct sock *sk, struct smartt_peer *peer, const struct smartt_ses_rsp *r)
{
	u8 rc = r->ver_rc & SMARTT_SES_RSP_RC_MASK;
	u16 id = ntohs(r->msg_id);
	enum smartt_stat why = SMARTT_STAT_RX_RSP;
	struct smartt_tx_msg *m;
	int err;

	m = smartt_tx_msg_find(peer, id);
	if (!m) {
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_RX_RSP_DUP);
		return;
	}
	err = smartt_ses_errno(rc, &why);
	if (err > 0 || (!err && m->next_seg < m->nsegs) ||
	    (err && rc != SMARTT_SES_RC_CANCELLED && rc != SMARTT_SES_RC_DROPPED)) {
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_DROP_RSP);
		return;
	}
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_RX_RSP);
	if (!err) {
		smartt_msg_complete(sk, peer, m);
		return;
	}
	smartt_stat_inc(sock_net(sk), why);
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_RX_ERRORS);
	smartt_msg_fail(sk, peer, id, err);
}

/**
 * smartt_rsp_query() - ask again for the responses not come
 * @sk: socket (locked)
 * @peer: the receiver
 *
 * On the retransmission timeout: each message waiting for its response
 * sends the segment it holds again (the receiver answers the duplicate
 * with the outcome it kept).  The RTO's backoff spaces the questions.
 *
 * Return: the messages asked for.
 */
u32 smartt_rsp_query(struct sock *sk, struct smartt_peer *peer)
{
	struct smartt_txseg *s;
	u32 n = 0;
	u64 psn;

	for (psn = peer->snd_una; psn < peer->snd_nxt; psn++) {
		s = &peer->win[psn % SMARTT_WIN];
		if (s->state != SMARTT_SEG_WAIT)
			continue;
		s->state = SMARTT_SEG_LOST;
		s->msg->acked--;
		peer->lost++;
		n++;
	}
	smartt_stat_add(sock_net(sk), SMARTT_STAT_RSP_QUERIES, n);
	return n;
}

/**
 * smartt_rsp_timer() - fail the messages that waited too long for a response
 * @sk: socket (locked)
 * @peer: the receiver
 * @now: time, ns
 *
 * A message every segment of which was acknowledged, with no response for
 * the socket's timeout since, fails with ETIMEDOUT (counted
 * msgs_unconfirmed): its receiver may or may not have it.
 */
void smartt_rsp_timer(struct sock *sk, struct smartt_peer *peer, u64 now)
{
	u64 tmo = smartt_sk(sk)->timeout_ns;
	struct smartt_tx_msg *m;
	struct smartt_txseg *s;
	u64 psn;

again:
	for (psn = peer->snd_una; psn < peer->snd_nxt; psn++) {
		s = &peer->win[psn % SMARTT_WIN];
		m = s->msg;
		if (s->state == SMARTT_SEG_FREE || !m || !m->wait_ns || now - m->wait_ns < tmo)
			continue;
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_RSP_TIMEDOUT);
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_ERR_TIMEDOUT);
		/* the window changed under the loop */
		if (smartt_msg_fail(sk, peer, (u16)m->id, -ETIMEDOUT))
			goto again;
	}
}
