// SPDX-License-Identifier: GPL-2.0
/*
 * Path-selector front end and the two baselines (oblivious spraying and
 * per-flow ECMP).  Documentation/path-selection.rst.
 */
#include "lb.h"

const char *const smartt_lb_names[SMARTT_LB_COUNT] = {
	[SMARTT_LB_REPS] = "reps",
	[SMARTT_LB_REPS_SINGLE] = "reps-single",
	[SMARTT_LB_BITMAP] = "strack-bitmap",
	[SMARTT_LB_OBLIVIOUS] = "oblivious",
	[SMARTT_LB_ECMP] = "ecmp",
};

const struct smartt_lb_knobs smartt_lb_defaults = {
	.kind = SMARTT_LB_REPS,
	.reps = { .paths = 256, .buf_size = 8, .freeze = 1,
		  .freeze_time = 10000000, .explore_count = 16 },
	.max_paths = SMARTT_BITMAP_PATHS,
	.bitmap_counters = 1,
	.bdp = 150000,
	.seed = 1,
};

#define LK(n, f, lo, hi, u) \
	SMARTT_KNOB_DESC(struct smartt_lb_knobs, n, f, lo, hi, false, u)

const struct smartt_knob_desc smartt_lb_knob_descs[] = {
	LK("paths", reps.paths, 1, SMARTT_PATHS_MAX, "entropies"),
	LK("buf_size", reps.buf_size, 1, SMARTT_REPS_BUF_MAX, "entropies"),
	LK("freeze", reps.freeze, 0, 1, "bool"),
	LK("freeze_time", reps.freeze_time, 0, U32_MAX, "ns"),
	LK("explore_count", reps.explore_count, 0, U16_MAX, "packets"),
	LK("explore_rr", reps.explore_rr, 0, 1, "bool"),
	LK("max_paths", max_paths, 1, SMARTT_BITMAP_PATHS, "paths"),
	LK("bitmap_counters", bitmap_counters, 0, 1, "bool"),
	LK("lb_bdp", bdp, 0, U32_MAX, "bytes"),
	LK("seed", seed, 0, U32_MAX, "seed"),
};

const unsigned int smartt_lb_knob_count = ARRAY_SIZE(smartt_lb_knob_descs);

/**
 * smartt_lb_by_name() - selector by name
 * @name: "reps", "reps-single", "strack-bitmap", "oblivious", "ecmp"
 *
 * Return: enum smartt_lb_kind or SMARTT_EINVAL.
 */
int smartt_lb_by_name(const char *name)
{
	int i;

	for (i = 0; i < SMARTT_LB_COUNT; i++)
		if (smartt_knob_streq(name, smartt_lb_names[i]))
			return i;
	return SMARTT_EINVAL;
}

/**
 * smartt_lb_knob_find() - index of a selector knob
 * @name: documented name
 *
 * Return: index in smartt_lb_knob_descs[] or SMARTT_EINVAL.
 */
int smartt_lb_knob_find(const char *name)
{
	return smartt_knob_table_find(smartt_lb_knob_descs, smartt_lb_knob_count,
				      name);
}

/**
 * smartt_lb_knob_get() - read a selector knob
 * @k: knobs
 * @i: index below smartt_lb_knob_count
 *
 * Return: the value.
 */
u32 smartt_lb_knob_get(const struct smartt_lb_knobs *k, unsigned int i)
{
	return smartt_knob_table_get(&smartt_lb_knob_descs[i], k);
}

/**
 * smartt_lb_knob_set() - write a selector knob, unvalidated
 * @k: knobs
 * @i: index below smartt_lb_knob_count
 * @v: value
 */
void smartt_lb_knob_set(struct smartt_lb_knobs *k, unsigned int i, u32 v)
{
	smartt_knob_table_set(&smartt_lb_knob_descs[i], k, v);
}

/**
 * smartt_lb_validate() - reject nonsense selector knobs
 * @k: knobs
 *
 * Return: 0 or SMARTT_EINVAL.
 */
int smartt_lb_validate(const struct smartt_lb_knobs *k)
{
	if (k->kind >= SMARTT_LB_COUNT)
		return SMARTT_EINVAL;
	if (smartt_knob_table_check(smartt_lb_knob_descs, smartt_lb_knob_count, k))
		return SMARTT_EINVAL;
	return smartt_reps_validate(&k->reps);
}

/**
 * smartt_lb_init() - validate knobs and start a selector
 * @lb: state
 * @k: knobs
 *
 * Return: 0 or SMARTT_EINVAL.
 */
int smartt_lb_init(struct smartt_lb *lb, const struct smartt_lb_knobs *k)
{
	int err = smartt_lb_validate(k);

	if (err)
		return err;
	*lb = (struct smartt_lb){ .k = *k, .prng = k->seed };
	switch (k->kind) {
	case SMARTT_LB_REPS:
		smartt_reps_init(&lb->u.reps, k->seed);
		break;
	case SMARTT_LB_REPS_SINGLE:
		smartt_reps1_init(&lb->u.single);
		break;
	case SMARTT_LB_BITMAP:
		smartt_bitmap_init(&lb->u.bitmap);
		break;
	case SMARTT_LB_ECMP:
		lb->ecmp = smartt_prng_below(&lb->prng, k->reps.paths);
		break;
	default:
		break;
	}
	return 0;
}

/**
 * smartt_lb_next() - entropy for the next packet
 * @lb: state
 * @cwnd_pkts: congestion window in packets (strack-bitmap)
 * @bytes: size of the packet (reps-single)
 *
 * Return: an entropy below the selector's number of paths.
 */
u32 smartt_lb_next(struct smartt_lb *lb, u64 cwnd_pkts, u32 bytes)
{
	switch (lb->k.kind) {
	case SMARTT_LB_REPS:
		return smartt_reps_next(&lb->u.reps, &lb->k.reps);
	case SMARTT_LB_REPS_SINGLE:
		return smartt_reps1_next(&lb->u.single, lb->k.reps.paths,
					 lb->k.bdp, bytes);
	case SMARTT_LB_BITMAP:
		return smartt_bitmap_next(&lb->u.bitmap, lb->k.max_paths, cwnd_pkts);
	case SMARTT_LB_OBLIVIOUS:
		return smartt_prng_below(&lb->prng, lb->k.reps.paths);
	default:
		return lb->ecmp;
	}
}

/**
 * smartt_lb_feedback() - pass what an ACK/NACK/timeout said to the selector
 * @lb: state
 * @now: time, ns
 * @ev: entropy the feedback is about
 * @fb: enum smartt_path_fb
 */
void smartt_lb_feedback(struct smartt_lb *lb, u64 now, u32 ev,
			enum smartt_path_fb fb)
{
	switch (lb->k.kind) {
	case SMARTT_LB_REPS:
		smartt_reps_feedback(&lb->u.reps, &lb->k.reps, now, ev, fb);
		break;
	case SMARTT_LB_REPS_SINGLE:
		smartt_reps1_feedback(&lb->u.single, lb->k.reps.paths, ev, fb);
		break;
	case SMARTT_LB_BITMAP:
		smartt_bitmap_feedback(&lb->u.bitmap, lb->k.max_paths,
				       lb->k.bitmap_counters, ev, fb);
		break;
	default:
		break;
	}
}
