// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: what comes back to a sender.  ACK_CC (acknowledgment,
 * SACK, NSCC state, a message's SES response), NACK (a trimmed packet, or
 * INV_DPDCID: the other side knows no such PDC) and errors (PDS ACK + SES
 * response), each found by its DPDCID and checked against the PDC's
 * address, ids and PSNs before it changes anything.  Documentation/
 * transport.rst, "Acknowledgments, loss and RTO", "Errors" and "End-to-end
 * completion".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ipv6.h>
#include <linux/udp.h>

#include "smartt.h"
#include "transport/rx.h"
#include "transport/transport.h"
#include "transport/trace.h"

/* An SES response header: a response without data, version 0. */
static bool smartt_rsp_valid(const struct smartt_ses_rsp *r)
{
	return (r->list_opcode & SMARTT_SES_RSP_OPCODE_MASK) == SMARTT_SES_RSP_RESPONSE &&
	       !(r->ver_rc & SMARTT_SES_VER_MASK);
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

/**
 * smartt_ctl_peer() - the peer of a control packet's PDC
 * @sk: the socket (locked or owned)
 * @skb: an ACK, NACK or error (the sender's PDC) or a CTRL (the
 *	receiver's)
 * @want_tx: the role the packet's type needs
 * @spdcid: the packet's SPDCID
 * @stateless: a packet from a host without state (errors, NACK
 *	INV_DPDCID) may carry SPDCID 0; its caller checks the PSN it names
 *	instead
 *
 * The socket's peer holding the packet's DPDCID in that role, from the
 * peer's address, with the SPDCID it knows.
 *
 * Return: the peer, or NULL (the packet dropped and counted).
 */
struct smartt_peer *smartt_ctl_peer(struct sock *sk, struct sk_buff *skb,
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

/**
 * smartt_rcv_ack() - an ACK_CC or a NACK for our DATA
 * @sk: the socket (locked or owned)
 * @skb: the packet, checked by smartt_ack_valid()
 *
 * What it acknowledges, the losses it reveals, the RTT, the congestion
 * control and the path selector, and the SES response it carries.
 *
 * Return: 0 (the packet is consumed).
 */
int smartt_rcv_ack(struct sock *sk, struct sk_buff *skb)
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

/**
 * smartt_rcv_error() - an error (PDS ACK + SES response) about our messages
 * @sk: the socket (locked or owned)
 * @skb: the packet, checked by smartt_ack_valid()
 *
 * From the receiver's state (SPDCID its PDC's id, once known here): a
 * message it freed undelivered (expired, evicted), CACK_PSN within the
 * window.  From a host without state (SPDCID 0): BAD_PID (no socket; every
 * message fails) or a message too large, naming by CACK_PSN and its offset
 * the DATA packet it answers, which must be one being sent
 * (smartt_tx_named()).
 *
 * Return: 0 (the packet is consumed).
 */
int smartt_rcv_error(struct sock *sk, struct sk_buff *skb)
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
 * smartt_ack_valid() - the checks of an ACK_CC, NACK or error that need no
 *	state
 * @skb: the packet, data at the UDP header, its headers there
 * @type: its PDS type
 *
 * Return: 0 or the reason to drop it.
 */
enum smartt_stat smartt_ack_valid(const struct sk_buff *skb, u8 type)
{
	const struct smartt_pds_ack_cc *a = smartt_pds_of(skb);
	const struct smartt_pds_nack *n = smartt_pds_of(skb);
	const struct smartt_err_hdr *e = smartt_pds_of(skb);
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
	default:
		if (!smartt_rsp_valid(&e->rsp))
			return SMARTT_STAT_DROP_FIELD;
		break;
	}
	return 0;
}
