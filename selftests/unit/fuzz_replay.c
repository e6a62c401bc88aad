// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over smartt-replay's option and trace parser and, through
 * it, every core and path selector.
 *
 * Input: byte 0 picks the algorithm, byte 1 the selector (none for crp);
 * then text lines.  Lines starting with '+' are --set KEY=VALUE arguments
 * applied before the flow starts; every other line is a trace line.  Parse
 * errors are fine (they must be reported, not crash); after every accepted
 * event the window must be within [mtu, maxwnd], and with crp every cell
 * within [0, cmax] and every table at the same slot, or the target aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.c"

static const char *const algos[] = { "smartt-2024", "smartt", "nscc", "strack", "crp" };

static void check_bounds(const struct replay *r)
{
	u64 cwnd, lo, hi;
	u32 j, c;

	if (r->algo == REPLAY_ALGO_CRP) {
		for (j = 0; j < r->ncrp; j++) {
			if (r->crp[j].t.base != r->crp_slot || r->crp[j].t.cells != r->ck.cells)
				abort();
			for (c = 0; c < CRP_CELLS_MAX; c++)
				if (r->crp[j].t.cell[c] > (c < r->ck.cells ? r->ck.cmax : 0))
					abort();
		}
		return;
	}
	if (r->algo == REPLAY_ALGO_STRACK) {
		cwnd = r->ts.cwnd;
		lo = r->tk.mtu;
		hi = strack_maxwnd(&r->tp, r->ts.base_rtt);
	} else {
		cwnd = r->ss.cwnd;
		lo = r->sk.mtu;
		hi = smartt_maxwnd(&r->sp, r->ss.base_rtt);
	}
	if (cwnd < lo || cwnd > hi)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	static struct replay r;
	char *buf, *line, *next;
	unsigned long lineno = 0;
	bool started = false;

	if (size < 2)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (replay_init(&r, algos[data[0] % 5], data[0] % 5 == 4 ? NULL :
			smartt_lb_names[data[1] % SMARTT_LB_COUNT], devnull))
		abort();	/* the names above are valid */
	buf = malloc(size - 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, size - 2);
	buf[size - 2] = 0;
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		if (line[0] == '+' && !started) {
			if (replay_set(&r, line + 1))
				goto out;
			continue;
		}
		if (!started) {
			if (replay_start(&r))
				goto out;
			started = true;
		}
		if (replay_line(&r, line, lineno))
			goto out;
		check_bounds(&r);
	}
out:
	free(buf);
	return 0;
}
