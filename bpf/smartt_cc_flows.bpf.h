/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt_cc_flows: the per-flow state of the BPF congestion controls, in
 * socket-local storage pinned by name, so that the congestion controls
 * (smartt_cc.bpf.h) and the flow iterator (smartt_cc_iter.bpf.c) share
 * one map.  Include after vmlinux.h, bpf_helpers.h and smartt_cc.h.
 */
#ifndef SMARTT_CC_FLOWS_BPF_H
#define SMARTT_CC_FLOWS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct smartt_cc_flow);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} smartt_cc_flows SEC(".maps");

/*
 * The bytes a socket has below TCP: sk_wmem_alloc less its bias of one
 * (skb truesize of what TCP handed down and nothing downstream consumed
 * yet: qdisc, driver, NIC ring until TX completion).  The host-delay
 * split's input (hostdelay.h).
 */
static __always_inline u32 cc_below_tcp(const struct sock *sk)
{
	int w = sk->sk_wmem_alloc.refs.counter;

	return w > 1 ? w - 1 : 0;
}

#endif /* SMARTT_CC_FLOWS_BPF_H */
