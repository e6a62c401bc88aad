/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt transport: what the files of the receive path share.  input.c
 * checks what every packet must be and hands it to its socket; each
 * packet type's own checks and handling sit with its handler: data.c for
 * DATA, ack.c for ACK_CC, NACK and errors, reliab.c for PROBEs.
 */
#ifndef SMARTT_TRANSPORT_RX_H
#define SMARTT_TRANSPORT_RX_H

#include <linux/skbuff.h>
#include <linux/udp.h>

#include "transport/transport.h"

/* Count and free a packet not used; returns 0 for the callers' returns. */
static inline int smartt_drop(struct net *net, struct sk_buff *skb, enum smartt_stat why,
			      bool malformed)
{
	if (malformed)
		smartt_stat_inc(net, SMARTT_STAT_MALFORMED);
	smartt_stat_inc(net, why);
	kfree_skb(skb);
	return 0;
}

/* The PDS header of a received packet (data at the UDP header). */
static inline void *smartt_pds_of(const struct sk_buff *skb)
{
	return skb->data + sizeof(struct udphdr);
}

static inline u8 smartt_type_of(const struct sk_buff *skb)
{
	return smartt_pds_type(*(const __be16 *)smartt_pds_of(skb));
}

/* data.c */
enum smartt_stat smartt_data_valid(const struct sk_buff *skb, bool trimmed);
int smartt_rcv_data(struct sock *sk, struct sk_buff *skb);

/* ack.c */
enum smartt_stat smartt_ack_valid(const struct sk_buff *skb, u8 type);
struct smartt_peer *smartt_ctl_peer(struct sock *sk, struct sk_buff *skb,
				    bool want_tx, u16 spdcid, bool stateless);
int smartt_rcv_ack(struct sock *sk, struct sk_buff *skb);
int smartt_rcv_error(struct sock *sk, struct sk_buff *skb);

/* reliab.c */
enum smartt_stat smartt_probe_valid(const struct sk_buff *skb);

#endif /* SMARTT_TRANSPORT_RX_H */
