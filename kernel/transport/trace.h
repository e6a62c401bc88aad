/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the smartt transport's loss recovery and congestion
 * control: /sys/kernel/tracing/events/smartt_transport/.  smartt_loss: a
 * packet declared lost, and why; smartt_retransmit: a lost packet sent
 * again; smartt_probe: a probe sent, or its answer and what was inferred
 * from it; smartt_transport_cc: a congestion-control decision;
 * smartt_ack_cc: an ACK_CC the core took, as a smartt-replay ack_cc line.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smartt_transport

#if !defined(SMARTT_TRANSPORT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SMARTT_TRANSPORT_TRACE_H

#include <linux/tracepoint.h>

#include "algo/uet_ack.h"

/**
 * smartt_loss - a packet was declared lost
 * @sport: transport port of the socket
 * @dport: transport port of the peer
 * @psn: the packet
 * @why: SMARTT_LOSS_* (nack, sack, ooo, probe, rto)
 * @snd_una: lowest unacknowledged PSN
 * @snd_nxt: next PSN
 * @in_flight: bytes in flight before the packet left them
 * @cwnd: window, bytes
 */
TRACE_EVENT(smartt_loss,
	    TP_PROTO(u16 sport, u16 dport, u64 psn, u8 why, u64 snd_una,
		     u64 snd_nxt, u64 in_flight, u64 cwnd),
	    TP_ARGS(sport, dport, psn, why, snd_una, snd_nxt, in_flight, cwnd),
	    TP_STRUCT__entry(__field(u64, psn)
			     __field(u64, snd_una)
			     __field(u64, snd_nxt)
			     __field(u64, in_flight)
			     __field(u64, cwnd)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, why)),
	    TP_fast_assign(__entry->psn = psn;
			   __entry->snd_una = snd_una;
			   __entry->snd_nxt = snd_nxt;
			   __entry->in_flight = in_flight;
			   __entry->cwnd = cwnd;
			   __entry->sport = sport;
			   __entry->dport = dport;
			   __entry->why = why;),
	    TP_printk("sport=%u dport=%u psn=%llu why=%s una=%llu nxt=%llu inflight=%llu cwnd=%llu",
		      __entry->sport, __entry->dport, __entry->psn,
		      __print_symbolic(__entry->why, { 0, "nack" }, { 1, "sack" },
				       { 2, "ooo" }, { 3, "probe" }, { 4, "rto" }),
		      __entry->snd_una, __entry->snd_nxt, __entry->in_flight,
		      __entry->cwnd)
);

/**
 * smartt_retransmit - a packet declared lost is sent again
 * @sport: transport port of the socket
 * @dport: transport port of the peer
 * @psn: the packet
 * @lost: packets still waiting for retransmission after this one
 * @in_flight: bytes in flight, this one included
 * @cwnd: window, bytes
 */
TRACE_EVENT(smartt_retransmit,
	    TP_PROTO(u16 sport, u16 dport, u64 psn, u32 lost, u64 in_flight,
		     u64 cwnd),
	    TP_ARGS(sport, dport, psn, lost, in_flight, cwnd),
	    TP_STRUCT__entry(__field(u64, psn)
			     __field(u64, in_flight)
			     __field(u64, cwnd)
			     __field(u32, lost)
			     __field(u16, sport)
			     __field(u16, dport)),
	    TP_fast_assign(__entry->psn = psn;
			   __entry->in_flight = in_flight;
			   __entry->cwnd = cwnd;
			   __entry->lost = lost;
			   __entry->sport = sport;
			   __entry->dport = dport;),
	    TP_printk("sport=%u dport=%u psn=%llu lost=%u inflight=%llu cwnd=%llu",
		      __entry->sport, __entry->dport, __entry->psn, __entry->lost,
		      __entry->in_flight, __entry->cwnd)
);

/**
 * smartt_probe - a probe was sent, or its answer came back
 * @sport: transport port of the socket
 * @dport: transport port of the peer
 * @verdict: SMARTT_PROBE_V_* (sent; on an answer: loss, late, acked,
 *	acked_since, stale, no_rtt)
 * @snd_una: lowest unacknowledged PSN
 * @snd_nxt: next PSN
 * @rtt: the answer's RTT, ns (0: sent, or no echoed send time)
 * @base: the base RTT it is compared with, ns
 * @age: ns since the probe left (0: sent, or no probe outstanding)
 * @lost: packets declared lost from the answer
 */
TRACE_EVENT(smartt_probe,
	    TP_PROTO(u16 sport, u16 dport, u8 verdict, u64 snd_una, u64 snd_nxt,
		     u64 rtt, u64 base, u64 age, u32 lost),
	    TP_ARGS(sport, dport, verdict, snd_una, snd_nxt, rtt, base, age, lost),
	    TP_STRUCT__entry(__field(u64, snd_una)
			     __field(u64, snd_nxt)
			     __field(u64, rtt)
			     __field(u64, base)
			     __field(u64, age)
			     __field(u32, lost)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, verdict)),
	    TP_fast_assign(__entry->snd_una = snd_una;
			   __entry->snd_nxt = snd_nxt;
			   __entry->rtt = rtt;
			   __entry->base = base;
			   __entry->age = age;
			   __entry->lost = lost;
			   __entry->sport = sport;
			   __entry->dport = dport;
			   __entry->verdict = verdict;),
	    TP_printk("sport=%u dport=%u %s una=%llu nxt=%llu rtt=%llu base=%llu age=%llu lost=%u",
		      __entry->sport, __entry->dport,
		      __print_symbolic(__entry->verdict, { 0, "sent" }, { 1, "loss" },
				       { 2, "late" }, { 3, "acked" },
				       { 4, "acked_since" }, { 5, "stale" },
				       { 6, "no_rtt" }),
		      __entry->snd_una, __entry->snd_nxt, __entry->rtt,
		      __entry->base, __entry->age, __entry->lost)
);

/**
 * smartt_transport_cc - a congestion-control core handled an event
 * @sport: transport port of the socket
 * @dport: transport port of the peer
 * @algo: 0 SMaRTT core, 1 STrack core
 * @ev: 0 ACK, 1 NACK (trim), 2 RTO
 * @rules: the SMaRTT core's SMARTT_R_* rules (0 for STrack)
 * @cwnd_before: window before, bytes
 * @cwnd_after: window after, bytes
 * @rtt: RTT sample given to the core, ns (0: none)
 * @bytes: bytes acknowledged (ACK) or trimmed (NACK)
 * @ecn: the ACK echoed CE
 * @now: the event's time given to the core, ns
 * @in_flight: the bytes in flight given to the core
 */
TRACE_EVENT(smartt_transport_cc,
	    TP_PROTO(u16 sport, u16 dport, u8 algo, u8 ev, u32 rules,
		     u64 cwnd_before, u64 cwnd_after, u32 rtt, u32 bytes, bool ecn,
		     u64 now, u64 in_flight),
	    TP_ARGS(sport, dport, algo, ev, rules, cwnd_before, cwnd_after, rtt,
		    bytes, ecn, now, in_flight),
	    TP_STRUCT__entry(__field(u64, now)
			     __field(u64, in_flight)
			     __field(u64, cwnd_before)
			     __field(u64, cwnd_after)
			     __field(u32, rules)
			     __field(u32, rtt)
			     __field(u32, bytes)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, algo)
			     __field(u8, ev)
			     __field(u8, ecn)),
	    TP_fast_assign(__entry->now = now;
			   __entry->in_flight = in_flight;
			   __entry->cwnd_before = cwnd_before;
			   __entry->cwnd_after = cwnd_after;
			   __entry->rules = rules;
			   __entry->rtt = rtt;
			   __entry->bytes = bytes;
			   __entry->sport = sport;
			   __entry->dport = dport;
			   __entry->algo = algo;
			   __entry->ev = ev;
			   __entry->ecn = ecn;),
	    TP_printk("%s %s sport=%u dport=%u rules=%#x cwnd=%llu->%llu rtt=%u bytes=%u ecn=%u t=%llu in_flight=%llu",
		      __entry->algo ? "strack" : "smartt",
		      __print_symbolic(__entry->ev, { 0, "ack" }, { 1, "nack" },
				       { 2, "rto" }),
		      __entry->sport, __entry->dport, __entry->rules,
		      __entry->cwnd_before, __entry->cwnd_after, __entry->rtt,
		      __entry->bytes, __entry->ecn, __entry->now, __entry->in_flight)
);

/**
 * smartt_ack_cc - the congestion control took an ACK_CC
 * @sport: transport port of the socket
 * @dport: transport port of the peer
 * @a: the ACK_CC's NSCC fields
 * @tx: the sender's record of the acknowledged PSN
 * @now: the ACK's arrival, ns
 * @bytes: newly received bytes given to the core
 * @in_flight: bytes in flight given to the core
 * @cwnd: the window after the core
 *
 * After " | " the line is smartt-replay's ack_cc line for this ACK (the
 * same inputs through kernel/algo/uet_ack.c), so that a recorded trace
 * replays to the same windows.
 */
TRACE_EVENT(smartt_ack_cc,
	    TP_PROTO(u16 sport, u16 dport, const struct uet_ack_cc *a,
		     const struct uet_ack_tx *tx, u64 now, u32 bytes, u64 in_flight, u64 cwnd),
	    TP_ARGS(sport, dport, a, tx, now, bytes, in_flight, cwnd),
	    TP_STRUCT__entry(__field(u64, now)
			     __field(u64, sent)
			     __field(u64, in_flight)
			     __field(u64, cwnd)
			     __field(u32, tx)
			     __field(u32, rcvd_bytes)
			     __field(u32, bytes)
			     __field(u16, service_time)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, m)
			     __field(u8, retx)),
	    TP_fast_assign(__entry->now = now;
			   __entry->sent = tx->sent_ns;
			   __entry->in_flight = in_flight;
			   __entry->cwnd = cwnd;
			   __entry->tx = tx->tx_count;
			   __entry->rcvd_bytes = a->rcvd_bytes;
			   __entry->bytes = bytes;
			   __entry->service_time = a->service_time;
			   __entry->sport = sport;
			   __entry->dport = dport;
			   __entry->m = a->m;
			   __entry->retx = a->retx;),
	    TP_printk("sport=%u dport=%u bytes=%u in_flight=%llu cwnd=%llu | ack_cc t=%llu sent=%llu tx=%u retx=%u service_time=%u rcvd_bytes=%u m=%u",
		      __entry->sport, __entry->dport, __entry->bytes, __entry->in_flight,
		      __entry->cwnd, __entry->now, __entry->sent, __entry->tx, __entry->retx,
		      __entry->service_time, __entry->rcvd_bytes, __entry->m)
);

#endif /* SMARTT_TRANSPORT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH transport
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
