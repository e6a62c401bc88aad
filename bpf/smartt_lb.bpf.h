/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path selectors of kernel/algo/ (lb.c: reps, reps-single,
 * strack-bitmap, oblivious, ecmp) compiled into a BPF program, the same
 * way as the cores in smartt_core.bpf.h: every function always_inline and
 * internal.  Include it after smartt_core.bpf.h.
 *
 * A header of its own, not part of smartt_core.bpf.h: the selectors' const
 * tables (smartt_lb_defaults, smartt_lb_knob_descs, ...) become .rodata
 * variables of every object that includes them, and so members of its
 * skeleton, which the congestion controls' loader could not compile.
 */
#ifndef SMARTT_LB_BPF_H
#define SMARTT_LB_BPF_H

#include "smartt_core.bpf.h"

SMARTT_BPF_ALGO_BEGIN
#include "algo/reps.c"
#include "algo/path_bitmap.c"
#include "algo/lb.c"
SMARTT_BPF_ALGO_END

#endif /* SMARTT_LB_BPF_H */
