// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kernel/algo/uet_ack.c: the NSCC inputs of an ACK_CC.
 */
#include "kselftest_harness.h"

#include "algo/uet_ack.h"

TEST(uet_ack_newly_rcvd__counts_and_wraps)
{
	struct uet_ack_track t;

	uet_ack_track_init(&t);
	/* The first ACK_CC of a PDC: everything it reports is new. */
	EXPECT_EQ(4096U, uet_ack_newly_rcvd(&t, 4096));
	EXPECT_EQ(12288U, uet_ack_newly_rcvd(&t, 16384));
	/* The same count again: nothing new. */
	EXPECT_EQ(0U, uet_ack_newly_rcvd(&t, 16384));
	EXPECT_EQ(16384ULL, t.rcvd_total);

	/* Across the 24-bit wrap. */
	t.rcvd_bytes = UET_ACK_RCVD_BYTES_MASK - 99;
	EXPECT_EQ(300U, uet_ack_newly_rcvd(&t, 200));
	EXPECT_EQ(200U, t.rcvd_bytes);
	/* Only the low 24 bits of the field are read. */
	EXPECT_EQ(100U, uet_ack_newly_rcvd(&t, (1U << 24) | 300));
	EXPECT_EQ(300U, t.rcvd_bytes);
}

TEST(uet_ack_newly_rcvd__stale_ack_changes_nothing)
{
	struct uet_ack_track t;

	uet_ack_track_init(&t);
	EXPECT_EQ(50000U, uet_ack_newly_rcvd(&t, 50000));
	/* An older ACK_CC overtaken by a newer one. */
	EXPECT_EQ(0U, uet_ack_newly_rcvd(&t, 40000));
	EXPECT_EQ(50000U, t.rcvd_bytes);
	EXPECT_EQ(50000ULL, t.rcvd_total);
	EXPECT_EQ(10000U, uet_ack_newly_rcvd(&t, 60000));

	/* Half the range ahead is taken as behind; just under it, ahead. */
	t.rcvd_bytes = 0;
	EXPECT_EQ(0U, uet_ack_newly_rcvd(&t, 1U << 23));
	EXPECT_EQ((1U << 23) - 1, uet_ack_newly_rcvd(&t, (1U << 23) - 1));
}

TEST(uet_ack_rtt__karn)
{
	struct uet_ack_cc a = { .service_time = 0 };
	struct uet_ack_tx tx = { .sent_ns = 1000, .tx_count = 1 };

	EXPECT_EQ(500ULL, uet_ack_rtt(&a, &tx, 1500, 0));
	/* Sent once, but the ACK says it answers a retransmission. */
	a.retx = true;
	EXPECT_EQ(0ULL, uet_ack_rtt(&a, &tx, 1500, 0));
	/* Sent twice and the ACK answers the retransmission. */
	tx.tx_count = 2;
	EXPECT_EQ(500ULL, uet_ack_rtt(&a, &tx, 1500, 0));
	/* Sent twice, the ACK answers the first transmission. */
	a.retx = false;
	EXPECT_EQ(0ULL, uet_ack_rtt(&a, &tx, 1500, 0));
	/* Sent three times: ambiguous either way. */
	tx.tx_count = 3;
	EXPECT_EQ(0ULL, uet_ack_rtt(&a, &tx, 1500, 0));
	a.retx = true;
	EXPECT_EQ(0ULL, uet_ack_rtt(&a, &tx, 1500, 0));
}

TEST(uet_ack_rtt__service_time)
{
	struct uet_ack_cc a = { .service_time = 3 };
	struct uet_ack_tx tx = { .sent_ns = 10000, .tx_count = 1 };

	/* 20 us interval, the receiver held the packet 3 x 1024 ns. */
	EXPECT_EQ(20000ULL - 3072, uet_ack_rtt(&a, &tx, 30000, 1024));
	/* Unit 0: the service time is not subtracted. */
	EXPECT_EQ(20000ULL, uet_ack_rtt(&a, &tx, 30000, 0));
	/* A service time as long as the interval: the clocks disagree. */
	a.service_time = 20;
	EXPECT_EQ(0ULL, uet_ack_rtt(&a, &tx, 30000, 1000));
	a.service_time = 19;
	EXPECT_EQ(1000ULL, uet_ack_rtt(&a, &tx, 30000, 1000));
	/* Saturated: too long to tell, no sample. */
	a.service_time = UET_ACK_SERVICE_TIME_MAX;
	EXPECT_EQ(0ULL, uet_ack_rtt(&a, &tx, 1ULL << 40, 1));
	/* A unit beyond the limit is a caller's bug: no sample. */
	a.service_time = 0;
	EXPECT_EQ(0ULL, uet_ack_rtt(&a, &tx, 30000, UET_ACK_SERVICE_UNIT_MAX_NS + 1));
	EXPECT_EQ(20000ULL, uet_ack_rtt(&a, &tx, 30000, UET_ACK_SERVICE_UNIT_MAX_NS));
	/* The largest service time in the largest unit does not overflow. */
	a.service_time = UET_ACK_SERVICE_TIME_MAX - 1;
	EXPECT_EQ(1ULL, uet_ack_rtt(&a, &tx, 10000 + 1 +
				     (u64)(UET_ACK_SERVICE_TIME_MAX - 1) *
				     UET_ACK_SERVICE_UNIT_MAX_NS, UET_ACK_SERVICE_UNIT_MAX_NS));
}

TEST(uet_ack_rtt__unknown_departure)
{
	struct uet_ack_cc a = { 0 };
	struct uet_ack_tx tx = { .sent_ns = 0, .tx_count = 0 };

	/* No record of the PSN. */
	EXPECT_EQ(0ULL, uet_ack_rtt(&a, &tx, 5000, 0));
	/* A departure at time 0 is a time like any other. */
	tx.tx_count = 1;
	EXPECT_EQ(5000ULL, uet_ack_rtt(&a, &tx, 5000, 0));
	/* An ACK that arrives before (or when) the packet left. */
	tx.sent_ns = 5000;
	EXPECT_EQ(0ULL, uet_ack_rtt(&a, &tx, 5000, 0));
	EXPECT_EQ(0ULL, uet_ack_rtt(&a, &tx, 4000, 0));
}

TEST_HARNESS_MAIN
