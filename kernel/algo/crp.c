// SPDX-License-Identifier: GPL-2.0
/*
 * CRP channel reservation: reservation tables, request vectors, the
 * destination's choice and the grant's settlement.  See crp.h and
 * Documentation/crp.rst.
 *
 * A request of size x is available in slot i of a table iff cell i has
 * some free capacity and cells i and i + 1 together hold x: a reservation
 * straddles at most two adjacent cells.  The last cell's neighbour lies
 * beyond the table's look-ahead and counts as empty, so a reservation
 * starting in the last slot must fit that slot.  A reservation takes the
 * last free bytes of its first slot (min(t[i], x)) and the rest from the
 * start of the next one; its time is the start of slot i + 1 less what it
 * took from slot i.
 */
#include "crp.h"
#include "fixed.h"

const struct crp_knobs crp_defaults = {
	.cells = 32,
	.cmax = 2152,
	.slot_ns = 1722,
	.nmin = 1024,
	.nmax = 4096,
	.eps = 50000,
	.ttw_ns = 1280,
	.retry_ns = 192,
	.eager = 0,
};

#define CK(n, f, lo, hi, fr, u) \
	SMARTT_KNOB_DESC(struct crp_knobs, n, f, lo, hi, fr, u)

const struct smartt_knob_desc crp_knob_descs[] = {
	CK("cells", cells, 1, CRP_CELLS_MAX, false, "cells"),
	CK("cmax", cmax, 1, CRP_CMAX_MAX, false, "bytes"),
	CK("slot_ns", slot_ns, 1, CRP_SLOT_NS_MAX, false, "ns"),
	CK("nmin", nmin, 1, 2 * CRP_CMAX_MAX, false, "bytes"),
	CK("nmax", nmax, 1, 2 * CRP_CMAX_MAX, false, "bytes"),
	CK("eps", eps, 0, SMARTT_PPM, true, "fraction"),
	CK("ttw_ns", ttw_ns, 0, CRP_SLOT_NS_MAX, false, "ns"),
	CK("retry_ns", retry_ns, 0, CRP_SLOT_NS_MAX, false, "ns"),
	CK("eager", eager, 0, CRP_RES_MAX, false, "request sizes"),
};

const unsigned int crp_knob_count = ARRAY_SIZE(crp_knob_descs);

/**
 * crp_knobs_validate() - reject nonsense CRP knobs
 * @k: knobs
 *
 * Every knob within its range, and N_min <= N_max <= 2 x C_max (a
 * reservation straddles at most two cells).  Nothing is clamped.
 *
 * Return: 0 or SMARTT_EINVAL.
 */
int crp_knobs_validate(const struct crp_knobs *k)
{
	if (smartt_knob_table_check(crp_knob_descs, crp_knob_count, k))
		return SMARTT_EINVAL;
	if (k->nmin > k->nmax || k->nmax > 2 * k->cmax)
		return SMARTT_EINVAL;
	return 0;
}

/**
 * crp_knob_find() - index of a CRP knob
 * @name: documented name
 *
 * Return: index in crp_knob_descs[] or SMARTT_EINVAL.
 */
int crp_knob_find(const char *name)
{
	return smartt_knob_table_find(crp_knob_descs, crp_knob_count, name);
}

/**
 * crp_knob_get() - read a CRP knob
 * @k: knobs
 * @i: index below crp_knob_count
 *
 * Return: the raw value (ppm for @eps).
 */
u32 crp_knob_get(const struct crp_knobs *k, unsigned int i)
{
	return smartt_knob_table_get(&crp_knob_descs[i], k);
}

/**
 * crp_knob_set() - write a CRP knob, unvalidated
 * @k: knobs
 * @i: index below crp_knob_count
 * @v: raw value; crp_knobs_validate() judges it
 */
void crp_knob_set(struct crp_knobs *k, unsigned int i, u32 v)
{
	smartt_knob_table_set(&crp_knob_descs[i], k, v);
}

/**
 * crp_table_init() - a table with every cell free
 * @t: table
 * @k: knobs (@cells and @cmax are used)
 * @base: absolute slot of cell 0 (the current slot)
 *
 * Return: 0, or SMARTT_EINVAL if @k is invalid.
 */
int crp_table_init(struct crp_table *t, const struct crp_knobs *k, u64 base)
{
	u32 i;

	if (crp_knobs_validate(k))
		return SMARTT_EINVAL;
	*t = (struct crp_table){ .base = base, .cells = k->cells, .cmax = k->cmax };
	for (i = 0; i < CRP_CELLS_MAX; i++)
		t->cell[i] = i < k->cells ? k->cmax : 0;
	return 0;
}

/*
 * Cell @i of @t.  Callers check @i against the cells in use; the mask (a
 * no-op then: %CRP_CELLS_MAX is a power of two) shows the BPF verifier a
 * bounded access whatever the compiler makes of that check.
 */
#define CRP_CELL(t, i)	((t)->cell[(i) & (CRP_CELLS_MAX - 1)])
static_assert(!(CRP_CELLS_MAX & (CRP_CELLS_MAX - 1)), "CRP_CELLS_MAX is a power of two");
static_assert(!(CRP_EAGER_MAX & (CRP_EAGER_MAX - 1)), "CRP_EAGER_MAX is a power of two");

/* Cells in use, whatever @t holds. */
static u32 crp_ncells(const struct crp_table *t)
{
	return min_t(u32, t->cells, CRP_CELLS_MAX);
}

/**
 * crp_table_set_cell() - set the free capacity of one cell
 * @t: table
 * @i: cell, below the table's cells
 * @bytes: free capacity, at most the table's cmax
 *
 * Return: 0, or SMARTT_EINVAL (nothing changed) for a cell or a capacity
 * out of range.
 */
int crp_table_set_cell(struct crp_table *t, u32 i, u32 bytes)
{
	if (i >= crp_ncells(t) || bytes > t->cmax)
		return SMARTT_EINVAL;
	CRP_CELL(t, i) = bytes;
	return 0;
}

/* Free capacity of cell @i + 1: none beyond the table's look-ahead. */
static u32 crp_next(const struct crp_table *t, u32 i)
{
	return i + 1 < crp_ncells(t) ? CRP_CELL(t, i + 1) : 0;
}

/**
 * crp_table_avail() - whether a reservation of @size can start in slot @i
 * @t: table
 * @i: cell
 * @size: bytes, 1 to 2 x cmax
 *
 * Return: t[i] > 0 && t[i] + t[i + 1] >= @size, the cell after the last one
 * counting as empty; false for @i beyond the table or @size 0.
 */
bool crp_table_avail(const struct crp_table *t, u32 i, u32 size)
{
	if (i >= crp_ncells(t) || !size || !CRP_CELL(t, i))
		return false;
	return (u64)CRP_CELL(t, i) + crp_next(t, i) >= size;
}

/*
 * a < b as 0 or 1, without a branch, for a and b below 2^63 (sums of at
 * most two u32 here): the sign of a - b, hidden from the compiler, which
 * would turn it back into a compare.
 */
static u64 crp_lt(u64 a, u64 b)
{
	return smartt_hide_u64(a - b) >> 63;
}

/**
 * crp_table_vector() - the table's availability for a request of @size
 * @t: table
 * @size: bytes
 *
 * Return: bit i set iff crp_table_avail(@t, i, @size).
 */
u64 crp_table_vector(const struct crp_table *t, u32 size)
{
	u64 n = crp_ncells(t), z = size, v = 0;
	u32 i;

	/*
	 * crp_table_avail() for every cell, without a branch: each bit is an
	 * unknown to the BPF verifier, so the vector is one value on one path,
	 * not one path per combination of bits.
	 */
	for (i = 0; i < CRP_CELLS_MAX; i++) {
		u64 c = CRP_CELL(t, i);
		u64 nx = CRP_CELL(t, i + 1) & (0 - crp_lt((u64)i + 1, n));
		u64 ok = crp_lt(i, n) & crp_lt(0, c) & crp_lt(0, z) &
			 (crp_lt(c + nx, z) ^ 1);

		v |= ok << i;
	}
	return v;
}

/**
 * crp_vec_full() - a fresh request vector: every slot available
 * @cells: bits, 1 to %CRP_CELLS_MAX
 *
 * Return: the @cells low bits set.
 */
u64 crp_vec_full(u32 cells)
{
	return cells >= CRP_CELLS_MAX ? U64_MAX : (1ULL << cells) - 1;
}

/**
 * crp_vec_from() - a source's request vector: the slots it can still use
 * @cells: bits, 1 to %CRP_CELLS_MAX
 * @slot_base: absolute slot of bit 0
 * @slot_ns: slot length, ns (at least 1)
 * @t: the earliest time the source can send under a grant, ns (the
 *	grant must be back by then)
 *
 * The source is the request's first resource: a slot that starts before
 * @t (the current slot, and those the answer cannot come back in time
 * for) is not available, since a reservation starts no earlier than its
 * slot and a packet sent after its reserved time takes the time of the
 * reservations after it.
 *
 * Return: the @cells low bits set, less those of the slots starting
 * before @t (0 if every slot of the vector does).
 */
u64 crp_vec_from(u32 cells, u64 slot_base, u32 slot_ns, u64 t)
{
	u32 rem;
	u64 first = div_u64_rem(t, slot_ns, &rem);

	if (rem)
		first++;	/* the first slot starting at or after t */
	if (first <= slot_base)
		return crp_vec_full(cells);
	if (first - slot_base >= cells)
		return 0;
	return crp_vec_full(cells) & ~((1ULL << (first - slot_base)) - 1);
}

/**
 * crp_vec_shift() - a request vector @slots slots later
 * @vec: vector, bit i = slot i from its base
 * @slots: slots that passed
 * @cells: its bits
 *
 * The bits of the slots that passed leave at bit 0; the new slots at the
 * end are available (true), as a fresh cell is.
 *
 * Return: the shifted vector.
 */
u64 crp_vec_shift(u64 vec, u64 slots, u32 cells)
{
	u64 full = crp_vec_full(cells);

	if (slots >= cells)
		return full;
	return ((vec & full) >> slots) | (full ^ (full >> slots));
}

/* Give back what @e took from its cells that are still in the table. */
static void crp_eager_release(struct crp_table *t, struct crp_eager *e)
{
	u32 j;

	for (j = 0; j < 2; j++) {
		u64 s = e->slot + j, i;

		if (s < t->base)
			continue;
		i = s - t->base;
		if (i < crp_ncells(t))
			CRP_CELL(t, i) = min_t(u32, t->cmax, CRP_CELL(t, i) + e->take[j]);
	}
	*e = (struct crp_eager){ 0 };
}

/* Release every eager reservation of @tag; the one @keep is confirmed. */
static void crp_eager_settle(struct crp_table *t, u32 tag, struct crp_eager *keep)
{
	u32 j;

	for (j = 0; j < CRP_EAGER_MAX; j++) {
		if (!tag || t->eager[j].tag != tag)
			continue;
		if (&t->eager[j] == keep)
			t->eager[j] = (struct crp_eager){ 0 };
		else
			crp_eager_release(t, &t->eager[j]);
	}
}

/*
 * Take @size from cell @i (its last free bytes) and cell @i + 1 (the rest);
 * the caller checked that they hold it.  Return what came from cell @i.
 */
static u32 crp_take(struct crp_table *t, u32 i, u32 size, u32 take[2])
{
	take[0] = min_t(u32, CRP_CELL(t, i), size);
	take[1] = size - take[0];
	CRP_CELL(t, i) -= take[0];
	if (take[1] && i + 1 < crp_ncells(t))
		CRP_CELL(t, i + 1) -= take[1];
	return take[0];
}

/**
 * crp_table_shift() - time moves @slots slots on
 * @t: table
 * @slots: slots that passed
 *
 * Cells of the slots that passed leave at cell 0, fresh full cells (cmax)
 * come in at the end.  An eager reservation whose first slot passed is
 * dropped and gives back what it held in the slot after it.
 */
void crp_table_shift(struct crp_table *t, u64 slots)
{
	u32 i, j;

	if (!slots)
		return;
	for (i = 0; i < CRP_CELLS_MAX && i < t->cells; i++)
		t->cell[i] = slots < crp_ncells(t) - i ? CRP_CELL(t, i + slots) : t->cmax;
	t->base += slots;
	for (j = 0; j < CRP_EAGER_MAX; j++)
		if (t->eager[j].tag && t->eager[j].slot < t->base)
			crp_eager_release(t, &t->eager[j]);
}

/**
 * crp_table_consume() - account traffic that does not take part in CRP
 * @t: table
 * @bytes: size of a packet that passed the resource without a reservation
 *
 * Subtracted from the earliest non-zero cell; what that cell does not hold
 * comes from the following ones.
 *
 * Return: bytes the whole table could not hold (0 normally).
 */
u32 crp_table_consume(struct crp_table *t, u32 bytes)
{
	u32 i, d;

	for (i = 0; i < CRP_CELLS_MAX && i < t->cells && bytes; i++) {
		d = min_t(u32, CRP_CELL(t, i), bytes);
		CRP_CELL(t, i) -= d;
		bytes -= d;
	}
	return bytes;
}

/*
 * Index of the lowest set bit of @v (non-zero).  Branch-free: a loop that
 * stops at the first set bit gives the BPF verifier one path per bit, each
 * going on into the reservation with its own cell index.
 */
static u32 crp_lowest_bit(u64 v)
{
	u64 x = (v & (~v + 1)) - 1;	/* the bits below the lowest set one */

	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (u32)((x * 0x0101010101010101ULL) >> 56);
}

/* Entries of @t's eager store that are free, bit j = entry j. */
static u32 crp_eager_free(const struct crp_table *t)
{
	u64 used = 0;
	u32 j;

	for (j = 0; j < CRP_EAGER_MAX; j++)
		used |= crp_lt(0, t->eager[j].tag) << j;
	return (u32)(~used & ((1ULL << CRP_EAGER_MAX) - 1));
}

/**
 * crp_channel_request() - a request passes a channel on its way
 * @t: the channel's table
 * @size: bytes to reserve, 1 to 2 x cmax
 * @tag: the flow's tag, for eager reservations (0 = none)
 * @eager: R_res: slots to reserve eagerly, 0 to %CRP_RES_MAX
 * @vec: the request's vector, aligned with @t (bit i = cell i)
 *
 * ANDs the table's availability into @vec.  With @eager and a @tag, first
 * releases what the flow's previous request reserved here, then reserves
 * the earliest @eager slots still true in @vec (those every table on the
 * way so far can hold), each as a grant would, until the flow's grant
 * settles them or their slot passes.  A full eager store reserves nothing.
 *
 * Return: the number of slots eagerly reserved.
 */
u32 crp_channel_request(struct crp_table *t, u32 size, u32 tag, u32 eager, u64 *vec)
{
	u32 i, j, made = 0;
	u64 cand;

	crp_eager_settle(t, tag, NULL);
	*vec &= crp_table_vector(t, size);
	if (!tag)
		return 0;
	/*
	 * The earliest slots of the vector, in order, that the table still
	 * holds after the ones taken before: found with bit operations, not a
	 * loop over the cells, so that the BPF verifier walks one path per
	 * reservation made.
	 */
	cand = *vec;
	for (made = 0; made < CRP_RES_MAX && made < eager; made++) {
		u32 free = crp_eager_free(t);

		cand &= crp_table_vector(t, size);
		if (!cand || !free)
			break;
		i = crp_lowest_bit(cand);
		j = crp_lowest_bit(free) & (CRP_EAGER_MAX - 1);
		crp_take(t, i, size, t->eager[j].take);
		t->eager[j].slot = t->base + i;
		t->eager[j].tag = tag;
		t->eager[j].size = size;
		cand &= cand - 1;
	}
	return made;
}

/**
 * crp_dest_decide() - the destination answers a request
 * @t: the destination's table
 * @size: bytes to reserve, 1 to 2 x cmax
 * @vec: the request's vector, aligned with @t; the destination's
 *	availability is ANDed in (the final vector)
 * @g: the grant, filled on %CRP_GRANT
 *
 * The leftmost slot true in the final vector is granted and reserved in
 * the destination's table: the last min(t[i], @size) bytes of slot i, the
 * rest at the start of slot i + 1.
 *
 * Return: %CRP_GRANT; %CRP_RETRY_FULL if the destination can hold @size in
 * no slot at all, whatever the vector; %CRP_RETRY if no slot is common.
 */
enum crp_result crp_dest_decide(struct crp_table *t, u32 size, u64 *vec,
				struct crp_grant *g)
{
	u64 avail = crp_table_vector(t, size);
	u32 i, take[2];

	*vec &= avail;
	if (!avail)
		return CRP_RETRY_FULL;
	if (!*vec)
		return CRP_RETRY;
	/* avail has no bit at or beyond the table's cells */
	i = crp_lowest_bit(*vec);
	crp_take(t, i, size, take);
	g->slot = t->base + i;
	g->offset = t->cmax - take[0];
	g->size = size;
	return CRP_GRANT;
}

/**
 * crp_channel_grant() - a grant passes a channel on its way back
 * @t: the channel's table
 * @tag: the flow's tag (0 = none)
 * @g: the grant
 *
 * An eager reservation of the flow for the granted slot and size is
 * confirmed as it stands; the flow's other eager reservations are
 * released.  Otherwise the cell holding the grant's slot gives what it
 * has (up to the size) and the next cell the rest, if together they still
 * hold the size; if not, or if the slot is no longer (or not yet) in the
 * table, the grant becomes a retry and nothing is taken here.  Tables the
 * grant already passed keep what it took.
 *
 * Return: true if the grant holds here, false if it became a retry.
 */
bool crp_channel_grant(struct crp_table *t, u32 tag, const struct crp_grant *g)
{
	struct crp_eager *keep = NULL;
	u32 i, j, take[2];

	for (j = 0; j < CRP_EAGER_MAX && tag; j++)
		if (t->eager[j].tag == tag && t->eager[j].slot == g->slot &&
		    t->eager[j].size == g->size)
			keep = &t->eager[j];
	crp_eager_settle(t, tag, keep);
	if (keep)
		return true;
	if (g->slot < t->base || g->slot - t->base >= crp_ncells(t))
		return false;
	i = (u32)(g->slot - t->base);
	if ((u64)CRP_CELL(t, i) + crp_next(t, i) < g->size)
		return false;
	crp_take(t, i, g->size, take);
	return true;
}

/**
 * crp_grant_offset() - a grant's time in capacity units
 * @t: a table
 * @g: a grant
 *
 * Return: bytes of capacity from the start of @t's cell 0 to the start of
 * the reservation (slot x cmax + offset), or U64_MAX if the grant starts
 * before cell 0.
 */
u64 crp_grant_offset(const struct crp_table *t, const struct crp_grant *g)
{
	if (g->slot < t->base)
		return U64_MAX;
	return (g->slot - t->base) * t->cmax + g->offset;
}

/**
 * crp_grant_ns() - a grant's time in ns on the shared time base
 * @k: knobs (@slot_ns, @cmax)
 * @g: a grant
 *
 * Return: slot x slot_ns + offset x slot_ns / cmax, or U64_MAX if that
 * does not fit 64 bits.
 */
u64 crp_grant_ns(const struct crp_knobs *k, const struct crp_grant *g)
{
	u64 t, in;

	if (smartt_mul_overflow(g->slot, (u64)k->slot_ns, &t))
		return U64_MAX;
	in = div_u64((u64)g->offset * k->slot_ns, k->cmax);
	if (smartt_add_overflow(t, in, &t))
		return U64_MAX;
	return t;
}

/**
 * crp_retry_wait_ns() - how long a source waits before asking again
 * @k: knobs
 * @res: the answer
 * @rtt_ns: the request-response round trip, ns
 * @rnd: a uniformly random u32 (randomises ordinary retries)
 *
 * Return: 0 for a grant; R x (1 + @rnd / 2^32) for %CRP_RETRY; the
 * table's look-ahead less the RTT (cells x slot_ns - @rtt_ns, at least R)
 * for %CRP_RETRY_FULL.
 */
u64 crp_retry_wait_ns(const struct crp_knobs *k, enum crp_result res, u64 rtt_ns,
		      u32 rnd)
{
	u64 window = (u64)k->cells * k->slot_ns;

	switch (res) {
	case CRP_RETRY:
		return k->retry_ns + (((u64)k->retry_ns * rnd) >> 32);
	case CRP_RETRY_FULL:
		if (window > rtt_ns && window - rtt_ns > k->retry_ns)
			return window - rtt_ns;
		return k->retry_ns;
	default:
		return 0;
	}
}

/**
 * crp_req_bytes() - the reservation a segment asks for
 * @k: knobs (@eps)
 * @bytes: the segment's bytes on the wire
 *
 * Return: @bytes x (1 + eps), rounded up, saturated at U32_MAX.
 */
u32 crp_req_bytes(const struct crp_knobs *k, u32 bytes)
{
	u64 r = bytes + div_u64((u64)bytes * k->eps + SMARTT_PPM - 1, SMARTT_PPM);

	return (u32)min_t(u64, r, U32_MAX);
}
