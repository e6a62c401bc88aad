// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately failing unit test, built only with SMARTT_INJECT_FAIL=unit
 * so that the harness can prove a failing unit test fails `make check`.
 */
#include "kselftest_harness.h"

TEST(harness__deliberate_failure)
{
	EXPECT_EQ(1, 2) TH_LOG("deliberate failure injected by SMARTT_INJECT_FAIL=unit");
}

TEST_HARNESS_MAIN
