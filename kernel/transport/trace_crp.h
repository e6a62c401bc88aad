/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the transport's CRP reservations (cc "crp"):
 * /sys/kernel/tracing/events/smartt_crp/.  smartt_crp_req: a sender asked
 * for a segment; smartt_crp_answer: a grant or a retry came back to it;
 * smartt_crp_reflect: a receiver answered a request; smartt_crp_spec_drop:
 * a speculative packet came back trimmed after TTW.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smartt_crp

#if !defined(SMARTT_TRANSPORT_TRACE_CRP_H) || defined(TRACE_HEADER_MULTI_READ)
#define SMARTT_TRANSPORT_TRACE_CRP_H

#include <linux/tracepoint.h>

/**
 * smartt_crp_req - a CRP request left
 * @sport: transport port of the socket
 * @dport: transport port of the peer
 * @msg_id: the message
 * @off: offset of the segment in it
 * @req_bytes: bytes asked for in every table
 * @retries: requests sent for the segment before this one
 */
TRACE_EVENT(smartt_crp_req,
	    TP_PROTO(u16 sport, u16 dport, u64 msg_id, u64 off, u32 req_bytes, u16 retries),
	    TP_ARGS(sport, dport, msg_id, off, req_bytes, retries),
	    TP_STRUCT__entry(__field(u64, msg_id)
			     __field(u64, off)
			     __field(u32, req_bytes)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u16, retries)),
	    TP_fast_assign(__entry->msg_id = msg_id;
			   __entry->off = off;
			   __entry->req_bytes = req_bytes;
			   __entry->sport = sport;
			   __entry->dport = dport;
			   __entry->retries = retries;),
	    TP_printk("sport=%u dport=%u msg=%llu off=%llu req_bytes=%u retries=%u",
		      __entry->sport, __entry->dport, __entry->msg_id, __entry->off,
		      __entry->req_bytes, __entry->retries)
);

/**
 * smartt_crp_answer - a grant or a retry reached the segment waiting for it
 * @sport: transport port of the socket
 * @dport: transport port of the peer
 * @msg_id: the message
 * @off: offset of the segment in it
 * @type: %SMARTT_PKT_CRP_GRANT or %SMARTT_PKT_CRP_RETRY
 * @crp_flags: its %SMARTT_CRP_* bits
 * @at: a grant: the reservation's start; a retry: when the segment asks
 *	again (ns, CLOCK_MONOTONIC)
 * @now: the time it came (ns)
 */
TRACE_EVENT(smartt_crp_answer,
	    TP_PROTO(u16 sport, u16 dport, u64 msg_id, u64 off, u8 type, u16 crp_flags,
		     u64 at, u64 now),
	    TP_ARGS(sport, dport, msg_id, off, type, crp_flags, at, now),
	    TP_STRUCT__entry(__field(u64, msg_id)
			     __field(u64, off)
			     __field(u64, at)
			     __field(u64, now)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u16, crp_flags)
			     __field(u8, type)),
	    TP_fast_assign(__entry->msg_id = msg_id;
			   __entry->off = off;
			   __entry->at = at;
			   __entry->now = now;
			   __entry->sport = sport;
			   __entry->dport = dport;
			   __entry->crp_flags = crp_flags;
			   __entry->type = type;),
	    TP_printk("%s sport=%u dport=%u msg=%llu off=%llu flags=%#x at=%llu now=%llu",
		      __entry->type == 8 ? "grant" : "retry", __entry->sport,
		      __entry->dport, __entry->msg_id, __entry->off, __entry->crp_flags,
		      __entry->at, __entry->now)
);

/**
 * smartt_crp_reflect - a receiver answered a request
 * @sport: transport port of the socket
 * @dport: transport port of the requesting peer
 * @msg_id: the message
 * @off: offset of the segment in it
 * @host: decided by the host's table (no fabric port had decided)
 * @crp_flags: the answer's %SMARTT_CRP_* bits
 * @grant_ns: a grant's start (ns, 0 for a retry)
 */
TRACE_EVENT(smartt_crp_reflect,
	    TP_PROTO(u16 sport, u16 dport, u64 msg_id, u64 off, bool host, u16 crp_flags,
		     u64 grant_ns),
	    TP_ARGS(sport, dport, msg_id, off, host, crp_flags, grant_ns),
	    TP_STRUCT__entry(__field(u64, msg_id)
			     __field(u64, off)
			     __field(u64, grant_ns)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u16, crp_flags)
			     __field(u8, host)),
	    TP_fast_assign(__entry->msg_id = msg_id;
			   __entry->off = off;
			   __entry->grant_ns = grant_ns;
			   __entry->sport = sport;
			   __entry->dport = dport;
			   __entry->crp_flags = crp_flags;
			   __entry->host = host;),
	    TP_printk("%s sport=%u dport=%u msg=%llu off=%llu flags=%#x grant_ns=%llu",
		      __entry->host ? "host" : "fabric", __entry->sport, __entry->dport,
		      __entry->msg_id, __entry->off, __entry->crp_flags, __entry->grant_ns)
);

/**
 * smartt_crp_spec_drop - a speculative packet was trimmed after TTW
 * @sport: transport port of the socket
 * @dport: transport port of the peer
 * @psn: the packet
 * @msg_id: its message
 * @off: offset of its reservation segment in the message
 */
TRACE_EVENT(smartt_crp_spec_drop,
	    TP_PROTO(u16 sport, u16 dport, u64 psn, u64 msg_id, u64 off),
	    TP_ARGS(sport, dport, psn, msg_id, off),
	    TP_STRUCT__entry(__field(u64, psn)
			     __field(u64, msg_id)
			     __field(u64, off)
			     __field(u16, sport)
			     __field(u16, dport)),
	    TP_fast_assign(__entry->psn = psn;
			   __entry->msg_id = msg_id;
			   __entry->off = off;
			   __entry->sport = sport;
			   __entry->dport = dport;),
	    TP_printk("sport=%u dport=%u psn=%llu msg=%llu off=%llu", __entry->sport,
		      __entry->dport, __entry->psn, __entry->msg_id, __entry->off)
);

#endif /* SMARTT_TRANSPORT_TRACE_CRP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH transport
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_crp
#include <trace/define_trace.h>
