/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * smartt: SMaRTT/STrack congestion control and REPS multipath transport.
 *
 * User-space API.  Everything here is shared by the module, the userspace
 * tools and the BPF programs; it only uses fixed-size __u types with explicit
 * padding so that the layout is the same on every ABI.
 */
#ifndef _UAPI_LINUX_SMARTT_H
#define _UAPI_LINUX_SMARTT_H

#include <linux/types.h>

/**
 * IPPROTO_SMARTT - protocol number of the smartt datagram transport.
 *
 * Taken from the experimental range of RFC 3692; the transport itself is
 * carried over UDP, this number only selects the socket type in socket(2).
 */
#define IPPROTO_SMARTT		253

/** SMARTT_UDP_PORT_DEFAULT - UDP port of the encapsulation (UEC's port). */
#define SMARTT_UDP_PORT_DEFAULT	4793

/**
 * SMARTT_MAGIC - first two bytes of every smartt header (ASCII "St").
 *
 * Together with the UDP destination port it lets switches and the NIC
 * timestamp programs tell a smartt packet from other UDP traffic.
 */
#define SMARTT_MAGIC		0x5374

/** SMARTT_WIRE_VERSION - wire version carried in &struct smartt_hdr.version. */
#define SMARTT_WIRE_VERSION		1

/**
 * enum smartt_pkt_type - value of &struct smartt_hdr.type.
 * @SMARTT_PKT_DATA: data segment; the only type that queues behind data at
 *	a switch port and the only type a switch may trim.
 * @SMARTT_PKT_ACK: (selective) acknowledgment.
 * @SMARTT_PKT_NACK: negative acknowledgment, sent for a trimmed packet.
 * @SMARTT_PKT_PROBE: probe for loss recovery or path exploration.
 * @SMARTT_PKT_PROBE_ACK: answer to a probe (an ACK, sent at once).
 * @SMARTT_PKT_CTRL: any other control packet of the transport.
 * @SMARTT_PKT_CRP_REQ: CRP reservation request (&struct smartt_crp_ext);
 *	the fabric's switch ports AND their availability into it, the
 *	destination's last-hop port writes the decision into it.
 * @SMARTT_PKT_CRP_GRANT: CRP grant, the decided request reflected by its
 *	destination; switch ports settle it in their tables on the way back.
 * @SMARTT_PKT_CRP_RETRY: CRP retry: no common slot, or a grant a switch
 *	port could no longer hold (%SMARTT_CRP_CONVERTED).
 * @SMARTT_PKT_MAX: one past the last valid type.
 *
 * Every type except %SMARTT_PKT_DATA is a control packet: switches forward
 * it in the high-priority class that bypasses the data queue.  The
 * transport's cc "crp" sends the CRP requests and takes the grants and
 * retries; every transport socket answers requests.
 */
enum smartt_pkt_type {
	SMARTT_PKT_DATA		= 1,
	SMARTT_PKT_ACK		= 2,
	SMARTT_PKT_NACK		= 3,
	SMARTT_PKT_PROBE	= 4,
	SMARTT_PKT_PROBE_ACK	= 5,
	SMARTT_PKT_CTRL		= 6,
	SMARTT_PKT_CRP_REQ	= 7,
	SMARTT_PKT_CRP_GRANT	= 8,
	SMARTT_PKT_CRP_RETRY	= 9,
	SMARTT_PKT_MAX,
};

/* Bits of &struct smartt_hdr.flags (host byte order values). */
/** SMARTT_F_TRIMMED - a switch cut the payload off this packet. */
#define SMARTT_F_TRIMMED	0x0001
/** SMARTT_F_TRIM_LAST_HOP - the trim happened on a host-facing port. */
#define SMARTT_F_TRIM_LAST_HOP	0x0002
/** SMARTT_F_ACK_REQ - the sender asks for an immediate ACK (UEC "AR"). */
#define SMARTT_F_ACK_REQ	0x0004
/** SMARTT_F_ECN_ECHO - ACK/NACK: the acknowledged packet carried CE. */
#define SMARTT_F_ECN_ECHO	0x0008
/** SMARTT_F_RTX - this packet is a retransmission. */
#define SMARTT_F_RTX		0x0010
/** SMARTT_F_TX_TS - &struct smartt_hdr.tx_ts_ns was written by the NIC. */
#define SMARTT_F_TX_TS		0x0020
/** SMARTT_F_RX_TS - &struct smartt_hdr.rx_ts_ns was written by the NIC. */
#define SMARTT_F_RX_TS		0x0040
/**
 * SMARTT_F_CRP_SPEC - CRP: DATA sent speculatively, without a grant; it
 * queues behind every other class, &struct smartt_hdr.reserved2 carries
 * its cumulative queueing time (ns) and switches trim it after TTW.
 */
#define SMARTT_F_CRP_SPEC	0x0080
/** SMARTT_F_CRP_GRANTED - CRP: DATA sent under a grant (reserved bytes). */
#define SMARTT_F_CRP_GRANTED	0x0100
/**
 * SMARTT_F_CRP_SPEC_DROP - CRP: a switch trimmed this speculative packet
 * because its cumulative queueing passed TTW (set with %SMARTT_F_TRIMMED).
 */
#define SMARTT_F_CRP_SPEC_DROP	0x0200

/**
 * struct smartt_hdr - common header of every smartt packet.
 * @magic: %SMARTT_MAGIC, big endian.
 * @version: %SMARTT_WIRE_VERSION.
 * @type: one of &enum smartt_pkt_type.
 * @flags: %SMARTT_F_* bits, big endian.
 * @trim_ttl: IPv4 TTL or IPv6 hop limit of the packet at the switch port
 *	that trimmed it (0 if not trimmed); the receiver compares it with the
 *	value it sees to count the hops after the trim.
 * @hdr_words: length of the smartt headers in 8-byte words, this common
 *	header included (8 for a packet with no extension).
 * @entropy: path entropy chosen by the sender (big endian).  The sender
 *	also puts it in the IPv6 flow label (20 low bits) or, for IPv4, in the
 *	UDP source port, which is what the switches hash on.
 * @conn_id: connection identifier at the receiver (big endian).
 * @psn: per-packet sequence number (big endian).  For ACK and NACK, the
 *	sequence number of the packet that triggered it.
 * @payload_len: bytes of payload after the smartt headers as sent (big
 *	endian); unchanged by trimming, so a receiver knows what was cut.
 * @reserved: zero on send, ignored on receive.
 * @reserved2: zero on send, ignored on receive; in DATA flagged
 *	%SMARTT_F_CRP_SPEC, the cumulative queueing time in ns the switch
 *	ports added (big endian, saturating).
 * @tx_ts_ns: departure time from the sender's NIC in nanoseconds of the
 *	sender's clock (big endian), written by the egress timestamp program
 *	when %SMARTT_F_TX_TS is set.
 * @rx_ts_ns: arrival time at the receiver's NIC in nanoseconds of the
 *	receiver's clock (big endian), written by the ingress timestamp program
 *	when %SMARTT_F_RX_TS is set.
 * @echo_tx_ts_ns: ACK/NACK/PROBE_ACK: @tx_ts_ns of the packet acknowledged.
 * @echo_rx_ts_ns: ACK/NACK/PROBE_ACK: @rx_ts_ns of the packet acknowledged.
 *
 * Carried right after the UDP header (destination port
 * %SMARTT_UDP_PORT_DEFAULT).  All multi-byte fields are big endian.  The
 * sender measures RTT without host delays as
 * (ack rx_ts_ns - echo_tx_ts_ns) - (ack tx_ts_ns - echo_rx_ts_ns).
 */
struct smartt_hdr {
	__be16	magic;
	__u8	version;
	__u8	type;
	__be16	flags;
	__u8	trim_ttl;
	__u8	hdr_words;
	__be32	entropy;
	__be32	conn_id;
	__be64	psn;
	__be16	payload_len;
	__be16	reserved;
	__be32	reserved2;
	__be64	tx_ts_ns;
	__be64	rx_ts_ns;
	__be64	echo_tx_ts_ns;
	__be64	echo_rx_ts_ns;
};

/** SMARTT_HDR_LEN - sizeof(struct smartt_hdr), for size assertions. */
#define SMARTT_HDR_LEN		64

/* &struct smartt_crp_ext.crp_flags (host byte order values). */
/** SMARTT_CRP_DEST_DONE - the destination's last-hop port decided. */
#define SMARTT_CRP_DEST_DONE	0x0001
/** SMARTT_CRP_NO_SLOT - no slot common to every table: retry after R. */
#define SMARTT_CRP_NO_SLOT	0x0002
/** SMARTT_CRP_DEST_FULL - the destination holds the size in no slot. */
#define SMARTT_CRP_DEST_FULL	0x0004
/** SMARTT_CRP_CONVERTED - a switch port turned the grant into a retry. */
#define SMARTT_CRP_CONVERTED	0x0008

/**
 * struct smartt_crp_ext - extension of the CRP packets (%SMARTT_PKT_CRP_REQ,
 *	%SMARTT_PKT_CRP_GRANT, %SMARTT_PKT_CRP_RETRY), right after the common
 *	header; &struct smartt_hdr.hdr_words is then at least
 *	%SMARTT_CRP_HLEN / 8.
 * @sport: transport port of the sending socket (the transport's addressing)
 * @dport: transport port of the destination socket
 * @epoch: the sender's epoch for this peer
 * @msg_id: message the reservation is for
 * @seg_off: offset of the reserved segment in the message, bytes
 * @seg_len: payload bytes of the segment
 * @req_bytes: bytes to reserve in every table (the segment's wire bytes
 *	with epsilon), 1 to 2 x C_max of the smallest table on the way
 * @tag: the flow's tag for eager reservations (0 = none)
 * @crp_flags: %SMARTT_CRP_* bits
 * @retries: how often the source asked for this segment before
 * @slot_base: absolute slot (CLOCK_MONOTONIC ns / slot_ns) of bit 0 of
 *	@vec; a switch port moves it (and @vec) on to its current slot
 * @vec: bit i: slot @slot_base + i can hold the reservation in every table
 *	passed so far; all ones (as many as the tables' cells) when sent
 * @grant_slot: %SMARTT_CRP_DEST_DONE without NO_SLOT/DEST_FULL: the
 *	absolute slot the reservation starts in
 * @grant_offset: bytes of capacity from the start of @grant_slot to the
 *	reservation's start
 * @retry_after_ns: a retry: the wait the deciding port proposes, ns (R;
 *	for DEST_FULL the tables' look-ahead, from which the source subtracts
 *	its RTT)
 * @grant_ns: the reservation's start on the shared clock, ns
 *
 * Every multi-byte field is big endian.  A grant or retry is the decided
 * request with its type changed, the addresses swapped and everything
 * else copied.
 */
struct smartt_crp_ext {
	__be16	sport;
	__be16	dport;
	__be32	epoch;
	__be64	msg_id;
	__be64	seg_off;
	__be32	seg_len;
	__be32	req_bytes;
	__be32	tag;
	__be16	crp_flags;
	__be16	retries;
	__be64	slot_base;
	__be64	vec;
	__be64	grant_slot;
	__be32	grant_offset;
	__be32	retry_after_ns;
	__be64	grant_ns;
};

/** SMARTT_CRP_EXT_LEN - sizeof(struct smartt_crp_ext). */
#define SMARTT_CRP_EXT_LEN	80
/** SMARTT_CRP_HLEN - the common header and the CRP extension, bytes. */
#define SMARTT_CRP_HLEN		(SMARTT_HDR_LEN + SMARTT_CRP_EXT_LEN)

/*
 * The smartt datagram transport: socket(AF_INET or AF_INET6, SOCK_DGRAM,
 * IPPROTO_SMARTT).  See smartt(7) and Documentation/transport.rst.
 */

/** SOL_SMARTT - socket option and control message level of the transport. */
#define SOL_SMARTT		IPPROTO_SMARTT

/*
 * Socket options at level %SOL_SMARTT (all take an int or a __u32 unless
 * stated otherwise; a bad value fails with EINVAL and changes nothing).
 */
/** SMARTT_MSG_MAX - largest message, bytes, sent or accepted (default 64 MiB). */
#define SMARTT_MSG_MAX		1
/** SMARTT_TIMEOUT_MS - a peer that acknowledges nothing for this long fails. */
#define SMARTT_TIMEOUT_MS	2
/**
 * SMARTT_CC - congestion control, a string: "none" (fixed window), a
 * SMaRTT profile, "smartt", "smartt-2024" or "nscc", "strack", "dctcp"
 * (ECN only, DCTCP-style) or "crp" (CRP channel reservation under a fixed
 * window).  New sockets start
 * with the sysctl net.smartt.transport_cc (default "none").
 */
#define SMARTT_CC		3
/**
 * SMARTT_WINDOW - window of cc "none" in bytes (default 64 segments), and
 * the bound of cc "dctcp"'s window.
 */
#define SMARTT_WINDOW		4
/** SMARTT_PEER_INFO - getsockopt: &struct smartt_peer_info of one peer. */
#define SMARTT_PEER_INFO	5
/**
 * SMARTT_RELIABILITY - loss recovery, a string: "sack" (an ACK per DATA
 * packet, loss = 3 newer PSNs SACKed) or "strack" (coalesced ACKs; loss
 * from the receiver's out-of-order count, probes, RTO).  Default: "strack"
 * when %SMARTT_CC is "strack", "sack" otherwise; setting it overrides the
 * default until the socket is closed.  Trimmed packets are NACKed in both.
 */
#define SMARTT_RELIABILITY	6
/**
 * SMARTT_ACK_BYTES - "strack" reliability, receiver: acknowledge at the
 * latest after this many payload bytes (0: every packet; at most
 * %SMARTT_ACK_BYTES_MAX; default %SMARTT_ACK_BYTES_DEFAULT).
 */
#define SMARTT_ACK_BYTES	7
/**
 * SMARTT_LB - path selector, a string: "reps" (default, from the sysctl
 * net.smartt.transport_lb), "reps-single", "strack-bitmap", "oblivious" or
 * "ecmp".  Setting it restarts the selector of every peer of the socket.
 */
#define SMARTT_LB		8
/** SMARTT_PATH_INFO - getsockopt: &struct smartt_path_info of one peer. */
#define SMARTT_PATH_INFO	9

/** SMARTT_MSG_MAX_DEFAULT - default of %SMARTT_MSG_MAX: 64 MiB. */
#define SMARTT_MSG_MAX_DEFAULT	(64U << 20)
/** SMARTT_MSG_MAX_LIMIT - largest value %SMARTT_MSG_MAX accepts: 1 GiB. */
#define SMARTT_MSG_MAX_LIMIT	(1024U << 20)
/** SMARTT_TIMEOUT_MS_DEFAULT - default of %SMARTT_TIMEOUT_MS: 10 s. */
#define SMARTT_TIMEOUT_MS_DEFAULT	10000U
/** SMARTT_TIMEOUT_MS_MAX - largest %SMARTT_TIMEOUT_MS: one hour. */
#define SMARTT_TIMEOUT_MS_MAX	3600000U
/** SMARTT_CC_NAME_MAX - size of a congestion control name, with its NUL. */
#define SMARTT_CC_NAME_MAX	16
/** SMARTT_REL_NAME_MAX - size of a %SMARTT_RELIABILITY name, with its NUL. */
#define SMARTT_REL_NAME_MAX	16
/** SMARTT_ACK_BYTES_DEFAULT - default of %SMARTT_ACK_BYTES (uet-htsim's). */
#define SMARTT_ACK_BYTES_DEFAULT	16384U
/** SMARTT_ACK_BYTES_MAX - largest %SMARTT_ACK_BYTES: 1 MiB. */
#define SMARTT_ACK_BYTES_MAX	(1024U * 1024U)
/** SMARTT_LB_NAME_MAX - size of a path selector name, with its NUL. */
#define SMARTT_LB_NAME_MAX	16
/** SMARTT_PATH_BUCKETS - entries of the per-entropy histograms (entropy % 256). */
#define SMARTT_PATH_BUCKETS	256

/* Control messages at level %SOL_SMARTT. */
/**
 * SMARTT_CMSG_COOKIE - sendmsg: a __u64 chosen by the application; the
 * message then gets a completion on the error queue.
 */
#define SMARTT_CMSG_COOKIE	1
/**
 * SMARTT_CMSG_COMPLETION - recvmsg(MSG_ERRQUEUE): a &struct
 * smartt_completion.
 */
#define SMARTT_CMSG_COMPLETION	2

/**
 * struct smartt_completion - a message with a cookie finished.
 * @cookie: the value passed with %SMARTT_CMSG_COOKIE.
 * @msg_len: length of the message, bytes.
 * @status: 0 when the peer acknowledged every byte, otherwise a negative
 *	errno: -ECONNREFUSED (no socket on the destination port), -ETIMEDOUT
 *	(the peer acknowledged nothing for %SMARTT_TIMEOUT_MS, or the receiver
 *	freed the message after getting nothing of it for its own
 *	%SMARTT_TIMEOUT_MS), -EMSGSIZE (the receiver's %SMARTT_MSG_MAX is
 *	smaller, or the segments too small for the length), -ENOBUFS (the
 *	receiver freed the message: its sender held the most of the receive
 *	buffer while another waited), -ECONNRESET (socket closed).
 * @reserved: zero.
 * @fct_ns: flow completion time: from sendmsg() to the last
 *	acknowledgment (or to the failure), nanoseconds.
 */
struct smartt_completion {
	__u64	cookie;
	__u64	msg_len;
	__s32	status;
	__u32	reserved;
	__u64	fct_ns;
};

/** SMARTT_COMPLETION_LEN - sizeof(struct smartt_completion). */
#define SMARTT_COMPLETION_LEN	32

/**
 * struct smartt_peer_info - getsockopt(%SMARTT_PEER_INFO) of one peer.
 * @addr: in: the peer (struct sockaddr_in or sockaddr_in6, port = the
 *	peer's transport port); unchanged on output.
 * @srtt_us: smoothed RTT, microseconds (0 before the first sample).
 * @rttvar_us: RTT variation, microseconds.
 * @rto_us: current retransmission timeout, microseconds.
 * @cwnd: congestion window, bytes.
 * @in_flight: bytes sent and not acknowledged.
 * @mss: payload bytes per packet.
 * @tx_msgs: messages queued and not yet acknowledged.
 * @rx_msgs: messages being reassembled.
 * @reserved: zero.
 * @snd_una: lowest unacknowledged packet sequence number.
 * @snd_nxt: next packet sequence number.
 * @rcv_nxt: next expected packet sequence number from the peer.
 * @retransmits: packets retransmitted to the peer.
 * @rtos: retransmission timeouts.
 */
struct smartt_peer_info {
	__u8	addr[28];
	__u32	srtt_us;
	__u32	rttvar_us;
	__u32	rto_us;
	__u64	cwnd;
	__u64	in_flight;
	__u32	mss;
	__u32	tx_msgs;
	__u32	rx_msgs;
	__u32	reserved;
	__u64	snd_una;
	__u64	snd_nxt;
	__u64	rcv_nxt;
	__u64	retransmits;
	__u64	rtos;
};

/** SMARTT_PEER_INFO_LEN - sizeof(struct smartt_peer_info). */
#define SMARTT_PEER_INFO_LEN	112

/**
 * struct smartt_path_info - getsockopt(%SMARTT_PATH_INFO): the path
 * selector of one peer and what it did.
 * @addr: in: the peer, as in &struct smartt_peer_info; unchanged on output.
 * @paths: entropies the selector draws from.
 * @lb: the selector's name (%SMARTT_LB), NUL-terminated.
 * @tx_pkts: DATA packets sent, retransmissions included.
 * @freezes: times REPS froze its cache (a timeout).
 * @unfreezes: times a REPS freeze ended.
 * @ecn_noop: ECN echoes with an RTT under the target: the congestion
 *	control left the window alone and only the path changed.
 * @tx: DATA packets sent per entropy % %SMARTT_PATH_BUCKETS.
 * @ecn: ECN feedback per entropy % %SMARTT_PATH_BUCKETS.
 * @nack: trims not at the last hop (NACK feedback) per entropy bucket.
 * @timeout: packets in flight at a retransmission timeout, per entropy
 *	bucket.
 * @lost: packets declared lost by SACK, the out-of-order count or a probe
 *	(no timeout), per entropy bucket.  Added after the first version:
 *	a caller whose buffer ends before it gets the fields before it.
 *
 * The counters start when the peer's selector does (socket option
 * %SMARTT_LB restarts them); the per-bucket counters wrap at 2^32.
 */
struct smartt_path_info {
	__u8	addr[28];
	__u32	paths;
	char	lb[SMARTT_LB_NAME_MAX];
	__u64	tx_pkts;
	__u64	freezes;
	__u64	unfreezes;
	__u64	ecn_noop;
	__u32	tx[SMARTT_PATH_BUCKETS];
	__u32	ecn[SMARTT_PATH_BUCKETS];
	__u32	nack[SMARTT_PATH_BUCKETS];
	__u32	timeout[SMARTT_PATH_BUCKETS];
	__u32	lost[SMARTT_PATH_BUCKETS];
};

/** SMARTT_PATH_INFO_LEN - sizeof(struct smartt_path_info). */
#define SMARTT_PATH_INFO_LEN	5200
/** SMARTT_PATH_INFO_LEN_MIN - the first version's size, without @lost. */
#define SMARTT_PATH_INFO_LEN_MIN	4176

#endif /* _UAPI_LINUX_SMARTT_H */
