/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test vectors for kernel/algo/crp.c, shared by the userspace unit tests
 * (selftests/unit/unit_crp.c) and the KUnit suite (crp_kunit.c), so the
 * two layers check exactly the same numbers.
 *
 * A vector is one request: through up to two channels, to a destination,
 * and its grant back; optionally another flow takes a channel's cell
 * between the destination's decision and the grant's return.  Worked by
 * hand from the CRP paper's Fig. 4 and 5 (C_max 512, five cells).
 */
#ifndef SMARTT_VECTORS_CRP_H
#define SMARTT_VECTORS_CRP_H

#define CRP_VEC_CELLS	5
#define CRP_VEC_CHANS	2

struct crp_vec {
	const char *name;
	u32 size;
	u32 eager;
	u32 nchan;
	u32 chan[CRP_VEC_CHANS][CRP_VEC_CELLS];
	u32 dest[CRP_VEC_CELLS];
	/* before the grant comes back: channel @meddle_chan's cell @meddle_cell
	 * becomes @meddle_bytes (none if @meddle_bytes is U32_MAX)
	 */
	u32 meddle_chan, meddle_cell, meddle_bytes;
	/* expected */
	enum crp_result res;
	u64 vec;		/* the final vector, bit i = slot i */
	u64 slot;		/* granted slot */
	u64 ts;			/* its timestamp, capacity units from slot 0 */
	u32 chan_after[CRP_VEC_CHANS][CRP_VEC_CELLS];
	u32 dest_after[CRP_VEC_CELLS];
};

#define CRP_FIG4	{ 512, 10, 100, 0, 10 }
#define CRP_FIG5	{ 30, 40, 100, 512, 100 }
#define CRP_FULL	{ 512, 512, 512, 512, 512 }
#define CRP_NO_MEDDLE	.meddle_bytes = U32_MAX

static const struct crp_vec crp_vectors[] = {
	{ "fig4_fig5", 80, 0, 1, { CRP_FIG4 }, CRP_FIG5, CRP_NO_MEDDLE,
	  CRP_GRANT, 0x6, 1, 984,
	  { { 512, 0, 30, 0, 10 } }, { 30, 0, 60, 512, 100 } },
	{ "fig4_fig5_eager2", 80, 2, 1, { CRP_FIG4 }, CRP_FIG5, CRP_NO_MEDDLE,
	  CRP_GRANT, 0x6, 1, 984,
	  { { 512, 0, 30, 0, 10 } }, { 30, 0, 60, 512, 100 } },
	/* the Fig. 4 channel twice on the way: B 10 -> 0, C 100 -> 30 each */
	{ "two_channels", 80, 0, 2, { CRP_FIG4, CRP_FIG4 }, CRP_FIG5, CRP_NO_MEDDLE,
	  CRP_GRANT, 0x6, 1, 984,
	  { { 512, 0, 30, 0, 10 }, { 512, 0, 30, 0, 10 } }, { 30, 0, 60, 512, 100 } },
	/* another flow leaves C 69: 10 + 69 < 80, the grant becomes a retry */
	{ "grant_turned_retry", 80, 0, 1, { CRP_FIG4 }, CRP_FIG5,
	  .meddle_chan = 0, .meddle_cell = 2, .meddle_bytes = 69,
	  .res = CRP_RETRY, .vec = 0x6,
	  .chan_after = { { 512, 10, 69, 0, 10 } },
	  .dest_after = { 30, 0, 60, 512, 100 } },
	/* at the channel nearer the source: the other keeps what it took */
	{ "turned_retry_at_the_first", 80, 0, 2, { CRP_FIG4, CRP_FIG4 }, CRP_FIG5,
	  .meddle_chan = 0, .meddle_cell = 2, .meddle_bytes = 69,
	  .res = CRP_RETRY, .vec = 0x6,
	  .chan_after = { { 512, 10, 69, 0, 10 }, { 512, 0, 30, 0, 10 } },
	  .dest_after = { 30, 0, 60, 512, 100 } },
	/* B emptied meanwhile, C alone holds 80: the sum decides, it holds */
	{ "emptied_cell_next_holds", 80, 0, 1, { CRP_FIG4 }, CRP_FIG5,
	  .meddle_chan = 0, .meddle_cell = 1, .meddle_bytes = 0,
	  .res = CRP_GRANT, .vec = 0x6, .slot = 1, .ts = 984,
	  .chan_after = { { 512, 0, 20, 0, 10 } },
	  .dest_after = { 30, 0, 60, 512, 100 } },
	/* exactly enough is enough (10 + 70) */
	{ "meddled_but_enough", 80, 0, 1, { CRP_FIG4 }, CRP_FIG5,
	  .meddle_chan = 0, .meddle_cell = 2, .meddle_bytes = 70,
	  .res = CRP_GRANT, .vec = 0x6, .slot = 1, .ts = 984,
	  .chan_after = { { 512, 0, 0, 0, 10 } },
	  .dest_after = { 30, 0, 60, 512, 100 } },
	/* eager: the held slot A survives another flow taking A */
	{ "eager_holds", 80, 1, 1, { CRP_FIG4 }, CRP_FULL,
	  .meddle_chan = 0, .meddle_cell = 0, .meddle_bytes = 0,
	  .res = CRP_GRANT, .vec = 0x7, .slot = 0, .ts = 432,
	  .chan_after = { { 0, 10, 100, 0, 10 } },
	  .dest_after = { 432, 512, 512, 512, 512 } },
	{ "no_common_slot", 80, 0, 1, { { 0, 0, 0, 0, 512 } }, { 512, 512, 512, 512, 0 },
	  CRP_NO_MEDDLE, CRP_RETRY, 0, 0, 0,
	  { { 0, 0, 0, 0, 512 } }, { 512, 512, 512, 512, 0 } },
	{ "dest_full", 51, 0, 1, { CRP_FULL }, { 0, 0, 50, 0, 49 }, CRP_NO_MEDDLE,
	  CRP_RETRY_FULL, 0, 0, 0,
	  { CRP_FULL }, { 0, 0, 50, 0, 49 } },
	/* the tail of one slot: 50 = the last 50 of slot 2 */
	{ "within_one_cell", 50, 0, 0, { }, { 0, 0, 50, 0, 49 }, CRP_NO_MEDDLE,
	  CRP_GRANT, 0x4, 2, 1486,
	  { }, { 0, 0, 0, 0, 49 } },
	/* 100 from slot 1, 500 from slot 2 */
	{ "straddle", 600, 0, 0, { }, { 0, 100, 512, 300, 500 }, CRP_NO_MEDDLE,
	  CRP_GRANT, 0xe, 1, 924,
	  { }, { 0, 0, 12, 300, 500 } },
	/* never three cells, the last one alone */
	{ "last_cell_alone", 501, 0, 0, { }, { 0, 0, 12, 300, 500 }, CRP_NO_MEDDLE,
	  CRP_GRANT, 0x8, 3, 1748,
	  { }, { 0, 0, 12, 0, 299 } },
	{ "largest", 1024, 0, 1, { CRP_FULL }, CRP_FULL, CRP_NO_MEDDLE,
	  CRP_GRANT, 0xf, 0, 0,
	  { { 0, 0, 512, 512, 512 } }, { 0, 0, 512, 512, 512 } },
};

/*
 * crp_vec_run() - run vector @v
 *
 * Return: 0 if every result matches, else what differed first: 1 the
 * result, 2 the vector, 3 the slot or timestamp, 4 a channel's cells, 5 the
 * destination's cells, -1 a table the core refused.
 */
static inline int crp_vec_run(const struct crp_vec *v)
{
	struct crp_table ch[CRP_VEC_CHANS], d;
	struct crp_knobs k = crp_defaults;
	struct crp_grant g = { 0 };
	enum crp_result res;
	u32 c, j;
	int n;
	u64 vec;

	k.cells = CRP_VEC_CELLS;
	k.cmax = 512;
	k.nmax = 1024;
	if (crp_table_init(&d, &k, 0))
		return -1;
	for (c = 0; c < CRP_VEC_CELLS; c++)
		if (crp_table_set_cell(&d, c, v->dest[c]))
			return -1;
	for (j = 0; j < v->nchan; j++) {
		if (crp_table_init(&ch[j], &k, 0))
			return -1;
		for (c = 0; c < CRP_VEC_CELLS; c++)
			if (crp_table_set_cell(&ch[j], c, v->chan[j][c]))
				return -1;
	}
	vec = crp_vec_full(CRP_VEC_CELLS);
	for (j = 0; j < v->nchan; j++)
		crp_channel_request(&ch[j], v->size, 7, v->eager, &vec);
	res = crp_dest_decide(&d, v->size, &vec, &g);
	if (v->meddle_bytes != U32_MAX)
		ch[v->meddle_chan].cell[v->meddle_cell] = v->meddle_bytes;
	for (n = (int)v->nchan - 1; n >= 0 && res == CRP_GRANT; n--)
		if (!crp_channel_grant(&ch[n], 7, &g))
			res = CRP_RETRY;
	if (res != v->res)
		return 1;
	if (vec != v->vec)
		return 2;
	if (res == CRP_GRANT && (g.slot != v->slot || crp_grant_offset(&d, &g) != v->ts))
		return 3;
	for (j = 0; j < v->nchan; j++)
		for (c = 0; c < CRP_VEC_CELLS; c++)
			if (ch[j].cell[c] != v->chan_after[j][c])
				return 4;
	for (c = 0; c < CRP_VEC_CELLS; c++)
		if (d.cell[c] != v->dest_after[c])
			return 5;
	return 0;
}

#endif /* SMARTT_VECTORS_CRP_H */
