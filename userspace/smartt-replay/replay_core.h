/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt-replay's calls into the algorithm cores and path selectors, one
 * table of them per backend: replay_core_c calls the C build directly
 * (replay.c), replay_core_bpf runs the cores compiled into BPF in the
 * kernel (replay_bpf.c, --bpf).  The driver makes every such call through
 * the table and prints its rows from the same struct replay either way.
 */
#ifndef SMARTT_REPLAY_CORE_H
#define SMARTT_REPLAY_CORE_H

#include <stddef.h>

#include "algo/smartt.h"
#include "algo/strack.h"
#include "algo/lb.h"
#include "algo/units.h"

/* The functions of kernel/algo/ that replay.c calls, by their own names. */
struct replay_core {
	int (*smartt_params_init)(struct smartt_params *p, const struct smartt_knobs *k);
	u64 (*smartt_maxwnd)(const struct smartt_params *p, u32 base_rtt);
	void (*smartt_init)(struct smartt_state *s, const struct smartt_params *p, u64 cwnd);
	u32 (*smartt_on_ack)(struct smartt_state *s, const struct smartt_params *p,
			     const struct smartt_event *e);
	u32 (*smartt_on_nack)(struct smartt_state *s, const struct smartt_params *p,
			      const struct smartt_event *e);
	u32 (*smartt_on_timeout)(struct smartt_state *s, const struct smartt_params *p,
				 const struct smartt_event *e);
	int (*strack_params_init)(struct strack_params *p, const struct strack_knobs *k);
	u64 (*strack_maxwnd)(const struct strack_params *p, u32 base_rtt);
	void (*strack_init)(struct strack_state *s, const struct strack_params *p, u64 cwnd);
	u32 (*strack_on_ack)(struct strack_state *s, const struct strack_params *p,
			     u64 now, u32 rtt, bool ecn, u32 bytes);
	u64 (*smartt_bdp_bytes)(u32 link_mbps, u64 rtt_ns);
	int (*smartt_lb_init)(struct smartt_lb *lb, const struct smartt_lb_knobs *k);
	u32 (*smartt_lb_next)(struct smartt_lb *lb, u64 cwnd_pkts, u32 bytes);
	void (*smartt_lb_feedback)(struct smartt_lb *lb, u64 now, u32 ev,
				   enum smartt_path_fb fb);
};

/* replay.c: the C build, called directly */
extern const struct replay_core replay_core_c;

/* replay_bpf.c: the BPF build, run with BPF_PROG_TEST_RUN */
extern const struct replay_core replay_core_bpf;

int replay_bpf_available(char *err, size_t errlen);
int replay_bpf_open(bool strack, u32 rules, u32 lb_kind, char *err, size_t errlen);
void replay_bpf_close(void);
u64 replay_bpf_runs(void);

#endif /* SMARTT_REPLAY_CORE_H */
