/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Units and conversions shared by the algorithm cores.
 *
 * Time is in nanoseconds (u64), sizes in bytes, link rates in Mbit/s (u32).
 */
#ifndef SMARTT_ALGO_UNITS_H
#define SMARTT_ALGO_UNITS_H

#include "algo_types.h"

/* Largest link rate the cores accept: 10 Tbit/s, in Mbit/s. */
#define SMARTT_LINK_MBPS_MAX	10000000U
/* Largest RTT the cores accept: 1 s, in ns. */
#define SMARTT_RTT_NS_MAX	1000000000ULL

/* Mbit/s * ns / SMARTT_MBPS_NS_PER_BYTE = bytes (1e6 bit/s * 1e-9 s / 8). */
#define SMARTT_MBPS_NS_PER_BYTE	8000U

u64 smartt_bdp_bytes(u32 link_mbps, u64 rtt_ns);

#endif /* SMARTT_ALGO_UNITS_H */
