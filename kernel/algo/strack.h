/* SPDX-License-Identifier: GPL-2.0 */
/*
 * STrack congestion-control core: strack.txt Algorithm 4 (adjust_cwnd)
 * with Algorithm 2 (achieved BDP) and the Table 1 parameters scaled by
 * bdp_sf and delay_sf.  Pure C, no clock, no allocation.
 *
 * Units: time in ns, sizes in bytes, fractional knobs in ppm, derived gains
 * in Q.16.  The paper's window is in packets; here it is in bytes, and each
 * per-packet rule is applied per acked byte (x mtu x nb / cwnd), see
 * Documentation/cc-strack.rst.
 */
#ifndef SMARTT_ALGO_STRACK_H
#define SMARTT_ALGO_STRACK_H

#include "algo_types.h"
#include "fixed.h"
#include "smartt.h"

/**
 * struct strack_knobs - every tunable of the STrack core
 * @mtu: bytes per full packet; the minimum window
 * @link_mbps: sender link rate, Mbit/s
 * @base_rtt: initial base RTT, ns; 0 = @network_rtt
 * @network_rtt: net_base_rtt of the paper, ns (12000)
 * @learn_base_rtt: 1 = base RTT is the minimum sample
 * @target_qdelay: target queuing delay, ns; 0 = @network_rtt (Table 1)
 * @qhigh: target_Qhigh as a multiple of the target (3.0)
 * @ewma: weight of a sample in avg_delay (0.125)
 * @beta: additive increase, packets per RTT at the reference BDP (5)
 * @alpha: RTT-gain increase, packets per RTT per ref_rtt of headroom (4)
 * @eta: fairness shuffle, packets per base RTT at the reference BDP (0.15)
 * @gamma: multiplicative decrease gain (0.8)
 * @md_min: smallest MD factor (0.5)
 * @maxwnd: max_cwnd as a fraction of the path BDP (1.5)
 * @qa_gate: achievedBDP is used while it is < max_cwnd >> qa_gate (3)
 * @ref_bdp: reference BDP, bytes (100 Gb/s x 12 us = 150000)
 * @ref_rtt: reference RTT of delay_sf, ns (12000)
 * @scale_path: 1 = bdp_sf from the path BDP (base RTT), 0 = network BDP
 */
struct strack_knobs {
	u32 mtu;
	u32 link_mbps;
	u32 base_rtt;
	u32 network_rtt;
	u32 learn_base_rtt;
	u32 target_qdelay;
	u32 qhigh;
	u32 ewma;
	u32 beta;
	u32 alpha;
	u32 eta;
	u32 gamma;
	u32 md_min;
	u32 maxwnd;
	u32 qa_gate;
	u32 ref_bdp;
	u32 ref_rtt;
	u32 scale_path;
};

/**
 * struct strack_params - validated knobs and derived constants
 * @k: knobs
 * @base_rtt0: initial base RTT, ns
 * @target: target queuing delay, ns
 * @qhigh: target_Qhigh, ns
 * @beta_fp: beta (Q.16)
 * @alpha_fp: alpha (Q.16)
 * @eta_fp: eta (Q.16)
 * @maxwnd_fp: @k.maxwnd (Q.16)
 * @net_bdp: BDP at @k.network_rtt, bytes (the gains' scale without
 *	@k.scale_path)
 * @ewma_keep: 10^6 - @k.ewma, ppm (the average's own weight)
 * @ewma_ps: @k.ewma x 1000 (weight of a delay in ns, for ps)
 * @maxwnd_lb_k: floor(@k.link_mbps x @maxwnd_fp / 16000) (< 2^32): base
 *	RTT (ns) x @maxwnd_lb_k >> 15 - @maxwnd_lb_slack is below max_cwnd
 *	(smartt_maxwnd_above())
 * @maxwnd_lb_slack: (@maxwnd_fp >> 16) + 2, bytes
 */
struct strack_params {
	struct strack_knobs k;
	u32 base_rtt0;
	u32 target;
	u64 qhigh;
	u64 beta_fp;
	u64 alpha_fp;
	u64 eta_fp;
	u64 maxwnd_fp;
	u64 net_bdp;
	u32 ewma_keep;
	u32 ewma_ps;
	u64 maxwnd_lb_k;
	u64 maxwnd_lb_slack;
};

/**
 * struct strack_state - per-flow state (fits SMARTT_TCP_STATE_MAX)
 * @cwnd: window, bytes, in [mtu, max_cwnd]
 * @avg_delay: EWMA of the queuing delay, ps
 * @rx_count: bytes acked in the current achievedBDP window
 * @achieved: achievedBDP, bytes; U64_MAX until one window was measured
 * @rx_clear_ts: start of the current achievedBDP window, ns (0 = none)
 * @last_dec: last decrease, ns
 * @last_fair: last fairness shuffle, ns
 * @base_rtt: base RTT, ns
 */
struct strack_state {
	u64 cwnd;
	u64 avg_delay;
	u64 rx_count;
	u64 achieved;
	u64 rx_clear_ts;
	u64 last_dec;
	u64 last_fair;
	u32 base_rtt;
};

static_assert(SMARTT_FITS_TCP_PRIV(struct strack_state),
	      "struct strack_state must fit the TCP CC private area");

/* Rules that fired (bit mask returned by strack_on_ack()). */
#define STRACK_R_BETA		0x01	/* !ecn, delay > Qhigh: + beta / cwnd */
#define STRACK_R_ALPHA		0x02	/* !ecn, delay < target: RTT gain */
#define STRACK_R_ACHIEVED	0x04	/* cwnd = achievedBDP */
#define STRACK_R_MD		0x08	/* multiplicative decrease */
#define STRACK_R_HOLD		0x10	/* decrease wanted, not allowed yet */
#define STRACK_R_ETA		0x20	/* fairness shuffle */
#define STRACK_R_CLAMPED	0x40	/* bounds changed the window */

extern const struct strack_knobs strack_defaults;

int strack_knobs_validate(const struct strack_knobs *k);
int strack_params_init(struct strack_params *p, const struct strack_knobs *k);
u64 strack_maxwnd(const struct strack_params *p, u32 base_rtt);
void strack_init(struct strack_state *s, const struct strack_params *p, u64 cwnd);
u32 strack_on_ack(struct strack_state *s, const struct strack_params *p,
		  u64 now, u32 rtt, bool ecn, u32 bytes);
u32 strack_on_timeout(struct strack_state *s, const struct strack_params *p,
		      u32 bytes);

/*
 * The knob table of struct strack_knobs: the shared descriptor (knobs.h),
 * under the name its users already spell.
 */
#define strack_knob_desc	smartt_knob_desc

extern const struct strack_knob_desc strack_knob_descs[];
extern const unsigned int strack_knob_count;

int strack_knob_find(const char *name);
void strack_knob_set(struct strack_knobs *k, unsigned int i, u32 v);
u32 strack_knob_get(const struct strack_knobs *k, unsigned int i);

#endif /* SMARTT_ALGO_STRACK_H */
