// SPDX-License-Identifier: GPL-2.0
/*
 * smartt-fabric switch port programs (tc clsact).
 *
 * sf_egress runs on the egress hook of every emulated port (switch ports and
 * host NICs).  It keeps a virtual queue per port (struct sf_port_state) and
 * decides for each packet: drop (blackhole, random loss, full buffer), trim
 * (a trimmable DSCP on a full buffer), or enqueue in the data or the
 * high-priority class.  Packets are classified by their DSCP alone: the
 * programs never read or write the transport's headers (UET PDS and SES),
 * only the IP and UDP headers and, on the CRP port, CRP's own control
 * packets.  It then gives the packet its departure time: with
 * the EDT backend skb->tstamp = end of serialisation + propagation delay,
 * which sch_fq on the device honours; with the htb backend skb->priority
 * selects an htb class whose rate is the port's rate.
 *
 * sf_ingress runs on the ingress hook of the device at the other end of the
 * link.  The packet has left the upstream port's queue by then, so RED/ECN
 * is decided here from the upstream port's queue state: marking reflects
 * the queue at dequeue, as in the papers.  It also counts what the far end
 * received.
 *
 * With CRP on (map crp_cfg), ports that belong to a reservation group
 * (cfg.crp_group) keep the group's reservation table: sf_egress ANDs the
 * table into the requests that leave through the port, decides them at
 * the destination's last-hop port and takes the bytes of traffic without
 * a reservation from the table; sf_ingress settles the grants that come
 * back through the device whose egress is the resource, or turns them
 * into retries.  Speculative DATA (DSCP crp_spec) queues in a class below
 * data and is trimmed once its wait at a port passes TTW.
 *
 * See Documentation/bpf.rst and Documentation/crp.rst.
 */
#define _LINUX_TYPES_H	/* vmlinux.h provides the __u and __be types */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "linux/smartt.h"
#include "smartt_crp_core.bpf.h"
#include "smartt_fabric.h"

#define TC_ACT_OK		0
#define TC_ACT_SHOT		2
#define ETH_P_IP		0x0800
#define ETH_P_IPV6		0x86DD
#define ETH_HLEN		14
#define IPPROTO_UDP_		17
#define NSEC_PER_SEC		1000000000ULL
#define SF_EDT_HORIZON_NS	NSEC_PER_SEC	/* honour sender EDT up to 1 s ahead */
#define BPF_F_MARK_MANGLED_0_	(1ULL << 5)
#define BPF_F_PSEUDO_HDR_	(1ULL << 4)

_Static_assert(sizeof(struct smartt_hdr) == SMARTT_HDR_LEN, "smartt_hdr size");
_Static_assert(SF_TRIM_BYTES_MAX + 8 <= SF_TRIM_L4_MAX, "trimmed L4 fits the scratch buffer");
_Static_assert(sizeof(struct smartt_crp_ext) == SMARTT_CRP_EXT_LEN, "smartt_crp_ext size");
_Static_assert(SMARTT_CRP_HLEN % 8 == 0, "CRP headers in whole words");

/*
 * SF_CRP=1 builds smartt_port_crp.bpf.o, the port with CRP, which the
 * controller loads for a fabric with CRP on; smartt_port.bpf.o has none of
 * the CRP code (the compiler drops it), so a fabric without CRP runs, and
 * the verifier checks, exactly the port it had before.
 */
#ifndef SF_CRP
#define SF_CRP 0
#endif

/*
 * Set by the controller between open and load: the UDP port of CRP's
 * control packets and the DSCP code points (bpf/smartt_fabric.h), all
 * seven distinct.
 */
const volatile __u16 crp_udp_port = SMARTT_CRP_UDP_PORT_DEFAULT;
const volatile __u8 dscp_trimmable = SMARTT_DSCP_TRIMMABLE;
const volatile __u8 dscp_trimmed = SMARTT_DSCP_TRIMMED;
const volatile __u8 dscp_trimmed_lasthop = SMARTT_DSCP_TRIMMED_LASTHOP;
const volatile __u8 dscp_control = SMARTT_DSCP_CONTROL;
const volatile __u8 dscp_crp_spec = SMARTT_DSCP_CRP_SPEC;
const volatile __u8 dscp_crp_granted = SMARTT_DSCP_CRP_GRANTED;
const volatile __u8 dscp_crp_spec_dropped = SMARTT_DSCP_CRP_SPEC_DROPPED;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SF_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct sf_port_cfg);
} port_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SF_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct sf_port_state);
} port_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SF_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct sf_port_stats);
} port_stats SEC(".maps");

/* Queue occupancy samples (struct sf_qsample), read by smartt-fabric-bpf
 * sample; on only while sample_cfg's interval is set.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SF_SAMPLE_RING_BYTES);
} queue_samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sf_sample_cfg);
} sample_cfg SEC(".maps");

/* Scratch space for the trimming checksum (too big for the BPF stack). */
struct sf_scratch {
	__u8 buf[SF_TRIM_L4_MAX + 64];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sf_scratch);
} scratch SEC(".maps");

/* CRP: the fabric's settings and one reservation table per group. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sf_crp_cfg);
} crp_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SF_CRP_GROUPS);
	__type(key, __u32);
	__type(value, struct sf_crp_table);
} crp_tables SEC(".maps");

/* A CRP extension as it came and as it leaves (for the checksum). */
struct sf_crp_scratch {
	struct smartt_crp_ext old;
	struct smartt_crp_ext new;
	struct crp_knobs k;
	struct crp_grant g;
	__u64 vec;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sf_crp_scratch);
} crp_scratch SEC(".maps");

struct pkt {
	__u32 l3_off;
	__u32 l4_off;
	__u32 hdr_off;		/* CRP control: the smartt header, if is_crp */
	__u16 proto;		/* ETH_P_IP / ETH_P_IPV6 / other */
	__u8 l4proto;
	__u8 ihl_bytes;
	__u8 is_ip;		/* IPv4 or IPv6: dscp and ecn are valid */
	__u8 is_udp;		/* a UDP header follows at l4_off (no fragment) */
	__u8 dscp;		/* IP DSCP */
	__u8 ecn;		/* IP ECN field */
	__u8 is_crp;		/* a CRP control packet (crp_udp_port) */
	__u8 type;		/* its smartt type */
	__u16 hdr_len;		/* its smartt headers (hdr_words x 8), bytes */
};

static __always_inline __u64 ser_ns(__u64 len, __u64 rate_bps)
{
	/* len <= 64 KiB, so len * 8e9 < 2^64 */
	return len * 8 * NSEC_PER_SEC / rate_bps;
}

static __always_inline __u64 ns_to_bytes(__u64 ns, __u64 rate_bps)
{
	/* ns is bounded by the buffer (< 2^32 bytes at >= 1 Mbit/s is < 2^45 ns),
	 * rate_bps / 8 < 2^41 for rates up to 16 Tbit/s: no overflow in
	 * practice; clamp absurd values instead of wrapping.
	 */
	if (ns > (1ULL << 40))
		ns = 1ULL << 40;
	return ns * (rate_bps / 8) / NSEC_PER_SEC;
}

static __always_inline int parse(struct __sk_buff *skb, struct pkt *p)
{
	struct smartt_hdr sh;
	struct udphdr udp;
	__be16 h_proto;

	__builtin_memset(p, 0, sizeof(*p));
	if (bpf_skb_load_bytes(skb, 12, &h_proto, 2))
		return -1;
	p->proto = bpf_ntohs(h_proto);
	p->l3_off = ETH_HLEN;
	if (p->proto == ETH_P_IP) {
		struct iphdr ip;

		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip, sizeof(ip)))
			return -1;
		if (ip.ihl < 5)
			return -1;
		p->is_ip = 1;
		p->ihl_bytes = ip.ihl * 4;
		p->dscp = ip.tos >> 2;
		p->ecn = ip.tos & 3;
		p->l4proto = ip.protocol;
		if (ip.frag_off & bpf_htons(0x3fff))
			return 0;	/* a fragment has no UDP header of its own */
		p->l4_off = ETH_HLEN + p->ihl_bytes;
	} else if (p->proto == ETH_P_IPV6) {
		__u8 ip6[8];

		if (bpf_skb_load_bytes(skb, ETH_HLEN, ip6, sizeof(ip6)))
			return -1;
		p->is_ip = 1;
		p->dscp = ((ip6[0] & 0x0f) << 2) | (ip6[1] >> 6);
		p->ecn = (ip6[1] >> 4) & 3;
		p->l4proto = ip6[6];
		p->l4_off = ETH_HLEN + 40;
	} else {
		return 0;
	}
	if (p->l4proto != IPPROTO_UDP_)
		return 0;
	if (bpf_skb_load_bytes(skb, p->l4_off, &udp, sizeof(udp)))
		return 0;
	p->is_udp = 1;
	/* CRP's control packets are the only payload the ports read. */
	if (udp.dest != bpf_htons(crp_udp_port))
		return 0;
	p->hdr_off = p->l4_off + sizeof(struct udphdr);
	if (bpf_skb_load_bytes(skb, p->hdr_off, &sh, 8))
		return 0;
	if (sh.magic != bpf_htons(SMARTT_MAGIC) || sh.version != SMARTT_WIRE_VERSION)
		return 0;
	if (skb->len < p->hdr_off + SMARTT_HDR_LEN)
		return 0;	/* truncated: not a CRP packet we can touch */
	if (sh.type < SMARTT_PKT_CRP_REQ || sh.type > SMARTT_PKT_CRP_RETRY)
		return 0;
	p->is_crp = 1;
	p->type = sh.type;
	p->hdr_len = sh.hdr_words * 8;
	return 0;
}

/*
 * The priority class: control packets of the transport and of CRP, and
 * what a port trimmed.
 */
static __always_inline int is_prio(const struct pkt *p)
{
	return p->is_ip &&
	       (p->dscp == dscp_control || p->dscp == dscp_trimmed ||
		p->dscp == dscp_trimmed_lasthop || p->dscp == dscp_crp_spec_dropped);
}

/* A packet a port may trim: UDP marked trimmable (CRP's DATA classes too). */
static __always_inline int can_trim(const struct pkt *p)
{
	return p->is_udp &&
	       (p->dscp == dscp_trimmable || p->dscp == dscp_crp_spec ||
		p->dscp == dscp_crp_granted);
}

static __always_inline __u32 csum_fold32(__s64 sum)
{
	__u32 s = (__u32)sum;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return ~s & 0xffff;
}

/* Set the IP ECN field to CE. */
static __always_inline int mark_ce(struct __sk_buff *skb, const struct pkt *p)
{
	__u8 b[2];

	if (bpf_skb_load_bytes(skb, p->l3_off, b, 2))
		return -1;
	if (p->proto == ETH_P_IP) {
		__u16 oldw, neww;

		__builtin_memcpy(&oldw, b, 2);
		b[1] |= 3;
		__builtin_memcpy(&neww, b, 2);
		if (bpf_skb_store_bytes(skb, p->l3_off, b, 2, 0))
			return -1;
		return bpf_l3_csum_replace(skb, p->l3_off + 10, oldw, neww, 2);
	}
	/* IPv6: traffic class = low nibble of b[0], high nibble of b[1];
	 * ECN is the low two bits of the traffic class. No L3 checksum, and
	 * the UDP pseudo header does not cover the traffic class.
	 */
	b[1] |= 0x30;
	return bpf_skb_store_bytes(skb, p->l3_off, b, 2, 0);
}

/*
 * Cut a UDP packet to cfg->trim_bytes of UDP payload, give it DSCP @dscp
 * (its ECN field kept) and fix the IP lengths, the IPv4 header checksum
 * and the UDP length.  A UDP checksum of 0 (none: what the transport
 * sends) stays 0; any other is computed anew over what is left.  The UDP
 * payload that remains is not touched.  A packet no longer than the trim
 * size keeps its length and is only remarked.
 */
static __always_inline int trim_packet(struct __sk_buff *skb, const struct pkt *p,
				       const struct sf_port_cfg *cfg, __u8 dscp)
{
	__u32 keep = cfg->trim_bytes;
	struct sf_scratch *scr;
	__u32 zero_key = 0;
	__u8 *buf;
	__u32 new_len, l4_len, plen, sz, l3_len;
	__u16 udp_len_be, zero = 0, csum_old, csum;
	__u8 tc;
	__s64 sum;

	scr = bpf_map_lookup_elem(&scratch, &zero_key);
	if (!scr)
		return -1;
	buf = scr->buf;
	if (keep < SF_TRIM_BYTES_MIN || keep > SF_TRIM_BYTES_MAX)
		keep = SMARTT_TRIM_BYTES_DEFAULT;
	new_len = p->l4_off + 8 + keep;
	if (new_len < skb->len) {
		if (bpf_skb_change_tail(skb, new_len, 0))
			return -1;
	} else {
		new_len = skb->len;
	}
	l4_len = new_len - p->l4_off;
	if (l4_len > SF_TRIM_L4_MAX || l4_len < 8)
		return -1;
	l3_len = new_len - p->l3_off;
	tc = ((dscp & 0x3f) << 2) | p->ecn;

	/* IP header: length and DSCP, checksum updated incrementally. */
	if (p->proto == ETH_P_IP) {
		__u16 tot = bpf_htons(l3_len), old_tot;
		__u8 w[2];
		__u16 oldw, neww;

		if (bpf_skb_load_bytes(skb, p->l3_off, w, 2) ||
		    bpf_skb_load_bytes(skb, p->l3_off + 2, &old_tot, 2))
			return -1;
		__builtin_memcpy(&oldw, w, 2);
		w[1] = tc;
		__builtin_memcpy(&neww, w, 2);
		if (bpf_skb_store_bytes(skb, p->l3_off, w, 2, 0) ||
		    bpf_l3_csum_replace(skb, p->l3_off + 10, oldw, neww, 2) ||
		    bpf_skb_store_bytes(skb, p->l3_off + 2, &tot, 2, 0) ||
		    bpf_l3_csum_replace(skb, p->l3_off + 10, old_tot, tot, 2))
			return -1;
	} else {
		__u16 pl = bpf_htons(l3_len - 40);
		__u8 b[2];

		if (bpf_skb_load_bytes(skb, p->l3_off, b, 2))
			return -1;
		b[0] = (b[0] & 0xf0) | (tc >> 4);
		b[1] = (b[1] & 0x0f) | ((tc & 0xf) << 4);
		if (bpf_skb_store_bytes(skb, p->l3_off, b, 2, 0) ||
		    bpf_skb_store_bytes(skb, p->l3_off + 4, &pl, 2, 0))
			return -1;
	}

	/* UDP length, and a checksum computed from scratch over what is left. */
	udp_len_be = bpf_htons(l4_len);
	if (bpf_skb_load_bytes(skb, p->l4_off + 6, &csum_old, 2))
		return -1;
	if (bpf_skb_store_bytes(skb, p->l4_off + 4, &udp_len_be, 2, 0) ||
	    bpf_skb_store_bytes(skb, p->l4_off + 6, &zero, 2, 0))
		return -1;
	if (csum_old == 0)
		return 0;	/* sent without a UDP checksum: stays without */

	__builtin_memset(buf, 0, sizeof(scr->buf));
	if (p->proto == ETH_P_IP) {
		/* pseudo header: saddr, daddr, 0, proto, udp length */
		if (bpf_skb_load_bytes(skb, p->l3_off + 12, buf, 8))
			return -1;
		buf[9] = IPPROTO_UDP_;
		__builtin_memcpy(&buf[10], &udp_len_be, 2);
		plen = 12;
	} else {
		/* saddr, daddr, 32-bit length, 3 zero bytes, next header */
		if (bpf_skb_load_bytes(skb, p->l3_off + 8, buf, 32))
			return -1;
		__builtin_memcpy(&buf[34], &udp_len_be, 2);
		buf[39] = IPPROTO_UDP_;
		plen = 40;
	}
	sum = bpf_csum_diff(0, 0, (void *)buf, plen, 0);
	if (sum < 0)
		return -1;
	__builtin_memset(buf, 0, sizeof(scr->buf));
	l4_len &= 0x1ff;
	if (l4_len < 8 || l4_len > SF_TRIM_L4_MAX)
		return -1;
	/* The size expressions below are identities for the checked ranges;
	 * written this way so that even the 6.1 verifier sees their bounds.
	 */
	if (bpf_skb_load_bytes(skb, p->l4_off, buf, ((l4_len - 1) & 0xff) + 1))
		return -1;
	sz = (l4_len + 3) >> 2;		/* 32-bit words, 2..64 */
	sum = bpf_csum_diff(0, 0, (void *)buf, (((sz - 1) & 0x3f) + 1) << 2, (__u32)sum);
	if (sum < 0)
		return -1;
	csum = csum_fold32(sum);
	if (!csum)
		csum = 0xffff;
	if (bpf_skb_store_bytes(skb, p->l4_off + 6, &csum, 2, 0))
		return -1;
	return 0;
}

static __always_inline void hist_add(struct sf_port_stats *st,
				     const struct sf_port_cfg *cfg, __u64 qbytes)
{
	__u64 bin = cfg->hist_bin_bytes ? qbytes / cfg->hist_bin_bytes : 0;

	if (bin >= SF_HIST_BINS)
		bin = SF_HIST_BINS - 1;
	st->hist[bin & (SF_HIST_BINS - 1)]++;
}

/* The port's clock: CLOCK_MONOTONIC, or the test's fixed time. */
static __always_inline __u64 port_now(const struct sf_port_cfg *cfg)
{
	return cfg->test_now_ns ? cfg->test_now_ns : bpf_ktime_get_ns();
}

/* Replace @len bytes (a multiple of 4) at @off, keeping the UDP checksum. */
static __always_inline int rewrite(struct __sk_buff *skb, const struct pkt *p,
				   __u32 off, void *old, void *new, __u32 len)
{
	__s64 diff = bpf_csum_diff(old, len, new, len, 0);

	if (diff < 0)
		return -1;
	if (bpf_skb_store_bytes(skb, off, new, len, 0))
		return -1;
	/* IPv4 UDP checksum 0 means "none": BPF_F_MARK_MANGLED_0 leaves it. */
	return bpf_l4_csum_replace(skb, p->l4_off + 6, 0, diff, BPF_F_MARK_MANGLED_0_) ? -1 : 0;
}

/* The CRP settings when the fabric runs CRP, else NULL. */
static __always_inline struct sf_crp_cfg *crp_on(void)
{
	__u32 zero = 0;
	struct sf_crp_cfg *cc = bpf_map_lookup_elem(&crp_cfg, &zero);

	return cc && (cc->flags & SF_CRP_ON) && cc->knobs.slot_ns ? cc : NULL;
}

/* The table of the port's group, NULL for a port that takes no part. */
static __always_inline struct sf_crp_table *crp_table_of(const struct sf_port_cfg *cfg)
{
	__u32 g = cfg->crp_group;
	struct sf_crp_table *tb;

	if (!g || g >= SF_CRP_GROUPS)
		return NULL;
	tb = bpf_map_lookup_elem(&crp_tables, &g);
	return tb && tb->t.cells && tb->t.cells <= CRP_CELLS_MAX && tb->t.cmax ? tb : NULL;
}

/*
 * Load the CRP extension of @p into the scratch's old and new copies.
 * Return the scratch, or NULL for a packet too short for its extension
 * (hdr_words or the packet's length).
 */
static __always_inline struct sf_crp_scratch *crp_load(struct __sk_buff *skb,
						       const struct pkt *p)
{
	struct sf_crp_scratch *sc;
	__u32 zero = 0;

	if (p->hdr_len < SMARTT_CRP_HLEN || skb->len < p->hdr_off + p->hdr_len)
		return NULL;
	sc = bpf_map_lookup_elem(&crp_scratch, &zero);
	if (!sc || bpf_skb_load_bytes(skb, p->hdr_off + SMARTT_HDR_LEN, &sc->old,
				      sizeof(sc->old)))
		return NULL;
	sc->new = sc->old;
	return sc;
}

/* Move @tb on to the slot of @now; called with its lock held. */
static __always_inline void crp_advance(struct sf_crp_table *tb, __u64 slot)
{
	if (slot > tb->t.base)
		crp_table_shift(&tb->t, slot - tb->t.base);
}

/*
 * A CRP request leaves through a port of group cfg->crp_group: AND the
 * table into its vector (reserving eagerly with R_res), or, at the
 * destination's last-hop port, decide it.
 * Return 0, or -1 for a malformed request (the caller drops it).
 */
static __always_inline int crp_egress_req(struct __sk_buff *skb, const struct pkt *p,
					  const struct sf_port_cfg *cfg,
					  struct sf_port_stats *st, __u64 now, const int dest)
{
	struct sf_crp_cfg *cc = crp_on();
	struct sf_crp_table *tb = cfg ? crp_table_of(cfg) : NULL;
	enum crp_result res = CRP_GRANT;
	struct sf_crp_scratch *sc;
	__u64 slot, sb, vec0, base;
	__u32 size, tag, cells, cmax;
	__u16 fl;
	int late = 0;

	if (!p || !cfg || !st || !cc || !tb)
		return 0;
	sc = crp_load(skb, p);
	if (!sc)
		return -1;
	fl = bpf_ntohs(sc->old.crp_flags);
	if (fl & SMARTT_CRP_DEST_DONE)
		return 0;	/* decided already: a port after the destination's */
	sc->k = cc->knobs;
	size = bpf_ntohl(sc->old.req_bytes);
	tag = bpf_ntohl(sc->old.tag);
	sb = bpf_be64_to_cpu(sc->old.slot_base);
	sc->vec = bpf_be64_to_cpu(sc->old.vec);
	slot = now / sc->k.slot_ns;

	bpf_spin_lock(&tb->lock);
	crp_advance(tb, slot);
	base = tb->t.base;
	cells = tb->t.cells;
	cmax = tb->t.cmax;
	if (sb < base) {
		sc->vec = crp_vec_shift(sc->vec, base - sb, cells);
	} else if (sb > base) {
		sc->vec = 0;	/* a base in the future: nothing is known there */
		late = 1;
	}
	vec0 = sc->vec & crp_vec_full(cells);
	if (dest)
		res = crp_dest_decide(&tb->t, size, &sc->vec, &sc->g);
	else
		crp_channel_request(&tb->t, size, tag, sc->k.eager, &sc->vec);
	bpf_spin_unlock(&tb->lock);

	sc->new.slot_base = bpf_cpu_to_be64(base);
	sc->new.vec = bpf_cpu_to_be64(sc->vec);
	if (dest) {
		sc->k.cmax = cmax;
		fl |= SMARTT_CRP_DEST_DONE;
		if (res == CRP_GRANT) {
			sc->new.grant_slot = bpf_cpu_to_be64(sc->g.slot);
			sc->new.grant_offset = bpf_htonl(sc->g.offset);
			sc->new.grant_ns = bpf_cpu_to_be64(crp_grant_ns(&sc->k, &sc->g));
			st->crp_dest_grant++;
		} else {
			fl |= res == CRP_RETRY_FULL ? SMARTT_CRP_DEST_FULL : SMARTT_CRP_NO_SLOT;
			sc->new.retry_after_ns =
				bpf_htonl((__u32)crp_retry_wait_ns(&sc->k, res, 0, 0));
			if (res == CRP_RETRY_FULL)
				st->crp_dest_full++;
			else
				st->crp_dest_retry++;
		}
		sc->new.crp_flags = bpf_htons(fl);
	} else {
		st->crp_req++;
		st->crp_req_bits += __builtin_popcountll(vec0 & ~sc->vec);
	}
	if (late)
		st->crp_req_late++;
	if (rewrite(skb, p, p->hdr_off + SMARTT_HDR_LEN, &sc->old, &sc->new,
		    sizeof(sc->new)))
		st->crp_err++;
	return 0;
}

/*
 * The two ends of crp_egress_req(), each a function of its own (verified
 * once, whatever the caller's state) with a frame small enough to sit on
 * top of sf_egress's.
 */
__noinline int crp_egress_chan(struct __sk_buff *skb, const struct pkt *p,
			       const struct sf_port_cfg *cfg,
			       struct sf_port_stats *st, __u64 now)
{
	return crp_egress_req(skb, p, cfg, st, now, 0);
}

__noinline int crp_egress_dest(struct __sk_buff *skb, const struct pkt *p,
			       const struct sf_port_cfg *cfg,
			       struct sf_port_stats *st, __u64 now)
{
	return crp_egress_req(skb, p, cfg, st, now, 1);
}

/*
 * A CRP grant arrives at the device whose egress belongs to group
 * cfg->crp_group, on its way back to the source: settle it in the table,
 * or turn it into a retry (CONVERTED) when the cells no longer hold it.
 * Return 0, or -1 for a malformed grant (the caller drops it).
 */
__noinline int crp_ingress_grant(struct __sk_buff *skb, const struct pkt *p,
				 const struct sf_port_cfg *cfg,
				 struct sf_port_stats *st, __u64 now)
{
	struct sf_crp_cfg *cc = crp_on();
	struct sf_crp_table *tb = cfg ? crp_table_of(cfg) : NULL;
	struct sf_crp_scratch *sc;
	struct crp_grant g;
	__u32 w[2], tag;
	bool ok;

	if (!p || !cfg || !st || !cc || !tb)
		return 0;
	sc = crp_load(skb, p);
	if (!sc)
		return -1;
	g.slot = bpf_be64_to_cpu(sc->old.grant_slot);
	g.offset = bpf_ntohl(sc->old.grant_offset);
	g.size = bpf_ntohl(sc->old.req_bytes);
	tag = bpf_ntohl(sc->old.tag);

	bpf_spin_lock(&tb->lock);
	crp_advance(tb, now / cc->knobs.slot_ns);
	ok = crp_channel_grant(&tb->t, tag, &g);
	bpf_spin_unlock(&tb->lock);

	if (ok) {
		st->crp_grant_ok++;
		return 0;
	}
	st->crp_grant_conv++;
	sc->new.crp_flags = bpf_htons(bpf_ntohs(sc->old.crp_flags) | SMARTT_CRP_CONVERTED);
	sc->new.retry_after_ns = bpf_htonl(cc->knobs.retry_ns);
	if (bpf_skb_load_bytes(skb, p->hdr_off, &w[0], 4))
		goto err;
	w[1] = w[0];
	((__u8 *)&w[1])[3] = SMARTT_PKT_CRP_RETRY;
	if (rewrite(skb, p, p->hdr_off, &w[0], &w[1], 4) ||
	    rewrite(skb, p, p->hdr_off + SMARTT_HDR_LEN, &sc->old, &sc->new,
		    sizeof(sc->new)))
		goto err;
	return 0;
err:
	st->crp_err++;
	return 0;
}

/* @len bytes without a reservation left through a port of a group. */
__noinline int crp_consume(const struct sf_port_cfg *cfg, struct sf_port_stats *st,
			   __u32 len, __u64 now)
{
	struct sf_crp_cfg *cc = crp_on();
	struct sf_crp_table *tb;
	__u32 lost;

	if (!cfg || !st || !cc)
		return 0;
	tb = crp_table_of(cfg);
	if (!tb)
		return 0;
	bpf_spin_lock(&tb->lock);
	crp_advance(tb, now / cc->knobs.slot_ns);
	lost = crp_table_consume(&tb->t, len);
	bpf_spin_unlock(&tb->lock);
	st->crp_nonpart_bytes += len;
	st->crp_nonpart_lost += lost;
	return 0;
}

/*
 * DATA that takes part in CRP, by its DSCP as it arrived: sent
 * speculatively (or trimmed as such upstream) or under a grant.
 */
static __always_inline int crp_data(const struct pkt *p)
{
	return p->is_ip &&
	       (p->dscp == dscp_crp_spec || p->dscp == dscp_crp_granted ||
		p->dscp == dscp_crp_spec_dropped);
}

SEC("tc")
int sf_egress(struct __sk_buff *skb)
{
	__u32 port = skb->ifindex;
	struct sf_port_stats *st;
	struct sf_port_state *s;
	struct sf_port_cfg *cfg;
	__u64 now, len, ser, rate, free, qbytes, finish, standing_ns = 0;
	int prio, overflow = 0, trimmed = 0, spec = 0, spec_late = 0;
	struct sf_crp_table *crp_tb = NULL;
	struct sf_crp_cfg *cc;
	struct sf_sample_cfg *scfg;
	struct sf_qsample smp = {};
	__u32 zero_key = 0;
	__u64 interval = 0;
	struct pkt p;

	if (port >= SF_MAX_PORTS)
		return TC_ACT_OK;
	cfg = bpf_map_lookup_elem(&port_cfg, &port);
	if (!cfg || !(cfg->flags & SF_PORT_EMULATE) || !cfg->rate_bps)
		return TC_ACT_OK;
	st = bpf_map_lookup_elem(&port_stats, &port);
	s = bpf_map_lookup_elem(&port_state, &port);
	if (!st || !s)
		return TC_ACT_OK;

	if (cfg->flags & SF_PORT_BLACKHOLE) {
		st->drop_blackhole++;
		return TC_ACT_SHOT;
	}
	if (cfg->loss_permille &&
	    bpf_get_prandom_u32() % 1000 < cfg->loss_permille) {
		st->drop_loss++;
		return TC_ACT_SHOT;
	}

	parse(skb, &p);
	now = port_now(cfg);
	cc = SF_CRP ? crp_on() : NULL;
	if (cc) {
		crp_tb = crp_table_of(cfg);
		if (crp_tb && p.is_crp && p.type == SMARTT_PKT_CRP_REQ &&
		    ((cfg->flags & SF_PORT_LAST_HOP) ?
		     crp_egress_dest(skb, &p, cfg, st, now) :
		     crp_egress_chan(skb, &p, cfg, st, now))) {
			st->drop_crp_bad++;
			return TC_ACT_SHOT;
		}
		/* Speculative DATA: the lowest class, TTW at switch ports.  A
		 * host's NIC queues it below data too (spec 2), without TTW:
		 * the source's own speculation must not delay its granted
		 * packets past their reserved time.
		 */
		if (p.is_ip && p.dscp == dscp_crp_spec)
			spec = (cfg->flags & SF_PORT_NIC) ? 2 : 1;
	}
	prio = (cfg->flags & SF_PORT_PRIO) && is_prio(&p);
	rate = cfg->rate_bps;
	len = skb->len;
	ser = ser_ns(len, rate);
	/* A sender's Early Departure Time (TCP stamps every packet with the
	 * time its pacing lets it leave, and measures RTT from that stamp):
	 * the packet reaches the port then, not before.  Taking it earlier
	 * would send it ahead of its stamp and make the sender's RTT samples
	 * too small.  Forwarded packets carry the upstream port's stamp,
	 * which is in the past by now; a realtime receive stamp is far in
	 * the future and ignored by the horizon.
	 */
	if (skb->tstamp > now && skb->tstamp - now <= SF_EDT_HORIZON_NS)
		now = skb->tstamp;

	scfg = bpf_map_lookup_elem(&sample_cfg, &zero_key);
	if (scfg)
		interval = scfg->interval_ns;

	if (!prio) {
		if (cfg->standing_bytes)
			standing_ns = ser_ns(cfg->standing_bytes, rate);
		bpf_spin_lock(&s->lock);
		free = s->data_free_ns > now ? s->data_free_ns : now;
		if (spec && s->spec_free_ns > free)
			free = s->spec_free_ns;
		qbytes = ns_to_bytes(free - now, rate) + cfg->standing_bytes;
		/* Sampling window: the largest occupancy an arrival saw; a
		 * window ends at the first arrival after it.
		 */
		if (interval) {
			if (now - s->win_start_ns >= interval) {
				if (s->win_start_ns) {
					smp.t_ns = s->win_start_ns;
					smp.qbytes = s->win_max_bytes > 0xffffffffULL ?
						     0xffffffffULL : s->win_max_bytes;
				}
				s->win_start_ns = now - (now % interval);
				s->win_max_bytes = 0;
			}
			if (qbytes > s->win_max_bytes)
				s->win_max_bytes = qbytes;
		}
		if (qbytes + len > cfg->buffer_bytes) {
			overflow = 1;
		} else if (spec == 1 && (free - now) + standing_ns > cc->knobs.ttw_ns) {
			/* TTW bounds the wait at each port (the packet carries
			 * no sum of its waits).
			 */
			spec_late = 1;
		} else {
			finish = free + ser;
			if (spec) {
				s->spec_free_ns = finish;
			} else {
				s->data_free_ns = finish;
				/* speculative DATA only gets what data leaves */
				if (cc)
					s->spec_free_ns = (s->spec_free_ns > now ?
							   s->spec_free_ns : now) + ser;
			}
			s->last_enq_ns = now;
			if (qbytes > s->max_queue_bytes)
				s->max_queue_bytes = qbytes;
		}
		bpf_spin_unlock(&s->lock);
		hist_add(st, cfg, qbytes);
		if (smp.t_ns && scfg) {
			smp.ifindex = port;
			if (bpf_ringbuf_output(&queue_samples, &smp, sizeof(smp), 0))
				__sync_fetch_and_add(&scfg->lost, 1);
		}
		/* Only a trimmable DSCP is trimmed; anything else that
		 * overflows (TCP, other UDP, control) is dropped.  A
		 * speculative packet past TTW is trimmed whatever the port's
		 * trimming, and remarked crp_spec_dropped so that the receiver
		 * tells it from a trim for a full buffer.
		 */
		if ((overflow && !((cfg->flags & SF_PORT_TRIM) && can_trim(&p))) ||
		    (spec_late && !can_trim(&p))) {
			st->drop_buffer++;
			return TC_ACT_SHOT;
		}
		if (overflow || spec_late) {
			__u8 dscp = spec ? dscp_crp_spec_dropped :
				    (cfg->flags & SF_PORT_LAST_HOP) ? dscp_trimmed_lasthop :
				    dscp_trimmed;

			if (trim_packet(skb, &p, cfg, dscp)) {
				st->drop_trim_err++;
				return TC_ACT_SHOT;
			}
			if (spec)
				st->crp_spec_drop++;
			trimmed = 1;
			prio = 1;
			len = skb->len;
			ser = ser_ns(len, rate);
		} else if (spec == 1) {
			st->crp_spec_pkts++;
		}
	}
	if (prio) {
		__u64 pfree;

		bpf_spin_lock(&s->lock);
		pfree = s->prio_free_ns > now ? s->prio_free_ns : now;
		qbytes = ns_to_bytes(pfree - now, rate);
		if (qbytes + len > cfg->prio_buffer_bytes) {
			overflow = 2;
		} else {
			finish = pfree + ser;
			s->prio_free_ns = finish;
			/* strict priority: the link time comes out of the data class */
			free = s->data_free_ns > now ? s->data_free_ns : now;
			s->data_free_ns = free + ser;
			if (cc)
				s->spec_free_ns = (s->spec_free_ns > now ?
						   s->spec_free_ns : now) + ser;
			s->last_enq_ns = now;
		}
		bpf_spin_unlock(&s->lock);
		if (overflow == 2) {
			st->drop_prio++;
			return TC_ACT_SHOT;
		}
		st->prio_pkts++;
	}

	if (trimmed)
		st->trimmed++;
	st->tx_pkts++;
	st->tx_bytes += len;
	/* Traffic without a reservation uses the group's capacity too. */
	if (crp_tb && !p.is_crp && !crp_data(&p))
		crp_consume(cfg, st, len, now);

	if (cfg->flags & SF_PORT_EDT) {
		/* A direct write rather than bpf_skb_set_tstamp(): that helper
		 * refuses non-IP packets (ARP) on 6.1.  fq only reads the value,
		 * CLOCK_MONOTONIC like bpf_ktime_get_ns().
		 */
		skb->tstamp = finish + standing_ns + cfg->delay_ns;
	} else {
		skb->priority = prio ? SF_HTB_PRIO_CLASS : SF_HTB_DATA_CLASS;
	}
	return TC_ACT_OK;
}

SEC("tc")
int sf_ingress(struct __sk_buff *skb)
{
	__u32 me = skb->ifindex, up;
	struct sf_port_cfg *cfg, *ucfg;
	struct sf_port_stats *ust;
	struct sf_port_state *us;
	struct pkt p;

	if (me >= SF_MAX_PORTS)
		return TC_ACT_OK;
	cfg = bpf_map_lookup_elem(&port_cfg, &me);
	if (!cfg)
		return TC_ACT_OK;
	parse(skb, &p);

	/* A CRP grant on its way back passes the device whose egress is the
	 * reserved resource: settle it there.  Not at a last-hop port: the
	 * grant comes from the destination, whose table took it already.
	 */
	if (SF_CRP && p.is_crp && p.type == SMARTT_PKT_CRP_GRANT && cfg->crp_group &&
	    !(cfg->flags & SF_PORT_LAST_HOP)) {
		struct sf_port_stats *mst = bpf_map_lookup_elem(&port_stats, &me);

		if (mst && crp_ingress_grant(skb, &p, cfg, mst, port_now(cfg))) {
			mst->drop_crp_bad++;
			return TC_ACT_SHOT;
		}
	}

	up = cfg->peer_ifindex;
	ucfg = up < SF_MAX_PORTS ? bpf_map_lookup_elem(&port_cfg, &up) : NULL;
	ust = ucfg ? bpf_map_lookup_elem(&port_stats, &up) : NULL;
	us = ucfg ? bpf_map_lookup_elem(&port_state, &up) : NULL;
	if (ucfg && ust && us && (ucfg->flags & SF_PORT_EMULATE)) {
		ust->rx_pkts++;
		ust->rx_bytes += skb->len;
		/* Speculative DATA is not marked: TTW is its congestion
		 * signal, and it yields to every other class anyway.
		 */
		if (p.is_ip && !((ucfg->flags & SF_PORT_PRIO) && is_prio(&p)) &&
		    !(SF_CRP && p.dscp == dscp_crp_spec && crp_on())) {
			if (p.ecn == 3) {
				ust->ce_seen++;
			} else if (p.ecn) {
				__u64 now = bpf_ktime_get_ns();
				__u64 free = us->data_free_ns;
				__u64 q = free > now ? ns_to_bytes(free - now, ucfg->rate_bps) : 0;
				__u32 kmin = ucfg->kmin_bytes, kmax = ucfg->kmax_bytes;
				int mark = 0;

				q += ucfg->standing_bytes;
				ust->ect_pkts++;
				if (!(ucfg->flags & SF_PORT_ECN))
					mark = 0;
				else if (q >= kmax)
					mark = 1;
				else if (q > kmin && kmax > kmin)
					mark = bpf_get_prandom_u32() % (kmax - kmin) < q - kmin;
				if (mark) {
					if (mark_ce(skb, &p))
						ust->mark_err++;
					else
						ust->ce_marked++;
				}
			}
		}
	}

	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
