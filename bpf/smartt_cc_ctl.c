// SPDX-License-Identifier: GPL-2.0
/*
 * smartt-cc-bpf: loads, configures and observes the BPF struct_ops
 * congestion controls bpf_smartt, bpf_strack and bpf_dctcp (libbpf
 * skeletons).  `smarttctl cc ...` runs it; see smarttctl(8) and
 * Documentation/bpf-cc.rst.
 *
 *   smartt-cc-bpf load [NAME...]          register (all three by default)
 *   smartt-cc-bpf unload [NAME...]        unregister (every loaded one)
 *   smartt-cc-bpf status [--json]
 *   smartt-cc-bpf set NAME KEY=VALUE...   the net.smartt.tcp_* values
 *   smartt-cc-bpf flows [--json] [-n NETNS]  every flow of a smartt CC
 *
 * Registration outlives this process: Debian bookworm's libbpf (1.1)
 * registers a struct_ops map by updating it, and the kernel keeps a
 * registered map (and its programs) until it is deleted again, which
 * `unload` does through the map's pin under SMARTT_CC_PIN_ROOT.  The
 * configuration, the flows' socket-local storage and the counters are
 * maps pinned there too, shared by every loaded object.
 *
 * The registry of congestion controls and these maps are the kernel's, not a
 * network namespace's; `flows` lists the sockets of one namespace, the
 * caller's or -n NETNS's (entered with setns() after the pinned maps were
 * opened: `ip netns exec` would hide /sys/fs/bpf behind a fresh /sys).
 *
 * Exit status: 0, 1 on a runtime error (one line on stderr saying what to
 * do), 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "smartt_cc.h"
#include "tcp_smartt.skel.h"
#include "tcp_smartt_v1.skel.h"
#include "tcp_strack.skel.h"
#include "tcp_strack_v1.skel.h"
#include "tcp_dctcp.skel.h"
#include "smartt_cc_iter.skel.h"

#define PROG		"smarttctl: cc"
#define CFG_PIN		SMARTT_CC_PIN_ROOT "/smartt_cc_cfg"
#define FLOWS_PIN	SMARTT_CC_PIN_ROOT "/smartt_cc_flows"
#define STATS_PIN	SMARTT_CC_PIN_ROOT "/smartt_cc_stats"

/* Defaults of bpf_dctcp's knobs: Linux's tcp_dctcp module parameters. */
#define DCTCP_DEF_SHIFT_G	4	/* g = 1/16 (RFC 8257) */
#define DCTCP_DEF_ALPHA_INIT	1024	/* alpha = 1.0 */
#define DCTCP_SHIFT_G_MAX	10
#define DCTCP_ALPHA_INIT_MAX	1024

/* The module's private area: struct smartt_cc_sock, then the core state. */
#define MODULE_CORE_OFF		16

_Static_assert(sizeof(struct smartt_cc_sock) <= MODULE_CORE_OFF, "module layout");

/* One line on stderr, "smarttctl: cc: ...", and @rc. */
static int vreport(int rc, const char *fmt, va_list ap)
{
	fputs(PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return rc;
}

/* A usage error: exit status 2. */
static int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_err(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vreport(2, fmt, ap);
	va_end(ap);
	return rc;
}

/* A runtime error: exit status 1. */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vreport(1, fmt, ap);
	va_end(ap);
	return rc;
}

/* libbpf's own messages only with SMARTT_CC_DEBUG=1. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (!getenv("SMARTT_CC_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* ---- the congestion controls ---- */

struct cc_desc {
	const char *name;
	u32 algo;
	/* open the object built for this kernel's cong_control */
	struct bpf_object *(*open)(bool v1, const struct bpf_object_open_opts *o,
				   void **skel);
	void (*destroy)(bool v1, void *skel);
};

/* open_NAME()/destroy_NAME() of an algorithm built both ways (NAME, NAME_v1) */
#define CC_SKEL_PAIR(name)						\
static struct bpf_object *open_##name(bool v1,				\
				      const struct bpf_object_open_opts *o,\
				      void **skel)			\
{									\
	if (v1) {							\
		struct tcp_##name##_v1 *s = tcp_##name##_v1__open_opts(o); \
									\
		*skel = s;						\
		return s ? s->obj : NULL;				\
	} else {							\
		struct tcp_##name *s = tcp_##name##__open_opts(o);	\
									\
		*skel = s;						\
		return s ? s->obj : NULL;				\
	}								\
}									\
									\
static void destroy_##name(bool v1, void *skel)				\
{									\
	if (v1)								\
		tcp_##name##_v1__destroy(skel);				\
	else								\
		tcp_##name##__destroy(skel);				\
}

CC_SKEL_PAIR(smartt)
CC_SKEL_PAIR(strack)

static struct bpf_object *open_dctcp(bool v1, const struct bpf_object_open_opts *o,
				     void **skel)
{
	struct tcp_dctcp *s = tcp_dctcp__open_opts(o);

	(void)v1;	/* bpf_dctcp has no cong_control */
	*skel = s;
	return s ? s->obj : NULL;
}

static void destroy_dctcp(bool v1, void *skel)
{
	(void)v1;
	tcp_dctcp__destroy(skel);
}

static const struct cc_desc ccs[] = {
	{ "bpf_smartt", SMARTT_CC_BPF_SMARTT, open_smartt, destroy_smartt },
	{ "bpf_strack", SMARTT_CC_BPF_STRACK, open_strack, destroy_strack },
	{ "bpf_dctcp", SMARTT_CC_BPF_DCTCP, open_dctcp, destroy_dctcp },
};

#define N_CCS	(sizeof(ccs) / sizeof(ccs[0]))

static const struct cc_desc *cc_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_CCS; i++)
		if (!strcmp(name, ccs[i].name))
			return &ccs[i];
	return NULL;
}

static void cc_pin(char *buf, size_t len, const struct cc_desc *c)
{
	snprintf(buf, len, "%s/%s", SMARTT_CC_PIN_ROOT, c->name);
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Is @name in net.ipv4.tcp_available_congestion_control? */
static bool cc_available(const char *name)
{
	char buf[1024], *tok, *save;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");
	bool found = false;

	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
			if (!strcmp(tok, name))
				found = true;
	fclose(f);
	return found;
}

/* ---- what the kernel and the caller must have ---- */

static bool has_cap(unsigned int cap)
{
	char line[256];
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff & (1ULL << cap);
}

#define CAP_NET_ADMIN_BIT	12
#define CAP_SYS_ADMIN_BIT	21
#define CAP_BPF_BIT		39

/*
 * The kernel's cong_control: 4 arguments since Linux 6.10 (ack, flag),
 * 2 before.  *v1 = true for the old one.  Also checks what every BPF
 * congestion control needs: BTF and struct_ops for tcp_congestion_ops.
 */
static int check_kernel(bool *v1)
{
	const struct btf_type *t, *pt;
	const struct btf_member *m;
	struct btf *btf;
	int id, i;

	if (!exists("/sys/kernel/btf/vmlinux"))
		return fail("this kernel has no BTF (/sys/kernel/btf/vmlinux is missing): BPF congestion controls need CONFIG_DEBUG_INFO_BTF=y");
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return fail("cannot read the kernel's BTF: %s", strerror(errno));
	if (btf__find_by_name_kind(btf, "bpf_struct_ops_tcp_congestion_ops",
				   BTF_KIND_STRUCT) < 0) {
		btf__free(btf);
		return fail("this kernel has no BPF struct_ops for TCP congestion control (needs CONFIG_BPF_JIT, CONFIG_BPF_SYSCALL and CONFIG_DEBUG_INFO_BTF)");
	}
	if (btf__find_by_name_kind(btf, "tcp_reno_cong_avoid", BTF_KIND_FUNC) < 0) {
		btf__free(btf);
		return fail("this kernel lacks the kfunc tcp_reno_cong_avoid that bpf_dctcp calls");
	}
	id = btf__find_by_name_kind(btf, "tcp_congestion_ops", BTF_KIND_STRUCT);
	t = id < 0 ? NULL : btf__type_by_id(btf, id);
	*v1 = false;
	for (i = 0, m = t ? btf_members(t) : NULL; t && i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), "cong_control"))
			continue;
		pt = btf__type_by_id(btf, m->type);	/* pointer */
		pt = pt ? btf__type_by_id(btf, pt->type) : NULL;	/* func proto */
		if (pt && btf_is_func_proto(pt))
			*v1 = btf_vlen(pt) == 2;
	}
	btf__free(btf);
	return 0;
}

static int check_caller(void)
{
	if (!(has_cap(CAP_BPF_BIT) || has_cap(CAP_SYS_ADMIN_BIT)) ||
	    !has_cap(CAP_NET_ADMIN_BIT))
		return fail("needs CAP_BPF and CAP_NET_ADMIN (run as root)");
	return 0;
}

static bool is_bpffs(const char *dir)
{
	struct statfs fs;

	return !statfs(dir, &fs) && fs.f_type == BPF_FS_MAGIC;
}

/* Does this process share init's mount namespace? */
static bool init_mount_ns(void)
{
	struct stat self, init;

	return !stat("/proc/self/ns/mnt", &self) && !stat("/proc/1/ns/mnt", &init) &&
	       self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}

/*
 * The pins live in the BPF filesystem at /sys/fs/bpf.  `ip netns exec`
 * runs its command in a mount namespace with a fresh /sys, where that is
 * an empty directory: the pins are out of sight there, and a BPF
 * filesystem mounted there would vanish with the command, leaving
 * registered congestion controls nobody can unload.  So: refuse in such
 * a namespace, mount one only in init's.
 */
static int check_bpffs(bool mount_one)
{
	if (is_bpffs("/sys/fs/bpf"))
		return 0;
	if (!init_mount_ns())
		return fail("/sys/fs/bpf is not mounted in this mount namespace (ip netns exec mounts a fresh /sys): run it outside; `smarttctl -n NETNS cc flows` enters a network namespace alone");
	if (!mount_one)
		return 0;
	if (mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL))
		return fail("/sys/fs/bpf is not a BPF filesystem and mounting one failed: %s (mount -t bpf bpf /sys/fs/bpf)",
			    strerror(errno));
	return 0;
}

/* ---- the configuration map ---- */

static void cfg_defaults(struct smartt_cc_bpf_cfg *c)
{
	memset(c, 0, sizeof(*c));
	smartt_cc_vals_default(&c->vals);
	smartt_cc_params_build(&c->p, &c->vals);
	c->gen = 1;
	c->dctcp_g_shift = DCTCP_DEF_SHIFT_G;
	c->dctcp_alpha_init = DCTCP_DEF_ALPHA_INIT;
}

static int cfg_read(int fd, struct smartt_cc_bpf_cfg *c)
{
	u32 zero = 0;

	if (bpf_map_lookup_elem(fd, &zero, c))
		return fail("cannot read the configuration map: %s", strerror(errno));
	return 0;
}

static int cfg_write(int fd, const struct smartt_cc_bpf_cfg *c)
{
	u32 zero = 0;

	if (bpf_map_update_elem(fd, &zero, c, BPF_ANY))
		return fail("cannot write the configuration map: %s", strerror(errno));
	return 0;
}

/* ---- load / unload ---- */

static int load_one(const struct cc_desc *c, bool v1)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = SMARTT_CC_PIN_ROOT);
	struct smartt_cc_bpf_cfg cfg;
	struct bpf_object *obj;
	struct bpf_link *link;
	struct bpf_map *map;
	char pin[PATH_MAX];
	void *skel = NULL;
	int err, fd;

	cc_pin(pin, sizeof(pin), c);
	if (exists(pin)) {
		printf("%s: already loaded\n", c->name);
		return 0;
	}
	if (cc_available(c->name))
		return fail("%s: a congestion control of that name is already registered (not by smarttctl: see bpftool struct_ops list)",
			    c->name);
	obj = c->open(v1, &opts, &skel);
	if (!obj)
		return fail("%s: cannot open the BPF object: %s", c->name, strerror(errno));
	err = bpf_object__load(obj);
	if (err) {
		c->destroy(v1, skel);
		return fail("%s: the kernel refused the BPF programs: %s (SMARTT_CC_DEBUG=1 shows the verifier's log)",
			    c->name, strerror(-err));
	}
	fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "smartt_cc_cfg"));
	err = cfg_read(fd, &cfg);
	if (!err && !cfg.gen) {
		cfg_defaults(&cfg);
		err = cfg_write(fd, &cfg);
	}
	map = bpf_object__find_map_by_name(obj, c->name);
	if (err || !map) {
		c->destroy(v1, skel);
		return err ? err : fail("%s: no struct_ops map in the object", c->name);
	}
	link = bpf_map__attach_struct_ops(map);
	if (!link) {
		err = errno;
		c->destroy(v1, skel);
		return fail("%s: cannot register: %s", c->name, strerror(err));
	}
	if (bpf_map__pin(map, pin)) {
		err = errno;
		bpf_link__destroy(link);	/* unregisters */
		c->destroy(v1, skel);
		return fail("%s: cannot pin %s: %s", c->name, pin, strerror(err));
	}
	/* stay registered after this process: the pin keeps the handle */
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
	c->destroy(v1, skel);
	printf("%s: loaded\n", c->name);
	return 0;
}

static bool any_loaded(void)
{
	char pin[PATH_MAX];
	unsigned int i;

	for (i = 0; i < N_CCS; i++) {
		cc_pin(pin, sizeof(pin), &ccs[i]);
		if (exists(pin))
			return true;
	}
	return false;
}

static int unload_one(const struct cc_desc *c, bool quiet)
{
	char pin[PATH_MAX];
	u32 zero = 0;
	int fd, err = 0;

	cc_pin(pin, sizeof(pin), c);
	fd = bpf_obj_get(pin);
	if (fd < 0) {
		if (errno == ENOENT) {
			if (!quiet)
				printf("%s: not loaded\n", c->name);
			return 0;
		}
		return fail("%s: cannot open %s: %s", c->name, pin, strerror(errno));
	}
	/* ENOENT: unregistered by someone else; the pin is stale */
	if (bpf_map_delete_elem(fd, &zero) && errno != ENOENT)
		err = fail("%s: cannot unregister: %s", c->name, strerror(errno));
	close(fd);
	if (err)
		return err;
	if (unlink(pin))
		return fail("%s: cannot remove %s: %s", c->name, pin, strerror(errno));
	printf("%s: unloaded\n", c->name);
	return 0;
}

/* The shared maps go with the last congestion control. */
static int unpin_shared(void)
{
	const char *pins[] = { CFG_PIN, FLOWS_PIN, STATS_PIN };
	unsigned int i;

	if (any_loaded())
		return 0;
	for (i = 0; i < sizeof(pins) / sizeof(pins[0]); i++)
		if (unlink(pins[i]) && errno != ENOENT)
			return fail("cannot remove %s: %s", pins[i], strerror(errno));
	if (rmdir(SMARTT_CC_PIN_ROOT) && errno != ENOENT && errno != ENOTEMPTY)
		return fail("cannot remove %s: %s", SMARTT_CC_PIN_ROOT, strerror(errno));
	return 0;
}

static int names_to_set(int argc, char **argv, bool *want)
{
	const struct cc_desc *c;
	int i;

	memset(want, 0, N_CCS * sizeof(*want));
	for (i = 0; i < argc; i++) {
		c = cc_by_name(argv[i]);
		if (!c)
			return usage_err("unknown congestion control '%s' (bpf_smartt, bpf_strack or bpf_dctcp)",
					 argv[i]);
		want[c - ccs] = true;
	}
	if (!argc)
		for (i = 0; i < (int)N_CCS; i++)
			want[i] = true;
	return 0;
}

static int cmd_load(int argc, char **argv)
{
	bool want[N_CCS], v1 = false;
	unsigned int i;
	int err;

	err = names_to_set(argc, argv, want);
	if (err)
		return err;
	err = check_caller() ?: check_kernel(&v1) ?: check_bpffs(true);
	if (err)
		return err;
	if (mkdir(SMARTT_CC_PIN_ROOT, 0700) && errno != EEXIST)
		return fail("cannot create %s: %s", SMARTT_CC_PIN_ROOT, strerror(errno));
	for (i = 0; i < N_CCS; i++) {
		if (!want[i])
			continue;
		err = load_one(&ccs[i], v1);
		if (err)
			break;
	}
	if (err)
		unpin_shared();
	return err;
}

static int cmd_unload(int argc, char **argv)
{
	bool want[N_CCS];
	unsigned int i;
	int err;

	err = names_to_set(argc, argv, want);
	if (err)
		return err;
	err = check_caller() ?: check_bpffs(false);
	if (err)
		return err;
	for (i = 0; i < N_CCS && !err; i++)
		if (want[i])
			err = unload_one(&ccs[i], !argc);
	return err ?: unpin_shared();
}

/* ---- set ---- */

struct key_desc {
	const char *name;
	size_t off;		/* in struct smartt_cc_vals, or in the cfg for dctcp */
	int kind;		/* KEY_U32, KEY_STR, KEY_PROFILE, KEY_DCTCP */
	u32 max;		/* KEY_DCTCP only */
};

enum { KEY_U32, KEY_STR, KEY_PROFILE, KEY_DCTCP };

#define VAL(n, f, k)	{ n, __builtin_offsetof(struct smartt_cc_vals, f), k, 0 }
#define DC(n, f, m)	{ n, __builtin_offsetof(struct smartt_cc_bpf_cfg, f), KEY_DCTCP, m }

static const struct key_desc keys[] = {
	VAL("tcp_smartt_profile", profile, KEY_PROFILE),
	VAL("tcp_link_mbps", link_mbps, KEY_U32),
	VAL("tcp_base_rtt_us", base_rtt_us, KEY_U32),
	VAL("tcp_network_rtt_us", network_rtt_us, KEY_U32),
	VAL("tcp_mss", mss, KEY_U32),
	VAL("tcp_start", start, KEY_U32),
	VAL("tcp_min_cwnd", min_cwnd, KEY_U32),
	VAL("tcp_strack_loss", strack_loss, KEY_U32),
	VAL("tcp_host_target_us", host_target_us, KEY_U32),
	VAL("tcp_smartt_knobs", smartt_knobs, KEY_STR),
	VAL("tcp_strack_knobs", strack_knobs, KEY_STR),
	DC("dctcp_shift_g", dctcp_g_shift, DCTCP_SHIFT_G_MAX),
	DC("dctcp_alpha_on_init", dctcp_alpha_init, DCTCP_ALPHA_INIT_MAX),
};

#define NKEYS	(sizeof(keys) / sizeof(keys[0]))

static const struct key_desc *key_by_name(const char *name)
{
	unsigned int i;

	if (!strncmp(name, "net.smartt.", 11))
		name += 11;
	for (i = 0; i < NKEYS; i++)
		if (!strcmp(name, keys[i].name) ||
		    (!strncmp(keys[i].name, "tcp_", 4) && !strcmp(name, keys[i].name + 4)))
			return &keys[i];
	return NULL;
}

static void key_format(const struct key_desc *k, const struct smartt_cc_bpf_cfg *c,
		       char *buf, size_t len)
{
	const char *v = (const char *)&c->vals + k->off;

	switch (k->kind) {
	case KEY_PROFILE:
		snprintf(buf, len, "%s", c->vals.profile < SMARTT_PROFILE_COUNT ?
			 smartt_profile_names[c->vals.profile] : "?");
		break;
	case KEY_STR:
		snprintf(buf, len, "%s", v);
		break;
	case KEY_U32:
		snprintf(buf, len, "%u", *(const u32 *)v);
		break;
	default:
		snprintf(buf, len, "%u", *(const u32 *)((const char *)c + k->off));
	}
}

/* Strip the white space proc_dostring()/proc_douintvec() would ignore. */
static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	memmove(s, s + i, n - i + 1);
}

/* Apply one value to @c; 0 or -EINVAL, exactly as the sysctl would. */
static int key_apply(const struct key_desc *k, struct smartt_cc_bpf_cfg *c,
		     const char *value)
{
	char buf[SMARTT_CC_KNOBS_LEN + 1];
	struct smartt_cc_vals v = c->vals;
	struct smartt_cc_params p;
	u32 n;
	int id;

	if (strlen(value) >= sizeof(buf))
		return -EINVAL;	/* longer than the sysctl's buffer */
	strcpy(buf, value);
	switch (k->kind) {
	case KEY_PROFILE:
		trim(buf);
		id = smartt_profile_by_name(buf);
		if (id < 0)
			return -EINVAL;
		v.profile = id;
		break;
	case KEY_STR:
		if (strlen(buf) >= SMARTT_CC_KNOBS_LEN)
			return -EINVAL;
		strcpy((char *)&v + k->off, buf);
		break;
	case KEY_U32:
		trim(buf);
		if (smartt_cc_parse_num(buf, false, &n))
			return -EINVAL;
		*(u32 *)((char *)&v + k->off) = n;
		break;
	default:
		trim(buf);
		if (smartt_cc_parse_num(buf, false, &n) || n > k->max)
			return -EINVAL;
		*(u32 *)((char *)c + k->off) = n;
		return 0;
	}
	if (smartt_cc_params_build(&p, &v))
		return -EINVAL;
	c->vals = v;
	c->p = p;
	return 0;
}

static int cmd_set(int argc, char **argv)
{
	const struct key_desc *k;
	struct smartt_cc_bpf_cfg cfg;
	char out[SMARTT_CC_KNOBS_LEN + 16];
	int fd, i, err;
	char *eq;

	if (argc < 2)
		return usage_err("usage: smarttctl cc set NAME KEY=VALUE...");
	if (!cc_by_name(argv[0]))
		return usage_err("unknown congestion control '%s' (bpf_smartt, bpf_strack or bpf_dctcp)",
				 argv[0]);
	for (i = 1; i < argc; i++) {
		eq = strchr(argv[i], '=');
		if (!eq)
			return usage_err("set: '%s' is not KEY=VALUE", argv[i]);
		*eq = '\0';
		k = key_by_name(argv[i]);
		*eq = '=';
		if (!k)
			return usage_err("set: no knob '%.*s' (see `smarttctl cc status`)",
					 (int)(eq - argv[i]), argv[i]);
	}
	err = check_caller() ?: check_bpffs(false);
	if (err)
		return err;
	fd = bpf_obj_get(CFG_PIN);
	if (fd < 0)
		return fail("no BPF congestion control is loaded (%s: %s): run `smarttctl cc load` first",
			    CFG_PIN, strerror(errno));
	err = cfg_read(fd, &cfg);
	/* all or nothing: every value is checked before the map changes */
	for (i = 1; i < argc && !err; i++) {
		eq = strchr(argv[i], '=');
		*eq = '\0';
		k = key_by_name(argv[i]);
		if (key_apply(k, &cfg, eq + 1))
			err = fail("set: %s=%s: %s (the value was refused; the knob is unchanged)",
				   k->name, eq + 1, strerror(EINVAL));
		*eq = '=';
	}
	if (!err) {
		cfg.gen++;
		err = cfg_write(fd, &cfg);
	}
	close(fd);
	for (i = 1; i < argc && !err; i++) {
		eq = strchr(argv[i], '=');
		*eq = '\0';
		k = key_by_name(argv[i]);
		*eq = '=';
		key_format(k, &cfg, out, sizeof(out));
		printf("%s = %s\n", k->name, out);
	}
	return err;
}

/* ---- status ---- */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static const char *const stat_names[SMARTT_CC_STAT_COUNT] = {
	[SMARTT_CC_STAT_FLOWS] = "flows_started",
	[SMARTT_CC_STAT_NO_STORAGE] = "flows_without_state",
	[SMARTT_CC_STAT_NO_CFG] = "callbacks_without_config",
	[SMARTT_CC_STAT_NOECN] = "flows_without_ecn",
};

static int read_stats(u64 *sum)
{
	int ncpu = libbpf_num_possible_cpus(), fd, c;
	u32 i;
	u64 *v;

	memset(sum, 0, SMARTT_CC_STAT_COUNT * sizeof(*sum));
	if (ncpu <= 0)
		return -1;
	fd = bpf_obj_get(STATS_PIN);
	if (fd < 0)
		return -1;
	v = calloc(ncpu, sizeof(*v));
	for (i = 0; v && i < SMARTT_CC_STAT_COUNT; i++)
		if (!bpf_map_lookup_elem(fd, &i, v))
			for (c = 0; c < ncpu; c++)
				sum[i] += v[c];
	free(v);
	close(fd);
	return 0;
}

static int cmd_status(bool json)
{
	struct smartt_cc_bpf_cfg cfg;
	u64 stats[SMARTT_CC_STAT_COUNT];
	char pin[PATH_MAX], val[SMARTT_CC_KNOBS_LEN + 16];
	bool have_cfg = false, loaded;
	unsigned int i;
	int fd, err;

	err = check_caller() ?: check_bpffs(false);
	if (err)
		return err;
	fd = bpf_obj_get(CFG_PIN);
	if (fd >= 0) {
		have_cfg = !cfg_read(fd, &cfg) && cfg.gen;
		close(fd);
	}
	read_stats(stats);
	if (json)
		printf("{\"congestion_controls\": {");
	for (i = 0; i < N_CCS; i++) {
		cc_pin(pin, sizeof(pin), &ccs[i]);
		loaded = exists(pin);
		if (json)
			printf("%s\"%s\": {\"loaded\": %s, \"registered\": %s}", i ? ", " : "",
			       ccs[i].name, loaded ? "true" : "false",
			       cc_available(ccs[i].name) ? "true" : "false");
		else
			printf("%-11s %s%s\n", ccs[i].name, loaded ? "loaded" : "not loaded",
			       loaded && !cc_available(ccs[i].name) ? " (pinned but not registered)" : "");
	}
	if (json)
		printf("}, \"config\": {");
	else if (have_cfg)
		printf("config (%s, generation %u):\n", CFG_PIN, cfg.gen);
	for (i = 0; have_cfg && i < NKEYS; i++) {
		key_format(&keys[i], &cfg, val, sizeof(val));
		if (json) {
			printf("%s\"%s\": ", i ? ", " : "", keys[i].name);
			if (keys[i].kind == KEY_U32 || keys[i].kind == KEY_DCTCP)
				printf("%s", val);
			else
				json_str(val);
		} else {
			printf("  %s = %s\n", keys[i].name, val);
		}
	}
	if (json)
		printf("}, \"counters\": {");
	else if (have_cfg)
		printf("counters:\n");
	for (i = 0; have_cfg && i < SMARTT_CC_STAT_COUNT; i++) {
		if (json)
			printf("%s\"%s\": %llu", i ? ", " : "", stat_names[i],
			       (unsigned long long)stats[i]);
		else
			printf("  %s %llu\n", stat_names[i], (unsigned long long)stats[i]);
	}
	if (json)
		printf("}}\n");
	return 0;
}

/* ---- flows ---- */

static const char *const smartt_rule_names[SMARTT_CC_RULE_BITS] = {
	"ignored", "qa", "fast_inc", "fd", "md", "fi", "pi", "noop",
	"wtd_hold", "adjust", "eta", "loss_dec", "clamped", "md_held",
};

static const char *const strack_rule_names[SMARTT_CC_RULE_BITS] = {
	"beta", "alpha", "achieved", "md", "hold", "eta", "clamped",
};

/* The module's parameters in this netns: its sysctls, built as it does. */
static int module_params(struct smartt_cc_params *p)
{
	static const char *const names[] = {
		"tcp_smartt_profile", "tcp_link_mbps", "tcp_base_rtt_us",
		"tcp_network_rtt_us", "tcp_mss", "tcp_start", "tcp_min_cwnd",
		"tcp_strack_loss", "tcp_host_target_us", "tcp_smartt_knobs",
		"tcp_strack_knobs",
	};
	struct smartt_cc_bpf_cfg c;
	char path[PATH_MAX], buf[SMARTT_CC_KNOBS_LEN + 1];
	unsigned int i;
	size_t n;
	FILE *f;

	cfg_defaults(&c);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "/proc/sys/net/smartt/%s", names[i]);
		f = fopen(path, "r");
		if (!f)
			return -1;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		if (n && buf[n - 1] == '\n')
			buf[n - 1] = '\0';
		if (key_apply(key_by_name(names[i]), &c, buf))
			return -1;
	}
	*p = c.p;
	return 0;
}

struct flow_view {
	const char *cc;
	u64 cwnd;
	u32 base_rtt;
	u64 avg_delay_ps;
	u64 target;	/* target RTT, ns; 0 = unknown */
	u32 host;	/* host delay, ns: the BPF glue's average, else now's */
	u32 host_target;	/* host-delay target, ns; 0 = unknown or no split */
	const struct smartt_cc_flow *f;	/* BPF flows only */
	u32 alpha;	/* bpf_dctcp, 2^-20 */
};

static void addr_str(const struct smartt_cc_flow_rec *r, const u8 *a, u16 port,
		     char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(r->family == AF_INET6 ? AF_INET6 : AF_INET, a, ip, sizeof(ip));
	snprintf(buf, len, r->family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, port);
}

static void view_of(const struct smartt_cc_flow_rec *r, const struct smartt_cc_params *mod,
		    bool have_mod, const struct smartt_cc_bpf_cfg *cfg, bool have_cfg,
		    struct flow_view *v)
{
	const struct smartt_state *ss = NULL;
	const struct strack_state *ts = NULL;
	const struct smartt_params *sp = NULL;
	const struct strack_params *tp = NULL;
	bool strack = strstr(r->ca, "strack") != NULL;

	memset(v, 0, sizeof(*v));
	if (r->kind == SMARTT_CC_REC_MODULE) {
		if (strack)
			ts = (const void *)(r->priv + MODULE_CORE_OFF);
		else
			ss = (const void *)(r->priv + MODULE_CORE_OFF);
		sp = have_mod ? &mod->sp : NULL;
		tp = have_mod ? &mod->tp : NULL;
		v->host_target = have_mod ? mod->host_target_ns : 0;
		/* the module keeps no average: the queue below TCP now */
		v->host = smartt_hd_local_ns(r->wmem, r->rate_delivered, r->mss,
					     r->rate_interval_us, r->pacing_rate);
	} else {
		v->f = &r->flow;
		if (r->flow.algo == SMARTT_CC_BPF_SMARTT)
			ss = &r->flow.s;
		else if (r->flow.algo == SMARTT_CC_BPF_STRACK)
			ts = &r->flow.t;
		else if (r->flow.algo == SMARTT_CC_BPF_DCTCP)
			v->alpha = r->flow.d.alpha;
		sp = have_cfg ? &cfg->p.sp : NULL;
		tp = have_cfg ? &cfg->p.tp : NULL;
		v->host_target = have_cfg ? cfg->p.host_target_ns : 0;
		v->host = r->flow.host_ns;
		if (r->flow.params_rate && r->flow.params_rate == r->flow.g.rate_mbps) {
			sp = &r->flow.sp;
			tp = &r->flow.tp;
		}
	}
	if (ss) {
		v->cwnd = ss->cwnd;
		v->base_rtt = ss->base_rtt;
		v->avg_delay_ps = ss->avg_delay;
		if (sp)
			v->target = (((u64)ss->base_rtt * sp->trtt_fp) >> SMARTT_FP_SHIFT) +
				    sp->trtt_add;
	} else if (ts) {
		v->cwnd = ts->cwnd;
		v->base_rtt = ts->base_rtt;
		v->avg_delay_ps = ts->avg_delay;
		if (tp)
			v->target = (u64)ts->base_rtt + tp->target;
	}
}

static void rules_str(const struct flow_view *v, const char *ca, char *buf, size_t len)
{
	const char *const *names = strstr(ca, "strack") ? strack_rule_names : smartt_rule_names;
	size_t n = 0;
	int i;

	buf[0] = '\0';
	if (!v->f) {
		snprintf(buf, len, "-");
		return;
	}
	for (i = 0; i < SMARTT_CC_RULE_BITS && n < len; i++)
		if (v->f->rules[i] && names[i])
			n += snprintf(buf + n, len - n, "%s%s=%u", n ? "," : "",
				      names[i], v->f->rules[i]);
	if (!n)
		snprintf(buf, len, "-");
}

/* Enter the network namespace /run/netns/@name (NULL: stay). */
static int enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	if (!name)
		return 0;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("no network namespace '%s' (%s: %s; see `ip netns list`)",
			    name, path, strerror(errno));
	err = setns(fd, CLONE_NEWNET);
	close(fd);
	if (err)
		return fail("cannot enter network namespace '%s': %s", name, strerror(errno));
	return 0;
}

static int cmd_flows(bool json, const char *netns)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = SMARTT_CC_PIN_ROOT);
	struct smartt_cc_params mod;
	struct smartt_cc_bpf_cfg cfg;
	struct smartt_cc_flow_rec r;
	struct smartt_cc_iter *skel;
	struct bpf_link *link;
	struct flow_view v;
	char src[64], dst[64], rules[512];
	bool have_mod, have_cfg = false;
	int fd, n = 0, err;
	ssize_t got;

	/* no check_kernel(): reading the kernel's BTF twice is slow in guests */
	err = check_caller() ?: check_bpffs(false);
	if (err)
		return err;
	fd = bpf_obj_get(CFG_PIN);
	if (fd >= 0) {
		have_cfg = !cfg_read(fd, &cfg) && cfg.gen;
		close(fd);
	}
	skel = smartt_cc_iter__open_opts(&opts);
	if (!skel)
		return fail("cannot open the iterator: %s", strerror(errno));
	/* reuse the flows' storage if it is pinned; never pin a new one */
	if (!exists(FLOWS_PIN))
		bpf_map__set_pin_path(skel->maps.smartt_cc_flows, NULL);
	err = smartt_cc_iter__load(skel);
	if (err) {
		smartt_cc_iter__destroy(skel);
		return fail("the kernel refused the iterator: %s (SMARTT_CC_DEBUG=1 shows why)",
			    strerror(-err));
	}
	/* the iterator walks the sockets of the namespace that creates it */
	link = NULL;
	err = enter_netns(netns);
	if (err)
		goto out;
	have_mod = !module_params(&mod);
	link = bpf_program__attach_iter(skel->progs.smartt_cc_dump, NULL);
	fd = link ? bpf_iter_create(bpf_link__fd(link)) : -1;
	if (fd < 0) {
		err = fail("cannot start the iterator: %s", strerror(errno));
		goto out;
	}
	if (json)
		printf("[");
	else
		printf("%-10s %-22s %-22s %10s %5s %8s %9s %9s %7s %7s %8s %7s %7s %6s %4s %s\n",
		       "cc", "local", "remote", "cwnd_B", "pkts", "base_us", "fabric_us",
		       "target_us", "host_us", "htgt_us", "srtt_us", "acks", "ce_acks",
		       "losses", "rtos", "rules");
	while ((got = read(fd, &r, sizeof(r))) == sizeof(r)) {
		view_of(&r, &mod, have_mod, &cfg, have_cfg, &v);
		addr_str(&r, r.saddr, r.sport, src, sizeof(src));
		addr_str(&r, r.daddr, r.dport, dst, sizeof(dst));
		rules_str(&v, r.ca, rules, sizeof(rules));
		if (json) {
			printf("%s\n {\"cc\": ", n ? "," : "");
			json_str(r.ca);
			printf(", \"source\": \"%s\", \"local\": ",
			       r.kind == SMARTT_CC_REC_MODULE ? "module" : "bpf");
			json_str(src);
			printf(", \"remote\": ");
			json_str(dst);
			printf(", \"state\": %u, \"ca_state\": %u, \"snd_cwnd\": %u, \"mss\": %u, \"srtt_us\": %u, \"min_rtt_us\": %u, \"delivered\": %u, \"delivered_ce\": %u, \"total_retrans\": %u, \"pacing_rate\": %llu",
			       r.state, r.ca_state, r.snd_cwnd, r.mss, r.srtt_us,
			       r.min_rtt_us, r.delivered, r.delivered_ce, r.total_retrans,
			       (unsigned long long)r.pacing_rate);
			if (v.base_rtt)
				printf(", \"cwnd_bytes\": %llu, \"base_rtt_ns\": %u, \"avg_delay_ns\": %llu",
				       (unsigned long long)v.cwnd, v.base_rtt,
				       (unsigned long long)(v.avg_delay_ps / 1000));
			if (v.target)
				printf(", \"target_rtt_ns\": %llu", (unsigned long long)v.target);
			printf(", \"host_delay_ns\": %u, \"host_target_ns\": %u", v.host,
			       v.host_target);
			if (v.f && v.f->algo == SMARTT_CC_BPF_DCTCP)
				printf(", \"dctcp_alpha\": %.6f, \"dctcp_windows\": %u",
				       v.alpha / 1048576.0, v.f->d.windows);
			if (v.f) {
				printf(", \"acks\": %llu, \"ce_acks\": %llu, \"losses\": %llu, \"rtos\": %llu, \"undos\": %llu, \"idles\": %llu, \"rules\": ",
				       (unsigned long long)v.f->acks,
				       (unsigned long long)v.f->ce_acks,
				       (unsigned long long)v.f->losses,
				       (unsigned long long)v.f->rtos,
				       (unsigned long long)v.f->undos,
				       (unsigned long long)v.f->idles);
				json_str(rules);
			}
			printf("}");
		} else if (v.f && v.f->algo == SMARTT_CC_BPF_DCTCP) {
			printf("%-10s %-22s %-22s %10s %5u %8s %9s %9s %7u %7s %8u %7llu %7llu %6llu %4llu alpha=%.4f windows=%u\n",
			       r.ca, src, dst, "-", r.snd_cwnd, "-", "-", "-",
			       v.host / 1000, "-", r.srtt_us,
			       (unsigned long long)v.f->acks, (unsigned long long)v.f->ce_acks,
			       (unsigned long long)v.f->losses, (unsigned long long)v.f->rtos,
			       v.alpha / 1048576.0, v.f->d.windows);
		} else {
			char tgt[24], htgt[24], acks[24], ces[24], losses[24], rtos[24];

			snprintf(tgt, sizeof(tgt), v.target ? "%llu" : "-",
				 (unsigned long long)(v.target / 1000));
			snprintf(htgt, sizeof(htgt), v.host_target ? "%u" : "-",
				 v.host_target / 1000);
			snprintf(acks, sizeof(acks), "%llu", v.f ? (unsigned long long)v.f->acks : 0ULL);
			snprintf(ces, sizeof(ces), "%llu", v.f ? (unsigned long long)v.f->ce_acks : 0ULL);
			snprintf(losses, sizeof(losses), "%llu",
				 v.f ? (unsigned long long)v.f->losses : 0ULL);
			snprintf(rtos, sizeof(rtos), "%llu", v.f ? (unsigned long long)v.f->rtos : 0ULL);
			printf("%-10s %-22s %-22s %10llu %5u %8u %9llu %9s %7u %7s %8u %7s %7s %6s %4s %s\n",
			       r.ca, src, dst, (unsigned long long)v.cwnd, r.snd_cwnd,
			       v.base_rtt / 1000, (unsigned long long)(v.avg_delay_ps / 1000000),
			       tgt, v.host / 1000, htgt, r.srtt_us, v.f ? acks : "-", v.f ? ces : "-",
			       v.f ? losses : "-", v.f ? rtos : "-", rules);
		}
		n++;
	}
	if (got < 0)
		err = fail("reading the iterator failed: %s", strerror(errno));
	if (json)
		printf("%s]\n", n ? "\n" : "");
	close(fd);
out:
	bpf_link__destroy(link);
	smartt_cc_iter__destroy(skel);
	return err;
}

/* ---- main ---- */

static int usage(FILE *f, int rc)
{
	fprintf(f,
		"usage: smarttctl cc load [NAME...]      register bpf_smartt, bpf_strack, bpf_dctcp (default: all)\n"
		"       smarttctl cc unload [NAME...]    unregister (default: every loaded one)\n"
		"       smarttctl cc status [--json]     what is loaded, the configuration, counters\n"
		"       smarttctl cc set NAME KEY=VALUE... the net.smartt.tcp_* values (and dctcp_*)\n"
		"       smarttctl cc flows [--json] [-n NETNS]  every flow run by a smartt congestion\n"
		"                                        control (in this or NETNS's network namespace)\n");
	return rc;
}

int main(int argc, char **argv)
{
	const char *netns = NULL;
	bool json = false;
	int i, j;

	libbpf_set_print(libbpf_print);
	if (argc < 2)
		return usage(stderr, 2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout, 0);
	/* options anywhere after the command: --json, -n/--netns NAME */
	for (i = 2, j = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--netns")) {
			if (++i >= argc)
				return usage_err("%s needs a network namespace name", argv[i - 1]);
			netns = argv[i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			return usage(stdout, 0);
		} else {
			argv[j++] = argv[i];
		}
	}
	argc = j;
	if (!strcmp(argv[1], "load"))
		return cmd_load(argc - 2, argv + 2);
	if (!strcmp(argv[1], "unload"))
		return cmd_unload(argc - 2, argv + 2);
	if (!strcmp(argv[1], "set"))
		return cmd_set(argc - 2, argv + 2);
	if (!strcmp(argv[1], "status") || !strcmp(argv[1], "flows")) {
		if (argc > 2)
			return usage_err("%s: unexpected argument '%s'", argv[1], argv[2]);
		return !strcmp(argv[1], "status") ? cmd_status(json) : cmd_flows(json, netns);
	}
	return usage_err("unknown command '%s' (load, unload, status, set, flows)", argv[1]);
}
