// SPDX-License-Identifier: GPL-2.0
/*
 * smartt-replay: drive an algorithm core of kernel/algo/ with an event trace
 * and print one CSV row per event.  See userspace/man/smartt-replay.1.
 *
 * The trace parser and the driver are in this file; main() is left out when
 * REPLAY_NO_MAIN is defined so that the fuzzer (selftests/unit) can link the
 * very same code.  The driver calls the cores through a struct replay_core:
 * the C build directly (replay_core_c, below), or with --bpf the cores
 * compiled into BPF and run in the kernel (replay_bpf.c).
 *
 * --algo crp drives the CRP reservation core (kernel/algo/crp.c) instead:
 * its own trace lines (table, request, advance) and rows, in C only.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algo/smartt.h"
#include "algo/strack.h"
#include "algo/lb.h"
#include "algo/units.h"
#include "algo/crp.h"
#include "algo/uet_ack.h"
#include "replay_core.h"

#define REPLAY_ALGO_STRACK	SMARTT_PROFILE_COUNT
#define REPLAY_ALGO_CRP		(SMARTT_PROFILE_COUNT + 1)
#define REPLAY_MAX_SETS		128
/* --algo crp: tables a trace may define, and the length of their ids */
#define REPLAY_CRP_TABLES	64
#define REPLAY_CRP_ID_MAX	31

/* A reservation table of --algo crp, by the id the trace gave it. */
struct replay_crp_table {
	char id[REPLAY_CRP_ID_MAX + 1];
	struct crp_table t;
};

struct replay {
	const struct replay_core *core;	/* replay_core_c unless --bpf */
	int algo;		/* smartt profile id, or REPLAY_ALGO_STRACK */
	struct smartt_knobs sk;
	struct smartt_params sp;
	struct smartt_state ss;
	struct strack_knobs tk;
	struct strack_params tp;
	struct strack_state ts;
	struct smartt_lb_knobs lk;
	struct smartt_lb lb;
	bool lb_bdp_set;
	u64 cwnd0;
	u64 in_flight;
	bool in_flight_set;
	u64 avg_delay_ns;
	u32 wtd;
	u64 i;
	u64 last_t;
	struct uet_ack_track uet;	/* ack_cc lines: the receiver's count */
	u32 service_unit_ns;	/* ack_cc lines: unit of service_time */
	struct crp_knobs ck;	/* --algo crp */
	u64 crp_slot;		/* absolute slot of every table's cell 0 */
	u32 ncrp;
	struct replay_crp_table crp[REPLAY_CRP_TABLES];
	FILE *out;
	char err[256];
};

/* The C build of the cores, called directly. */
const struct replay_core replay_core_c = {
	.smartt_params_init = smartt_params_init,
	.smartt_maxwnd = smartt_maxwnd,
	.smartt_init = smartt_init,
	.smartt_on_ack = smartt_on_ack,
	.smartt_on_nack = smartt_on_nack,
	.smartt_on_timeout = smartt_on_timeout,
	.strack_params_init = strack_params_init,
	.strack_maxwnd = strack_maxwnd,
	.strack_init = strack_init,
	.strack_on_ack = strack_on_ack,
	.smartt_bdp_bytes = smartt_bdp_bytes,
	.smartt_lb_init = smartt_lb_init,
	.smartt_lb_next = smartt_lb_next,
	.smartt_lb_feedback = smartt_lb_feedback,
};

static int replay_fail(struct replay *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Decimal unsigned integer, whole string, no sign, no overflow. */
static int parse_u64(const char *s, u64 *v)
{
	u64 x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (x > (U64_MAX - (u64)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (u64)(*s - '0');
	}
	*v = x;
	return 0;
}

/*
 * Decimal fraction to ppm: "0.0125" -> 12500; at most 6 decimals, exact.
 * Returns -1 if @s is not a decimal number, -2 if it has more decimals than
 * a millionth can hold.
 */
static int parse_ppm(const char *s, u64 *v)
{
	char ip[32];
	const char *dot = strchr(s, '.');
	u64 i, f = 0;
	size_t n;
	int d = 0;

	if (!dot) {
		if (parse_u64(s, &i) || i > U32_MAX)
			return -1;
		*v = i * SMARTT_PPM;
		return 0;
	}
	n = (size_t)(dot - s);
	if (n == 0 || n >= sizeof(ip))
		return -1;
	memcpy(ip, s, n);
	ip[n] = 0;
	if (parse_u64(ip, &i) || i > U32_MAX)
		return -1;
	for (dot++; *dot; dot++, d++) {
		if (*dot < '0' || *dot > '9')
			return -1;
		if (d < 6)
			f = f * 10 + (u64)(*dot - '0');
	}
	if (!d)
		return -1;
	if (d > 6)
		return -2;
	for (; d < 6; d++)
		f *= 10;
	*v = i * SMARTT_PPM + f;
	return 0;
}

static int replay_set_knob(struct replay *r, const char *key, const char *val)
{
	const struct smartt_knob_desc *d = NULL;
	u64 v;
	int idx;

	if (r->algo == REPLAY_ALGO_CRP) {
		idx = crp_knob_find(key);
		if (idx < 0 || (strcmp(key, "cmax") && strcmp(key, "cells") &&
				strcmp(key, "eager")))
			return replay_fail(r, "--set %s: not a knob of crp (cmax, cells, eager)",
					   key);
		d = &crp_knob_descs[idx];
		if (parse_u64(val, &v) || v < d->min || v > d->max)
			return replay_fail(r, "--set %s=%s: want %s in [%u, %u]",
					   key, val, d->unit, d->min, d->max);
		crp_knob_set(&r->ck, idx, (u32)v);
		return 0;
	}
	if (r->algo == REPLAY_ALGO_STRACK) {
		idx = strack_knob_find(key);
		if (idx >= 0) {
			const struct strack_knob_desc *t = &strack_knob_descs[idx];

			if (t->frac && parse_ppm(val, &v) == -2)
				return replay_fail(r, "--set %s=%s: at most 6 decimals (the knob counts millionths)",
						   key, val);
			if ((t->frac ? parse_ppm(val, &v) : parse_u64(val, &v)) ||
			    v < t->min || v > t->max)
				return replay_fail(r, "--set %s=%s: want %s in [%u, %u]%s",
						   key, val, t->unit, t->min, t->max,
						   t->frac ? " millionths" : "");
			strack_knob_set(&r->tk, idx, (u32)v);
			return 0;
		}
	} else {
		idx = smartt_knob_find(key);
		if (idx >= 0)
			d = &smartt_knob_descs[idx];
	}
	if (!d) {
		idx = smartt_lb_knob_find(key);
		if (idx >= 0) {
			d = &smartt_lb_knob_descs[idx];
			if (parse_u64(val, &v) || v < d->min || v > d->max)
				return replay_fail(r, "--set %s=%s: want %s in [%u, %u]",
						   key, val, d->unit, d->min, d->max);
			smartt_lb_knob_set(&r->lk, idx, (u32)v);
			if (!strcmp(key, "lb_bdp"))
				r->lb_bdp_set = true;
			/* "paths" is the number of entropies of any selector */
			if (!strcmp(key, "paths") && r->lk.kind == SMARTT_LB_BITMAP) {
				if (v > SMARTT_BITMAP_PATHS)
					return replay_fail(r,
							   "--set paths=%s: strack-bitmap tracks at most %u paths",
							   val, SMARTT_BITMAP_PATHS);
				r->lk.max_paths = (u32)v;
			}
			return 0;
		}
	}
	if (d) {
		if (d->frac && parse_ppm(val, &v) == -2)
			return replay_fail(r, "--set %s=%s: at most 6 decimals (the knob counts millionths)",
					   key, val);
		if ((d->frac ? parse_ppm(val, &v) : parse_u64(val, &v)) ||
		    v < d->min || v > d->max) {
			if (d->frac)
				return replay_fail(r,
						   "--set %s=%s: want a decimal fraction in [%u.%06u, %u.%06u]",
						   key, val, d->min / SMARTT_PPM,
						   d->min % SMARTT_PPM, d->max / SMARTT_PPM,
						   d->max % SMARTT_PPM);
			return replay_fail(r, "--set %s=%s: want %s in [%u, %u]",
					   key, val, d->unit, d->min, d->max);
		}
		smartt_knob_set(&r->sk, idx, (u32)v);
		return 0;
	}
	if (!strcmp(key, "cwnd") || !strcmp(key, "in_flight") ||
	    !strcmp(key, "avg_delay")) {
		if (parse_u64(val, &v) || (key[0] == 'a' && v > U32_MAX))
			return replay_fail(r, "--set %s=%s: want bytes/ns", key, val);
		if (key[0] == 'c') {
			r->cwnd0 = v;
		} else if (key[0] == 'i') {
			r->in_flight = v;
			r->in_flight_set = true;
		} else {
			r->avg_delay_ns = v;
		}
		return 0;
	}
	if (!strcmp(key, "service_unit_ns")) {
		if (parse_u64(val, &v) || v > UET_ACK_SERVICE_UNIT_MAX_NS)
			return replay_fail(r, "--set service_unit_ns=%s: want ns in [0, %u]",
					   val, UET_ACK_SERVICE_UNIT_MAX_NS);
		r->service_unit_ns = (u32)v;
		return 0;
	}
	if (!strcmp(key, "wtd") && r->algo != REPLAY_ALGO_STRACK) {
		if (parse_ppm(val, &v) == -2)
			return replay_fail(r, "--set wtd=%s: at most 6 decimals", val);
		if (parse_ppm(val, &v) || v > SMARTT_PPM)
			return replay_fail(r, "--set wtd=%s: want a fraction in [0, 1]", val);
		r->wtd = (u32)v;
		return 0;
	}
	return replay_fail(r, "--set %s: not a knob of %s", key,
			   r->algo == REPLAY_ALGO_STRACK ? "strack" :
			   smartt_profile_names[r->algo]);
}

/**
 * replay_init() - defaults of an algorithm and a selector
 * @r: replayer
 * @algo: "smartt-2024", "smartt", "nscc", "strack" or "crp"
 * @lb: selector name, or NULL for the algorithm's default
 * @out: where the CSV goes
 *
 * The cores are called directly (replay_core_c); r->core may be changed
 * before replay_start().
 *
 * Return: 0, or -1 with r->err set.
 */
int replay_init(struct replay *r, const char *algo, const char *lb, FILE *out)
{
	int a, l;

	memset(r, 0, sizeof(*r));
	r->core = &replay_core_c;
	r->out = out;
	r->service_unit_ns = UET_ACK_SERVICE_UNIT_NS;
	if (!strcmp(algo, "crp")) {
		r->algo = REPLAY_ALGO_CRP;
		r->ck = crp_defaults;
		if (lb)
			return replay_fail(r, "--lb %s: crp has no path selector", lb);
		return 0;
	}
	if (!strcmp(algo, "strack")) {
		a = REPLAY_ALGO_STRACK;
	} else {
		a = smartt_profile_by_name(algo);
		if (a < 0)
			return replay_fail(r, "--algo %s: want smartt-2024, smartt, nscc, strack or crp",
					   algo);
	}
	r->algo = a;
	r->tk = strack_defaults;
	if (a != REPLAY_ALGO_STRACK)
		r->sk = smartt_profiles[a];
	r->lk = smartt_lb_defaults;
	if (lb) {
		l = smartt_lb_by_name(lb);
		if (l < 0)
			return replay_fail(r,
					   "--lb %s: want reps, reps-single, strack-bitmap, oblivious or ecmp",
					   lb);
	} else {
		l = a == REPLAY_ALGO_STRACK ? SMARTT_LB_BITMAP :
		    a == SMARTT_PROFILE_2024 ? SMARTT_LB_REPS_SINGLE : SMARTT_LB_REPS;
	}
	r->lk.kind = (u32)l;
	return 0;
}

/**
 * replay_set() - apply one --set KEY=VALUE
 * @r: replayer
 * @kv: "KEY=VALUE"
 *
 * Return: 0, or -1 with r->err set.
 */
int replay_set(struct replay *r, const char *kv)
{
	char key[64];
	const char *eq = strchr(kv, '=');
	size_t n = eq ? (size_t)(eq - kv) : 0;

	if (!n || n >= sizeof(key))
		return replay_fail(r, "--set %s: want KEY=VALUE", kv);
	memcpy(key, kv, n);
	key[n] = 0;
	return replay_set_knob(r, key, eq + 1);
}

/*
 * replay_fields() - the key=value fields after an event's name
 * @r: replayer (for the message)
 * @save: strtok_r() state just after the event's name
 * @lineno: the line's number
 * @ev: the event's name
 * @names: the field names, @n of them
 * @allowed: a bit per field the event takes
 * @required: a bit per field it needs
 * @val: the value of each field given (pointers into the line)
 * @given: a bit per field given
 *
 * Return: 0, or -1 with r->err naming the line.
 */
static int replay_fields(struct replay *r, char *save, unsigned long lineno, const char *ev,
			 const char *const *names, unsigned int n, u32 allowed, u32 required,
			 char **val, u32 *given)
{
	unsigned int i;
	char *tok;

	*given = 0;
	while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq)
			return replay_fail(r, "line %lu: '%s' is not key=value", lineno, tok);
		*eq = 0;
		for (i = 0; i < n; i++)
			if (!strcmp(tok, names[i]))
				break;
		if (i == n || !(allowed & (1U << i)))
			return replay_fail(r, "line %lu: '%s' is not a field of %s", lineno, tok, ev);
		if (*given & (1U << i))
			return replay_fail(r, "line %lu: %s given twice", lineno, tok);
		val[i] = eq + 1;
		*given |= 1U << i;
	}
	for (i = 0; i < n; i++)
		if ((required & ~*given) & (1U << i))
			return replay_fail(r, "line %lu: %s needs %s=", lineno, ev, names[i]);
	return 0;
}

/*
 * --algo crp.  Trace lines:
 *   table   id=<name> [cells=<c0,c1,...>]
 *   request size=<bytes> path=[<name>,...] dest=<name>
 *   advance slots=<k>
 * Each request goes through its path's tables in order (each ANDs its
 * availability into the vector, and reserves eagerly with --set eager=N),
 * the destination decides, and the grant comes back through the path in
 * reverse, the whole request within one slot.  After every line, one row
 * per table, in the order they were defined.
 */
enum { CRP_EV_TABLE, CRP_EV_REQUEST, CRP_EV_ADVANCE, CRP_EV_COUNT };
static const char *const crp_ev_names[CRP_EV_COUNT] = { "table", "request", "advance" };

enum { CRP_F_ID, CRP_F_CELLS, CRP_F_SIZE, CRP_F_PATH, CRP_F_DEST, CRP_F_SLOTS, CRP_F_COUNT };
static const char *const crp_field_names[CRP_F_COUNT] = {
	"id", "cells", "size", "path", "dest", "slots",
};

static const u32 crp_required[CRP_EV_COUNT] = {
	[CRP_EV_TABLE] = 1 << CRP_F_ID,
	[CRP_EV_REQUEST] = 1 << CRP_F_SIZE | 1 << CRP_F_PATH | 1 << CRP_F_DEST,
	[CRP_EV_ADVANCE] = 1 << CRP_F_SLOTS,
};

static const u32 crp_allowed[CRP_EV_COUNT] = {
	[CRP_EV_TABLE] = 1 << CRP_F_ID | 1 << CRP_F_CELLS,
	[CRP_EV_REQUEST] = 1 << CRP_F_SIZE | 1 << CRP_F_PATH | 1 << CRP_F_DEST,
	[CRP_EV_ADVANCE] = 1 << CRP_F_SLOTS,
};

static const char *const crp_result_names[] = {
	[CRP_GRANT] = "grant", [CRP_RETRY] = "retry", [CRP_RETRY_FULL] = "retry_full",
};

/* Why a value parse_u64() refused is refused. */
static const char *crp_not_uint(const char *s)
{
	return *s == '-' ? "negative (want an unsigned integer)" :
	       strspn(s, "0123456789") == strlen(s) && *s ? "too large for 64 bits" :
	       "not an unsigned integer";
}

static int replay_crp_start(struct replay *r)
{
	struct crp_knobs k = r->ck;

	/* N_min and N_max cut messages in the transport: a trace's sizes are
	 * reservations already, anything two cells can hold
	 */
	k.nmin = 1;
	k.nmax = 2 * k.cmax;
	if (crp_knobs_validate(&k))
		return replay_fail(r, "crp knobs rejected (see --help for ranges)");
	r->ck = k;
	fprintf(r->out, "i,event,name,slot,timestamp,cells\n");
	return 0;
}

static int replay_crp_find(const struct replay *r, const char *id)
{
	u32 j;

	for (j = 0; j < r->ncrp; j++)
		if (!strcmp(r->crp[j].id, id))
			return (int)j;
	return -1;
}

/* The table rows: every table in the order the trace defined them. */
static void replay_crp_tables(struct replay *r, u64 i)
{
	u32 j, c;

	for (j = 0; j < r->ncrp; j++) {
		fprintf(r->out, "%llu,table,%s,,,", (unsigned long long)i, r->crp[j].id);
		for (c = 0; c < r->crp[j].t.cells; c++)
			fprintf(r->out, "%s%u", c ? ";" : "", r->crp[j].t.cell[c]);
		fputc('\n', r->out);
	}
}

static int replay_crp_table(struct replay *r, char *id, char *cells, unsigned long lineno)
{
	struct replay_crp_table *e;
	char *tok, *save = NULL;
	size_t n = strlen(id);
	u32 c = 0;
	u64 v;

	if (!n || n > REPLAY_CRP_ID_MAX || strspn(id, "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
		return replay_fail(r, "line %lu: id=%s: want 1 to %d letters, digits, '_', '.' or '-'",
				   lineno, id, REPLAY_CRP_ID_MAX);
	if (replay_crp_find(r, id) >= 0)
		return replay_fail(r, "line %lu: table %s is defined twice", lineno, id);
	if (r->ncrp == REPLAY_CRP_TABLES)
		return replay_fail(r, "line %lu: more than %d tables", lineno, REPLAY_CRP_TABLES);
	e = &r->crp[r->ncrp];
	crp_table_init(&e->t, &r->ck, r->crp_slot);
	if (cells && *cells) {
		if (cells[strlen(cells) - 1] == ',' || cells[0] == ',' || strstr(cells, ",,"))
			return replay_fail(r, "line %lu: cells=%s: an empty cell", lineno, cells);
		for (tok = strtok_r(cells, ",", &save); tok; tok = strtok_r(NULL, ",", &save), c++) {
			if (parse_u64(tok, &v))
				return replay_fail(r, "line %lu: cells: '%s' is %s", lineno, tok,
						   crp_not_uint(tok));
			if (c >= r->ck.cells)
				return replay_fail(r, "line %lu: more than %u cells (--set cells=)",
						   lineno, r->ck.cells);
			if (v > r->ck.cmax)
				return replay_fail(r, "line %lu: cell %u holds %llu, more than cmax %u",
						   lineno, c, (unsigned long long)v, r->ck.cmax);
			crp_table_set_cell(&e->t, c, (u32)v);
		}
	}
	snprintf(e->id, sizeof(e->id), "%s", id);
	r->ncrp++;
	return 0;
}

/* 32-bit FNV-1a: the flow tag of a path and destination (never 0). */
static u32 replay_crp_tag(const char *path, const char *dest)
{
	const char *s[2] = { path, dest };
	u32 h = 2166136261U;
	int k;

	for (k = 0; k < 2; k++) {
		for (; *s[k]; s[k]++)
			h = (h ^ (u8)*s[k]) * 16777619U;
		h = (h ^ '>') * 16777619U;
	}
	return h ? h : 1;
}

static int replay_crp_request(struct replay *r, u64 size, char *path, const char *dest,
			      unsigned long lineno)
{
	int hops[REPLAY_CRP_TABLES], nhops = 0, d, h, k;
	char *tok, *save = NULL, vs[CRP_CELLS_MAX + 1];
	enum crp_result res;
	struct crp_grant g;
	struct crp_table *dt;
	u32 tag, c;
	u64 vec;

	if (!size)
		return replay_fail(r, "line %lu: size=0: nothing to reserve", lineno);
	if (size > 2ULL * r->ck.cmax)
		return replay_fail(r, "line %lu: size=%llu: more than two cells hold (2 x cmax = %llu)",
				   lineno, (unsigned long long)size, 2ULL * r->ck.cmax);
	d = replay_crp_find(r, dest);
	if (d < 0)
		return replay_fail(r, "line %lu: dest=%s: no such table", lineno, dest);
	if (*path && (path[strlen(path) - 1] == ',' || path[0] == ',' || strstr(path, ",,")))
		return replay_fail(r, "line %lu: path=%s: an empty table name", lineno, path);
	tag = replay_crp_tag(path, dest);	/* before the path is cut up */
	for (tok = strtok_r(path, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		h = replay_crp_find(r, tok);
		if (h < 0)
			return replay_fail(r, "line %lu: path: no such table '%s'", lineno, tok);
		if (h == d)
			return replay_fail(r, "line %lu: path names the destination %s", lineno, tok);
		for (k = 0; k < nhops; k++)
			if (hops[k] == h)
				return replay_fail(r, "line %lu: path names %s twice", lineno, tok);
		hops[nhops++] = h;	/* distinct tables: at most REPLAY_CRP_TABLES */
	}

	vec = crp_vec_full(r->ck.cells);
	for (k = 0; k < nhops; k++)
		crp_channel_request(&r->crp[hops[k]].t, (u32)size, tag, r->ck.eager, &vec);
	dt = &r->crp[d].t;
	res = crp_dest_decide(dt, (u32)size, &vec, &g);
	for (k = nhops - 1; k >= 0 && res == CRP_GRANT; k--)
		if (!crp_channel_grant(&r->crp[hops[k]].t, tag, &g))
			res = CRP_RETRY;
	for (c = 0; c < r->ck.cells; c++)
		vs[c] = vec & (1ULL << c) ? 'T' : 'F';
	vs[c] = 0;
	fprintf(r->out, "%llu,request,%s,", (unsigned long long)r->i, crp_result_names[res]);
	if (res == CRP_GRANT)
		fprintf(r->out, "%llu,%llu", (unsigned long long)(g.slot - dt->base),
			(unsigned long long)crp_grant_offset(dt, &g));
	else
		fputc(',', r->out);
	fprintf(r->out, ",%s\n", vs);
	return 0;
}

static int replay_crp_line(struct replay *r, const char *ev_name, char *save,
			   unsigned long lineno)
{
	char *f[CRP_F_COUNT] = { NULL };
	u32 given;
	u64 v = 0;
	int ev, i, err = 0;

	for (ev = 0; ev < CRP_EV_COUNT; ev++)
		if (!strcmp(ev_name, crp_ev_names[ev]))
			break;
	if (ev == CRP_EV_COUNT)
		return replay_fail(r, "line %lu: unknown event '%s' (crp: table, request, advance)",
				   lineno, ev_name);
	if (replay_fields(r, save, lineno, crp_ev_names[ev], crp_field_names, CRP_F_COUNT,
			  crp_allowed[ev], crp_required[ev], f, &given))
		return -1;
	i = ev == CRP_EV_REQUEST ? CRP_F_SIZE : CRP_F_SLOTS;
	if (ev != CRP_EV_TABLE && parse_u64(f[i], &v))
		return replay_fail(r, "line %lu: %s=%s is %s", lineno, crp_field_names[i],
				   f[i], crp_not_uint(f[i]));
	if (ev == CRP_EV_TABLE) {
		err = replay_crp_table(r, f[CRP_F_ID], f[CRP_F_CELLS], lineno);
	} else if (ev == CRP_EV_REQUEST) {
		err = replay_crp_request(r, v, f[CRP_F_PATH], f[CRP_F_DEST], lineno);
	} else {
		if (r->crp_slot > U64_MAX - v)
			return replay_fail(r, "line %lu: slots=%llu: time beyond 2^64 slots",
					   lineno, (unsigned long long)v);
		r->crp_slot += v;
		for (i = 0; i < (int)r->ncrp; i++)
			crp_table_shift(&r->crp[i].t, v);
	}
	if (err)
		return err;
	replay_crp_tables(r, r->i++);
	return 0;
}

static void replay_header(struct replay *r)
{
	if (r->algo == REPLAY_ALGO_STRACK)
		fprintf(r->out, "i,event,t,cwnd,in_flight,ev,rules,base_rtt,avg_delay,achieved\n");
	else
		fprintf(r->out,
			"i,event,t,cwnd,in_flight,ev,rules,base_rtt,avg_delay,bytes_to_ignore,bytes_ignored,wtd\n");
}

/**
 * replay_start() - validate knobs and state, start the flow, print the header
 * @r: replayer
 *
 * Return: 0, or -1 with r->err set.
 */
int replay_start(struct replay *r)
{
	u64 maxwnd, mtu, bdp;

	if (r->algo == REPLAY_ALGO_CRP)
		return replay_crp_start(r);
	if (r->algo == REPLAY_ALGO_STRACK) {
		if (r->core->strack_params_init(&r->tp, &r->tk))
			return replay_fail(r, "strack knobs rejected (see --help for ranges)");
		maxwnd = r->core->strack_maxwnd(&r->tp, r->tp.base_rtt0);
		mtu = r->tk.mtu;
		bdp = r->core->smartt_bdp_bytes(r->tk.link_mbps, r->tp.base_rtt0);
	} else {
		if (r->core->smartt_params_init(&r->sp, &r->sk))
			return replay_fail(r, "%s knobs rejected (see --help for ranges)",
					   smartt_profile_names[r->algo]);
		maxwnd = r->core->smartt_maxwnd(&r->sp, r->sp.base_rtt0);
		mtu = r->sk.mtu;
		bdp = r->core->smartt_bdp_bytes(r->sk.link_mbps, r->sp.base_rtt0);
	}
	if (r->cwnd0 && (r->cwnd0 < mtu || r->cwnd0 > maxwnd))
		return replay_fail(r, "--set cwnd=%llu: outside [mtu %llu, maxwnd %llu]",
				   (unsigned long long)r->cwnd0,
				   (unsigned long long)mtu, (unsigned long long)maxwnd);
	if (!r->lb_bdp_set)
		r->lk.bdp = (u32)min_t(u64, bdp, U32_MAX);
	if (r->core->smartt_lb_init(&r->lb, &r->lk))
		return replay_fail(r, "path selector knobs rejected");
	if (r->algo == REPLAY_ALGO_STRACK) {
		r->core->strack_init(&r->ts, &r->tp, r->cwnd0);
		r->ts.avg_delay = r->avg_delay_ns * 1000;
	} else {
		r->core->smartt_init(&r->ss, &r->sp, r->cwnd0);
		r->ss.avg_delay = r->avg_delay_ns * 1000;
		/* only the 2024 rules keep a WTD average (see smartt_state) */
		if (r->sp.k.rules == SMARTT_RULES_2024)
			r->ss.wtd = r->wtd;
	}
	if (!r->in_flight_set)
		r->in_flight = r->algo == REPLAY_ALGO_STRACK ? r->ts.cwnd : r->ss.cwnd;
	replay_header(r);
	return 0;
}

static const char *const smartt_rule_names[] = {
	"IGNORED", "QA", "FAST_INC", "FD", "MD", "FI", "PI", "NOOP", "WTD_HOLD",
	"ADJUST", "ETA", "LOSS_DEC", "CLAMPED", "MD_HELD",
};

static const char *const strack_rule_names[] = {
	"BETA", "ALPHA", "ACHIEVED", "MD", "HOLD", "ETA", "CLAMPED",
};

static void replay_rules(FILE *out, u32 rules, const char *const *names,
			 unsigned int n)
{
	unsigned int b;
	bool first = true;

	for (b = 0; b < n; b++) {
		if (!(rules & (1U << b)))
			continue;
		fprintf(out, "%s%s", first ? "" : "|", names[b]);
		first = false;
	}
}

enum { EV_ACK, EV_NACK, EV_TIMEOUT, EV_SEND, EV_LOST, EV_ACK_CC, EV_COUNT };
static const char *const ev_names[EV_COUNT] = {
	"ack", "nack", "timeout", "send", "lost", "ack_cc",
};

/* key=value fields of one line; a bit per key says it was given. */
enum {
	F_T, F_RTT, F_ECN, F_BYTES, F_EV, F_LAST_HOP,
	F_SENT, F_TX, F_RETX, F_SERVICE_TIME, F_RCVD_BYTES, F_M, F_COUNT
};
static const char *const field_names[F_COUNT] = {
	"t", "rtt", "ecn", "bytes", "ev", "last_hop",
	"sent", "tx", "retx", "service_time", "rcvd_bytes", "m",
};

/* The fields of an ack_cc line: a UET ACK_CC and the sender's record. */
#define F_ACK_CC_REQUIRED	(1 << F_T | 1 << F_SENT | 1 << F_SERVICE_TIME | \
				 1 << F_RCVD_BYTES | 1 << F_M)

/* Fields each event requires, and allows. */
static const u32 ev_required[] = {
	[EV_ACK] = 1 << F_T | 1 << F_RTT | 1 << F_ECN | 1 << F_BYTES,
	[EV_NACK] = 1 << F_T | 1 << F_RTT | 1 << F_BYTES,
	[EV_TIMEOUT] = 1 << F_T | 1 << F_BYTES,
	[EV_SEND] = 1 << F_T | 1 << F_BYTES,
	[EV_LOST] = 1 << F_T | 1 << F_BYTES | 1 << F_EV,
	[EV_ACK_CC] = F_ACK_CC_REQUIRED,
};

static const u32 ev_allowed[] = {
	[EV_ACK] = 1 << F_T | 1 << F_RTT | 1 << F_ECN | 1 << F_BYTES | 1 << F_EV,
	[EV_NACK] = 1 << F_T | 1 << F_RTT | 1 << F_BYTES | 1 << F_EV | 1 << F_LAST_HOP,
	[EV_TIMEOUT] = 1 << F_T | 1 << F_BYTES | 1 << F_EV,
	[EV_SEND] = 1 << F_T | 1 << F_BYTES,
	[EV_LOST] = 1 << F_T | 1 << F_BYTES | 1 << F_EV,
	[EV_ACK_CC] = F_ACK_CC_REQUIRED | 1 << F_TX | 1 << F_RETX | 1 << F_EV,
};

/*
 * An ack_cc line as the ack it amounts to (kernel/algo/uet_ack.c): the
 * bytes from the received-bytes count, the RTT from the sender's record
 * less the receiver's service time, the ECN from M.
 */
static int replay_ack_cc(struct replay *r, struct uet_ack_track *t, u64 *f, u32 given,
			 unsigned long lineno)
{
	struct uet_ack_cc a;
	struct uet_ack_tx tx;
	u64 rtt;

	if (!(given & (1U << F_TX)))
		f[F_TX] = 1;
	if (f[F_RCVD_BYTES] > UET_ACK_RCVD_BYTES_MASK || f[F_SERVICE_TIME] > U16_MAX ||
	    f[F_M] > 1 || f[F_RETX] > 1 || f[F_TX] > U32_MAX)
		return replay_fail(r, "line %lu: want rcvd_bytes < 2^24, service_time < 2^16, m and retx 0 or 1, tx < 2^32",
				   lineno);
	a = (struct uet_ack_cc){
		.rcvd_bytes = (u32)f[F_RCVD_BYTES], .service_time = (u16)f[F_SERVICE_TIME],
		.m = f[F_M], .retx = f[F_RETX],
	};
	tx = (struct uet_ack_tx){ .sent_ns = f[F_SENT], .tx_count = (u32)f[F_TX] };
	rtt = uet_ack_rtt(&a, &tx, f[F_T], r->service_unit_ns);
	if (rtt > U32_MAX)
		return replay_fail(r, "line %lu: t - sent = %llu ns does not fit 32 bits",
				   lineno, (unsigned long long)rtt);
	f[F_RTT] = rtt;
	f[F_ECN] = f[F_M];
	f[F_BYTES] = uet_ack_newly_rcvd(t, a.rcvd_bytes);
	return 0;
}

static u32 replay_paths(const struct replay *r)
{
	return r->lk.kind == SMARTT_LB_BITMAP ? r->lk.max_paths : r->lk.reps.paths;
}

/**
 * replay_line() - parse and apply one trace line
 * @r: replayer (started)
 * @line: the line, modified in place (tokenised)
 * @lineno: its number, for messages
 *
 * Return: 0, or -1 with r->err naming the line.
 */
int replay_line(struct replay *r, char *line, unsigned long lineno)
{
	u64 f[F_COUNT] = { 0 };
	u32 given = 0, rules = 0, ev_out = 0;
	char *tok, *save = NULL, *hash, *val[F_COUNT] = { NULL };
	struct uet_ack_track uet;
	bool have_ev_out = false;
	u64 cwnd;
	int ev, i;

	hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	tok = strtok_r(line, " \t\r\n", &save);
	if (!tok)
		return 0;
	if (r->algo == REPLAY_ALGO_CRP)
		return replay_crp_line(r, tok, save, lineno);
	for (ev = 0; ev < EV_COUNT; ev++)
		if (!strcmp(tok, ev_names[ev]))
			break;
	if (ev == EV_COUNT)
		return replay_fail(r, "line %lu: unknown event '%s'", lineno, tok);
	if (replay_fields(r, save, lineno, ev_names[ev], field_names, F_COUNT, ev_allowed[ev],
			  ev_required[ev], val, &given))
		return -1;
	for (i = 0; i < F_COUNT; i++)
		if ((given & (1U << i)) && parse_u64(val[i], &f[i]))
			return replay_fail(r, "line %lu: %s=%s is not an unsigned integer",
					   lineno, field_names[i], val[i]);
	/* the count moves only when the line is taken (r->last_t below) */
	uet = r->uet;
	if (ev == EV_ACK_CC && replay_ack_cc(r, &uet, f, given, lineno))
		return -1;
	if (f[F_T] < r->last_t)
		return replay_fail(r, "line %lu: t=%llu goes back in time (last %llu)",
				   lineno, (unsigned long long)f[F_T],
				   (unsigned long long)r->last_t);
	if (f[F_RTT] > U32_MAX || f[F_BYTES] > U32_MAX)
		return replay_fail(r, "line %lu: rtt and bytes must fit 32 bits", lineno);
	if (f[F_ECN] > 1 || f[F_LAST_HOP] > 1)
		return replay_fail(r, "line %lu: ecn and last_hop are 0 or 1", lineno);
	if ((given & (1U << F_EV)) && f[F_EV] >= replay_paths(r))
		return replay_fail(r, "line %lu: ev=%llu is not below paths=%u", lineno,
				   (unsigned long long)f[F_EV], replay_paths(r));
	if (ev != EV_SEND && f[F_BYTES] > r->in_flight)
		return replay_fail(r, "line %lu: bytes=%llu but only %llu in flight",
				   lineno, (unsigned long long)f[F_BYTES],
				   (unsigned long long)r->in_flight);
	r->last_t = f[F_T];
	r->uet = uet;

	if (ev == EV_SEND) {
		cwnd = r->algo == REPLAY_ALGO_STRACK ? r->ts.cwnd : r->ss.cwnd;
		r->in_flight = smartt_sat_add(r->in_flight, f[F_BYTES]);
		ev_out = r->core->smartt_lb_next(&r->lb, cwnd / (r->algo == REPLAY_ALGO_STRACK ?
						 r->tk.mtu : r->sk.mtu), (u32)f[F_BYTES]);
		have_ev_out = true;
	} else {
		struct smartt_event e;
		enum smartt_path_fb fb;

		r->in_flight -= f[F_BYTES];
		e = (struct smartt_event){
			.now = f[F_T], .rtt = (u32)f[F_RTT], .bytes = (u32)f[F_BYTES],
			.in_flight = r->in_flight, .ecn = f[F_ECN],
		};
		if (ev == EV_LOST) {
			/* found by SACK/out-of-order/probe: the cores are not told */
		} else if (r->algo == REPLAY_ALGO_STRACK) {
			if (ev == EV_ACK || ev == EV_ACK_CC)
				rules = r->core->strack_on_ack(&r->ts, &r->tp, e.now, e.rtt,
								e.ecn, e.bytes);
		} else if (ev == EV_ACK || ev == EV_ACK_CC) {
			rules = r->core->smartt_on_ack(&r->ss, &r->sp, &e);
		} else if (ev == EV_NACK) {
			rules = r->core->smartt_on_nack(&r->ss, &r->sp, &e);
		} else {
			rules = r->core->smartt_on_timeout(&r->ss, &r->sp, &e);
		}
		if (ev == EV_ACK || ev == EV_ACK_CC)
			fb = f[F_ECN] ? SMARTT_FB_ECN : SMARTT_FB_GOOD;
		else if (ev == EV_NACK)
			fb = f[F_LAST_HOP] ? SMARTT_FB_GOOD : SMARTT_FB_NACK;
		else if (ev == EV_LOST)
			fb = SMARTT_FB_LOST;
		else
			fb = SMARTT_FB_TIMEOUT;
		/* a timeout without ev= blames entropy 0, like the reference */
		if ((given & (1U << F_EV)) || ev == EV_TIMEOUT)
			r->core->smartt_lb_feedback(&r->lb, f[F_T], (u32)f[F_EV], fb);
	}

	fprintf(r->out, "%llu,%s,%llu,", (unsigned long long)r->i++, ev_names[ev],
		(unsigned long long)f[F_T]);
	if (r->algo == REPLAY_ALGO_STRACK) {
		fprintf(r->out, "%llu,%llu,", (unsigned long long)r->ts.cwnd,
			(unsigned long long)r->in_flight);
		if (have_ev_out)
			fprintf(r->out, "%u", ev_out);
		fputc(',', r->out);
		replay_rules(r->out, rules, strack_rule_names,
			     ARRAY_SIZE(strack_rule_names));
		fprintf(r->out, ",%u,%llu.%03llu,", r->ts.base_rtt,
			(unsigned long long)(r->ts.avg_delay / 1000),
			(unsigned long long)(r->ts.avg_delay % 1000));
		if (r->ts.achieved != U64_MAX)
			fprintf(r->out, "%llu", (unsigned long long)r->ts.achieved);
		fputc('\n', r->out);
	} else {
		/* other rule families never change wtd: print what was set */
		u32 wtd = r->sp.k.rules == SMARTT_RULES_2024 ? r->ss.wtd : r->wtd;

		fprintf(r->out, "%llu,%llu,", (unsigned long long)r->ss.cwnd,
			(unsigned long long)r->in_flight);
		if (have_ev_out)
			fprintf(r->out, "%u", ev_out);
		fputc(',', r->out);
		replay_rules(r->out, rules, smartt_rule_names,
			     ARRAY_SIZE(smartt_rule_names));
		fprintf(r->out, ",%u,%llu.%03llu,%llu,%llu,%u.%06u\n", r->ss.base_rtt,
			(unsigned long long)(r->ss.avg_delay / 1000),
			(unsigned long long)(r->ss.avg_delay % 1000),
			(unsigned long long)r->ss.bytes_to_ignore,
			(unsigned long long)r->ss.bytes_ignored,
			wtd / SMARTT_PPM, wtd % SMARTT_PPM);
	}
	return 0;
}

#ifndef REPLAY_NO_MAIN

static void print_knob(const char *name, u32 v, bool frac, const char *unit)
{
	if (frac)
		printf("  %-16s %u.%06u %s\n", name, v / SMARTT_PPM, v % SMARTT_PPM, unit);
	else
		printf("  %-16s %u %s\n", name, v, unit);
}

#ifndef SMARTT_VERSION
#define SMARTT_VERSION "unknown"
#endif

#define PROG "smartt-replay"

static void replay_usage(FILE *o)
{
	fprintf(o,
		"usage: smartt-replay --algo {smartt-2024|smartt|nscc|strack}\n"
		"                     [--lb {reps|reps-single|strack-bitmap|oblivious|ecmp}]\n"
		"                     [--set KEY=VALUE]... [--plot FILE.png] [--bpf] [TRACE|-]\n"
		"       smartt-replay --algo crp [--set {cmax|cells|eager}=N]... [TRACE|-]\n"
		"       smartt-replay --help [--algo ALGO]   (knobs and their defaults)\n"
		"       smartt-replay --version\n");
}

static void help(const char *algo)
{
	unsigned int i;
	int a = algo ? smartt_profile_by_name(algo) : SMARTT_PROFILE_SMARTT;

	replay_usage(stdout);
	if (algo && !strcmp(algo, "crp")) {
		printf("\ncrp trace lines (sizes and cells in bytes; cells not given are full):\n"
		       "  table   id=<name> [cells=<c0,c1,...>]\n"
		       "  request size=<bytes> path=[<name>,...] dest=<name>\n"
		       "  advance slots=<k>\n"
		       "\ncrp knobs (defaults; the replayer uses cmax, cells and eager):\n");
		for (i = 0; i < crp_knob_count; i++)
			print_knob(crp_knob_descs[i].name, crp_knob_get(&crp_defaults, i),
				   crp_knob_descs[i].frac, crp_knob_descs[i].unit);
		printf("\nrows: i,request,<grant|retry|retry_full>,<slot>,<timestamp>,<vector>\n"
		       "      i,table,<id>,,,<c0;c1;...>   (every table, after every line)\n"
		       "\nexit status: 0 ok, 1 a bad trace line or an I/O error, 2 bad options or knobs\n");
		return;
	}
	printf("\noptions:\n"
	       "  -a, --algo ALGO     the core: smartt-2024, smartt, nscc, strack, or crp\n"
	       "                      (reservation tables; its own trace lines) (required)\n"
	       "  -l, --lb LB         path selector (default: reps-single for smartt-2024,\n"
	       "                      strack-bitmap for strack, reps otherwise)\n"
	       "  -s, --set KEY=VAL   a knob or initial state (below); repeatable\n"
	       "  -p, --plot FILE     also draw cwnd, in_flight and avg_delay over time into\n"
	       "                      FILE (PNG, matplotlib); the CSV still goes to stdout\n"
	       "  -b, --bpf           run the cores compiled into BPF, in the kernel\n"
	       "                      (BPF_PROG_TEST_RUN; root and a kernel with BTF): the\n"
	       "                      same rows, from the BPF build\n"
	       "  -h, --help          this help (with --algo: that core's knobs)\n"
	       "  -V, --version       print the version\n"
	       "TRACE is a file of events, or - (the default) for standard input.\n");
	printf("\ntrace lines:\n"
	       "  ack     t=<ns> rtt=<ns> ecn=<0|1> bytes=<newly acked> [ev=<entropy>]\n"
	       "  nack    t=<ns> rtt=<ns> bytes=<packet> [ev=<entropy>] [last_hop=<0|1>]\n"
	       "  timeout t=<ns> bytes=<packet> [ev=<entropy>]\n"
	       "  lost    t=<ns> bytes=<packet> ev=<entropy>\n"
	       "  send    t=<ns> bytes=<packet>\n"
	       "  ack_cc  t=<ns> sent=<ns> service_time=<units> rcvd_bytes=<24 bit> m=<0|1>\n"
	       "          [tx=<transmissions, 1; 0 = no record>] [retx=<0|1>] [ev=<entropy>]\n"
	       "          (a UET ACK_CC: bytes = rcvd_bytes difference, rtt = t - sent -\n"
	       "          service_time x service_unit_ns when the ACK answers the timed\n"
	       "          transmission, else no sample; ecn = m)\n");
	printf("\nstate: cwnd (bytes, 0 = maxwnd), in_flight (bytes, default cwnd),\n"
	       "       avg_delay (ns), wtd (fraction; smartt profiles),\n"
	       "       service_unit_ns (ns per ack_cc service_time unit, 0 = ignore it;\n"
	       "       default %u, the transport's)\n", UET_ACK_SERVICE_UNIT_NS);
	if (algo && !strcmp(algo, "strack")) {
		printf("\nstrack knobs (defaults):\n");
		for (i = 0; i < strack_knob_count; i++)
			print_knob(strack_knob_descs[i].name,
				   strack_knob_get(&strack_defaults, i),
				   strack_knob_descs[i].frac, strack_knob_descs[i].unit);
	} else {
		if (a < 0)
			a = SMARTT_PROFILE_SMARTT;
		printf("\n%s knobs (defaults):\n", smartt_profile_names[a]);
		for (i = 0; i < smartt_knob_count; i++)
			print_knob(smartt_knob_descs[i].name,
				   smartt_knob_get(&smartt_profiles[a], i),
				   smartt_knob_descs[i].frac, smartt_knob_descs[i].unit);
	}
	printf("\npath selector knobs (defaults; lb_bdp defaults to the flow's BDP):\n");
	for (i = 0; i < smartt_lb_knob_count; i++)
		print_knob(smartt_lb_knob_descs[i].name,
			   smartt_lb_knob_get(&smartt_lb_defaults, i), false,
			   smartt_lb_knob_descs[i].unit);
	printf("\nexit status: 0 ok, 1 a bad trace line or an I/O error, 2 bad options or knobs\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/*
 * The plot: a small matplotlib program run by Debian's python3 (which
 * `make deps` gives python3-matplotlib), reading the CSV on stdin.
 */
static const char plot_py[] =
"import csv, sys\n"
"try:\n"
"    import matplotlib\n"
"    matplotlib.use('Agg')\n"
"    import matplotlib.pyplot as plt\n"
"except ImportError:\n"
"    sys.exit('smartt-replay: --plot needs matplotlib: make deps (python3-matplotlib)')\n"
"path, title = sys.argv[1], sys.argv[2]\n"
"rows = list(csv.DictReader(sys.stdin))\n"
"t = [int(r['t']) / 1e3 for r in rows]\n"
"fig, (a, b) = plt.subplots(2, 1, sharex=True, figsize=(9, 6))\n"
"a.step(t, [int(r['cwnd']) / 1e3 for r in rows], where='post', label='cwnd')\n"
"a.step(t, [int(r['in_flight']) / 1e3 for r in rows], where='post', label='in_flight')\n"
"for ev, m, c in (('nack', 'v', 'tab:red'), ('timeout', 'x', 'black'), ('lost', 'o', 'tab:purple')):\n"
"    xs = [ti for ti, r in zip(t, rows) if r['event'] == ev]\n"
"    if xs:\n"
"        a.plot(xs, [int(r['cwnd']) / 1e3 for r in rows if r['event'] == ev], m, color=c, label=ev)\n"
"a.set_ylabel('KB')\n"
"a.legend(loc='best')\n"
"a.grid(True, alpha=0.3)\n"
"a.set_title(title)\n"
"b.step(t, [float(r['avg_delay']) / 1e3 for r in rows], where='post', label='avg_delay')\n"
"b.step(t, [int(r['base_rtt']) / 1e3 for r in rows], where='post', label='base_rtt')\n"
"b.set_ylabel('us')\n"
"b.set_xlabel('t (us)')\n"
"b.legend(loc='best')\n"
"b.grid(True, alpha=0.3)\n"
"fig.tight_layout()\n"
"try:\n"
"    fig.savefig(path)\n"
"except (OSError, ValueError) as e:\n"
"    sys.exit('smartt-replay: --plot %s: %s' % (path, getattr(e, 'strerror', None) or e))\n";

/* Feed the CSV in @csv to the plot program; 0 or the exit status to return. */
static int plot(FILE *csv, const char *path, const char *title)
{
	const char *py = getenv("SMARTT_PYTHON");
	int pfd[2], status;
	char buf[65536];
	size_t n;
	pid_t pid;

	if (!py || !*py)
		py = access("/usr/bin/python3", X_OK) ? "python3" : "/usr/bin/python3";
	fflush(NULL);
	if (pipe(pfd) || (pid = fork()) < 0) {
		fprintf(stderr, PROG ": --plot: %s\n", strerror(errno));
		return 1;
	}
	if (!pid) {
		close(pfd[1]);
		if (dup2(pfd[0], 0) < 0)
			_exit(1);
		execlp(py, py, "-c", plot_py, path, title, (char *)NULL);
		fprintf(stderr, PROG ": --plot: cannot run %s: %s (make deps)\n", py,
			strerror(errno));
		_exit(1);
	}
	close(pfd[0]);
	signal(SIGPIPE, SIG_IGN);
	rewind(csv);
	while ((n = fread(buf, 1, sizeof(buf), csv)) > 0)
		if (write(pfd[1], buf, n) != (ssize_t)n)
			break;
	close(pfd[1]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}

/* Copy @f (rewound) to stdout. */
static void copy_out(FILE *f)
{
	char buf[65536];
	size_t n;

	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "algo", required_argument, NULL, 'a' },
		{ "lb", required_argument, NULL, 'l' },
		{ "set", required_argument, NULL, 's' },
		{ "plot", required_argument, NULL, 'p' },
		{ "bpf", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *algo = NULL, *lb = NULL, *path = NULL, *plot_path = NULL;
	const char *sets[REPLAY_MAX_SETS];
	static struct replay r;
	unsigned long lineno = 0;
	int nsets = 0, i, c, want_help = 0, use_bpf = 0;
	char line[4096], title[128], err[256];
	FILE *in, *out = stdout;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":a:l:s:p:bhV", lo, NULL)) != -1) {
		switch (c) {
		case 'a': algo = optarg; break;
		case 'l': lb = optarg; break;
		case 's':
			if (nsets == REPLAY_MAX_SETS)
				return usage_error("more than %d --set options", REPLAY_MAX_SETS);
			sets[nsets++] = optarg;
			break;
		case 'p': plot_path = optarg; break;
		case 'b': use_bpf = 1; break;
		case 'h': want_help = 1; break;
		case 'V':
			printf(PROG " %s\n", SMARTT_VERSION);
			return 0;
		case ':':
			return usage_error("%s needs a value (see --help)", argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("unknown option -%c (see --help)", optopt);
			return usage_error("unknown option %s (see --help)", argv[optind - 1]);
		}
	}
	for (i = optind; i < argc; i++) {
		if (path)
			return usage_error("one TRACE at most (got '%s' and '%s')", path, argv[i]);
		path = argv[i];
	}
	if (want_help) {
		help(algo);
		return 0;
	}
	if (!algo)
		return usage_error("--algo is required: smartt-2024, smartt, nscc, strack or crp (see --help)");
	if (!strcmp(algo, "crp") && use_bpf)
		return usage_error("--bpf: --algo crp runs in C only");
	if (!strcmp(algo, "crp") && plot_path)
		return usage_error("--plot: --algo crp has nothing to plot");
	if (plot_path && !*plot_path)
		return usage_error("--plot needs a file name, e.g. --plot cwnd.png");
	if (plot_path) {
		out = tmpfile();
		if (!out) {
			fprintf(stderr, PROG ": --plot: temporary file: %s\n", strerror(errno));
			return 1;
		}
	}
	if (replay_init(&r, algo, lb, out))
		return usage_error("%s", r.err);
	for (i = 0; i < nsets; i++)
		if (replay_set(&r, sets[i]))
			return usage_error("%s", r.err);
	if (!path || !strcmp(path, "-")) {
		path = "standard input";
		in = stdin;
	} else {
		struct stat sb;

		in = fopen(path, "r");
		if (in && !fstat(fileno(in), &sb) && S_ISDIR(sb.st_mode))
			errno = EISDIR;
		else if (in)
			errno = 0;
		if (!in || errno) {
			fprintf(stderr, PROG ": %s: %s (want a trace file, or - for standard input)\n",
				path, strerror(errno));
			return 1;
		}
	}
	/* with --bpf nothing runs in C: no BPF is an error, never a fallback */
	if (use_bpf) {
		if (replay_bpf_open(r.algo == REPLAY_ALGO_STRACK, r.sk.rules, r.lk.kind,
				    err, sizeof(err))) {
			fprintf(stderr, PROG ": --bpf: %s\n", err);
			return 1;
		}
		r.core = &replay_core_bpf;
	}
	if (replay_start(&r))
		return usage_error("%s", r.err);
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(in)) {
			fprintf(stderr, PROG ": line %lu: longer than %zu bytes\n",
				lineno, sizeof(line) - 2);
			return 1;
		}
		if (replay_line(&r, line, lineno)) {
			fprintf(stderr, PROG ": %s\n", r.err);
			return 1;
		}
	}
	if (ferror(in)) {
		fprintf(stderr, PROG ": %s: %s (want a trace file, or - for standard input)\n",
			path, strerror(errno));
		return 1;
	}
	if (plot_path) {
		copy_out(out);
		snprintf(title, sizeof(title), "smartt-replay --algo %s%s%s", algo,
			 lb ? " --lb " : "", lb ? lb : "");
		if (plot(out, plot_path, title))
			return 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": standard output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

#endif /* REPLAY_NO_MAIN */
