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

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0) || \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#ifndef SMARTT_ALLOW_UNTESTED_KERNEL
#error "smartt is tested on Linux 6.1 to 6.12; build with SMARTT_ALLOW_UNTESTED_KERNEL=1 to try another kernel"
#endif
#endif

#ifndef SMARTT_HAVE_TCP_SND_CWND_SET
#error "smartt needs tcp_snd_cwnd_set() (Linux 5.18 or later)"
#endif

/* Sysctl tables: const from 6.11 on. */
#ifdef SMARTT_HAVE_CONST_CTL_TABLE
#define SMARTT_CTL_TABLE_CONST const
#else
#define SMARTT_CTL_TABLE_CONST
#endif

/* KUnit visibility helpers (kernel/tests/ reach static functions). */
#ifdef SMARTT_HAVE_KUNIT_VISIBILITY
#include <kunit/visibility.h>
#else
#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif

#endif /* SMARTT_COMPAT_H */
