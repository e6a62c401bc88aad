// SPDX-License-Identifier: GPL-2.0
/*
 * smartt-fabric-bpf: loads the smartt tc programs (libbpf skeleton), pins
 * them, attaches them to devices in network namespaces with
 * bpf_tc_hook_create()/bpf_tc_attach(), writes per-port configuration and
 * reads the per-port counters.  The smartt-fabric front end drives it; it
 * knows nothing about topologies.
 *
 *   smartt-fabric-bpf load   PINDIR [crp_udp_port=N] [crp=0|1] [dscp_NAME=D...]
 *   smartt-fabric-bpf attach PINDIR NETNS DEV egress|ingress
 *   smartt-fabric-bpf cfg    PINDIR IFINDEX key=value...
 *   smartt-fabric-bpf get    PINDIR IFINDEX
 *   smartt-fabric-bpf stats  PINDIR IFINDEX...
 *   smartt-fabric-bpf reset  PINDIR IFINDEX...
 *   smartt-fabric-bpf sample PINDIR INTERVAL_NS [SECONDS]
 *   smartt-fabric-bpf batch  PINDIR        (commands without PINDIR on stdin)
 *   smartt-fabric-bpf crp    PINDIR slot_ns=N cells=N ttw_ns=N retry_ns=N eager=N
 *   smartt-fabric-bpf crp_group PINDIR GROUP cmax=BYTES members=N
 *   smartt-fabric-bpf crp_show PINDIR [GROUP...]
 *
 * load sets the programs' read-only settings: the UDP port of CRP's control
 * packets and the DSCP code points (NAME: trimmable, trimmed,
 * trimmed_lasthop, control, crp_spec, crp_granted, crp_spec_dropped; each
 * 0..63, all distinct; defaults in smartt_fabric.h).
 * load crp=1 loads the port with CRP (smartt_port_crp.bpf.o); crp turns
 * CRP on with the fabric's knobs (checked with the core's
 * crp_knobs_validate()), crp_group gives a group its table (every cell
 * free; cells from crp), a port joins a group with cfg crp_group=GROUP;
 * crp_show prints the settings and the tables, one JSON object per line.
 *
 * Output of get/stats: one JSON object per line.  sample turns the port
 * program's queue sampling on (a window of INTERVAL_NS per sample, every
 * emulated port of the fabric), prints one line "T_NS IFINDEX QBYTES" per
 * sample (struct sf_qsample) until SIGINT/SIGTERM or SECONDS, turns it off
 * and prints "# samples N lost M" on stderr.  Errors: a message on stderr
 * and exit status 1; bad values are rejected, never clamped.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "linux/smartt.h"
#include "smartt_fabric.h"
#include "smartt_port.skel.h"
#include "smartt_port_crp.skel.h"

_Static_assert(sizeof(struct smartt_hdr) == SMARTT_HDR_LEN, "smartt_hdr size");

static const char *pindir;

static int err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int err(const char *fmt, ...)
{
	va_list ap;

	fputs("smartt-fabric-bpf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static int pin_path(char *buf, size_t len, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", pindir, name);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int pinned_fd(const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (pin_path(path, sizeof(path), name))
		return -1;
	fd = bpf_obj_get(path);
	if (fd < 0)
		err("cannot open pinned %s: %s", path, strerror(errno));
	return fd;
}

static int parse_u64(const char *s, __u64 max, __u64 *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Pin a loaded port object's maps and programs in pindir. */
static int pin_obj(struct bpf_object *obj, struct bpf_program *eg, struct bpf_program *in)
{
	char path[PATH_MAX];
	int ret;

	ret = bpf_object__pin_maps(obj, pindir);
	if (ret)
		return err("cannot pin maps in %s: %s", pindir, strerror(-ret));
	if (pin_path(path, sizeof(path), "sf_egress") ||
	    bpf_program__pin(eg, path) ||
	    pin_path(path, sizeof(path), "sf_ingress") ||
	    bpf_program__pin(in, path)) {
		err("cannot pin programs in %s: %s", pindir, strerror(errno));
		bpf_object__unpin_maps(obj, pindir);
		return 1;
	}
	return 0;
}

/* The DSCP code points, in the order of the load arguments' names. */
enum { D_TRIMMABLE, D_TRIMMED, D_TRIMMED_LASTHOP, D_CONTROL, D_CRP_SPEC,
       D_CRP_GRANTED, D_CRP_SPEC_DROPPED, D_NUM };

static const struct {
	const char *name;
	__u8 def;
} dscp_args[D_NUM] = {
	[D_TRIMMABLE]		= { "dscp_trimmable", SMARTT_DSCP_TRIMMABLE },
	[D_TRIMMED]		= { "dscp_trimmed", SMARTT_DSCP_TRIMMED },
	[D_TRIMMED_LASTHOP]	= { "dscp_trimmed_lasthop", SMARTT_DSCP_TRIMMED_LASTHOP },
	[D_CONTROL]		= { "dscp_control", SMARTT_DSCP_CONTROL },
	[D_CRP_SPEC]		= { "dscp_crp_spec", SMARTT_DSCP_CRP_SPEC },
	[D_CRP_GRANTED]		= { "dscp_crp_granted", SMARTT_DSCP_CRP_GRANTED },
	[D_CRP_SPEC_DROPPED]	= { "dscp_crp_spec_dropped", SMARTT_DSCP_CRP_SPEC_DROPPED },
};

/* The port without CRP, or with it (the same source built with SF_CRP=1). */
#define LOAD_PORT(type, port, d, ret) do {					\
	struct type *skel = type##__open();					\
										\
	if (!skel) {								\
		ret = err("cannot open BPF skeleton: %s", strerror(errno));	\
		break;								\
	}									\
	skel->rodata->crp_udp_port = port;					\
	skel->rodata->dscp_trimmable = d[D_TRIMMABLE];				\
	skel->rodata->dscp_trimmed = d[D_TRIMMED];				\
	skel->rodata->dscp_trimmed_lasthop = d[D_TRIMMED_LASTHOP];		\
	skel->rodata->dscp_control = d[D_CONTROL];				\
	skel->rodata->dscp_crp_spec = d[D_CRP_SPEC];				\
	skel->rodata->dscp_crp_granted = d[D_CRP_GRANTED];			\
	skel->rodata->dscp_crp_spec_dropped = d[D_CRP_SPEC_DROPPED];		\
	ret = type##__load(skel);						\
	if (ret)								\
		ret = err("cannot load BPF programs: %s", strerror(-ret));	\
	else									\
		ret = pin_obj(skel->obj, skel->progs.sf_egress,			\
			      skel->progs.sf_ingress);				\
	type##__destroy(skel);							\
} while (0)

static int cmd_load(int argc, char **argv)
{
	__u64 port = SMARTT_CRP_UDP_PORT_DEFAULT, crp = 0, v;
	__u8 d[D_NUM];
	int i, j, ret;

	for (j = 0; j < D_NUM; j++)
		d[j] = dscp_args[j].def;
	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		size_t n = eq ? (size_t)(eq - argv[i]) : 0;

		if (!strncmp(argv[i], "crp_udp_port=", 13)) {
			if (parse_u64(argv[i] + 13, 65535, &port) || !port ||
			    port == SMARTT_UDP_PORT_DEFAULT)
				return err("bad crp_udp_port '%s' (1..65535, not the UET port %d)",
					   argv[i] + 13, SMARTT_UDP_PORT_DEFAULT);
			continue;
		}
		if (!strncmp(argv[i], "crp=", 4)) {
			if (parse_u64(argv[i] + 4, 1, &crp))
				return err("bad crp '%s' (0 or 1)", argv[i] + 4);
			continue;
		}
		for (j = 0; j < D_NUM; j++)
			if (eq && strlen(dscp_args[j].name) == n &&
			    !strncmp(argv[i], dscp_args[j].name, n))
				break;
		if (j == D_NUM)
			return err("load: unknown argument '%s'", argv[i]);
		if (parse_u64(eq + 1, SMARTT_DSCP_MAX, &v))
			return err("bad %s '%s' (0..%d)", dscp_args[j].name, eq + 1, SMARTT_DSCP_MAX);
		d[j] = v;
	}
	/* Every class must be told apart from every other. */
	for (i = 0; i < D_NUM; i++)
		for (j = i + 1; j < D_NUM; j++)
			if (d[i] == d[j])
				return err("%s and %s are both %u: the DSCP code points must be distinct",
					   dscp_args[i].name, dscp_args[j].name, d[i]);
	if (mkdir(pindir, 0700) && errno != EEXIST)
		return err("mkdir %s: %s", pindir, strerror(errno));
	if (crp)
		LOAD_PORT(smartt_port_crp, port, d, ret);
	else
		LOAD_PORT(smartt_port, port, d, ret);
	return ret ? 1 : 0;
}

static int enter_netns(const char *ns)
{
	char path[PATH_MAX];
	int fd, n;

	if (strchr(ns, '/'))
		n = snprintf(path, sizeof(path), "%s", ns);
	else
		n = snprintf(path, sizeof(path), "/run/netns/%s", ns);
	if (n < 0 || (size_t)n >= sizeof(path))
		return err("netns name too long");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err("open %s: %s", path, strerror(errno));
	if (setns(fd, CLONE_NEWNET)) {
		close(fd);
		return err("setns %s: %s", path, strerror(errno));
	}
	close(fd);
	return 0;
}

static int cmd_attach(int argc, char **argv)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);
	const char *prog;
	int ifindex, fd, ret;

	if (argc != 3)
		return err("usage: attach NETNS DEV egress|ingress");
	if (!strcmp(argv[2], "egress")) {
		hook.attach_point = BPF_TC_EGRESS;
		prog = "sf_egress";
	} else if (!strcmp(argv[2], "ingress")) {
		hook.attach_point = BPF_TC_INGRESS;
		prog = "sf_ingress";
	} else {
		return err("attach: direction must be egress or ingress, not '%s'", argv[2]);
	}
	fd = pinned_fd(prog);
	if (fd < 0)
		return 1;
	if (enter_netns(argv[0])) {
		close(fd);
		return 1;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		close(fd);
		return err("no device %s in netns %s", argv[1], argv[0]);
	}
	hook.ifindex = ifindex;
	ret = bpf_tc_hook_create(&hook);
	if (ret && ret != -EEXIST) {
		close(fd);
		return err("clsact on %s/%s: %s", argv[0], argv[1], strerror(-ret));
	}
	opts.prog_fd = fd;
	opts.flags = BPF_TC_F_REPLACE;
	ret = bpf_tc_attach(&hook, &opts);
	close(fd);
	if (ret)
		return err("attach %s to %s/%s: %s", prog, argv[0], argv[1], strerror(-ret));
	return 0;
}

struct knob {
	const char *name;
	__u64 max;
	size_t off;
	int size;	/* bytes, or 0 for a flag (mask in max) */
};

#define K(n, m, f) { n, m, offsetof(struct sf_port_cfg, f), sizeof(((struct sf_port_cfg *)0)->f) }
#define F(n, bit) { n, bit, 0, 0 }

static const struct knob knobs[] = {
	K("rate", UINT64_MAX, rate_bps),
	K("delay", 10ULL * 1000000000ULL, delay_ns),
	K("buffer", UINT32_MAX, buffer_bytes),
	K("kmin", UINT32_MAX, kmin_bytes),
	K("kmax", UINT32_MAX, kmax_bytes),
	K("loss", 1000, loss_permille),
	K("peer", SF_MAX_PORTS - 1, peer_ifindex),
	K("trim_bytes", 0xffff, trim_bytes),
	K("standing", UINT32_MAX, standing_bytes),
	K("hist_bin", UINT32_MAX, hist_bin_bytes),
	K("prio_buffer", UINT32_MAX, prio_buffer_bytes),
	K("crp_group", SF_CRP_GROUPS - 1, crp_group),
	F("emulate", SF_PORT_EMULATE),
	F("ecn", SF_PORT_ECN),
	F("trim", SF_PORT_TRIM),
	F("blackhole", SF_PORT_BLACKHOLE),
	F("last_hop", SF_PORT_LAST_HOP),
	F("edt", SF_PORT_EDT),
	F("nic", SF_PORT_NIC),
	F("prio", SF_PORT_PRIO),
};

static int validate(const struct sf_port_cfg *c)
{
	if ((c->flags & SF_PORT_EMULATE) && c->rate_bps < 1000)
		return err("rate must be >= 1000 bit/s on an emulated port");
	if (c->rate_bps > 16000000000000ULL)
		return err("rate above 16 Tbit/s");
	if (c->kmin_bytes > c->kmax_bytes)
		return err("kmin (%u) above kmax (%u)", c->kmin_bytes, c->kmax_bytes);
	if ((c->flags & SF_PORT_EMULATE) && c->buffer_bytes < 1500)
		return err("buffer must be >= 1500 bytes");
	/* 0 (a port never configured) trims to SMARTT_TRIM_BYTES_DEFAULT. */
	if (c->trim_bytes && (c->trim_bytes < SF_TRIM_BYTES_MIN || c->trim_bytes > SF_TRIM_BYTES_MAX))
		return err("trim_bytes must be %d..%d (UDP payload bytes a trimmed packet keeps)",
			   SF_TRIM_BYTES_MIN, SF_TRIM_BYTES_MAX);
	if ((c->flags & SF_PORT_EMULATE) && !c->hist_bin_bytes)
		return err("hist_bin must be > 0");
	return 0;
}

static int cmd_cfg(int argc, char **argv)
{
	struct sf_port_cfg c;
	__u64 ifindex, v;
	int fd, i, ret;

	if (argc < 1)
		return err("usage: cfg IFINDEX key=value...");
	if (parse_u64(argv[0], SF_MAX_PORTS - 1, &ifindex))
		return err("bad ifindex '%s' (0..%d)", argv[0], SF_MAX_PORTS - 1);
	fd = pinned_fd("port_cfg");
	if (fd < 0)
		return 1;
	__u32 key = ifindex;

	if (bpf_map_lookup_elem(fd, &key, &c)) {
		close(fd);
		return err("lookup port %u: %s", key, strerror(errno));
	}
	for (i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const struct knob *k = NULL;
		size_t j;

		if (!eq) {
			close(fd);
			return err("expected key=value, got '%s'", argv[i]);
		}
		*eq = 0;
		for (j = 0; j < sizeof(knobs) / sizeof(knobs[0]); j++)
			if (!strcmp(knobs[j].name, argv[i]))
				k = &knobs[j];
		if (!k) {
			close(fd);
			return err("unknown knob '%s'", argv[i]);
		}
		if (parse_u64(eq + 1, k->size ? k->max : 1, &v)) {
			close(fd);
			return err("bad value '%s' for %s (0..%llu)", eq + 1, k->name,
				   (unsigned long long)(k->size ? k->max : 1));
		}
		if (!k->size) {
			if (v)
				c.flags |= k->max;
			else
				c.flags &= ~k->max;
			continue;
		}
		switch (k->size) {
		case 1: *((__u8 *)&c + k->off) = v; break;
		case 2: *(__u16 *)((char *)&c + k->off) = v; break;
		case 4: *(__u32 *)((char *)&c + k->off) = v; break;
		default: *(__u64 *)((char *)&c + k->off) = v; break;
		}
	}
	if (validate(&c)) {
		close(fd);
		return 1;
	}
	ret = bpf_map_update_elem(fd, &key, &c, BPF_ANY);
	close(fd);
	if (ret)
		return err("update port %u: %s", key, strerror(errno));
	return 0;
}

static int cmd_get(int argc, char **argv)
{
	struct sf_port_cfg c;
	__u64 ifindex;
	__u32 key;
	size_t j;
	int fd;

	if (argc != 1 || parse_u64(argv[0], SF_MAX_PORTS - 1, &ifindex))
		return err("usage: get IFINDEX");
	fd = pinned_fd("port_cfg");
	if (fd < 0)
		return 1;
	key = ifindex;
	if (bpf_map_lookup_elem(fd, &key, &c)) {
		close(fd);
		return err("lookup port %u: %s", key, strerror(errno));
	}
	close(fd);
	printf("{\"ifindex\":%u", key);
	for (j = 0; j < sizeof(knobs) / sizeof(knobs[0]); j++) {
		const struct knob *k = &knobs[j];
		unsigned long long v;

		if (!k->size)
			v = !!(c.flags & k->max);
		else if (k->size == 1)
			v = *((__u8 *)&c + k->off);
		else if (k->size == 2)
			v = *(__u16 *)((char *)&c + k->off);
		else if (k->size == 4)
			v = *(__u32 *)((char *)&c + k->off);
		else
			v = *(__u64 *)((char *)&c + k->off);
		printf(",\"%s\":%llu", k->name, v);
	}
	printf("}\n");
	return 0;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#define STAT_FIELDS(X) \
	X(tx_pkts) X(tx_bytes) X(prio_pkts) X(trimmed) X(drop_buffer) \
	X(drop_prio) X(drop_blackhole) X(drop_loss) X(drop_trim_err) \
	X(rx_pkts) X(rx_bytes) X(ect_pkts) X(ce_marked) X(ce_seen) \
	X(mark_err) \
	X(crp_req) X(crp_req_bits) X(crp_req_late) X(crp_dest_grant) \
	X(crp_dest_retry) X(crp_dest_full) X(crp_grant_ok) X(crp_grant_conv) \
	X(crp_nonpart_bytes) X(crp_nonpart_lost) X(crp_spec_pkts) \
	X(crp_spec_drop) X(drop_crp_bad) X(crp_err)

static int stats_one(int fd_cfg, int fd_state, int fd_stats, __u32 key, bool reset)
{
	int ncpu = libbpf_num_possible_cpus();
	struct sf_port_stats sum = {}, *pc;
	struct sf_port_state s;
	struct sf_port_cfg c;
	__u64 now, q = 0;
	int cpu, i;

	if (ncpu <= 0)
		return err("cannot count CPUs");
	pc = calloc(ncpu, sizeof(*pc));
	if (!pc)
		return err("out of memory");
	if (reset) {
		int ret = bpf_map_update_elem(fd_stats, &key, pc, BPF_ANY);

		if (!ret && !bpf_map_lookup_elem(fd_state, &key, &s)) {
			s.max_queue_bytes = 0;
			ret = bpf_map_update_elem(fd_state, &key, &s, BPF_ANY);
		}
		free(pc);
		if (ret)
			return err("reset port %u: %s", key, strerror(errno));
		return 0;
	}
	if (bpf_map_lookup_elem(fd_stats, &key, pc) ||
	    bpf_map_lookup_elem(fd_state, &key, &s) ||
	    bpf_map_lookup_elem(fd_cfg, &key, &c)) {
		free(pc);
		return err("lookup port %u: %s", key, strerror(errno));
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
#define ADD(f) sum.f += pc[cpu].f;
		STAT_FIELDS(ADD)
#undef ADD
		for (i = 0; i < SF_HIST_BINS; i++)
			sum.hist[i] += pc[cpu].hist[i];
	}
	free(pc);
	now = mono_ns();
	if (c.rate_bps && s.data_free_ns > now)
		q = (s.data_free_ns - now) * (c.rate_bps / 8) / 1000000000ULL;
	printf("{\"ifindex\":%u", key);
#define PR(f) printf(",\"" #f "\":%llu", (unsigned long long)sum.f);
	STAT_FIELDS(PR)
#undef PR
	printf(",\"queue_bytes\":%llu,\"max_queue_bytes\":%llu,\"hist_bin_bytes\":%u,\"hist\":[",
	       (unsigned long long)q, (unsigned long long)s.max_queue_bytes, c.hist_bin_bytes);
	for (i = 0; i < SF_HIST_BINS; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)sum.hist[i]);
	printf("]}\n");
	return 0;
}

static int cmd_stats(int argc, char **argv, bool reset)
{
	int fd_cfg, fd_state, fd_stats, i, ret = 0;
	__u64 ifindex;

	fd_cfg = pinned_fd("port_cfg");
	fd_state = pinned_fd("port_state");
	fd_stats = pinned_fd("port_stats");
	if (fd_cfg < 0 || fd_state < 0 || fd_stats < 0)
		ret = 1;
	for (i = 0; !ret && i < argc; i++) {
		if (parse_u64(argv[i], SF_MAX_PORTS - 1, &ifindex)) {
			ret = err("bad ifindex '%s'", argv[i]);
			break;
		}
		ret = stats_one(fd_cfg, fd_state, fd_stats, ifindex, reset);
	}
	fflush(stdout);
	if (fd_cfg >= 0)
		close(fd_cfg);
	if (fd_state >= 0)
		close(fd_state);
	if (fd_stats >= 0)
		close(fd_stats);
	return ret;
}

static volatile sig_atomic_t sample_stop;
static unsigned long long sample_count;

static void on_stop_signal(int sig)
{
	(void)sig;
	sample_stop = 1;
}

static int sample_one(void *ctx, void *data, size_t len)
{
	const struct sf_qsample *q = data;

	(void)ctx;
	if (len < sizeof(*q))
		return 0;
	printf("%llu %u %u\n", (unsigned long long)q->t_ns, q->ifindex, q->qbytes);
	sample_count++;
	return 0;
}

static int sample_set(int fd, __u64 interval, __u64 *lost)
{
	struct sf_sample_cfg c;
	__u32 key = 0;

	if (bpf_map_lookup_elem(fd, &key, &c))
		return err("lookup sample_cfg: %s", strerror(errno));
	if (lost)
		*lost = c.lost;
	c.interval_ns = interval;
	if (bpf_map_update_elem(fd, &key, &c, BPF_ANY))
		return err("update sample_cfg: %s", strerror(errno));
	return 0;
}

static int cmd_sample(int argc, char **argv)
{
	__u64 interval, secs = 0, lost0 = 0, lost1 = 0, deadline = 0;
	struct ring_buffer *rb = NULL;
	struct sigaction sa = {};
	int fd_cfg, fd_ring, ret = 0;
	static char obuf[1 << 16];

	if (argc < 1 || argc > 2)
		return err("usage: sample INTERVAL_NS [SECONDS]");
	if (parse_u64(argv[0], 10ULL * 1000000000ULL, &interval) || !interval)
		return err("bad interval '%s' (1..10000000000 ns)", argv[0]);
	if (argc == 2 && (parse_u64(argv[1], 86400, &secs) || !secs))
		return err("bad duration '%s' (1..86400 s)", argv[1]);
	/* Fabrics loaded by a controller without sampling have neither map. */
	fd_cfg = pinned_fd("sample_cfg");
	if (fd_cfg < 0)
		return err("this fabric's programs have no queue sampling (loaded by an older "
			   "controller): bring the fabric down and up again");
	fd_ring = pinned_fd("queue_samples");
	if (fd_ring < 0) {
		close(fd_cfg);
		return 1;
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rb = ring_buffer__new(fd_ring, sample_one, NULL, NULL);
	if (!rb) {
		ret = err("cannot open the sample ring buffer: %s", strerror(errno));
		goto out;
	}
	if (sample_set(fd_cfg, interval, &lost0)) {
		ret = 1;
		goto out;
	}
	if (secs)
		deadline = mono_ns() + secs * 1000000000ULL;
	while (!sample_stop && (!deadline || mono_ns() < deadline)) {
		int n = ring_buffer__poll(rb, 20);

		if (n < 0 && n != -EINTR) {
			ret = err("ring buffer: %s", strerror(-n));
			break;
		}
	}
	if (sample_set(fd_cfg, 0, &lost1))
		ret = 1;
	/* What the programs wrote before they saw the interval go to 0. */
	ring_buffer__consume(rb);
	fflush(stdout);
	fprintf(stderr, "# samples %llu lost %llu\n", sample_count,
		(unsigned long long)(lost1 - lost0));
out:
	ring_buffer__free(rb);
	close(fd_cfg);
	close(fd_ring);
	return ret;
}

/* CRP knobs the crp command takes: the core's names (crp_knob_descs[]). */
static const char *const crp_cmd_knobs[] = {
	"slot_ns", "cells", "ttw_ns", "retry_ns", "eager",
};

static int cmd_crp(int argc, char **argv)
{
	struct sf_crp_cfg c = { .flags = SF_CRP_ON, .knobs = crp_defaults };
	__u32 zero = 0;
	__u64 v;
	int fd, i, ret;
	size_t j;

	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		int idx = -1;

		if (eq) {
			*eq = 0;
			for (j = 0; j < sizeof(crp_cmd_knobs) / sizeof(crp_cmd_knobs[0]); j++)
				if (!strcmp(argv[i], crp_cmd_knobs[j]))
					idx = crp_knob_find(argv[i]);
		}
		if (idx < 0)
			return err("crp: expected slot_ns=, cells=, ttw_ns=, retry_ns= or eager=, got '%s'",
				   argv[i]);
		if (parse_u64(eq + 1, UINT32_MAX, &v) || v < crp_knob_descs[idx].min ||
		    v > crp_knob_descs[idx].max)
			return err("crp: bad %s '%s' (%u..%u %s)", argv[i], eq + 1,
				   crp_knob_descs[idx].min, crp_knob_descs[idx].max,
				   crp_knob_descs[idx].unit);
		crp_knob_set(&c.knobs, idx, v);
	}
	/* cmax, nmin, nmax belong to the tables and the senders: valid here */
	c.knobs.cmax = CRP_CMAX_MAX;
	c.knobs.nmin = 1;
	c.knobs.nmax = 1;
	if (crp_knobs_validate(&c.knobs))
		return err("crp: knobs out of range");
	fd = pinned_fd("crp_cfg");
	if (fd < 0)
		return 1;
	ret = bpf_map_update_elem(fd, &zero, &c, BPF_ANY);
	close(fd);
	if (ret)
		return err("crp: update: %s", strerror(errno));
	return 0;
}

static int cmd_crp_group(int argc, char **argv)
{
	struct sf_crp_table t = {};
	struct sf_crp_cfg c;
	__u64 g, cmax = 0, members = 0;
	__u32 zero = 0, key;
	int fd, i, ret;

	if (argc < 1 || parse_u64(argv[0], SF_CRP_GROUPS - 1, &g) || !g)
		return err("usage: crp_group GROUP(1..%d) cmax=BYTES members=N", SF_CRP_GROUPS - 1);
	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "cmax=", 5)) {
			if (parse_u64(argv[i] + 5, CRP_CMAX_MAX, &cmax) || !cmax)
				return err("crp_group: bad cmax '%s' (1..%u bytes: the group's summed rate x slot)",
					   argv[i] + 5, CRP_CMAX_MAX);
		} else if (!strncmp(argv[i], "members=", 8)) {
			if (parse_u64(argv[i] + 8, SF_MAX_PORTS, &members) || !members)
				return err("crp_group: bad members '%s' (1..%d)", argv[i] + 8,
					   SF_MAX_PORTS);
		} else {
			return err("crp_group: unknown argument '%s'", argv[i]);
		}
	}
	if (!cmax || !members)
		return err("crp_group: cmax= and members= are required");
	fd = pinned_fd("crp_cfg");
	if (fd < 0)
		return 1;
	ret = bpf_map_lookup_elem(fd, &zero, &c);
	close(fd);
	if (ret || !(c.flags & SF_CRP_ON))
		return err("crp_group: CRP is not on (crp first)");
	c.knobs.cmax = cmax;
	c.knobs.nmin = 1;
	c.knobs.nmax = 1;
	if (crp_table_init(&t.t, &c.knobs, 0))
		return err("crp_group: cmax %llu does not fit the knobs", (unsigned long long)cmax);
	t.members = members;
	fd = pinned_fd("crp_tables");
	if (fd < 0)
		return 1;
	key = g;
	ret = bpf_map_update_elem(fd, &key, &t, BPF_ANY);
	close(fd);
	if (ret)
		return err("crp_group %u: update: %s", key, strerror(errno));
	return 0;
}

static void crp_show_one(int fd, __u32 g)
{
	struct sf_crp_table t;
	__u32 i, eager = 0;

	if (bpf_map_lookup_elem(fd, &g, &t) || !t.t.cells)
		return;
	for (i = 0; i < CRP_EAGER_MAX; i++)
		eager += !!t.t.eager[i].tag;
	printf("{\"group\":%u,\"members\":%u,\"base\":%llu,\"cmax\":%u,\"eager\":%u,\"cells\":[",
	       g, t.members, (unsigned long long)t.t.base, t.t.cmax, eager);
	for (i = 0; i < t.t.cells && i < CRP_CELLS_MAX; i++)
		printf("%s%u", i ? "," : "", t.t.cell[i]);
	printf("]}\n");
}

static int cmd_crp_show(int argc, char **argv)
{
	struct sf_crp_cfg c = {};
	__u32 zero = 0, g;
	int fd, i;
	__u64 v;

	fd = pinned_fd("crp_cfg");
	if (fd < 0)
		return 1;
	if (bpf_map_lookup_elem(fd, &zero, &c)) {
		close(fd);
		return err("crp_show: lookup: %s", strerror(errno));
	}
	close(fd);
	printf("{\"crp\":%u,\"slot_ns\":%u,\"cells\":%u,\"ttw_ns\":%u,\"retry_ns\":%u,\"eager\":%u,\"now_slot\":%llu}\n",
	       !!(c.flags & SF_CRP_ON), c.knobs.slot_ns, c.knobs.cells, c.knobs.ttw_ns,
	       c.knobs.retry_ns, c.knobs.eager,
	       c.knobs.slot_ns ? (unsigned long long)(mono_ns() / c.knobs.slot_ns) : 0ULL);
	fd = pinned_fd("crp_tables");
	if (fd < 0)
		return 1;
	for (i = 0; i < argc; i++) {
		if (parse_u64(argv[i], SF_CRP_GROUPS - 1, &v)) {
			close(fd);
			return err("crp_show: bad group '%s'", argv[i]);
		}
		crp_show_one(fd, v);
	}
	for (g = 1; !argc && g < SF_CRP_GROUPS; g++)
		crp_show_one(fd, g);
	close(fd);
	return 0;
}

static int dispatch(int argc, char **argv);

static int cmd_batch(void)
{
	char line[4096];
	int lineno = 0;

	while (fgets(line, sizeof(line), stdin)) {
		char *av[64], *tok, *save = NULL;
		int ac = 0;

		lineno++;
		for (tok = strtok_r(line, " \t\n", &save); tok && ac < 64;
		     tok = strtok_r(NULL, " \t\n", &save))
			av[ac++] = tok;
		if (!ac || av[0][0] == '#')
			continue;
		if (!strcmp(av[0], "batch") || !strcmp(av[0], "load") ||
		    !strcmp(av[0], "sample"))
			return err("line %d: %s not allowed in batch", lineno, av[0]);
		if (dispatch(ac, av))
			return err("batch: line %d failed", lineno);
	}
	return 0;
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argv[0];

	if (!strcmp(cmd, "load"))
		return cmd_load(argc - 1, argv + 1);
	if (!strcmp(cmd, "attach"))
		return cmd_attach(argc - 1, argv + 1);
	if (!strcmp(cmd, "cfg"))
		return cmd_cfg(argc - 1, argv + 1);
	if (!strcmp(cmd, "get"))
		return cmd_get(argc - 1, argv + 1);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(argc - 1, argv + 1, false);
	if (!strcmp(cmd, "reset"))
		return cmd_stats(argc - 1, argv + 1, true);
	if (!strcmp(cmd, "sample"))
		return cmd_sample(argc - 1, argv + 1);
	if (!strcmp(cmd, "batch"))
		return cmd_batch();
	if (!strcmp(cmd, "crp"))
		return cmd_crp(argc - 1, argv + 1);
	if (!strcmp(cmd, "crp_group"))
		return cmd_crp_group(argc - 1, argv + 1);
	if (!strcmp(cmd, "crp_show"))
		return cmd_crp_show(argc - 1, argv + 1);
	return err("unknown command '%s'", cmd);
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !getenv("SMARTT_FABRIC_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr,
			"usage: smartt-fabric-bpf load|attach|cfg|get|stats|reset|sample|batch|crp|crp_group|crp_show PINDIR [args]\n");
		return 2;
	}
	libbpf_set_print(print_libbpf);
	pindir = argv[2];
	argv[2] = argv[1];
	return dispatch(argc - 2, argv + 2);
}
