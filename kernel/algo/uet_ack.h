/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The congestion-control inputs of a UET ACK_CC with NSCC state.
 *
 * A receiver's ACK_CC tells the sender, besides which PSNs arrived, the
 * NSCC state: a running count of the bytes it accepted (24 bits, wrapping),
 * its service time (from the acknowledged packet's arrival to the ACK's
 * departure), its out-of-order count, and in the PDS flags whether the
 * triggering packet carried CE (M) and was a retransmission (RETX).  This
 * file turns those fields into the event the cores take (&struct
 * smartt_event: RTT, newly acknowledged bytes, ECN) the way the UEC
 * reference simulator's NSCC does: the bytes are the difference of the
 * received-bytes counts, the RTT is the sender's own interval from the
 * acknowledged PSN's departure to the ACK's arrival, valid only when the ACK
 * answers the transmission that was timed, here minus the receiver's service
 * time.  The kernel's transport and smartt-replay's ``ack_cc`` lines share
 * it, so that a recorded ACK_CC sequence drives both to the same windows.
 */
#ifndef SMARTT_ALGO_UET_ACK_H
#define SMARTT_ALGO_UET_ACK_H

#include "algo_types.h"

/* Width of ACK_CC's NSCC rcvd_bytes field. */
#define UET_ACK_RCVD_BYTES_BITS		24
#define UET_ACK_RCVD_BYTES_MASK		((1U << UET_ACK_RCVD_BYTES_BITS) - 1)
/* ACK_CC's NSCC service_time at its largest: too long to tell. */
#define UET_ACK_SERVICE_TIME_MAX	0xffffU
/* The transport's service_time unit, ns (Documentation/protocol.rst). */
#define UET_ACK_SERVICE_UNIT_NS		1000U
/* Largest service-time unit accepted, ns (a 16-bit count then spans 65 s). */
#define UET_ACK_SERVICE_UNIT_MAX_NS	1000000U

/**
 * struct uet_ack_track - what a sender keeps to read successive ACK_CCs
 * @rcvd_bytes: rcvd_bytes of the last ACK_CC taken (24 bits)
 * @rcvd_total: every byte the receiver reported accepting so far
 */
struct uet_ack_track {
	u32 rcvd_bytes;
	u64 rcvd_total;
};

/**
 * struct uet_ack_cc - the fields of one ACK_CC the cores need, host order
 * @rcvd_bytes: NSCC rcvd_bytes (24 bits)
 * @service_time: NSCC service_time, in the service-time unit
 *	(%UET_ACK_SERVICE_TIME_MAX: too long to tell)
 * @m: PDS flag M: the acknowledged packet carried CE
 * @retx: PDS flag RETX: the acknowledged packet was a retransmission
 */
struct uet_ack_cc {
	u32 rcvd_bytes;
	u16 service_time;
	bool m;
	bool retx;
};

/**
 * struct uet_ack_tx - the sender's own record of the acknowledged PSN
 * @sent_ns: departure time of its last transmission (sender's clock, ns)
 * @tx_count: transmissions of it so far (1: never retransmitted; 0: the
 *	sender has no record of the PSN, e.g. it left the window)
 */
struct uet_ack_tx {
	u64 sent_ns;
	u32 tx_count;
};

void uet_ack_track_init(struct uet_ack_track *t);
u32 uet_ack_newly_rcvd(struct uet_ack_track *t, u32 rcvd_bytes);
u64 uet_ack_rtt(const struct uet_ack_cc *a, const struct uet_ack_tx *tx, u64 now,
		u32 service_unit_ns);

#endif /* SMARTT_ALGO_UET_ACK_H */
