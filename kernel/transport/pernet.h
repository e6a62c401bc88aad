/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartt transport: the state of a network namespace (its UDP sockets,
 * port and PDC tables, knobs, rate limits, CRP host table) and its
 * per-CPU counters (/proc/net/smartt_stats).  Included by transport.h,
 * after the types it uses.
 */
#ifndef SMARTT_TRANSPORT_PERNET_H
#define SMARTT_TRANSPORT_PERNET_H

#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>

/* Counters of /proc/net/smartt_stats; names in proto.c. */
enum smartt_stat {
	SMARTT_STAT_TX_PKTS,
	SMARTT_STAT_TX_BYTES,
	SMARTT_STAT_TX_DATA,
	SMARTT_STAT_TX_ACKS,
	SMARTT_STAT_TX_NACKS,
	SMARTT_STAT_TX_ERRORS,
	SMARTT_STAT_TX_ERRORS_LIMITED,
	SMARTT_STAT_TX_FAIL,
	SMARTT_STAT_RX_PKTS,
	SMARTT_STAT_RX_BYTES,
	SMARTT_STAT_RX_DATA,
	SMARTT_STAT_RX_ACKS,
	SMARTT_STAT_RX_NACKS,
	SMARTT_STAT_RX_ERRORS,
	SMARTT_STAT_RX_DUP,
	SMARTT_STAT_RX_TRIMMED,
	SMARTT_STAT_RX_CE,
	SMARTT_STAT_MSGS_SENT,
	SMARTT_STAT_MSGS_DELIVERED,
	SMARTT_STAT_MSGS_FAILED,
	SMARTT_STAT_RETRANSMITS,
	SMARTT_STAT_FAST_RETRANSMITS,
	SMARTT_STAT_RTOS,
	SMARTT_STAT_MALFORMED,
	SMARTT_STAT_DROP_SHORT,
	SMARTT_STAT_DROP_MAGIC,
	SMARTT_STAT_DROP_VERSION,
	SMARTT_STAT_DROP_TYPE,
	SMARTT_STAT_DROP_HLEN,
	SMARTT_STAT_DROP_LEN,
	SMARTT_STAT_DROP_OFFSET,
	SMARTT_STAT_DROP_EPOCH,
	SMARTT_STAT_DROP_ACK_UNSENT,
	SMARTT_STAT_DROP_WINDOW,
	SMARTT_STAT_DROP_NO_SOCKET,
	SMARTT_STAT_DROP_NO_PEER,
	SMARTT_STAT_DROP_PEERS,
	SMARTT_STAT_DROP_RMEM,
	SMARTT_STAT_DROP_BACKLOG,
	SMARTT_STAT_DROP_NOMEM,
	SMARTT_STAT_DROP_CLOSED,
	SMARTT_STAT_DROP_NOT_UNICAST,
	SMARTT_STAT_ERR_CONNREFUSED,
	SMARTT_STAT_ERR_TIMEDOUT,
	SMARTT_STAT_ERR_MSGSIZE,
	SMARTT_STAT_ERR_NOROUTE,
	SMARTT_STAT_COMPLETIONS,
	SMARTT_STAT_COMPLETIONS_DROPPED,
	SMARTT_STAT_ACKS_COALESCED,
	SMARTT_STAT_ACKS_DELAYED,
	SMARTT_STAT_ACKS_REQUESTED,
	SMARTT_STAT_OOO_RECOVERIES,
	SMARTT_STAT_OOO_LOSSES,
	SMARTT_STAT_TX_PROBES,
	SMARTT_STAT_RX_PROBES,
	SMARTT_STAT_RX_PROBE_ACKS,
	SMARTT_STAT_PROBE_RECOVERIES,
	SMARTT_STAT_PROBE_LOSSES,
	SMARTT_STAT_PROBE_ACKS_LATE,
	SMARTT_STAT_RTO_LOSSES,
	SMARTT_STAT_PATH_GOOD,
	SMARTT_STAT_PATH_ECN,
	SMARTT_STAT_PATH_NACK,
	SMARTT_STAT_PATH_LAST_HOP,
	SMARTT_STAT_PATH_TIMEOUT,
	SMARTT_STAT_PATH_LOST,
	SMARTT_STAT_PATH_BAD_ENTROPY,
	SMARTT_STAT_PATH_FREEZES,
	SMARTT_STAT_PATH_UNFREEZES,
	SMARTT_STAT_PATH_ECN_NOOP,
	SMARTT_STAT_DROP_MEM,
	SMARTT_STAT_DROP_SEG_CHARGE,
	SMARTT_STAT_RX_COPIED,
	SMARTT_STAT_RX_EXPIRED,
	SMARTT_STAT_RX_EVICTED,
	SMARTT_STAT_PEERS_EVICTED,
	SMARTT_STAT_ERR_NOBUFS,
	SMARTT_STAT_DROP_CTRL_STALE,
	SMARTT_STAT_CRP_TX_REQ,
	SMARTT_STAT_CRP_REQ_TIMEOUTS,
	SMARTT_STAT_CRP_RX_GRANT,
	SMARTT_STAT_CRP_RX_RETRY,
	SMARTT_STAT_CRP_RETRY_NOSLOT,
	SMARTT_STAT_CRP_RETRY_FULL,
	SMARTT_STAT_CRP_RETRY_CONV,
	SMARTT_STAT_CRP_DROP_UNKNOWN,
	SMARTT_STAT_CRP_DROP_BAD,
	SMARTT_STAT_CRP_RX_REQ,
	SMARTT_STAT_CRP_HOST_GRANT,
	SMARTT_STAT_CRP_HOST_RETRY,
	SMARTT_STAT_CRP_TX_GRANT,
	SMARTT_STAT_CRP_TX_RETRY,
	SMARTT_STAT_CRP_TX_SPEC,
	SMARTT_STAT_CRP_TX_GRANTED,
	SMARTT_STAT_CRP_TX_NONPART,
	SMARTT_STAT_CRP_SPEC_DROPPED,
	SMARTT_STAT_CRP_SPEC_RECOVERED,
	SMARTT_STAT_DROP_CRC,
	SMARTT_STAT_DROP_DPDCID,
	SMARTT_STAT_DROP_SPDCID,
	SMARTT_STAT_DROP_SRC,
	SMARTT_STAT_DROP_JOB,
	SMARTT_STAT_DROP_SEG_UNKNOWN,
	SMARTT_STAT_DROP_MSG_ID,
	SMARTT_STAT_DROP_FIELD,
	SMARTT_STAT_PDC_EXHAUSTED,
	SMARTT_STAT_RX_PDC_RESET,
	SMARTT_STAT_TX_MSG_ID_WAIT,
	SMARTT_STAT_CRP_REASK,
	SMARTT_STAT_TX_RSP,
	SMARTT_STAT_RX_RSP,
	SMARTT_STAT_RSP_QUERIES,
	SMARTT_STAT_RSP_TIMEDOUT,
	SMARTT_STAT_RX_DONE_DROPPED,
	SMARTT_STAT_DROP_SYN_BUSY,
	SMARTT_STAT_DROP_RSP,
	SMARTT_STAT_TX_PDC_RESTART,
	SMARTT_STAT_RX_CHALLENGES,
	SMARTT_STAT_RX_PDC_CLOSED,
	SMARTT_STAT_DROP_HOST_PEERS,
	SMARTT_STAT_RX_RSP_DUP,
	SMARTT_STAT_CRP_REQ_LIMITED,
	SMARTT_STAT_COUNT,
};

/**
 * struct smartt_stats - one CPU's counters
 * @v: by &enum smartt_stat
 */
struct smartt_stats {
	u64 v[SMARTT_STAT_COUNT];
};

/* Packet classes of the net.smartt.transport_dscp_* sysctls. */
enum smartt_dscp_class {
	SMARTT_DSCP_C_TRIMMABLE,
	SMARTT_DSCP_C_TRIMMED,
	SMARTT_DSCP_C_TRIMMED_LASTHOP,
	SMARTT_DSCP_C_CONTROL,
	SMARTT_DSCP_C_CRP_SPEC,
	SMARTT_DSCP_C_CRP_GRANTED,
	SMARTT_DSCP_C_CRP_SPEC_DROPPED,
	SMARTT_DSCP_NCLASS,
};

/**
 * struct smartt_net - per-netns state of the transport
 * @udp_lock: serializes opening and closing the UDP sockets
 * @udp_users: transport sockets of the netns (the UDP sockets exist while
 *	it is non-zero)
 * @udp4: UDP encapsulation socket, IPv4
 * @udp6: UDP encapsulation socket, IPv6 (NULL when IPv6 is disabled)
 * @bind_lock: protects writers of @bind
 * @bind: bound sockets by transport port
 * @stats: per-CPU counters, &enum smartt_stat
 * @cfg_lock: serializes writers of the net.smartt.transport_* sysctls
 * @lb: net.smartt.transport_lb and transport_lb_knobs: the selector of new
 *	sockets
 * @lb_text: net.smartt.transport_lb_knobs as written
 * @sport: net.smartt.transport_sport_base << 16 | (transport_sport_range
 *	- 1), read locklessly by every transmission
 * @err_lock: protects @err_credit, @err_last and the sources' buckets
 * @err_ratelimit: net.smartt.transport_err_ratelimit, ms between error
 *	packets (0: no limit)
 * @err_credit: the error packets' token bucket, in ns of credit
 * @err_last: when @err_credit was last refilled (ktime_get_ns())
 * @err_seed: the seed of the per-source buckets' hash (random)
 * @err_src_credit: the per-source token buckets, ns of credit
 * @err_src_last: when each was last refilled
 * @crp_src_credit: the per-source token buckets of CRP requests of no PDC
 * @crp_src_last: when each was last refilled
 * @cc_default: net.smartt.transport_cc, the congestion control of new
 *	sockets (under @cfg_lock)
 * @crp: net.smartt.transport_crp_knobs: the CRP knobs a socket takes when
 *	it selects cc "crp", and those of the host's destination table
 *	(under @cfg_lock, and @crp_lock for the table's)
 * @crp_text: net.smartt.transport_crp_knobs as written
 * @crp_lock: protects @crp_host and @crp_host_k
 * @crp_host: the host's CRP destination table, for requests no fabric
 *	port decided (crp.c)
 * @crp_host_k: the knobs @crp_host was made with
 * @crp4: UDP socket of the CRP control packets (crp_udp_port), IPv4
 * @crp6: the same, IPv6 (NULL when IPv6 is disabled)
 * @pdc_lock: protects writers of @pdc_tx, @pdc_rx and @npdc
 * @pdc_tx: the peers of the netns by their sender's local PDC id (RCU)
 * @pdc_rx: the peers of the netns by their receiver's local PDC id (RCU)
 * @npdc: ids in @pdc_tx and @pdc_rx
 * @dscp: the net.smartt.transport_dscp_* sysctls, by &enum smartt_dscp_class
 * @job_id: net.smartt.transport_job_id, the SES job id of DATA sent and
 *	accepted
 * @table: this netns' net.smartt.transport_* sysctl table
 * @sysctl: its registration
 * @mem_bytes: the receive memory this netns's sockets hold, bytes (mem.c)
 * @mem: its net.smartt.transport_mem (another netns than the initial)
 * @mem_table: the transport_mem sysctl table
 * @mem_sysctl: its registration
 */
struct smartt_net {
	struct mutex udp_lock;	/* udp_users, udp4, udp6 writers */
	unsigned int udp_users;
	struct socket *udp4;
	struct socket *udp6;
	spinlock_t bind_lock;	/* writers of bind */
	struct hlist_head bind[1 << SMARTT_BIND_BITS];
	struct smartt_stats __percpu *stats;
	struct mutex cfg_lock;	/* writers of lb, lb_text, sport */
	struct smartt_lb_knobs lb;
	char lb_text[128];
	u32 sport;
	spinlock_t err_lock;	/* the buckets of stateless answers */
	u32 err_ratelimit;
	u64 err_credit;
	u64 err_last;
	u32 err_seed;
	u64 err_src_credit[SMARTT_ERR_SRC_BUCKETS];
	u64 err_src_last[SMARTT_ERR_SRC_BUCKETS];
	u64 crp_src_credit[SMARTT_ERR_SRC_BUCKETS];
	u64 crp_src_last[SMARTT_ERR_SRC_BUCKETS];
	char cc_default[SMARTT_CC_NAME_MAX];
	struct smartt_crp_cfg crp;
	char crp_text[128];
	spinlock_t crp_lock;	/* crp_host, crp_host_k */
	struct crp_table crp_host;
	struct crp_knobs crp_host_k;
	struct socket *crp4;
	struct socket *crp6;
	spinlock_t pdc_lock;	/* writers of pdc_tx, pdc_rx, npdc */
	struct hlist_head pdc_tx[1 << SMARTT_PDC_HASH_BITS];
	struct hlist_head pdc_rx[1 << SMARTT_PDC_HASH_BITS];
	u32 npdc;
	u8 dscp[SMARTT_DSCP_NCLASS];
	u32 job_id;
	struct ctl_table *table;
	struct ctl_table_header *sysctl;
	atomic_long_t mem_bytes;
	long mem[3];
	struct ctl_table *mem_table;
	struct ctl_table_header *mem_sysctl;
};

struct smartt_net *smartt_net(const struct net *net);

static inline void smartt_stat_add(const struct net *net, enum smartt_stat s, u64 v)
{
	this_cpu_add(smartt_net(net)->stats->v[s], v);
}

static inline void smartt_stat_inc(const struct net *net, enum smartt_stat s)
{
	smartt_stat_add(net, s, 1);
}

extern unsigned short smartt_udp_port;
extern unsigned short smartt_crp_udp_port;

/* The IP DSCP of a packet class in a netns. */
static inline u8 smartt_dscp(const struct net *net, enum smartt_dscp_class c)
{
	return READ_ONCE(smartt_net(net)->dscp[c]);
}

#endif /* SMARTT_TRANSPORT_PERNET_H */
