// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the memory a peer makes the receive path hold.
 *
 * Every segment of a message being reassembled is an skb charged to the
 * receiving socket (sk_rmem_alloc, against SO_RCVBUF) and to the protocol
 * (memory_allocated, in pages, against net.smartt.transport_mem as UDP's
 * against udp_mem), through the socket's forward allocation like TCP's
 * receive queue.  A message is admitted with a reservation of the most
 * its segments can be charged, smartt_rx_msg_charge(): a segment whose skb
 * is bigger than its share (a driver's page for 64 bytes) is copied into
 * one that fits before it is charged, so the reservation is a bound, not
 * an estimate.
 *
 * Each netns also counts what its sockets hold (smartt_net.mem_bytes,
 * through the skbs' destructor) against its own net.smartt.transport_mem:
 * the initial netns's is the protocol-wide limit the core enforces (as
 * udp_mem), every other netns's bounds that netns alone, within it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/swap.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "smartt.h"
#include "transport/transport.h"

atomic_long_t smartt_memory_allocated;
DEFINE_PER_CPU(int, smartt_memory_per_cpu_fw_alloc);
/* net.smartt.transport_mem: min, pressure, max, in pages */
long smartt_sysctl_mem[3];
/* A socket below this much receive memory gets it even under pressure. */
int smartt_sysctl_rmem_min = PAGE_SIZE;

/**
 * smartt_rx_seg_charge() - the most one segment's skb is charged
 * @len: its payload bytes
 *
 * What alloc_skb(@len) can return: the &struct sk_buff and the data area
 * (payload and &struct skb_shared_info), which kmalloc rounds up to at
 * most a power of two (slab or pages), or which comes from the small-head
 * cache of skbuff.c (SKB_SMALL_HEAD_CACHE_SIZE, under 1 KiB).
 *
 * Return: bytes.
 */
u32 smartt_rx_seg_charge(u32 len)
{
	u32 data = SKB_DATA_ALIGN(len) + SKB_DATA_ALIGN(sizeof(struct skb_shared_info));

	return SKB_DATA_ALIGN(sizeof(struct sk_buff)) +
	       max_t(u32, roundup_pow_of_two(data), SZ_1K);
}

/**
 * smartt_rx_msg_charge() - the reservation of a message being reassembled
 * @len: message bytes (up to %SMARTT_MSG_MAX_LIMIT)
 * @seg: segment size (%SMARTT_SEG_MIN to %SMARTT_SEG_MAX)
 *
 * Return: bytes: every segment's smartt_rx_seg_charge() (an empty message
 * has one empty segment) and the head skb that carries the message
 * (smartt_rx_head_charge()).
 */
u64 smartt_rx_msg_charge(u64 len, u32 seg)
{
	u64 full = div_u64(len, seg);
	u32 last = len - full * seg;

	/* An empty message is one empty segment. */
	return full * smartt_rx_seg_charge(seg) +
	       (last || !len ? smartt_rx_seg_charge(last) : 0) + smartt_rx_head_charge();
}

/**
 * smartt_rx_head_charge() - what the head skb of a message is charged
 *
 * Return: bytes: the skb of alloc_skb(0) and the &struct smartt_rx_msg.
 */
u32 smartt_rx_head_charge(void)
{
	return smartt_rx_seg_charge(0) + sizeof(struct smartt_rx_msg);
}

/* The destructor of a charged skb: sock_rfree(), and the netns's count. */
static void smartt_rfree(struct sk_buff *skb)
{
	atomic_long_sub(skb->truesize, &smartt_net(sock_net(skb->sk))->mem_bytes);
	sock_rfree(skb);
}

/* Pages of @bytes, rounded up. */
static long smartt_pages(u64 bytes)
{
	return (long)((bytes + PAGE_SIZE - 1) >> PAGE_SHIFT);
}

/**
 * smartt_net_mem_pages() - the receive memory a netns's sockets hold
 * @net: the netns
 *
 * Return: pages (rounded up).
 */
long smartt_net_mem_pages(const struct net *net)
{
	return smartt_pages(atomic_long_read(&smartt_net(net)->mem_bytes));
}

/**
 * smartt_rx_charge() - charge a socket for an skb it will hold
 * @sk: socket (locked)
 * @skb: the skb, not owned
 * @extra: bytes charged on top of its truesize (and included in it, so
 *	that the skb's destructor returns them)
 *
 * Context: the socket lock (or ownership), as for every sk_forward_alloc
 * user.
 * Return: true if the protocol's memory limits allowed it, and in a netns
 * other than the initial one the maximum of its own transport_mem (the
 * skb is then owned by @sk, and counted in smartt_net.mem_bytes until its
 * destructor), false if not (nothing charged).
 */
bool smartt_rx_charge(struct sock *sk, struct sk_buff *skb, u32 extra)
{
	struct net *net = sock_net(sk);
	struct smartt_net *sn = smartt_net(net);
	u32 size = skb->truesize + extra;

	if (!net_eq(net, &init_net) &&
	    smartt_pages(atomic_long_read(&sn->mem_bytes) + size) > READ_ONCE(sn->mem[2]))
		return false;
	if (!sk_rmem_schedule(sk, skb, size))
		return false;
	skb->truesize = size;
	skb_set_owner_r(skb, sk);
	/* sock_rfree(), and the netns's count returned */
	skb->destructor = smartt_rfree;
	atomic_long_add(size, &sn->mem_bytes);
	return true;
}

/**
 * smartt_mem_pages() - the receive memory charged to the protocol
 *
 * The core adds charges to a per-CPU reserve and moves it into
 * memory_allocated by the megabyte: the sum of both is exact.  O(CPUs):
 * for the counters, not the packet path.
 *
 * Return: pages.
 */
long smartt_mem_pages(void)
{
	long pages = atomic_long_read(&smartt_memory_allocated);
	int cpu;

	for_each_possible_cpu(cpu)
		pages += *per_cpu_ptr(&smartt_memory_per_cpu_fw_alloc, cpu);
	return pages;
}

/**
 * smartt_rx_mem_room() - whether a netns's socket can take a reservation
 * @net: the socket's netns
 * @bytes: bytes about to be reserved
 *
 * Return: true if memory_allocated plus @bytes stays within the pressure
 * threshold of the initial netns's net.smartt.transport_mem (above it
 * only sockets holding little get memory, sk_rmem_schedule(), so new
 * messages wait), and what @net's sockets hold plus @bytes within the
 * pressure threshold of @net's own.  Exact (smartt_mem_pages(), O(CPUs)):
 * memory_allocated alone can be off by the per-CPU reserves, a megabyte
 * each.  Called once per new message, not per segment.
 */
bool smartt_rx_mem_room(const struct net *net, u64 bytes)
{
	long need = smartt_pages(bytes) + 1;

	if (smartt_mem_pages() + need > READ_ONCE(smartt_sysctl_mem[1]))
		return false;
	return net_eq(net, &init_net) ||
	       smartt_net_mem_pages(net) + need <= READ_ONCE(smartt_net(net)->mem[1]);
}

/*
 * min <= pressure <= max, each at least 1 page; the old triple if not.
 * @table->data is the triple: the protocol's (initial netns) or the
 * netns's own.
 */
static int smartt_mem_sysctl_handler(SMARTT_CTL_TABLE_CONST struct ctl_table *table,
				     int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	static DEFINE_MUTEX(lock);
	long *mem = table->data, v[3];
	struct ctl_table t = *table;
	int err, i;

	mutex_lock(&lock);
	for (i = 0; i < 3; i++)
		v[i] = READ_ONCE(mem[i]);
	t.data = v;
	err = proc_doulongvec_minmax(&t, write, buffer, lenp, ppos);
	if (!err && write) {
		if (v[0] < 1 || v[0] > v[1] || v[1] > v[2]) {
			err = -EINVAL;
		} else {
			for (i = 0; i < 3; i++)
				WRITE_ONCE(mem[i], v[i]);
		}
	}
	mutex_unlock(&lock);
	return err;
}

static const struct ctl_table smartt_mem_table_tmpl[] = {
	{
		.procname = "transport_mem",
		.maxlen = sizeof(smartt_sysctl_mem),
		.mode = 0644,
		.proc_handler = smartt_mem_sysctl_handler,
	},
	{ }
};

/**
 * smartt_mem_net_init() - a netns's receive memory limit and its sysctl
 * @net: the netns
 *
 * net.smartt.transport_mem in every netns: the initial netns's is the
 * protocol's (smartt_sysctl_mem), any other starts as a copy of it.
 *
 * Return: 0 or -ENOMEM.
 */
int smartt_mem_net_init(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);
	unsigned int i;

	atomic_long_set(&sn->mem_bytes, 0);
	for (i = 0; i < 3; i++)
		sn->mem[i] = READ_ONCE(smartt_sysctl_mem[i]);
	sn->mem_table = kmemdup(smartt_mem_table_tmpl, sizeof(smartt_mem_table_tmpl),
				GFP_KERNEL);
	if (!sn->mem_table)
		return -ENOMEM;
	sn->mem_table[0].data = net_eq(net, &init_net) ? smartt_sysctl_mem : sn->mem;
	sn->mem_sysctl = smartt_register_net_sysctl(net, "net/smartt", sn->mem_table, 1);
	if (!sn->mem_sysctl) {
		kfree(sn->mem_table);
		return -ENOMEM;
	}
	return 0;
}

/**
 * smartt_mem_net_exit() - undo smartt_mem_net_init()
 * @net: the netns (its sockets are gone: nothing is charged any more)
 */
void smartt_mem_net_exit(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);

	unregister_net_sysctl_table(sn->mem_sysctl);
	kfree(sn->mem_table);
	WARN_ON_ONCE(atomic_long_read(&sn->mem_bytes));
}

/**
 * smartt_mem_init() - the protocol's limits
 *
 * The defaults are udp_mem's: an eighth of the free buffer pages at
 * pressure, three quarters of that as the minimum, twice the minimum as
 * the maximum.  Each netns's sysctl comes with it (smartt_mem_net_init()).
 */
void smartt_mem_init(void)
{
	unsigned long limit = max(nr_free_buffer_pages() / 8, 128UL);

	smartt_sysctl_mem[0] = limit / 4 * 3;
	smartt_sysctl_mem[1] = limit;
	smartt_sysctl_mem[2] = smartt_sysctl_mem[0] * 2;
}

/**
 * smartt_mem_exit() - check that nothing stays charged
 *
 * Every socket is gone: nothing is charged any more.
 */
void smartt_mem_exit(void)
{
	WARN_ON_ONCE(smartt_mem_pages());
}
