/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt transport wire format: the extension headers that follow the
 * common &struct smartt_hdr (uAPI) in DATA, ACK, NACK, PROBE, PROBE_ACK and
 * CTRL packets.
 * Documented in Documentation/protocol.rst; every multi-byte field is big
 * endian.  The sizes are ABI and asserted in smartt_wire_checks().
 */
#ifndef SMARTT_TRANSPORT_WIRE_H
#define SMARTT_TRANSPORT_WIRE_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <linux/smartt.h>

/**
 * struct smartt_xhdr - transport addressing, first in every extension
 * @sport: transport port of the sending socket
 * @dport: transport port of the destination socket
 * @epoch: DATA: the sender's epoch for this peer (random, non-zero, new
 *	whenever the sender's per-peer state is created); ACK, NACK, CTRL:
 *	the epoch of the DATA packet answered
 */
struct smartt_xhdr {
	__be16	sport;
	__be16	dport;
	__be32	epoch;
};

/**
 * struct smartt_data_ext - extension of %SMARTT_PKT_DATA
 * @x: addressing
 * @msg_id: message number, per sender epoch
 * @msg_len: length of the whole message, bytes
 * @offset: offset of this segment's payload in the message, a multiple of
 *	@seg_size
 * @seg_size: payload bytes of every segment of the message but the last
 * @reserved: zero
 * @snd_una: the sender's lowest unacknowledged PSN: every PSN below it was
 *	acknowledged, a receiver with fresh state starts there
 * @tx_time: the sender's clock when it sent the packet (ns), echoed in
 *	the ACK (RTT without NIC timestamps)
 */
struct smartt_data_ext {
	struct smartt_xhdr x;
	__be64	msg_id;
	__be64	msg_len;
	__be64	offset;
	__be32	seg_size;
	__be32	reserved;
	__be64	snd_una;
	__be64	tx_time;
};

/* SACK bitmap: bit i (of 64-bit word i / 64, LSB first) is PSN cum + 1 + i */
#define SMARTT_SACK_BITS	256
#define SMARTT_SACK_WORDS	(SMARTT_SACK_BITS / 64)

/**
 * struct smartt_ack_ext - extension of %SMARTT_PKT_ACK and %SMARTT_PKT_NACK
 * @x: addressing (epoch of the acknowledged data)
 * @ack_entropy: entropy of the packet that triggered this ACK/NACK
 * @ooo: PSNs received above @cum_psn (the receiver's out-of-order count;
 *	0 from senders of this format before it was defined, which wrote a
 *	reserved zero here)
 * @cum_psn: every PSN below this was received
 * @rcv_bytes: payload bytes the receiver accepted from this epoch
 * @echo_tx_time: &struct smartt_data_ext.tx_time of the triggering packet
 * @sack: bitmap of PSNs received above @cum_psn (see %SMARTT_SACK_BITS)
 *
 * The triggering packet's PSN is in &struct smartt_hdr.psn; its CE mark is
 * %SMARTT_F_ECN_ECHO.  A NACK names a trimmed packet, not yet received.
 * %SMARTT_PKT_PROBE_ACK has the same extension and answers a PROBE: the
 * PSN and the echoed times are the probe's.
 */
struct smartt_ack_ext {
	struct smartt_xhdr x;
	__be32	ack_entropy;
	__be32	ooo;
	__be64	cum_psn;
	__be64	rcv_bytes;
	__be64	echo_tx_time;
	__be64	sack[SMARTT_SACK_WORDS];
};

/**
 * struct smartt_probe_ext - extension of %SMARTT_PKT_PROBE
 * @x: addressing (the sender's epoch, as in DATA)
 * @snd_una: the sender's lowest unacknowledged PSN (as in DATA)
 * @tx_time: the sender's clock when it sent the probe (ns), echoed
 *
 * &struct smartt_hdr.psn is the SACK base the sender asks for (its
 * snd_una).  The receiver answers at once with %SMARTT_PKT_PROBE_ACK.
 */
struct smartt_probe_ext {
	struct smartt_xhdr x;
	__be64	snd_una;
	__be64	tx_time;
};

/**
 * enum smartt_err_code - &struct smartt_ctrl_ext.code
 * @SMARTT_ERR_PORT_UNREACH: no socket is bound to the destination port
 * @SMARTT_ERR_MSG_SIZE: the message is larger than the receiver accepts
 *	(SMARTT_MSG_MAX), or its segments too small for its length
 * @SMARTT_ERR_EXPIRED: the receiver freed the partial message: no new
 *	segment came for its SMARTT_TIMEOUT_MS
 * @SMARTT_ERR_NOBUFS: the receiver freed the partial message: its sender
 *	held the most of the receive buffer while another waited too long
 */
enum smartt_err_code {
	SMARTT_ERR_PORT_UNREACH	= 1,
	SMARTT_ERR_MSG_SIZE	= 2,
	SMARTT_ERR_EXPIRED	= 3,
	SMARTT_ERR_NOBUFS	= 4,
};

/**
 * struct smartt_ctrl_ext - extension of %SMARTT_PKT_CTRL (an error)
 * @x: addressing (epoch of the DATA packet answered)
 * @code: &enum smartt_err_code
 * @reserved: zero
 * @msg_id: message of the DATA packet answered
 */
struct smartt_ctrl_ext {
	struct smartt_xhdr x;
	__be32	code;
	__be32	reserved;
	__be64	msg_id;
};

#define SMARTT_DATA_HLEN	(SMARTT_HDR_LEN + sizeof(struct smartt_data_ext))
#define SMARTT_ACK_HLEN		(SMARTT_HDR_LEN + sizeof(struct smartt_ack_ext))
#define SMARTT_CTRL_HLEN	(SMARTT_HDR_LEN + sizeof(struct smartt_ctrl_ext))
#define SMARTT_PROBE_HLEN	(SMARTT_HDR_LEN + sizeof(struct smartt_probe_ext))

static inline void smartt_wire_checks(void)
{
	BUILD_BUG_ON(sizeof(struct smartt_xhdr) != 8);
	BUILD_BUG_ON(sizeof(struct smartt_data_ext) != 56);
	BUILD_BUG_ON(sizeof(struct smartt_ack_ext) != 72);
	BUILD_BUG_ON(sizeof(struct smartt_ctrl_ext) != 24);
	BUILD_BUG_ON(sizeof(struct smartt_probe_ext) != 24);
	BUILD_BUG_ON(SMARTT_DATA_HLEN % 8 || SMARTT_ACK_HLEN % 8 ||
		     SMARTT_CTRL_HLEN % 8 || SMARTT_PROBE_HLEN % 8);
	BUILD_BUG_ON(sizeof(struct smartt_completion) != SMARTT_COMPLETION_LEN);
	BUILD_BUG_ON(sizeof(struct smartt_peer_info) != SMARTT_PEER_INFO_LEN);
	BUILD_BUG_ON(sizeof(struct smartt_path_info) != SMARTT_PATH_INFO_LEN);
	BUILD_BUG_ON(offsetof(struct smartt_path_info, lost) != SMARTT_PATH_INFO_LEN_MIN);
}

#endif /* SMARTT_TRANSPORT_WIRE_H */
