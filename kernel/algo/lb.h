/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One front end over the path selectors, for callers that pick the
 * selector at run time (the datagram transport, smartt-replay):
 * reps, reps-single, strack-bitmap, oblivious and ecmp.
 */
#ifndef SMARTT_ALGO_LB_H
#define SMARTT_ALGO_LB_H

#include "algo_types.h"
#include "reps.h"
#include "path_bitmap.h"
#include "smartt.h"

/**
 * enum smartt_lb_kind - the selectors
 * @SMARTT_LB_REPS: "reps", circular buffer with freezing
 * @SMARTT_LB_REPS_SINGLE: "reps-single", 2024 Algorithm 4
 * @SMARTT_LB_BITMAP: "strack-bitmap", STrack Algorithm 3
 * @SMARTT_LB_OBLIVIOUS: "oblivious", a fresh random entropy per packet
 * @SMARTT_LB_ECMP: "ecmp", one entropy per flow
 * @SMARTT_LB_COUNT: number of selectors
 */
enum smartt_lb_kind {
	SMARTT_LB_REPS = 0,
	SMARTT_LB_REPS_SINGLE = 1,
	SMARTT_LB_BITMAP = 2,
	SMARTT_LB_OBLIVIOUS = 3,
	SMARTT_LB_ECMP = 4,
	SMARTT_LB_COUNT = 5,
};

/**
 * struct smartt_lb_knobs - tunables of every selector
 * @kind: enum smartt_lb_kind
 * @reps: REPS knobs; @reps.paths is the number of entropies of every
 *	selector except strack-bitmap
 * @max_paths: strack-bitmap's max_paths (256)
 * @bitmap_counters: strack-bitmap penalties are the UEC reference's
 *	saturating counters (1) or the paper's one bit (0)
 * @bdp: reps-single's first round-robin phase, bytes
 * @seed: PRNG seed (oblivious, ecmp, REPS exploration)
 */
struct smartt_lb_knobs {
	u32 kind;
	struct smartt_reps_knobs reps;
	u32 max_paths;
	u32 bitmap_counters;
	u32 bdp;
	u32 seed;
};

/**
 * struct smartt_lb - selector state
 * @k: knobs
 * @prng: splitmix64 state (oblivious)
 * @ecmp: the flow's entropy (ecmp)
 * @u: the selector's own state
 * @u.reps: REPS
 * @u.single: single-entropy REPS
 * @u.bitmap: STrack bitmap
 */
struct smartt_lb {
	struct smartt_lb_knobs k;
	u64 prng;
	u32 ecmp;
	union {
		struct smartt_reps reps;
		struct smartt_reps1 single;
		struct smartt_bitmap bitmap;
	} u;
};

extern const char *const smartt_lb_names[SMARTT_LB_COUNT];
extern const struct smartt_lb_knobs smartt_lb_defaults;
extern const struct smartt_knob_desc smartt_lb_knob_descs[];
extern const unsigned int smartt_lb_knob_count;

int smartt_lb_by_name(const char *name);
int smartt_lb_validate(const struct smartt_lb_knobs *k);
int smartt_lb_init(struct smartt_lb *lb, const struct smartt_lb_knobs *k);
u32 smartt_lb_next(struct smartt_lb *lb, u64 cwnd_pkts, u32 bytes);
void smartt_lb_feedback(struct smartt_lb *lb, u64 now, u32 ev,
			enum smartt_path_fb fb);
int smartt_lb_knob_find(const char *name);
void smartt_lb_knob_set(struct smartt_lb_knobs *k, unsigned int i, u32 v);
u32 smartt_lb_knob_get(const struct smartt_lb_knobs *k, unsigned int i);

#endif /* SMARTT_ALGO_LB_H */
