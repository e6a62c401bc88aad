// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the path selectors: kernel/algo/lb.c with reps.c and
 * path_bitmap.c (hand-traced vectors), plus randomized properties.
 */
#include "kselftest_harness.h"

#include "algo/lb.h"
#include "../../kernel/tests/vectors_lb.h"

TEST(smartt_lb_next__vectors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lb_vectors); i++) {
		u32 got = U32_MAX;
		int r = lb_vec_run(&lb_vectors[i], &got);

		EXPECT_EQ((int)lb_vectors[i].nops, r)
			TH_LOG("vector %s: op %d chose %u", lb_vectors[i].name, r, got);
	}
}

TEST(smartt_bitmap_paths__clamp)
{
	EXPECT_EQ(8U, smartt_bitmap_paths(256, 0));	/* 2 x 0 -> 8 */
	EXPECT_EQ(8U, smartt_bitmap_paths(256, 4));	/* 2 x 4 = 8 */
	EXPECT_EQ(200U, smartt_bitmap_paths(256, 100));
	EXPECT_EQ(256U, smartt_bitmap_paths(256, 1000));
	EXPECT_EQ(4U, smartt_bitmap_paths(4, 100));	/* knob below 8 */
	EXPECT_EQ(256U, smartt_bitmap_paths(256, U64_MAX));
}

TEST(smartt_bitmap_next__all_marked_terminates)
{
	struct smartt_bitmap b;
	u32 p;

	smartt_bitmap_init(&b);
	for (p = 0; p < 8; p++)
		smartt_bitmap_feedback(&b, 256, false, p, SMARTT_FB_ECN);
	/* rr -> 0 is marked: cleared (first skip), 1..7 skipped, back to 0 */
	EXPECT_EQ(0U, smartt_bitmap_next(&b, 256, 1));
	/* 1 is still marked: cleared (first skip); 2..7 skipped; 0 is clear */
	EXPECT_EQ(0U, smartt_bitmap_next(&b, 256, 1));
}

TEST(smartt_bitmap_feedback__penalties)
{
	struct smartt_bitmap b;
	u32 p;

	/* one bit: anything but GOOD sets it, GOOD clears it */
	smartt_bitmap_init(&b);
	smartt_bitmap_feedback(&b, 256, false, 3, SMARTT_FB_TIMEOUT);
	smartt_bitmap_feedback(&b, 256, false, 3, SMARTT_FB_LOST);
	EXPECT_EQ(1U, smartt_bitmap_penalty(&b, 3));
	smartt_bitmap_feedback(&b, 256, false, 3, SMARTT_FB_GOOD);
	EXPECT_EQ(0U, smartt_bitmap_penalty(&b, 3));
	/* counters: +1, +4, +15, +15, saturating at 15; GOOD keeps them */
	smartt_bitmap_init(&b);
	smartt_bitmap_feedback(&b, 256, true, 254, SMARTT_FB_ECN);
	smartt_bitmap_feedback(&b, 256, true, 254, SMARTT_FB_ECN);
	smartt_bitmap_feedback(&b, 256, true, 255, SMARTT_FB_NACK);
	EXPECT_EQ(2U, smartt_bitmap_penalty(&b, 254));
	EXPECT_EQ(4U, smartt_bitmap_penalty(&b, 255));
	smartt_bitmap_feedback(&b, 256, true, 255, SMARTT_FB_LOST);
	smartt_bitmap_feedback(&b, 256, true, 254, SMARTT_FB_TIMEOUT);
	smartt_bitmap_feedback(&b, 256, true, 254, SMARTT_FB_GOOD);
	EXPECT_EQ((u32)SMARTT_BITMAP_PEN_MAX, smartt_bitmap_penalty(&b, 254));
	EXPECT_EQ((u32)SMARTT_BITMAP_PEN_MAX, smartt_bitmap_penalty(&b, 255));
	/* neighbours in the same byte are untouched; out of range ignored */
	EXPECT_EQ(0U, smartt_bitmap_penalty(&b, 253));
	smartt_bitmap_feedback(&b, 8, true, 8, SMARTT_FB_TIMEOUT);
	smartt_bitmap_feedback(&b, 256, true, 9, (enum smartt_path_fb)7);
	for (p = 0; p < 254; p++)
		EXPECT_EQ(0U, smartt_bitmap_penalty(&b, p));
}

TEST(smartt_bitmap_next__all_penalised_takes_the_least)
{
	struct smartt_bitmap b;
	u32 p;

	/*
	 * 8 paths, rr at 4; ECN on every path (a congested last hop marks
	 * them all) and a timeout on 5.  The round starts at 5 (15 -> 14),
	 * finds no clean path and takes the least penalised, 6, not the
	 * failed path the UEC reference's bound would return.
	 */
	smartt_bitmap_init(&b);
	for (p = 0; p < 5; p++)
		ASSERT_EQ(p, smartt_bitmap_next(&b, 256, 1));
	for (p = 0; p < 8; p++)
		smartt_bitmap_feedback(&b, 256, true, p, SMARTT_FB_ECN);
	smartt_bitmap_feedback(&b, 256, true, 5, SMARTT_FB_TIMEOUT);
	EXPECT_EQ(6U, smartt_bitmap_next(&b, 256, 1));
	EXPECT_EQ(14U, smartt_bitmap_penalty(&b, 5));
	EXPECT_EQ(1U, smartt_bitmap_penalty(&b, 6));
}

TEST(smartt_bitmap_next__timed_out_path_out_for_15_rounds)
{
	struct smartt_bitmap b;
	unsigned int i, used = 0;

	/*
	 * 8 paths, path 5 timed out.  Counters: each round skips it once
	 * (-1), so 15 rounds of 7 sends leave it out; the 16th round uses it,
	 * as its 6th send.  One bit: the first round skips it, every later
	 * round of 8 uses it: sends 12, 20, ... 100 of the first 105.
	 */
	smartt_bitmap_init(&b);
	smartt_bitmap_feedback(&b, 256, true, 5, SMARTT_FB_TIMEOUT);
	for (i = 0; i < 15 * 7; i++)
		used += smartt_bitmap_next(&b, 256, 1) == 5;
	EXPECT_EQ(0U, used);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(i, smartt_bitmap_next(&b, 256, 1));
	EXPECT_EQ(5U, smartt_bitmap_next(&b, 256, 1));
	smartt_bitmap_init(&b);
	smartt_bitmap_feedback(&b, 256, false, 5, SMARTT_FB_TIMEOUT);
	for (i = 0, used = 0; i < 15 * 7; i++)
		used += smartt_bitmap_next(&b, 256, 1) == 5;
	EXPECT_EQ(12U, used);
}

TEST(smartt_lb_validate__rejects_nonsense)
{
	struct smartt_lb_knobs k = smartt_lb_defaults;
	struct smartt_lb lb;

	EXPECT_EQ(0, smartt_lb_init(&lb, &k));
	k.reps.paths = 0;
	EXPECT_EQ(SMARTT_EINVAL, smartt_lb_init(&lb, &k));
	k = smartt_lb_defaults;
	k.reps.buf_size = 17;
	EXPECT_EQ(SMARTT_EINVAL, smartt_lb_init(&lb, &k));
	k = smartt_lb_defaults;
	k.max_paths = 257;
	EXPECT_EQ(SMARTT_EINVAL, smartt_lb_init(&lb, &k));
	k = smartt_lb_defaults;
	k.kind = SMARTT_LB_COUNT;
	EXPECT_EQ(SMARTT_EINVAL, smartt_lb_init(&lb, &k));
	EXPECT_EQ(SMARTT_LB_BITMAP, smartt_lb_by_name("strack-bitmap"));
	EXPECT_EQ(SMARTT_EINVAL, smartt_lb_by_name("bitmap"));
}

TEST(smartt_lb_next__ecmp_one_entropy_per_flow)
{
	struct smartt_lb_knobs k = smartt_lb_defaults;
	struct smartt_lb lb;
	u32 first, i;

	k.kind = SMARTT_LB_ECMP;
	ASSERT_EQ(0, smartt_lb_init(&lb, &k));
	first = smartt_lb_next(&lb, 10, 4096);
	EXPECT_LT(first, 256U);
	for (i = 0; i < 1000; i++) {
		smartt_lb_feedback(&lb, i, first, i & 1 ? SMARTT_FB_ECN : SMARTT_FB_GOOD);
		EXPECT_EQ(first, smartt_lb_next(&lb, 10, 4096));
	}
}

/*
 * Oblivious: every entropy in range, all 256 seen in 100000 packets, same
 * sequence for the same seed, another for another seed.
 */
TEST(smartt_lb_next__oblivious_uniform_deterministic)
{
	struct smartt_lb_knobs k = smartt_lb_defaults;
	struct smartt_lb a, b;
	u32 seen[256] = { 0 }, i, distinct = 0, diff = 0;

	k.kind = SMARTT_LB_OBLIVIOUS;
	ASSERT_EQ(0, smartt_lb_init(&a, &k));
	ASSERT_EQ(0, smartt_lb_init(&b, &k));
	for (i = 0; i < 100000; i++) {
		u32 e = smartt_lb_next(&a, 1, 4096);

		ASSERT_LT(e, 256U);
		ASSERT_EQ(e, smartt_lb_next(&b, 1, 4096));
		seen[e]++;
	}
	for (i = 0; i < 256; i++) {
		distinct += !!seen[i];
		/* 100000 / 256 = 390.6 expected; a fair PRNG stays within 2x */
		EXPECT_GT(seen[i], 195U);
		EXPECT_LT(seen[i], 781U);
	}
	EXPECT_EQ(256U, distinct);
	k.seed = 2;
	ASSERT_EQ(0, smartt_lb_init(&b, &k));
	ASSERT_EQ(0, smartt_lb_init(&a, &smartt_lb_defaults));
	a.k.kind = SMARTT_LB_OBLIVIOUS;
	b.k.kind = SMARTT_LB_OBLIVIOUS;
	for (i = 0; i < 100; i++)
		diff += smartt_lb_next(&a, 1, 4096) != smartt_lb_next(&b, 1, 4096);
	EXPECT_GT(diff, 90U);
}

/*
 * Random feedback/sends for every selector: every chosen entropy is in
 * range, REPS never reuses a cached entropy twice outside a freeze.
 */
TEST(smartt_lb_next__property_in_range)
{
	u32 kind, i;
	u64 x = 99;

	for (kind = 0; kind < SMARTT_LB_COUNT; kind++) {
		struct smartt_lb_knobs k = smartt_lb_defaults;
		struct smartt_lb lb;
		u32 paths, limit;

		k.kind = kind;
		k.reps.paths = 1 + smartt_prng_below(&x, 1000);
		k.reps.buf_size = 1 + smartt_prng_below(&x, SMARTT_REPS_BUF_MAX);
		k.max_paths = 1 + smartt_prng_below(&x, SMARTT_BITMAP_PATHS);
		k.reps.freeze_time = 1000;
		ASSERT_EQ(0, smartt_lb_init(&lb, &k));
		paths = k.reps.paths;
		limit = kind == SMARTT_LB_BITMAP ? k.max_paths : paths;
		for (i = 0; i < 50000; i++) {
			u64 r = smartt_prng_next(&x);

			if (r & 1) {
				u32 e = smartt_lb_next(&lb, (r >> 8) & 1023, 4096);

				ASSERT_LT(e, limit);
			} else {
				smartt_lb_feedback(&lb, i * 10, (u32)((r >> 8) % (limit + 2)),
						   (enum smartt_path_fb)((r >> 40) % 5));
			}
		}
	}
}

TEST(smartt_lb__state_size)
{
	/* the TCP CCs do not carry a selector; the transport does */
	EXPECT_LE(sizeof(struct smartt_reps), 96U);
	EXPECT_LE(sizeof(struct smartt_bitmap), 144U);
}

TEST_HARNESS_MAIN
