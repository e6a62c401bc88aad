// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: per-netns state (the UDP encapsulation sockets, the
 * transport port table, the counters and /proc/net/smartt_stats) and the
 * registration of the transport with the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/ipv6.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "smartt.h"
#include "transport/transport.h"

unsigned short smartt_udp_port = SMARTT_UDP_PORT_DEFAULT;
unsigned short smartt_crp_udp_port = SMARTT_CRP_UDP_PORT_DEFAULT;

/* udp_port and crp_udp_port: 1-65535 (that they differ: at load). */
static int smartt_udp_port_set(const char *val, const struct kernel_param *kp)
{
	u16 port;
	int err;

	err = kstrtou16(val, 0, &port);
	if (err)
		return err;
	if (!port)
		return -EINVAL;
	*(unsigned short *)kp->arg = port;
	return 0;
}

static const struct kernel_param_ops smartt_udp_port_ops = {
	.set = smartt_udp_port_set,
	.get = param_get_ushort,
};

module_param_cb(udp_port, &smartt_udp_port_ops, &smartt_udp_port, 0444);
MODULE_PARM_DESC(udp_port, "UDP port of the transport's UET packets, 1-65535 (default 4793)");
module_param_cb(crp_udp_port, &smartt_udp_port_ops, &smartt_crp_udp_port, 0444);
MODULE_PARM_DESC(crp_udp_port,
		 "UDP port of the CRP control packets, 1-65535, not udp_port (default 4794; equal: the load fails)");

static unsigned int smartt_net_id __read_mostly;

/**
 * smartt_net() - the transport's state of a netns
 * @net: network namespace
 *
 * Return: the state (allocated for every netns while the module is loaded).
 */
struct smartt_net *smartt_net(const struct net *net)
{
	return net_generic(net, smartt_net_id);
}

/**
 * smartt_lookup() - the socket bound to a transport port
 * @net: network namespace
 * @port: transport port
 *
 * Context: any; takes rcu_read_lock() itself.
 * Return: the socket with a reference held, or NULL.
 */
struct sock *smartt_lookup(struct net *net, u16 port)
{
	struct smartt_net *sn = smartt_net(net);
	struct smartt_sock *ssk;
	struct sock *found = NULL;

	rcu_read_lock();
	hlist_for_each_entry_rcu(ssk, &sn->bind[hash_32(port, SMARTT_BIND_BITS)], bind_node) {
		if (READ_ONCE(ssk->port) != port)
			continue;
		if (refcount_inc_not_zero(&ssk->inet.sk.sk_refcnt))
			found = &ssk->inet.sk;
		break;
	}
	rcu_read_unlock();
	return found;
}

static struct hlist_head *smartt_pdc_head(struct smartt_net *sn, u16 id, bool tx)
{
	u32 b = hash_32(id, SMARTT_PDC_HASH_BITS);

	return tx ? &sn->pdc_tx[b] : &sn->pdc_rx[b];
}

/* The peer holding local PDC id @id; RCU read side held. */
static struct smartt_peer *smartt_pdc_lookup(struct smartt_net *sn, u16 id, bool *tx)
{
	struct smartt_peer *p;

	hlist_for_each_entry_rcu(p, smartt_pdc_head(sn, id, true), pdc_tx_node) {
		if (READ_ONCE(p->tx_lpdcid) == id) {
			*tx = true;
			return p;
		}
	}
	hlist_for_each_entry_rcu(p, smartt_pdc_head(sn, id, false), pdc_rx_node) {
		if (READ_ONCE(p->rx_lpdcid) == id) {
			*tx = false;
			return p;
		}
	}
	return NULL;
}

/**
 * smartt_pdc_add() - give a peer a local PDC id
 * @net: network namespace
 * @peer: the peer; its id of the role (@tx: &struct smartt_peer.tx_lpdcid,
 *	else .rx_lpdcid) is 0
 * @tx: the sender's id (our sequence space) or the receiver's
 *
 * Ids are random, non-zero and unique in the netns, both roles together:
 * never one a packet chose, so the table's buckets cannot be aimed at.
 *
 * Context: any (BH-safe lock).
 * Return: 0, or -ENOBUFS when the netns holds %SMARTT_PDC_MAX ids (or no
 * free id was drawn in %SMARTT_PDC_TRIES tries); counted pdc_exhausted.
 */
int smartt_pdc_add(struct net *net, struct smartt_peer *peer, bool tx)
{
	struct smartt_net *sn = smartt_net(net);
	unsigned int i;
	bool role;
	u16 v;

	spin_lock_bh(&sn->pdc_lock);
	if (sn->npdc >= SMARTT_PDC_MAX)
		goto full;
	for (i = 0; i < SMARTT_PDC_TRIES; i++) {
		v = get_random_u16();
		if (v && !smartt_pdc_lookup(sn, v, &role))
			goto found;
	}
full:
	spin_unlock_bh(&sn->pdc_lock);
	smartt_stat_inc(net, SMARTT_STAT_PDC_EXHAUSTED);
	return -ENOBUFS;
found:
	if (tx) {
		WRITE_ONCE(peer->tx_lpdcid, v);
		hlist_add_head_rcu(&peer->pdc_tx_node, smartt_pdc_head(sn, v, true));
	} else {
		WRITE_ONCE(peer->rx_lpdcid, v);
		hlist_add_head_rcu(&peer->pdc_rx_node, smartt_pdc_head(sn, v, false));
	}
	sn->npdc++;
	spin_unlock_bh(&sn->pdc_lock);
	return 0;
}

/**
 * smartt_pdc_del() - take a local PDC id back from a peer
 * @net: network namespace
 * @peer: the peer
 * @tx: which of its ids (nothing is done if that one is 0)
 *
 * Readers may still see the peer until a grace period: peers are freed
 * with kfree_rcu().
 */
void smartt_pdc_del(struct net *net, struct smartt_peer *peer, bool tx)
{
	struct smartt_net *sn = smartt_net(net);
	u16 *id = tx ? &peer->tx_lpdcid : &peer->rx_lpdcid;

	if (!*id)
		return;
	spin_lock_bh(&sn->pdc_lock);
	hlist_del_init_rcu(tx ? &peer->pdc_tx_node : &peer->pdc_rx_node);
	WRITE_ONCE(*id, 0);
	sn->npdc--;
	spin_unlock_bh(&sn->pdc_lock);
}

/**
 * smartt_pdc_find() - the socket of a local PDC id
 * @net: network namespace
 * @id: the id (a DPDCID)
 * @family: set to the family of the peer holding it
 * @addr: set to its address
 *
 * Context: any; takes rcu_read_lock() itself.
 * Return: the socket of the peer holding @id, with a reference held
 * (NULL: no such id, or its socket is going away).  The caller looks the
 * peer up again with smartt_pdc_peer() once it holds the socket's lock.
 */
struct sock *smartt_pdc_find(struct net *net, u16 id, u16 *family, union smartt_addr *addr)
{
	struct smartt_peer *p;
	struct sock *sk = NULL;
	bool tx;

	if (!id)
		return NULL;
	rcu_read_lock();
	p = smartt_pdc_lookup(smartt_net(net), id, &tx);
	if (p && refcount_inc_not_zero(&p->sk->sk_refcnt)) {
		sk = p->sk;
		*family = p->family;
		*addr = p->addr;
	}
	rcu_read_unlock();
	return sk;
}

/**
 * smartt_pdc_peer() - the peer of a socket that holds a local PDC id
 * @sk: the socket (locked or owned)
 * @id: the id
 * @tx: set to true for a sender's id (ACK, NACK, errors), false for a
 *	receiver's (CTRL)
 *
 * Return: the peer, or NULL if @sk holds no such id (any more).
 */
struct smartt_peer *smartt_pdc_peer(struct sock *sk, u16 id, bool *tx)
{
	struct smartt_peer *p;

	if (!id)
		return NULL;
	rcu_read_lock();
	p = smartt_pdc_lookup(smartt_net(sock_net(sk)), id, tx);
	if (p && p->sk != sk)
		p = NULL;
	rcu_read_unlock();
	return p;
}

#define SMARTT_STAT(id, n, d) \
	[SMARTT_STAT_##id] = { .name = n, .desc = d }

static const struct {
	const char *name;
	const char *desc;
} smartt_stat_names[SMARTT_STAT_COUNT] = {
	SMARTT_STAT(TX_PKTS, "tx_packets", "packets sent (all types)"),
	SMARTT_STAT(TX_BYTES, "tx_bytes", "bytes sent, smartt headers and payload"),
	SMARTT_STAT(TX_DATA, "tx_data", "DATA packets sent, retransmissions included"),
	SMARTT_STAT(TX_ACKS, "tx_acks", "ACKs sent"),
	SMARTT_STAT(TX_NACKS, "tx_nacks", "NACKs sent (for trimmed packets)"),
	SMARTT_STAT(TX_ERRORS, "tx_errors", "error packets sent (unknown port, message too big)"),
	SMARTT_STAT(TX_ERRORS_LIMITED, "tx_errors_ratelimited",
		    "error packets not sent: net.smartt.transport_err_ratelimit"),
	SMARTT_STAT(TX_FAIL, "tx_fail", "packets not sent: no route or no memory"),
	SMARTT_STAT(RX_PKTS, "rx_packets", "packets received at the UDP port"),
	SMARTT_STAT(RX_BYTES, "rx_bytes", "bytes received after the UDP header"),
	SMARTT_STAT(RX_DATA, "rx_data", "DATA packets accepted"),
	SMARTT_STAT(RX_ACKS, "rx_acks", "ACKs accepted"),
	SMARTT_STAT(RX_NACKS, "rx_nacks", "NACKs accepted"),
	SMARTT_STAT(RX_ERRORS, "rx_errors", "error packets accepted"),
	SMARTT_STAT(RX_DUP, "rx_duplicates", "DATA packets already received (acknowledged again)"),
	SMARTT_STAT(RX_TRIMMED, "rx_trimmed", "trimmed DATA packets (answered with a NACK)"),
	SMARTT_STAT(RX_CE, "rx_ce", "DATA packets with CE"),
	SMARTT_STAT(MSGS_SENT, "msgs_sent", "messages fully acknowledged"),
	SMARTT_STAT(MSGS_DELIVERED, "msgs_delivered",
		    "messages reassembled and queued to a socket"),
	SMARTT_STAT(MSGS_FAILED, "msgs_failed", "messages that failed (errors below)"),
	SMARTT_STAT(RETRANSMITS, "retransmits", "DATA packets retransmitted"),
	SMARTT_STAT(FAST_RETRANSMITS, "fast_retransmits", "packets declared lost by SACK"),
	SMARTT_STAT(RTOS, "rtos", "retransmission timeouts"),
	SMARTT_STAT(MALFORMED, "malformed",
		    "malformed packets dropped (sum of drop_* reasons below)"),
	SMARTT_STAT(DROP_SHORT, "drop_short", "malformed: shorter than the headers"),
	SMARTT_STAT(DROP_MAGIC, "drop_magic", "malformed: bad magic"),
	SMARTT_STAT(DROP_VERSION, "drop_version", "malformed: unknown wire version"),
	SMARTT_STAT(DROP_TYPE, "drop_type", "malformed: unknown packet type"),
	SMARTT_STAT(DROP_HLEN, "drop_hdr_len", "malformed: hdr_words too small for the type"),
	SMARTT_STAT(DROP_LEN, "drop_length", "malformed: payload or message length inconsistent"),
	SMARTT_STAT(DROP_OFFSET, "drop_offset",
		    "malformed: offset beyond or not aligned in the message"),
	SMARTT_STAT(DROP_EPOCH, "drop_epoch", "malformed: CRP packet without the sender's PDC id"),
	SMARTT_STAT(DROP_ACK_UNSENT, "drop_ack_unsent", "malformed: ACK/NACK for data never sent"),
	SMARTT_STAT(DROP_WINDOW, "drop_window", "DATA beyond the receive window"),
	SMARTT_STAT(DROP_NO_SOCKET, "drop_no_socket", "no socket on the destination port"),
	SMARTT_STAT(DROP_NO_PEER, "drop_no_peer", "ACK/NACK/error from an unknown peer"),
	SMARTT_STAT(DROP_PEERS, "drop_peers", "DATA from a new peer beyond the peer limit"),
	SMARTT_STAT(DROP_RMEM, "drop_rmem", "DATA of a new message beyond the receive buffer"),
	SMARTT_STAT(DROP_BACKLOG, "drop_backlog", "socket backlog full"),
	SMARTT_STAT(DROP_NOMEM, "drop_nomem", "out of memory in the receive path"),
	SMARTT_STAT(DROP_CLOSED, "drop_closed", "packet for a closing socket"),
	SMARTT_STAT(DROP_NOT_UNICAST, "drop_not_unicast",
		    "packet not for this host alone: to or from multicast/broadcast, or overheard"),
	SMARTT_STAT(ERR_CONNREFUSED, "err_connrefused", "peers failed: ECONNREFUSED"),
	SMARTT_STAT(ERR_TIMEDOUT, "err_timedout",
		    "peers (no progress) or messages (expired at the receiver) failed: ETIMEDOUT"),
	SMARTT_STAT(ERR_MSGSIZE, "err_msgsize", "messages failed: EMSGSIZE at the receiver"),
	SMARTT_STAT(ERR_NOROUTE, "err_noroute", "sends failed: no route"),
	SMARTT_STAT(COMPLETIONS, "completions", "completions queued on error queues"),
	SMARTT_STAT(COMPLETIONS_DROPPED, "completions_dropped",
		    "completions lost: no memory for them"),
	SMARTT_STAT(ACKS_COALESCED, "acks_coalesced",
		    "DATA packets acknowledged by a later ACK (strack reliability)"),
	SMARTT_STAT(ACKS_DELAYED, "acks_delayed",
		    "pending ACKs sent by the timer (no trigger came in time)"),
	SMARTT_STAT(ACKS_REQUESTED, "acks_requested",
		    "ACKs sent at once for DATA flagged ACK_REQ (\"strack\")"),
	SMARTT_STAT(OOO_RECOVERIES, "ooo_recoveries",
		    "loss recoveries started by the out-of-order count"),
	SMARTT_STAT(OOO_LOSSES, "ooo_losses", "packets declared lost by the out-of-order count"),
	SMARTT_STAT(TX_PROBES, "tx_probes", "PROBE packets sent"),
	SMARTT_STAT(RX_PROBES, "rx_probes", "PROBE packets answered (PROBE_ACK sent)"),
	SMARTT_STAT(RX_PROBE_ACKS, "rx_probe_acks", "PROBE_ACKs accepted"),
	SMARTT_STAT(PROBE_RECOVERIES, "probe_recoveries",
		    "loss recoveries started by a probe's answer"),
	SMARTT_STAT(PROBE_LOSSES, "probe_losses", "packets declared lost after a probe"),
	SMARTT_STAT(PROBE_ACKS_LATE, "probe_acks_late",
		    "PROBE_ACKs too late to infer a loss from (queueing)"),
	SMARTT_STAT(RTO_LOSSES, "rto_losses", "packets declared lost by a timeout"),
	SMARTT_STAT(PATH_GOOD, "path_good", "path feedback GOOD: ACK without ECN"),
	SMARTT_STAT(PATH_ECN, "path_ecn", "path feedback ECN: ACK or last-hop NACK with ECN"),
	SMARTT_STAT(PATH_NACK, "path_nack", "path feedback NACK: trimmed before the last hop"),
	SMARTT_STAT(PATH_LAST_HOP, "path_last_hop_trims",
		    "NACKs for last-hop trims (path not blamed)"),
	SMARTT_STAT(PATH_TIMEOUT, "path_timeout",
		    "path feedback TIMEOUT: packets in flight at an RTO"),
	SMARTT_STAT(PATH_LOST, "path_lost",
		    "path feedback LOST: declared lost by SACK, out-of-order count or probe"),
	SMARTT_STAT(PATH_BAD_ENTROPY, "path_bad_entropy",
		    "ACK/NACK echoing an entropy the selector cannot have sent"),
	SMARTT_STAT(PATH_FREEZES, "path_freezes", "REPS freezes (timeouts)"),
	SMARTT_STAT(PATH_UNFREEZES, "path_unfreezes", "REPS freezes ended"),
	SMARTT_STAT(PATH_ECN_NOOP, "path_ecn_noop",
		    "ECN with RTT under target: path changed, window kept"),
	SMARTT_STAT(DROP_MEM, "drop_mem",
		    "DATA dropped at the protocol's memory limit (net.smartt.transport_mem)"),
	SMARTT_STAT(DROP_SEG_CHARGE, "drop_seg_charge",
		    "new messages refused: segments too small for their length (EMSGSIZE sent)"),
	SMARTT_STAT(RX_COPIED, "rx_segs_copied",
		    "segments copied into a smaller skb before being charged"),
	SMARTT_STAT(RX_EXPIRED, "rx_msgs_expired",
		    "partial messages freed: no new segment for SMARTT_TIMEOUT_MS"),
	SMARTT_STAT(RX_EVICTED, "rx_msgs_evicted",
		    "partial messages freed: largest holder while another peer waited"),
	SMARTT_STAT(PEERS_EVICTED, "peers_evicted",
		    "idle peers freed at the peer limit to make room for a new one"),
	SMARTT_STAT(ERR_NOBUFS, "err_nobufs", "messages failed: ENOBUFS (evicted at the receiver)"),
	SMARTT_STAT(DROP_CTRL_STALE, "drop_ctrl_stale",
		    "error for a message no longer being sent (completed or failed)"),
	SMARTT_STAT(CRP_TX_REQ, "crp_tx_req", "CRP requests sent (retries and re-asks included)"),
	SMARTT_STAT(CRP_REQ_TIMEOUTS, "crp_req_timeouts",
		    "CRP requests asked again: no grant or retry came within the RTO"),
	SMARTT_STAT(CRP_RX_GRANT, "crp_rx_grant", "CRP grants taken by a waiting segment"),
	SMARTT_STAT(CRP_RX_RETRY, "crp_rx_retry", "CRP retries taken by a waiting segment"),
	SMARTT_STAT(CRP_RETRY_NOSLOT, "crp_retry_noslot",
		    "of those: no slot common to every table"),
	SMARTT_STAT(CRP_RETRY_FULL, "crp_retry_full",
		    "of those: the destination holds the size in no slot (a full window's wait)"),
	SMARTT_STAT(CRP_RETRY_CONV, "crp_retry_conv", "of those: a grant a switch port converted"),
	SMARTT_STAT(CRP_DROP_UNKNOWN, "crp_drop_unknown",
		    "CRP grants and retries no segment waits for (late, duplicate, forged)"),
	SMARTT_STAT(CRP_DROP_BAD, "crp_drop_bad",
		    "CRP packets dropped: fields out of range or inconsistent"),
	SMARTT_STAT(CRP_RX_REQ, "crp_rx_req", "CRP requests received and answered"),
	SMARTT_STAT(CRP_HOST_GRANT, "crp_host_grant",
		    "of those: no fabric decision, granted by the host's table"),
	SMARTT_STAT(CRP_HOST_RETRY, "crp_host_retry",
		    "of those: no fabric decision, refused by the host's table"),
	SMARTT_STAT(CRP_TX_GRANT, "crp_tx_grant", "CRP grants sent (requests reflected)"),
	SMARTT_STAT(CRP_TX_RETRY, "crp_tx_retry", "CRP retries sent (requests reflected)"),
	SMARTT_STAT(CRP_TX_SPEC, "crp_tx_spec", "DATA sent speculatively (SMARTT_F_CRP_SPEC)"),
	SMARTT_STAT(CRP_TX_GRANTED, "crp_tx_granted",
		    "DATA sent under a grant (SMARTT_F_CRP_GRANTED), speculative resends included"),
	SMARTT_STAT(CRP_TX_NONPART, "crp_tx_nonpart",
		    "DATA of cc crp sent without CRP: below nmin, past the reservation"),
	SMARTT_STAT(CRP_SPEC_DROPPED, "crp_spec_dropped",
		    "speculative DATA a port trimmed after TTW (NACK with SPEC_DROP)"),
	SMARTT_STAT(CRP_SPEC_RECOVERED, "crp_spec_recovered",
		    "of those: sent again under their segment's grant"),
	SMARTT_STAT(DROP_CRC, "rx_bad_crc", "malformed: CRC32C trailer mismatch"),
	SMARTT_STAT(DROP_DPDCID, "drop_dpdcid",
		    "DPDCID of no PDC of this host, or not the receiving PDC's"),
	SMARTT_STAT(DROP_SPDCID, "drop_spdcid",
		    "ACK/NACK/CTRL whose SPDCID is not the PDC's peer id"),
	SMARTT_STAT(DROP_SRC, "drop_src",
		    "ACK/NACK/CTRL from an address other than the PDC's peer"),
	SMARTT_STAT(DROP_JOB, "drop_job", "DATA of another job (net.smartt.transport_job_id)"),
	SMARTT_STAT(DROP_SEG_UNKNOWN, "drop_seg_unknown",
		    "last segment of a message whose segment size is not known yet"),
	SMARTT_STAT(DROP_MSG_ID, "drop_msg_id", "DATA whose message id is out of window"),
	SMARTT_STAT(DROP_FIELD, "drop_field",
		    "malformed: a field out of range (opcode, version, next header, flags)"),
	SMARTT_STAT(PDC_EXHAUSTED, "pdc_exhausted", "no free local PDC id in the netns"),
	SMARTT_STAT(RX_PDC_RESET, "rx_pdc_reset",
		    "receive states restarted: DATA from a new sender PDC"),
	SMARTT_STAT(TX_MSG_ID_WAIT, "tx_msg_id_wait",
		    "sends held back: 32767 messages of the peer unfinished"),
	SMARTT_STAT(CRP_REASK, "crp_reask",
		    "CRP requests again: a packet the segment's grant carried was lost"),
	SMARTT_STAT(TX_RSP, "tx_responses",
		    "SES responses sent: a message delivered or freed, answered on an ACK"),
	SMARTT_STAT(RX_RSP, "rx_responses",
		    "SES responses taken: a message's outcome from its receiver"),
	SMARTT_STAT(RSP_QUERIES, "rsp_queries",
		    "messages acknowledged but unanswered: a segment sent again to ask"),
	SMARTT_STAT(RSP_TIMEDOUT, "msgs_unconfirmed",
		    "messages failed: acknowledged, no SES response for the timeout"),
	SMARTT_STAT(RX_DONE_DROPPED, "rx_outcomes_dropped",
		    "message outcomes forgotten before the sender cleared them (limit)"),
	SMARTT_STAT(DROP_SYN_BUSY, "drop_syn_busy",
		    "SYN of another sender PDC while the peer's PDC is active"),
	SMARTT_STAT(DROP_RSP, "drop_rsp",
		    "errors, responses, INV_DPDCID not naming a PSN or message in flight"),
	SMARTT_STAT(TX_PDC_RESTART, "tx_pdc_restarts",
		    "sequence spaces restarted: the receiver knew no PDC (INV_DPDCID)"),
	SMARTT_STAT(RX_CHALLENGES, "rx_challenges",
		    "ACKs of an active PDC sent to a SYN of another: does its sender know it?"),
	SMARTT_STAT(RX_PDC_CLOSED, "rx_pdc_closed",
		    "receive states closed: their sender knew the PDC no more (INV_DPDCID)"),
	SMARTT_STAT(DROP_HOST_PEERS, "drop_host_peers",
		    "DATA of a new peer from an address holding its share of peers (128)"),
	SMARTT_STAT(RX_RSP_DUP, "rx_responses_dup",
		    "SES responses of a message finished already (ACKs repeat them)"),
	SMARTT_STAT(CRP_REQ_LIMITED, "crp_req_ratelimited",
		    "CRP requests of no PDC here not answered (stateless answers' limits)"),
};

static int smartt_stats_show(struct seq_file *seq, void *v)
{
	struct smartt_net *sn = smartt_net(seq_file_single_net(seq));
	unsigned int i;
	int cpu;

	for (i = 0; i < SMARTT_STAT_COUNT; i++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += per_cpu_ptr(sn->stats, cpu)->v[i];
		seq_printf(seq, "%s %llu %s\n", smartt_stat_names[i].name, sum,
			   smartt_stat_names[i].desc);
	}
	seq_printf(seq, "mem_pages %ld %s\n", smartt_mem_pages(),
		   "receive memory charged to the protocol, every netns (pages)");
	seq_printf(seq, "netns_mem_pages %ld %s\n",
		   smartt_net_mem_pages(seq_file_single_net(seq)),
		   "receive memory this netns's sockets hold (pages, against its transport_mem)");
	return 0;
}

/*
 * A kernel UDP socket with smartt_encap_rcv() as its encapsulation
 * receive hook: what udp_sock_create() and setup_udp_tunnel_sock() do, by
 * hand.  Those live in udp_tunnel.ko, whose init takes RTNL: a dependency
 * on it would deadlock the autoload of smartt.ko as a TCP congestion
 * control from "ip route ... congctl", which runs under RTNL.  Everything
 * used here is in vmlinux.
 */
static struct socket *smartt_udp_open(struct net *net, int family, u16 port,
				      int (*rcv)(struct sock *, struct sk_buff *))
{
	struct sockaddr_storage ss = {};
	struct socket *sock;
	int len, err;

	err = sock_create_kern(net, family, SOCK_DGRAM, IPPROTO_UDP, &sock);
	if (err)
		return ERR_PTR(err);
	if (family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		err = ip6_sock_set_v6only(sock->sk);
		if (err)
			goto fail;
		/* UET: a zero UDP checksum, sent and accepted (IPv6 too). */
		udp_set_no_check6_tx(sock->sk, true);
		udp_set_no_check6_rx(sock->sk, true);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		len = sizeof(*sin6);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		len = sizeof(*sin);
	}
	err = kernel_bind(sock, (struct sockaddr *)&ss, len);
	if (err)
		goto fail;
	udp_sk(sock->sk)->encap_type = SMARTT_UDP_ENCAP_TYPE;
	WRITE_ONCE(udp_sk(sock->sk)->encap_rcv, rcv);
	udp_tunnel_encap_enable(sock->sk);
	return sock;
fail:
	sock_release(sock);
	return ERR_PTR(err);
}

/* udp_tunnel_sock_release() without its module (see smartt_udp_open()). */
static void smartt_udp_close(struct socket *sock)
{
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
}

/**
 * smartt_udp_get() - a transport socket is created: open the UDP sockets
 * @net: its network namespace
 *
 * The encapsulation sockets exist only while the netns has transport
 * sockets, so that loading the module for its congestion controls does not
 * take the UDP port in every netns.
 *
 * Context: process, may sleep.
 * Return: 0, or the error of opening the port (-EADDRINUSE when taken).
 */
int smartt_udp_get(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);
	struct socket *s[4] = {};
	unsigned int i;
	int err = 0;

	mutex_lock(&sn->udp_lock);
	if (sn->udp_users) {
		sn->udp_users++;
		goto out;
	}
	/* UET on udp_port, CRP on crp_udp_port; IPv4, then IPv6. */
	for (i = 0; i < 4; i++) {
		s[i] = smartt_udp_open(net, i & 1 ? AF_INET6 : AF_INET,
				       i & 2 ? smartt_crp_udp_port : smartt_udp_port,
				       i & 2 ? smartt_crp_encap_rcv : smartt_encap_rcv);
		if (!IS_ERR(s[i]))
			continue;
		err = PTR_ERR(s[i]);
		s[i] = NULL;
		/* IPv6 disabled at boot: the transport is IPv4-only. */
		if ((i & 1) && err == -EAFNOSUPPORT) {
			err = 0;
			continue;
		}
		while (i--)
			if (s[i])
				smartt_udp_close(s[i]);
		goto out;
	}
	WRITE_ONCE(sn->udp4, s[0]);
	WRITE_ONCE(sn->udp6, s[1]);
	WRITE_ONCE(sn->crp4, s[2]);
	WRITE_ONCE(sn->crp6, s[3]);
	sn->udp_users = 1;
out:
	mutex_unlock(&sn->udp_lock);
	if (err == -EADDRINUSE)
		net_warn_ratelimited("smartt: UDP port %u or %u is in use in this netns\n",
				     smartt_udp_port, smartt_crp_udp_port);
	return err;
}

/**
 * smartt_udp_put() - a transport socket is gone
 * @net: its network namespace
 *
 * The last one closes the UDP sockets.  Nothing can transmit on them then:
 * every transmission comes from a transport socket, or from the receive
 * path of the UDP socket itself.
 *
 * Context: process, may sleep.
 */
void smartt_udp_put(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);

	mutex_lock(&sn->udp_lock);
	if (!WARN_ON_ONCE(!sn->udp_users) && !--sn->udp_users) {
		if (sn->crp6)
			smartt_udp_close(sn->crp6);
		smartt_udp_close(sn->crp4);
		if (sn->udp6)
			smartt_udp_close(sn->udp6);
		smartt_udp_close(sn->udp4);
		WRITE_ONCE(sn->udp4, NULL);
		WRITE_ONCE(sn->udp6, NULL);
		WRITE_ONCE(sn->crp4, NULL);
		WRITE_ONCE(sn->crp6, NULL);
	}
	mutex_unlock(&sn->udp_lock);
}

static int __net_init smartt_net_init(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);
	unsigned int i;
	int err;

	mutex_init(&sn->udp_lock);
	spin_lock_init(&sn->bind_lock);
	for (i = 0; i < ARRAY_SIZE(sn->bind); i++)
		INIT_HLIST_HEAD(&sn->bind[i]);
	spin_lock_init(&sn->pdc_lock);
	for (i = 0; i < ARRAY_SIZE(sn->pdc_tx); i++) {
		INIT_HLIST_HEAD(&sn->pdc_tx[i]);
		INIT_HLIST_HEAD(&sn->pdc_rx[i]);
	}
	sn->stats = alloc_percpu(struct smartt_stats);
	if (!sn->stats)
		return -ENOMEM;
	if (!proc_create_net_single("smartt_stats", 0444, net->proc_net,
				    smartt_stats_show, NULL)) {
		free_percpu(sn->stats);
		return -ENOMEM;
	}
	if (smartt_procfs_init_net(net)) {
		remove_proc_entry("smartt_stats", net->proc_net);
		free_percpu(sn->stats);
		return -ENOMEM;
	}
	err = smartt_ctl_net_init(net);	/* net.smartt.transport_* */
	if (err)
		goto fail_procfs;
	err = smartt_mem_net_init(net);	/* net.smartt.transport_mem */
	if (!err)
		return 0;
	smartt_ctl_net_exit(net);
fail_procfs:
	smartt_procfs_exit_net(net);
	remove_proc_entry("smartt_stats", net->proc_net);
	free_percpu(sn->stats);
	return err;
}

static void __net_exit smartt_net_exit(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);
	unsigned int i;

	smartt_mem_net_exit(net);
	smartt_ctl_net_exit(net);
	smartt_procfs_exit_net(net);
	remove_proc_entry("smartt_stats", net->proc_net);
	/* User sockets hold the netns: none can be left, nor their UDP port. */
	WARN_ON_ONCE(sn->udp_users);
	for (i = 0; i < ARRAY_SIZE(sn->bind); i++)
		WARN_ON_ONCE(!hlist_empty(&sn->bind[i]));
	WARN_ON_ONCE(sn->npdc);
	free_percpu(sn->stats);
}

static struct pernet_operations smartt_net_ops = {
	.init = smartt_net_init,
	.exit = smartt_net_exit,
	.id = &smartt_net_id,
	.size = sizeof(struct smartt_net),
};

/**
 * smartt_transport_register() - make the transport available
 *
 * The protocol's memory limits first, per-netns state next (a socket needs
 * its netns's UDP port), then the socket types.
 *
 * Return: 0 or a negative errno (nothing stays registered).
 */
int smartt_transport_register(void)
{
	int err;

	smartt_wire_checks();
	if (smartt_udp_port == smartt_crp_udp_port) {
		pr_err("udp_port and crp_udp_port must differ (both %u)\n", smartt_udp_port);
		return -EINVAL;
	}
	smartt_mem_init();
	err = register_pernet_subsys(&smartt_net_ops);
	if (err)
		return err;
	err = smartt_sock_register();
	if (err)
		unregister_pernet_subsys(&smartt_net_ops);
	return err;
}

/**
 * smartt_transport_unregister() - undo smartt_transport_register()
 *
 * The module cannot be unloaded while a socket is open (struct proto
 * .owner), so no socket is left here.
 */
void smartt_transport_unregister(void)
{
	smartt_sock_unregister();
	unregister_pernet_subsys(&smartt_net_ops);
	smartt_mem_exit();
}
