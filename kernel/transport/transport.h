/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt transport: types shared by the files of kernel/transport/.
 * Documentation/transport.rst describes the design.
 *
 * Locking: everything reachable from a &struct smartt_sock (peers,
 * messages, reassembly) belongs to the socket lock.  Process context takes
 * lock_sock(); the receive path (softirq) and the timer take
 * bh_lock_sock() and defer to the backlog (or re-arm) when the socket is
 * owned by a user.  The per-netns port table is RCU-read, bind_lock-written.
 */
#ifndef SMARTT_TRANSPORT_H
#define SMARTT_TRANSPORT_H

#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/skbuff.h>
#include <linux/sockptr.h>
#include <linux/timer.h>
#include <linux/timerqueue.h>
#include <net/dst_cache.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "algo/crp.h"
#include "algo/dctcp.h"
#include "algo/lb.h"
#include "algo/smartt.h"
#include "algo/strack.h"
#include "algo/uet_ack.h"
#include "transport/reliab.h"
#include "transport/wire.h"

#if !IS_ENABLED(CONFIG_IPV6)
#error "the smartt transport needs CONFIG_IPV6"
#endif

/* Packets in flight per peer: the PSN window; equals the SACK reach. */
#define SMARTT_WIN		256
/* Peers per socket. */
#define SMARTT_MAX_PEERS	1024
/*
 * Peers the receive path may make: the rest of %SMARTT_MAX_PEERS are kept
 * for sendmsg() to new destinations.
 */
#define SMARTT_RX_PEERS_MAX	(SMARTT_MAX_PEERS - SMARTT_MAX_PEERS / 8)
/* Peers (transport ports) of one source address per socket. */
#define SMARTT_HOST_PEERS_MAX	(SMARTT_MAX_PEERS / 8)
/* Peer lookup: a seeded hash of address and port into this many buckets. */
#define SMARTT_PEER_HASH_BITS	7
/* Ports bound per netns hash into this many buckets. */
#define SMARTT_BIND_BITS	6
/*
 * Error packets per netns (net.smartt.transport_err_ratelimit): ms between
 * two, by default and at most; a token bucket holds this many.
 */
#define SMARTT_ERR_RATELIMIT_DEF	1U
#define SMARTT_ERR_RATELIMIT_MAX	3600000U
#define SMARTT_ERR_BURST		50U
/*
 * And per source address: this many buckets per netns (a seeded hash of
 * the address), each refilled %SMARTT_ERR_SRC_SHARE times slower than the
 * netns's and holding %SMARTT_ERR_SRC_BURST packets: one source spends a
 * tenth of the netns's rate at most, the others keep theirs.
 */
#define SMARTT_ERR_SRC_BUCKETS		64
#define SMARTT_ERR_SRC_SHARE		10U
#define SMARTT_ERR_SRC_BURST		5U
/* Ephemeral transport ports (transport ports are 12-bit PIDonFEPs). */
#define SMARTT_PORT_EPH_LO	2048
#define SMARTT_PORT_EPH_HI	SMARTT_PORT_MAX
/*
 * PDC ids: the per-netns table of local ids has this many buckets and
 * holds at most %SMARTT_PDC_MAX ids (half the 16-bit space, so that a
 * random id is free with a probability of at least one half); a new id
 * is drawn at most %SMARTT_PDC_TRIES times.
 */
#define SMARTT_PDC_HASH_BITS	10
#define SMARTT_PDC_MAX		32768U
#define SMARTT_PDC_TRIES	64
/* Segment payload bounds, bytes. */
#define SMARTT_SEG_MIN		64U
#define SMARTT_SEG_MAX		8192U
/* RTO estimator (RFC 6298), ns. */
#define SMARTT_RTO_INIT_NS	(200 * NSEC_PER_MSEC)
#define SMARTT_RTO_MIN_NS	(20 * NSEC_PER_MSEC)
#define SMARTT_RTO_MAX_NS	(2 * NSEC_PER_SEC)
/* SACK-based fast retransmit: this many higher PSNs acknowledged. */
#define SMARTT_DUPTHRESH	3
/* A peer idle this many timeouts (at least 1 s) is reclaimed. */
#define SMARTT_IDLE_TIMEOUTS	4
#define SMARTT_IDLE_MIN_NS	NSEC_PER_SEC
/*
 * At the peer limit, a peer with no message either way that has been idle
 * this long (or its reclaim time, if shorter) makes room for a new one: a
 * sender with anything unacknowledged sends at least once per
 * %SMARTT_RTO_MAX_NS, so it is not one of them.
 */
#define SMARTT_EVICT_IDLE_NS	(2 * SMARTT_RTO_MAX_NS)
/* Peers looked at, least recently active first, for one eviction. */
#define SMARTT_EVICT_SCAN	8
/* Room before a packet's PDS header for the link, IP and UDP headers. */
#define SMARTT_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + sizeof(struct udphdr))
/* udp_sock.encap_type of the encapsulation sockets (any non-zero value). */
#define SMARTT_UDP_ENCAP_TYPE	1
/* Default window of cc "none", in segments. */
#define SMARTT_WINDOW_SEGS	64

/*
 * Internal PSNs and message numbers of a receive state start 2^32 above
 * the first wire value: extending a 32-bit (16-bit) wire value to the
 * nearest one never wraps below zero.  smartt_rx_psn() takes it off.
 */
#define SMARTT_RX_BIAS		BIT_ULL(32)

/* &struct smartt_sock.cc: a fixed window, or a SMaRTT profile. */
#define SMARTT_CC_NONE		(-1)

/**
 * union smartt_addr - a peer's IP address
 * @v4: IPv4 address
 * @v6: IPv6 address
 */
union smartt_addr {
	__be32 v4;
	struct in6_addr v6;
};

/* State of one PSN slot at the sender. */
enum smartt_seg_state {
	SMARTT_SEG_FREE = 0,	/* acknowledged, or never used */
	SMARTT_SEG_INFLIGHT,	/* sent, counted in in_flight */
	SMARTT_SEG_LOST,	/* declared lost, queued for retransmission */
	SMARTT_SEG_WAIT,	/* acknowledged, the last of its message: held until
				 * the receiver's SES response for the message
				 */
};

struct smartt_tx_msg;
struct smartt_path;

/**
 * struct smartt_host - the peers of a socket at one address: what the
 *	receive path shares fairly between hosts, whatever the ports they use
 * @hnode: in &struct smartt_sock.host_hash
 * @peers: its peers, least recently active first (&struct smartt_peer.host_node)
 * @family: AF_INET or AF_INET6
 * @addr: the address
 * @npeers: entries in @peers (at most %SMARTT_HOST_PEERS_MAX)
 * @rx_charge: the reservations of its peers' messages being reassembled
 */
struct smartt_host {
	struct hlist_node hnode;
	struct list_head peers;
	u16 family;
	union smartt_addr addr;
	u32 npeers;
	u64 rx_charge;
};

/* &struct smartt_txseg.crp */
#define SMARTT_TXSEG_SPEC	0x01
#define SMARTT_TXSEG_SPEC_DROP	0x02
#define SMARTT_TXSEG_GRANTED	0x04
/* the grant it was sent under: &struct smartt_crp_seg.gen, low 4 bits */
#define SMARTT_TXSEG_GEN_SHIFT	4
#define SMARTT_TXSEG_GEN_MASK	0xf0

#include "transport/crp.h"

/* Transmissions of a PSN counted in &struct smartt_txseg.tx_count. */
#define SMARTT_TXSEG_TX_MAX	255

/**
 * struct smartt_txseg - one PSN slot of the sender's window
 * @psn: the PSN using the slot (slots are reused every %SMARTT_WIN PSNs)
 * @msg: message the segment belongs to
 * @seg: segment index in @msg
 * @len: payload bytes
 * @state: &enum smartt_seg_state
 * @crp: cc "crp": %SMARTT_TXSEG_SPEC (the last transmission was
 *	speculative), %SMARTT_TXSEG_SPEC_DROP (a port trimmed it for TTW and
 *	it was not sent again yet), %SMARTT_TXSEG_GRANTED (it was sent under
 *	the grant whose &struct smartt_crp_seg.gen is in the bits of
 *	%SMARTT_TXSEG_GEN_MASK)
 * @tx_count: transmissions (saturates at %SMARTT_TXSEG_TX_MAX)
 * @entropy: path entropy of the last (re)transmission
 * @entropy0: path entropy of the first transmission (an ACK or NACK
 *	without RETX answers that one)
 * @sent_ns: last (re)transmission time (a packet held for its EDT departure,
 *	cc crp: that departure)
 */
struct smartt_txseg {
	u64 psn;
	struct smartt_tx_msg *msg;
	u32 seg;
	u16 len;
	u8 state;
	u8 crp;
	u8 tx_count;
	u32 entropy;
	u32 entropy0;
	u64 sent_ns;
};

/**
 * struct smartt_tx_msg - a message being sent
 * @node: in &struct smartt_peer.tx_msgs
 * @id: message number
 * @len: bytes
 * @cookie: user cookie (valid when @has_cookie)
 * @has_cookie: a completion is wanted
 * @nsegs: segments
 * @next_seg: next segment never sent
 * @acked: segments acknowledged
 * @start_ns: time of sendmsg()
 * @wait_ns: when every segment was first acknowledged: from then on the
 *	message waits for the receiver's SES response (0: not yet)
 * @data: the payload (kvmalloc)
 */
struct smartt_tx_msg {
	struct list_head node;
	u64 id;
	u64 len;
	u64 cookie;
	bool has_cookie;
	u32 nsegs;
	u32 next_seg;
	u32 acked;
	u64 start_ns;
	u64 wait_ns;
	u8 *data;
};

/**
 * struct smartt_rx_msg - a message being reassembled
 * @node: in &struct smartt_peer.rx_msgs
 * @idnode: in &struct smartt_peer.rx_ids
 * @id: message number
 * @len: bytes
 * @seg_size: bytes per segment (0 until a packet that is not the last
 *	one tells it)
 * @received: payload bytes received so far
 * @segs: received segments, keyed by offset (skb->rbnode)
 * @head: the skb that will carry the message (allocated on admission, so
 *	that a complete message never fails to be delivered)
 * @charge: the reservation made on admission, smartt_rx_msg_charge()
 * @reserve: the part of @charge not yet used by a segment
 * @last_ns: when the message was admitted or last got a new segment; the
 *	peer's list is in this order, oldest first
 * @psn_hi: the highest PSN of a segment received (extended)
 */
struct smartt_rx_msg {
	struct list_head node;
	struct rb_node idnode;
	struct sk_buff *head;
	u64 id;
	u64 len;
	u32 seg_size;
	u64 received;
	struct rb_root segs;
	u64 charge;
	u64 reserve;
	u64 last_ns;
	u64 psn_hi;
};

/* Outcomes a peer's receive state remembers at most (ses.c). */
#define SMARTT_RX_DONE_MAX	(2 * SMARTT_WIN)

/**
 * struct smartt_rx_done - the outcome of a message of a peer's sequence
 *	space, kept until the sender's CLEAR_PSN passes its last PSN (ses.c)
 * @idnode: in &struct smartt_peer.rx_done_ids
 * @node: in &struct smartt_peer.rx_done, oldest first
 * @id: message number (extended, as &struct smartt_rx_msg.id)
 * @psn_hi: the highest PSN of the message received (extended)
 * @len: message bytes
 * @rc: the SES return code the receiver answered (&enum smartt_ses_rc):
 *	%SMARTT_SES_RC_OK once delivered, an error once freed undelivered
 */
struct smartt_rx_done {
	struct rb_node idnode;
	struct list_head node;
	u64 id;
	u64 psn_hi;
	u32 len;
	u8 rc;
};

/**
 * struct smartt_peer - per-peer state of a socket: two UET PDCs, one per
 *	direction
 * @node: in &struct smartt_sock.peers
 * @sk: the socket the peer belongs to
 * @rcu: the peer is freed after an RCU grace period (the per-netns PDC
 *	table is read under RCU)
 * @pdc_tx_node: in the netns's PDC table by @tx_lpdcid (once non-zero)
 * @pdc_rx_node: in the netns's PDC table by @rx_lpdcid
 * @hnode: in &struct smartt_sock.peer_hash
 * @host: the peers at the same address (&struct smartt_host)
 * @host_node: in @host's list, in order of activity
 * @due: in &struct smartt_sock.due from the peer's creation until it is
 *	freed, keyed by its earliest deadline (or an earlier time: a
 *	deadline that moved later is found out when the old one comes)
 * @family: AF_INET or AF_INET6
 * @addr: the peer's address
 * @port: the peer's transport port
 * @dst_cache: route to the peer
 * @saddr: the source address to use (from the route)
 * @mss: payload bytes per segment
 * @path: path selector and per-entropy counters (path.c); NULL, as
 *	@win, until a message is first queued to the peer
 * @tx_lpdcid: our PDC id of our sequence space towards the peer (the
 *	SPDCID of our DATA; 0 until a message is first queued, a new one
 *	whenever the sequence space restarts)
 * @tx_rpdcid: the peer's PDC id for it, learned from the SPDCID of its
 *	ACKs (valid when @tx_est)
 * @tx_est: an ACK came since @tx_lpdcid was drawn: DATA carries
 *	@tx_rpdcid instead of SYN
 * @tx_rcvd: the peer's count of bytes accepted in our sequence space, as
 *	its ACK_CCs report it (the congestion control's newly acknowledged
 *	bytes, kernel/algo/uet_ack.c)
 * @snd_una: lowest PSN not acknowledged
 * @snd_nxt: next PSN to use
 * @in_flight: payload bytes in state INFLIGHT
 * @lost: segments in state LOST
 * @cwnd: congestion window, bytes
 * @next_msg_id: number of the next message
 * @tx_msgs: messages being sent, oldest first
 * @win: PSN slots, index psn % SMARTT_WIN (NULL until a message is
 *	first queued to the peer: a peer that only sends to us holds no
 *	transmit state, smartt_peer_tx_alloc())
 * @srtt_ns: smoothed RTT (0: no sample yet)
 * @rttvar_ns: RTT variation
 * @rto_ns: current RTO, backoff included
 * @rto_at: when the oldest in-flight packet times out (ns, 0 = not armed)
 * @last_progress: last time the peer acknowledged new data (ns)
 * @last_active: last time a message was queued to the peer or a valid
 *	packet came from it (ns; smartt_peer_touch()); an idle peer is
 *	reclaimed
 * @retransmits: packets retransmitted
 * @rtos: retransmission timeouts
 * @rx_lpdcid: our PDC id of the peer's sequence space (the SPDCID of our
 *	ACKs, the DPDCID of its DATA once established)
 * @rx_rpdcid: the peer's PDC id of it (the SPDCID of its DATA; 0: nothing
 *	received)
 * @rx_msg_hi: the highest message number received from @rx_rpdcid (the
 *	16-bit message ids extend against it)
 * @rcv_nxt: every PSN below this was received
 * @rx_bitmap: received PSNs in [rcv_nxt, rcv_nxt + SMARTT_WIN), index
 *	psn % SMARTT_WIN
 * @rcv_bytes: payload bytes accepted from @rx_rpdcid
 * @rx_msgs: messages being reassembled, least recently progressed first
 * @rx_ids: the same messages by id (&struct smartt_rx_msg.idnode)
 * @rx_charge: the reservations (&struct smartt_rx_msg.charge) of @rx_msgs
 * @rx_done: outcomes of finished messages the sender may still ask for,
 *	oldest first (&struct smartt_rx_done)
 * @rx_done_ids: the same by message number
 * @rx_ndone: entries in @rx_done
 * @rx_last_ns: when a DATA packet of @rx_rpdcid was last accepted (ns): a
 *	SYN of another sender PDC replaces a quiet one only
 * @rx_chal_ns: when the last challenge ACK went (ns, 0: none)
 * @ss: SMaRTT core state (cc_algo SMARTT_CCA_SMARTT)
 * @st: STrack core state (cc_algo SMARTT_CCA_STRACK)
 * @dc: DCTCP-style core state (cc_algo SMARTT_CCA_DCTCP)
 * @rel: reliability state (reliab.c)
 * @crp: cc "crp": the peer's reservations (allocated with @win)
 * @crp_ans_ns: cc "crp": smoothed time from a request to its answer, ns
 *	(0: none yet); a grant must start at least this far ahead
 */
struct smartt_peer {
	struct list_head node;
	struct sock *sk;
	struct rcu_head rcu;
	struct hlist_node pdc_tx_node;
	struct hlist_node pdc_rx_node;
	struct hlist_node hnode;
	struct smartt_host *host;
	struct list_head host_node;
	struct timerqueue_node due;
	u16 family;
	union smartt_addr addr;
	u16 port;
	struct dst_cache dst_cache;
	union smartt_addr saddr;
	u32 mss;
	struct smartt_path *path;
	u16 tx_lpdcid;
	u16 tx_rpdcid;
	bool tx_est;
	struct uet_ack_track tx_rcvd;
	u64 snd_una;
	u64 snd_nxt;
	u64 in_flight;
	u32 lost;
	u64 cwnd;
	u64 next_msg_id;
	struct list_head tx_msgs;
	struct smartt_txseg *win;
	u64 srtt_ns;
	u64 rttvar_ns;
	u64 rto_ns;
	u64 rto_at;
	u64 last_progress;
	u64 last_active;
	u64 retransmits;
	u64 rtos;
	u16 rx_lpdcid;
	u16 rx_rpdcid;
	u64 rx_msg_hi;
	u64 rcv_nxt;
	DECLARE_BITMAP(rx_bitmap, SMARTT_WIN);
	u64 rcv_bytes;
	struct list_head rx_msgs;
	struct rb_root rx_ids;
	u64 rx_charge;
	struct list_head rx_done;
	struct rb_root rx_done_ids;
	u32 rx_ndone;
	u64 rx_last_ns;
	u64 rx_chal_ns;
	struct smartt_state ss;
	struct strack_state st;
	struct dctcp_state dc;
	struct smartt_rel rel;
	struct smartt_crp_seg *crp;
	u64 crp_ans_ns;
};

/**
 * struct smartt_sock - a smartt transport socket
 * @inet: the inet socket (first)
 * @bind_node: in the netns port table
 * @port: bound transport port (0: not bound)
 * @closing: close() started: no new work, no timer re-arm
 * @peers: &struct smartt_peer list, least recently active first
 * @npeers: entries in @peers
 * @peer_hash: the peers again, by smartt_peer_lookup()'s hash
 * @peer_seed: that hash's seed, random per socket
 * @host_hash: the peers' hosts (&struct smartt_host), by the same seed
 * @msg_max: SMARTT_MSG_MAX
 * @timeout_ns: SMARTT_TIMEOUT_MS in ns
 * @cc: %SMARTT_CC_NONE or the &enum smartt_profile_id of @sp
 * @cc_algo: &enum smartt_cc_algo
 * @rel: SMARTT_RELIABILITY, &enum smartt_rel_mode
 * @ack_bytes: SMARTT_ACK_BYTES
 * @window: window of cc "none", bytes (0: SMARTT_WINDOW_SEGS segments)
 * @sp: SMaRTT core parameters (cc_algo SMARTT_CCA_SMARTT, else NULL)
 * @tp: STrack core parameters (cc_algo SMARTT_CCA_STRACK, else NULL)
 * @crp: CRP knobs (cc_algo SMARTT_CCA_CRP, else NULL)
 * @lb: path selector (SMARTT_LB) and its knobs, for new peers
 * @tx_queued: bytes of messages queued and not yet acknowledged
 * @compl_queued: truesize of the completions on the error queue, not yet
 *	read: they count against %SO_SNDBUF with @tx_queued
 * @rx_reserved: the peers' messages' reservations not yet used
 *	(&struct smartt_rx_msg.reserve), bytes
 * @rx_missing: payload bytes still missing of the messages being
 *	reassembled
 * @rx_wait_since: when a new message was first refused for want of
 *	receive buffer while others were being reassembled (ns, 0: none)
 * @rx_waiter: the host of the peer refused then (a token, never
 *	dereferenced)
 * @rx_grace_until: after an eviction, until when only @rx_grace_for may
 *	start a new message (ns, 0: no grace)
 * @rx_grace_for: the waiter's host the eviction was for (a token, as
 *	@rx_waiter)
 * @due: the peers with a deadline, earliest first (smartt_peer_due())
 * @timer: retransmission / timeout timer, pending by the earliest of @due
 *	and @rx_wait_since's deadline
 * @inet6: IPv6 state (must be last, see inet6_sk_generic())
 */
struct smartt_sock {
	struct inet_sock inet;
	struct hlist_node bind_node;
	u16 port;
	bool closing;
	struct list_head peers;
	u32 npeers;
	struct hlist_head peer_hash[1 << SMARTT_PEER_HASH_BITS];
	u32 peer_seed;
	struct hlist_head host_hash[1 << SMARTT_PEER_HASH_BITS];
	u32 msg_max;
	u64 timeout_ns;
	s8 cc;
	u8 cc_algo;
	u8 rel;
	u32 ack_bytes;
	u32 window;
	struct smartt_params *sp;
	struct strack_params *tp;
	struct smartt_crp_cfg *crp;
	struct smartt_lb_knobs lb;
	u64 tx_queued;
	atomic_t compl_queued;
	u64 rx_reserved;
	u64 rx_missing;
	u64 rx_wait_since;
	const void *rx_waiter;
	u64 rx_grace_until;
	const void *rx_grace_for;
	struct timerqueue_head due;
	struct timer_list timer;
	struct ipv6_pinfo inet6;
};

/* A peer's rcv_nxt as the peer's PSNs count (0: nothing received). */
static inline u64 smartt_rx_psn(const struct smartt_peer *p)
{
	return p->rx_rpdcid ? p->rcv_nxt - SMARTT_RX_BIAS : 0;
}

static inline struct smartt_sock *smartt_sk(const struct sock *sk)
{
	return (struct smartt_sock *)sk;
}

/* &struct smartt_skb_cb.trim: what the IP DSCP says of a packet. */
enum smartt_trim {
	SMARTT_TRIM_NONE = 0,
	SMARTT_TRIM_TRIMMED,		/* dscp_trimmed */
	SMARTT_TRIM_LASTHOP,		/* dscp_trimmed_lasthop */
	SMARTT_TRIM_SPEC_DROPPED,	/* dscp_crp_spec_dropped */
};

/**
 * struct smartt_skb_cb - what the receive path keeps in skb->cb
 * @saddr: source address
 * @offset: DATA in reassembly: offset in the message
 * @rx_ns: arrival time (ktime_get_ns() in the encapsulation socket)
 * @flow: IPv6 flow label of the packet (0 for IPv4)
 * @family: AF_INET or AF_INET6
 * @sport: source transport port (DATA: the SES initiator)
 * @usport: UDP source port of the packet (its entropy), network order
 * @lpdcid: ACK, NACK, CTRL: the local PDC id it was sent to
 * @ce: the IP header carried CE
 * @trim: &enum smartt_trim
 * @crp: a CRP control packet (crp_udp_port)
 */
struct smartt_skb_cb {
	union smartt_addr saddr;
	u64 offset;
	u64 rx_ns;
	u32 flow;
	u16 family;
	u16 sport;
	__be16 usport;
	u16 lpdcid;
	u8 ce;
	u8 trim;
	u8 crp;
};

#define SMARTT_SKB_CB(skb)	((struct smartt_skb_cb *)&((skb)->cb[0]))

#include "transport/pernet.h"

/* mem.c: receive memory accounting */
extern atomic_long_t smartt_memory_allocated;
DECLARE_PER_CPU(int, smartt_memory_per_cpu_fw_alloc);
extern long smartt_sysctl_mem[3];
extern int smartt_sysctl_rmem_min;
/*
 * A new message whose reservation exceeds both SO_RCVBUF and this many
 * times its length (segments far smaller than an MTU) is refused.
 */
#define SMARTT_RX_CHARGE_RATIO	3
u32 smartt_rx_seg_charge(u32 len);
u32 smartt_rx_head_charge(void);
u64 smartt_rx_msg_charge(u64 len, u32 seg);
bool smartt_rx_charge(struct sock *sk, struct sk_buff *skb, u32 extra);
bool smartt_rx_mem_room(const struct net *net, u64 bytes);
long smartt_mem_pages(void);
long smartt_net_mem_pages(const struct net *net);
int smartt_mem_net_init(struct net *net);
void smartt_mem_net_exit(struct net *net);
void smartt_mem_init(void);
void smartt_mem_exit(void);

/* proto.c */
struct sock *smartt_lookup(struct net *net, u16 port);
int smartt_pdc_add(struct net *net, struct smartt_peer *peer, bool tx);
void smartt_pdc_del(struct net *net, struct smartt_peer *peer, bool tx);
struct sock *smartt_pdc_find(struct net *net, u16 id, u16 *family,
			     union smartt_addr *addr);
struct smartt_peer *smartt_pdc_peer(struct sock *sk, u16 id, bool *tx);
int smartt_udp_get(struct net *net);
void smartt_udp_put(struct net *net);

/* procfs.c */
int smartt_procfs_init_net(struct net *net);
void smartt_procfs_exit_net(struct net *net);

/* sock.c */
int smartt_backlog_rcv(struct sock *sk, struct sk_buff *skb);
void smartt_peer_fail(struct sock *sk, struct smartt_peer *peer, int err);
bool smartt_msg_fail(struct sock *sk, struct smartt_peer *peer, u16 id, int err);
struct smartt_tx_msg *smartt_tx_msg_find(struct smartt_peer *peer, u16 id);
void smartt_msg_complete(struct sock *sk, struct smartt_peer *peer, struct smartt_tx_msg *m);
void smartt_peer_restart(struct sock *sk, struct smartt_peer *peer);
void smartt_snd_una_advance(struct smartt_peer *peer);
struct smartt_peer *smartt_peer_lookup(struct sock *sk, u16 family,
				       const union smartt_addr *a, u16 port);
int smartt_peer_tx_alloc(struct sock *sk, struct smartt_peer *peer);
struct smartt_peer *smartt_peer_get(struct sock *sk, u16 family,
				    const union smartt_addr *a, u16 port, gfp_t gfp);
bool smartt_msg_acked(struct smartt_tx_msg *m);
u64 smartt_idle_ns(const struct smartt_sock *ssk);
void smartt_peer_touch(struct sock *sk, struct smartt_peer *peer, u64 now);
void smartt_peer_charge(struct smartt_peer *peer, s64 bytes);
void smartt_peers_gc(struct sock *sk, u64 now);
void smartt_write_space(struct sock *sk);
extern struct proto smartt_prot;
extern struct proto smartt_prot6;
int smartt_sock_register(void);
void smartt_sock_unregister(void);

/* input.c */
int smartt_encap_rcv(struct sock *usk, struct sk_buff *skb);
void smartt_rx_advance(struct smartt_peer *peer, u64 to);
void smartt_rx_reset(struct sock *sk, struct smartt_peer *peer, u16 rpdcid, u64 base);
void smartt_rx_close(struct sock *sk, struct smartt_peer *peer);
void smartt_rcv(struct sock *sk, struct sk_buff *skb);
void smartt_rx_msg_free(struct sock *sk, struct smartt_peer *peer,
			struct smartt_rx_msg *m);

/* output.c */
int smartt_peer_route(struct net *net, struct smartt_peer *peer,
		      const union smartt_addr *saddr);
void smartt_push(struct sock *sk, struct smartt_peer *peer);
/**
 * struct smartt_ack_info - the packet an ACK or NACK answers
 * @psn: its PSN (extended)
 * @rx_ns: its arrival time (service_time runs from there)
 * @flow: its IPv6 flow label (the ACK's)
 * @usport: its UDP source port (the ACK's), network order
 * @ce: it carried CE
 * @retx: it was a retransmission
 * @probe: it was a PROBE: the ACK answers with %SMARTT_PDS_ACK_F_P
 * @opaque: the PROBE's probe_opaque
 * @rsp_rc: the SES response the ACK carries: its return code
 *	(%SMARTT_SES_RC_NULL: none)
 * @rsp_id: the response's message id
 * @rsp_len: the response's message length
 */
struct smartt_ack_info {
	u64 psn;
	u64 rx_ns;
	u32 flow;
	__be16 usport;
	bool ce;
	bool retx;
	bool probe;
	u16 opaque;
	u8 rsp_rc;
	u16 rsp_id;
	u32 rsp_len;
};

void smartt_send_ack(struct sock *sk, struct smartt_peer *peer,
		     const struct smartt_ack_info *ai);
void smartt_send_nack(struct sock *sk, struct smartt_peer *peer,
		      const struct smartt_ack_info *ai, u8 code, u8 vendor);
void smartt_send_error(struct net *net, struct sock *usk, struct sk_buff *skb,
		       const struct smartt_data_hdr *dh, u8 rc);
bool smartt_skb_not_unicast(const struct sk_buff *skb);
u16 smartt_reply_addrs(const struct sk_buff *in, union smartt_addr *src,
		       union smartt_addr *dst);
bool smartt_reply_allow(struct net *net, const struct sk_buff *in);
bool smartt_crp_reply_allow(struct net *net, const struct sk_buff *in);
void smartt_send_error_peer(struct sock *sk, struct smartt_peer *peer, u64 msg_id,
			    u8 rc);
void smartt_send_nack_inv(struct net *net, struct sk_buff *in,
			  const struct smartt_data_hdr *dh);
void smartt_send_nack_inv_ack(struct net *net, struct sk_buff *in,
			      const struct smartt_pds_ack *ah);
void smartt_err_ratelimit_set(struct smartt_net *sn, u32 ms);
struct smartt_hdr *smartt_build_hdr(struct sk_buff *skb, u8 type, u32 hlen,
				    u32 entropy, u64 psn, u32 payload);

/**
 * struct smartt_tx_opts - how smartt_xmit() sends a packet
 * @entropy: path entropy: the IPv6 flow label, and the UDP source port
 *	through net.smartt.transport_sport_base/_range unless @usport is set
 * @usport: UDP source port to use as is, network order (0: from @entropy)
 * @dport: UDP destination port (0: udp_port)
 * @dscp: the IP DSCP
 * @ect: mark the packet ECT(0)
 * @crc: append the CRC32C trailer (every UET packet; not CRP's)
 * @tstamp: departure time, an EDT stamp on CLOCK_MONOTONIC (0: now)
 */
struct smartt_tx_opts {
	u32 entropy;
	__be16 usport;
	__be16 dport;
	u8 dscp;
	bool ect;
	bool crc;
	u64 tstamp;
};

int smartt_xmit(struct net *net, struct sock *usk, u16 family,
		struct dst_cache *cache, const union smartt_addr *saddr,
		const union smartt_addr *daddr, struct sk_buff *skb,
		const struct smartt_tx_opts *o);

/* ses.c: end-to-end completion (SES responses) */
struct smartt_rx_done *smartt_rx_done_find(struct smartt_peer *peer, u64 id);
void smartt_rx_done_add(struct sock *sk, struct smartt_peer *peer, u64 id, u64 psn_hi,
			u32 len, u8 rc);
void smartt_rx_done_clear(struct smartt_peer *peer, u64 clear);
void smartt_rx_done_purge(struct smartt_peer *peer);
void smartt_rx_done_rsp(const struct smartt_rx_done *d, struct smartt_ack_info *ai);
int smartt_ses_errno(u8 rc, enum smartt_stat *why);
void smartt_rsp_rcv(struct sock *sk, struct smartt_peer *peer, const struct smartt_ses_rsp *r);
u32 smartt_rsp_query(struct sock *sk, struct smartt_peer *peer);
void smartt_rsp_timer(struct sock *sk, struct smartt_peer *peer, u64 now);

/* timer.c */
void smartt_timer_fn(struct timer_list *t);
void smartt_timer_arm(struct sock *sk);
void smartt_timer_arm_at(struct sock *sk, u64 at);
void smartt_peer_due(struct sock *sk, struct smartt_peer *peer, u64 at);
void smartt_peer_due_unlink(struct sock *sk, struct smartt_peer *peer);
void smartt_peers_due_reset(struct sock *sk);
void smartt_on_rto(struct sock *sk, struct smartt_peer *peer, u64 now);

/* cc.c: the congestion-control dispatch and the RTT estimator */

/**
 * struct smartt_cc_sample - what one ACK or NACK tells the congestion control
 * @now: time, ns
 * @rtt: RTT sample, ns (0: none)
 * @bytes: bytes newly acknowledged (ACK), or the trimmed packet's (NACK)
 * @in_flight: bytes in flight after the ACK
 * @ecn: the triggering packet carried CE
 * @nack: a NACK (trimmed packet)
 */
struct smartt_cc_sample {
	u64 now;
	u32 rtt;
	u32 bytes;
	u64 in_flight;
	bool ecn;
	bool nack;
};

int smartt_cc_set(struct sock *sk, sockptr_t optval, unsigned int optlen);
int smartt_cc_valid_name(const char *name);
int smartt_cc_set_default(struct sock *sk);
const char *smartt_cc_name(const struct smartt_sock *ssk);
void smartt_cc_peer_init(struct smartt_sock *ssk, struct smartt_peer *p);
u32 smartt_cc_ack(struct sock *sk, struct smartt_peer *peer,
		  const struct smartt_cc_sample *cs);
void smartt_cc_timeout(struct sock *sk, struct smartt_peer *peer, u64 now);
void smartt_cc_release(struct smartt_sock *ssk);
void smartt_rtt_sample(struct smartt_peer *peer, u64 rtt_ns);

/* reliab.c: the reliability modes */
bool smartt_rel_strack(const struct smartt_sock *ssk);
int smartt_rel_set(struct sock *sk, sockptr_t optval, unsigned int optlen);
const char *smartt_rel_name(const struct smartt_sock *ssk);
bool smartt_rel_data_ar(struct sock *sk, struct smartt_peer *peer, u64 psn, bool rtx);
void smartt_rel_data_ack(struct sock *sk, struct smartt_peer *peer,
			 const struct smartt_ack_info *ai, bool ar, u32 plen,
			 u64 old_rcv_nxt);
void smartt_rel_ack_sent(struct smartt_peer *peer);
void smartt_rel_on_ack(struct sock *sk, struct smartt_peer *peer, bool probe,
		       u16 opaque, u32 ooo, u64 highest, u64 rtt, bool progress,
		       u64 now);
void smartt_rel_on_rto(struct sock *sk, struct smartt_peer *peer);
void smartt_rel_sent(struct sock *sk, struct smartt_peer *peer, u64 now);
u64 smartt_rel_rto_min(const struct sock *sk, const struct smartt_peer *peer);
int smartt_rcv_probe(struct sock *sk, struct smartt_peer *peer, struct sk_buff *skb);
u64 smartt_rel_deadline(const struct sock *sk, const struct smartt_peer *peer);
void smartt_rel_timer(struct sock *sk, struct smartt_peer *peer, u64 now);
bool smartt_rel_acked(struct sock *sk, struct smartt_peer *peer, u64 rcv_nxt,
		      u64 sack_base, u64 sack, u64 *acked, u64 *highest);
u32 smartt_rel_losses(struct sock *sk, struct smartt_peer *peer, u64 nack_psn,
		      u64 highest, u64 now);
void smartt_trace_loss(struct sock *sk, struct smartt_peer *peer, u64 psn, u8 why);
void smartt_trace_rtx(struct sock *sk, struct smartt_peer *peer, u64 psn);

/* Why a packet was declared lost (tracepoint smartt_loss). */
#define SMARTT_LOSS_NACK	0
#define SMARTT_LOSS_SACK	1
#define SMARTT_LOSS_OOO		2
#define SMARTT_LOSS_PROBE	3
#define SMARTT_LOSS_RTO		4

/* crp.c: cc "crp", the CRP requests, grants and retries */
extern const struct smartt_crp_cfg smartt_crp_defaults;
int smartt_crp_cfg_parse(const char *text, struct smartt_crp_cfg *c);
int smartt_crp_valid(const struct sk_buff *skb);
void smartt_crp_rcv(struct sock *sk, struct sk_buff *skb);
bool smartt_crp_tx(struct sock *sk, struct smartt_peer *peer, struct smartt_tx_msg *m,
		   u32 seg, u64 psn, bool rtx, u64 now, u8 *dscp_class, u64 *tstamp);
int smartt_crp_encap_rcv(struct sock *usk, struct sk_buff *skb);
void smartt_crp_spec_drop(struct sock *sk, struct smartt_peer *peer, u64 psn);
void smartt_crp_reset(struct smartt_peer *peer);
void smartt_crp_msg_gone(struct smartt_peer *peer, u64 msg_id);
u64 smartt_crp_deadline(const struct smartt_peer *peer);
void smartt_crp_timer(struct sock *sk, struct smartt_peer *peer, u64 now);

/* ctl.c */
int smartt_knob_next(char **p, char **name, char **val);
int smartt_ctl_net_init(struct net *net);
void smartt_ctl_net_exit(struct net *net);
int smartt_ctl_set_lb(struct sock *sk, sockptr_t optval, unsigned int optlen);
int smartt_ctl_get_lb(struct sock *sk, char __user *optval, int __user *optlen);
int smartt_ctl_get_info(struct sock *sk, char __user *optval, int __user *optlen);

/* path.c */
void smartt_path_sock_init(struct sock *sk);
void smartt_path_set_kind(struct sock *sk, u32 kind);
int smartt_path_fill_info(const struct smartt_peer *peer, struct smartt_path_info *pi);
int smartt_path_init(struct sock *sk, struct smartt_peer *peer, gfp_t gfp);
void smartt_path_free(struct smartt_peer *peer);
u32 smartt_path_next(struct sock *sk, struct smartt_peer *peer, u64 psn, u32 len,
		     bool rtx);
/* &smartt_path_on_ack() feedback kinds */
enum smartt_path_ack {
	SMARTT_PATH_ACK,		/* an ACK */
	SMARTT_PATH_NACK,		/* a trim NACK, not at the last hop */
	SMARTT_PATH_NACK_LASTHOP,	/* a trim NACK at the last hop */
	SMARTT_PATH_NACK_SPEC,		/* a CRP speculative packet trimmed after TTW */
};

void smartt_path_on_ack(struct sock *sk, struct smartt_peer *peer,
			enum smartt_path_ack kind, bool ecn, u32 ev, u32 cc_rules,
			u64 now);
void smartt_path_on_lost(struct sock *sk, struct smartt_peer *peer, u32 entropy,
			 u64 now);
void smartt_path_on_rto(struct sock *sk, struct smartt_peer *peer, u64 now);
__be16 smartt_path_sport(struct net *net, u32 entropy);

#endif /* SMARTT_TRANSPORT_H */
