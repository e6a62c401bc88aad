#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-tcp: TCP congestion controls on an emulated ECN-marking fabric.
# Not a test: prints a table (and writes it to $BENCH_OUT if set).
#
# On the host:   selftests/bench/cc_bench_tcp.sh [RELEASE]
#   builds and stages smartt.ko for RELEASE (default 6.12.117+deb12-amd64)
#   and runs itself inside a QEMU guest (scripts/vm-run.sh).
# In a guest:    selftests/bench/cc_bench_tcp.sh --guest
#
# Fabric: smartt-fabric (the ECN-marking, trimming eBPF switch ports of
# Documentation/fabric.rst): hosts h0..h8 on one leaf, every port RATE with
# DELAY per link and a BUFFER-byte buffer (RED/ECN between 20 % and 80 %).
# Scenarios: N:1 incast (N = 4, 8; h1..hN -> h0) and a permutation
# (hi -> h(i+1) mod 9), every flow BYTES bytes, all started together.
# Algorithms: smartt with each profile, strack, dctcp, cubic, bbr.  Both
# ends run the algorithm (the receivers' listeners select it).  smartt and
# strack get the port rate (net.smartt.tcp_link_mbps) and the fabric's base
# RTT (net.smartt.tcp_base_rtt_us; BENCH_BASE=learned lets them learn it);
# BENCH_SYSCTLS adds net.smartt.* settings on every host.
#
# Columns: max and median flow completion time (from the common start time,
# handshake included, to the receiver's close after the last byte), max FCT / ideal where ideal =
# bytes through the most loaded bottleneck / RATE + the fabric's base RTT,
# Jain's index of the flows' rates (bytes / FCT), retransmitted segments
# (nstat TcpRetransSegs over all senders), the peak queue of any switch
# port (the port programs' own maximum, smartt-fabric status).
set -u
# shellcheck source=selftests/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"

if [ "${1:-}" != --guest ]; then
	bench_build bench-tcp "${1:-6.12.117+deb12-amd64}" SMARTT_TEST_MODULES=1 || exit 1
	bench_boot
fi

RATE_MBIT=${BENCH_RATE_MBIT:-16}
DELAY=${BENCH_DELAY:-1ms}
BUFFER=${BENCH_BUFFER:-64k}
BYTES=${BENCH_BYTES:-1000000}
ALGOS=${BENCH_ALGOS:-smartt:smartt smartt:smartt-2024 smartt:nscc strack dctcp cubic bbr}
NH=9
TOOL=$top/selftests/smartt_cc_tool.py
SF=$top/userspace/smartt-fabric
export SMARTT_FABRIC_NAME=bench

bench_load_module
modprobe tcp_dctcp 2>/dev/null
modprobe tcp_bbr 2>/dev/null
modprobe sch_fq 2>/dev/null
[ -x "$top/build/bpf/smartt-fabric-bpf" ] || { echo "build/bpf/smartt-fabric-bpf missing (make -C bpf)"; exit 1; }
tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do pkill -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	"$SF" down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

ns() { awk -v h="h$1" '$1 == h { print $2 }' "$tmp/hosts"; }
ip4() { awk -v h="h$1" '$1 == h { print $4 }' "$tmp/hosts"; }

fabric_up() {
	local i
	"$SF" up --hosts $NH --rate "${RATE_MBIT}mbit" --delay "$DELAY" \
		--buffer "$BUFFER" >"$tmp/up" 2>&1 || { cat "$tmp/up"; exit 1; }
	"$SF" hosts >"$tmp/hosts" || exit 1
	BASE_RTT_US=$("$SF" status --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["base_rtt_ns"] // 1000)')
	local base=
	[ "${BENCH_BASE:-configured}" = configured ] && base=net.smartt.tcp_base_rtt_us=$BASE_RTT_US
	for i in $(seq 0 $((NH - 1))); do
		# shellcheck disable=SC2086 # BENCH_SYSCTLS: more name=value words
		ip netns exec "$(ns "$i")" sysctl -qw net.ipv4.tcp_ecn=1 \
			net.smartt.tcp_link_mbps="$RATE_MBIT" $base ${BENCH_SYSCTLS:-} || exit 1
	done
}

peak_queue() { # the largest max_queue_bytes of any switch port since the reset
	"$SF" status --json | python3 -c '
import json, sys
print(max((p.get("max_queue_bytes", 0) for p in json.load(sys.stdin)["ports"]), default=0))'
}

retrans() {
	local i s=0 v
	for i in $(seq 0 $((NH - 1))); do
		v=$(ip netns exec "$(ns "$i")" nstat -az TcpRetransSegs 2>/dev/null | awk '/TcpRetransSegs/ {print $2}')
		s=$((s + ${v:-0}))
	done
	echo $s
}

run() { # run ALGO SCENARIO PAIRS... ("src:dst")
	local algo=$1 scen=$2 cc=${1%%:*} prof= pr p src dst n=0 port i
	shift 2
	[ "$cc" != "$algo" ] && prof=${algo#*:}
	for i in $(seq 0 $((NH - 1))); do
		[ -n "$prof" ] && ip netns exec "$(ns "$i")" sysctl -qw net.smartt.tcp_smartt_profile="$prof"
	done
	rm -f "$tmp"/fct.* "$tmp"/srv.*
	for pr in "$@"; do
		dst=${pr#*:}
		port=$((6000 + n))
		ip netns exec "$(ns "$dst")" python3 "$TOOL" server "$(ip4 "$dst")" $port \
			--cc "$cc" --ready "$tmp/srv.$port" &
		pids+=($!)
		n=$((n + 1))
	done
	for p in $(seq 1 100); do
		[ "$(ls "$tmp"/srv.* 2>/dev/null | wc -l)" = "$n" ] && break
		sleep 0.1
	done
	local r0 cl=() t_start t_run=$SECONDS
	r0=$(retrans)
	"$SF" reset >/dev/null
	# every client waits for the same start time (python starts slowly)
	t_start=$(date +%s.%N | awk '{ printf "%.3f", $1 + 2 }')
	n=0
	for pr in "$@"; do
		src=${pr%%:*}
		dst=${pr#*:}
		ip netns exec "$(ns "$src")" python3 "$TOOL" client "$(ip4 "$dst")" $((6000 + n)) \
			--cc "$cc" --bytes "$BYTES" --fct --start-at "$t_start" >"$tmp/fct.$n" 2>&1 &
		cl+=($!)
		n=$((n + 1))
	done
	wait "${cl[@]}"
	local rtx=$(( $(retrans) - r0 )) peak
	peak=$(peak_queue)
	for p in "${pids[@]}"; do pkill -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	pids=()
	# most loaded bottleneck: the destination with the most flows
	local load
	load=$(printf '%s\n' "$@" | cut -d: -f2 | sort | uniq -c | sort -rn | awk 'NR==1 {print $1}')
	echo "# $algo $scen: $((SECONDS - t_run)) s" >&2
	python3 - "$tmp" "$algo" "$scen" "$BYTES" "$load" "$((RATE_MBIT * 1000000))" "$BASE_RTT_US" "$rtx" "$peak" <<'PY'
import glob, re, statistics, sys
d, algo, scen, nbytes, load, rate, brtt, rtx, peak = sys.argv[1:]
f = []
for p in glob.glob(d + "/fct.*"):
    m = re.search(r"fct=([0-9.]+)", open(p).read())
    f.append(float(m.group(1)) if m else float("nan"))
ok = [x for x in f if x == x]
ideal = int(load) * int(nbytes) * 8 / int(rate) + int(brtt) / 1e6
if ok:
    r = [int(nbytes) * 8 / x / 1e6 for x in ok]
    j = sum(r) ** 2 / (len(r) * sum(v * v for v in r))
    print("%-20s %-12s %5d %8.3f %8.3f %6.2f %6.3f %7s %9s" % (
        algo, scen, len(f) - len(ok), max(ok), statistics.median(ok),
        max(ok) / ideal, j, rtx, peak))
else:
    print("%-20s %-12s all flows failed" % (algo, scen))
PY
}

fabric_up
hdr=$(printf "%-20s %-12s %5s %8s %8s %6s %6s %7s %9s" algo scenario fail \
	"max_fct" "med_fct" "x_ideal" jain retrans peak_B)
{
	echo "# bench-tcp: $(uname -r), smartt-fabric $NH hosts, ports ${RATE_MBIT} Mbit/s, $DELAY per link, buffer $BUFFER, base RTT ${BASE_RTT_US} us (${BENCH_BASE:-configured}), $BYTES B per flow${BENCH_SYSCTLS:+, $BENCH_SYSCTLS}"
	echo "$hdr"
	for algo in $ALGOS; do
		run "$algo" "incast4" 1:0 2:0 3:0 4:0
		run "$algo" "incast8" 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0
		run "$algo" "permutation" 0:1 1:2 2:3 3:4 4:5 5:6 6:7 7:8 8:0
	done
} | tee "${BENCH_OUT:-/dev/null}"
