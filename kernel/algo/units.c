// SPDX-License-Identifier: GPL-2.0
/*
 * Units and conversions shared by the algorithm cores.
 */
#include "units.h"

/**
 * smartt_bdp_bytes() - bandwidth-delay product of a link
 * @link_mbps: link rate in Mbit/s, at most %SMARTT_LINK_MBPS_MAX
 * @rtt_ns: round-trip time in ns, at most %SMARTT_RTT_NS_MAX
 *
 * Cannot overflow: with both inputs at their maximum the product is
 * 1e7 * 1e9 = 1e16 < 2^64.  Callers validate their inputs against the
 * limits; out-of-range inputs return 0 so that a bug shows up as an
 * impossible window rather than as a wrapped one.
 *
 * Return: bytes in flight that fill the link for one RTT, rounded down,
 * or 0 if an input is out of range.
 */
u64 smartt_bdp_bytes(u32 link_mbps, u64 rtt_ns)
{
	if (link_mbps > SMARTT_LINK_MBPS_MAX || rtt_ns > SMARTT_RTT_NS_MAX)
		return 0;
	return div_u64((u64)link_mbps * rtt_ns, SMARTT_MBPS_NS_PER_BYTE);
}
