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

/* PSN of 32 bits on the wire extended to the u64 nearest @ref. */
static inline u64 smartt_psn_extend(u32 wire, u64 ref)
{
	return ref + (s64)(s32)(wire - (u32)ref);
}

/* Message id of 16 bits on the wire extended to the u64 nearest @ref. */
static inline u64 smartt_msg_id_extend(u16 wire, u64 ref)
{
	return ref + (s64)(s16)(wire - (u16)ref);
}

u32 smartt_crc(const void *saddr, const void *daddr, unsigned int alen,
	       const void *udp, unsigned int len);

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
	/* the receive path reads M and RETX of ACKs and NACKs alike */
	BUILD_BUG_ON((SMARTT_PDS_ACK_F_M ^ SMARTT_PDS_NACK_F_M) |
		     (SMARTT_PDS_ACK_F_RETX ^ SMARTT_PDS_NACK_F_RETX));
	BUILD_BUG_ON(sizeof(struct smartt_completion) != SMARTT_COMPLETION_LEN);
	BUILD_BUG_ON(sizeof(struct smartt_peer_info) != SMARTT_PEER_INFO_LEN);
	BUILD_BUG_ON(sizeof(struct smartt_path_info) != SMARTT_PATH_INFO_LEN);
	BUILD_BUG_ON(offsetof(struct smartt_path_info, lost) != SMARTT_PATH_INFO_LEN_MIN);
}

#endif /* SMARTT_TRANSPORT_WIRE_H */
