// SPDX-License-Identifier: GPL-2.0
/*
 * smartt-fabric-crp-test: the switch port's CRP handling, run with
 * BPF_PROG_TEST_RUN on crafted frames (IPv4 and IPv6), no fabric needed.
 *
 * Loads smartt_port_crp.bpf.o (libbpf skeleton), plays one port (the
 * loopback device's ifindex, 1: a test run's skb comes from it) in the
 * role each case needs by rewriting its port_cfg entry, fixes the time
 * with port_cfg.test_now_ns, and checks the packets that come out (fields,
 * UDP checksum), the reservation tables (map crp_tables) and the port's
 * counters.  The numbers are the CRP paper's Fig. 4 and 5 in bytes: a cell
 * of 512 bytes is one slot of 512 capacity units.
 *
 * Output: KTAP; exit 0 all passed, 1 a failure, 4 cannot run here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <endian.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "linux/smartt.h"
#include "smartt_fabric.h"
#include "smartt_port_crp.skel.h"

#define PORT		1U		/* lo: BPF_PROG_TEST_RUN's device */
#define SLOT_NS		1000U
#define BASE		5000000ULL	/* the tables' current slot */
#define NOW		(BASE * SLOT_NS + 100)
#define CMAX		512U
#define CELLS		5U
#define RETRY_NS	300U
#define TTW_NS		20000U
#define G_CHAN		1U		/* group of the channel (Fig. 4) */
#define G_DEST		2U		/* group of the destination (Fig. 5) */
#define TC_ACT_OK	0
#define TC_ACT_SHOT	2

static struct smartt_port_crp *skel;
static int n_test, n_fail;
static bool v6;

static void ktap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ktap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d %s: ", ok ? "" : "not ", ++n_test, v6 ? "ipv6" : "ipv4");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		n_fail++;
}

/* --- frames --------------------------------------------------------------- */

struct frame {
	__u8 b[2048];
	__u32 len;
	__u32 l4;	/* UDP header offset */
};

static __u32 sum16(const __u8 *p, __u32 len, __u32 sum)
{
	__u32 i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

static __u16 fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)sum;
}

/* The UDP checksum of @f over what it holds now: 0xffff when valid. */
static __u16 udp_sum(const struct frame *f)
{
	__u32 ulen = f->len - f->l4, sum = 0;

	if (!v6) {
		sum = sum16(f->b + 14 + 12, 8, 0) + 17 + ulen;
	} else {
		sum = sum16(f->b + 14 + 8, 32, 0) + 17 + ulen;
	}
	return fold(sum16(f->b + f->l4, ulen, sum));
}

static bool csum_ok(const struct frame *f)
{
	__u16 ulen;

	memcpy(&ulen, f->b + f->l4 + 4, 2);
	if (ntohs(ulen) != f->len - f->l4)
		return false;
	if (!v6) {	/* the IPv4 header's checksum too */
		__u16 tot;

		memcpy(&tot, f->b + 16, 2);
		if (ntohs(tot) != f->len - 14 || fold(sum16(f->b + 14, 20, 0)) != 0xffff)
			return false;
	}
	return udp_sum(f) == 0xffff;
}

static struct smartt_hdr *hdr(struct frame *f)
{
	return (struct smartt_hdr *)(f->b + f->l4 + 8);
}

static struct smartt_crp_ext *ext(struct frame *f)
{
	return (struct smartt_crp_ext *)(f->b + f->l4 + 8 + SMARTT_HDR_LEN);
}

/* Finish @f: lengths and checksums for @len bytes of frame. */
static void seal(struct frame *f, __u32 len)
{
	__u16 v, c;

	f->len = len;
	if (!v6) {
		v = htons(len - 14);
		memcpy(f->b + 16, &v, 2);
		memset(f->b + 24, 0, 2);
		c = htons(~fold(sum16(f->b + 14, 20, 0)) & 0xffff);
		memcpy(f->b + 24, &c, 2);
	} else {
		v = htons(len - 14 - 40);
		memcpy(f->b + 18, &v, 2);
	}
	v = htons(len - f->l4);
	memcpy(f->b + f->l4 + 4, &v, 2);
	memset(f->b + f->l4 + 6, 0, 2);
	c = htons(~udp_sum(f) & 0xffff);
	if (!c)
		c = 0xffff;
	memcpy(f->b + f->l4 + 6, &c, 2);
}

/* Ethernet, IP, UDP to the smartt port (or @dport), @l4len bytes after UDP. */
static void frame_ip(struct frame *f, __u8 proto, __u16 dport)
{
	__u16 v;

	memset(f, 0, sizeof(*f));
	memset(f->b, 0x02, 12);
	if (!v6) {
		f->b[12] = 0x08;
		f->b[14] = 0x45;
		f->b[14 + 1] = 0x01;		/* ECT(1) */
		f->b[14 + 8] = 64;
		f->b[14 + 9] = proto;
		memcpy(f->b + 26, "\xc6\x12\x00\x01\xc6\x12\x00\x05", 8);
		f->l4 = 34;
	} else {
		f->b[12] = 0x86;
		f->b[13] = 0xdd;
		f->b[14] = 0x60;
		f->b[14 + 6] = proto;
		f->b[14 + 7] = 64;
		f->b[14 + 8] = 0x20;
		f->b[14 + 9] = 0x01;
		f->b[14 + 23] = 1;
		f->b[14 + 24] = 0x20;
		f->b[14 + 25] = 0x01;
		f->b[14 + 39] = 5;
		f->l4 = 54;
	}
	v = htons(40000);
	memcpy(f->b + f->l4, &v, 2);
	v = htons(dport);
	memcpy(f->b + f->l4 + 2, &v, 2);
}

static void smartt_common(struct frame *f, __u8 type, __u8 words, __u16 flags)
{
	struct smartt_hdr *h;

	frame_ip(f, 17, SMARTT_UDP_PORT_DEFAULT);
	h = hdr(f);
	h->magic = htons(SMARTT_MAGIC);
	h->version = SMARTT_WIRE_VERSION;
	h->type = type;
	h->flags = htons(flags);
	h->hdr_words = words;
	h->psn = htobe64(7);
}

/* A CRP packet for @size bytes, vector @vec from slot @base. */
static void crp_frame(struct frame *f, __u8 type, __u32 size, __u64 base, __u64 vec)
{
	struct smartt_crp_ext *x;

	smartt_common(f, type, SMARTT_CRP_HLEN / 8, 0);
	x = ext(f);
	x->sport = htons(1);
	x->dport = htons(2);
	x->epoch = htonl(0x5eed);
	x->msg_id = htobe64(42);
	x->seg_len = htonl(size);
	x->req_bytes = htonl(size);
	x->tag = htonl(9);
	x->slot_base = htobe64(base);
	x->vec = htobe64(vec);
	seal(f, f->l4 + 8 + SMARTT_CRP_HLEN);
}

/* A DATA packet with @flags and @pay payload bytes. */
static void data_frame(struct frame *f, __u16 flags, __u32 pay, __u32 spec_wait)
{
	smartt_common(f, SMARTT_PKT_DATA, 16, flags);
	hdr(f)->reserved2 = htonl(spec_wait);
	hdr(f)->payload_len = htons(pay);
	seal(f, f->l4 + 8 + 128 + pay);
}

/* --- maps ----------------------------------------------------------------- */

static int fd_of(struct bpf_map *m)
{
	return bpf_map__fd(m);
}

static void set_port(__u32 flags, __u32 group)
{
	struct sf_port_cfg c = {
		.rate_bps = 1000000000ULL,
		.buffer_bytes = 1 << 20,
		.prio_buffer_bytes = 1 << 20,
		.flags = SF_PORT_EMULATE | SF_PORT_PRIO | SF_PORT_TRIM | SF_PORT_EDT | flags,
		.crp_group = group,
		.test_now_ns = NOW,
	};
	struct sf_port_state st = {};
	__u32 k = PORT;

	bpf_map_update_elem(fd_of(skel->maps.port_cfg), &k, &c, 0);
	bpf_map_update_elem(fd_of(skel->maps.port_state), &k, &st, 0);
}

static void set_now(__u64 now)
{
	struct sf_port_cfg c;
	__u32 k = PORT;

	bpf_map_lookup_elem(fd_of(skel->maps.port_cfg), &k, &c);
	c.test_now_ns = now;
	bpf_map_update_elem(fd_of(skel->maps.port_cfg), &k, &c, 0);
}

static void set_queue(__u64 data_free_ns)
{
	struct sf_port_state st = { .data_free_ns = data_free_ns };
	__u32 k = PORT;

	bpf_map_update_elem(fd_of(skel->maps.port_state), &k, &st, 0);
}

static struct sf_port_state get_state(void)
{
	struct sf_port_state st = {};
	__u32 k = PORT;

	bpf_map_lookup_elem(fd_of(skel->maps.port_state), &k, &st);
	return st;
}

static void set_table(__u32 g, __u64 base, const __u32 *cells)
{
	struct sf_crp_table t = {};
	__u32 i;

	t.members = 1;
	t.t.base = base;
	t.t.cells = CELLS;
	t.t.cmax = CMAX;
	for (i = 0; i < CELLS; i++)
		t.t.cell[i] = cells[i];
	bpf_map_update_elem(fd_of(skel->maps.crp_tables), &g, &t, 0);
}

static struct crp_table get_table(__u32 g)
{
	struct sf_crp_table t = {};

	bpf_map_lookup_elem(fd_of(skel->maps.crp_tables), &g, &t);
	return t.t;
}

static bool cells_are(__u32 g, __u32 c0, __u32 c1, __u32 c2, __u32 c3, __u32 c4)
{
	struct crp_table t = get_table(g);
	__u32 want[CELLS] = { c0, c1, c2, c3, c4 }, i;

	for (i = 0; i < CELLS; i++)
		if (t.cell[i] != want[i]) {
			printf("# table %u: cells %u,%u,%u,%u,%u, expected %u,%u,%u,%u,%u\n", g,
			       t.cell[0], t.cell[1], t.cell[2], t.cell[3], t.cell[4],
			       c0, c1, c2, c3, c4);
			return false;
		}
	return true;
}

static void set_crp(__u32 eager)
{
	struct sf_crp_cfg c = {
		.flags = SF_CRP_ON,
		.knobs = crp_defaults,
	};
	__u32 k = 0;

	c.knobs.cells = CELLS;
	c.knobs.cmax = CMAX;
	c.knobs.nmax = 2 * CMAX;
	c.knobs.nmin = 1;
	c.knobs.slot_ns = SLOT_NS;
	c.knobs.retry_ns = RETRY_NS;
	c.knobs.ttw_ns = TTW_NS;
	c.knobs.eager = eager;
	bpf_map_update_elem(fd_of(skel->maps.crp_cfg), &k, &c, 0);
}

/* The port's counters, summed over the CPUs; zeroed by reset_stats(). */
static struct sf_port_stats stats(void)
{
	int n = libbpf_num_possible_cpus(), i;
	struct sf_port_stats *v = calloc(n, sizeof(*v)), sum = {};
	__u32 k = PORT;

	if (v && !bpf_map_lookup_elem(fd_of(skel->maps.port_stats), &k, v)) {
		for (i = 0; i < n; i++) {
			__u64 *a = (__u64 *)&sum, *b = (__u64 *)&v[i];
			size_t j;

			for (j = 0; j < sizeof(sum) / 8; j++)
				a[j] += b[j];
		}
	}
	free(v);
	return sum;
}

static void reset_stats(void)
{
	int n = libbpf_num_possible_cpus();
	struct sf_port_stats *v = calloc(n, sizeof(*v));
	__u32 k = PORT;

	if (v)
		bpf_map_update_elem(fd_of(skel->maps.port_stats), &k, v, 0);
	free(v);
}

/* Run @prog on @f; @f becomes the packet that comes out.  Return the verdict. */
static int run(struct bpf_program *prog, struct frame *f)
{
	struct frame out = *f;
	LIBBPF_OPTS(bpf_test_run_opts, o,
		    .data_in = f->b, .data_size_in = f->len,
		    .data_out = out.b, .data_size_out = sizeof(out.b));
	int err = bpf_prog_test_run_opts(bpf_program__fd(prog), &o);

	if (err) {
		printf("# BPF_PROG_TEST_RUN: %s\n", strerror(-err));
		return -1;
	}
	out.len = o.data_size_out;
	*f = out;
	return o.retval;
}

static int egress(struct frame *f)
{
	return run(skel->progs.sf_egress, f);
}

static int ingress(struct frame *f)
{
	return run(skel->progs.sf_ingress, f);
}

/* --- cases ---------------------------------------------------------------- */

static const __u32 fig4[CELLS] = { 512, 10, 100, 0, 10 };
static const __u32 fig5[CELLS] = { 30, 40, 100, 512, 100 };

/* Fig. 4: the channel ANDs its availability, T T T F F. */
static void t_channel_and(void)
{
	struct frame f;
	struct sf_port_stats s;
	int r;

	set_port(0, G_CHAN);
	set_table(G_CHAN, BASE, fig4);
	reset_stats();
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x1f);
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_OK && be64toh(ext(&f)->vec) == 0x07 &&
	     be64toh(ext(&f)->slot_base) == BASE && !ext(&f)->crp_flags,
	     "request at the Fig. 4 channel: vector 11111 -> TTTFF (got %#llx)",
	     (unsigned long long)be64toh(ext(&f)->vec));
	ktap(csum_ok(&f), "request at the channel: UDP checksum valid after the rewrite");
	ktap(s.crp_req == 1 && s.crp_req_bits == 2 && s.prio_pkts == 1 &&
	     s.crp_nonpart_bytes == 0 && cells_are(G_CHAN, 512, 10, 100, 0, 10),
	     "request at the channel: crp_req 1, crp_req_bits 2, priority class, table unchanged");
}

/* Fig. 5: the destination's last-hop port decides: slot B, 984. */
static void t_dest_grant(void)
{
	struct smartt_crp_ext *x;
	struct frame f;
	struct sf_port_stats s;
	__u64 slot, ts;
	__u32 off;
	int r;

	set_port(SF_PORT_LAST_HOP, G_DEST);
	set_table(G_DEST, BASE, fig5);
	reset_stats();
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x07);
	r = egress(&f);
	s = stats();
	x = ext(&f);
	slot = be64toh(x->grant_slot);
	off = ntohl(x->grant_offset);
	ts = (slot - BASE) * CMAX + off;
	ktap(r == TC_ACT_OK && ntohs(x->crp_flags) == SMARTT_CRP_DEST_DONE &&
	     be64toh(x->vec) == 0x06 && slot == BASE + 1 && ts == 984,
	     "destination (Fig. 5): DEST_DONE, vector FTTFF, slot B, timestamp %llu (984)",
	     (unsigned long long)ts);
	ktap(be64toh(x->grant_ns) == (BASE + 1) * SLOT_NS + (__u64)off * SLOT_NS / CMAX,
	     "destination: grant_ns = slot x slot_ns + offset x slot_ns / cmax");
	ktap(cells_are(G_DEST, 30, 0, 60, 512, 100) && s.crp_dest_grant == 1,
	     "destination: table 30,0,60,512,100, crp_dest_grant 1");
	ktap(csum_ok(&f) && hdr(&f)->type == SMARTT_PKT_CRP_REQ,
	     "destination: still a request (the host reflects it), UDP checksum valid");

	/* the same request again passes a port after the decision untouched */
	r = egress(&f);
	ktap(r == TC_ACT_OK && cells_are(G_DEST, 30, 0, 60, 512, 100) &&
	     stats().crp_dest_grant == 1,
	     "a decided request (DEST_DONE) is not decided twice");
}

/* The grant on its way back: the channel takes B 10 -> 0, C 100 -> 30;
 * the same grant again no longer fits and becomes a retry.
 */
static void t_grant(void)
{
	struct smartt_crp_ext *x;
	struct frame f, g;
	struct sf_port_stats s;
	int r;

	set_port(0, G_CHAN);
	set_table(G_CHAN, BASE, fig4);
	reset_stats();
	crp_frame(&f, SMARTT_PKT_CRP_GRANT, 80, BASE, 0x06);
	ext(&f)->crp_flags = htons(SMARTT_CRP_DEST_DONE);
	ext(&f)->grant_slot = htobe64(BASE + 1);
	ext(&f)->grant_offset = htonl(472);
	seal(&f, f.len);
	g = f;
	r = ingress(&f);
	s = stats();
	ktap(r == TC_ACT_OK && hdr(&f)->type == SMARTT_PKT_CRP_GRANT &&
	     cells_are(G_CHAN, 512, 0, 30, 0, 10) && s.crp_grant_ok == 1 &&
	     !memcmp(f.b, g.b, f.len),
	     "grant at the channel's ingress: B 10 -> 0, C 100 -> 30, packet unchanged");

	f = g;
	r = ingress(&f);
	s = stats();
	x = ext(&f);
	ktap(r == TC_ACT_OK && hdr(&f)->type == SMARTT_PKT_CRP_RETRY &&
	     ntohs(x->crp_flags) == (SMARTT_CRP_DEST_DONE | SMARTT_CRP_CONVERTED) &&
	     ntohl(x->retry_after_ns) == RETRY_NS && s.crp_grant_conv == 1 &&
	     cells_are(G_CHAN, 512, 0, 30, 0, 10),
	     "the same grant again: 0 + 30 < 80, turned into CRP_RETRY (CONVERTED, R), table kept");
	ktap(csum_ok(&f), "converted grant: UDP checksum valid");

	/* a grant at a last-hop port comes from the destination: not settled */
	set_port(SF_PORT_LAST_HOP, G_CHAN);
	set_table(G_CHAN, BASE, fig4);
	f = g;
	r = ingress(&f);
	ktap(r == TC_ACT_OK && !memcmp(f.b, g.b, f.len) &&
	     cells_are(G_CHAN, 512, 10, 100, 0, 10),
	     "a grant entering at a last-hop port is left alone");
}

/* retry: no common slot; retry_full: the destination holds 80 nowhere. */
static void t_retries(void)
{
	static const __u32 small[CELLS] = { 10, 10, 10, 10, 10 };
	struct smartt_crp_ext *x;
	struct frame f;
	int r;

	set_port(SF_PORT_LAST_HOP, G_DEST);
	set_table(G_DEST, BASE, fig5);
	reset_stats();
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x01);	/* only A, which fails */
	r = egress(&f);
	x = ext(&f);
	ktap(r == TC_ACT_OK && ntohs(x->crp_flags) == (SMARTT_CRP_DEST_DONE | SMARTT_CRP_NO_SLOT) &&
	     !x->vec && ntohl(x->retry_after_ns) == RETRY_NS && stats().crp_dest_retry == 1 &&
	     cells_are(G_DEST, 30, 40, 100, 512, 100) && csum_ok(&f),
	     "no common slot: NO_SLOT, retry after R, table unchanged, checksum valid");

	set_table(G_DEST, BASE, small);
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x1f);
	r = egress(&f);
	x = ext(&f);
	ktap(r == TC_ACT_OK &&
	     ntohs(x->crp_flags) == (SMARTT_CRP_DEST_DONE | SMARTT_CRP_DEST_FULL) &&
	     ntohl(x->retry_after_ns) == CELLS * SLOT_NS && stats().crp_dest_full == 1 &&
	     csum_ok(&f),
	     "destination full (10 x 5 cells, 80 bytes): DEST_FULL, retry after cells x slot");
}

/* Two slots later: table and vector move on together. */
static void t_shift(void)
{
	struct frame f;
	struct crp_table t;
	int r;

	set_port(0, G_CHAN);
	set_table(G_CHAN, BASE, fig4);
	set_now(NOW + 2 * SLOT_NS);
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x1f);
	r = egress(&f);
	t = get_table(G_CHAN);
	/* cells 100,0,10 + two fresh 512: A T, B F, C T (10 + 512), D T, E T */
	ktap(r == TC_ACT_OK && t.base == BASE + 2 &&
	     cells_are(G_CHAN, 100, 0, 10, 512, 512) &&
	     be64toh(ext(&f)->slot_base) == BASE + 2 && be64toh(ext(&f)->vec) == 0x1d &&
	     csum_ok(&f),
	     "2 slots later: table 100,0,10,512,512 at base + 2, request rebased, vector %#llx (0x1d)",
	     (unsigned long long)be64toh(ext(&f)->vec));

	/* a request whose base is ahead of the port's slot gets no slot */
	reset_stats();
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE + 3, 0x1f);
	r = egress(&f);
	ktap(r == TC_ACT_OK && !ext(&f)->vec && stats().crp_req_late == 1 && csum_ok(&f),
	     "a vector based in the future: emptied, crp_req_late 1");
}

/* Eager reservation (R_res 1): the channel takes the earliest common slot. */
static void t_eager(void)
{
	struct frame f;
	int r;

	set_crp(1);
	set_port(0, G_CHAN);
	set_table(G_CHAN, BASE, fig4);
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x1e);	/* not A */
	r = egress(&f);
	ktap(r == TC_ACT_OK && be64toh(ext(&f)->vec) == 0x06 &&
	     cells_are(G_CHAN, 512, 0, 30, 0, 10) && get_table(G_CHAN).eager[0].tag == 9,
	     "eager 1: slot B reserved for tag 9 on the way (B 10 -> 0, C 100 -> 30)");
	set_crp(0);
}

/* Traffic without a reservation takes from the earliest non-zero cell. */
static void t_nonpart(void)
{
	struct frame f;
	struct sf_port_stats s;
	__u32 len, a;
	int r;

	set_port(0, G_CHAN);
	set_table(G_CHAN, BASE, fig4);
	reset_stats();
	frame_ip(&f, 6, 80);			/* a TCP segment */
	seal(&f, f.l4 + 20 + 300);
	f.b[f.l4 + 12] = 0x50;
	len = f.len;
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_OK && cells_are(G_CHAN, 512 - len, 10, 100, 0, 10) &&
	     s.crp_nonpart_bytes == len,
	     "a TCP frame of %u bytes: A 512 -> %u, crp_nonpart_bytes %u", len, 512 - len, len);

	a = 512 - len;
	data_frame(&f, 0, 20, 0);		/* DATA without a reservation */
	len = f.len;
	r = egress(&f);
	/* 190 (IPv4) or 210 (IPv6) bytes: the rest of A, all of B, some of C */
	ktap(r == TC_ACT_OK && len > a + 10 && len - a - 10 <= 100 &&
	     cells_are(G_CHAN, 0, 0, 100 - (len - a - 10), 0, 10) &&
	     stats().crp_nonpart_lost == 0,
	     "DATA without GRANTED/SPEC (%u bytes): the rest of A, then B, then C", len);

	set_table(G_CHAN, BASE, fig4);
	data_frame(&f, SMARTT_F_CRP_GRANTED, 600, 0);
	r = egress(&f);
	ktap(r == TC_ACT_OK && cells_are(G_CHAN, 512, 10, 100, 0, 10),
	     "granted DATA is not taken again from the table");
	crp_frame(&f, SMARTT_PKT_CRP_RETRY, 80, BASE, 0);
	r = egress(&f);
	ktap(r == TC_ACT_OK && cells_are(G_CHAN, 512, 10, 100, 0, 10),
	     "a CRP control packet is not taken from the table");
}

/* Speculative DATA past TTW is trimmed and flagged; below, its wait grows. */
static void t_spec(void)
{
	struct frame f;
	struct sf_port_stats s;
	__u16 fl;
	int r;

	set_port(0, 0);
	reset_stats();
	set_queue(NOW + 5000);			/* 5 us of data queued */
	data_frame(&f, SMARTT_F_CRP_SPEC, 1000, 1000);
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_OK && ntohl(hdr(&f)->reserved2) == 6000 &&
	     !(ntohs(hdr(&f)->flags) & SMARTT_F_TRIMMED) && s.crp_spec_pkts == 1 &&
	     s.trimmed == 0 && csum_ok(&f),
	     "speculative DATA behind 5 us: cumulative wait 1000 -> %u ns (6000), checksum valid",
	     ntohl(hdr(&f)->reserved2));

	set_port(0, 0);
	reset_stats();
	set_queue(NOW + 5000);
	data_frame(&f, SMARTT_F_CRP_SPEC, 1000, TTW_NS - 4000);
	r = egress(&f);
	s = stats();
	fl = ntohs(hdr(&f)->flags);
	ktap(r == TC_ACT_OK && (fl & SMARTT_F_TRIMMED) && (fl & SMARTT_F_CRP_SPEC_DROP) &&
	     f.len == f.l4 + 8 + 128 && s.crp_spec_drop == 1 && s.trimmed == 1 &&
	     s.prio_pkts == 1 && csum_ok(&f),
	     "past TTW (16 us + 5 us > 20 us): trimmed to its headers, TRIMMED | SPEC_DROP, priority class, checksum valid");

	/*
	 * A host's NIC: speculative DATA queues below data there too, without
	 * TTW: it leaves after the data queued (here 5 us) and the data class's
	 * clock does not move, so that a granted packet sent after it leaves
	 * at its own time, not behind the host's speculation.
	 */
	set_port(SF_PORT_NIC_TS, 0);
	reset_stats();
	set_queue(NOW + 5000);
	data_frame(&f, SMARTT_F_CRP_SPEC, 1000, TTW_NS + 1000);
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_OK && get_state().data_free_ns == NOW + 5000 &&
	     get_state().spec_free_ns > NOW + 5000 && s.trimmed == 0 &&
	     ntohl(hdr(&f)->reserved2) == TTW_NS + 1000,
	     "speculative DATA at a host NIC: below data (data clock %llu, stays), no TTW, wait untouched",
	     (unsigned long long)(get_state().data_free_ns - NOW));

	/* ordinary data is not subject to TTW */
	set_port(0, 0);
	reset_stats();
	set_queue(NOW + 50000);
	data_frame(&f, 0, 1000, 0);
	r = egress(&f);
	ktap(r == TC_ACT_OK && stats().trimmed == 0 && !hdr(&f)->reserved2,
	     "DATA without SPEC behind 50 us: queued, untouched");
}

/* Malformed CRP packets: dropped with drop_crp_bad, never read past the end. */
static void t_malformed(void)
{
	struct frame f;
	int r, ok = 1;
	__u32 cut;

	set_port(0, G_CHAN);
	set_table(G_CHAN, BASE, fig4);
	reset_stats();
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x1f);
	hdr(&f)->hdr_words = 8;			/* no room for the extension */
	seal(&f, f.len);
	r = egress(&f);
	ktap(r == TC_ACT_SHOT && stats().drop_crp_bad == 1 &&
	     cells_are(G_CHAN, 512, 10, 100, 0, 10),
	     "a request with hdr_words 8: dropped, drop_crp_bad 1");

	reset_stats();
	for (cut = SMARTT_HDR_LEN; cut < SMARTT_CRP_HLEN; cut += 4) {
		crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x1f);
		seal(&f, f.l4 + 8 + cut);
		r = egress(&f);
		if (r != TC_ACT_SHOT)
			ok = 0;
	}
	ktap(ok && stats().drop_crp_bad == (SMARTT_CRP_HLEN - SMARTT_HDR_LEN) / 4,
	     "requests cut anywhere inside the extension: all dropped and counted");

	reset_stats();
	crp_frame(&f, SMARTT_PKT_CRP_GRANT, 80, BASE, 0x1f);
	seal(&f, f.l4 + 8 + SMARTT_HDR_LEN + 40);
	r = ingress(&f);
	ktap(r == TC_ACT_SHOT && stats().drop_crp_bad == 1 &&
	     cells_are(G_CHAN, 512, 10, 100, 0, 10),
	     "a truncated grant at the ingress: dropped, drop_crp_bad 1");

	/* a short packet is not smartt at all: it passes (and is consumed) */
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x1f);
	seal(&f, f.l4 + 8 + 20);
	r = egress(&f);
	ktap(r == TC_ACT_OK, "a frame shorter than the common header passes as other UDP");

	/* a port outside every group forwards a malformed request untouched */
	set_port(0, 0);
	reset_stats();
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x1f);
	hdr(&f)->hdr_words = 8;
	seal(&f, f.len);
	r = egress(&f);
	ktap(r == TC_ACT_OK && stats().drop_crp_bad == 0,
	     "a port of no group forwards even a malformed request");
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(void)
{
	int err, pass;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (BPF_PROG_TEST_RUN of tc programs)\n");
		return 4;
	}
	libbpf_set_print(quiet);
	skel = smartt_port_crp__open();
	/* SF_CRP_VERIFIER=1: the verifier's statistics of each program */
	if (skel && getenv("SF_CRP_VERIFIER")) {
		static char log_e[65536], log_i[65536];

		bpf_program__set_log_level(skel->progs.sf_egress, 4);
		bpf_program__set_log_buf(skel->progs.sf_egress, log_e, sizeof(log_e));
		bpf_program__set_log_level(skel->progs.sf_ingress, 4);
		bpf_program__set_log_buf(skel->progs.sf_ingress, log_i, sizeof(log_i));
		if (!smartt_port_crp__load(skel))
			printf("# sf_egress:\n%s# sf_ingress:\n%s", log_e, log_i);
	} else if (skel && smartt_port_crp__load(skel)) {
		smartt_port_crp__destroy(skel);
		skel = NULL;
	}
	if (!skel) {
		/* on a supported kernel the verifier must take the port */
		err = -errno;
		printf("not ok 1 load smartt_port_crp.bpf.o: %s\n1..1\n", strerror(-err));
		return 1;
	}
	printf("TAP version 13\n");
	for (pass = 0; pass < 2; pass++) {
		v6 = pass;
		set_crp(0);
		t_channel_and();
		t_dest_grant();
		t_grant();
		t_retries();
		t_shift();
		t_eager();
		t_nonpart();
		t_spec();
		t_malformed();
	}
	printf("1..%d\n", n_test);
	printf("# totals: pass %d fail %d\n", n_test - n_fail, n_fail);
	smartt_port_crp__destroy(skel);
	return n_fail ? 1 : 0;
}
