// SPDX-License-Identifier: GPL-2.0
/*
 * smartt_cc_iter: a BPF iterator over the TCP sockets of the reader's
 * network namespace that writes one struct smartt_cc_flow_rec for every
 * flow run by a smartt congestion control: the module's smartt and strack
 * (their private area, icsk_ca_priv, as the module lays it out) and the
 * BPF bpf_smartt, bpf_strack and bpf_dctcp (their socket-local storage).
 * `smarttctl cc flows` reads it.  Documentation/bpf-cc.rst.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "smartt_cc.h"
#include "smartt_cc_flows.bpf.h"	/* reused from its pin */

char LICENSE[] SEC("license") = "GPL";

/* One record under construction: larger than the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct smartt_cc_flow_rec);
} smartt_cc_rec SEC(".maps");

#define AF_INET6	10

/* SMARTT_CC_REC_* for a congestion control's name, 0 if not ours. */
static __always_inline u32 cc_kind(const char *n)
{
	if (n[0] == 'b' && n[1] == 'p' && n[2] == 'f' && n[3] == '_') {
		n += 4;
		if ((n[0] == 's' && n[1] == 'm' && n[2] == 'a' && n[3] == 'r' &&
		     n[4] == 't' && n[5] == 't' && !n[6]) ||
		    (n[0] == 's' && n[1] == 't' && n[2] == 'r' && n[3] == 'a' &&
		     n[4] == 'c' && n[5] == 'k' && !n[6]) ||
		    (n[0] == 'd' && n[1] == 'c' && n[2] == 't' && n[3] == 'c' &&
		     n[4] == 'p' && !n[5]))
			return SMARTT_CC_REC_BPF;
		return 0;
	}
	if ((n[0] == 's' && n[1] == 'm' && n[2] == 'a' && n[3] == 'r' &&
	     n[4] == 't' && n[5] == 't' && !n[6]) ||
	    (n[0] == 's' && n[1] == 't' && n[2] == 'r' && n[3] == 'a' &&
	     n[4] == 'c' && n[5] == 'k' && !n[6]))
		return SMARTT_CC_REC_MODULE;
	return 0;
}

SEC("iter/tcp")
int smartt_cc_dump(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct seq_file *seq = ctx->meta->seq;
	struct smartt_cc_flow_rec *r;
	struct smartt_cc_flow *f;
	struct tcp_sock *tp;
	u32 zero = 0;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	r = bpf_map_lookup_elem(&smartt_cc_rec, &zero);
	if (!r)
		return 0;
	__builtin_memset(r, 0, sizeof(*r));
	bpf_probe_read_kernel_str(r->ca, sizeof(r->ca),
				  BPF_CORE_READ(tp, inet_conn.icsk_ca_ops, name));
	r->kind = cc_kind(r->ca);
	if (!r->kind)
		return 0;
	if (r->kind == SMARTT_CC_REC_MODULE) {
		bpf_probe_read_kernel(r->priv, sizeof(r->priv),
				      tp->inet_conn.icsk_ca_priv);
	} else {
		f = bpf_sk_storage_get(&smartt_cc_flows, tp, NULL, 0);
		if (f)
			r->flow = *f;
	}
	r->family = skc->skc_family;
	r->sport = skc->skc_num;
	r->dport = bpf_ntohs(skc->skc_dport);
	r->state = skc->skc_state;
	r->ca_state = BPF_CORE_READ_BITFIELD_PROBED(&tp->inet_conn, icsk_ca_state);
	if (r->family == AF_INET6) {
		bpf_probe_read_kernel(r->saddr, 16, &skc->skc_v6_rcv_saddr);
		bpf_probe_read_kernel(r->daddr, 16, &skc->skc_v6_daddr);
	} else {
		bpf_probe_read_kernel(r->saddr, 4, &skc->skc_rcv_saddr);
		bpf_probe_read_kernel(r->daddr, 4, &skc->skc_daddr);
	}
	r->snd_cwnd = tp->snd_cwnd;
	r->mss = tp->mss_cache;
	r->srtt_us = tp->srtt_us >> 3;
	r->min_rtt_us = tp->rtt_min.s[0].v;
	r->delivered = tp->delivered;
	r->delivered_ce = tp->delivered_ce;
	r->total_retrans = tp->total_retrans;
	r->wmem = cc_below_tcp(&tp->inet_conn.icsk_inet.sk);
	r->rate_delivered = tp->rate_delivered;
	r->rate_interval_us = tp->rate_interval_us;
	r->pacing_rate = tp->inet_conn.icsk_inet.sk.sk_pacing_rate;
	bpf_seq_write(seq, r, sizeof(*r));
	return 0;
}
