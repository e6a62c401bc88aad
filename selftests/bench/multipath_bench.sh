#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-multipath: the transport's path selectors side by side on
# smartt-fabric.  Not a test: prints a table (and writes it to $BENCH_OUT).
#
# On the host:   selftests/bench/multipath_bench.sh [RELEASE]
#   builds and stages smartt.ko for RELEASE (default 6.12.117+deb12-amd64)
#   and the fabric's BPF programs, and runs itself inside a QEMU guest.
# In a guest:    selftests/bench/multipath_bench.sh --guest
#
# Fabrics: 8 hosts on 2 leaves, 4 spines, host links RATE:
#   oversub  uplinks at RATE/2 (2:1 oversubscribed: --oversub 2);
#   faults   uplinks at RATE, l0:s1 blackholed and l0:s2 slowed to RATE/10.
# Traffic (every host at once, messages of SIZE bytes, smartt_multipath_test):
#   permutation  host i sends PERM_MSGS messages to host (i + 4) mod 8
#                (every flow crosses the spines);
#   all-to-all   every host sends A2A_MSGS messages to each other host.
# Selectors: reps oblivious ecmp strack-bitmap reps-single (BENCH_LBS), all
# with the same congestion control (BENCH_CC, default "none": a fixed
# BENCH_WINDOW) and selector knobs (BENCH_LB_KNOBS, written to every
# host's net.smartt.transport_lb_knobs, e.g. "freeze_time=500000000").
#
# Columns: messages that failed (ETIMEDOUT: no progress for 10 s), max and
# median FCT of the others (ms, from sendmsg() to the last
# acknowledgment; a host's messages are all queued at the start), max FCT /
# ideal, where ideal = the bytes through the most loaded leaf's uplinks over
# their working capacity (or a host link's bytes over RATE, if larger) --
# perfect spraying, no queueing; fabric drops (buffer, blackhole) and trims;
# retransmitted packets; REPS freezes.
set -u
# shellcheck source=selftests/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"

if [ "${1:-}" != --guest ]; then
	bench_build bench-multipath "${1:-6.12.117+deb12-amd64}" &&
		make -s -C "$top/selftests" >/dev/null || exit 1
	bench_boot BENCH_LOGS="$bench_out/logs"
fi

RATE_MBIT=${BENCH_RATE_MBIT:-1}
SIZE=${BENCH_SIZE:-16000}
PERM_MSGS=${BENCH_PERM_MSGS:-8}
A2A_MSGS=${BENCH_A2A_MSGS:-2}
LBS=${BENCH_LBS:-reps oblivious ecmp strack-bitmap reps-single}
LB_KNOBS=${BENCH_LB_KNOBS:-}
CC=${BENCH_CC:-none}
WINDOW=${BENCH_WINDOW:-32768}
FABRICS=${BENCH_FABRICS:-oversub faults}
NH=8
bin=$top/build/selftests/smartt_multipath_test
SF=$top/userspace/smartt-fabric
export SMARTT_FABRIC_NAME=mpb

bench_load_module
modprobe sch_fq 2>/dev/null
tmp=$(mktemp -d)
cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	"$SF" down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

addr() { awk -v h="h$1" '$1 == h { print $4 }' "$tmp/hosts"; }
ns() { echo "sf-$SMARTT_FABRIC_NAME-h$1"; }

# run FABRIC PATTERN LB
run() {
	local fab=$1 pat=$2 lb=$3 i j n port=$((1000 + RANDOM % 1000)) dsts cnt per
	local spids=() rpids=()
	rm -f "$tmp"/send.* "$tmp"/recv.* "$tmp"/fct.* "$tmp/hold"
	"$SF" reset
	for i in $(seq 0 $((NH - 1))); do
		if [ "$pat" = permutation ]; then n=$PERM_MSGS; else n=$((A2A_MSGS * (NH - 1))); fi
		ip netns exec "$(ns "$i")" env SMARTT_MP_TIMEOUT=30 SMARTT_MP_HOLD="$tmp/hold" "$bin" recv 4 $port "$n" "$SIZE" \
			>"$tmp/recv.$i" 2>&1 &
		rpids+=($!)
	done
	for i in $(seq 0 $((NH - 1))); do
		for j in $(seq 100); do grep -q listening "$tmp/recv.$i" && break; sleep 0.1; done
	done
	for i in $(seq 0 $((NH - 1))); do
		if [ "$pat" = permutation ]; then
			dsts=$(addr $(((i + 4) % NH)))
			cnt=$PERM_MSGS
		else
			dsts=
			for j in $(seq 0 $((NH - 1))); do [ "$j" != "$i" ] && dsts="$dsts $(addr "$j")"; done
			cnt=$A2A_MSGS
		fi
		ip netns exec "$(ns "$i")" env SMARTT_LB="$lb" SMARTT_CC="$CC" SMARTT_WINDOW="$WINDOW" \
			SMARTT_MP_TIMEOUT=300 SMARTT_MP_FCTS="$tmp/fct.$i" \
			"$bin" send 4 $port "$SIZE" "$cnt" $dsts >"$tmp/send.$i" 2>&1 &
		spids+=($!)
	done
	for i in "${spids[@]}"; do wait "$i"; done
	touch "$tmp/hold"
	for i in "${rpids[@]}"; do wait "$i"; done
	if [ -n "${BENCH_LOGS:-}" ]; then
		mkdir -p "$BENCH_LOGS/$fab-$pat-$lb"
		cp "$tmp"/send.* "$tmp"/recv.* "$BENCH_LOGS/$fab-$pat-$lb/"
	fi
	"$SF" status --json >"$tmp/status.json"
	per=$PERM_MSGS
	[ "$pat" = permutation ] || per=$((A2A_MSGS * (NH - 1)))
	python3 - "$tmp" "$fab" "$pat" "$lb" "$SIZE" "$per" "$RATE_MBIT" "$NH" <<'PY'
import glob, json, statistics, sys
d, fab, pat, lb, size, per, rate, nh = sys.argv[1:]
size, per, rate, nh = int(size), int(per), float(rate) * 1e6, int(nh)
f = []
for p in glob.glob(d + "/fct.*"):
    f += [int(x) / 1000 for x in open(p).read().split()]
sends = []
for p in glob.glob(d + "/send.*"):
    for line in open(p):
        if line.startswith("{"):
            sends.append(json.loads(line))
st = json.load(open(d + "/status.json"))
drops = sum(p["drops"] for p in st["ports"])
trims = sum(p["trimmed"] for p in st["ports"])
rtx = sum(s["retransmits"] for s in sends)
frz = sum(s["freezes"] for s in sends)
# Ideal: hosts 0-3 on l0, 4-7 on l1.  Bytes leaving leaf 0 over its uplinks:
# permutation 4 hosts x per x size; all-to-all 4 hosts x 4 remote x A2A.
remote = 4 * per * size if pat == "permutation" else 4 * 4 * (per // 7) * size
up = {"oversub": 4 * rate / 2, "faults": 2 * rate + rate / 10}[fab]
host = per * size * 8 / rate
fail = nh * per - len(f)
ideal = max(host, remote * 8 / up)
if f:
    print("%-8s %-12s %-14s %4d %9.0f %9.0f %7.2f %6d %6d %6d %5d" % (
        fab, pat, lb, fail, max(f), statistics.median(f), max(f) / 1000 / ideal,
        drops, trims, rtx, frz))
else:
    print("%-8s %-12s %-14s all failed" % (fab, pat, lb))
PY
}

{
	echo "# bench-multipath: $(uname -r), $NH hosts, 2 leaves, 4 spines, host links ${RATE_MBIT} Mbit/s, cc $CC (window $WINDOW B)${LB_KNOBS:+, selector knobs $LB_KNOBS}, messages of $SIZE B; permutation $PERM_MSGS msgs per host, all-to-all $A2A_MSGS msgs per pair"
	printf "%-8s %-12s %-14s %4s %9s %9s %7s %6s %6s %6s %5s\n" fabric pattern lb fail \
		max_ms med_ms x_ideal drops trims rtx frz
	for fab in $FABRICS; do
		case $fab in
		oversub) args=(--oversub 2) ;;
		faults) args=(--uplink-rate "${RATE_MBIT}mbit") ;;
		*) echo "unknown fabric $fab"; exit 1 ;;
		esac
		"$SF" up --hosts $NH --leaves 2 --spines 4 --rate "${RATE_MBIT}mbit" --buffer bdp "${args[@]}" \
			>"$tmp/up" 2>&1 || { cat "$tmp/up"; exit 1; }
		sed 's/^/# /' "$tmp/up"
		"$SF" hosts >"$tmp/hosts"
		if [ -n "$LB_KNOBS" ]; then
			for i in $(seq 0 $((NH - 1))); do
				ip netns exec "$(ns "$i")" sysctl -q -w \
					net.smartt.transport_lb_knobs="$LB_KNOBS" || exit 1
			done
		fi
		if [ "$fab" = faults ]; then
			"$SF" fail l0:s1 blackhole &&
				"$SF" fail l0:s2 rate="$((RATE_MBIT * 100))kbit" || exit 1
		fi
		for pat in permutation all-to-all; do
			for lb in $LBS; do
				run "$fab" "$pat" "$lb"
			done
		done
		"$SF" down >/dev/null
	done
} | tee "${BENCH_OUT:-/dev/null}"
