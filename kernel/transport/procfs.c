// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: /proc/net/smartt_peers, the per-peer state of every
 * bound socket of a netns, one line per socket and peer (read-only).
 *
 * Sockets are found in the port table under RCU and pinned with a
 * reference; their peers are read under lock_sock() outside RCU.  Each
 * bucket of the table is walked in port order (the next port above the
 * last one shown), so a socket bound for the whole read is shown exactly
 * once even while others come and go.
 *
 * The PSNs and PDC ids, what an off-path attacker must guess to forge a
 * packet a PDC takes, are shown only to a reader with CAP_NET_ADMIN over
 * the netns ("-" to others).
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "transport/transport.h"

static u32 smartt_proc_count(const struct list_head *head)
{
	const struct list_head *pos;
	u32 n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

/* A value shown to a privileged reader only. */
static void smartt_proc_secret(struct seq_file *seq, bool priv, u64 v)
{
	if (priv)
		seq_printf(seq, " %llu", v);
	else
		seq_puts(seq, " -");
}

static void smartt_proc_show_sock(struct seq_file *seq, struct sock *sk, bool priv)
{
	struct smartt_sock *ssk = smartt_sk(sk);
	struct smartt_peer *p;
	const char *cc;

	lock_sock(sk);
	if (ssk->closing)
		goto out;
	cc = smartt_cc_name(ssk);
	list_for_each_entry(p, &ssk->peers, node) {
		seq_printf(seq, "%u ", ssk->port);
		if (p->family == AF_INET)
			seq_printf(seq, "%pI4", &p->addr.v4);
		else
			seq_printf(seq, "%pI6c", &p->addr.v6);
		seq_printf(seq, " %u %s %u %llu %llu %llu %llu %llu",
			   p->port, cc, p->mss, p->cwnd, p->in_flight,
			   div_u64(p->srtt_ns, NSEC_PER_USEC),
			   div_u64(p->rttvar_ns, NSEC_PER_USEC),
			   div_u64(p->rto_ns, NSEC_PER_USEC));
		smartt_proc_secret(seq, priv, p->snd_una);
		smartt_proc_secret(seq, priv, p->snd_nxt);
		smartt_proc_secret(seq, priv, smartt_rx_psn(p));
		seq_printf(seq, " %u %u %llu %llu %llu", smartt_proc_count(&p->tx_msgs),
			   smartt_proc_count(&p->rx_msgs), p->retransmits, p->rtos, p->rx_charge);
		smartt_proc_secret(seq, priv, p->tx_lpdcid);
		smartt_proc_secret(seq, priv, p->tx_est ? p->tx_rpdcid : 0);
		smartt_proc_secret(seq, priv, p->rx_lpdcid);
		smartt_proc_secret(seq, priv, p->rx_rpdcid);
		seq_putc(seq, '\n');
	}
out:
	release_sock(sk);
}

/*
 * The socket of @bucket with the lowest port above *@after, with a
 * reference held, or NULL; *@after becomes its port.  A socket closing
 * meanwhile (no reference to take) is passed over.
 */
static struct sock *smartt_proc_next(struct smartt_net *sn, unsigned int bucket, int *after)
{
	struct smartt_sock *ssk, *best;
	struct sock *sk = NULL;
	int best_port;

	rcu_read_lock();
	while (!sk) {
		best = NULL;
		best_port = 0;
		hlist_for_each_entry_rcu(ssk, &sn->bind[bucket], bind_node) {
			int port = READ_ONCE(ssk->port);

			if (port > *after && (!best || port < best_port)) {
				best = ssk;
				best_port = port;
			}
		}
		if (!best)
			break;
		*after = best_port;
		if (refcount_inc_not_zero(&best->inet.sk.sk_refcnt))
			sk = &best->inet.sk;
	}
	rcu_read_unlock();
	return sk;
}

static int smartt_peers_show(struct seq_file *seq, void *v)
{
	struct net *net = seq_file_single_net(seq);
	bool priv = file_ns_capable(seq->file, net->user_ns, CAP_NET_ADMIN);
	struct smartt_net *sn = smartt_net(net);
	unsigned int b;

	seq_puts(seq, "port peer peer_port cc mss cwnd in_flight srtt_us rttvar_us rto_us snd_una snd_nxt rcv_nxt tx_msgs rx_msgs retransmits rtos rx_charge tx_pdcid tx_peer_pdcid rx_pdcid rx_peer_pdcid\n");
	for (b = 0; b < ARRAY_SIZE(sn->bind); b++) {
		int after = -1;
		struct sock *sk;

		while ((sk = smartt_proc_next(sn, b, &after))) {
			smartt_proc_show_sock(seq, sk, priv);
			sock_put(sk);
			cond_resched();
		}
	}
	return 0;
}

/**
 * smartt_procfs_init_net() - create /proc/net/smartt_peers in a netns
 * @net: the network namespace
 *
 * Context: process (pernet init).
 * Return: 0 or -ENOMEM.
 */
int smartt_procfs_init_net(struct net *net)
{
	if (!proc_create_net_single("smartt_peers", 0444, net->proc_net,
				    smartt_peers_show, NULL))
		return -ENOMEM;
	return 0;
}

/**
 * smartt_procfs_exit_net() - remove /proc/net/smartt_peers of a netns
 * @net: the network namespace
 *
 * Context: process (pernet exit).
 */
void smartt_procfs_exit_net(struct net *net)
{
	remove_proc_entry("smartt_peers", net->proc_net);
}
