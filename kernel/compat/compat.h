/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compatibility layer, force-included into every file of smartt.ko.
 *
 * Core code never compares kernel versions: it uses the SMARTT_HAVE_*
 * capability macros that kernel/compat/probe.sh derives from the target
 * kernel's headers, and the wrappers below.  See Documentation/compat.rst.
 */
#ifndef SMARTT_COMPAT_H
#define SMARTT_COMPAT_H

/*
 * The tested range (6.1 to 6.12) is enforced by Kbuild, which knows the
 * target's VERSION and PATCHLEVEL; see Documentation/compat.rst.
 */

#ifndef SMARTT_HAVE_TCP_SND_CWND_SET
#error "smartt needs tcp_snd_cwnd_set() (Linux 5.18 or later)"
#endif

/* The transport's packets end with a CRC32C: crc32c() of libcrc32c. */
#if !IS_ENABLED(CONFIG_LIBCRC32C)
#error "smartt needs CONFIG_LIBCRC32C (the CRC32C trailer of its packets)"
#endif

/* Sysctl tables: const from 6.11 on. */
#ifdef SMARTT_HAVE_CONST_CTL_TABLE
#define SMARTT_CTL_TABLE_CONST const
#else
#define SMARTT_CTL_TABLE_CONST
#endif

/* Sysctl registration: explicit table size from 6.5 on. */
#ifdef SMARTT_HAVE_REGISTER_NET_SYSCTL_SZ
#define smartt_register_net_sysctl(net, path, table, n) \
	register_net_sysctl_sz(net, path, table, n)
#else
#define smartt_register_net_sysctl(net, path, table, n) \
	({ (void)(n); register_net_sysctl(net, path, table); })
#endif

/* __tcp_send_ack(): a flags argument from 6.10 on. */
#ifdef SMARTT_HAVE_TCP_SEND_ACK_FLAGS
#define smartt_tcp_send_ack(sk, rcv_nxt)	__tcp_send_ack(sk, rcv_nxt, 0)
#else
#define smartt_tcp_send_ack(sk, rcv_nxt)	__tcp_send_ack(sk, rcv_nxt)
#endif

/* KUnit visibility helper (kernel/tests/ reach static functions). */
#ifdef SMARTT_HAVE_KUNIT_VISIBILITY
#include <kunit/visibility.h>
#else
#define VISIBLE_IF_KUNIT static
#endif

#endif /* SMARTT_COMPAT_H */
