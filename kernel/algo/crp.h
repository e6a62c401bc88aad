/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CRP channel reservation (Michelogiannakis et al., "Channel Reservation
 * Protocol for Over-Subscribed Channels and Destinations", SC'13): the
 * reservation table of one resource (an over-subscribed channel or a
 * destination), the request vector, the destination's choice and the
 * grant's settlement on the way back.  Documentation/crp.rst.
 *
 * Units: a cell holds free capacity in bytes (capacity = rate x slot
 * length), time is in ns.  A table has @cells (at most %CRP_CELLS_MAX)
 * cells, cell 0 being the current slot; a request vector is a u64 whose
 * bit i is cell i.  Slots are numbered from a time base shared by every
 * table (absolute slot = now / slot_ns): a table knows the absolute number
 * of its cell 0 (@base), a grant names an absolute slot, so that a grant
 * coming back after the tables shifted still finds its cells.
 *
 * Pure C, no clock (time comes with each call), no allocation, every loop
 * bounded by %CRP_CELLS_MAX or %CRP_EAGER_MAX.
 */
#ifndef SMARTT_ALGO_CRP_H
#define SMARTT_ALGO_CRP_H

#include "algo_types.h"
#include "knobs.h"

/* Largest table: a request vector is one u64. */
#define CRP_CELLS_MAX		64
/* Largest cell capacity, bytes: two cells and their sum fit a u32. */
#define CRP_CMAX_MAX		1073741824U	/* 2^30 */
/* Largest slot length, ns (1 s). */
#define CRP_SLOT_NS_MAX		1000000000U
/* Most slots a request eagerly reserves in one table (R_res). */
#define CRP_RES_MAX		4
/* Eager reservations one table holds at a time. */
#define CRP_EAGER_MAX		16

/**
 * struct crp_knobs - CRP tunables, the paper's Table 1 in bytes and ns
 *
 * The paper counts cycles of one 8-byte flit; at its 10 Gbit/s channel
 * rate (the reference rate here) a flit lasts 6.4 ns.
 *
 * @cells: V_cells, cells of a table and bits of a vector (32)
 * @cmax: C_max, capacity of one cell, bytes (269 flits = 2152)
 * @slot_ns: length of one slot, ns (269 x 6.4 = 1721.6 -> 1722)
 * @nmin: N_min, smallest reservation, bytes (4 packets of 256 B = 1024);
 *	smaller messages do not take part
 * @nmax: N_max, largest reservation, bytes (16 packets = 4096); larger
 *	messages are cut into @nmax segments; at most 2 x @cmax
 * @eps: epsilon, control overhead added to each reservation, ppm (5 %)
 * @ttw_ns: TTW, cumulative queueing a speculative packet may wait, ns
 *	(200 flits = 1280)
 * @retry_ns: R_cycles, wait after a retry, ns (30 flits = 192)
 * @eager: R_res, request sizes a request eagerly reserves in each table
 *	it passes (1; at most %CRP_RES_MAX; 0 = none)
 */
struct crp_knobs {
	u32 cells;
	u32 cmax;
	u32 slot_ns;
	u32 nmin;
	u32 nmax;
	u32 eps;
	u32 ttw_ns;
	u32 retry_ns;
	u32 eager;
};

/**
 * struct crp_eager - a reservation a request made on its way, tentatively
 * @slot: absolute slot it starts in
 * @tag: the flow's tag (0 = unused entry)
 * @size: bytes reserved
 * @take: bytes taken from the cells of @slot and @slot + 1
 */
struct crp_eager {
	u64 slot;
	u32 tag;
	u32 size;
	u32 take[2];
};

/**
 * struct crp_table - the reservation table of one resource
 * @base: absolute slot of cell 0
 * @cells: number of cells (the knob's @cells)
 * @cmax: capacity of a cell, bytes (a fresh cell holds it)
 * @cell: free capacity per slot, bytes, cell 0 = the current slot
 * @eager: eager reservations held for flows (@tag 0 = free entry)
 */
struct crp_table {
	u64 base;
	u32 cells;
	u32 cmax;
	u32 cell[CRP_CELLS_MAX];
	struct crp_eager eager[CRP_EAGER_MAX];
};

/**
 * enum crp_result - what a request comes back as
 * @CRP_GRANT: a grant for the slot and time it names
 * @CRP_RETRY: no common slot, or a table on the way back could not hold
 *	the grant: ask again after about R (randomised)
 * @CRP_RETRY_FULL: the destination has no slot for this size at all: ask
 *	again after the table's whole look-ahead, less an RTT
 */
enum crp_result {
	CRP_GRANT = 0,
	CRP_RETRY = 1,
	CRP_RETRY_FULL = 2,
};

/**
 * struct crp_grant - the destination's answer
 * @slot: absolute slot the reservation starts in
 * @offset: where in @slot it starts, bytes from the slot's start
 * @size: bytes reserved (in @slot and, for the rest, @slot + 1)
 */
struct crp_grant {
	u64 slot;
	u32 offset;
	u32 size;
};

extern const struct crp_knobs crp_defaults;
extern const struct smartt_knob_desc crp_knob_descs[];
extern const unsigned int crp_knob_count;

int crp_knobs_validate(const struct crp_knobs *k);
int crp_knob_find(const char *name);
u32 crp_knob_get(const struct crp_knobs *k, unsigned int i);
void crp_knob_set(struct crp_knobs *k, unsigned int i, u32 v);

int crp_table_init(struct crp_table *t, const struct crp_knobs *k, u64 base);
int crp_table_set_cell(struct crp_table *t, u32 i, u32 bytes);
bool crp_table_avail(const struct crp_table *t, u32 i, u32 size);
u64 crp_table_vector(const struct crp_table *t, u32 size);
void crp_table_shift(struct crp_table *t, u64 slots);
u32 crp_table_consume(struct crp_table *t, u32 bytes);

u64 crp_vec_full(u32 cells);
u64 crp_vec_from(u32 cells, u64 slot_base, u32 slot_ns, u64 t);
u64 crp_vec_shift(u64 vec, u64 slots, u32 cells);

u32 crp_channel_request(struct crp_table *t, u32 size, u32 tag, u32 eager, u64 *vec);
enum crp_result crp_dest_decide(struct crp_table *t, u32 size, u64 *vec,
				struct crp_grant *g);
bool crp_channel_grant(struct crp_table *t, u32 tag, const struct crp_grant *g);

u64 crp_grant_offset(const struct crp_table *t, const struct crp_grant *g);
u64 crp_grant_ns(const struct crp_knobs *k, const struct crp_grant *g);
u64 crp_retry_wait_ns(const struct crp_knobs *k, enum crp_result res, u64 rtt_ns,
		      u32 rnd);
u32 crp_req_bytes(const struct crp_knobs *k, u32 bytes);

#endif /* SMARTT_ALGO_CRP_H */
