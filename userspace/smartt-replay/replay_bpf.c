// SPDX-License-Identifier: GPL-2.0
/*
 * smartt-replay --bpf: the calls into the cores and path selectors made in
 * the kernel, by the programs of bpf/smartt_replay.bpf.c (the cores
 * compiled into BPF as the struct_ops congestion controls compile them),
 * one BPF_PROG_TYPE_SYSCALL program per function, run with
 * BPF_PROG_TEST_RUN.  Each call copies its arguments (state, parameters,
 * event) into the programs' .bss, which the skeleton mmaps, runs the
 * program and copies what the function wrote back: replay.c then prints
 * its rows from the same struct replay as with the C build.
 *
 * A call that fails once the programs are loaded (the kernel refusing a
 * test run) ends the process with a message and exit status 1: there is no
 * C to fall back to.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay_core.h"

#ifdef REPLAY_NO_BPF

/* Built without clang, bpftool, libbpf or the kernel's BTF (replay_bpf.mk) */
int replay_bpf_available(char *err, size_t errlen)
{
	snprintf(err, errlen, "this smartt-replay was built without BPF support (%s)",
		 REPLAY_NO_BPF);
	return -1;
}

int replay_bpf_open(bool strack, u32 rules, u32 lb_kind, char *err, size_t errlen)
{
	(void)strack;
	(void)rules;
	(void)lb_kind;
	snprintf(err, errlen, "this smartt-replay was built without BPF support (%s)",
		 REPLAY_NO_BPF);
	return -1;
}

void replay_bpf_close(void)
{
}

u64 replay_bpf_runs(void)
{
	return 0;
}

const struct replay_core replay_core_bpf;

#else /* !REPLAY_NO_BPF */

#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "smartt_replay.h"
#include "smartt_replay.skel.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

#define REPLAY_BTF	"/sys/kernel/btf/vmlinux"

static struct smartt_replay *skel;
static struct smartt_replay_io *io;
static bool loaded_strack;
static u32 loaded_rules, loaded_lb_kind;

/* The end of libbpf's messages (the verifier's log among them) */
static char libbpf_log[4096];

static int replay_bpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(libbpf_log), m, keep = sizeof(libbpf_log) - 1;
	char *msg;

	if (level == LIBBPF_DEBUG || vasprintf(&msg, fmt, ap) < 0)
		return 0;
	m = strlen(msg);
	if (m >= keep) {
		memcpy(libbpf_log, msg + m - keep, keep + 1);
	} else {
		if (n + m > keep) {
			memmove(libbpf_log, libbpf_log + n + m - keep, keep - m);
			n = keep - m;
		}
		memcpy(libbpf_log + n, msg, m + 1);
	}
	free(msg);
	return 0;
}

/*
 * What the verifier said last about the program it refused (the lines
 * before the end of its log in libbpf's messages, the program's name
 * after it) into @prog and the return value, else libbpf's last lines.
 */
static const char *replay_bpf_log_tail(char *prog, size_t n)
{
	char *end = strstr(libbpf_log, "-- END PROG LOAD LOG --"), *tail, *name;
	int lines = 0;

	snprintf(prog, n, "the cores' BPF programs");
	if (end) {
		name = strstr(end, "prog '");
		if (name)
			snprintf(prog, n, "%.*s", (int)strcspn(name + 6, "'"), name + 6);
	} else {
		end = libbpf_log + strlen(libbpf_log);
	}
	*end = 0;
	while (end > libbpf_log && (end[-1] == '\n' || end[-1] == ' '))
		*--end = 0;
	for (tail = end; tail > libbpf_log; tail--)
		if (tail[-1] == '\n' && ++lines == 3)
			break;
	return tail;
}

/* Effective capability @cap of this process (false if it cannot be read). */
static bool replay_bpf_capable(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & (1U << (cap % 32));
}

static int __attribute__((format(printf, 3, 4)))
replay_bpf_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The programs a flow of @strack does not call are not loaded. */
static void replay_bpf_autoload(bool strack)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		const char *name = bpf_program__name(prog);

		if (!strncmp(name, "replay_smartt_", 14))
			bpf_program__set_autoload(prog, !strack);
		else if (!strncmp(name, "replay_strack_", 14))
			bpf_program__set_autoload(prog, strack);
	}
}

/**
 * replay_bpf_available() - whether this process can load and run the programs
 * @err: where a reason goes: one line naming what is missing
 * @errlen: its size
 *
 * The kernel's BTF, the privileges, and BPF syscall programs (5.14+).
 *
 * Return: 0, or -1 with @err set.
 */
int replay_bpf_available(char *err, size_t errlen)
{
	struct utsname un;
	int ret;

	if (access(REPLAY_BTF, R_OK))
		return replay_bpf_fail(err, errlen, "the kernel has no BTF (%s: %s)",
				       REPLAY_BTF, strerror(errno));
	if (!replay_bpf_capable(CAP_SYS_ADMIN) &&
	    !(replay_bpf_capable(CAP_BPF) && replay_bpf_capable(CAP_PERFMON)))
		return replay_bpf_fail(err, errlen,
				       "loading BPF programs needs root (CAP_SYS_ADMIN, or CAP_BPF and CAP_PERFMON)");
	libbpf_set_print(replay_bpf_log);
	ret = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SYSCALL, NULL);
	if (ret > 0)
		return 0;
	if (uname(&un))
		snprintf(un.release, sizeof(un.release), "?");
	if (ret == 0 || ret == -EINVAL || ret == -EOPNOTSUPP)
		return replay_bpf_fail(err, errlen,
				       "kernel %s cannot run BPF syscall programs (BPF_PROG_TYPE_SYSCALL, Linux 5.14 or later)",
				       un.release);
	return replay_bpf_fail(err, errlen, "bpf(): %s", strerror(-ret));
}

/**
 * replay_bpf_open() - load the cores' BPF programs into the kernel
 * @strack: the flow runs STrack (else SMaRTT)
 * @rules: SMaRTT: the knobs' rule family (enum smartt_rules)
 * @lb_kind: the path selector (enum smartt_lb_kind)
 * @err: where a reason goes: one line naming what is missing
 * @errlen: its size
 *
 * The programs are loaded for one rule family and one selector (the
 * verifier then skips the others' code); a second call for the same ones
 * keeps them.
 *
 * Return: 0, or -1 with @err set.
 */
int replay_bpf_open(bool strack, u32 rules, u32 lb_kind, char *err, size_t errlen)
{
	static const u32 layout[] = SMARTT_REPLAY_LAYOUT;
	int ret;

	if (skel && loaded_strack == strack && loaded_rules == rules &&
	    loaded_lb_kind == lb_kind)
		return 0;
	replay_bpf_close();
	if (replay_bpf_available(err, errlen))
		return -1;
	libbpf_log[0] = 0;
	skel = smartt_replay__open();
	if (!skel)
		return replay_bpf_fail(err, errlen, "cannot open the cores' BPF object: %s",
				       strerror(errno));
	if (memcmp(skel->rodata->smartt_replay_layout, layout, sizeof(layout))) {
		replay_bpf_close();
		return replay_bpf_fail(err, errlen,
				       "bpf/smartt_replay.h lays out the BPF build and this one differently");
	}
	if (strncmp(skel->rodata->smartt_replay_algo, SMARTT_REPLAY_ALGO,
		    sizeof(skel->rodata->smartt_replay_algo))) {
		replay_bpf_close();
		return replay_bpf_fail(err, errlen,
				       "the cores' BPF build is of other kernel/algo/ sources than this C build (make -C bpf, then rebuild)");
	}
	skel->rodata->replay_rules = rules;
	skel->rodata->replay_lb_kind = lb_kind;
	replay_bpf_autoload(strack);
	ret = smartt_replay__load(skel);
	if (ret) {
		char prog[64];
		const char *why = replay_bpf_log_tail(prog, sizeof(prog));

		replay_bpf_close();
		return replay_bpf_fail(err, errlen, "the kernel refused %s: %s%s%s", prog,
				       strerror(-ret), *why ? "\n" : "", why);
	}
	io = &skel->bss->io;
	loaded_strack = strack;
	loaded_rules = rules;
	loaded_lb_kind = lb_kind;
	return 0;
}

/**
 * replay_bpf_close() - unload the programs (replay_bpf_open() again to use them)
 */
void replay_bpf_close(void)
{
	smartt_replay__destroy(skel);
	skel = NULL;
	io = NULL;
}

/**
 * replay_bpf_runs() - calls made in the kernel since the programs were loaded
 *
 * Return: the programs' own count.
 */
u64 replay_bpf_runs(void)
{
	return io ? io->runs : 0;
}

static void __attribute__((noreturn, format(printf, 1, 2)))
replay_bpf_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "smartt-replay: --bpf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Run @prog on what io holds; it must complete, exactly once. */
static void replay_bpf_run(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	u64 runs;
	int err;

	if (!io)
		replay_bpf_die("the cores' BPF programs are not loaded");
	runs = io->runs;
	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
	if (err)
		replay_bpf_die("%s: BPF_PROG_TEST_RUN: %s", bpf_program__name(prog),
			       strerror(-err));
	if (opts.retval == SMARTT_REPLAY_BAD_SPEC)
		replay_bpf_die("%s: the programs were loaded for other rules or another path selector",
			       bpf_program__name(prog));
	if (opts.retval != SMARTT_REPLAY_OK || io->runs != runs + 1)
		replay_bpf_die("%s returned %u and counted %llu runs instead of one",
			       bpf_program__name(prog), opts.retval,
			       (unsigned long long)(io->runs - runs));
}

static int bpf_smartt_params_init(struct smartt_params *p, const struct smartt_knobs *k)
{
	io->sp = *p;
	io->sk = *k;
	replay_bpf_run(skel->progs.replay_smartt_params_init);
	*p = io->sp;
	return (int)(s64)io->ret;
}

static u64 bpf_smartt_maxwnd(const struct smartt_params *p, u32 base_rtt)
{
	io->sp = *p;
	io->base_rtt = base_rtt;
	replay_bpf_run(skel->progs.replay_smartt_maxwnd);
	return io->ret;
}

static void bpf_smartt_init(struct smartt_state *s, const struct smartt_params *p, u64 cwnd)
{
	io->ss = *s;
	io->sp = *p;
	io->cwnd = cwnd;
	replay_bpf_run(skel->progs.replay_smartt_init);
	*s = io->ss;
}

static u32 bpf_smartt_event(struct bpf_program *prog, struct smartt_state *s,
			    const struct smartt_params *p, const struct smartt_event *e)
{
	io->ss = *s;
	io->sp = *p;
	io->se = *e;
	replay_bpf_run(prog);
	*s = io->ss;
	return (u32)io->ret;
}

static u32 bpf_smartt_on_ack(struct smartt_state *s, const struct smartt_params *p,
			     const struct smartt_event *e)
{
	return bpf_smartt_event(skel->progs.replay_smartt_on_ack, s, p, e);
}

static u32 bpf_smartt_on_nack(struct smartt_state *s, const struct smartt_params *p,
			      const struct smartt_event *e)
{
	return bpf_smartt_event(skel->progs.replay_smartt_on_nack, s, p, e);
}

static u32 bpf_smartt_on_timeout(struct smartt_state *s, const struct smartt_params *p,
				 const struct smartt_event *e)
{
	return bpf_smartt_event(skel->progs.replay_smartt_on_timeout, s, p, e);
}

static int bpf_strack_params_init(struct strack_params *p, const struct strack_knobs *k)
{
	io->tp = *p;
	io->tk = *k;
	replay_bpf_run(skel->progs.replay_strack_params_init);
	*p = io->tp;
	return (int)(s64)io->ret;
}

static u64 bpf_strack_maxwnd(const struct strack_params *p, u32 base_rtt)
{
	io->tp = *p;
	io->base_rtt = base_rtt;
	replay_bpf_run(skel->progs.replay_strack_maxwnd);
	return io->ret;
}

static void bpf_strack_init(struct strack_state *s, const struct strack_params *p, u64 cwnd)
{
	io->ts = *s;
	io->tp = *p;
	io->cwnd = cwnd;
	replay_bpf_run(skel->progs.replay_strack_init);
	*s = io->ts;
}

static u32 bpf_strack_on_ack(struct strack_state *s, const struct strack_params *p,
			     u64 now, u32 rtt, bool ecn, u32 bytes)
{
	io->ts = *s;
	io->tp = *p;
	io->now = now;
	io->rtt = rtt;
	io->ecn = ecn;
	io->bytes = bytes;
	replay_bpf_run(skel->progs.replay_strack_on_ack);
	*s = io->ts;
	return (u32)io->ret;
}

static u64 bpf_smartt_bdp_bytes(u32 link_mbps, u64 rtt_ns)
{
	io->link_mbps = link_mbps;
	io->rtt_ns = rtt_ns;
	replay_bpf_run(skel->progs.replay_bdp_bytes);
	return io->ret;
}

static int bpf_smartt_lb_init(struct smartt_lb *lb, const struct smartt_lb_knobs *k)
{
	io->lb = *lb;
	io->lk = *k;
	replay_bpf_run(skel->progs.replay_lb_init);
	*lb = io->lb;
	return (int)(s64)io->ret;
}

static u32 bpf_smartt_lb_next(struct smartt_lb *lb, u64 cwnd_pkts, u32 bytes)
{
	io->lb = *lb;
	io->cwnd_pkts = cwnd_pkts;
	io->bytes = bytes;
	replay_bpf_run(skel->progs.replay_lb_next);
	*lb = io->lb;
	return (u32)io->ret;
}

static void bpf_smartt_lb_feedback(struct smartt_lb *lb, u64 now, u32 ev,
				   enum smartt_path_fb fb)
{
	io->lb = *lb;
	io->now = now;
	io->ev = ev;
	io->fb = fb;
	replay_bpf_run(skel->progs.replay_lb_feedback);
	*lb = io->lb;
}

/* The BPF build of the cores, run in the kernel (after replay_bpf_open()). */
const struct replay_core replay_core_bpf = {
	.smartt_params_init = bpf_smartt_params_init,
	.smartt_maxwnd = bpf_smartt_maxwnd,
	.smartt_init = bpf_smartt_init,
	.smartt_on_ack = bpf_smartt_on_ack,
	.smartt_on_nack = bpf_smartt_on_nack,
	.smartt_on_timeout = bpf_smartt_on_timeout,
	.strack_params_init = bpf_strack_params_init,
	.strack_maxwnd = bpf_strack_maxwnd,
	.strack_init = bpf_strack_init,
	.strack_on_ack = bpf_strack_on_ack,
	.smartt_bdp_bytes = bpf_smartt_bdp_bytes,
	.smartt_lb_init = bpf_smartt_lb_init,
	.smartt_lb_next = bpf_smartt_lb_next,
	.smartt_lb_feedback = bpf_smartt_lb_feedback,
};

#endif /* REPLAY_NO_BPF */
