// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kernel/algo/crp.c: the CRP paper's worked examples
 * (Fig. 4's channel, Fig. 5's destination, the grant of Section 2.4) and
 * the edge cases of the reservation table.
 */
#include "kselftest_harness.h"

#include "algo/crp.h"
#include "../../kernel/tests/vectors_crp.h"

/* The figures' tables: five cells of 512. */
static void fig_table_(struct __test_metadata *_metadata, struct crp_table *t,
		       const u32 *cells, u32 n)
{
	struct crp_knobs k = crp_defaults;
	u32 i;

	k.cells = n;
	k.cmax = 512;
	k.nmax = 1024;
	ASSERT_EQ(0, crp_table_init(t, &k, 0));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, crp_table_set_cell(t, i, cells[i]));
}

#define fig_table(t, cells, n)	fig_table_(_metadata, t, cells, n)

static void expect_cells(struct __test_metadata *_metadata, const struct crp_table *t,
			 const u32 *want, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		EXPECT_EQ(want[i], t->cell[i]) TH_LOG("cell %u", i);
}

#define EXPECT_CELLS(t, ...) ({						\
	static const u32 __w[] = { __VA_ARGS__ };			\
	expect_cells(_metadata, t, __w, ARRAY_SIZE(__w));		\
})

static const u32 fig4[] = { 512, 10, 100, 0, 10 };
static const u32 fig5[] = { 30, 40, 100, 512, 100 };

/* The vectors the KUnit suite runs too (kernel/tests/vectors_crp.h). */
TEST(crp_vec_run__shared_vectors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(crp_vectors); i++) {
		const struct crp_vec *v = &crp_vectors[i];
		int r = crp_vec_run(v);

		EXPECT_EQ(0, r) TH_LOG("vector %u: %s", i, v->name ? v->name : "?");
	}
}

TEST(crp_channel_request__fig4)
{
	struct crp_table c;
	u64 vec = crp_vec_full(5);

	fig_table(&c, fig4, 5);
	EXPECT_EQ(0x7ULL, crp_table_vector(&c, 80));	/* T,T,T,F,F */
	EXPECT_EQ(0U, crp_channel_request(&c, 80, 0, 0, &vec));
	EXPECT_EQ(0x7ULL, vec);
	EXPECT_CELLS(&c, 512, 10, 100, 0, 10);		/* nothing taken */
}

TEST(crp_dest_decide__fig5)
{
	struct crp_table d;
	struct crp_grant g;
	u64 vec = 0x7;	/* Fig. 4's vector */

	fig_table(&d, fig5, 5);
	EXPECT_EQ(0x1eULL, crp_table_vector(&d, 80));	/* F,T,T,T,T */
	ASSERT_EQ(CRP_GRANT, (int)crp_dest_decide(&d, 80, &vec, &g));
	EXPECT_EQ(0x6ULL, vec);				/* F,T,T,F,F */
	EXPECT_EQ(1ULL, g.slot);			/* B */
	EXPECT_EQ(472U, g.offset);			/* the last 40 of B */
	EXPECT_EQ(80U, g.size);
	EXPECT_EQ(984ULL, crp_grant_offset(&d, &g));	/* 512 + 512 - 40 */
	EXPECT_CELLS(&d, 30, 0, 60, 512, 100);
}

TEST(crp_channel_grant__fig4_channel)
{
	struct crp_table c;
	struct crp_grant g = { .slot = 1, .offset = 472, .size = 80 };

	fig_table(&c, fig4, 5);
	EXPECT_TRUE(crp_channel_grant(&c, 0, &g));
	EXPECT_CELLS(&c, 512, 0, 30, 0, 10);		/* B 10 -> 0, C 100 -> 30 */
}

TEST(crp_channel_grant__short_cells_make_a_retry)
{
	struct crp_table c, d;
	struct crp_grant g;
	u64 vec = crp_vec_full(5);

	fig_table(&c, fig4, 5);
	fig_table(&d, fig5, 5);
	crp_channel_request(&c, 80, 0, 0, &vec);
	ASSERT_EQ(CRP_GRANT, (int)crp_dest_decide(&d, 80, &vec, &g));
	/* another flow took C while the request travelled */
	ASSERT_EQ(0, crp_table_set_cell(&c, 2, 69));
	EXPECT_FALSE(crp_channel_grant(&c, 0, &g));
	EXPECT_CELLS(&c, 512, 10, 69, 0, 10);		/* nothing taken here */
	EXPECT_CELLS(&d, 30, 0, 60, 512, 100);		/* nor given back there */
	/* exactly enough is enough */
	ASSERT_EQ(0, crp_table_set_cell(&c, 2, 70));
	EXPECT_TRUE(crp_channel_grant(&c, 0, &g));
	EXPECT_CELLS(&c, 512, 0, 0, 0, 10);
}

TEST(crp_channel_grant__slot_out_of_the_table)
{
	struct crp_table c;
	struct crp_grant g = { .slot = 1, .offset = 0, .size = 10 };

	fig_table(&c, fig4, 5);
	crp_table_shift(&c, 2);				/* slot 1 passed */
	EXPECT_FALSE(crp_channel_grant(&c, 0, &g));
	g.slot = 7;					/* beyond the look-ahead */
	EXPECT_FALSE(crp_channel_grant(&c, 0, &g));
	g.slot = 6;					/* the last cell, alone */
	EXPECT_TRUE(crp_channel_grant(&c, 0, &g));
	EXPECT_CELLS(&c, 100, 0, 10, 512, 502);
	g.size = 503;
	EXPECT_FALSE(crp_channel_grant(&c, 0, &g));
}

TEST(crp_table_avail__straddle_and_last_cell)
{
	struct crp_table t;
	static const u32 cells[] = { 1, 511, 0, 300, 200 };

	fig_table(&t, cells, 5);
	EXPECT_TRUE(crp_table_avail(&t, 0, 512));	/* 1 + 511 */
	EXPECT_FALSE(crp_table_avail(&t, 0, 513));
	EXPECT_TRUE(crp_table_avail(&t, 1, 511));	/* its own cell */
	EXPECT_FALSE(crp_table_avail(&t, 1, 512));	/* cell 2 is empty */
	EXPECT_FALSE(crp_table_avail(&t, 2, 1));	/* t[i] > 0 */
	EXPECT_TRUE(crp_table_avail(&t, 3, 500));
	EXPECT_FALSE(crp_table_avail(&t, 3, 501));	/* never three cells */
	EXPECT_TRUE(crp_table_avail(&t, 4, 200));	/* the last cell alone */
	EXPECT_FALSE(crp_table_avail(&t, 4, 201));	/* nothing beyond it */
	EXPECT_FALSE(crp_table_avail(&t, 5, 1));
	EXPECT_FALSE(crp_table_avail(&t, 0, 0));
}

TEST(crp_dest_decide__straddle_takes_the_tail_first)
{
	struct crp_table d;
	struct crp_grant g;
	static const u32 cells[] = { 0, 100, 512, 512, 512 };
	u64 vec = crp_vec_full(5);

	fig_table(&d, cells, 5);
	ASSERT_EQ(CRP_GRANT, (int)crp_dest_decide(&d, 600, &vec, &g));
	EXPECT_EQ(1ULL, g.slot);
	EXPECT_EQ(412U, g.offset);			/* the last 100 of slot 1 */
	EXPECT_EQ(924ULL, crp_grant_offset(&d, &g));
	EXPECT_CELLS(&d, 0, 0, 12, 512, 512);
	/* a request that fits one cell takes that cell's last bytes */
	vec = crp_vec_full(5);
	ASSERT_EQ(CRP_GRANT, (int)crp_dest_decide(&d, 12, &vec, &g));
	EXPECT_EQ(2ULL, g.slot);
	EXPECT_EQ(500U, g.offset);
	EXPECT_EQ(1524ULL, crp_grant_offset(&d, &g));
	EXPECT_CELLS(&d, 0, 0, 0, 512, 512);
}

TEST(crp_dest_decide__retry_and_retry_full)
{
	struct crp_table d;
	struct crp_grant g;
	static const u32 full[] = { 0, 0, 10, 0, 5 };
	u64 vec;

	fig_table(&d, fig5, 5);
	vec = 0x1;					/* only slot A upstream */
	EXPECT_EQ(CRP_RETRY, (int)crp_dest_decide(&d, 80, &vec, &g));
	EXPECT_EQ(0ULL, vec);
	EXPECT_CELLS(&d, 30, 40, 100, 512, 100);	/* untouched */
	fig_table(&d, full, 5);
	vec = crp_vec_full(5);
	EXPECT_EQ(CRP_RETRY_FULL, (int)crp_dest_decide(&d, 80, &vec, &g));
	EXPECT_EQ(0ULL, vec);
	/* full for this size whatever the vector said; smaller ones fit */
	vec = 0;
	EXPECT_EQ(CRP_RETRY_FULL, (int)crp_dest_decide(&d, 11, &vec, &g));
	vec = 0;
	EXPECT_EQ(CRP_RETRY, (int)crp_dest_decide(&d, 10, &vec, &g));
	vec = crp_vec_full(5);
	EXPECT_EQ(CRP_GRANT, (int)crp_dest_decide(&d, 10, &vec, &g));
	EXPECT_EQ(0x4ULL, vec);				/* slot 4 holds only 5 */
	EXPECT_EQ(2ULL, g.slot);
	EXPECT_CELLS(&d, 0, 0, 0, 0, 5);
}

TEST(crp_table_shift__fresh_full_cells)
{
	struct crp_table t;

	fig_table(&t, fig5, 5);
	crp_table_shift(&t, 0);
	EXPECT_CELLS(&t, 30, 40, 100, 512, 100);
	crp_table_shift(&t, 2);
	EXPECT_EQ(2ULL, t.base);
	EXPECT_CELLS(&t, 100, 512, 100, 512, 512);
	crp_table_shift(&t, 5);				/* past the end */
	EXPECT_EQ(7ULL, t.base);
	EXPECT_CELLS(&t, 512, 512, 512, 512, 512);
	crp_table_set_cell(&t, 4, 3);
	crp_table_shift(&t, 1000000);
	EXPECT_CELLS(&t, 512, 512, 512, 512, 512);
	EXPECT_EQ(1000007ULL, t.base);
}

TEST(crp_vec_shift__true_bits_come_in)
{
	EXPECT_EQ(0x1fULL, crp_vec_full(5));
	EXPECT_EQ(U64_MAX, crp_vec_full(64));
	EXPECT_EQ(0x6ULL, crp_vec_shift(0x6, 0, 5));
	EXPECT_EQ(0x13ULL, crp_vec_shift(0x6, 1, 5));	/* F,T,T,F,F -> T,T,F,F,T */
	EXPECT_EQ(0x1cULL, crp_vec_shift(0x6, 3, 5));
	EXPECT_EQ(0x1fULL, crp_vec_shift(0x0, 5, 5));
	EXPECT_EQ(0x1fULL, crp_vec_shift(0x0, 99, 5));
	EXPECT_EQ(0x8000000000000000ULL, crp_vec_shift(0, 1, 64));
	/* bits beyond the vector are ignored */
	EXPECT_EQ(0x10ULL, crp_vec_shift(0x40, 1, 5));
}

/*
 * A request decided in the middle of its current slot: with every bit set
 * (what the sender sent before crp_vec_from()), an idle destination
 * grants that slot from its start, which is already past when the grant
 * is made, let alone when the sender has it: the segment then leaves late
 * and takes the time of the reservations after it.  The sender's own
 * availability leaves out the slots starting before it can have the
 * grant.
 */
TEST(crp_vec_from__no_grant_before_the_source_can_send)
{
	struct crp_knobs k = crp_defaults;
	struct crp_table t;
	struct crp_grant g;
	u64 vec, now = 10600, lead = 300;

	k.cells = 5;
	k.cmax = 512;
	k.slot_ns = 1000;
	k.nmax = 1024;
	ASSERT_EQ(0, crp_table_init(&t, &k, 10));	/* slot 10: [10000, 11000) */
	vec = crp_vec_full(5);
	ASSERT_EQ(CRP_GRANT, (int)crp_dest_decide(&t, 600, &vec, &g));
	EXPECT_EQ(10ULL, g.slot);
	EXPECT_LT(crp_grant_ns(&k, &g), now);		/* the old request: in the past */

	ASSERT_EQ(0, crp_table_init(&t, &k, 10));
	vec = crp_vec_from(5, 10, 1000, now + lead);
	EXPECT_EQ(0x1eULL, vec);			/* slot 10 left out */
	ASSERT_EQ(CRP_GRANT, (int)crp_dest_decide(&t, 600, &vec, &g));
	EXPECT_EQ(11ULL, g.slot);
	EXPECT_GE(crp_grant_ns(&k, &g), now + lead);

	EXPECT_EQ(0x1fULL, crp_vec_from(5, 10, 1000, 10000));	/* at slot 10's start */
	EXPECT_EQ(0x1fULL, crp_vec_from(5, 10, 1000, 9000));
	EXPECT_EQ(0x1eULL, crp_vec_from(5, 10, 1000, 10001));
	EXPECT_EQ(0x1eULL, crp_vec_from(5, 10, 1000, 11000));
	EXPECT_EQ(0x1cULL, crp_vec_from(5, 10, 1000, 11001));
	EXPECT_EQ(0x10ULL, crp_vec_from(5, 10, 1000, 14000));
	EXPECT_EQ(0x0ULL, crp_vec_from(5, 10, 1000, 14001));	/* beyond the look-ahead */
	EXPECT_EQ(0xfffffffffffffffeULL, crp_vec_from(64, 10, 1000, 10500));
}

TEST(crp_table_consume__earliest_non_zero_cell)
{
	struct crp_table t;
	static const u32 cells[] = { 0, 40, 0, 512, 100 };

	fig_table(&t, cells, 5);
	EXPECT_EQ(0U, crp_table_consume(&t, 30));
	EXPECT_CELLS(&t, 0, 10, 0, 512, 100);
	EXPECT_EQ(0U, crp_table_consume(&t, 20));	/* spills on */
	EXPECT_CELLS(&t, 0, 0, 0, 502, 100);
	EXPECT_EQ(8U, crp_table_consume(&t, 610));	/* more than it holds */
	EXPECT_CELLS(&t, 0, 0, 0, 0, 0);
}

TEST(crp_eager__confirmed_by_its_grant)
{
	struct crp_table c, d;
	struct crp_grant g;
	static const u32 dcells[] = { 512, 512, 512, 512, 512 };
	u64 vec = crp_vec_full(5), v2;

	fig_table(&c, fig4, 5);
	fig_table(&d, dcells, 5);
	EXPECT_EQ(1U, crp_channel_request(&c, 80, 7, 1, &vec));
	EXPECT_CELLS(&c, 432, 10, 100, 0, 10);		/* slot A held */
	/* a second flow passing now finds A smaller */
	v2 = crp_vec_full(5);
	crp_channel_request(&c, 450, 0, 0, &v2);
	EXPECT_EQ(0ULL, v2);				/* 432 + 10 < 450 */
	ASSERT_EQ(CRP_GRANT, (int)crp_dest_decide(&d, 80, &vec, &g));
	EXPECT_EQ(0ULL, g.slot);
	/* A taken meanwhile: the eager reservation still holds the grant */
	ASSERT_EQ(0, crp_table_set_cell(&c, 0, 0));
	EXPECT_TRUE(crp_channel_grant(&c, 7, &g));
	EXPECT_CELLS(&c, 0, 10, 100, 0, 10);
	EXPECT_EQ(0U, c.eager[0].tag);			/* settled */
}

TEST(crp_eager__released_by_another_slot_kept_by_a_retry)
{
	struct crp_table c, d;
	struct crp_grant g;
	u64 vec = crp_vec_full(5);

	fig_table(&c, fig4, 5);
	fig_table(&d, fig5, 5);
	EXPECT_EQ(2U, crp_channel_request(&c, 80, 9, 2, &vec));
	EXPECT_CELLS(&c, 432, 0, 30, 0, 10);		/* A, then B (10 + 70 of C) */
	EXPECT_EQ(0x7ULL, vec);				/* the vector before */
	ASSERT_EQ(CRP_GRANT, (int)crp_dest_decide(&d, 80, &vec, &g));
	EXPECT_EQ(1ULL, g.slot);			/* B: held, confirmed */
	EXPECT_TRUE(crp_channel_grant(&c, 9, &g));
	EXPECT_CELLS(&c, 512, 0, 30, 0, 10);		/* A given back */

	/* a retry does not release; the flow's next request does */
	fig_table(&c, fig4, 5);
	vec = crp_vec_full(5);
	EXPECT_EQ(1U, crp_channel_request(&c, 80, 9, 1, &vec));
	EXPECT_CELLS(&c, 432, 10, 100, 0, 10);
	vec = crp_vec_full(5);
	EXPECT_EQ(1U, crp_channel_request(&c, 80, 9, 1, &vec));
	EXPECT_CELLS(&c, 432, 10, 100, 0, 10);		/* not twice */
	EXPECT_EQ(0x7ULL, vec);
	/* other flows hold their own */
	vec = crp_vec_full(5);
	EXPECT_EQ(1U, crp_channel_request(&c, 80, 10, 1, &vec));
	EXPECT_CELLS(&c, 352, 10, 100, 0, 10);
	/* a grant for a slot it does not hold: release, then take */
	g = (struct crp_grant){ .slot = 2, .offset = 500, .size = 80 };
	EXPECT_TRUE(crp_channel_grant(&c, 9, &g));
	EXPECT_CELLS(&c, 432, 10, 20, 0, 10);
	/* the slot passes: the reservation goes with it */
	crp_table_shift(&c, 1);
	EXPECT_CELLS(&c, 10, 20, 0, 10, 512);
	EXPECT_EQ(0U, c.eager[0].tag);
	EXPECT_EQ(0U, c.eager[1].tag);
}

TEST(crp_eager__straddling_reservation_passes_with_its_slot)
{
	struct crp_table c;
	static const u32 cells[] = { 20, 512, 512, 512, 512 };
	u64 vec = crp_vec_full(5);

	fig_table(&c, cells, 5);
	EXPECT_EQ(1U, crp_channel_request(&c, 100, 3, 1, &vec));
	EXPECT_CELLS(&c, 0, 432, 512, 512, 512);
	crp_table_shift(&c, 1);				/* its 80 in slot 1 come back */
	EXPECT_CELLS(&c, 512, 512, 512, 512, 512);
}

TEST(crp_eager__bounded_store)
{
	struct crp_table c;
	struct crp_knobs k = crp_defaults;
	u32 tag, made = 0;
	u64 vec;

	k.cells = 64;
	ASSERT_EQ(0, crp_table_init(&c, &k, 0));
	for (tag = 1; tag <= CRP_EAGER_MAX + 4; tag++) {
		vec = crp_vec_full(64);
		made += crp_channel_request(&c, 100, tag, 1, &vec);
	}
	EXPECT_EQ((u32)CRP_EAGER_MAX, made);
}

TEST(crp_knobs__table1_and_validation)
{
	struct crp_knobs k = crp_defaults;
	struct crp_table t;
	int i;

	EXPECT_EQ(0, crp_knobs_validate(&k));
	EXPECT_EQ(32U, k.cells);
	EXPECT_EQ(269U * 8, k.cmax);			/* 269 flits of 8 B */
	EXPECT_EQ(4096U, k.nmax);			/* 16 packets of 256 B */
	EXPECT_EQ(1024U, k.nmin);
	EXPECT_GE(2 * k.cmax, k.nmax);
	EXPECT_EQ(200U * 64 / 10, k.ttw_ns);		/* 200 flits at 10 Gbit/s */
	EXPECT_EQ(30U * 64 / 10, k.retry_ns);
	for (i = 0; i < (int)crp_knob_count; i++) {
		const struct smartt_knob_desc *d = &crp_knob_descs[i];

		k = crp_defaults;
		EXPECT_EQ(i, crp_knob_find(d->name));
		if (d->min) {
			crp_knob_set(&k, i, d->min - 1);
			EXPECT_EQ(SMARTT_EINVAL, crp_knobs_validate(&k)) TH_LOG("%s", d->name);
		}
		k = crp_defaults;
		if (d->max < U32_MAX) {
			crp_knob_set(&k, i, d->max + 1);
			EXPECT_EQ(SMARTT_EINVAL, crp_knobs_validate(&k)) TH_LOG("%s", d->name);
			EXPECT_EQ(d->max + 1, crp_knob_get(&k, i));	/* never clamped */
		}
	}
	EXPECT_EQ(SMARTT_EINVAL, crp_knob_find("vcells"));
	k = crp_defaults;
	k.nmax = 2 * k.cmax + 1;			/* more than two cells */
	EXPECT_EQ(SMARTT_EINVAL, crp_knobs_validate(&k));
	k = crp_defaults;
	k.nmin = k.nmax + 1;
	EXPECT_EQ(SMARTT_EINVAL, crp_knobs_validate(&k));
	k.cells = 65;
	EXPECT_EQ(SMARTT_EINVAL, crp_table_init(&t, &k, 0));
	k = crp_defaults;
	ASSERT_EQ(0, crp_table_init(&t, &k, 5));
	EXPECT_EQ(SMARTT_EINVAL, crp_table_set_cell(&t, 32, 1));
	EXPECT_EQ(SMARTT_EINVAL, crp_table_set_cell(&t, 0, k.cmax + 1));
	EXPECT_EQ(k.cmax, t.cell[0]);
}

TEST(crp_times__grant_ns_retry_waits_request_bytes)
{
	struct crp_knobs k = crp_defaults;
	struct crp_grant g = { .slot = 3, .offset = 1076, .size = 100 };

	EXPECT_EQ(3ULL * 1722 + 861, crp_grant_ns(&k, &g));	/* half a slot in */
	g.slot = U64_MAX / 1000;
	EXPECT_EQ(U64_MAX, crp_grant_ns(&k, &g));
	EXPECT_EQ(0ULL, crp_retry_wait_ns(&k, CRP_GRANT, 0, 0));
	EXPECT_EQ(192ULL, crp_retry_wait_ns(&k, CRP_RETRY, 0, 0));
	EXPECT_EQ(192ULL + 96, crp_retry_wait_ns(&k, CRP_RETRY, 0, 1U << 31));
	EXPECT_EQ(383ULL, crp_retry_wait_ns(&k, CRP_RETRY, 0, U32_MAX));
	EXPECT_EQ(32ULL * 1722 - 5000, crp_retry_wait_ns(&k, CRP_RETRY_FULL, 5000, 0));
	EXPECT_EQ(192ULL, crp_retry_wait_ns(&k, CRP_RETRY_FULL, 1000000, 0));
	EXPECT_EQ(4096U + 205, crp_req_bytes(&k, 4096));	/* 4096 x 1.05, up */
	EXPECT_EQ(0U, crp_req_bytes(&k, 0));
	EXPECT_EQ(U32_MAX, crp_req_bytes(&k, U32_MAX));
}

TEST_HARNESS_MAIN
