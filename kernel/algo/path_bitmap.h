/* SPDX-License-Identifier: GPL-2.0 */
/*
 * STrack's ECN-bitmap path selection (strack.txt Algorithm 3): a penalty
 * per path raised by ECN, NACK and loss, round robin over
 * clamp(2 x cwnd_pkts, 8, max_paths) paths skipping penalised ones and
 * lowering only the first skipped penalty per send, and the last ECN-free
 * entropy reused once.  The penalty is the paper's one bit, or the UEC
 * reference's saturating counter (Documentation/path-selection.rst).
 */
#ifndef SMARTT_ALGO_PATH_BITMAP_H
#define SMARTT_ALGO_PATH_BITMAP_H

#include "algo_types.h"
#include "reps.h"

/* Paths the bitmap can track (Algorithm 3's max_paths). */
#define SMARTT_BITMAP_PATHS	256
/* Largest penalty: a 4-bit counter, as the UEC reference's. */
#define SMARTT_BITMAP_PEN_MAX	15

/**
 * struct smartt_bitmap - per-flow state
 * @pen: penalty of path p in nibble p (low nibble of byte p / 2 for even
 *	p); non-zero = skip it
 * @rr: last round-robin path
 * @next: ECN-free path to reuse once
 * @next_valid: @next holds a path
 */
struct smartt_bitmap {
	u8 pen[SMARTT_BITMAP_PATHS / 2];
	u32 rr;
	u32 next;
	bool next_valid;
};

void smartt_bitmap_init(struct smartt_bitmap *b);
u32 smartt_bitmap_paths(u32 max_paths, u64 cwnd_pkts);
u32 smartt_bitmap_penalty(const struct smartt_bitmap *b, u32 p);
u32 smartt_bitmap_next(struct smartt_bitmap *b, u32 max_paths, u64 cwnd_pkts);
void smartt_bitmap_feedback(struct smartt_bitmap *b, u32 max_paths, bool counters,
			    u32 ev, enum smartt_path_fb fb);

#endif /* SMARTT_ALGO_PATH_BITMAP_H */
