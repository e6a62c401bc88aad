// SPDX-License-Identifier: GPL-2.0
/*
 * An off-path attacker for selftests/smartt_transport_attack.sh: it knows
 * the addresses of a sender and a receiver, their transport ports (PIDs)
 * and the UDP port, but sees none of their packets.  It forges packets
 * with the source address of one of them (IP_TRANSPARENT) and sends them
 * to the other, each sealed with a right CRC32C trailer.
 *
 *   smartt_attack_test KIND SRC DST COUNT SEED INITIATOR PID [DPDCID SPDCID]
 *	send COUNT forged packets of KIND from SRC (an address of another
 *	host) to DST's UDP port 4793 (crp: 4794); prints "sent N replies R" (R: packets
 *	that came back to SRC here, 0 off path).  DPDCID and SPDCID (non-zero)
 *	are the ids to forge: a stronger attacker who learnt the PDC's ids
 *	but not its PSNs; otherwise the DPDCID goes from 1 to 65535 in turn
 *	and the SPDCID is random.  KIND:
 *	syn    DATA with SYN of a random sender PDC: a one-packet message of
 *	       100 bytes from transport port INITIATOR to PID, random PSN
 *	data   DATA without SYN, random PSN, a middle segment of a random
 *	       message of INITIATOR to PID
 *	err    errors (PDS ACK + SES response BAD_PID, CANCELLED or
 *	       DROPPED; SPDCID 0 every other one), random CACK_PSN and
 *	       message id
 *	rsp    ACK_CC with an SES response "delivered" for a random message
 *	       id, random CACK_PSN
 *	inv    NACK INV_DPDCID (SPDCID 0), random PSN
 *	probe  CTRL PROBE, random PSN and payload
 *	crp    CRP requests (to the CRP UDP port, 4794) from transport port
 *	       INITIATOR to PID, undecided, for a random message and
 *	       segment, with a random sender PDC id (the epoch; SPDCID when
 *	       given): of no PDC the receiver knows
 *	INITIATOR and PID are used by syn, data and crp only.  Paced at 16
 *	packets per ms at most, so that the forgeries reach the transport
 *	rather than overflow the hosts' backlog queues (a guest under TCG
 *	drops a flood there, before any protocol sees it).  With
 *	$SMARTT_ATTACK_UNTIL set, sending stops early once that file is gone
 *	(COUNT is then a maximum); with $SMARTT_ATTACK_MARK=FILE:N, FILE is
 *	created once N packets were sent.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/smartt.h>

#include "smartt_uet.h"

/* xorshift64*: the forged fields, reproducible from SEED */
static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

/* the ids to forge (0: swept, random) */
static uint16_t fix_dpdcid, fix_spdcid;

static uint16_t spdcid_of(void)
{
	return fix_spdcid ? fix_spdcid : (uint16_t)(rnd() | 1);
}

/* A forged packet of @kind, number @i, at @p on @f: its length. */
static size_t forge(const char *kind, uint32_t i, const struct uet_flow *f,
		    unsigned char *p, uint32_t initiator, uint16_t pid)
{
	uint16_t dpdcid = fix_dpdcid ? fix_dpdcid : (uint16_t)(i % 65535 + 1);
	struct uet_data d = {};

	if (!strcmp(kind, "syn") || !strcmp(kind, "data")) {
		d.psn = rnd();
		d.clear = -1;
		d.spdcid = kind[0] == 's' ? (uint16_t)(rnd() | 1) : spdcid_of();
		d.msg_id = (uint16_t)rnd();
		d.pid = pid;
		d.initiator = initiator;
		d.plen = 100;
		if (kind[0] == 's') {
			d.flags = SMARTT_PDS_REQ_F_SYN;
			d.len = 100;
			d.eom = true;
		} else {
			d.dpdcid = fix_dpdcid ? fix_dpdcid : (uint16_t)(rnd() | 1);
			d.len = 100000;
			d.off = 1000;
		}
		return uet_build_data(f, p, &d, NULL);
	}
	if (!strcmp(kind, "err")) {
		struct smartt_pds_ack *a = (struct smartt_pds_ack *)p;
		struct smartt_ses_rsp *r = (struct smartt_ses_rsp *)(a + 1);
		static const uint8_t rc[] = { SMARTT_SES_RC_BAD_PID, SMARTT_SES_RC_CANCELLED,
					      SMARTT_SES_RC_DROPPED };

		memset(p, 0, SMARTT_ERR_LEN);
		a->prologue = uet_prologue(SMARTT_PDS_ACK, SMARTT_PDS_NH_RSP, 0);
		a->cack_psn = htobe32(rnd());
		a->spdcid = htobe16(i & 1 ? spdcid_of() : 0);
		a->dpdcid = htobe16(dpdcid);
		r->list_opcode = SMARTT_SES_RSP_RESPONSE;
		r->ver_rc = rc[i % 3];
		r->msg_id = htobe16((uint16_t)rnd());
		return uet_add_crc(f, p, SMARTT_ERR_LEN);
	}
	if (!strcmp(kind, "rsp")) {
		struct smartt_pds_ack_cc *a = (struct smartt_pds_ack_cc *)p;
		struct smartt_ses_rsp *r = (struct smartt_ses_rsp *)(a + 1);

		memset(p, 0, SMARTT_ACK_LEN + sizeof(*r));
		a->ack.prologue = uet_prologue(SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_RSP, 0);
		a->ack.cack_psn = htobe32(rnd());
		a->ack.spdcid = htobe16(spdcid_of());
		a->ack.dpdcid = htobe16(dpdcid);
		a->mpr = 2;
		r->list_opcode = SMARTT_SES_RSP_RESPONSE;
		r->ver_rc = SMARTT_SES_RC_OK;
		r->msg_id = htobe16((uint16_t)rnd());
		return uet_add_crc(f, p, SMARTT_ACK_LEN + sizeof(*r));
	}
	if (!strcmp(kind, "inv")) {
		struct smartt_pds_nack *n = (struct smartt_pds_nack *)p;

		memset(p, 0, SMARTT_NACK_LEN);
		n->prologue = uet_prologue(SMARTT_PDS_NACK, SMARTT_PDS_NH_NONE, 0);
		n->nack_code = SMARTT_NACK_INV_DPDCID;
		n->nack_psn = htobe32(rnd());
		n->dpdcid = htobe16(dpdcid);
		return uet_add_crc(f, p, SMARTT_NACK_LEN);
	}
	if (!strcmp(kind, "crp")) {
		struct smartt_hdr *h = (struct smartt_hdr *)p;
		struct smartt_crp_ext *x = (struct smartt_crp_ext *)(h + 1);

		memset(p, 0, SMARTT_CRP_HLEN);
		h->magic = htons(SMARTT_MAGIC);
		h->version = SMARTT_WIRE_VERSION;
		h->type = SMARTT_PKT_CRP_REQ;
		h->hdr_words = SMARTT_CRP_HLEN / 8;
		h->entropy = htonl(rnd());
		x->sport = htons((uint16_t)initiator);
		x->dport = htons(pid);
		x->epoch = htonl(spdcid_of());
		x->msg_id = htobe64(rnd() % 1000);
		x->seg_off = htobe64((uint64_t)(rnd() % 64) * 65536);
		x->seg_len = htonl(65536);
		x->req_bytes = htonl(68000);
		return SMARTT_CRP_HLEN;
	}
	if (!strcmp(kind, "probe")) {
		struct smartt_pds_ctrl *c = (struct smartt_pds_ctrl *)p;

		memset(p, 0, SMARTT_CTRL_LEN);
		c->prologue = uet_prologue(SMARTT_PDS_CTRL, SMARTT_PDS_CTL_PROBE, 0);
		c->psn = htobe32(rnd());
		c->spdcid = htobe16(spdcid_of());
		c->dpdcid = htobe16(dpdcid);
		c->payload = htobe32(be32toh(c->psn) - 10);
		return uet_add_crc(f, p, SMARTT_CTRL_LEN);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss = {}, ds = {};
	struct sockaddr_in *src = (struct sockaddr_in *)&ss, *dst = (struct sockaddr_in *)&ds;
	unsigned char p[512];
	const char *until = getenv("SMARTT_ATTACK_UNTIL");
	const char *mark = getenv("SMARTT_ATTACK_MARK");
	unsigned long mark_at = 0;
	char mark_file[256] = "";
	unsigned long count;
	unsigned long sent = 0, replies = 0;
	struct uet_flow f;
	uint32_t initiator;
	socklen_t sl = sizeof(ss);
	int fd, one = 1;
	uint16_t pid;
	size_t n;

	if (argc != 8 && argc != 10) {
		fprintf(stderr, "usage: %s syn|data|err|rsp|inv|probe|crp SRC DST COUNT SEED INITIATOR PID [DPDCID SPDCID]\n",
			argv[0]);
		return 2;
	}
	if (mark && strchr(mark, ':') && strchr(mark, ':') - mark < (long)sizeof(mark_file)) {
		memcpy(mark_file, mark, strchr(mark, ':') - mark);
		mark_at = strtoul(strchr(mark, ':') + 1, NULL, 0);
	}
	if (argc == 10) {
		fix_dpdcid = (uint16_t)strtoul(argv[8], NULL, 0);
		fix_spdcid = (uint16_t)strtoul(argv[9], NULL, 0);
	}
	count = strtoul(argv[4], NULL, 0);
	rng = strtoull(argv[5], NULL, 0) | 1;
	initiator = strtoul(argv[6], NULL, 0);
	pid = (uint16_t)strtoul(argv[7], NULL, 0);
	src->sin_family = AF_INET;
	dst->sin_family = AF_INET;
	if (inet_pton(AF_INET, argv[2], &src->sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[3], &dst->sin_addr) != 1) {
		fprintf(stderr, "IPv4 addresses only\n");
		return 2;
	}
	dst->sin_port = htons(strcmp(argv[1], "crp") ? SMARTT_UDP_PORT_DEFAULT :
			      SMARTT_CRP_UDP_PORT_DEFAULT);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	/* the source address is another host's: IP_TRANSPARENT sends from it */
	if (fd < 0 || setsockopt(fd, SOL_IP, IP_TRANSPARENT, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)src, sizeof(*src)) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) ||
	    connect(fd, (struct sockaddr *)dst, sizeof(*dst))) {
		perror("socket");
		return 1;
	}
	if (uet_flow(&f, (struct sockaddr *)&ss, (struct sockaddr *)&ds))
		return 1;
	for (uint32_t i = 0; i < count; i++) {
		if (until && !(i % 64) && access(until, F_OK))
			break;
		n = forge(argv[1], i, &f, p, initiator, pid);
		if (!n) {
			fprintf(stderr, "unknown kind %s\n", argv[1]);
			return 2;
		}
		if (send(fd, p, n, 0) == (ssize_t)n) {
			if (++sent == mark_at && mark_file[0]) {
				FILE *mf = fopen(mark_file, "w");

				if (mf)
					fclose(mf);
			}
		} else if (errno != ENOBUFS && errno != EAGAIN && errno != ECONNREFUSED) {
			break;
		}
		if (i % 16 == 15)
			usleep(1000);
		while (recv(fd, p, sizeof(p), MSG_DONTWAIT) > 0)
			replies++;
	}
	usleep(200000);
	while (recv(fd, p, sizeof(p), MSG_DONTWAIT) > 0)
		replies++;
	printf("sent %lu replies %lu\n", sent, replies);
	return sent ? 0 : 1;
}
