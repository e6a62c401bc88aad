// SPDX-License-Identifier: GPL-2.0
/*
 * smartt-delay: the propagation delay of smartt-fabric's links on kernels
 * without sch_fq (the fabric's "htb+delayline" backend).
 *
 *   smartt-delay --config FILE --stats FILE [--limit N] [--priority P] [--spin NS]
 *
 * Each line of the configuration names one direction of one link:
 *
 *   NETNS QUEUE DELAY_NS RATE_BPS NAME
 *
 * NETNS is the namespace the frames arrive in (a path such as
 * /run/netns/sf-NAME-l0), QUEUE the netfilter queue that the namespace's
 * raw PREROUTING rules send the receiving device's packets to (the fabric
 * uses the device's ifindex), DELAY_NS the link's propagation delay,
 * RATE_BPS the rate of the port that sends into the link (0: none) and
 * NAME that port, for the statistics.
 *
 * A packet is held in the kernel (nfnetlink_queue in copy-meta mode: no
 * payload is copied) and accepted DELAY_NS plus its own serialisation time
 * at RATE_BPS after it arrived: the htb backend releases a packet when its
 * serialisation starts, so the serialisation time completes the link.  The
 * arrival time is the kernel's (the receive timestamp, or the time the
 * packet met the hook), not the time this process read it.  Per queue the
 * order of arrival is kept (a packet is never due before the one ahead of
 * it), so one batch verdict accepts every due packet of a queue.  At most
 * --limit packets wait per queue; a packet beyond that is dropped and
 * counted.
 *
 * One process and one thread serve every queue of a fabric: a netlink
 * socket per namespace, a timerfd armed at the earliest due time, epoll.
 * SIGHUP rereads the delays and rates (the queues stay); SIGUSR1 zeroes
 * the statistics, SIGUSR2 writes them at once; SIGTERM and SIGINT release
 * every waiting packet, write the statistics and exit.
 * The statistics file (JSON, rewritten every 250 ms and at exit) has per
 * link the packets, bytes, drops and waiting packets, and for all links
 * the lateness of the releases (when the verdict was sent minus when the
 * packet was due) as p50, p99, p99.9 and maximum, and the process's CPU
 * time.  Documentation/fabric.rst, "The delay line".
 *
 * Exit status: 0 after SIGTERM/SIGINT, 1 a runtime error, 2 a usage error.
 * The process also exits when a namespace it serves is deleted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC 1000000000ULL
#define MAX_QUEUES 8192
#define MAX_NS 4096
#define DEFAULT_LIMIT 10000
#define DEFAULT_SPIN_NS 50000ULL
#define STATS_NS (NSEC_PER_SEC / 4)
/* Lateness histogram: 1 us bins up to 100 ms, the last bin holds the rest. */
#define LATE_BIN_NS 1000ULL
#define LATE_BINS 100001
#define RECV_BATCH 64
#define RECV_BUF 1024
/* The kernel's own bound of a queue: far above --limit, so that the drop
 * decision (and its counter) is this program's.
 */
#define KERNEL_QMAX 1000000
#define RCVBUF_BYTES (16 << 20)

struct pkt {
	uint32_t id;		/* nfnetlink_queue packet id */
	uint64_t due_ns;	/* CLOCK_MONOTONIC */
};

struct queue {
	char ns_path[256];
	char name[64];
	uint16_t num;		/* netfilter queue number */
	uint64_t delay_ns;
	uint64_t rate_bps;	/* the sending port's rate; 0: no serialisation */
	struct nsock *sock;
	struct pkt *ring;	/* FIFO of waiting packets, capacity limit */
	uint32_t head, len;
	uint64_t last_due_ns;
	uint64_t pkts, bytes, drops, released, max_len;
	uint64_t late_max_ns, late_sum_ns;
};

struct nsock {
	char ns_path[256];
	int fd;
	int procfd;		/* /proc/net/netfilter/nfnetlink_queue there */
	uint32_t seq;
};

static struct queue queues[MAX_QUEUES];
static int nqueues;
static struct nsock socks[MAX_NS];
static int nsocks;
static uint32_t limit = DEFAULT_LIMIT;
static uint64_t late_hist[LATE_BINS];
static uint64_t late_count, late_max_ns, pickup_late;
/* releases later than a tenth of their link's delay */
static uint64_t late_tenth;
static const char *config_path, *stats_path;
static int64_t real_minus_mono_ns;
static uint64_t start_mono_ns;
static uint64_t spin_ns = DEFAULT_SPIN_NS;
/* Wall time inside the verdict sends: the kernel's onward processing of
 * the released packets, done in this process's context.
 */
static uint64_t verdict_ns, verdict_max_ns;

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("smartt-delay: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, read between two monotonic readings. */
static void sync_clocks(void)
{
	uint64_t a = clock_ns(CLOCK_MONOTONIC);
	uint64_t r = clock_ns(CLOCK_REALTIME);
	uint64_t b = clock_ns(CLOCK_MONOTONIC);

	real_minus_mono_ns = (int64_t)r - (int64_t)(a + (b - a) / 2);
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* ---------------------------------------------------------------- netlink */

static size_t put_attr(char *buf, size_t off, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(buf + off);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(buf + off + NLA_HDRLEN, data, len);
	return off + NLA_ALIGN(a->nla_len);
}

static size_t put_msg_hdr(char *buf, size_t off, uint16_t type, uint16_t flags,
			  uint16_t queue, uint32_t seq)
{
	struct nlmsghdr *n = (struct nlmsghdr *)(buf + off);
	struct nfgenmsg *g = (struct nfgenmsg *)(buf + off + NLMSG_HDRLEN);

	memset(n, 0, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*g)));
	n->nlmsg_type = (NFNL_SUBSYS_QUEUE << 8) | type;
	n->nlmsg_flags = NLM_F_REQUEST | flags;
	n->nlmsg_seq = seq;
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons(queue);
	return off + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*g));
}

static void end_msg(char *buf, size_t start, size_t end)
{
	((struct nlmsghdr *)(buf + start))->nlmsg_len = end - start;
}

/* Send one request and wait for its acknowledgement. */
static int nl_request(struct nsock *s, char *buf, size_t len)
{
	char ack[4096];
	struct nlmsghdr *n;
	ssize_t r;

	if (send(s->fd, buf, len, 0) != (ssize_t)len)
		return -errno;
	for (;;) {
		r = recv(s->fd, ack, sizeof(ack), 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		for (n = (struct nlmsghdr *)ack; NLMSG_OK(n, (size_t)r); n = NLMSG_NEXT(n, r)) {
			if (n->nlmsg_type == NLMSG_ERROR && n->nlmsg_seq == s->seq)
				return ((struct nlmsgerr *)NLMSG_DATA(n))->error;
		}
	}
}

static void bind_queue(struct queue *q)
{
	struct nfqnl_msg_config_cmd cmd = { .command = NFQNL_CFG_CMD_BIND };
	struct nfqnl_msg_config_params params = {
		.copy_range = htonl(0), .copy_mode = NFQNL_COPY_META };
	uint32_t maxlen = htonl(KERNEL_QMAX);
	uint32_t flags = htonl(NFQA_CFG_F_GSO), mask = htonl(NFQA_CFG_F_GSO);
	char buf[256];
	size_t off;
	int err;

	q->sock->seq++;
	off = put_msg_hdr(buf, 0, NFQNL_MSG_CONFIG, NLM_F_ACK, q->num, q->sock->seq);
	off = put_attr(buf, off, NFQA_CFG_CMD, &cmd, sizeof(cmd));
	end_msg(buf, 0, off);
	err = nl_request(q->sock, buf, off);
	if (err)
		die(1, "%s: queue %u: bind: %s (is another delay line bound to it?)",
		    q->ns_path, q->num, strerror(-err));
	q->sock->seq++;
	off = put_msg_hdr(buf, 0, NFQNL_MSG_CONFIG, NLM_F_ACK, q->num, q->sock->seq);
	off = put_attr(buf, off, NFQA_CFG_PARAMS, &params, sizeof(params));
	off = put_attr(buf, off, NFQA_CFG_QUEUE_MAXLEN, &maxlen, sizeof(maxlen));
	off = put_attr(buf, off, NFQA_CFG_MASK, &mask, sizeof(mask));
	off = put_attr(buf, off, NFQA_CFG_FLAGS, &flags, sizeof(flags));
	end_msg(buf, 0, off);
	err = nl_request(q->sock, buf, off);
	if (err)
		die(1, "%s: queue %u: configure: %s", q->ns_path, q->num, strerror(-err));
}

/* A netlink socket created inside the namespace at @path. */
static struct nsock *ns_socket(const char *path)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, rcvbuf = RCVBUF_BYTES, home, nsfd, i;
	struct nsock *s;

	for (i = 0; i < nsocks; i++)
		if (!strcmp(socks[i].ns_path, path))
			return &socks[i];
	if (nsocks == MAX_NS)
		die(1, "more than %d namespaces", MAX_NS);
	s = &socks[nsocks++];
	/* @path is a queue's ns_path, of the same size */
	memcpy(s->ns_path, path, sizeof(s->ns_path));
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (home < 0 || nsfd < 0)
		die(1, "%s: %s", nsfd < 0 ? path : "/proc/self/ns/net", strerror(errno));
	if (setns(nsfd, CLONE_NEWNET))
		die(1, "setns %s: %s", path, strerror(errno));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (s->fd < 0)
		die(1, "%s: netlink socket: %s", path, strerror(errno));
	/* Any socket asking for timestamps makes the kernel stamp received
	 * packets: the queue then reports when each packet arrived.
	 */
	if (setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	     setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) ||
	    setsockopt(s->fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof(one)) ||
	    bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)))
		die(1, "%s: netlink socket: %s", path, strerror(errno));
	s->procfd = open("/proc/self/net/netfilter/nfnetlink_queue", O_RDONLY | O_CLOEXEC);
	if (setns(home, CLONE_NEWNET))
		die(1, "setns back: %s", strerror(errno));
	close(home);
	close(nsfd);
	return s;
}

static void send_all(struct nsock *s, const char *buf, size_t len)
{
	while (send(s->fd, buf, len, 0) < 0) {
		if (errno == EINTR)
			continue;
		die(1, "%s: verdict: %s", s->ns_path, strerror(errno));
	}
}

/* ---------------------------------------------------------------- config */

static void read_config(bool initial)
{
	char line[1024], ns[256], name[64];
	unsigned long long num, delay, rate;
	FILE *f = fopen(config_path, "r");
	int n = 0, lineno = 0, i;
	struct queue *q;

	if (!f)
		die(1, "%s: %s", config_path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%255s %llu %llu %llu %63s", ns, &num, &delay, &rate, name) != 5 ||
		    num > 65535 || delay > 10 * NSEC_PER_SEC)
			die(initial ? 2 : 1, "%s:%d: want NETNS QUEUE DELAY_NS RATE_BPS NAME "
			    "(queue 0..65535, delay at most 10 s)", config_path, lineno);
		if (initial) {
			if (n == MAX_QUEUES)
				die(2, "%s: more than %d queues", config_path, MAX_QUEUES);
			for (i = 0; i < n; i++)
				if (queues[i].num == num && !strcmp(queues[i].ns_path, ns))
					die(2, "%s:%d: queue %llu of %s twice", config_path,
					    lineno, num, ns);
			q = &queues[n++];
			snprintf(q->ns_path, sizeof(q->ns_path), "%s", ns);
			snprintf(q->name, sizeof(q->name), "%s", name);
			q->num = num;
		} else {
			for (q = NULL, i = 0; i < nqueues; i++)
				if (queues[i].num == num && !strcmp(queues[i].ns_path, ns))
					q = &queues[i];
			if (!q) {
				fprintf(stderr, "smartt-delay: %s:%d: queue %llu of %s is new: "
					"ignored (the queues are fixed at start)\n",
					config_path, lineno, num, ns);
				continue;
			}
		}
		q->delay_ns = delay;
		q->rate_bps = rate;
	}
	fclose(f);
	if (initial) {
		if (!n)
			die(2, "%s: no queues", config_path);
		nqueues = n;
	}
}

/* ---------------------------------------------------------------- packets */

static void receive(struct nsock *s, uint64_t now)
{
	static char bufs[RECV_BATCH][RECV_BUF];
	struct mmsghdr msgs[RECV_BATCH];
	struct iovec iov[RECV_BATCH];
	int r, i, k;

	for (;;) {
		memset(msgs, 0, sizeof(msgs));
		for (i = 0; i < RECV_BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = RECV_BUF;
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		r = recvmmsg(s->fd, msgs, RECV_BATCH, MSG_DONTWAIT, NULL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
				return;
			die(1, "%s: receive: %s", s->ns_path, strerror(errno));
		}
		for (k = 0; k < r; k++) {
			size_t len = msgs[k].msg_len;
			struct nlmsghdr *n;

			for (n = (struct nlmsghdr *)bufs[k]; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
				struct nfgenmsg *g = NLMSG_DATA(n);
				uint64_t arrival = now, due, ser = 0;
				uint32_t id = 0, plen = 0;
				bool have_id = false;
				struct queue *q = NULL;
				struct nlattr *a;
				int alen;

				if (n->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
					continue;
				for (i = 0; i < nqueues; i++)
					if (queues[i].sock == s && queues[i].num == ntohs(g->res_id))
						q = &queues[i];
				alen = n->nlmsg_len - NLMSG_SPACE(sizeof(*g));
				a = (struct nlattr *)((char *)g + NLMSG_ALIGN(sizeof(*g)));
				for (; alen >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
				       a->nla_len <= alen;
				     alen -= NLA_ALIGN(a->nla_len),
				     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
					void *d = (char *)a + NLA_HDRLEN;

					switch (a->nla_type & NLA_TYPE_MASK) {
					case NFQA_PACKET_HDR: {
						struct nfqnl_msg_packet_hdr h;

						memcpy(&h, d, sizeof(h));
						id = ntohl(h.packet_id);
						have_id = true;
						break;
					}
					case NFQA_TIMESTAMP: {
						struct nfqnl_msg_packet_timestamp t;
						int64_t m;

						memcpy(&t, d, sizeof(t));
						m = (int64_t)(be64toh(t.sec) * NSEC_PER_SEC +
							      be64toh(t.usec) * 1000) -
						    real_minus_mono_ns;
						/* a stamp from the future or more than
						 * a second old is not this packet's
						 */
						if (m <= (int64_t)now && m + (int64_t)NSEC_PER_SEC > (int64_t)now)
							arrival = m;
						break;
					}
					case NFQA_CAP_LEN: {
						uint32_t v;

						memcpy(&v, d, sizeof(v));
						plen = ntohl(v);
						break;
					}
					}
				}
				if (!have_id || !q)
					continue;
				q->pkts++;
				q->bytes += plen;
				if (q->len >= limit) {
					char buf[128];
					struct nfqnl_msg_verdict_hdr v = {
						.verdict = htonl(NF_DROP), .id = htonl(id) };
					size_t off = put_msg_hdr(buf, 0, NFQNL_MSG_VERDICT, 0, q->num,
								 ++s->seq);

					off = put_attr(buf, off, NFQA_VERDICT_HDR, &v, sizeof(v));
					end_msg(buf, 0, off);
					send_all(s, buf, off);
					q->drops++;
					continue;
				}
				/* The frame's own serialisation (its IP packet plus
				 * the Ethernet header) at the sending port's rate.
				 */
				if (q->rate_bps)
					ser = (uint64_t)(plen + 14) * 8 * NSEC_PER_SEC / q->rate_bps;
				due = arrival + q->delay_ns + ser;
				if (due < q->last_due_ns)
					due = q->last_due_ns;
				if (due < now)
					pickup_late++;
				q->last_due_ns = due;
				q->ring[(q->head + q->len) % limit] = (struct pkt){ id, due };
				q->len++;
				if (q->len > q->max_len)
					q->max_len = q->len;
			}
		}
	}
}

static void record_late(struct queue *q, uint64_t late)
{
	uint64_t bin = late / LATE_BIN_NS;

	late_hist[bin < LATE_BINS ? bin : LATE_BINS - 1]++;
	late_count++;
	if (late * 10 > q->delay_ns)
		late_tenth++;
	if (late > late_max_ns)
		late_max_ns = late;
	if (late > q->late_max_ns)
		q->late_max_ns = late;
	q->late_sum_ns += late;
}

/* Accept every packet due (all of them with @all), one batch verdict per
 * queue, one send per namespace.  The kernel carries each accepted packet
 * on (routing, the next port, the receiving host's stack) inside the send,
 * so the clock is read again for every namespace: the lateness recorded is
 * the time of the send that released the packet.
 */
static void release(bool all)
{
	static char buf[MAX_QUEUES / 4 * 64];
	uint64_t now, t;
	int i, k;

	for (k = 0; k < nsocks; k++) {
		size_t off = 0;

		now = clock_ns(CLOCK_MONOTONIC);

		for (i = 0; i < nqueues; i++) {
			struct queue *q = &queues[i];
			uint32_t last = 0, n = 0;
			struct nfqnl_msg_verdict_hdr v;
			size_t start = off;

			if (q->sock != &socks[k])
				continue;
			while (q->len && (all || q->ring[q->head].due_ns <= now)) {
				struct pkt *p = &q->ring[q->head];

				record_late(q, now > p->due_ns ? now - p->due_ns : 0);
				last = p->id;
				q->head = (q->head + 1) % limit;
				q->len--;
				n++;
			}
			if (!n)
				continue;
			q->released += n;
			v.verdict = htonl(NF_ACCEPT);
			v.id = htonl(last);
			off = put_msg_hdr(buf, off, NFQNL_MSG_VERDICT_BATCH, 0, q->num,
					  ++socks[k].seq);
			off = put_attr(buf, off, NFQA_VERDICT_HDR, &v, sizeof(v));
			end_msg(buf, start, off);
			if (off > sizeof(buf) - 128) {
				send_all(&socks[k], buf, off);
				off = 0;
			}
		}
		if (off)
			send_all(&socks[k], buf, off);
		t = clock_ns(CLOCK_MONOTONIC);
		verdict_ns += t - now;
		if (t - now > verdict_max_ns)
			verdict_max_ns = t - now;
	}
}

static uint64_t next_due(void)
{
	uint64_t next = UINT64_MAX;
	int i;

	for (i = 0; i < nqueues; i++)
		if (queues[i].len && queues[i].ring[queues[i].head].due_ns < next)
			next = queues[i].ring[queues[i].head].due_ns;
	return next;
}

/* ---------------------------------------------------------------- stats */

static uint64_t percentile(double p)
{
	uint64_t want = (uint64_t)(p * late_count), seen = 0;
	int i;

	if (!late_count)
		return 0;
	if (want >= late_count)
		want = late_count - 1;
	for (i = 0; i < LATE_BINS; i++) {
		seen += late_hist[i];
		if (seen > want)
			return i == LATE_BINS - 1 ? late_max_ns : (uint64_t)i * LATE_BIN_NS;
	}
	return late_max_ns;
}

/* The kernel's counters of a queue: dropped because the queue was full,
 * dropped because this process's socket buffer was full.
 */
static void kernel_drops(struct queue *q, uint64_t *full, uint64_t *user)
{
	char text[65536], *line;
	ssize_t r;

	*full = *user = 0;
	if (q->sock->procfd < 0)
		return;
	r = pread(q->sock->procfd, text, sizeof(text) - 1, 0);
	if (r <= 0)
		return;
	text[r] = 0;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long num, portid, total, mode, range, qd, ud;

		if (sscanf(line, "%llu %llu %llu %llu %llu %llu %llu", &num, &portid, &total,
			   &mode, &range, &qd, &ud) == 7 && num == q->num) {
			*full = qd;
			*user = ud;
		}
	}
}

static void write_stats(bool final)
{
	char tmp[PATH_MAX];
	uint64_t now = clock_ns(CLOCK_MONOTONIC), pkts = 0, drops = 0, kdrops = 0;
	struct rusage ru;
	FILE *f;
	int i;

	if (!stats_path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", stats_path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "smartt-delay: %s: %s\n", tmp, strerror(errno));
		return;
	}
	getrusage(RUSAGE_SELF, &ru);
	fprintf(f, "{\"pid\": %d, \"final\": %s, \"uptime_s\": %.3f,\n"
		" \"cpu_user_s\": %.3f, \"cpu_sys_s\": %.3f, \"verdict_s\": %.3f,\n"
		" \"verdict_max_ns\": %" PRIu64 ", \"limit\": %u, \"spin_ns\": %" PRIu64 ",\n",
		(int)getpid(), final ? "true" : "false", (now - start_mono_ns) / 1e9,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, verdict_ns / 1e9, verdict_max_ns, limit, spin_ns);
	fprintf(f, " \"links\": [\n");
	for (i = 0; i < nqueues; i++) {
		struct queue *q = &queues[i];
		uint64_t kfull, kuser;

		kernel_drops(q, &kfull, &kuser);
		pkts += q->pkts;
		drops += q->drops;
		kdrops += kfull + kuser;
		fprintf(f, "  {\"name\": \"%s\", \"netns\": \"%s\", \"queue\": %u, "
			"\"delay_ns\": %" PRIu64 ", \"rate_bps\": %" PRIu64 ", \"pkts\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"released\": %" PRIu64 ", \"drops\": %" PRIu64
			", \"kernel_drops\": %" PRIu64 ", \"waiting\": %u, \"max_waiting\": %" PRIu64
			", \"late_mean_ns\": %" PRIu64 ", \"late_max_ns\": %" PRIu64 "}%s\n",
			q->name, q->ns_path, q->num, q->delay_ns, q->rate_bps, q->pkts, q->bytes,
			q->released, q->drops, kfull + kuser, q->len, q->max_len,
			q->released ? q->late_sum_ns / q->released : 0, q->late_max_ns,
			i + 1 < nqueues ? "," : "");
	}
	fprintf(f, " ],\n \"pkts\": %" PRIu64 ", \"released\": %" PRIu64 ", \"drops\": %" PRIu64
		", \"kernel_drops\": %" PRIu64 ", \"picked_up_late\": %" PRIu64
		", \"late_over_tenth\": %" PRIu64 ",\n"
		" \"late_p50_ns\": %" PRIu64 ", \"late_p99_ns\": %" PRIu64
		", \"late_p999_ns\": %" PRIu64 ", \"late_max_ns\": %" PRIu64 "}\n",
		pkts, late_count, drops, kdrops, pickup_late, late_tenth, percentile(0.50),
		percentile(0.99), percentile(0.999), late_max_ns);
	if (fclose(f) || rename(tmp, stats_path))
		fprintf(stderr, "smartt-delay: %s: %s\n", stats_path, strerror(errno));
}

/* Zero the counters and the lateness (the waiting packets stay). */
static void reset_stats(void)
{
	int i;

	for (i = 0; i < nqueues; i++) {
		struct queue *q = &queues[i];

		q->pkts = q->bytes = q->drops = q->released = 0;
		q->max_len = q->len;
		q->late_max_ns = q->late_sum_ns = 0;
	}
	memset(late_hist, 0, sizeof(late_hist));
	late_count = late_max_ns = pickup_late = late_tenth = 0;
	verdict_ns = verdict_max_ns = 0;
	write_stats(false);
}

/* ---------------------------------------------------------------- main */

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: smartt-delay --config FILE [--stats FILE] [--limit N] [--priority P] "
		"[--spin NS]\n"
		"  --config FILE   lines NETNS QUEUE DELAY_NS RATE_BPS NAME\n"
		"  --stats FILE    JSON statistics, every 250 ms and at exit\n"
		"  --limit N       packets waiting per queue before drops (default %d)\n"
		"  --priority P    SCHED_FIFO priority 1..99 (default: normal scheduling)\n"
		"  --spin NS       wake NS before a release and busy-wait the rest (default %llu)\n",
		DEFAULT_LIMIT, DEFAULT_SPIN_NS);
	exit(status);
}

static void arm(int tfd, uint64_t at)
{
	struct itimerspec its = { 0 };

	if (at != UINT64_MAX) {
		its.it_value.tv_sec = at / NSEC_PER_SEC;
		its.it_value.tv_nsec = at % NSEC_PER_SEC;
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "stats", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'l' },
		{ "priority", required_argument, NULL, 'p' },
		{ "spin", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct epoll_event ev, evs[64];
	uint64_t v, armed = UINT64_MAX, last_stats, last_sync, last_check;
	int prio = 0, c, i, ep, tfd, sfd;
	sigset_t sigs;

	while ((c = getopt_long(argc, argv, "c:s:l:p:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config_path = optarg;
			break;
		case 's':
			stats_path = optarg;
			break;
		case 'l':
			if (!parse_u64(optarg, &v) || v < 1 || v > 1000000)
				die(2, "--limit %s: want a number of packets, 1..1000000", optarg);
			limit = v;
			break;
		case 'p':
			if (!parse_u64(optarg, &v) || v < 1 || v > 99)
				die(2, "--priority %s: want 1..99", optarg);
			prio = v;
			break;
		case 'w':
			if (!parse_u64(optarg, &v) || v > 1000000)
				die(2, "--spin %s: want ns, 0..1000000", optarg);
			spin_ns = v;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (!config_path || optind != argc)
		usage(2);
	read_config(true);

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGUSR2);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* hrtimers as armed, not rounded to the default 50 us slack */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (prio) {
		struct sched_param sp = { .sched_priority = prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			die(1, "--priority %d: %s", prio, strerror(errno));
	}

	ep = epoll_create1(EPOLL_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (ep < 0 || tfd < 0 || sfd < 0)
		die(1, "epoll/timerfd/signalfd: %s", strerror(errno));
	for (i = 0; i < nqueues; i++) {
		queues[i].sock = ns_socket(queues[i].ns_path);
		queues[i].ring = calloc(limit, sizeof(struct pkt));
		if (!queues[i].ring)
			die(1, "out of memory");
		bind_queue(&queues[i]);
	}
	ev.events = EPOLLIN;
	for (i = 0; i < nsocks; i++) {
		fcntl(socks[i].fd, F_SETFL, O_NONBLOCK);
		ev.data.u32 = i;
		epoll_ctl(ep, EPOLL_CTL_ADD, socks[i].fd, &ev);
	}
	ev.data.u32 = MAX_NS;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	ev.data.u32 = MAX_NS + 1;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);

	sync_clocks();
	start_mono_ns = last_stats = last_sync = last_check = clock_ns(CLOCK_MONOTONIC);
	write_stats(false);
	printf("ready %d queues in %d namespaces\n", nqueues, nsocks);
	fflush(stdout);

	for (;;) {
		uint64_t now, next = next_due();
		bool stop = false;
		int n;

		/* A release due within --spin: only look at the sockets (no
		 * sleep), then busy-wait for it below.  Otherwise sleep until
		 * the timer, armed --spin before the next release, or a packet.
		 * Either way every pass reads what arrived, so a stream of
		 * releases never keeps new packets waiting in the socket.
		 */
		now = clock_ns(CLOCK_MONOTONIC);
		if (next != UINT64_MAX && next <= now + spin_ns) {
			n = epoll_wait(ep, evs, 64, 0);
		} else {
			next = next == UINT64_MAX ? next : next - spin_ns;
			if (next != armed) {
				arm(tfd, next);
				armed = next;
			}
			n = epoll_wait(ep, evs, 64, 1000);
		}

		if (n < 0 && errno != EINTR)
			die(1, "epoll_wait: %s", strerror(errno));
		now = clock_ns(CLOCK_MONOTONIC);
		for (i = 0; i < n; i++) {
			uint32_t k = evs[i].data.u32;

			if (k < MAX_NS) {
				receive(&socks[k], now);
			} else if (k == MAX_NS) {
				uint64_t x;

				if (read(tfd, &x, sizeof(x)) < 0 && errno != EAGAIN)
					die(1, "timerfd: %s", strerror(errno));
				armed = UINT64_MAX;
			} else {
				struct signalfd_siginfo si;

				while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					if (si.ssi_signo == SIGHUP)
						read_config(false);
					else if (si.ssi_signo == SIGUSR1)
						reset_stats();
					else if (si.ssi_signo == SIGUSR2)
						write_stats(false);
					else
						stop = true;
				}
			}
		}
		if (stop) {
			release(true);
			break;
		}
		/* The timer fires --spin early; the rest is a busy wait, so
		 * that a wakeup's latency does not make the release late.
		 */
		next = next_due();
		now = clock_ns(CLOCK_MONOTONIC);
		if (next != UINT64_MAX && next > now && next <= now + spin_ns)
			while ((now = clock_ns(CLOCK_MONOTONIC)) < next)
				;
		release(false);
		if (now - last_sync > NSEC_PER_SEC / 10) {
			sync_clocks();
			last_sync = now;
		}
		if (now - last_check > NSEC_PER_SEC) {
			struct stat sb;

			for (i = 0; i < nsocks; i++)
				if (!strncmp(socks[i].ns_path, "/run/netns/", 11) &&
				    stat(socks[i].ns_path, &sb))
					die(1, "%s is gone: exiting", socks[i].ns_path);
			last_check = now;
		}
		if (now - last_stats > STATS_NS) {
			write_stats(false);
			last_stats = now;
		}
	}
	write_stats(true);
	return 0;
}
