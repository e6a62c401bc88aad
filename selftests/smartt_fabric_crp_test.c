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
#include "smartt_fabric_test.h"
#include "smartt_port_crp.skel.h"

#define SLOT_NS		1000U
#define BASE		5000000ULL	/* the tables' current slot */
#define NOW		(BASE * SLOT_NS + 100)
#define CMAX		512U
#define CELLS		5U
#define RETRY_NS	300U
#define TTW_NS		20000U
#define G_CHAN		1U		/* group of the channel (Fig. 4) */
#define G_DEST		2U		/* group of the destination (Fig. 5) */

static struct smartt_port_crp *skel;

static struct smartt_hdr *hdr(struct frame *f)
{
	return (struct smartt_hdr *)(f->b + f->l4 + 8);
}

static struct smartt_crp_ext *ext(struct frame *f)
{
	return (struct smartt_crp_ext *)(f->b + f->l4 + 8 + SMARTT_HDR_LEN);
}

/* CRP's common header, on CRP's own UDP port, DSCP control. */
static void smartt_common(struct frame *f, __u8 type, __u8 words)
{
	struct smartt_hdr *h;

	frame_ip(f, 17, SMARTT_CRP_UDP_PORT_DEFAULT, SMARTT_DSCP_CONTROL);
	h = hdr(f);
	h->magic = htons(SMARTT_MAGIC);
	h->version = SMARTT_WIRE_VERSION;
	h->type = type;
	h->hdr_words = words;
	h->psn = htobe64(7);
}

/* A CRP packet for @size bytes, vector @vec from slot @base. */
static void crp_frame(struct frame *f, __u8 type, __u32 size, __u64 base, __u64 vec)
{
	struct smartt_crp_ext *x;

	smartt_common(f, type, SMARTT_CRP_HLEN / 8);
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

/* --- maps ----------------------------------------------------------------- */

static void set_port(__u32 flags, __u32 group)
{
	struct sf_port_cfg c = port_cfg_default(flags, NOW);

	c.crp_group = group;
	set_port_cfg(PORT, &c);
}

static void set_now(__u64 now)
{
	struct sf_port_cfg c;
	__u32 k = PORT;

	bpf_map_lookup_elem(fd_cfg, &k, &c);
	c.test_now_ns = now;
	bpf_map_update_elem(fd_cfg, &k, &c, 0);
}

static struct sf_port_state get_state(void)
{
	struct sf_port_state st = {};
	__u32 k = PORT;

	bpf_map_lookup_elem(fd_state, &k, &st);
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
	bpf_map_update_elem(bpf_map__fd(skel->maps.crp_tables), &g, &t, 0);
}

static struct crp_table get_table(__u32 g)
{
	struct sf_crp_table t = {};

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.crp_tables), &g, &t);
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
	bpf_map_update_elem(bpf_map__fd(skel->maps.crp_cfg), &k, &c, 0);
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
	frame_ip(&f, 6, 80, 0);			/* a TCP segment */
	seal(&f, f.l4 + 20 + 300);
	f.b[f.l4 + 12] = 0x50;
	len = f.len;
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_OK && cells_are(G_CHAN, 512 - len, 10, 100, 0, 10) &&
	     s.crp_nonpart_bytes == len,
	     "a TCP frame of %u bytes: A 512 -> %u, crp_nonpart_bytes %u", len, 512 - len, len);

	a = 512 - len;
	/* DATA without a reservation (DSCP trimmable) */
	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 100, 7, false);
	len = f.len;
	r = egress(&f);
	/* 202 (IPv4) or 222 (IPv6) bytes: the rest of A, all of B, some of C */
	ktap(r == TC_ACT_OK && len > a + 10 && len - a - 10 <= 100 &&
	     cells_are(G_CHAN, 0, 0, 100 - (len - a - 10), 0, 10) &&
	     stats().crp_nonpart_lost == 0,
	     "DATA with DSCP trimmable (%u bytes): the rest of A, then B, then C", len);

	set_table(G_CHAN, BASE, fig4);
	uet_data(&f, SMARTT_DSCP_CRP_GRANTED, 600, 7, false);
	r = egress(&f);
	ktap(r == TC_ACT_OK && cells_are(G_CHAN, 512, 10, 100, 0, 10),
	     "DATA with DSCP crp_granted is not taken again from the table");
	uet_data(&f, SMARTT_DSCP_CRP_SPEC, 600, 7, false);
	r = egress(&f);
	ktap(r == TC_ACT_OK && cells_are(G_CHAN, 512, 10, 100, 0, 10),
	     "DATA with DSCP crp_spec is not taken from the table");
	crp_frame(&f, SMARTT_PKT_CRP_RETRY, 80, BASE, 0);
	r = egress(&f);
	ktap(r == TC_ACT_OK && cells_are(G_CHAN, 512, 10, 100, 0, 10),
	     "a CRP control packet is not taken from the table");
}

/*
 * Speculative DATA (DSCP crp_spec) waiting longer than TTW at a switch port
 * is trimmed and remarked crp_spec_dropped; below TTW it queues untouched.
 */
static void spec_case(__u32 flags, __u64 wait_ns, bool late, const char *what)
{
	struct sf_port_stats s;
	struct frame f, g;
	int r;

	set_port(flags, 0);
	reset_stats();
	set_queue(NOW + wait_ns);
	uet_data(&f, SMARTT_DSCP_CRP_SPEC, 1000, 7, true);
	g = f;
	r = egress(&f);
	s = stats();
	if (!late) {
		ktap(r == TC_ACT_OK && f.len == g.len && !memcmp(f.b, g.b, f.len) &&
		     s.crp_spec_pkts == !(flags & SF_PORT_NIC) && !s.trimmed && !s.prio_pkts,
		     "%s: queued, untouched", what);
		return;
	}
	ktap(r == TC_ACT_OK && f.len == g.l4 + 8 + SMARTT_TRIM_BYTES_DEFAULT &&
	     !memcmp(udp_payload(&f), udp_payload(&g), SMARTT_TRIM_BYTES_DEFAULT) &&
	     dscp_of(&f) == SMARTT_DSCP_CRP_SPEC_DROPPED && s.crp_spec_drop == 1 &&
	     s.trimmed == 1 && s.prio_pkts == 1 && csum_ok(&f) && udp_csum_field(&f),
	     "%s: trimmed to %u bytes of UDP payload (headers as sent), DSCP crp_spec_dropped, "
	     "priority class, checksum valid", what, SMARTT_TRIM_BYTES_DEFAULT);
}

static void t_spec(void)
{
	struct frame f, g;
	int r;

	spec_case(0, 5000, false, "speculative DATA behind 5 us (TTW 20 us)");
	spec_case(0, TTW_NS + 5000, true, "speculative DATA behind 25 us (TTW 20 us)");
	spec_case(SF_PORT_LAST_HOP, TTW_NS + 5000, true,
		  "speculative DATA behind 25 us at a last-hop port");
	/* TTW is a bound on the wait at each port, whatever the trimming */
	{
		struct sf_port_cfg c = port_cfg_default(0, NOW);
		struct sf_port_stats s;

		c.flags &= ~SF_PORT_TRIM;
		set_port_cfg(PORT, &c);
		reset_stats();
		set_queue(NOW + TTW_NS + 5000);
		uet_data(&f, SMARTT_DSCP_CRP_SPEC, 1000, 7, false);
		r = egress(&f);
		s = stats();
		ktap(r == TC_ACT_OK && s.crp_spec_drop == 1 &&
		     dscp_of(&f) == SMARTT_DSCP_CRP_SPEC_DROPPED &&
		     f.len == f.l4 + 8 + SMARTT_TRIM_BYTES_DEFAULT,
		     "past TTW at a port with trimming off: trimmed all the same");
	}
	spec_case(SF_PORT_NIC, TTW_NS + 5000, false,
		  "speculative DATA behind 25 us at a host NIC (no TTW there)");

	/*
	 * A host's NIC: speculative DATA queues below data there too, without
	 * TTW: it leaves after the data queued (here 5 us) and the data class's
	 * clock does not move, so that a granted packet sent after it leaves
	 * at its own time, not behind the host's speculation.
	 */
	set_port(SF_PORT_NIC, 0);
	reset_stats();
	set_queue(NOW + 5000);
	uet_data(&f, SMARTT_DSCP_CRP_SPEC, 1000, 7, false);
	g = f;
	r = egress(&f);
	ktap(r == TC_ACT_OK && get_state().data_free_ns == NOW + 5000 &&
	     get_state().spec_free_ns > NOW + 5000 && stats().trimmed == 0 &&
	     f.len == g.len && !memcmp(f.b, g.b, f.len),
	     "speculative DATA at a host NIC: below data (data clock %llu, stays), no TTW, untouched",
	     (unsigned long long)(get_state().data_free_ns - NOW));

	/* ordinary data is not subject to TTW */
	set_port(0, 0);
	reset_stats();
	set_queue(NOW + 50000);
	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 1000, 7, false);
	g = f;
	r = egress(&f);
	ktap(r == TC_ACT_OK && stats().trimmed == 0 && !memcmp(f.b, g.b, f.len),
	     "DATA with DSCP trimmable behind 50 us: queued, untouched");
}

/* CRP's control packets are those on CRP's port with CRP's version only. */
static void t_ports(void)
{
	struct frame f, g;
	int r;

	set_port(0, G_CHAN);
	set_table(G_CHAN, BASE, fig4);
	reset_stats();
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x1f);
	f.b[f.l4 + 2] = SMARTT_UDP_PORT_DEFAULT >> 8;
	f.b[f.l4 + 3] = SMARTT_UDP_PORT_DEFAULT & 0xff;
	seal(&f, f.len);
	g = f;
	r = egress(&f);
	ktap(r == TC_ACT_OK && !memcmp(f.b, g.b, f.len) && !stats().crp_req &&
	     stats().prio_pkts == 1,
	     "a CRP request sent to the UET port is not read (priority by its DSCP only)");

	reset_stats();
	set_table(G_CHAN, BASE, fig4);
	crp_frame(&f, SMARTT_PKT_CRP_REQ, 80, BASE, 0x1f);
	hdr(&f)->version = 1;
	seal(&f, f.len);
	g = f;
	r = egress(&f);
	ktap(r == TC_ACT_OK && !memcmp(f.b, g.b, f.len) && !stats().crp_req,
	     "a version 1 request on the CRP port is other UDP");
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
	fd_cfg = bpf_map__fd(skel->maps.port_cfg);
	fd_state = bpf_map__fd(skel->maps.port_state);
	fd_stats = bpf_map__fd(skel->maps.port_stats);
	prog_egress = bpf_program__fd(skel->progs.sf_egress);
	prog_ingress = bpf_program__fd(skel->progs.sf_ingress);
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
		t_ports();
		t_malformed();
	}
	printf("1..%d\n", n_test);
	printf("# totals: pass %d fail %d\n", n_test - n_fail, n_fail);
	smartt_port_crp__destroy(skel);
	return n_fail ? 1 : 0;
}
