/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * smartt: SMaRTT/STrack congestion control and REPS multipath transport.
 *
 * User-space API.  Everything here is shared by the module, the userspace
 * tools and the BPF programs; it only uses fixed-size __u types with explicit
 * padding so that the layout is the same on every ABI.
 */
#ifndef _UAPI_LINUX_SMARTT_H
#define _UAPI_LINUX_SMARTT_H

#include <linux/types.h>

/**
 * IPPROTO_SMARTT - protocol number of the smartt datagram transport.
 *
 * Taken from the experimental range of RFC 3692; the transport itself is
 * carried over UDP, this number only selects the socket type in socket(2).
 */
#define IPPROTO_SMARTT		253

/** SMARTT_UDP_PORT_DEFAULT - UDP port of the encapsulation (UEC's port). */
#define SMARTT_UDP_PORT_DEFAULT	4793

#endif /* _UAPI_LINUX_SMARTT_H */
