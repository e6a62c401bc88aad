// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "smartt-reps": the path selectors (kernel/algo/reps.c,
 * path_bitmap.c, lb.c) checked with the same vectors as
 * selftests/unit/unit_lb.c.
 */
#include <kunit/test.h>

#include "../algo/lb.h"
#include "vectors_lb.h"

static void reps_vectors_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lb_vectors); i++) {
		u32 got = U32_MAX;
		int r = lb_vec_run(&lb_vectors[i], &got);

		KUNIT_EXPECT_EQ_MSG(test, r, (int)lb_vectors[i].nops,
				    "vector %s: op %d chose %u",
				    lb_vectors[i].name, r, got);
	}
}

static void reps_bitmap_paths_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, smartt_bitmap_paths(256, 0), 8U);
	KUNIT_EXPECT_EQ(test, smartt_bitmap_paths(256, 100), 200U);
	KUNIT_EXPECT_EQ(test, smartt_bitmap_paths(256, 1000), 256U);
	KUNIT_EXPECT_EQ(test, smartt_bitmap_paths(4, 100), 4U);
}

static void reps_validate_test(struct kunit *test)
{
	struct smartt_lb_knobs k = smartt_lb_defaults;
	struct smartt_lb lb;

	KUNIT_EXPECT_EQ(test, smartt_lb_init(&lb, &k), 0);
	k.reps.buf_size = 0;
	KUNIT_EXPECT_EQ(test, smartt_lb_init(&lb, &k), SMARTT_EINVAL);
}

static struct kunit_case reps_cases[] = {
	KUNIT_CASE(reps_vectors_test),
	KUNIT_CASE(reps_bitmap_paths_test),
	KUNIT_CASE(reps_validate_test),
	{}
};

static struct kunit_suite reps_suite = {
	.name = "smartt-reps",
	.test_cases = reps_cases,
};

kunit_test_suite(reps_suite);
