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

/**
 * SMARTT_UDP_PORT_DEFAULT - UDP destination port of the transport's UET
 * packets (the port Ultra Ethernet registered; module parameter udp_port).
 */
#define SMARTT_UDP_PORT_DEFAULT	4793

/**
 * SMARTT_CRP_UDP_PORT_DEFAULT - UDP destination port of the CRP control
 * packets (&struct smartt_hdr + &struct smartt_crp_ext; module parameter
 * crp_udp_port, never equal to udp_port).
 */
#define SMARTT_CRP_UDP_PORT_DEFAULT	4794

/**
 * SMARTT_PORT_MAX - largest transport port: a transport port is a UET
 * PIDonFEP, 12 bits; valid ports are 1..%SMARTT_PORT_MAX.
 */
#define SMARTT_PORT_MAX		4095

/*
 * Wire format v2: Ultra Ethernet PDS (RUD) + SES over UDP.
 *
 *   IP | UDP (dport 4793, sport = entropy, checksum 0) | PDS | [SES] |
 *   payload | CRC32C (4 bytes)
 *
 * Every multi-byte field is big endian; fields narrower than their
 * container are read with the MASK and SHIFT pairs below.  The layouts are
 * described field by field in Documentation/protocol.rst.
 */

/* PDS prologue: the first 16 bits of every PDS header. */
/** SMARTT_PDS_TYPE_MASK - PDS packet type (&enum smartt_pds_type). */
#define SMARTT_PDS_TYPE_MASK	0xf800
#define SMARTT_PDS_TYPE_SHIFT	11
/** SMARTT_PDS_NH_MASK - next header (&enum smartt_pds_nh), or CTRL type. */
#define SMARTT_PDS_NH_MASK	0x0780
#define SMARTT_PDS_NH_SHIFT	7
/** SMARTT_PDS_FLAGS_MASK - the type's flags (SMARTT_PDS_*_F_*). */
#define SMARTT_PDS_FLAGS_MASK	0x007f

/**
 * enum smartt_pds_type - PDS packet types (prologue bits 15..11).
 * @SMARTT_PDS_TSS: security header (not used by smartt).
 * @SMARTT_PDS_RUD_REQ: reliable unordered request: smartt's DATA.
 * @SMARTT_PDS_ROD_REQ: reliable ordered request (not used).
 * @SMARTT_PDS_RUDI_REQ: idempotent request (not used).
 * @SMARTT_PDS_RUDI_RESP: idempotent response (not used).
 * @SMARTT_PDS_UUD_REQ: unreliable request (not used).
 * @SMARTT_PDS_ACK: acknowledgment without CC state: smartt's error
 *	answers (with an SES response).
 * @SMARTT_PDS_ACK_CC: acknowledgment with CC state (NSCC): every ACK.
 * @SMARTT_PDS_ACK_CCX: extended CC state (not used).
 * @SMARTT_PDS_NACK: negative acknowledgment.
 * @SMARTT_PDS_CTRL: control packet (smartt sends PROBE).
 * @SMARTT_PDS_NACK_CCX: NACK with extended CC state (not used).
 * @SMARTT_PDS_RUD_CC_REQ: RUD request with CC state (not used).
 * @SMARTT_PDS_ROD_CC_REQ: ROD request with CC state (not used).
 */
enum smartt_pds_type {
	SMARTT_PDS_TSS		= 1,
	SMARTT_PDS_RUD_REQ	= 2,
	SMARTT_PDS_ROD_REQ	= 3,
	SMARTT_PDS_RUDI_REQ	= 4,
	SMARTT_PDS_RUDI_RESP	= 5,
	SMARTT_PDS_UUD_REQ	= 6,
	SMARTT_PDS_ACK		= 7,
	SMARTT_PDS_ACK_CC	= 8,
	SMARTT_PDS_ACK_CCX	= 9,
	SMARTT_PDS_NACK		= 10,
	SMARTT_PDS_CTRL		= 11,
	SMARTT_PDS_NACK_CCX	= 12,
	SMARTT_PDS_RUD_CC_REQ	= 13,
	SMARTT_PDS_ROD_CC_REQ	= 14,
};

/**
 * enum smartt_pds_nh - PDS next header: the SES header that follows.
 * @SMARTT_PDS_NH_NONE: none.
 * @SMARTT_PDS_NH_REQ_SMALL: SES small request (not used).
 * @SMARTT_PDS_NH_REQ_MEDIUM: SES medium request (not used).
 * @SMARTT_PDS_NH_REQ_STD: SES standard request, &struct smartt_ses_std.
 * @SMARTT_PDS_NH_RSP: SES response, &struct smartt_ses_rsp.
 * @SMARTT_PDS_NH_RSP_DATA: SES response with data (not used).
 * @SMARTT_PDS_NH_RSP_DATA_SMALL: SES small response with data (not used).
 */
enum smartt_pds_nh {
	SMARTT_PDS_NH_NONE		= 0,
	SMARTT_PDS_NH_REQ_SMALL		= 1,
	SMARTT_PDS_NH_REQ_MEDIUM	= 2,
	SMARTT_PDS_NH_REQ_STD		= 3,
	SMARTT_PDS_NH_RSP		= 4,
	SMARTT_PDS_NH_RSP_DATA		= 5,
	SMARTT_PDS_NH_RSP_DATA_SMALL	= 6,
};

/*
 * enum smartt_pds_ctl_type - CTRL type, in the next header bits of a
 * %SMARTT_PDS_CTRL prologue (UET's names).  smartt sends and answers only
 * PROBE.
 */
enum smartt_pds_ctl_type {
	SMARTT_PDS_CTL_NOOP		= 0,
	SMARTT_PDS_CTL_ACK_REQ		= 1,
	SMARTT_PDS_CTL_CLEAR		= 2,
	SMARTT_PDS_CTL_CLEAR_REQ	= 3,
	SMARTT_PDS_CTL_CLOSE		= 4,
	SMARTT_PDS_CTL_CLOSE_REQ	= 5,
	SMARTT_PDS_CTL_PROBE		= 6,
	SMARTT_PDS_CTL_CREDIT		= 7,
	SMARTT_PDS_CTL_CREDIT_REQ	= 8,
	SMARTT_PDS_CTL_NEGOTIATION	= 9,
};

/* Flags of RUD_REQ (prologue bits 6..0). */
/** SMARTT_PDS_REQ_F_RETX - the request is a retransmission. */
#define SMARTT_PDS_REQ_F_RETX	0x10
/** SMARTT_PDS_REQ_F_AR - the sender asks for an immediate ACK. */
#define SMARTT_PDS_REQ_F_AR	0x08
/** SMARTT_PDS_REQ_F_SYN - PDC establishment: DPDCID holds pdc_info/psn_offset. */
#define SMARTT_PDS_REQ_F_SYN	0x04
/* Flags of ACK, ACK_CC. */
/** SMARTT_PDS_ACK_F_M - the acknowledged packet arrived ECN CE marked. */
#define SMARTT_PDS_ACK_F_M	0x20
/** SMARTT_PDS_ACK_F_RETX - the acknowledged packet was a retransmission. */
#define SMARTT_PDS_ACK_F_RETX	0x10
/** SMARTT_PDS_ACK_F_P - answer to a probe: ack_psn_offset is probe_opaque. */
#define SMARTT_PDS_ACK_F_P	0x08
/** SMARTT_PDS_ACK_F_REQ_MASK - clear (1) or close (2) request (unused). */
#define SMARTT_PDS_ACK_F_REQ_MASK	0x06
/* Flags of NACK. */
/** SMARTT_PDS_NACK_F_M - the NACKed packet arrived ECN CE marked. */
#define SMARTT_PDS_NACK_F_M	0x20
/** SMARTT_PDS_NACK_F_RETX - the NACKed packet was a retransmission. */
#define SMARTT_PDS_NACK_F_RETX	0x10
/** SMARTT_PDS_NACK_F_NT - NACK of a RUDI packet (smartt: always clear). */
#define SMARTT_PDS_NACK_F_NT	0x08
/* Flags of CTRL. */
/** SMARTT_PDS_CTRL_F_ISROD - the PDC is ROD (smartt: always clear). */
#define SMARTT_PDS_CTRL_F_ISROD	0x20
/** SMARTT_PDS_CTRL_F_RETX - the control packet is a retransmission. */
#define SMARTT_PDS_CTRL_F_RETX	0x10
/** SMARTT_PDS_CTRL_F_AR - ACK requested. */
#define SMARTT_PDS_CTRL_F_AR	0x08
/** SMARTT_PDS_CTRL_F_SYN - as %SMARTT_PDS_REQ_F_SYN. */
#define SMARTT_PDS_CTRL_F_SYN	0x04

/* DPDCID of a packet with SYN: pdc_info (4 bits) and psn_offset (12 bits). */
/**
 * SMARTT_PDS_PDC_INFO_MASK - pdc_info; its top bit (bit 15) = use a
 * reserved PDC, as Wireshark and xdp2 read it (smartt: 0).
 */
#define SMARTT_PDS_PDC_INFO_MASK	0xf000
#define SMARTT_PDS_PDC_INFO_SHIFT	12
/** SMARTT_PDS_PSN_OFFSET_MASK - PSN - start PSN of the PDC. */
#define SMARTT_PDS_PSN_OFFSET_MASK	0x0fff

/**
 * struct smartt_pds_rud_req - PDS RUD_REQ header (DATA), 12 bytes.
 * @prologue: type %SMARTT_PDS_RUD_REQ, next header %SMARTT_PDS_NH_REQ_STD,
 *	flags SMARTT_PDS_REQ_F_*.
 * @clear_psn_offset: signed: CLEAR_PSN - @psn; CLEAR_PSN is the highest
 *	PSN the sender has cleared (every PSN up to it included): smartt's
 *	is its lowest unacknowledged PSN - 1.
 * @psn: packet sequence number.
 * @spdcid: the sender's PDC id.
 * @dpdcid: the receiver's PDC id; with SYN: pdc_info and psn_offset
 *	(%SMARTT_PDS_PDC_INFO_MASK, %SMARTT_PDS_PSN_OFFSET_MASK).
 */
struct smartt_pds_rud_req {
	__be16	prologue;
	__be16	clear_psn_offset;
	__be32	psn;
	__be16	spdcid;
	__be16	dpdcid;
};

/**
 * struct smartt_pds_ack - PDS ACK header, 12 bytes; first part of ACK_CC.
 * @prologue: type %SMARTT_PDS_ACK or %SMARTT_PDS_ACK_CC, flags
 *	SMARTT_PDS_ACK_F_*.
 * @ack_psn_offset: signed: PSN of the packet that triggered the ACK minus
 *	@cack_psn; with %SMARTT_PDS_ACK_F_P the probe's probe_opaque.
 * @cack_psn: cumulative: every PSN up to and including it was received.
 * @spdcid: the acknowledging side's PDC id.
 * @dpdcid: the PDC id of the side acknowledged.
 */
struct smartt_pds_ack {
	__be16	prologue;
	__be16	ack_psn_offset;
	__be32	cack_psn;
	__be16	spdcid;
	__be16	dpdcid;
};

/* &struct smartt_pds_ack_cc.cc_type_flags */
#define SMARTT_PDS_CC_TYPE_MASK		0xf0
#define SMARTT_PDS_CC_TYPE_SHIFT	4
#define SMARTT_PDS_CC_FLAGS_MASK	0x0f
/** SMARTT_PDS_CC_NSCC - cc_type of NSCC state (the only one smartt sends). */
#define SMARTT_PDS_CC_NSCC		0
/** SMARTT_PDS_CC_CREDIT - cc_type of credit CC state (not implemented). */
#define SMARTT_PDS_CC_CREDIT		1

/* NSCC state, &struct smartt_nscc_state.cwnd_rcvd */
/** SMARTT_NSCC_RESTORE_CWND - restore_cwnd (smartt sends 0). */
#define SMARTT_NSCC_RESTORE_CWND	0x8000
/** SMARTT_NSCC_RCV_CWND_PEND_MASK - rcv_cwnd_pend, 7 bits (smartt sends 0). */
#define SMARTT_NSCC_RCV_CWND_PEND_MASK	0x7f00
#define SMARTT_NSCC_RCV_CWND_PEND_SHIFT	8
/** SMARTT_NSCC_RCVD_BYTES_HI_MASK - bits 23..16 of rcvd_bytes. */
#define SMARTT_NSCC_RCVD_BYTES_HI_MASK	0x00ff
/** SMARTT_NSCC_RCVD_BYTES_MASK - rcvd_bytes is 24 bits and wraps. */
#define SMARTT_NSCC_RCVD_BYTES_MASK	0xffffffU
/**
 * SMARTT_NSCC_SERVICE_TIME_NS - unit of service_time, ns.  The public
 * sources give the field (16 bits) but not its unit; smartt's choice is
 * documented in Documentation/protocol.rst.
 */
#define SMARTT_NSCC_SERVICE_TIME_NS	1000U
/** SMARTT_NSCC_SERVICE_TIME_MAX - saturated service_time: no RTT sample. */
#define SMARTT_NSCC_SERVICE_TIME_MAX	0xffffU

/**
 * struct smartt_nscc_state - NSCC ack_cc_state of ACK_CC, 8 bytes.
 * @service_time: the receiver's turnaround, from the triggering packet's
 *	arrival to the ACK, in %SMARTT_NSCC_SERVICE_TIME_NS units; saturates
 *	at %SMARTT_NSCC_SERVICE_TIME_MAX.
 * @cwnd_rcvd: restore_cwnd (%SMARTT_NSCC_RESTORE_CWND), rcv_cwnd_pend
 *	(%SMARTT_NSCC_RCV_CWND_PEND_MASK), bits 23..16 of rcvd_bytes
 *	(%SMARTT_NSCC_RCVD_BYTES_HI_MASK).
 * @rcvd_bytes_lo: bits 15..0 of rcvd_bytes: payload bytes the receiver
 *	accepted on the PDC, modulo 2^24.
 * @ooo_count: PSNs received above CACK_PSN (saturates at 65535).
 */
struct smartt_nscc_state {
	__be16	service_time;
	__be16	cwnd_rcvd;
	__be16	rcvd_bytes_lo;
	__be16	ooo_count;
};

/** SMARTT_SACK_BITS - PSNs one ACK_CC's SACK bitmap covers. */
#define SMARTT_SACK_BITS	64
/** SMARTT_PDS_MPR_UNIT - PSNs per unit of an ACK_CC's MPR. */
#define SMARTT_PDS_MPR_UNIT	128

/**
 * struct smartt_pds_ack_cc - PDS ACK_CC (every smartt ACK), 32 bytes.
 * @ack: the ACK header, type %SMARTT_PDS_ACK_CC, next header
 *	%SMARTT_PDS_NH_NONE.
 * @cc_type_flags: cc_type (%SMARTT_PDS_CC_TYPE_MASK, %SMARTT_PDS_CC_NSCC)
 *	and cc_flags (0).
 * @mpr: maximum PSN range: PSNs above CACK_PSN the receiver tracks, in
 *	units of %SMARTT_PDS_MPR_UNIT PSNs.
 * @sack_psn_offset: signed: SACK base PSN minus CACK_PSN.
 * @sack_hi: bitmap bits 63..32; bit i of the 64-bit bitmap (@sack_hi:
 *	@sack_lo, bit 0 = least significant bit of @sack_lo) is PSN base + i.
 * @sack_lo: bitmap bits 31..0.
 * @nscc: NSCC state.
 */
struct smartt_pds_ack_cc {
	struct smartt_pds_ack ack;
	__u8	cc_type_flags;
	__u8	mpr;
	__be16	sack_psn_offset;
	__be32	sack_hi;
	__be32	sack_lo;
	struct smartt_nscc_state nscc;
};

/*
 * enum smartt_nack_code - &struct smartt_pds_nack.nack_code: UET's codes,
 * with UET's names.  smartt sends TRIMMED, TRIMMED_LASTHOP and EXP_NORMAL
 * (with vendor code %SMARTT_NACK_VENDOR_CRP_SPEC_DROP); it takes those
 * three and drops the others.
 */
enum smartt_nack_code {
	SMARTT_NACK_TRIMMED		= 0x01,
	SMARTT_NACK_TRIMMED_LASTHOP	= 0x02,
	SMARTT_NACK_TRIMMED_ACK		= 0x03,
	SMARTT_NACK_NO_PDC_AVAIL	= 0x04,
	SMARTT_NACK_NO_CCC_AVAIL	= 0x05,
	SMARTT_NACK_NO_BITMAP		= 0x06,
	SMARTT_NACK_NO_PKT_BUFFER	= 0x07,
	SMARTT_NACK_NO_GTD_DEL_AVAIL	= 0x08,
	SMARTT_NACK_NO_SES_MSG_AVAIL	= 0x09,
	SMARTT_NACK_NO_RESOURCE		= 0x0a,
	SMARTT_NACK_PSN_OOR_WINDOW	= 0x0b,
	SMARTT_NACK_ROD_OOO		= 0x0d,
	SMARTT_NACK_INV_DPDCID		= 0x0e,
	SMARTT_NACK_PDC_HDR_MISMATCH	= 0x0f,
	SMARTT_NACK_CLOSING		= 0x10,
	SMARTT_NACK_CLOSING_IN_ERR	= 0x11,
	SMARTT_NACK_PKT_NOT_RCVD	= 0x12,
	SMARTT_NACK_GTD_RESP_UNAVAIL	= 0x13,
	SMARTT_NACK_ACK_WITH_DATA	= 0x14,
	SMARTT_NACK_INVALID_SYN		= 0x15,
	SMARTT_NACK_PDC_MODE_MISMATCH	= 0x16,
	SMARTT_NACK_NEW_START_PSN	= 0x17,
	SMARTT_NACK_RCVD_SES_PROCG	= 0x18,
	SMARTT_NACK_UNEXP_EVENT		= 0x19,
	SMARTT_NACK_RCVR_INFER_LOSS	= 0x1a,
	SMARTT_NACK_EXP_NORMAL		= 0xfd,
	SMARTT_NACK_EXP_ERR		= 0xfe,
	SMARTT_NACK_EXP_FATAL		= 0xff,
};

/**
 * SMARTT_NACK_VENDOR_CRP_SPEC_DROP - vendor_code of a %SMARTT_NACK_EXP_NORMAL
 * NACK: a CRP speculative packet trimmed after TTW (it arrived with DSCP
 * crp_spec_dropped).
 */
#define SMARTT_NACK_VENDOR_CRP_SPEC_DROP	1

/**
 * struct smartt_pds_nack - PDS NACK header, 16 bytes.
 * @prologue: type %SMARTT_PDS_NACK, next header none, flags
 *	SMARTT_PDS_NACK_F_*.
 * @nack_code: &enum smartt_nack_code.
 * @vendor_code: 0, or %SMARTT_NACK_VENDOR_CRP_SPEC_DROP.
 * @nack_psn: PSN of the packet NACKed.
 * @spdcid: the NACKing side's PDC id.
 * @dpdcid: the PDC id of the side NACKed.
 * @payload: the receiver's CACK_PSN + 1 (its next expected PSN).
 */
struct smartt_pds_nack {
	__be16	prologue;
	__u8	nack_code;
	__u8	vendor_code;
	__be32	nack_psn;
	__be16	spdcid;
	__be16	dpdcid;
	__be32	payload;
};

/**
 * struct smartt_pds_ctrl - PDS CTRL header, 16 bytes (smartt: PROBE).
 * @prologue: type %SMARTT_PDS_CTRL, ctl type &enum smartt_pds_ctl_type in
 *	the next header bits, flags SMARTT_PDS_CTRL_F_*.
 * @probe_opaque: PROBE: a number the answer (ACK_CC with
 *	%SMARTT_PDS_ACK_F_P) echoes in ack_psn_offset.
 * @psn: the sender's next PSN (a probe takes none).
 * @spdcid: the sender's PDC id.
 * @dpdcid: the receiver's PDC id (as in RUD_REQ, pdc_info/psn_offset with
 *	SYN; smartt probes only established PDCs).
 * @payload: PROBE: the SACK base PSN the prober asks for (its lowest
 *	unacknowledged PSN).
 */
struct smartt_pds_ctrl {
	__be16	prologue;
	__be16	probe_opaque;
	__be32	psn;
	__be16	spdcid;
	__be16	dpdcid;
	__be32	payload;
};

/* SES standard request, first two bytes. */
/** SMARTT_SES_OPCODE_MASK - opcode (byte 0; smartt sends SEND). */
#define SMARTT_SES_OPCODE_MASK	0x3f
/** SMARTT_SES_OPCODE_SEND - SES opcode UET_SEND. */
#define SMARTT_SES_OPCODE_SEND	0x05
/** SMARTT_SES_VER_MASK - version (byte 1, bits 7..6; 0). */
#define SMARTT_SES_VER_MASK	0xc0
#define SMARTT_SES_VER_SHIFT	6
#define SMARTT_SES_VERSION	0
/* SES request flags (byte 1, bits 5..0). */
#define SMARTT_SES_F_DC		0x20
#define SMARTT_SES_F_IE		0x10
#define SMARTT_SES_F_REL	0x08
#define SMARTT_SES_F_HD		0x04
/** SMARTT_SES_F_EOM - last packet of the message. */
#define SMARTT_SES_F_EOM	0x02
/** SMARTT_SES_F_SOM - first packet of the message (message offset 0). */
#define SMARTT_SES_F_SOM	0x01
/** SMARTT_SES_JOB_MASK - job id, bits 23..0 of ri_gen_job. */
#define SMARTT_SES_JOB_MASK	0x00ffffffU
/** SMARTT_SES_RI_GEN_MASK - resource index generation (0). */
#define SMARTT_SES_RI_GEN_MASK	0xff000000U
#define SMARTT_SES_RI_GEN_SHIFT	24
/** SMARTT_SES_PID_MASK - PIDonFEP and resource index: 12 bits each. */
#define SMARTT_SES_PID_MASK	0x0fff
/** SMARTT_SES_PAYLOAD_LEN_MASK - SOM clear: payload_length in hdata_hi. */
#define SMARTT_SES_PAYLOAD_LEN_MASK	0x3fffU
/** SMARTT_SES_MSG_MAX_MSGS - unfinished messages per PDC (16-bit ids). */
#define SMARTT_SES_MSG_MAX_MSGS	32767

/**
 * struct smartt_ses_std - SES standard request header (DATA), 44 bytes.
 * @opcode: %SMARTT_SES_OPCODE_SEND (%SMARTT_SES_OPCODE_MASK).
 * @ver_flags: version 0 and SMARTT_SES_F_* (smartt: REL, SOM, EOM).
 * @msg_id: low 16 bits of the message number on the PDC.
 * @ri_gen_job: resource index generation (0) and job id (24 bits,
 *	net.smartt.transport_job_id).
 * @pid_on_fep: destination transport port (%SMARTT_SES_PID_MASK).
 * @res_index: resource index (0).
 * @buf_off_hi: buffer offset, bits 63..32 (0).
 * @buf_off_lo: buffer offset, bits 31..0 (0).
 * @initiator: the sender's transport port.
 * @mem_key_hi: memory key / match bits, bits 63..32 (0).
 * @mem_key_lo: memory key / match bits, bits 31..0 (0).
 * @hdata_hi: SOM set: header data bits 63..32 (0); SOM clear: reserved
 *	(18 bits) and payload_length (%SMARTT_SES_PAYLOAD_LEN_MASK), the
 *	packet's payload bytes.
 * @hdata_lo: SOM set: header data bits 31..0 (0); SOM clear: the
 *	message offset of the packet's payload.
 * @request_length: length of the whole message, bytes.
 */
struct smartt_ses_std {
	__u8	opcode;
	__u8	ver_flags;
	__be16	msg_id;
	__be32	ri_gen_job;
	__be16	pid_on_fep;
	__be16	res_index;
	__be32	buf_off_hi;
	__be32	buf_off_lo;
	__be32	initiator;
	__be32	mem_key_hi;
	__be32	mem_key_lo;
	__be32	hdata_hi;
	__be32	hdata_lo;
	__be32	request_length;
};

/* SES response, first two bytes. */
/** SMARTT_SES_RSP_LIST_MASK - list (byte 0, bits 7..6; 0 = expected). */
#define SMARTT_SES_RSP_LIST_MASK	0xc0
/** SMARTT_SES_RSP_OPCODE_MASK - response opcode (byte 0, bits 5..0). */
#define SMARTT_SES_RSP_OPCODE_MASK	0x3f
/** SMARTT_SES_RSP_DEFAULT - opcode UET_DEFAULT_RESPONSE. */
#define SMARTT_SES_RSP_DEFAULT		0x00
/** SMARTT_SES_RSP_RESPONSE - opcode UET_RESPONSE (smartt's errors). */
#define SMARTT_SES_RSP_RESPONSE		0x01
/** SMARTT_SES_RSP_RC_MASK - return code (byte 1, bits 5..0). */
#define SMARTT_SES_RSP_RC_MASK		0x3f

/**
 * enum smartt_ses_rc - SES return codes (the subset smartt names; the
 *	others are listed in Documentation/protocol.rst).
 * @SMARTT_SES_RC_NULL: none.
 * @SMARTT_SES_RC_OK: success.
 * @SMARTT_SES_RC_UNSUPPORTED_OP: an opcode other than SEND.
 * @SMARTT_SES_RC_UNSUPPORTED_SIZE: larger than the receiver's
 *	%SMARTT_MSG_MAX (v1 MSG_SIZE).
 * @SMARTT_SES_RC_BAD_PID: no socket bound to the PIDonFEP (v1
 *	PORT_UNREACH).
 * @SMARTT_SES_RC_BAD_JOB_ID: another job.
 * @SMARTT_SES_RC_CANCELLED: the receiver freed the partial message, no
 *	segment came for its %SMARTT_TIMEOUT_MS (v1 EXPIRED).
 * @SMARTT_SES_RC_TOO_LONG: segments inconsistent with the message length.
 * @SMARTT_SES_RC_DROPPED: the receiver freed the partial message for the
 *	receive buffer (v1 NOBUFS).
 */
enum smartt_ses_rc {
	SMARTT_SES_RC_NULL		= 0x00,
	SMARTT_SES_RC_OK		= 0x01,
	SMARTT_SES_RC_UNSUPPORTED_OP	= 0x06,
	SMARTT_SES_RC_UNSUPPORTED_SIZE	= 0x07,
	SMARTT_SES_RC_BAD_PID		= 0x1a,
	SMARTT_SES_RC_BAD_JOB_ID	= 0x1b,
	SMARTT_SES_RC_CANCELLED		= 0x1e,
	SMARTT_SES_RC_TOO_LONG		= 0x22,
	SMARTT_SES_RC_DROPPED		= 0x24,
};

/**
 * struct smartt_ses_rsp - SES response header, 12 bytes (after a PDS ACK
 *	with next header %SMARTT_PDS_NH_RSP: smartt's message errors).
 * @list_opcode: list (0) and opcode %SMARTT_SES_RSP_RESPONSE.
 * @ver_rc: version 0 and return code (&enum smartt_ses_rc).
 * @msg_id: message id of the request answered.
 * @ri_gen_job: resource index generation (0) and job id.
 * @mod_len: modified length (0).
 */
struct smartt_ses_rsp {
	__u8	list_opcode;
	__u8	ver_rc;
	__be16	msg_id;
	__be32	ri_gen_job;
	__be32	mod_len;
};

/** SMARTT_CRC_LEN - the CRC32C trailer that ends every UET packet. */
#define SMARTT_CRC_LEN		4
/** SMARTT_DATA_HLEN - PDS RUD_REQ + SES standard request, bytes. */
#define SMARTT_DATA_HLEN	56
/** SMARTT_ACK_LEN - ACK_CC, bytes (without the trailer). */
#define SMARTT_ACK_LEN		32
/** SMARTT_NACK_LEN - NACK, bytes (without the trailer). */
#define SMARTT_NACK_LEN		16
/** SMARTT_CTRL_LEN - CTRL, bytes (without the trailer). */
#define SMARTT_CTRL_LEN		16
/** SMARTT_ERR_LEN - ACK + SES response, bytes (without the trailer). */
#define SMARTT_ERR_LEN		24
/** SMARTT_TRIM_BYTES_DEFAULT - UDP payload bytes a trimming port keeps. */
#define SMARTT_TRIM_BYTES_DEFAULT	SMARTT_DATA_HLEN

/*
 * DSCP classes (6-bit values): the fabric classifies and trims by DSCP only.
 * Defaults of the net.smartt.transport_dscp_* sysctls and of the fabric's
 * knobs of the same names.
 */
/** SMARTT_DSCP_TRIMMABLE - DATA: a port may trim it. */
#define SMARTT_DSCP_TRIMMABLE		10
/** SMARTT_DSCP_TRIMMED - a port (not host-facing) trimmed it. */
#define SMARTT_DSCP_TRIMMED		12
/** SMARTT_DSCP_TRIMMED_LASTHOP - a host-facing port trimmed it. */
#define SMARTT_DSCP_TRIMMED_LASTHOP	14
/** SMARTT_DSCP_CONTROL - ACK, NACK, CTRL, CRP control (EF). */
#define SMARTT_DSCP_CONTROL		46
/** SMARTT_DSCP_CRP_SPEC - CRP speculative DATA, trimmable after TTW. */
#define SMARTT_DSCP_CRP_SPEC		8
/** SMARTT_DSCP_CRP_GRANTED - CRP DATA sent under a grant. */
#define SMARTT_DSCP_CRP_GRANTED		18
/** SMARTT_DSCP_CRP_SPEC_DROPPED - a CRP speculative packet trimmed after TTW. */
#define SMARTT_DSCP_CRP_SPEC_DROPPED	16
/** SMARTT_DSCP_MAX - largest DSCP value. */
#define SMARTT_DSCP_MAX			63

/*
 * CRP control packets: not UET.  They travel on UDP port crp_udp_port
 * (%SMARTT_CRP_UDP_PORT_DEFAULT) with DSCP control, as &struct smartt_hdr
 * followed by &struct smartt_crp_ext.
 */

/**
 * SMARTT_MAGIC - first two bytes of every CRP control packet (ASCII "St").
 */
#define SMARTT_MAGIC		0x5374

/** SMARTT_WIRE_VERSION - &struct smartt_hdr.version of CRP packets. */
#define SMARTT_WIRE_VERSION		2

/**
 * enum smartt_pkt_type - value of &struct smartt_hdr.type.
 * @SMARTT_PKT_CRP_REQ: CRP reservation request (&struct smartt_crp_ext);
 *	the fabric's switch ports AND their availability into it, the
 *	destination's last-hop port writes the decision into it.
 * @SMARTT_PKT_CRP_GRANT: CRP grant, the decided request reflected by its
 *	destination; switch ports settle it in their tables on the way back.
 * @SMARTT_PKT_CRP_RETRY: CRP retry: no common slot, or a grant a switch
 *	port could no longer hold (%SMARTT_CRP_CONVERTED).
 * @SMARTT_PKT_MAX: one past the last valid type.
 *
 * The transport's cc "crp" sends the requests and takes the grants and
 * retries; every transport socket answers requests.
 */
enum smartt_pkt_type {
	SMARTT_PKT_CRP_REQ	= 7,
	SMARTT_PKT_CRP_GRANT	= 8,
	SMARTT_PKT_CRP_RETRY	= 9,
	SMARTT_PKT_MAX,
};

/**
 * struct smartt_hdr - common header of the CRP control packets.
 * @magic: %SMARTT_MAGIC, big endian.
 * @version: %SMARTT_WIRE_VERSION.
 * @type: one of &enum smartt_pkt_type.
 * @flags: zero.
 * @trim_ttl: zero.
 * @hdr_words: length of the headers in 8-byte words, this one included
 *	(at least %SMARTT_CRP_HLEN / 8).
 * @entropy: path entropy chosen by the sender (big endian); also in the
 *	UDP source port (IPv4) or the IPv6 flow label.
 * @conn_id: zero.
 * @psn: zero.
 * @payload_len: zero.
 * @reserved: zero on send, ignored on receive.
 * @reserved2: zero on send, ignored on receive.
 * @tx_ts_ns: zero on send, ignored on receive.
 * @rx_ts_ns: zero on send, ignored on receive.
 * @echo_tx_ts_ns: zero on send, ignored on receive.
 * @echo_rx_ts_ns: zero on send, ignored on receive.
 *
 * Carried right after the UDP header (destination port crp_udp_port).
 * The layout is that of the first wire format; only CRP uses it.
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
