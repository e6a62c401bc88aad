// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: cc "crp", CRP channel reservation at the hosts.
 *
 * Sender: a message of at least nmin bytes is cut into segments of at
 * most nmax payload bytes (whole packets); a segment of at least nmin asks
 * for a reservation with a CRP_REQ when its first packet is due, and sends
 * speculatively (DSCP crp_spec, at most spec_bytes) while the request
 * travels.  A grant makes the rest of the segment, and every packet of it
 * declared lost, leave from the granted time on (DSCP crp_granted,
 * skb->tstamp paced at cmax bytes a slot); a retry makes it ask again after
 * R, randomised, or after the tables' look-ahead less an RTT when the
 * destination was full.  A speculative packet a port trimmed after TTW
 * (a NACK EXP_NORMAL with vendor code CRP_SPEC_DROP, from the DSCP
 * crp_spec_dropped it arrived with) stops the segment's speculation and is
 * sent again under the grant.  A peer holds at most %SMARTT_CRP_SEGS
 * reservations; a segment frees its entry when every packet of it is
 * acknowledged.
 *
 * Receiver: a request decided by the destination's last-hop port
 * (SMARTT_CRP_DEST_DONE) is reflected as CRP_GRANT or CRP_RETRY; a request
 * no port decided is decided by the host's own destination table (one per
 * netns, the reservation core of kernel/algo/crp.c) and reflected.
 *
 * The CRP control packets (not UET) travel on their own UDP port,
 * crp_udp_port, with DSCP control: &struct smartt_hdr + &struct
 * smartt_crp_ext, received by smartt_crp_encap_rcv().
 *
 * Time base: CLOCK_MONOTONIC (ktime_get_ns()), which every namespace of
 * one emulated fabric shares with its switch ports.  Documentation/crp.rst,
 * "The transport".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/udp.h>

#include "algo/tcpcc.h"
#include "smartt.h"
#include "transport/transport.h"

#define CREATE_TRACE_POINTS
#include "transport/trace_crp.h"

#define SMARTT_CRP_HEADROOM \
	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + sizeof(struct udphdr))

/* The crp_flags a port or a host may write. */
#define SMARTT_CRP_FLAGS_ALL \
	(SMARTT_CRP_DEST_DONE | SMARTT_CRP_NO_SLOT | SMARTT_CRP_DEST_FULL | \
	 SMARTT_CRP_CONVERTED)
#define SMARTT_CRP_REFUSED	(SMARTT_CRP_NO_SLOT | SMARTT_CRP_DEST_FULL)

/*
 * The defaults describe the fabric's default CRP (smartt-fabric up --crp
 * on, 1 Gbit/s hosts, MTU 4224): slot 570 us, 71250 bytes a slot; N_min
 * and N_max are the paper's 4 and 16 packets of 4 KiB, TTW and R the
 * paper's 200/269 and 30/269 of the slot.
 */
const struct smartt_crp_cfg smartt_crp_defaults = {
	.k = {
		.cells = 32,
		.cmax = 71250,
		.slot_ns = 570000,
		.nmin = 16384,
		.nmax = 65536,
		.eps = 50000,
		.ttw_ns = 423791,
		.retry_ns = 63568,
		.eager = 0,
	},
	.spec_bytes = 65536,
};

/**
 * smartt_crp_cfg_parse() - the CRP knobs of "name=value ..." overrides
 * @text: NUL-terminated overrides, separated by spaces, tabs, newlines or
 *	commas: the core's knob names (kernel/algo/crp.c, fractions as
 *	decimals) and spec_bytes
 * @c: set to the defaults with the overrides
 *
 * Return: 0, or -EINVAL for an entry without '=', an unknown name, a bad
 * number, or knobs the core rejects (crp_knobs_validate()).  Nothing is
 * clamped.
 */
int smartt_crp_cfg_parse(const char *text, struct smartt_crp_cfg *c)
{
	char buf[sizeof_field(struct smartt_net, crp_text)];
	char *p = buf, *tok, *val;
	int i, rc;
	u32 v;

	*c = smartt_crp_defaults;
	if (strscpy(buf, text, sizeof(buf)) < 0)
		return -EINVAL;
	while ((rc = smartt_knob_next(&p, &tok, &val)) > 0) {
		if (!strcmp(tok, "spec_bytes")) {
			if (smartt_cc_parse_num(val, false, &v) || v > SMARTT_MSG_MAX_LIMIT)
				return -EINVAL;
			c->spec_bytes = v;
			continue;
		}
		i = crp_knob_find(tok);
		if (i < 0 || smartt_cc_parse_num(val, crp_knob_descs[i].frac, &v))
			return -EINVAL;
		crp_knob_set(&c->k, i, v);
	}
	if (rc)
		return rc;
	return crp_knobs_validate(&c->k) ? -EINVAL : 0;
}

static struct smartt_hdr *smartt_crp_hdr(const struct sk_buff *skb)
{
	return (struct smartt_hdr *)(skb->data + sizeof(struct udphdr));
}

/* A CRP control packet: to crp_udp_port, DSCP control, no trailer. */
static void smartt_crp_xmit(struct net *net, u16 family, struct dst_cache *cache,
			    const union smartt_addr *saddr, const union smartt_addr *daddr,
			    struct sk_buff *skb, u32 entropy)
{
	struct smartt_tx_opts o = {
		.entropy = entropy,
		.dport = htons(smartt_crp_udp_port),
		.dscp = smartt_dscp(net, SMARTT_DSCP_C_CONTROL),
	};

	smartt_xmit(net, NULL, family, cache, saddr, daddr, skb, &o);
}

/**
 * smartt_crp_valid() - the checks of a CRP packet that need no state
 * @skb: a CRP_REQ, CRP_GRANT or CRP_RETRY, data at the UDP header, its
 *	headers (hdr_words, at least %SMARTT_CRP_HLEN) linear
 *
 * No payload; a PDC id; a segment and a reservation of at least one byte;
 * known crp_flags, consistent with the type: a request is undecided or
 * decided once (DEST_DONE, at most one refusal), never converted; a grant
 * is decided without refusal or conversion; a retry is decided and says
 * why.
 *
 * Return: 0, or the counter of the reason to drop it.
 */
int smartt_crp_valid(const struct sk_buff *skb)
{
	const struct smartt_hdr *h = smartt_crp_hdr(skb);
	const struct smartt_crp_ext *x = (const void *)(h + 1);
	u32 hlen = h->hdr_words * 8;
	u16 f = ntohs(x->crp_flags);
	bool done = f & SMARTT_CRP_DEST_DONE;
	u16 why = f & (SMARTT_CRP_REFUSED | SMARTT_CRP_CONVERTED);

	if (!x->epoch)
		return SMARTT_STAT_DROP_EPOCH;
	if (h->payload_len || skb->len != sizeof(struct udphdr) + hlen)
		return SMARTT_STAT_DROP_LEN;
	if (!x->seg_len || !x->req_bytes || (f & ~SMARTT_CRP_FLAGS_ALL))
		return SMARTT_STAT_CRP_DROP_BAD;
	switch (h->type) {
	case SMARTT_PKT_CRP_REQ:
		if ((f & SMARTT_CRP_CONVERTED) || (!done && why) ||
		    (f & SMARTT_CRP_REFUSED) == SMARTT_CRP_REFUSED)
			return SMARTT_STAT_CRP_DROP_BAD;
		break;
	case SMARTT_PKT_CRP_GRANT:
		if (!done || why)
			return SMARTT_STAT_CRP_DROP_BAD;
		break;
	default:
		if (!done || !why)
			return SMARTT_STAT_CRP_DROP_BAD;
		break;
	}
	return 0;
}

/* Bytes a DATA packet of @plen payload bytes takes on the wire (a frame). */
static u32 smartt_crp_wire(const struct smartt_peer *peer, u32 plen)
{
	u32 iph = peer->family == AF_INET ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);

	return plen + SMARTT_DATA_HLEN + SMARTT_CRC_LEN + sizeof(struct udphdr) + iph +
	       ETH_HLEN;
}

/**
 * struct smartt_crp_geom - the reservation segment a packet belongs to
 * @off: its offset in the message, bytes
 * @first: its first packet (segment index in the message)
 * @npkts: its packets
 * @len: its payload bytes
 * @req: the reservation it asks for (wire bytes with epsilon)
 * @part: it takes part in CRP (at least nmin bytes, a reservation that
 *	fits two cells)
 */
struct smartt_crp_geom {
	u64 off;
	u32 first;
	u32 npkts;
	u32 len;
	u32 req;
	bool part;
};

/*
 * Packets per reservation segment: as many whole packets as nmax holds,
 * at least one, as long as the reservation fits two cells (a reservation
 * straddles at most two), and at most %SMARTT_WIN (a segment's packets
 * share the PSN window).
 */
static u32 smartt_crp_pps(const struct smartt_peer *peer, const struct crp_knobs *k)
{
	u64 wire = smartt_crp_wire(peer, peer->mss);
	u64 n = max_t(u32, k->nmax / peer->mss, 1);

	n = min_t(u64, n, div64_u64(2ULL * k->cmax * SMARTT_PPM,
				    (SMARTT_PPM + (u64)k->eps) * wire));
	n = clamp_t(u64, n, 1, SMARTT_WIN);
	while (n > 1 && crp_req_bytes(k, n * wire) > 2 * k->cmax)
		n--;
	return n;
}

static void smartt_crp_geom(const struct smartt_peer *peer, const struct crp_knobs *k,
			    const struct smartt_tx_msg *m, u32 seg,
			    struct smartt_crp_geom *g)
{
	u32 pps = smartt_crp_pps(peer, k);
	u64 wire;

	g->first = seg - seg % pps;
	g->npkts = min(pps, m->nsegs - g->first);
	g->off = (u64)g->first * peer->mss;
	g->len = min_t(u64, (u64)g->npkts * peer->mss, m->len - min(g->off, m->len));
	wire = (u64)g->len + (u64)g->npkts * smartt_crp_wire(peer, 0);
	g->req = crp_req_bytes(k, min_t(u64, wire, U32_MAX));
	g->part = g->len >= k->nmin && g->req <= 2 * k->cmax;
}

static struct smartt_crp_seg *smartt_crp_find(struct smartt_peer *peer, u64 id, u64 off)
{
	unsigned int i;

	for (i = 0; i < SMARTT_CRP_SEGS; i++) {
		struct smartt_crp_seg *e = &peer->crp[i];

		if (e->state != SMARTT_CRP_FREE && e->msg_id == id && e->off == off)
			return e;
	}
	return NULL;
}

/* Every packet of the segment was sent and acknowledged. */
static bool smartt_crp_done(const struct smartt_peer *peer, const struct smartt_crp_seg *e)
{
	return e->sent >= e->npkts && peer->snd_una >= e->first_psn + e->npkts;
}

static void smartt_crp_send_req(struct sock *sk, struct smartt_peer *peer,
				struct smartt_crp_seg *e, u64 now)
{
	const struct crp_knobs *k = &smartt_sk(sk)->crp->k;
	struct net *net = sock_net(sk);
	struct smartt_crp_ext *x;
	struct smartt_hdr *h;
	struct sk_buff *skb;
	u64 base = div_u64(now, k->slot_ns);
	u32 ev = get_random_u32();
	u64 lead;

	skb = alloc_skb(SMARTT_CRP_HEADROOM + SMARTT_CRP_HLEN, GFP_ATOMIC);
	if (!skb) {
		/* e->at brings the request again */
		smartt_stat_inc(net, SMARTT_STAT_TX_FAIL);
		return;
	}
	skb_reserve(skb, SMARTT_CRP_HEADROOM);
	h = smartt_build_hdr(skb, SMARTT_PKT_CRP_REQ, SMARTT_CRP_HLEN, ev, 0, 0);
	x = (struct smartt_crp_ext *)(h + 1);
	x->sport = htons(smartt_sk(sk)->port);
	x->dport = htons(peer->port);
	x->epoch = htonl(peer->tx_lpdcid);
	x->msg_id = cpu_to_be64(e->msg_id);
	x->seg_off = cpu_to_be64(e->off);
	x->seg_len = htonl(e->len);
	x->req_bytes = htonl(e->req_bytes);
	x->retries = htons(e->retries);
	/*
	 * The sender's own availability: no slot starting before the grant
	 * can be back (a request's round trip to its answer, the RTT before
	 * the first answer), whose time would be past when the grant came.
	 */
	lead = peer->crp_ans_ns ? peer->crp_ans_ns : peer->srtt_ns;
	x->slot_base = cpu_to_be64(base);
	x->vec = cpu_to_be64(crp_vec_from(k->cells, base, k->slot_ns, now + lead));
	e->asked = now;
	smartt_stat_inc(net, SMARTT_STAT_CRP_TX_REQ);
	trace_smartt_crp_req(smartt_sk(sk)->port, peer->port, e->msg_id, e->off,
			     e->req_bytes, e->retries);
	smartt_crp_xmit(net, peer->family, &peer->dst_cache, &peer->saddr, &peer->addr,
			skb, ev);
}

/*
 * Send the segment's request (again, @again: one more retry) and wait
 * for its answer until the RTO: a request or its answer may be lost.
 */
static void smartt_crp_ask(struct sock *sk, struct smartt_peer *peer,
			   struct smartt_crp_seg *e, bool again, u64 now)
{
	if (again && e->retries < U16_MAX)
		e->retries++;
	e->state = SMARTT_CRP_ASK;
	e->at = now + peer->rto_ns;
	smartt_peer_due(sk, peer, e->at);
	smartt_crp_send_req(sk, peer, e, now);
}

/* Free the entries whose segment is done; the first free entry, or NULL. */
static struct smartt_crp_seg *smartt_crp_gc(struct smartt_peer *peer)
{
	struct smartt_crp_seg *free = NULL;
	unsigned int i;

	for (i = 0; i < SMARTT_CRP_SEGS; i++) {
		struct smartt_crp_seg *e = &peer->crp[i];

		if (e->state != SMARTT_CRP_FREE && smartt_crp_done(peer, e))
			e->state = SMARTT_CRP_FREE;
		if (e->state == SMARTT_CRP_FREE && !free)
			free = e;
	}
	return free;
}

/*
 * How far ahead of its departure a granted packet is handed to the stack
 * with its departure in skb->tstamp: two slots, and at least two jiffies
 * (the socket timer's granularity).  Within the fabric's EDT horizon (1 s).
 */
static u64 smartt_crp_horizon(const struct crp_knobs *k)
{
	return max_t(u64, 2ULL * k->slot_ns, jiffies_to_nsecs(2));
}

/**
 * smartt_crp_tx() - may a DATA packet of cc "crp" leave now, and how
 * @sk: socket (locked)
 * @peer: the peer
 * @m: the packet's message
 * @seg: its segment index in @m
 * @psn: its PSN (a retransmission: its slot; a first transmission: the
 *	slot it is about to take, snd_nxt)
 * @rtx: a retransmission
 * @now: time, ns
 * @dscp_class: set to the packet's DSCP class (crp_spec, crp_granted, or
 *	trimmable as any DATA)
 * @tstamp: set to its departure time (0: now)
 *
 * Other congestion controls, and segments that do not take part: at once,
 * without flag.  A segment's first packet takes a reservation entry and
 * sends the request (none free: the packet waits).  Granted: at once,
 * departure paced from the granted time, or it waits while that is
 * beyond the horizon; a packet the grant already carried once and that
 * was lost makes the segment ask for a new reservation and waits for it
 * (sent at once, it would take the time other segments reserved); one
 * past the reserved bytes goes at once as not taking part.  Not granted
 * yet: speculative while the segment speculates within spec_bytes (never
 * a retransmission), else it waits.
 *
 * Return: false if the packet must wait (the caller sends nothing).
 */
bool smartt_crp_tx(struct sock *sk, struct smartt_peer *peer, struct smartt_tx_msg *m,
		   u32 seg, u64 psn, bool rtx, u64 now, u8 *dscp_class, u64 *tstamp)
{
	struct smartt_txseg *s = &peer->win[psn % SMARTT_WIN];
	struct smartt_sock *ssk = smartt_sk(sk);
	struct net *net = sock_net(sk);
	const struct crp_knobs *k;
	struct smartt_crp_geom g;
	struct smartt_crp_seg *e;
	u32 plen;

	*dscp_class = SMARTT_DSCP_C_TRIMMABLE;
	*tstamp = 0;
	if (!rtx)
		s->crp = 0;	/* the slot's bits were its previous PSN's */
	if (ssk->cc_algo != SMARTT_CCA_CRP || !ssk->crp || !peer->crp) {
		s->crp = 0;
		return true;
	}
	k = &ssk->crp->k;
	smartt_crp_geom(peer, k, m, seg, &g);
	plen = min_t(u64, peer->mss, m->len - min_t(u64, (u64)seg * peer->mss, m->len));
	if (!g.part) {
		smartt_stat_inc(net, SMARTT_STAT_CRP_TX_NONPART);
		s->crp = 0;
		return true;
	}
	e = smartt_crp_find(peer, m->id, g.off);
	if (!e) {
		/* Its reservation is over (every packet was acknowledged once). */
		if (rtx) {
			s->crp = 0;
			return true;
		}
		e = smartt_crp_gc(peer);
		if (!e)
			return false;
		memset(e, 0, sizeof(*e));
		e->msg_id = m->id;
		e->off = g.off;
		e->len = g.len;
		e->npkts = g.npkts;
		e->req_bytes = g.req;
		e->nospec = !ssk->crp->spec_bytes;
		smartt_crp_ask(sk, peer, e, false, now);
	}
	if (e->state == SMARTT_CRP_GRANTED && rtx && (s->crp & SMARTT_TXSEG_GRANTED) &&
	    (s->crp & SMARTT_TXSEG_GEN_MASK) >> SMARTT_TXSEG_GEN_SHIFT == (e->gen & 0xf)) {
		/*
		 * The grant carried this packet and it was lost: its time is
		 * spent.  The segment asks again; this packet, and the others
		 * of the grant lost meanwhile, leave under the next grant.
		 */
		e->gen++;
		smartt_crp_ask(sk, peer, e, true, now);
		smartt_stat_inc(net, SMARTT_STAT_CRP_REASK);
		return false;
	}
	if (e->state == SMARTT_CRP_GRANTED &&
	    (u64)e->paced + smartt_crp_wire(peer, plen) > e->req_bytes) {
		/*
		 * The grant holds no more bytes: it goes as traffic that does
		 * not take part, which the ports charge to their earliest
		 * cell, never into slots the segment did not reserve.
		 */
		smartt_stat_inc(net, SMARTT_STAT_CRP_TX_NONPART);
		s->crp = 0;
	} else if (e->state == SMARTT_CRP_GRANTED) {
		u64 t = e->at + div_u64((u64)e->paced * k->slot_ns, k->cmax);
		u64 hz = smartt_crp_horizon(k);

		if (t > now + hz) {
			e->wake = t - hz;
			smartt_peer_due(sk, peer, e->wake);
			return false;
		}
		e->wake = 0;
		e->paced = min_t(u64, (u64)e->paced + smartt_crp_wire(peer, plen), U32_MAX);
		*dscp_class = SMARTT_DSCP_C_CRP_GRANTED;
		*tstamp = t > now ? t : 0;
		if (s->crp & SMARTT_TXSEG_SPEC_DROP)
			smartt_stat_inc(net, SMARTT_STAT_CRP_SPEC_RECOVERED);
		s->crp = SMARTT_TXSEG_GRANTED |
			 ((e->gen & 0xf) << SMARTT_TXSEG_GEN_SHIFT);
		smartt_stat_inc(net, SMARTT_STAT_CRP_TX_GRANTED);
	} else {
		if (rtx || e->nospec || e->spec + plen > ssk->crp->spec_bytes)
			return false;
		e->spec += plen;
		*dscp_class = SMARTT_DSCP_C_CRP_SPEC;
		s->crp = SMARTT_TXSEG_SPEC;
		smartt_stat_inc(net, SMARTT_STAT_CRP_TX_SPEC);
	}
	if (!rtx) {
		if (!e->sent)
			e->first_psn = psn;
		e->sent++;
	}
	return true;
}

/**
 * smartt_crp_spec_drop() - a NACK for a spec-dropped packet declared a
 *	packet lost
 * @sk: socket (locked)
 * @peer: the peer
 * @psn: the packet (just declared lost by the NACK)
 *
 * Only a packet sent speculatively counts: its segment stops speculating,
 * and the packet waits for the segment's grant (smartt_crp_tx()).
 */
void smartt_crp_spec_drop(struct sock *sk, struct smartt_peer *peer, u64 psn)
{
	struct smartt_txseg *s = &peer->win[psn % SMARTT_WIN];
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_crp_geom g = {};
	struct smartt_crp_seg *e;

	if (s->psn != psn || !s->msg || !(s->crp & SMARTT_TXSEG_SPEC))
		return;
	s->crp = SMARTT_TXSEG_SPEC_DROP;
	smartt_stat_inc(sock_net(sk), SMARTT_STAT_CRP_SPEC_DROPPED);
	if (ssk->cc_algo == SMARTT_CCA_CRP && ssk->crp && peer->crp) {
		smartt_crp_geom(peer, &ssk->crp->k, s->msg, s->seg, &g);
		e = smartt_crp_find(peer, s->msg->id, g.off);
		if (e)
			e->nospec = 1;
	}
	trace_smartt_crp_spec_drop(ssk->port, peer->port, psn, s->msg->id, g.off);
}

/**
 * smartt_crp_reset() - forget a peer's reservations
 * @peer: the peer (its sequence space restarts, or the congestion
 *	control changed)
 */
void smartt_crp_reset(struct smartt_peer *peer)
{
	if (peer->crp)
		memset(peer->crp, 0, SMARTT_CRP_SEGS * sizeof(*peer->crp));
}

/**
 * smartt_crp_msg_gone() - a message failed: its reservations end
 * @peer: the peer
 * @msg_id: the message
 */
void smartt_crp_msg_gone(struct smartt_peer *peer, u64 msg_id)
{
	unsigned int i;

	if (!peer->crp)
		return;
	for (i = 0; i < SMARTT_CRP_SEGS; i++)
		if (peer->crp[i].msg_id == msg_id)
			peer->crp[i].state = SMARTT_CRP_FREE;
}

/**
 * smartt_crp_deadline() - the peer's next reservation deadline
 * @peer: the peer
 *
 * Return: the earliest time a request is due again, or a granted packet
 * comes within the horizon (ns), U64_MAX for none.
 */
u64 smartt_crp_deadline(const struct smartt_peer *peer)
{
	u64 at = U64_MAX;
	unsigned int i;

	if (!peer->crp)
		return at;
	for (i = 0; i < SMARTT_CRP_SEGS; i++) {
		const struct smartt_crp_seg *e = &peer->crp[i];

		if (e->state == SMARTT_CRP_ASK || e->state == SMARTT_CRP_WAIT)
			at = min(at, e->at);
		else if (e->state == SMARTT_CRP_GRANTED && e->wake)
			at = min(at, e->wake);
	}
	return at;
}

/**
 * smartt_crp_timer() - the socket timer's reservation work for one peer
 * @sk: socket (locked)
 * @peer: the peer
 * @now: time, ns
 *
 * Frees the entries of finished segments; asks again for a segment whose
 * retry wait is over, or whose request got no answer within the RTO
 * (counted crp_req_timeouts); sends granted packets that came within the
 * horizon.
 */
void smartt_crp_timer(struct sock *sk, struct smartt_peer *peer, u64 now)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	bool push = false;
	unsigned int i;

	if (!peer->crp)
		return;
	if (ssk->cc_algo != SMARTT_CCA_CRP || !ssk->crp) {
		smartt_crp_reset(peer);
		return;
	}
	smartt_crp_gc(peer);
	for (i = 0; i < SMARTT_CRP_SEGS; i++) {
		struct smartt_crp_seg *e = &peer->crp[i];

		switch (e->state) {
		case SMARTT_CRP_ASK:
			if (now < e->at)
				break;
			smartt_stat_inc(sock_net(sk), SMARTT_STAT_CRP_REQ_TIMEOUTS);
			smartt_crp_ask(sk, peer, e, true, now);
			break;
		case SMARTT_CRP_WAIT:
			if (now >= e->at)
				smartt_crp_ask(sk, peer, e, true, now);
			break;
		case SMARTT_CRP_GRANTED:
			if (e->wake && now >= e->wake) {
				e->wake = 0;
				push = true;
			}
			break;
		}
	}
	if (push)
		smartt_push(sk, peer);
}

/*
 * The host's destination table decides an undecided request: moved on to
 * the current slot, the request's vector aligned with it (a vector from a
 * later slot has nothing in common) and stripped of the slots that have
 * begun (the source left them out when it asked; a request that arrives a
 * slot later must not be given its new current slot either), then
 * crp_dest_decide().  Fills the decision into @x as a last-hop port would.
 * Return: true for a grant.
 */
static bool smartt_crp_host_decide(struct net *net, struct smartt_crp_ext *x, u64 now)
{
	struct smartt_net *sn = smartt_net(net);
	struct crp_table *t = &sn->crp_host;
	struct crp_knobs k;
	struct crp_grant g = {};
	enum crp_result res;
	u64 slot, base, vec = be64_to_cpu(x->vec), sb = be64_to_cpu(x->slot_base);
	u16 f = SMARTT_CRP_DEST_DONE;

	spin_lock_bh(&sn->crp_lock);
	k = sn->crp_host_k;
	slot = div_u64(now, k.slot_ns);
	if (!t->cells || slot < t->base)
		crp_table_init(t, &k, slot);
	else if (slot > t->base)
		crp_table_shift(t, slot - t->base);
	base = t->base;
	vec = sb > base ? 0 : crp_vec_shift(vec, base - sb, k.cells);
	vec &= crp_vec_from(k.cells, base, k.slot_ns, now);
	res = crp_dest_decide(t, ntohl(x->req_bytes), &vec, &g);
	spin_unlock_bh(&sn->crp_lock);

	x->slot_base = cpu_to_be64(base);
	x->vec = cpu_to_be64(vec);
	if (res == CRP_GRANT) {
		x->grant_slot = cpu_to_be64(g.slot);
		x->grant_offset = htonl(g.offset);
		x->grant_ns = cpu_to_be64(crp_grant_ns(&k, &g));
	} else {
		f |= res == CRP_RETRY_FULL ? SMARTT_CRP_DEST_FULL : SMARTT_CRP_NO_SLOT;
		x->retry_after_ns = htonl(min_t(u64, res == CRP_RETRY_FULL ?
						(u64)k.cells * k.slot_ns : k.retry_ns, U32_MAX));
	}
	x->crp_flags = htons(f);
	return res == CRP_GRANT;
}

/*
 * A request: decided by the host's table if no port decided it, then
 * reflected to its source as a grant or a retry, on the request's entropy.
 * No per-peer state is made: the answer goes to the packet's addresses.
 * A request of a PDC this socket receives (the source's address and
 * transport port, the sender's PDC id in the epoch) is always answered;
 * any other (a sender's first requests, before its first DATA; or
 * forged) within the limits of stateless answers, per source and per
 * netns (smartt_crp_reply_allow()), before it takes the host's table.
 */
static void smartt_crp_rcv_req(struct sock *sk, struct sk_buff *in)
{
	const struct smartt_hdr *ih = smartt_crp_hdr(in);
	struct smartt_crp_ext x = *(const struct smartt_crp_ext *)(ih + 1);
	union smartt_addr src = {}, dst = {};
	struct net *net = sock_net(sk);
	struct smartt_peer *peer;
	struct smartt_hdr *h;
	struct sk_buff *skb;
	bool host = false;
	__be16 port;
	u16 family;
	u8 type;

	family = smartt_reply_addrs(in, &src, &dst);
	peer = smartt_peer_lookup(sk, family, &dst, ntohs(x.sport));
	if ((!peer || !peer->rx_rpdcid || ntohl(x.epoch) != peer->rx_rpdcid) &&
	    !smartt_crp_reply_allow(net, in)) {
		smartt_stat_inc(net, SMARTT_STAT_CRP_REQ_LIMITED);
		goto out;
	}
	smartt_stat_inc(net, SMARTT_STAT_CRP_RX_REQ);
	if (!(ntohs(x.crp_flags) & SMARTT_CRP_DEST_DONE)) {
		host = true;
		smartt_stat_inc(net, smartt_crp_host_decide(net, &x, ktime_get_ns()) ?
				SMARTT_STAT_CRP_HOST_GRANT : SMARTT_STAT_CRP_HOST_RETRY);
	}
	type = ntohs(x.crp_flags) & SMARTT_CRP_REFUSED ? SMARTT_PKT_CRP_RETRY :
							 SMARTT_PKT_CRP_GRANT;
	trace_smartt_crp_reflect(smartt_sk(sk)->port, ntohs(x.sport), be64_to_cpu(x.msg_id),
				 be64_to_cpu(x.seg_off), host, ntohs(x.crp_flags),
				 type == SMARTT_PKT_CRP_GRANT ? be64_to_cpu(x.grant_ns) : 0);
	port = x.sport;
	x.sport = x.dport;
	x.dport = port;
	skb = alloc_skb(SMARTT_CRP_HEADROOM + SMARTT_CRP_HLEN, GFP_ATOMIC);
	if (!skb) {
		smartt_stat_inc(net, SMARTT_STAT_TX_FAIL);
		goto out;
	}
	skb_reserve(skb, SMARTT_CRP_HEADROOM);
	h = smartt_build_hdr(skb, type, SMARTT_CRP_HLEN, ntohl(ih->entropy), 0, 0);
	memcpy(h + 1, &x, sizeof(x));
	smartt_stat_inc(net, type == SMARTT_PKT_CRP_GRANT ? SMARTT_STAT_CRP_TX_GRANT :
			SMARTT_STAT_CRP_TX_RETRY);
	smartt_crp_xmit(net, family, NULL, &src, &dst, skb, ntohl(ih->entropy));
out:
	consume_skb(in);
}

/*
 * A grant or a retry for one of our requests: taken only by the segment
 * that waits for this very request (PDC id, message, offset, length, size
 * and retry count all its own), else dropped and counted.  A grant's time
 * must lie within the tables' look-ahead of now.
 */
static void smartt_crp_rcv_answer(struct sock *sk, struct sk_buff *skb)
{
	const struct smartt_hdr *h = smartt_crp_hdr(skb);
	const struct smartt_crp_ext *x = (const void *)(h + 1);
	const struct smartt_skb_cb *cb = SMARTT_SKB_CB(skb);
	struct smartt_sock *ssk = smartt_sk(sk);
	struct net *net = sock_net(sk);
	bool grant = h->type == SMARTT_PKT_CRP_GRANT;
	u16 f = ntohs(x->crp_flags);
	const struct crp_knobs *k;
	struct smartt_crp_seg *e;
	struct smartt_peer *peer;
	u64 now, window, at;
	enum smartt_stat why;

	peer = smartt_peer_lookup(sk, cb->family, &cb->saddr, cb->sport);
	if (!peer) {
		smartt_stat_inc(net, SMARTT_STAT_DROP_NO_PEER);
		goto drop;
	}
	why = SMARTT_STAT_CRP_DROP_UNKNOWN;
	if (ssk->cc_algo != SMARTT_CCA_CRP || !ssk->crp || !peer->crp ||
	    ntohl(x->epoch) != peer->tx_lpdcid)
		goto count;
	k = &ssk->crp->k;
	e = smartt_crp_find(peer, be64_to_cpu(x->msg_id), be64_to_cpu(x->seg_off));
	if (!e || e->state != SMARTT_CRP_ASK || ntohs(x->retries) != e->retries ||
	    ntohl(x->seg_len) != e->len || ntohl(x->req_bytes) != e->req_bytes)
		goto count;
	now = ktime_get_ns();
	if (now > e->asked) {
		u64 ans = now - e->asked;

		peer->crp_ans_ns = peer->crp_ans_ns ?
			peer->crp_ans_ns - (peer->crp_ans_ns >> 3) + (ans >> 3) : ans;
	}
	window = (u64)k->cells * k->slot_ns;
	if (grant) {
		at = be64_to_cpu(x->grant_ns);
		if (at > now + window + k->slot_ns || at + window < now) {
			why = SMARTT_STAT_CRP_DROP_BAD;
			goto count;
		}
		e->state = SMARTT_CRP_GRANTED;
		e->at = at;
		e->paced = 0;
		e->wake = 0;
		smartt_stat_inc(net, SMARTT_STAT_CRP_RX_GRANT);
	} else {
		enum crp_result res = f & SMARTT_CRP_DEST_FULL ? CRP_RETRY_FULL : CRP_RETRY;

		at = now + crp_retry_wait_ns(k, res, peer->srtt_ns, get_random_u32());
		e->state = SMARTT_CRP_WAIT;
		e->at = at;
		smartt_peer_due(sk, peer, at);
		smartt_stat_inc(net, SMARTT_STAT_CRP_RX_RETRY);
		smartt_stat_inc(net, f & SMARTT_CRP_DEST_FULL ? SMARTT_STAT_CRP_RETRY_FULL :
				f & SMARTT_CRP_CONVERTED ? SMARTT_STAT_CRP_RETRY_CONV :
				SMARTT_STAT_CRP_RETRY_NOSLOT);
	}
	trace_smartt_crp_answer(ssk->port, peer->port, e->msg_id, e->off, h->type, f, at, now);
	smartt_peer_touch(sk, peer, now);
	consume_skb(skb);
	if (grant)
		smartt_push(sk, peer);
	return;
count:
	smartt_stat_inc(net, why);
drop:
	kfree_skb(skb);
}

/**
 * smartt_crp_rcv() - a validated CRP packet for a socket
 * @sk: the socket bound to its destination port (locked)
 * @skb: the packet, checked by smartt_crp_valid(); consumed
 */
void smartt_crp_rcv(struct sock *sk, struct sk_buff *skb)
{
	if (smartt_crp_hdr(skb)->type == SMARTT_PKT_CRP_REQ)
		smartt_crp_rcv_req(sk, skb);
	else
		smartt_crp_rcv_answer(sk, skb);
}

/**
 * smartt_crp_encap_rcv() - encap_rcv of the CRP UDP sockets (crp_udp_port)
 * @usk: the UDP socket
 * @skb: the packet, data at the UDP header, a non-zero checksum verified by
 *	UDP
 *
 * Magic, version, type and header length checked against the packet's own
 * length, then smartt_crp_valid(); the socket is the one bound to the
 * extension's destination transport port.
 *
 * Context: softirq.
 * Return: 0: the packet is always consumed.
 */
int smartt_crp_encap_rcv(struct sock *usk, struct sk_buff *skb)
{
	struct net *net = sock_net(usk);
	const struct smartt_crp_ext *x;
	const struct smartt_hdr *h;
	struct smartt_skb_cb *cb;
	enum smartt_stat why = 0;
	struct sock *sk;
	u16 family;
	u32 hlen;

	smartt_stat_inc(net, SMARTT_STAT_RX_PKTS);
	smartt_stat_add(net, SMARTT_STAT_RX_BYTES, skb->len);
	if (smartt_skb_not_unicast(skb)) {
		why = SMARTT_STAT_DROP_NOT_UNICAST;
		goto drop;
	}
	why = SMARTT_STAT_DROP_SHORT;
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + SMARTT_HDR_LEN))
		goto malformed;
	h = smartt_crp_hdr(skb);
	why = SMARTT_STAT_DROP_MAGIC;
	if (h->magic != htons(SMARTT_MAGIC))
		goto malformed;
	why = SMARTT_STAT_DROP_VERSION;
	if (h->version != SMARTT_WIRE_VERSION)
		goto malformed;
	why = SMARTT_STAT_DROP_TYPE;
	if (h->type < SMARTT_PKT_CRP_REQ || h->type >= SMARTT_PKT_MAX)
		goto malformed;
	hlen = h->hdr_words * 8;
	why = SMARTT_STAT_DROP_HLEN;
	if (hlen < SMARTT_CRP_HLEN)
		goto malformed;
	why = SMARTT_STAT_DROP_SHORT;
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + hlen))
		goto malformed;
	why = smartt_crp_valid(skb);
	if (why)
		goto malformed;
	h = smartt_crp_hdr(skb);
	x = (const struct smartt_crp_ext *)(h + 1);
	cb = SMARTT_SKB_CB(skb);
	memset(cb, 0, sizeof(*cb));
	if (ip_hdr(skb)->version == 4) {
		family = AF_INET;
		cb->saddr.v4 = ip_hdr(skb)->saddr;
	} else {
		family = AF_INET6;
		cb->saddr.v6 = ipv6_hdr(skb)->saddr;
	}
	cb->family = family;
	cb->sport = ntohs(x->sport);
	cb->crp = 1;
	sk = smartt_lookup(net, ntohs(x->dport));
	if (!sk || sk->sk_family != family) {
		if (sk)
			sock_put(sk);
		why = SMARTT_STAT_DROP_NO_SOCKET;
		goto drop;
	}
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk)) {
		smartt_rcv(sk, skb);
	} else if (sk_add_backlog(sk, skb, READ_ONCE(sk->sk_rcvbuf) +
				  READ_ONCE(sk->sk_sndbuf))) {
		bh_unlock_sock(sk);
		sock_put(sk);
		why = SMARTT_STAT_DROP_BACKLOG;
		goto drop;
	}
	bh_unlock_sock(sk);
	sock_put(sk);
	return 0;
malformed:
	smartt_stat_inc(net, SMARTT_STAT_MALFORMED);
drop:
	smartt_stat_inc(net, why);
	kfree_skb(skb);
	return 0;
}
