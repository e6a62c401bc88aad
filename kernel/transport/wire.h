/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt transport wire format v2: Ultra Ethernet PDS (RUD) and SES headers
 * (the layouts are uAPI, in <linux/smartt.h>), the helpers that read and
 * write their narrow fields, and the size assertions.
 * Documented in Documentation/protocol.rst; every multi-byte field is big
 * endian.
 */
#ifndef SMARTT_TRANSPORT_WIRE_H
#define SMARTT_TRANSPORT_WIRE_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#include <linux/smartt.h>

/**
 * struct smartt_data_hdr - the headers of a DATA packet.
 * @pds: PDS RUD_REQ.
 * @ses: SES standard request.
 */
struct smartt_data_hdr {
	struct smartt_pds_rud_req pds;
	struct smartt_ses_std ses;
};

/**
 * struct smartt_err_hdr - the headers of a message error: PDS ACK with an
 *	SES response.
 * @ack: PDS ACK, next header %SMARTT_PDS_NH_RSP.
 * @rsp: SES response carrying the return code.
 */
struct smartt_err_hdr {
	struct smartt_pds_ack ack;
	struct smartt_ses_rsp rsp;
};

/* Every PDS header smartt parses is at least this long. */
#define SMARTT_PDS_MIN_LEN	12

/* The PDS prologue of type @type, next header (or CTRL type) @nh, @flags. */
static inline __be16 smartt_pds_prologue(u8 type, u8 nh, u8 flags)
{
	return cpu_to_be16(((u16)type << SMARTT_PDS_TYPE_SHIFT) |
			   ((u16)(nh & 0xf) << SMARTT_PDS_NH_SHIFT) |
			   (flags & SMARTT_PDS_FLAGS_MASK));
}

static inline u8 smartt_pds_type(__be16 prologue)
{
	return (be16_to_cpu(prologue) & SMARTT_PDS_TYPE_MASK) >>
	       SMARTT_PDS_TYPE_SHIFT;
}

static inline u8 smartt_pds_nh(__be16 prologue)
{
	return (be16_to_cpu(prologue) & SMARTT_PDS_NH_MASK) >>
	       SMARTT_PDS_NH_SHIFT;
}

static inline u8 smartt_pds_flags(__be16 prologue)
{
	return be16_to_cpu(prologue) & SMARTT_PDS_FLAGS_MASK;
}

/* SACK bitmap of an ACK_CC as one 64-bit value (bit i = base PSN + i). */
static inline u64 smartt_ack_sack(const struct smartt_pds_ack_cc *a)
{
	return ((u64)be32_to_cpu(a->sack_hi) << 32) | be32_to_cpu(a->sack_lo);
}

static inline void smartt_ack_set_sack(struct smartt_pds_ack_cc *a, u64 map)
{
	a->sack_hi = cpu_to_be32(map >> 32);
	a->sack_lo = cpu_to_be32((u32)map);
}

/* NSCC rcvd_bytes (24 bits) of an ACK_CC. */
static inline u32 smartt_nscc_rcvd_bytes(const struct smartt_nscc_state *n)
{
	return ((u32)(be16_to_cpu(n->cwnd_rcvd) &
		      SMARTT_NSCC_RCVD_BYTES_HI_MASK) << 16) |
	       be16_to_cpu(n->rcvd_bytes_lo);
}

static inline void smartt_nscc_set_rcvd_bytes(struct smartt_nscc_state *n,
					      u32 bytes)
{
	u16 hi = be16_to_cpu(n->cwnd_rcvd) & ~SMARTT_NSCC_RCVD_BYTES_HI_MASK;

	n->cwnd_rcvd = cpu_to_be16(hi | ((bytes >> 16) & 0xff));
	n->rcvd_bytes_lo = cpu_to_be16((u16)bytes);
}

/* SES payload_length of a packet without SOM (14 bits). */
static inline u32 smartt_ses_payload_len(const struct smartt_ses_std *s)
{
	return be32_to_cpu(s->hdata_hi) & SMARTT_SES_PAYLOAD_LEN_MASK;
}

static inline u32 smartt_ses_job(const struct smartt_ses_std *s)
{
	return be32_to_cpu(s->ri_gen_job) & SMARTT_SES_JOB_MASK;
}

static inline u16 smartt_ses_pid(const struct smartt_ses_std *s)
{
	return be16_to_cpu(s->pid_on_fep) & SMARTT_SES_PID_MASK;
}

/* The first wire format, kept while the transport moves to v2. */
#define SMARTT_PKT_DATA		1
#define SMARTT_PKT_ACK		2
#define SMARTT_PKT_NACK		3
#define SMARTT_PKT_PROBE	4
#define SMARTT_PKT_PROBE_ACK	5
#define SMARTT_PKT_CTRL		6
#define SMARTT_F_TRIMMED	0x0001
#define SMARTT_F_TRIM_LAST_HOP	0x0002
#define SMARTT_F_ACK_REQ	0x0004
#define SMARTT_F_ECN_ECHO	0x0008
#define SMARTT_F_RTX		0x0010
#define SMARTT_F_TX_TS		0x0020
#define SMARTT_F_RX_TS		0x0040
#define SMARTT_F_CRP_SPEC	0x0080
#define SMARTT_F_CRP_GRANTED	0x0100
#define SMARTT_F_CRP_SPEC_DROP	0x0200

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
#define SMARTT_V1_SACK_BITS	256
#define SMARTT_V1_SACK_WORDS	(SMARTT_V1_SACK_BITS / 64)

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
 * @sack: bitmap of PSNs received above @cum_psn (see %SMARTT_V1_SACK_BITS)
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
	__be64	sack[SMARTT_V1_SACK_WORDS];
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

#define SMARTT_V1_DATA_HLEN	(SMARTT_HDR_LEN + sizeof(struct smartt_data_ext))
#define SMARTT_V1_ACK_HLEN		(SMARTT_HDR_LEN + sizeof(struct smartt_ack_ext))
#define SMARTT_V1_CTRL_HLEN	(SMARTT_HDR_LEN + sizeof(struct smartt_ctrl_ext))
#define SMARTT_V1_PROBE_HLEN	(SMARTT_HDR_LEN + sizeof(struct smartt_probe_ext))

static inline void smartt_wire_checks(void)
{
	BUILD_BUG_ON(sizeof(struct smartt_pds_rud_req) != 12);
	BUILD_BUG_ON(sizeof(struct smartt_pds_ack) != 12);
	BUILD_BUG_ON(sizeof(struct smartt_nscc_state) != 8);
	BUILD_BUG_ON(sizeof(struct smartt_pds_ack_cc) != SMARTT_ACK_LEN);
	BUILD_BUG_ON(offsetof(struct smartt_pds_ack_cc, sack_hi) != 16);
	BUILD_BUG_ON(offsetof(struct smartt_pds_ack_cc, nscc) != 24);
	BUILD_BUG_ON(sizeof(struct smartt_pds_nack) != SMARTT_NACK_LEN);
	BUILD_BUG_ON(sizeof(struct smartt_pds_ctrl) != SMARTT_CTRL_LEN);
	BUILD_BUG_ON(sizeof(struct smartt_ses_std) != 44);
	BUILD_BUG_ON(offsetof(struct smartt_ses_std, buf_off_hi) != 12);
	BUILD_BUG_ON(offsetof(struct smartt_ses_std, initiator) != 20);
	BUILD_BUG_ON(offsetof(struct smartt_ses_std, hdata_hi) != 32);
	BUILD_BUG_ON(offsetof(struct smartt_ses_std, request_length) != 40);
	BUILD_BUG_ON(sizeof(struct smartt_ses_rsp) != 12);
	BUILD_BUG_ON(sizeof(struct smartt_data_hdr) != SMARTT_DATA_HLEN);
	BUILD_BUG_ON(sizeof(struct smartt_err_hdr) != SMARTT_ERR_LEN);
	BUILD_BUG_ON(SMARTT_TRIM_BYTES_DEFAULT != SMARTT_DATA_HLEN);
	BUILD_BUG_ON(sizeof(struct smartt_crp_ext) != SMARTT_CRP_EXT_LEN);
	BUILD_BUG_ON(sizeof(struct smartt_xhdr) != 8);
	BUILD_BUG_ON(sizeof(struct smartt_data_ext) != 56);
	BUILD_BUG_ON(sizeof(struct smartt_ack_ext) != 72);
	BUILD_BUG_ON(sizeof(struct smartt_ctrl_ext) != 24);
	BUILD_BUG_ON(sizeof(struct smartt_probe_ext) != 24);
	BUILD_BUG_ON(SMARTT_V1_DATA_HLEN % 8 || SMARTT_V1_ACK_HLEN % 8 ||
		     SMARTT_V1_CTRL_HLEN % 8 || SMARTT_V1_PROBE_HLEN % 8);
	BUILD_BUG_ON(sizeof(struct smartt_completion) != SMARTT_COMPLETION_LEN);
	BUILD_BUG_ON(sizeof(struct smartt_peer_info) != SMARTT_PEER_INFO_LEN);
	BUILD_BUG_ON(sizeof(struct smartt_path_info) != SMARTT_PATH_INFO_LEN);
	BUILD_BUG_ON(offsetof(struct smartt_path_info, lost) != SMARTT_PATH_INFO_LEN_MIN);
}

#endif /* SMARTT_TRANSPORT_WIRE_H */
