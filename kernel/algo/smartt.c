// SPDX-License-Identifier: GPL-2.0
/*
 * SMaRTT congestion-control core: per-ACK, per-NACK and per-timeout rules
 * of the three profiles smartt-2024, smartt and nscc.
 *
 * Specification: ../shared/papers/smartt-reps-2024.txt (Algorithms 1-3),
 * smartt-uec-nscc.txt (Algorithms 1-4), design/reference-semantics.md
 * section 2 (nscc) and section 3 (how the 2024 authors' code tuned it).
 * Documentation/cc-smartt.rst lists every rule and every choice between a
 * paper and the reference code.
 */
#include "smartt.h"
#include "units.h"

#define SMARTT_PS_PER_NS	1000U

#define KNOB(n, lo, hi, f, u) \
	SMARTT_KNOB_DESC(struct smartt_knobs, #n, n, lo, hi, f, u)
#define BOOLK(n)	KNOB(n, 0, 1, false, "bool")
#define FRACK(n, lo)	KNOB(n, lo, SMARTT_FRAC_MAX, true, "fraction")

/* Name, place and range of every knob (validation uses the same table). */
const struct smartt_knob_desc smartt_knob_descs[] = {
	KNOB(rules, 0, SMARTT_RULES_NSCC, false, "enum"),
	KNOB(mtu, SMARTT_MTU_MIN, SMARTT_MTU_MAX, false, "bytes"),
	KNOB(hdr_bytes, 0, SMARTT_MTU_MAX - 1, false, "bytes"),
	KNOB(link_mbps, 1, SMARTT_LINK_MBPS_MAX, false, "Mbit/s"),
	KNOB(base_rtt, 0, SMARTT_RTT_MAX_NS, false, "ns"),
	KNOB(network_rtt, SMARTT_RTT_MIN_NS, SMARTT_RTT_MAX_NS, false, "ns"),
	BOOLK(learn_base_rtt),
	BOOLK(trimming),
	KNOB(ref_bdp, 1, U32_MAX, false, "bytes"),
	KNOB(ref_rtt, 1, SMARTT_RTT_MAX_NS, false, "ns"),
	FRACK(trtt, SMARTT_PPM + SMARTT_PPM / 100),
	KNOB(target_qdelay, 0, SMARTT_RTT_MAX_NS, false, "ns"),
	BOOLK(trtt_abs),
	FRACK(maxwnd, SMARTT_PPM / 100),
	FRACK(md, 0),
	KNOB(md_min, 0, SMARTT_PPM, true, "fraction"),
	FRACK(md_no_trim, 0),
	FRACK(fd, 0),
	FRACK(fi, 0),
	FRACK(pi, 0),
	FRACK(eta, 0),
	FRACK(fast_k, 0),
	KNOB(fast_delay, 0, SMARTT_RTT_MAX_NS, false, "ns"),
	BOOLK(fast_inc),
	BOOLK(wtd_enable),
	KNOB(wtd_alpha, 1, SMARTT_PPM, true, "fraction"),
	KNOB(wtd_threshold, 0, SMARTT_PPM, true, "fraction"),
	BOOLK(qa),
	FRACK(qa_scaling, 1),
	BOOLK(qa_on_timeout),
	KNOB(qa_delay_mode, 0, SMARTT_QA_DELAY_ALWAYS, false, "enum"),
	FRACK(qa_delay, 0),
	KNOB(qa_gate, 0, 32, false, "shift"),
	BOOLK(qa_gate_cwnd),
	BOOLK(qa_inclusive),
	BOOLK(ignore_ecn_only),
	KNOB(delay_ewma, 1, SMARTT_PPM, true, "fraction"),
	KNOB(adjust_acks, 1, U16_MAX, false, "ACKs"),
	KNOB(adjust_period, 0, SMARTT_RTT_MAX_NS, false, "ns"),
	KNOB(adjust_bytes, 0, U32_MAX, false, "bytes"),
	BOOLK(adjust_rtt),
};

const unsigned int smartt_knob_count = ARRAY_SIZE(smartt_knob_descs);

/* Knobs common to every profile: the 100 Gb/s x 12 us reference network. */
#define SMARTT_COMMON \
	.link_mbps = 100000, .network_rtt = 12000, .learn_base_rtt = 1, \
	.trimming = 1, .ref_bdp = 150000, .ref_rtt = 12000, \
	.trtt = 1500000, .md_min = 500000, .md_no_trim = 2000000, \
	.fast_delay = 1000, .fast_inc = 1, .wtd_alpha = 50000, \
	.wtd_threshold = 250000, .qa = 1, .qa_delay = 4000000, .qa_gate = 3, \
	.adjust_acks = 1

const struct smartt_knobs smartt_profiles[SMARTT_PROFILE_COUNT] = {
	[SMARTT_PROFILE_2024] = {
		SMARTT_COMMON,
		.rules = SMARTT_RULES_2024, .mtu = 4096,
		.maxwnd = 1250000, .md = 2000000, .fd = 800000,
		.fi = 250000, .fast_k = 2000000, .wtd_enable = 1,
		.qa_scaling = 800000, .qa_on_timeout = 1,
		.qa_delay_mode = SMARTT_QA_DELAY_NEVER, .qa_gate_cwnd = 1,
		.delay_ewma = 125000,
	},
	[SMARTT_PROFILE_SMARTT] = {
		SMARTT_COMMON,
		.rules = SMARTT_RULES_RTT, .mtu = 4096,
		.maxwnd = 1500000, .md = 800000, .fi = 250000,
		.fast_k = 2000000, .qa_scaling = 1000000,
		.qa_delay_mode = SMARTT_QA_DELAY_NO_TRIM, .qa_gate_cwnd = 1,
		.qa_inclusive = 1, .delay_ewma = 125000,
	},
	[SMARTT_PROFILE_NSCC] = {
		SMARTT_COMMON,
		.rules = SMARTT_RULES_NSCC, .mtu = 4160, .hdr_bytes = 64,
		.maxwnd = 1500000, .md = 800000, .fi = 5000000,
		.pi = 4000000, .eta = 150000, .fast_k = 250000,
		.qa_scaling = 1000000, .qa_delay_mode = SMARTT_QA_DELAY_ALWAYS,
		.ignore_ecn_only = 1, .delay_ewma = 12500,
	},
};

const char *const smartt_profile_names[SMARTT_PROFILE_COUNT] = {
	[SMARTT_PROFILE_2024] = "smartt-2024",
	[SMARTT_PROFILE_SMARTT] = "smartt",
	[SMARTT_PROFILE_NSCC] = "nscc",
};

/**
 * smartt_profile_by_name() - look a profile up by its name
 * @name: "smartt-2024", "smartt" or "nscc"
 *
 * Return: the enum smartt_profile_id, or SMARTT_EINVAL.
 */
int smartt_profile_by_name(const char *name)
{
	int i;

	for (i = 0; i < SMARTT_PROFILE_COUNT; i++)
		if (smartt_knob_streq(name, smartt_profile_names[i]))
			return i;
	return SMARTT_EINVAL;
}

/**
 * smartt_knob_find() - index of a knob in smartt_knob_descs[]
 * @name: the knob's documented name
 *
 * Return: the index, or SMARTT_EINVAL for an unknown name.
 */
int smartt_knob_find(const char *name)
{
	return smartt_knob_table_find(smartt_knob_descs, smartt_knob_count, name);
}

/**
 * smartt_knob_get() - read a knob by index
 * @k: knobs
 * @i: index in smartt_knob_descs[], below smartt_knob_count
 *
 * Return: the raw value (ppm for fractions).
 */
u32 smartt_knob_get(const struct smartt_knobs *k, unsigned int i)
{
	return smartt_knob_table_get(&smartt_knob_descs[i], k);
}

/**
 * smartt_knob_set() - write a knob by index, unvalidated
 * @k: knobs
 * @i: index in smartt_knob_descs[], below smartt_knob_count
 * @v: raw value; smartt_knobs_validate() judges it later
 */
void smartt_knob_set(struct smartt_knobs *k, unsigned int i, u32 v)
{
	smartt_knob_table_set(&smartt_knob_descs[i], k, v);
}

/**
 * smartt_bdp() - path BDP at a base RTT
 * @p: parameters
 * @base_rtt: base RTT, ns (at most the validated initial base RTT)
 *
 * link_mbps <= 1e7 and base_rtt <= 1e9 (validated; a learned base RTT only
 * shrinks), so the product is < 2^54.
 *
 * Return: link rate x @base_rtt in bytes, at least 1 so that it can divide.
 */
u64 smartt_bdp(const struct smartt_params *p, u32 base_rtt)
{
	u64 bdp = div_u64((u64)p->k.link_mbps * base_rtt, SMARTT_MBPS_NS_PER_BYTE);

	return bdp ? bdp : 1;
}

/**
 * smartt_maxwnd() - upper window bound at a base RTT
 * @p: parameters
 * @base_rtt: base RTT, ns
 *
 * Return: maxwnd x BDP (Q.16 factor: BDP <= 2^34, factor <= 2^22), never
 * below one MTU.
 */
u64 smartt_maxwnd(const struct smartt_params *p, u32 base_rtt)
{
	u64 w = (smartt_bdp(p, base_rtt) * p->maxwnd_fp) >> SMARTT_FP_SHIFT;

	return w > p->k.mtu ? w : p->k.mtu;
}

/**
 * smartt_knobs_validate() - reject nonsense knob values
 * @k: knobs
 *
 * Every knob must be within its documented range and the combination must
 * be meaningful (header smaller than the MTU, BDPs within %SMARTT_BDP_MAX,
 * MD gains of the RTT/NSCC rules at most 1).  Nothing is clamped.
 *
 * Return: 0 or SMARTT_EINVAL.
 */
int smartt_knobs_validate(const struct smartt_knobs *k)
{
	u32 rtt0;

	if (smartt_knob_table_check(smartt_knob_descs, smartt_knob_count, k))
		return SMARTT_EINVAL;
	if (k->hdr_bytes >= k->mtu)
		return SMARTT_EINVAL;
	if (k->base_rtt && k->base_rtt < SMARTT_RTT_MIN_NS)
		return SMARTT_EINVAL;
	rtt0 = k->base_rtt ? k->base_rtt : k->network_rtt;
	if (smartt_bdp_bytes(k->link_mbps, rtt0) > SMARTT_BDP_MAX ||
	    smartt_bdp_bytes(k->link_mbps, k->network_rtt) > SMARTT_BDP_MAX)
		return SMARTT_EINVAL;
	if (k->rules != SMARTT_RULES_2024 && k->md > SMARTT_PPM)
		return SMARTT_EINVAL;
	return 0;
}

/**
 * smartt_params_init() - validate knobs and derive the per-connection gains
 * @p: parameters to fill
 * @k: knobs
 *
 * nscc (reference-semantics.md 2.1): sf_a = network BDP / ref_bdp;
 * fi = fi x MSS x sf_a bytes; alpha = pi x MSS x sf_a / ref_rtt bytes per
 * ns of headroom (the reference's 4 MSS sf_a sf_b / target with
 * sf_b = target / 12 us, which cancels the target); eta = eta x MSS x sf_a;
 * FastIncrease gain = fast_k x sf_a.  MSS x sf_a <= 2^16 x 2^33 in Q.16,
 * so every product below stays under 2^64.
 *
 * Return: 0 or SMARTT_EINVAL.
 */
int smartt_params_init(struct smartt_params *p, const struct smartt_knobs *k)
{
	u64 sf_a_fp, mss_sf_fp;
	int err = smartt_knobs_validate(k);

	if (err)
		return err;
	p->k = *k;
	p->base_rtt0 = k->base_rtt ? k->base_rtt : k->network_rtt;
	p->net_bdp = smartt_bdp_bytes(k->link_mbps, k->network_rtt);
	p->maxwnd_fp = smartt_ppm_to_fp(k->maxwnd);
	smartt_maxwnd_lb_init(&p->maxwnd_lb_k, &p->maxwnd_lb_slack,
			      k->link_mbps, p->maxwnd_fp);
	p->qa_scaling_fp = smartt_ppm_to_fp(k->qa_scaling);
	p->target_qdelay = k->target_qdelay;
	if (!p->target_qdelay)
		p->target_qdelay = k->trimming ?
			(u32)smartt_mul_ppm(k->network_rtt, 750000) :
			k->network_rtt;
	/* trtt = base x trtt_fp + trtt_add: a ratio or base + target_qdelay */
	p->trtt_fp = k->trtt_abs ? 1U << SMARTT_FP_SHIFT : smartt_ppm_to_fp(k->trtt);
	p->trtt_add = k->trtt_abs ? p->target_qdelay : 0;
	/* QuickAdapt window: trtt, or base_rtt + target_qdelay for nscc */
	p->qa_win_fp = k->rules == SMARTT_RULES_NSCC ? 1U << SMARTT_FP_SHIFT :
		       p->trtt_fp;
	p->qa_win_add = (k->rules == SMARTT_RULES_NSCC ? p->target_qdelay :
			 p->trtt_add) + !k->qa_inclusive;
	p->adjust_period = k->adjust_period;
	p->adjust_bytes = k->adjust_bytes;
	/* delay_ewma and wtd_alpha are validated in [1, 10^6] */
	p->ewma_keep = SMARTT_PPM - k->delay_ewma;
	p->ewma_ps = k->delay_ewma * SMARTT_PS_PER_NS;	/* <= 10^9 */
	p->wtd_keep = SMARTT_PPM - k->wtd_alpha;
	p->eta = 0;
	p->fast_bytes = 0;
	p->fast_fp = 0;
	p->md_fp = 0;
	p->fd_fp = 0;
	p->qa_delay = 0;

	if (k->rules == SMARTT_RULES_NSCC) {
		if (!p->adjust_period)
			p->adjust_period = k->network_rtt;
		if (!p->adjust_bytes)
			p->adjust_bytes = 8 * k->mtu;
		/* net_bdp <= 2^34: the shift stays below 2^50. */
		sf_a_fp = div_u64(p->net_bdp << SMARTT_FP_SHIFT, k->ref_bdp);
		mss_sf_fp = (u64)(k->mtu - k->hdr_bytes) * sf_a_fp;
		p->fi_fp = smartt_mul_ppm(mss_sf_fp, k->fi);
		p->pi_fp = div_u64(smartt_mul_ppm(mss_sf_fp, k->pi), k->ref_rtt);
		p->eta = smartt_mul_ppm(mss_sf_fp, k->eta) >> SMARTT_FP_SHIFT;
		p->fast_fp = smartt_mul_ppm(sf_a_fp, k->fast_k);
		p->qa_delay = smartt_mul_ppm(p->target_qdelay, k->qa_delay);
		return 0;
	}
	p->fi_fp = smartt_ppm_to_fp(k->fi);
	/* pi = brtt / (trtt - brtt); trtt > 1 is validated. */
	p->pi_fp = k->pi ? smartt_ppm_to_fp(k->pi) :
		div_u64((u64)SMARTT_PPM << SMARTT_FP_SHIFT, k->trtt - SMARTT_PPM);
	p->md_fp = smartt_ppm_to_fp(k->md);
	if (!k->trimming)
		p->md_fp = smartt_mul_ppm(p->md_fp, k->md_no_trim);
	p->fd_fp = smartt_ppm_to_fp(k->fd);
	p->fast_bytes = smartt_mul_ppm(k->mtu, k->fast_k);
	return 0;
}

/**
 * smartt_init() - start a flow
 * @s: state
 * @p: parameters from smartt_params_init()
 * @cwnd: initial window, bytes; 0 = the upper bound (the reference starts
 *	at 1.5 BDP, no slow start).  Clamped into [mtu, maxwnd] like every
 *	window the core produces.
 */
void smartt_init(struct smartt_state *s, const struct smartt_params *p, u64 cwnd)
{
	u64 maxwnd = smartt_maxwnd(p, p->base_rtt0);

	*s = (struct smartt_state){ 0 };
	s->base_rtt = p->base_rtt0;
	s->cwnd = cwnd ? clamp_t(u64, cwnd, p->k.mtu, maxwnd) : maxwnd;
}

/* Path BDP at a base RTT, inline for the per-ACK rules (see smartt_bdp()). */
static __always_inline u64 smartt_bdp_at(const struct smartt_params *p,
					 u32 base_rtt)
{
	u64 bdp = div_u64((u64)p->k.link_mbps * base_rtt, SMARTT_MBPS_NS_PER_BYTE);

	return bdp ? bdp : 1;
}

/* smartt_maxwnd() from an already computed BDP. */
static __always_inline u64 smartt_maxwnd_bdp(const struct smartt_params *p,
					     u64 bdp)
{
	u64 w = (bdp * p->maxwnd_fp) >> SMARTT_FP_SHIFT;

	return w > p->k.mtu ? w : p->k.mtu;
}

/* Clamp cwnd into [mtu, maxwnd]. */
static __always_inline u32 smartt_bound_inl(struct smartt_state *s,
					    const struct smartt_params *p)
{
	u64 maxwnd;

	if (s->cwnd < p->k.mtu) {
		s->cwnd = p->k.mtu;
		return SMARTT_R_CLAMPED;
	}
	/* maxwnd >= mtu: only a window at or above mtu needs it */
	if (likely(!smartt_maxwnd_above(s->cwnd, s->base_rtt, p->maxwnd_lb_k,
					p->maxwnd_lb_slack)))
		return 0;
	maxwnd = smartt_maxwnd(p, s->base_rtt);
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		return SMARTT_R_CLAMPED;
	}
	return 0;
}

/* smartt_bound_inl() out of line, for the rules that rarely need it. */
static noinline u32 smartt_bound(struct smartt_state *s,
				 const struct smartt_params *p)
{
	return smartt_bound_inl(s, p);
}

/* r | smartt_bound(), as a tail call for the rules below. */
static noinline u32 smartt_bound_or(struct smartt_state *s,
				    const struct smartt_params *p, u32 r)
{
	return r | smartt_bound_inl(s, p);
}

/*
 * Bounds after a rule that did not move cwnd: the window was within
 * [mtu, maxwnd] before the event, so only a lower base RTT (and maxwnd
 * with it) can put it out of bounds.  Return: @r and the clamp bits.
 */
static __always_inline u32 smartt_bound_same(struct smartt_state *s,
					     const struct smartt_params *p,
					     u32 base0, u32 r)
{
	if (unlikely(s->base_rtt != base0))
		return smartt_bound_or(s, p, r);
	return r;
}

/* Bounds after a rule that moved cwnd up (see smartt_bound_same()). */
static __always_inline u32 smartt_bound_up(struct smartt_state *s,
					   const struct smartt_params *p,
					   u32 base0, u64 bdp)
{
	u64 maxwnd;

	if (unlikely(s->base_rtt != base0))
		return smartt_bound(s, p);
	maxwnd = smartt_maxwnd_bdp(p, bdp);
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		return SMARTT_R_CLAMPED;
	}
	return 0;
}

/* Bounds after a rule that moved cwnd down (see smartt_bound_same()). */
static __always_inline u32 smartt_bound_down(struct smartt_state *s,
					     const struct smartt_params *p,
					     u32 base0)
{
	if (unlikely(s->base_rtt != base0))
		return smartt_bound(s, p);
	if (s->cwnd < p->k.mtu) {
		s->cwnd = p->k.mtu;
		return SMARTT_R_CLAMPED;
	}
	return 0;
}

static u64 smartt_avg_ns(const struct smartt_state *s)
{
	return div_u64(s->avg_delay, SMARTT_PS_PER_NS);
}

/*
 * avg = w x sample + (1 - w) x avg, in ps; both terms < 2^42 x 2^20.
 * ewma_keep = 10^6 - w is precomputed.
 */
static __always_inline void smartt_ewma(struct smartt_state *s,
					const struct smartt_params *p,
					u64 sample_ps)
{
	s->avg_delay = div_u64(sample_ps * p->k.delay_ewma +
			       s->avg_delay * p->ewma_keep, SMARTT_PPM);
}

/* The average delay in ns, as the queuing delay of an event without one. */
static __always_inline u32 smartt_delay_avg(const struct smartt_state *s)
{
	return (u32)min_t(u64, smartt_avg_ns(s), U32_MAX);
}

/*
 * Base RTT and queuing delay from the event's RTT sample.  Learning a
 * smaller base RTT shrinks BDP and maxwnd with it (the next bound applies
 * them).  Without a sample the delay is the average.  A learned base RTT
 * equals the sample, so the queuing delay is then 0.
 */
static __always_inline u32 smartt_delay(struct smartt_state *s,
					const struct smartt_params *p,
					const struct smartt_event *e,
					const enum smartt_rules rules)
{
	u32 rtt = e->rtt, base = s->base_rtt, d;

	if (unlikely(!rtt))
		return smartt_delay_avg(s);
	if (unlikely(rtt < base)) {
		if (!p->k.learn_base_rtt)
			return smartt_delay_avg(s);
		s->base_rtt = rtt;
		base = rtt;
	}
	d = rtt - base;
	if (rules == SMARTT_RULES_2024)
		return d;	/* no 2024 rule reads the average */
	if (rules == SMARTT_RULES_NSCC && !e->ecn && d > p->target_qdelay)
		/* A stale high delay pulls the average to base_rtt / 4. */
		smartt_ewma(s, p, (u64)base * (SMARTT_PS_PER_NS / 4));
	else
		/* d x 1000 x w, with ewma_ps = w x 1000 precomputed */
		s->avg_delay = div_u64((u64)d * p->ewma_ps +
				       s->avg_delay * p->ewma_keep, SMARTT_PPM);
	return d;
}

/*
 * Target RTT of the 2024/smartt rules, ns (< 2^53): trtt x base RTT, or
 * base RTT + target_qdelay with trtt_abs.
 */
static u64 smartt_trtt(const struct smartt_state *s, const struct smartt_params *p)
{
	return (((u64)s->base_rtt * p->trtt_fp) >> SMARTT_FP_SHIFT) + p->trtt_add;
}

static bool smartt_ignoring(const struct smartt_state *s)
{
	return s->bytes_ignored < s->bytes_to_ignore;
}

/* Does a high delay alone ask for QuickAdapt in this window? */
static __always_inline bool smartt_qa_delay_trigger(const struct smartt_state *s,
						    const struct smartt_params *p, u32 delay)
{
	u64 thr;

	if (p->k.qa_delay_mode == SMARTT_QA_DELAY_NEVER ||
	    (p->k.qa_delay_mode == SMARTT_QA_DELAY_NO_TRIM && p->k.trimming))
		return false;
	if (p->k.rules == SMARTT_RULES_NSCC)
		thr = p->qa_delay;
	else	/* qa_delay x the target queuing delay (trtt - brtt) */
		thr = smartt_mul_ppm(smartt_trtt(s, p) - s->base_rtt,
				     p->k.qa_delay);
	return delay > thr;
}

/*
 * Does QuickAdapt fire at the end of this window?  A trim/loss asked for
 * it, or the delay trigger fired while few bytes were acked (below the
 * gate: cwnd or maxwnd, >> qa_gate); nscc gates every trigger, the papers
 * only the delay one.  maxwnd is computed only for a maxwnd gate.
 */
static __always_inline bool smartt_qa_wanted(const struct smartt_state *s,
					     const struct smartt_params *p,
					     bool loss, u32 delay)
{
	bool want = loss || (s->flags & SMARTT_ST_TRIGGER_QA);
	u64 gate;

	if (want && p->k.rules != SMARTT_RULES_NSCC)
		return true;
	if (!want && !smartt_qa_delay_trigger(s, p, delay))
		return false;
	gate = p->k.qa_gate_cwnd ? s->cwnd : smartt_maxwnd(p, s->base_rtt);
	return s->achieved < gate >> p->k.qa_gate;
}

/* Start the next QuickAdapt window at the event's time. */
static __always_inline void smartt_qa_next(struct smartt_state *s,
					   const struct smartt_params *p,
					   const struct smartt_event *e)
{
	s->achieved = 0;
	/*
	 * now + trtt, or now + base_rtt + target_qdelay for nscc (base x
	 * 1.0 in Q.16 is exact); the window ends at now >= qa_end, and "now
	 * > end" is "now >= end + 1" (in qa_win_add)
	 */
	s->qa_end = e->now + (((u64)s->base_rtt * p->qa_win_fp) >> SMARTT_FP_SHIFT) +
		    p->qa_win_add;
}

/*
 * QuickAdapt fires: the window becomes the bytes acked during the window
 * (x qa_scaling), clamped into [mtu, maxwnd], the bytes then in flight are
 * ignored; then the next window starts.
 * Return: SMARTT_R_QA and the clamp bits.
 */
static noinline u32 smartt_qa_fire(struct smartt_state *s,
				   const struct smartt_params *p,
				   const struct smartt_event *e)
{
	u32 r;

	/* smartt_mul_fp() saturates; the bound follows */
	s->cwnd = smartt_mul_fp(p->qa_scaling_fp,
				max_t(u64, s->achieved, p->k.mtu));
	s->bytes_to_ignore = e->in_flight;
	s->bytes_ignored = 0;
	s->flags &= ~SMARTT_ST_TRIGGER_QA;
	r = SMARTT_R_QA | smartt_bound_inl(s, p);
	smartt_qa_next(s, p, e);
	return r;
}

/*
 * QuickAdapt (2024 Alg. 2, newer Alg. 2, reference 2.3.1 without the
 * ignore-phase part, which the callers handle).  At the end of each window
 * (trtt, or base_rtt + target_qdelay for nscc): if a trim/loss asked for it,
 * or the delay trigger fired while few bytes were acked (below cwnd or
 * maxwnd >> qa_gate), smartt_qa_fire().  The window-end work runs once per
 * window, the callers' check (now >= qa_end) on every event: here for a
 * trim or timeout, smartt_qa_paper() and smartt_qa_nscc() for an ACK.
 *
 * Return: 0 if QuickAdapt did not fire, else as smartt_qa_fire().
 */
static noinline u32 smartt_qa_window_end_loss(struct smartt_state *s,
					      const struct smartt_params *p,
					      const struct smartt_event *e)
{
	if (s->qa_end && smartt_qa_wanted(s, p, true, 0))
		return smartt_qa_fire(s, p, e);
	smartt_qa_next(s, p, e);
	return 0;
}

/* QuickAdapt check at a trim/timeout; returns as smartt_qa_window_end_loss(). */
static __always_inline u32 smartt_quick_adapt(struct smartt_state *s,
					      const struct smartt_params *p,
					      const struct smartt_event *e)
{
	if (!p->k.qa)
		return 0;
	if (likely(e->now < s->qa_end))
		return 0;
	return smartt_qa_window_end_loss(s, p, e);
}

/* fi_count + bytes, saturating at SMARTT_FI_COUNT_MAX (no u64 overflow). */
static __always_inline u64 smartt_fi_count_add(const struct smartt_state *s,
					       u32 bytes)
{
	u64 c = (u64)s->fi_count + bytes;

	return c < SMARTT_FI_COUNT_MAX ? c : SMARTT_FI_COUNT_MAX;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* smartt_state.fi_word: fi_count in the low 56 bits, flags above */
#define SMARTT_FI_WORD_FLAGS	56
#endif

/*
 * FastIncrease's count of an uncongested ACK: fi_count += bytes,
 * saturating at SMARTT_FI_COUNT_MAX.
 * Return: fi_count > cwnd, or FastIncrease already active.
 */
static __always_inline bool smartt_fi_count_up(struct smartt_state *s,
					       u32 bytes)
{
#ifdef SMARTT_FI_WORD_FLAGS
	u64 w = s->fi_word, w2 = w + bytes;

	/*
	 * fi_count < 2^56 and bytes < 2^32: the sum carries into the flags
	 * byte exactly when it passes SMARTT_FI_COUNT_MAX.
	 */
	if (unlikely((w ^ w2) >> SMARTT_FI_WORD_FLAGS))
		w2 = w | SMARTT_FI_COUNT_MAX;
	s->fi_word = w2;
	/*
	 * The flags are TRIGGER_QA (bit 56) and INCREASE (bit 57): without
	 * TRIGGER_QA the word is fi_count, plus 2^57 with INCREASE, and
	 * cwnd <= maxwnd < 2^49, so one compare tests both.
	 */
	return (w2 & ~((u64)SMARTT_ST_TRIGGER_QA << SMARTT_FI_WORD_FLAGS)) >
	       s->cwnd;
#else
	s->fi_count = smartt_fi_count_add(s, bytes);
	return s->fi_count > s->cwnd || (s->flags & SMARTT_ST_INCREASE);
#endif
}

/* A congested ACK ends FastIncrease: fi_count = 0, INCREASE cleared. */
static __always_inline void smartt_fi_reset(struct smartt_state *s)
{
#ifdef SMARTT_FI_WORD_FLAGS
	s->fi_word &= ~(SMARTT_FI_COUNT_MAX |
			((u64)SMARTT_ST_INCREASE << SMARTT_FI_WORD_FLAGS));
#else
	s->fi_count = 0;
	s->flags &= ~SMARTT_ST_INCREASE;
#endif
}

/*
 * FastIncrease as in both papers' Algorithm 3: after more than cwnd
 * consecutive uncongested bytes (no ECN, queuing delay <= fast_delay), add
 * fast_k MTU per ACK until a congested ACK arrives.
 */
static __always_inline bool smartt_fast_increase(struct smartt_state *s,
						 const struct smartt_params *p,
						 const struct smartt_event *e,
						 u32 delay)
{
	if (!p->k.fast_inc)
		return false;
	if (delay <= p->k.fast_delay && !e->ecn) {
		if (smartt_fi_count_up(s, e->bytes)) {
			s->cwnd += p->fast_bytes;
			s->flags |= SMARTT_ST_INCREASE;
			return true;
		}
	} else {
		smartt_fi_reset(s);
	}
	return false;
}

/*
 * FastIncrease fires on an ACK that left the base RTT as it was: the
 * step, then the upper bound.
 */
static noinline u32 smartt_fast_inc_up(struct smartt_state *s,
				       const struct smartt_params *p)
{
	u64 maxwnd = smartt_maxwnd_bdp(p, smartt_bdp_at(p, s->base_rtt));

	s->cwnd += p->fast_bytes;
	s->flags |= SMARTT_ST_INCREASE;
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		return SMARTT_R_FAST_INC | SMARTT_R_CLAMPED;
	}
	return SMARTT_R_FAST_INC;
}

/*
 * Fair increase numerator (bytes^2): nb x mtu x fi x BDP / ref_bdp.
 * fi_fp <= 2^22 and BDP <= 2^34; nb x mtu < 2^48; smartt_mul_fp()
 * saturates, and a saturated numerator still divides to a bounded step.
 */
static __always_inline u64 smartt_fi_num(const struct smartt_params *p,
					 u64 mb, u64 bdp)
{
	u64 gain = div_u64(smartt_sat_mul(p->fi_fp, bdp), p->k.ref_bdp);

	return smartt_mul_fp(gain, mb);
}

/*
 * Proportional (multiplicative) increase numerator (bytes^2):
 * (trtt - rtt) / rtt x nb x mtu x pi x BDP / ref_bdp, capped at nb x cwnd
 * so that the step is at most the acked bytes (min(size, ...) of Eq. 3/4).
 * mb = nb x mtu.
 */
static __always_inline u64 smartt_pi_num(const struct smartt_state *s,
					 const struct smartt_params *p, u32 nb,
					 u64 mb, u64 bdp, u64 rtt, u64 trtt)
{
	u64 ratio = div64_u64((trtt - rtt) << SMARTT_FP_SHIFT, rtt);
	u64 gain = div_u64(smartt_sat_mul(p->pi_fp, bdp), p->k.ref_bdp);
	u64 num = smartt_mul_fp(smartt_mul_fp(ratio, gain), mb);

	return min_t(u64, num, smartt_sat_mul(nb, s->cwnd));
}

/* cwnd / BDP x fd x nb: the fair decrease of 2024 Eq. 1. */
static __always_inline u64 smartt_fd_bytes(const struct smartt_state *s,
					   const struct smartt_params *p,
					   u32 nb, u64 bdp)
{
	return smartt_mul_fp(p->fd_fp, div64_u64(smartt_sat_mul(s->cwnd, nb), bdp));
}

/* The 2024 fair decrease alone (ECN-marked ACK, rtt at most trtt). */
static noinline u32 smartt_fd_2024(struct smartt_state *s,
				   const struct smartt_params *p,
				   const struct smartt_event *e, u32 base0)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt);

	s->cwnd = smartt_sat_sub(s->cwnd, smartt_fd_bytes(s, p, e->bytes, bdp));
	return SMARTT_R_FD | smartt_bound_down(s, p, base0);
}

/* The 2024 MD plus FD (ECN-marked ACK, rtt above trtt), at most nb. */
static noinline u32 smartt_md_2024(struct smartt_state *s,
				   const struct smartt_params *p,
				   const struct smartt_event *e, u32 base0,
				   u64 rtt, u64 trtt)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt), dec;
	u32 nb = e->bytes;

	/* (rtt - trtt) / rtt x md x nb, plus FD, at most nb. */
	dec = div64_u64((rtt - trtt) << SMARTT_FP_SHIFT, rtt);
	dec = smartt_mul_fp(smartt_mul_fp(dec, p->md_fp), nb);
	dec = smartt_sat_add(dec, smartt_fd_bytes(s, p, nb, bdp));
	s->cwnd = smartt_sat_sub(s->cwnd, min_t(u64, dec, nb));
	return SMARTT_R_MD | smartt_bound_down(s, p, base0);
}

/* The 2024 decreases (ECN-marked ACK, not held by WTD): FD, or MD + FD. */
static __always_inline u32 smartt_ack_2024_ecn(struct smartt_state *s,
					       const struct smartt_params *p,
					       const struct smartt_event *e,
					       u32 base0, u32 delay)
{
	u64 rtt = (u64)s->base_rtt + delay, trtt = smartt_trtt(s, p);

	if (rtt <= trtt)
		return smartt_fd_2024(s, p, e, base0);
	return smartt_md_2024(s, p, e, base0, rtt, trtt);
}

static __always_inline u32 smartt_rules_rtt(struct smartt_state *s,
					    const struct smartt_params *p,
					    const struct smartt_event *e,
					    u32 base0, u32 delay);

/* 2024 fair increase alone (rtt above trtt). */
static noinline u32 smartt_fi_2024(struct smartt_state *s,
				   const struct smartt_params *p,
				   const struct smartt_event *e, u32 base0)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt), mb = (u64)e->bytes * p->k.mtu;

	s->cwnd += div64_u64(smartt_fi_num(p, mb, bdp), s->cwnd);
	return SMARTT_R_FI | smartt_bound_up(s, p, base0, bdp);
}

/* 2024 multiplicative then fair increase (rtt at most trtt). */
static noinline u32 smartt_pifi_2024(struct smartt_state *s,
				     const struct smartt_params *p,
				     const struct smartt_event *e,
				     u32 base0, u32 delay)
{
	u64 rtt = (u64)s->base_rtt + delay, trtt = smartt_trtt(s, p), bdp, mb;
	u32 nb = e->bytes;

	bdp = smartt_bdp_at(p, s->base_rtt);
	mb = (u64)nb * p->k.mtu;
	s->cwnd += div64_u64(smartt_pi_num(s, p, nb, mb, bdp, rtt, trtt), s->cwnd);
	s->cwnd += div64_u64(smartt_fi_num(p, mb, bdp), s->cwnd);
	return SMARTT_R_PI | SMARTT_R_FI | smartt_bound_up(s, p, base0, bdp);
}

/* The 2024 increases (unmarked ACK): FI above trtt, else MI + FI. */
static __always_inline u32 smartt_inc_2024(struct smartt_state *s,
					   const struct smartt_params *p,
					   const struct smartt_event *e,
					   u32 base0, u32 delay)
{
	if ((u64)s->base_rtt + delay > smartt_trtt(s, p))
		return smartt_fi_2024(s, p, e, base0);
	return smartt_pifi_2024(s, p, e, base0, delay);
}

/*
 * The rules below, for an ACK whose RTT sample left the base RTT as it
 * was (the common ACK), compute without saturation and leave the event to
 * the saturating version of the same rule, from the start (nothing is
 * written before), as soon as a product or sum does not fit in 64 bits:
 * the result is the same.
 */

/* smartt_md_2024() of the common ACK where a product saturates. */
static noinline u32 smartt_md_2024_slow(struct smartt_state *s,
					const struct smartt_params *p,
					const struct smartt_event *e)
{
	return smartt_md_2024(s, p, e, s->base_rtt, e->rtt, smartt_trtt(s, p));
}

/* smartt_pifi_2024() of the common ACK where a product saturates. */
static noinline u32 smartt_pifi_2024_slow(struct smartt_state *s,
					  const struct smartt_params *p,
					  const struct smartt_event *e)
{
	return smartt_pifi_2024(s, p, e, s->base_rtt, e->rtt - s->base_rtt);
}

/* smartt_fd_2024() of the common ACK. */
static noinline u32 smartt_fd_2024_same(struct smartt_state *s,
					const struct smartt_params *p,
					const struct smartt_event *e)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt), x;

	/* smartt_fd_bytes() */
	if (unlikely(smartt_mul_overflow(s->cwnd, (u64)e->bytes, &x)))
		return smartt_fd_2024(s, p, e, s->base_rtt);
	if (unlikely(smartt_mul_overflow(p->fd_fp, div64_u64(x, bdp), &x)))
		return smartt_fd_2024(s, p, e, s->base_rtt);
	s->cwnd = smartt_sat_sub(s->cwnd, x >> SMARTT_FP_SHIFT);
	if (s->cwnd < p->k.mtu) {
		s->cwnd = p->k.mtu;
		return SMARTT_R_FD | SMARTT_R_CLAMPED;
	}
	return SMARTT_R_FD;
}

/* smartt_md_2024() of the common ACK (RTT e->rtt, above @trtt). */
static noinline u32 smartt_md_2024_same(struct smartt_state *s,
					const struct smartt_params *p,
					const struct smartt_event *e, u64 trtt)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt), rtt = e->rtt, dec, x;
	u32 nb = e->bytes;

	/*
	 * (rtt - trtt) / rtt < 1.0 (Q.16 < 2^16) x md (Q.16, at most 64 x
	 * 64 with md_no_trim: < 2^28) < 2^44, >> 16, x nb < 2^60: no
	 * saturation in the MD term.
	 */
	dec = div64_u64((rtt - trtt) << SMARTT_FP_SHIFT, rtt);
	dec = ((dec * p->md_fp) >> SMARTT_FP_SHIFT) * nb >> SMARTT_FP_SHIFT;
	/* smartt_fd_bytes() */
	if (unlikely(smartt_mul_overflow(s->cwnd, (u64)nb, &x)))
		goto general;
	if (unlikely(smartt_mul_overflow(p->fd_fp, div64_u64(x, bdp), &x)))
		goto general;
	dec += x >> SMARTT_FP_SHIFT;	/* < 2^44 + 2^48 */
	s->cwnd = smartt_sat_sub(s->cwnd, min_t(u64, dec, nb));
	if (s->cwnd < p->k.mtu) {
		s->cwnd = p->k.mtu;
		return SMARTT_R_MD | SMARTT_R_CLAMPED;
	}
	return SMARTT_R_MD;
general:
	return smartt_md_2024_slow(s, p, e);
}

/* The 2024 rules on an ECN-marked common ACK: WTD, FD or MD + FD. */
static __always_inline u32 smartt_2024_ecn(struct smartt_state *s,
					   const struct smartt_params *p,
					   const struct smartt_event *e)
{
	u64 trtt;

	if (p->k.fast_inc)
		smartt_fi_reset(s);
	if (p->k.wtd_enable && s->wtd < p->k.wtd_threshold)
		return SMARTT_R_WTD_HOLD;
	trtt = smartt_trtt(s, p);
	if (e->rtt <= trtt)
		return smartt_fd_2024_same(s, p, e);
	return smartt_md_2024_same(s, p, e, trtt);
}

/* smartt_fi_2024() of the common ACK. */
static noinline u32 smartt_fi_2024_same(struct smartt_state *s,
					const struct smartt_params *p,
					const struct smartt_event *e)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt), mb = (u64)e->bytes * p->k.mtu;
	u64 maxwnd = smartt_maxwnd_bdp(p, bdp), x;

	/* smartt_fi_num() */
	if (unlikely(smartt_mul_overflow(p->fi_fp, bdp, &x)))
		goto general;
	x = div_u64(x, p->k.ref_bdp);
	if (unlikely(smartt_mul_overflow(x, mb, &x)))
		goto general;
	x >>= SMARTT_FP_SHIFT;
	s->cwnd += div64_u64(x, s->cwnd);
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		return SMARTT_R_FI | SMARTT_R_CLAMPED;
	}
	return SMARTT_R_FI;
general:
	return smartt_fi_2024(s, p, e, s->base_rtt);
}

/* smartt_pifi_2024() of the common ACK (RTT e->rtt, at most @trtt). */
static noinline u32 smartt_pifi_2024_same(struct smartt_state *s,
					  const struct smartt_params *p,
					  const struct smartt_event *e, u64 trtt)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt), rtt = e->rtt, x, y;
	u32 nb = e->bytes;
	u64 mb = (u64)nb * p->k.mtu;

	/* smartt_pi_num(): trtt < 2^39, so the shift fits */
	x = div64_u64((trtt - rtt) << SMARTT_FP_SHIFT, rtt);
	if (unlikely(smartt_mul_overflow(p->pi_fp, bdp, &y)))
		goto general;
	y = div_u64(y, p->k.ref_bdp);
	if (unlikely(smartt_mul_overflow(x, y, &x)))
		goto general;
	if (unlikely(smartt_mul_overflow(x >> SMARTT_FP_SHIFT, mb, &x)))
		goto general;
	if (unlikely(smartt_mul_overflow((u64)nb, s->cwnd, &y)))
		goto general;
	x = min_t(u64, x >> SMARTT_FP_SHIFT, y);
	/* smartt_fi_num(), checked before anything is written */
	if (unlikely(smartt_mul_overflow(p->fi_fp, bdp, &y)))
		goto general;
	y = div_u64(y, p->k.ref_bdp);
	if (unlikely(smartt_mul_overflow(y, mb, &y)))
		goto general;
	y >>= SMARTT_FP_SHIFT;
	s->cwnd += div64_u64(x, s->cwnd);
	s->cwnd += div64_u64(y, s->cwnd);
	x = smartt_maxwnd_bdp(p, bdp);
	if (s->cwnd > x) {
		s->cwnd = x;
		return SMARTT_R_PI | SMARTT_R_FI | SMARTT_R_CLAMPED;
	}
	return SMARTT_R_PI | SMARTT_R_FI;
general:
	return smartt_pifi_2024_slow(s, p, e);
}

/* The 2024 rules on an unmarked common ACK: FastIncrease, the increases. */
static __always_inline u32 smartt_2024_inc(struct smartt_state *s,
					   const struct smartt_params *p,
					   const struct smartt_event *e)
{
	u64 trtt;

	if (p->k.fast_inc) {
		if (e->rtt - s->base_rtt > p->k.fast_delay)
			smartt_fi_reset(s);
		else if (smartt_fi_count_up(s, e->bytes))
			return smartt_fast_inc_up(s, p);
	}
	trtt = smartt_trtt(s, p);
	if (e->rtt > trtt)
		return smartt_fi_2024_same(s, p, e);
	return smartt_pifi_2024_same(s, p, e, trtt);
}

/*
 * The 2024 rules after the ignore phase and the QuickAdapt check:
 * FastIncrease, then the decreases (ECN) or the increases.
 */
static __always_inline u32 smartt_rules_2024(struct smartt_state *s,
					     const struct smartt_params *p,
					     const struct smartt_event *e,
					     u32 base0, u32 delay)
{
	if (smartt_fast_increase(s, p, e, delay))
		return SMARTT_R_FAST_INC |
		       smartt_bound_up(s, p, base0, smartt_bdp_at(p, s->base_rtt));
	if (e->ecn) {
		if (p->k.wtd_enable && s->wtd < p->k.wtd_threshold)
			return smartt_bound_same(s, p, base0, SMARTT_R_WTD_HOLD);
		return smartt_ack_2024_ecn(s, p, e, base0, delay);
	}
	return smartt_inc_2024(s, p, e, base0, delay);
}

/* The 2024/smartt rules after a QuickAdapt window ended without firing. */
static noinline u32 smartt_rules_paper(struct smartt_state *s,
				       const struct smartt_params *p,
				       const struct smartt_event *e,
				       u32 base0, u32 delay)
{
	if (p->k.rules == SMARTT_RULES_2024)
		return smartt_rules_2024(s, p, e, base0, delay);
	return smartt_rules_rtt(s, p, e, base0, delay);
}

/* smartt_qa_paper() without a trim's request: the delay trigger. */
static noinline u32 smartt_qa_paper_delay(struct smartt_state *s,
					  const struct smartt_params *p,
					  const struct smartt_event *e,
					  u32 base0, u32 delay)
{
	if (s->qa_end && smartt_qa_wanted(s, p, false, delay))
		return smartt_qa_fire(s, p, e);
	smartt_qa_next(s, p, e);
	return smartt_rules_paper(s, p, e, base0, delay);
}

/*
 * A QuickAdapt window of the 2024/smartt rules ended: QA, or the rules.
 * A trim's request fires without the gate (smartt_qa_wanted()).
 */
static noinline u32 smartt_qa_paper(struct smartt_state *s,
				    const struct smartt_params *p,
				    const struct smartt_event *e,
				    u32 base0, u32 delay)
{
	if (s->qa_end && (s->flags & SMARTT_ST_TRIGGER_QA))
		return smartt_qa_fire(s, p, e);
	return smartt_qa_paper_delay(s, p, e, base0, delay);
}

/*
 * Everything after the delay: ignore phase, Wait-to-Decrease average,
 * QuickAdapt check, the rules.
 */
static __always_inline u32 smartt_ack_2024_rest(struct smartt_state *s,
						const struct smartt_params *p,
						const struct smartt_event *e,
						u32 base0, u32 delay)
{
	u32 wtd;

	if (unlikely(smartt_ignoring(s)) && (!p->k.ignore_ecn_only || e->ecn))
		return smartt_bound_same(s, p, base0, SMARTT_R_IGNORED);
	/*
	 * Wait-to-Decrease: ECN average in ppm, (w x 10^6 + (10^6 - w) x avg)
	 * / 10^6, which is w + (10^6 - w) x avg / 10^6 exactly.
	 */
	wtd = (u32)div_u64((u64)s->wtd * p->wtd_keep, SMARTT_PPM);
	if (e->ecn)
		wtd += p->k.wtd_alpha;
	s->wtd = wtd;
	if (p->k.qa && unlikely(e->now >= s->qa_end))
		return smartt_qa_paper(s, p, e, base0, delay);
	return smartt_rules_2024(s, p, e, base0, delay);
}

/* A 2024 ACK without an RTT sample or below the base RTT (learns it). */
static noinline u32 smartt_ack_2024_learn(struct smartt_state *s,
					  const struct smartt_params *p,
					  const struct smartt_event *e)
{
	u32 base0 = s->base_rtt, delay = smartt_delay(s, p, e, SMARTT_RULES_2024);

	return smartt_ack_2024_rest(s, p, e, base0, delay);
}

/*
 * The common 2024 ACK: an RTT sample at or above the base RTT, which
 * therefore stays as it is.  The rules are tail-called so that this
 * common part needs no saved registers.
 */
static noinline u32 smartt_ack_2024(struct smartt_state *s,
				    const struct smartt_params *p,
				    const struct smartt_event *e)
{
	u32 rtt = e->rtt, base = s->base_rtt, wtd;

	/* !rtt || rtt < base in one compare (base = 0: always the general path) */
	if (unlikely(rtt <= base - 1))
		return smartt_ack_2024_learn(s, p, e);
	if (unlikely(smartt_ignoring(s)) && (!p->k.ignore_ecn_only || e->ecn))
		return SMARTT_R_IGNORED;
	/* as smartt_ack_2024_rest() */
	wtd = (u32)div_u64((u64)s->wtd * p->wtd_keep, SMARTT_PPM);
	if (e->ecn)
		wtd += p->k.wtd_alpha;
	s->wtd = wtd;
	if (unlikely(e->now >= s->qa_end) && p->k.qa)
		return smartt_qa_paper(s, p, e, base, rtt - base);
	if (e->ecn)
		return smartt_2024_ecn(s, p, e);
	return smartt_2024_inc(s, p, e);
}

/*
 * cwnd x max(md_min, 1 - gamma x (avg - target) / avg), avg > target,
 * ppm arithmetic: gamma <= 10^6 (validated) and avg - target < 2^42 ps.
 */
static void smartt_md_avg(struct smartt_state *s, const struct smartt_params *p,
			  u64 avg, u64 target)
{
	/* (avg - target) / avg < 1: cut < gamma <= 10^6, so f is in (0, 10^6] */
	u32 cut = (u32)div64_u64((u64)p->k.md * (avg - target), avg);
	u32 f = SMARTT_PPM - cut;

	s->cwnd = smartt_mul_ppm(s->cwnd, max_t(u32, f, p->k.md_min));
}

/* Apply the accumulated increase @inc: cwnd += inc / cwnd. */
static __always_inline u32 smartt_rtt_apply(struct smartt_state *s,
					    const struct smartt_event *e,
					    u64 inc)
{
	s->inc = 0;
	s->acks = 0;
	s->last_adjust = e->now;
	if (inc) {
		s->cwnd += div64_u64(inc, s->cwnd);
		return SMARTT_R_ADJUST;
	}
	return 0;
}

/* smartt_rtt_adjust() with adjust_acks > 1: count, or apply when due. */
static noinline u32 smartt_rtt_adjust_count(struct smartt_state *s,
					    const struct smartt_params *p,
					    const struct smartt_event *e,
					    u64 inc)
{
	u32 period, acks = s->acks + (s->acks < U16_MAX);

	if (acks < p->k.adjust_acks) {
		period = p->k.adjust_rtt ? s->base_rtt : p->k.adjust_period;
		if (!period || e->now - s->last_adjust < period) {
			s->acks = acks;
			s->inc = inc;
			return 0;
		}
	}
	return smartt_rtt_apply(s, e, inc);
}

/*
 * Adjustment period of the smartt rules: apply the accumulated increase
 * every adjust_acks ACKs, or once adjust_period ns (or, with adjust_rtt,
 * one base RTT) passed.
 */
static __always_inline u32 smartt_rtt_adjust(struct smartt_state *s,
					     const struct smartt_params *p,
					     const struct smartt_event *e,
					     u64 inc)
{
	/* adjust_acks = 1 (every profile's default): always apply */
	if (likely(p->k.adjust_acks == 1))
		return smartt_rtt_apply(s, e, inc);
	return smartt_rtt_adjust_count(s, p, e, inc);
}

/*
 * The smartt MD on the average RTT, once the last one is more than a base
 * RTT old: cut if the average RTT is above trtt, then the adjustment.
 */
static noinline u32 smartt_rtt_md(struct smartt_state *s,
				  const struct smartt_params *p,
				  const struct smartt_event *e, u32 base0)
{
	u64 trtt = smartt_trtt(s, p), avg = s->base_rtt + smartt_avg_ns(s);
	u32 r;

	if (avg <= trtt)
		return smartt_bound_same(s, p, base0, SMARTT_R_MD_HELD);
	smartt_md_avg(s, p, avg, trtt);
	s->last_dec = e->now;
	r = SMARTT_R_MD | smartt_rtt_adjust(s, p, e, s->inc);
	/* after an MD the window may have moved both ways */
	return smartt_bound_or(s, p, r);
}

/* The smartt rules on an ECN-marked ACK: no-op, or MD once per base RTT. */
static __always_inline u32 smartt_ack_rtt_ecn(struct smartt_state *s,
					      const struct smartt_params *p,
					      const struct smartt_event *e,
					      u32 base0, u32 delay)
{
	if ((u64)s->base_rtt + delay <= smartt_trtt(s, p))
		return smartt_bound_same(s, p, base0, SMARTT_R_NOOP);
	/* MD on the average RTT, at most once per base RTT. */
	if (e->now - s->last_dec <= s->base_rtt)
		return smartt_bound_same(s, p, base0, SMARTT_R_MD_HELD);
	return smartt_rtt_md(s, p, e, base0);
}

/*
 * The end of the smartt increases: apply the accumulated increase @inc
 * (adjustment period), then the upper bound at @bdp, or both bounds if
 * the event lowered the base RTT (@base0 is the one before the event).
 */
static __always_inline u32 smartt_rtt_inc_end(struct smartt_state *s,
					      const struct smartt_params *p,
					      const struct smartt_event *e,
					      u32 base0, u64 bdp, u64 inc, u32 r)
{
	u64 maxwnd;

	r |= smartt_rtt_adjust(s, p, e, inc);
	if (unlikely(s->base_rtt != base0))
		return smartt_bound_or(s, p, r);
	maxwnd = smartt_maxwnd_bdp(p, bdp);
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		r |= SMARTT_R_CLAMPED;
	}
	return r;
}

/* The smartt fair increase alone (rtt above trtt), then the adjustment. */
static __always_inline u32 smartt_fi_rtt_inl(struct smartt_state *s,
					     const struct smartt_params *p,
					     const struct smartt_event *e,
					     u32 base0)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt), mb = (u64)e->bytes * p->k.mtu;
	u64 inc = smartt_sat_add(s->inc, smartt_fi_num(p, mb, bdp));

	return smartt_rtt_inc_end(s, p, e, base0, bdp, inc, SMARTT_R_FI);
}

/* smartt_fi_rtt_inl() out of line, for any ACK (base RTT before: @base0). */
static noinline u32 smartt_fi_rtt_gen(struct smartt_state *s,
				      const struct smartt_params *p,
				      const struct smartt_event *e, u32 base0)
{
	return smartt_fi_rtt_inl(s, p, e, base0);
}

/*
 * The smartt proportional and fair increases (rtt <= trtt), then the
 * adjustment.  rtt = base RTT + delay and trtt = smartt_trtt().
 */
static __always_inline u32 smartt_pifi_rtt_inl(struct smartt_state *s,
					       const struct smartt_params *p,
					       const struct smartt_event *e,
					       u32 base0, u64 rtt, u64 trtt)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt), mb, inc;
	u32 nb = e->bytes;

	mb = (u64)nb * p->k.mtu;
	inc = smartt_sat_add(s->inc, smartt_pi_num(s, p, nb, mb, bdp, rtt, trtt));
	inc = smartt_sat_add(inc, smartt_fi_num(p, mb, bdp));
	return smartt_rtt_inc_end(s, p, e, base0, bdp, inc,
				  SMARTT_R_PI | SMARTT_R_FI);
}

/* smartt_pifi_rtt_inl() out of line, for any ACK (queuing delay @delay). */
static noinline u32 smartt_pifi_rtt_gen(struct smartt_state *s,
					const struct smartt_params *p,
					const struct smartt_event *e,
					u32 base0, u32 delay)
{
	return smartt_pifi_rtt_inl(s, p, e, base0, (u64)s->base_rtt + delay,
				   smartt_trtt(s, p));
}

/*
 * smartt_fi_rtt() where a product saturates or adjust_acks > 1 (three
 * arguments: the fast path keeps nothing else for this tail call).
 */
static noinline u32 smartt_fi_rtt_slow(struct smartt_state *s,
				       const struct smartt_params *p,
				       const struct smartt_event *e)
{
	return smartt_fi_rtt_inl(s, p, e, s->base_rtt);
}

/* smartt_pifi_rtt() where a product saturates or adjust_acks > 1. */
static noinline u32 smartt_pifi_rtt_slow(struct smartt_state *s,
					 const struct smartt_params *p,
					 const struct smartt_event *e)
{
	return smartt_pifi_rtt_inl(s, p, e, s->base_rtt, e->rtt,
				   smartt_trtt(s, p));
}

/*
 * The end of smartt_fi_rtt() and smartt_pifi_rtt(): adjust_acks = 1, so
 * the increase @inc is applied now; then the upper bound at @bdp.
 */
static __always_inline u32 smartt_rtt_inc_apply(struct smartt_state *s,
						const struct smartt_params *p,
						const struct smartt_event *e,
						u64 bdp, u64 inc, u32 r)
{
	u64 maxwnd = smartt_maxwnd_bdp(p, bdp);

	r |= smartt_rtt_apply(s, e, inc);
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		r |= SMARTT_R_CLAMPED;
	}
	return r;
}

/*
 * The smartt fair increase of an ACK that left the base RTT as it was,
 * with adjust_acks = 1.  It computes without saturation and leaves the
 * event to smartt_fi_rtt_slow(), which saturates, from the start (nothing
 * is written before) as soon as a product or sum does not fit in 64 bits:
 * the result is the same.
 */
static noinline u32 smartt_fi_rtt(struct smartt_state *s,
				  const struct smartt_params *p,
				  const struct smartt_event *e)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt), mb = (u64)e->bytes * p->k.mtu;
	u64 x, inc;

	if (unlikely(p->k.adjust_acks != 1))
		goto general;
	/* smartt_fi_num() */
	if (unlikely(smartt_mul_overflow(p->fi_fp, bdp, &x)))
		goto general;
	x = div_u64(x, p->k.ref_bdp);
	if (unlikely(smartt_mul_overflow(x, mb, &x)))
		goto general;
	if (unlikely(smartt_add_overflow(s->inc, x >> SMARTT_FP_SHIFT, &inc)))
		goto general;
	return smartt_rtt_inc_apply(s, p, e, bdp, inc, SMARTT_R_FI);
general:
	return smartt_fi_rtt_slow(s, p, e);
}

/*
 * The smartt proportional and fair increases of an ACK that left the base
 * RTT as it was (its RTT is e->rtt), with adjust_acks = 1; @trtt =
 * smartt_trtt().  Without saturation, as smartt_fi_rtt().
 */
static noinline u32 smartt_pifi_rtt(struct smartt_state *s,
				    const struct smartt_params *p,
				    const struct smartt_event *e, u64 trtt)
{
	u64 bdp = smartt_bdp_at(p, s->base_rtt), rtt = e->rtt, x, y, inc;
	u32 nb = e->bytes;
	u64 mb = (u64)nb * p->k.mtu;

	if (unlikely(p->k.adjust_acks != 1))
		goto general;
	/* smartt_pi_num(): trtt < 2^39, so the shift fits */
	x = div64_u64((trtt - rtt) << SMARTT_FP_SHIFT, rtt);
	if (unlikely(smartt_mul_overflow(p->pi_fp, bdp, &y)))
		goto general;
	y = div_u64(y, p->k.ref_bdp);
	if (unlikely(smartt_mul_overflow(x, y, &x)))
		goto general;
	if (unlikely(smartt_mul_overflow(x >> SMARTT_FP_SHIFT, mb, &x)))
		goto general;
	if (unlikely(smartt_mul_overflow((u64)nb, s->cwnd, &y)))
		goto general;
	x = min_t(u64, x >> SMARTT_FP_SHIFT, y);
	if (unlikely(smartt_add_overflow(s->inc, x, &inc)))
		goto general;
	/* smartt_fi_num() */
	if (unlikely(smartt_mul_overflow(p->fi_fp, bdp, &x)))
		goto general;
	x = div_u64(x, p->k.ref_bdp);
	if (unlikely(smartt_mul_overflow(x, mb, &x)))
		goto general;
	if (unlikely(smartt_add_overflow(inc, x >> SMARTT_FP_SHIFT, &inc)))
		goto general;
	return smartt_rtt_inc_apply(s, p, e, bdp, inc, SMARTT_R_PI | SMARTT_R_FI);
general:
	return smartt_pifi_rtt_slow(s, p, e);
}

/* The smartt rules after the ignore phase and the QuickAdapt check. */
static __always_inline u32 smartt_rules_rtt(struct smartt_state *s,
					    const struct smartt_params *p,
					    const struct smartt_event *e,
					    u32 base0, u32 delay)
{
	if (smartt_fast_increase(s, p, e, delay))
		return SMARTT_R_FAST_INC |
		       smartt_bound_up(s, p, base0, smartt_bdp_at(p, s->base_rtt));
	if (e->ecn)
		return smartt_ack_rtt_ecn(s, p, e, base0, delay);
	if ((u64)s->base_rtt + delay > smartt_trtt(s, p))
		return smartt_fi_rtt_gen(s, p, e, base0);
	return smartt_pifi_rtt_gen(s, p, e, base0, delay);
}

/*
 * smartt_rtt_md() of an ACK that left the base RTT as it was, with
 * adjust_acks = 1 and without saturation (as smartt_fi_rtt()).
 */
static noinline u32 smartt_rtt_md_same(struct smartt_state *s,
				       const struct smartt_params *p,
				       const struct smartt_event *e)
{
	u64 trtt = smartt_trtt(s, p), avg = s->base_rtt + smartt_avg_ns(s), x;
	u32 f;

	if (avg <= trtt)
		return SMARTT_R_MD_HELD;
	if (unlikely(p->k.adjust_acks != 1))
		goto general;
	/* smartt_md_avg(): md <= 10^6, avg < 2^33, so md x avg < 2^53 */
	f = SMARTT_PPM - (u32)div64_u64((u64)p->k.md * (avg - trtt), avg);
	f = max_t(u32, f, p->k.md_min);
	if (unlikely(smartt_mul_overflow(s->cwnd, (u64)f, &x)))
		goto general;
	s->cwnd = div_u64(x, SMARTT_PPM);
	s->last_dec = e->now;
	/* the window may have moved both ways: both bounds */
	return smartt_bound_or(s, p, SMARTT_R_MD | smartt_rtt_apply(s, e, s->inc));
general:
	return smartt_rtt_md(s, p, e, s->base_rtt);
}

/*
 * The smartt rules on an ECN-marked ACK whose RTT sample left the base
 * RTT as it was (smartt_ack_rtt()): no-op, or MD once per base RTT.
 */
static __always_inline u32 smartt_rtt_ecn(struct smartt_state *s,
					  const struct smartt_params *p,
					  const struct smartt_event *e)
{
	u32 base = s->base_rtt;

	if (p->k.fast_inc)
		smartt_fi_reset(s);
	if (e->rtt <= smartt_trtt(s, p))
		return SMARTT_R_NOOP;
	if (e->now - s->last_dec <= base)
		return SMARTT_R_MD_HELD;
	return smartt_rtt_md_same(s, p, e);
}

/*
 * The smartt rules on an unmarked ACK whose RTT sample left the base RTT
 * as it was (smartt_ack_rtt()): FastIncrease, or the increases.
 */
static __always_inline u32 smartt_rtt_inc(struct smartt_state *s,
					  const struct smartt_params *p,
					  const struct smartt_event *e)
{
	u32 base = s->base_rtt;
	u64 trtt;

	if (p->k.fast_inc) {
		if (e->rtt - base > p->k.fast_delay)
			smartt_fi_reset(s);
		else if (smartt_fi_count_up(s, e->bytes))
			return smartt_fast_inc_up(s, p);
	}
	trtt = smartt_trtt(s, p);
	if (e->rtt > trtt)
		return smartt_fi_rtt(s, p, e);
	return smartt_pifi_rtt(s, p, e, trtt);
}

/* Everything after the delay: ignore phase, QuickAdapt check, the rules. */
static __always_inline u32 smartt_ack_rtt_rest(struct smartt_state *s,
					       const struct smartt_params *p,
					       const struct smartt_event *e,
					       u32 base0, u32 delay)
{
	if (unlikely(smartt_ignoring(s)) && (!p->k.ignore_ecn_only || e->ecn))
		return smartt_bound_same(s, p, base0, SMARTT_R_IGNORED);
	if (p->k.qa && unlikely(e->now >= s->qa_end))
		return smartt_qa_paper(s, p, e, base0, delay);
	return smartt_rules_rtt(s, p, e, base0, delay);
}

/* An ACK without an RTT sample or below the base RTT (learns it). */
static noinline u32 smartt_ack_rtt_learn(struct smartt_state *s,
					 const struct smartt_params *p,
					 const struct smartt_event *e)
{
	u32 base0 = s->base_rtt, delay = smartt_delay(s, p, e, SMARTT_RULES_RTT);

	return smartt_ack_rtt_rest(s, p, e, base0, delay);
}

/*
 * The common ACK: an RTT sample at or above the base RTT, which therefore
 * stays as it is (so the bounds need no base-RTT check).
 */
static noinline u32 smartt_ack_rtt(struct smartt_state *s,
				   const struct smartt_params *p,
				   const struct smartt_event *e)
{
	u32 rtt = e->rtt, base = s->base_rtt, d;

	/* !rtt || rtt < base in one compare (base = 0: always the general path) */
	if (unlikely(rtt <= base - 1))
		return smartt_ack_rtt_learn(s, p, e);
	d = rtt - base;
	/* smartt_delay() for this case: d x 1000 x w, ewma_ps = w x 1000 */
	s->avg_delay = div_u64((u64)d * p->ewma_ps + s->avg_delay * p->ewma_keep,
			       SMARTT_PPM);
	if (unlikely(smartt_ignoring(s)) && (!p->k.ignore_ecn_only || e->ecn))
		return SMARTT_R_IGNORED;
	if (unlikely(e->now >= s->qa_end) && p->k.qa)
		return smartt_qa_paper(s, p, e, base, d);
	if (e->ecn)
		return smartt_rtt_ecn(s, p, e);
	return smartt_rtt_inc(s, p, e);
}

/*
 * nscc fulfill_adjustment (reference 2.3.2) when due, then the upper
 * bound; @r: the rules so far (returned with this step's).
 */
static noinline u32 smartt_fulfill(struct smartt_state *s,
				   const struct smartt_params *p, u64 now, u32 r)
{
	r |= SMARTT_R_ADJUST;
	s->cwnd += div64_u64(s->inc, s->cwnd);
	if (now - s->last_adjust >= p->adjust_period) {
		s->cwnd += p->eta;
		s->last_adjust = now;
		r |= SMARTT_R_ETA;
	}
	s->inc = 0;
	s->received = 0;
	return r | smartt_bound_up(s, p, s->base_rtt,
				   smartt_bdp_at(p, s->base_rtt));
}

/*
 * The end of every nscc ACK rule: the bounds (only FastIncrease moved cwnd
 * up, MD clamps to mtu itself, FI/PI only accumulate), then the fulfill
 * check.  Every call here is a tail call.
 */
static __always_inline u32 smartt_nscc_end(struct smartt_state *s,
					   const struct smartt_params *p,
					   const struct smartt_event *e,
					   u32 base0, u32 r)
{
	if (unlikely(s->base_rtt != base0))
		r |= smartt_bound(s, p);
	else if (unlikely(r & SMARTT_R_FAST_INC))
		r |= smartt_bound_up(s, p, base0, smartt_bdp_at(p, s->base_rtt));
	if (unlikely(s->received > p->adjust_bytes ||
		     e->now - s->last_adjust > p->adjust_period))
		return smartt_fulfill(s, p, e->now, r);
	return r;
}

/* nscc MD on the average delay (above the target), then the end. */
static noinline u32 smartt_nscc_md(struct smartt_state *s,
				   const struct smartt_params *p,
				   const struct smartt_event *e, u32 base0)
{
	smartt_md_avg(s, p, s->avg_delay, (u64)p->target_qdelay * SMARTT_PS_PER_NS);
	s->cwnd = max_t(u64, s->cwnd, p->k.mtu);
	s->last_dec = e->now;
	return smartt_nscc_end(s, p, e, base0, SMARTT_R_MD);
}

/* nscc on an ECN-marked ACK at or above the target: MD once per base RTT. */
static noinline u32 smartt_nscc_ecn(struct smartt_state *s,
				    const struct smartt_params *p,
				    const struct smartt_event *e, u32 base0)
{
	smartt_fi_reset(s);
	if (s->avg_delay > (u64)p->target_qdelay * SMARTT_PS_PER_NS &&
	    e->now - s->last_dec > s->base_rtt)
		return smartt_nscc_md(s, p, e, base0);
	return smartt_nscc_end(s, p, e, base0, SMARTT_R_MD_HELD);
}

/* nscc below the target without ECN: FastIncrease or proportional increase. */
static noinline u32 smartt_nscc_below(struct smartt_state *s,
				      const struct smartt_params *p,
				      const struct smartt_event *e,
				      u32 base0, u32 delay)
{
	u32 nb = e->bytes, r = SMARTT_R_PI;

	if (p->k.fast_inc && delay < p->k.fast_delay) {
		if (smartt_fi_count_up(s, nb)) {
			s->cwnd += smartt_mul_fp(p->fast_fp, nb);
			s->flags |= SMARTT_ST_INCREASE;
			return smartt_nscc_end(s, p, e, base0, SMARTT_R_FAST_INC);
		}
		/* INCREASE is clear: smartt_fi_count_up() is true with it */
	} else {
		smartt_fi_reset(s);
	}
	/* alpha x nb x (target - delay), bytes^2 */
	s->inc = smartt_sat_add(s->inc, smartt_mul_fp(p->pi_fp, (u64)nb *
						      (p->target_qdelay - delay)));
	return smartt_nscc_end(s, p, e, base0, r);
}

/* The nscc rules after the ignore phase and the QuickAdapt check. */
static noinline u32 smartt_rules_nscc(struct smartt_state *s,
				      const struct smartt_params *p,
				      const struct smartt_event *e,
				      u32 base0, u32 delay)
{
	if (e->ecn) {
		if (delay < p->target_qdelay)
			return smartt_nscc_end(s, p, e, base0, SMARTT_R_NOOP);
		return smartt_nscc_ecn(s, p, e, base0);
	}
	if (delay < p->target_qdelay)
		return smartt_nscc_below(s, p, e, base0, delay);
	s->inc = smartt_sat_add(s->inc, smartt_mul_fp(p->fi_fp, e->bytes));
	return smartt_nscc_end(s, p, e, base0, SMARTT_R_FI);
}

/* An nscc QuickAdapt window ended: QA, or the rules. */
static noinline u32 smartt_qa_nscc(struct smartt_state *s,
				   const struct smartt_params *p,
				   const struct smartt_event *e,
				   u32 base0, u32 delay)
{
	if (s->qa_end && smartt_qa_wanted(s, p, false, delay)) {
		/* QuickAdapt on an nscc ACK also drops the accumulated increase */
		s->inc = 0;
		s->received = 0;
		return smartt_qa_fire(s, p, e);
	}
	smartt_qa_next(s, p, e);
	return smartt_rules_nscc(s, p, e, base0, delay);
}

/* An nscc ACK without an RTT sample or below the base RTT (learns it). */
static noinline u32 smartt_ack_nscc_learn(struct smartt_state *s,
					  const struct smartt_params *p,
					  const struct smartt_event *e)
{
	u32 nb = e->bytes, delay, base0 = s->base_rtt, rcv;

	rcv = s->received + nb;
	s->received = rcv < nb ? U32_MAX : rcv;
	delay = smartt_delay(s, p, e, SMARTT_RULES_NSCC);
	/* quick_adapt(): the ignore phase swallows ECN-marked ACKs. */
	if (unlikely(p->k.qa && smartt_ignoring(s)) &&
	    (e->ecn || !p->k.ignore_ecn_only)) {
		s->inc = 0;
		s->received = 0;
		return smartt_bound_same(s, p, base0, SMARTT_R_IGNORED);
	}
	if (p->k.qa && unlikely(e->now >= s->qa_end))
		return smartt_qa_nscc(s, p, e, base0, delay);
	return smartt_rules_nscc(s, p, e, base0, delay);
}

/*
 * The nscc rules of an ACK whose RTT sample left the base RTT as it was
 * (smartt_ack_nscc()): no bound for a rule that did not move cwnd up.
 */

/* The end of these rules: the fulfill check (smartt_nscc_end()). */
static __always_inline u32 smartt_nscc_end_same(struct smartt_state *s,
						const struct smartt_params *p,
						const struct smartt_event *e,
						u32 r)
{
	if (unlikely(s->received > p->adjust_bytes ||
		     e->now - s->last_adjust > p->adjust_period))
		return smartt_fulfill(s, p, e->now, r);
	return r;
}

/* inc += gain x @x (Q.16) where the product or the sum saturates. */
static noinline u32 smartt_nscc_acc_sat(struct smartt_state *s,
					const struct smartt_params *p,
					const struct smartt_event *e,
					u64 gain_fp, u64 x, u32 r)
{
	s->inc = smartt_sat_add(s->inc, smartt_mul_fp(gain_fp, x));
	return smartt_nscc_end_same(s, p, e, r);
}

/* inc += gain x @x (Q.16, saturating), then the end. */
static __always_inline u32 smartt_nscc_acc(struct smartt_state *s,
					   const struct smartt_params *p,
					   const struct smartt_event *e,
					   u64 gain_fp, u64 x, u32 r)
{
	u64 y;

	if (unlikely(smartt_mul_overflow(gain_fp, x, &y) ||
		     smartt_add_overflow(s->inc, y >> SMARTT_FP_SHIFT, &y)))
		return smartt_nscc_acc_sat(s, p, e, gain_fp, x, r);
	s->inc = y;
	return smartt_nscc_end_same(s, p, e, r);
}

/* smartt_nscc_md() of the common ACK. */
static noinline u32 smartt_nscc_md_same(struct smartt_state *s,
					const struct smartt_params *p,
					const struct smartt_event *e)
{
	u64 avg = s->avg_delay, t = (u64)p->target_qdelay * SMARTT_PS_PER_NS, x;
	u32 f;

	/* smartt_md_avg(): md <= 10^6, avg < 2^42 ps, so md x avg < 2^62 */
	f = SMARTT_PPM - (u32)div64_u64((u64)p->k.md * (avg - t), avg);
	f = max_t(u32, f, p->k.md_min);
	if (unlikely(smartt_mul_overflow(s->cwnd, (u64)f, &x)))
		return smartt_nscc_md(s, p, e, s->base_rtt);
	s->cwnd = max_t(u64, div_u64(x, SMARTT_PPM), p->k.mtu);
	s->last_dec = e->now;
	return smartt_nscc_end_same(s, p, e, SMARTT_R_MD);
}

/* smartt_nscc_ecn() of the common ACK. */
static noinline u32 smartt_nscc_ecn_same(struct smartt_state *s,
					 const struct smartt_params *p,
					 const struct smartt_event *e)
{
	smartt_fi_reset(s);
	if (s->avg_delay > (u64)p->target_qdelay * SMARTT_PS_PER_NS &&
	    e->now - s->last_dec > s->base_rtt)
		return smartt_nscc_md_same(s, p, e);
	return smartt_nscc_end_same(s, p, e, SMARTT_R_MD_HELD);
}

/* nscc FastIncrease fires on the common ACK: the step, the upper bound. */
static noinline u32 smartt_nscc_fast_same(struct smartt_state *s,
					  const struct smartt_params *p,
					  const struct smartt_event *e)
{
	u64 maxwnd = smartt_maxwnd_bdp(p, smartt_bdp_at(p, s->base_rtt));
	u32 r = SMARTT_R_FAST_INC;

	s->cwnd += smartt_mul_fp(p->fast_fp, e->bytes);
	s->flags |= SMARTT_ST_INCREASE;
	if (s->cwnd > maxwnd) {
		s->cwnd = maxwnd;
		r |= SMARTT_R_CLAMPED;
	}
	return smartt_nscc_end_same(s, p, e, r);
}

/* smartt_nscc_below() of the common ACK (queuing delay @delay). */
static noinline u32 smartt_nscc_below_same(struct smartt_state *s,
					   const struct smartt_params *p,
					   const struct smartt_event *e,
					   u32 delay)
{
	u32 nb = e->bytes;

	if (p->k.fast_inc && delay < p->k.fast_delay) {
		if (smartt_fi_count_up(s, nb))
			return smartt_nscc_fast_same(s, p, e);
		/* INCREASE is clear: smartt_fi_count_up() is true with it */
	} else {
		smartt_fi_reset(s);
	}
	/* alpha x nb x (target - delay): nb x target < 2^32 x 2^30 */
	return smartt_nscc_acc(s, p, e, p->pi_fp,
			       (u64)nb * (p->target_qdelay - delay), SMARTT_R_PI);
}

/*
 * The nscc rules of the common ACK (queuing delay @d) after the ignore
 * phase and the QuickAdapt check.
 */
static __always_inline u32 smartt_rules_nscc_same(struct smartt_state *s,
						  const struct smartt_params *p,
						  const struct smartt_event *e,
						  u32 d)
{
	if (e->ecn) {
		if (d < p->target_qdelay)
			return smartt_nscc_end_same(s, p, e, SMARTT_R_NOOP);
		return smartt_nscc_ecn_same(s, p, e);
	}
	if (d < p->target_qdelay)
		return smartt_nscc_below_same(s, p, e, d);
	return smartt_nscc_acc(s, p, e, p->fi_fp, e->bytes, SMARTT_R_FI);
}

/* A QuickAdapt window of the common nscc ACK ended without firing. */
static noinline u32 smartt_qa_nscc_next(struct smartt_state *s,
					const struct smartt_params *p,
					const struct smartt_event *e, u32 d)
{
	smartt_qa_next(s, p, e);
	return smartt_rules_nscc_same(s, p, e, d);
}

/*
 * An nscc QuickAdapt window ended on the common ACK (smartt_qa_nscc()):
 * maxwnd, computed once, serves the gate and the new window's bound.
 * Without saturation; smartt_qa_nscc() where the new window's product
 * does not fit (nothing is written before).
 */
static noinline u32 smartt_qa_nscc_same(struct smartt_state *s,
					const struct smartt_params *p,
					const struct smartt_event *e, u32 d)
{
	u64 maxwnd, w;
	u32 r = SMARTT_R_QA;

	/* smartt_qa_wanted(), loss = false, for the nscc rules */
	if (!s->qa_end || (!(s->flags & SMARTT_ST_TRIGGER_QA) &&
			   !smartt_qa_delay_trigger(s, p, d)))
		return smartt_qa_nscc_next(s, p, e, d);
	maxwnd = smartt_maxwnd_bdp(p, smartt_bdp_at(p, s->base_rtt));
	if (s->achieved >= (p->k.qa_gate_cwnd ? s->cwnd : maxwnd) >> p->k.qa_gate)
		return smartt_qa_nscc_next(s, p, e, d);
	/* smartt_qa_fire() */
	if (unlikely(smartt_mul_overflow(p->qa_scaling_fp,
					 max_t(u64, s->achieved, p->k.mtu), &w)))
		return smartt_qa_nscc(s, p, e, s->base_rtt, d);
	w >>= SMARTT_FP_SHIFT;
	if (w < p->k.mtu) {
		w = p->k.mtu;
		r |= SMARTT_R_CLAMPED;
	} else if (w > maxwnd) {
		w = maxwnd;
		r |= SMARTT_R_CLAMPED;
	}
	s->cwnd = w;
	/* QuickAdapt on an nscc ACK also drops the accumulated increase */
	s->inc = 0;
	s->received = 0;
	s->bytes_to_ignore = e->in_flight;
	s->bytes_ignored = 0;
	s->flags &= ~SMARTT_ST_TRIGGER_QA;
	smartt_qa_next(s, p, e);
	return r;
}

/*
 * The common nscc ACK: an RTT sample at or above the base RTT, which
 * therefore stays as it is; as smartt_ack_nscc_learn().
 */
static noinline u32 smartt_ack_nscc(struct smartt_state *s,
				    const struct smartt_params *p,
				    const struct smartt_event *e)
{
	u32 rtt = e->rtt, base = s->base_rtt, nb = e->bytes, rcv, d;
	u64 x;

	/* !rtt || rtt < base in one compare (base = 0: always the general path) */
	if (unlikely(rtt <= base - 1))
		return smartt_ack_nscc_learn(s, p, e);
	rcv = s->received + nb;
	s->received = rcv < nb ? U32_MAX : rcv;
	d = rtt - base;
	/*
	 * smartt_delay(): the sample in ps, the delay or, for a stale high
	 * delay, base_rtt / 4 (< 2^42); x weight (<= 10^6) < 2^62.
	 */
	x = (u64)d * SMARTT_PS_PER_NS;
	if (!e->ecn && d > p->target_qdelay)
		x = (u64)base * (SMARTT_PS_PER_NS / 4);
	s->avg_delay = div_u64(x * p->k.delay_ewma + s->avg_delay * p->ewma_keep,
			       SMARTT_PPM);
	/* quick_adapt(): the ignore phase swallows ECN-marked ACKs. */
	if (unlikely(smartt_ignoring(s)) && p->k.qa &&
	    (e->ecn || !p->k.ignore_ecn_only)) {
		s->inc = 0;
		s->received = 0;
		return SMARTT_R_IGNORED;
	}
	if (unlikely(e->now >= s->qa_end) && p->k.qa)
		return smartt_qa_nscc_same(s, p, e, d);
	return smartt_rules_nscc_same(s, p, e, d);
}

/**
 * smartt_on_ack() - one ACK
 * @s: state
 * @p: parameters
 * @e: the ACK: time, RTT sample (0 = none), ECN echo, newly acked bytes,
 *	bytes in flight after it
 *
 * Return: SMARTT_R_* bits of the rules that fired.
 */
u32 smartt_on_ack(struct smartt_state *s, const struct smartt_params *p,
		  const struct smartt_event *e)
{
	/* u64 byte counters: 2^64 B is 146 years at 4 Tb/s, no wrap. */
	s->achieved += e->bytes;
	s->bytes_ignored += e->bytes;
	/* the TCP congestion control's default profile ("smartt") first */
	if (p->k.rules == SMARTT_RULES_RTT)
		return smartt_ack_rtt(s, p, e);
	if (p->k.rules == SMARTT_RULES_NSCC)
		return smartt_ack_nscc(s, p, e);
	return smartt_ack_2024(s, p, e);
}

/*
 * Trim or (2024) timeout in the papers' Algorithm 1: cwnd -= size, ask for
 * QuickAdapt and run it unless in the ignore phase.
 */
static u32 smartt_loss_paper(struct smartt_state *s, const struct smartt_params *p,
			     const struct smartt_event *e)
{
	u32 r = SMARTT_R_LOSS_DEC;

	s->cwnd = smartt_sat_sub(s->cwnd, e->bytes);
	s->flags |= SMARTT_ST_TRIGGER_QA;
	if (!smartt_ignoring(s))
		r |= smartt_quick_adapt(s, p, e);
	return smartt_bound_or(s, p, r);
}

/**
 * smartt_on_nack() - a trimmed packet came back as a NACK
 * @s: state
 * @p: parameters
 * @e: the NACK: time, RTT of the trimmed packet (0 = none), the packet's
 *	size, bytes in flight after removing it
 *
 * Return: SMARTT_R_* bits of the rules that fired.
 */
u32 smartt_on_nack(struct smartt_state *s, const struct smartt_params *p,
		   const struct smartt_event *e)
{
	u32 r;

	s->bytes_ignored = smartt_sat_add(s->bytes_ignored, e->bytes);
	if (p->k.rules != SMARTT_RULES_NSCC)
		return smartt_loss_paper(s, p, e);
	if (e->rtt && p->k.learn_base_rtt && e->rtt < s->base_rtt)
		s->base_rtt = e->rtt;

	/* Reference 2.4: a trim is a delay sample of one network RTT. */
	smartt_ewma(s, p, (u64)p->k.network_rtt * SMARTT_PS_PER_NS);
	s->flags |= SMARTT_ST_TRIGGER_QA;
	if (p->k.qa && smartt_ignoring(s)) {
		s->inc = 0;
		s->received = 0;
		return SMARTT_R_IGNORED | smartt_bound(s, p);
	}
	r = smartt_quick_adapt(s, p, e);
	if (r) {
		s->inc = 0;
		s->received = 0;
		return r;
	}
	s->cwnd = smartt_sat_sub(s->cwnd, e->bytes);
	return SMARTT_R_LOSS_DEC | smartt_bound(s, p);
}

/**
 * smartt_on_timeout() - retransmission timeout of one packet
 * @s: state
 * @p: parameters
 * @e: the timeout: time, the lost packet's size, bytes in flight after
 *	removing it
 *
 * With qa_on_timeout (smartt-2024: "trims or timeouts") a timeout is handled
 * like a trim; otherwise cwnd -= size (reference 2.5, 3.6).
 *
 * Return: SMARTT_R_* bits of the rules that fired.
 */
u32 smartt_on_timeout(struct smartt_state *s, const struct smartt_params *p,
		      const struct smartt_event *e)
{
	if (p->k.qa_on_timeout) {
		s->bytes_ignored = smartt_sat_add(s->bytes_ignored, e->bytes);
		return smartt_loss_paper(s, p, e);
	}
	s->cwnd = smartt_sat_sub(s->cwnd, e->bytes);
	return SMARTT_R_LOSS_DEC | smartt_bound(s, p);
}
