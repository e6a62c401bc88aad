/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test vectors for kernel/algo/hostdelay.h, shared by the userspace unit
 * tests (selftests/unit/unit_hostdelay.c) and the KUnit suite
 * (hostdelay_kunit.c), so the two layers check exactly the same numbers.
 */
#ifndef SMARTT_VECTORS_HOSTDELAY_H
#define SMARTT_VECTORS_HOSTDELAY_H

struct smartt_hd_local_vector {
	const char *name;
	u64 bytes;
	u32 delivered;
	u32 mss;
	u32 interval_us;
	u64 pacing_rate;
	u32 ns;
};

/*
 * Worked by hand: ns = bytes x interval_us x 1000 / (delivered x mss), or
 * bytes x 10^9 / pacing_rate without a rate sample; at most 10^9.
 */
static const struct smartt_hd_local_vector smartt_hd_local_vectors[] = {
	{ "empty",		0,	10, 1448, 10, 125000000, 0 },
	/* 10 x 1448 B in 10 us: 14480 B drain in 10 us */
	{ "rate_sample",	14480,	10, 1448, 10, 0, 10000 },
	/* the sample wins over the pacing rate */
	{ "sample_first",	14480,	10, 1448, 10, 1, 10000 },
	/* 125000 B at 1 Gbit/s (1.25e8 B/s): 1 ms */
	{ "pacing",		125000,	0, 1448, 0, 125000000, 1000000 },
	{ "no_interval",	125000,	10, 1448, 0, 125000000, 1000000 },
	{ "no_rate",		1000,	0, 1448, 0, 0, 0 },
	/* 1000 / 3 rounds down */
	{ "round_down",		1,	3, 1, 1, 0, 333 },
	/* a 5 s interval counts as 1 s: 1448 B in 1 s = 10^9 ns */
	{ "interval_cap",	1448,	1, 1448, 5000000, 0, 1000000000 },
	/* bytes capped at 2^31 - 1: 2.1e12 ns, reported as 10^9 */
	{ "bytes_cap",		1ULL << 40, 1, 1, 1, 0, 1000000000 },
	/* 2^31 - 1 B at 1 B/s through the pacing rate: capped, no overflow */
	{ "pacing_slow",	0x7fffffffULL, 0, 1448, 0, 1, 1000000000 },
};

struct smartt_hd_fabric_vector {
	const char *name;
	u32 rtt;
	u32 base_rtt;
	u32 host;
	u32 target;
	u32 flags;
	u32 fabric;
};

/* Worked by hand from the rule of smartt_hd_fabric_rtt(). */
static const struct smartt_hd_fabric_vector smartt_hd_fabric_vectors[] = {
	{ "no_sample",		0,	3000, 0, 50000, 0, 0 },
	{ "no_split",		50000,	3000, 0, 0, 0, 50000 },
	{ "no_split_delayed",	50000,	3000, 0, 0, SMARTT_HD_F_DELAYED, 50000 },
	{ "below_base",		2000,	3000, 0, 50000, 0, 2000 },
	{ "at_base",		3000,	3000, 0, 50000, 0, 3000 },
	/* 27 us of queueing, all within the 50 us target: the hosts' */
	{ "within_target",	30000,	3000, 0, 50000, 0, 3000 },
	/* 97 us: 50 us are the hosts', 47 us stay */
	{ "beyond_target",	100000,	3000, 0, 50000, 0, 50000 },
	/* marked: only the measured 10 us are the host's */
	{ "ce_measured",	30000,	3000, 10000, 50000, SMARTT_HD_F_CE, 20000 },
	{ "ce_none_measured",	30000,	3000, 0, 50000, SMARTT_HD_F_CE, 30000 },
	/* measured 40 us but only 27 us above the base */
	{ "ce_host_over_q",	30000,	3000, 40000, 50000, SMARTT_HD_F_CE, 3000 },
	/* measured 120 us, target 50 us: 70 us of host queue stay */
	{ "ce_host_over_tgt",	200000,	3000, 120000, 50000, SMARTT_HD_F_CE, 150000 },
	/* unmarked: a measured host delay beyond the target stays too */
	{ "host_over_tgt",	200000,	3000, 120000, 50000, 0, 150000 },
	{ "delayed",		40000000, 3000, 0, 50000, SMARTT_HD_F_DELAYED, 0 },
	{ "delayed_ce",		40000000, 3000, 0, 50000,
	  SMARTT_HD_F_DELAYED | SMARTT_HD_F_CE, 0 },
	{ "delayed_at_base",	3000,	3000, 0, 50000, SMARTT_HD_F_DELAYED, 3000 },
	{ "max",		1000000000, 100, 1000000000, 1000000000, 0, 100 },
};

struct smartt_hd_avg_vector {
	const char *name;
	u32 avg;
	u32 host;
	u32 out;
};

/* avg - avg / 8 + host / 8, integer shifts */
static const struct smartt_hd_avg_vector smartt_hd_avg_vectors[] = {
	{ "first",	0,		8000,		1000 },
	{ "steady",	8000,		8000,		8000 },
	{ "decay",	1000,		0,		875 },
	{ "max",	1000000000,	1000000000,	1000000000 },
};

#endif /* SMARTT_VECTORS_HOSTDELAY_H */
