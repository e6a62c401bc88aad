// SPDX-License-Identifier: GPL-2.0
/*
 * DCTCP-style congestion-control core (RFC 8257 section 3.3, with the
 * decrease of tcp_dctcp.c), for the transport's cc "dctcp".
 * Documentation/transport.rst, "Congestion control", describes each rule.
 */
#include "dctcp.h"

/* Largest max_cwnd: 1 TiB, so that cwnd x DCTCP_ALPHA_ONE fits a u64. */
#define DCTCP_CWND_MAX		0x10000000000ULL

/**
 * dctcp_params_validate() - are these constants usable?
 * @p: the constants
 *
 * Return: 0, or SMARTT_EINVAL for a zero MSS, a window bound below the
 * MSS or above 1 TiB, an initial window outside [mss, max_cwnd], g_shift
 * above %DCTCP_G_SHIFT_MAX or alpha_init above %DCTCP_ALPHA_ONE.  Nothing
 * is clamped.
 */
int dctcp_params_validate(const struct dctcp_params *p)
{
	if (!p->mss || p->max_cwnd < p->mss || p->max_cwnd > DCTCP_CWND_MAX ||
	    p->init_cwnd < p->mss || p->init_cwnd > p->max_cwnd ||
	    p->g_shift > DCTCP_G_SHIFT_MAX || p->alpha_init > DCTCP_ALPHA_ONE)
		return SMARTT_EINVAL;
	return 0;
}

/**
 * dctcp_params_default() - RFC 8257's constants for one flow
 * @p: set
 * @mss: payload bytes of a full packet (at least 1)
 * @max_cwnd: the window's bound, bytes (raised to @mss if below)
 *
 * g = 1/16, alpha starts at 1.0 (the first mark halves the window, as
 * tcp_dctcp.c's default), initial window %DCTCP_INIT_MSS MSS or
 * @max_cwnd if smaller.
 */
void dctcp_params_default(struct dctcp_params *p, u32 mss, u64 max_cwnd)
{
	p->mss = mss ? mss : 1;
	p->max_cwnd = clamp_t(u64, max_cwnd, p->mss, DCTCP_CWND_MAX);
	p->init_cwnd = min_t(u64, (u64)p->mss * DCTCP_INIT_MSS, p->max_cwnd);
	p->g_shift = DCTCP_G_SHIFT_DEF;
	p->alpha_init = DCTCP_ALPHA_ONE;
}

/**
 * dctcp_init() - a flow starts
 * @s: state, set
 * @p: validated constants
 */
void dctcp_init(struct dctcp_state *s, const struct dctcp_params *p)
{
	s->cwnd = p->init_cwnd;
	s->ssthresh = U64_MAX;
	s->win = s->cwnd;
	s->acked = 0;
	s->marked = 0;
	s->ai = 0;
	s->alpha = p->alpha_init;
	s->reduced = 0;
}

/* Keep the window in [mss, max_cwnd]; DCTCP_R_CLAMPED if it moved. */
static u32 dctcp_clamp(struct dctcp_state *s, const struct dctcp_params *p)
{
	u64 c = clamp_t(u64, s->cwnd, p->mss, p->max_cwnd);

	if (c == s->cwnd)
		return 0;
	s->cwnd = c;
	return DCTCP_R_CLAMPED;
}

/*
 * A window's worth of bytes was acknowledged: alpha = (1 - g) alpha + g F,
 * F the window's marked fraction (tcp_dctcp.c's dctcp_update_alpha(): the
 * decay takes all of a small alpha, so alpha can reach 0).  Then a new
 * window begins at the current cwnd.  @acked > 0; @marked <= @acked <=
 * 2^41, so @marked << 10 fits.
 */
static void dctcp_window_end(struct dctcp_state *s, const struct dctcp_params *p)
{
	u32 g = p->g_shift;
	u32 dec = s->alpha >> g;
	u64 add = div64_u64(s->marked << (10 - g), s->acked);

	s->alpha -= dec ? dec : s->alpha;
	s->alpha = min_t(u64, s->alpha + add, DCTCP_ALPHA_ONE);
	s->win = s->cwnd;
	s->acked = 0;
	s->marked = 0;
	s->reduced = 0;
}

/**
 * dctcp_on_ack() - an ACK acknowledged bytes, or a NACK came
 * @s: state
 * @p: validated constants
 * @bytes: bytes newly acknowledged, or the trimmed packet's (NACK)
 * @ecn: the ACK echoed CE
 * @nack: a NACK: a mark for its @bytes
 *
 * The bytes count towards the current window (and as marked with @ecn
 * or @nack); a window's worth ends it and updates alpha.  The first
 * marked sample of a window cuts cwnd by cwnd x alpha / 2 (alpha as the
 * last window left it), sets ssthresh there, and no sample increases the
 * window until that window ends.  Otherwise an unmarked sample grows the
 * window: by @bytes below ssthresh (slow start), else by one MSS for
 * every cwnd bytes acknowledged (one MSS per round trip).
 *
 * Return: the rules that fired (DCTCP_R_*).
 */
u32 dctcp_on_ack(struct dctcp_state *s, const struct dctcp_params *p,
		 u32 bytes, bool ecn, bool nack)
{
	bool mark = ecn || nack;
	u32 rules = 0;

	s->acked += bytes;
	if (mark)
		s->marked += bytes;
	if (s->acked >= s->win) {
		dctcp_window_end(s, p);
		rules |= DCTCP_R_ALPHA;
	}
	if (mark) {
		if (!s->reduced) {
			/* cwnd <= 2^40 and alpha <= 2^10: the product fits */
			s->cwnd -= (s->cwnd * s->alpha) >> 11;
			rules |= DCTCP_R_MD | dctcp_clamp(s, p);
			s->ssthresh = s->cwnd;
			s->ai = 0;
			s->reduced = 1;
		}
		return rules;
	}
	if (s->reduced)
		return rules;
	if (s->cwnd < s->ssthresh) {
		s->cwnd += bytes;
		rules |= DCTCP_R_SS;
	} else {
		s->ai += bytes;
		if (s->ai >= s->cwnd) {
			s->ai -= s->cwnd;
			s->cwnd += p->mss;
			rules |= DCTCP_R_AI;
		}
	}
	return rules | dctcp_clamp(s, p);
}

/**
 * dctcp_on_timeout() - the retransmission timer expired
 * @s: state
 * @p: validated constants
 *
 * ssthresh = max(cwnd / 2, 2 MSS) (RFC 5681), cwnd = one MSS, and a new
 * window begins; alpha is kept.
 *
 * Return: %DCTCP_R_TIMEOUT.
 */
u32 dctcp_on_timeout(struct dctcp_state *s, const struct dctcp_params *p)
{
	s->ssthresh = max_t(u64, s->cwnd / 2, 2ULL * p->mss);
	s->cwnd = p->mss;
	s->win = s->cwnd;
	s->acked = 0;
	s->marked = 0;
	s->ai = 0;
	s->reduced = 0;
	return DCTCP_R_TIMEOUT;
}
