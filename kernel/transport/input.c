// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the receive path's entry.  The UDP encapsulation
 * socket's encap_rcv drops what was not sent to this host alone, checks
 * the CRC32C trailer (unless the DSCP says a switch trimmed the packet)
 * and every packet's length against its type's headers, has the type's
 * own stateless checks made (data.c, ack.c, reliab.c), and hands the
 * packet to its socket (or its backlog): DATA by the SES PIDonFEP, ACK,
 * NACK, errors and CTRL by the DPDCID through the netns's PDC table, where
 * smartt_rcv() gives it to its type's handler.  Documentation/protocol.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>

#include "smartt.h"
#include "transport/rx.h"
#include "transport/transport.h"

/**
 * smartt_rcv() - handle a validated packet for a socket
 * @sk: the socket it is for (locked or owned)
 * @skb: the packet, data at the UDP header, headers validated and linear,
 *	trailer removed, &struct smartt_skb_cb filled by smartt_encap_rcv()
 */
void smartt_rcv(struct sock *sk, struct sk_buff *skb)
{
	const struct smartt_pds_ctrl *c;
	struct smartt_peer *peer;

	if (smartt_sk(sk)->closing) {
		smartt_drop(sock_net(sk), skb, SMARTT_STAT_DROP_CLOSED, false);
		return;
	}
	if (SMARTT_SKB_CB(skb)->crp) {
		smartt_crp_rcv(sk, skb);
		return;
	}
	switch (smartt_type_of(skb)) {
	case SMARTT_PDS_RUD_REQ:
		smartt_rcv_data(sk, skb);
		break;
	case SMARTT_PDS_ACK_CC:
	case SMARTT_PDS_NACK:
		smartt_rcv_ack(sk, skb);
		break;
	case SMARTT_PDS_ACK:
		smartt_rcv_error(sk, skb);
		break;
	default:
		c = smartt_pds_of(skb);
		peer = smartt_ctl_peer(sk, skb, false, ntohs(c->spdcid), false);
		if (peer)
			smartt_rcv_probe(sk, peer, skb);
		break;
	}
}

/*
 * PDS header bytes of a packet type smartt receives (with its next header
 * or CTRL type), 0 for any other.
 */
static u32 smartt_pds_need(u8 type, u8 nh)
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

/* What the IP DSCP of a received packet says of it (&enum smartt_trim). */
static u8 smartt_trim_of(struct net *net, u8 dscp)
{
	if (dscp == smartt_dscp(net, SMARTT_DSCP_C_TRIMMED))
		return SMARTT_TRIM_TRIMMED;
	if (dscp == smartt_dscp(net, SMARTT_DSCP_C_TRIMMED_LASTHOP))
		return SMARTT_TRIM_LASTHOP;
	if (dscp == smartt_dscp(net, SMARTT_DSCP_C_CRP_SPEC_DROPPED))
		return SMARTT_TRIM_SPEC_DROPPED;
	return SMARTT_TRIM_NONE;
}

/*
 * The CRC32C trailer of an untrimmed packet (smartt_crc(): the IP
 * addresses, the UDP header at skb->data, the UDP payload): checked and
 * removed.  The skb is made linear first (the CRC covers it all).
 * Return: 0 or the reason.
 */
static enum smartt_stat smartt_crc_check(struct sk_buff *skb)
{
	unsigned int n = skb->len - SMARTT_CRC_LEN;
	__le32 want;
	u32 crc;

	if (skb_linearize(skb))
		return SMARTT_STAT_DROP_NOMEM;
	if (ip_hdr(skb)->version == 4)
		crc = smartt_crc(&ip_hdr(skb)->saddr, &ip_hdr(skb)->daddr,
				 sizeof(ip_hdr(skb)->saddr), skb->data, n);
	else
		crc = smartt_crc(&ipv6_hdr(skb)->saddr, &ipv6_hdr(skb)->daddr,
				 sizeof(ipv6_hdr(skb)->saddr), skb->data, n);
	memcpy(&want, skb->data + n, sizeof(want));
	if (le32_to_cpu(want) != crc)
		return SMARTT_STAT_DROP_CRC;
	if (pskb_trim(skb, skb->len - SMARTT_CRC_LEN))
		return SMARTT_STAT_DROP_NOMEM;
	return 0;
}

/**
 * smartt_encap_rcv() - encap_rcv of the UDP encapsulation sockets (udp_port)
 * @usk: the UDP socket
 * @skb: the packet, data at the UDP header, a non-zero checksum verified by
 *	UDP
 *
 * Every check against the packet's own lengths, the trailer's CRC, the
 * stateless field checks, then the socket: by PIDonFEP for DATA, by DPDCID
 * (and the peer's address) for the others.  Each drop is counted by reason;
 * no state is made for a packet dropped here.
 *
 * Context: softirq.
 * Return: 0: the packet is always consumed.
 */
int smartt_encap_rcv(struct sock *usk, struct sk_buff *skb)
{
	struct net *net = sock_net(usk);
	union smartt_addr paddr;
	struct smartt_skb_cb *cb;
	enum smartt_stat why;
	u8 type, dscp;
	struct sock *sk;
	u16 family, pfam;
	__be16 pro;
	u32 need;

	smartt_stat_inc(net, SMARTT_STAT_RX_PKTS);
	smartt_stat_add(net, SMARTT_STAT_RX_BYTES, skb->len);
	/*
	 * The transport is unicast: a packet to a group (or overheard) must
	 * create no peer and get no answer, which would come from the group
	 * address or multiply one packet by the group's size.
	 */
	if (smartt_skb_not_unicast(skb))
		return smartt_drop(net, skb, SMARTT_STAT_DROP_NOT_UNICAST, false);
	cb = SMARTT_SKB_CB(skb);
	memset(cb, 0, sizeof(*cb));
	cb->rx_ns = ktime_get_ns();
	cb->usport = udp_hdr(skb)->source;
	if (ip_hdr(skb)->version == 4) {
		family = AF_INET;
		cb->saddr.v4 = ip_hdr(skb)->saddr;
		dscp = ipv4_get_dsfield(ip_hdr(skb));
	} else {
		family = AF_INET6;
		cb->saddr.v6 = ipv6_hdr(skb)->saddr;
		dscp = ipv6_get_dsfield(ipv6_hdr(skb));
		cb->flow = ntohl(ip6_flowlabel(ipv6_hdr(skb)));
	}
	cb->family = family;
	cb->ce = INET_ECN_is_ce(dscp);
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + sizeof(pro)))
		goto short_pkt;
	pro = *(const __be16 *)smartt_pds_of(skb);
	type = smartt_pds_type(pro);
	need = smartt_pds_need(type, smartt_pds_nh(pro));
	if (!need)
		return smartt_drop(net, skb, SMARTT_STAT_DROP_TYPE, true);
	/* Only DATA is trimmed; its trailer is gone with its payload. */
	if (type == SMARTT_PDS_RUD_REQ)
		cb->trim = smartt_trim_of(net, dscp >> 2);
	if (skb->len < sizeof(struct udphdr) + need + (cb->trim ? 0 : SMARTT_CRC_LEN))
		goto short_pkt;
	if (!cb->trim) {
		why = smartt_crc_check(skb);
		if (why)
			return smartt_drop(net, skb, why, why == SMARTT_STAT_DROP_CRC);
	}
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + need))
		goto short_pkt;
	if (type == SMARTT_PDS_RUD_REQ)
		why = smartt_data_valid(skb, cb->trim);
	else if (type == SMARTT_PDS_CTRL)
		why = smartt_probe_valid(skb);
	else
		why = smartt_ack_valid(skb, type);
	if (why)
		return smartt_drop(net, skb, why, true);

	if (type == SMARTT_PDS_RUD_REQ) {
		const struct smartt_data_hdr *d = smartt_pds_of(skb);

		if (smartt_ses_job(&d->ses) != READ_ONCE(smartt_net(net)->job_id))
			return smartt_drop(net, skb, SMARTT_STAT_DROP_JOB, false);
		cb->sport = ntohl(d->ses.initiator);
		sk = smartt_lookup(net, smartt_ses_pid(&d->ses));
		if (!sk || sk->sk_family != family) {
			if (sk)
				sock_put(sk);
			smartt_send_error(net, usk, skb, d, SMARTT_SES_RC_BAD_PID);
			return smartt_drop(net, skb, SMARTT_STAT_DROP_NO_SOCKET, false);
		}
	} else {
		/* DPDCID: bytes 10-11 of ACK, ACK_CC, NACK and CTRL alike */
		const struct smartt_pds_ack *a = smartt_pds_of(skb);

		cb->lpdcid = ntohs(a->dpdcid);
		sk = smartt_pdc_find(net, cb->lpdcid, &pfam, &paddr);
		if (!sk) {
			/* an ACK_CC of a PDC we do not know (a challenge): say so */
			if (type == SMARTT_PDS_ACK_CC)
				smartt_send_nack_inv_ack(net, skb, a);
			return smartt_drop(net, skb, SMARTT_STAT_DROP_DPDCID, false);
		}
		if (pfam != family || (family == AF_INET ? paddr.v4 != cb->saddr.v4 :
				       !ipv6_addr_equal(&paddr.v6, &cb->saddr.v6))) {
			sock_put(sk);
			return smartt_drop(net, skb, SMARTT_STAT_DROP_SRC, false);
		}
	}
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk)) {
		smartt_rcv(sk, skb);
	} else if (sk_add_backlog(sk, skb, READ_ONCE(sk->sk_rcvbuf) +
				  READ_ONCE(sk->sk_sndbuf))) {
		bh_unlock_sock(sk);
		smartt_drop(net, skb, SMARTT_STAT_DROP_BACKLOG, false);
		sock_put(sk);
		return 0;
	}
	bh_unlock_sock(sk);
	sock_put(sk);
	return 0;

short_pkt:
	smartt_drop(net, skb, SMARTT_STAT_DROP_SHORT, true);
	return 0;
}
