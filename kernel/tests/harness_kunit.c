// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite smartt-harness: built only when the harness is asked to
 * prove that a failing KUnit case fails `make check`
 * (SMARTT_INJECT_FAIL=kunit).  Never part of a normal run.
 */
#include <kunit/test.h>

static void smartt_harness__deliberate_failure(struct kunit *test)
{
	KUNIT_FAIL(test, "deliberate failure injected by SMARTT_INJECT_FAIL=kunit");
}

static struct kunit_case smartt_harness_cases[] = {
	KUNIT_CASE(smartt_harness__deliberate_failure),
	{}
};

static struct kunit_suite smartt_harness_suite = {
	.name = "smartt-harness",
	.test_cases = smartt_harness_cases,
};

kunit_test_suite(smartt_harness_suite);
