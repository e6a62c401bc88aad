// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the sending side.  Routes and the UDP encapsulation
 * (UDP checksum 0, the CRC32C trailer, the DSCP of each packet class),
 * segmentation of messages into DATA packets (PDS RUD_REQ + SES standard
 * request) under the window.  The answers a receiver sends are in reply.c,
 * the timers in timer.c, the RTT estimator with the congestion control in
 * cc.c.  Documentation/protocol.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32c.h>
#include <linux/jhash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ip6_tunnel.h>
#include <net/ip_tunnels.h>
#include <net/route.h>
#include <net/udp.h>

#include "smartt.h"
#include "transport/transport.h"

static u32 smartt_mss(u32 mtu, u32 iph)
{
	u32 hdr = iph + sizeof(struct udphdr) + SMARTT_DATA_HLEN + SMARTT_CRC_LEN;

	if (mtu < hdr + SMARTT_SEG_MIN)
		return SMARTT_SEG_MIN;
	return min(mtu - hdr, SMARTT_SEG_MAX);
}

/**
 * smartt_crc() - the CRC32C of a UET packet's trailer
 * @saddr: the IP source address, as on the wire
 * @daddr: the IP destination address, as on the wire
 * @alen: the length of each address: 4 (IPv4) or 16 (IPv6)
 * @udp: the UDP header, followed by the UDP payload
 * @len: bytes at @udp before the trailer (at least the UDP header's)
 *
 * CRC-32C (Castagnoli, initial value and final XOR all ones) over the
 * parts of the packet no switch changes: the two IP addresses, the UDP
 * header with its checksum taken as 0 (a checksum, if any, is computed
 * after the trailer) and the UDP payload up to the trailer.  The trailer
 * carries it little endian, as iSCSI and SCTP carry theirs.
 *
 * Return: the CRC.
 */
u32 smartt_crc(const void *saddr, const void *daddr, unsigned int alen,
	       const void *udp, unsigned int len)
{
	static const u8 zero_csum[2];
	const u8 *u = udp;
	u32 crc = crc32c(~0U, saddr, alen);

	crc = crc32c(crc, daddr, alen);
	crc = crc32c(crc, u, offsetof(struct udphdr, check));
	crc = crc32c(crc, zero_csum, sizeof(zero_csum));
	return ~crc32c(crc, u + sizeof(struct udphdr), len - sizeof(struct udphdr));
}

/* Fill the trailer at the end of @skb, data at the UDP header. */
static void smartt_crc_fill(struct sk_buff *skb, const void *saddr, const void *daddr,
			    unsigned int alen)
{
	unsigned int n = skb->len - SMARTT_CRC_LEN;
	__le32 crc = cpu_to_le32(smartt_crc(saddr, daddr, alen, skb->data, n));

	memcpy(skb->data + n, &crc, sizeof(crc));
}

/* Push the UDP header, checksum 0 (UET). */
static void smartt_udp_push(struct sk_buff *skb, __be16 sport, __be16 dport)
{
	struct udphdr *uh;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = sport;
	uh->dest = dport;
	uh->len = htons(skb->len);
	uh->check = 0;
}

/**
 * smartt_xmit() - encapsulate and send a smartt packet
 * @net: network namespace
 * @usk: UDP socket to send on (NULL: the netns's one of @family)
 * @family: AF_INET or AF_INET6
 * @cache: route cache of the peer, or NULL
 * @saddr: source address (any: from the route)
 * @daddr: destination address
 * @skb: the headers and payload, linear; consumed
 * @o: entropy, ports, DSCP, ECN, trailer and departure time
 *
 * The UDP checksum is 0, IPv4 and IPv6 (UET); the CRC32C trailer covers
 * the IP addresses, the UDP header and the UDP payload before it
 * (smartt_crc()).
 *
 * Return: 0 or a negative errno (counted tx_fail).
 */
int smartt_xmit(struct net *net, struct sock *usk, u16 family,
		struct dst_cache *cache, const union smartt_addr *saddr,
		const union smartt_addr *daddr, struct sk_buff *skb,
		const struct smartt_tx_opts *o)
{
	struct smartt_net *sn = smartt_net(net);
	__be16 sport = o->usport ? o->usport : smartt_path_sport(net, o->entropy);
	__be16 dport = o->dport ? o->dport : htons(smartt_udp_port);
	u8 tos = (o->dscp << 2) | (o->ect ? INET_ECN_ECT_0 : 0);
	unsigned int len;
	int err = 0;

	/* the trailer's room; filled once the addresses and the UDP header are */
	if (o->crc)
		skb_put_zero(skb, SMARTT_CRC_LEN);
	if (o->tstamp)
		skb_set_delivery_time(skb, ns_to_ktime(o->tstamp), true);
	len = skb->len;

	if (!usk) {
		struct socket *sock = family == AF_INET ? READ_ONCE(sn->udp4) :
						       READ_ONCE(sn->udp6);

		if (!sock) {
			kfree_skb(skb);
			smartt_stat_inc(net, SMARTT_STAT_TX_FAIL);
			return -EAFNOSUPPORT;
		}
		usk = sock->sk;
	}
	local_bh_disable();
	if (family == AF_INET) {
		struct rtable *rt = NULL;
		__be32 src = saddr->v4;

		if (cache)
			rt = dst_cache_get_ip4(cache, &src);
		if (!rt) {
			struct flowi4 fl4 = {
				.daddr = daddr->v4,
				.saddr = saddr->v4,
				.flowi4_proto = IPPROTO_UDP,
				.fl4_sport = sport,
				.fl4_dport = dport,
			};

			rt = ip_route_output_key(net, &fl4);
			if (IS_ERR(rt)) {
				err = PTR_ERR(rt);
				goto drop;
			}
			src = fl4.saddr;
			if (cache)
				dst_cache_set_ip4(cache, &rt->dst, src);
		}
		/* udp_tunnel_xmit_skb(), without udp_tunnel.ko (proto.c) */
		smartt_udp_push(skb, sport, dport);
		memset(&IPCB(skb)->opt, 0, sizeof(IPCB(skb)->opt));
		skb->ip_summed = CHECKSUM_NONE;
		udp_set_csum(true, skb, src, daddr->v4, skb->len);
		if (o->crc)
			smartt_crc_fill(skb, &src, &daddr->v4, sizeof(src));
		iptunnel_xmit(usk, rt, skb, src, daddr->v4, IPPROTO_UDP, tos,
			      ip4_dst_hoplimit(&rt->dst), 0, false);
	} else {
		struct in6_addr src = saddr->v6, dst6 = daddr->v6;
		struct dst_entry *dst = NULL;
		struct ipv6hdr *ip6h;

		if (cache)
			dst = dst_cache_get_ip6(cache, &src);
		if (!dst) {
			struct flowi6 fl6 = {
				.daddr = daddr->v6,
				.saddr = saddr->v6,
				.flowi6_proto = IPPROTO_UDP,
				.fl6_sport = sport,
				.fl6_dport = dport,
			};

			dst = ip6_dst_lookup_flow(net, usk, &fl6, NULL);
			if (IS_ERR(dst)) {
				err = PTR_ERR(dst);
				goto drop;
			}
			src = fl6.saddr;
			if (cache)
				dst_cache_set_ip6(cache, dst, &src);
		}
		/* udp_tunnel6_xmit_skb(), without ip6_udp_tunnel.ko */
		smartt_udp_push(skb, sport, dport);
		skb_dst_set(skb, dst);
		skb->ip_summed = CHECKSUM_NONE;
		udp6_set_csum(true, skb, &src, &dst6, skb->len);
		if (o->crc)
			smartt_crc_fill(skb, &src, &dst6, sizeof(src));
		__skb_push(skb, sizeof(*ip6h));
		skb_reset_network_header(skb);
		ip6h = ipv6_hdr(skb);
		ip6_flow_hdr(ip6h, tos, htonl(o->entropy) & IPV6_FLOWLABEL_MASK);
		ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
		ip6h->nexthdr = IPPROTO_UDP;
		ip6h->hop_limit = ip6_dst_hoplimit(dst);
		ip6h->daddr = dst6;
		ip6h->saddr = src;
		/*
		 * No tunnel device: dev NULL keeps ip6tunnel_xmit() off the
		 * per-CPU tunnel stats of dst->dev, which it does not have.
		 */
		ip6tunnel_xmit(usk, skb, NULL);
	}
	local_bh_enable();
	smartt_stat_inc(net, SMARTT_STAT_TX_PKTS);
	smartt_stat_add(net, SMARTT_STAT_TX_BYTES, len);
	return 0;
drop:
	local_bh_enable();
	kfree_skb(skb);
	smartt_stat_inc(net, SMARTT_STAT_TX_FAIL);
	return err;
}

/**
 * smartt_peer_route() - route to a new peer: source address and MSS
 * @net: network namespace
 * @peer: the peer (family and address set)
 * @saddr: the bound source address, or any
 *
 * Return: 0, or the routing error (the peer cannot be reached).
 */
int smartt_peer_route(struct net *net, struct smartt_peer *peer,
		      const union smartt_addr *saddr)
{
	struct smartt_net *sn = smartt_net(net);
	int err = 0;

	local_bh_disable();
	if (peer->family == AF_INET) {
		struct flowi4 fl4 = {
			.daddr = peer->addr.v4,
			.saddr = saddr->v4,
			.flowi4_proto = IPPROTO_UDP,
			.fl4_dport = htons(smartt_udp_port),
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt)) {
			err = PTR_ERR(rt);
			goto out;
		}
		peer->saddr.v4 = fl4.saddr;
		peer->mss = smartt_mss(dst_mtu(&rt->dst), sizeof(struct iphdr));
		dst_cache_set_ip4(&peer->dst_cache, &rt->dst, fl4.saddr);
		ip_rt_put(rt);
	} else {
		struct flowi6 fl6 = {
			.daddr = peer->addr.v6,
			.saddr = saddr->v6,
			.flowi6_proto = IPPROTO_UDP,
			.fl6_dport = htons(smartt_udp_port),
		};
		struct dst_entry *dst;

		struct socket *sock = READ_ONCE(sn->udp6);

		if (!sock) {
			err = -EAFNOSUPPORT;
			goto out;
		}
		dst = ip6_dst_lookup_flow(net, sock->sk, &fl6, NULL);
		if (IS_ERR(dst)) {
			err = PTR_ERR(dst);
			goto out;
		}
		peer->saddr.v6 = fl6.saddr;
		peer->mss = smartt_mss(dst_mtu(dst), sizeof(struct ipv6hdr));
		dst_cache_set_ip6(&peer->dst_cache, dst, &fl6.saddr);
		dst_release(dst);
	}
out:
	local_bh_enable();
	return err;
}

/**
 * smartt_build_hdr() - append the CRP common header and a zeroed extension
 * @skb: the packet being built
 * @type: &enum smartt_pkt_type (the CRP packets)
 * @hlen: bytes of smartt headers (common header and extension)
 * @entropy: path entropy
 * @psn: the PSN field
 * @payload: the payload_len field
 *
 * Return: the header.
 */
struct smartt_hdr *smartt_build_hdr(struct sk_buff *skb, u8 type, u32 hlen,
				    u32 entropy, u64 psn, u32 payload)
{
	struct smartt_hdr *h = skb_put_zero(skb, hlen);

	h->magic = htons(SMARTT_MAGIC);
	h->version = SMARTT_WIRE_VERSION;
	h->type = type;
	h->hdr_words = hlen / 8;
	h->entropy = htonl(entropy);
	h->psn = cpu_to_be64(psn);
	h->payload_len = htons(payload);
	return h;
}

/*
 * @dscp_class: the DSCP class smartt_crp_tx() chose; @tstamp: the
 * departure time it chose (0: now), an EDT stamp on CLOCK_MONOTONIC.
 */
static void smartt_send_seg(struct sock *sk, struct smartt_peer *peer, u64 psn,
			    bool rtx, u8 dscp_class, u64 tstamp)
{
	struct smartt_txseg *s = &peer->win[psn % SMARTT_WIN];
	struct smartt_tx_msg *m = s->msg;
	struct net *net = sock_net(sk);
	struct smartt_tx_opts o = {};
	struct smartt_data_hdr *d;
	struct sk_buff *skb;
	u64 off = (u64)s->seg * peer->mss;
	u8 flags = 0, sflags = 0;

	skb = alloc_skb(SMARTT_HEADROOM + SMARTT_DATA_HLEN + s->len + SMARTT_CRC_LEN,
			GFP_ATOMIC);
	if (!skb) {
		/* The segment stays in flight: the RTO sends it again. */
		smartt_stat_inc(net, SMARTT_STAT_TX_FAIL);
		return;
	}
	skb_reserve(skb, SMARTT_HEADROOM);
	/* Every transmission, retransmissions too, asks the selector. */
	o.entropy = smartt_path_next(sk, peer, psn, s->len, rtx);
	s->entropy = o.entropy;
	if (!rtx)
		s->entropy0 = o.entropy;
	if (rtx)
		flags |= SMARTT_PDS_REQ_F_RETX;
	if (smartt_rel_data_ar(sk, peer, psn, rtx))
		flags |= SMARTT_PDS_REQ_F_AR;
	if (!peer->tx_est)
		flags |= SMARTT_PDS_REQ_F_SYN;
	d = skb_put_zero(skb, SMARTT_DATA_HLEN);
	d->pds.prologue = smartt_pds_prologue(SMARTT_PDS_RUD_REQ, SMARTT_PDS_NH_REQ_STD,
					      flags);
	/*
	 * CLEAR_PSN: the highest PSN cleared, every one up to it included
	 * (snd_una - 1).  snd_una <= psn < snd_una + SMARTT_WIN: the offset,
	 * -SMARTT_WIN to -1, fits, as does the SYN's psn_offset.
	 */
	d->pds.clear_psn_offset = htons((u16)(s16)(peer->snd_una - 1 - psn));
	d->pds.psn = htonl((u32)psn);
	d->pds.spdcid = htons(peer->tx_lpdcid);
	/* SYN: pdc_info 0, start PSN = psn - psn_offset = snd_una */
	d->pds.dpdcid = htons(peer->tx_est ? peer->tx_rpdcid :
			      (u16)(psn - peer->snd_una) & SMARTT_PDS_PSN_OFFSET_MASK);
	if (!s->seg)
		sflags |= SMARTT_SES_F_SOM;
	if (s->seg + 1 >= m->nsegs)
		sflags |= SMARTT_SES_F_EOM;
	d->ses.opcode = SMARTT_SES_OPCODE_SEND;
	/* REL: the PIDonFEP is the job's (relative addressing) */
	d->ses.ver_flags = (SMARTT_SES_VERSION << SMARTT_SES_VER_SHIFT) | SMARTT_SES_F_REL |
			   sflags;
	d->ses.msg_id = htons((u16)m->id);
	d->ses.ri_gen_job = htonl(READ_ONCE(smartt_net(net)->job_id) & SMARTT_SES_JOB_MASK);
	d->ses.pid_on_fep = htons(peer->port);
	d->ses.initiator = htonl(smartt_sk(sk)->port);
	if (s->seg) {
		/* len <= SMARTT_SEG_MAX < 2^14; off < SMARTT_MSG_MAX_LIMIT < 2^32 */
		d->ses.hdata_hi = htonl(s->len & SMARTT_SES_PAYLOAD_LEN_MASK);
		d->ses.hdata_lo = htonl((u32)off);
	}
	d->ses.request_length = htonl((u32)m->len);
	skb_put_data(skb, m->data + off, s->len);
	smartt_stat_inc(net, SMARTT_STAT_TX_DATA);
	if (rtx)
		smartt_stat_inc(net, SMARTT_STAT_RETRANSMITS);
	o.dscp = smartt_dscp(net, dscp_class);
	o.ect = true;
	o.crc = true;
	o.tstamp = tstamp;
	smartt_xmit(net, NULL, peer->family, &peer->dst_cache, &peer->saddr,
		    &peer->addr, skb, &o);
}

/*
 * The oldest message with a segment never sent, if its SES message id
 * leaves %SMARTT_SES_MSG_MAX_MSGS messages unfinished at most (the 16-bit
 * ids must stay unique among them).
 */
static struct smartt_tx_msg *smartt_next_msg(struct sock *sk, struct smartt_peer *peer)
{
	struct smartt_tx_msg *first, *m;

	first = list_first_entry_or_null(&peer->tx_msgs, struct smartt_tx_msg, node);
	list_for_each_entry(m, &peer->tx_msgs, node) {
		if (m->next_seg >= m->nsegs)
			continue;
		if (m->id - first->id >= SMARTT_SES_MSG_MAX_MSGS) {
			smartt_stat_inc(sock_net(sk), SMARTT_STAT_TX_MSG_ID_WAIT);
			return NULL;
		}
		return m;
	}
	return NULL;
}

/**
 * smartt_push() - send what the window allows to a peer
 * @sk: socket (locked)
 * @peer: the peer
 *
 * Segments declared lost go first, oldest first, then new segments of the
 * oldest message that has some, while in_flight stays within cwnd (one
 * segment always goes when nothing is in flight) and the PSN range within
 * %SMARTT_WIN.  With cc "crp" a packet also waits while its reservation
 * holds it (smartt_crp_tx()).  A sequence space that restarted draws its
 * local PDC id here (none free: nothing goes, the timeout fails the
 * messages).  Arms the retransmission timer.
 */
void smartt_push(struct sock *sk, struct smartt_peer *peer)
{
	u64 now = ktime_get_ns(), tstamp;
	struct smartt_tx_msg *m;
	struct smartt_txseg *s;
	bool can;
	u8 crp;
	u64 psn;

	if (!peer->win)
		return;
	can = peer->tx_lpdcid || !smartt_pdc_add(sock_net(sk), peer, true);
	for (psn = peer->snd_una; can && peer->lost && psn < peer->snd_nxt; psn++) {
		s = &peer->win[psn % SMARTT_WIN];
		if (s->state != SMARTT_SEG_LOST)
			continue;
		if (peer->in_flight && peer->in_flight + s->len > peer->cwnd)
			break;
		if (!smartt_crp_tx(sk, peer, s->msg, s->seg, psn, true, now, &crp, &tstamp))
			continue;
		s->state = SMARTT_SEG_INFLIGHT;
		s->sent_ns = max(now, tstamp);
		if (s->tx_count < SMARTT_TXSEG_TX_MAX)
			s->tx_count++;
		peer->lost--;
		peer->in_flight += s->len;
		peer->retransmits++;
		smartt_trace_rtx(sk, peer, psn);
		smartt_send_seg(sk, peer, psn, true, crp, tstamp);
	}
	while (can && !peer->lost && peer->snd_nxt - peer->snd_una < SMARTT_WIN) {
		u32 len;

		m = smartt_next_msg(sk, peer);
		if (!m)
			break;
		len = min_t(u64, peer->mss, m->len - (u64)m->next_seg * peer->mss);
		if (peer->in_flight && peer->in_flight + len > peer->cwnd)
			break;
		s = &peer->win[peer->snd_nxt % SMARTT_WIN];
		if (!smartt_crp_tx(sk, peer, m, m->next_seg, peer->snd_nxt, false, now, &crp,
				   &tstamp))
			break;
		s->psn = peer->snd_nxt;
		s->msg = m;
		s->seg = m->next_seg++;
		s->len = len;
		s->state = SMARTT_SEG_INFLIGHT;
		s->sent_ns = max(now, tstamp);
		s->tx_count = 1;
		peer->in_flight += len;
		smartt_send_seg(sk, peer, peer->snd_nxt++, false, crp, tstamp);
	}
	if (!list_empty(&peer->tx_msgs) && !peer->rto_at) {
		peer->rto_at = now + max(peer->rto_ns, smartt_rel_rto_min(sk, peer));
		smartt_peer_due(sk, peer, min(peer->rto_at,
					      peer->last_progress + smartt_sk(sk)->timeout_ns));
	}
	smartt_rel_sent(sk, peer, now);
}
