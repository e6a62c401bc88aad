// SPDX-License-Identifier: GPL-2.0
/*
 * smartt-fabric-port-test: the switch port's classes and trimming, run
 * with BPF_PROG_TEST_RUN on crafted frames (IPv4 and IPv6), no fabric
 * needed.
 *
 * Loads smartt_port.bpf.o (libbpf skeleton) with the default DSCP code
 * points, plays one port (the loopback device's ifindex, 1: a test run's
 * skb comes from it) with the time fixed by port_cfg.test_now_ns, and
 * checks what comes out: the class each DSCP gets, trimming of trimmable
 * DSCPs only (to trim_bytes of UDP payload, the payload that is left
 * byte for byte as sent, lengths and checksums fixed, a zero UDP checksum
 * kept zero, the DSCP remarked, last hop), drops of everything else at a
 * full buffer, host NICs that write nothing into packets, RED/ECN at the
 * far end by class.  Then loads it again with other code points and checks
 * that the classes follow them.
 *
 * Output: KTAP; exit 0 all passed, 1 a failure, 4 cannot run here.
 */
#include <time.h>
#include "smartt_fabric_test.h"
#include "smartt_port.skel.h"

#define NOW		5000000000ULL
#define SMALL_BUF	20000U
#define UPSTREAM	2U		/* the port whose queue an ingress reads */

static struct smartt_port *skel;

/* The PORT with @flags; a full data queue when @full. */
static void set_port(__u32 flags, bool full, __u32 buffer)
{
	struct sf_port_cfg c = port_cfg_default(flags, NOW);

	c.buffer_bytes = buffer;
	set_port_cfg(PORT, &c);
	reset_stats();
	if (full)	/* buffer x 8 ns at 1 Gbit/s: the whole buffer queued */
		set_queue(NOW + (__u64)buffer * 8);
}

/* A UDP frame (not UET) with @dscp and @pay bytes of payload. */
static void udp_frame(struct frame *f, __u8 dscp, __u16 dport, __u32 pay, bool csum)
{
	__u32 i;

	frame_ip(f, 17, dport, dscp);
	for (i = 0; i < pay; i++)
		udp_payload(f)[i] = (__u8)(i * 13 + 1);
	seal_csum(f, f->l4 + 8 + pay, csum);
}

/* A TCP segment with @dscp and @pay bytes of payload. */
static void tcp_frame(struct frame *f, __u8 dscp, __u32 pay)
{
	frame_ip(f, 6, 80, dscp);
	f->b[f->l4 + 12] = 0x50;
	seal(f, f->l4 + 20 + pay);	/* the lengths; the L4 checksum is not looked at */
}

/* Class of @f at the port (1 priority, 0 data, -1 dropped). */
static int class_of(struct frame *f)
{
	struct sf_port_stats s;
	int r;

	reset_stats();
	r = egress(f);
	s = stats();
	if (r != TC_ACT_OK)
		return -1;
	return s.prio_pkts == 1;
}

static void t_classes(void)
{
	static const struct {
		__u8 dscp;
		int prio;
		const char *what;
	} d[] = {
		{ SMARTT_DSCP_CONTROL, 1, "control" },
		{ SMARTT_DSCP_TRIMMED, 1, "trimmed" },
		{ SMARTT_DSCP_TRIMMED_LASTHOP, 1, "trimmed_lasthop" },
		{ SMARTT_DSCP_CRP_SPEC_DROPPED, 1, "crp_spec_dropped" },
		{ SMARTT_DSCP_TRIMMABLE, 0, "trimmable" },
		{ SMARTT_DSCP_CRP_SPEC, 0, "crp_spec (CRP off)" },
		{ SMARTT_DSCP_CRP_GRANTED, 0, "crp_granted" },
		{ 0, 0, "best effort (0)" },
	};
	struct frame f, g;
	size_t i;
	int c;

	set_port(0, false, 1 << 20);
	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		uet_data(&f, d[i].dscp, 1000, 7, false);
		g = f;
		c = class_of(&f);
		ktap(c == d[i].prio && f.len == g.len && !memcmp(f.b, g.b, f.len),
		     "DSCP %u (%s): %s class, the packet untouched", d[i].dscp, d[i].what,
		     d[i].prio ? "priority" : "data");
	}
	tcp_frame(&f, SMARTT_DSCP_CONTROL, 100);
	ktap(class_of(&f) == 1, "TCP with DSCP control: priority class (the DSCP alone decides)");
	udp_frame(&f, 0, SMARTT_UDP_PORT_DEFAULT, 100, true);
	ktap(class_of(&f) == 0, "UDP to the UET port with DSCP 0: data class (the payload is not read)");

	{
		struct sf_port_cfg c = port_cfg_default(0, NOW);

		c.flags &= ~SF_PORT_PRIO;
		set_port_cfg(PORT, &c);
	}
	uet_data(&f, SMARTT_DSCP_CONTROL, 100, 7, false);
	ktap(class_of(&f) == 0, "priority class off (prio=0): control DSCP in the data class");
}

/*
 * Trim @f at a full port with @flags and check it; @keep: the UDP payload
 * bytes it must keep, @dscp: the DSCP it must leave with.
 */
static void trim_check(struct frame *f, __u32 flags, __u32 keep, __u8 dscp, const char *what)
{
	struct sf_port_stats s;
	struct frame g = *f;
	bool had_csum = udp_csum_field(f) != 0;
	__u32 want_len = g.l4 + 8 + keep;
	int r;

	if (want_len > g.len)
		want_len = g.len;
	set_port(flags, true, SMALL_BUF);
	{
		struct sf_port_cfg c;
		__u32 k = PORT;

		bpf_map_lookup_elem(fd_cfg, &k, &c);
		c.trim_bytes = keep > SF_TRIM_BYTES_MAX ? SMARTT_TRIM_BYTES_DEFAULT : keep;
		bpf_map_update_elem(fd_cfg, &k, &c, 0);
	}
	r = egress(f);
	s = stats();
	ktap(r == TC_ACT_OK && s.trimmed == 1 && s.prio_pkts == 1 && s.tx_pkts == 1 &&
	     !s.drop_buffer && f->len == want_len,
	     "%s: trimmed to %u bytes of UDP payload (frame %u), priority class", what,
	     want_len - g.l4 - 8, f->len);
	ktap(!memcmp(udp_payload(f), udp_payload(&g), want_len - g.l4 - 8),
	     "%s: the UDP payload kept (PDS and SES headers) is byte for byte as sent", what);
	ktap(lengths_ok(f) && (had_csum ? udp_csum_field(f) && udp_sum(f) == 0xffff :
			       !udp_csum_field(f)),
	     "%s: IP and UDP lengths fixed, UDP checksum %s", what,
	     had_csum ? "recomputed and valid" : "0 kept 0");
	ktap(dscp_of(f) == dscp && ecn_of(f) == ecn_of(&g),
	     "%s: DSCP %u -> %u (got %u), ECN kept", what, dscp_of(&g), dscp, dscp_of(f));
	/* nothing else of the headers changed: addresses, ports, TTL */
	ktap(!memcmp(f->b, g.b, 14) && !memcmp(f->b + g.l4, g.b + g.l4, 4) &&
	     (v6 ? !memcmp(f->b + 14 + 6, g.b + 14 + 6, 34) :
		   !memcmp(f->b + 14 + 8, g.b + 14 + 8, 2) && !memcmp(f->b + 26, g.b + 26, 8)),
	     "%s: addresses, ports and TTL unchanged", what);
}

static void t_trim(void)
{
	struct sf_port_stats s;
	struct frame f, g;
	int r;

	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 1000, 7, true);
	trim_check(&f, 0, SMARTT_TRIM_BYTES_DEFAULT, SMARTT_DSCP_TRIMMED, "trimmable, UDP checksum");
	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 1000, 7, false);
	trim_check(&f, 0, SMARTT_TRIM_BYTES_DEFAULT, SMARTT_DSCP_TRIMMED, "trimmable, no UDP checksum");
	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 1000, 7, false);
	trim_check(&f, SF_PORT_LAST_HOP, SMARTT_TRIM_BYTES_DEFAULT, SMARTT_DSCP_TRIMMED_LASTHOP,
		   "last hop");
	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 1000, 7, true);
	trim_check(&f, 0, 100, SMARTT_DSCP_TRIMMED, "trim_bytes 100");
	uet_data(&f, SMARTT_DSCP_CRP_GRANTED, 1000, 7, false);
	trim_check(&f, SF_PORT_LAST_HOP, SMARTT_TRIM_BYTES_DEFAULT, SMARTT_DSCP_TRIMMED_LASTHOP,
		   "crp_granted (CRP off)");
	uet_data(&f, SMARTT_DSCP_CRP_SPEC, 1000, 7, false);
	trim_check(&f, 0, SMARTT_TRIM_BYTES_DEFAULT, SMARTT_DSCP_TRIMMED, "crp_spec (CRP off)");
	udp_frame(&f, SMARTT_DSCP_TRIMMABLE, SMARTT_UDP_PORT_DEFAULT, 40, true);
	trim_check(&f, 0, SMARTT_TRIM_BYTES_DEFAULT, SMARTT_DSCP_TRIMMED,
		   "a 40-byte payload (below the trim size)");
	/* what looks like a CRP request on the UET port is UET DATA */
	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 400, 7, true);
	udp_payload(&f)[0] = SMARTT_MAGIC >> 8;
	udp_payload(&f)[1] = SMARTT_MAGIC & 0xff;
	udp_payload(&f)[2] = SMARTT_WIRE_VERSION;
	udp_payload(&f)[3] = SMARTT_PKT_CRP_REQ;
	seal(&f, f.len);
	trim_check(&f, 0, SMARTT_TRIM_BYTES_DEFAULT, SMARTT_DSCP_TRIMMED,
		   "CRP's magic on the UET port");

	/* anything not trimmable overflows into a drop */
	set_port(0, true, SMALL_BUF);
	udp_frame(&f, 0, SMARTT_UDP_PORT_DEFAULT, 1000, true);
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_SHOT && s.drop_buffer == 1 && !s.trimmed && !s.tx_pkts,
	     "DSCP 0 UDP at a full buffer: dropped (drop_buffer), not trimmed");
	reset_stats();
	tcp_frame(&f, 0, 1000);
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_SHOT && s.drop_buffer == 1 && !s.trimmed,
	     "TCP at a full buffer: dropped, not trimmed");
	reset_stats();
	tcp_frame(&f, SMARTT_DSCP_TRIMMABLE, 1000);
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_SHOT && s.drop_buffer == 1 && !s.trimmed,
	     "TCP with DSCP trimmable at a full buffer: dropped (only UDP is trimmed)");

	set_port(0, true, SMALL_BUF);
	{
		struct sf_port_cfg c = port_cfg_default(0, NOW);

		c.buffer_bytes = SMALL_BUF;
		c.flags &= ~SF_PORT_TRIM;
		set_port_cfg(PORT, &c);
		set_queue(NOW + SMALL_BUF * 8);
	}
	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 1000, 7, false);
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_SHOT && s.drop_buffer == 1 && !s.trimmed,
	     "trimming off: trimmable DATA at a full buffer dropped");

	/* the priority class does not see the data queue */
	set_port(0, true, SMALL_BUF);
	uet_data(&f, SMARTT_DSCP_TRIMMED, 1000, 7, false);
	g = f;
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_OK && s.prio_pkts == 1 && !s.trimmed && f.len == g.len &&
	     !memcmp(f.b, g.b, f.len),
	     "a packet trimmed upstream at a full data buffer: priority class, untouched");
	reset_stats();
	uet_data(&f, SMARTT_DSCP_CONTROL, 20, 7, false);
	g = f;
	r = egress(&f);
	ktap(r == TC_ACT_OK && stats().prio_pkts == 1 && !memcmp(f.b, g.b, f.len),
	     "control at a full data buffer: priority class, untouched");
}

/* Host NICs write nothing into packets, either way. */
static void t_nic(void)
{
	struct sf_port_cfg c = port_cfg_default(SF_PORT_NIC, NOW);
	struct frame f, g;
	int r1, r2;

	c.flags &= ~(SF_PORT_TRIM | SF_PORT_ECN);
	set_port_cfg(PORT, &c);
	reset_stats();
	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 1000, 7, false);
	g = f;
	r1 = egress(&f);
	r2 = ingress(&f);
	ktap(r1 == TC_ACT_OK && r2 == TC_ACT_OK && f.len == g.len && !memcmp(f.b, g.b, f.len),
	     "host NIC: DATA leaves and arrives byte for byte as sent (no timestamps)");
	uet_data(&f, SMARTT_DSCP_CONTROL, 28, 7, true);
	g = f;
	r1 = egress(&f);
	r2 = ingress(&f);
	ktap(r1 == TC_ACT_OK && r2 == TC_ACT_OK && f.len == g.len && !memcmp(f.b, g.b, f.len),
	     "host NIC: an ACK-sized control packet byte for byte as sent");
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* RED at the far end: the data class is marked, the priority class never. */
static void t_ecn(void)
{
	struct sf_port_cfg up = port_cfg_default(SF_PORT_ECN, 0);
	struct sf_port_cfg me = port_cfg_default(0, 0);
	struct sf_port_state st = {};
	__u32 k = UPSTREAM;
	struct frame f;
	int r;

	up.kmin_bytes = up.kmax_bytes = 1000;
	set_port_cfg(UPSTREAM, &up);
	st.data_free_ns = mono_ns() + 10ULL * 1000000000ULL;	/* far above Kmax */
	bpf_map_update_elem(fd_state, &k, &st, 0);
	me.peer_ifindex = UPSTREAM;
	set_port_cfg(PORT, &me);
	reset_stats_of(UPSTREAM);

	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 1000, 7, true);
	r = ingress(&f);
	ktap(r == TC_ACT_OK && ecn_of(&f) == 3 && dscp_of(&f) == SMARTT_DSCP_TRIMMABLE &&
	     csum_ok(&f) && stats_of(UPSTREAM).ce_marked == 1,
	     "data class above Kmax: CE, DSCP kept, checksums valid");
	uet_data(&f, SMARTT_DSCP_CONTROL, 20, 7, true);
	r = ingress(&f);
	ktap(r == TC_ACT_OK && ecn_of(&f) == 1 && stats_of(UPSTREAM).ce_marked == 1,
	     "control DSCP above Kmax: not marked");
	uet_data(&f, SMARTT_DSCP_TRIMMED_LASTHOP, 20, 7, true);
	r = ingress(&f);
	ktap(r == TC_ACT_OK && ecn_of(&f) == 1 && stats_of(UPSTREAM).ce_marked == 1,
	     "trimmed DSCP above Kmax: not marked");
	ktap(stats_of(UPSTREAM).rx_pkts == 3, "the far end counted 3 packets for the upstream port");
}

/* Another set of code points: the classes follow the load's settings. */
#define K_TRIMMABLE	20
#define K_TRIMMED	22
#define K_LASTHOP	24
#define K_CONTROL	40
#define K_SPEC		26
#define K_GRANTED	28
#define K_DROPPED	30

static void t_knobs(void)
{
	struct sf_port_stats s;
	struct frame f;
	int r;

	uet_data(&f, K_TRIMMABLE, 1000, 7, true);
	trim_check(&f, 0, SMARTT_TRIM_BYTES_DEFAULT, K_TRIMMED, "knobs: dscp_trimmable 20");
	uet_data(&f, K_TRIMMABLE, 1000, 7, false);
	trim_check(&f, SF_PORT_LAST_HOP, SMARTT_TRIM_BYTES_DEFAULT, K_LASTHOP,
		   "knobs: last hop, dscp_trimmed_lasthop 24");
	set_port(0, true, SMALL_BUF);
	uet_data(&f, SMARTT_DSCP_TRIMMABLE, 1000, 7, false);
	r = egress(&f);
	s = stats();
	ktap(r == TC_ACT_SHOT && s.drop_buffer == 1 && !s.trimmed,
	     "knobs: the default trimmable DSCP 10 is no longer trimmed");
	set_port(0, false, 1 << 20);
	uet_data(&f, K_CONTROL, 20, 7, false);
	ktap(class_of(&f) == 1, "knobs: dscp_control 40 is the priority class");
	uet_data(&f, SMARTT_DSCP_CONTROL, 20, 7, false);
	ktap(class_of(&f) == 0, "knobs: DSCP 46 is data now");
	uet_data(&f, K_DROPPED, 20, 7, false);
	ktap(class_of(&f) == 1, "knobs: dscp_crp_spec_dropped 30 is the priority class");
}

static int load(bool other)
{
	skel = smartt_port__open();
	if (!skel)
		return -errno;
	if (other) {
		skel->rodata->dscp_trimmable = K_TRIMMABLE;
		skel->rodata->dscp_trimmed = K_TRIMMED;
		skel->rodata->dscp_trimmed_lasthop = K_LASTHOP;
		skel->rodata->dscp_control = K_CONTROL;
		skel->rodata->dscp_crp_spec = K_SPEC;
		skel->rodata->dscp_crp_granted = K_GRANTED;
		skel->rodata->dscp_crp_spec_dropped = K_DROPPED;
	}
	/* SF_PORT_VERIFIER=1: the verifier's statistics of each program */
	if (!other && getenv("SF_PORT_VERIFIER")) {
		static char log_e[65536], log_i[65536];

		bpf_program__set_log_level(skel->progs.sf_egress, 4);
		bpf_program__set_log_buf(skel->progs.sf_egress, log_e, sizeof(log_e));
		bpf_program__set_log_level(skel->progs.sf_ingress, 4);
		bpf_program__set_log_buf(skel->progs.sf_ingress, log_i, sizeof(log_i));
		if (!smartt_port__load(skel)) {
			printf("# sf_egress:\n%s# sf_ingress:\n%s", log_e, log_i);
			goto loaded;
		}
	}
	if (smartt_port__load(skel)) {
		int err = -errno;

		smartt_port__destroy(skel);
		skel = NULL;
		return err;
	}
loaded:
	fd_cfg = bpf_map__fd(skel->maps.port_cfg);
	fd_state = bpf_map__fd(skel->maps.port_state);
	fd_stats = bpf_map__fd(skel->maps.port_stats);
	prog_egress = bpf_program__fd(skel->progs.sf_egress);
	prog_ingress = bpf_program__fd(skel->progs.sf_ingress);
	return 0;
}

int main(void)
{
	int err, pass;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (BPF_PROG_TEST_RUN of tc programs)\n");
		return 4;
	}
	libbpf_set_print(quiet);
	err = load(false);
	if (err) {
		/* on a supported kernel the verifier must take the port */
		printf("not ok 1 load smartt_port.bpf.o: %s\n1..1\n", strerror(-err));
		return 1;
	}
	printf("TAP version 13\n");
	for (pass = 0; pass < 2; pass++) {
		v6 = pass;
		t_classes();
		t_trim();
		t_nic();
		t_ecn();
	}
	smartt_port__destroy(skel);
	err = load(true);
	if (err) {
		ktap(false, "load smartt_port.bpf.o with other DSCP code points: %s",
		     strerror(-err));
	} else {
		for (pass = 0; pass < 2; pass++) {
			v6 = pass;
			t_knobs();
		}
		smartt_port__destroy(skel);
	}
	printf("1..%d\n", n_test);
	printf("# totals: pass %d fail %d\n", n_test - n_fail, n_fail);
	return n_fail ? 1 : 0;
}
