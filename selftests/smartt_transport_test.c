// SPDX-License-Identifier: GPL-2.0
/*
 * The smartt transport's socket API, with exact errnos (kselftest harness),
 * and a sender/receiver for selftests/smartt_transport.sh.
 *
 *   smartt_transport_test [harness options]   the API tests; needs the
 *	module, runs in one netns (loopback).  SMARTT_DEAD4=<IPv4 address
 *	that routes but never answers> enables the ETIMEDOUT test.
 *   smartt_transport_test recv 4|6 PORT SIZE...
 *	bind PORT, receive one message of each SIZE (any order), check
 *	every byte, print "ok N bytes".  $SMARTT_LINGER_MS: then wait that
 *	long for a message that should not come (a duplicate).
 *   smartt_transport_test send 4|6 ADDR PORT SIZE...
 *	send one message of each SIZE with a cookie, wait for every
 *	completion (status 0), print "ok".  $SMARTT_CC: congestion control.
 *	$SMARTT_RELIABILITY, $SMARTT_ACK_BYTES (send and recv): those options.
 *	$SMARTT_SPORT: bind to that transport port (default: ephemeral).
 *   recv and send wait 50 s at most, times $SMARTT_TIMEOUT_SCALE (1 to
 *	100) when set.
 *   smartt_transport_test inject 4|6 ADDR
 *	send malformed packets to ADDR's UDP port 4793, print their number.
 *   smartt_transport_test open 4|6
 *	create a transport socket and close it (autoloads the module).
 *   smartt_transport_test hold 4|6
 *	create a transport socket, print "open", keep it for 30 s.
 *   smartt_transport_test udpbind 4|6 PORT
 *	bind a plain UDP socket to PORT (is the port free?).
 *   smartt_transport_test fuzz 4|6 ADDR N SEED
 *	send N random packets to ADDR's UDP port 4793, print how many left.
 *   smartt_transport_test mutate 4|6 ADDR DPORT N SEED
 *	send N structure-aware packets of every type to ADDR's transport
 *	port DPORT, print how many left.
 *
 * The content of a message of size n is byte j = (j * 131 + n * 7) & 0xff.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/smartt.h>

#include "kselftest_harness.h"
#include "smartt_test_util.h"
#include "smartt_uet.h"

_Static_assert(sizeof(struct smartt_completion) == SMARTT_COMPLETION_LEN, "completion");
_Static_assert(sizeof(struct smartt_peer_info) == SMARTT_PEER_INFO_LEN, "peer info");

FIXTURE(api) {
	int fam;
	const char *lo;
};

FIXTURE_VARIANT(api) {
	int fam;
	const char *lo;
};

FIXTURE_VARIANT_ADD(api, ipv4) { .fam = AF_INET, .lo = "127.0.0.1" };
FIXTURE_VARIANT_ADD(api, ipv6) { .fam = AF_INET6, .lo = "::1" };

FIXTURE_SETUP(api)
{
	int fd = socket(variant->fam, SOCK_DGRAM, IPPROTO_SMARTT);

	if (fd < 0)
		SKIP(return, "no smartt transport: %s", strerror(errno));
	close(fd);
	self->fam = variant->fam;
	self->lo = variant->lo;
}

FIXTURE_TEARDOWN(api)
{
}

TEST_F(api, bind_getsockname_addrinuse)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int a, b;

	a = smartt_socket(self->fam, 1100);
	ASSERT_GE(a, 0);
	ASSERT_EQ(0, getsockname(a, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(1100, ntohs(((struct sockaddr_in *)&ss)->sin_port));
	b = smartt_socket(self->fam, 1100);
	ASSERT_EQ(-1, b);
	ASSERT_EQ(EADDRINUSE, errno);
	/* A second bind of the same socket. */
	len = mkaddr(self->fam, NULL, 1101, &ss);
	ASSERT_EQ(-1, bind(a, (struct sockaddr *)&ss, len));
	ASSERT_EQ(EINVAL, errno);
	close(a);
	/* The port is free again after close. */
	a = smartt_socket(self->fam, 1100);
	ASSERT_GE(a, 0);
	close(a);
	/* An address that is not ours. */
	a = smartt_socket(self->fam, -1);
	len = mkaddr(self->fam, self->fam == AF_INET ? "198.18.250.1" : "2001:2:0:fa::1",
		     1102, &ss);
	ASSERT_EQ(-1, bind(a, (struct sockaddr *)&ss, len));
	ASSERT_EQ(EADDRNOTAVAIL, errno);
	close(a);
	/* Transport ports are 12-bit PIDonFEPs: 4096 and above are EINVAL. */
	a = smartt_socket(self->fam, -1);
	len = mkaddr(self->fam, NULL, SMARTT_PORT_MAX + 1, &ss);
	ASSERT_EQ(-1, bind(a, (struct sockaddr *)&ss, len));
	ASSERT_EQ(EINVAL, errno);
	len = mkaddr(self->fam, self->lo, SMARTT_PORT_MAX + 1, &ss);
	ASSERT_EQ(-1, connect(a, (struct sockaddr *)&ss, len));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, sendto(a, "x", 1, 0, (struct sockaddr *)&ss, len));
	ASSERT_EQ(EINVAL, errno);
	/* an ephemeral port is one of 2048..4095 */
	len = mkaddr(self->fam, self->lo, 1103, &ss);
	b = smartt_socket(self->fam, 1103);
	ASSERT_GE(b, 0);
	ASSERT_EQ(1, sendto(a, "x", 1, 0, (struct sockaddr *)&ss, len));
	len = sizeof(ss);
	ASSERT_EQ(0, getsockname(a, (struct sockaddr *)&ss, &len));
	EXPECT_GE(ntohs(((struct sockaddr_in *)&ss)->sin_port), 2048);
	EXPECT_LE(ntohs(((struct sockaddr_in *)&ss)->sin_port), SMARTT_PORT_MAX);
	close(b);
	close(a);
}

TEST_F(api, sockopts_einval)
{
	unsigned int v, big = SMARTT_MSG_MAX_LIMIT + 1, zero = 0;
	socklen_t len = sizeof(v);
	char name[SMARTT_CC_NAME_MAX];
	int fd = smartt_socket(self->fam, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_MSG_MAX, &v, &len));
	ASSERT_EQ(SMARTT_MSG_MAX_DEFAULT, v);
	ASSERT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_TIMEOUT_MS, &v, &len));
	ASSERT_EQ(SMARTT_TIMEOUT_MS_DEFAULT, v);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_MSG_MAX, &zero, sizeof(zero)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_MSG_MAX, &big, sizeof(big)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_MSG_MAX, &v, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_TIMEOUT_MS, &zero, sizeof(zero)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_WINDOW, &zero, sizeof(zero)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "bogus", 5));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "stracks", 8));
	EXPECT_EQ(EINVAL, errno);
	len = sizeof(name);
	EXPECT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_CC, name, &len));
	EXPECT_STREQ("none", name);
	/* Reliability: "sack" by default, "strack" by default with cc strack. */
	len = sizeof(name);
	EXPECT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_RELIABILITY, name, &len));
	EXPECT_STREQ("sack", name);
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "strack", 7));
	len = sizeof(name);
	EXPECT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_CC, name, &len));
	EXPECT_STREQ("strack", name);
	len = sizeof(name);
	EXPECT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_RELIABILITY, name, &len));
	EXPECT_STREQ("strack", name);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_RELIABILITY, "tcp", 4));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_RELIABILITY, "", 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_RELIABILITY, "sack", 5));
	len = sizeof(name);
	EXPECT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_RELIABILITY, name, &len));
	EXPECT_STREQ("sack", name);
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "none", 4));
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_RELIABILITY, "strack", 6));
	len = sizeof(name);
	EXPECT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_RELIABILITY, name, &len));
	EXPECT_STREQ("strack", name);
	len = sizeof(v);
	EXPECT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_ACK_BYTES, &v, &len));
	EXPECT_EQ(SMARTT_ACK_BYTES_DEFAULT, v);
	v = SMARTT_ACK_BYTES_MAX + 1;
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_ACK_BYTES, &v, sizeof(v)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_ACK_BYTES, &zero, sizeof(zero)));
	len = sizeof(v);
	EXPECT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_ACK_BYTES, &v, &len));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "nscc", 4));
	len = sizeof(name);
	EXPECT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_CC, name, &len));
	EXPECT_STREQ("nscc", name);
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "smartt", 7));
	len = sizeof(name);
	EXPECT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_CC, name, &len));
	EXPECT_STREQ("smartt", name);
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "none", 4));
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, 999, &v, sizeof(v)));
	EXPECT_EQ(ENOPROTOOPT, errno);
	/* Nothing changed. */
	len = sizeof(v);
	ASSERT_EQ(0, getsockopt(fd, SOL_SMARTT, SMARTT_MSG_MAX, &v, &len));
	EXPECT_EQ(SMARTT_MSG_MAX_DEFAULT, v);
	close(fd);
}

TEST_F(api, emsgsize)
{
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(self->fam, self->lo, 1200, &to);
	size_t big = (size_t)SMARTT_MSG_MAX_DEFAULT + 1;
	unsigned int max = 1000;
	int fd = smartt_socket(self->fam, -1), rx = smartt_socket(self->fam, 1200);
	char *buf;

	ASSERT_GE(fd, 0);
	ASSERT_GE(rx, 0);
	buf = mmap(NULL, big, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	EXPECT_EQ(-1, sendto(fd, buf, big, 0, (struct sockaddr *)&to, tolen));
	EXPECT_EQ(EMSGSIZE, errno);
	ASSERT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_MSG_MAX, &max, sizeof(max)));
	EXPECT_EQ(-1, sendto(fd, buf, 1001, 0, (struct sockaddr *)&to, tolen));
	EXPECT_EQ(EMSGSIZE, errno);
	EXPECT_EQ(1000, sendto(fd, buf, 1000, 0, (struct sockaddr *)&to, tolen));
	/* No destination, port 0. */
	EXPECT_EQ(-1, send(fd, buf, 10, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	tolen = mkaddr(self->fam, self->lo, 0, &to);
	EXPECT_EQ(-1, sendto(fd, buf, 10, 0, (struct sockaddr *)&to, tolen));
	EXPECT_EQ(EINVAL, errno);
	munmap(buf, big);
	close(fd);
	close(rx);
}

TEST_F(api, roundtrip_trunc_peek)
{
	static unsigned char buf[300000], rbuf[300000];
	struct sockaddr_storage to, from;
	socklen_t tolen = mkaddr(self->fam, self->lo, 1300, &to), fromlen = sizeof(from);
	int tx = smartt_socket(self->fam, 1301), rx = smartt_socket(self->fam, 1300);
	struct timeval tv = { .tv_sec = 10 };
	struct msghdr msg = {};
	struct iovec iov;
	ssize_t n;

	ASSERT_GE(tx, 0);
	ASSERT_GE(rx, 0);
	ASSERT_EQ(0, setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	fill(buf, sizeof(buf));
	ASSERT_EQ((ssize_t)sizeof(buf), sendto(tx, buf, sizeof(buf), 0, (struct sockaddr *)&to, tolen));
	n = recvfrom(rx, rbuf, sizeof(rbuf), 0, (struct sockaddr *)&from, &fromlen);
	ASSERT_EQ((ssize_t)sizeof(buf), n);
	ASSERT_EQ(0, check(rbuf, n));
	EXPECT_EQ(1301, ntohs(((struct sockaddr_in *)&from)->sin_port));

	/* MSG_PEEK leaves it; a short buffer truncates; MSG_TRUNC says the size. */
	fill(buf, 5000);
	ASSERT_EQ(5000, sendto(tx, buf, 5000, 0, (struct sockaddr *)&to, tolen));
	EXPECT_EQ(100, recv(rx, rbuf, 100, MSG_PEEK));
	EXPECT_EQ(5000, recv(rx, rbuf, 100, MSG_PEEK | MSG_TRUNC));
	iov.iov_base = rbuf;
	iov.iov_len = 100;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	EXPECT_EQ(100, recvmsg(rx, &msg, 0));
	EXPECT_TRUE(msg.msg_flags & MSG_TRUNC);
	EXPECT_EQ(0, check(rbuf, 0));
	EXPECT_EQ(pattern(5000, 99), rbuf[99]);
	/* The rest of that message is gone; nothing is left. */
	EXPECT_EQ(-1, recv(rx, rbuf, sizeof(rbuf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);

	/* Zero-length messages exist. */
	ASSERT_EQ(0, sendto(tx, buf, 0, 0, (struct sockaddr *)&to, tolen));
	EXPECT_EQ(0, recv(rx, rbuf, sizeof(rbuf), 0));
	close(tx);
	close(rx);
}

/*
 * connect(): send() and write() go to the connected peer, getpeername()
 * names it, sendto() still reaches others, messages from others are still
 * received; AF_UNSPEC forgets the peer (EDESTADDRREQ, ENOTCONN).
 * shutdown(): SHUT_WR -> EPIPE on the next send (what was queued still
 * arrives), SHUT_RD -> recv() returns 0 once the queue is empty; ENOTCONN
 * when not connected (applied all the same, as UDP); EINVAL for a bad how.
 */
TEST_F(api, connect_shutdown)
{
	struct sockaddr_storage to, other, peer, un = { .ss_family = AF_UNSPEC };
	socklen_t tolen = mkaddr(self->fam, self->lo, 1350, &to);
	socklen_t olen = mkaddr(self->fam, self->lo, 1352, &other), plen = sizeof(peer);
	int tx = smartt_socket(self->fam, -1), rx = smartt_socket(self->fam, 1350);
	int rx2 = smartt_socket(self->fam, 1352), third = smartt_socket(self->fam, 1353);
	struct smartt_completion c;
	struct timeval tv = { .tv_sec = 10 };
	char buf[64];

	ASSERT_GE(tx, 0);
	ASSERT_GE(rx, 0);
	ASSERT_GE(rx2, 0);
	ASSERT_GE(third, 0);
	ASSERT_EQ(0, setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	ASSERT_EQ(0, setsockopt(rx2, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	ASSERT_EQ(0, setsockopt(tx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	EXPECT_EQ(-1, getpeername(tx, (struct sockaddr *)&peer, &plen));
	EXPECT_EQ(ENOTCONN, errno);
	/* Bad addresses: nothing changes. */
	EXPECT_EQ(-1, connect(tx, (struct sockaddr *)&to, 4));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, connect(tx, (struct sockaddr *)&to, tolen));
	plen = sizeof(peer);
	ASSERT_EQ(0, getpeername(tx, (struct sockaddr *)&peer, &plen));
	EXPECT_EQ(1350, ntohs(((struct sockaddr_in *)&peer)->sin_port));
	/* connect() bound a port. */
	plen = sizeof(peer);
	ASSERT_EQ(0, getsockname(tx, (struct sockaddr *)&peer, &plen));
	EXPECT_NE(0, ntohs(((struct sockaddr_in *)&peer)->sin_port));

	ASSERT_EQ(5, send(tx, "hello", 5, 0));
	ASSERT_EQ(5, write(tx, "world", 5));
	ASSERT_EQ(5, recv(rx, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
	ASSERT_EQ(5, recv(rx, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "world", 5));
	/* sendto() another peer; and another peer's message is received. */
	ASSERT_EQ(3, sendto(tx, "abc", 3, 0, (struct sockaddr *)&other, olen));
	ASSERT_EQ(3, recv(rx2, buf, sizeof(buf), 0));
	plen = sizeof(peer);
	ASSERT_EQ(0, getsockname(tx, (struct sockaddr *)&peer, &plen));
	plen = mkaddr(self->fam, self->lo, ntohs(((struct sockaddr_in *)&peer)->sin_port), &peer);
	ASSERT_EQ(2, sendto(third, "xy", 2, 0, (struct sockaddr *)&peer, plen));
	ASSERT_EQ(2, recv(tx, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "xy", 2));

	/* AF_UNSPEC forgets the peer. */
	ASSERT_EQ(0, connect(tx, (struct sockaddr *)&un, sizeof(un)));
	EXPECT_EQ(-1, send(tx, "x", 1, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	plen = sizeof(peer);
	EXPECT_EQ(-1, getpeername(tx, (struct sockaddr *)&peer, &plen));
	EXPECT_EQ(ENOTCONN, errno);

	/* shutdown */
	EXPECT_EQ(-1, shutdown(tx, 7));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, connect(tx, (struct sockaddr *)&to, tolen));
	ASSERT_EQ(4, send_cookie(tx, "last", 4, &to, tolen, 77, 0));
	ASSERT_EQ(0, shutdown(tx, SHUT_WR));
	EXPECT_EQ(-1, send(tx, "x", 1, MSG_NOSIGNAL));
	EXPECT_EQ(EPIPE, errno);
	EXPECT_EQ(-1, sendto(tx, "x", 1, MSG_NOSIGNAL, (struct sockaddr *)&other, olen));
	EXPECT_EQ(EPIPE, errno);
	/* What was queued before still arrives and completes. */
	ASSERT_EQ(4, recv(rx, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "last", 4));
	ASSERT_EQ(0, get_completion(tx, &c, 10000));
	EXPECT_EQ(77ULL, c.cookie);
	EXPECT_EQ(0, c.status);
	/* SHUT_RD on an unconnected socket: ENOTCONN, applied all the same. */
	/* (acknowledged = queued at rx) */
	ASSERT_EQ(1, send_cookie(third, "q", 1, &to, tolen, 78, 0));
	ASSERT_EQ(0, get_completion(third, &c, 10000));
	EXPECT_EQ(-1, shutdown(rx, SHUT_RD));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(1, recv(rx, buf, sizeof(buf), 0));
	EXPECT_EQ(0, recv(rx, buf, sizeof(buf), 0));
	close(tx);
	close(rx);
	close(rx2);
	close(third);
}

TEST_F(api, completions)
{
	/* Small enough that the unread messages fit the receive buffer. */
	static unsigned char buf[20000];
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(self->fam, self->lo, 1400, &to);
	int tx = smartt_socket(self->fam, -1), rx = smartt_socket(self->fam, 1400);
	struct smartt_completion c;
	int i, seen = 0;

	ASSERT_GE(tx, 0);
	ASSERT_GE(rx, 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ((ssize_t)sizeof(buf) - i,
			  send_cookie(tx, buf, sizeof(buf) - i, &to, tolen, 0xabc0 + i, 0));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, get_completion(tx, &c, 10000));
		EXPECT_EQ(0, c.status);
		ASSERT_GE(c.cookie, 0xabc0ULL);
		ASSERT_LT(c.cookie, 0xabc3ULL);
		EXPECT_EQ(sizeof(buf) - (c.cookie - 0xabc0), c.msg_len);
		EXPECT_GT(c.fct_ns, 0ULL);
		seen |= 1 << (c.cookie - 0xabc0);
	}
	EXPECT_EQ(7, seen);
	close(tx);
	close(rx);
}

/*
 * Completions count against the send buffer until read, not against the
 * receive buffer: a sender that reads them late loses none (with a
 * minimal SO_RCVBUF, 100 of them queue up), and one that does not read
 * them runs out of room to send (EAGAIN) until it does.
 */
TEST_F(api, completions_wait_to_be_read)
{
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(self->fam, self->lo, 1401, &to);
	int tx = smartt_socket(self->fam, -1), rx = smartt_socket(self->fam, 1401);
	int small = 1, sndbuf = 4096, i, sent, got = 0;
	struct timeval tv = { .tv_sec = 10 };
	struct smartt_completion c;
	unsigned char seen[100] = {}, r[16];
	unsigned char b = 7;

	ASSERT_GE(tx, 0);
	ASSERT_GE(rx, 0);
	ASSERT_EQ(0, setsockopt(tx, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)));
	ASSERT_EQ(0, setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	/* the receiver reads as it goes: its buffer stops nothing */
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(1, send_cookie(tx, &b, 1, &to, tolen, 1000 + i, 0));
		while (recv(rx, r, sizeof(r), MSG_DONTWAIT) == 1)
			got++;
	}
	while (got < 100 && recv(rx, r, sizeof(r), 0) == 1)
		got++;
	ASSERT_EQ(100, got);
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, get_completion(tx, &c, 10000));
		EXPECT_EQ(0, c.status);
		ASSERT_GE(c.cookie, 1000ULL);
		ASSERT_LT(c.cookie, 1100ULL);
		EXPECT_EQ(0, seen[c.cookie - 1000]);
		seen[c.cookie - 1000] = 1;
	}

	/* A small send buffer, completions left unread: no room at last. */
	ASSERT_EQ(0, setsockopt(tx, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)));
	for (sent = 0; sent < 1000; sent++) {
		if (send_cookie(tx, &b, 1, &to, tolen, 5000 + sent, MSG_DONTWAIT) != 1)
			break;
		usleep(2000);
		/* the receiver keeps up: its buffer is not what stops us */
		while (recv(rx, r, sizeof(r), MSG_DONTWAIT) >= 0)
			;
	}
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_GT(sent, 0);
	ASSERT_LT(sent, 1000);
	/* Everything acknowledged by now: the unread completions hold the room. */
	usleep(300000);
	EXPECT_EQ(-1, send_cookie(tx, &b, 1, &to, tolen, 1, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	for (i = 0; i < sent; i++) {
		ASSERT_EQ(0, get_completion(tx, &c, 10000));
		EXPECT_EQ(0, c.status);
	}
	EXPECT_EQ(1, send_cookie(tx, &b, 1, &to, tolen, 2, MSG_DONTWAIT));
	close(tx);
	close(rx);
}

TEST_F(api, econnrefused)
{
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(self->fam, self->lo, 1500, &to);
	int tx = smartt_socket(self->fam, -1);
	struct smartt_completion c;
	struct pollfd p = { .fd = tx };
	int err = 0;
	socklen_t elen = sizeof(err);
	char b[16] = {};

	ASSERT_GE(tx, 0);
	/* Without a cookie: the socket's error. */
	ASSERT_EQ(16, sendto(tx, b, 16, 0, (struct sockaddr *)&to, tolen));
	ASSERT_EQ(1, poll(&p, 1, 10000));
	ASSERT_TRUE(p.revents & POLLERR);
	ASSERT_EQ(0, getsockopt(tx, SOL_SOCKET, SO_ERROR, &err, &elen));
	EXPECT_EQ(ECONNREFUSED, err);
	/* With a cookie: the completion. */
	ASSERT_EQ(16, send_cookie(tx, b, 16, &to, tolen, 77, 0));
	ASSERT_EQ(0, get_completion(tx, &c, 10000));
	EXPECT_EQ(77ULL, c.cookie);
	EXPECT_EQ(-ECONNREFUSED, c.status);
	/* And through recv(). */
	ASSERT_EQ(16, sendto(tx, b, 16, 0, (struct sockaddr *)&to, tolen));
	ASSERT_EQ(1, poll(&p, 1, 10000));
	EXPECT_EQ(-1, recv(tx, b, sizeof(b), 0));
	EXPECT_EQ(ECONNREFUSED, errno);
	close(tx);
}

/*
 * The receiver refuses one message (larger than its SMARTT_MSG_MAX): that
 * message fails with EMSGSIZE, the ones sent before and after it complete.
 * In a netns of its own whose loopback delays every packet by 20 ms, so
 * that all three are in flight when the error comes back (on a plain
 * loopback each is answered before the next is sent).
 */
TEST_F(api, error_fails_one_message)
{
	static unsigned char buf[3000];
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(self->fam, self->lo, 1450, &to);
	int tx = smartt_socket(self->fam, -1), rx = smartt_socket(self->fam, 1450);
	unsigned int max = 2000;
	struct smartt_completion c;
	int i, status[3] = { 1, 1, 1 };
	size_t len[3] = { 1000, sizeof(buf), 1000 };

	if (tx >= 0)
		close(tx);
	if (rx >= 0)
		close(rx);
	if (unshare(CLONE_NEWNET))
		SKIP(return, "unshare(CLONE_NEWNET): %s", strerror(errno));
	if (system("ip link set lo up && tc qdisc add dev lo root netem delay 20ms"))
		SKIP(return, "no netem on the loopback");
	tx = smartt_socket(self->fam, -1);
	rx = smartt_socket(self->fam, 1450);
	ASSERT_GE(tx, 0);
	ASSERT_GE(rx, 0);
	ASSERT_EQ(0, setsockopt(rx, SOL_SMARTT, SMARTT_MSG_MAX, &max, sizeof(max)));
	for (i = 0; i < 3; i++)
		ASSERT_EQ((ssize_t)len[i], send_cookie(tx, buf, len[i], &to, tolen, 100 + i, 0));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, get_completion(tx, &c, 10000));
		ASSERT_GE(c.cookie, 100ULL);
		ASSERT_LT(c.cookie, 103ULL);
		status[c.cookie - 100] = c.status;
	}
	EXPECT_EQ(0, status[0]);
	EXPECT_EQ(-EMSGSIZE, status[1]);
	EXPECT_EQ(0, status[2]);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(1000, recv(rx, buf, sizeof(buf), MSG_DONTWAIT));
	/* The sender goes on: a fourth message completes. */
	ASSERT_EQ(1000, send_cookie(tx, buf, 1000, &to, tolen, 103, 0));
	ASSERT_EQ(0, get_completion(tx, &c, 10000));
	EXPECT_EQ(103ULL, c.cookie);
	EXPECT_EQ(0, c.status);
	close(tx);
	close(rx);
}

/* Write @v to the sysctl file @path; 0 or -1. */
static int sysctl_write(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -1;
	err = fputs(v, f) < 0;
	return fclose(f) || err ? -1 : 0;
}

/*
 * net.smartt.tcp_smartt_knobs apply over the SMaRTT profile a socket picks
 * (SMARTT_CC), as over TCP's: an override that profile rejects is EINVAL.
 * md above 1 is valid for smartt-2024's rules only.  In a netns
 * of its own.
 */
TEST_F(api, cc_takes_tcp_smartt_knobs)
{
	const char *prof = "/proc/sys/net/smartt/tcp_smartt_profile";
	const char *knobs = "/proc/sys/net/smartt/tcp_smartt_knobs";
	int fd;

	if (unshare(CLONE_NEWNET))
		SKIP(return, "unshare(CLONE_NEWNET): %s", strerror(errno));
	ASSERT_EQ(0, system("ip link set lo up"));
	ASSERT_EQ(0, sysctl_write(prof, "smartt-2024"));
	ASSERT_EQ(0, sysctl_write(knobs, "md=1.5"));
	fd = smartt_socket(self->fam, -1);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "smartt-2024", 12));
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "smartt", 7));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "nscc", 5));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, sysctl_write(knobs, "md=0.9"));
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "smartt", 7));
	EXPECT_EQ(0, setsockopt(fd, SOL_SMARTT, SMARTT_CC, "nscc", 5));
	close(fd);
}

TEST_F(api, etimedout_eagain)
{
	const char *dead = getenv(self->fam == AF_INET ? "SMARTT_DEAD4" : "SMARTT_DEAD6");
	static unsigned char buf[20000];
	struct sockaddr_storage to;
	socklen_t tolen;
	unsigned int ms = 300;
	int sndbuf = 4096;
	int tx = smartt_socket(self->fam, -1);
	struct smartt_completion c;
	struct timespec t0, t1;
	long el;

	if (!dead)
		SKIP(return, "no unreachable address given (SMARTT_DEAD4/6)");
	tolen = mkaddr(self->fam, dead, 1600, &to);
	ASSERT_GE(tx, 0);
	ASSERT_EQ(0, setsockopt(tx, SOL_SMARTT, SMARTT_TIMEOUT_MS, &ms, sizeof(ms)));
	ASSERT_EQ(0, setsockopt(tx, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* The first message always fits; the next one does not. */
	ASSERT_EQ((ssize_t)sizeof(buf), send_cookie(tx, buf, sizeof(buf), &to, tolen, 5, 0));
	EXPECT_EQ(-1, send_cookie(tx, buf, sizeof(buf), &to, tolen, 6, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, get_completion(tx, &c, 10000));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_EQ(5ULL, c.cookie);
	EXPECT_EQ(-ETIMEDOUT, c.status);
	el = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	EXPECT_GE(el, 250);
	/* Room again. */
	EXPECT_EQ((ssize_t)sizeof(buf), sendto(tx, buf, sizeof(buf), MSG_DONTWAIT,
					       (struct sockaddr *)&to, tolen));
	close(tx);
}

/* Send one message of @n bytes from @tx to @to and receive it on @rx. */
static int one_message(int tx, int rx, const struct sockaddr_storage *to, socklen_t tolen,
		       size_t n)
{
	static unsigned char b[70000], r[70000];
	struct timeval tv = { .tv_sec = 10 };

	fill(b, n);
	setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(tx, b, n, 0, (const struct sockaddr *)to, tolen) != (ssize_t)n)
		return -1;
	if (recv(rx, r, sizeof(r), 0) != (ssize_t)n)
		return -1;
	return check(r, n);
}

/*
 * Send one message of @n bytes with a cookie and wait for its completion:
 * its status (0 or a negative errno), -1 if none came in 10 s.
 */
static int sent_status(int tx, const struct sockaddr_storage *to, socklen_t tolen, size_t n)
{
	static unsigned char b[70000];
	struct smartt_completion c;

	fill(b, n);
	if (send_cookie(tx, b, n, to, tolen, 0x5e17, 0) != (ssize_t)n ||
	    get_completion(tx, &c, 10000) || c.cookie != 0x5e17)
		return -1;
	return c.status;
}

TEST_F(api, peer_restarts)
{
	struct sockaddr_storage to, txa;
	socklen_t tolen = mkaddr(self->fam, self->lo, 1700, &to);
	socklen_t txlen = mkaddr(self->fam, self->lo, 1701, &txa);
	struct smartt_peer_info pi = {};
	socklen_t pilen = sizeof(pi);
	int tx = smartt_socket(self->fam, 1701), rx = smartt_socket(self->fam, 1700);
	unsigned int ms = 100;
	int i;

	ASSERT_GE(tx, 0);
	ASSERT_GE(rx, 0);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, one_message(tx, rx, &to, tolen, 60000 + i));
	/* The peer's state as the application sees it. */
	memcpy(pi.addr, &to, tolen);
	ASSERT_EQ(0, getsockopt(tx, SOL_SMARTT, SMARTT_PEER_INFO, &pi, &pilen));
	EXPECT_EQ(sizeof(pi), pilen);
	/* every message answered: nothing held for a response */
	EXPECT_EQ(pi.snd_una, pi.snd_nxt);
	EXPECT_GT(pi.mss, 1000U);
	EXPECT_GT(pi.srtt_us, 0U);
	EXPECT_EQ(0ULL, pi.in_flight);
	/*
	 * The receiver restarts: a new socket knows nothing of the sender and
	 * says so (NACK INV_DPDCID).  The message sent then may have reached
	 * the old socket for all the sender knows: it fails with ECONNRESET,
	 * never with success; the next ones go in a new PDC.
	 */
	close(rx);
	rx = smartt_socket(self->fam, 1700);
	ASSERT_GE(rx, 0);
	ASSERT_EQ(-ECONNRESET, sent_status(tx, &to, tolen, 999));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, one_message(tx, rx, &to, tolen, 1000 + i));
	/* The sender restarts: a new sender PDC from the same address and port. */
	close(tx);
	tx = smartt_socket(self->fam, 1701);
	ASSERT_GE(tx, 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, one_message(tx, rx, &to, tolen, 2000 + i));
	/* And the other way round, to the restarted sender. */
	ASSERT_EQ(0, one_message(rx, tx, &txa, txlen, 3000));
	memcpy(pi.addr, &txa, txlen);
	pilen = sizeof(pi);
	EXPECT_EQ(0, getsockopt(rx, SOL_SMARTT, SMARTT_PEER_INFO, &pi, &pilen));
	memcpy(pi.addr, &txa, txlen);
	((struct sockaddr_in *)pi.addr)->sin_port = htons(1799);
	EXPECT_EQ(-1, getsockopt(rx, SOL_SMARTT, SMARTT_PEER_INFO, &pi, &pilen));
	EXPECT_EQ(ENOENT, errno);

	/* Idle peers are reclaimed (after 4 timeouts, at least 1 s)... */
	ASSERT_EQ(0, setsockopt(rx, SOL_SMARTT, SMARTT_TIMEOUT_MS, &ms, sizeof(ms)));
	ASSERT_EQ(0, setsockopt(tx, SOL_SMARTT, SMARTT_TIMEOUT_MS, &ms, sizeof(ms)));
	ASSERT_EQ(0, one_message(tx, rx, &to, tolen, 4000));
	usleep(2500000);
	memcpy(pi.addr, &txa, txlen);
	pilen = sizeof(pi);
	EXPECT_EQ(-1, getsockopt(rx, SOL_SMARTT, SMARTT_PEER_INFO, &pi, &pilen));
	EXPECT_EQ(ENOENT, errno);
	memcpy(pi.addr, &to, tolen);
	EXPECT_EQ(-1, getsockopt(tx, SOL_SMARTT, SMARTT_PEER_INFO, &pi, &pilen));
	EXPECT_EQ(ENOENT, errno);
	/* ... and come back with fresh state. */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, one_message(tx, rx, &to, tolen, 5000 + i));
		ASSERT_EQ(0, one_message(rx, tx, &txa, txlen, 6000 + i));
	}
	close(tx);
	close(rx);
}

/* Raw UDP at the port: each packet must be counted as malformed. */

/* A valid DATA packet (one segment of 100 bytes) to transport port 1700. */
static const struct uet_data inj_data = {
	.psn = 7, .clear = -1, .spdcid = 1, .flags = SMARTT_PDS_REQ_F_SYN, .pid = 1700,
	.initiator = 9, .len = 100, .plen = 100, .eom = true,
};

/* Rewrite the trailer of the @n-byte packet at @p (its last 4 bytes). */
static void inj_recrc(const struct uet_flow *f, unsigned char *p, size_t n)
{
	uet_add_crc(f, p, n - SMARTT_CRC_LEN);
}

/* A control packet of @type / @nh / @flags, @len bytes with its trailer. */
static size_t inj_ctl(const struct uet_flow *f, unsigned char *p, unsigned int type,
		      unsigned int nh, unsigned int flags, size_t len)
{
	uint16_t pro = uet_prologue(type, nh, flags);

	memset(p, 0, len);
	memcpy(p, &pro, 2);
	p[8] = 0;
	p[9] = 1;	/* SPDCID 1 */
	p[11] = 1;	/* DPDCID 1 */
	return uet_add_crc(f, p, len);
}

static int inject(int fam, const char *ip)
{
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(fam, ip, SMARTT_UDP_PORT_DEFAULT, &to);
	struct smartt_ses_std *ses;
	struct uet_flow f;
	struct uet_data d;
	unsigned char p[256];
	int fd = socket(fam, SOCK_DGRAM, 0), n = 0, i;
	size_t len;

	if (fd < 0)
		return -1;
	/* connected: the trailer covers the addresses and ports it sends from */
	if (connect(fd, (struct sockaddr *)&to, tolen) || uet_flow_fd(&f, fd)) {
		close(fd);
		return -1;
	}
	ses = (struct smartt_ses_std *)(p + sizeof(struct smartt_pds_rud_req));
#define SEND(l) do { sendto(fd, p, (l), 0, (struct sockaddr *)&to, tolen); n++; } while (0)
#define BUILD() (d = inj_data, len = uet_build_data(&f, p, &d, NULL))
	/* random garbage of every short length (an unknown type, or too short) */
	for (i = 0; i < 64; i += 7) {
		memset(p, 0x5a, sizeof(p));
		SEND(i);
	}
	BUILD();
	p[0] = 0;			/* type 0 */
	SEND(len);
	BUILD();
	p[1] = (p[1] & 0x7f);		/* next header 2 (not the standard request) */
	p[0] = (p[0] & 0xf8) | 0x01;
	SEND(len);
	BUILD();
	SEND(40);			/* truncated headers */
	BUILD();
	p[SMARTT_DATA_HLEN + 3] ^= 1;	/* CRC32C mismatch */
	SEND(len);
	d = inj_data;			/* payload_length 100, 80 bytes follow */
	d.off = 100;
	d.len = 200;
	d.plen = 80;
	len = uet_build_data(&f, p, &d, NULL);
	ses->hdata_hi = htonl(100);
	inj_recrc(&f, p, len);
	SEND(len);
	d = inj_data;			/* offset beyond the message */
	d.off = 5000;
	len = uet_build_data(&f, p, &d, NULL);
	SEND(len);
	d = inj_data;			/* request_length above the 1 GiB limit */
	d.len = SMARTT_MSG_MAX_LIMIT + 1;
	d.eom = false;
	len = uet_build_data(&f, p, &d, NULL);
	SEND(len);
	BUILD();
	ses->opcode = 1;		/* WRITE */
	inj_recrc(&f, p, len);
	SEND(len);
	BUILD();
	ses->ver_flags |= 1 << SMARTT_SES_VER_SHIFT;	/* SES version 1 */
	inj_recrc(&f, p, len);
	SEND(len);
	d = inj_data;			/* SPDCID 0 */
	d.spdcid = 0;
	len = uet_build_data(&f, p, &d, NULL);
	SEND(len);
	d = inj_data;			/* CLEAR_PSN at the PSN */
	d.clear = 0;
	len = uet_build_data(&f, p, &d, NULL);
	SEND(len);
	d = inj_data;			/* initiator beyond 4095 */
	d.initiator = 4096;
	len = uet_build_data(&f, p, &d, NULL);
	SEND(len);
	d = inj_data;			/* no SYN, DPDCID 0 */
	d.flags = 0;
	len = uet_build_data(&f, p, &d, NULL);
	SEND(len);
	/* ACK_CC with credit CC state */
	len = inj_ctl(&f, p, SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_NONE, 0, SMARTT_ACK_LEN);
	p[12] = SMARTT_PDS_CC_CREDIT << SMARTT_PDS_CC_TYPE_SHIFT;
	inj_recrc(&f, p, len);
	SEND(len);
	/* NACK of a RUDI packet */
	len = inj_ctl(&f, p, SMARTT_PDS_NACK, SMARTT_PDS_NH_NONE, SMARTT_PDS_NACK_F_NT,
		      SMARTT_NACK_LEN);
	SEND(len);
	/* CTRL PROBE with SYN */
	len = inj_ctl(&f, p, SMARTT_PDS_CTRL, SMARTT_PDS_CTL_PROBE, SMARTT_PDS_CTRL_F_SYN,
		      SMARTT_CTRL_LEN);
	SEND(len);
	/* CTRL of a type smartt does not take (CLOSE) */
	len = inj_ctl(&f, p, SMARTT_PDS_CTRL, SMARTT_PDS_CTL_CLOSE, 0, SMARTT_CTRL_LEN);
	SEND(len);
	/* ACK_CC cut short, trailer included */
	len = inj_ctl(&f, p, SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_NONE, 0, 20);
	SEND(len);
	/* an error whose SES response is not a RESPONSE */
	len = inj_ctl(&f, p, SMARTT_PDS_ACK, SMARTT_PDS_NH_RSP, 0, SMARTT_ERR_LEN);
	p[12] = 3;
	inj_recrc(&f, p, len);
	SEND(len);
#undef SEND
#undef BUILD
	close(fd);
	return n;
}

/* The PDS types and next headers (CTRL types) smartt takes, and their lengths. */
static const struct {
	unsigned int type, nh;
	size_t len;
} uet_kinds[] = {
	{ SMARTT_PDS_RUD_REQ, SMARTT_PDS_NH_REQ_STD, SMARTT_DATA_HLEN },
	{ SMARTT_PDS_ACK_CC, SMARTT_PDS_NH_NONE, SMARTT_ACK_LEN },
	{ SMARTT_PDS_ACK, SMARTT_PDS_NH_RSP, SMARTT_ERR_LEN },
	{ SMARTT_PDS_NACK, SMARTT_PDS_NH_NONE, SMARTT_NACK_LEN },
	{ SMARTT_PDS_CTRL, SMARTT_PDS_CTL_PROBE, SMARTT_CTRL_LEN },
};

/*
 * @n random packets at the UDP port: half start with the prologue of a
 * type smartt takes and end with a right trailer, the rest are random
 * bytes.  They must all be dropped, counted, and change nothing.
 */
static int fuzz(int fam, const char *ip, int n, unsigned int seed)
{
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(fam, ip, SMARTT_UDP_PORT_DEFAULT, &to);
	unsigned char p[400];
	int fd = socket(fam, SOCK_DGRAM, 0), i, sent = 0;
	struct uet_flow f;

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&to, tolen) || uet_flow_fd(&f, fd)) {
		close(fd);
		return -1;
	}
	srandom(seed);
	for (i = 0; i < n; i++) {
		size_t len = random() % (sizeof(p) - SMARTT_CRC_LEN), j;

		for (j = 0; j < len; j++)
			p[j] = random();
		if (len >= 2 && (random() & 1)) {
			unsigned int k = random() % 5;
			uint16_t pro = uet_prologue(uet_kinds[k].type, uet_kinds[k].nh, random());

			memcpy(p, &pro, 2);
			if (random() & 1)
				len = uet_add_crc(&f, p, len);
		}
		if (sendto(fd, p, len, 0, (struct sockaddr *)&to, tolen) == (ssize_t)len)
			sent++;
		if (i % 50 == 49)
			usleep(1000);
	}
	close(fd);
	return sent;
}

/* A random choice among @n values. */
static uint64_t pick(const uint64_t *v, unsigned int n)
{
	return v[random() % n];
}

static uint64_t rnd64(void)
{
	return ((uint64_t)random() << 33) ^ ((uint64_t)random() << 11) ^ random();
}

/*
 * @n packets of every type that parse as far as the type's headers, to the
 * transport port @dport: DATA from a few transport ports and sender PDC ids
 * (so that they reach peer state and reassembly), ACK_CC, NACK, errors and
 * PROBEs to a few PDC ids; each field drawn from its boundary values or at
 * random, the payload and packet length right most of the time and off by
 * a little or a lot otherwise, the trailer right most of the time.
 * Whatever gets in must leave the module as sound as it was.
 */
static int mutate(int fam, const char *ip, int dport, int n, unsigned int seed)
{
	static const uint64_t lens[] = { 0, 1, 63, 64, 100, 1332, 4096, 65536, 1 << 20,
					 64ULL << 20, (64ULL << 20) + 1, 0xffffffffULL };
	static const uint64_t segs[] = { 0, 1, 63, 64, 1000, 1332, 8192, 8193, 16383 };
	static const uint64_t small[] = { 0, 1, 2, 3, 255, 256, 257, 0xffffffffULL };
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(fam, ip, SMARTT_UDP_PORT_DEFAULT, &to);
	unsigned char p[SMARTT_DATA_HLEN + 1500 + 64];
	int fd = socket(fam, SOCK_DGRAM, 0), i, sent = 0;
	struct uet_flow f;

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&to, tolen) || uet_flow_fd(&f, fd)) {
		close(fd);
		return -1;
	}
	srandom(seed);
	for (i = 0; i < n; i++) {
		unsigned int k = random() % 5, r = random() % 100;
		size_t len, plen = 0, j;
		uint64_t v;

		/* random bytes 8 at a time: random() per byte was most of the time */
		for (j = 0; j < sizeof(p); j += 8) {
			v = rnd64();
			memcpy(p + j, &v, sizeof(p) - j < 8 ? sizeof(p) - j : 8);
		}
		if (k == 0) {
			uint64_t ml = pick(lens, 12), sg = pick(segs, 9);
			struct uet_data d = {
				.psn = random() % 3 ? random() % 600 :
				       (uint32_t)(pick(small, 8) << (random() % 32)),
				.clear = random() % 4 ? -1 - (int16_t)(random() % 300) :
					 (int16_t)random(),
				.spdcid = 1 + random() % 3,
				.flags = random() % 4 ? (random() % 2 ? SMARTT_PDS_REQ_F_SYN : 0) :
					 (uint8_t)random(),
				.msg_id = random() % 4 ? random() % 4 : random(),
				.job = random() % 8 ? 0 : random(),
				.pid = random() % 8 ? dport : random() % 4096,
				.initiator = 9 + random() % 4,
				.len = ml,
			};

			d.dpdcid = d.flags & SMARTT_PDS_REQ_F_SYN ? random() % 300 : random();
			v = sg && random() % 4 ? sg * (uint64_t)(random() % 600) : rnd64();
			d.off = random() % 3 ? (uint32_t)v : 0;
			plen = random() % 4 ? (sg < 1400 ? sg : 1400) : (size_t)(random() % 1400);
			if (d.len > d.off && d.len - d.off < plen)
				plen = d.len - d.off;
			d.plen = plen;
			d.eom = random() % 2 ? d.off + plen == d.len : random() % 2;
			len = uet_build_data(&f, p, &d, NULL);
			if (random() % 8 == 0) {	/* payload_length off */
				p[sizeof(struct smartt_pds_rud_req) + 34] ^= 1 << (random() % 6);
				len = uet_add_crc(&f, p, len - SMARTT_CRC_LEN);
			}
		} else {
			uint16_t pro = uet_prologue(uet_kinds[k].type, uet_kinds[k].nh,
						    random() % 4 ? 0 : random());
			uint16_t id = htons(random() % 4 ? 1 + random() % 8 : random());

			memcpy(p, &pro, 2);
			memcpy(p + 10, &id, 2);		/* DPDCID */
			id = htons(random() % 4 ? 1 + random() % 3 : random());
			memcpy(p + 8, &id, 2);		/* SPDCID */
			if (k == 1)			/* NSCC */
				p[12] = random() % 8 ? 0 : random();
			len = uet_add_crc(&f, p, uet_kinds[k].len);
		}
		if (r < 10)
			len = random() % len;
		else if (r < 15)
			len = uet_add_crc(&f, p, len - SMARTT_CRC_LEN + random() % 60);
		else if (r < 20)
			p[random() % len] ^= 1 << (random() % 8);	/* CRC mismatch */
		if (sendto(fd, p, len, 0, (struct sockaddr *)&to, tolen) == (ssize_t)len)
			sent++;
		if (i % 50 == 49)
			usleep(1000);
	}
	close(fd);
	return sent;
}

TEST_F(api, malformed_counted)
{
	long long before = stat_of("malformed"), after = -1;
	/* The UDP port is open while the netns has a transport socket. */
	int keep = smartt_socket(self->fam, -1);
	int i, n;

	ASSERT_GE(keep, 0);
	ASSERT_GE(before, 0);
	n = inject(self->fam, self->lo);
	ASSERT_GT(n, 0);
	for (i = 0; i < 100; i++) {
		after = stat_of("malformed");
		if (after >= before + n)
			break;
		usleep(20000);
	}
	EXPECT_EQ(before + n, after);
	close(keep);
}

/*
 * The tools' waits (50 s) times $SMARTT_TIMEOUT_SCALE, which a slower
 * kernel's runner sets (run_guest.sh: the debug kernel's sanitizers).
 */
static int scaled_s(int s)
{
	const char *e = getenv("SMARTT_TIMEOUT_SCALE");
	int k = e ? atoi(e) : 1;

	return k >= 1 && k <= 100 ? s * k : s;
}

static int tool_recv(int fam, int port, int nsz, char **sz)
{
	size_t max = 0, *want = calloc(nsz, sizeof(size_t));
	unsigned char *buf;
	int fd, i, got = 0, rcvbuf = 32 << 20;
	struct timeval tv = { .tv_sec = scaled_s(50) };
	long long total = 0;

	for (i = 0; i < nsz; i++) {
		want[i] = strtoull(sz[i], NULL, 0);
		if (want[i] > max)
			max = want[i];
	}
	buf = malloc(max + 1);
	fd = smartt_socket(fam, port);
	if (fd < 0 || !buf) {
		perror("recv: socket");
		return 1;
	}
	/* a message is admitted only if it fits the receive buffer */
	if (max > (size_t)rcvbuf)
		rcvbuf = max + (1 << 20);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (env_opts(fd))
		return 1;
	printf("listening\n");
	fflush(stdout);
	while (got < nsz) {
		ssize_t n = recv(fd, buf, max + 1, 0);

		if (n < 0) {
			perror("recv");
			return 1;
		}
		for (i = 0; i < nsz; i++)
			if (want[i] == (size_t)n)
				break;
		if (i == nsz) {
			fprintf(stderr, "unexpected message of %zd bytes\n", n);
			return 1;
		}
		if (check(buf, n)) {
			fprintf(stderr, "message of %zd bytes corrupted\n", n);
			return 1;
		}
		want[i] = (size_t)-1;
		got++;
		total += n;
	}
	/* Exactly once: nothing else arrives (for $SMARTT_LINGER_MS). */
	if (getenv("SMARTT_LINGER_MS")) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		poll(&pfd, 1, atoi(getenv("SMARTT_LINGER_MS")));
	}
	if (recv(fd, buf, max + 1, MSG_DONTWAIT) >= 0) {
		fprintf(stderr, "a message arrived twice\n");
		return 1;
	}
	printf("ok %d messages %lld bytes\n", got, total);
	return 0;
}

static int tool_send(int fam, const char *ip, int port, int nsz, char **sz)
{
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(fam, ip, port, &to);
	struct smartt_completion c;
	int fd = smartt_socket(fam, getenv("SMARTT_SPORT") ? atoi(getenv("SMARTT_SPORT")) : -1);
	int i, sndbuf = 64 << 20;
	unsigned char *buf;
	size_t max = 0;

	for (i = 0; i < nsz; i++)
		if (strtoull(sz[i], NULL, 0) > max)
			max = strtoull(sz[i], NULL, 0);
	buf = malloc(max + 1);
	if (fd < 0 || !buf) {
		perror("send: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf));
	if (getenv("SMARTT_CC") &&
	    setsockopt(fd, SOL_SMARTT, SMARTT_CC, getenv("SMARTT_CC"),
		       strlen(getenv("SMARTT_CC")) + 1)) {
		perror("SMARTT_CC");
		return 1;
	}
	if (env_opts(fd))
		return 1;
	for (i = 0; i < nsz; i++) {
		size_t n = strtoull(sz[i], NULL, 0);

		fill(buf, n);
		if (send_cookie(fd, buf, n, &to, tolen, i, 0) != (ssize_t)n) {
			perror("sendmsg");
			return 1;
		}
	}
	for (i = 0; i < nsz; i++) {
		if (get_completion(fd, &c, scaled_s(50) * 1000)) {
			fprintf(stderr, "completion %d missing\n", i);
			return 1;
		}
		if (c.status) {
			fprintf(stderr, "message %llu failed: %s\n",
				(unsigned long long)c.cookie, strerror(-c.status));
			return 1;
		}
	}
	printf("ok\n");
	return 0;
}

/* The small modes: open, hold, udpbind.  -1 if @argv is none of them. */
static int tool_misc(int argc, char **argv, int fam)
{
	struct sockaddr_storage ss;
	int fd;

	if (!strcmp(argv[1], "open") || !strcmp(argv[1], "hold")) {
		fd = smartt_socket(fam, -1);
		if (fd < 0) {
			perror("socket");
			return 1;
		}
		if (argv[1][0] == 'h') {
			printf("open\n");
			fflush(stdout);
			sleep(30);
		}
		close(fd);
		return 0;
	}
	if (!strcmp(argv[1], "udpbind") && argc == 4) {
		socklen_t len = mkaddr(fam, NULL, atoi(argv[3]), &ss);

		fd = socket(fam, SOCK_DGRAM, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len)) {
			perror("udp bind");
			return 1;
		}
		close(fd);
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	int fam, rc;

	if (argc >= 3) {
		rc = tool_misc(argc, argv, argv[2][0] == '6' ? AF_INET6 : AF_INET);
		if (rc >= 0)
			return rc;
	}

	if (argc >= 3 && (!strcmp(argv[1], "recv") || !strcmp(argv[1], "send") ||
			  !strcmp(argv[1], "inject") || !strcmp(argv[1], "fuzz") ||
			  !strcmp(argv[1], "mutate"))) {
		fam = argv[2][0] == '6' ? AF_INET6 : AF_INET;
		if (!strcmp(argv[1], "recv") && argc >= 5)
			return tool_recv(fam, atoi(argv[3]), argc - 4, argv + 4);
		if (!strcmp(argv[1], "send") && argc >= 6)
			return tool_send(fam, argv[3], atoi(argv[4]), argc - 5, argv + 5);
		if (!strcmp(argv[1], "mutate") && argc == 7) {
			printf("%d\n", mutate(fam, argv[3], atoi(argv[4]), atoi(argv[5]),
					      atoi(argv[6])));
			return 0;
		}
		if (!strcmp(argv[1], "fuzz") && argc == 6) {
			printf("%d\n", fuzz(fam, argv[3], atoi(argv[4]), atoi(argv[5])));
			return 0;
		}
		if (!strcmp(argv[1], "inject") && argc == 4) {
			printf("%d\n", inject(fam, argv[3]));
			return 0;
		}
		fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
		return 2;
	}
	return test_harness_run(argc, argv);
}
