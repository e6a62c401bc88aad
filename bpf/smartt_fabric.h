/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt-fabric: map layouts shared by the tc programs (smartt_port.bpf.c)
 * and their controller (smartt_fabric_ctl.c).  Plain fixed-size types only;
 * both sides include this file after linux/smartt.h, BPF after vmlinux.h,
 * userspace after <linux/types.h>.
 *
 * A port is identified by the ifindex of its network device.  smartt-fabric
 * gives every fabric device an ifindex that is unique across all the
 * namespaces of one fabric (ip link add ... index N), so one set of maps
 * serves every namespace and the two ends of a link can find each other.
 */
#ifndef SMARTT_FABRIC_H
#define SMARTT_FABRIC_H

#include "algo/crp.h"	/* struct crp_table, struct crp_knobs (kernel/algo/) */

/* Array maps are indexed by ifindex, so ifindexes must be below this. */
#define SF_MAX_PORTS		4096

/* Queue occupancy histogram: SF_HIST_BINS bins of cfg.hist_bin_bytes. */
#define SF_HIST_BINS		16

/* Largest L4 length (UDP header + kept payload) of a trimmed packet;
 * bounds the checksum buffer of the trimming code.
 */
#define SF_TRIM_L4_MAX		256

/*
 * Trimming keeps this many bytes of UDP payload: a port's trim_bytes lies
 * in SF_TRIM_BYTES_MIN..SF_TRIM_BYTES_MAX, by default
 * SMARTT_TRIM_BYTES_DEFAULT (the UET PDS and SES headers of transport
 * DATA).  The minimum keeps the PDS request header, which is what the
 * receiver needs for its NACK.
 */
#define SF_TRIM_BYTES_MIN	12
#define SF_TRIM_BYTES_MAX	(SF_TRIM_L4_MAX - 8)

/*
 * The port programs classify and trim packets by their DSCP alone, never
 * by what the UDP payload holds (Documentation/bpf.rst, "Classes").  The
 * DSCP code points are read-only settings of the programs (dscp_* in
 * smartt_port.bpf.c), set by the controller at load time; their defaults
 * are the uAPI's SMARTT_DSCP_*.  The only payload the programs read is
 * CRP's control packets, on UDP port crp_udp_port (default
 * SMARTT_CRP_UDP_PORT_DEFAULT, never SMARTT_UDP_PORT_DEFAULT) with
 * smartt_hdr.version SMARTT_WIRE_VERSION.
 */

/* struct sf_port_cfg.flags */
#define SF_PORT_EMULATE		0x0001	/* egress: emulate this port */
#define SF_PORT_ECN		0x0002	/* egress: RED/ECN marking on */
#define SF_PORT_TRIM		0x0004	/* egress: trim trimmable DSCPs on overflow */
#define SF_PORT_BLACKHOLE	0x0008	/* egress: drop everything (fault) */
#define SF_PORT_LAST_HOP	0x0010	/* egress: port faces a host */
#define SF_PORT_EDT		0x0020	/* egress: fq honours skb->tstamp */
#define SF_PORT_NIC		0x0040	/* egress: a host NIC (no CRP class, no TTW) */
#define SF_PORT_PRIO		0x0080	/* egress: priority DSCPs bypass data */

/* skb->priority values the htb backend classifies on (major 1:). */
#define SF_HTB_PRIO_CLASS	0x00010001	/* 1:1 high-priority class */
#define SF_HTB_DATA_CLASS	0x00010002	/* 1:2 data class */

/**
 * struct sf_port_cfg - per-port configuration, written by userspace.
 * @rate_bps: line rate, bits per second of L2 frame bytes (skb->len).
 * @delay_ns: propagation delay added after serialisation (EDT backend).
 * @buffer_bytes: data-queue buffer; a packet that would exceed it is trimmed
 *	(a trimmable DSCP with trimming on) or dropped.
 * @kmin_bytes: RED lower threshold (no mark below).
 * @kmax_bytes: RED upper threshold (always mark at or above).
 * @flags: SF_PORT_* bits.
 * @loss_permille: random loss, 0..1000 per mille, applied before queueing.
 * @peer_ifindex: ifindex of the device at the other end of this link; the
 *	ingress program of @peer_ifindex's peer (i.e. this device's ingress)
 *	uses it to find the upstream port whose queue the packet just left.
 * @trim_bytes: UDP payload bytes a trimmed packet keeps,
 *	%SF_TRIM_BYTES_MIN..%SF_TRIM_BYTES_MAX.
 * @pad0: zero.
 * @standing_bytes: emulated standing occupancy of the data queue (a test and
 *	background-load knob): the port behaves as if this many bytes of other
 *	traffic were always queued ahead of each data packet.
 * @hist_bin_bytes: width of one occupancy histogram bin.
 * @prio_buffer_bytes: limit of the high-priority queue (drops above).
 * @pad1: zero.
 * @crp_group: CRP: the reservation table (map crp_tables, 1 to
 *	%SF_CRP_GROUPS - 1) of the resource this port's egress belongs to;
 *	0: the port takes no part.  Documentation/crp.rst.
 * @pad2: zero.
 * @test_now_ns: tests only: when non-zero the port programs take it for
 *	the time (CLOCK_MONOTONIC ns) instead of bpf_ktime_get_ns(), so that
 *	BPF_PROG_TEST_RUN gives the same queue and slot every run.
 */
struct sf_port_cfg {
	__u64 rate_bps;
	__u64 delay_ns;
	__u32 buffer_bytes;
	__u32 kmin_bytes;
	__u32 kmax_bytes;
	__u32 flags;
	__u32 loss_permille;
	__u32 peer_ifindex;
	__u16 trim_bytes;
	__u16 pad0;
	__u32 standing_bytes;
	__u32 hist_bin_bytes;
	__u32 prio_buffer_bytes;
	__u64 pad1;
	__u32 crp_group;
	__u32 pad2;
	__u64 test_now_ns;
};

/**
 * struct sf_port_state - virtual queue of one port (shared, spin-locked).
 * @lock: serialises the virtual clocks between CPUs.
 * @pad: zero.
 * @data_free_ns: CLOCK_MONOTONIC time at which the link finishes serialising
 *	everything queued in the data class (the virtual queue: its occupancy
 *	is (data_free_ns - now) * rate).
 * @prio_free_ns: the same for the high-priority class.
 * @max_queue_bytes: largest data-queue occupancy seen at an enqueue.
 * @last_enq_ns: time of the last enqueue.
 * @win_start_ns: start of the current queue-sampling window (see
 *	struct sf_qsample); 0 before the first window.
 * @win_max_bytes: largest data-queue occupancy seen by an arrival in it.
 * @spec_free_ns: the same as @data_free_ns for CRP's speculative DATA,
 *	the lowest class: it starts after everything queued in the data
 *	class, and every data or high-priority packet pushes it further.
 *
 * Fields are only ever appended: a newer controller reads and writes the
 * state of a fabric loaded by an older one (the kernel copies the map's
 * value size).
 */
struct sf_port_state {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 data_free_ns;
	__u64 prio_free_ns;
	__u64 max_queue_bytes;
	__u64 last_enq_ns;
	__u64 win_start_ns;
	__u64 win_max_bytes;
	__u64 spec_free_ns;
};

/* Queue sampling ring buffer (map queue_samples), bytes: a power of two. */
#define SF_SAMPLE_RING_BYTES	(8 << 20)

/**
 * struct sf_qsample - one queue occupancy sample, from the port program.
 * @t_ns: CLOCK_MONOTONIC start of the sampling window.
 * @ifindex: the port.
 * @qbytes: the largest data-queue occupancy (bytes, the virtual queue plus
 *	the standing queue) that an arriving packet saw in the window
 *	[@t_ns, @t_ns + interval).
 *
 * While sampling is on (struct sf_sample_cfg.interval_ns > 0) each
 * emulated port emits one sample per window in which packets arrived, when
 * the first packet of a later window arrives.  Windows without arrivals
 * emit nothing (the queue only drains then).
 */
struct sf_qsample {
	__u64 t_ns;
	__u32 ifindex;
	__u32 qbytes;
};

/**
 * struct sf_sample_cfg - the queue sampler's settings and counter (one per
 *	fabric, map sample_cfg, key 0).
 * @interval_ns: window length; 0 = sampling off.
 * @lost: samples dropped because the ring buffer was full.
 */
struct sf_sample_cfg {
	__u64 interval_ns;
	__u64 lost;
};

/**
 * struct sf_port_stats - per-CPU counters of one port.
 *
 * Counted at the egress (enqueue) side unless noted.  Every packet the
 * egress program sees on an emulated port ends in exactly one of tx_pkts,
 * drop_* (trimmed packets are in tx_pkts and trimmed).
 */
struct sf_port_stats {
	__u64 tx_pkts;		/* queued for transmission (any class) */
	__u64 tx_bytes;		/* their bytes (after trimming) */
	__u64 prio_pkts;	/* of which in the high-priority class */
	__u64 trimmed;		/* of which trimmed here */
	__u64 drop_buffer;	/* data queue full, not trimmable */
	__u64 drop_prio;	/* high-priority queue full */
	__u64 drop_blackhole;	/* port blackholed */
	__u64 drop_loss;	/* random loss */
	__u64 drop_trim_err;	/* trimming failed (helper error) */
	__u64 rx_pkts;		/* arrived at the far end of the link */
	__u64 rx_bytes;
	__u64 ect_pkts;		/* data-class ECT packets at dequeue (far end) */
	__u64 ce_marked;	/* of which marked CE by this port */
	__u64 ce_seen;		/* arrived already CE (marked upstream) */
	__u64 mark_err;		/* CE marking failed (helper error) */
	__u64 hist[SF_HIST_BINS];	/* data occupancy seen by arrivals */
	/* CRP (Documentation/crp.rst): requests passing this port's egress */
	__u64 crp_req;		/* requests ANDed with the port's table */
	__u64 crp_req_bits;	/* vector bits those requests lost here */
	__u64 crp_req_late;	/* requests whose vector base was in the future */
	__u64 crp_dest_grant;	/* destination (last hop): granted */
	__u64 crp_dest_retry;	/* destination: no common slot */
	__u64 crp_dest_full;	/* destination: no slot for the size at all */
	__u64 crp_grant_ok;	/* ingress: grants settled in the table */
	__u64 crp_grant_conv;	/* ingress: grants turned into retries */
	__u64 crp_nonpart_bytes; /* non-participating bytes consumed */
	__u64 crp_nonpart_lost;	/* of which no cell could hold */
	__u64 crp_spec_pkts;	/* speculative DATA queued (lowest class) */
	__u64 crp_spec_drop;	/* speculative DATA trimmed after TTW */
	__u64 drop_crp_bad;	/* CRP packet too short for its extension */
	__u64 crp_err;		/* CRP rewrite failed (helper error) */
};

/* CRP reservation tables: map crp_tables is indexed by group, 0 unused. */
#define SF_CRP_GROUPS		256

/* struct sf_crp_cfg.flags */
#define SF_CRP_ON		0x0001	/* the fabric runs CRP */

/**
 * struct sf_crp_cfg - the fabric's CRP settings (map crp_cfg, key 0).
 * @flags: %SF_CRP_* bits.
 * @pad: zero.
 * @knobs: the core's knobs: @cells, @slot_ns, @ttw_ns, @retry_ns and
 *	@eager are the fabric's; @cmax is each table's own (struct
 *	sf_crp_table), here the reference the knobs were validated with.
 */
struct sf_crp_cfg {
	__u32 flags;
	__u32 pad;
	struct crp_knobs knobs;
};

/**
 * struct sf_crp_table - the reservation table of one group of ports.
 * @lock: serialises the table between CPUs; held only around the core's
 *	calls on a copy-free table (no helper inside).
 * @members: ports of the group (for the controller's display).
 * @t: the table, kernel/algo/crp.h; @t.cmax is the group's summed rate x
 *	slot, written by the controller with every cell free.
 */
struct sf_crp_table {
	struct bpf_spin_lock lock;
	__u32 members;
	struct crp_table t;
};

#endif /* SMARTT_FABRIC_H */
