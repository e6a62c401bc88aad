// SPDX-License-Identifier: GPL-2.0
/*
 * STrack congestion-control core (strack.txt Algorithms 2 and 4, Table 1).
 * Documentation/cc-strack.rst describes each rule and knob.
 */
#include "strack.h"
#include "smartt.h"
#include "units.h"

#define SK(n, lo, hi, f, u) \
	SMARTT_KNOB_DESC(struct strack_knobs, #n, n, lo, hi, f, u)

const struct strack_knob_desc strack_knob_descs[] = {
	SK(mtu, SMARTT_MTU_MIN, SMARTT_MTU_MAX, false, "bytes"),
	SK(link_mbps, 1, SMARTT_LINK_MBPS_MAX, false, "Mbit/s"),
	SK(base_rtt, 0, SMARTT_RTT_MAX_NS, false, "ns"),
	SK(network_rtt, SMARTT_RTT_MIN_NS, SMARTT_RTT_MAX_NS, false, "ns"),
	SK(learn_base_rtt, 0, 1, false, "bool"),
	SK(target_qdelay, 0, SMARTT_RTT_MAX_NS, false, "ns"),
	SK(qhigh, SMARTT_PPM, SMARTT_FRAC_MAX, true, "fraction"),
	SK(ewma, 1, SMARTT_PPM, true, "fraction"),
	SK(beta, 0, SMARTT_FRAC_MAX, true, "fraction"),
	SK(alpha, 0, SMARTT_FRAC_MAX, true, "fraction"),
	SK(eta, 0, SMARTT_FRAC_MAX, true, "fraction"),
	SK(gamma, 0, SMARTT_PPM, true, "fraction"),
	SK(md_min, 0, SMARTT_PPM, true, "fraction"),
	SK(maxwnd, SMARTT_PPM / 100, SMARTT_FRAC_MAX, true, "fraction"),
	SK(qa_gate, 0, 32, false, "shift"),
	SK(ref_bdp, 1, U32_MAX, false, "bytes"),
	SK(ref_rtt, 1, SMARTT_RTT_MAX_NS, false, "ns"),
	SK(scale_path, 0, 1, false, "bool"),
};

const unsigned int strack_knob_count = ARRAY_SIZE(strack_knob_descs);

/* Table 1 on the paper's reference network (100 Gb/s, 12 us). */
const struct strack_knobs strack_defaults = {
	.mtu = 4096, .link_mbps = 100000, .network_rtt = 12000,
	.learn_base_rtt = 1, .qhigh = 3000000, .ewma = 125000,
	.beta = 5000000, .alpha = 4000000, .eta = 150000, .gamma = 800000,
	.md_min = 500000, .maxwnd = 1500000, .qa_gate = 3, .ref_bdp = 150000,
	.ref_rtt = 12000, .scale_path = 1,
};

/**
 * strack_knob_find() - index of a knob in strack_knob_descs[]
 * @name: documented name
 *
 * Return: the index or SMARTT_EINVAL.
 */
int strack_knob_find(const char *name)
{
	return smartt_knob_table_find(strack_knob_descs, strack_knob_count, name);
}

/**
 * strack_knob_get() - read a knob by index
 * @k: knobs
 * @i: index below strack_knob_count
 *
 * Return: the raw value.
 */
u32 strack_knob_get(const struct strack_knobs *k, unsigned int i)
{
	return smartt_knob_table_get(&strack_knob_descs[i], k);
}

/**
 * strack_knob_set() - write a knob by index, unvalidated
 * @k: knobs
 * @i: index below strack_knob_count
 * @v: raw value
 */
void strack_knob_set(struct strack_knobs *k, unsigned int i, u32 v)
{
	smartt_knob_table_set(&strack_knob_descs[i], k, v);
}

/**
 * strack_knobs_validate() - reject nonsense knob values
 * @k: knobs
 *
 * Return: 0 or SMARTT_EINVAL; nothing is clamped.
 */
int strack_knobs_validate(const struct strack_knobs *k)
{
	u32 rtt0;

	if (smartt_knob_table_check(strack_knob_descs, strack_knob_count, k))
		return SMARTT_EINVAL;
	if (k->base_rtt && k->base_rtt < SMARTT_RTT_MIN_NS)
		return SMARTT_EINVAL;
	rtt0 = k->base_rtt ? k->base_rtt : k->network_rtt;
	if (smartt_bdp_bytes(k->link_mbps, rtt0) > SMARTT_BDP_MAX ||
	    smartt_bdp_bytes(k->link_mbps, k->network_rtt) > SMARTT_BDP_MAX)
		return SMARTT_EINVAL;
	return 0;
}

static u64 strack_bdp(const struct strack_params *p, u32 base_rtt);

/**
 * strack_params_init() - validate knobs, derive constants
 * @p: parameters to fill
 * @k: knobs
 *
 * Return: 0 or SMARTT_EINVAL.
 */
int strack_params_init(struct strack_params *p, const struct strack_knobs *k)
{
	int err = strack_knobs_validate(k);

	if (err)
		return err;
	p->k = *k;
	p->base_rtt0 = k->base_rtt ? k->base_rtt : k->network_rtt;
	p->target = k->target_qdelay ? k->target_qdelay : k->network_rtt;
	/* target <= 1e9 and qhigh <= 64e6 ppm: no saturation. */
	p->qhigh = smartt_mul_ppm(p->target, k->qhigh);
	p->beta_fp = smartt_ppm_to_fp(k->beta);
	p->alpha_fp = smartt_ppm_to_fp(k->alpha);
	p->eta_fp = smartt_ppm_to_fp(k->eta);
	p->maxwnd_fp = smartt_ppm_to_fp(k->maxwnd);
	smartt_maxwnd_lb_init(&p->maxwnd_lb_k, &p->maxwnd_lb_slack,
			      k->link_mbps, p->maxwnd_fp);
	/* ewma is validated in [1, 10^6] */
	p->ewma_keep = SMARTT_PPM - k->ewma;
	p->ewma_ps = k->ewma * 1000;	/* <= 10^9 */
	p->net_bdp = strack_bdp(p, k->network_rtt);
	return 0;
}

/* link_mbps <= 1e7, base_rtt <= 1e9: the product is < 2^54. */
static u64 strack_bdp(const struct strack_params *p, u32 base_rtt)
{
	u64 bdp = div_u64((u64)p->k.link_mbps * base_rtt, SMARTT_MBPS_NS_PER_BYTE);

	return bdp ? bdp : 1;
}

/* strack_maxwnd() from an already computed BDP. */
static __always_inline u64 strack_maxwnd_bdp(const struct strack_params *p,
					     u64 bdp)
{
	u64 w = (bdp * p->maxwnd_fp) >> SMARTT_FP_SHIFT;

	return w > p->k.mtu ? w : p->k.mtu;
}

/**
 * strack_maxwnd() - max_cwnd at a base RTT
 * @p: parameters
 * @base_rtt: base RTT, ns
 *
 * Return: maxwnd (Q.16, <= 2^22) x path BDP (<= 2^34), at least one MTU.
 */
u64 strack_maxwnd(const struct strack_params *p, u32 base_rtt)
{
	u64 w = (strack_bdp(p, base_rtt) * p->maxwnd_fp) >> SMARTT_FP_SHIFT;

	return w > p->k.mtu ? w : p->k.mtu;
}

/**
 * strack_init() - start a flow
 * @s: state
 * @p: parameters
 * @cwnd: initial window, bytes; 0 = max_cwnd
 */
void strack_init(struct strack_state *s, const struct strack_params *p, u64 cwnd)
{
	u64 maxwnd = strack_maxwnd(p, p->base_rtt0);

	*s = (struct strack_state){ 0 };
	s->base_rtt = p->base_rtt0;
	s->achieved = U64_MAX;
	s->cwnd = cwnd ? clamp_t(u64, cwnd, p->k.mtu, maxwnd) : maxwnd;
}

/* Path BDP at the flow's base RTT, inline for the per-ACK rules. */
static __always_inline u64 strack_bdp_at(const struct strack_params *p,
					 u32 base_rtt)
{
	u64 bdp = div_u64((u64)p->k.link_mbps * base_rtt, SMARTT_MBPS_NS_PER_BYTE);

	return bdp ? bdp : 1;
}

/*
 * gain x bdp_sf, Q.16: gain_fp <= 2^22, BDP <= 2^34.  @bdp is the path
 * BDP at the flow's base RTT; without scale_path the network BDP is used.
 */
static __always_inline u64 strack_scaled(const struct strack_params *p,
					 u64 bdp, u64 gain_fp)
{
	if (!p->k.scale_path)
		bdp = p->net_bdp;
	return div_u64(smartt_sat_mul(gain_fp, bdp), p->k.ref_bdp);
}

/* Algorithm 2: bytes acked per (base_rtt + target_Qdelay) window. */
static __always_inline void strack_achieved(struct strack_state *s,
					    const struct strack_params *p,
					    u64 now, u32 bytes)
{
	if (unlikely(!s->rx_clear_ts))
		s->rx_clear_ts = now;
	s->rx_count = smartt_sat_add(s->rx_count, bytes);
	if (unlikely(now - s->rx_clear_ts > (u64)s->base_rtt + p->target)) {
		s->achieved = s->rx_count;
		s->rx_count = 0;
		s->rx_clear_ts = now;
	}
}

/*
 * Line 12-14: decrease on a high average delay, once the last one is more
 * than a base RTT old (the caller checks that: HOLD otherwise).
 */
static noinline u32 strack_decrease(struct strack_state *s,
				    const struct strack_params *p,
				    u64 now, u64 delay, u64 bdp)
{
	u64 avg = s->avg_delay, t_ps = (u64)p->target * 1000, cut, f;

	s->last_dec = now;
	if (delay > p->qhigh &&
	    s->achieved < strack_maxwnd_bdp(p, bdp) >> p->k.qa_gate) {
		s->cwnd = s->achieved;
		return STRACK_R_ACHIEVED;
	}
	/* gamma <= 1e6, avg - t < 2^42 ps: product < 2^62 */
	cut = div64_u64((u64)p->k.gamma * (avg - t_ps), avg);
	f = SMARTT_PPM - min_t(u64, cut, SMARTT_PPM);
	s->cwnd = smartt_mul_ppm(s->cwnd, (u32)max_t(u64, f, p->k.md_min));
	return STRACK_R_MD;
}

/* The window bounds after strack_shuffle_bound()'s shuffle. */
static __always_inline u32 strack_bound(struct strack_state *s,
					const struct strack_params *p,
					u64 bdp, u32 r)
{
	u64 maxwnd;

	if (s->cwnd < p->k.mtu) {
		s->cwnd = p->k.mtu;
		return r | STRACK_R_CLAMPED;
	}
	maxwnd = strack_maxwnd_bdp(p, bdp);
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		r |= STRACK_R_CLAMPED;
	}
	return r;
}

/* strack_shuffle_bound() where the shuffle's product saturates. */
static noinline u32 strack_shuffle_sat(struct strack_state *s,
				       const struct strack_params *p,
				       u64 now, u64 bdp, u32 r)
{
	s->cwnd += smartt_mul_fp(strack_scaled(p, bdp, p->eta_fp), p->k.mtu);
	s->last_fair = now;
	return strack_bound(s, p, bdp, r | STRACK_R_ETA);
}

/*
 * Fairness shuffle (eta per base RTT), then the window bounds.  Without
 * saturation; strack_shuffle_sat() where a product does not fit (nothing
 * is written before).
 */
static noinline u32 strack_shuffle_bound(struct strack_state *s,
					 const struct strack_params *p,
					 u64 now, u64 bdp, u32 r)
{
	u64 x;

	if (now - s->last_fair > s->base_rtt) {
		/* strack_scaled() */
		if (unlikely(smartt_mul_overflow(p->eta_fp, p->k.scale_path ?
						 bdp : p->net_bdp, &x)))
			return strack_shuffle_sat(s, p, now, bdp, r);
		x = div_u64(x, p->k.ref_bdp);
		if (unlikely(smartt_mul_overflow(x, (u64)p->k.mtu, &x)))
			return strack_shuffle_sat(s, p, now, bdp, r);
		s->cwnd += x >> SMARTT_FP_SHIFT;
		s->last_fair = now;
		r |= STRACK_R_ETA;
	}
	return strack_bound(s, p, bdp, r);
}

/* Everything after the base RTT and the queuing delay of one ACK. */
static __always_inline u32 strack_ack(struct strack_state *s,
				      const struct strack_params *p,
				      u64 now, bool ecn, u32 bytes, u64 delay)
{
	u64 num, bdp, t = p->target, mb = (u64)p->k.mtu * bytes;
	u32 r = 0, base = s->base_rtt;

	strack_achieved(s, p, now, bytes);
	/*
	 * ps: delay x 1000 < 2^42, x ppm < 2^62; ewma_ps = ewma x 1000,
	 * ewma_keep = 10^6 - ewma
	 */
	s->avg_delay = div_u64(delay * p->ewma_ps +
			       s->avg_delay * p->ewma_keep, SMARTT_PPM);
	bdp = strack_bdp_at(p, base);

	if (!ecn && delay > p->qhigh) {
		num = smartt_mul_fp(strack_scaled(p, bdp, p->beta_fp), mb);
		s->cwnd += div64_u64(num, s->cwnd);
		r = STRACK_R_BETA;
	} else if (!ecn && delay < t) {
		num = smartt_mul_fp(strack_scaled(p, bdp, p->alpha_fp),
				    smartt_sat_mul(mb, t - delay));
		s->cwnd += div64_u64(div_u64(num, p->k.ref_rtt), s->cwnd);
		r = STRACK_R_ALPHA;
	} else if (s->avg_delay > t * 1000 && delay > t) {
		if (now - s->last_dec <= base)
			r = STRACK_R_HOLD;
		else
			r = strack_decrease(s, p, now, delay, bdp);
	}
	if (unlikely(now - s->last_fair > base) || s->cwnd < p->k.mtu)
		return strack_shuffle_bound(s, p, now, bdp, r);
	if (s->cwnd > strack_maxwnd_bdp(p, bdp)) {
		s->cwnd = strack_maxwnd_bdp(p, bdp);
		r |= STRACK_R_CLAMPED;
	}
	return r;
}

/* An ACK below the base RTT (learns it, or uses the average delay). */
static noinline u32 strack_ack_learn(struct strack_state *s,
				     const struct strack_params *p,
				     u64 now, u32 rtt, bool ecn, u32 bytes)
{
	u64 delay;

	if (rtt && p->k.learn_base_rtt)
		s->base_rtt = rtt;
	delay = rtt >= s->base_rtt ? rtt - s->base_rtt :
		div_u64(s->avg_delay, 1000);
	return strack_ack(s, p, now, ecn, bytes, delay);
}

/*
 * The common ACK, a sample at or above the base RTT, in parts: the rules
 * are tail-called from strack_on_ack() and end in strack_end(), so that
 * the checks every ACK runs need no saved registers.
 */

/* The shuffle check and the bounds after rule(s) @r of the common ACK. */
static __always_inline u32 strack_end(struct strack_state *s,
				      const struct strack_params *p,
				      u64 now, u32 r)
{
	u64 maxwnd;

	if (unlikely(now - s->last_fair > s->base_rtt) || s->cwnd < p->k.mtu)
		return strack_shuffle_bound(s, p, now,
					    strack_bdp_at(p, s->base_rtt), r);
	if (likely(!smartt_maxwnd_above(s->cwnd, s->base_rtt, p->maxwnd_lb_k,
					p->maxwnd_lb_slack)))
		return r;
	maxwnd = strack_maxwnd(p, s->base_rtt);
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		r |= STRACK_R_CLAMPED;
	}
	return r;
}

/* strack_inc() where a product saturates. */
static noinline u32 strack_inc_sat(struct strack_state *s,
				   const struct strack_params *p, u64 now,
				   u64 gain_fp, u64 x, u32 r)
{
	u64 num = smartt_mul_fp(strack_scaled(p, strack_bdp_at(p, s->base_rtt),
					      gain_fp), x);

	if (r == STRACK_R_ALPHA)
		num = div_u64(num, p->k.ref_rtt);
	s->cwnd += div64_u64(num, s->cwnd);
	return strack_end(s, p, now, r);
}

/*
 * BETA (@r, @x = mtu x bytes) or ALPHA (@r, @x = mtu x bytes x (target -
 * delay)): cwnd += gain x bdp_sf x x (/ ref_rtt for ALPHA) / cwnd, then
 * the end.  Without saturation; strack_inc_sat() where a product does not
 * fit (nothing is written before).
 */
static __always_inline u32 strack_inc(struct strack_state *s,
				      const struct strack_params *p, u64 now,
				      u64 gain_fp, u64 x, const u32 r)
{
	u64 bdp = strack_bdp_at(p, s->base_rtt), maxwnd, g;

	/* strack_scaled() */
	if (unlikely(smartt_mul_overflow(gain_fp, p->k.scale_path ? bdp :
					 p->net_bdp, &g)))
		return strack_inc_sat(s, p, now, gain_fp, x, r);
	g = div_u64(g, p->k.ref_bdp);
	if (unlikely(smartt_mul_overflow(g, x, &g)))
		return strack_inc_sat(s, p, now, gain_fp, x, r);
	g >>= SMARTT_FP_SHIFT;
	if (r == STRACK_R_ALPHA)
		g = div_u64(g, p->k.ref_rtt);
	s->cwnd += div64_u64(g, s->cwnd);
	if (unlikely(now - s->last_fair > s->base_rtt) || s->cwnd < p->k.mtu)
		return strack_shuffle_bound(s, p, now, bdp, r);
	maxwnd = strack_maxwnd_bdp(p, bdp);
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		return r | STRACK_R_CLAMPED;
	}
	return r;
}

/* strack_end() with the BDP at the flow's base RTT already computed. */
static __always_inline u32 strack_end_bdp(struct strack_state *s,
					  const struct strack_params *p,
					  u64 now, u64 bdp, u32 r)
{
	u64 maxwnd;

	if (unlikely(now - s->last_fair > s->base_rtt) || s->cwnd < p->k.mtu)
		return strack_shuffle_bound(s, p, now, bdp, r);
	maxwnd = strack_maxwnd_bdp(p, bdp);
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		r |= STRACK_R_CLAMPED;
	}
	return r;
}

/* strack_dec() where the MD's product does not fit in 64 bits. */
static noinline u32 strack_dec_sat(struct strack_state *s,
				   const struct strack_params *p, u64 now,
				   u32 delay)
{
	u64 bdp = strack_bdp_at(p, s->base_rtt);

	return strack_end_bdp(s, p, now, bdp,
			      strack_decrease(s, p, now, delay, bdp));
}

/*
 * The decrease of the common ACK (strack_decrease()), then the end.
 * Without saturation; strack_dec_sat() where the MD's product does not
 * fit (nothing is written before).
 */
static noinline u32 strack_dec(struct strack_state *s,
			       const struct strack_params *p, u64 now,
			       u32 delay)
{
	u64 bdp = strack_bdp_at(p, s->base_rtt), avg = s->avg_delay, x;
	u32 f;

	if (delay > p->qhigh &&
	    s->achieved < strack_maxwnd_bdp(p, bdp) >> p->k.qa_gate) {
		s->last_dec = now;
		s->cwnd = s->achieved;
		return strack_end_bdp(s, p, now, bdp, STRACK_R_ACHIEVED);
	}
	/* gamma <= 1e6, avg - t < 2^42 ps: product < 2^62 */
	x = div64_u64((u64)p->k.gamma * (avg - (u64)p->target * 1000), avg);
	f = SMARTT_PPM - (u32)min_t(u64, x, SMARTT_PPM);
	f = max_t(u32, f, p->k.md_min);
	/* smartt_mul_ppm() */
	if (unlikely(smartt_mul_overflow(s->cwnd, (u64)f, &x)))
		return strack_dec_sat(s, p, now, delay);
	s->last_dec = now;
	s->cwnd = div_u64(x, SMARTT_PPM);
	return strack_end_bdp(s, p, now, bdp, STRACK_R_MD);
}

/*
 * Line 12-14 for the common ACK: a decrease when the average and the
 * ACK's delay are above the target, held within a base RTT of the last.
 */
static __always_inline u32 strack_dec_check(struct strack_state *s,
					    const struct strack_params *p,
					    u64 now, u32 delay)
{
	u64 t = p->target;

	if (s->avg_delay > t * 1000 && delay > t) {
		if (now - s->last_dec > s->base_rtt)
			return strack_dec(s, p, now, delay);
		return strack_end(s, p, now, STRACK_R_HOLD);
	}
	return strack_end(s, p, now, 0);
}

/*
 * The common ACK's achievedBDP window and delay average (as strack_ack()),
 * queuing delay @delay.
 */
static __always_inline void strack_common(struct strack_state *s,
					  const struct strack_params *p,
					  u64 now, u32 delay, u32 bytes)
{
	strack_achieved(s, p, now, bytes);
	s->avg_delay = div_u64((u64)delay * p->ewma_ps +
			       s->avg_delay * p->ewma_keep, SMARTT_PPM);
}

/* The common ACK without ECN: BETA, ALPHA, or as with ECN. */
static noinline u32 strack_noecn(struct strack_state *s,
				 const struct strack_params *p, u64 now,
				 u32 delay, u32 bytes)
{
	u64 t = p->target, x;

	strack_common(s, p, now, delay, bytes);
	if (delay > p->qhigh)
		return strack_inc(s, p, now, p->beta_fp, (u64)p->k.mtu * bytes,
				  STRACK_R_BETA);
	if (delay < t) {
		/* mtu x bytes < 2^48, target - delay < 2^30 */
		if (unlikely(smartt_mul_overflow((u64)p->k.mtu * bytes,
						 t - delay, &x)))
			x = U64_MAX;
		return strack_inc(s, p, now, p->alpha_fp, x, STRACK_R_ALPHA);
	}
	return strack_dec_check(s, p, now, delay);
}

/* The common ACK with ECN: a decrease (or its hold) or nothing. */
static noinline u32 strack_ecn(struct strack_state *s,
			       const struct strack_params *p, u64 now,
			       u32 delay, u32 bytes)
{
	strack_common(s, p, now, delay, bytes);
	return strack_dec_check(s, p, now, delay);
}

/**
 * strack_on_ack() - Algorithm 1 lines 5-14 for one ACK
 * @s: state
 * @p: parameters
 * @now: time, ns
 * @rtt: RTT sample, ns (0 = none: the average delay is used)
 * @ecn: the ACK echoed ECN-CE
 * @bytes: newly acked bytes
 *
 * Per-packet rules of the paper (window in packets) become per-byte rules
 * in bytes: cwnd_pkts += x / cwnd_pkts per packet is cwnd += x x mtu x
 * bytes / cwnd.  bdp_sf = BDP / ref_bdp; delay_sf = base_rtt / ref_rtt
 * cancels the 1 / base_rtt of alpha, leaving alpha x bdp_sf / ref_rtt.
 *
 * Return: STRACK_R_* bits of the rules that fired.
 */
u32 strack_on_ack(struct strack_state *s, const struct strack_params *p,
		  u64 now, u32 rtt, bool ecn, u32 bytes)
{
	/* the common ACK: a sample at or above the base RTT keeps it */
	if (unlikely(rtt < s->base_rtt))
		return strack_ack_learn(s, p, now, rtt, ecn, bytes);
	if (ecn)
		return strack_ecn(s, p, now, rtt - s->base_rtt, bytes);
	return strack_noecn(s, p, now, rtt - s->base_rtt, bytes);
}

/**
 * strack_on_timeout() - a retransmission timeout declared a packet lost
 * @s: state
 * @p: parameters
 * @bytes: the lost packet's size
 *
 * The paper gives the window no reaction to a timeout (its loss recovery
 * retransmits within the window).  This follows STrack's descendant NSCC
 * in uet-htsim (reference-semantics 2.5): cwnd -= size, at least one MTU.
 * The TCP glue does not call it (TCP's own loss recovery runs there).
 *
 * Return: STRACK_R_CLAMPED when the window hit its lower bound, else 0.
 */
u32 strack_on_timeout(struct strack_state *s, const struct strack_params *p,
		      u32 bytes)
{
	if (s->cwnd < (u64)p->k.mtu + bytes) {
		s->cwnd = p->k.mtu;
		return STRACK_R_CLAMPED;
	}
	s->cwnd -= bytes;
	return 0;
}
