/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-point vocabulary shared by the algorithm cores (header-only, so BPF
 * programs can use it too).
 *
 * Two named scales:
 *
 * - SMARTT_PPM: user-facing fractional knobs are integers in parts per
 *   million, so that every decimal value in the papers (0.0125, 0.8, 0.25,
 *   1.5, ...) is represented exactly and test expectations can be derived by
 *   hand.
 * - SMARTT_FP_SHIFT: derived per-connection gains (bytes, bytes per ns,
 *   dimensionless factors) are unsigned Q.16 binary fixed point; multiplying
 *   by them is a shift, not a division.
 *
 * Every helper either cannot overflow for the documented operand ranges or
 * saturates at U64_MAX; callers bound the results they keep (a saturated
 * intermediate is always followed by a min() against a meaningful cap).
 */
#ifndef SMARTT_ALGO_FIXED_H
#define SMARTT_ALGO_FIXED_H

#include "algo_types.h"

/* One in parts per million: the scale of every fractional knob. */
#define SMARTT_PPM		1000000U
/* Q.16: the scale of derived gains. */
#define SMARTT_FP_SHIFT		16
#define SMARTT_FP_ONE		65536ULL	/* 2^SMARTT_FP_SHIFT */
#define SMARTT_FP_MASK		(SMARTT_FP_ONE - 1)

/* Saturating a + b. */
static inline u64 smartt_sat_add(u64 a, u64 b)
{
	u64 r;

	if (smartt_add_overflow(a, b, &r))
		return U64_MAX;
	return r;
}

/* Saturating a * b. */
static inline u64 smartt_sat_mul(u64 a, u64 b)
{
	u64 r;

	if (smartt_mul_overflow(a, b, &r))
		return U64_MAX;
	return r;
}

/* a - b, or 0 if b > a. */
static inline u64 smartt_sat_sub(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

/*
 * floor(a_fp * b / 2^16) for a Q.16 a_fp and an integer b, saturating.
 * Split into integer and fractional parts of a_fp so that the fractional
 * product (< 2^16 * b) only overflows when b >= 2^48.
 */
static inline u64 smartt_mul_fp(u64 a_fp, u64 b)
{
	u64 hi, lo;

	/* common case: the full product fits, one multiply */
	if (!smartt_mul_overflow(a_fp, b, &lo))
		return lo >> SMARTT_FP_SHIFT;
	hi = smartt_sat_mul(a_fp >> SMARTT_FP_SHIFT, b);
	lo = smartt_sat_mul(a_fp & SMARTT_FP_MASK, b) >> SMARTT_FP_SHIFT;
	return smartt_sat_add(hi, lo);
}

/*
 * floor(x * ppm / 10^6), exact and without overflow for any x as long as
 * (x / 10^6) * ppm fits: the remainder product is < 10^6 * 2^32.
 *
 * Common case first: when x * ppm fits in 64 bits, one multiply and one
 * division by the constant 10^6 (a multiply by its reciprocal) give the
 * same floor, because q * ppm + floor(rem * ppm / 10^6) =
 * floor((q * 10^6 + rem) * ppm / 10^6) for x = q * 10^6 + rem.
 */
static inline u64 smartt_mul_ppm(u64 x, u32 ppm)
{
	u32 rem;
	u64 q;

	if (!smartt_mul_overflow(x, (u64)ppm, &q))
		return div_u64(q, SMARTT_PPM);
	q = div_u64_rem(x, SMARTT_PPM, &rem);
	return smartt_sat_add(smartt_sat_mul(q, ppm),
			      div_u64((u64)rem * ppm, SMARTT_PPM));
}

/* A ppm fraction as Q.16, rounded down: ppm < 2^32 so ppm << 16 < 2^48. */
static inline u64 smartt_ppm_to_fp(u32 ppm)
{
	return div_u64((u64)ppm << SMARTT_FP_SHIFT, SMARTT_PPM);
}

/*
 * splitmix64 step: a deterministic, allocation-free pseudo-random sequence
 * for oblivious spraying, random exploration and property tests.  The state
 * is one u64 seeded from a knob; the same seed gives the same sequence in
 * the kernel, in userspace and in BPF.
 */
static inline u64 smartt_prng_next(u64 *state)
{
	u64 z;

	*state += 0x9e3779b97f4a7c15ULL;
	z = *state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Uniform-enough value in [0, n) without a division: the high 32 bits of a
 * 32x32 product (Lemire's reduction).  n must be non-zero and < 2^32.
 */
static inline u32 smartt_prng_below(u64 *state, u32 n)
{
	return (u32)(((smartt_prng_next(state) >> 32) * (u64)n) >> 32);
}

#endif /* SMARTT_ALGO_FIXED_H */
