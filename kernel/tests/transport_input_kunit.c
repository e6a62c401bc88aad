// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite smartt-transport-input: crafted packets fed straight into the
 * transport's receive function, smartt_encap_rcv(), as the UDP
 * encapsulation socket would hand them over (data at the UDP header, the
 * IP header before it), at live sockets of the built-in transport.
 *
 * Wire format v2 (UET PDS + SES).  For every packet type smartt takes, and
 * for types and next headers it does not, every packet length from empty
 * to well past the type's headers and trailer: a packet is either dropped
 * by the parser and counted under the one reason the format gives, or it
 * reaches the socket (or the DPDCID lookup), which counts what it did with
 * it.  Then a bad CRC, trimmed packets, the DPDCID, SPDCID and source
 * checks of ACKs, another job, PSNs and message ids out of window, the
 * DATA fields one by one at their bounds, group-addressed packets, and a
 * message delivered byte for byte from segments out of order.  Then the
 * end-to-end completion under attack: forged SYN and DATA of another PDC
 * neither reset nor lose a partial message, a duplicate asks for a kept
 * outcome, and a sender reports success only on the SES response; the
 * buffer and the peer table are shared per host, whatever its ports; the
 * congestion control takes what an ACK acknowledged.  The CRP
 * packets (on their own UDP port): every field rule at its bound, a
 * request answered, a grant for no reservation.
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
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/dsfield.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "../transport/transport.h"
#include "../transport/wire.h"

#define TIN_PORT6	1901	/* transport port of the IPv6 socket */
#define TIN_PORT4	1902	/* of the IPv4 socket */
#define TIN_PORT_NONE	1903	/* no socket */
#define TIN_BUF		2048	/* largest packet built, from the UDP header */
#define TIN_PAY		100	/* payload bytes of most crafted DATA */

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
	u32 psn;		/* next PSN of crafted DATA */
	u16 pdc;		/* next sender PDC id of crafted DATA */
	u16 imsg[SMARTT_PORT_MAX + 1];	/* next message id, by initiator */
	unsigned int seal;	/* a trailer at this offset of buf, 0: none */
	bool flip_set;		/* corrupt a byte after the trailer is filled: */
	int flip_at;		/* its offset in the UDP payload (< 0: UDP header) */
	u8 flip;		/* the bits to flip there */
	bool flip_saddr;	/* or flip the last bit of the IP source address */
	u8 buf[TIN_BUF];	/* the packet being built, from the PDS header */
};

/* How a crafted packet is addressed. */
struct tin_addr {
	bool v4;
	bool crp;		/* to crp_udp_port (smartt_crp_encap_rcv()) */
	u8 pkt_type;		/* PACKET_HOST unless a test says otherwise */
	u8 dscp;		/* the IP DSCP */
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
	c->pdc = 0x100;
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
	SMARTT_STAT_DROP_CRC, SMARTT_STAT_DROP_DPDCID, SMARTT_STAT_DROP_SPDCID,
	SMARTT_STAT_DROP_SRC, SMARTT_STAT_DROP_JOB, SMARTT_STAT_DROP_SEG_UNKNOWN,
	SMARTT_STAT_DROP_MSG_ID, SMARTT_STAT_DROP_FIELD, SMARTT_STAT_RX_ACKS,
	SMARTT_STAT_RX_NACKS, SMARTT_STAT_DROP_ACK_UNSENT, SMARTT_STAT_DROP_SEG_CHARGE,
	SMARTT_STAT_DROP_SYN_BUSY,
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

/* Another IPv4 source address (its last bit flipped), checksum and all. */
static void iph_saddr_flip(struct iphdr *iph)
{
	iph->saddr ^= htonl(1);
	iph->check = 0;
	iph->check = ip_fast_csum((u8 *)iph, iph->ihl);
}

/*
 * Hand @len bytes of c->buf (the UDP payload) to smartt_encap_rcv() (or
 * smartt_crp_encap_rcv()) behind a UDP and an IP header, as UDP would, and
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
	struct socket *usk = ad->crp ? (ad->v4 ? sn->crp4 : sn->crp6) :
				       (ad->v4 ? sn->udp4 : sn->udp6);
	u16 port = ad->crp ? SMARTT_CRP_UDP_PORT_DEFAULT : SMARTT_UDP_PORT_DEFAULT;
	struct sk_buff *skb;
	struct udphdr *uh;

	KUNIT_ASSERT_NOT_NULL(test, usk);
	skb = alloc_skb(MAX_HEADER + iphlen + sizeof(*uh) + len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, MAX_HEADER + iphlen + sizeof(*uh));
	skb_put_data(skb, c->buf, len);
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(50000);
	uh->dest = htons(port);
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
		iph->tos = ad->dscp << 2;
		iph->protocol = IPPROTO_UDP;
		iph->tot_len = htons(iphlen + sizeof(*uh) + len);
		iph->saddr = ad->saddr4 ? ad->saddr4 : TIN_PEER4;
		iph->daddr = ad->daddr4 ? ad->daddr4 : TIN_SELF4;
		skb->protocol = htons(ETH_P_IP);
	} else {
		struct ipv6hdr *ip6 = ipv6_hdr(skb);

		memset(ip6, 0, sizeof(*ip6));
		ip6->version = 6;
		ipv6_change_dsfield(ip6, 0, ad->dscp << 2);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = 64;
		ip6->payload_len = htons(sizeof(*uh) + len);
		ip6->saddr = ad->saddr6 ? *ad->saddr6 : tin_peer6;
		ip6->daddr = ad->daddr6 ? *ad->daddr6 : tin_self6;
		skb->protocol = htons(ETH_P_IPV6);
	}
	/* the trailer, over the headers as built, then any corruption */
	if (c->seal && c->seal + SMARTT_CRC_LEN <= len) {
		__le32 crc;

		if (ad->v4)
			crc = cpu_to_le32(smartt_crc(&ip_hdr(skb)->saddr, &ip_hdr(skb)->daddr,
						     sizeof(__be32), uh, sizeof(*uh) + c->seal));
		else
			crc = cpu_to_le32(smartt_crc(&ipv6_hdr(skb)->saddr,
						     &ipv6_hdr(skb)->daddr,
						     sizeof(struct in6_addr), uh,
						     sizeof(*uh) + c->seal));
		memcpy((u8 *)(uh + 1) + c->seal, &crc, sizeof(crc));
	}
	if (c->flip_set && c->flip_at >= -(int)sizeof(*uh) && c->flip_at < (int)len)
		((u8 *)(uh + 1))[c->flip_at] ^= c->flip;
	if (c->flip_saddr && ad->v4)
		iph_saddr_flip(ip_hdr(skb));
	else if (c->flip_saddr)
		ipv6_hdr(skb)->saddr.s6_addr[15] ^= 1;
	c->seal = 0;
	c->flip_set = false;
	c->flip_saddr = false;
	__skb_pull(skb, iphlen);
	skb->pkt_type = ad->pkt_type;
	/* As from UDP's softirq: the socket and its timer take bh locks. */
	local_bh_disable();
	if (ad->crp)
		smartt_crp_encap_rcv(usk->sk, skb);
	else
		smartt_encap_rcv(usk->sk, skb);
	tin_snap(after);
	local_bh_enable();
}

/* The fields of a crafted DATA packet (host order). */
struct tin_data {
	u32 psn;
	s16 clear;
	u16 spdcid;
	u16 dpdcid;		/* with SYN: the PSN offset */
	u8 flags;		/* PDS flags */
	u8 sflags;		/* SES flags (SOM, EOM) */
	u16 msg_id;
	u32 job;
	u16 pid;
	u32 initiator;
	u32 len;		/* request_length */
	u32 off;		/* SOM clear: message offset */
	u32 plen;		/* SOM clear: payload_length */
};

/*
 * A one-packet message of @paylen bytes to @pid from transport port
 * @initiator, as a sender would send it: from the initiator's PDC (one per
 * initiator, id 0x100 + @initiator, SYN, start PSN = PSN), with its next
 * message id.
 */
static void tin_data_init(struct tin_ctx *c, struct tin_data *d, u32 paylen,
			  u32 initiator, u16 pid)
{
	memset(d, 0, sizeof(*d));
	d->psn = c->psn++;
	d->clear = -1;		/* CLEAR_PSN = PSN - 1: nothing was sent before */
	d->spdcid = 0x100 + (initiator & SMARTT_PORT_MAX);
	d->msg_id = c->imsg[initiator & SMARTT_PORT_MAX]++;
	d->flags = SMARTT_PDS_REQ_F_SYN;
	d->sflags = SMARTT_SES_F_SOM | SMARTT_SES_F_EOM;
	d->pid = pid;
	d->initiator = initiator;
	d->len = paylen;
	d->plen = paylen;
}

/*
 * A trailer after the @len bytes in c->buf, filled by tin_rcv() over the
 * addresses and the UDP header it builds.  Return: the new length.
 */
static unsigned int tin_crc(struct tin_ctx *c, unsigned int len)
{
	memset(c->buf + len, 0, SMARTT_CRC_LEN);
	c->seal = len;
	return len + SMARTT_CRC_LEN;
}

/*
 * Flip @bits of byte @at of the UDP payload (-8 to -1: of the UDP header)
 * after tin_rcv() fills the trailer.
 */
static void tin_flip(struct tin_ctx *c, int at, u8 bits)
{
	c->flip_set = true;
	c->flip_at = at;
	c->flip = bits;
}

/*
 * The headers of @d, @paylen payload bytes (0xa5 unless already written)
 * and, if @crc, the trailer, in c->buf.  Return: the length.
 */
static unsigned int tin_build_data(struct tin_ctx *c, const struct tin_data *d,
				   u32 paylen, bool crc)
{
	struct smartt_data_hdr *h = (struct smartt_data_hdr *)c->buf;

	memset(h, 0, sizeof(*h));
	h->pds.prologue = smartt_pds_prologue(SMARTT_PDS_RUD_REQ, SMARTT_PDS_NH_REQ_STD,
					      d->flags);
	h->pds.clear_psn_offset = htons((u16)d->clear);
	h->pds.psn = htonl(d->psn);
	h->pds.spdcid = htons(d->spdcid);
	h->pds.dpdcid = htons(d->dpdcid);
	h->ses.opcode = SMARTT_SES_OPCODE_SEND;
	h->ses.ver_flags = d->sflags;
	h->ses.msg_id = htons(d->msg_id);
	h->ses.ri_gen_job = htonl(d->job);
	h->ses.pid_on_fep = htons(d->pid);
	h->ses.initiator = htonl(d->initiator);
	if (!(d->sflags & SMARTT_SES_F_SOM)) {
		h->ses.hdata_hi = htonl(d->plen);
		h->ses.hdata_lo = htonl(d->off);
	}
	h->ses.request_length = htonl(d->len);
	return crc ? tin_crc(c, SMARTT_DATA_HLEN + paylen) : SMARTT_DATA_HLEN + paylen;
}

/*
 * A control packet of @type, next header (CTRL type) @nh, @len bytes of
 * headers (zeros past SPDCID/DPDCID) and its trailer.  Return: the length.
 */
static unsigned int tin_build_ctl(struct tin_ctx *c, u8 type, u8 nh, u8 flags,
				  u16 spdcid, u16 dpdcid, unsigned int len)
{
	struct smartt_pds_ack *a = (struct smartt_pds_ack *)c->buf;

	memset(c->buf, 0, len);
	a->prologue = smartt_pds_prologue(type, nh, flags);
	a->spdcid = htons(spdcid);
	a->dpdcid = htons(dpdcid);
	if (type == SMARTT_PDS_ACK) {
		struct smartt_err_hdr *e = (struct smartt_err_hdr *)c->buf;

		e->rsp.list_opcode = SMARTT_SES_RSP_RESPONSE;
		e->rsp.ver_rc = SMARTT_SES_RC_BAD_PID;
	} else if (type == SMARTT_PDS_ACK_CC && nh == SMARTT_PDS_NH_RSP &&
		   len >= SMARTT_ACK_LEN + sizeof(struct smartt_ses_rsp)) {
		struct smartt_ses_rsp *r = (struct smartt_ses_rsp *)(c->buf + SMARTT_ACK_LEN);

		r->list_opcode = SMARTT_SES_RSP_RESPONSE;
		r->ver_rc = SMARTT_SES_RC_OK;
	} else if (type == SMARTT_PDS_NACK) {
		((struct smartt_pds_nack *)c->buf)->nack_code = SMARTT_NACK_TRIMMED;
	}
	return tin_crc(c, len);
}

/* The headers of a PDS type and next header smartt takes, 0 for others. */
static unsigned int tin_need(u8 type, u8 nh)
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

/* The CRP header (on crp_udp_port) of @type, valid, from transport port @sport. */
static void tin_build_crp(struct tin_ctx *c, u8 type, u16 sport, u16 dport)
{
	struct smartt_hdr *h = (struct smartt_hdr *)c->buf;
	struct smartt_crp_ext *x = (struct smartt_crp_ext *)(h + 1);

	memset(c->buf, 0, SMARTT_CRP_HLEN);
	h->magic = htons(SMARTT_MAGIC);
	h->version = SMARTT_WIRE_VERSION;
	h->type = type;
	h->hdr_words = SMARTT_CRP_HLEN / 8;
	x->sport = htons(sport);
	x->dport = htons(dport);
	x->epoch = htonl(0x5eed);
	x->msg_id = cpu_to_be64(c->psn++);
	x->seg_len = htonl(4096);
	x->req_bytes = htonl(4500);
	if (type == SMARTT_PKT_CRP_GRANT)
		x->crp_flags = htons(SMARTT_CRP_DEST_DONE);
	else if (type == SMARTT_PKT_CRP_RETRY)
		x->crp_flags = htons(SMARTT_CRP_DEST_DONE | SMARTT_CRP_NO_SLOT);
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
 * Every PDS type (those smartt takes, others, and its types with another
 * next header), every packet length from empty to 24 bytes past the
 * type's headers and trailer, a right trailer wherever it fits: the
 * parser's verdict is the first of short, unknown type, shorter than the
 * headers and trailer, or else the socket's (DATA: a one-packet message,
 * delivered) or the DPDCID lookup's (no such PDC here).
 */
static void tin_header_bounds(struct kunit *test, bool v4)
{
	static const u8 kinds[][2] = {
		{ 0, 0 },
		{ SMARTT_PDS_TSS, 0 },
		{ SMARTT_PDS_RUD_REQ, SMARTT_PDS_NH_REQ_STD },
		{ SMARTT_PDS_RUD_REQ, SMARTT_PDS_NH_REQ_SMALL },
		{ SMARTT_PDS_ROD_REQ, SMARTT_PDS_NH_REQ_STD },
		{ SMARTT_PDS_UUD_REQ, SMARTT_PDS_NH_REQ_STD },
		{ SMARTT_PDS_ACK, SMARTT_PDS_NH_RSP },
		{ SMARTT_PDS_ACK, SMARTT_PDS_NH_NONE },
		{ SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_NONE },
		{ SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_RSP },
		{ SMARTT_PDS_ACK_CCX, SMARTT_PDS_NH_NONE },
		{ SMARTT_PDS_NACK, SMARTT_PDS_NH_NONE },
		{ SMARTT_PDS_CTRL, SMARTT_PDS_CTL_PROBE },
		{ SMARTT_PDS_CTRL, SMARTT_PDS_CTL_ACK_REQ },
		{ SMARTT_PDS_NACK_CCX, SMARTT_PDS_NH_NONE },
		{ SMARTT_PDS_RUD_CC_REQ, SMARTT_PDS_NH_REQ_STD },
		{ 31, 15 },
	};
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .v4 = v4, .pkt_type = PACKET_HOST };
	u16 dport = v4 ? TIN_PORT4 : TIN_PORT6;
	struct socket *sock = v4 ? c->s4 : c->s6;
	u8 *rbuf = kunit_kzalloc(test, TIN_BUF, GFP_KERNEL);
	unsigned int k, len, need, delivered = 0, expected = 0;
	int last = -1;

	KUNIT_ASSERT_NOT_NULL(test, rbuf);
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		u8 type = kinds[k][0], nh = kinds[k][1];
		unsigned int full = SMARTT_DATA_HLEN + SMARTT_CRC_LEN;

		need = tin_need(type, nh);
		for (len = 0; len <= max(need + SMARTT_CRC_LEN, full) + 24 && len <= TIN_BUF;
		     len++) {
			struct tin_snap before, after;
			enum smartt_stat want;
			bool bad = true;
			char what[64];

			if (type == SMARTT_PDS_RUD_REQ && nh == SMARTT_PDS_NH_REQ_STD) {
				struct tin_data d;
				u32 pay = len > full ? len - full : 0;

				/* a transport port of its own per kind: a new peer */
				tin_data_init(c, &d, pay, 1000 + k, dport);
				tin_build_data(c, &d, pay, false);
			} else {
				/* a DPDCID no PDC of this host holds: PDC ids are random */
				tin_build_ctl(c, type, nh, 0, 1, 0, max_t(unsigned int, len, 16));
				memset(c->buf + 10, 0, 2);
			}
			/* a trailer where it leaves the prologue whole */
			if (len >= SMARTT_CRC_LEN + 2)
				tin_crc(c, len - SMARTT_CRC_LEN);
			if (len < 2) {
				want = SMARTT_STAT_DROP_SHORT;
			} else if (!need) {
				want = SMARTT_STAT_DROP_TYPE;
			} else if (len < need + SMARTT_CRC_LEN) {
				want = SMARTT_STAT_DROP_SHORT;
			} else if (need == SMARTT_DATA_HLEN) {
				want = SMARTT_STAT_RX_DATA;
				bad = false;
			} else if (type == SMARTT_PDS_ACK_CC || type == SMARTT_PDS_NACK ||
				   type == SMARTT_PDS_CTRL) {
				/* the stateless checks pass; DPDCID 0 is no PDC */
				want = SMARTT_STAT_DROP_DPDCID;
				bad = false;
			} else {
				/* an error: response opcode 0 with the zeroed SES */
				want = SMARTT_STAT_DROP_DPDCID;
				bad = false;
			}
			snprintf(what, sizeof(what), "v%d type %u nh %u len %u",
				 v4 ? 4 : 6, type, nh, len);
			tin_snap(&before);
			tin_rcv(test, &ad, len, &after);
			tin_expect(test, &before, &after, want, bad, what);
			if (want == SMARTT_STAT_RX_DATA) {
				expected++;
				delivered += tin_drain(sock, rbuf, TIN_BUF, &last);
				KUNIT_EXPECT_EQ_MSG(test, last, (int)(len - full), "%s", what);
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

/*
 * A bad trailer, of DATA and of ACK_CC, and a right one over another IP
 * source address or UDP source port: dropped as rx_bad_crc, malformed.  The
 * UDP checksum is not covered.
 */
static void tin_bad_crc(struct kunit *test)
{
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	struct tin_addr ad4 = { .v4 = true, .pkt_type = PACKET_HOST };
	struct tin_snap before, after;
	unsigned int len, bit;
	int last;
	struct tin_data d;

	for (bit = 0; bit < 32; bit += 7) {
		tin_data_init(c, &d, TIN_PAY, 1100, TIN_PORT6);
		memset(c->buf + SMARTT_DATA_HLEN, 0xa5, TIN_PAY);
		len = tin_build_data(c, &d, TIN_PAY, true);
		tin_flip(c, len - 1 - bit / 8, 1 << (bit % 8));
		tin_snap(&before);
		tin_rcv(test, &ad, len, &after);
		tin_expect(test, &before, &after, SMARTT_STAT_DROP_CRC, true, "DATA trailer");
	}
	tin_data_init(c, &d, TIN_PAY, 1100, TIN_PORT6);
	len = tin_build_data(c, &d, TIN_PAY, true);
	tin_flip(c, SMARTT_DATA_HLEN, 0x10);	/* the payload, not the trailer */
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_CRC, true, "DATA payload");
	/* the trailer covers the addresses and the UDP header, not its checksum */
	tin_data_init(c, &d, TIN_PAY, 1101, TIN_PORT6);
	len = tin_build_data(c, &d, TIN_PAY, true);
	c->flip_saddr = true;
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_CRC, true, "IPv6 source address");
	tin_data_init(c, &d, TIN_PAY, 1101, TIN_PORT4);
	len = tin_build_data(c, &d, TIN_PAY, true);
	c->flip_saddr = true;
	tin_snap(&before);
	tin_rcv(test, &ad4, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_CRC, true, "IPv4 source address");
	tin_data_init(c, &d, TIN_PAY, 1101, TIN_PORT6);
	len = tin_build_data(c, &d, TIN_PAY, true);
	tin_flip(c, -8 + 1, 0x40);	/* the UDP source port */
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_CRC, true, "UDP source port");
	tin_data_init(c, &d, TIN_PAY, 1102, TIN_PORT6);
	len = tin_build_data(c, &d, TIN_PAY, true);
	tin_flip(c, -2, 0xa5);		/* the UDP checksum: not covered */
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_DATA, false, "UDP checksum");
	tin_drain(c->s6, c->buf, TIN_BUF, &last);
	len = tin_build_ctl(c, SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_NONE, 0, 1, 1, SMARTT_ACK_LEN);
	tin_flip(c, 3, 1);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_CRC, true, "ACK_CC");
}

/*
 * Trimmed DATA (the DSCP says so): no trailer, headers only, answered with
 * a NACK whatever the DSCP's kind; cut inside the headers: short.  An
 * untrimmed DSCP on the same bytes: the trailer is wrong.
 */
static void tin_trimmed(struct kunit *test)
{
	static const u8 marks[] = { SMARTT_DSCP_TRIMMED, SMARTT_DSCP_TRIMMED_LASTHOP,
				    SMARTT_DSCP_CRP_SPEC_DROPPED };
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	struct tin_snap before, after;
	struct tin_data d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(marks); i++) {
		ad.dscp = marks[i];
		tin_data_init(c, &d, 4 * TIN_PAY, 1200 + i, TIN_PORT6);
		tin_build_data(c, &d, 0, false);
		tin_snap(&before);
		tin_rcv(test, &ad, SMARTT_DATA_HLEN, &after);
		tin_expect(test, &before, &after, SMARTT_STAT_RX_TRIMMED, false, "trimmed");
		tin_build_data(c, &d, 0, false);
		tin_snap(&before);
		tin_rcv(test, &ad, SMARTT_DATA_HLEN - 1, &after);
		tin_expect(test, &before, &after, SMARTT_STAT_DROP_SHORT, true, "trimmed short");
	}
	ad.dscp = SMARTT_DSCP_TRIMMABLE;
	tin_data_init(c, &d, 4 * TIN_PAY, 1203, TIN_PORT6);
	tin_build_data(c, &d, TIN_PAY, false);
	tin_snap(&before);
	tin_rcv(test, &ad, SMARTT_DATA_HLEN + TIN_PAY, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_CRC, true, "not trimmed");
}

/*
 * The sender's PDC id of the s6 socket towards the crafted peer, port
 * @port, after one 100-byte message was sent to it; its first PSN (random)
 * in @isn, if not NULL.
 */
static u16 tin_tx_pdcid(struct kunit *test, u16 port, u32 *isn)
{
	struct tin_ctx *c = test->priv;
	struct sockaddr_in6 to = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
		.sin6_addr = tin_peer6,
	};
	struct msghdr msg = { .msg_name = &to, .msg_namelen = sizeof(to) };
	struct kvec iov = { .iov_base = c->buf, .iov_len = 100 };
	union smartt_addr a = { .v6 = tin_peer6 };
	struct sock *sk = c->s6->sk;
	struct smartt_peer *p;
	u16 id = 0;

	/* Its answers would go out lo and never come back (no forwarding). */
	memset(c->buf, 0, sizeof(c->buf));
	KUNIT_ASSERT_EQ(test, kernel_sendmsg(c->s6, &msg, &iov, 1, 100), 100);
	lock_sock(sk);
	p = smartt_peer_lookup(sk, AF_INET6, &a, port);
	if (p)
		id = p->tx_lpdcid;
	if (p && isn)
		*isn = (u32)p->snd_una;
	release_sock(sk);
	KUNIT_ASSERT_NE(test, id, 0);
	return id;
}

/*
 * ACK_CC, NACK and errors find their PDC by DPDCID: an unknown one, one
 * from another source address, a PROBE to a sender's id, an ACK naming a
 * PSN never sent; the first ACK teaches the peer's id, then another SPDCID
 * is dropped.
 */
static void tin_pdc_checks(struct kunit *test)
{
	static const struct in6_addr other6 = {
		.s6_addr = { 0x20, 0x01, 0x00, 0x02, [15] = 9 } };
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	struct tin_addr elsewhere = { .pkt_type = PACKET_HOST, .saddr6 = &other6 };
	struct smartt_pds_ack_cc *a = (struct smartt_pds_ack_cc *)c->buf;
	struct tin_snap before, after;
	unsigned int len;
	u32 isn;
	u16 id = tin_tx_pdcid(test, 2999, &isn);

	len = tin_build_ctl(c, SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_NONE, 0, 0x77, id ^ 0x8000,
			    SMARTT_ACK_LEN);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_DPDCID, false, "unknown DPDCID");

	len = tin_build_ctl(c, SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_NONE, 0, 0x77, id,
			    SMARTT_ACK_LEN);
	tin_snap(&before);
	tin_rcv(test, &elsewhere, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_SRC, false, "another source");

	len = tin_build_ctl(c, SMARTT_PDS_CTRL, SMARTT_PDS_CTL_PROBE, 0, 0x77, id,
			    SMARTT_CTRL_LEN);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_DPDCID, false, "PROBE to a sender");

	/* CACK_PSN isn + 5: PSNs up to it acknowledged, only isn was sent */
	tin_build_ctl(c, SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_NONE, 0, 0x77, id, SMARTT_ACK_LEN);
	a->ack.cack_psn = htonl(isn + 5);
	len = tin_crc(c, SMARTT_ACK_LEN);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_ACK_UNSENT, true, "unsent PSN");

	/* CACK_PSN isn, ACK_PSN isn: acknowledges the message, teaches SPDCID 0x77 */
	tin_build_ctl(c, SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_NONE, 0, 0x77, id, SMARTT_ACK_LEN);
	a->ack.cack_psn = htonl(isn);
	len = tin_crc(c, SMARTT_ACK_LEN);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_ACKS, false, "first ACK");

	len = tin_build_ctl(c, SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_NONE, 0, 0x78, id,
			    SMARTT_ACK_LEN);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_SPDCID, true, "another SPDCID");

	len = tin_build_ctl(c, SMARTT_PDS_NACK, SMARTT_PDS_NH_NONE, 0, 0x78, id,
			    SMARTT_NACK_LEN);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_SPDCID, true, "NACK, another SPDCID");
}

/*
 * Another job's DATA is dropped; PSNs and message ids out of the window of
 * an established receive state are dropped; a PDC's packet without SYN to
 * another DPDCID is dropped.
 */
static void tin_windows(struct kunit *test)
{
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	struct tin_snap before, after;
	struct tin_data d, base;
	unsigned int len;

	tin_data_init(c, &d, TIN_PAY, 1300, TIN_PORT6);
	d.job = 5;
	len = tin_build_data(c, &d, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_JOB, false, "another job");

	/* a receive state at PSN 1000, message 10 */
	tin_data_init(c, &base, TIN_PAY, 1301, TIN_PORT6);
	base.psn = 1000;
	base.msg_id = 10;
	len = tin_build_data(c, &base, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_DATA, false, "established");

	d = base;
	d.psn = 1001 + SMARTT_WIN;
	d.msg_id = 11;
	len = tin_build_data(c, &d, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_WINDOW, false, "PSN ahead");

	d = base;
	d.psn = 1000 - SMARTT_WIN - 2;
	d.msg_id = 9;
	len = tin_build_data(c, &d, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_WINDOW, false, "PSN behind");

	d = base;
	d.psn = 0x80000000U + 1000;
	len = tin_build_data(c, &d, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_WINDOW, false, "PSN 2^31 away");

	d = base;
	d.psn = 1001;
	d.msg_id = 10 + SMARTT_WIN + 1;
	len = tin_build_data(c, &d, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_MSG_ID, true, "message id ahead");

	d = base;
	d.psn = 1002;
	d.msg_id = 10 - SMARTT_SES_MSG_MAX_MSGS - 1;
	len = tin_build_data(c, &d, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_MSG_ID, true, "message id behind");

	d = base;
	d.psn = 1003;
	d.msg_id = 11;
	d.flags = 0;
	d.dpdcid = 0x4321;	/* not the receiver's id (random: not this one) */
	len = tin_build_data(c, &d, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_DPDCID, true, "another DPDCID");
}

/* DATA fields at their bounds, one at a time (a packet of TIN_PAY bytes). */
struct tin_data_case {
	const char *name;
	u32 len;		/* request_length */
	u32 off;		/* the offset (0: SOM) */
	u32 plen;		/* payload_length without SOM */
	u8 sflags;		/* SES flags */
	u8 flags;		/* PDS flags */
	s16 clear;
	u8 opcode;
	bool zero_spdcid;
	u32 initiator;		/* 0: a port of the case's own */
	enum smartt_stat want;
	bool malformed;
};

#define TIN_SOM (SMARTT_SES_F_SOM | SMARTT_SES_F_EOM)
#define TIN_OP SMARTT_SES_OPCODE_SEND
#define TIN_SYN SMARTT_PDS_REQ_F_SYN
#define TIN_ZERO BIT(31)	/* tin_data_case.initiator: port 0 */
#define TIN_CLR (-1)		/* CLEAR_PSN: the PSN before, nothing sent before it */

static const struct tin_data_case tin_data_cases[] = {
	{ "valid", TIN_PAY, 0, 0, TIN_SOM, TIN_SYN, TIN_CLR, TIN_OP, false, 0,
	  SMARTT_STAT_RX_DATA, false },
	{ "SPDCID zero", TIN_PAY, 0, 0, TIN_SOM, TIN_SYN, TIN_CLR, TIN_OP, true, 0,
	  SMARTT_STAT_DROP_FIELD, true },
	{ "opcode WRITE", TIN_PAY, 0, 0, TIN_SOM, TIN_SYN, TIN_CLR, 1, false, 0,
	  SMARTT_STAT_DROP_FIELD, true },
	{ "SES version 1", TIN_PAY, 0, 0, TIN_SOM | 0x40, TIN_SYN, TIN_CLR, TIN_OP, false, 0,
	  SMARTT_STAT_DROP_FIELD, true },
	{ "a reserved PDS flag", TIN_PAY, 0, 0, TIN_SOM, TIN_SYN | 0x40, TIN_CLR, TIN_OP, false,
	  0, SMARTT_STAT_DROP_FIELD, true },
	{ "initiator 0", TIN_PAY, 0, 0, TIN_SOM, TIN_SYN, TIN_CLR, TIN_OP, false, TIN_ZERO,
	  SMARTT_STAT_DROP_FIELD, true },
	{ "initiator 4096", TIN_PAY, 0, 0, TIN_SOM, TIN_SYN, TIN_CLR, TIN_OP, false, 4096,
	  SMARTT_STAT_DROP_FIELD, true },
	{ "CLEAR_PSN above the PSN", TIN_PAY, 0, 0, TIN_SOM, TIN_SYN, 1, TIN_OP, false, 0,
	  SMARTT_STAT_DROP_WINDOW, true },
	{ "CLEAR_PSN at the PSN (the packet itself cleared)", TIN_PAY, 0, 0, TIN_SOM, TIN_SYN,
	  0, TIN_OP, false, 0, SMARTT_STAT_DROP_WINDOW, true },
	{ "CLEAR_PSN a window and one below", TIN_PAY, 0, 0, TIN_SOM, TIN_SYN,
	  -(SMARTT_WIN + 1), TIN_OP, false, 0, SMARTT_STAT_DROP_WINDOW, true },
	{ "CLEAR_PSN a window below", TIN_PAY, 0, 0, TIN_SOM, TIN_SYN, -SMARTT_WIN, TIN_OP,
	  false, 0, SMARTT_STAT_RX_DATA, false },
	{ "request_length above the limit", SMARTT_MSG_MAX_LIMIT + 1, 0, 0,
	  SMARTT_SES_F_SOM, TIN_SYN, TIN_CLR, TIN_OP, false, 0, SMARTT_STAT_DROP_LEN, true },
	{ "request_length at the limit, above the socket's", SMARTT_MSG_MAX_LIMIT, 0, 0,
	  SMARTT_SES_F_SOM, TIN_SYN, TIN_CLR, TIN_OP, false, 0, SMARTT_STAT_ERR_MSGSIZE, false },
	{ "SOM and EOM, shorter than the packet", TIN_PAY - 1, 0, 0, TIN_SOM, TIN_SYN, TIN_CLR,
	  TIN_OP, false, 0, SMARTT_STAT_DROP_LEN, true },
	{ "SOM and EOM, longer than the packet", TIN_PAY + 1, 0, 0, TIN_SOM, TIN_SYN, TIN_CLR,
	  TIN_OP, false, 0, SMARTT_STAT_DROP_LEN, true },
	{ "SOM, not EOM, a segment below the minimum", 1000, 0, 0, SMARTT_SES_F_SOM,
	  TIN_SYN, TIN_CLR, TIN_OP, false, 0, SMARTT_STAT_RX_DATA, false },
	{ "offset at request_length", 4096, 4096, TIN_PAY, SMARTT_SES_F_EOM, TIN_SYN, TIN_CLR,
	  TIN_OP, false, 0, SMARTT_STAT_DROP_OFFSET, true },
	{ "no SOM at offset 0", 4096, 0, TIN_PAY, 0, TIN_SYN, TIN_CLR, TIN_OP, false, 0,
	  SMARTT_STAT_DROP_OFFSET, true },
	{ "payload_length above the payload", 8192, 4096, TIN_PAY + 1, 0, TIN_SYN, TIN_CLR,
	  TIN_OP, false, 0, SMARTT_STAT_DROP_LEN, true },
	{ "payload_length below the payload", 8192, 4096, TIN_PAY - 1, 0, TIN_SYN, TIN_CLR,
	  TIN_OP, false, 0, SMARTT_STAT_DROP_LEN, true },
	{ "last packet, first of its message: no state", 4096 + TIN_PAY, 4096, TIN_PAY,
	  SMARTT_SES_F_EOM, TIN_SYN, TIN_CLR, TIN_OP, false, 0, SMARTT_STAT_DROP_SEG_UNKNOWN,
	  false },
	{ "EOM but bytes left", 8192, 4096, TIN_PAY, SMARTT_SES_F_EOM, TIN_SYN, TIN_CLR, TIN_OP,
	  false, 0, SMARTT_STAT_DROP_LEN, true },
	{ "inner packet, offset not a multiple of its size", 8192, 150, TIN_PAY, 0,
	  TIN_SYN, TIN_CLR, TIN_OP, false, 0, SMARTT_STAT_DROP_OFFSET, true },
	{ "inner packet, sized right", 8192, 200, TIN_PAY, 0, TIN_SYN, TIN_CLR, TIN_OP, false, 0,
	  SMARTT_STAT_RX_DATA, false },
};

static void tin_data_fields(struct kunit *test)
{
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	u8 *rbuf = kunit_kzalloc(test, TIN_BUF, GFP_KERNEL);
	unsigned int i, len;
	int last;

	KUNIT_ASSERT_NOT_NULL(test, rbuf);
	for (i = 0; i < ARRAY_SIZE(tin_data_cases); i++) {
		const struct tin_data_case *k = &tin_data_cases[i];
		struct smartt_data_hdr *h = (struct smartt_data_hdr *)c->buf;
		struct tin_snap before, after;
		struct tin_data d;

		/* A peer and a sender PDC of its own per case. */
		tin_data_init(c, &d, TIN_PAY, 2000 + i, TIN_PORT6);
		d.len = k->len;
		d.off = k->off;
		d.plen = k->plen;
		d.sflags = k->sflags;
		d.flags = k->flags;
		d.clear = k->clear;
		if (k->zero_spdcid)
			d.spdcid = 0;
		if (k->initiator)
			d.initiator = k->initiator == TIN_ZERO ? 0 : k->initiator;
		memset(c->buf + SMARTT_DATA_HLEN, 0xa5, TIN_PAY);
		tin_build_data(c, &d, TIN_PAY, false);
		h->ses.opcode = k->opcode;
		len = tin_crc(c, SMARTT_DATA_HLEN + TIN_PAY);
		tin_snap(&before);
		tin_rcv(test, &ad, len, &after);
		tin_expect(test, &before, &after, k->want, k->malformed, k->name);
		last = -1;
		tin_drain(c->s6, rbuf, TIN_BUF, &last);
		/* A one-packet message is delivered; a first packet is not. */
		KUNIT_EXPECT_EQ_MSG(test, last,
				    k->want == SMARTT_STAT_RX_DATA && k->len == TIN_PAY ?
				    TIN_PAY : -1, "%s", k->name);
	}
}

/* CRP fields at their bounds, one at a time; @flags replaces the built ones. */
struct tin_crp_case {
	const char *name;
	u8 type;
	int flags;		/* crp_flags, -1: as tin_build_crp() made them */
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
	{ "request, PDC id zero", SMARTT_PKT_CRP_REQ, -1, true, false, false, 0,
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
	{ "grant, PDC id zero", SMARTT_PKT_CRP_GRANT, -1, true, false, false, 0,
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
	struct tin_addr ad = { .v4 = true, .crp = true, .pkt_type = PACKET_HOST };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tin_crp_cases); i++) {
		const struct tin_crp_case *k = &tin_crp_cases[i];
		struct smartt_hdr *h = (struct smartt_hdr *)c->buf;
		struct smartt_crp_ext *x = (struct smartt_crp_ext *)(h + 1);
		struct tin_snap before, after;

		tin_build_crp(c, k->type, 3000 + i, TIN_PORT4);
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
	struct tin_addr ad = { .crp = true, .pkt_type = PACKET_HOST };
	struct tin_snap before, after;
	u8 type;

	tin_tx_pdcid(test, 3999, NULL);	/* a peer with a window */
	for (type = SMARTT_PKT_CRP_GRANT; type <= SMARTT_PKT_CRP_RETRY; type++) {
		tin_build_crp(c, type, 3999, TIN_PORT6);
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
	unsigned int i, t, len;

	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		for (t = 0; t < 2; t++) {
			struct tin_snap before, after;
			struct tin_data d;
			char what[48];

			if (t) {
				len = tin_build_ctl(c, SMARTT_PDS_CTRL, SMARTT_PDS_CTL_PROBE, 0, 1,
						    1, SMARTT_CTRL_LEN);
			} else {
				tin_data_init(c, &d, 0, 3000 + i,
					      addrs[i].v4 ? TIN_PORT4 : TIN_PORT6);
				len = tin_build_data(c, &d, 0, true);
			}
			snprintf(what, sizeof(what), "case %u %s", i, t ? "PROBE" : "DATA");
			tin_snap(&before);
			tin_rcv(test, &addrs[i], len, &after);
			tin_expect(test, &before, &after, SMARTT_STAT_DROP_NOT_UNICAST, false,
				   what);
		}
	}
	/* Nothing was answered, not even tried. */
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_TX_PKTS) + tin_stat(SMARTT_STAT_TX_FAIL),
			tx);
}

/* A port or a family with no socket. */
static void tin_misaddressed(struct kunit *test)
{
	struct tin_ctx *c = test->priv;
	struct tin_addr v6 = { .pkt_type = PACKET_HOST };
	struct tin_addr v4 = { .v4 = true, .pkt_type = PACKET_HOST };
	struct tin_snap before, after;
	struct tin_data d;
	unsigned int len;

	tin_data_init(c, &d, 0, 4000, TIN_PORT_NONE);
	len = tin_build_data(c, &d, 0, true);
	tin_snap(&before);
	tin_rcv(test, &v6, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_NO_SOCKET, false, "no socket");

	/* IPv4 to the IPv6 socket's port: that socket does not take IPv4. */
	tin_data_init(c, &d, 0, 4000, TIN_PORT6);
	len = tin_build_data(c, &d, 0, true);
	tin_snap(&before);
	tin_rcv(test, &v4, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_NO_SOCKET, false, "family");
}

/*
 * A three-packet message whose packets come last first, with a duplicate:
 * the last one first makes no state (its segment size is not known yet),
 * then the message is delivered once, whole, byte for byte.
 */
static void tin_reassembly(struct kunit *test)
{
	const unsigned int seg = SMARTT_SEG_MIN, len = 2 * SMARTT_SEG_MIN + 10;
	static const unsigned int order[] = { 2, 0, 0, 2, 1 };
	static const enum smartt_stat want[] = {
		SMARTT_STAT_DROP_SEG_UNKNOWN, SMARTT_STAT_RX_DATA, SMARTT_STAT_RX_DUP,
		SMARTT_STAT_RX_DATA, SMARTT_STAT_RX_DATA };
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	u8 *rbuf = kunit_kzalloc(test, TIN_BUF, GFP_KERNEL);
	u32 base = c->psn + 100;
	u16 pdc = c->pdc++;
	unsigned int i, n;
	int last = -1;

	KUNIT_ASSERT_NOT_NULL(test, rbuf);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		unsigned int k = order[i], off = k * seg, plen = min(seg, len - off), b, plen_w;
		struct tin_snap before, after;
		struct tin_data d;
		char what[32];

		tin_data_init(c, &d, plen, 5000 % 4096, TIN_PORT6);
		d.spdcid = pdc;
		d.psn = base + k;
		d.dpdcid = k;		/* SYN: start PSN base */
		d.clear = -(s16)k - 1;	/* CLEAR_PSN base - 1 */
		d.msg_id = 7;
		d.len = len;
		d.off = off;
		d.plen = plen;
		d.sflags = (k ? 0 : SMARTT_SES_F_SOM) | (k == 2 ? SMARTT_SES_F_EOM : 0);
		for (b = 0; b < plen; b++)
			c->buf[SMARTT_DATA_HLEN + b] = (u8)(off + b) ^ 0x5a;
		plen_w = tin_build_data(c, &d, plen, true);
		snprintf(what, sizeof(what), "segment %u (%u)", k, i);
		tin_snap(&before);
		tin_rcv(test, &ad, plen_w, &after);
		tin_expect(test, &before, &after, want[i], false, what);
		n = tin_drain(c->s6, rbuf, TIN_BUF, &last);
		KUNIT_EXPECT_EQ_MSG(test, n, i == ARRAY_SIZE(order) - 1 ? 1U : 0U, "%s", what);
	}
	KUNIT_ASSERT_EQ(test, last, (int)len);
	for (i = 0; i < len; i++)
		KUNIT_EXPECT_EQ_MSG(test, rbuf[i], (u8)i ^ 0x5a, "byte %u", i);
}

/*
 * Segment @k of a three-packet message (message id 3, @len bytes in
 * segments of SMARTT_SEG_MIN) of PDC @pdc from initiator 3100 (SYN: start
 * PSN @base).  Return: the packet's length in c->buf.
 */
static unsigned int tin_seg3(struct tin_ctx *c, u16 pdc, u32 base, unsigned int k,
			     unsigned int len)
{
	unsigned int off = k * SMARTT_SEG_MIN, plen = min(SMARTT_SEG_MIN, len - off), b;
	struct tin_data d;

	tin_data_init(c, &d, plen, 3100, TIN_PORT6);
	d.spdcid = pdc;
	d.psn = base + k;
	d.dpdcid = k;		/* SYN: start PSN base */
	d.clear = -(s16)k - 1;	/* CLEAR_PSN base - 1 */
	d.msg_id = 3;
	d.len = len;
	d.off = off;
	d.plen = plen;
	d.sflags = (k ? 0 : SMARTT_SES_F_SOM) | (k == 2 ? SMARTT_SES_F_EOM : 0);
	for (b = 0; b < plen; b++)
		c->buf[SMARTT_DATA_HLEN + b] = (u8)(off + b) ^ 0x3c;
	return tin_build_data(c, &d, plen, true);
}

/*
 * An off-path attacker with the addresses and ports of a sender and a
 * receiver, after segment 0 of a three-packet message: a SYN of another
 * sender PDC (what any host can make) is dropped while the PDC is active,
 * and DATA without SYN of another PDC is dropped: neither frees the partial
 * message nor restarts the receive state.  Segments 1 and 2 then deliver
 * the message once, whole; its last packet's ACK carries its SES response.
 */
static void tin_forged_pdc(struct kunit *test)
{
	const unsigned int len = 2 * SMARTT_SEG_MIN + 10;
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	u8 *rbuf = kunit_kzalloc(test, TIN_BUF, GFP_KERNEL);
	u64 resets = tin_stat(SMARTT_STAT_RX_PDC_RESET), rsp;
	union smartt_addr pa = { .v6 = tin_peer6 };
	u32 base = c->psn + 200;
	struct smartt_peer *p;
	struct tin_snap before, after;
	unsigned int plen, i;
	struct tin_data d;
	int last = -1;

	KUNIT_ASSERT_NOT_NULL(test, rbuf);
	plen = tin_seg3(c, 0x4242, base, 0, len);
	tin_snap(&before);
	tin_rcv(test, &ad, plen, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_DATA, false, "segment 0");
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_RX_PDC_RESET), resets + 1);

	/* a forged one-packet message from another PDC, SYN */
	tin_data_init(c, &d, TIN_PAY, 3100, TIN_PORT6);
	d.spdcid = 0x4343;
	d.psn = 77;
	plen = tin_build_data(c, &d, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, plen, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_SYN_BUSY, false, "forged SYN");

	/* the same without SYN, to a guessed DPDCID */
	d.flags = 0;
	d.dpdcid = 1;
	plen = tin_build_data(c, &d, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, plen, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_SPDCID, false, "forged DATA");
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_RX_PDC_RESET), resets + 1);

	rsp = tin_stat(SMARTT_STAT_TX_RSP);
	for (i = 1; i < 3; i++) {
		plen = tin_seg3(c, 0x4242, base, i, len);
		tin_snap(&before);
		tin_rcv(test, &ad, plen, &after);
		tin_expect(test, &before, &after, SMARTT_STAT_RX_DATA, false, "segment 1-2");
	}
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_TX_RSP), rsp + 1);
	KUNIT_EXPECT_EQ(test, tin_drain(c->s6, rbuf, TIN_BUF, &last), 1U);
	KUNIT_ASSERT_EQ(test, last, (int)len);
	for (i = 0; i < len; i++)
		KUNIT_EXPECT_EQ_MSG(test, rbuf[i], (u8)i ^ 0x3c, "byte %u", i);

	/*
	 * A duplicate of the last packet (a sender asking for a lost
	 * response) is answered with the outcome kept; once a packet's
	 * CLEAR_PSN passes the message, it is forgotten (the next message's
	 * outcome is kept then).
	 */
	plen = tin_seg3(c, 0x4242, base, 2, len);
	tin_snap(&before);
	tin_rcv(test, &ad, plen, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_DUP, false, "asked again");
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_TX_RSP), rsp + 2);
	tin_data_init(c, &d, TIN_PAY, 3100, TIN_PORT6);
	d.spdcid = 0x4242;
	d.psn = base + 3;
	d.dpdcid = 3;
	d.clear = -1;		/* CLEAR_PSN base + 2: the message is cleared */
	d.msg_id = 4;
	plen = tin_build_data(c, &d, TIN_PAY, true);
	tin_snap(&before);
	tin_rcv(test, &ad, plen, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_DATA, false, "next message");
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_TX_RSP), rsp + 3);
	KUNIT_EXPECT_EQ(test, tin_drain(c->s6, rbuf, TIN_BUF, &last), 1U);
	lock_sock(c->s6->sk);
	p = smartt_peer_lookup(c->s6->sk, AF_INET6, &pa, 3100);
	KUNIT_EXPECT_TRUE(test, p && p->rx_ndone == 1);
	if (p && p->rx_ndone == 1) {
		struct smartt_rx_done *d = list_first_entry(&p->rx_done, struct smartt_rx_done,
							    node);

		KUNIT_EXPECT_EQ(test, (u16)d->id, 4);
	}
	release_sock(c->s6->sk);
}

/* An ACK_CC of the s6 socket's PDC @id with CACK_PSN @cack, SES response @rc. */
static unsigned int tin_build_ack(struct tin_ctx *c, u16 id, u32 cack, u8 rc, u16 msg_id)
{
	struct smartt_pds_ack_cc *a = (struct smartt_pds_ack_cc *)c->buf;
	struct smartt_ses_rsp *r = (struct smartt_ses_rsp *)(a + 1);
	unsigned int len = SMARTT_ACK_LEN + (rc ? sizeof(*r) : 0);

	tin_build_ctl(c, SMARTT_PDS_ACK_CC, rc ? SMARTT_PDS_NH_RSP : SMARTT_PDS_NH_NONE, 0,
		      0x77, id, len);
	a->ack.cack_psn = htonl(cack);
	if (rc) {
		r->ver_rc = rc;
		r->msg_id = htons(msg_id);
	}
	return tin_crc(c, len);
}

/*
 * A message is reported sent only on its receiver's SES response: every
 * PSN of it acknowledged is not enough, a response for another message or
 * a forged stateless error naming no packet in flight changes nothing, the
 * response completes it.  A NACK INV_DPDCID (the receiver lost its state)
 * fails a message that was sent with ECONNRESET, never with success.
 */
static void tin_sender_completion(struct kunit *test)
{
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	struct smartt_err_hdr *e = (struct smartt_err_hdr *)c->buf;
	struct smartt_pds_nack *n = (struct smartt_pds_nack *)c->buf;
	u64 sent = tin_stat(SMARTT_STAT_MSGS_SENT);
	u64 failed = tin_stat(SMARTT_STAT_MSGS_FAILED);
	u64 drop = tin_stat(SMARTT_STAT_DROP_RSP);
	u64 dup = tin_stat(SMARTT_STAT_RX_RSP_DUP);
	struct tin_snap before, after;
	unsigned int len;
	u32 isn;
	u16 id = tin_tx_pdcid(test, 2998, &isn);

	len = tin_build_ack(c, id, isn, 0, 0);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_ACKS, false, "every PSN acked");
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_MSGS_SENT), sent);

	len = tin_build_ack(c, id, isn, SMARTT_SES_RC_OK, 1);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_ACKS, false, "another message's");
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_MSGS_SENT), sent);
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_RX_RSP_DUP), dup + 1);

	/* a second message in flight, then a forged BAD_PID naming a PSN not sent */
	tin_tx_pdcid(test, 2998, NULL);
	len = tin_build_ctl(c, SMARTT_PDS_ACK, SMARTT_PDS_NH_RSP, 0, 0, id, SMARTT_ERR_LEN);
	e->ack.cack_psn = htonl(isn + 100);
	len = tin_crc(c, SMARTT_ERR_LEN);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_DROP_RSP), drop + 1);
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_MSGS_FAILED), failed);

	len = tin_build_ack(c, id, isn, SMARTT_SES_RC_OK, 0);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_ACKS, false, "the response");
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_MSGS_SENT), sent + 1);

	/* the receiver knows no PDC of ours: the message in flight fails */
	len = tin_build_ctl(c, SMARTT_PDS_NACK, SMARTT_PDS_NH_NONE, 0, 0, id, SMARTT_NACK_LEN);
	n->nack_code = SMARTT_NACK_INV_DPDCID;
	n->nack_psn = htonl(isn + 1);
	len = tin_crc(c, SMARTT_NACK_LEN);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_NACKS, false, "INV_DPDCID");
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_MSGS_SENT), sent + 1);
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_MSGS_FAILED), failed + 1);
}

/* The first segment (SOM) of a message of three of 1 KiB, from @init. */
static unsigned int tin_first_of3(struct tin_ctx *c, u32 init)
{
	struct tin_data d;

	tin_data_init(c, &d, 1024, init, TIN_PORT6);
	d.len = 3 * 1024;
	d.sflags = SMARTT_SES_F_SOM;
	return tin_build_data(c, &d, 1024, true);
}

/*
 * Fairness is per host (address), whatever the ports: one address holds
 * the buffer with a partial message from one port; its second port is
 * refused and does not become the waiter; another address refused then
 * does.  Half a timeout later the first address is evicted, and for the
 * grace that follows only the waiter's address may start a message (under
 * a waiter per port, the first address's second port would have had it).
 * And one address makes at most SMARTT_HOST_PEERS_MAX peers.
 */
static void tin_host_fairness(struct kunit *test)
{
	static const struct in6_addr other6 = {
		.s6_addr = { 0x20, 0x01, 0x00, 0x02, [15] = 9 } };
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	struct tin_addr b = { .pkt_type = PACKET_HOST, .saddr6 = &other6 };
	struct sock *sk = c->s6->sk;
	struct tin_snap before, after;
	u8 *rbuf = kunit_kzalloc(test, TIN_BUF, GFP_KERNEL);
	u64 evicted, drops;
	unsigned int len, i;
	int last;

	KUNIT_ASSERT_NOT_NULL(test, rbuf);
	lock_sock(sk);
	WRITE_ONCE(sk->sk_rcvbuf, 2048);
	smartt_sk(sk)->timeout_ns = 400 * NSEC_PER_MSEC;
	release_sock(sk);
	evicted = tin_stat(SMARTT_STAT_RX_EVICTED);

	len = tin_first_of3(c, 3300);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_DATA, false, "a, port 1: holds");
	len = tin_first_of3(c, 3301);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_RMEM, false, "a, port 2: refused");
	len = tin_first_of3(c, 3302);
	tin_snap(&before);
	tin_rcv(test, &b, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_RMEM, false, "b: refused, waits");

	/* half the timeout: a is evicted; the grace is b's */
	msleep(300);
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_RX_EVICTED), evicted + 1);
	len = tin_first_of3(c, 3301);
	tin_snap(&before);
	tin_rcv(test, &ad, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_DROP_RMEM, false, "a, port 2: b's grace");
	len = tin_first_of3(c, 3302);
	tin_snap(&before);
	tin_rcv(test, &b, len, &after);
	tin_expect(test, &before, &after, SMARTT_STAT_RX_DATA, false, "b: admitted");

	/* SMARTT_HOST_PEERS_MAX peers of one address, then no more */
	lock_sock(sk);
	WRITE_ONCE(sk->sk_rcvbuf, 1 << 20);
	release_sock(sk);
	drops = tin_stat(SMARTT_STAT_DROP_HOST_PEERS);
	for (i = 0; i < SMARTT_HOST_PEERS_MAX + 2; i++) {
		struct tin_data d;

		tin_data_init(c, &d, 0, 100 + i, TIN_PORT6);
		len = tin_build_data(c, &d, 0, true);
		tin_rcv(test, &b, len, &after);
		tin_drain(c->s6, rbuf, TIN_BUF, &last);
	}
	/* b has a peer already (port 3302) */
	KUNIT_EXPECT_EQ(test, tin_stat(SMARTT_STAT_DROP_HOST_PEERS), drops + 3);
}

/*
 * The congestion control takes the bytes an ACK newly acknowledged, not
 * the receiver's claim: two peers of a dctcp socket each sent a 100-byte
 * message; the ACK of one says 100 bytes received, the other's 2^23 - 1:
 * their windows grow alike.
 */
static void tin_cc_bytes(struct kunit *test)
{
	struct tin_ctx *c = test->priv;
	struct tin_addr ad = { .pkt_type = PACKET_HOST };
	struct smartt_pds_ack_cc *a = (struct smartt_pds_ack_cc *)c->buf;
	union smartt_addr pa = { .v6 = tin_peer6 };
	struct sock *sk = c->s6->sk;
	struct tin_snap before, after;
	u64 cwnd[2] = {};
	unsigned int k, len;

	KUNIT_ASSERT_EQ(test, c->s6->ops->setsockopt(c->s6, SOL_SMARTT, SMARTT_CC,
						     KERNEL_SOCKPTR("dctcp"), 6), 0);
	for (k = 0; k < 2; k++) {
		struct smartt_peer *p;
		u32 isn;
		u16 id = tin_tx_pdcid(test, 2990 + k, &isn);

		tin_build_ack(c, id, isn, 0, 0);
		smartt_nscc_set_rcvd_bytes(&a->nscc, k ? SMARTT_NSCC_RCVD_BYTES_MASK >> 1 : 100);
		len = tin_crc(c, SMARTT_ACK_LEN);
		tin_snap(&before);
		tin_rcv(test, &ad, len, &after);
		tin_expect(test, &before, &after, SMARTT_STAT_RX_ACKS, false, "ACK");
		lock_sock(sk);
		p = smartt_peer_lookup(sk, AF_INET6, &pa, 2990 + k);
		if (p)
			cwnd[k] = p->cwnd;
		release_sock(sk);
	}
	KUNIT_EXPECT_GT(test, cwnd[0], 0ULL);
	KUNIT_EXPECT_EQ(test, cwnd[1], cwnd[0]);
}

static struct kunit_case tin_cases[] = {
	KUNIT_CASE(tin_header_bounds_v6),
	KUNIT_CASE(tin_header_bounds_v4),
	KUNIT_CASE(tin_bad_crc),
	KUNIT_CASE(tin_trimmed),
	KUNIT_CASE(tin_pdc_checks),
	KUNIT_CASE(tin_windows),
	KUNIT_CASE(tin_data_fields),
	KUNIT_CASE(tin_crp_fields),
	KUNIT_CASE(tin_crp_unknown),
	KUNIT_CASE(tin_not_unicast),
	KUNIT_CASE(tin_misaddressed),
	KUNIT_CASE(tin_reassembly),
	KUNIT_CASE(tin_forged_pdc),
	KUNIT_CASE(tin_sender_completion),
	KUNIT_CASE(tin_host_fairness),
	KUNIT_CASE(tin_cc_bytes),
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
