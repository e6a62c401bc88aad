// SPDX-License-Identifier: GPL-2.0
/*
 * The congestion-control inputs of a UET ACK_CC with NSCC state
 * (uet_ack.h).
 */
#include "uet_ack.h"

/**
 * uet_ack_track_init() - a sender's ACK_CC state for a new PDC
 * @t: state to initialise
 *
 * The receiver's count starts at 0 with the PDC, so the first ACK_CC's
 * rcvd_bytes is all new.
 */
void uet_ack_track_init(struct uet_ack_track *t)
{
	t->rcvd_bytes = 0;
	t->rcvd_total = 0;
}

/**
 * uet_ack_newly_rcvd() - bytes the receiver accepted since the last ACK_CC
 * @t: the sender's state for the PDC
 * @rcvd_bytes: the ACK_CC's rcvd_bytes (only its low 24 bits are read)
 *
 * The count wraps at 2^24.  A difference of half the range or more is an
 * ACK_CC older than one already taken (ACKs are sprayed and overtake each
 * other): it tells nothing new, gives 0 and leaves @t alone, as the
 * reference takes a negative difference as 0.  So a receiver has to
 * acknowledge at least every 8 MiB, which it does (its ACK byte threshold
 * is at most 1 MiB).
 *
 * Return: the newly received bytes, 0 for a stale or repeated ACK_CC.
 */
u32 uet_ack_newly_rcvd(struct uet_ack_track *t, u32 rcvd_bytes)
{
	u32 d = (rcvd_bytes - t->rcvd_bytes) & UET_ACK_RCVD_BYTES_MASK;

	if (d >= 1U << (UET_ACK_RCVD_BYTES_BITS - 1))
		return 0;
	t->rcvd_bytes = rcvd_bytes & UET_ACK_RCVD_BYTES_MASK;
	t->rcvd_total += d;
	return d;
}

/**
 * uet_ack_rtt() - the RTT sample an ACK_CC gives
 * @a: the ACK_CC's fields
 * @tx: the sender's record of the acknowledged PSN
 * @now: the ACK's arrival, sender's clock, ns
 * @service_unit_ns: the unit of @a->service_time in ns (1 to
 *	%UET_ACK_SERVICE_UNIT_MAX_NS), or 0 to ignore the service time (a
 *	receiver that does not measure it)
 *
 * A sample is taken only when the ACK answers the transmission that was
 * timed: the PSN was sent once and the ACK's RETX is clear, or it was sent
 * exactly twice and RETX is set (the reference's rule; a later
 * retransmission, or a RETX that does not match, is ambiguous).  The
 * sender's interval from the departure to the ACK's arrival, less the
 * receiver's service time, is the fabric's round trip without the
 * receiver's delay.  A saturated service time, a service time as long as
 * the interval (the clocks disagree) or a PSN the sender has no record of
 * gives no sample.
 *
 * Return: the RTT in ns, or 0 for no sample.
 */
u64 uet_ack_rtt(const struct uet_ack_cc *a, const struct uet_ack_tx *tx, u64 now,
		u32 service_unit_ns)
{
	u64 raw, svc;

	if (!tx->tx_count || now <= tx->sent_ns)
		return 0;
	if (!((tx->tx_count == 1 && !a->retx) || (tx->tx_count == 2 && a->retx)))
		return 0;
	if (service_unit_ns > UET_ACK_SERVICE_UNIT_MAX_NS)
		return 0;
	raw = now - tx->sent_ns;
	if (!service_unit_ns)
		return raw;
	if (a->service_time >= UET_ACK_SERVICE_TIME_MAX)
		return 0;
	svc = (u64)a->service_time * service_unit_ns;
	if (svc >= raw)
		return 0;
	return raw - svc;
}
