// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for smartt-replay's parser and driver (the code of
 * userspace/smartt-replay/replay.c, included without its main()).
 */
#define REPLAY_NO_MAIN
#include "../../userspace/smartt-replay/replay.c"

#include "kselftest_harness.h"

static int run_trace(struct replay *r, const char *algo, const char *const *sets,
		     const char *trace, char *out, size_t outsz)
{
	FILE *f = fmemopen(out, outsz, "w");
	char buf[4096], *line, *next;
	unsigned long n = 0;
	int rc = -1;

	if (!f || replay_init(r, algo, NULL, f))
		goto done;
	for (; sets && *sets; sets++)
		if (replay_set(r, *sets))
			goto done;
	if (replay_start(r))
		goto done;
	snprintf(buf, sizeof(buf), "%s", trace);
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (replay_line(r, line, ++n))
			goto done;
	}
	rc = 0;
done:
	if (f)
		fclose(f);
	return rc;
}

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
TEST(replay_line__fig4_quickadapt)
{
	static const char *const sets[] = {
		"qa_scaling=1", "cwnd=16384", "in_flight=32768", NULL,
	};
	static struct replay r;
	char out[4096];

	ASSERT_EQ(0, run_trace(&r, "smartt-2024", sets,
			       "# Fig. 4\n"
			       "ack t=12000 rtt=20000 ecn=1 bytes=4096\n"
			       "nack t=14000 rtt=0 bytes=4096\n"
			       "ack t=20000 rtt=20000 ecn=1 bytes=4096\n"
			       "\n"
			       "ack t=28000 rtt=20000 ecn=1 bytes=4096\n"
			       "nack t=31000 rtt=0 bytes=4096\n",
			       out, sizeof(out))) TH_LOG("%s", r.err);
	/* cwnd 16384 -> trim 12288 -> QuickAdapt to the 2 packets acked */
	EXPECT_NE(NULL, strstr(out, "0,ack,12000,16384,28672,,WTD_HOLD,"));
	EXPECT_NE(NULL, strstr(out, "1,nack,14000,12288,24576,,LOSS_DEC,"));
	EXPECT_NE(NULL, strstr(out, "4,nack,31000,8192,12288,,QA|LOSS_DEC,12000,"));
	EXPECT_EQ(NULL, strstr(out, "\n5,"));	/* comment and empty line: no row */
}

TEST(replay_line__send_chooses_entropy)
{
	static const char *const sets[] = { "explore_rr=1", "paths=8", NULL };
	static struct replay r;
	char out[4096];

	ASSERT_EQ(0, run_trace(&r, "nscc", sets,
			       "send t=1 bytes=4160\n"
			       "ack t=2 rtt=12000 ecn=0 bytes=4160 ev=5\n"
			       "send t=3 bytes=4160\n",
			       out, sizeof(out))) TH_LOG("%s", r.err);
	/* empty REPS cache explores round robin (0); then recycles 5 */
	EXPECT_NE(NULL, strstr(out, "0,send,1,225000,229160,0,,"));
	EXPECT_NE(NULL, strstr(out, "2,send,3,225000,229160,5,,"));
}

/*
 * A loss found without a timeout reaches the path selector: strack's
 * default strack-bitmap over 8 paths sends on 0, a loss on 1 (+15) makes
 * the next send skip 1 and take 2 (without the feedback it would be 1).
 */
TEST(replay_line__lost_feeds_the_selector)
{
	static const char *const sets[] = { "paths=8", NULL };
	static struct replay r;
	unsigned long long c, inf;
	char out[4096], *l;
	unsigned int e;

	ASSERT_EQ(0, run_trace(&r, "strack", sets,
			       "send t=1 bytes=4160\n"
			       "lost t=2 bytes=4160 ev=1\n"
			       "send t=3 bytes=4160\n",
			       out, sizeof(out))) TH_LOG("%s", r.err);
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
	EXPECT_EQ(14U, smartt_bitmap_penalty(&r.lb.u.bitmap, 1));
}

/*
 * Only the 2024 rules keep a WTD average (it shares its place in the state
 * with the MD time stamp of the other rules): nscc prints the wtd it was
 * given, unchanged by an MD.
 */
TEST(replay_line__wtd_column_of_other_rules_is_the_setting)
{
	static const char *const sets[] = { "wtd=0.5", "avg_delay=20000", NULL };
	static struct replay r;
	char out[4096];

	ASSERT_EQ(0, run_trace(&r, "nscc", sets,
			       "ack t=100000 rtt=40000 ecn=1 bytes=4160\n",
			       out, sizeof(out))) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(out, ",MD|ADJUST|ETA,")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, ",0.500000\n")) TH_LOG("%s", out);
}

TEST(replay_line__errors_name_the_line)
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
	static struct replay r;
	unsigned int i;
	char line[128], out[1024];

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, run_trace(&r, "nscc", NULL, "", out, sizeof(out)));
		snprintf(line, sizeof(line), "%s", bad[i]);
		EXPECT_EQ(-1, replay_line(&r, line, 7)) TH_LOG("accepted: %s", bad[i]);
		EXPECT_NE(NULL, strstr(r.err, "line 7")) TH_LOG("%s", r.err);
	}
	/* time going backwards */
	ASSERT_EQ(0, run_trace(&r, "strack", NULL, "ack t=5 rtt=1 ecn=0 bytes=1\n",
			       out, sizeof(out)));
	snprintf(line, sizeof(line), "ack t=4 rtt=1 ecn=0 bytes=1");
	EXPECT_EQ(-1, replay_line(&r, line, 2));
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

TEST_HARNESS_MAIN
