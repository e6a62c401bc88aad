/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCTCP-style congestion-control core (RFC 8257): an ECN-only control for
 * the transport, the comparison CRP's paper makes.  alpha is an EWMA
 * (gain 1 / 2^g_shift) of the fraction of acknowledged bytes whose ACK
 * echoed CE, updated once per window; the first mark of a window cuts the
 * window by alpha / 2, at most once per window; a window without a mark
 * grows by one MSS (slow start below ssthresh: by the bytes acknowledged).
 * A NACK (a trimmed packet) counts as a mark for its bytes; a timeout
 * leaves one MSS.  Pure C, no clock, no allocation, no floating point.
 *
 * Units: sizes in bytes, alpha in 1 / %DCTCP_ALPHA_ONE.
 * Documentation/transport.rst, "Congestion control".
 */
#ifndef SMARTT_ALGO_DCTCP_H
#define SMARTT_ALGO_DCTCP_H

#include "algo_types.h"

/* alpha's unit: 1.0 (tcp_dctcp.c's DCTCP_MAX_ALPHA) */
#define DCTCP_ALPHA_ONE		1024U
/* RFC 8257's g = 1/16 */
#define DCTCP_G_SHIFT_DEF	4U
/* Largest g_shift: g = 1/1024 */
#define DCTCP_G_SHIFT_MAX	10U
/* Initial window, in MSS (RFC 6928's IW10) */
#define DCTCP_INIT_MSS		10U

/**
 * struct dctcp_params - the constants of one flow's control
 * @mss: payload bytes of a full packet: the window's floor and its
 *	additive increase (at least 1)
 * @init_cwnd: initial window, bytes, in [@mss, @max_cwnd]
 * @max_cwnd: largest window, bytes (at least @mss)
 * @g_shift: alpha's EWMA gain g = 1 / 2^@g_shift, 0 to %DCTCP_G_SHIFT_MAX
 * @alpha_init: initial alpha, 0 to %DCTCP_ALPHA_ONE (tcp_dctcp.c: 1.0)
 */
struct dctcp_params {
	u32 mss;
	u64 init_cwnd;
	u64 max_cwnd;
	u32 g_shift;
	u32 alpha_init;
};

/**
 * struct dctcp_state - per-flow state
 * @cwnd: window, bytes, in [mss, max_cwnd]
 * @ssthresh: slow start below this, bytes (U64_MAX: until the first mark)
 * @win: bytes to acknowledge before the current window ends (the window
 *	when it began, at least mss)
 * @acked: bytes acknowledged (or NACKed) in the current window
 * @marked: of those, bytes whose ACK echoed CE, or NACKed
 * @ai: bytes acknowledged towards the next additive increase (one MSS per
 *	window's worth of bytes)
 * @alpha: fraction of marked bytes, EWMA, in 1 / %DCTCP_ALPHA_ONE
 * @reduced: the window was cut in the current window already
 */
struct dctcp_state {
	u64 cwnd;
	u64 ssthresh;
	u64 win;
	u64 acked;
	u64 marked;
	u64 ai;
	u32 alpha;
	u32 reduced;
};

/* Rules that fired (bit mask returned by dctcp_on_ack()). */
#define DCTCP_R_SS		0x01	/* slow start: + bytes acknowledged */
#define DCTCP_R_AI		0x02	/* additive increase: + one MSS */
#define DCTCP_R_MD		0x04	/* cut by alpha / 2 (first mark of a window) */
#define DCTCP_R_ALPHA		0x08	/* a window ended: alpha updated */
#define DCTCP_R_CLAMPED		0x10	/* the bounds changed the window */
#define DCTCP_R_TIMEOUT		0x20	/* timeout: one MSS */

int dctcp_params_validate(const struct dctcp_params *p);
void dctcp_params_default(struct dctcp_params *p, u32 mss, u64 max_cwnd);
void dctcp_init(struct dctcp_state *s, const struct dctcp_params *p);
u32 dctcp_on_ack(struct dctcp_state *s, const struct dctcp_params *p,
		 u32 bytes, bool ecn, bool nack);
u32 dctcp_on_timeout(struct dctcp_state *s, const struct dctcp_params *p);

#endif /* SMARTT_ALGO_DCTCP_H */
