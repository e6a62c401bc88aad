/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test vectors for kernel/algo/dctcp.c, shared by selftests/unit/
 * unit_dctcp.c and the KUnit suite dctcp_kunit.c.
 *
 * MSS 1000 bytes; alpha in 1/1024; the cut is cwnd x alpha >> 11 (alpha
 * / 2); the window's end is a window's worth of bytes acknowledged.
 */
#ifndef SMARTT_VECTORS_DCTCP_H
#define SMARTT_VECTORS_DCTCP_H

#include "vectors_common.h"

struct dctcp_vec_step {
	u32 bytes;
	u8 ecn;
	u8 nack;
	u8 timeout;
	u64 cwnd;	/* expected */
	u32 rules;	/* expected DCTCP_R_* */
	u32 alpha;	/* expected */
};

struct dctcp_vec {
	const char *name;
	struct dctcp_params p;
	unsigned int nsteps;
	struct dctcp_vec_step steps[4];
};

#define DCTCP_VEC_P(init, max, g, a0) \
	{ .mss = 1000, .init_cwnd = (init), .max_cwnd = (max), .g_shift = (g), \
	  .alpha_init = (a0) }

static const struct dctcp_vec dctcp_vectors[] = {
	/*
	 * Slow start adds the bytes acknowledged; the window's 10000 bytes
	 * end it: no mark, alpha 1024 - 1024/16 = 960.
	 */
	{ "slow_start", DCTCP_VEC_P(10000, 64000, 4, 1024), 2, {
		{ 1000, 0, 0, 0, 11000, DCTCP_R_SS, 1024 },
		{ 9000, 0, 0, 0, 20000, DCTCP_R_ALPHA | DCTCP_R_SS, 960 },
	} },
	/*
	 * The first mark cuts 10000 by alpha / 2 = 1/2 -> 5000 (ssthresh);
	 * no increase until the window (10000 bytes) ends: alpha = 1024 - 64
	 * + (1000 << 6) / 10000 = 966, the next window is 5000 bytes and
	 * 8000 bytes of it give one MSS (ai 3000 left); a mark then cuts
	 * 6000 x 966 >> 11 = 2830 -> 3170.
	 */
	{ "mark_cuts_once_per_window", DCTCP_VEC_P(10000, 64000, 4, 1024), 4, {
		{ 1000, 1, 0, 0, 5000, DCTCP_R_MD, 1024 },
		{ 1000, 0, 0, 0, 5000, 0, 1024 },
		{ 8000, 0, 0, 0, 6000, DCTCP_R_ALPHA | DCTCP_R_AI, 966 },
		{ 1000, 1, 0, 0, 3170, DCTCP_R_MD, 966 },
	} },
	/* A second mark in the same window cuts nothing. */
	{ "second_mark_same_window", DCTCP_VEC_P(10000, 64000, 4, 1024), 2, {
		{ 1000, 1, 0, 0, 5000, DCTCP_R_MD, 1024 },
		{ 1000, 1, 0, 0, 5000, 0, 1024 },
	} },
	/* A NACK is a mark for the trimmed packet's bytes. */
	{ "nack_is_a_mark", DCTCP_VEC_P(10000, 64000, 4, 1024), 1, {
		{ 4000, 0, 1, 0, 5000, DCTCP_R_MD, 1024 },
	} },
	/*
	 * Additive increase: one MSS per window's worth of bytes acknowledged
	 * above ssthresh (after a cut to 5000: 9000 bytes end the first
	 * window and give one MSS, 4000 left; 1000 more: 5000 < 6000; 1000
	 * more: 6000, one MSS).
	 */
	{ "additive_increase", DCTCP_VEC_P(10000, 64000, 4, 1024), 4, {
		{ 1000, 1, 0, 0, 5000, DCTCP_R_MD, 1024 },
		{ 9000, 0, 0, 0, 6000, DCTCP_R_ALPHA | DCTCP_R_AI, 966 },
		{ 1000, 0, 0, 0, 6000, 0, 966 },
		{ 1000, 0, 0, 0, 7000, DCTCP_R_AI, 966 },
	} },
	/* The window's bound. */
	{ "clamp_max", DCTCP_VEC_P(10000, 12000, 4, 1024), 1, {
		{ 5000, 0, 0, 0, 12000, DCTCP_R_SS | DCTCP_R_CLAMPED, 1024 },
	} },
	/*
	 * One MSS: the marked sample ends the window (alpha (1024 - 64) +
	 * 64 = 1024), then cuts 1000 to 500, held at the MSS.
	 */
	{ "floor_mss", DCTCP_VEC_P(1000, 64000, 4, 1024), 1, {
		{ 1000, 1, 0, 0, 1000, DCTCP_R_ALPHA | DCTCP_R_MD | DCTCP_R_CLAMPED, 1024 },
	} },
	/* g = 1: alpha is the last window's fraction; 0 cuts nothing. */
	{ "alpha_zero_no_cut", DCTCP_VEC_P(10000, 64000, 0, 1024), 2, {
		{ 10000, 0, 0, 0, 20000, DCTCP_R_ALPHA | DCTCP_R_SS, 0 },
		{ 1000, 1, 0, 0, 20000, DCTCP_R_MD, 0 },
	} },
	/* A small alpha (10 >> 4 = 0) decays to 0, not stuck at 10. */
	{ "small_alpha_decays", DCTCP_VEC_P(10000, 64000, 4, 10), 1, {
		{ 10000, 0, 0, 0, 20000, DCTCP_R_ALPHA | DCTCP_R_SS, 0 },
	} },
	/*
	 * Timeout: ssthresh max(10000 / 2, 2000) = 5000, one MSS, a new
	 * window of 1000 bytes; the next ACK ends it (alpha 960) and slow
	 * starts.
	 */
	{ "timeout", DCTCP_VEC_P(10000, 64000, 4, 1024), 2, {
		{ 0, 0, 0, 1, 1000, DCTCP_R_TIMEOUT, 1024 },
		{ 1000, 0, 0, 0, 2000, DCTCP_R_ALPHA | DCTCP_R_SS, 960 },
	} },
};

/* Runs one vector; returns the index of the first wrong step, or nsteps. */
static inline int dctcp_vec_run(const struct dctcp_vec *v, u64 *cwnd, u32 *rules,
				u32 *alpha)
{
	struct dctcp_state s;
	unsigned int i;

	if (dctcp_params_validate(&v->p))
		return -1;
	dctcp_init(&s, &v->p);
	for (i = 0; i < v->nsteps; i++) {
		const struct dctcp_vec_step *st = &v->steps[i];

		if (st->timeout)
			*rules = dctcp_on_timeout(&s, &v->p);
		else
			*rules = dctcp_on_ack(&s, &v->p, st->bytes, st->ecn, st->nack);
		*cwnd = s.cwnd;
		*alpha = s.alpha;
		if (*cwnd != st->cwnd || *rules != st->rules || *alpha != st->alpha)
			return i;
	}
	return i;
}

/*
 * Random flows (MSS 1 .. 9000, bounds up to 1 GB, every gain): after
 * every event the window is within [mss, max_cwnd] and alpha within [0,
 * 1.0].  Returns a digest of the run.
 */
static inline u64 dctcp_vec_random_run(u64 seed, int events, int *violations)
{
	struct dctcp_params p;
	struct dctcp_state s;
	u64 x = seed, digest = 0;
	int i;

	dctcp_params_default(&p, (u32)vec_mod(smartt_prng_next(&x), 9000) + 1,
			     vec_mod(smartt_prng_next(&x), 1000000000ULL));
	p.g_shift = (u32)vec_mod(smartt_prng_next(&x), DCTCP_G_SHIFT_MAX + 1);
	p.alpha_init = (u32)vec_mod(smartt_prng_next(&x), DCTCP_ALPHA_ONE + 1);
	if (dctcp_params_validate(&p)) {
		(*violations)++;
		return 0;
	}
	dctcp_init(&s, &p);
	for (i = 0; i < events; i++) {
		u64 r = smartt_prng_next(&x);
		u32 bytes = (r >> 40) & 0xff ? (u32)vec_mod(r >> 44, 4 * p.mss) + 1 :
			    (u32)(r >> 32);

		if (!(r & 0x3f))
			dctcp_on_timeout(&s, &p);
		else
			dctcp_on_ack(&s, &p, bytes, (r >> 8) & 1, !((r >> 9) & 15));
		if (s.cwnd < p.mss || s.cwnd > p.max_cwnd || s.alpha > DCTCP_ALPHA_ONE)
			(*violations)++;
		digest = digest * 31 + s.cwnd;
	}
	return digest;
}

#endif /* SMARTT_VECTORS_DCTCP_H */
