// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the reliability modes (SMARTT_RELIABILITY).
 *
 * Both modes: what an ACK acknowledges (cumulative PSN and SACK bitmap),
 * and the packet a NACK names is lost.
 *
 * "sack": every DATA packet is acknowledged at once; the sender declares a
 * packet lost when SMARTT_DUPTHRESH newer ones are SACKed.
 *
 * "strack" (strack.txt 3.3): the receiver coalesces ACKs (one after
 * SMARTT_ACK_BYTES payload bytes, at once on the PDS AR flag, on a
 * retransmission, on a CE mark, on the first packet, on the packet that
 * fills the hole at the expected PSN, on a PROBE; the timer sends a
 * pending one after SMARTT_ACK_DELAY_NS) and reports its out-of-order
 * count in every ACK; the sender infers losses three ways: the
 * out-of-order count above max(cwnd in packets, 5), a probe after
 * SMARTT_PROBE_RTTS base RTTs without an ACK whose answer comes back fast
 * while nothing else did, and the RTO.  A NACK (trimmed packet) stays the
 * fast path in both modes.  Documentation/transport.rst, "Reliability".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/udp.h>

#include "cc/cc_glue.h"
#include "smartt.h"
#include "transport/rx.h"
#include "transport/transport.h"

#define CREATE_TRACE_POINTS
#include "transport/trace.h"

#define SMARTT_PROBE_HEADROOM \
	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + sizeof(struct udphdr))

/**
 * smartt_trace_loss() - tracepoint smartt_loss for one packet
 * @sk: socket (locked)
 * @peer: the peer
 * @psn: the packet declared lost
 * @why: SMARTT_LOSS_*
 */
void smartt_trace_loss(struct sock *sk, struct smartt_peer *peer, u64 psn, u8 why)
{
	trace_smartt_loss(smartt_sk(sk)->port, peer->port, psn, why, peer->snd_una,
			  peer->snd_nxt, peer->in_flight, peer->cwnd);
}

/**
 * smartt_trace_rtx() - tracepoint smartt_retransmit for one packet
 * @sk: socket (locked)
 * @peer: the peer
 * @psn: the packet sent again
 */
void smartt_trace_rtx(struct sock *sk, struct smartt_peer *peer, u64 psn)
{
	trace_smartt_retransmit(smartt_sk(sk)->port, peer->port, psn, peer->lost,
				peer->in_flight, peer->cwnd);
}

/**
 * smartt_rel_strack() - does the socket use "strack" reliability?
 * @ssk: socket
 *
 * Return: true for "strack" (set, or the default with cc strack).
 */
bool smartt_rel_strack(const struct smartt_sock *ssk)
{
	u8 rel = READ_ONCE(ssk->rel);

	if (rel == SMARTT_REL_AUTO)
		return READ_ONCE(ssk->cc_algo) == SMARTT_CCA_STRACK;
	return rel == SMARTT_REL_STRACK;
}

/**
 * smartt_rel_name() - the name SMARTT_RELIABILITY reports
 * @ssk: socket
 *
 * Return: "sack" or "strack" (the mode in effect).
 */
const char *smartt_rel_name(const struct smartt_sock *ssk)
{
	return smartt_rel_strack(ssk) ? "strack" : "sack";
}

/**
 * smartt_rel_set() - setsockopt(SMARTT_RELIABILITY)
 * @sk: socket
 * @optval: "sack" or "strack"
 * @optlen: its length (with or without the NUL)
 *
 * Every peer leaves loss recovery and forgets its probe; a pending
 * coalesced ACK still goes when its time comes.
 *
 * Return: 0, -EINVAL for another name, -EFAULT.
 */
int smartt_rel_set(struct sock *sk, sockptr_t optval, unsigned int optlen)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	char name[SMARTT_REL_NAME_MAX] = {};
	struct smartt_peer *p;
	u8 rel;

	if (!optlen || optlen > sizeof(name))
		return -EINVAL;
	if (copy_from_sockptr(name, optval, optlen))
		return -EFAULT;
	name[sizeof(name) - 1] = 0;
	if (!strcmp(name, "sack"))
		rel = SMARTT_REL_SACK;
	else if (!strcmp(name, "strack"))
		rel = SMARTT_REL_STRACK;
	else
		return -EINVAL;
	lock_sock(sk);
	WRITE_ONCE(ssk->rel, rel);
	list_for_each_entry(p, &ssk->peers, node) {
		p->rel.rec_end = 0;
		p->rel.probe_at = 0;
		p->rel.probe_sent = 0;
		smartt_push(sk, p);
	}
	release_sock(sk);
	return 0;
}

/*
 * STrack's net_base_rtt: the configured network RTT
 * (net.smartt.tcp_network_rtt_us), or the smallest RTT measured to the
 * peer when that is larger (a fabric slower than its description, or a
 * host RTT that includes the hosts' delays).
 */
static u64 smartt_rel_base(const struct sock *sk, const struct smartt_peer *peer)
{
	u64 net;

	rcu_read_lock();
	net = smartt_cc_cfg_get(sk)->p.tp.k.network_rtt;
	rcu_read_unlock();
	return max(net, peer->rel.rtt_min);
}

/**
 * smartt_rel_data_ar() - does a DATA packet about to be sent ask for an ACK?
 * @sk: socket (locked)
 * @peer: the peer
 * @psn: the packet (its slot is filled; counted in in_flight, snd_nxt past it)
 * @rtx: a retransmission
 *
 * "strack": the PDS AR flag on a retransmission, when the window (cwnd or
 * the PSN window) cannot take another full packet, and on the last packet
 * of the last message queued: a coalescing receiver then never sits on the
 * ACK the sender waits for (uet-htsim sets AR the same way).
 *
 * Return: true to set AR.
 */
bool smartt_rel_data_ar(struct sock *sk, struct smartt_peer *peer, u64 psn, bool rtx)
{
	const struct smartt_txseg *s = &peer->win[psn % SMARTT_WIN];

	if (!smartt_rel_strack(smartt_sk(sk)))
		return false;
	if (rtx || peer->in_flight + peer->mss > peer->cwnd ||
	    peer->snd_nxt - peer->snd_una >= SMARTT_WIN)
		return true;
	return s->seg + 1 >= s->msg->nsegs && list_is_last(&s->msg->node, &peer->tx_msgs);
}

/**
 * smartt_rel_data_ack() - acknowledge a DATA packet now or later
 * @sk: socket (locked)
 * @peer: its sender
 * @ai: the packet
 * @ar: it carried the PDS AR flag
 * @plen: its payload bytes
 * @old_rcv_nxt: rcv_nxt before it was accepted
 *
 * "sack", or SMARTT_ACK_BYTES 0: at once.  "strack": at once on the
 * triggers above (see the file comment), otherwise later: the next ACK
 * covers it (SACK bitmap and counters are cumulative; its service_time
 * counts the wait, so the sender's RTT does not).
 */
void smartt_rel_data_ack(struct sock *sk, struct smartt_peer *peer,
			 const struct smartt_ack_info *ai, bool ar, u32 plen,
			 u64 old_rcv_nxt)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	u32 lim = READ_ONCE(ssk->ack_bytes);
	struct smartt_rel *r = &peer->rel;
	u64 psn = ai->psn;

	if (!smartt_rel_strack(ssk) || !lim || ai->ce || ar || ai->retx ||
	    peer->rcv_bytes == plen ||
	    (psn == old_rcv_nxt && peer->rcv_nxt > psn + 1) ||
	    r->ack_pending + plen >= lim) {
		if (smartt_rel_strack(ssk) && ar)
			smartt_stat_inc(sock_net(sk), SMARTT_STAT_ACKS_REQUESTED);
		smartt_send_ack(sk, peer, ai);
		return;
	}
	/* lim <= SMARTT_ACK_BYTES_MAX: no overflow */
	r->ack_pending += plen;
	r->ack_psn = psn;
	r->ack_rx_ns = ai->rx_ns;
	r->ack_flow = ai->flow;
	r->ack_usport = ai->usport;
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_ACKS_COALESCED);
	if (!r->ack_due) {
		r->ack_due = ktime_get_ns() + SMARTT_ACK_DELAY_NS;
		smartt_peer_due(sk, peer, r->ack_due);
	}
}

/**
 * smartt_rel_ack_sent() - an ACK or NACK went to the peer
 * @peer: the peer
 *
 * It carried the whole receive state: nothing is pending any more.
 */
void smartt_rel_ack_sent(struct smartt_peer *peer)
{
	peer->rel.ack_pending = 0;
	peer->rel.ack_due = 0;
}

/*
 * Enter loss recovery: every packet in [snd_una, @end) in flight, not
 * acknowledged, sent before @before, is declared lost; recovery lasts
 * until snd_una reaches @end.  Return: packets declared lost.
 */
static u32 smartt_rel_recover(struct sock *sk, struct smartt_peer *peer, u64 end,
			      u8 why, u64 before, u64 now)
{
	u32 n = 0;
	u64 p;

	for (p = peer->snd_una; p < end && p < peer->snd_nxt; p++) {
		struct smartt_txseg *s = &peer->win[p % SMARTT_WIN];

		if (s->state != SMARTT_SEG_INFLIGHT || s->psn != p || s->sent_ns >= before)
			continue;
		smartt_trace_loss(sk, peer, p, why);
		smartt_path_on_lost(sk, peer, s->entropy, now);
		s->state = SMARTT_SEG_LOST;
		peer->in_flight -= s->len;
		peer->lost++;
		n++;
	}
	if (n)
		peer->rel.rec_end = max(peer->rel.rec_end, end);
	return n;
}

/*
 * A PSN was acknowledged; false if it already was.  Adds its bytes.  The
 * last segment of a message to be acknowledged holds its slot
 * (%SMARTT_SEG_WAIT) until the message's SES response comes (ses.c).
 */
static bool smartt_seg_acked(struct sock *sk, struct smartt_peer *peer, u64 psn,
			     u64 *bytes)
{
	struct smartt_txseg *s = &peer->win[psn % SMARTT_WIN];

	/* A late ACK may name a PSN whose slot a newer PSN now uses. */
	if (psn < peer->snd_una || s->psn != psn)
		return false;
	switch (s->state) {
	case SMARTT_SEG_INFLIGHT:
		peer->in_flight -= s->len;
		break;
	case SMARTT_SEG_LOST:
		peer->lost--;
		break;
	default:
		return false;
	}
	s->state = smartt_msg_acked(s->msg) ? SMARTT_SEG_WAIT : SMARTT_SEG_FREE;
	*bytes += s->len;
	return true;
}

/**
 * smartt_rel_acked() - what an ACK or NACK acknowledges
 * @sk: socket (locked)
 * @peer: the peer it came from (with a window)
 * @rcv_nxt: the receiver's next expected PSN (CACK_PSN + 1), extended, at
 *	most snd_nxt
 * @sack_base: the PSN of bit 0 of @sack, extended
 * @sack: the 64-bit SACK bitmap (0: none)
 * @acked: incremented by the payload bytes newly acknowledged
 * @highest: set to the highest PSN newly SACKed (unchanged if none)
 *
 * Every PSN below @rcv_nxt and every one the bitmap names is acknowledged,
 * once, merged into the sender's %SMARTT_WIN window; snd_una moves past
 * them, up to the first slot a message waiting for its response holds.
 *
 * Return: true if anything was newly acknowledged.
 */
bool smartt_rel_acked(struct sock *sk, struct smartt_peer *peer, u64 rcv_nxt,
		      u64 sack_base, u64 sack, u64 *acked, u64 *highest)
{
	bool progress = false;
	unsigned int i;
	u64 p;

	for (p = peer->snd_una; p < rcv_nxt; p++)
		progress |= smartt_seg_acked(sk, peer, p, acked);
	for (i = 0; sack && i < SMARTT_SACK_BITS; i++) {
		p = sack_base + i;
		if (!(sack & (1ULL << i)) || p < peer->snd_una)
			continue;
		if (p >= peer->snd_nxt)
			break;
		progress |= smartt_seg_acked(sk, peer, p, acked);
		*highest = max(*highest, p);
	}
	smartt_snd_una_advance(peer);
	return progress;
}

/**
 * smartt_rel_losses() - the losses an ACK or a NACK reveals at once
 * @sk: socket (locked)
 * @peer: the peer it came from
 * @nack_psn: the PSN a NACK names (it was trimmed), U64_MAX for an ACK
 * @highest: the highest PSN the ACK newly SACKed (0: none)
 * @now: time, ns
 *
 * Lost: the packet a NACK names, and with "sack" reliability every packet
 * with %SMARTT_DUPTHRESH newer ones SACKed, unless it was (re)sent less
 * than an srtt ago.  "strack" reliability infers its other losses in
 * smartt_rel_on_ack() instead.
 *
 * Return: the NACKed packet's payload bytes (at least 1), 0 if none.
 */
u32 smartt_rel_losses(struct sock *sk, struct smartt_peer *peer, u64 nack_psn,
		      u64 highest, u64 now)
{
	bool nack = nack_psn != U64_MAX;
	u32 nacked_len = 0;
	u64 limit, p;

	limit = highest >= SMARTT_DUPTHRESH && !smartt_rel_strack(smartt_sk(sk)) ?
		highest - SMARTT_DUPTHRESH + 1 : 0;
	for (p = peer->snd_una; p < peer->snd_nxt; p++) {
		struct smartt_txseg *s = &peer->win[p % SMARTT_WIN];
		bool nacked = p == nack_psn;

		if (p >= limit && !nacked) {
			if (nack && p < nack_psn)
				continue;
			break;
		}
		if (s->state != SMARTT_SEG_INFLIGHT)
			continue;
		if (!nacked && s->sent_ns + peer->srtt_ns > now)
			continue;
		if (!nacked) {
			smartt_stat_inc(sock_net(sk), SMARTT_STAT_FAST_RETRANSMITS);
			smartt_path_on_lost(sk, peer, s->entropy, now);
		} else {
			nacked_len = max_t(u32, s->len, 1);
		}
		smartt_trace_loss(sk, peer, p, nacked ? SMARTT_LOSS_NACK : SMARTT_LOSS_SACK);
		s->state = SMARTT_SEG_LOST;
		peer->in_flight -= s->len;
		peer->lost++;
	}
	return nacked_len;
}

/*
 * A probe's answer: faster than %SMARTT_PROBE_FAST_RTTS base RTTs, with
 * nothing acknowledged since the probe left, means that the packets sent
 * before it are not queued but gone.
 */
static void smartt_rel_probe_answer(struct sock *sk, struct smartt_peer *peer,
				    u64 rtt, u64 base, bool progress, u64 now)
{
	struct smartt_rel *r = &peer->rel;
	struct net *net = sock_net(sk);
	u8 verdict;
	u32 n = 0;

	smartt_stat_inc(net, SMARTT_STAT_RX_PROBE_ACKS);
	if (!r->probe_sent)
		verdict = SMARTT_PROBE_V_STALE;
	else if (!rtt)
		verdict = SMARTT_PROBE_V_NO_RTT;
	else if (rtt >= SMARTT_PROBE_FAST_RTTS * base)
		verdict = SMARTT_PROBE_V_LATE;
	else if (progress)
		verdict = SMARTT_PROBE_V_ACKED;
	else if (peer->last_progress >= r->probe_sent)
		verdict = SMARTT_PROBE_V_ACKED_SINCE;
	else
		verdict = SMARTT_PROBE_V_LOSS;
	if (verdict == SMARTT_PROBE_V_LATE)
		smartt_stat_inc(net, SMARTT_STAT_PROBE_ACKS_LATE);
	if (verdict == SMARTT_PROBE_V_LOSS) {
		n = smartt_rel_recover(sk, peer, peer->snd_nxt, SMARTT_LOSS_PROBE,
				       r->probe_sent, now);
		if (n) {
			smartt_stat_inc(net, SMARTT_STAT_PROBE_RECOVERIES);
			smartt_stat_add(net, SMARTT_STAT_PROBE_LOSSES, n);
		}
	}
	trace_smartt_probe(smartt_sk(sk)->port, peer->port, verdict, peer->snd_una,
			   peer->snd_nxt, rtt, base,
			   r->probe_sent ? now - r->probe_sent : 0, n);
	r->probe_sent = 0;
}

/**
 * smartt_rel_on_ack() - the reliability side of an ACK or NACK
 * @sk: socket (locked)
 * @peer: the peer
 * @probe: an ACK answering a probe (%SMARTT_PDS_ACK_F_P)
 * @opaque: its probe_opaque
 * @ooo: the receiver's out-of-order count (NSCC ooo_count)
 * @highest: highest PSN its SACK bitmap names (0: none)
 * @rtt: host RTT sample, the packet's send time to now (0: none)
 * @progress: it acknowledged something new
 * @now: time, ns
 *
 * Called after the ACK freed what it acknowledges and before the caller
 * refills the window.  "strack": ends a recovery that reached its end,
 * infers losses from the out-of-order count (more than max(cwnd in
 * packets, %SMARTT_OOO_MIN), at most half the PSN window, which bounds
 * what the receiver can count) and from a probe's answer (faster than
 * %SMARTT_PROBE_FAST_RTTS base RTTs, nothing acknowledged since the probe
 * left: the packets sent before it are not queued, they are gone), and
 * re-arms the probe timer.
 */
void smartt_rel_on_ack(struct sock *sk, struct smartt_peer *peer, bool probe,
		       u16 opaque, u32 ooo, u64 highest, u64 rtt, bool progress,
		       u64 now)
{
	struct smartt_rel *r = &peer->rel;
	struct net *net = sock_net(sk);
	u64 base, thresh, armed;
	u32 n;

	if (rtt)
		r->rtt_min = r->rtt_min ? min(r->rtt_min, rtt) : rtt;
	r->last_ack = now;
	if (!smartt_rel_strack(smartt_sk(sk)))
		return;
	if (r->rec_end && peer->snd_una >= r->rec_end)
		r->rec_end = 0;
	base = smartt_rel_base(sk, peer);

	if (probe && opaque == r->probe_opaque) {
		smartt_rel_probe_answer(sk, peer, rtt, base, progress, now);
	} else if (probe) {
		/*
		 * The answer to an earlier probe: a later one left at least
		 * %SMARTT_PROBE_RTTS base RTTs after it, so it is late.
		 */
		smartt_stat_inc(net, SMARTT_STAT_RX_PROBE_ACKS);
		smartt_stat_inc(net, SMARTT_STAT_PROBE_ACKS_LATE);
		trace_smartt_probe(smartt_sk(sk)->port, peer->port, SMARTT_PROBE_V_LATE,
				   peer->snd_una, peer->snd_nxt, 0, base, 0, 0);
	}

	thresh = clamp_t(u64, div64_u64(peer->cwnd, max_t(u32, peer->mss, 1)),
			 SMARTT_OOO_MIN, SMARTT_WIN / 2);
	if (!r->rec_end && highest > peer->snd_una && ooo > thresh) {
		n = smartt_rel_recover(sk, peer, highest, SMARTT_LOSS_OOO, U64_MAX,
				       now);
		if (n) {
			smartt_stat_inc(net, SMARTT_STAT_OOO_RECOVERIES);
			smartt_stat_add(net, SMARTT_STAT_OOO_LOSSES, n);
		}
	}

	/* Algorithm 1 line 9: silence is counted from the last ACK. */
	armed = r->probe_at;
	r->probe_at = 0;
	if (peer->snd_una < peer->snd_nxt) {
		r->probe_at = now + SMARTT_PROBE_RTTS * base;
		if (!armed)
			smartt_peer_due(sk, peer, r->probe_at);
	}
}

/**
 * smartt_rel_sent() - the window was refilled
 * @sk: socket (locked)
 * @peer: the peer
 * @now: time, ns
 *
 * "strack": arms the probe timer when data is outstanding and it is not
 * armed yet.
 */
void smartt_rel_sent(struct sock *sk, struct smartt_peer *peer, u64 now)
{
	struct smartt_rel *r = &peer->rel;

	if (r->probe_at || peer->snd_una == peer->snd_nxt ||
	    !smartt_rel_strack(smartt_sk(sk)))
		return;
	r->probe_at = now + SMARTT_PROBE_RTTS * smartt_rel_base(sk, peer);
	smartt_peer_due(sk, peer, r->probe_at);
}

/**
 * smartt_rel_rto_min() - the shortest RTO the reliability mode allows
 * @sk: socket
 * @peer: the peer
 *
 * "strack" finds a lost tail with a probe, sent %SMARTT_PROBE_RTTS base
 * RTTs after the last ACK and answered within %SMARTT_PROBE_FAST_RTTS: the
 * RTO must leave it that time, and one base RTT more for the receiver's
 * ACK coalescing, or on a fabric whose base RTT is above a sixth of
 * %SMARTT_RTO_MIN_NS it would always come first.
 *
 * Return: (%SMARTT_PROBE_RTTS + %SMARTT_PROBE_FAST_RTTS + 1) base RTTs,
 * at most %SMARTT_RTO_MAX_NS, for "strack"; 0 otherwise.
 */
u64 smartt_rel_rto_min(const struct sock *sk, const struct smartt_peer *peer)
{
	if (!smartt_rel_strack(smartt_sk(sk)))
		return 0;
	return min_t(u64, (SMARTT_PROBE_RTTS + SMARTT_PROBE_FAST_RTTS + 1) *
		     smartt_rel_base(sk, peer), SMARTT_RTO_MAX_NS);
}

/**
 * smartt_rel_on_rto() - the RTO declared every packet in flight lost
 * @sk: socket (locked)
 * @peer: the peer
 *
 * The recovery in progress, if any, is over; the next ACK starts afresh.
 */
void smartt_rel_on_rto(struct sock *sk, struct smartt_peer *peer)
{
	peer->rel.rec_end = 0;
	peer->rel.probe_sent = 0;
}

/*
 * A PDS CTRL PROBE: probe_opaque numbers it, PSN is the next PSN (a probe
 * takes none), the payload the SACK base asked for (snd_una).  Only a PDC
 * the peer answered once is probed (a probe has no SYN form here).
 */
static void smartt_send_probe(struct sock *sk, struct smartt_peer *peer, u64 now)
{
	struct smartt_tx_opts o = {};
	struct net *net = sock_net(sk);
	struct smartt_pds_ctrl *c;
	struct sk_buff *skb;

	skb = alloc_skb(SMARTT_PROBE_HEADROOM + SMARTT_CTRL_LEN + SMARTT_CRC_LEN, GFP_ATOMIC);
	if (!skb) {
		smartt_stat_inc(net, SMARTT_STAT_TX_FAIL);
		return;
	}
	skb_reserve(skb, SMARTT_PROBE_HEADROOM);
	/* a path of the selector's, fed back by the answer like an ACK */
	o.entropy = smartt_path_next(sk, peer, peer->snd_una, 0, true);
	peer->rel.probe_entropy = o.entropy;
	peer->rel.probe_opaque++;
	c = skb_put_zero(skb, SMARTT_CTRL_LEN);
	c->prologue = smartt_pds_prologue(SMARTT_PDS_CTRL, SMARTT_PDS_CTL_PROBE,
					  SMARTT_PDS_CTRL_F_AR);
	c->probe_opaque = htons(peer->rel.probe_opaque);
	c->psn = htonl((u32)peer->snd_nxt);
	c->spdcid = htons(peer->tx_lpdcid);
	c->dpdcid = htons(peer->tx_rpdcid);
	c->payload = htonl((u32)peer->snd_una);
	smartt_stat_inc(net, SMARTT_STAT_TX_PROBES);
	o.dscp = smartt_dscp(net, SMARTT_DSCP_C_CONTROL);
	o.crc = true;
	smartt_xmit(net, NULL, peer->family, &peer->dst_cache, &peer->saddr,
		    &peer->addr, skb, &o);
}

/**
 * smartt_rel_deadline() - the peer's next reliability deadline
 * @sk: socket (locked)
 * @peer: the peer
 *
 * Return: the earlier of a pending ACK's and the probe's time (ns), or
 * U64_MAX.
 */
u64 smartt_rel_deadline(const struct sock *sk, const struct smartt_peer *peer)
{
	u64 at = U64_MAX;

	if (peer->rel.ack_due)
		at = peer->rel.ack_due;
	if (peer->rel.probe_at)
		at = min(at, peer->rel.probe_at);
	return at;
}

/**
 * smartt_rel_timer() - the socket timer's reliability work for one peer
 * @sk: socket (locked)
 * @peer: the peer
 * @now: time, ns
 *
 * Sends a pending coalesced ACK whose time came (its service_time counts
 * the wait), and a probe whose time came (or, with nothing in flight and
 * only SES responses missing, the segments held for them), then re-arms
 * the probe for a retry %SMARTT_PROBE_RTTS base RTTs later.
 */
void smartt_rel_timer(struct sock *sk, struct smartt_peer *peer, u64 now)
{
	struct smartt_rel *r = &peer->rel;
	u64 base;

	if (r->ack_due && now >= r->ack_due) {
		struct smartt_ack_info ai = {
			.psn = r->ack_psn,
			.rx_ns = r->ack_rx_ns,
			.flow = r->ack_flow,
			.usport = r->ack_usport,
		};

		smartt_stat_inc(sock_net(sk), SMARTT_STAT_ACKS_DELAYED);
		/* the packet may have left the window since (a reset) */
		if (ai.psn + SMARTT_WIN >= peer->rcv_nxt)
			smartt_send_ack(sk, peer, &ai);
		else
			smartt_rel_ack_sent(peer);
	}
	if (!r->probe_at || now < r->probe_at)
		return;
	r->probe_at = 0;
	if (!smartt_rel_strack(smartt_sk(sk)) || peer->snd_una == peer->snd_nxt ||
	    list_empty(&peer->tx_msgs) || !peer->tx_est)
		return;
	base = smartt_rel_base(sk, peer);
	/*
	 * Nothing in flight, only responses missing: the held segments are
	 * sent again instead (smartt_rsp_query()), whose duplicates the
	 * receiver answers with the outcomes it kept.
	 */
	if (!peer->in_flight && !peer->lost && smartt_rsp_query(sk, peer)) {
		smartt_push(sk, peer);
		r->probe_at = now + SMARTT_PROBE_RTTS * base;
		return;
	}
	smartt_send_probe(sk, peer, now);
	trace_smartt_probe(smartt_sk(sk)->port, peer->port, SMARTT_PROBE_V_SENT,
			   peer->snd_una, peer->snd_nxt, 0, base, 0, 0);
	r->probe_sent = now;
	r->probe_at = now + SMARTT_PROBE_RTTS * base;
}

/**
 * smartt_probe_valid() - the checks of a CTRL that need no state
 * @skb: the packet, data at the UDP header, its headers there (its CTRL
 *	type, PROBE, checked by the parser)
 *
 * smartt probes only established PDCs, never as a ROD PDC.
 *
 * Return: 0 or the reason to drop it.
 */
enum smartt_stat smartt_probe_valid(const struct sk_buff *skb)
{
	const struct smartt_pds_ctrl *c = smartt_pds_of(skb);
	u8 flags = smartt_pds_flags(c->prologue);

	if (flags & (SMARTT_PDS_CTRL_F_SYN | SMARTT_PDS_CTRL_F_ISROD) || !c->spdcid)
		return SMARTT_STAT_DROP_FIELD;
	return 0;
}

/**
 * smartt_rcv_probe() - answer a PROBE
 * @sk: the socket (locked)
 * @peer: the receiver's peer of the probe's PDC (smartt_ctl_peer())
 * @skb: the probe (headers validated, &struct smartt_skb_cb filled)
 *
 * The probe's payload is the prober's snd_una, its PSN the prober's
 * snd_nxt: both must lie in the receive window, as a DATA packet's
 * CLEAR_PSN and PSN (``drop_window``), so that an answer (36 bytes for 20)
 * goes only to a probe that named the PDC's ids and its PSNs.  rcv_nxt
 * moves up to the payload and the outcomes below it are forgotten (as
 * CLEAR_PSN does with DATA); the answer is an ACK_CC with the P flag and
 * the probe's probe_opaque, sent at once with the whole receive state.
 *
 * Return: 0 (the packet is consumed).
 */
int smartt_rcv_probe(struct sock *sk, struct smartt_peer *peer, struct sk_buff *skb)
{
	const struct smartt_pds_ctrl *c = (const void *)(skb->data + sizeof(struct udphdr));
	struct smartt_skb_cb *cb = SMARTT_SKB_CB(skb);
	struct net *net = sock_net(sk);
	struct smartt_ack_info ai = {
		.rx_ns = cb->rx_ns,
		.flow = cb->flow,
		.usport = cb->usport,
		.ce = cb->ce,
		.probe = true,
		.opaque = ntohs(c->probe_opaque),
	};
	u64 una = smartt_psn_extend(ntohl(c->payload), peer->rcv_nxt);
	u64 nxt = smartt_psn_extend(ntohl(c->psn), una);

	if (una + SMARTT_WIN < peer->rcv_nxt || una > peer->rcv_nxt + SMARTT_WIN ||
	    nxt < una || nxt - una > SMARTT_WIN) {
		smartt_stat_inc(net, SMARTT_STAT_DROP_WINDOW);
		kfree_skb(skb);
		return 0;
	}
	smartt_peer_touch(sk, peer, ktime_get_ns());
	if (una > peer->rcv_nxt)
		smartt_rx_advance(peer, una);
	smartt_rx_done_clear(peer, una);
	smartt_stat_inc(net, SMARTT_STAT_RX_PROBES);
	smartt_send_ack(sk, peer, &ai);
	kfree_skb(skb);
	return 0;
}
