/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the switch port's BPF_PROG_TEST_RUN tests
 * (smartt_fabric_port_test.c, smartt_fabric_crp_test.c): crafted Ethernet
 * frames (IPv4 or IPv6, a DSCP and ECN of the test's choosing, UDP with or
 * without a checksum, UET DATA or CRP control payloads), the port's maps
 * and counters, KTAP output.  Each test sets the map and program file
 * descriptors below after loading its skeleton.
 */
#ifndef SMARTT_FABRIC_TEST_H
#define SMARTT_FABRIC_TEST_H

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

/* Each test uses its own subset of the helpers. */
#pragma GCC diagnostic ignored "-Wunused-function"

#define PORT		1U		/* lo: BPF_PROG_TEST_RUN's device */
#define TC_ACT_OK	0
#define TC_ACT_SHOT	2

/* UET DATA: PDS RUD request header, then the SES standard request. */
#define UET_PDS_REQ_LEN		((__u32)sizeof(struct smartt_pds_rud_req))

static int fd_cfg, fd_state, fd_stats, prog_egress, prog_ingress;
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
	__u32 ulen = f->len - f->l4, sum;

	if (!v6)
		sum = sum16(f->b + 14 + 12, 8, 0) + 17 + ulen;
	else
		sum = sum16(f->b + 14 + 8, 32, 0) + 17 + ulen;
	return fold(sum16(f->b + f->l4, ulen, sum));
}

static __u16 udp_csum_field(const struct frame *f)
{
	__u16 c;

	memcpy(&c, f->b + f->l4 + 6, 2);
	return ntohs(c);
}

/* Lengths (UDP, IP) match the frame, the IPv4 header checksum is valid. */
static bool lengths_ok(const struct frame *f)
{
	__u16 ulen, l3;

	memcpy(&ulen, f->b + f->l4 + 4, 2);
	if (ntohs(ulen) != f->len - f->l4)
		return false;
	if (!v6) {
		memcpy(&l3, f->b + 16, 2);
		return ntohs(l3) == f->len - 14 && fold(sum16(f->b + 14, 20, 0)) == 0xffff;
	}
	memcpy(&l3, f->b + 18, 2);
	return ntohs(l3) == f->len - 14 - 40;
}

/* Lengths right and the UDP checksum valid (none, 0, counts as valid). */
static bool csum_ok(const struct frame *f)
{
	if (!lengths_ok(f))
		return false;
	return !udp_csum_field(f) || udp_sum(f) == 0xffff;
}

static __u8 dscp_of(const struct frame *f)
{
	if (!v6)
		return f->b[15] >> 2;
	return ((f->b[14] & 0x0f) << 2) | (f->b[15] >> 6);
}

static __u8 ecn_of(const struct frame *f)
{
	return v6 ? (f->b[15] >> 4) & 3 : f->b[15] & 3;
}

/* Finish @f: lengths and checksums for @len bytes of frame; @csum false
 * sends UDP without a checksum (0), as the transport does.
 */
static void seal_csum(struct frame *f, __u32 len, bool csum)
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
	if (!csum)
		return;
	c = htons(~udp_sum(f) & 0xffff);
	if (!c)
		c = 0xffff;
	memcpy(f->b + f->l4 + 6, &c, 2);
}

static void seal(struct frame *f, __u32 len)
{
	seal_csum(f, len, true);
}

/* Ethernet, IP with @dscp and ECT(1), @proto (UDP: to @dport). */
static void frame_ip(struct frame *f, __u8 proto, __u16 dport, __u8 dscp)
{
	__u8 tc = (dscp << 2) | 0x01;	/* ECT(1) */
	__u16 v;

	memset(f, 0, sizeof(*f));
	memset(f->b, 0x02, 12);
	if (!v6) {
		f->b[12] = 0x08;
		f->b[14] = 0x45;
		f->b[14 + 1] = tc;
		f->b[14 + 8] = 64;
		f->b[14 + 9] = proto;
		memcpy(f->b + 26, "\xc6\x12\x00\x01\xc6\x12\x00\x05", 8);
		f->l4 = 34;
	} else {
		f->b[12] = 0x86;
		f->b[13] = 0xdd;
		f->b[14] = 0x60 | (tc >> 4);
		f->b[15] = (tc & 0x0f) << 4;
		f->b[14 + 6] = proto;
		f->b[14 + 7] = 64;
		f->b[14 + 8] = 0x20;
		f->b[14 + 9] = 0x01;
		f->b[14 + 10] = 0x00;
		f->b[14 + 11] = 0x02;
		f->b[14 + 23] = 1;
		f->b[14 + 24] = 0x20;
		f->b[14 + 25] = 0x01;
		f->b[14 + 27] = 0x02;
		f->b[14 + 39] = 5;
		f->l4 = 54;
	}
	v = htons(40000);
	memcpy(f->b + f->l4, &v, 2);
	v = htons(dport);
	memcpy(f->b + f->l4 + 2, &v, 2);
}

/*
 * UET DATA to the UET port: PDS RUD_REQ (type 2, next header 3 = SES
 * standard request, AR) with PSN @psn, an SES standard request (SEND, SOM
 * and EOM), @pay bytes of payload and the 4-byte trailer; every byte after
 * the prologues is a pattern, so that a test sees any byte a port changed.
 */
static void uet_data(struct frame *f, __u8 dscp, __u32 pay, __u32 psn, bool csum)
{
	__u8 *u;
	__u32 i, n = SMARTT_DATA_HLEN + pay + SMARTT_CRC_LEN;
	__u16 prologue = htons(SMARTT_PDS_RUD_REQ << SMARTT_PDS_TYPE_SHIFT |
			       SMARTT_PDS_NH_REQ_STD << SMARTT_PDS_NH_SHIFT | SMARTT_PDS_REQ_F_AR);
	__u32 psn_be = htonl(psn);

	frame_ip(f, 17, SMARTT_UDP_PORT_DEFAULT, dscp);
	u = f->b + f->l4 + 8;
	for (i = 0; i < n; i++)
		u[i] = (__u8)(i * 7 + 3);
	memcpy(u, &prologue, 2);
	memcpy(u + 4, &psn_be, 4);
	u[UET_PDS_REQ_LEN] = SMARTT_SES_OPCODE_SEND;
	u[UET_PDS_REQ_LEN + 1] = SMARTT_SES_F_SOM | SMARTT_SES_F_EOM;	/* version 0 */
	seal_csum(f, f->l4 + 8 + n, csum);
}

/* UDP payload of @f (after the UDP header). */
static __u8 *udp_payload(struct frame *f)
{
	return f->b + f->l4 + 8;
}

/* --- maps ----------------------------------------------------------------- */

static void set_port_cfg(__u32 ifindex, const struct sf_port_cfg *c)
{
	struct sf_port_state st = {};

	bpf_map_update_elem(fd_cfg, &ifindex, c, 0);
	bpf_map_update_elem(fd_state, &ifindex, &st, 0);
}

/* The emulated port PORT with @flags: 1 Gbit/s, 1 MiB of buffer. */
static struct sf_port_cfg port_cfg_default(__u32 flags, __u64 now)
{
	struct sf_port_cfg c = {
		.rate_bps = 1000000000ULL,
		.buffer_bytes = 1 << 20,
		.prio_buffer_bytes = 1 << 20,
		.hist_bin_bytes = 1 << 16,
		.trim_bytes = SMARTT_TRIM_BYTES_DEFAULT,
		.flags = SF_PORT_EMULATE | SF_PORT_PRIO | SF_PORT_TRIM | SF_PORT_EDT | flags,
		.test_now_ns = now,
	};

	return c;
}

/* Data already queued at PORT: the link is busy until @data_free_ns. */
static void set_queue(__u64 data_free_ns)
{
	struct sf_port_state st = { .data_free_ns = data_free_ns };
	__u32 k = PORT;

	bpf_map_update_elem(fd_state, &k, &st, 0);
}

/* The port's counters, summed over the CPUs; zeroed by reset_stats(). */
static struct sf_port_stats stats_of(__u32 k)
{
	int n = libbpf_num_possible_cpus(), i;
	struct sf_port_stats *v = calloc(n, sizeof(*v)), sum = {};

	if (v && !bpf_map_lookup_elem(fd_stats, &k, v)) {
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

static struct sf_port_stats stats(void)
{
	return stats_of(PORT);
}

static void reset_stats_of(__u32 k)
{
	int n = libbpf_num_possible_cpus();
	struct sf_port_stats *v = calloc(n, sizeof(*v));

	if (v)
		bpf_map_update_elem(fd_stats, &k, v, 0);
	free(v);
}

static void reset_stats(void)
{
	reset_stats_of(PORT);
}

/* Run @prog on @f; @f becomes the packet that comes out.  Return the verdict. */
static int run(int prog, struct frame *f)
{
	struct frame out = *f;
	LIBBPF_OPTS(bpf_test_run_opts, o,
		    .data_in = f->b, .data_size_in = f->len,
		    .data_out = out.b, .data_size_out = sizeof(out.b));
	int err = bpf_prog_test_run_opts(prog, &o);

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
	return run(prog_egress, f);
}

static int ingress(struct frame *f)
{
	return run(prog_ingress, f);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

#endif /* SMARTT_FABRIC_TEST_H */
