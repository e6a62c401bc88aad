/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test vectors for the path selectors (kernel/algo/reps.c, path_bitmap.c,
 * lb.c), shared by the userspace unit tests (unit_lb.c) and the KUnit
 * suite (reps_kunit.c).  Each vector is a sequence of feedback events and
 * sends with the entropy each send must choose, traced by hand below.
 * Exploration is round robin (explore_rr = 1) so every value is known.
 */
#ifndef SMARTT_VECTORS_LB_H
#define SMARTT_VECTORS_LB_H

enum { LV_SEND = 0, LV_FB = 1 };

struct lb_vec_op {
	u8 op;
	u64 now;	/* LV_FB: time */
	u32 ev;		/* LV_FB: entropy; LV_SEND: expected entropy */
	u8 fb;		/* LV_FB: enum smartt_path_fb */
	u32 cwnd_pkts;	/* LV_SEND: window in packets */
};

#define LV_MAX_OPS	32

struct lb_vec {
	const char *name;
	u32 kind;
	u32 paths;
	u32 buf_size;
	u32 freeze_time;
	u32 explore_count;
	u32 bdp;
	u32 counters;	/* strack-bitmap: bitmap_counters */
	unsigned int nops;
	struct lb_vec_op ops[LV_MAX_OPS];
};

#define S(e)		{ LV_SEND, 0, e, 0, 2 }
#define SW(e, w)	{ LV_SEND, 0, e, 0, w }
#define G(t, e)		{ LV_FB, t, e, SMARTT_FB_GOOD, 0 }
#define E(t, e)		{ LV_FB, t, e, SMARTT_FB_ECN, 0 }
#define TO(t, e)	{ LV_FB, t, e, SMARTT_FB_TIMEOUT, 0 }
#define N(t, e)		{ LV_FB, t, e, SMARTT_FB_NACK, 0 }
#define L(t, e)		{ LV_FB, t, e, SMARTT_FB_LOST, 0 }

static const struct lb_vec lb_vectors[] = {
	/*
	 * reps.txt Fig. 1 (buffer of one, all entropies already tried):
	 * a clean ACK for 5 caches it, the next packet reuses 5; an ECN ACK
	 * caches nothing, so the next packet explores (round robin: 0); of
	 * two clean ACKs (2 then 4) the later one overwrites the single slot.
	 */
	{ "reps_fig1", SMARTT_LB_REPS, 8, 1, 10000000, 16, 0, 0, 8, {
		G(0, 5), S(5), E(1, 5), S(0), G(2, 0), S(0), G(3, 2), G(4, 4),
	} },
	/*
	 * Circular buffer of 8: oldest first, each used once.  10, 11, 12 go
	 * out in order, then the empty buffer explores (0).  Ten clean ACKs
	 * 20..29 overwrite the two oldest (20, 21): 22..29 go out, then 1.
	 */
	{ "reps_fifo_each_once", SMARTT_LB_REPS, 64, 8, 10000000, 16, 0, 0, 28, {
		G(0, 10), G(0, 11), G(0, 12), S(10), S(11), S(12), S(0),
		G(1, 20), G(1, 21), G(1, 22), G(1, 23), G(1, 24), G(1, 25),
		G(1, 26), G(1, 27), G(1, 28), G(1, 29),
		S(22), S(23), S(24), S(25), S(26), S(27), S(28), S(29), S(1),
		S(2), S(3),
	} },
	/*
	 * Freezing (reps.txt failures, reference 5.1): cache {1, 2}; a timeout
	 * at t=100 freezes until 1100: the cache is replayed round robin from
	 * slot 0 (1, 2, 1) and clean ACKs keep filling it (3).  The first
	 * feedback after 1100 unfreezes, empties the cache and starts 3
	 * explorations (0, then a timeout during exploration does not freeze,
	 * 1, 2), then the empty buffer explores (3) until a clean ACK (6).
	 */
	{ "reps_freeze", SMARTT_LB_REPS, 8, 8, 1000, 3, 0, 0, 17, {
		G(0, 1), G(0, 2), TO(100, 0), S(1), S(2), S(1), G(500, 3),
		S(2), S(3), S(1), E(1200, 7), S(0), TO(1300, 0), S(1), S(2),
		S(3), G(1400, 6),
	} },
	/*
	 * smartt-reps-2024.txt Alg. 4, 4 entropies, first BDP = 3 packets of
	 * 4096 (lb_bdp 12288): round robin 0, 1, 2, then the cached entropy
	 * (initially 0).  A clean ACK caches 2.  An ECN ACK moves the cache to
	 * next_entropy++ (3), the next one to 0.
	 */
	{ "reps_single_alg4", SMARTT_LB_REPS_SINGLE, 4, 8, 0, 0, 12288, 0, 10, {
		S(0), S(1), S(2), S(0), G(0, 2), S(2), E(0, 2), S(3), E(0, 3),
		S(0),
	} },
	/*
	 * STrack Alg. 3, window 2 packets -> clamp(4, 8, 256) = 8 paths.
	 * 0, 1; ECN on 2 and 3; next send skips 2 (clearing its mark, the
	 * first skipped) and 3 (still marked): 4.  5, 6, 7, wrap 0, 1, 2 (its
	 * mark was cleared), 3 is skipped and cleared: 4.  A clean ACK on 6 is
	 * reused once, then the round robin continues after it: 7.  A clean
	 * ACK on 5 followed by an ECN ACK on 1 drops the reusable path: 0;
	 * then 1 (just marked) is skipped and cleared: 2.
	 */
	{ "strack_bitmap_alg3", SMARTT_LB_BITMAP, 256, 8, 0, 0, 0, 0, 19, {
		S(0), S(1), E(0, 2), E(0, 3), S(4), S(5), S(6), S(7), S(0),
		S(1), S(2), S(4), G(0, 6), S(6), S(7), G(0, 5), E(0, 1), S(0),
		S(2),
	} },
	/*
	 * paths = clamp(2 x cwnd_pkts, 8, 256): with a 20-packet window the
	 * round robin covers 40 paths (0..39, then 0), with 1 packet 8.
	 */
	{ "strack_bitmap_paths_follow_cwnd", SMARTT_LB_BITMAP, 256, 8, 0, 0, 0, 0, 4, {
		SW(0, 20), G(0, 39), SW(39, 20), SW(0, 20),
	} },
	/*
	 * The UEC reference's counters (bitmap_counters = 1), 8 paths: ECN on
	 * 1 (+1), NACK on 2 (+4).  The next send skips 1 (the first: 1 -> 0)
	 * and 2 (still 4): 3; then 4.  A clean ACK on 1 is reused once, and
	 * the round robin skips 2 (4 -> 3): 3.  A timeout on 5 and a loss on
	 * 6 (+15 each): 4, then 5 (15 -> 14) and 6 are skipped: 7, 0, 1, and
	 * 2 (3 -> 2) is skipped: 3.  Another timeout on 5 saturates at 15.  A
	 * clean ACK does not lower a penalty but still holds the path: 6 once,
	 * then 7, 0, 1, (2: 2 -> 1) 3, 4, (5: 15 -> 14, 6: 15) 7.
	 */
	{ "strack_bitmap_counters", SMARTT_LB_BITMAP, 256, 8, 0, 0, 0, 1, 24, {
		S(0), E(0, 1), N(0, 2), S(3), S(4), G(0, 1), S(1), S(3),
		TO(0, 5), L(0, 6), S(4), S(7), S(0), S(1), S(3), TO(0, 5),
		G(0, 6), S(6), S(7), S(0), S(1), S(3), S(4), S(7),
	} },
	/*
	 * Counters, every path timed out: after a whole round of penalised
	 * paths the least penalised is used: the first skipped (0, now 14),
	 * then 1 (the next round's first skipped, 14, before 0 on the tie).
	 * ECN on 2 and 3 and a NACK on 5 change nothing (saturated at 15).
	 * Three more sends: 2, 3, 4, each the first skipped (15 -> 14) and
	 * so the earliest of the least penalised.
	 */
	{ "strack_bitmap_counters_all_penalised", SMARTT_LB_BITMAP, 256, 8, 0, 0, 0, 1, 15, {
		TO(0, 0), TO(0, 1), TO(0, 2), TO(0, 3), TO(0, 4), TO(0, 5),
		TO(0, 6), TO(0, 7), S(0), S(1), E(0, 2), E(0, 3), N(0, 5),
		S(2), S(3), S(4),
	} },
};

#undef S
#undef SW
#undef G
#undef E
#undef TO
#undef N
#undef L

/* Return: first failing op (its entropy in *got), nops if all pass, -1. */
static inline int lb_vec_run(const struct lb_vec *v, u32 *got)
{
	struct smartt_lb_knobs k = smartt_lb_defaults;
	struct smartt_lb lb;
	unsigned int i;

	k.kind = v->kind;
	k.reps.paths = v->paths;
	k.reps.buf_size = v->buf_size;
	k.reps.freeze_time = v->freeze_time;
	k.reps.explore_count = v->explore_count;
	k.reps.explore_rr = 1;
	k.bdp = v->bdp;
	k.bitmap_counters = v->counters;
	if (smartt_lb_init(&lb, &k))
		return -1;
	for (i = 0; i < v->nops; i++) {
		const struct lb_vec_op *o = &v->ops[i];

		if (o->op == LV_FB) {
			smartt_lb_feedback(&lb, o->now, o->ev, o->fb);
			continue;
		}
		*got = smartt_lb_next(&lb, o->cwnd_pkts, 4096);
		if (*got != o->ev)
			return i;
	}
	return i;
}

#endif /* SMARTT_VECTORS_LB_H */
