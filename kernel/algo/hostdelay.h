/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's part of a TCP RTT sample, apart from the fabric's.
 *
 * The papers' and NSCC's delay signal is a fabric delay: NIC timestamps
 * that exclude both hosts.  TCP's RTT sample runs from the moment TCP
 * handed the segment down (its EDT departure time) to the moment the
 * sender's stack processed the ACK, so it also holds the sender's own
 * queue below TCP (qdisc, driver, NIC ring until TX completion), the
 * receiver's stack and the ACK's way back through both hosts.  Swift
 * (SIGCOMM 2020) splits the RTT into fabric and endpoint delay, measured
 * with NIC timestamps, and gives each a target of its own.  A congestion
 * control without NIC timestamps measures one part of the host delay:
 *
 *   the sender's own queue below TCP (sk_wmem_alloc: the bytes TCP
 *   handed down that nothing downstream has consumed yet) over the rate
 *   it drains at (the ACK's delivery rate, smartt_hd_local_ns());
 *
 * and knows of one receiver-side delay: an ACK the receiver may have
 * held for its delayed-ACK timer (TCP's FLAG_ACK_MAYBE_DELAYED: a runt
 * segment ACKed alone).  The rest of the hosts' delay (the receiver's
 * softirq, GRO flush and socket processing, interrupt moderation, the
 * ACK's way back and its wait in the sender's stack) is in the RTT
 * sample and looks like a fabric queue.  The host delay has a target of
 * its own (net.smartt.tcp_host_target_us): up to it, the queueing delay
 * of an ACK without CE marks is presumed the hosts', and of a CE-marked
 * ACK only the measured part (smartt_hd_fabric_rtt()); beyond it, host
 * delay is congestion to the core's rules like a fabric queue.  The
 * fabric target is each paper's rule, unchanged.
 * Documentation/tcp.rst, "Host and fabric delay".
 *
 * Pure C like the rest of kernel/algo/: used by the module's glue
 * (kernel/cc/cc_glue.c), the BPF builds (bpf/smartt_cc.bpf.h), the unit
 * tests and KUnit.
 */
#ifndef SMARTT_ALGO_HOSTDELAY_H
#define SMARTT_ALGO_HOSTDELAY_H

#include "algo_types.h"

/* Default host-delay target, us (net.smartt.tcp_host_target_us). */
#define SMARTT_HD_DEF_TARGET_US		50U
/* Largest host-delay target, us: 1 s, as the other RTT values. */
#define SMARTT_HD_TARGET_MAX_US		1000000U
/* Largest host delay reported, ns (1 s). */
#define SMARTT_HD_MAX_NS		1000000000U
/* Longest rate-sample interval used, us: longer ones say nothing of now. */
#define SMARTT_HD_INTERVAL_MAX_US	1000000U
/* Largest queue below TCP, bytes: sk_wmem_alloc is an int. */
#define SMARTT_HD_BYTES_MAX		0x7fffffffULL
/* Weight of a sample in the host-delay average: 1 / 2^3, as srtt's. */
#define SMARTT_HD_EWMA_SHIFT		3

/**
 * smartt_hd_local_ns() - how long the sender's own queue below TCP lasts
 * @bytes: bytes below TCP (sk_wmem_alloc less its bias of one: skb
 *	truesize, so a little more than the payload)
 * @delivered: packets the ACK's rate sample delivered (0: no sample)
 * @mss: bytes per packet
 * @interval_us: the rate sample's interval, us (0: no sample)
 * @pacing_rate: bytes per second, used without a rate sample (0: none)
 *
 * The queue drains at the rate the flow delivers: the delivery rate of
 * the ACK's sample, or the pacing rate when there is none.
 *
 * Return: ns, at most %SMARTT_HD_MAX_NS; 0 without a rate.
 */
static inline u32 smartt_hd_local_ns(u64 bytes, u32 delivered, u32 mss,
				     u32 interval_us, u64 pacing_rate)
{
	u64 ns;

	if (!bytes)
		return 0;
	bytes = min_t(u64, bytes, SMARTT_HD_BYTES_MAX);
	if (delivered && mss && interval_us) {
		/* < 2^31 x 2^20 x 2^10 = 2^61: no overflow */
		interval_us = min_t(u32, interval_us, SMARTT_HD_INTERVAL_MAX_US);
		ns = div64_u64(bytes * interval_us * 1000, (u64)delivered * mss);
	} else if (pacing_rate) {
		/* < 2^31 x 2^30 = 2^61 */
		ns = div64_u64(bytes * 1000000000ULL, pacing_rate);
	} else {
		return 0;
	}
	return min_t(u64, ns, SMARTT_HD_MAX_NS);
}

/* Flags of smartt_hd_fabric_rtt(). */
#define SMARTT_HD_F_DELAYED	0x1	/* the receiver may have held the ACK */
#define SMARTT_HD_F_CE		0x2	/* the ACK echoes CE marks */

/**
 * smartt_hd_fabric_rtt() - the RTT sample the core's fabric rules see
 * @rtt: TCP's RTT sample, ns (0: none)
 * @base_rtt: the flow's base RTT, ns
 * @host: the measured host delay of this ACK, ns (smartt_hd_local_ns())
 * @target: the host-delay target, ns; 0 = no split (the whole sample is
 *	the fabric's, as the papers have it)
 * @flags: SMARTT_HD_F_*
 *
 * The queueing part of the sample (above the base RTT) loses at most
 * @target: a host queue beyond its target stays in and is congestion to
 * the core's rules.  What it loses within @target:
 *
 *  - an unmarked ACK: all of it.  The hosts' stacks add delay the sender
 *    cannot measure (the receiver's processing, interrupt moderation, the
 *    ACK's way back), routinely tens to hundreds of us; without a mark
 *    nothing says the rest is a fabric queue, so delay up to the target
 *    is presumed the hosts';
 *  - an ACK with CE echoes: only the measured @host.  The mark proves a
 *    fabric queue, and the fabric's rules see all but the sender's own.
 *
 * Never below the base RTT, so the core's base RTT, the minimum of its
 * samples, is not lowered by the split.  An ACK the receiver may have
 * held for its delayed-ACK timer (up to 40 ms) gives no sample above the
 * base RTT: that delay is the receiver's timer, not a queue.
 *
 * Return: the fabric RTT, ns; 0 (no sample: the core uses its average
 * delay) for a delayed ACK's sample above the base RTT.
 */
static inline u32 smartt_hd_fabric_rtt(u32 rtt, u32 base_rtt, u32 host,
				       u32 target, u32 flags)
{
	u32 q;

	if (!rtt || !target || rtt <= base_rtt)
		return rtt;
	if (flags & SMARTT_HD_F_DELAYED)
		return 0;
	q = min_t(u32, rtt - base_rtt, target);
	if (flags & SMARTT_HD_F_CE)
		q = min_t(u32, q, host);
	return rtt - q;
}

/**
 * smartt_hd_avg() - the host-delay average shown by `smarttctl cc flows`
 * @avg: the average so far, ns (0: none yet)
 * @host: this ACK's host delay, ns
 *
 * Return: the new average: 7/8 of @avg plus 1/8 of @host (srtt's weight).
 */
static inline u32 smartt_hd_avg(u32 avg, u32 host)
{
	/* both <= 10^9 < 2^30: the sum fits */
	return avg - (avg >> SMARTT_HD_EWMA_SHIFT) + (host >> SMARTT_HD_EWMA_SHIFT);
}

#endif /* SMARTT_ALGO_HOSTDELAY_H */
