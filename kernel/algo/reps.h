/* SPDX-License-Identifier: GPL-2.0 */
/*
 * REPS path selection (reps.txt, reference-semantics.md 5.1) and the
 * single-entropy REPS of smartt-reps-2024.txt Algorithm 4.
 *
 * An entropy is an index in [0, paths); mapping it to an IPv6 flow label or
 * a UDP source port is the caller's business.  Pure C, no clock (time comes
 * with each call), no allocation.
 */
#ifndef SMARTT_ALGO_REPS_H
#define SMARTT_ALGO_REPS_H

#include "algo_types.h"
#include "fixed.h"

/* Largest circular buffer of cached entropies. */
#define SMARTT_REPS_BUF_MAX	16
/* Largest number of entropies: a 20-bit flow label. */
#define SMARTT_PATHS_MAX	1048576U	/* 2^20 */

/**
 * enum smartt_path_fb - what an ACK/NACK/timeout says about an entropy
 * @SMARTT_FB_GOOD: ACK without ECN (or a last-hop trim without ECN)
 * @SMARTT_FB_ECN: ACK with ECN-CE echoed
 * @SMARTT_FB_NACK: the packet was trimmed in the fabric
 * @SMARTT_FB_TIMEOUT: a retransmission timeout
 * @SMARTT_FB_LOST: the packet was declared lost without a timeout (SACK,
 *	out-of-order count or probe): like a NACK for REPS (nothing cached,
 *	no freeze), like a timeout for strack-bitmap's counters
 */
enum smartt_path_fb {
	SMARTT_FB_GOOD = 0,
	SMARTT_FB_ECN = 1,
	SMARTT_FB_NACK = 2,
	SMARTT_FB_TIMEOUT = 3,
	SMARTT_FB_LOST = 4,
};

/**
 * struct smartt_reps_knobs - REPS tunables
 * @paths: number of entropies (256)
 * @buf_size: cached entropies (8, at most %SMARTT_REPS_BUF_MAX)
 * @freeze: 1 = freeze on a timeout (replay the cache), 0 = never
 * @freeze_time: how long a freeze lasts, ns (10 ms)
 * @explore_count: random entropies sent after a freeze ends (16)
 * @explore_rr: 1 = explore round robin (paper), 0 = random (reference)
 */
struct smartt_reps_knobs {
	u32 paths;
	u32 buf_size;
	u32 freeze;
	u32 freeze_time;
	u32 explore_count;
	u32 explore_rr;
};

/**
 * struct smartt_reps - REPS per-flow state
 * @slots: cached entropies, circular
 * @valid: bit i = slots[i] holds an unused entropy
 * @head: next slot to write
 * @count: slots ever written (saturates at buf_size)
 * @fresh: valid slots
 * @head_frozen: next slot to replay while frozen
 * @frozen: replaying the cache after a timeout
 * @explore: explorations left after a freeze
 * @rr: last round-robin entropy (explore_rr)
 * @unfreeze: end of the freeze, ns
 * @prng: splitmix64 state
 */
struct smartt_reps {
	u32 slots[SMARTT_REPS_BUF_MAX];
	u16 valid;
	u8 head;
	u8 count;
	u8 fresh;
	u8 head_frozen;
	bool frozen;
	u16 explore;
	u32 rr;
	u64 unfreeze;
	u64 prng;
};

extern const struct smartt_reps_knobs smartt_reps_defaults;

int smartt_reps_validate(const struct smartt_reps_knobs *k);
void smartt_reps_init(struct smartt_reps *r, u64 seed);
u32 smartt_reps_next(struct smartt_reps *r, const struct smartt_reps_knobs *k);
void smartt_reps_feedback(struct smartt_reps *r, const struct smartt_reps_knobs *k,
			  u64 now, u32 ev, enum smartt_path_fb fb);

/**
 * struct smartt_reps1 - single-entropy REPS (smartt-reps-2024.txt Alg. 4)
 * @next: next round-robin entropy
 * @cached: entropy to reuse
 * @tried: entropies sent in the first-BDP round robin
 * @sent: bytes sent so far
 */
struct smartt_reps1 {
	u32 next;
	u32 cached;
	u32 tried;
	u64 sent;
};

void smartt_reps1_init(struct smartt_reps1 *r);
u32 smartt_reps1_next(struct smartt_reps1 *r, u32 paths, u64 bdp, u32 bytes);
void smartt_reps1_feedback(struct smartt_reps1 *r, u32 paths, u32 ev,
			   enum smartt_path_fb fb);

#endif /* SMARTT_ALGO_REPS_H */
