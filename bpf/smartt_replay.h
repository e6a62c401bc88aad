/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt-replay --bpf: what the programs of smartt_replay.bpf.c and their
 * caller (userspace/smartt-replay/replay_bpf.c) share.  Built into BPF
 * (after vmlinux.h) and into hosted C; the layouts are the same on both
 * sides (LP64, little endian), which the caller checks against
 * smartt_replay_layout[] before the first call.
 */
#ifndef SMARTT_REPLAY_H
#define SMARTT_REPLAY_H

#include "algo/smartt.h"
#include "algo/strack.h"
#include "algo/lb.h"
#include "algo/units.h"

/**
 * struct smartt_replay_io - the arguments and results of one call into the
 * cores: the programs' .bss, mmapped by the caller, which writes a call's
 * inputs, runs the call's program with BPF_PROG_TEST_RUN and reads the
 * outputs back
 * @sk: smartt_params_init()'s knobs
 * @sp: SMaRTT parameters
 * @ss: SMaRTT state
 * @se: the event of smartt_on_ack(), smartt_on_nack(), smartt_on_timeout()
 * @tk: strack_params_init()'s knobs
 * @tp: STrack parameters
 * @ts: STrack state
 * @lk: smartt_lb_init()'s knobs
 * @lb: path selector state
 * @now: strack_on_ack(), smartt_lb_feedback(): time, ns
 * @cwnd: smartt_init(), strack_init(): initial window, bytes
 * @cwnd_pkts: smartt_lb_next(): window, packets
 * @rtt_ns: smartt_bdp_bytes(): RTT, ns
 * @rtt: strack_on_ack(): RTT sample, ns
 * @bytes: strack_on_ack(), smartt_lb_next(): bytes
 * @base_rtt: smartt_maxwnd(), strack_maxwnd(): base RTT, ns
 * @link_mbps: smartt_bdp_bytes(): link rate, Mbit/s
 * @ev: smartt_lb_feedback(): entropy
 * @fb: smartt_lb_feedback(): enum smartt_path_fb
 * @ecn: strack_on_ack(): ECN-CE echoed (0 or 1)
 * @pad: zero
 * @ret: the call's return value, widened to 64 bits (an int sign-extended)
 * @runs: calls completed, counted by the programs
 */
struct smartt_replay_io {
	struct smartt_knobs sk;
	struct smartt_params sp;
	struct smartt_state ss;
	struct smartt_event se;
	struct strack_knobs tk;
	struct strack_params tp;
	struct strack_state ts;
	struct smartt_lb_knobs lk;
	struct smartt_lb lb;
	u64 now;
	u64 cwnd;
	u64 cwnd_pkts;
	u64 rtt_ns;
	u32 rtt;
	u32 bytes;
	u32 base_rtt;
	u32 link_mbps;
	u32 ev;
	u32 fb;
	u32 ecn;
	u32 pad;
	u64 ret;
	u64 runs;
};

/*
 * Sizes and places the two builds must agree on, compiled on both sides:
 * the programs keep theirs in .rodata (smartt_replay_layout[]).
 */
#define SMARTT_REPLAY_OFF(m)	((u32)__builtin_offsetof(struct smartt_replay_io, m))
#define SMARTT_REPLAY_LAYOUT {						\
	sizeof(struct smartt_replay_io),				\
	sizeof(struct smartt_knobs), sizeof(struct smartt_params),	\
	sizeof(struct smartt_state), sizeof(struct smartt_event),	\
	sizeof(struct strack_knobs), sizeof(struct strack_params),	\
	sizeof(struct strack_state), sizeof(struct smartt_lb_knobs),	\
	sizeof(struct smartt_lb),					\
	SMARTT_REPLAY_OFF(sp), SMARTT_REPLAY_OFF(ss),			\
	SMARTT_REPLAY_OFF(se), SMARTT_REPLAY_OFF(tk),			\
	SMARTT_REPLAY_OFF(tp), SMARTT_REPLAY_OFF(ts),			\
	SMARTT_REPLAY_OFF(lk), SMARTT_REPLAY_OFF(lb),			\
	SMARTT_REPLAY_OFF(now), SMARTT_REPLAY_OFF(ret),			\
	(u32)__builtin_offsetof(struct smartt_state, fi_word),		\
	(u32)__builtin_offsetof(struct smartt_state, base_rtt),		\
	(u32)__builtin_offsetof(struct smartt_event, ecn),		\
	(u32)__builtin_offsetof(struct smartt_lb, u),			\
}

/*
 * A digest of kernel/algo/'s sources (bpf/Makefile, replay_bpf.mk): the
 * programs keep theirs in smartt_replay_algo[], the caller compares it with
 * its own, so that both builds of the cores come from the same sources.
 */
#ifndef SMARTT_REPLAY_ALGO
#define SMARTT_REPLAY_ALGO	"unknown"
#endif

/* Program return values (the BPF_PROG_TEST_RUN retval) */
#define SMARTT_REPLAY_OK	0
#define SMARTT_REPLAY_BAD_SPEC	1	/* io differs from the load-time rules or selector */

#endif /* SMARTT_REPLAY_H */
