// SPDX-License-Identifier: GPL-2.0
/*
 * Per-rule cost of the algorithm cores, for `make -C selftests/unit bench`.
 *
 *   bench_algo list            scenario names
 *   bench_algo run NAME [N]    run one scenario's event N times from the
 *                              same saved state (bench.sh measures the
 *                              instructions inside the core's event
 *                              function with callgrind --toggle-collect)
 *   bench_algo sizes           per-flow state sizes
 *
 * Each scenario puts a flow in a state where exactly the named rule fires
 * on its event, and checks (once) that the core reports that rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/smartt.h"
#include "algo/strack.h"
#include "algo/lb.h"

enum { B_ACK, B_NACK, B_STRACK };

struct bench {
	const char *name;
	int kind;
	int profile;
	u64 cwnd;
	u64 avg_ns;
	u32 wtd;
	u8 flags;
	u64 qa_end;
	u64 fi_count;
	u64 to_ignore;
	u64 last_adjust;
	u64 now;
	u32 rtt;
	bool ecn;
	u32 bytes;
	u32 rules;	/* must be reported */
	bool common;	/* the usual steady-state case */
};

#define P24	SMARTT_PROFILE_2024
#define PSM	SMARTT_PROFILE_SMARTT
#define PNS	SMARTT_PROFILE_NSCC

/*
 * qa_end = 1e9 keeps QuickAdapt's window open; last_adjust = now keeps
 * nscc's fulfill from running unless a scenario wants it.
 */
static const struct bench benches[] = {
	{ "smartt-2024/FI", B_ACK, P24, 100000, 0, 0, 0, 1000000000, 0, 0, 0,
	  5000, 20000, 0, 4096, SMARTT_R_FI, true },
	{ "smartt-2024/MI+FI", B_ACK, P24, 100000, 0, 0, 0, 1000000000, 0, 0, 0,
	  5000, 12000, 0, 4096, SMARTT_R_PI | SMARTT_R_FI, true },
	{ "smartt-2024/FD", B_ACK, P24, 100000, 0, 500000, 0, 1000000000, 0, 0, 0,
	  5000, 12000, 1, 4096, SMARTT_R_FD, false },
	{ "smartt-2024/MD+FD", B_ACK, P24, 100000, 0, 500000, 0, 1000000000, 0, 0, 0,
	  5000, 24000, 1, 4096, SMARTT_R_MD, false },
	{ "smartt-2024/WTD_HOLD", B_ACK, P24, 100000, 0, 0, 0, 1000000000, 0, 0, 0,
	  5000, 24000, 1, 4096, SMARTT_R_WTD_HOLD, true },
	{ "smartt-2024/FAST_INC", B_ACK, P24, 100000, 0, 0, SMARTT_ST_INCREASE,
	  1000000000, 200000, 0, 0, 5000, 12000, 0, 4096, SMARTT_R_FAST_INC, false },
	{ "smartt-2024/QA", B_ACK, P24, 100000, 0, 0, SMARTT_ST_TRIGGER_QA, 1000,
	  0, 0, 0, 5000, 20000, 1, 4096, SMARTT_R_QA | SMARTT_R_CLAMPED, false },
	{ "smartt-2024/IGNORED", B_ACK, P24, 100000, 0, 0, 0, 1000000000, 0,
	  1000000, 0, 5000, 20000, 1, 4096, SMARTT_R_IGNORED, false },
	{ "smartt-2024/NACK", B_NACK, P24, 100000, 0, 0, 0, 1000000000, 0, 0, 0,
	  5000, 0, 0, 4096, SMARTT_R_LOSS_DEC, false },

	{ "smartt/NOOP", B_ACK, PSM, 100000, 0, 0, 0, 1000000000, 0, 0, 0,
	  5000, 15000, 1, 4096, SMARTT_R_NOOP, true },
	{ "smartt/MD", B_ACK, PSM, 100000, 12000, 0, 0, 1000000000, 0, 0, 0,
	  100000, 24000, 1, 4096, SMARTT_R_MD, false },
	{ "smartt/MD_HELD", B_ACK, PSM, 100000, 12000, 0, 0, 1000000000, 0, 0, 0,
	  5000, 24000, 1, 4096, SMARTT_R_MD_HELD, true },
	{ "smartt/FI", B_ACK, PSM, 100000, 0, 0, 0, 1000000000, 0, 0, 0,
	  5000, 20000, 0, 4096, SMARTT_R_FI | SMARTT_R_ADJUST, true },
	{ "smartt/PI+FI", B_ACK, PSM, 100000, 0, 0, 0, 1000000000, 0, 0, 0,
	  5000, 12000, 0, 4096, SMARTT_R_PI | SMARTT_R_FI | SMARTT_R_ADJUST, true },
	{ "smartt/FAST_INC", B_ACK, PSM, 100000, 0, 0, SMARTT_ST_INCREASE,
	  1000000000, 200000, 0, 0, 5000, 12000, 0, 4096, SMARTT_R_FAST_INC, false },
	{ "smartt/QA", B_ACK, PSM, 100000, 0, 0, SMARTT_ST_TRIGGER_QA, 1000, 0, 0,
	  0, 5000, 20000, 1, 4096, SMARTT_R_QA, false },
	{ "smartt/IGNORED", B_ACK, PSM, 100000, 0, 0, 0, 1000000000, 0, 1000000,
	  0, 5000, 20000, 1, 4096, SMARTT_R_IGNORED, false },
	{ "smartt/NACK", B_NACK, PSM, 100000, 0, 0, 0, 1000000000, 0, 0, 0,
	  5000, 0, 0, 4096, SMARTT_R_LOSS_DEC, false },

	{ "nscc/FI", B_ACK, PNS, 100000, 0, 0, 0, 1000000000, 0, 0, 5000,
	  5000, 21000, 0, 4160, SMARTT_R_FI, true },
	{ "nscc/PI", B_ACK, PNS, 100000, 0, 0, 0, 1000000000, 0, 0, 5000,
	  5000, 14000, 0, 4160, SMARTT_R_PI, true },
	{ "nscc/MD", B_ACK, PNS, 100000, 20000, 0, 0, 1000000000, 0, 0, 100000,
	  100000, 32000, 1, 4160, SMARTT_R_MD, false },
	{ "nscc/MD_HELD", B_ACK, PNS, 100000, 1000, 0, 0, 1000000000, 0, 0, 5000,
	  5000, 32000, 1, 4160, SMARTT_R_MD_HELD, true },
	{ "nscc/NOOP", B_ACK, PNS, 100000, 0, 0, 0, 1000000000, 0, 0, 5000,
	  5000, 13000, 1, 4160, SMARTT_R_NOOP, true },
	{ "nscc/FAST_INC", B_ACK, PNS, 100000, 0, 0, SMARTT_ST_INCREASE,
	  1000000000, 200000, 0, 5000, 5000, 12000, 0, 4160, SMARTT_R_FAST_INC, false },
	{ "nscc/FI+fulfill+eta", B_ACK, PNS, 100000, 0, 0, 0, 1000000000, 0, 0, 0,
	  13000, 21000, 0, 4160, SMARTT_R_FI | SMARTT_R_ADJUST | SMARTT_R_ETA, false },
	{ "nscc/QA", B_ACK, PNS, 100000, 0, 0, SMARTT_ST_TRIGGER_QA, 1000, 0, 0,
	  5000, 5000, 20000, 0, 4160, SMARTT_R_QA, false },
	{ "nscc/IGNORED", B_ACK, PNS, 100000, 0, 0, 0, 1000000000, 0, 1000000,
	  5000, 5000, 20000, 1, 4160, SMARTT_R_IGNORED, false },
	{ "nscc/NACK", B_NACK, PNS, 100000, 0, 0, 0, 1000000000, 0, 0, 5000,
	  5000, 0, 0, 4160, SMARTT_R_LOSS_DEC, false },

	/* STrack: avg_ns, last decrease / shuffle at "last_adjust". */
	{ "strack/BETA", B_STRACK, 0, 100000, 0, 0, 0, 0, 0, 0, 5000,
	  5000, 50000, 0, 4096, STRACK_R_BETA, false },
	{ "strack/ALPHA", B_STRACK, 0, 100000, 0, 0, 0, 0, 0, 0, 5000,
	  5000, 14000, 0, 4096, STRACK_R_ALPHA, true },
	{ "strack/MD", B_STRACK, 0, 100000, 24000, 0, 0, 0, 0, 0, 5000,
	  50000, 36000, 1, 4096, STRACK_R_MD | STRACK_R_ETA, false },
	{ "strack/HOLD", B_STRACK, 0, 100000, 24000, 0, 0, 0, 0, 0, 5000,
	  5000, 36000, 1, 4096, STRACK_R_HOLD, true },
	{ "strack/ECN_low", B_STRACK, 0, 100000, 0, 0, 0, 0, 0, 0, 5000,
	  5000, 13000, 1, 4096, 0, true },
};

static volatile u64 sink;

static int run_smartt(const struct bench *b, long n)
{
	struct smartt_params p;
	struct smartt_state s0, s;
	struct smartt_event e = {
		.now = b->now, .rtt = b->rtt, .bytes = b->bytes,
		.in_flight = 50000, .ecn = b->ecn,
	};
	u32 r = 0;
	long i;

	if (smartt_params_init(&p, &smartt_profiles[b->profile]))
		return 1;
	smartt_init(&s0, &p, b->cwnd);
	s0.avg_delay = b->avg_ns * 1000;
	s0.wtd = b->wtd;
	s0.flags = b->flags;
	s0.qa_end = b->qa_end;
	s0.fi_count = b->fi_count;
	s0.bytes_to_ignore = b->to_ignore;
	s0.last_adjust = b->last_adjust;
	for (i = 0; i < n; i++) {
		s = s0;
		r = b->kind == B_ACK ? smartt_on_ack(&s, &p, &e) :
		    smartt_on_nack(&s, &p, &e);
		sink += s.cwnd;
	}
	if (r != b->rules) {
		fprintf(stderr, "%s: rules 0x%x, want 0x%x\n", b->name, r, b->rules);
		return 1;
	}
	return 0;
}

static int run_strack(const struct bench *b, long n)
{
	struct strack_params p;
	struct strack_state s0, s;
	u32 r = 0;
	long i;

	if (strack_params_init(&p, &strack_defaults))
		return 1;
	strack_init(&s0, &p, b->cwnd);
	s0.avg_delay = b->avg_ns * 1000;
	s0.last_dec = b->last_adjust;
	s0.last_fair = b->last_adjust;
	s0.rx_clear_ts = b->last_adjust;
	for (i = 0; i < n; i++) {
		s = s0;
		r = strack_on_ack(&s, &p, b->now, b->rtt, b->ecn, b->bytes);
		sink += s.cwnd;
	}
	if (r != b->rules) {
		fprintf(stderr, "%s: rules 0x%x, want 0x%x\n", b->name, r, b->rules);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc >= 2 && !strcmp(argv[1], "list")) {
		for (i = 0; i < ARRAY_SIZE(benches); i++)
			printf("%s %s %s\n", benches[i].name,
			       benches[i].kind == B_STRACK ? "strack_on_ack" :
			       benches[i].kind == B_NACK ? "smartt_on_nack" : "smartt_on_ack",
			       benches[i].common ? "common" : "-");
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "sizes")) {
		printf("smartt_state %zu\nstrack_state %zu\nsmartt_reps %zu\n"
		       "smartt_reps1 %zu\nsmartt_bitmap %zu\nsmartt_params %zu\n"
		       "strack_params %zu\n",
		       sizeof(struct smartt_state), sizeof(struct strack_state),
		       sizeof(struct smartt_reps), sizeof(struct smartt_reps1),
		       sizeof(struct smartt_bitmap), sizeof(struct smartt_params),
		       sizeof(struct strack_params));
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "run")) {
		long n = argc >= 4 ? atol(argv[3]) : 1000;

		for (i = 0; i < ARRAY_SIZE(benches); i++)
			if (!strcmp(argv[2], benches[i].name))
				return benches[i].kind == B_STRACK ?
				       run_strack(&benches[i], n) :
				       run_smartt(&benches[i], n);
		fprintf(stderr, "no scenario %s\n", argv[2]);
		return 2;
	}
	fprintf(stderr, "usage: bench_algo list | sizes | run NAME [N]\n");
	return 2;
}
