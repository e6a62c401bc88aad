/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CRP reservation core (kernel/algo/crp.c) compiled into the switch
 * port program: smartt_port.bpf.c includes this after vmlinux.h and
 * bpf_helpers.h, before anything that includes algo/crp.h.
 *
 * As in smartt_core.bpf.h, every function of the core is made
 * always_inline and internal: the port calls the core with its table's
 * spin lock held, and a BPF-to-BPF call is not allowed there on the
 * kernels the port supports (6.1).  Its global variables are made internal
 * too, so that the knob table the port does not use (pointers to strings,
 * which libbpf cannot relocate in .rodata) is left out.  The core's file
 * is the module's, unchanged.
 */
#ifndef SMARTT_CRP_CORE_BPF_H
#define SMARTT_CRP_CORE_BPF_H

_Pragma("clang diagnostic push")
_Pragma("clang diagnostic ignored \"-Wunused-function\"")
_Pragma("clang attribute push (__attribute__((always_inline)), apply_to = function)")
_Pragma("clang attribute push (__attribute__((internal_linkage)), apply_to = any(function, variable(is_global)))")
#include "algo/knobs.c"
#include "algo/crp.c"
_Pragma("clang attribute pop")
_Pragma("clang attribute pop")
_Pragma("clang diagnostic pop")

#endif /* SMARTT_CRP_CORE_BPF_H */
