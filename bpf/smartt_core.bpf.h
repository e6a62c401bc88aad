/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The algorithm cores of kernel/algo/ compiled into a BPF program: the
 * struct_ops congestion controls (tcp_smartt.bpf.c, tcp_strack.bpf.c) and
 * smartt-replay --bpf include this after vmlinux.h and bpf_helpers.h.
 *
 * Every function of the cores is made always_inline and internal here:
 * BPF calls take five arguments at most and some of the cores' helpers
 * take six, and a function with external linkage would be emitted (and
 * verified) on its own.  Inlined, each is verified in its caller's
 * context.  The cores' files are the module's, unchanged.
 */
#ifndef SMARTT_CORE_BPF_H
#define SMARTT_CORE_BPF_H

/* Around an #include of kernel/algo/ sources (also smartt_lb.bpf.h's). */
#define SMARTT_BPF_ALGO_BEGIN						\
	_Pragma("clang diagnostic push")				\
	_Pragma("clang diagnostic ignored \"-Wunused-function\"")	\
	_Pragma("clang attribute push (__attribute__((always_inline)), apply_to = function)") \
	_Pragma("clang attribute push (__attribute__((internal_linkage)), apply_to = function)")
#define SMARTT_BPF_ALGO_END						\
	_Pragma("clang attribute pop")					\
	_Pragma("clang attribute pop")					\
	_Pragma("clang diagnostic pop")

SMARTT_BPF_ALGO_BEGIN
#include "algo/knobs.c"
#include "algo/units.c"
#include "algo/smartt.c"
#include "algo/strack.c"
SMARTT_BPF_ALGO_END

#endif /* SMARTT_CORE_BPF_H */
