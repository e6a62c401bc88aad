/* SPDX-License-Identifier: GPL-2.0 */
/*
 * STrack's ECN-bitmap path selection (strack.txt Algorithm 3 as its prose
 * intends): a bit per path set by ECN (or loss), round robin over
 * clamp(2 x cwnd_pkts, 8, max_paths) paths skipping marked ones and
 * clearing only the first skipped mark per send, and the last ECN-free
 * entropy reused once.
 */
#ifndef SMARTT_ALGO_PATH_BITMAP_H
#define SMARTT_ALGO_PATH_BITMAP_H

#include "algo_types.h"
#include "reps.h"

/* Paths the bitmap can track (Algorithm 3's max_paths). */
#define SMARTT_BITMAP_PATHS	256

/**
 * struct smartt_bitmap - per-flow state
 * @marked: bit p = path p was ECN-marked (skip it)
 * @rr: last round-robin path
 * @next: ECN-free path to reuse once
 * @next_valid: @next holds a path
 */
struct smartt_bitmap {
	u32 marked[SMARTT_BITMAP_PATHS / 32];
	u32 rr;
	u32 next;
	bool next_valid;
};

void smartt_bitmap_init(struct smartt_bitmap *b);
u32 smartt_bitmap_paths(u32 max_paths, u64 cwnd_pkts);
u32 smartt_bitmap_next(struct smartt_bitmap *b, u32 max_paths, u64 cwnd_pkts);
void smartt_bitmap_feedback(struct smartt_bitmap *b, u32 max_paths, u32 ev,
			    enum smartt_path_fb fb);

#endif /* SMARTT_ALGO_PATH_BITMAP_H */
