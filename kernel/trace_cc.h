/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the TCP congestion controls smartt and strack: one event
 * per congestion decision (which rules fired, window before and after, RTT,
 * CE bytes).  /sys/kernel/tracing/events/smartt/smartt_cc.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smartt

#if !defined(SMARTT_TRACE_CC_H) || defined(TRACE_HEADER_MULTI_READ)
#define SMARTT_TRACE_CC_H

#include <linux/tracepoint.h>
#include <linux/tcp.h>
#include <net/inet_sock.h>

/**
 * smartt_cc - one congestion-control decision
 * @sk: socket
 * @algo: SMARTT_CC_ALGO_*
 * @ev: SMARTT_CC_EV_*
 * @rules: SMARTT_R_* or STRACK_R_* bits the core returned
 * @cwnd_before: window before the event, bytes
 * @cwnd_after: window after the event, bytes
 * @rtt: RTT sample, ns (0 = none)
 * @base_rtt: base RTT after the event, ns
 * @bytes: bytes acked (ACK) or lost (LOSS, RTO); idle jiffies (IDLE)
 * @ce_bytes: of @bytes, those delivered with a CE echo
 * @in_flight: bytes in flight
 *
 * The record also holds the socket's tcp_mstamp (now_us), the clock the
 * core read for the event: the trace buffer's own timestamp is taken
 * later, by a delay that varies with the load.
 */
TRACE_EVENT(smartt_cc,
	    TP_PROTO(const struct sock *sk, u8 algo, u8 ev, u32 rules,
		     u64 cwnd_before, u64 cwnd_after, u32 rtt, u32 base_rtt,
		     u32 bytes, u32 ce_bytes, u64 in_flight),
	    TP_ARGS(sk, algo, ev, rules, cwnd_before, cwnd_after, rtt, base_rtt,
		    bytes, ce_bytes, in_flight),
	    TP_STRUCT__entry(__field(u64, now_us)
			     __field(u64, cwnd_before)
			     __field(u64, cwnd_after)
			     __field(u64, in_flight)
			     __field(u32, rules)
			     __field(u32, rtt)
			     __field(u32, base_rtt)
			     __field(u32, bytes)
			     __field(u32, ce_bytes)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, algo)
			     __field(u8, ev)),
	    TP_fast_assign(__entry->now_us = tcp_sk(sk)->tcp_mstamp;
			   __entry->cwnd_before = cwnd_before;
			   __entry->cwnd_after = cwnd_after;
			   __entry->in_flight = in_flight;
			   __entry->rules = rules;
			   __entry->rtt = rtt;
			   __entry->base_rtt = base_rtt;
			   __entry->bytes = bytes;
			   __entry->ce_bytes = ce_bytes;
			   __entry->sport = ntohs(inet_sk(sk)->inet_sport);
			   __entry->dport = ntohs(inet_sk(sk)->inet_dport);
			   __entry->algo = algo;
			   __entry->ev = ev;),
	    TP_printk("%s %s sport=%u dport=%u rules=%#x cwnd=%llu->%llu rtt=%u base_rtt=%u bytes=%u ce=%u inflight=%llu now_us=%llu",
		      __entry->algo ? "strack" : "smartt",
		      __print_symbolic(__entry->ev, { 0, "ack" }, { 1, "loss" },
				       { 2, "rto" }, { 3, "undo" }, { 4, "init" },
				       { 5, "idle" }, { 6, "noecn" }),
		      __entry->sport, __entry->dport, __entry->rules,
		      __entry->cwnd_before, __entry->cwnd_after, __entry->rtt,
		      __entry->base_rtt, __entry->bytes, __entry->ce_bytes,
		      __entry->in_flight, __entry->now_us)
);

#endif /* SMARTT_TRACE_CC_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_cc
#include <trace/define_trace.h>
