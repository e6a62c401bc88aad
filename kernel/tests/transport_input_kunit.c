// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite smartt-transport-input: crafted packets fed straight into the
 * transport's receive function, smartt_encap_rcv(), as the UDP
 * encapsulation socket would hand them over (data at the UDP header, the
 * IP header before it), at live sockets of the built-in transport.
 *
 * For every packet type, and for types that do not exist, every header
 * length from zero words to two words past the type's extension and every
 * packet length around them: a packet is either dropped by the parser and
 * counted under the one reason the format gives, or it reaches the
 * socket, which counts what it did with it.  Then the DATA fields one by
 * one at their bounds, group-addressed packets, and a message delivered
 * byte for byte from segments out of order.  The CRP packets: every field
 * rule at its bound, a request answered, a grant for no reservation.
 */
#include <kunit/test.h>
#include <linux/if.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ipv6_route.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "../transport/transport.h"
#include "../transport/wire.h"

#define TIN_PORT6	7001	/* transport port of the IPv6 socket */
#define TIN_PORT4	7002	/* of the IPv4 socket */
#define TIN_PORT_NONE	7003	/* no socket */
#define TIN_BUF		512	/* largest packet built, from the UDP header */

/* 2001:2::1 (the crafted peer) and 2001:2::2, 198.18.0.1 and 198.18.0.2 */
static const struct in6_addr tin_peer6 = {
	.s6_addr = { 0x20, 0x01, 0x00, 0x02, [15] = 1 } };
static const struct in6_addr tin_self6 = {
	.s6_addr = { 0x20, 0x01, 0x00, 0x02, [15] = 2 } };
#define TIN_PEER4	htonl(0xc6120001)
#define TIN_SELF4	htonl(0xc6120002)

struct tin_ctx {
	struct socket *s6;
	struct socket *s4;
	u64 psn;		/* next PSN and message id of crafted DATA */
	u8 buf[TIN_BUF];	/* the packet being built, from the UDP header */
};

/* How a crafted packet is addressed. */
struct tin_addr {
	bool v4;
	u8 pkt_type;		/* PACKET_HOST unless a test says otherwise */
	const struct in6_addr *saddr6, *daddr6;
	__be32 saddr4, daddr4;
};

static u64 tin_stat(enum smartt_stat s)
{
	struct smartt_net *sn = smartt_net(&init_net);
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(sn->stats, cpu)->v[s];
	return sum;
}

static struct socket *tin_socket(struct kunit *test, int family, u16 port)
{
	struct sockaddr_storage ss = {};
	struct socket *sock;
	int len, err;

	err = sock_create_kern(&init_net, family, SOCK_DGRAM, IPPROTO_SMARTT, &sock);
	KUNIT_ASSERT_EQ(test, err, 0);
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		len = sizeof(*a);
	}
	err = kernel_bind(sock, (struct sockaddr *)&ss, len);
	if (err)
		sock_release(sock);
	KUNIT_ASSERT_EQ(test, err, 0);
	return sock;
}

/*
 * The test kernel's init netns has no interface up and no route, and a
 * peer the transport cannot route to is refused.  So: lo up, 198.18.0.2/24
 * on it (which makes the /24 local, as 127/8 is) and 2001:2::/48 routed
 * through it.  What the transport answers to the crafted IPv6 peer goes
 * out lo and comes back to a host that does not forward: IPv6 drops it.
 * Its answers to the crafted IPv4 peer come back to it (tin_rcv()).
 */
static int tin_suite_init(struct kunit_suite *suite)
{
	struct net_device *lo = init_net.loopback_dev;
	struct fib6_config cfg = {
		.fc_table = RT6_TABLE_MAIN,
		.fc_metric = IP6_RT_PRIO_USER,
		.fc_ifindex = lo->ifindex,
		.fc_dst = tin_peer6,
		.fc_dst_len = 48,
		.fc_flags = RTF_UP,
		.fc_protocol = RTPROT_BOOT,
		.fc_type = RTN_UNICAST,
		.fc_nlinfo.nl_net = &init_net,
	};
	struct ifreq ifr = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	int err;

	rtnl_lock();
	err = dev_change_flags(lo, lo->flags | IFF_UP, NULL);
	rtnl_unlock();
	if (err)
		return err;
	strscpy(ifr.ifr_name, lo->name, sizeof(ifr.ifr_name));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = TIN_SELF4;
	err = devinet_ioctl(&init_net, SIOCSIFADDR, &ifr);
	if (err)
		return err;
	return ip6_route_add(&cfg, GFP_KERNEL, NULL);
}

static int tin_init(struct kunit *test)
{
	struct tin_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->psn = 1;
	c->s6 = tin_socket(test, AF_INET6, TIN_PORT6);
	c->s4 = tin_socket(test, AF_INET, TIN_PORT4);
	/* The encapsulation sockets exist while a transport socket does. */
	KUNIT_ASSERT_NOT_NULL(test, smartt_net(&init_net)->udp4);
	test->priv = c;
	return 0;
}

static void tin_exit(struct kunit *test)
{
	struct tin_ctx *c = test->priv;

	if (!c)
		return;
	sock_release(c->s4);
	sock_release(c->s6);
}

/* The counters a packet may move, each checked to move as expected. */
static const enum smartt_stat tin_watched[] = {
	SMARTT_STAT_DROP_SHORT, SMARTT_STAT_DROP_MAGIC, SMARTT_STAT_DROP_VERSION,
	SMARTT_STAT_DROP_TYPE, SMARTT_STAT_DROP_HLEN, SMARTT_STAT_DROP_LEN,
	SMARTT_STAT_DROP_OFFSET, SMARTT_STAT_DROP_EPOCH, SMARTT_STAT_DROP_WINDOW,
	SMARTT_STAT_DROP_NO_SOCKET, SMARTT_STAT_DROP_NO_PEER, SMARTT_STAT_DROP_NOT_UNICAST,
	SMARTT_STAT_DROP_PEERS, SMARTT_STAT_DROP_RMEM, SMARTT_STAT_DROP_MEM,
	SMARTT_STAT_DROP_NOMEM, SMARTT_STAT_RX_DATA, SMARTT_STAT_RX_PROBES,
	SMARTT_STAT_RX_DUP, SMARTT_STAT_RX_TRIMMED, SMARTT_STAT_ERR_MSGSIZE,
	SMARTT_STAT_CRP_RX_REQ, SMARTT_STAT_CRP_DROP_BAD, SMARTT_STAT_CRP_DROP_UNKNOWN,
};

struct tin_snap {
	u64 v[ARRAY_SIZE(tin_watched)];
	u64 pkts, malformed;
};

static void tin_snap(struct tin_snap *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tin_watched); i++)
		s->v[i] = tin_stat(tin_watched[i]);
	s->pkts = tin_stat(SMARTT_STAT_RX_PKTS);
	s->malformed = tin_stat(SMARTT_STAT_MALFORMED);
}

/*
 * Hand @len bytes of c->buf (from the smartt header on) to
 * smartt_encap_rcv() behind a UDP and an IP header, as UDP would, and
 * read the counters into @after before any answer can come back: IPv4
 * routes through lo deliver locally, so the transport's answers to the
 * crafted peer come back to it as soon as bottom halves run again (and
 * are counted there: no socket has the crafted peer's port).
 */
static void tin_rcv(struct kunit *test, const struct tin_addr *ad, unsigned int len,
		    struct tin_snap *after)
{
	struct tin_ctx *c = test->priv;
	struct smartt_net *sn = smartt_net(&init_net);
	unsigned int iphlen = ad->v4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	struct socket *usk = ad->v4 ? sn->udp4 : sn->udp6;
	struct sk_buff *skb;
	struct udphdr *uh;

	KUNIT_ASSERT_NOT_NULL(test, usk);
	skb = alloc_skb(MAX_HEADER + iphlen + sizeof(*uh) + len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, MAX_HEADER + iphlen + sizeof(*uh));
	skb_put_data(skb, c->buf, len);
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(SMARTT_UDP_PORT_DEFAULT);
	uh->dest = htons(SMARTT_UDP_PORT_DEFAULT);
	uh->len = htons(sizeof(*uh) + len);
	uh->check = 0;
	skb_push(skb, iphlen);
	skb_reset_network_header(skb);
	if (ad->v4) {
		struct iphdr *iph = ip_hdr(skb);

		memset(iph, 0, sizeof(*iph));
		iph->version = 4;
		iph->ihl = 5;
		iph->ttl = 64;
		iph->protocol = IPPROTO_UDP;
		iph->tot_len = htons(iphlen + sizeof(*uh) + len);
		iph->saddr = ad->saddr4 ? ad->saddr4 : TIN_PEER4;
		iph->daddr = ad->daddr4 ? ad->daddr4 : TIN_SELF4;
		skb->protocol = htons(ETH_P_IP);
	} else {
		struct ipv6hdr *ip6 = ipv6_hdr(skb);

		memset(ip6, 0, sizeof(*ip6));
		ip6->version = 6;
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = 64;
		ip6->payload_len = htons(sizeof(*uh) + len);
		ip6->saddr = ad->saddr6 ? *ad->saddr6 : tin_peer6;
		ip6->daddr = ad->daddr6 ? *ad->daddr6 : tin_self6;
		skb->protocol = htons(ETH_P_IPV6);
	}
	__skb_pull(skb, iphlen);
	skb->pkt_type = ad->pkt_type;
	/* As from UDP's softirq: the socket and its timer take bh locks. */
	local_bh_disable();
	smartt_encap_rcv(usk->sk, skb);
	tin_snap(after);
	local_bh_enable();
}

static struct smartt_hdr *tin_hdr(struct tin_ctx *c)
{
	return (struct smartt_hdr *)c->buf;
}

/*
 * A valid header of @type with @words header words (whatever the type
 * needs) and @paylen payload bytes, from source port @sport to @dport.
 */
static void tin_build(struct tin_ctx *c, u8 type, u8 words, u32 paylen, u16 sport,
		      u16 dport)
{
	struct smartt_hdr *h = tin_hdr(c);
	struct smartt_xhdr *x = (struct smartt_xhdr *)(h + 1);
	u64 psn = c->psn++;

	memset(c->buf, 0, sizeof(c->buf));
	h->magic = htons(SMARTT_MAGIC);
	h->version = SMARTT_WIRE_VERSION;
	h->type = type;
	h->hdr_words = words;
	h->psn = cpu_to_be64(psn);
	h->payload_len = htons(paylen);
	x->sport = htons(sport);
	x->dport = htons(dport);
	x->epoch = htonl(0x5eed);
	if (type == SMARTT_PKT_DATA) {
		struct smartt_data_ext *dx = (struct smartt_data_ext *)x;

		dx->msg_id = cpu_to_be64(psn);
		dx->msg_len = cpu_to_be64(paylen);
		dx->seg_size = htonl(SMARTT_SEG_MAX);
		dx->snd_una = cpu_to_be64(psn);
	} else if (type == SMARTT_PKT_PROBE) {
		struct smartt_probe_ext *px = (struct smartt_probe_ext *)x;

		px->snd_una = cpu_to_be64(psn);
	} else if (type == SMARTT_PKT_CTRL) {
		struct smartt_ctrl_ext *cx = (struct smartt_ctrl_ext *)x;

		cx->code = htonl(SMARTT_ERR_EXPIRED);
	} else if (type >= SMARTT_PKT_CRP_REQ && type <= SMARTT_PKT_CRP_RETRY) {
		struct smartt_crp_ext *rx = (struct smartt_crp_ext *)x;

		rx->msg_id = cpu_to_be64(psn);
		rx->seg_len = htonl(4096);
		rx->req_bytes = htonl(4500);
		if (type == SMARTT_PKT_CRP_GRANT)
			rx->crp_flags = htons(SMARTT_CRP_DEST_DONE);
		else if (type == SMARTT_PKT_CRP_RETRY)
			rx->crp_flags = htons(SMARTT_CRP_DEST_DONE | SMARTT_CRP_NO_SLOT);
	}
}

/* The header a type needs, 0 for a type the format does not have. */
static unsigned int tin_need(u8 type)
{
	switch (type) {
	case SMARTT_PKT_DATA:
		return SMARTT_V1_DATA_HLEN;
	case SMARTT_PKT_ACK:
	case SMARTT_PKT_NACK:
	case SMARTT_PKT_PROBE_ACK:
		return SMARTT_V1_ACK_HLEN;
	case SMARTT_PKT_PROBE:
		return SMARTT_V1_PROBE_HLEN;
	case SMARTT_PKT_CTRL:
		return SMARTT_V1_CTRL_HLEN;
	case SMARTT_PKT_CRP_REQ:
	case SMARTT_PKT_CRP_GRANT:
	case SMARTT_PKT_CRP_RETRY:
		return SMARTT_CRP_HLEN;
	}
	return 0;
}

/*
 * What the socket counts for a well-formed packet of @type from a source
 * port it never heard of (DATA and PROBE make a peer, a CRP request is
 * answered without one, the others need one).
 */
static enum smartt_stat tin_accepted(u8 type)
{
	switch (type) {
	case SMARTT_PKT_DATA:
		return SMARTT_STAT_RX_DATA;
	case SMARTT_PKT_PROBE:
		return SMARTT_STAT_RX_PROBES;
	case SMARTT_PKT_CRP_REQ:
		return SMARTT_STAT_CRP_RX_REQ;
	}
	return SMARTT_STAT_DROP_NO_PEER;
}

static bool tin_is_crp(u8 type)
{
	return type >= SMARTT_PKT_CRP_REQ && type <= SMARTT_PKT_CRP_RETRY;
}

/*
 * From @before to @now: one more packet in, exactly @want of the watched
 * counters moved (by one), and MALFORMED moved iff @malformed.
 */
static void tin_expect(struct kunit *test, const struct tin_snap *before,
		       const struct tin_snap *now, enum smartt_stat want, bool malformed,
		       const char *what)
{
	unsigned int i;

	KUNIT_EXPECT_EQ_MSG(test, now->pkts, before->pkts + 1, "%s: rx_pkts", what);
	KUNIT_EXPECT_EQ_MSG(test, now->malformed, before->malformed + malformed,
			    "%s: malformed", what);
	for (i = 0; i < ARRAY_SIZE(tin_watched); i++)
		KUNIT_EXPECT_EQ_MSG(test, now->v[i],
				    before->v[i] + (tin_watched[i] == want),
				    "%s: counter %u (want %u)", what, tin_watched[i], want);
}

/* Empty a socket's receive queue; return how many messages it held. */
static unsigned int tin_drain(struct socket *sock, u8 *buf, size_t size, int *last_len)
{
	unsigned int n = 0;

	for (;;) {
		struct kvec iov = { .iov_base = buf, .iov_len = size };
		struct msghdr msg = {};
		int len;

		len = kernel_recvmsg(sock, &msg, &iov, 1, size, MSG_DONTWAIT);
		if (len < 0)
			return n;
		*last_len = len;
		n++;
	}
}

/*
 * Every type, every header length in words from 0 to 2 past the type's
 * extension, every packet length from empty to 24 bytes past the header:
 * the parser's verdict is the first of short, unknown type, header words
 * too few, header longer than the packet, a CRP packet with bytes after
 * its headers, or else the socket's.
 */
static void tin_header_bounds(struct kunit *test, bool v4)
{
	static const u8 types[] = { 0, SMARTT_PKT_DATA, SMARTT_PKT_ACK, SMARTT_PKT_NACK,
				    SMARTT_PKT_PROBE, SMARTT_PKT_PROBE_ACK, SMARTT_PKT_CTRL,
				    SMARTT_PKT_CRP_REQ, SMARTT_PKT_CRP_GRANT,
				    SMARTT_PKT_CRP_RETRY, SMARTT_PKT_MAX, 255 };
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .v4 = v4, .pkt_type = PACKET_HOST };
	u16 dport = v4 ? TIN_PORT4 : TIN_PORT6;
	struct socket *sock = v4 ? c->s4 : c->s6;
	unsigned int t, words, len, max_words, hlen, need;
	u8 *rbuf = kunit_kzalloc(test, TIN_BUF, GFP_KERNEL);
	unsigned int delivered = 0, expected = 0;
	int last = -1;

	KUNIT_ASSERT_NOT_NULL(test, rbuf);
	for (t = 0; t < ARRAY_SIZE(types); t++) {
		u8 type = types[t];

		need = tin_need(type);
		max_words = (need ? need : SMARTT_HDR_LEN) / 8 + 2;
		for (words = 0; words <= max_words; words++) {
			hlen = words * 8;
			for (len = 0; len <= max(hlen, need) + 24 && len <= TIN_BUF; len++) {
				u32 paylen = len > hlen ? len - hlen : 0;
				enum smartt_stat want;
				struct tin_snap before, after;
				bool bad = true;
				char what[64];

				/* A source port of its own per type: no peer. */
				tin_build(c, type, words, paylen, 1000 + type, dport);
				if (len < SMARTT_HDR_LEN) {
					want = SMARTT_STAT_DROP_SHORT;
				} else if (!need) {
					want = SMARTT_STAT_DROP_TYPE;
				} else if (hlen < need) {
					want = SMARTT_STAT_DROP_HLEN;
				} else if (len < hlen) {
					want = SMARTT_STAT_DROP_SHORT;
				} else if (tin_is_crp(type) && len > hlen) {
					/* CRP packets carry no payload */
					want = SMARTT_STAT_DROP_LEN;
				} else {
					want = tin_accepted(type);
					bad = false;
				}
				snprintf(what, sizeof(what), "v%d type %u words %u len %u",
					 v4 ? 4 : 6, type, words, len);
				tin_snap(&before);
				tin_rcv(test, &ad, len, &after);
				tin_expect(test, &before, &after, want, bad, what);
				if (want == SMARTT_STAT_RX_DATA) {
					expected++;
					delivered += tin_drain(sock, rbuf, TIN_BUF, &last);
					KUNIT_EXPECT_EQ_MSG(test, last, (int)paylen, "%s", what);
				}
			}
		}
	}
	KUNIT_EXPECT_GT(test, expected, 0U);
	KUNIT_EXPECT_EQ(test, delivered, expected);
}

static void tin_header_bounds_v6(struct kunit *test)
{
	tin_header_bounds(test, false);
}

static void tin_header_bounds_v4(struct kunit *test)
{
	tin_header_bounds(test, true);
}

/* DATA fields at their bounds, one at a time. */
struct tin_data_case {
	const char *name;
	u16 flags;
	u32 pay;		/* payload bytes in the packet, TIN_PAY if 0 */
	bool zero_epoch;
	u64 msg_len;
	u64 offset;
	u32 seg_size;
	u32 payload_len;	/* the header's field; the packet has 100 bytes */
	bool una_above_psn;
	enum smartt_stat want;
	bool malformed;
};

#define TIN_PAY 100

static const struct tin_data_case tin_data_cases[] = {
	{ "valid", 0, 0, false, TIN_PAY, 0, 4096, TIN_PAY, false,
	  SMARTT_STAT_RX_DATA, false },
	{ "epoch zero", 0, 0, true, TIN_PAY, 0, 4096, TIN_PAY, false,
	  SMARTT_STAT_DROP_EPOCH, true },
	{ "payload_len above the payload", 0, 0, false, TIN_PAY, 0, 4096, TIN_PAY + 1,
	  false, SMARTT_STAT_DROP_LEN, true },
	{ "payload_len below the payload", 0, 0, false, TIN_PAY, 0, 4096, TIN_PAY - 1,
	  false, SMARTT_STAT_DROP_LEN, true },
	{ "trimmed, payload_len above", SMARTT_F_TRIMMED, 0, false, 4 * TIN_PAY, 0, 4096,
	  4 * TIN_PAY, false, SMARTT_STAT_RX_TRIMMED, false },
	{ "trimmed, payload_len below", SMARTT_F_TRIMMED, 0, false, TIN_PAY - 1, 0, 4096,
	  TIN_PAY - 1, false, SMARTT_STAT_DROP_LEN, true },
	{ "seg_size one below the minimum", 0, 0, false, TIN_PAY, 0, SMARTT_SEG_MIN - 1,
	  TIN_PAY, false, SMARTT_STAT_DROP_LEN, true },
	{ "seg_size the minimum", 0, SMARTT_SEG_MIN, false, SMARTT_SEG_MIN, 0,
	  SMARTT_SEG_MIN, SMARTT_SEG_MIN, false, SMARTT_STAT_RX_DATA, false },
	{ "seg_size the maximum", 0, 0, false, TIN_PAY, 0, SMARTT_SEG_MAX, TIN_PAY, false,
	  SMARTT_STAT_RX_DATA, false },
	{ "seg_size one above the maximum", 0, 0, false, TIN_PAY, 0, SMARTT_SEG_MAX + 1,
	  TIN_PAY, false, SMARTT_STAT_DROP_LEN, true },
	{ "msg_len one above the limit", 0, 0, false, (u64)SMARTT_MSG_MAX_LIMIT + 1, 0,
	  4096, TIN_PAY, false, SMARTT_STAT_DROP_LEN, true },
	{ "msg_len at the limit, above the socket's", 0, SMARTT_SEG_MIN, false,
	  SMARTT_MSG_MAX_LIMIT, 0, SMARTT_SEG_MIN, SMARTT_SEG_MIN, false,
	  SMARTT_STAT_ERR_MSGSIZE, false },
	{ "msg_len 2^64-1", 0, 0, false, U64_MAX, 0, 4096, TIN_PAY, false,
	  SMARTT_STAT_DROP_LEN, true },
	{ "offset at msg_len", 0, 0, false, 4096, 4096, 4096, TIN_PAY, false,
	  SMARTT_STAT_DROP_OFFSET, true },
	{ "offset 2^63", 0, 0, false, 4096, 1ULL << 63, 4096, TIN_PAY, false,
	  SMARTT_STAT_DROP_OFFSET, true },
	{ "offset not a multiple of seg_size", 0, 0, false, 8192, 4095, 4096, TIN_PAY,
	  false, SMARTT_STAT_DROP_OFFSET, true },
	{ "offset in an empty message", 0, 0, false, 0, 4096, 4096, TIN_PAY, false,
	  SMARTT_STAT_DROP_OFFSET, true },
	{ "last segment shorter than payload_len says", 0, 0, false, 4096 + TIN_PAY - 1,
	  4096, 4096, TIN_PAY, false, SMARTT_STAT_DROP_LEN, true },
	{ "last segment, exact", 0, 0, false, 4096 + TIN_PAY, 4096, 4096, TIN_PAY, false,
	  SMARTT_STAT_RX_DATA, false },
	{ "inner segment shorter than seg_size", 0, 0, false, 8192, 0, 4096, TIN_PAY,
	  false, SMARTT_STAT_DROP_LEN, true },
	{ "snd_una above the PSN", 0, 0, false, TIN_PAY, 0, 4096, TIN_PAY, true,
	  SMARTT_STAT_DROP_WINDOW, true },
};

static void tin_data_fields(struct kunit *test)
{
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	u8 *rbuf = kunit_kzalloc(test, TIN_BUF, GFP_KERNEL);
	unsigned int i;
	int last;

	KUNIT_ASSERT_NOT_NULL(test, rbuf);
	for (i = 0; i < ARRAY_SIZE(tin_data_cases); i++) {
		const struct tin_data_case *k = &tin_data_cases[i];
		struct smartt_hdr *h = tin_hdr(c);
		struct smartt_data_ext *dx = (struct smartt_data_ext *)(h + 1);
		u32 pay = k->pay ? k->pay : TIN_PAY;
		struct tin_snap before, after;

		/* A peer of its own per case: each starts a fresh epoch. */
		tin_build(c, SMARTT_PKT_DATA, SMARTT_V1_DATA_HLEN / 8, pay, 2000 + i,
			  TIN_PORT6);
		h->flags = htons(k->flags);
		h->payload_len = htons(k->payload_len);
		if (k->zero_epoch)
			dx->x.epoch = 0;
		dx->msg_len = cpu_to_be64(k->msg_len);
		dx->offset = cpu_to_be64(k->offset);
		dx->seg_size = htonl(k->seg_size);
		if (k->una_above_psn)
			dx->snd_una = cpu_to_be64(be64_to_cpu(h->psn) + 1);
		memset(c->buf + SMARTT_V1_DATA_HLEN, 0xa5, pay);
		tin_snap(&before);
		tin_rcv(test, &ad, SMARTT_V1_DATA_HLEN + pay, &after);
		tin_expect(test, &before, &after, k->want, k->malformed, k->name);
		last = -1;
		tin_drain(c->s6, rbuf, TIN_BUF, &last);
		/* A single-segment message is delivered; a first segment is not. */
		KUNIT_EXPECT_EQ_MSG(test, last,
				    k->want == SMARTT_STAT_RX_DATA && k->msg_len == pay ?
				    (int)pay : -1, "%s", k->name);
	}
}

/* CRP fields at their bounds, one at a time; @flags replaces the built ones. */
struct tin_crp_case {
	const char *name;
	u8 type;
	int flags;		/* crp_flags, -1: as tin_build() made them */
	bool zero_epoch;
	bool zero_seg_len;
	bool zero_req_bytes;
	u16 payload_len;	/* the header's field; the packet has no payload */
	enum smartt_stat want;
	bool malformed;
};

#define TIN_DONE	SMARTT_CRP_DEST_DONE

static const struct tin_crp_case tin_crp_cases[] = {
	{ "request, undecided: the host's table answers", SMARTT_PKT_CRP_REQ, -1,
	  false, false, false, 0, SMARTT_STAT_CRP_RX_REQ, false },
	{ "request decided by a port: reflected", SMARTT_PKT_CRP_REQ, TIN_DONE,
	  false, false, false, 0, SMARTT_STAT_CRP_RX_REQ, false },
	{ "request decided NO_SLOT: reflected", SMARTT_PKT_CRP_REQ,
	  TIN_DONE | SMARTT_CRP_NO_SLOT, false, false, false, 0, SMARTT_STAT_CRP_RX_REQ,
	  false },
	{ "request decided DEST_FULL: reflected", SMARTT_PKT_CRP_REQ,
	  TIN_DONE | SMARTT_CRP_DEST_FULL, false, false, false, 0, SMARTT_STAT_CRP_RX_REQ,
	  false },
	{ "request, epoch zero", SMARTT_PKT_CRP_REQ, -1, true, false, false, 0,
	  SMARTT_STAT_DROP_EPOCH, true },
	{ "request, seg_len zero", SMARTT_PKT_CRP_REQ, -1, false, true, false, 0,
	  SMARTT_STAT_CRP_DROP_BAD, true },
	{ "request, req_bytes zero", SMARTT_PKT_CRP_REQ, -1, false, false, true, 0,
	  SMARTT_STAT_CRP_DROP_BAD, true },
	{ "request, payload_len 1 without payload", SMARTT_PKT_CRP_REQ, -1, false, false,
	  false, 1, SMARTT_STAT_DROP_LEN, true },
	{ "request, an unknown flag", SMARTT_PKT_CRP_REQ, 0x10, false, false, false, 0,
	  SMARTT_STAT_CRP_DROP_BAD, true },
	{ "request, CONVERTED", SMARTT_PKT_CRP_REQ, TIN_DONE | SMARTT_CRP_CONVERTED, false,
	  false, false, 0, SMARTT_STAT_CRP_DROP_BAD, true },
	{ "request, NO_SLOT without DEST_DONE", SMARTT_PKT_CRP_REQ, SMARTT_CRP_NO_SLOT,
	  false, false, false, 0, SMARTT_STAT_CRP_DROP_BAD, true },
	{ "request, NO_SLOT and DEST_FULL", SMARTT_PKT_CRP_REQ,
	  TIN_DONE | SMARTT_CRP_NO_SLOT | SMARTT_CRP_DEST_FULL, false, false, false, 0,
	  SMARTT_STAT_CRP_DROP_BAD, true },
	{ "grant from no peer", SMARTT_PKT_CRP_GRANT, -1, false, false, false, 0,
	  SMARTT_STAT_DROP_NO_PEER, false },
	{ "grant, undecided", SMARTT_PKT_CRP_GRANT, 0, false, false, false, 0,
	  SMARTT_STAT_CRP_DROP_BAD, true },
	{ "grant, NO_SLOT", SMARTT_PKT_CRP_GRANT, TIN_DONE | SMARTT_CRP_NO_SLOT, false,
	  false, false, 0, SMARTT_STAT_CRP_DROP_BAD, true },
	{ "grant, CONVERTED", SMARTT_PKT_CRP_GRANT, TIN_DONE | SMARTT_CRP_CONVERTED, false,
	  false, false, 0, SMARTT_STAT_CRP_DROP_BAD, true },
	{ "grant, epoch zero", SMARTT_PKT_CRP_GRANT, -1, true, false, false, 0,
	  SMARTT_STAT_DROP_EPOCH, true },
	{ "retry converted, from no peer", SMARTT_PKT_CRP_RETRY,
	  TIN_DONE | SMARTT_CRP_CONVERTED, false, false, false, 0, SMARTT_STAT_DROP_NO_PEER,
	  false },
	{ "retry without a reason", SMARTT_PKT_CRP_RETRY, TIN_DONE, false, false, false, 0,
	  SMARTT_STAT_CRP_DROP_BAD, true },
	{ "retry, undecided", SMARTT_PKT_CRP_RETRY, SMARTT_CRP_NO_SLOT, false, false, false,
	  0, SMARTT_STAT_CRP_DROP_BAD, true },
	{ "retry, req_bytes zero", SMARTT_PKT_CRP_RETRY, -1, false, false, true, 0,
	  SMARTT_STAT_CRP_DROP_BAD, true },
};

static void tin_crp_fields(struct kunit *test)
{
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .v4 = true, .pkt_type = PACKET_HOST };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tin_crp_cases); i++) {
		const struct tin_crp_case *k = &tin_crp_cases[i];
		struct smartt_hdr *h = tin_hdr(c);
		struct smartt_crp_ext *x = (struct smartt_crp_ext *)(h + 1);
		struct tin_snap before, after;

		tin_build(c, k->type, SMARTT_CRP_HLEN / 8, 0, 3000 + i, TIN_PORT4);
		if (k->flags >= 0)
			x->crp_flags = htons(k->flags);
		if (k->zero_epoch)
			x->epoch = 0;
		if (k->zero_seg_len)
			x->seg_len = 0;
		if (k->zero_req_bytes)
			x->req_bytes = 0;
		h->payload_len = htons(k->payload_len);
		tin_snap(&before);
		tin_rcv(test, &ad, SMARTT_CRP_HLEN, &after);
		tin_expect(test, &before, &after, k->want, k->malformed, k->name);
	}
}

/*
 * A grant or a retry from a peer the socket sends to, for no reservation
 * of it (its congestion control is not even "crp"): dropped and counted
 * crp_drop_unknown, whatever its fields say.
 */
static void tin_crp_unknown(struct kunit *test)
{
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .v4 = true, .pkt_type = PACKET_HOST };
	struct sockaddr_in to = {
		.sin_family = AF_INET,
		.sin_port = htons(3999),
		.sin_addr.s_addr = TIN_PEER4,
	};
	struct msghdr msg = { .msg_name = &to, .msg_namelen = sizeof(to) };
	struct kvec iov = { .iov_base = c->buf, .iov_len = 100 };
	struct tin_snap before, after;
	u8 type;

	/* The peer gets a window: a message is queued to it. */
	memset(c->buf, 0, sizeof(c->buf));
	KUNIT_ASSERT_EQ(test, kernel_sendmsg(c->s4, &msg, &iov, 1, 100), 100);
	for (type = SMARTT_PKT_CRP_GRANT; type <= SMARTT_PKT_CRP_RETRY; type++) {
		tin_build(c, type, SMARTT_CRP_HLEN / 8, 0, 3999, TIN_PORT4);
		tin_snap(&before);
		tin_rcv(test, &ad, SMARTT_CRP_HLEN, &after);
		tin_expect(test, &before, &after, SMARTT_STAT_CRP_DROP_UNKNOWN, false,
			   type == SMARTT_PKT_CRP_GRANT ? "grant, no reservation" :
			   "retry, no reservation");
	}
}

/*
 * Sent to a group, overheard, or from a group address: dropped before any
 * state is made or an answer sent, even when the packet is valid.
 */
static void tin_not_unicast(struct kunit *test)
{
	static const struct in6_addr all_nodes = {
		.s6_addr = { 0xff, 0x02, [15] = 1 } };
	const struct tin_addr addrs[] = {
		{ .v4 = false, .pkt_type = PACKET_MULTICAST },
		{ .v4 = false, .pkt_type = PACKET_BROADCAST },
		{ .v4 = false, .pkt_type = PACKET_OTHERHOST },
		{ .v4 = false, .pkt_type = PACKET_HOST, .daddr6 = &all_nodes },
		{ .v4 = false, .pkt_type = PACKET_HOST, .saddr6 = &all_nodes },
		{ .v4 = true, .pkt_type = PACKET_BROADCAST },
		{ .v4 = true, .pkt_type = PACKET_HOST, .daddr4 = htonl(INADDR_BROADCAST) },
		{ .v4 = true, .pkt_type = PACKET_HOST, .daddr4 = htonl(0xe0000001) },
		{ .v4 = true, .pkt_type = PACKET_HOST, .saddr4 = htonl(0xe0000001) },
	};
	struct tin_ctx *c = test->priv;
	u64 tx = tin_stat(SMARTT_STAT_TX_PKTS) + tin_stat(SMARTT_STAT_TX_FAIL);
	u8 types[] = { SMARTT_PKT_DATA, SMARTT_PKT_PROBE };
	unsigned int i, t;

	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		for (t = 0; t < ARRAY_SIZE(types); t++) {
			struct tin_snap before, after;
			char what[48];

			tin_build(c, types[t], tin_need(types[t]) / 8, 0, 3000 + i,
				  addrs[i].v4 ? TIN_PORT4 : TIN_PORT6);
			snprintf(what, sizeof(what), "case %u type %u", i, types[t]);
			tin_snap(&before);
			tin_rcv(test, &addrs[i], tin_need(types[t]), &after);
			tin_expect(test, &before, &after, SMARTT_STAT_DROP_NOT_UNICAST, false,
				   what);
		}
	}
	/* Nothing was answered, not even tried. */
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_TX_PKTS) + tin_stat(SMARTT_STAT_TX_FAIL),
			tx);
}

/* A wrong magic or version, and a port or family with no socket. */
static void tin_misaddressed(struct kunit *test)
{
	struct tin_ctx *c = test->priv;
	struct tin_addr v6 = { .pkt_type = PACKET_HOST };
	struct tin_addr v4 = { .v4 = true, .pkt_type = PACKET_HOST };
	struct tin_snap before, after;

	tin_build(c, SMARTT_PKT_DATA, SMARTT_V1_DATA_HLEN / 8, 0, 4000, TIN_PORT6);
	tin_hdr(c)->magic = htons(SMARTT_MAGIC ^ 1);
	tin_snap(&before);
	tin_rcv(test, &v6, SMARTT_V1_DATA_HLEN, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_MAGIC, true, "magic");

	tin_build(c, SMARTT_PKT_DATA, SMARTT_V1_DATA_HLEN / 8, 0, 4000, TIN_PORT6);
	tin_hdr(c)->version = SMARTT_WIRE_VERSION + 1;
	tin_snap(&before);
	tin_rcv(test, &v6, SMARTT_V1_DATA_HLEN, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_VERSION, true, "version");

	tin_build(c, SMARTT_PKT_DATA, SMARTT_V1_DATA_HLEN / 8, 0, 4000, TIN_PORT_NONE);
	tin_snap(&before);
	tin_rcv(test, &v6, SMARTT_V1_DATA_HLEN, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_NO_SOCKET, false, "no socket");

	/* IPv4 to the IPv6 socket's port: that socket does not take IPv4. */
	tin_build(c, SMARTT_PKT_DATA, SMARTT_V1_DATA_HLEN / 8, 0, 4000, TIN_PORT6);
	tin_snap(&before);
	tin_rcv(test, &v4, SMARTT_V1_DATA_HLEN, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_NO_SOCKET, false, "family");
}

/*
 * A three-segment message whose segments come last first, with a
 * duplicate: delivered once, whole, byte for byte.
 */
static void tin_reassembly(struct kunit *test)
{
	const unsigned int seg = SMARTT_SEG_MIN, len = 2 * SMARTT_SEG_MIN + 10;
	static const unsigned int order[] = { 2, 0, 0, 1 };
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	u8 *rbuf = kunit_kzalloc(test, TIN_BUF, GFP_KERNEL);
	u64 base = c->psn + 100;
	unsigned int i, n;
	int last = -1;

	KUNIT_ASSERT_NOT_NULL(test, rbuf);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		unsigned int k = order[i], off = k * seg, plen = min(seg, len - off), b;
		struct smartt_hdr *h = tin_hdr(c);
		struct smartt_data_ext *dx = (struct smartt_data_ext *)(h + 1);
		struct tin_snap before, after;
		char what[32];

		tin_build(c, SMARTT_PKT_DATA, SMARTT_V1_DATA_HLEN / 8, plen, 5000, TIN_PORT6);
		h->psn = cpu_to_be64(base + k);
		dx->msg_id = cpu_to_be64(base);
		dx->msg_len = cpu_to_be64(len);
		dx->offset = cpu_to_be64(off);
		dx->seg_size = htonl(seg);
		dx->snd_una = cpu_to_be64(base);
		for (b = 0; b < plen; b++)
			c->buf[SMARTT_V1_DATA_HLEN + b] = (u8)(off + b) ^ 0x5a;
		snprintf(what, sizeof(what), "segment %u (%u)", k, i);
		tin_snap(&before);
		tin_rcv(test, &ad, SMARTT_V1_DATA_HLEN + plen, &after);
		tin_expect(test, &before, &after, i == 2 ? SMARTT_STAT_RX_DUP : SMARTT_STAT_RX_DATA,
			   false, what);
		n = tin_drain(c->s6, rbuf, TIN_BUF, &last);
		KUNIT_EXPECT_EQ_MSG(test, n, i == ARRAY_SIZE(order) - 1 ? 1U : 0U, "%s", what);
	}
	KUNIT_ASSERT_EQ(test, last, (int)len);
	for (i = 0; i < len; i++)
		KUNIT_EXPECT_EQ_MSG(test, rbuf[i], (u8)i ^ 0x5a, "byte %u", i);
}

static struct kunit_case tin_cases[] = {
	KUNIT_CASE(tin_header_bounds_v6),
	KUNIT_CASE(tin_header_bounds_v4),
	KUNIT_CASE(tin_data_fields),
	KUNIT_CASE(tin_crp_fields),
	KUNIT_CASE(tin_crp_unknown),
	KUNIT_CASE(tin_not_unicast),
	KUNIT_CASE(tin_misaddressed),
	KUNIT_CASE(tin_reassembly),
	{}
};

static struct kunit_suite tin_suite = {
	.name = "smartt-transport-input",
	.suite_init = tin_suite_init,
	.init = tin_init,
	.exit = tin_exit,
	.test_cases = tin_cases,
};

kunit_test_suite(tin_suite);
