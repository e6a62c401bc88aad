// SPDX-License-Identifier: GPL-2.0
/*
 * The transport's socket calls from a 32-bit (i386) process: the compat
 * sendmsg() and recvmsg(), whose control messages the socket layer
 * converts (MSG_CMSG_COMPAT).  Over IPv4 loopback in the current netns: a
 * 100-byte message with a cookie, received and checked byte for byte, then
 * its completion read from the error queue.  Prints "ok", or the step that
 * failed and its return; exit status 0 or 1.
 *
 * Freestanding (no 32-bit libc is needed): i386 system calls through
 * int $0x80, built by selftests/Makefile with -m32 -nostdlib.
 */
#include <linux/smartt.h>

#define NR_EXIT		1
#define NR_WRITE	4
#define NR_CLOSE	6
#define NR_POLL		168
#define NR_SOCKET	359
#define NR_BIND		361
#define NR_SENDMSG	370
#define NR_RECVMSG	372

#define AF_INET		2
#define SOCK_DGRAM	2
#define MSG_ERRQUEUE	0x2000
#define POLLIN		1
#define PORT		1720
#define LEN		100

struct sin { unsigned short family, port; unsigned int addr; char zero[8]; };
struct iov { void *base; unsigned int len; };
struct msg {
	void *name; int namelen; struct iov *iov; unsigned int iovlen;
	void *control; unsigned int controllen; int flags;
};

struct cmsg { unsigned int len; int level, type; };
struct pfd { int fd; short events, revents; };

static long sys(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c) : "memory");
	return r;
}

static void out(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	sys(NR_WRITE, 1, (long)s, n);
}

static void num(long v)
{
	char b[24], *p = b + sizeof(b) - 1;
	int neg = v < 0;

	*p = 0;
	if (neg)
		v = -v;
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	out(p);
}

static void fail(const char *step, long ret)
{
	out(step);
	out(": ");
	num(ret);
	out("\n");
	sys(NR_EXIT, 1, 0, 0);
}

static unsigned char pattern(unsigned int j)
{
	return (j * 131 + LEN * 7) & 0xff;
}

void _start(void);
void _start(void)
{
	struct sin to = { AF_INET, (PORT >> 8) | ((PORT & 0xff) << 8), 0x0100007f, {0} };
	unsigned int ctl[16] __attribute__((aligned(8))) = { 0 };
	struct smartt_completion *c;
	unsigned char buf[LEN], in[2 * LEN];
	struct iov iov = { buf, LEN };
	struct msg m = { &to, sizeof(to), &iov, 1, ctl, 20, 0 };
	struct cmsg *h = (struct cmsg *)ctl;
	struct pfd p;
	long rx, tx, r;
	unsigned int j;

	for (j = 0; j < LEN; j++)
		buf[j] = pattern(j);
	rx = sys(NR_SOCKET, AF_INET, SOCK_DGRAM, IPPROTO_SMARTT);
	if (rx < 0)
		fail("socket", rx);
	r = sys(NR_BIND, rx, (long)&to, sizeof(to));
	if (r)
		fail("bind", r);
	tx = sys(NR_SOCKET, AF_INET, SOCK_DGRAM, IPPROTO_SMARTT);
	if (tx < 0)
		fail("socket", tx);
	/* A 32-bit cmsghdr is 12 bytes: the cookie's data starts at 12. */
	h->len = 12 + 8;
	h->level = SOL_SMARTT;
	h->type = SMARTT_CMSG_COOKIE;
	ctl[3] = 0x1234;
	ctl[4] = 0x5678;
	r = sys(NR_SENDMSG, tx, (long)&m, 0);
	if (r != LEN)
		fail("compat sendmsg with a cookie", r);

	p.fd = rx;
	p.events = POLLIN;
	r = sys(NR_POLL, (long)&p, 1, 5000);
	if (r != 1)
		fail("poll the receiver", r);
	iov.base = in;
	iov.len = sizeof(in);
	m.name = 0;
	m.namelen = 0;
	m.control = 0;
	m.controllen = 0;
	r = sys(NR_RECVMSG, rx, (long)&m, 0);
	if (r != LEN)
		fail("compat recvmsg", r);
	for (j = 0; j < LEN; j++)
		if (in[j] != pattern(j))
			fail("compat recvmsg: byte", j);

	p.fd = tx;
	p.events = 0;
	r = sys(NR_POLL, (long)&p, 1, 5000);
	if (r != 1)
		fail("poll the sender's error queue", r);
	m.control = ctl;
	m.controllen = sizeof(ctl);
	r = sys(NR_RECVMSG, tx, (long)&m, MSG_ERRQUEUE);
	if (r < 0)
		fail("compat recvmsg(MSG_ERRQUEUE)", r);
	c = (struct smartt_completion *)(ctl + 3);
	if (m.controllen < 12 + sizeof(*c) || h->level != SOL_SMARTT ||
	    h->type != SMARTT_CMSG_COMPLETION)
		fail("completion cmsg: controllen", m.controllen);
	if (c->cookie != 0x0000567800001234ULL || c->msg_len != LEN || c->status)
		fail("completion: status", c->status);
	sys(NR_CLOSE, tx, 0, 0);
	sys(NR_CLOSE, rx, 0, 0);
	out("ok\n");
	sys(NR_EXIT, 0, 0, 0);
}
