// SPDX-License-Identifier: GPL-2.0
/*
 * The TCP congestion controls' configuration (see tcpcc.h): defaults,
 * parsing of the knob-override strings and the parameters built from the
 * values.  Nothing is clamped: a value out of its range fails the build.
 */
#include "tcpcc.h"

/**
 * smartt_cc_vals_default() - the values a netns (or a BPF load) starts with
 * @v: filled
 */
void smartt_cc_vals_default(struct smartt_cc_vals *v)
{
	*v = (struct smartt_cc_vals){
		.profile = SMARTT_PROFILE_SMARTT,
		.network_rtt_us = SMARTT_CC_DEF_NETWORK_RTT_US,
		.mss = SMARTT_CC_DEF_MSS,
		.start = SMARTT_CC_START_IW,
		.min_cwnd = SMARTT_CC_DEF_MIN_CWND,
		.strack_loss = SMARTT_CC_STRACK_LOSS_MD,
		.host_target_us = SMARTT_HD_DEF_TARGET_US,
	};
}

static int smartt_cc_digit(char c, unsigned int base)
{
	unsigned int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return d < base ? (int)d : -1;
}

/*
 * An unsigned integer of the whole of [s, end) as kstrtou64() reads one:
 * an optional '+', then decimal, 0x-prefixed hexadecimal or 0-prefixed
 * octal when @base is 0, at least one digit, no overflow.
 */
static int smartt_cc_parse_u64(const char *s, const char *end,
			       unsigned int base, u64 *out)
{
	u64 v = 0;
	int d;

	if (s < end && *s == '+')
		s++;
	if (!base) {
		base = 10;
		if (end - s > 1 && s[0] == '0') {
			base = 8;
			if (s[1] == 'x' || s[1] == 'X') {
				base = 16;
				s += 2;
			}
		}
	}
	if (s >= end)
		return SMARTT_EINVAL;
	for (; s < end; s++) {
		d = smartt_cc_digit(*s, base);
		if (d < 0 || v > (U64_MAX - d) / base)
			return SMARTT_EINVAL;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/**
 * smartt_cc_parse_num() - a knob value: "12", "0x10", "1.5", "0.0125"
 * @s: NUL-terminated text; one trailing newline is accepted
 * @frac: the knob is a fraction (ppm): integers are scaled by 10^6 and
 *	up to six decimals are accepted
 * @out: the raw value
 *
 * Return: 0, or SMARTT_EINVAL for anything else (a decimal point in an
 * integer knob, a seventh decimal, a value beyond 32 bits).
 */
int smartt_cc_parse_num(const char *s, bool frac, u32 *out)
{
	const char *end = s, *dot = NULL;
	u64 v, f = 0, scale = SMARTT_PPM;

	for (; *end; end++)
		if (*end == '.' && !dot)
			dot = end;
	if (end > s && end[-1] == '\n')
		end--;
	if (!dot) {
		if (smartt_cc_parse_u64(s, end, 0, &v))
			return SMARTT_EINVAL;
		if (frac && v > U32_MAX / SMARTT_PPM)
			return SMARTT_EINVAL;
		if (frac)
			v *= SMARTT_PPM;
		if (v > U32_MAX)
			return SMARTT_EINVAL;
		*out = v;
		return 0;
	}
	if (!frac || dot == s || dot - s >= 16 ||
	    smartt_cc_parse_u64(s, dot, 10, &v) || v > U32_MAX / SMARTT_PPM)
		return SMARTT_EINVAL;
	for (s = dot + 1; s < end; s++) {
		if (*s < '0' || *s > '9' || scale == 1)
			return SMARTT_EINVAL;
		scale /= 10;
		f += (*s - '0') * scale;
	}
	*out = v * SMARTT_PPM + f;
	return 0;
}

static bool smartt_cc_is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ',';
}

/**
 * smartt_cc_apply_text() - apply "name=value ..." overrides to core knobs
 * @text: NUL-terminated, at most %SMARTT_CC_KNOBS_LEN - 1 characters are
 *	read; entries are separated by spaces, tabs, newlines or commas
 * @strack: @knobs is a struct strack_knobs, else a struct smartt_knobs
 * @knobs: the knobs to change (left half-changed on error: callers work
 *	on a copy)
 *
 * Return: 0, or SMARTT_EINVAL for an entry without '=', an unknown name
 * or a bad number.
 */
int smartt_cc_apply_text(const char *text, bool strack, void *knobs)
{
	char tok[SMARTT_CC_KNOBS_LEN];
	unsigned int i = 0, n, eq;

	while (i < SMARTT_CC_KNOBS_LEN - 1 && text[i]) {
		bool frac;
		int k;
		u32 v;

		if (smartt_cc_is_sep(text[i])) {
			i++;
			continue;
		}
		n = 0;
		eq = 0;
		while (i < SMARTT_CC_KNOBS_LEN - 1 && text[i] &&
		       !smartt_cc_is_sep(text[i])) {
			if (text[i] == '=' && !eq)
				eq = n + 1;
			tok[n++] = text[i++];
		}
		tok[n] = '\0';
		if (!eq)
			return SMARTT_EINVAL;
		tok[eq - 1] = '\0';
		k = strack ? strack_knob_find(tok) : smartt_knob_find(tok);
		if (k < 0)
			return SMARTT_EINVAL;
		frac = strack ? strack_knob_descs[k].frac : smartt_knob_descs[k].frac;
		if (smartt_cc_parse_num(tok + eq, frac, &v))
			return SMARTT_EINVAL;
		if (strack)
			strack_knob_set(knobs, k, v);
		else
			smartt_knob_set(knobs, k, v);
	}
	return 0;
}

/**
 * smartt_cc_params_build() - the configuration of a set of values
 * @cp: filled on success
 * @v: the values
 *
 * The profile's knobs, then the values (mss, link rate, base and network
 * RTT; no trimming: TCP's loss plays its role), then the override strings,
 * validated by the cores.
 *
 * Return: 0, or SMARTT_EINVAL if any value is out of range.
 */
int smartt_cc_params_build(struct smartt_cc_params *cp,
			   const struct smartt_cc_vals *v)
{
	u32 link = v->link_mbps ? v->link_mbps : SMARTT_CC_PLACEHOLDER_MBPS;
	struct smartt_knobs sk;
	struct strack_knobs tk;

	if (v->profile >= SMARTT_PROFILE_COUNT || v->start > SMARTT_CC_START_BDP ||
	    v->link_mbps > SMARTT_CC_LINK_MAX_MBPS ||
	    v->base_rtt_us > SMARTT_CC_RTT_MAX_US ||
	    !v->network_rtt_us || v->network_rtt_us > SMARTT_CC_RTT_MAX_US ||
	    !v->min_cwnd || v->min_cwnd > SMARTT_CC_MIN_CWND_MAX ||
	    v->strack_loss > SMARTT_CC_STRACK_LOSS_MD ||
	    v->host_target_us > SMARTT_HD_TARGET_MAX_US)
		return SMARTT_EINVAL;

	sk = smartt_profiles[v->profile];
	sk.mtu = v->mss;
	sk.link_mbps = link;
	sk.base_rtt = v->base_rtt_us * 1000;
	sk.learn_base_rtt = !v->base_rtt_us;
	sk.network_rtt = v->network_rtt_us * 1000;
	sk.trimming = 0;
	tk = strack_defaults;
	tk.mtu = v->mss;
	tk.link_mbps = link;
	tk.base_rtt = sk.base_rtt;
	tk.learn_base_rtt = sk.learn_base_rtt;
	tk.network_rtt = sk.network_rtt;

	if (smartt_cc_apply_text(v->smartt_knobs, false, &sk) ||
	    smartt_cc_apply_text(v->strack_knobs, true, &tk))
		return SMARTT_EINVAL;
	if (smartt_params_init(&cp->sp, &sk) || strack_params_init(&cp->tp, &tk))
		return SMARTT_EINVAL;
	cp->link_mbps = v->link_mbps;
	cp->base_rtt_ns = v->base_rtt_us * 1000;
	cp->start = v->start;
	cp->min_cwnd = v->min_cwnd;
	cp->strack_loss = v->strack_loss;
	cp->host_target_ns = v->host_target_us * 1000;
	return 0;
}
