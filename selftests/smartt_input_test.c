// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input for selftests/smartt_transport_input.sh: DATA packets from
 * a plain UDP socket, and the count of what comes back.
 *
 *   smartt_input_test data 4|6 SRC DST DPORT N WAIT_MS
 *	bind a UDP socket to the transport's UDP port (4793) on the local
 *	unicast address SRC, send to DST (which may be a broadcast address,
 *	or an IPv6 multicast one with a "%dev" scope) N valid DATA packets
 *	(each the only segment of a 100-byte message, transport port 9 to
 *	DPORT) to DST's port 4793, then wait WAIT_MS after the last one.
 *	Prints "sent S replies R ms T": R counts the smartt packets other
 *	than DATA (ACKs, error packets) that came back to the socket, T is
 *	how long sending took.
 *   smartt_input_test bind 4|6 PORT SECS
 *	a transport socket bound to PORT; prints "bound", exits after SECS.
 *   smartt_input_test cloexec 4|6 PORT
 *	one message over loopback to a socket bound to PORT, received with
 *	recvmsg(MSG_CMSG_CLOEXEC); prints "ok" or the errno.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/smartt.h>

#include "smartt_test_util.h"
#include "smartt_uet.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A reply: an ACK, ACK_CC or NACK (errors are ACKs with an SES response). */
static int is_reply(const unsigned char *p, ssize_t n)
{
	return n > 0 && uet_is_reply(p, n);
}

static int drain(int fd, int timeout_ms)
{
	unsigned char p[2048];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int replies = 0;
	ssize_t n;

	while (poll(&pfd, 1, timeout_ms) > 0) {
		while ((n = recv(fd, p, sizeof(p), MSG_DONTWAIT)) >= 0)
			replies += is_reply(p, n);
	}
	return replies;
}

static int tool_data(int fam, const char *src, const char *dst, int dport, int count,
		     int wait_ms)
{
	struct addrinfo hints = { .ai_family = fam, .ai_socktype = SOCK_DGRAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	/* one-packet messages of 100 bytes from PDC 1, transport port 9 */
	struct uet_data d = {
		.clear = -1, .spdcid = 1, .flags = SMARTT_PDS_REQ_F_SYN, .pid = dport, .initiator = 9,
		.len = 100, .plen = 100, .eom = true,
	};
	struct sockaddr_storage local;
	socklen_t llen = mkaddr(fam, src, SMARTT_UDP_PORT_DEFAULT, &local);
	int one = 1, zero = 0, big = 4 << 20, fd, sent = 0, replies = 0, i;
	unsigned char p[SMARTT_DATA_HLEN + 100 + SMARTT_CRC_LEN];
	size_t len;
	long long start, elapsed;
	struct uet_flow f;
	struct addrinfo *ai;
	char port[8];

	snprintf(port, sizeof(port), "%d", SMARTT_UDP_PORT_DEFAULT);
	if (!llen || getaddrinfo(dst, port, &hints, &ai)) {
		fprintf(stderr, "bad address %s or %s\n", src, dst);
		return 1;
	}
	fd = socket(fam, SOCK_DGRAM, 0);
	if (fd < 0 || uet_flow(&f, (struct sockaddr *)&local, ai->ai_addr) ||
	    setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) ||
	    bind(fd, (struct sockaddr *)&local, llen)) {
		perror("reply socket");
		return 1;
	}
	/* UET answers carry a zero UDP checksum, which IPv6 refuses by default. */
	if (fam == AF_INET6)
		setsockopt(fd, SOL_UDP, UDP_NO_CHECK6_RX, &one, sizeof(one));
	/* Our own group packets must not look like answers. */
	if (fam == AF_INET)
		setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof(zero));
	else
		setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &zero, sizeof(zero));
	start = now_ms();
	for (i = 0; i < count; i++) {
		/* SYN, start PSN = PSN = CLEAR_PSN + 1: each packet stands alone */
		d.psn = i;
		d.msg_id = i;
		len = uet_build_data(&f, p, &d, NULL);
		if (sendto(fd, p, len, 0, ai->ai_addr, ai->ai_addrlen) == (ssize_t)len)
			sent++;
		if (i % 64 == 63)
			replies += drain(fd, 0);
	}
	elapsed = now_ms() - start;
	replies += drain(fd, wait_ms);
	printf("sent %d replies %d ms %lld\n", sent, replies, elapsed);
	freeaddrinfo(ai);
	close(fd);
	return sent == count ? 0 : 1;
}

static int tool_cloexec(int fam, int port)
{
	const char *lo = fam == AF_INET ? "127.0.0.1" : "::1";
	unsigned char buf[100], in[200];
	struct iovec iov = { .iov_base = in, .iov_len = sizeof(in) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(fam, lo, port, &to);
	int rx = smartt_socket(fam, port), tx = smartt_socket(fam, -1);
	struct pollfd pfd = { .fd = rx, .events = POLLIN };
	ssize_t n;

	if (rx < 0 || tx < 0) {
		perror("smartt socket");
		return 1;
	}
	fill(buf, sizeof(buf));
	if (sendto(tx, buf, sizeof(buf), 0, (struct sockaddr *)&to, tolen) != sizeof(buf)) {
		perror("sendto");
		return 1;
	}
	if (poll(&pfd, 1, 5000) != 1) {
		fprintf(stderr, "no message in 5 s\n");
		return 1;
	}
	n = recvmsg(rx, &msg, MSG_CMSG_CLOEXEC);
	if (n < 0) {
		printf("recvmsg(MSG_CMSG_CLOEXEC): %s\n", strerror(errno));
		return 1;
	}
	if (n != sizeof(buf) || check(in, n)) {
		printf("recvmsg(MSG_CMSG_CLOEXEC): %zd bytes, not the message\n", n);
		return 1;
	}
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	int fam = argc > 2 && argv[2][0] == '6' ? AF_INET6 : AF_INET;

	if (argc == 8 && !strcmp(argv[1], "data"))
		return tool_data(fam, argv[3], argv[4], atoi(argv[5]), atoi(argv[6]),
				 atoi(argv[7]));
	if (argc == 5 && !strcmp(argv[1], "bind")) {
		int fd = smartt_socket(fam, atoi(argv[3]));

		if (fd < 0) {
			perror("bind");
			return 1;
		}
		printf("bound\n");
		fflush(stdout);
		sleep(atoi(argv[4]));
		close(fd);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "cloexec"))
		return tool_cloexec(fam, atoi(argv[3]));
	fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
	return 2;
}
