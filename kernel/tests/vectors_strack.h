/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test vectors for kernel/algo/strack.c, shared by selftests/unit/
 * unit_strack.c and the KUnit suite strack_kunit.c.
 *
 * Defaults (Table 1 on the reference network): 100 Gb/s, base RTT =
 * net_base_rtt = target_Qdelay = 12000 ns, Qhigh = 3 x 12000 = 36000 ns,
 * BDP = 150000 B so bdp_sf = 1, max_cwnd = 1.5 x 150000 = 225000, mtu 4096,
 * beta 5, alpha 4, eta 0.15 (Q.16 9830), gamma 0.8, ewma 0.125,
 * achievedBDP window = base_rtt + target = 24000 ns, gate 225000 >> 3 =
 * 28125.
 */
#ifndef SMARTT_VECTORS_STRACK_H
#define SMARTT_VECTORS_STRACK_H

#include "vectors_common.h"

struct strack_vec_step {
	u64 now;
	u32 rtt;
	u8 ecn;
	u32 bytes;
	u64 cwnd;	/* expected */
	u32 rules;	/* expected STRACK_R_* */
};

struct strack_vec {
	const char *name;
	u64 cwnd0;
	u64 avg_delay0_ns;
	u32 base_rtt;	/* knob override, 0 = default */
	unsigned int nsteps;
	struct strack_vec_step steps[4];
};

static const struct strack_vec strack_vectors[] = {
	/*
	 * Line 7, no ECN and delay 38000 > Qhigh: cwnd_pkts += beta / cwnd_pkts
	 * per packet, in bytes 5 x 4096 x 4096 / 100000 = 838.86 -> 100838.
	 */
	{ "beta", 100000, 0, 0, 1, {
		{ 1000, 50000, 0, 4096, 100838, STRACK_R_BETA },
	} },
	/*
	 * Line 9, no ECN and delay 2000 < target: alpha x (target - delay) /
	 * cwnd with alpha = 4 x bdp_sf x delay_sf / base_rtt = 4 / 12000 ns:
	 * 4 x 4096 x 4096 x 10000 / 12000 = 55924053 / 100000 = 559 -> 100559.
	 */
	{ "alpha", 100000, 0, 0, 1, {
		{ 1000, 14000, 0, 4096, 100559, STRACK_R_ALPHA },
	} },
	/*
	 * Line 15: avg 24000 > target, delay 24000 > target (ECN), last
	 * decrease > base RTT ago: x max(1 - 0.8 x 12000/24000, 0.5) = 0.6 ->
	 * 60000; line 20 fairness shuffle (never done): + 0.15 x 4096 = 614.
	 * 5000 ns later: a decrease would be due but not allowed (< base RTT).
	 */
	{ "md_and_eta", 100000, 24000, 0, 2, {
		{ 20000, 36000, 1, 4096, 60614, STRACK_R_MD | STRACK_R_ETA },
		{ 25000, 36000, 1, 4096, 60614, STRACK_R_HOLD },
	} },
	/*
	 * Line 12, achieved BDP: window opened at t=1000; the ACK at 26000
	 * closes it (25000 > 24000) with 3 x 4096 = 12288 acked; delay 48000
	 * > Qhigh and 12288 < 28125: cwnd = 12288, then + eta 614 = 12902.
	 * The first two ACKs are within one base RTT of t=0: decrease held.
	 */
	{ "achieved_bdp", 200000, 48000, 0, 3, {
		{ 1000, 60000, 1, 4096, 200000, STRACK_R_HOLD },
		{ 10000, 60000, 1, 4096, 200000, STRACK_R_HOLD },
		{ 26000, 60000, 1, 4096, 12902, STRACK_R_ACHIEVED | STRACK_R_ETA },
	} },
	/* ECN with delay below target: the window stays (path change only). */
	{ "ecn_low_delay", 100000, 0, 0, 1, {
		{ 1000, 13000, 1, 4096, 100000, 0 },
	} },
	/*
	 * bdp_sf follows the path: base RTT 6000 -> BDP 75000, bdp_sf 0.5,
	 * max_cwnd 112500.  beta: 0.5 x 5 x 4096 x 4096 / 50000 = 838.86 ->
	 * 50838 (delay 40000 > Qhigh 36000).
	 */
	{ "beta_path_scaled", 50000, 0, 6000, 1, {
		{ 1000, 46000, 0, 4096, 50838, STRACK_R_BETA },
	} },
};

/* Return: first mismatching step, nsteps if all match, -1 bad knobs. */
static inline int strack_vec_run(const struct strack_vec *v, u64 *cwnd,
				 u32 *rules)
{
	struct strack_knobs k = strack_defaults;
	struct strack_params p;
	struct strack_state s;
	unsigned int i;

	if (v->base_rtt)
		k.base_rtt = v->base_rtt;
	if (strack_params_init(&p, &k))
		return -1;
	strack_init(&s, &p, v->cwnd0);
	s.avg_delay = v->avg_delay0_ns * 1000;
	for (i = 0; i < v->nsteps; i++) {
		const struct strack_vec_step *st = &v->steps[i];

		*rules = strack_on_ack(&s, &p, st->now, st->rtt, st->ecn, st->bytes);
		*cwnd = s.cwnd;
		if (*cwnd != st->cwnd || *rules != st->rules)
			return i;
	}
	return i;
}

/*
 * Random flows at 1 Gb/s .. 1.6 Tb/s and 1 us .. 10 ms: after every ACK
 * the window is within [mtu, max_cwnd].  Returns a digest of the run.
 */
static inline u64 strack_vec_random_run(u64 seed, int events, int *violations)
{
	static const u32 rates[] = { 1000, 10000, 100000, 400000, 800000, 1600000 };
	static const u32 rtts[] = { 1000, 4000, 12000, 100000, 1000000, 10000000 };
	struct strack_knobs k = strack_defaults;
	struct strack_params p;
	struct strack_state s;
	u64 x = seed, now = 0, digest = 0;
	int i;

	k.link_mbps = rates[vec_mod(smartt_prng_next(&x), ARRAY_SIZE(rates))];
	k.network_rtt = rtts[vec_mod(smartt_prng_next(&x), ARRAY_SIZE(rtts))];
	k.mtu = (smartt_prng_next(&x) & 1) ? 9000 : 1500;
	k.scale_path = smartt_prng_next(&x) & 1;
	if (strack_params_init(&p, &k))
		return 0;
	strack_init(&s, &p, vec_mod(smartt_prng_next(&x), 3 * strack_maxwnd(&p, p.base_rtt0)));
	for (i = 0; i < events; i++) {
		u64 r = smartt_prng_next(&x);
		u32 rtt = (r & 7) ? (u32)min_t(u64, p.base_rtt0 / 2 +
			vec_mod(r >> 16, 20ULL * p.base_rtt0), U32_MAX) : 0;
		u32 bytes = (r >> 40) & 0xff ? (u32)vec_mod(r >> 44, 4 * k.mtu) + 1 :
			    (u32)(r >> 32);

		now += vec_mod(r >> 3, 2 * k.network_rtt);
		strack_on_ack(&s, &p, now, rtt, (r >> 12) & 1, bytes);
		if (s.cwnd < k.mtu || s.cwnd > strack_maxwnd(&p, s.base_rtt))
			(*violations)++;
		digest = digest * 31 + s.cwnd;
	}
	return digest;
}

#endif /* SMARTT_VECTORS_STRACK_H */
