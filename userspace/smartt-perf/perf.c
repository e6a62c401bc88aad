// SPDX-License-Identifier: GPL-2.0
/*
 * smartt-perf: message benchmark of the smartt transport and of TCP.
 *
 *   smartt-perf server [options]
 *   smartt-perf client [options] TARGET[,TARGET...]
 *
 * Options may come before or after the mode.  Exit status: 0 every message
 * completed, 1 a runtime error, 2 a usage error (one line naming the option
 * and what it accepts).
 *
 * Every message starts with a 32-byte &struct perf_hdr (so a message is at
 * least 32 bytes); over TCP the header's length field frames the message
 * in the byte stream.  Patterns:
 *
 *   pingpong  the server answers each request with a response of
 *	     --resp-size bytes; latency = sendmsg() to the response.
 *   stream    one-way; FCT = smartt: the kernel's completion (error queue,
 *	     cookie) fct_ns; TCP: issue to the server's 1-byte ack
 *	     of the whole message.
 *
 * N:1 incast is several clients with the same --start-at.  smartt-perf(1).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/smartt.h>

#ifndef SOL_SMARTT
#define SOL_SMARTT IPPROTO_SMARTT
#endif

#define PERF_MAGIC	0x50657266u	/* "Perf" */
#define PERF_REQ	1		/* pingpong request */
#define PERF_RESP	2		/* pingpong response */
#define PERF_STREAM	3		/* one-way message */
#define HDR_LEN		32u
#define MAX_TARGETS	64
#define MAX_OUTSTANDING	4096
#define MAX_CONNS	1024
#define SCRATCH		(256u << 10)

/* On the wire in network byte order. */
struct perf_hdr {
	uint32_t magic;
	uint32_t type;
	uint64_t len;		/* whole message, this header included */
	uint64_t seq;
	uint32_t slot;		/* the client's slot (echoed in responses) */
	uint32_t resp_len;	/* PERF_REQ: size of the response */
};

_Static_assert(sizeof(struct perf_hdr) == HDR_LEN, "perf_hdr");
_Static_assert(sizeof(struct smartt_completion) == SMARTT_COMPLETION_LEN, "completion");

enum proto { P_SMARTT, P_TCP };
enum pattern { PAT_PINGPONG, PAT_STREAM };

static struct {
	enum proto proto;
	enum pattern pattern;
	int family;		/* server: AF_INET/AF_INET6 */
	const char *bind_addr;
	int port;
	const char *cc;
	const char *lb;		/* smartt: SMARTT_LB, NULL = the netns's default */
	uint64_t size;
	uint64_t resp_size;	/* 0: same as size */
	long count;		/* 0: until --duration */
	double duration;
	int outstanding;
	double timeout;
	double start_at;
	double idle;		/* server: exit after this long without a message */
	long sndbuf, rcvbuf;
	long window;
	double interval;	/* client: a progress line every this many s; 0: none */
	const char *raw;	/* client: per-message times into this file */
	bool json;
	bool verbose;
} opt = {
	.proto = P_SMARTT, .pattern = PAT_PINGPONG, .family = AF_INET,
	.port = 1201, .size = 64, .outstanding = 1, .timeout = 10, .interval = 1,
};

static const char *prog = "smartt-perf";
static volatile sig_atomic_t stop;

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A usage error: one line naming the option and what it accepts, exit 2. */
static void usage_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void usage_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see smartt-perf --help)\n", stderr);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t htonll(uint64_t v)
{
	return ((uint64_t)htonl(v & 0xffffffff) << 32) | htonl(v >> 32);
}

#define ntohll htonll

static void hdr_put(void *buf, uint32_t type, uint64_t len, uint64_t seq, uint32_t slot,
		    uint32_t resp_len)
{
	struct perf_hdr h = {
		.magic = htonl(PERF_MAGIC), .type = htonl(type), .len = htonll(len),
		.seq = htonll(seq), .slot = htonl(slot), .resp_len = htonl(resp_len),
	};

	memcpy(buf, &h, sizeof(h));
}

/* 0 and *h in host order, or -1 if the bytes are not a header. */
static int hdr_get(const void *buf, struct perf_hdr *h)
{
	memcpy(h, buf, sizeof(*h));
	h->magic = ntohl(h->magic);
	h->type = ntohl(h->type);
	h->len = ntohll(h->len);
	h->seq = ntohll(h->seq);
	h->slot = ntohl(h->slot);
	h->resp_len = ntohl(h->resp_len);
	if (h->magic != PERF_MAGIC || h->len < HDR_LEN ||
	    h->type < PERF_REQ || h->type > PERF_STREAM ||
	    (h->type == PERF_REQ && h->resp_len < HDR_LEN))
		return -1;
	return 0;
}

/* ---- option parsing ---- */

static uint64_t parse_size(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		usage_die("%s %s: not a size: want bytes, or with a K, M or G suffix (e.g. 64K, 1M)",
			  what, s);
	if (*end && strchr("kKmMgG", *end)) {
		int shift = strchr("kK", *end) ? 10 : strchr("mM", *end) ? 20 : 30;

		if (v > (~0ull >> shift))
			usage_die("%s %s: too large", what, s);
		v <<= shift;
		end++;
		if (*end == 'i')
			end++;
	}
	if (*end == 'B')
		end++;
	if (*end)
		usage_die("%s %s: not a size: want bytes, or with a K, M or G suffix (e.g. 64K, 1M)",
			  what, s);
	return v;
}

static long parse_long(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		usage_die("%s %s: want an integer in %ld..%ld", what, s, lo, hi);
	return v;
}

static double parse_double(const char *s, const char *what, double lo)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo) || !(v < 1e12))
		usage_die("%s %s: want a number >= %g", what, s, lo);
	return v;
}

/* ADDR, V4:PORT or [V6]:PORT. */
static socklen_t parse_target(const char *s, int port, struct sockaddr_storage *ss)
{
	char buf[128], *host = buf, *p;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	if (strlen(s) >= sizeof(buf))
		usage_die("target %s: too long: want ADDR, V4:PORT or [V6]:PORT", s);
	strcpy(buf, s);
	if (buf[0] == '[') {
		host = buf + 1;
		p = strchr(host, ']');
		if (!p)
			usage_die("target %s: missing ']': want [V6]:PORT", s);
		*p++ = 0;
		if (*p == ':')
			port = parse_long(p + 1, "target port", 1, 65535);
		else if (*p)
			usage_die("target %s: want [V6]:PORT", s);
	} else if ((p = strchr(buf, ':')) && !strchr(p + 1, ':')) {
		*p = 0;
		port = parse_long(p + 1, "target port", 1, 65535);
	}
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return sizeof(*sin6);
	}
	usage_die("target %s: not an IPv4 or IPv6 address: want ADDR, V4:PORT or [V6]:PORT", s);
}

static const char *addr_str(const struct sockaddr_storage *ss)
{
	static char buf[INET6_ADDRSTRLEN + 8];
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)ss;

		inet_ntop(AF_INET, &sin->sin_addr, a, sizeof(a));
		snprintf(buf, sizeof(buf), "%s:%u", a, ntohs(sin->sin_port));
	} else {
		const struct sockaddr_in6 *sin6 = (const void *)ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, a, sizeof(a));
		snprintf(buf, sizeof(buf), "[%s]:%u", a, ntohs(sin6->sin6_port));
	}
	return buf;
}

/* ---- sockets ---- */

static void set_int(int fd, int level, int name, int v, const char *what)
{
	if (setsockopt(fd, level, name, &v, sizeof(v)))
		die("%s %d: %s", what, v, strerror(errno));
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		die("fcntl O_NONBLOCK: %s", strerror(errno));
}

static void set_timeo(int fd, int name, double secs)
{
	struct timeval tv = { .tv_sec = (time_t)secs,
			      .tv_usec = (suseconds_t)((secs - (time_t)secs) * 1e6) };

	if (setsockopt(fd, SOL_SOCKET, name, &tv, sizeof(tv)))
		die("SO_%sTIMEO: %s", name == SO_RCVTIMEO ? "RCV" : "SND", strerror(errno));
}

/* Options common to both transports and both ends. */
static void common_opts(int fd)
{
	if (opt.sndbuf)
		set_int(fd, SOL_SOCKET, geteuid() ? SO_SNDBUF : SO_SNDBUFFORCE,
			opt.sndbuf, "--sndbuf");
	if (opt.rcvbuf)
		set_int(fd, SOL_SOCKET, geteuid() ? SO_RCVBUF : SO_RCVBUFFORCE,
			opt.rcvbuf, "--rcvbuf");
	if (opt.proto == P_TCP) {
		if (opt.cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, opt.cc, strlen(opt.cc)))
			die("--cc %s: TCP_CONGESTION: %s", opt.cc, strerror(errno));
		set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
		return;
	}
	if (opt.cc && setsockopt(fd, SOL_SMARTT, SMARTT_CC, opt.cc, strlen(opt.cc)))
		die("--cc %s: SMARTT_CC: %s", opt.cc, strerror(errno));
	if (opt.lb && setsockopt(fd, SOL_SMARTT, SMARTT_LB, opt.lb, strlen(opt.lb)))
		die("--lb %s: SMARTT_LB: %s%s", opt.lb, strerror(errno), errno == EINVAL ?
		    " (want reps, reps-single, strack-bitmap, oblivious or ecmp)" : "");
	if (opt.window)
		set_int(fd, SOL_SMARTT, SMARTT_WINDOW, opt.window, "--window: SMARTT_WINDOW");
	set_int(fd, SOL_SMARTT, SMARTT_TIMEOUT_MS, (int)(opt.timeout * 1000),
		"--timeout: SMARTT_TIMEOUT_MS");
}

static int smartt_open(int family)
{
	int fd = socket(family, SOCK_DGRAM, IPPROTO_SMARTT);

	if (fd < 0)
		die("socket(%s, SOCK_DGRAM, IPPROTO_SMARTT): %s%s",
		    family == AF_INET ? "AF_INET" : "AF_INET6", strerror(errno),
		    errno == EPROTONOSUPPORT || errno == ESOCKTNOSUPPORT ?
		    " (is smartt.ko loaded?)" : "");
	return fd;
}

static socklen_t bind_addr(int family, struct sockaddr_storage *ss)
{
	if (opt.bind_addr) {
		socklen_t len = parse_target(opt.bind_addr, opt.port, ss);

		if (ss->ss_family != family)
			usage_die("--bind %s: want an %s address (the server's family: -4, -6)",
				  opt.bind_addr, family == AF_INET ? "IPv4" : "IPv6");
		return len;
	}
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = family;
	if (family == AF_INET) {
		((struct sockaddr_in *)ss)->sin_port = htons(opt.port);
		return sizeof(struct sockaddr_in);
	}
	((struct sockaddr_in6 *)ss)->sin6_port = htons(opt.port);
	return sizeof(struct sockaddr_in6);
}

/* ---- statistics ---- */

struct samples {
	uint64_t *v;
	size_t n, cap;
};

static void sample_add(struct samples *s, uint64_t x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			die("out of memory");
	}
	s->v[s->n++] = x;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile, in microseconds. */
static double pct_us(const struct samples *s, double p)
{
	size_t k;

	if (!s->n)
		return 0;
	k = (size_t)(p / 100.0 * s->n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > s->n)
		k = s->n;
	return s->v[k - 1] / 1000.0;
}

/* ---- message bytes ---- */

/* SCRATCH zero bytes; a chunk that covers part of a header gets it copied in. */
static unsigned char *txbuf;

/*
 * The bytes [off, off + *chunk) of a message of @len bytes whose header is
 * (type, seq, slot, resp_len); *chunk is cut to what txbuf holds.
 */
static const unsigned char *tx_chunk(uint32_t type, uint64_t len, uint64_t seq, uint32_t slot,
				     uint32_t resp_len, uint64_t off, size_t *chunk)
{
	unsigned char h[HDR_LEN];

	*chunk = len - off < SCRATCH ? len - off : SCRATCH;
	memset(txbuf, 0, HDR_LEN);
	if (off < HDR_LEN) {
		hdr_put(h, type, len, seq, slot, resp_len);
		memcpy(txbuf, h + off, HDR_LEN - off);
	}
	return txbuf;
}

/* ---- server ---- */

struct srv_stats {
	uint64_t msgs, bytes, requests, responses, resp_bytes, bad;
};

static struct srv_stats sst;

static void srv_report(void)
{
	if (opt.json) {
		printf("{\"role\":\"server\",\"proto\":\"%s\",\"messages\":%llu,\"bytes\":%llu,"
		       "\"requests\":%llu,\"responses\":%llu,\"response_bytes\":%llu,"
		       "\"malformed\":%llu}\n",
		       opt.proto == P_TCP ? "tcp" : "smartt",
		       (unsigned long long)sst.msgs, (unsigned long long)sst.bytes,
		       (unsigned long long)sst.requests, (unsigned long long)sst.responses,
		       (unsigned long long)sst.resp_bytes, (unsigned long long)sst.bad);
	} else {
		printf("server: messages %llu bytes %llu requests %llu responses %llu "
		       "response_bytes %llu malformed %llu\n",
		       (unsigned long long)sst.msgs, (unsigned long long)sst.bytes,
		       (unsigned long long)sst.requests, (unsigned long long)sst.responses,
		       (unsigned long long)sst.resp_bytes, (unsigned long long)sst.bad);
	}
	fflush(stdout);
}

static bool srv_done(uint64_t last_ns)
{
	if (stop)
		return true;
	if (opt.count && sst.msgs >= (uint64_t)opt.count)
		return true;
	return opt.idle > 0 && now_ns() - last_ns > opt.idle * 1e9;
}

static int smartt_server(void)
{
	struct sockaddr_storage ss, from;
	socklen_t len = bind_addr(opt.family, &ss);
	uint64_t last = now_ns(), msg_max = opt.size > SMARTT_MSG_MAX_DEFAULT ?
		opt.size : SMARTT_MSG_MAX_DEFAULT;
	size_t bufsz = msg_max;
	unsigned char *buf;
	int fd = smartt_open(opt.family);

	common_opts(fd);
	if (msg_max > SMARTT_MSG_MAX_LIMIT)
		usage_die("--size %llu: want at most %u bytes over smartt", (unsigned long long)msg_max,
			  SMARTT_MSG_MAX_LIMIT);
	set_int(fd, SOL_SMARTT, SMARTT_MSG_MAX, (int)msg_max, "SMARTT_MSG_MAX");
	if (bind(fd, (struct sockaddr *)&ss, len))
		die("bind %s: %s", addr_str(&ss), strerror(errno));
	set_timeo(fd, SO_RCVTIMEO, 0.2);
	set_timeo(fd, SO_SNDTIMEO, opt.timeout);
	buf = malloc(bufsz);
	if (!buf)
		die("out of memory for a %zu-byte buffer", bufsz);
	/* With --json, stdout holds the JSON document only. */
	fprintf(opt.json ? stderr : stdout, "listening smartt %s\n", addr_str(&ss));
	fflush(NULL);
	while (!srv_done(last)) {
		struct iovec iov = { .iov_base = buf, .iov_len = bufsz };
		struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from),
				    .msg_iov = &iov, .msg_iovlen = 1 };
		struct perf_hdr h;
		ssize_t n = recvmsg(fd, &m, 0);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			/* A failed response (peer gone) sets the socket error. */
			fprintf(stderr, "%s: recvmsg: %s\n", prog, strerror(errno));
			continue;
		}
		last = now_ns();
		sst.msgs++;
		sst.bytes += n;
		if (n < (ssize_t)HDR_LEN || hdr_get(buf, &h) || h.len != (uint64_t)n ||
		    h.type == PERF_RESP) {
			sst.bad++;
			continue;
		}
		if (h.type != PERF_REQ)
			continue;
		sst.requests++;
		if (h.resp_len > bufsz) {
			sst.bad++;
			continue;
		}
		hdr_put(buf, PERF_RESP, h.resp_len, h.seq, h.slot, 0);
		iov.iov_len = h.resp_len;
		m.msg_controllen = 0;
		m.msg_flags = 0;
		if (sendmsg(fd, &m, 0) < 0) {
			fprintf(stderr, "%s: sendmsg response to %s: %s\n", prog,
				addr_str(&from), strerror(errno));
			continue;
		}
		sst.responses++;
		sst.resp_bytes += h.resp_len;
	}
	close(fd);
	free(buf);
	srv_report();
	return 0;
}

/* A queued output of a TCP connection: a response or a 1-byte ack. */
struct outq {
	uint64_t len, off, seq;
	uint32_t slot;
	bool ack;
};

struct tconn {
	int fd;
	unsigned char hdr[HDR_LEN];
	uint32_t hdr_got;
	struct perf_hdr h;
	uint64_t body_left;
	struct outq *q;		/* ring */
	uint32_t qcap, qhead, qn;
};

static void tconn_push(struct tconn *c, struct outq o)
{
	if (c->qn == c->qcap) {
		uint32_t i, ncap = c->qcap ? 2 * c->qcap : 16;
		struct outq *nq = calloc(ncap, sizeof(*nq));

		if (!nq)
			die("out of memory");
		for (i = 0; i < c->qn; i++)
			nq[i] = c->q[(c->qhead + i) % c->qcap];
		free(c->q);
		c->q = nq;
		c->qcap = ncap;
		c->qhead = 0;
	}
	c->q[(c->qhead + c->qn) % c->qcap] = o;
	c->qn++;
}

/* Write what the socket takes; -1 on error. */
static int tconn_flush(struct tconn *c)
{
	while (c->qn) {
		struct outq *o = &c->q[c->qhead];
		const unsigned char *p;
		size_t chunk;
		ssize_t w;

		if (o->ack) {
			p = (const unsigned char *)"A";
			chunk = 1;
		} else {
			p = tx_chunk(PERF_RESP, o->len, o->seq, o->slot, 0, o->off, &chunk);
		}
		w = send(c->fd, p, chunk, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0)
			return errno == EAGAIN ? 0 : -1;
		o->off += w;
		if (o->off == o->len) {
			if (!o->ack) {
				sst.responses++;
				sst.resp_bytes += o->len;
			}
			c->qhead = (c->qhead + 1) % c->qcap;
			c->qn--;
		}
	}
	return 0;
}

/* Read what is there; -1 on EOF or error. */
static int tconn_read(struct tconn *c, unsigned char *scratch)
{
	for (;;) {
		ssize_t n;

		if (c->hdr_got < HDR_LEN) {
			n = recv(c->fd, c->hdr + c->hdr_got, HDR_LEN - c->hdr_got, 0);
			if (n == 0)
				return -1;
			if (n < 0)
				return errno == EAGAIN ? 0 : -1;
			c->hdr_got += n;
			if (c->hdr_got < HDR_LEN)
				continue;
			if (hdr_get(c->hdr, &c->h) || c->h.type == PERF_RESP) {
				sst.bad++;
				return -1;	/* framing lost: drop the connection */
			}
			c->body_left = c->h.len - HDR_LEN;
		} else {
			size_t want = c->body_left < SCRATCH ? c->body_left : SCRATCH;

			n = want ? recv(c->fd, scratch, want, 0) : 0;
			if (want && n == 0)
				return -1;
			if (n < 0)
				return errno == EAGAIN ? 0 : -1;
			c->body_left -= n;
		}
		if (c->hdr_got == HDR_LEN && !c->body_left) {
			sst.msgs++;
			sst.bytes += c->h.len;
			if (c->h.type == PERF_REQ) {
				sst.requests++;
				tconn_push(c, (struct outq){ .len = c->h.resp_len,
					   .seq = c->h.seq, .slot = c->h.slot });
			} else {
				tconn_push(c, (struct outq){ .ack = true, .len = 1 });
			}
			c->hdr_got = 0;
		}
	}
}

static int tcp_server(void)
{
	struct sockaddr_storage ss;
	socklen_t len = bind_addr(opt.family, &ss);
	static struct tconn conns[MAX_CONNS];
	struct pollfd pfd[MAX_CONNS + 1];
	unsigned char *scratch = malloc(SCRATCH);
	int lfd = socket(opt.family, SOCK_STREAM, 0), nconn = 0, i;
	uint64_t last = now_ns();

	if (lfd < 0 || !scratch)
		die("socket: %s", strerror(errno));
	set_int(lfd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
	common_opts(lfd);
	if (bind(lfd, (struct sockaddr *)&ss, len))
		die("bind %s: %s", addr_str(&ss), strerror(errno));
	if (listen(lfd, 128))
		die("listen: %s", strerror(errno));
	set_nonblock(lfd);
	fprintf(opt.json ? stderr : stdout, "listening tcp %s\n", addr_str(&ss));
	fflush(NULL);
	while (!srv_done(last)) {
		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (i = 0; i < nconn; i++)
			pfd[i + 1] = (struct pollfd){ .fd = conns[i].fd,
				.events = POLLIN | (conns[i].qn ? POLLOUT : 0) };
		if (poll(pfd, nconn + 1, 200) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		for (i = nconn - 1; i >= 0; i--) {
			struct tconn *c = &conns[i];
			short re = pfd[i + 1].revents;
			bool dead = false;

			if (!re)
				continue;
			if (re & (POLLIN | POLLHUP | POLLERR)) {
				uint64_t before = sst.msgs;

				dead = tconn_read(c, scratch) < 0;
				if (sst.msgs != before)
					last = now_ns();
			}
			if (!dead && c->qn)
				dead = tconn_flush(c) < 0;
			if (dead) {
				close(c->fd);
				free(c->q);
				conns[i] = conns[--nconn];
			}
		}
		if (pfd[0].revents & POLLIN) {
			int fd = accept(lfd, NULL, NULL);

			if (fd >= 0 && nconn == MAX_CONNS) {
				fprintf(stderr, "%s: more than %d connections\n", prog, MAX_CONNS);
				close(fd);
			} else if (fd >= 0) {
				set_nonblock(fd);
				set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
				memset(&conns[nconn], 0, sizeof(conns[nconn]));
				conns[nconn++].fd = fd;
			}
		}
	}
	for (i = 0; i < nconn; i++)
		close(conns[i].fd);
	close(lfd);
	free(scratch);
	srv_report();
	return 0;
}

/* ---- client ---- */

struct slot {
	bool busy;
	uint64_t seq, start_ns, len;
	int target;
};

struct target {
	struct sockaddr_storage addr;
	socklen_t len;
	/* TCP */
	int fd;
	uint32_t *fifo;		/* slots in send order (ring of MAX_OUTSTANDING) */
	uint32_t fhead, fn;	/* oldest unanswered, entries */
	uint32_t wr;		/* entries of fifo fully written */
	uint64_t wr_off;	/* bytes of fifo[fhead + wr] written */
	unsigned char rhdr[HDR_LEN];
	uint32_t rhdr_got;
	uint64_t rbody_left;
	struct perf_hdr rh;
};

static struct target targets[MAX_TARGETS];
static int ntargets;
static struct slot slots[MAX_OUTSTANDING];
static struct samples fct;
static uint64_t c_issued, c_done, c_failed, c_bytes, c_unexpected;
static uint64_t t_first, t_last, t_progress;
static double t_first_real;	/* CLOCK_REALTIME of t_first, s */
static char *peers_doc;		/* the JSON document's "peers" entries */
static size_t peers_len;
static int first_err;
static FILE *raw_out;

/* Per-interval progress: a line like iperf3's, or an entry of "intervals". */
static struct {
	uint64_t start_ns, next_ns;
	uint64_t done, failed, bytes;	/* totals at the interval's start */
	size_t nsamples;		/* fct.n at the interval's start */
	char *json;			/* the intervals of the JSON document */
	size_t json_len;
	FILE *jf;
} iv;

static void interval_line(uint64_t t)
{
	double a = (iv.start_ns - t_first) / 1e9, b = (t - t_first) / 1e9;
	size_t n = fct.n - iv.nsamples, i;
	uint64_t *v = n ? malloc(n * sizeof(*v)) : NULL;
	struct samples w = { .v = v, .n = n, .cap = n };
	double gput = b > a ? (c_bytes - iv.bytes) * 8 / (b - a) / 1e6 : 0;
	const char *what = opt.pattern == PAT_STREAM ? "fct" : "latency";

	if (n && !v)
		die("out of memory");
	for (i = 0; i < n; i++)
		v[i] = fct.v[iv.nsamples + i];
	qsort(v, n, sizeof(*v), cmp_u64);
	if (opt.json) {
		if (!iv.jf) {
			iv.jf = open_memstream(&iv.json, &iv.json_len);
			if (!iv.jf)
				die("out of memory");
		} else {
			fputc(',', iv.jf);
		}
		fprintf(iv.jf, "{\"start\":%.3f,\"end\":%.3f,\"messages\":%llu,\"failed\":%llu,"
			"\"bytes\":%llu,\"goodput_mbps\":%.3f,\"%s_us\":{\"p50\":%.1f,"
			"\"p99\":%.1f}}", a, b, (unsigned long long)(c_done - iv.done),
			(unsigned long long)(c_failed - iv.failed),
			(unsigned long long)(c_bytes - iv.bytes), gput, what, pct_us(&w, 50),
			pct_us(&w, 99));
	} else {
		printf("[%6.2f-%6.2f s] messages %7llu  failed %llu  goodput %9.3f Mbit/s  "
		       "%s_us p50 %.1f p99 %.1f\n", a, b, (unsigned long long)(c_done - iv.done),
		       (unsigned long long)(c_failed - iv.failed), gput, what, pct_us(&w, 50),
		       pct_us(&w, 99));
		fflush(stdout);
	}
	free(v);
	iv.start_ns = t;
	iv.done = c_done;
	iv.failed = c_failed;
	iv.bytes = c_bytes;
	iv.nsamples = fct.n;
}

/* Called from the client loops: a progress line when an interval is over. */
static void interval_tick(void)
{
	uint64_t t;

	if (opt.interval <= 0)
		return;
	t = now_ns();
	if (!iv.next_ns) {
		iv.start_ns = t_first;
		iv.next_ns = t_first + (uint64_t)(opt.interval * 1e9);
	}
	if (t < iv.next_ns)
		return;
	interval_line(t);
	while (iv.next_ns <= t)
		iv.next_ns += (uint64_t)(opt.interval * 1e9);
}

static int free_slot(void)
{
	int i;

	for (i = 0; i < opt.outstanding; i++)
		if (!slots[i].busy)
			return i;
	return -1;
}

static bool may_issue(void)
{
	if (stop)
		return false;
	if (opt.count)
		return c_issued < (uint64_t)opt.count;
	return now_ns() - t_first < opt.duration * 1e9;
}

static void complete(int s, uint64_t fct_ns, int status)
{
	uint64_t t = now_ns();

	slots[s].busy = false;
	t_progress = t;
	if (raw_out)
		fprintf(raw_out, "%llu,%d,%llu,%llu,%s\n", (unsigned long long)slots[s].seq,
			slots[s].target, (unsigned long long)(slots[s].start_ns - t_first),
			(unsigned long long)(status ? t - slots[s].start_ns : fct_ns),
			status ? strerror(status) : "");
	if (status) {
		c_failed++;
		if (!first_err) {
			first_err = status;
			fprintf(stderr, "%s: message %llu to %s failed: %s\n", prog,
				(unsigned long long)slots[s].seq,
				addr_str(&targets[slots[s].target].addr), strerror(status));
		}
		return;
	}
	c_done++;
	c_bytes += slots[s].len;
	t_last = t;
	sample_add(&fct, fct_ns);
}

static void smartt_client_send(int fd, unsigned char *buf, int s, int ti)
{
	struct target *tg = &targets[ti];
	uint64_t cookie = s, len = opt.size;
	char cbuf[CMSG_SPACE(sizeof(cookie))] = {0};
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_name = &tg->addr, .msg_namelen = tg->len,
			    .msg_iov = &iov, .msg_iovlen = 1 };

	hdr_put(buf, opt.pattern == PAT_STREAM ? PERF_STREAM : PERF_REQ, len, c_issued, s,
		opt.resp_size);
	if (opt.pattern == PAT_STREAM) {
		struct cmsghdr *c;

		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SMARTT;
		c->cmsg_type = SMARTT_CMSG_COOKIE;
		c->cmsg_len = CMSG_LEN(sizeof(cookie));
		memcpy(CMSG_DATA(c), &cookie, sizeof(cookie));
	}
	slots[s] = (struct slot){ .busy = true, .seq = c_issued, .start_ns = now_ns(),
				  .len = len, .target = ti };
	if (sendmsg(fd, &m, MSG_DONTWAIT) < 0) {
		slots[s].busy = false;
		if (errno == EAGAIN || errno == ENOBUFS)
			return;		/* retried on POLLOUT */
		die("sendmsg to %s: %s", addr_str(&tg->addr), strerror(errno));
	}
	c_issued++;
}

/* The pending socket error of a smartt socket (a message without cookie failed). */
static void smartt_sock_error(int fd)
{
	int err = 0;
	socklen_t l = sizeof(err);

	if (!getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) && err)
		die("smartt socket error: %s", strerror(err));
}

static void smartt_client_loop(int fd)
{
	size_t rbufsz = (opt.resp_size > HDR_LEN ? opt.resp_size : HDR_LEN);
	unsigned char *buf = calloc(1, opt.size), *rbuf = malloc(rbufsz);
	int next_target = 0;

	if (!buf || !rbuf)
		die("out of memory for %llu-byte messages", (unsigned long long)opt.size);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int s;
		bool blocked = false;

		while (may_issue() && (s = free_slot()) >= 0) {
			uint64_t before = c_issued;

			smartt_client_send(fd, buf, s, next_target);
			if (c_issued == before) {
				blocked = true;
				break;
			}
			next_target = (next_target + 1) % ntargets;
		}
		if (!may_issue() && c_done + c_failed == c_issued)
			break;
		if (blocked)
			p.events |= POLLOUT;
		if (poll(&p, 1, 100) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		if (now_ns() - t_progress > opt.timeout * 1e9)
			die("timed out: nothing completed for %g s (%llu of %llu messages done)",
			    opt.timeout, (unsigned long long)(c_done + c_failed),
			    (unsigned long long)c_issued);
		if (stop && c_done + c_failed < c_issued && now_ns() - t_progress > 1e9)
			break;
		/* Completions. */
		for (;;) {
			struct smartt_completion cp;
			char cbuf[CMSG_SPACE(sizeof(cp))];
			struct msghdr m = { .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
			struct cmsghdr *c;

			if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
				break;
			c = CMSG_FIRSTHDR(&m);
			if (!c || c->cmsg_level != SOL_SMARTT || c->cmsg_type != SMARTT_CMSG_COMPLETION)
				continue;
			memcpy(&cp, CMSG_DATA(c), sizeof(cp));
			if (cp.cookie >= (uint64_t)opt.outstanding || !slots[cp.cookie].busy) {
				c_unexpected++;
				continue;
			}
			complete(cp.cookie, cp.fct_ns, -cp.status);
		}
		/* Responses. */
		for (;;) {
			struct perf_hdr h;
			ssize_t n = recv(fd, rbuf, rbufsz, MSG_DONTWAIT);

			if (n < 0) {
				if (errno == EAGAIN || errno == EINTR)
					break;
				die("recvmsg: %s", strerror(errno));
			}
			if (n < (ssize_t)HDR_LEN || hdr_get(rbuf, &h) || h.type != PERF_RESP ||
			    h.slot >= (uint32_t)opt.outstanding || !slots[h.slot].busy ||
			    slots[h.slot].seq != h.seq || h.len != (uint64_t)n) {
				c_unexpected++;
				continue;
			}
			complete(h.slot, now_ns() - slots[h.slot].start_ns, 0);
		}
		smartt_sock_error(fd);
		interval_tick();
	}
	free(buf);
	free(rbuf);
}

static int tcp_connect(struct target *tg)
{
	int fd = socket(tg->addr.ss_family, SOCK_STREAM, 0);
	struct pollfd p;
	int err = 0;
	socklen_t l = sizeof(err);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	common_opts(fd);
	set_nonblock(fd);
	if (connect(fd, (struct sockaddr *)&tg->addr, tg->len) && errno != EINPROGRESS)
		die("connect %s: %s", addr_str(&tg->addr), strerror(errno));
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	if (poll(&p, 1, (int)(opt.timeout * 1000)) != 1)
		die("connect %s: timed out after %g s", addr_str(&tg->addr), opt.timeout);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) || err)
		die("connect %s: %s", addr_str(&tg->addr), strerror(err));
	tg->fifo = calloc(MAX_OUTSTANDING, sizeof(*tg->fifo));
	if (!tg->fifo)
		die("out of memory");
	return fd;
}

/* Write queued messages; dies on error. */
static void tcp_write(struct target *tg)
{
	while (tg->wr < tg->fn) {
		uint32_t s = tg->fifo[(tg->fhead + tg->wr) % MAX_OUTSTANDING];
		struct slot *sl = &slots[s];
		const unsigned char *p;
		size_t chunk;
		ssize_t w;

		p = tx_chunk(opt.pattern == PAT_STREAM ? PERF_STREAM : PERF_REQ, sl->len,
			     sl->seq, s, opt.resp_size, tg->wr_off, &chunk);
		w = send(tg->fd, p, chunk, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EAGAIN)
				return;
			die("send to %s: %s", addr_str(&tg->addr), strerror(errno));
		}
		tg->wr_off += w;
		if (tg->wr_off == sl->len) {
			tg->wr++;
			tg->wr_off = 0;
		}
	}
}

static void tcp_done_one(struct target *tg)
{
	uint32_t s;

	if (!tg->fn || !tg->wr) {
		c_unexpected++;
		return;
	}
	s = tg->fifo[tg->fhead];
	tg->fhead = (tg->fhead + 1) % MAX_OUTSTANDING;
	tg->fn--;
	tg->wr--;
	complete(s, now_ns() - slots[s].start_ns, 0);
}

static void tcp_read(struct target *tg, unsigned char *scratch)
{
	for (;;) {
		ssize_t n;

		if (opt.pattern == PAT_STREAM) {
			n = recv(tg->fd, scratch, SCRATCH, MSG_DONTWAIT);
			if (n > 0) {
				ssize_t i;

				for (i = 0; i < n; i++)
					tcp_done_one(tg);
				continue;
			}
		} else if (tg->rhdr_got < HDR_LEN) {
			n = recv(tg->fd, tg->rhdr + tg->rhdr_got, HDR_LEN - tg->rhdr_got,
				 MSG_DONTWAIT);
			if (n > 0) {
				tg->rhdr_got += n;
				if (tg->rhdr_got == HDR_LEN) {
					if (hdr_get(tg->rhdr, &tg->rh) || tg->rh.type != PERF_RESP)
						die("%s: malformed response", addr_str(&tg->addr));
					tg->rbody_left = tg->rh.len - HDR_LEN;
				}
			}
		} else {
			size_t want = tg->rbody_left < SCRATCH ? tg->rbody_left : SCRATCH;

			n = want ? recv(tg->fd, scratch, want, MSG_DONTWAIT) : 1;
			if (want && n > 0)
				tg->rbody_left -= n;
		}
		if (opt.pattern == PAT_PINGPONG && tg->rhdr_got == HDR_LEN && !tg->rbody_left) {
			tg->rhdr_got = 0;
			tcp_done_one(tg);
			continue;
		}
		if (n == 0)
			die("%s closed the connection", addr_str(&tg->addr));
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			die("recv from %s: %s", addr_str(&tg->addr), strerror(errno));
		}
	}
}

static void tcp_client_loop(void)
{
	unsigned char *scratch = calloc(1, SCRATCH);
	struct pollfd pfd[MAX_TARGETS];
	int next_target = 0, i, s;

	if (!scratch)
		die("out of memory");
	for (;;) {
		while (may_issue() && (s = free_slot()) >= 0) {
			struct target *tg = &targets[next_target];

			slots[s] = (struct slot){ .busy = true, .seq = c_issued,
				.start_ns = now_ns(), .len = opt.size, .target = next_target };
			tg->fifo[(tg->fhead + tg->fn) % MAX_OUTSTANDING] = s;
			tg->fn++;
			c_issued++;
			next_target = (next_target + 1) % ntargets;
		}
		for (i = 0; i < ntargets; i++)
			tcp_write(&targets[i]);
		if (!may_issue() && c_done + c_failed == c_issued)
			break;
		for (i = 0; i < ntargets; i++)
			pfd[i] = (struct pollfd){ .fd = targets[i].fd, .events = POLLIN |
				(targets[i].wr < targets[i].fn ? POLLOUT : 0) };
		if (poll(pfd, ntargets, 100) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		if (now_ns() - t_progress > opt.timeout * 1e9)
			die("timed out: nothing completed for %g s (%llu of %llu messages done)",
			    opt.timeout, (unsigned long long)c_done, (unsigned long long)c_issued);
		for (i = 0; i < ntargets; i++)
			if (pfd[i].revents & (POLLIN | POLLERR | POLLHUP))
				tcp_read(&targets[i], scratch);
		interval_tick();
	}
	free(scratch);
}

static void client_report(void)
{
	double secs = t_last > t_first ? (t_last - t_first) / 1e9 : 0;
	double gput = secs > 0 ? c_bytes * 8 / secs / 1e6 : 0;

	/* The last, partial interval (if it holds anything). */
	if (opt.interval > 0 && c_done + c_failed > iv.done + iv.failed)
		interval_line(now_ns());
	if (iv.jf)
		fclose(iv.jf);
	qsort(fct.v, fct.n, sizeof(*fct.v), cmp_u64);
	if (opt.json) {
		printf("{\"role\":\"client\",\"proto\":\"%s\",\"cc\":\"%s\",\"lb\":%s%s%s,"
		       "\"pattern\":\"%s\",\"start_realtime\":%.6f,"
		       "\"size\":%llu,\"resp_size\":%llu,\"outstanding\":%d,\"targets\":%d,"
		       "\"messages\":%llu,\"failed\":%llu,\"unexpected\":%llu,\"bytes\":%llu,"
		       "\"seconds\":%.6f,\"goodput_mbps\":%.3f,\"%s_us\":{\"p50\":%.1f,"
		       "\"p90\":%.1f,\"p99\":%.1f,\"max\":%.1f},\"intervals\":[%s],"
		       "\"peers\":[%s]}\n",
		       opt.proto == P_TCP ? "tcp" : "smartt", opt.cc ? opt.cc : "default",
		       opt.proto == P_TCP ? "" : "\"",
		       opt.proto == P_TCP ? "null" : opt.lb ? opt.lb : "default",
		       opt.proto == P_TCP ? "" : "\"",
		       opt.pattern == PAT_STREAM ? "stream" : "pingpong", t_first_real,
		       (unsigned long long)opt.size, (unsigned long long)opt.resp_size,
		       opt.outstanding, ntargets, (unsigned long long)c_done,
		       (unsigned long long)c_failed, (unsigned long long)c_unexpected,
		       (unsigned long long)c_bytes, secs, gput,
		       opt.pattern == PAT_STREAM ? "fct" : "latency",
		       pct_us(&fct, 50), pct_us(&fct, 90), pct_us(&fct, 99), pct_us(&fct, 100),
		       iv.json ? iv.json : "", peers_doc ? peers_doc : "");
	} else {
		printf("%s %s %s size %llu outstanding %d targets %d\n",
		       opt.proto == P_TCP ? "tcp" : "smartt", opt.cc ? opt.cc : "default",
		       opt.pattern == PAT_STREAM ? "stream" : "pingpong",
		       (unsigned long long)opt.size, opt.outstanding, ntargets);
		printf("messages %llu failed %llu unexpected %llu bytes %llu time %.3f s "
		       "goodput %.3f Mbit/s\n",
		       (unsigned long long)c_done, (unsigned long long)c_failed,
		       (unsigned long long)c_unexpected, (unsigned long long)c_bytes, secs, gput);
		printf("%s_us p50 %.1f p90 %.1f p99 %.1f max %.1f\n",
		       opt.pattern == PAT_STREAM ? "fct" : "latency",
		       pct_us(&fct, 50), pct_us(&fct, 90), pct_us(&fct, 99), pct_us(&fct, 100));
	}
	fflush(stdout);
}

static double real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The JSON document's "peers": per target the transport's state at the end
 * (SMARTT_PEER_INFO: retransmissions, timeouts, RTT, window) and what its
 * path selector did (SMARTT_PATH_INFO: packets sent, the entropy buckets
 * they used, feedback per kind summed over the buckets, REPS freezes).
 * A target the socket has no state for gets null.
 */
static void peers_json(int fd)
{
	FILE *f = open_memstream(&peers_doc, &peers_len);
	int i, b;

	if (!f)
		die("out of memory");
	for (i = 0; i < ntargets; i++) {
		struct smartt_peer_info pe = {0};
		static struct smartt_path_info pa;
		socklen_t len = sizeof(pe), plen = sizeof(pa);
		uint64_t ecn = 0, nack = 0, tmo = 0, lost = 0;
		unsigned int used = 0;
		bool have_path;

		fprintf(f, "%s{\"target\":\"%s\",", i ? "," : "", addr_str(&targets[i].addr));
		memcpy(pe.addr, &targets[i].addr, targets[i].len);
		if (getsockopt(fd, SOL_SMARTT, SMARTT_PEER_INFO, &pe, &len))
			fprintf(f, "\"peer\":null,");
		else
			fprintf(f, "\"peer\":{\"srtt_us\":%u,\"cwnd\":%llu,\"mss\":%u,"
				"\"retransmits\":%llu,\"rtos\":%llu},", pe.srtt_us,
				(unsigned long long)pe.cwnd, pe.mss,
				(unsigned long long)pe.retransmits, (unsigned long long)pe.rtos);
		memset(&pa, 0, sizeof(pa));
		memcpy(pa.addr, &targets[i].addr, targets[i].len);
		have_path = !getsockopt(fd, SOL_SMARTT, SMARTT_PATH_INFO, &pa, &plen);
		if (!have_path) {
			fprintf(f, "\"path\":null}");
			continue;
		}
		for (b = 0; b < SMARTT_PATH_BUCKETS; b++) {
			used += pa.tx[b] != 0;
			ecn += pa.ecn[b];
			nack += pa.nack[b];
			tmo += pa.timeout[b];
			/* a kernel of the first version leaves lost[] zero */
			lost += plen >= SMARTT_PATH_INFO_LEN ? pa.lost[b] : 0;
		}
		pa.lb[SMARTT_LB_NAME_MAX - 1] = 0;
		fprintf(f, "\"path\":{\"lb\":\"%s\",\"paths\":%u,\"buckets_used\":%u,"
			"\"tx_pkts\":%llu,\"ecn\":%llu,\"nack\":%llu,\"timeout\":%llu,"
			"\"lost\":%llu,\"freezes\":%llu,\"unfreezes\":%llu,\"ecn_noop\":%llu}}",
			pa.lb, pa.paths, used, (unsigned long long)pa.tx_pkts,
			(unsigned long long)ecn, (unsigned long long)nack, (unsigned long long)tmo,
			(unsigned long long)lost, (unsigned long long)pa.freezes,
			(unsigned long long)pa.unfreezes, (unsigned long long)pa.ecn_noop);
	}
	if (fclose(f))
		die("out of memory");
}

static void wait_start(void)
{
	struct timespec ts;
	double now;

	if (!opt.start_at)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec + ts.tv_nsec / 1e9;
	if (opt.start_at < now - 1)
		fprintf(stderr, "%s: --start-at is %.3f s in the past\n", prog, now - opt.start_at);
	if (opt.start_at > now + 3600)
		usage_die("--start-at %.3f: want a CLOCK_REALTIME time at most an hour ahead",
			  opt.start_at);
	while (opt.start_at > now && !stop) {
		double d = opt.start_at - now;

		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_REALTIME, &ts);
		now = ts.tv_sec + ts.tv_nsec / 1e9;
	}
}

static int client(char *list)
{
	char *tok, *save = NULL;
	int i, fd = -1, fam = 0;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (ntargets == MAX_TARGETS)
			usage_die("TARGET: want at most %d targets", MAX_TARGETS);
		targets[ntargets].len = parse_target(tok, opt.port, &targets[ntargets].addr);
		if (fam && targets[ntargets].addr.ss_family != fam)
			usage_die("TARGET %s: want targets of one family (all IPv4 or all IPv6)", tok);
		fam = targets[ntargets].addr.ss_family;
		ntargets++;
	}
	if (!ntargets)
		usage_die("client: want a TARGET[,TARGET...] (ADDR, V4:PORT or [V6]:PORT)");
	if (opt.proto == P_SMARTT) {
		if (opt.size > SMARTT_MSG_MAX_LIMIT || opt.resp_size > SMARTT_MSG_MAX_LIMIT)
			usage_die("--size %llu: want at most %u bytes over smartt (or --proto tcp)",
				  (unsigned long long)(opt.size > opt.resp_size ? opt.size :
						       opt.resp_size), SMARTT_MSG_MAX_LIMIT);
		fd = smartt_open(fam);
		common_opts(fd);
		if (opt.size > SMARTT_MSG_MAX_DEFAULT || opt.resp_size > SMARTT_MSG_MAX_DEFAULT)
			set_int(fd, SOL_SMARTT, SMARTT_MSG_MAX, (int)(opt.size > opt.resp_size ?
				opt.size : opt.resp_size), "SMARTT_MSG_MAX");
		if (opt.bind_addr) {
			struct sockaddr_storage ss;
			socklen_t len = bind_addr(fam, &ss);

			if (bind(fd, (struct sockaddr *)&ss, len))
				die("bind %s: %s", addr_str(&ss), strerror(errno));
		}
	} else {
		for (i = 0; i < ntargets; i++)
			targets[i].fd = tcp_connect(&targets[i]);
	}
	if (opt.raw) {
		raw_out = fopen(opt.raw, "w");
		if (!raw_out)
			die("--raw %s: %s", opt.raw, strerror(errno));
		fprintf(raw_out, "seq,target,start_ns,%s,error\n",
			opt.pattern == PAT_STREAM ? "fct_ns" : "latency_ns");
	}
	wait_start();
	t_first = t_progress = now_ns();
	t_first_real = real_s();
	if (opt.proto == P_SMARTT)
		smartt_client_loop(fd);
	else
		tcp_client_loop();
	if (opt.json && opt.proto == P_SMARTT)
		peers_json(fd);
	client_report();
	if (raw_out && fclose(raw_out))
		die("--raw %s: %s", opt.raw, strerror(errno));
	if (fd >= 0)
		close(fd);
	for (i = 0; i < ntargets; i++)
		if (opt.proto == P_TCP)
			close(targets[i].fd);
	if (c_failed)
		return 1;
	if (opt.count && c_done < (uint64_t)opt.count) {
		fprintf(stderr, "%s: interrupted after %llu of %ld messages\n", prog,
			(unsigned long long)c_done, opt.count);
		return 1;
	}
	return 0;
}

#ifndef SMARTT_VERSION
#define SMARTT_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
"usage: smartt-perf server [options]\n"
"       smartt-perf client [options] TARGET[,TARGET...]   (ADDR, V4:PORT, [V6]:PORT)\n"
"options (before or after the mode):\n"
"      --proto smartt|tcp     transport (default smartt)\n"
"  -C, --cc NAME              congestion control: SMARTT_CC (none, smartt, smartt-2024,\n"
"                             nscc, strack, dctcp, crp) or TCP_CONGESTION (default: the system's)\n"
"  -L, --lb NAME              smartt: path selector, SMARTT_LB (reps, reps-single,\n"
"                             strack-bitmap, oblivious, ecmp; default: the netns's)\n"
"  -p, --port PORT            server port, default port of targets (default 1201)\n"
"  -4, -6                     server: address family (default IPv4)\n"
"  -B, --bind ADDR            bind to this local address\n"
"  -P, --pattern pingpong|stream   client (default pingpong)\n"
"  -s, --size BYTES           message size, 32 B .. 1 GiB, K/M/G suffixes (default 64)\n"
"  -r, --resp-size BYTES      pingpong response size (default: --size)\n"
"  -n, --count N              client: messages to send; server: exit after N messages\n"
"  -d, --duration SECS        client: send for this long (when no --count; default 5)\n"
"  -o, --outstanding N        messages in flight, 1..%d (default 1)\n"
"  -t, --timeout SECS         fail when nothing completes for this long (default 10)\n"
"  -S, --start-at T           client: start sending at CLOCK_REALTIME T (seconds)\n"
"  -I, --idle SECS            server: exit after SECS without a message (default: never)\n"
"  -i, --interval SECS        client: a progress line every SECS, 0 for none (default 1;\n"
"                             with --json the intervals are in the document)\n"
"      --raw FILE             client: one CSV line per message (seq, target, start and\n"
"                             latency or FCT in ns, error) into FILE, for CDFs\n"
"      --window BYTES         smartt cc \"none\": SMARTT_WINDOW\n"
"      --sndbuf BYTES, --rcvbuf BYTES   socket buffers, K/M/G suffixes (default: system)\n"
"  -j, --json                 one JSON document on stdout (diagnostics on stderr)\n"
"  -V, --version              print the version\n"
"  -h, --help\n"
"exit status: 0 every message completed, 1 runtime error, 2 usage error\n", MAX_OUTSTANDING);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "proto", required_argument, NULL, 'X' },
		{ "cc", required_argument, NULL, 'C' },
		{ "lb", required_argument, NULL, 'L' },
		{ "port", required_argument, NULL, 'p' },
		{ "bind", required_argument, NULL, 'B' },
		{ "pattern", required_argument, NULL, 'P' },
		{ "size", required_argument, NULL, 's' },
		{ "resp-size", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "outstanding", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 't' },
		{ "start-at", required_argument, NULL, 'S' },
		{ "idle", required_argument, NULL, 'I' },
		{ "interval", required_argument, NULL, 'i' },
		{ "raw", required_argument, NULL, 'R' },
		{ "window", required_argument, NULL, 'W' },
		{ "sndbuf", required_argument, NULL, 'x' },
		{ "rcvbuf", required_argument, NULL, 'y' },
		{ "json", no_argument, NULL, 'j' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	bool server;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":46C:L:p:B:P:s:r:n:d:o:t:S:I:i:jVh", lo, NULL)) != -1) {
		switch (c) {
		case '4': opt.family = AF_INET; break;
		case '6': opt.family = AF_INET6; break;
		case 'X':
			if (!strcmp(optarg, "smartt"))
				opt.proto = P_SMARTT;
			else if (!strcmp(optarg, "tcp"))
				opt.proto = P_TCP;
			else
				usage_die("--proto %s: want smartt or tcp", optarg);
			break;
		case 'C':
			if (!*optarg || strlen(optarg) >= SMARTT_CC_NAME_MAX)
				usage_die("--cc '%s': want a congestion control name of 1..%d characters",
					  optarg, SMARTT_CC_NAME_MAX - 1);
			opt.cc = optarg;
			break;
		case 'L':
			if (!*optarg || strlen(optarg) >= SMARTT_LB_NAME_MAX)
				usage_die("--lb '%s': want a path selector name of 1..%d characters",
					  optarg, SMARTT_LB_NAME_MAX - 1);
			opt.lb = optarg;
			break;
		case 'p': opt.port = parse_long(optarg, "--port", 1, 65535); break;
		case 'B': opt.bind_addr = optarg; break;
		case 'P':
			if (!strcmp(optarg, "pingpong"))
				opt.pattern = PAT_PINGPONG;
			else if (!strcmp(optarg, "stream"))
				opt.pattern = PAT_STREAM;
			else
				usage_die("--pattern %s: want pingpong or stream", optarg);
			break;
		case 's': opt.size = parse_size(optarg, "--size"); break;
		case 'r': opt.resp_size = parse_size(optarg, "--resp-size"); break;
		case 'n': opt.count = parse_long(optarg, "--count", 1, LONG_MAX); break;
		case 'd': opt.duration = parse_double(optarg, "--duration", 0.001); break;
		case 'o':
			opt.outstanding = parse_long(optarg, "--outstanding", 1, MAX_OUTSTANDING);
			break;
		case 't': opt.timeout = parse_double(optarg, "--timeout", 0.01); break;
		case 'S': opt.start_at = parse_double(optarg, "--start-at", 0); break;
		case 'I': opt.idle = parse_double(optarg, "--idle", 0.01); break;
		case 'i': opt.interval = parse_double(optarg, "--interval", 0); break;
		case 'R':
			if (!*optarg)
				usage_die("--raw: want a file name");
			opt.raw = optarg;
			break;
		case 'W': opt.window = parse_size(optarg, "--window"); break;
		case 'x': opt.sndbuf = parse_size(optarg, "--sndbuf"); break;
		case 'y': opt.rcvbuf = parse_size(optarg, "--rcvbuf"); break;
		case 'j': opt.json = true; break;
		case 'V': printf("smartt-perf %s\n", SMARTT_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		case ':':
			usage_die("%s: want a value", argv[optind - 1]);
		default:
			if (optopt)
				usage_die("-%c: unknown option", optopt);
			usage_die("%s: unknown option", argv[optind - 1]);
		}
	}
	if (optind == argc)
		usage_die("want a mode: server or client");
	if (!strcmp(argv[optind], "server"))
		server = true;
	else if (!strcmp(argv[optind], "client"))
		server = false;
	else
		usage_die("%s: unknown mode: want server or client", argv[optind]);
	optind++;
	if (opt.window > INT_MAX || opt.sndbuf > INT_MAX || opt.rcvbuf > INT_MAX)
		usage_die("--window, --sndbuf, --rcvbuf: want at most %d bytes", INT_MAX);
	if ((opt.interval > 0 && opt.interval < 0.1) || opt.interval > 3600)
		usage_die("--interval %g: want 0 (none) or 0.1..3600 seconds", opt.interval);
	if (opt.size < HDR_LEN || opt.size > (1ull << 30))
		usage_die("--size %llu: want %u B .. 1 GiB", (unsigned long long)opt.size, HDR_LEN);
	if (!opt.resp_size)
		opt.resp_size = opt.size;
	if (opt.resp_size < HDR_LEN || opt.resp_size > (1ull << 30))
		usage_die("--resp-size %llu: want %u B .. 1 GiB", (unsigned long long)opt.resp_size,
			  HDR_LEN);
	if (opt.timeout > SMARTT_TIMEOUT_MS_MAX / 1000)
		usage_die("--timeout %g: want at most %u s", opt.timeout,
			  SMARTT_TIMEOUT_MS_MAX / 1000);
	if (!opt.count && !opt.duration)
		opt.duration = 5;
	if (opt.lb && opt.proto == P_TCP)
		usage_die("--lb %s: only with --proto smartt (TCP is routed per flow)", opt.lb);
	if (server && optind != argc)
		usage_die("server: takes no TARGET ('%s')", argv[optind]);
	if (!server && optind + 1 != argc)
		usage_die("client: want exactly one TARGET[,TARGET...] argument (ADDR, V4:PORT or "
			  "[V6]:PORT)");
	txbuf = calloc(1, SCRATCH);
	if (!txbuf)
		die("out of memory");
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (server)
		return opt.proto == P_TCP ? tcp_server() : smartt_server();
	return client(argv[optind]);
}
