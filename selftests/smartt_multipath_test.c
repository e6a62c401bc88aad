// SPDX-License-Identifier: GPL-2.0
/*
 * The transport's path selection: socket-option tests (kselftest harness,
 * loopback) and a message sender/receiver for selftests/smartt_multipath.sh
 * and selftests/bench/multipath_bench.sh.
 *
 *   smartt_multipath_test [harness options]
 *	SMARTT_LB and SMARTT_PATH_INFO on loopback (needs the module).
 *   smartt_multipath_test recv 4|6 PORT TOTAL SIZE
 *	bind PORT, print "listening", receive TOTAL messages of SIZE bytes
 *	from any senders, check every byte and that each (sender, index)
 *	arrives exactly once; print a JSON line; exit 0 if all did.
 *	SMARTT_MP_HOLD=FILE: afterwards keep the socket (counting
 *	duplicates) until FILE exists, so that senders whose last ACKs were
 *	lost do not retransmit into a closed port (ECONNREFUSED).
 *   smartt_multipath_test send 4|6 PORT SIZE COUNT ADDR...
 *	send COUNT messages of SIZE bytes to each ADDR (round robin over
 *	the ADDRs), each with a completion cookie; wait for all; print a JSON
 *	line (FCTs, retransmits, timeouts, path counters summed over the
 *	peers); exit 0 if every message completed with status 0.
 *	Environment: SMARTT_LB (selector), SMARTT_CC (congestion control),
 *	SMARTT_RELIABILITY and SMARTT_ACK_BYTES (also for recv),
 *	SMARTT_WINDOW (bytes, cc none), SMARTT_MP_PHASE=FILE: after the first
 *	half of the messages completed, print "phase" and wait until FILE
 *	exists before sending the second half (the shell reads the fabric's
 *	counters in between), with "phase" the loss feedback the selector
 *	had by then ("lost": packets declared lost by SACK/out-of-order
 *	count/probe, "timeout": in flight at an RTO, summed over the
 *	peers); SMARTT_MP_TIMEOUT (s, default 120);
 *	SMARTT_MP_FCTS=FILE: write every message's FCT (us), one a line
 *	(messages that failed have none; they are counted in "failed").
 *
 * A message of n bytes: a 64-bit sender id, a 64-bit index, then byte j =
 * (j * 131 + n * 7) & 0xff.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/smartt.h>

#include "kselftest_harness.h"
#include "smartt_test_util.h"

_Static_assert(sizeof(struct smartt_path_info) == SMARTT_PATH_INFO_LEN, "path info");

#define HDR		16
#define MAX_SENDERS	64
#define MAX_PEERS	64

static int get_path_info(int fd, const struct sockaddr_storage *to, socklen_t tolen,
			 struct smartt_path_info *pi)
{
	socklen_t len = sizeof(*pi);

	memset(pi, 0, sizeof(*pi));
	memcpy(pi->addr, to, tolen);
	return getsockopt(fd, SOL_SMARTT, SMARTT_PATH_INFO, pi, &len);
}

/* Loss feedback (SACK/out-of-order/probe, RTO) over @n peers. */
static void path_losses(int fd, const struct sockaddr_storage *to, const socklen_t *tolen,
			int n, struct smartt_path_info *pi, uint64_t *lost, uint64_t *tmo)
{
	int a, b;

	*lost = 0;
	*tmo = 0;
	for (a = 0; a < n; a++) {
		if (get_path_info(fd, &to[a], tolen[a], pi))
			continue;
		for (b = 0; b < SMARTT_PATH_BUCKETS; b++) {
			*lost += pi->lost[b];
			*tmo += pi->timeout[b];
		}
	}
}

/* ---- harness tests ---- */

FIXTURE(lb) {
	int fd;
	int fam;
	const char *lo;
};

FIXTURE_VARIANT(lb) {
	int fam;
	const char *lo;
};

FIXTURE_VARIANT_ADD(lb, ipv4) { .fam = AF_INET, .lo = "127.0.0.1" };
FIXTURE_VARIANT_ADD(lb, ipv6) { .fam = AF_INET6, .lo = "::1" };

FIXTURE_SETUP(lb)
{
	self->fd = smartt_socket(variant->fam, 0);
	if (self->fd < 0)
		SKIP(return, "no smartt transport: %s", strerror(errno));
	self->fam = variant->fam;
	self->lo = variant->lo;
}

FIXTURE_TEARDOWN(lb)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* SMARTT_LB: the netns default, every name, EINVAL for anything else. */
TEST_F(lb, sockopt)
{
	static const char *const names[] = {
		"reps", "reps-single", "strack-bitmap", "oblivious", "ecmp",
	};
	char def[64] = {}, name[SMARTT_LB_NAME_MAX];
	socklen_t len = sizeof(name);
	FILE *f = fopen("/proc/sys/net/smartt/transport_lb", "r");
	unsigned int i;

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(def, sizeof(def), f));
	fclose(f);
	def[strcspn(def, "\n")] = 0;
	ASSERT_EQ(0, getsockopt(self->fd, SOL_SMARTT, SMARTT_LB, name, &len));
	EXPECT_STREQ(def, name);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ASSERT_EQ(0, setsockopt(self->fd, SOL_SMARTT, SMARTT_LB, names[i],
					strlen(names[i])));
		len = sizeof(name);
		ASSERT_EQ(0, getsockopt(self->fd, SOL_SMARTT, SMARTT_LB, name, &len));
		EXPECT_STREQ(names[i], name);
		EXPECT_EQ(strlen(names[i]) + 1, len);
	}
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_SMARTT, SMARTT_LB, "bogus", 5));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_SMARTT, SMARTT_LB, "", 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_SMARTT, SMARTT_LB,
				 "reps-single-but-too-long", 24));
	EXPECT_EQ(EINVAL, errno);
	/* A failed set changed nothing. */
	len = sizeof(name);
	ASSERT_EQ(0, getsockopt(self->fd, SOL_SMARTT, SMARTT_LB, name, &len));
	EXPECT_STREQ("ecmp", name);
}

/*
 * SMARTT_PATH_INFO: EINVAL for a short buffer or an address of the other
 * family, ENOENT for an unknown peer and for one that only sent to us (no
 * path state: that is allocated by the first message to a peer);
 * after messages to ourselves: the selector's name, the packets sent, over
 * many entropies (oblivious) or exactly one (ecmp); every ACK was GOOD
 * feedback (loopback neither marks nor trims) and no echoed entropy was
 * out of range.
 */
TEST_F(lb, path_info)
{
	struct smartt_path_info *pi = calloc(1, sizeof(*pi));
	struct sockaddr_storage self_addr, other;
	struct smartt_completion c;
	socklen_t len, alen, olen;
	int tx;
	static char buf[20000];
	const char *lbs[] = { "oblivious", "ecmp" };
	unsigned int i, k, used;
	long long good0 = stat_of("path_good"), bad0 = stat_of("path_bad_entropy");
	uint64_t sum, sent = 0;

	ASSERT_NE(NULL, pi);
	ASSERT_LE(0, good0);
	alen = sizeof(self_addr);
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&self_addr, &alen));
	alen = mkaddr(self->fam, self->lo, ntohs(((struct sockaddr_in *)&self_addr)->sin_port),
		      &self_addr);
	len = SMARTT_PATH_INFO_LEN_MIN - 1;
	memcpy(pi->addr, &self_addr, alen);
	EXPECT_EQ(-1, getsockopt(self->fd, SOL_SMARTT, SMARTT_PATH_INFO, pi, &len));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, get_path_info(self->fd, &self_addr, alen, pi));
	EXPECT_EQ(ENOENT, errno);
	olen = mkaddr(self->fam == AF_INET ? AF_INET6 : AF_INET,
		      self->fam == AF_INET ? "::1" : "127.0.0.1", 4000, &other);
	EXPECT_EQ(-1, get_path_info(self->fd, &other, olen, pi));
	EXPECT_EQ(EINVAL, errno);
	/* A peer that sent one message here: known, but never sent to. */
	tx = smartt_socket(self->fam, 0);
	ASSERT_LE(0, tx);
	olen = sizeof(other);
	ASSERT_EQ(0, getsockname(tx, (struct sockaddr *)&other, &olen));
	olen = mkaddr(self->fam, self->lo, ntohs(((struct sockaddr_in *)&other)->sin_port),
		      &other);
	ASSERT_EQ(100, send_cookie(tx, buf, 100, &self_addr, alen, 9, 0));
	ASSERT_EQ(0, get_completion(tx, &c, 10000));
	ASSERT_EQ(0, c.status);
	ASSERT_EQ(100, recv(self->fd, buf, sizeof(buf), 0));
	EXPECT_EQ(-1, get_path_info(self->fd, &other, olen, pi));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, get_path_info(tx, &self_addr, alen, pi));
	close(tx);
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, setsockopt(self->fd, SOL_SMARTT, SMARTT_LB, lbs[k],
					strlen(lbs[k])));
		for (i = 0; i < 4; i++) {
			ASSERT_EQ((ssize_t)sizeof(buf),
				  send_cookie(self->fd, buf, sizeof(buf), &self_addr, alen, i, 0));
			ASSERT_EQ(0, get_completion(self->fd, &c, 10000));
			ASSERT_EQ(0, c.status);
			ASSERT_EQ((ssize_t)sizeof(buf), recv(self->fd, buf, sizeof(buf), 0));
		}
		ASSERT_EQ(0, get_path_info(self->fd, &self_addr, alen, pi));
		EXPECT_STREQ(lbs[k], pi->lb);
		EXPECT_EQ(256U, pi->paths);
		for (i = 0, sum = 0, used = 0; i < SMARTT_PATH_BUCKETS; i++) {
			sum += pi->tx[i];
			used += !!pi->tx[i];
		}
		EXPECT_EQ(pi->tx_pkts, sum);
		sent += sum;
		/* The first version's size gets the fields before "lost". */
		len = SMARTT_PATH_INFO_LEN_MIN;
		EXPECT_EQ(0, getsockopt(self->fd, SOL_SMARTT, SMARTT_PATH_INFO, pi, &len));
		EXPECT_EQ((socklen_t)SMARTT_PATH_INFO_LEN_MIN, len);
		/* 64 KiB loopback MTU: 20000 B = 1 packet, a lone ACK-clocked one */
		EXPECT_GE(pi->tx_pkts, 4ULL);
		if (k == 0) {
			EXPECT_GE(used, 2U);
		} else {
			EXPECT_EQ(1U, used);
		}
	}
	/* One ACK per DATA packet; other tests may run in this netns too. */
	EXPECT_GE(stat_of("path_good") - good0, (long long)sent);
	EXPECT_EQ(bad0, stat_of("path_bad_entropy"));
	free(pi);
}

/* ---- tools ---- */

static int tool_recv(int fam, int port, long total, size_t size)
{
	uint64_t ids[MAX_SENDERS] = {};
	unsigned char *seen[MAX_SENDERS] = {};
	int nsenders = 0, fd, rcvbuf = 32 << 20;
	long got = 0, dups = 0, bad = 0, j;
	struct timeval tv = { .tv_sec = 60 };
	unsigned char *buf = malloc(size + 1);
	char *t = getenv("SMARTT_MP_TIMEOUT");

	if (t)
		tv.tv_sec = atoi(t);
	fd = smartt_socket(fam, port);
	if (fd < 0 || !buf || size < HDR) {
		perror("recv: socket");
		return 1;
	}
	if (env_opts(fd))
		return 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	printf("listening\n");
	fflush(stdout);
	while (got < total) {
		ssize_t n = recv(fd, buf, size + 1, 0);
		uint64_t id, idx;
		int s;

		if (n < 0) {
			perror("recv");
			break;
		}
		memcpy(&id, buf, 8);
		memcpy(&idx, buf + 8, 8);
		for (j = HDR; j < n && buf[j] == pattern(n, j); j++)
			;
		if ((size_t)n != size || j != n || idx >= (uint64_t)total) {
			bad++;
			continue;
		}
		for (s = 0; s < nsenders && ids[s] != id; s++)
			;
		if (s == nsenders) {
			if (nsenders == MAX_SENDERS) {
				bad++;
				continue;
			}
			ids[nsenders] = id;
			seen[nsenders++] = calloc(total, 1);
		}
		if (seen[s][idx]++)
			dups++;
		else
			got++;
	}
	/* Exactly once: nothing else arrives. */
	tv.tv_sec = 0;
	tv.tv_usec = 200000;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t = getenv("SMARTT_MP_HOLD");
	for (j = 0; j < 5 || (t && access(t, F_OK)); j++)
		while (recv(fd, buf, size + 1, 0) >= 0)
			dups++;
	printf("{\"received\": %ld, \"expected\": %ld, \"duplicates\": %ld, \"bad\": %ld, \"senders\": %d}\n",
	       got, total, dups, bad, nsenders);
	return got == total && !dups && !bad ? 0 : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int wait_completions(int fd, long n, uint64_t *fct, long *nfct, long *failed,
			    int timeout_ms)
{
	struct smartt_completion c;
	long i;

	for (i = 0; i < n; i++) {
		if (get_completion(fd, &c, timeout_ms)) {
			fprintf(stderr, "completion missing after %ld of %ld\n", i, n);
			return -1;
		}
		if (c.status) {
			(*failed)++;
			fprintf(stderr, "message %llu failed: %s\n",
				(unsigned long long)c.cookie, strerror(-c.status));
			continue;
		}
		fct[(*nfct)++] = c.fct_ns;
	}
	return 0;
}

static int tool_send(int fam, int port, size_t size, long count, int naddr, char **addrs)
{
	struct sockaddr_storage to[MAX_PEERS];
	socklen_t tolen[MAX_PEERS];
	long total = count * naddr, i, nfct = 0, failed = 0, half;
	uint64_t *fct = calloc(total + 1, sizeof(uint64_t)), id, rtx = 0, rtos = 0;
	uint64_t sum = 0, tx = 0, freezes = 0, unfreezes = 0, ecn = 0, nack = 0, tmo = 0, noop = 0;
	uint64_t lost = 0;
	unsigned char *buf = malloc(size);
	struct smartt_path_info *pi = calloc(1, sizeof(*pi));
	int fd = smartt_socket(fam, -1), a, sndbuf = 64 << 20, used = 0, b;
	int timeout_ms = 120000;
	char name[SMARTT_LB_NAME_MAX] = "?";
	socklen_t nlen = sizeof(name);
	const char *e;
	struct timespec ts;

	if (fd < 0 || !buf || !fct || !pi || size < HDR || naddr > MAX_PEERS) {
		perror("send: socket");
		return 1;
	}
	e = getenv("SMARTT_MP_TIMEOUT");
	if (e)
		timeout_ms = atoi(e) * 1000;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf));
	e = getenv("SMARTT_LB");
	if (e && setsockopt(fd, SOL_SMARTT, SMARTT_LB, e, strlen(e))) {
		perror("SMARTT_LB");
		return 1;
	}
	e = getenv("SMARTT_CC");
	if (e && setsockopt(fd, SOL_SMARTT, SMARTT_CC, e, strlen(e) + 1)) {
		perror("SMARTT_CC");
		return 1;
	}
	if (env_opts(fd))
		return 1;
	e = getenv("SMARTT_WINDOW");
	if (e) {
		unsigned int w = atoi(e);

		if (setsockopt(fd, SOL_SMARTT, SMARTT_WINDOW, &w, sizeof(w))) {
			perror("SMARTT_WINDOW");
			return 1;
		}
	}
	getsockopt(fd, SOL_SMARTT, SMARTT_LB, name, &nlen);
	for (a = 0; a < naddr; a++) {
		tolen[a] = mkaddr(fam, addrs[a], port, &to[a]);
		if (!tolen[a]) {
			fprintf(stderr, "bad address %s\n", addrs[a]);
			return 2;
		}
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	id = (uint64_t)ts.tv_nsec << 20 ^ getpid();
	half = getenv("SMARTT_MP_PHASE") ? total / 2 : total;
	for (i = 0; i < total; i++) {
		uint64_t idx = i / naddr;
		size_t j;

		if (i == half) {
			if (wait_completions(fd, half, fct, &nfct, &failed, timeout_ms))
				return 1;
			path_losses(fd, to, tolen, naddr, pi, &lost, &tmo);
			printf("phase lost=%llu timeout=%llu\n", (unsigned long long)lost,
			       (unsigned long long)tmo);
			fflush(stdout);
			while (access(getenv("SMARTT_MP_PHASE"), F_OK))
				usleep(20000);
		}
		memcpy(buf, &id, 8);
		memcpy(buf + 8, &idx, 8);
		for (j = HDR; j < size; j++)
			buf[j] = pattern(size, j);
		if (send_cookie(fd, buf, size, &to[i % naddr], tolen[i % naddr], i, 0) !=
		    (ssize_t)size) {
			perror("sendmsg");
			return 1;
		}
	}
	if (wait_completions(fd, total - nfct - failed, fct, &nfct, &failed, timeout_ms))
		return 1;
	for (a = 0; a < naddr; a++) {
		struct smartt_peer_info p;
		socklen_t plen = sizeof(p);

		memset(&p, 0, sizeof(p));
		memcpy(p.addr, &to[a], tolen[a]);
		if (!getsockopt(fd, SOL_SMARTT, SMARTT_PEER_INFO, &p, &plen)) {
			rtx += p.retransmits;
			rtos += p.rtos;
		}
		if (get_path_info(fd, &to[a], tolen[a], pi))
			continue;
		tx += pi->tx_pkts;
		freezes += pi->freezes;
		unfreezes += pi->unfreezes;
		noop += pi->ecn_noop;
		for (b = 0; b < SMARTT_PATH_BUCKETS; b++) {
			used += !!pi->tx[b];
			ecn += pi->ecn[b];
			nack += pi->nack[b];
		}
	}
	path_losses(fd, to, tolen, naddr, pi, &lost, &tmo);
	qsort(fct, nfct, sizeof(*fct), cmp_u64);
	for (i = 0; i < nfct; i++)
		sum += fct[i];
	e = getenv("SMARTT_MP_FCTS");
	if (e) {
		FILE *f = fopen(e, "w");

		for (i = 0; f && i < nfct; i++)
			fprintf(f, "%llu\n", (unsigned long long)(fct[i] / 1000));
		if (!f || fclose(f))
			perror(e);
	}
	printf("{\"lb\": \"%s\", \"msgs_ok\": %ld, \"failed\": %ld, \"fct_med_us\": %llu, \"fct_max_us\": %llu, \"fct_sum_us\": %llu, \"retransmits\": %llu, \"rtos\": %llu, \"tx_pkts\": %llu, \"buckets_used\": %d, \"freezes\": %llu, \"unfreezes\": %llu, \"ecn\": %llu, \"nack\": %llu, \"timeout\": %llu, \"lost\": %llu, \"ecn_noop\": %llu}\n",
	       name, nfct, failed,
	       (unsigned long long)(nfct ? fct[nfct / 2] / 1000 : 0),
	       (unsigned long long)(nfct ? fct[nfct - 1] / 1000 : 0),
	       (unsigned long long)(sum / 1000),
	       (unsigned long long)rtx, (unsigned long long)rtos, (unsigned long long)tx,
	       used, (unsigned long long)freezes, (unsigned long long)unfreezes,
	       (unsigned long long)ecn, (unsigned long long)nack, (unsigned long long)tmo,
	       (unsigned long long)lost, (unsigned long long)noop);
	return failed || nfct != total ? 1 : 0;	/* nfct: successful only */
}

int main(int argc, char **argv)
{
	int fam;

	if (argc >= 2 && (!strcmp(argv[1], "recv") || !strcmp(argv[1], "send"))) {
		fam = argc >= 3 && argv[2][0] == '6' ? AF_INET6 : AF_INET;
		if (!strcmp(argv[1], "recv") && argc == 6)
			return tool_recv(fam, atoi(argv[3]), atol(argv[4]),
					 strtoul(argv[5], NULL, 0));
		if (!strcmp(argv[1], "send") && argc >= 7)
			return tool_send(fam, atoi(argv[3]), strtoul(argv[4], NULL, 0),
					 atol(argv[5]), argc - 6, argv + 6);
		fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
		return 2;
	}
	return test_harness_run(argc, argv);
}
