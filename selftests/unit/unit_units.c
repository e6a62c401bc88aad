// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kernel/algo/units.c.
 */
#include "kselftest_harness.h"

#include "algo/units.h"
#include "../../kernel/tests/vectors_units.h"

TEST(smartt_bdp_bytes__vectors)
{
	unsigned int i;

	for (i = 0; i < sizeof(smartt_bdp_vectors) / sizeof(smartt_bdp_vectors[0]); i++) {
		const struct smartt_bdp_vector *v = &smartt_bdp_vectors[i];

		EXPECT_EQ(v->bdp_bytes, smartt_bdp_bytes(v->link_mbps, v->rtt_ns))
			TH_LOG("vector %s", v->name);
	}
}

TEST(smartt_bdp_bytes__monotonic_in_rtt)
{
	u64 prev = 0, rtt;

	for (rtt = 0; rtt <= 100000; rtt += 37) {
		u64 b = smartt_bdp_bytes(100000, rtt);

		ASSERT_GE(b, prev);
		prev = b;
	}
}

TEST_HARNESS_MAIN
