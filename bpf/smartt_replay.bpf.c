// SPDX-License-Identifier: GPL-2.0
/*
 * smartt-replay --bpf: the algorithm cores and path selectors of
 * kernel/algo/, compiled into BPF as the struct_ops congestion controls
 * compile them (smartt_core.bpf.h), one BPF_PROG_TYPE_SYSCALL program per
 * call the replayer makes.  The caller (userspace/smartt-replay/
 * replay_bpf.c) writes a call's inputs into io, runs the call's program
 * with BPF_PROG_TEST_RUN and reads the outputs back, so that every window,
 * rule and entropy smartt-replay prints comes from the kernel running the
 * BPF build.  Documentation/testing.rst.
 *
 * Every pointer the cores are given points into io, a map value: the
 * verifier refuses an instruction that loads through a map pointer on one
 * path and a context pointer on another.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "smartt_core.bpf.h"
#include "smartt_lb.bpf.h"
#include "smartt_replay.h"

char LICENSE[] SEC("license") = "GPL";

struct smartt_replay_io io;

const u32 smartt_replay_layout[] = SMARTT_REPLAY_LAYOUT;
const char smartt_replay_algo[] = SMARTT_REPLAY_ALGO;

/*
 * Set by the caller before loading: the SMaRTT rule family of the flow and
 * its path selector.  The per-event programs check that io holds them; the
 * verifier, which knows read-only data, then skips the code of the other
 * families and selectors, which makes loading several times faster.
 */
const volatile u32 replay_rules;
const volatile u32 replay_lb_kind;

SEC("syscall")
int replay_smartt_params_init(void *ctx)
{
	io.ret = (u64)(s64)smartt_params_init(&io.sp, &io.sk);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_smartt_maxwnd(void *ctx)
{
	io.ret = smartt_maxwnd(&io.sp, io.base_rtt);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_smartt_init(void *ctx)
{
	smartt_init(&io.ss, &io.sp, io.cwnd);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_smartt_on_ack(void *ctx)
{
	if (io.sp.k.rules != replay_rules)
		return SMARTT_REPLAY_BAD_SPEC;
	io.ret = smartt_on_ack(&io.ss, &io.sp, &io.se);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_smartt_on_nack(void *ctx)
{
	if (io.sp.k.rules != replay_rules)
		return SMARTT_REPLAY_BAD_SPEC;
	io.ret = smartt_on_nack(&io.ss, &io.sp, &io.se);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_smartt_on_timeout(void *ctx)
{
	if (io.sp.k.rules != replay_rules)
		return SMARTT_REPLAY_BAD_SPEC;
	io.ret = smartt_on_timeout(&io.ss, &io.sp, &io.se);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_strack_params_init(void *ctx)
{
	io.ret = (u64)(s64)strack_params_init(&io.tp, &io.tk);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_strack_maxwnd(void *ctx)
{
	io.ret = strack_maxwnd(&io.tp, io.base_rtt);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_strack_init(void *ctx)
{
	strack_init(&io.ts, &io.tp, io.cwnd);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_strack_on_ack(void *ctx)
{
	io.ret = strack_on_ack(&io.ts, &io.tp, io.now, io.rtt, io.ecn, io.bytes);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_bdp_bytes(void *ctx)
{
	io.ret = smartt_bdp_bytes(io.link_mbps, io.rtt_ns);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_lb_init(void *ctx)
{
	io.ret = (u64)(s64)smartt_lb_init(&io.lb, &io.lk);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_lb_next(void *ctx)
{
	if (io.lb.k.kind != replay_lb_kind)
		return SMARTT_REPLAY_BAD_SPEC;
	io.ret = smartt_lb_next(&io.lb, io.cwnd_pkts, io.bytes);
	io.runs++;
	return SMARTT_REPLAY_OK;
}

SEC("syscall")
int replay_lb_feedback(void *ctx)
{
	if (io.lb.k.kind != replay_lb_kind)
		return SMARTT_REPLAY_BAD_SPEC;
	smartt_lb_feedback(&io.lb, io.now, io.ev, (enum smartt_path_fb)io.fb);
	io.runs++;
	return SMARTT_REPLAY_OK;
}
