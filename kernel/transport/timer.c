// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the timers.  A socket has one timer_list and a queue of
 * its peers by their earliest deadline (RTO, timeout, idle time, coalesced
 * ACK, probe, partial messages' expiry); the timer fires for the queue's
 * head and its work visits only the peers whose deadline came.
 * Documentation/transport.rst, "Per-peer state".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/timer.h>
#include <linux/timerqueue.h>

#include "smartt.h"
#include "transport/transport.h"

/**
 * smartt_on_rto() - the retransmission timer of a peer expired
 * @sk: socket (locked)
 * @peer: the peer
 * @now: current time, ns
 *
 * Every segment in flight is declared lost (its entropy reported to the
 * path selector) and sent again as the window allows; the RTO doubles up
 * to %SMARTT_RTO_MAX_NS.  Each message acknowledged whose SES response did
 * not come asks for it again (smartt_rsp_query()).  With nothing in flight
 * and no response missing (cc "crp": every packet left waits for its
 * reservation) nothing timed out: the window is only refilled.
 */
void smartt_on_rto(struct sock *sk, struct smartt_peer *peer, u64 now)
{
	struct smartt_txseg *s;
	u64 psn;

	if (!peer->win)
		return;
	if (smartt_rsp_query(sk, peer) && !peer->in_flight) {
		peer->rto_ns = min_t(u64, peer->rto_ns * 2, SMARTT_RTO_MAX_NS);
		peer->rto_at = 0;
		smartt_push(sk, peer);
		return;
	}
	if (!peer->in_flight) {
		peer->rto_at = 0;
		smartt_push(sk, peer);
		return;
	}
	smartt_path_on_rto(sk, peer, now);
	for (psn = peer->snd_una; psn < peer->snd_nxt; psn++) {
		s = &peer->win[psn % SMARTT_WIN];
		if (s->state != SMARTT_SEG_INFLIGHT)
			continue;
		smartt_trace_loss(sk, peer, psn, SMARTT_LOSS_RTO);
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_RTO_LOSSES);
		s->state = SMARTT_SEG_LOST;
		peer->in_flight -= s->len;
		peer->lost++;
	}
	peer->rtos++;
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_RTOS);
	smartt_rel_on_rto(sk, peer);
	smartt_cc_timeout(sk, peer, now);
	peer->rto_ns = min_t(u64, peer->rto_ns * 2, SMARTT_RTO_MAX_NS);
	peer->rto_at = 0;
	smartt_push(sk, peer);
}

/**
 * smartt_timer_arm_at() - make the socket's timer fire by a new deadline
 * @sk: socket (locked)
 * @at: the deadline, ns (ktime_get_ns())
 *
 * O(1).  A peer's deadlines come here through smartt_peer_due(), the
 * wait for receive buffer directly; the timer work arms the timer for the
 * earliest of all (smartt_timer_arm()).  The timer is never pending later
 * than any deadline.
 */
void smartt_timer_arm_at(struct sock *sk, u64 at)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	u64 now = ktime_get_ns();
	unsigned long expires;

	if (ssk->closing)
		return;
	expires = jiffies + 1 + (at > now ? nsecs_to_jiffies(at - now) : 0);
	if (!timer_pending(&ssk->timer) || time_before(expires, ssk->timer.expires))
		sk_reset_timer(sk, &ssk->timer, expires);
}

/*
 * A peer's earliest deadline: the earlier of its RTO, its CRP
 * reservations' (smartt_crp_deadline()) and the end of its timeout (no
 * progress for %SMARTT_TIMEOUT_MS) while it has messages to send, a
 * pending ACK or probe (smartt_rel_deadline()), the expiry of its oldest
 * partial message (smartt_rx_expire()), and when it has no message either
 * way, the end of its idle time (smartt_idle_ns()).  So every peer has
 * one, and is queued from its creation until it is freed.
 */
static u64 smartt_peer_deadline(struct sock *sk, struct smartt_peer *p)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	u64 at = smartt_rel_deadline(sk, p);

	if (!list_empty(&p->rx_msgs))
		at = min(at, list_first_entry(&p->rx_msgs, struct smartt_rx_msg,
					      node)->last_ns + ssk->timeout_ns);
	if (list_empty(&p->tx_msgs)) {
		if (list_empty(&p->rx_msgs))
			at = min(at, p->last_active + smartt_idle_ns(ssk));
		return at;
	}
	if (p->rto_at)
		at = min(at, p->rto_at);
	at = min(at, smartt_crp_deadline(p));
	return min(at, p->last_progress + ssk->timeout_ns);
}

/* Queue @p in the socket's deadline queue at @at (not before). */
static void smartt_due_queue(struct smartt_sock *ssk, struct smartt_peer *p, u64 at)
{
	if (timerqueue_node_queued(&p->due))
		timerqueue_del(&ssk->due, &p->due);
	p->due.expires = (ktime_t)min_t(u64, at, KTIME_MAX);
	timerqueue_add(&ssk->due, &p->due);
}

/**
 * smartt_peer_due() - a peer has a new deadline
 * @sk: socket (locked)
 * @peer: the peer
 * @at: the deadline, ns (ktime_get_ns())
 *
 * Whoever makes a deadline, or moves one earlier, calls it; a deadline
 * moved later needs nothing (the timer work finds out when the old one
 * comes).  The peer's place in the socket's deadline queue moves only
 * when @at is earlier than it: O(log peers), and O(1) for the usual case
 * of a deadline later than the one queued.
 */
void smartt_peer_due(struct sock *sk, struct smartt_peer *peer, u64 at)
{
	struct smartt_sock *ssk = smartt_sk(sk);

	if (timerqueue_node_queued(&peer->due) && (u64)peer->due.expires <= at)
		return;
	smartt_due_queue(ssk, peer, at);
	smartt_timer_arm_at(sk, at);
}

/**
 * smartt_peer_due_unlink() - take a peer out of the deadline queue
 * @sk: socket (locked)
 * @peer: the peer, about to be freed
 */
void smartt_peer_due_unlink(struct sock *sk, struct smartt_peer *peer)
{
	if (timerqueue_node_queued(&peer->due))
		timerqueue_del(&smartt_sk(sk)->due, &peer->due);
}

/**
 * smartt_peers_due_reset() - queue every peer at its deadline again
 * @sk: socket (locked)
 *
 * For a change that moves every peer's deadlines (the socket's timeout):
 * O(peers), for socket options only.
 */
void smartt_peers_due_reset(struct sock *sk)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_peer *p;

	list_for_each_entry(p, &ssk->peers, node)
		smartt_due_queue(ssk, p, smartt_peer_deadline(sk, p));
	smartt_timer_arm(sk);
}

/**
 * smartt_timer_arm() - arm the socket's timer for its earliest deadline
 * @sk: socket (locked)
 *
 * The earliest peer in the deadline queue, and the end of a wait for
 * receive buffer (smartt_rx_wait_expired()).  O(1).
 */
void smartt_timer_arm(struct sock *sk)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct timerqueue_node *n = timerqueue_getnext(&ssk->due);
	u64 at = n ? (u64)n->expires : U64_MAX;

	if (ssk->rx_wait_since)
		at = min(at, ssk->rx_wait_since + ssk->timeout_ns / 2);
	if (at != U64_MAX)
		smartt_timer_arm_at(sk, at);
}

/*
 * Free a partial message, keep its outcome (its sender may ask for it,
 * ses.c) and tell its sender why.
 */
static void smartt_rx_drop_msg(struct sock *sk, struct smartt_peer *p,
			       struct smartt_rx_msg *m, u8 rc, enum smartt_stat why)
{
	smartt_stat_inc(sock_net(sk), why);
	smartt_send_error_peer(sk, p, m->id, rc);
	smartt_rx_done_add(sk, p, m->id, m->psn_hi, m->len, rc);
	smartt_rx_msg_free(sk, p, m);
}

/*
 * A partial message that got no new segment for the socket's timeout is
 * freed (its sender is gone or stuck), and its sender told.
 */
static void smartt_rx_expire(struct sock *sk, struct smartt_peer *p, u64 now)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_rx_msg *m;

	while ((m = list_first_entry_or_null(&p->rx_msgs, struct smartt_rx_msg, node)) &&
	       now - m->last_ns >= ssk->timeout_ns)
		smartt_rx_drop_msg(sk, p, m, SMARTT_SES_RC_CANCELLED, SMARTT_STAT_RX_EXPIRED);
}

/*
 * A new message refused for want of buffer while others are reassembled
 * waits at most half the socket's timeout (so that a sender with the same
 * timeout does not give up first): then the host (address) holding the
 * largest reservation loses the partial messages of all its peers, so that
 * no sender keeps the buffer from the others by trickling segments from
 * one port or many, and for another timeout only the waiter's host may
 * start a message.  The waiter is never of the host evicted (a host with
 * a message in reassembly does not wait, smartt_rcv_data()).  Each freed
 * message's sender gets an error.  The search walks every host, at most
 * once per half timeout.
 */
static void smartt_rx_wait_expired(struct sock *sk, u64 now)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_host *h, *hog = NULL;
	struct smartt_rx_msg *m, *tmp;
	struct smartt_peer *p;
	unsigned int b;

	if (!ssk->rx_wait_since || now - ssk->rx_wait_since < ssk->timeout_ns / 2)
		return;
	ssk->rx_wait_since = 0;
	for (b = 0; b < ARRAY_SIZE(ssk->host_hash); b++)
		hlist_for_each_entry(h, &ssk->host_hash[b], hnode)
			if (h->rx_charge && (!hog || h->rx_charge > hog->rx_charge))
				hog = h;
	if (!hog)
		return;
	list_for_each_entry(p, &hog->peers, host_node)
		list_for_each_entry_safe(m, tmp, &p->rx_msgs, node)
			smartt_rx_drop_msg(sk, p, m, SMARTT_SES_RC_DROPPED,
					   SMARTT_STAT_RX_EVICTED);
	/*
	 * For a timeout, only the waiter's host may start a message: its RTO
	 * (at most SMARTT_RTO_MAX_NS) brings it back before anyone else,
	 * the evicted host included, takes the buffer again.
	 */
	ssk->rx_grace_until = now + ssk->timeout_ns;
	ssk->rx_grace_for = ssk->rx_waiter;
}

/* The timer work of one peer whose deadline came. */
static void smartt_peer_timer(struct sock *sk, struct smartt_peer *p, u64 now)
{
	struct smartt_sock *ssk = smartt_sk(sk);

	smartt_rx_expire(sk, p, now);
	smartt_rel_timer(sk, p, now);
	if (p->win)
		smartt_rsp_timer(sk, p, now);
	if (list_empty(&p->tx_msgs)) {
		p->rto_at = 0;
	} else if (now - p->last_progress >= ssk->timeout_ns) {
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_ERR_TIMEDOUT);
		smartt_peer_fail(sk, p, -ETIMEDOUT);
	} else {
		if (p->rto_at && now >= p->rto_at)
			smartt_on_rto(sk, p, now);
		smartt_crp_timer(sk, p, now);
	}
}

/*
 * Only the peers whose deadline came are visited, each once: each is
 * queued again at its next deadline (after now if that came too: it is
 * done at the next run, a jiffy later).  Idle peers are reclaimed last
 * (smartt_peers_gc()).
 */
static void smartt_timer_work(struct sock *sk)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct timerqueue_node *n;
	struct smartt_peer *p;
	u64 now = ktime_get_ns(), at;

	smartt_rx_wait_expired(sk, now);
	while ((n = timerqueue_getnext(&ssk->due)) && (u64)n->expires <= now) {
		p = container_of(n, struct smartt_peer, due);
		timerqueue_del(&ssk->due, n);
		smartt_peer_timer(sk, p, now);
		/* the work may have queued it again, for one deadline of several */
		at = smartt_peer_deadline(sk, p);
		if (timerqueue_node_queued(&p->due))
			at = min_t(u64, at, p->due.expires);
		smartt_due_queue(ssk, p, max(at, now + 1));
	}
	smartt_peers_gc(sk, now);
	smartt_timer_arm(sk);
}

/**
 * smartt_timer_fn() - the socket's retransmission and timeout timer
 * @t: &struct smartt_sock.timer
 *
 * Runs in softirq context; when a user owns the socket it tries again a
 * jiffy later.
 */
void smartt_timer_fn(struct timer_list *t)
{
	struct smartt_sock *ssk = from_timer(ssk, t, timer);
	struct sock *sk = &ssk->inet.sk;

	bh_lock_sock(sk);
	if (ssk->closing)
		goto out;
	if (sock_owned_by_user(sk)) {
		sk_reset_timer(sk, &ssk->timer, jiffies + 1);
		goto out;
	}
	smartt_timer_work(sk);
out:
	bh_unlock_sock(sk);
	sock_put(sk);
}
