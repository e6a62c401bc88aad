/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw packets of the transport's wire format v2 (UET PDS + SES) for the
 * guest kselftests that craft them: the CRC32C trailer and a DATA builder.
 * Include after <linux/smartt.h>.  Documentation/protocol.rst.
 */
#ifndef SMARTT_UET_H
#define SMARTT_UET_H

#include <endian.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

/* CRC-32C (Castagnoli, reflected 0x82f63b78) of @n bytes, from state @c. */
static inline uint32_t uet_crc32c_update(uint32_t c, const unsigned char *p, size_t n)
{
	static uint32_t tab[256];
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
	return c;
}

/**
 * struct uet_flow - what a packet's trailer covers besides its UDP payload
 * @alen: length of each address: 4 (IPv4) or 16 (IPv6)
 * @saddr: IP source address, as on the wire
 * @daddr: IP destination address, as on the wire
 * @sport: UDP source port, network order
 * @dport: UDP destination port, network order
 */
struct uet_flow {
	size_t alen;
	unsigned char saddr[16];
	unsigned char daddr[16];
	uint16_t sport;
	uint16_t dport;
};

/* The flow from @src to @dst (both AF_INET or both AF_INET6): 0, or -1. */
static inline int uet_flow(struct uet_flow *f, const struct sockaddr *src,
			   const struct sockaddr *dst)
{
	memset(f, 0, sizeof(*f));
	if (src->sa_family != dst->sa_family)
		return -1;
	if (src->sa_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)src, *b = (const void *)dst;

		f->alen = 4;
		memcpy(f->saddr, &a->sin_addr, 4);
		memcpy(f->daddr, &b->sin_addr, 4);
		f->sport = a->sin_port;
		f->dport = b->sin_port;
	} else if (src->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)src, *b = (const void *)dst;

		f->alen = 16;
		memcpy(f->saddr, &a->sin6_addr, 16);
		memcpy(f->daddr, &b->sin6_addr, 16);
		f->sport = a->sin6_port;
		f->dport = b->sin6_port;
	} else {
		return -1;
	}
	return 0;
}

/* The flow of the connected UDP socket @fd: 0, or -1 with errno set. */
static inline int uet_flow_fd(struct uet_flow *f, int fd)
{
	struct sockaddr_storage a, b;
	socklen_t al = sizeof(a), bl = sizeof(b);

	if (getsockname(fd, (struct sockaddr *)&a, &al) ||
	    getpeername(fd, (struct sockaddr *)&b, &bl))
		return -1;
	return uet_flow(f, (struct sockaddr *)&a, (struct sockaddr *)&b);
}

/*
 * The CRC32C of the trailer after the @n bytes of UDP payload at @p:
 * CRC-32C, init and final XOR ~0, over the two IP addresses, the UDP header
 * (length @n + 8 + the trailer, checksum taken as 0) and the payload.
 */
static inline uint32_t uet_crc(const struct uet_flow *f, const unsigned char *p, size_t n)
{
	uint16_t ulen = htobe16((uint16_t)(8 + n + SMARTT_CRC_LEN));
	unsigned char uh[8] = { 0 };
	uint32_t c = ~0U;

	memcpy(uh, &f->sport, 2);
	memcpy(uh + 2, &f->dport, 2);
	memcpy(uh + 4, &ulen, 2);
	c = uet_crc32c_update(c, f->saddr, f->alen);
	c = uet_crc32c_update(c, f->daddr, f->alen);
	c = uet_crc32c_update(c, uh, sizeof(uh));
	return ~uet_crc32c_update(c, p, n);
}

/*
 * Append the trailer (little endian) to the @n bytes of UDP payload at @p,
 * sent on @f: the new length.
 */
static inline size_t uet_add_crc(const struct uet_flow *f, unsigned char *p, size_t n)
{
	uint32_t c = htole32(uet_crc(f, p, n));

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
 * @clear: CLEAR_PSN - PSN (-1 or below: CLEAR_PSN is the highest PSN cleared)
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
 * A DATA packet at @p (UDP payload) sent on @f: headers, @d->plen bytes of
 * @payload (zeros if NULL) and the trailer.  Relative addressing (REL), as
 * the transport sends.  Return: its length.
 */
static inline size_t uet_build_data(const struct uet_flow *f, unsigned char *p,
				    const struct uet_data *d, const void *payload)
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
	s->ver_flags = SMARTT_SES_F_REL | (d->off ? 0 : SMARTT_SES_F_SOM) |
		       (d->eom ? SMARTT_SES_F_EOM : 0);
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
	return uet_add_crc(f, p, SMARTT_DATA_HLEN + d->plen);
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
