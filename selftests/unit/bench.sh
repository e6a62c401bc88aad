#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per event for each rule of each profile, measured with
# valgrind callgrind inside the core's event function (inclusive), and the
# per-flow state sizes, beside the SMaRTT paper's figures.
#
#   bench.sh BENCH_BINARY [N]
set -euo pipefail

bin=${1:?usage: bench.sh BENCH_BINARY [N]}
n=${2:-1000}
command -v valgrind >/dev/null || { echo "bench: valgrind not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# smartt kernel/algo: instructions executed per event, inside the core's"
echo "# event function (callgrind --toggle-collect, $(${CC:-cc} --version | head -1), -O2,"
echo "# $n identical events per rule from the same saved state)."
echo "# Paper (smartt-uec-nscc.txt III-H, gcc 10.2.1, Xeon X7550): 59 (QuickAdapt)"
echo "# .. 94 (a core case) instructions per packet.  Goal: every rule <= 94,"
echo "# the common (steady-state, uncongested) rules, marked (C), <= 60."
echo "# OVER marks a rule above its goal (a benchmark: the exit status ignores it)."
printf '%-28s %6s %5s %-9s %6s\n' "profile/rule" "instr" "goal" "status" "paper"
over=0
while read -r name fn common; do
	valgrind --tool=callgrind --toggle-collect="$fn" \
		--callgrind-out-file="$tmp/cg.out" "$bin" run "$name" "$n" \
		>/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	ir=$(awk '/^totals:/ { print $2 }' "$tmp/cg.out")
	per=$(( (ir + n / 2) / n ))
	goal=94
	label=$name
	if [ "$common" = common ]; then
		goal=60
		label="$name (C)"
	fi
	status=ok
	if [ "$per" -gt "$goal" ]; then
		status="OVER +$(( per - goal ))"
		over=$(( over + 1 ))
	fi
	case "$name" in
	*/QA) paper=59 ;;
	*) paper=94 ;;
	esac
	printf '%-28s %6d %5d %-9s %6d\n' "$label" "$per" "$goal" "$status" "$paper"
done < <("$bin" list)
echo "# rules over their goal: $over"
echo
echo "# per-flow state, bytes (paper: 19 bytes per flow + 28 global;"
echo "# TCP private area ICSK_CA_PRIV_SIZE = 104 on 6.1 and 6.12)"
"$bin" sizes | while read -r what size; do
	case "$what" in
	smartt_state | strack_state) note="per flow, TCP CC state (<= 104)" ;;
	smartt_reps | smartt_reps1 | smartt_bitmap) note="per flow, path selector" ;;
	*) note="per configuration (shared by flows)" ;;
	esac
	printf '%-16s %6d   paper 19   %s\n' "$what" "$size" "$note"
done
