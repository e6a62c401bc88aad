// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the sending side.  Routes and the UDP encapsulation,
 * segmentation of messages into DATA packets under the window, ACK, NACK
 * and error packets.  The timers are in timer.c, the RTT estimator with the
 * congestion control in cc.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

#define SMARTT_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + sizeof(struct udphdr))

static u32 smartt_mss(u32 mtu, u32 iph)
{
	u32 hdr = iph + sizeof(struct udphdr) + SMARTT_DATA_HLEN;

	if (mtu < hdr + SMARTT_SEG_MIN)
		return SMARTT_SEG_MIN;
	return min(mtu - hdr, SMARTT_SEG_MAX);
}

/* Push the UDP header; the checksum is set up by udp(6)_set_csum(). */
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
 * @skb: the smartt headers and payload; consumed
 * @entropy: path entropy (UDP source port, IPv6 flow label)
 * @ect: mark the packet ECT(0)
 *
 * Return: 0 or a negative errno (counted tx_fail).
 */
int smartt_xmit(struct net *net, struct sock *usk, u16 family,
		struct dst_cache *cache, const union smartt_addr *saddr,
		const union smartt_addr *daddr, struct sk_buff *skb,
		u32 entropy, bool ect)
{
	struct smartt_net *sn = smartt_net(net);
	__be16 sport = smartt_path_sport(net, entropy);
	__be16 dport = htons(smartt_udp_port);
	unsigned int len = skb->len;
	int err = 0;

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
		udp_set_csum(false, skb, src, daddr->v4, skb->len);
		iptunnel_xmit(usk, rt, skb, src, daddr->v4, IPPROTO_UDP,
			      ect ? INET_ECN_ECT_0 : 0, ip4_dst_hoplimit(&rt->dst),
			      0, false);
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
		udp6_set_csum(false, skb, &src, &dst6, skb->len);
		__skb_push(skb, sizeof(*ip6h));
		skb_reset_network_header(skb);
		ip6h = ipv6_hdr(skb);
		ip6_flow_hdr(ip6h, ect ? INET_ECN_ECT_0 : 0,
			     htonl(entropy) & IPV6_FLOWLABEL_MASK);
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
 * smartt_build_hdr() - append the common header and a zeroed extension
 * @skb: the packet being built
 * @type: &enum smartt_pkt_type
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
 * @crp: the %SMARTT_F_CRP_* flag smartt_crp_tx() chose; @tstamp: the
 * departure time it chose (0: now), an EDT stamp on CLOCK_MONOTONIC.
 */
static void smartt_send_seg(struct sock *sk, struct smartt_peer *peer, u64 psn,
			    bool rtx, u64 now, u16 crp, u64 tstamp)
{
	struct smartt_txseg *s = &peer->win[psn % SMARTT_WIN];
	struct smartt_tx_msg *m = s->msg;
	struct smartt_data_ext *x;
	struct smartt_hdr *h;
	struct sk_buff *skb;
	u64 off = (u64)s->seg * peer->mss;
	u32 ev;

	skb = alloc_skb(SMARTT_HEADROOM + SMARTT_DATA_HLEN + s->len, GFP_ATOMIC);
	if (!skb) {
		/* The segment stays in flight: the RTO sends it again. */
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_TX_FAIL);
		return;
	}
	skb_reserve(skb, SMARTT_HEADROOM);
	/* Every transmission, retransmissions too, asks the selector. */
	ev = smartt_path_next(sk, peer, psn, s->len, rtx);
	s->entropy = ev;
	h = smartt_build_hdr(skb, SMARTT_PKT_DATA, SMARTT_DATA_HLEN, ev, psn, s->len);
	h->flags = htons((rtx ? SMARTT_F_RTX : 0) | crp |
			 smartt_rel_data_flags(sk, peer, psn, rtx));
	x = (struct smartt_data_ext *)(h + 1);
	x->x.sport = htons(smartt_sk(sk)->port);
	x->x.dport = htons(peer->port);
	x->x.epoch = htonl(peer->tx_epoch);
	x->msg_id = cpu_to_be64(m->id);
	x->msg_len = cpu_to_be64(m->len);
	x->offset = cpu_to_be64(off);
	x->seg_size = htonl(peer->mss);
	x->snd_una = cpu_to_be64(peer->snd_una);
	/* held for its departure (cc crp): sent then, for RTT and loss */
	x->tx_time = cpu_to_be64(max(now, tstamp));
	skb_put_data(skb, m->data + off, s->len);
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_TX_DATA);
	if (rtx)
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_RETRANSMITS);
	if (tstamp)
		skb_set_delivery_time(skb, ns_to_ktime(tstamp), true);
	smartt_xmit(sock_net(sk), NULL, peer->family, &peer->dst_cache, &peer->saddr,
		    &peer->addr, skb, ev, true);
}

static struct smartt_tx_msg *smartt_next_msg(struct smartt_peer *peer)
{
	struct smartt_tx_msg *m;

	list_for_each_entry(m, &peer->tx_msgs, node)
		if (m->next_seg < m->nsegs)
			return m;
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
 * holds it (smartt_crp_tx()).  Arms the retransmission timer.
 */
void smartt_push(struct sock *sk, struct smartt_peer *peer)
{
	u64 now = ktime_get_ns(), tstamp;
	struct smartt_tx_msg *m;
	struct smartt_txseg *s;
	u16 crp;
	u64 psn;

	if (!peer->win)
		return;
	for (psn = peer->snd_una; peer->lost && psn < peer->snd_nxt; psn++) {
		s = &peer->win[psn % SMARTT_WIN];
		if (s->state != SMARTT_SEG_LOST)
			continue;
		if (peer->in_flight && peer->in_flight + s->len > peer->cwnd)
			break;
		if (!smartt_crp_tx(sk, peer, s->msg, s->seg, psn, true, now, &crp, &tstamp))
			continue;
		s->state = SMARTT_SEG_INFLIGHT;
		s->sent_ns = max(now, tstamp);
		peer->lost--;
		peer->in_flight += s->len;
		peer->retransmits++;
		smartt_trace_rtx(sk, peer, psn);
		smartt_send_seg(sk, peer, psn, true, now, crp, tstamp);
	}
	while (!peer->lost && peer->snd_nxt - peer->snd_una < SMARTT_WIN) {
		u32 len;

		m = smartt_next_msg(peer);
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
		peer->in_flight += len;
		smartt_send_seg(sk, peer, peer->snd_nxt++, false, now, crp, tstamp);
	}
	if (!list_empty(&peer->tx_msgs) && !peer->rto_at) {
		peer->rto_at = now + max(peer->rto_ns, smartt_rel_rto_min(sk, peer));
		smartt_peer_due(sk, peer, min(peer->rto_at,
					      peer->last_progress + smartt_sk(sk)->timeout_ns));
	}
	smartt_rel_sent(sk, peer, now);
}

/**
 * smartt_send_ack() - answer a DATA packet with an ACK or a NACK
 * @sk: socket (locked)
 * @peer: the sender of the DATA packet
 * @type: %SMARTT_PKT_ACK or %SMARTT_PKT_NACK
 * @dh: the DATA packet's common header
 * @dx: its extension
 * @ce: it carried CE
 */
void smartt_send_ack(struct sock *sk, struct smartt_peer *peer, u8 type,
		     const struct smartt_hdr *dh, const struct smartt_data_ext *dx,
		     bool ce)
{
	u64 sack[SMARTT_SACK_WORDS] = {};
	struct smartt_ack_ext *a;
	struct smartt_hdr *h;
	struct sk_buff *skb;
	unsigned int i;

	skb = alloc_skb(SMARTT_HEADROOM + SMARTT_ACK_HLEN, GFP_ATOMIC);
	if (!skb) {
		smartt_stat_inc(sock_net(sk), SMARTT_STAT_TX_FAIL);
		return;
	}
	skb_reserve(skb, SMARTT_HEADROOM);
	/* The ACK goes back on the entropy of the packet it answers. */
	h = smartt_build_hdr(skb, type, SMARTT_ACK_HLEN, ntohl(dh->entropy),
			     be64_to_cpu(dh->psn), 0);
	if (ce)
		h->flags = htons(SMARTT_F_ECN_ECHO);
	if (type == SMARTT_PKT_NACK)
		h->flags |= dh->flags & htons(SMARTT_F_TRIM_LAST_HOP | SMARTT_F_CRP_SPEC_DROP);
	h->echo_tx_ts_ns = dh->tx_ts_ns;
	h->echo_rx_ts_ns = dh->rx_ts_ns;
	a = (struct smartt_ack_ext *)(h + 1);
	a->x.sport = htons(smartt_sk(sk)->port);
	a->x.dport = htons(peer->port);
	a->x.epoch = htonl(peer->rx_epoch);
	a->ack_entropy = dh->entropy;
	a->ooo = htonl(bitmap_weight(peer->rx_bitmap, SMARTT_WIN));
	a->cum_psn = cpu_to_be64(peer->rcv_nxt);
	a->rcv_bytes = cpu_to_be64(peer->rcv_bytes);
	a->echo_tx_time = dx->tx_time;
	/* Bit i: PSN rcv_nxt + 1 + i; the bitmap reaches rcv_nxt + WIN - 1. */
	for (i = 0; i + 1 < SMARTT_WIN; i++)
		if (test_bit((peer->rcv_nxt + 1 + i) % SMARTT_WIN, peer->rx_bitmap))
			sack[i / 64] |= 1ULL << (i % 64);
	for (i = 0; i < SMARTT_SACK_WORDS; i++)
		a->sack[i] = cpu_to_be64(sack[i]);
	smartt_stat_inc(sock_net(sk), type == SMARTT_PKT_NACK ? SMARTT_STAT_TX_NACKS :
			SMARTT_STAT_TX_ACKS);
	smartt_rel_ack_sent(peer);
	smartt_xmit(sock_net(sk), NULL, peer->family, &peer->dst_cache, &peer->saddr,
		    &peer->addr, skb, ntohl(dh->entropy), false);
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
 * The bucket starts full: %SMARTT_ERR_BURST packets may go at once.
 */
void smartt_err_ratelimit_set(struct smartt_net *sn, u32 ms)
{
	spin_lock_bh(&sn->err_lock);
	WRITE_ONCE(sn->err_ratelimit, ms);
	sn->err_credit = (u64)SMARTT_ERR_BURST * ms * NSEC_PER_MSEC;
	sn->err_last = ktime_get_ns();
	spin_unlock_bh(&sn->err_lock);
}

/*
 * The netns's token bucket for error packets: credit accrues with time up
 * to SMARTT_ERR_BURST intervals; a packet spends one interval.
 */
static bool smartt_err_allow(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);
	u32 ms = READ_ONCE(sn->err_ratelimit);
	u64 now, interval, cap;
	bool ok = false;

	if (!ms)
		return true;
	interval = (u64)ms * NSEC_PER_MSEC;
	cap = SMARTT_ERR_BURST * interval;
	spin_lock_bh(&sn->err_lock);
	now = ktime_get_ns();
	sn->err_credit = min(sn->err_credit + (now - sn->err_last), cap);
	sn->err_last = now;
	if (sn->err_credit >= interval) {
		sn->err_credit -= interval;
		ok = true;
	}
	spin_unlock_bh(&sn->err_lock);
	return ok;
}

/*
 * An error packet, counted, if the netns's rate limit allows one: NULL
 * (counted too) if not or without memory.  Addresses are the caller's.
 */
static struct sk_buff *smartt_error_skb(struct net *net, __be16 sport, __be16 dport,
					__be32 epoch, u32 code, __be64 msg_id)
{
	struct smartt_ctrl_ext *c;
	struct smartt_hdr *h;
	struct sk_buff *skb;

	if (!smartt_err_allow(net)) {
		smartt_stat_inc(net, SMARTT_STAT_TX_ERRORS_LIMITED);
		return NULL;
	}
	skb = alloc_skb(SMARTT_HEADROOM + SMARTT_CTRL_HLEN, GFP_ATOMIC);
	if (!skb) {
		smartt_stat_inc(net, SMARTT_STAT_TX_FAIL);
		return NULL;
	}
	skb_reserve(skb, SMARTT_HEADROOM);
	h = smartt_build_hdr(skb, SMARTT_PKT_CTRL, SMARTT_CTRL_HLEN, 0, 0, 0);
	c = (struct smartt_ctrl_ext *)(h + 1);
	c->x.sport = sport;
	c->x.dport = dport;
	c->x.epoch = epoch;
	c->code = htonl(code);
	c->msg_id = msg_id;
	smartt_stat_inc(net, SMARTT_STAT_TX_ERRORS);
	return skb;
}

/**
 * smartt_send_error() - answer a DATA packet with an error packet
 * @net: network namespace
 * @usk: the UDP socket that received it, or NULL for the netns's one
 * @in: the DATA packet (IP header intact)
 * @dx: its extension
 * @code: &enum smartt_err_code
 *
 * Sent back to the packet's source without any per-peer state (the
 * socket may not exist); only DATA is ever answered, so two hosts never
 * exchange errors about errors.  Packets not addressed to this host alone
 * get no answer; the others at most one per net.smartt.transport_err_ratelimit
 * ms of the netns (bursts of %SMARTT_ERR_BURST), the rest are counted
 * tx_errors_ratelimited.
 */
void smartt_send_error(struct net *net, struct sock *usk, struct sk_buff *in,
		       const struct smartt_data_ext *dx, u32 code)
{
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
	skb = smartt_error_skb(net, dx->x.dport, dx->x.sport, dx->x.epoch, code, dx->msg_id);
	if (!skb)
		return;
	family = smartt_reply_addrs(in, &src, &dst);
	smartt_xmit(net, usk, family, NULL, &src, &dst, skb, get_random_u32(), false);
}

/**
 * smartt_send_error_peer() - tell a peer the receiver dropped its message
 * @sk: socket (locked)
 * @peer: the message's sender
 * @msg_id: the message
 * @code: &enum smartt_err_code
 *
 * The error packet of smartt_send_error(), addressed from the peer's
 * state (for a message freed by the timer, with no packet to answer) and
 * under the same per-netns rate limit.
 */
void smartt_send_error_peer(struct sock *sk, struct smartt_peer *peer, u64 msg_id,
			    u32 code)
{
	struct net *net = sock_net(sk);
	struct sk_buff *skb;

	skb = smartt_error_skb(net, htons(smartt_sk(sk)->port), htons(peer->port),
			       htonl(peer->rx_epoch), code, cpu_to_be64(msg_id));
	if (skb)
		smartt_xmit(net, NULL, peer->family, &peer->dst_cache, &peer->saddr,
			    &peer->addr, skb, get_random_u32(), false);
}
