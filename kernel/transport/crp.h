/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt transport: the types of cc "crp" (crp.c): a sender's
 * reservations and the knobs.  Included by transport.h.
 */
#ifndef SMARTT_TRANSPORT_CRP_H
#define SMARTT_TRANSPORT_CRP_H

#include <linux/types.h>

#include "algo/crp.h"

/* CRP reservations a peer's sender holds at once (crp.c). */
#define SMARTT_CRP_SEGS		16

/* &struct smartt_crp_seg.state */
enum smartt_crp_state {
	SMARTT_CRP_FREE = 0,	/* unused entry */
	SMARTT_CRP_ASK,		/* a request is out, no answer yet */
	SMARTT_CRP_WAIT,	/* a retry came: ask again at @at */
	SMARTT_CRP_GRANTED,	/* a grant came: the rest goes from @at on */
};

/**
 * struct smartt_crp_seg - one CRP reservation of a sender (cc "crp")
 * @msg_id: the message
 * @off: offset of the reserved segment in the message, bytes
 * @first_psn: PSN of the segment's first packet (valid once @sent > 0;
 *	the segment's packets take consecutive PSNs)
 * @at: %SMARTT_CRP_ASK: when to ask again if no answer came;
 *	%SMARTT_CRP_WAIT: when to ask again; %SMARTT_CRP_GRANTED: the
 *	reservation's start (ns, CLOCK_MONOTONIC)
 * @wake: %SMARTT_CRP_GRANTED: a packet waits for its departure to come
 *	within the EDT horizon, at this time (ns, 0: none)
 * @asked: when its last request left (ns)
 * @len: payload bytes of the segment
 * @req_bytes: the reservation asked for, wire bytes with epsilon
 * @spec: payload bytes sent speculatively
 * @paced: wire bytes sent under the grant so far: the next one leaves
 *	this much capacity after @at
 * @npkts: packets of the segment
 * @sent: packets sent at least once
 * @retries: requests sent before the one out
 * @gen: grants the segment took (a packet the current grant carried and
 *	that was lost makes the segment ask again)
 * @state: &enum smartt_crp_state
 * @nospec: speculation stopped (a speculative packet was trimmed, or
 *	the socket's spec_bytes is 0)
 */
struct smartt_crp_seg {
	u64 msg_id;
	u64 off;
	u64 first_psn;
	u64 at;
	u64 wake;
	u64 asked;
	u32 len;
	u32 req_bytes;
	u32 spec;
	u32 paced;
	u16 npkts;
	u16 sent;
	u16 retries;
	u8 state;
	u8 nospec;
	u8 gen;
};

/**
 * struct smartt_crp_cfg - the transport's CRP knobs
 * @k: the reservation core's (kernel/algo/crp.h): slot_ns, cells and
 *	cmax describe the tables (cmax: bytes a slot holds at the host's
 *	rate), nmin, nmax and eps the segments, retry_ns the retry wait
 * @spec_bytes: payload bytes of a segment sent speculatively before its
 *	grant (0: none)
 */
struct smartt_crp_cfg {
	struct crp_knobs k;
	u32 spec_bytes;
};

#endif /* SMARTT_TRANSPORT_CRP_H */
