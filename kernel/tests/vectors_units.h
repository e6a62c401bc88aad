/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test vectors for kernel/algo/units.c, shared by the userspace unit tests
 * (selftests/unit/unit_units.c) and the KUnit suite (units_kunit.c), so the
 * two layers check exactly the same numbers.
 */
#ifndef SMARTT_VECTORS_UNITS_H
#define SMARTT_VECTORS_UNITS_H

struct smartt_bdp_vector {
	const char *name;
	u32 link_mbps;
	u64 rtt_ns;
	u64 bdp_bytes;
};

/*
 * Worked by hand: bytes = Mbit/s * ns / 8000.
 * 400 Gb/s * 4 us = 400000 * 4000 / 8000 = 200000 B (the SMaRTT papers'
 * 400G fabric); 100 Gb/s * 12 us = 150000 B (the reference BDP of the UEC
 * simulator, reference-semantics.md 2.1).
 */
static const struct smartt_bdp_vector smartt_bdp_vectors[] = {
	{ "400g_4us",	400000,		4000,		200000 },
	{ "100g_12us",	100000,		12000,		150000 },
	{ "1g_1us",	1000,		1000,		125 },
	{ "round_down",	1,		7999,		0 },
	{ "zero_rtt",	100000,		0,		0 },
	/* Both limits at once: 1e7 * 1e9 / 8000 = 1.25e12 B, no overflow. */
	{ "max_both",	10000000,	1000000000ULL,	1250000000000ULL },
	/* Out of range: 0, never a wrapped value. */
	{ "rate_over",	10000001,	1000,		0 },
	{ "rtt_over",	1000,		1000000001ULL,	0 },
};

#endif /* SMARTT_VECTORS_UNITS_H */
