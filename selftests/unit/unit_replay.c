// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for smartt-replay's parser and driver (the code of
 * userspace/smartt-replay/replay.c, included without its main()).
 *
 * Every trace runs both ways, as the two variants of the fixture "replay":
 * c, with the C build of the cores, and bpf, with the cores compiled into
 * BPF and run in the kernel (replay_bpf.c, the code of smartt-replay
 * --bpf).  The bpf variant also runs each trace with the C build and
 * requires the same result, message, rows and final state, and one run in
 * the kernel per call the C build made; it is skipped, saying why, where
 * the kernel cannot have it (it needs root and a kernel with BTF).
 */
#define REPLAY_NO_MAIN
#include "../../userspace/smartt-replay/replay.c"

#include <dirent.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "kselftest_harness.h"

#define OUT_MAX		(1 << 20)

/*
 * The calls into the cores, counted, whichever build makes them: the
 * backend under test is @counted_core.
 */
static const struct replay_core *counted_core;
static u64 core_calls;

#define COUNTED(type, name, params, args)			\
static type counted_##name params				\
{								\
	core_calls++;						\
	return counted_core->name args;				\
}
#define COUNTED_VOID(name, params, args)			\
static void counted_##name params				\
{								\
	core_calls++;						\
	counted_core->name args;				\
}

COUNTED(int, smartt_params_init, (struct smartt_params *p, const struct smartt_knobs *k), (p, k))
COUNTED(u64, smartt_maxwnd, (const struct smartt_params *p, u32 base_rtt), (p, base_rtt))
COUNTED_VOID(smartt_init, (struct smartt_state *s, const struct smartt_params *p, u64 cwnd),
	     (s, p, cwnd))
COUNTED(u32, smartt_on_ack, (struct smartt_state *s, const struct smartt_params *p,
			     const struct smartt_event *e), (s, p, e))
COUNTED(u32, smartt_on_nack, (struct smartt_state *s, const struct smartt_params *p,
			      const struct smartt_event *e), (s, p, e))
COUNTED(u32, smartt_on_timeout, (struct smartt_state *s, const struct smartt_params *p,
				 const struct smartt_event *e), (s, p, e))
COUNTED(int, strack_params_init, (struct strack_params *p, const struct strack_knobs *k), (p, k))
COUNTED(u64, strack_maxwnd, (const struct strack_params *p, u32 base_rtt), (p, base_rtt))
COUNTED_VOID(strack_init, (struct strack_state *s, const struct strack_params *p, u64 cwnd),
	     (s, p, cwnd))
COUNTED(u32, strack_on_ack, (struct strack_state *s, const struct strack_params *p, u64 now,
			     u32 rtt, bool ecn, u32 bytes), (s, p, now, rtt, ecn, bytes))
COUNTED(u64, smartt_bdp_bytes, (u32 link_mbps, u64 rtt_ns), (link_mbps, rtt_ns))
COUNTED(int, smartt_lb_init, (struct smartt_lb *lb, const struct smartt_lb_knobs *k), (lb, k))
COUNTED(u32, smartt_lb_next, (struct smartt_lb *lb, u64 cwnd_pkts, u32 bytes),
	(lb, cwnd_pkts, bytes))
COUNTED_VOID(smartt_lb_feedback, (struct smartt_lb *lb, u64 now, u32 ev, enum smartt_path_fb fb),
	     (lb, now, ev, fb))

static const struct replay_core counting_core = {
	.smartt_params_init = counted_smartt_params_init,
	.smartt_maxwnd = counted_smartt_maxwnd,
	.smartt_init = counted_smartt_init,
	.smartt_on_ack = counted_smartt_on_ack,
	.smartt_on_nack = counted_smartt_on_nack,
	.smartt_on_timeout = counted_smartt_on_timeout,
	.strack_params_init = counted_strack_params_init,
	.strack_maxwnd = counted_strack_maxwnd,
	.strack_init = counted_strack_init,
	.strack_on_ack = counted_strack_on_ack,
	.smartt_bdp_bytes = counted_smartt_bdp_bytes,
	.smartt_lb_init = counted_smartt_lb_init,
	.smartt_lb_next = counted_smartt_lb_next,
	.smartt_lb_feedback = counted_smartt_lb_feedback,
};

/* One run of a trace: what it printed, returned and left behind. */
struct run {
	struct replay r;
	char *out;
	int rc;
	u64 calls;	/* calls into the cores */
	u64 runs;	/* of them made in the kernel (BPF build) */
};

/*
 * run_trace() - @trace (lines, '\n'-separated) through @core from a fresh
 * replayer with @algo, @lb (NULL: the default) and @sets
 *
 * Return: 0, -1 with run->r.err set by the replayer, or -2 if the BPF
 * build could not be loaded (reason in run->r.err).
 */
static int run_trace(struct run *run, const struct replay_core *core, const char *algo,
		     const char *lb, const char *const *sets, const char *trace)
{
	struct replay *r = &run->r;
	char *buf = strdup(trace), *line, *next;
	FILE *f = fmemopen(run->out, OUT_MAX, "w");
	unsigned long n = 0;
	u64 runs0 = 0;

	run->rc = -1;
	run->calls = 0;
	run->runs = 0;
	if (!buf || !f || replay_init(r, algo, lb, f))
		goto done;
	for (; sets && *sets; sets++)
		if (replay_set(r, *sets))
			goto done;
	if (core == &replay_core_bpf) {
		if (replay_bpf_open(r->algo == REPLAY_ALGO_STRACK, r->sk.rules, r->lk.kind,
				    r->err, sizeof(r->err))) {
			run->rc = -2;
			goto done;
		}
		runs0 = replay_bpf_runs();
	}
	counted_core = core;
	core_calls = 0;
	r->core = &counting_core;
	if (replay_start(r))
		goto done;
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (replay_line(r, line, ++n))
			goto done;
	}
	run->rc = 0;
done:
	run->calls = core_calls;
	if (core == &replay_core_bpf)
		run->runs = replay_bpf_runs() - runs0;
	if (f)
		fclose(f);
	free(buf);
	return run->rc;
}

/*
 * run_diff() - how run @b differs from run @a: the first differing row, the
 * result, the message, the cores' state or the number of calls
 *
 * Return: NULL if they are the same, else a description in @why.
 */
static const char *run_diff(const struct run *a, const struct run *b, char *why, size_t n)
{
	const char *x = a->out, *y = b->out;
	unsigned long row = 0;

	while (*x || *y) {
		size_t lx = strcspn(x, "\n"), ly = strcspn(y, "\n");

		if (lx != ly || memcmp(x, y, lx)) {
			snprintf(why, n, "row %lu: '%.*s' then '%.*s'", row, (int)lx, x,
				 (int)ly, y);
			return why;
		}
		x += lx + (x[lx] == '\n');
		y += ly + (y[ly] == '\n');
		row++;
	}
	if (a->rc != b->rc || strcmp(a->r.err, b->r.err)) {
		snprintf(why, n, "result %d '%s' then %d '%s'", a->rc, a->r.err, b->rc, b->r.err);
		return why;
	}
	if (memcmp(&a->r.ss, &b->r.ss, sizeof(a->r.ss)))
		x = "the SMaRTT state";
	else if (memcmp(&a->r.ts, &b->r.ts, sizeof(a->r.ts)))
		x = "the STrack state";
	else if (memcmp(&a->r.lb, &b->r.lb, sizeof(a->r.lb)))
		x = "the path selector's state";
	else
		x = NULL;
	if (x) {
		snprintf(why, n, "%s", x);
		return why;
	}
	if (a->calls != b->calls) {
		snprintf(why, n, "%llu then %llu calls into the cores",
			 (unsigned long long)a->calls, (unsigned long long)b->calls);
		return why;
	}
	return NULL;
}

FIXTURE(replay) {
	struct run run;		/* the variant's */
	struct run c;		/* bpf: the same trace with the C build */
	char why[512];
};

FIXTURE_VARIANT(replay) {
	bool bpf;
};

FIXTURE_VARIANT_ADD(replay, c) {
	.bpf = false,
};

FIXTURE_VARIANT_ADD(replay, bpf) {
	.bpf = true,
};

FIXTURE_SETUP(replay)
{
	char why[256];

	self->run.out = calloc(1, OUT_MAX);
	self->c.out = calloc(1, OUT_MAX);
	ASSERT_NE(NULL, self->run.out);
	ASSERT_NE(NULL, self->c.out);
	if (variant->bpf && replay_bpf_available(why, sizeof(why)))
		SKIP(return, "smartt-replay --bpf: %s", why);
}

FIXTURE_TEARDOWN(replay)
{
	replay_bpf_close();
	free(self->run.out);
	free(self->c.out);
}

/*
 * TRACE() - run a trace with the variant's build into self->run; with the
 * bpf variant, also with the C build into self->c, and expect both the same
 * and every call into the cores made in the kernel.  Evaluates to the
 * variant's run_trace() result.
 */
#define TRACE(algo, lb, sets, trace) ({						\
	int __rc = run_trace(&self->run, variant->bpf ? &replay_core_bpf :	\
			     &replay_core_c, algo, lb, sets, trace);		\
	if (variant->bpf) {							\
		ASSERT_NE(-2, __rc) TH_LOG("%s", self->run.r.err);		\
		run_trace(&self->c, &replay_core_c, algo, lb, sets, trace);	\
		EXPECT_EQ(NULL, run_diff(&self->c, &self->run, self->why,	\
					 sizeof(self->why)))			\
			TH_LOG("C build, then BPF: %s", self->why);		\
		EXPECT_EQ(self->run.calls, self->run.runs)			\
			TH_LOG("calls into the cores made in the kernel");	\
	}									\
	__rc;									\
})

TEST(parse_ppm__exact_decimals)
{
	u64 v;

	ASSERT_EQ(0, parse_ppm("0.0125", &v));
	EXPECT_EQ(12500ULL, v);
	ASSERT_EQ(0, parse_ppm("1.5", &v));
	EXPECT_EQ(1500000ULL, v);
	ASSERT_EQ(0, parse_ppm("2", &v));
	EXPECT_EQ(2000000ULL, v);
	EXPECT_EQ(-2, parse_ppm("0.1234567", &v));	/* would need rounding */
	EXPECT_EQ(-1, parse_ppm(".5", &v));
	EXPECT_EQ(-1, parse_ppm("1.", &v));
	EXPECT_EQ(-1, parse_ppm("-1", &v));
	EXPECT_EQ(-1, parse_u64("18446744073709551616", &v));	/* 2^64 */
}

/* The 2:1 incast of smartt-reps-2024.txt Fig. 4, see vectors_smartt.h. */
TEST_F(replay, replay_line__fig4_quickadapt)
{
	static const char *const sets[] = {
		"qa_scaling=1", "cwnd=16384", "in_flight=32768", NULL,
	};
	const char *out = self->run.out;

	ASSERT_EQ(0, TRACE("smartt-2024", NULL, sets,
			   "# Fig. 4\n"
			   "ack t=12000 rtt=20000 ecn=1 bytes=4096\n"
			   "nack t=14000 rtt=0 bytes=4096\n"
			   "ack t=20000 rtt=20000 ecn=1 bytes=4096\n"
			   "\n"
			   "ack t=28000 rtt=20000 ecn=1 bytes=4096\n"
			   "nack t=31000 rtt=0 bytes=4096\n")) TH_LOG("%s", self->run.r.err);
	/* cwnd 16384 -> trim 12288 -> QuickAdapt to the 2 packets acked */
	EXPECT_NE(NULL, strstr(out, "0,ack,12000,16384,28672,,WTD_HOLD,"));
	EXPECT_NE(NULL, strstr(out, "1,nack,14000,12288,24576,,LOSS_DEC,"));
	EXPECT_NE(NULL, strstr(out, "4,nack,31000,8192,12288,,QA|LOSS_DEC,12000,"));
	EXPECT_EQ(NULL, strstr(out, "\n5,"));	/* comment and empty line: no row */
}

TEST_F(replay, replay_line__send_chooses_entropy)
{
	static const char *const sets[] = { "explore_rr=1", "paths=8", NULL };
	const char *out = self->run.out;

	ASSERT_EQ(0, TRACE("nscc", NULL, sets,
			   "send t=1 bytes=4160\n"
			   "ack t=2 rtt=12000 ecn=0 bytes=4160 ev=5\n"
			   "send t=3 bytes=4160\n")) TH_LOG("%s", self->run.r.err);
	/* empty REPS cache explores round robin (0); then recycles 5 */
	EXPECT_NE(NULL, strstr(out, "0,send,1,225000,229160,0,,"));
	EXPECT_NE(NULL, strstr(out, "2,send,3,225000,229160,5,,"));
}

/*
 * A loss found without a timeout reaches the path selector: strack's
 * default strack-bitmap over 8 paths sends on 0, a loss on 1 (+15) makes
 * the next send skip 1 and take 2 (without the feedback it would be 1).
 */
TEST_F(replay, replay_line__lost_feeds_the_selector)
{
	static const char *const sets[] = { "paths=8", NULL };
	const char *out = self->run.out;
	unsigned long long c, inf;
	unsigned int e;
	const char *l;

	ASSERT_EQ(0, TRACE("strack", NULL, sets,
			   "send t=1 bytes=4160\n"
			   "lost t=2 bytes=4160 ev=1\n"
			   "send t=3 bytes=4160\n")) TH_LOG("%s", self->run.r.err);
	l = strstr(out, "0,send,1,");
	ASSERT_NE(NULL, l) TH_LOG("%s", out);
	ASSERT_EQ(3, sscanf(l, "0,send,1,%llu,%llu,%u,", &c, &inf, &e));
	EXPECT_EQ(0U, e);
	EXPECT_NE(NULL, strstr(out, "1,lost,2,")) TH_LOG("%s", out);
	l = strstr(out, "2,send,3,");
	ASSERT_NE(NULL, l) TH_LOG("%s", out);
	ASSERT_EQ(3, sscanf(l, "2,send,3,%llu,%llu,%u,", &c, &inf, &e));
	EXPECT_EQ(2U, e);
	/* +15 for the loss, -1 for being skipped first */
	EXPECT_EQ(14U, smartt_bitmap_penalty(&self->run.r.lb.u.bitmap, 1));
}

/*
 * Only the 2024 rules keep a WTD average (it shares its place in the state
 * with the MD time stamp of the other rules): nscc prints the wtd it was
 * given, unchanged by an MD.
 */
TEST_F(replay, replay_line__wtd_column_of_other_rules_is_the_setting)
{
	static const char *const sets[] = { "wtd=0.5", "avg_delay=20000", NULL };
	const char *out = self->run.out;

	ASSERT_EQ(0, TRACE("nscc", NULL, sets,
			   "ack t=100000 rtt=40000 ecn=1 bytes=4160\n"))
		TH_LOG("%s", self->run.r.err);
	EXPECT_NE(NULL, strstr(out, ",MD|ADJUST|ETA,")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, ",0.500000\n")) TH_LOG("%s", out);
}

TEST_F(replay, replay_line__errors_name_the_line)
{
	static const char *const bad[] = {
		"ack t=1 rtt=1 ecn=2 bytes=1",		/* ecn not 0/1 */
		"ack t=1 rtt=1 bytes=1",		/* ecn missing */
		"ack t=1 rtt=1 ecn=0 bytes=1 foo=1",	/* unknown field */
		"ack t=1 rtt=1 ecn=0 bytes=1 ecn=0",	/* twice */
		"ack t=1 rtt=x ecn=0 bytes=1",		/* not a number */
		"ack t=1 rtt=1 ecn=0 bytes=-1",		/* signed */
		"ack t=1 rtt=4294967296 ecn=0 bytes=1",	/* rtt > 32 bits */
		"ack t=1 rtt=1 ecn=0 bytes=99999999",	/* more than in flight */
		"ack t=1 rtt=1 ecn=0 bytes=1 ev=256",	/* ev >= paths */
		"send t=1 bytes=1 ev=3",		/* ev not a send field */
		"fly t=1",				/* unknown event */
		"ack t=1 rtt=1 ecn=0 bytes",		/* not key=value */
		"nack t=1 rtt=1 bytes=1 last_hop=2",
		"lost t=1 bytes=1",			/* lost needs ev= */
		"lost t=1 bytes=1 ev=1 rtt=1",		/* rtt not a lost field */
	};
	char trace[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		/* a good line, then the bad one: rows up to it, then line 2 */
		snprintf(trace, sizeof(trace), "ack t=1 rtt=12000 ecn=0 bytes=1\n%s\n", bad[i]);
		EXPECT_EQ(-1, TRACE("nscc", NULL, NULL, trace)) TH_LOG("accepted: %s", bad[i]);
		EXPECT_NE(NULL, strstr(self->run.r.err, "line 2")) TH_LOG("%s", self->run.r.err);
		EXPECT_NE(NULL, strstr(self->run.out, "\n0,ack,1,")) TH_LOG("%s", self->run.out);
	}
	/* time going backwards */
	EXPECT_EQ(-1, TRACE("strack", NULL, NULL,
			    "ack t=5 rtt=1 ecn=0 bytes=1\nack t=4 rtt=1 ecn=0 bytes=1\n"));
	EXPECT_NE(NULL, strstr(self->run.r.err, "back in time")) TH_LOG("%s", self->run.r.err);
}

TEST_F(replay, replay_start__rejects_what_the_cores_reject)
{
	static const char *const bad_cwnd[] = { "cwnd=1000000", NULL };
	static const char *const low_cwnd[] = { "cwnd=100", NULL };

	/* cwnd outside [mtu, maxwnd]: maxwnd and the BDP come from the cores */
	EXPECT_EQ(-1, TRACE("nscc", NULL, bad_cwnd, ""));
	EXPECT_NE(NULL, strstr(self->run.r.err, "outside [mtu 4160, maxwnd"))
		TH_LOG("%s", self->run.r.err);
	EXPECT_EQ(-1, TRACE("strack", "ecmp", low_cwnd, ""));
	EXPECT_NE(NULL, strstr(self->run.r.err, "--set cwnd=100")) TH_LOG("%s", self->run.r.err);
}

TEST(replay_set__rejects_unknown_and_impossible)
{
	static struct replay r;
	static const char *const bad_sets[][2] = {
		{ "nscc", "bogus=1" }, { "nscc", "mtu=10" }, { "nscc", "fi=x" },
		{ "nscc", "wtd=1.5" }, { "strack", "trimming=1" },
		{ "strack", "wtd=0.5" }, { "nscc", "paths=0" }, { "nscc", "novalue" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_sets); i++) {
		ASSERT_EQ(0, replay_init(&r, bad_sets[i][0], NULL, stdout));
		EXPECT_EQ(-1, replay_set(&r, bad_sets[i][1])) TH_LOG("%s", bad_sets[i][1]);
	}
	EXPECT_EQ(-1, replay_init(&r, "cubic", NULL, stdout));
	EXPECT_EQ(-1, replay_init(&r, "nscc", "bitmap", stdout));
	/* cwnd outside [mtu, maxwnd] is caught at start */
	ASSERT_EQ(0, replay_init(&r, "nscc", NULL, stdout));
	ASSERT_EQ(0, replay_set(&r, "cwnd=1000000"));
	EXPECT_EQ(-1, replay_start(&r));
}

/*
 * The fuzzer's seed corpus (fuzz_corpus/): byte 0 picks the algorithm,
 * byte 1 the selector, '+' lines before the first event are --set.  The
 * crp seeds (byte 0 = 4 mod 5) run in C only: the bpf variant skips them.
 */
TEST_F(replay, fuzz_corpus__every_seed)
{
	static const char *const algos[] = { "smartt-2024", "smartt", "nscc", "strack", "crp" };
	char path[512], data[8192], *sets[REPLAY_MAX_SETS + 1], *line, *next;
	unsigned int seeds = 0, nsets;
	struct dirent *de;
	DIR *d = opendir(REPLAY_CORPUS);
	size_t len;
	FILE *f;

	ASSERT_NE(NULL, d) TH_LOG("%s: %s", REPLAY_CORPUS, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", REPLAY_CORPUS, de->d_name);
		f = fopen(path, "r");
		ASSERT_NE(NULL, f) TH_LOG("%s", path);
		len = fread(data, 1, sizeof(data) - 1, f);
		fclose(f);
		ASSERT_LT(2U, len) TH_LOG("%s", path);
		data[len] = 0;
		nsets = 0;
		for (line = data + 2; line[0] == '+' && nsets < REPLAY_MAX_SETS; line = next) {
			next = strchr(line, '\n');
			if (!next)
				break;
			*next++ = 0;
			sets[nsets++] = line + 1;
		}
		sets[nsets] = NULL;
		if ((u8)data[0] % 5 == 4 && variant->bpf)
			continue;
		EXPECT_EQ(0, TRACE(algos[(u8)data[0] % 5], (u8)data[0] % 5 == 4 ? NULL :
				   smartt_lb_names[(u8)data[1] % SMARTT_LB_COUNT],
				   (const char *const *)sets, line))
			TH_LOG("%s: %s", de->d_name, self->run.r.err);
		seeds++;
	}
	closedir(d);
	EXPECT_LE(4U, seeds);
}

/* A pseudo-random trace the replayer accepts, of @events events. */
static void random_trace(u64 *prng, char *buf, size_t size, unsigned int events,
			 u64 in_flight, u32 paths)
{
	u64 t = 1000 + smartt_prng_below(prng, 100000);
	size_t n = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < events && n + 128 < size; i++) {
		u32 k = smartt_prng_below(prng, 100), ev = smartt_prng_below(prng, paths);
		u32 bytes = smartt_prng_below(prng, 4) ? 4096 : 1 + smartt_prng_below(prng, 9000);
		u32 rtt = 10000 + smartt_prng_below(prng, 60000);
		bool with_ev = smartt_prng_below(prng, 8);

		t += smartt_prng_below(prng, 20) ? smartt_prng_below(prng, 6000) :
		     smartt_prng_below(prng, 30000000);
		if (!smartt_prng_below(prng, 16))
			rtt = 0;
		if (k < 35 || !in_flight) {
			n += snprintf(buf + n, size - n, "send t=%llu bytes=%u\n",
				      (unsigned long long)t, bytes);
			in_flight += bytes;
			continue;
		}
		bytes = (u32)min_t(u64, bytes, in_flight);
		in_flight -= bytes;
		if (k < 80)
			n += snprintf(buf + n, size - n, "ack t=%llu rtt=%u ecn=%u bytes=%u",
				      (unsigned long long)t, rtt,
				      rtt > 30000 && smartt_prng_below(prng, 3), bytes);
		else if (k < 90)
			n += snprintf(buf + n, size - n, "nack t=%llu rtt=%u bytes=%u last_hop=%u",
				      (unsigned long long)t, rtt, bytes,
				      !smartt_prng_below(prng, 4));
		else if (k < 95)
			n += snprintf(buf + n, size - n, "timeout t=%llu bytes=%u",
				      (unsigned long long)t, bytes);
		else
			n += snprintf(buf + n, size - n, "lost t=%llu bytes=%u",
				      (unsigned long long)t, bytes);
		if (with_ev || k >= 95)
			n += snprintf(buf + n, size - n, " ev=%u", ev);
		n += snprintf(buf + n, size - n, "\n");
	}
}

/*
 * Pseudo-random traces through every core and selector, with knobs drawn
 * from a list that moves the cores off their defaults (other rule families
 * included): the two builds must agree on every row.
 */
TEST_F(replay, random_traces__every_core_and_selector)
{
	static const char *const algos[] = { "smartt-2024", "smartt", "nscc", "strack" };
	static const char *const smartt_knobs[] = {
		"trimming=0", "learn_base_rtt=0", "link_mbps=25000", "link_mbps=400000",
		"base_rtt=6000", "network_rtt=24000", "adjust_acks=4", "adjust_period=20000",
		"adjust_rtt=1", "qa_delay_mode=2", "trtt_abs=1", "target_qdelay=8000",
		"wtd_enable=0", "fast_inc=0", "qa_on_timeout=1", "ignore_ecn_only=1",
		"qa_inclusive=0", "qa_gate_cwnd=0", "avg_delay=12000", "wtd=0.5",
		"rules=0", "rules=1", "rules=2", "qa_scaling=0.5", "adjust_bytes=20000",
	};
	static const char *const strack_knobs[] = {
		"learn_base_rtt=0", "scale_path=1", "link_mbps=25000", "base_rtt=6000",
		"target_qdelay=6000", "gamma=0.5", "qa_gate=1", "maxwnd=3",
		"avg_delay=5000", "network_rtt=30000", "beta=1",
	};
	static const char *const lb_knobs[] = {
		"seed=7", "explore_rr=1", "buf_size=4", "freeze=0", "freeze_time=50000",
		"bitmap_counters=0", "lb_bdp=20000", "explore_count=3",
	};
	static const u32 paths[] = { 8, 16, 64, 256 };
	char sets_buf[8][32], *trace = malloc(1 << 16);
	const char *sets[9];
	unsigned int a, l, seed, i, tries, traces = 0;
	u64 prng;

	ASSERT_NE(NULL, trace);
	for (a = 0; a < ARRAY_SIZE(algos); a++) {
		for (l = 0; l < SMARTT_LB_COUNT; l++) {
			for (seed = 0; seed < 3; seed++) {
				bool strack = a == 3;
				u32 np = paths[(seed + l) % ARRAY_SIZE(paths)];
				u64 inf;

				prng = 1 + a * 1000 + l * 10 + seed;
				inf = smartt_prng_below(&prng, 200000);
				snprintf(sets_buf[0], sizeof(sets_buf[0]), "paths=%u", np);
				snprintf(sets_buf[1], sizeof(sets_buf[1]), "in_flight=%llu",
					 (unsigned long long)inf);
				for (i = 0; i < 6; i++)
					sets[i] = sets_buf[i];
				/*
				 * The first trace of each keeps the defaults, the
				 * others draw knobs until the cores take them.
				 */
				sets[seed ? 6 : 2] = NULL;
				for (tries = 0; seed && tries < 20; tries++) {
					for (i = 2; i < 5; i++)
						snprintf(sets_buf[i], sizeof(sets_buf[i]), "%s",
							 strack ? strack_knobs[smartt_prng_below(&prng,
								ARRAY_SIZE(strack_knobs))] :
							 smartt_knobs[smartt_prng_below(&prng,
								ARRAY_SIZE(smartt_knobs))]);
					snprintf(sets_buf[5], sizeof(sets_buf[5]), "%s",
						 lb_knobs[smartt_prng_below(&prng,
							  ARRAY_SIZE(lb_knobs))]);
					if (!run_trace(&self->c, &replay_core_c, algos[a],
						       smartt_lb_names[l], sets, ""))
						break;
				}
				random_trace(&prng, trace, 1 << 16, 300, inf, np);
				EXPECT_EQ(0, TRACE(algos[a], smartt_lb_names[l], sets, trace))
					TH_LOG("%s --lb %s: %s", algos[a], smartt_lb_names[l],
					       self->run.r.err);
				traces++;
			}
		}
	}
	free(trace);
	EXPECT_EQ(60U, traces);
}

/*
 * The comparison catches a build that differs: one picosecond of average
 * delay in one ACK's row, another entropy for one packet, or a difference
 * in state that no row shows (yet).
 */
static const struct replay_core *mutant_base;
static unsigned int mutant_calls, mutant_at;

static u32 mutant_on_ack(struct smartt_state *s, const struct smartt_params *p,
			 const struct smartt_event *e)
{
	u32 rules = mutant_base->smartt_on_ack(s, p, e);

	if (++mutant_calls == mutant_at)
		s->avg_delay++;
	return rules;
}

static u32 mutant_lb_next(struct smartt_lb *lb, u64 cwnd_pkts, u32 bytes)
{
	u32 ev = mutant_base->smartt_lb_next(lb, cwnd_pkts, bytes);

	return ++mutant_calls == mutant_at ? (ev + 1) % lb->k.reps.paths : ev;
}

static u32 mutant_hidden(struct smartt_state *s, const struct smartt_params *p,
			 const struct smartt_event *e)
{
	u32 rules = mutant_base->smartt_on_ack(s, p, e);

	if (++mutant_calls == mutant_at)
		s->inc++;
	return rules;
}

TEST_F(replay, run_diff__catches_a_different_build)
{
	static const char *const trace =
		"send t=1 bytes=4096\n"
		"ack t=20000 rtt=20000 ecn=0 bytes=4096 ev=0\n"
		"send t=20001 bytes=4096\n"
		"send t=20002 bytes=4096\n"
		"ack t=40000 rtt=21000 ecn=1 bytes=4096 ev=1\n";
	struct replay_core mutant;
	struct run *ref = &self->c, *run = &self->run;

	mutant_base = variant->bpf ? &replay_core_bpf : &replay_core_c;
	ASSERT_EQ(0, run_trace(ref, mutant_base, "smartt", NULL, NULL, trace));
	/* the same build: the same */
	ASSERT_EQ(0, run_trace(run, mutant_base, "smartt", NULL, NULL, trace));
	EXPECT_EQ(NULL, run_diff(ref, run, self->why, sizeof(self->why))) TH_LOG("%s", self->why);

	mutant = *mutant_base;
	mutant.smartt_on_ack = mutant_on_ack;
	mutant_calls = 0;
	mutant_at = 2;
	ASSERT_EQ(0, run_trace(run, &mutant, "smartt", NULL, NULL, trace));
	ASSERT_NE(NULL, run_diff(ref, run, self->why, sizeof(self->why)));
	EXPECT_EQ(0, strncmp(self->why, "row 5: '4,ack,40000,", 20)) TH_LOG("%s", self->why);

	mutant = *mutant_base;
	mutant.smartt_lb_next = mutant_lb_next;
	mutant_calls = 0;
	mutant_at = 3;
	ASSERT_EQ(0, run_trace(run, &mutant, "smartt", NULL, NULL, trace));
	ASSERT_NE(NULL, run_diff(ref, run, self->why, sizeof(self->why)));
	EXPECT_EQ(0, strncmp(self->why, "row 4: '3,send,20002,", 21)) TH_LOG("%s", self->why);

	mutant = *mutant_base;
	mutant.smartt_on_ack = mutant_hidden;
	mutant_calls = 0;
	mutant_at = 2;
	ASSERT_EQ(0, run_trace(run, &mutant, "smartt", NULL, NULL, trace));
	ASSERT_NE(NULL, run_diff(ref, run, self->why, sizeof(self->why)));
	EXPECT_STREQ("the SMaRTT state", self->why);
}

/*
 * Without the privileges to load BPF programs the BPF build is refused in
 * one line that names them: never a silent run of the C build.
 */
TEST(replay_bpf_open__names_what_is_missing)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };
	char why[256] = "";

	/* this test runs in a process of its own: drop every capability */
	ASSERT_EQ(0, syscall(SYS_capset, &h, d)) TH_LOG("capset: %s", strerror(errno));
	ASSERT_EQ(-1, replay_bpf_available(why, sizeof(why)));
	EXPECT_EQ(-1, replay_bpf_open(false, SMARTT_RULES_RTT, SMARTT_LB_REPS, why,
				      sizeof(why)));
	EXPECT_EQ(NULL, strchr(why, '\n')) TH_LOG("%s", why);
	if (strstr(why, "built without") || strstr(why, "no BTF"))
		SKIP(return, "%s", why);
	EXPECT_NE(NULL, strstr(why, "needs root (CAP_SYS_ADMIN, or CAP_BPF and CAP_PERFMON)"))
		TH_LOG("%s", why);
}

TEST_HARNESS_MAIN
