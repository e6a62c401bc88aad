/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the C programs of the guest kselftests: message
 * payload pattern, addresses, transport sockets, sending with a completion
 * cookie, completions from the error queue, /proc/net/smartt_stats.
 * Include after the libc and <linux/smartt.h> headers.
 */
#ifndef SMARTT_TEST_UTIL_H
#define SMARTT_TEST_UTIL_H

#ifndef SOL_SMARTT
#define SOL_SMARTT IPPROTO_SMARTT
#endif

static inline unsigned char pattern(size_t n, size_t j)
{
	return (j * 131 + n * 7) & 0xff;
}

static inline void fill(unsigned char *b, size_t n)
{
	size_t j;

	for (j = 0; j < n; j++)
		b[j] = pattern(n, j);
}

static inline int check(const unsigned char *b, size_t n)
{
	size_t j;

	for (j = 0; j < n; j++)
		if (b[j] != pattern(n, j))
			return -1;
	return 0;
}

static inline socklen_t mkaddr(int fam, const char *ip, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (fam == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		if (ip && inet_pton(AF_INET, ip, &sin->sin_addr) != 1)
			return 0;
		return sizeof(*sin);
	}
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	if (ip && inet_pton(AF_INET6, ip, &sin6->sin6_addr) != 1)
		return 0;
	return sizeof(*sin6);
}

static inline int smartt_socket(int fam, int port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	fd = socket(fam, SOCK_DGRAM, IPPROTO_SMARTT);
	if (fd < 0 || port < 0)
		return fd;
	len = mkaddr(fam, NULL, port, &ss);
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static inline int send_cookie(int fd, const void *buf, size_t n, const struct sockaddr_storage *to,
		       socklen_t tolen, uint64_t cookie, int flags)
{
	char cbuf[CMSG_SPACE(sizeof(uint64_t))] = {};
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = n };
	struct msghdr msg = {
		.msg_name = (void *)to, .msg_namelen = tolen,
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SMARTT;
	c->cmsg_type = SMARTT_CMSG_COOKIE;
	c->cmsg_len = CMSG_LEN(sizeof(cookie));
	memcpy(CMSG_DATA(c), &cookie, sizeof(cookie));
	return sendmsg(fd, &msg, flags);
}

/*
 * $SMARTT_RELIABILITY and $SMARTT_ACK_BYTES: the options of the same name
 * (send and recv), after $SMARTT_CC (send).  0 or -1 (perror).
 */
static inline int env_opts(int fd)
{
	const char *rel = getenv("SMARTT_RELIABILITY"), *ab = getenv("SMARTT_ACK_BYTES");
	unsigned int v;

	if (rel && setsockopt(fd, SOL_SMARTT, SMARTT_RELIABILITY, rel, strlen(rel) + 1)) {
		perror("SMARTT_RELIABILITY");
		return -1;
	}
	if (ab) {
		v = strtoul(ab, NULL, 0);
		if (setsockopt(fd, SOL_SMARTT, SMARTT_ACK_BYTES, &v, sizeof(v))) {
			perror("SMARTT_ACK_BYTES");
			return -1;
		}
	}
	return 0;
}

/* Wait up to @ms for one completion; 0 and *out filled, or -1. */
static inline int get_completion(int fd, struct smartt_completion *out, int ms)
{
	char cbuf[CMSG_SPACE(sizeof(*out))];
	struct msghdr msg = { .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct pollfd p = { .fd = fd, .events = 0 };
	struct cmsghdr *c;

	if (poll(&p, 1, ms) != 1 || !(p.revents & POLLERR))
		return -1;
	if (recvmsg(fd, &msg, MSG_ERRQUEUE) < 0)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_level != SOL_SMARTT || c->cmsg_type != SMARTT_CMSG_COMPLETION)
		return -1;
	memcpy(out, CMSG_DATA(c), sizeof(*out));
	return 0;
}

static inline long long stat_of(const char *name)
{
	char line[256], n[64];
	long long v = -1, x;
	FILE *f = fopen("/proc/net/smartt_stats", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", n, &x) == 2 && !strcmp(n, name))
			v = x;
	fclose(f);
	return v;
}

#endif /* SMARTT_TEST_UTIL_H */
