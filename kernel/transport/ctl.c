// SPDX-License-Identifier: GPL-2.0
/*
 * smartt transport: the knobs users set and read.  The per-netns
 * net.smartt.transport_* sysctls (the default path selector and its knobs,
 * the UDP source port range, the error packets' rate limit, the default
 * congestion control, the CRP knobs) and the
 * SMARTT_LB and SMARTT_PATH_INFO socket options: parsing, validation and
 * copying here, their effect in path.c and output.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "smartt.h"
#include "transport/transport.h"

/**
 * smartt_ctl_set_lb() - setsockopt(SMARTT_LB)
 * @sk: socket
 * @optval: the selector's name
 * @optlen: its length (a NUL is optional)
 *
 * Every peer's selector restarts, with its counters.
 *
 * Return: 0, -EINVAL for an unknown name, -EFAULT.
 */
int smartt_ctl_set_lb(struct sock *sk, sockptr_t optval, unsigned int optlen)
{
	char name[SMARTT_LB_NAME_MAX] = {};
	int kind;

	if (!optlen || optlen > sizeof(name))
		return -EINVAL;
	if (copy_from_sockptr(name, optval, optlen))
		return -EFAULT;
	name[sizeof(name) - 1] = 0;
	kind = smartt_lb_by_name(name);
	if (kind < 0)
		return -EINVAL;
	lock_sock(sk);
	smartt_path_set_kind(sk, kind);
	release_sock(sk);
	return 0;
}

/**
 * smartt_ctl_get_lb() - getsockopt(SMARTT_LB)
 * @sk: socket
 * @optval: user buffer
 * @optlen: in: its size; out: bytes written
 *
 * Return: 0, -EINVAL, -EFAULT.
 */
int smartt_ctl_get_lb(struct sock *sk, char __user *optval, int __user *optlen)
{
	u32 kind = READ_ONCE(smartt_sk(sk)->lb.kind);
	const char *name = smartt_lb_names[kind < SMARTT_LB_COUNT ? kind : 0];
	int len;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	len = min_t(int, len, strlen(name) + 1);
	if (put_user(len, optlen) || copy_to_user(optval, name, len))
		return -EFAULT;
	return 0;
}

/*
 * The peer a struct smartt_path_info names (a sockaddr of the socket's
 * family), by smartt_peer_lookup(): -EINVAL for an address of another
 * family, NULL for no such peer.
 */
static struct smartt_peer *smartt_ctl_peer(struct sock *sk, const u8 *addr)
{
	const struct sockaddr_in6 *sin6 = (const void *)addr;
	const struct sockaddr_in *sin = (const void *)addr;
	union smartt_addr a = {};

	if (sin->sin_family != sk->sk_family)
		return ERR_PTR(-EINVAL);
	if (sk->sk_family == AF_INET) {
		a.v4 = sin->sin_addr.s_addr;
		return smartt_peer_lookup(sk, AF_INET, &a, ntohs(sin->sin_port));
	}
	a.v6 = sin6->sin6_addr;
	return smartt_peer_lookup(sk, AF_INET6, &a, ntohs(sin6->sin6_port));
}

/**
 * smartt_ctl_get_info() - getsockopt(SMARTT_PATH_INFO)
 * @sk: socket
 * @optval: in: &struct smartt_path_info.addr names the peer; out: the info
 * @optlen: in: at least %SMARTT_PATH_INFO_LEN_MIN; out: bytes written
 *	(the smaller of it and %SMARTT_PATH_INFO_LEN, as TCP_INFO)
 *
 * Return: 0, -EINVAL (short buffer, an address not of the socket's
 * family), -ENOENT (no such peer, or one never sent to: it has no path
 * state),
 * -ENOMEM, -EFAULT.
 */
int smartt_ctl_get_info(struct sock *sk, char __user *optval, int __user *optlen)
{
	struct smartt_path_info *pi;
	struct smartt_peer *p;
	int len, err = 0;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < SMARTT_PATH_INFO_LEN_MIN)
		return -EINVAL;
	pi = kzalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi)
		return -ENOMEM;
	if (copy_from_user(pi->addr, optval, sizeof(pi->addr))) {
		err = -EFAULT;
		goto out;
	}
	lock_sock(sk);
	p = smartt_ctl_peer(sk, pi->addr);
	if (IS_ERR(p))
		err = PTR_ERR(p);
	else if (!p)
		err = -ENOENT;
	else
		err = smartt_path_fill_info(p, pi);
	release_sock(sk);
	if (err)
		goto out;
	len = min_t(int, len, sizeof(*pi));
	if (put_user(len, optlen) || copy_to_user(optval, pi, len))
		err = -EFAULT;
out:
	kfree(pi);
	return err;
}

/* ---- net.smartt.transport_* sysctls ---- */

/* Defaults of net.smartt.transport_sport_base and _range: 49152-65535. */
#define SMARTT_SPORT_BASE_DEF	49152U
#define SMARTT_SPORT_RANGE_DEF	16384U

enum smartt_ctl_id {
	SMARTT_CTL_LB,
	SMARTT_CTL_LB_KNOBS,
	SMARTT_CTL_SPORT_BASE,
	SMARTT_CTL_SPORT_RANGE,
	SMARTT_CTL_ERR_RATELIMIT,
	SMARTT_CTL_CC,
	SMARTT_CTL_CRP_KNOBS,
	SMARTT_CTL_JOB_ID,
	/* net.smartt.transport_dscp_*: SMARTT_CTL_DSCP + &enum smartt_dscp_class */
	SMARTT_CTL_DSCP,
};

/* Defaults of net.smartt.transport_dscp_*, by &enum smartt_dscp_class. */
static const u8 smartt_dscp_defaults[SMARTT_DSCP_NCLASS] = {
	[SMARTT_DSCP_C_TRIMMABLE] = SMARTT_DSCP_TRIMMABLE,
	[SMARTT_DSCP_C_TRIMMED] = SMARTT_DSCP_TRIMMED,
	[SMARTT_DSCP_C_TRIMMED_LASTHOP] = SMARTT_DSCP_TRIMMED_LASTHOP,
	[SMARTT_DSCP_C_CONTROL] = SMARTT_DSCP_CONTROL,
	[SMARTT_DSCP_C_CRP_SPEC] = SMARTT_DSCP_CRP_SPEC,
	[SMARTT_DSCP_C_CRP_GRANTED] = SMARTT_DSCP_CRP_GRANTED,
	[SMARTT_DSCP_C_CRP_SPEC_DROPPED] = SMARTT_DSCP_CRP_SPEC_DROPPED,
};

/*
 * The receiver learns from the DSCP alone that a switch trimmed a DATA
 * packet (and where, and why): the three marks a switch writes must differ
 * from each other and from the three a sender writes on DATA.
 */
static bool smartt_dscp_valid(const u8 *d)
{
	static const u8 marks[] = { SMARTT_DSCP_C_TRIMMED, SMARTT_DSCP_C_TRIMMED_LASTHOP,
				    SMARTT_DSCP_C_CRP_SPEC_DROPPED };
	static const u8 data[] = { SMARTT_DSCP_C_TRIMMABLE, SMARTT_DSCP_C_CRP_SPEC,
				   SMARTT_DSCP_C_CRP_GRANTED };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(marks); i++) {
		for (j = i + 1; j < ARRAY_SIZE(marks); j++)
			if (d[marks[i]] == d[marks[j]])
				return false;
		for (j = 0; j < ARRAY_SIZE(data); j++)
			if (d[marks[i]] == d[data[j]])
				return false;
	}
	return true;
}

static bool smartt_ctl_is_text(enum smartt_ctl_id id)
{
	return id == SMARTT_CTL_LB || id == SMARTT_CTL_LB_KNOBS || id == SMARTT_CTL_CC ||
	       id == SMARTT_CTL_CRP_KNOBS;
}

/*
 * New CRP knobs for the netns: sockets that select cc "crp" from now on
 * take them; the host's destination table starts afresh with them.
 */
static void smartt_ctl_crp_set(struct smartt_net *sn, const struct smartt_crp_cfg *c)
{
	sn->crp = *c;
	spin_lock_bh(&sn->crp_lock);
	sn->crp_host_k = c->k;
	sn->crp_host.cells = 0;
	spin_unlock_bh(&sn->crp_lock);
}

/**
 * smartt_knob_next() - the next "name=value" of a knob override text
 * @p: the text, NUL-terminated and writable; advanced past the entry
 * @name: set to the entry's name
 * @val: set to its value
 *
 * Entries are separated by spaces, tabs, newlines or commas; empty ones
 * are skipped.  The text is cut in place.
 *
 * Return: 1 for an entry, 0 at the end, -EINVAL for an entry without '='.
 */
int smartt_knob_next(char **p, char **name, char **val)
{
	char *tok;

	while ((tok = strsep(p, " \t\n,")) != NULL) {
		if (!*tok)
			continue;
		*val = strchr(tok, '=');
		if (!*val)
			return -EINVAL;
		*(*val)++ = '\0';
		*name = tok;
		return 1;
	}
	return 0;
}

/* Apply "name=value ..." (lb.c's knob names, decimal) to @k. */
static int smartt_ctl_parse_knobs(const char *text, struct smartt_lb_knobs *k)
{
	char buf[sizeof_field(struct smartt_net, lb_text)];
	char *p = buf, *name, *val;
	int i, rc;
	u32 v;

	strscpy(buf, text, sizeof(buf));
	while ((rc = smartt_knob_next(&p, &name, &val)) > 0) {
		i = smartt_lb_knob_find(name);
		if (i < 0 || kstrtou32(val, 0, &v))
			return -EINVAL;
		smartt_lb_knob_set(k, i, v);
	}
	return rc;
}

/* The knobs of a selector @kind with the overrides @text; -EINVAL if bad. */
static int smartt_ctl_build(u32 kind, const char *text, struct smartt_lb_knobs *k)
{
	*k = smartt_lb_defaults;
	/* Transport default: a random seed per peer (see smartt_path_start()). */
	k->seed = 0;
	if (smartt_ctl_parse_knobs(text, k))
		return -EINVAL;
	k->kind = kind;
	return smartt_lb_validate(k) ? -EINVAL : 0;
}

static int smartt_ctl_sysctl(SMARTT_CTL_TABLE_CONST struct ctl_table *table,
			     int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	struct smartt_net *sn = table->extra1;
	enum smartt_ctl_id id = (uintptr_t)table->extra2;
	char text[sizeof_field(struct smartt_net, lb_text)];
	struct ctl_table t = *table;
	struct smartt_crp_cfg crp;
	struct smartt_lb_knobs k;
	u32 base, range, val;
	int err, kind;

	BUILD_BUG_ON(sizeof(text) < sizeof_field(struct smartt_net, crp_text));

	mutex_lock(&sn->cfg_lock);
	kind = sn->lb.kind;
	base = sn->sport >> 16;
	range = (sn->sport & 0xffff) + 1;
	switch (id) {
	case SMARTT_CTL_LB:
		strscpy(text, smartt_lb_names[kind], sizeof(text));
		break;
	case SMARTT_CTL_LB_KNOBS:
		strscpy(text, sn->lb_text, sizeof(text));
		break;
	case SMARTT_CTL_SPORT_BASE:
		val = base;
		break;
	case SMARTT_CTL_ERR_RATELIMIT:
		val = READ_ONCE(sn->err_ratelimit);
		break;
	case SMARTT_CTL_CC:
		strscpy(text, sn->cc_default, sizeof(text));
		break;
	case SMARTT_CTL_CRP_KNOBS:
		strscpy(text, sn->crp_text, sizeof(text));
		break;
	case SMARTT_CTL_JOB_ID:
		val = sn->job_id;
		break;
	case SMARTT_CTL_SPORT_RANGE:
		val = range;
		break;
	default:
		val = sn->dscp[id - SMARTT_CTL_DSCP];
		break;
	}
	if (smartt_ctl_is_text(id)) {
		t.data = text;
		t.maxlen = sizeof(text);
		err = proc_dostring(&t, write, buffer, lenp, ppos);
	} else {
		t.data = &val;
		t.maxlen = sizeof(val);
		err = proc_douintvec(&t, write, buffer, lenp, ppos);
	}
	if (err || !write)
		goto out;
	err = -EINVAL;
	switch (id) {
	case SMARTT_CTL_LB:
		kind = smartt_lb_by_name(strim(text));
		if (kind < 0 || smartt_ctl_build(kind, sn->lb_text, &k))
			goto out;
		sn->lb = k;
		break;
	case SMARTT_CTL_LB_KNOBS:
		if (smartt_ctl_build(kind, text, &k))
			goto out;
		sn->lb = k;
		strscpy(sn->lb_text, text, sizeof(sn->lb_text));
		break;
	case SMARTT_CTL_SPORT_BASE:
	case SMARTT_CTL_SPORT_RANGE:
		if (id == SMARTT_CTL_SPORT_BASE)
			base = val;
		else
			range = val;
		if (!base || !range || (u64)base + range - 1 > U16_MAX)
			goto out;
		WRITE_ONCE(sn->sport, base << 16 | (range - 1));
		break;
	case SMARTT_CTL_ERR_RATELIMIT:
		if (val > SMARTT_ERR_RATELIMIT_MAX)
			goto out;
		smartt_err_ratelimit_set(sn, val);
		break;
	case SMARTT_CTL_CC:
		strim(text);
		if (strlen(text) >= sizeof(sn->cc_default) || smartt_cc_valid_name(text))
			goto out;
		strscpy(sn->cc_default, text, sizeof(sn->cc_default));
		break;
	case SMARTT_CTL_CRP_KNOBS:
		if (strlen(text) >= sizeof(sn->crp_text) || smartt_crp_cfg_parse(text, &crp))
			goto out;
		smartt_ctl_crp_set(sn, &crp);
		strscpy(sn->crp_text, text, sizeof(sn->crp_text));
		break;
	case SMARTT_CTL_JOB_ID:
		if (val > SMARTT_SES_JOB_MASK)
			goto out;
		WRITE_ONCE(sn->job_id, val);
		break;
	default: {
		u8 d[SMARTT_DSCP_NCLASS];

		memcpy(d, sn->dscp, sizeof(d));
		if (val > SMARTT_DSCP_MAX)
			goto out;
		d[id - SMARTT_CTL_DSCP] = val;
		if (!smartt_dscp_valid(d))
			goto out;
		WRITE_ONCE(sn->dscp[id - SMARTT_CTL_DSCP], val);
		break;
	}
	}
	err = 0;
out:
	mutex_unlock(&sn->cfg_lock);
	return err;
}

#define SMARTT_CTL_ENTRY(name, id)					\
	{								\
		.procname = name,					\
		.maxlen = sizeof_field(struct smartt_net, lb_text),	\
		.mode = 0644,						\
		.proc_handler = smartt_ctl_sysctl,			\
		.extra2 = (void *)(id),					\
	}

static const struct ctl_table smartt_ctl_table_tmpl[] = {
	SMARTT_CTL_ENTRY("transport_lb", SMARTT_CTL_LB),
	SMARTT_CTL_ENTRY("transport_lb_knobs", SMARTT_CTL_LB_KNOBS),
	SMARTT_CTL_ENTRY("transport_sport_base", SMARTT_CTL_SPORT_BASE),
	SMARTT_CTL_ENTRY("transport_sport_range", SMARTT_CTL_SPORT_RANGE),
	SMARTT_CTL_ENTRY("transport_err_ratelimit", SMARTT_CTL_ERR_RATELIMIT),
	SMARTT_CTL_ENTRY("transport_cc", SMARTT_CTL_CC),
	SMARTT_CTL_ENTRY("transport_crp_knobs", SMARTT_CTL_CRP_KNOBS),
	SMARTT_CTL_ENTRY("transport_job_id", SMARTT_CTL_JOB_ID),
	SMARTT_CTL_ENTRY("transport_dscp_trimmable", SMARTT_CTL_DSCP + SMARTT_DSCP_C_TRIMMABLE),
	SMARTT_CTL_ENTRY("transport_dscp_trimmed", SMARTT_CTL_DSCP + SMARTT_DSCP_C_TRIMMED),
	SMARTT_CTL_ENTRY("transport_dscp_trimmed_lasthop",
			 SMARTT_CTL_DSCP + SMARTT_DSCP_C_TRIMMED_LASTHOP),
	SMARTT_CTL_ENTRY("transport_dscp_control", SMARTT_CTL_DSCP + SMARTT_DSCP_C_CONTROL),
	SMARTT_CTL_ENTRY("transport_dscp_crp_spec", SMARTT_CTL_DSCP + SMARTT_DSCP_C_CRP_SPEC),
	SMARTT_CTL_ENTRY("transport_dscp_crp_granted",
			 SMARTT_CTL_DSCP + SMARTT_DSCP_C_CRP_GRANTED),
	SMARTT_CTL_ENTRY("transport_dscp_crp_spec_dropped",
			 SMARTT_CTL_DSCP + SMARTT_DSCP_C_CRP_SPEC_DROPPED),
	{ }
};

/**
 * smartt_ctl_net_init() - a netns's transport defaults and sysctls
 * @net: the netns
 *
 * Return: 0 or -ENOMEM.
 */
int smartt_ctl_net_init(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);
	unsigned int i, n = ARRAY_SIZE(smartt_ctl_table_tmpl) - 1;

	mutex_init(&sn->cfg_lock);
	spin_lock_init(&sn->err_lock);
	smartt_err_ratelimit_set(sn, SMARTT_ERR_RATELIMIT_DEF);
	if (smartt_ctl_build(SMARTT_LB_REPS, "", &sn->lb))
		return -EINVAL;
	sn->lb_text[0] = 0;
	strscpy(sn->cc_default, "none", sizeof(sn->cc_default));
	spin_lock_init(&sn->crp_lock);
	smartt_ctl_crp_set(sn, &smartt_crp_defaults);
	sn->crp_text[0] = 0;
	sn->sport = SMARTT_SPORT_BASE_DEF << 16 | (SMARTT_SPORT_RANGE_DEF - 1);
	memcpy(sn->dscp, smartt_dscp_defaults, sizeof(sn->dscp));
	sn->job_id = 0;
	sn->table = kmemdup(smartt_ctl_table_tmpl, sizeof(smartt_ctl_table_tmpl),
			    GFP_KERNEL);
	if (!sn->table)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		sn->table[i].extra1 = sn;
	sn->sysctl = smartt_register_net_sysctl(net, "net/smartt", sn->table, n);
	if (!sn->sysctl) {
		kfree(sn->table);
		return -ENOMEM;
	}
	return 0;
}

/**
 * smartt_ctl_net_exit() - undo smartt_ctl_net_init()
 * @net: the netns
 */
void smartt_ctl_net_exit(struct net *net)
{
	struct smartt_net *sn = smartt_net(net);

	unregister_net_sysctl_table(sn->sysctl);
	kfree(sn->table);
}
