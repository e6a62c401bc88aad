// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: what a receiver sends back.  ACK_CC (with a message's
 * SES response when it carries one), NACK, and the answers made without
 * state (errors, NACK INV_DPDCID) under the rate limits that keep a host
 * from being turned into a reflector; the receiver's own notices of a
 * message it freed.  Never to a packet not addressed to this host alone.
 * Documentation/protocol.rst, Documentation/transport.rst, "Errors".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "smartt.h"
#include "transport/transport.h"
#include "transport/crp.h"

/* The NSCC service_time of a packet that arrived at @rx_ns, answered now. */
static __be16 smartt_service_time(u64 rx_ns, u64 now)
{
	u64 t = now > rx_ns ? div_u64(now - rx_ns, SMARTT_NSCC_SERVICE_TIME_NS) : 0;

	return htons(min_t(u64, t, SMARTT_NSCC_SERVICE_TIME_MAX));
}

/* A control packet (ACK, NACK, error) to a peer, on the entropy of @ai. */
static void smartt_send_ctl(struct sock *sk, struct smartt_peer *peer, struct sk_buff *skb,
			    u32 flow, __be16 usport)
{
	struct smartt_tx_opts o = {
		.entropy = flow,
		.usport = usport,
		.dscp = smartt_dscp(sock_net(sk), SMARTT_DSCP_C_CONTROL),
		.crc = true,
	};

	smartt_xmit(sock_net(sk), NULL, peer->family, &peer->dst_cache, &peer->saddr,
		    &peer->addr, skb, &o);
}

/*
 * An answer's skb with room for @len bytes of PDS (and SES) headers and
 * the CRC trailer after the IP and UDP headers; NULL (counted tx_fail)
 * without memory.
 */
static struct sk_buff *smartt_reply_alloc(struct net *net, u32 len)
{
	struct sk_buff *skb = alloc_skb(SMARTT_HEADROOM + len + SMARTT_CRC_LEN, GFP_ATOMIC);

	if (!skb) {
		smartt_stat_inc(net, SMARTT_STAT_TX_FAIL);
		return NULL;
	}
	skb_reserve(skb, SMARTT_HEADROOM);
	return skb;
}

/**
 * smartt_send_ack() - answer a DATA packet or a PROBE with an ACK_CC
 * @sk: socket (locked)
 * @peer: the sender of the packet
 * @ai: the packet
 *
 * CACK_PSN is rcv_nxt - 1; the 64-bit SACK bitmap starts at rcv_nxt, or
 * ends at the packet's PSN when that lies beyond its reach; the NSCC state
 * carries the receiver's turnaround (service_time), the payload bytes
 * accepted (modulo 2^24) and the out-of-order count.  With @ai->rsp_rc
 * the ACK carries a message's SES response after it (next header
 * %SMARTT_PDS_NH_RSP, ses.c).  The ACK travels on the packet's entropy (UDP
 * source port, IPv6 flow label).
 */
void smartt_send_ack(struct sock *sk, struct smartt_peer *peer,
		     const struct smartt_ack_info *ai)
{
	const struct smartt_rx_done *d = list_first_entry_or_null(&peer->rx_done,
								   struct smartt_rx_done, node);
	u64 cack = peer->rcv_nxt - 1, base = peer->rcv_nxt, map = 0;
	u8 rc = ai->rsp_rc;
	u16 rid = ai->rsp_id;
	u32 rmlen = ai->rsp_len, rlen;
	struct smartt_pds_ack_cc *a;
	struct sk_buff *skb;
	unsigned int i;
	u8 flags = 0;

	/* else the oldest outcome the sender has not cleared, once more */
	if (!rc && d) {
		rc = d->rc;
		rid = (u16)d->id;
		rmlen = d->len;
	}
	rlen = rc ? sizeof(struct smartt_ses_rsp) : 0;
	skb = smartt_reply_alloc(sock_net(sk), SMARTT_ACK_LEN + rlen);
	if (!skb)
		return;
	if (ai->ce)
		flags |= SMARTT_PDS_ACK_F_M;
	if (ai->retx)
		flags |= SMARTT_PDS_ACK_F_RETX;
	if (ai->probe)
		flags |= SMARTT_PDS_ACK_F_P;
	if (!ai->probe && ai->psn >= base + SMARTT_SACK_BITS)
		base = ai->psn - SMARTT_SACK_BITS + 1;
	for (i = 0; i < SMARTT_SACK_BITS && base + i < peer->rcv_nxt + SMARTT_WIN; i++)
		if (test_bit((base + i) % SMARTT_WIN, peer->rx_bitmap))
			map |= 1ULL << i;
	a = skb_put_zero(skb, SMARTT_ACK_LEN);
	a->ack.prologue = smartt_pds_prologue(SMARTT_PDS_ACK_CC, rlen ? SMARTT_PDS_NH_RSP :
					      SMARTT_PDS_NH_NONE, flags);
	/* the packet is within SMARTT_WIN of rcv_nxt: the offset fits */
	a->ack.ack_psn_offset = ai->probe ? htons(ai->opaque) :
				htons((u16)(s16)(ai->psn - cack));
	a->ack.cack_psn = htonl((u32)cack);
	a->ack.spdcid = htons(peer->rx_lpdcid);
	a->ack.dpdcid = htons(peer->rx_rpdcid);
	a->cc_type_flags = SMARTT_PDS_CC_NSCC << SMARTT_PDS_CC_TYPE_SHIFT;
	BUILD_BUG_ON(SMARTT_WIN % SMARTT_PDS_MPR_UNIT ||
		     SMARTT_WIN / SMARTT_PDS_MPR_UNIT > U8_MAX);
	a->mpr = SMARTT_WIN / SMARTT_PDS_MPR_UNIT;
	a->sack_psn_offset = htons((u16)(s16)(base - cack));
	smartt_ack_set_sack(a, map);
	a->nscc.service_time = smartt_service_time(ai->rx_ns, ktime_get_ns());
	smartt_nscc_set_rcvd_bytes(&a->nscc, peer->rcv_bytes & SMARTT_NSCC_RCVD_BYTES_MASK);
	a->nscc.ooo_count = htons(min_t(u32, bitmap_weight(peer->rx_bitmap, SMARTT_WIN),
					U16_MAX));
	if (rlen) {
		struct smartt_ses_rsp *r = skb_put_zero(skb, rlen);

		r->list_opcode = SMARTT_SES_RSP_RESPONSE;
		r->ver_rc = rc & SMARTT_SES_RSP_RC_MASK;
		r->msg_id = htons(rid);
		r->ri_gen_job = htonl(READ_ONCE(smartt_net(sock_net(sk))->job_id) &
				      SMARTT_SES_JOB_MASK);
		r->mod_len = htonl(rmlen);
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_TX_RSP);
	}
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_TX_ACKS);
	smartt_rel_ack_sent(peer);
	smartt_send_ctl(sk, peer, skb, ai->flow, ai->usport);
}

/**
 * smartt_send_nack() - answer a DATA packet with a PDS NACK
 * @sk: socket (locked)
 * @peer: its sender
 * @ai: the packet
 * @code: &enum smartt_nack_code
 * @vendor: the vendor code (%SMARTT_NACK_VENDOR_CRP_SPEC_DROP with
 *	%SMARTT_NACK_EXP_NORMAL, else 0)
 *
 * The payload is the receiver's next expected PSN (CACK_PSN + 1).
 */
void smartt_send_nack(struct sock *sk, struct smartt_peer *peer,
		      const struct smartt_ack_info *ai, u8 code, u8 vendor)
{
	struct smartt_pds_nack *n;
	struct sk_buff *skb;
	u8 flags = 0;

	skb = smartt_reply_alloc(sock_net(sk), SMARTT_NACK_LEN);
	if (!skb)
		return;
	if (ai->ce)
		flags |= SMARTT_PDS_NACK_F_M;
	if (ai->retx)
		flags |= SMARTT_PDS_NACK_F_RETX;
	n = skb_put_zero(skb, SMARTT_NACK_LEN);
	n->prologue = smartt_pds_prologue(SMARTT_PDS_NACK, SMARTT_PDS_NH_NONE, flags);
	n->nack_code = code;
	n->vendor_code = vendor;
	n->nack_psn = htonl((u32)ai->psn);
	n->spdcid = htons(peer->rx_lpdcid);
	n->dpdcid = htons(peer->rx_rpdcid);
	n->payload = htonl((u32)peer->rcv_nxt);
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_TX_NACKS);
	smartt_rel_ack_sent(peer);
	smartt_send_ctl(sk, peer, skb, ai->flow, ai->usport);
}

/**
 * smartt_skb_not_unicast() - was a received packet not for this host alone?
 * @skb: the packet, IP header intact
 *
 * Return: true if the link layer did not address it to this host
 * (multicast, broadcast, another host), or its source or destination
 * address is a multicast or broadcast one, whatever the link layer said.
 */
bool smartt_skb_not_unicast(const struct sk_buff *skb)
{
	if (skb->pkt_type != PACKET_HOST)
		return true;
	if (ip_hdr(skb)->version == 4) {
		const struct iphdr *iph = ip_hdr(skb);
		const struct rtable *rt = skb_rtable(skb);

		if (rt && (rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST)))
			return true;
		return ipv4_is_multicast(iph->daddr) || ipv4_is_lbcast(iph->daddr) ||
		       ipv4_is_multicast(iph->saddr) || ipv4_is_lbcast(iph->saddr);
	}
	return ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr) ||
	       ipv6_addr_is_multicast(&ipv6_hdr(skb)->saddr);
}

/**
 * smartt_reply_addrs() - the addresses of an answer to a received packet
 * @in: the packet (IP header intact)
 * @src: set to its destination address, the answer's source
 * @dst: set to its source address, the answer's destination
 *
 * Return: the address family, %AF_INET or %AF_INET6.
 */
u16 smartt_reply_addrs(const struct sk_buff *in, union smartt_addr *src,
		       union smartt_addr *dst)
{
	if (ip_hdr(in)->version == 4) {
		src->v4 = ip_hdr(in)->daddr;
		dst->v4 = ip_hdr(in)->saddr;
		return AF_INET;
	}
	src->v6 = ipv6_hdr(in)->daddr;
	dst->v6 = ipv6_hdr(in)->saddr;
	return AF_INET6;
}

/**
 * smartt_err_ratelimit_set() - set a netns's error packet rate limit
 * @sn: the netns's transport state
 * @ms: ms between two error packets, 0 for no limit
 *
 * The buckets start full: %SMARTT_ERR_BURST packets may go at once, and
 * %SMARTT_ERR_SRC_BURST to one source (%SMARTT_CRP_SEGS CRP answers).
 */
void smartt_err_ratelimit_set(struct smartt_net *sn, u32 ms)
{
	u64 now = ktime_get_ns();
	unsigned int i;

	spin_lock_bh(&sn->err_lock);
	WRITE_ONCE(sn->err_ratelimit, ms);
	if (!sn->err_seed)
		sn->err_seed = get_random_u32() | 1;
	sn->err_credit = (u64)SMARTT_ERR_BURST * ms * NSEC_PER_MSEC;
	sn->err_last = now;
	for (i = 0; i < SMARTT_ERR_SRC_BUCKETS; i++) {
		sn->err_src_credit[i] = (u64)SMARTT_ERR_SRC_BURST * SMARTT_ERR_SRC_SHARE * ms *
					NSEC_PER_MSEC;
		sn->err_src_last[i] = now;
		sn->crp_src_credit[i] = (u64)SMARTT_CRP_SEGS * SMARTT_ERR_SRC_SHARE * ms *
					NSEC_PER_MSEC;
		sn->crp_src_last[i] = now;
	}
	spin_unlock_bh(&sn->err_lock);
}

/* Refill @credit for the time since @last, up to @cap; spend @cost if there. */
static bool smartt_bucket_take(u64 *credit, u64 *last, u64 now, u64 cap, u64 cost)
{
	*credit = min(*credit + (now - *last), cap);
	*last = now;
	if (*credit < cost)
		return false;
	*credit -= cost;
	return true;
}

/*
 * The netns's bucket and the source's (one of %SMARTT_ERR_SRC_BUCKETS by a
 * seeded hash of @in's source address, in @src_credit and @src_last) of
 * stateless answers: both must allow one.  The netns's credit accrues with
 * time up to %SMARTT_ERR_BURST intervals of
 * net.smartt.transport_err_ratelimit, an answer spends one; the source's
 * up to @src_burst answers of %SMARTT_ERR_SRC_SHARE intervals each.
 */
static bool smartt_reply_take(struct net *net, const struct sk_buff *in, u64 *src_credit,
			      u64 *src_last, u32 src_burst)
{
	struct smartt_net *sn = smartt_net(net);
	u32 ms = READ_ONCE(sn->err_ratelimit);
	u64 now, interval, src_cost;
	unsigned int b;
	bool ok;
	u32 h;

	if (!ms)
		return true;
	if (ip_hdr(in)->version == 4)
		h = jhash_1word((__force u32)ip_hdr(in)->saddr, sn->err_seed);
	else
		h = jhash2((const u32 *)&ipv6_hdr(in)->saddr, 4, sn->err_seed);
	b = h % SMARTT_ERR_SRC_BUCKETS;
	interval = (u64)ms * NSEC_PER_MSEC;
	src_cost = SMARTT_ERR_SRC_SHARE * interval;
	spin_lock_bh(&sn->err_lock);
	now = ktime_get_ns();
	ok = smartt_bucket_take(&src_credit[b], &src_last[b], now, src_burst * src_cost,
				src_cost);
	if (ok && !smartt_bucket_take(&sn->err_credit, &sn->err_last, now,
				      SMARTT_ERR_BURST * interval, interval)) {
		src_credit[b] += src_cost;	/* not spent after all */
		ok = false;
	}
	spin_unlock_bh(&sn->err_lock);
	return ok;
}

/**
 * smartt_reply_allow() - whether a stateless answer may go to a source
 * @net: network namespace
 * @in: the packet answered (an error or a NACK INV_DPDCID answers it)
 *
 * The netns's token bucket of answers made without state and the
 * source's (a burst of %SMARTT_ERR_SRC_BURST, a tenth of the netns's
 * rate): smartt_reply_take().
 *
 * Return: true if the answer may go (its credit is spent).
 */
bool smartt_reply_allow(struct net *net, const struct sk_buff *in)
{
	struct smartt_net *sn = smartt_net(net);

	return smartt_reply_take(net, in, sn->err_src_credit, sn->err_src_last,
				 SMARTT_ERR_SRC_BURST);
}

/**
 * smartt_crp_reply_allow() - whether a CRP request of no PDC may be answered
 * @net: network namespace
 * @in: the request
 *
 * As smartt_reply_allow(), with the sources' buckets of their own, each a
 * burst of %SMARTT_CRP_SEGS: the requests a sender has out to one peer at
 * most, which it sends before its first DATA.
 *
 * Return: true if the answer may go (its credit is spent).
 */
bool smartt_crp_reply_allow(struct net *net, const struct sk_buff *in)
{
	struct smartt_net *sn = smartt_net(net);

	return smartt_reply_take(net, in, sn->crp_src_credit, sn->crp_src_last,
				 SMARTT_CRP_SEGS);
}

/*
 * An error packet (PDS ACK + SES response with return code @rc), counted,
 * if it answers no packet (@in NULL) or the rate limits of stateless
 * answers allow one to @in's source: NULL (counted too) if not or without
 * memory.  The ACK names @psn with CACK_PSN @cack; addresses are the
 * caller's.
 */
static struct sk_buff *smartt_error_skb(struct net *net, const struct sk_buff *in, u16 spdcid,
					u16 dpdcid, u32 cack, u32 psn, __be16 msg_id,
					__be32 ri_gen_job, u8 rc)
{
	struct smartt_err_hdr *e;
	struct sk_buff *skb;

	if (in && !smartt_reply_allow(net, in)) {
		smartt_stat_inc(net, SMARTT_STAT_TX_ERRORS_LIMITED);
		return NULL;
	}
	skb = smartt_reply_alloc(net, SMARTT_ERR_LEN);
	if (!skb)
		return NULL;
	e = skb_put_zero(skb, SMARTT_ERR_LEN);
	e->ack.prologue = smartt_pds_prologue(SMARTT_PDS_ACK, SMARTT_PDS_NH_RSP, 0);
	e->ack.ack_psn_offset = htons((u16)(s16)(psn - cack));
	e->ack.cack_psn = htonl(cack);
	e->ack.spdcid = htons(spdcid);
	e->ack.dpdcid = htons(dpdcid);
	e->rsp.list_opcode = SMARTT_SES_RSP_RESPONSE;
	e->rsp.ver_rc = rc & SMARTT_SES_RSP_RC_MASK;
	e->rsp.msg_id = msg_id;
	e->rsp.ri_gen_job = ri_gen_job;
	smartt_stat_inc(net, SMARTT_STAT_TX_ERRORS);
	return skb;
}

/**
 * smartt_send_error() - answer a DATA packet with an error
 * @net: network namespace
 * @usk: the UDP socket that received it, or NULL for the netns's one
 * @in: the DATA packet (IP header intact)
 * @dh: its headers, checked
 * @rc: the SES return code (&enum smartt_ses_rc)
 *
 * Sent back to the packet's source without any per-peer state (the
 * socket may not exist): SPDCID 0, DPDCID the packet's SPDCID, CACK_PSN
 * its CLEAR_PSN (what its sender knows acknowledged already).  Only
 * DATA is ever answered, so two hosts never exchange errors about errors.
 * Packets not addressed to this host alone get no answer; the others at
 * most one per net.smartt.transport_err_ratelimit ms of the netns (bursts
 * of %SMARTT_ERR_BURST), the rest are counted tx_errors_ratelimited.
 */
void smartt_send_error(struct net *net, struct sock *usk, struct sk_buff *in,
		       const struct smartt_data_hdr *dh, u8 rc)
{
	u32 psn = ntohl(dh->pds.psn);
	u32 cack = psn + (s16)ntohs(dh->pds.clear_psn_offset);
	struct smartt_tx_opts o = {
		.entropy = get_random_u32(),
		.dscp = smartt_dscp(net, SMARTT_DSCP_C_CONTROL),
		.crc = true,
	};
	union smartt_addr src = {}, dst = {};
	struct sk_buff *skb;
	u16 family;

	/*
	 * Never answer a packet sent to a group, nor from a group address
	 * (RFC 1122 3.2.2, RFC 4291 2.7); smartt_encap_rcv() drops those
	 * already, this keeps any later caller from reflecting them.
	 */
	if (smartt_skb_not_unicast(in))
		return;
	skb = smartt_error_skb(net, in, 0, ntohs(dh->pds.spdcid), cack, psn,
			       dh->ses.msg_id, dh->ses.ri_gen_job, rc);
	if (!skb)
		return;
	family = smartt_reply_addrs(in, &src, &dst);
	smartt_xmit(net, usk, family, NULL, &src, &dst, skb, &o);
}

/**
 * smartt_send_error_peer() - tell a peer the receiver dropped its message
 * @sk: socket (locked)
 * @peer: the message's sender
 * @msg_id: the message
 * @rc: the SES return code (&enum smartt_ses_rc)
 *
 * The error of smartt_send_error(), addressed from the peer's state, for a
 * message freed by the timer, with no packet to answer.  One per message
 * the peer's own packets started, so outside the netns's rate limit (which
 * packets from anyone spend): a sender that does not get it asks again
 * with the message's next segment, and the outcome kept answers (ses.c).
 */
void smartt_send_error_peer(struct sock *sk, struct smartt_peer *peer, u64 msg_id,
			    u8 rc)
{
	struct net *net = sock_net(sk);
	u32 cack = (u32)(peer->rcv_nxt - 1);
	struct sk_buff *skb;

	skb = smartt_error_skb(net, NULL, peer->rx_lpdcid, peer->rx_rpdcid, cack, cack,
			       htons((u16)msg_id),
			       htonl(READ_ONCE(smartt_net(net)->job_id)), rc);
	if (skb)
		smartt_send_ctl(sk, peer, skb, get_random_u32(), 0);
}

/*
 * A NACK INV_DPDCID without any per-peer state, answering @in: to its
 * source, DPDCID @dpdcid (the SPDCID of the packet answered), the NACK's
 * PSN @psn, SPDCID 0.  Never to a packet not addressed to this host
 * alone, and under the netns's rate limit of error packets.
 */
static void smartt_nack_inv(struct net *net, struct sk_buff *in, __be16 dpdcid, __be32 psn)
{
	struct smartt_tx_opts o = {
		.entropy = get_random_u32(),
		.dscp = smartt_dscp(net, SMARTT_DSCP_C_CONTROL),
		.crc = true,
	};
	union smartt_addr src = {}, dst = {};
	struct smartt_pds_nack *n;
	struct sk_buff *skb;
	u16 family;

	if (smartt_skb_not_unicast(in))
		return;
	if (!smartt_reply_allow(net, in)) {
		smartt_stat_inc(net, SMARTT_STAT_TX_ERRORS_LIMITED);
		return;
	}
	skb = smartt_reply_alloc(net, SMARTT_NACK_LEN);
	if (!skb)
		return;
	n = skb_put_zero(skb, SMARTT_NACK_LEN);
	n->prologue = smartt_pds_prologue(SMARTT_PDS_NACK, SMARTT_PDS_NH_NONE, 0);
	n->nack_code = SMARTT_NACK_INV_DPDCID;
	n->nack_psn = psn;
	n->dpdcid = dpdcid;
	smartt_stat_inc(net, SMARTT_STAT_TX_NACKS);
	family = smartt_reply_addrs(in, &src, &dst);
	smartt_xmit(net, NULL, family, NULL, &src, &dst, skb, &o);
}

/**
 * smartt_send_nack_inv() - answer DATA of a PDC this host does not know
 * @net: network namespace
 * @in: the DATA packet (IP header intact), without SYN
 * @dh: its headers, checked
 *
 * A NACK INV_DPDCID to the packet's sender PDC, naming the packet's PSN
 * (the sender takes it only for a PSN it has in flight); the sender then
 * starts a new PDC (smartt_peer_restart()).  20 bytes for DATA of at
 * least 60.
 */
void smartt_send_nack_inv(struct net *net, struct sk_buff *in,
			  const struct smartt_data_hdr *dh)
{
	smartt_nack_inv(net, in, dh->pds.spdcid, dh->pds.psn);
}

/**
 * smartt_send_nack_inv_ack() - answer an ACK_CC of a PDC this host does not
 *	know
 * @net: network namespace
 * @in: the ACK_CC (IP header intact)
 * @ah: its ACK header, checked
 *
 * A NACK INV_DPDCID to the ACK's PDC, naming its CACK_PSN: the receiver of
 * a PDC whose sender restarted challenges it so (smartt_rx_challenge())
 * and closes it on this answer.  20 bytes for an ACK_CC of 36.
 */
void smartt_send_nack_inv_ack(struct net *net, struct sk_buff *in,
			      const struct smartt_pds_ack *ah)
{
	smartt_nack_inv(net, in, ah->spdcid, ah->cack_psn);
}
