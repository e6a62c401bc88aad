#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential check: the cores of this tree against those of a git
# revision, over the same random events (see diff_algo.c).
#
#   diff_algo.sh REV [FLOWS EVENTS [SEED...]]
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

mkdir -p "$tmp/old/algo"
git -C "$top" archive "$rev" kernel/algo | tar -x -C "$tmp/old" --strip-components=1
cflags="-std=gnu11 -O2 -D_GNU_SOURCE -Wall -Wno-unused-function"
${CC:-cc} $cflags -I"$tmp/old" -o "$tmp/old.bin" "$here/diff_algo.c" "$tmp"/old/algo/*.c
${CC:-cc} $cflags -I"$top/kernel" -o "$tmp/new.bin" "$here/diff_algo.c" "$top"/kernel/algo/*.c
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
