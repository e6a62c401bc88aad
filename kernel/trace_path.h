/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the transport's path selection: one event per entropy
 * chosen for a DATA packet, one per feedback given to the selector.
 * /sys/kernel/tracing/events/smartt_path/.  Documentation/path-selection.rst.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smartt_path

#if !defined(SMARTT_TRACE_PATH_H) || defined(TRACE_HEADER_MULTI_READ)
#define SMARTT_TRACE_PATH_H

#include <linux/tracepoint.h>

/* enum smartt_lb_kind by name, as smartt_lb_names[] spells it */
#define smartt_show_lb_kind(val)					\
	__print_symbolic(val, { 0, "reps" }, { 1, "reps-single" },	\
			 { 2, "strack-bitmap" }, { 3, "oblivious" },	\
			 { 4, "ecmp" })

/**
 * smartt_path_select - a DATA packet got its entropy
 * @sport: transport port of the socket
 * @dport: transport port of the peer
 * @kind: the selector, enum smartt_lb_kind
 * @psn: the packet's PSN
 * @entropy: the entropy chosen
 * @rtx: the packet is a retransmission
 */
TRACE_EVENT(smartt_path_select,
	    TP_PROTO(u16 sport, u16 dport, u8 kind, u64 psn, u32 entropy, bool rtx),
	    TP_ARGS(sport, dport, kind, psn, entropy, rtx),
	    TP_STRUCT__entry(__field(u64, psn)
			     __field(u32, entropy)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, kind)
			     __field(u8, rtx)),
	    TP_fast_assign(__entry->psn = psn;
			   __entry->entropy = entropy;
			   __entry->sport = sport;
			   __entry->dport = dport;
			   __entry->kind = kind;
			   __entry->rtx = rtx;),
	    TP_printk("sport=%u dport=%u lb=%s psn=%llu entropy=%u%s",
		      __entry->sport, __entry->dport,
		      smartt_show_lb_kind(__entry->kind),
		      __entry->psn, __entry->entropy, __entry->rtx ? " rtx" : "")
);

/**
 * smartt_path_feedback - the selector was told about an entropy
 * @sport: transport port of the socket
 * @dport: transport port of the peer
 * @kind: the selector, enum smartt_lb_kind
 * @entropy: the entropy the feedback is about
 * @fb: enum smartt_path_fb
 * @frozen: REPS is frozen after the feedback
 */
TRACE_EVENT(smartt_path_feedback,
	    TP_PROTO(u16 sport, u16 dport, u8 kind, u32 entropy, u8 fb, bool frozen),
	    TP_ARGS(sport, dport, kind, entropy, fb, frozen),
	    TP_STRUCT__entry(__field(u32, entropy)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, kind)
			     __field(u8, fb)
			     __field(u8, frozen)),
	    TP_fast_assign(__entry->entropy = entropy;
			   __entry->sport = sport;
			   __entry->dport = dport;
			   __entry->kind = kind;
			   __entry->fb = fb;
			   __entry->frozen = frozen;),
	    TP_printk("sport=%u dport=%u lb=%s entropy=%u fb=%s%s",
		      __entry->sport, __entry->dport,
		      smartt_show_lb_kind(__entry->kind),
		      __entry->entropy,
		      __print_symbolic(__entry->fb, { 0, "good" }, { 1, "ecn" },
				       { 2, "nack" }, { 3, "timeout" },
				       { 4, "lost" }),
		      __entry->frozen ? " frozen" : "")
);

#endif /* SMARTT_TRACE_PATH_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_path
#include <trace/define_trace.h>
