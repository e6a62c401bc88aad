// SPDX-License-Identifier: GPL-2.0
/*
 * STrack ECN-bitmap path selection (strack.txt Algorithm 3).
 *
 * The pseudocode is inconsistent (it writes 0 on ECN and 1 on a good ACK
 * but skips non-zero bits, and tests next_path_id > 0 so path 0 can never
 * be reused); the prose is followed: a marked path is skipped, and a
 * separate flag says whether a reusable path is held.
 *
 * The mark is a penalty: the paper's one bit (set by ECN, NACK or loss,
 * cleared by a good ACK or by being the first path skipped), or the UEC
 * reference's saturating counter (UecMpBitmap: ECN +1, NACK +4, timeout
 * +15, a good ACK changes nothing, the first skipped path loses 1), which
 * keeps a failed path out of the round robin for 15 rounds instead of
 * one.  The knob bitmap_counters picks (lb.c).
 */
#include "path_bitmap.h"

/* Counter increments per feedback (UEC reference, uec_mp.cpp). */
static const u8 smartt_bitmap_inc[] = {
	[SMARTT_FB_GOOD] = 0,
	[SMARTT_FB_ECN] = 1,
	[SMARTT_FB_NACK] = 4,
	[SMARTT_FB_TIMEOUT] = SMARTT_BITMAP_PEN_MAX,
	[SMARTT_FB_LOST] = SMARTT_BITMAP_PEN_MAX,
};

/**
 * smartt_bitmap_init() - nothing marked, round robin starts at path 0
 * @b: state
 */
void smartt_bitmap_init(struct smartt_bitmap *b)
{
	*b = (struct smartt_bitmap){ 0 };
	b->rr = U32_MAX;
}

/**
 * smartt_bitmap_paths() - paths in the round robin for a window
 * @max_paths: knob, 1..%SMARTT_BITMAP_PATHS
 * @cwnd_pkts: congestion window in packets
 *
 * Return: clamp(2 x cwnd_pkts, 8, max_paths) (max_paths if it is below 8),
 * never above %SMARTT_BITMAP_PATHS: the bound the BPF verifier needs to see
 * the round robin of smartt_bitmap_next() end.
 */
u32 smartt_bitmap_paths(u32 max_paths, u64 cwnd_pkts)
{
	u64 n = cwnd_pkts > U32_MAX ? U32_MAX : 2 * cwnd_pkts;

	n = max_t(u64, n, 8);
	return (u32)min_t(u64, n, min_t(u32, max_paths, SMARTT_BITMAP_PATHS));
}

/**
 * smartt_bitmap_penalty() - a path's penalty
 * @b: state
 * @p: path, below %SMARTT_BITMAP_PATHS
 *
 * Return: 0 (usable) to %SMARTT_BITMAP_PEN_MAX.
 */
u32 smartt_bitmap_penalty(const struct smartt_bitmap *b, u32 p)
{
	/* p < SMARTT_BITMAP_PATHS: the modulo shows the BPF verifier */
	p %= SMARTT_BITMAP_PATHS;
	return (b->pen[p / 2] >> (p % 2 * 4)) & 0xf;
}

static void smartt_bitmap_set(struct smartt_bitmap *b, u32 p, u32 v)
{
	u32 sh = p % 2 * 4;

	p %= SMARTT_BITMAP_PATHS;
	b->pen[p / 2] = (u8)((b->pen[p / 2] & ~(0xfU << sh)) | (v << sh));
}

/**
 * smartt_bitmap_next() - choose_path of Algorithm 3
 * @b: state
 * @max_paths: knob, 1..%SMARTT_BITMAP_PATHS
 * @cwnd_pkts: congestion window in packets
 *
 * The held ECN-free path is used once; otherwise advance round robin,
 * skipping penalised paths and lowering the penalty of the first one
 * skipped by one.  After a whole round of penalised paths the least
 * penalised one is used, the earliest in round-robin order on a tie (with
 * one-bit marks: the first skipped, cleared by then, as the paper; the
 * UEC reference uses the first skipped whatever its penalty, so a flow
 * whose every path carries ECN marks from a shared last hop would go back
 * to a failed path 15 times too often).
 *
 * Return: a path in [0, max_paths).
 */
u32 smartt_bitmap_next(struct smartt_bitmap *b, u32 max_paths, u64 cwnd_pkts)
{
	u32 paths = smartt_bitmap_paths(max_paths, cwnd_pkts);
	u32 i, p, start, pen, best = 0, best_pen = U32_MAX;

	if (b->next_valid) {
		b->next_valid = false;
		b->rr = b->next;
		return b->rr;
	}
	/*
	 * The round robin visits start, start + 1, ... modulo paths, each
	 * path computed from the start rather than from the one before: the
	 * same order, and the BPF verifier walks the loop once per iteration
	 * instead of once per iteration and place where it wrapped.
	 */
	start = b->rr + 1 >= paths ? 0 : b->rr + 1;
	for (i = 0; i < paths; i++) {
		p = start + i >= paths ? start + i - paths : start + i;
		pen = smartt_bitmap_penalty(b, p);
		if (!pen) {
			b->rr = p;
			return p;
		}
		if (!i)
			smartt_bitmap_set(b, p, --pen);
		if (pen < best_pen) {
			best_pen = pen;
			best = p;
		}
	}
	b->rr = best;
	return b->rr;
}

/**
 * smartt_bitmap_feedback() - update_ecn_bitmap of Algorithm 3
 * @b: state
 * @max_paths: knob
 * @counters: saturating counters (UEC reference) instead of one bit
 * @ev: the path the feedback is about (ignored if >= @max_paths)
 * @fb: GOOD holds @ev for one reuse (and, with one bit, clears its mark);
 *	anything else penalises @ev (one bit: sets it; counters: ECN +1,
 *	NACK +4, timeout or loss +15) and drops the held path
 */
void smartt_bitmap_feedback(struct smartt_bitmap *b, u32 max_paths, bool counters,
			    u32 ev, enum smartt_path_fb fb)
{
	u32 pen;

	if (ev >= max_paths || (u32)fb >= ARRAY_SIZE(smartt_bitmap_inc))
		return;
	if (fb == SMARTT_FB_GOOD) {
		if (!counters)
			smartt_bitmap_set(b, ev, 0);
		b->next = ev;
		b->next_valid = true;
		return;
	}
	pen = counters ? smartt_bitmap_penalty(b, ev) + smartt_bitmap_inc[fb] : 1;
	smartt_bitmap_set(b, ev, min_t(u32, pen, SMARTT_BITMAP_PEN_MAX));
	b->next_valid = false;
}
