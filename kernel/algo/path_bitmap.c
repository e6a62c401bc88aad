// SPDX-License-Identifier: GPL-2.0
/*
 * STrack ECN-bitmap path selection (strack.txt Algorithm 3).
 *
 * The pseudocode is inconsistent (it writes 0 on ECN and 1 on a good ACK
 * but skips non-zero bits, and tests next_path_id > 0 so path 0 can never
 * be reused); the prose is followed: a set bit means "marked, skip", and
 * a separate flag says whether a reusable path is held.
 */
#include "path_bitmap.h"

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
 * Return: clamp(2 x cwnd_pkts, 8, max_paths) (max_paths if it is below 8).
 */
u32 smartt_bitmap_paths(u32 max_paths, u64 cwnd_pkts)
{
	u64 n = cwnd_pkts > U32_MAX ? U32_MAX : 2 * cwnd_pkts;

	n = max_t(u64, n, 8);
	return (u32)min_t(u64, n, max_paths);
}

static bool smartt_bitmap_test(const struct smartt_bitmap *b, u32 p)
{
	return b->marked[p / 32] & (1U << (p % 32));
}

/**
 * smartt_bitmap_next() - choose_path of Algorithm 3
 * @b: state
 * @max_paths: knob, 1..%SMARTT_BITMAP_PATHS
 * @cwnd_pkts: congestion window in packets
 *
 * The held ECN-free path is used once; otherwise advance round robin,
 * skipping marked paths and clearing the mark of the first one skipped.
 * Terminates within paths + 1 steps: the first skipped path is unmarked.
 *
 * Return: a path in [0, max_paths).
 */
u32 smartt_bitmap_next(struct smartt_bitmap *b, u32 max_paths, u64 cwnd_pkts)
{
	u32 paths = smartt_bitmap_paths(max_paths, cwnd_pkts);
	bool cleared = false;

	if (b->next_valid) {
		b->next_valid = false;
		b->rr = b->next;
		return b->rr;
	}
	b->rr = b->rr + 1 >= paths ? 0 : b->rr + 1;
	while (smartt_bitmap_test(b, b->rr)) {
		if (!cleared) {
			b->marked[b->rr / 32] &= ~(1U << (b->rr % 32));
			cleared = true;
		}
		b->rr = b->rr + 1 >= paths ? 0 : b->rr + 1;
	}
	return b->rr;
}

/**
 * smartt_bitmap_feedback() - update_ecn_bitmap of Algorithm 3
 * @b: state
 * @max_paths: knob
 * @ev: the path the feedback is about (ignored if >= @max_paths)
 * @fb: GOOD clears the mark and holds @ev for reuse; ECN, NACK and timeout
 *	mark it and drop the held path
 */
void smartt_bitmap_feedback(struct smartt_bitmap *b, u32 max_paths, u32 ev,
			    enum smartt_path_fb fb)
{
	if (ev >= max_paths)
		return;
	if (fb == SMARTT_FB_GOOD) {
		b->marked[ev / 32] &= ~(1U << (ev % 32));
		b->next = ev;
		b->next_valid = true;
	} else {
		b->marked[ev / 32] |= 1U << (ev % 32);
		b->next_valid = false;
	}
}
