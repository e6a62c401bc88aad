#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential check: the cores of this tree against those of a git
# revision, over the same random events (see diff_algo.c).
#
#   diff_algo.sh REV [FLOWS EVENTS [SEED...]]
#
# DIFF_ALGO_WIDE=1: knobs over their whole ranges and extreme events (see
# diff_algo.c).  DIFF_ALGO_HOOK=1: both builds also hash the operands of
# every cwnd += x / cwnd, where a numerator one byte off would hide in
# the quotient: the lines "s->cwnd += div64_u64(..., s->cwnd);" of
# smartt.c and strack.c call xdiff_hook() first (a division by the
# window written otherwise is not seen).
set -euo pipefail

rev=${1:?usage: diff_algo.sh REV [FLOWS EVENTS [SEED...]]}
flows=${2:-1500}
events=${3:-4000}
shift $(( $# < 3 ? $# : 3 ))
seeds=${*:-1 2 3 4}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/old/algo" "$tmp/new"
git -C "$top" archive "$rev" kernel/algo | tar -x -C "$tmp/old" --strip-components=1
cp -r "$top/kernel/algo" "$tmp/new/"
cflags="-std=gnu11 -O2 -D_GNU_SOURCE -Wall -Wno-unused-function"
if [ "${DIFF_ALGO_HOOK:-0}" = 1 ]; then
	printf '%s\n' '#include <linux/types.h>' \
		'void xdiff_hook(__u64 a, __u64 b);' \
		'#define DIFF_ALGO_DIV(a, b) ({ __u64 __a = (a), __b = (b); xdiff_hook(__a, __b); __a / __b; })' \
		>"$tmp/hook.h"
	for d in "$tmp/old" "$tmp/new"; do
		sed -i -E '/\+= div64_u64\(.*s->cwnd\);/ s/div64_u64\(/DIFF_ALGO_DIV(/' \
			"$d/algo/smartt.c" "$d/algo/strack.c"
		grep -q DIFF_ALGO_DIV "$d/algo/smartt.c" "$d/algo/strack.c" ||
			{ echo "diff_algo: no cwnd division to hook in $d" >&2; exit 1; }
	done
	cflags+=" -include $tmp/hook.h"
fi
${CC:-cc} $cflags -I"$tmp/old" -o "$tmp/old.bin" "$here/diff_algo.c" "$tmp"/old/algo/*.c
${CC:-cc} $cflags -I"$tmp/new" -o "$tmp/new.bin" "$here/diff_algo.c" "$tmp"/new/algo/*.c
rc=0
for seed in $seeds; do
	a=$("$tmp/old.bin" "$flows" "$events" "$seed" | tr '\n' ' ')
	b=$("$tmp/new.bin" "$flows" "$events" "$seed" | tr '\n' ' ')
	if [ "$a" = "$b" ]; then
		echo "ok seed $seed: $b($flows flows x $events events, same as $rev)"
	else
		echo "not ok seed $seed: $rev: $a this tree: $b"
		rc=1
	fi
done
exit $rc
