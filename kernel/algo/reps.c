// SPDX-License-Identifier: GPL-2.0
/*
 * REPS: recycle the entropies of uncongested packets (reps.txt
 * Algorithm 1 with the circular buffer and freezing of the UEC reference,
 * reference-semantics.md 5.1), and the single-entropy variant of
 * smartt-reps-2024.txt Algorithm 4.  Documentation/path-selection.rst.
 */
#include "reps.h"

/* The reference's constants: 8 slots, 10 ms freeze, 16 explorations. */
const struct smartt_reps_knobs smartt_reps_defaults = {
	.paths = 256, .buf_size = 8, .freeze = 1, .freeze_time = 10000000,
	.explore_count = 16, .explore_rr = 0,
};

/**
 * smartt_reps_validate() - reject nonsense REPS knobs
 * @k: knobs
 *
 * Return: 0 or SMARTT_EINVAL.
 */
int smartt_reps_validate(const struct smartt_reps_knobs *k)
{
	if (!k->paths || k->paths > SMARTT_PATHS_MAX ||
	    !k->buf_size || k->buf_size > SMARTT_REPS_BUF_MAX ||
	    k->freeze > 1 || k->explore_rr > 1 || k->explore_count > U16_MAX)
		return SMARTT_EINVAL;
	return 0;
}

/**
 * smartt_reps_init() - empty cache, not frozen
 * @r: state
 * @seed: PRNG seed for random exploration
 */
void smartt_reps_init(struct smartt_reps *r, u64 seed)
{
	*r = (struct smartt_reps){ 0 };
	r->prng = seed;
	r->rr = U32_MAX;	/* the first round-robin entropy is 0 */
}

static u32 smartt_reps_explore(struct smartt_reps *r,
			       const struct smartt_reps_knobs *k)
{
	if (k->explore_rr) {
		r->rr = r->rr + 1 >= k->paths ? 0 : r->rr + 1;
		return r->rr;
	}
	return smartt_prng_below(&r->prng, k->paths);
}

/*
 * Slot indices are below buf_size <= SMARTT_REPS_BUF_MAX; the modulo makes
 * that visible to the BPF verifier (the cores also build into BPF).
 */
static u32 smartt_reps_take(struct smartt_reps *r, unsigned int i)
{
	if (r->valid & (1U << i)) {
		r->valid &= ~(1U << i);
		r->fresh--;
	}
	return r->slots[i % SMARTT_REPS_BUF_MAX];
}

/**
 * smartt_reps_next() - entropy for the next packet
 * @r: state
 * @k: knobs
 *
 * Exploring (after a freeze): a random (or round-robin) entropy.  Frozen:
 * replay the cache round robin from slot 0.  Otherwise the oldest unused
 * cached entropy, each used once; with none, explore.
 *
 * Return: an entropy in [0, paths).
 */
u32 smartt_reps_next(struct smartt_reps *r, const struct smartt_reps_knobs *k)
{
	unsigned int i;

	if (r->explore) {
		r->explore--;
		return smartt_reps_explore(r, k);
	}
	if (r->frozen) {
		if (!r->count)
			return smartt_reps_explore(r, k);
		i = r->head_frozen;
		r->head_frozen = r->head_frozen + 1 >= r->count ? 0 :
				 r->head_frozen + 1;
		return smartt_reps_take(r, i);
	}
	if (!r->fresh)
		return smartt_reps_explore(r, k);
	/* oldest fresh entry: (head - fresh) mod buf_size */
	i = r->head >= r->fresh ? (unsigned int)(r->head - r->fresh) :
	    r->head + k->buf_size - r->fresh;
	return smartt_reps_take(r, i);
}

/**
 * smartt_reps_feedback() - what an ACK, NACK or timeout said
 * @r: state
 * @k: knobs
 * @now: time, ns
 * @ev: the entropy the feedback is about
 * @fb: enum smartt_path_fb
 *
 * A timeout freezes (unless exploring or frozen); the first feedback after
 * the freeze time unfreezes, empties the cache and starts explore_count
 * explorations.  GOOD feedback caches @ev (also while frozen); ECN, NACK,
 * timeouts and losses cache nothing.
 */
void smartt_reps_feedback(struct smartt_reps *r, const struct smartt_reps_knobs *k,
			  u64 now, u32 ev, enum smartt_path_fb fb)
{
	if (fb == SMARTT_FB_TIMEOUT && k->freeze && !r->frozen && !r->explore) {
		r->frozen = true;
		r->unfreeze = now + k->freeze_time;
	}
	if (r->frozen && now > r->unfreeze) {
		r->frozen = false;
		r->valid = 0;
		r->head = 0;
		r->count = 0;
		r->fresh = 0;
		r->head_frozen = 0;
		r->explore = (u16)k->explore_count;
	}
	if (fb != SMARTT_FB_GOOD || ev >= k->paths)
		return;
	if (!(r->valid & (1U << r->head))) {
		r->valid |= 1U << r->head;
		r->fresh++;
	}
	r->slots[r->head % SMARTT_REPS_BUF_MAX] = ev;
	r->head = (u32)r->head + 1 >= k->buf_size ? 0 : r->head + 1;
	if (r->count < k->buf_size)
		r->count++;
}

/**
 * smartt_reps1_init() - single-entropy REPS, nothing sent yet
 * @r: state
 */
void smartt_reps1_init(struct smartt_reps1 *r)
{
	*r = (struct smartt_reps1){ 0 };
}

/**
 * smartt_reps1_next() - entropy for the next packet (2024 Alg. 4 onsend)
 * @r: state
 * @paths: number of entropies
 * @bdp: bytes of the first round-robin phase (one BDP)
 * @bytes: size of the packet being sent
 *
 * Return: next_entropy++ while less than one BDP was sent and not every
 * entropy was tried, the cached entropy afterwards.
 */
u32 smartt_reps1_next(struct smartt_reps1 *r, u32 paths, u64 bdp, u32 bytes)
{
	u32 ev;

	if (r->sent < bdp && r->tried < paths) {
		ev = r->next;
		r->next = r->next + 1 >= paths ? 0 : r->next + 1;
		r->tried++;
	} else {
		ev = r->cached;
	}
	r->sent = smartt_sat_add(r->sent, bytes);
	return ev;
}

/**
 * smartt_reps1_feedback() - 2024 Alg. 4 onrecv
 * @r: state
 * @paths: number of entropies
 * @ev: the entropy echoed by the ACK
 * @fb: GOOD caches @ev; anything else moves to the next entropy
 */
void smartt_reps1_feedback(struct smartt_reps1 *r, u32 paths, u32 ev,
			   enum smartt_path_fb fb)
{
	if (fb == SMARTT_FB_GOOD && ev < paths) {
		r->cached = ev;
		return;
	}
	r->cached = r->next;
	r->next = r->next + 1 >= paths ? 0 : r->next + 1;
}
