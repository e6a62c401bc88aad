// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite smartt-hostdelay: kernel/algo/hostdelay.h inside a real
 * kernel, on the same vectors as the userspace unit tests
 * (vectors_hostdelay.h).
 */
#include <kunit/test.h>

#include "../algo/hostdelay.h"
#include "vectors_hostdelay.h"

static void smartt_hd_local_ns__vectors(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smartt_hd_local_vectors); i++) {
		const struct smartt_hd_local_vector *v = &smartt_hd_local_vectors[i];

		KUNIT_EXPECT_EQ_MSG(test, v->ns,
				    smartt_hd_local_ns(v->bytes, v->delivered, v->mss,
						       v->interval_us, v->pacing_rate),
				    "vector %s", v->name);
	}
}

static void smartt_hd_fabric_rtt__vectors(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smartt_hd_fabric_vectors); i++) {
		const struct smartt_hd_fabric_vector *v = &smartt_hd_fabric_vectors[i];

		KUNIT_EXPECT_EQ_MSG(test, v->fabric,
				    smartt_hd_fabric_rtt(v->rtt, v->base_rtt, v->host,
							 v->target, v->flags),
				    "vector %s", v->name);
	}
}

static void smartt_hd_avg__vectors(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smartt_hd_avg_vectors); i++) {
		const struct smartt_hd_avg_vector *v = &smartt_hd_avg_vectors[i];

		KUNIT_EXPECT_EQ_MSG(test, v->out, smartt_hd_avg(v->avg, v->host),
				    "vector %s", v->name);
	}
}

static struct kunit_case smartt_hostdelay_cases[] = {
	KUNIT_CASE(smartt_hd_local_ns__vectors),
	KUNIT_CASE(smartt_hd_fabric_rtt__vectors),
	KUNIT_CASE(smartt_hd_avg__vectors),
	{}
};

static struct kunit_suite smartt_hostdelay_suite = {
	.name = "smartt-hostdelay",
	.test_cases = smartt_hostdelay_cases,
};

kunit_test_suite(smartt_hostdelay_suite);
