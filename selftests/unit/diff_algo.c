// SPDX-License-Identifier: GPL-2.0
/*
 * Differential check of the algorithm cores, for `make -C selftests/unit
 * diff REV=<git revision>` (diff_algo.sh builds this file once against
 * the tree and once against REV's kernel/algo/ and compares the output).
 *
 *   diff_algo [FLOWS [EVENTS [SEED [trace]]]]
 *
 * Runs FLOWS random flows of EVENTS random events through the SMaRTT core
 * (all three profiles, random knob variations, ACKs without a sample or
 * below the base RTT, NACKs, timeouts, idle gaps, parameters switching
 * between two link rates as in the TCP glue's measured-rate mode, the
 * glue raising base_rtt and ending the ignore phase) and through the
 * STrack core, and prints one FNV-1a hash per core over the rules
 * returned and the whole state after every event.  Two builds with the
 * same output behave identically on these events.  "trace" prints every
 * SMaRTT event instead, to find the first difference.
 *
 * DIFF_ALGO_WIDE=1 in the environment draws every knob from its whole
 * range instead (its minimum, its maximum or a log-uniform value), with
 * ACKs of up to 4 GB, RTT samples and raised base RTTs up to 4.3 s, and
 * parameters switching between two such sets.  xdiff_hook(), called by
 * cores built with DIFF_ALGO_HOOK=1 (diff_algo.sh), adds the operands of
 * every cwnd += x / cwnd to the hash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algo/smartt.h"
#include "algo/strack.h"

static u64 rng;
static u64 rnd(void) { return smartt_prng_next(&rng); }
static u64 below(u64 n) { return n ? rnd() % n : 0; }

static u64 h;
static int trace;
static void mix(const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) { h ^= c[i]; h *= 0x100000001b3ULL; }
}

void xdiff_hook(u64 a, u64 b);
void xdiff_hook(u64 a, u64 b) { mix(&a, 8); mix(&b, 8); }

/* log-uniform in [lo, hi] */
static u64 logu(u64 lo, u64 hi)
{
	u64 span = hi - lo, v;
	int bits;

	if (!span)
		return lo;
	bits = below(64 - __builtin_clzll(span) + 1);
	v = bits >= 64 ? rnd() : rnd() & ((1ULL << bits) - 1);
	return lo + (v > span ? span : v);
}

/* pct % of the knobs of a table: minimum, maximum or log-uniform */
static void wide_knobs(void *k, const struct smartt_knob_desc *t, unsigned int n,
		       int pct)
{
	for (unsigned int i = 0; i < n; i++) {
		if ((int)below(100) >= pct)
			continue;
		switch (below(4)) {
		case 0: smartt_knob_table_set(&t[i], k, t[i].min); break;
		case 1: smartt_knob_table_set(&t[i], k, t[i].max); break;
		default: smartt_knob_table_set(&t[i], k, logu(t[i].min, t[i].max));
		}
	}
}

static u32 wide_rtt(u32 base)
{
	u64 r;

	switch (below(8)) {
	case 0: return 0;
	case 1: return below((u64)base + 1);
	case 2: return logu(0, U32_MAX);
	case 3: r = base + logu(0, (u64)base * 4 + 1); break;
	default: r = base + below((u64)base * 2 + 1);
	}
	return r > U32_MAX ? U32_MAX : r;
}

static void wide_smartt(long flows, long events)
{
	for (long f = 0; f < flows; f++) {
		int prof = below(3), tries = 0, pct = below(2) ? 15 : 60;
		struct smartt_knobs k, k2;
		struct smartt_params p, p2;
		struct smartt_state s;
		u64 now = below(4) ? 1 + below(100000) : logu(0, U64_MAX / 2);
		bool alt = false;

		do {
			k = smartt_profiles[prof];
			wide_knobs(&k, smartt_knob_descs, smartt_knob_count, pct);
			k.rules = prof;
		} while (smartt_params_init(&p, &k) && ++tries < 50);
		if (tries >= 50) { mix("E", 1); continue; }
		tries = 0;
		do {
			k2 = k;
			wide_knobs(&k2, smartt_knob_descs, smartt_knob_count, 10);
			k2.rules = prof;
		} while (smartt_params_init(&p2, &k2) && ++tries < 50);
		if (tries >= 50) p2 = p;
		smartt_init(&s, &p, below(2) ? 0 : logu(0, 1ULL << 40));
		for (long i = 0; i < events; i++) {
			const struct smartt_params *pp = alt ? &p2 : &p;
			u32 r, kind = below(20), base = s.base_rtt ? s.base_rtt : 10000;
			struct smartt_event e;

			now += below(8) == 0 ? below(100000) : below(3000);
			if (below(100) == 0) now += logu(0, 1ULL << 40);
			e.now = now;
			e.rtt = wide_rtt(base);
			e.bytes = below(4) ? pp->k.mtu : below(3) ? below(70000) : logu(0, U32_MAX);
			e.in_flight = below(4) ? below(500000) : logu(0, U64_MAX);
			e.ecn = below(3) == 0;
			if (kind < 16)
				r = smartt_on_ack(&s, pp, &e);
			else if (kind < 18)
				r = smartt_on_nack(&s, pp, &e);
			else
				r = smartt_on_timeout(&s, pp, &e);
			mix(&r, sizeof(r));
			mix(&s, sizeof(s));
			if (below(300) == 0) s.base_rtt += below(5000);
			if (below(1000) == 0) s.base_rtt = logu(1, below(2) ? 1000000000 : U32_MAX);
			if (below(200) == 0) alt = !alt;
			if (below(400) == 0) s.bytes_ignored = s.bytes_to_ignore;
		}
	}
}

static void wide_strack(long flows, long events)
{
	for (long f = 0; f < flows; f++) {
		int tries = 0, pct = below(2) ? 15 : 60;
		struct strack_knobs k, k2;
		struct strack_params p, p2;
		struct strack_state s;
		u64 now = below(4) ? 1 + below(100000) : logu(0, U64_MAX / 2);
		bool alt = false;

		do {
			k = strack_defaults;
			wide_knobs(&k, strack_knob_descs, strack_knob_count, pct);
		} while (strack_params_init(&p, &k) && ++tries < 50);
		if (tries >= 50) { mix("E", 1); continue; }
		tries = 0;
		do {
			k2 = k;
			wide_knobs(&k2, strack_knob_descs, strack_knob_count, 10);
		} while (strack_params_init(&p2, &k2) && ++tries < 50);
		if (tries >= 50) p2 = p;
		strack_init(&s, &p, below(2) ? 0 : logu(0, 1ULL << 40));
		for (long i = 0; i < events; i++) {
			const struct strack_params *pp = alt ? &p2 : &p;
			u32 r, base = s.base_rtt ? s.base_rtt : 10000, bytes;

			now += below(8) == 0 ? below(100000) : below(3000);
			if (below(100) == 0) now += logu(0, 1ULL << 40);
			bytes = below(4) ? pp->k.mtu : below(3) ? below(70000) : logu(0, U32_MAX);
			if (below(30) == 0)
				r = strack_on_timeout(&s, pp, bytes);
			else
				r = strack_on_ack(&s, pp, now, wide_rtt(base), below(3) == 0, bytes);
			mix(&r, sizeof(r));
			mix(&s, sizeof(s));
			if (below(300) == 0) s.base_rtt += below(5000);
			if (below(1000) == 0) s.base_rtt = logu(1, below(2) ? 1000000000 : U32_MAX);
			if (below(200) == 0) alt = !alt;
		}
	}
}

static void set(struct smartt_knobs *k, const char *name, u32 v)
{
	int i = smartt_knob_find(name);
	if (i < 0) abort();
	smartt_knob_set(k, i, v);
}

static void run_smartt(long flows, long events)
{
	for (long f = 0; f < flows; f++) {
		struct smartt_knobs k = smartt_profiles[below(3)];
		struct smartt_params p, p2;
		struct smartt_state s;
		u64 now = 1 + below(100000);
		bool alt = false;

		if (below(2)) set(&k, "learn_base_rtt", below(2));
		if (below(2)) set(&k, "trimming", below(2));
		if (below(3) == 0) set(&k, "qa_gate_cwnd", below(2));
		if (below(3) == 0) set(&k, "qa_inclusive", below(2));
		if (below(3) == 0) set(&k, "ignore_ecn_only", below(2));
		if (below(3) == 0) set(&k, "fast_inc", below(2));
		if (below(3) == 0) set(&k, "wtd_enable", below(2));
		if (below(3) == 0) set(&k, "qa", below(2));
		if (below(3) == 0) set(&k, "qa_on_timeout", below(2));
		if (below(3) == 0) set(&k, "qa_delay_mode", below(3));
		if (below(3) == 0) set(&k, "adjust_acks", 1 + below(4));
		if (below(3) == 0) set(&k, "adjust_period", below(30000));
		if (below(4) == 0) set(&k, "adjust_rtt", below(2));
		if (below(4) == 0) set(&k, "qa_scaling", 1 + below(2000000));
		if (below(4) == 0) set(&k, "md", below(1000001));
		if (below(4) == 0) set(&k, "pi", below(3000000));
		if (below(3) == 0) set(&k, "link_mbps", 1 + below(1600000));
		if (below(3) == 0) set(&k, "base_rtt", below(2) ? 0 : 100 + below(100000));
		if (below(4) == 0) set(&k, "network_rtt", 1000 + below(50000));
		if (below(4) == 0) set(&k, "ref_bdp", 1 + below(300000));
		if (below(4) == 0) set(&k, "mtu", 1500 + below(8000));
		if (smartt_params_init(&p, &k)) { mix("E", 1); continue; }
		k.link_mbps = k.link_mbps / 2 + 1;
		if (smartt_params_init(&p2, &k)) p2 = p;
		smartt_init(&s, &p, below(2) ? 0 : below(400000));
		for (long i = 0; i < events; i++) {
			struct smartt_event e;
			u32 r, kind = below(20), base = s.base_rtt ? s.base_rtt : 10000;
			const struct smartt_params *pp = alt ? &p2 : &p;

			now += below(8) == 0 ? below(100000) : below(3000);
			if (below(200) == 0) now += below(10000000);
			e.now = now;
			switch (below(6)) {
			case 0: e.rtt = 0; break;
			case 1: e.rtt = below(base + 1); break;
			default: e.rtt = base + below(base * 2 + 1); break;
			}
			e.bytes = below(10) ? 4096 : below(70000);
			e.in_flight = below(500000);
			e.ecn = below(3) == 0;
			if (kind < 17)
				r = smartt_on_ack(&s, pp, &e);
			else if (kind < 19)
				r = smartt_on_nack(&s, pp, &e);
			else
				r = smartt_on_timeout(&s, pp, &e);
			mix(&r, sizeof(r));
			mix(&s, sizeof(s));
			if (trace)
				printf("%ld %ld k%u prof%u ecn%d rtt%u b%u r%x cwnd %llu base %u inc %llu qa_end %llu ach %llu ign %llu/%llu fl %x\n", f, i, kind, k.rules, e.ecn, e.rtt, e.bytes, r, (unsigned long long)s.cwnd, s.base_rtt, (unsigned long long)s.inc, (unsigned long long)s.qa_end, (unsigned long long)s.achieved, (unsigned long long)s.bytes_ignored, (unsigned long long)s.bytes_to_ignore, (unsigned)s.flags);
			/* glue-like external changes */
			if (below(500) == 0) s.base_rtt += below(5000);
			if (below(300) == 0) alt = !alt;
			if (below(400) == 0) s.bytes_ignored = s.bytes_to_ignore;
		}
	}
}

static void run_strack(long flows, long events)
{
	for (long f = 0; f < flows; f++) {
		struct strack_knobs k = strack_defaults;
		struct strack_params p, p2;
		struct strack_state s;
		u64 now = 1 + below(100000);
		bool alt = false;

		if (below(2)) k.learn_base_rtt = below(2);
		if (below(3) == 0) k.scale_path = below(2);
		if (below(3) == 0) k.link_mbps = 1 + below(1600000);
		if (below(3) == 0) k.base_rtt = below(2) ? 0 : 100 + below(100000);
		if (below(4) == 0) k.target_qdelay = below(30000);
		if (below(4) == 0) k.gamma = below(1000001);
		if (below(4) == 0) k.qa_gate = below(10);
		if (below(4) == 0) k.mtu = 1500 + below(8000);
		if (strack_params_init(&p, &k)) { mix("E", 1); continue; }
		k.link_mbps = k.link_mbps / 2 + 1;
		if (strack_params_init(&p2, &k)) p2 = p;
		strack_init(&s, &p, below(2) ? 0 : below(400000));
		for (long i = 0; i < events; i++) {
			u32 r, rtt, base = s.base_rtt ? s.base_rtt : 10000;
			const struct strack_params *pp = alt ? &p2 : &p;

			now += below(8) == 0 ? below(100000) : below(3000);
			switch (below(6)) {
			case 0: rtt = 0; break;
			case 1: rtt = below(base + 1); break;
			default: rtt = base + below(base * 4 + 1); break;
			}
			r = strack_on_ack(&s, pp, now, rtt, below(3) == 0,
					  below(10) ? 4096 : below(70000));
			mix(&r, sizeof(r));
			mix(&s, sizeof(s));
			if (below(500) == 0) s.base_rtt += below(5000);
			if (below(300) == 0) alt = !alt;
		}
	}
}

int main(int argc, char **argv)
{
	long flows = argc > 1 ? atol(argv[1]) : 1000;
	long events = argc > 2 ? atol(argv[2]) : 2000;
	const char *w = getenv("DIFF_ALGO_WIDE");
	bool wide = w && *w == '1';

	trace = argc > 4;
	rng = argc > 3 ? strtoull(argv[3], 0, 0) : 1;
	h = 0xcbf29ce484222325ULL;
	if (wide)
		wide_smartt(flows, events);
	else
		run_smartt(flows, events);
	printf("smartt %016llx\n", (unsigned long long)h);
	h = 0xcbf29ce484222325ULL;
	if (wide)
		wide_strack(flows, events);
	else
		run_strack(flows, events);
	printf("strack %016llx\n", (unsigned long long)h);
	return 0;
}
