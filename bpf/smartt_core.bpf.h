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

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#pragma clang attribute push (__attribute__((always_inline)), apply_to = function)
#pragma clang attribute push (__attribute__((internal_linkage)), apply_to = function)
#include "algo/knobs.c"
#include "algo/units.c"
#include "algo/smartt.c"
#include "algo/strack.c"
#pragma clang attribute pop
#pragma clang attribute pop
#pragma clang diagnostic pop

#endif /* SMARTT_CORE_BPF_H */
