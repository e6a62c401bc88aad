/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw packets of the transport's wire format v2 (UET PDS + SES) for the
 * guest kselftests that craft them: the CRC32C trailer and a DATA builder.
 * Include after <linux/smartt.h>.  Documentation/protocol.rst.
 */
#ifndef SMARTT_UET_H
#define SMARTT_UET_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* CRC-32C (Castagnoli, reflected 0x82f63b78), init and final XOR ~0. */
static inline uint32_t uet_crc32c(const unsigned char *p, size_t n)
{
	static uint32_t tab[256];
	uint32_t c = ~0U;
	size_t i;

	if (!tab[1]) {
		for (i = 0; i < 256; i++) {
			uint32_t v = i;
			int k;

			for (k = 0; k < 8; k++)
				v = v & 1 ? (v >> 1) ^ 0x82f63b78U : v >> 1;
			tab[i] = v;
		}
	}
	for (i = 0; i < n; i++)
		c = tab[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

/* Append the trailer to the @n bytes of UDP payload at @p: the new length. */
static inline size_t uet_add_crc(unsigned char *p, size_t n)
{
	uint32_t c = htobe32(uet_crc32c(p, n));

	memcpy(p + n, &c, 4);
	return n + SMARTT_CRC_LEN;
}

static inline uint16_t uet_prologue(unsigned int type, unsigned int nh, unsigned int flags)
{
	return htobe16((type << SMARTT_PDS_TYPE_SHIFT) | ((nh & 0xf) << SMARTT_PDS_NH_SHIFT) |
		       (flags & SMARTT_PDS_FLAGS_MASK));
}

/**
 * struct uet_data - the fields of a DATA packet (host order)
 * @psn: PSN
 * @clear: CLEAR_PSN - PSN (0 or negative)
 * @spdcid: source PDC id (non-zero)
 * @dpdcid: destination PDC id, or the PSN offset with %SMARTT_PDS_REQ_F_SYN
 * @flags: SMARTT_PDS_REQ_F_*
 * @msg_id: SES message id
 * @job: job id
 * @pid: destination transport port (PIDonFEP)
 * @initiator: source transport port
 * @len: message length
 * @off: payload offset in the message (0: SOM)
 * @plen: payload bytes
 * @eom: the last packet of the message
 */
struct uet_data {
	uint32_t psn;
	int16_t clear;
	uint16_t spdcid;
	uint16_t dpdcid;
	uint8_t flags;
	uint16_t msg_id;
	uint32_t job;
	uint16_t pid;
	uint32_t initiator;
	uint32_t len;
	uint32_t off;
	uint32_t plen;
	bool eom;
};

/*
 * A DATA packet at @p (UDP payload): headers, @d->plen bytes of @payload
 * (zeros if NULL) and the trailer.  Return: its length.
 */
static inline size_t uet_build_data(unsigned char *p, const struct uet_data *d,
				    const void *payload)
{
	struct smartt_pds_rud_req *r = (struct smartt_pds_rud_req *)p;
	struct smartt_ses_std *s = (struct smartt_ses_std *)(p + sizeof(*r));

	memset(p, 0, SMARTT_DATA_HLEN);
	r->prologue = uet_prologue(SMARTT_PDS_RUD_REQ, SMARTT_PDS_NH_REQ_STD, d->flags);
	r->clear_psn_offset = htobe16((uint16_t)d->clear);
	r->psn = htobe32(d->psn);
	r->spdcid = htobe16(d->spdcid);
	r->dpdcid = htobe16(d->dpdcid);
	s->opcode = SMARTT_SES_OPCODE_SEND;
	s->ver_flags = (d->off ? 0 : SMARTT_SES_F_SOM) | (d->eom ? SMARTT_SES_F_EOM : 0);
	s->msg_id = htobe16(d->msg_id);
	s->ri_gen_job = htobe32(d->job & SMARTT_SES_JOB_MASK);
	s->pid_on_fep = htobe16(d->pid);
	s->initiator = htobe32(d->initiator);
	if (d->off) {
		s->hdata_hi = htobe32(d->plen & SMARTT_SES_PAYLOAD_LEN_MASK);
		s->hdata_lo = htobe32(d->off);
	}
	s->request_length = htobe32(d->len);
	if (payload)
		memcpy(p + SMARTT_DATA_HLEN, payload, d->plen);
	else
		memset(p + SMARTT_DATA_HLEN, 0, d->plen);
	return uet_add_crc(p, SMARTT_DATA_HLEN + d->plen);
}

/* Is the UDP payload at @p (@n bytes) an answer: ACK, ACK_CC, NACK? */
static inline bool uet_is_reply(const unsigned char *p, size_t n)
{
	unsigned int type;

	if (n < 2)
		return false;
	type = (be16toh(*(const uint16_t *)p) & SMARTT_PDS_TYPE_MASK) >> SMARTT_PDS_TYPE_SHIFT;
	return type == SMARTT_PDS_ACK || type == SMARTT_PDS_ACK_CC || type == SMARTT_PDS_NACK;
}

#endif /* SMARTT_UET_H */
