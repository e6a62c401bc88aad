// SPDX-License-Identifier: GPL-2.0
/*
 * The receive memory of the transport, attacked and used, for
 * selftests/smartt_transport_mem.sh.
 *
 *   smartt_mem_test partial 4|6 SRC DST DPORT MSG_LEN SEG COUNT GAP_MS SECS
 *	from a plain UDP socket bound to the transport's UDP port on SRC
 *	(transport port 9, a sender PDC id of its own, SYN): DATA for message 1 of MSG_LEN bytes in
 *	SEG-byte segments to DST's transport port DPORT, segments 0 to
 *	COUNT - 1 (PSN = segment index), one every GAP_MS ms, never the last
 *	one unless COUNT covers it; then listens until SECS have passed
 *	since the start.  Prints "err CODE" for each error packet that comes
 *	back (as it comes), "acks N" for the ACKs, and "sent N" at the end.
 *	With $SMARTT_MEM_WAITER=PORT, each segment is followed by the first
 *	segment of a message of SMARTT_MSG_MAX_DEFAULT bytes from transport
 *	port PORT (a second peer of the same host, its own PDC): one host's
 *	bid to wait for the buffer its other peer holds.
 *   smartt_mem_test peers 4|6 SRC DST DPORT COUNT
 *	from a plain UDP socket bound to the transport's UDP port on SRC:
 *	one whole 64-byte message to DST's transport port DPORT from each of
 *	COUNT transport ports (1024 on, a PDC id each), as COUNT peers would
 *	send; prints "acks N" (the ACKs that came back within a second of
 *	the last one) and "sent N".
 *   smartt_mem_test peers-from BASE COUNT DST DPORT
 *	one whole 64-byte message to DST's (IPv4) transport port DPORT from
 *	each of COUNT source addresses BASE, BASE + 1, ... (not configured
 *	anywhere: IP_TRANSPARENT, so it needs CAP_NET_ADMIN), transport
 *	port 9, a PDC id each; prints "sent N".  Replies are not read.
 *   smartt_mem_test victim 4|6 PORT SECS TIMEOUT_MS
 *	a transport socket bound to PORT with SMARTT_TIMEOUT_MS = TIMEOUT_MS
 *	(and the default SO_RCVBUF); prints "bound", then "msg LEN" for each
 *	message received whole, until SECS have passed.
 *   smartt_mem_test send 4|6 DST PORT LEN SECS
 *	one message of LEN bytes to DST's PORT from a transport socket, with
 *	a completion; prints "completed STATUS MS" (STATUS 0 or -errno, MS
 *	from send to completion), or "no completion" after SECS.
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

/* Print what came back; returns the number of ACKs. */
static int replies(int fd, int timeout_ms)
{
	unsigned char p[2048];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int acks = 0;
	ssize_t n;

	while (poll(&pfd, 1, timeout_ms) > 0) {
		while ((n = recv(fd, p, sizeof(p), MSG_DONTWAIT)) >= 2) {
			unsigned int type = (be16toh(*(uint16_t *)p) & SMARTT_PDS_TYPE_MASK) >>
					    SMARTT_PDS_TYPE_SHIFT;

			/* an error: PDS ACK + SES response, its return code */
			if (type == SMARTT_PDS_ACK && n >= SMARTT_ERR_LEN) {
				const struct smartt_ses_rsp *r = (const void *)(p + 12);

				printf("err %u\n", r->ver_rc & SMARTT_SES_RSP_RC_MASK);
				fflush(stdout);
			} else if (type == SMARTT_PDS_ACK_CC) {
				acks++;
			}
		}
		timeout_ms = 0;
	}
	return acks;
}

/*
 * The attacker's plain UDP socket, bound to the transport's UDP port on
 * @src, and @dst's address for it in *@ai.  Return: the socket, or -2 for
 * a bad address, -1 for a socket error (the exit status, negated).
 */
static int attacker(int fam, const char *src, const char *dst, struct addrinfo **ai,
		    struct uet_flow *f)
{
	struct addrinfo hints = { .ai_family = fam, .ai_socktype = SOCK_DGRAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct sockaddr_storage local;
	socklen_t llen = mkaddr(fam, src, SMARTT_UDP_PORT_DEFAULT, &local);
	int big = 4 << 20, one = 1, fd;
	char port[8];

	snprintf(port, sizeof(port), "%d", SMARTT_UDP_PORT_DEFAULT);
	if (!llen || getaddrinfo(dst, port, &hints, ai)) {
		fprintf(stderr, "bad address %s or %s\n", src, dst);
		return -2;
	}
	if (uet_flow(f, (struct sockaddr *)&local, (*ai)->ai_addr)) {
		fprintf(stderr, "%s and %s: not one family\n", src, dst);
		freeaddrinfo(*ai);
		return -2;
	}
	fd = socket(fam, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) ||
	    /* UET answers carry a zero UDP checksum, which IPv6 refuses by default */
	    (fam == AF_INET6 &&
	     setsockopt(fd, SOL_UDP, UDP_NO_CHECK6_RX, &one, sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&local, llen)) {
		perror("UDP socket");
		freeaddrinfo(*ai);
		return -1;
	}
	return fd;
}

static int tool_partial(int fam, const char *src, const char *dst, int dport,
			uint64_t msg_len, uint32_t seg, long count, int gap_ms, int secs)
{
	/* a new sender PDC per run: the victim forgets the last run's PSNs */
	struct uet_data d = {
		.spdcid = (uint16_t)(getpid() | 1), .flags = SMARTT_PDS_REQ_F_SYN,
		.msg_id = 1, .pid = dport, .initiator = 9, .len = msg_len,
	}, w = {};
	static unsigned char p[SMARTT_DATA_HLEN + 8192 + SMARTT_CRC_LEN];
	static unsigned char pay[8192];
	long long end = now_ms() + secs * 1000LL;
	struct uet_flow f;
	struct addrinfo *ai;
	long sent = 0, i;
	int fd, acks = 0;
	size_t len;

	/* PSNs 0 to 255 from start PSN 0: CLEAR_PSN stays within the window */
	if (seg < 1 || seg > 8192 || !msg_len || msg_len > SMARTT_MSG_MAX_LIMIT ||
	    count > 255) {
		fprintf(stderr, "bad segment size, length or count\n");
		return 2;
	}
	fd = attacker(fam, src, dst, &ai, &f);
	if (fd < 0)
		return -fd;
	if (getenv("SMARTT_MEM_WAITER")) {
		w = d;
		w.initiator = atoi(getenv("SMARTT_MEM_WAITER"));
		w.spdcid = d.spdcid + 2;
		w.len = SMARTT_MSG_MAX_DEFAULT;
		w.plen = seg;
		w.clear = -1;
	}
	memset(pay, 0xa5, sizeof(pay));
	for (i = 0; i < count && (uint64_t)i * seg < msg_len; i++) {
		uint64_t off = (uint64_t)i * seg;
		long long next;

		d.psn = i;
		d.dpdcid = i;		/* SYN: PSN offset from the start PSN 0 */
		d.clear = -i - 1;	/* CLEAR_PSN -1: none cleared */
		d.off = off;
		d.plen = msg_len - off < seg ? msg_len - off : seg;
		d.eom = off + d.plen == msg_len;
		len = uet_build_data(&f, p, &d, pay);
		if (sendto(fd, p, len, 0, ai->ai_addr, ai->ai_addrlen) == (ssize_t)len)
			sent++;
		if (w.initiator) {
			len = uet_build_data(&f, p, &w, pay);
			sendto(fd, p, len, 0, ai->ai_addr, ai->ai_addrlen);
		}
		/* The whole gap, whatever comes back meanwhile. */
		next = now_ms() + gap_ms;
		do
			acks += replies(fd, next > now_ms() ? next - now_ms() : 0);
		while (now_ms() < next);
	}
	while (now_ms() < end)
		acks += replies(fd, end - now_ms());
	printf("acks %d\nsent %ld\n", acks, sent);
	freeaddrinfo(ai);
	close(fd);
	return 0;
}

/* A whole 64-byte message as one DATA packet, as peer (@sport, @spdcid) sends it. */
#define WHOLE_LEN (SMARTT_DATA_HLEN + 64 + SMARTT_CRC_LEN)

static void whole_msg(const struct uet_flow *f, unsigned char *p, int dport, uint16_t sport,
		      uint16_t spdcid)
{
	static const unsigned char pay[64] = { 0x5a };
	struct uet_data d = {
		.clear = -1, .spdcid = spdcid ? spdcid : 1, .flags = SMARTT_PDS_REQ_F_SYN,
		.msg_id = 1,
		.pid = dport, .initiator = sport, .len = 64, .plen = 64, .eom = true,
	};

	uet_build_data(f, p, &d, pay);
}

static int tool_peers(int fam, const char *src, const char *dst, int dport, long count)
{
	unsigned char p[WHOLE_LEN];
	int fd, acks = 0;
	struct uet_flow f;
	struct addrinfo *ai;
	long sent = 0, i;

	/* transport ports 1024 to 4095 */
	if (count < 1 || count > SMARTT_PORT_MAX - 1023) {
		fprintf(stderr, "COUNT: 1 to %d\n", SMARTT_PORT_MAX - 1023);
		return 2;
	}
	fd = attacker(fam, src, dst, &ai, &f);
	if (fd < 0)
		return -fd;
	for (i = 0; i < count; i++) {
		whole_msg(&f, p, dport, 1024 + i, (uint16_t)(getpid() + i + 1));
		if (sendto(fd, p, sizeof(p), 0, ai->ai_addr, ai->ai_addrlen) == (ssize_t)sizeof(p))
			sent++;
		/* a breath now and then: the flood must reach the socket, not the qdisc's limit */
		if (i % 64 == 63)
			acks += replies(fd, 1);
	}
	acks += replies(fd, 1000);
	printf("acks %d\nsent %ld\n", acks, sent);
	freeaddrinfo(ai);
	close(fd);
	return 0;
}

static int tool_peers_from(const char *base, long count, const char *dst, int dport)
{
	unsigned char p[WHOLE_LEN];
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_port = htons(SMARTT_UDP_PORT_DEFAULT) };
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(SMARTT_UDP_PORT_DEFAULT) };
	struct sockaddr_storage ss = { 0 }, ts = { 0 };
	struct uet_flow f;
	uint32_t first;
	long sent = 0, i;
	int one = 1, fd;

	if (count < 1 || count > 65535) {
		fprintf(stderr, "COUNT: 1 to 65535\n");
		return 2;
	}
	if (inet_pton(AF_INET, base, &src.sin_addr) != 1 ||
	    inet_pton(AF_INET, dst, &to.sin_addr) != 1) {
		fprintf(stderr, "bad address %s or %s\n", base, dst);
		return 2;
	}
	first = ntohl(src.sin_addr.s_addr);
	memcpy(&ts, &to, sizeof(to));
	for (i = 0; i < count; i++) {
		src.sin_addr.s_addr = htonl(first + i);
		memcpy(&ss, &src, sizeof(src));
		uet_flow(&f, (struct sockaddr *)&ss, (struct sockaddr *)&ts);
		whole_msg(&f, p, dport, 9, (uint16_t)(getpid() + i + 1));
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0 || setsockopt(fd, SOL_IP, IP_TRANSPARENT, &one, sizeof(one)) ||
		    bind(fd, (struct sockaddr *)&src, sizeof(src))) {
			perror("transparent UDP socket");
			return 1;
		}
		if (sendto(fd, p, sizeof(p), 0, (struct sockaddr *)&to, sizeof(to)) ==
		    (ssize_t)sizeof(p))
			sent++;
		close(fd);
		/* a breath now and then: the flood must reach the socket */
		if (i % 64 == 63)
			usleep(2000);
	}
	printf("sent %ld\n", sent);
	return 0;
}

static int tool_victim(int fam, int port, int secs, unsigned int timeout_ms)
{
	static unsigned char buf[64 << 20];
	int fd = smartt_socket(fam, port);
	long long end = now_ms() + secs * 1000LL;
	struct pollfd pfd = { .events = POLLIN };
	ssize_t n;

	if (fd < 0 || setsockopt(fd, SOL_SMARTT, SMARTT_TIMEOUT_MS, &timeout_ms,
				 sizeof(timeout_ms))) {
		perror("victim socket");
		return 1;
	}
	printf("bound\n");
	fflush(stdout);
	pfd.fd = fd;
	while (now_ms() < end) {
		if (poll(&pfd, 1, end - now_ms()) != 1)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n >= 0) {
			printf("msg %zd\n", n);
			fflush(stdout);
		}
	}
	close(fd);
	return 0;
}

static int tool_send(int fam, const char *dst, int port, size_t len, int secs)
{
	struct smartt_completion c;
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(fam, dst, port, &to);
	int fd = smartt_socket(fam, port + 1);
	unsigned char *buf = malloc(len);
	long long t0;

	if (fd < 0 || !tolen || !buf) {
		perror("sender");
		return 1;
	}
	fill(buf, len);
	t0 = now_ms();
	if (send_cookie(fd, buf, len, &to, tolen, 1, 0) != (ssize_t)len) {
		perror("send");
		return 1;
	}
	if (get_completion(fd, &c, secs * 1000)) {
		printf("no completion\n");
		return 1;
	}
	printf("completed %d %lld\n", c.status, now_ms() - t0);
	free(buf);
	close(fd);
	return c.status ? 1 : 0;
}

int main(int argc, char **argv)
{
	int fam = argc > 2 && argv[2][0] == '6' ? AF_INET6 : AF_INET;

	if (argc == 11 && !strcmp(argv[1], "partial"))
		return tool_partial(fam, argv[3], argv[4], atoi(argv[5]),
				    strtoull(argv[6], NULL, 0), strtoul(argv[7], NULL, 0),
				    atol(argv[8]), atoi(argv[9]), atoi(argv[10]));
	if (argc == 7 && !strcmp(argv[1], "peers"))
		return tool_peers(fam, argv[3], argv[4], atoi(argv[5]), atol(argv[6]));
	if (argc == 6 && !strcmp(argv[1], "peers-from"))
		return tool_peers_from(argv[2], atol(argv[3]), argv[4], atoi(argv[5]));
	if (argc == 6 && !strcmp(argv[1], "victim"))
		return tool_victim(fam, atoi(argv[3]), atoi(argv[4]), strtoul(argv[5], NULL, 0));
	if (argc == 7 && !strcmp(argv[1], "send"))
		return tool_send(fam, argv[3], atoi(argv[4]), strtoul(argv[5], NULL, 0),
				 atoi(argv[6]));
	fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
	return 2;
}
