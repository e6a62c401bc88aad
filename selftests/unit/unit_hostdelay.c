// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kernel/algo/hostdelay.h: the host's part of a TCP RTT
 * sample apart from the fabric's, on the vectors the KUnit suite
 * smartt-hostdelay checks too (kernel/tests/vectors_hostdelay.h), and the
 * configuration of its target (net.smartt.tcp_host_target_us).
 */
#include "kselftest_harness.h"

#include "algo/tcpcc.h"
#include "tests/vectors_hostdelay.h"

TEST(smartt_hd_local_ns__vectors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smartt_hd_local_vectors); i++) {
		const struct smartt_hd_local_vector *v = &smartt_hd_local_vectors[i];

		EXPECT_EQ(v->ns, smartt_hd_local_ns(v->bytes, v->delivered, v->mss,
						    v->interval_us, v->pacing_rate))
			TH_LOG("vector %s", v->name);
	}
}

TEST(smartt_hd_fabric_rtt__vectors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smartt_hd_fabric_vectors); i++) {
		const struct smartt_hd_fabric_vector *v = &smartt_hd_fabric_vectors[i];

		EXPECT_EQ(v->fabric, smartt_hd_fabric_rtt(v->rtt, v->base_rtt, v->host,
							  v->target, v->flags))
			TH_LOG("vector %s", v->name);
	}
}

/* Whatever the inputs, the fabric sample is within [base, rtt] or 0. */
TEST(smartt_hd_fabric_rtt__bounds)
{
	static const u32 vals[] = { 0, 1, 100, 2999, 3000, 3001, 50000, 1000000,
				    999999999, 1000000000, U32_MAX };
	unsigned int a, b, c, d, fl;

	for (a = 0; a < ARRAY_SIZE(vals); a++)
		for (b = 0; b < ARRAY_SIZE(vals); b++)
			for (c = 0; c < ARRAY_SIZE(vals); c++)
				for (d = 0; d < ARRAY_SIZE(vals); d++)
					for (fl = 0; fl < 4; fl++) {
						u32 rtt = vals[a], base = vals[b];
						u32 f = smartt_hd_fabric_rtt(rtt, base, vals[c],
									     vals[d], fl);

						if (!f)
							continue;
						ASSERT_LE(f, rtt);
						if (rtt > base) {
							ASSERT_GE(f, base);
							ASSERT_GE((u64)f + vals[d], (u64)rtt);
						} else {
							ASSERT_EQ(f, rtt);
						}
					}
}

TEST(smartt_hd_avg__vectors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smartt_hd_avg_vectors); i++) {
		const struct smartt_hd_avg_vector *v = &smartt_hd_avg_vectors[i];

		EXPECT_EQ(v->out, smartt_hd_avg(v->avg, v->host))
			TH_LOG("vector %s", v->name);
	}
}

/* The average of a steady host delay converges to it. */
TEST(smartt_hd_avg__converges)
{
	u32 avg = 0;
	int i;

	for (i = 0; i < 200; i++)
		avg = smartt_hd_avg(avg, 40000);
	EXPECT_LE(avg, 40000U);
	EXPECT_GE(avg, 40000U - 8);
}

TEST(smartt_cc_params_build__host_target)
{
	struct smartt_cc_params cp;
	struct smartt_cc_vals v;

	smartt_cc_vals_default(&v);
	EXPECT_EQ(SMARTT_HD_DEF_TARGET_US, v.host_target_us);
	ASSERT_EQ(0, smartt_cc_params_build(&cp, &v));
	EXPECT_EQ(SMARTT_HD_DEF_TARGET_US * 1000, cp.host_target_ns);
	v.host_target_us = 0;
	ASSERT_EQ(0, smartt_cc_params_build(&cp, &v));
	EXPECT_EQ(0U, cp.host_target_ns);
	v.host_target_us = SMARTT_HD_TARGET_MAX_US;
	ASSERT_EQ(0, smartt_cc_params_build(&cp, &v));
	EXPECT_EQ(1000000000U, cp.host_target_ns);
	v.host_target_us = SMARTT_HD_TARGET_MAX_US + 1;
	EXPECT_EQ(SMARTT_EINVAL, smartt_cc_params_build(&cp, &v));
	v.host_target_us = U32_MAX;
	EXPECT_EQ(SMARTT_EINVAL, smartt_cc_params_build(&cp, &v));
}

TEST_HARNESS_MAIN
