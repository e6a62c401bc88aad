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
# Fabric: hosts h0..h8 behind one switch (a bridge in its own netns); each
# switch port towards a host is the bottleneck: htb at RATE, RED with a
# step ECN mark at ~K packets (DCTCP-style), 0.5 ms of delay on every host
# uplink (base RTT ~1 ms plus the emulator's).  Scenarios: N:1 incast (N =
# 4, 8; h1..hN -> h0) and a permutation (hi -> h(i+1) mod 9), every flow
# BYTES bytes, all started together.  Algorithms: smartt with each profile,
# strack, dctcp, cubic, bbr.  Both ends run the algorithm (receivers'
# listeners select it).
#
# Columns: max and median flow completion time (from connect to the
# receiver's close after the last byte), max FCT / ideal where ideal =
# bytes through the most loaded bottleneck / RATE + base RTT, Jain's index
# of the flows' rates (bytes / FCT), retransmitted segments (nstat
# TcpRetransSegs over all senders), peak backlog of the bottleneck ports
# (sampled every 20 ms).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

if [ "${1:-}" != --guest ]; then
	rel=${1:-6.12.117+deb12-amd64}
	out=${BENCH_OUT_DIR:-$top/build/bench-tcp}
	mkdir -p "$out"
	"$top"/scripts/build-module.sh "$rel" SMARTT_TEST_MODULES=1 >/dev/null &&
		"$top"/scripts/stage-modules.sh "$rel" "$top/build/$rel" >/dev/null || exit 1
	exec "$top"/scripts/vm-run.sh -o "$out" "$rel" -- \
		env BENCH_OUT="$out/bench-tcp.txt" BENCH_MODDIR="build/$rel" \
		"$here/cc_bench_tcp.sh" --guest
fi

RATE=${BENCH_RATE:-10mbit}
RATE_BPS=${BENCH_RATE_BPS:-10000000}
BYTES=${BENCH_BYTES:-1000000}
ALGOS=${BENCH_ALGOS:-smartt:smartt smartt:smartt-2024 smartt:nscc strack dctcp cubic bbr}
NH=9
TOOL=$top/selftests/smartt_cc_tool.py
BASE_RTT_US=1000

rel=$(uname -r)
if [ -n "${BENCH_MODDIR:-}" ]; then
	staged=$top/$BENCH_MODDIR/modroot/lib/modules/$rel
	cp -r "$staged/updates" "/lib/modules/$rel/" && cp "$staged"/modules.* "/lib/modules/$rel/"
fi
modprobe smartt || { echo "no smartt.ko"; exit 1; }
modprobe tcp_dctcp 2>/dev/null
modprobe tcp_bbr 2>/dev/null
tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do pkill -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del bsw 2>/dev/null
	for i in $(seq 0 $((NH - 1))); do ip netns del "bh$i" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

fabric_up() {
	local i
	ip netns add bsw
	ip -n bsw link add br0 type bridge
	ip -n bsw link set br0 up
	for i in $(seq 0 $((NH - 1))); do
		ip netns add "bh$i"
		ip link add eth0 netns "bh$i" type veth peer name "p$i" netns bsw
		ip -n "bh$i" addr add "198.18.0.$((i + 1))/24" dev eth0
		ip -n "bh$i" link set eth0 up
		ip -n "bh$i" link set lo up
		ip -n bsw link set "p$i" master br0 up
		ip netns exec "bh$i" ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1
		ip netns exec bsw ethtool -K "p$i" tso off gso off gro off >/dev/null 2>&1
		tc -n "bh$i" qdisc add dev eth0 root netem delay 0.5ms limit 10000
		tc -n bsw qdisc add dev "p$i" root handle 1: htb default 1 r2q 100
		tc -n bsw class add dev "p$i" parent 1: classid 1:1 htb rate "$RATE" ceil "$RATE"
		tc -n bsw qdisc add dev "p$i" parent 1:1 handle 10: red limit 1000000 \
			min 30000 max 31000 avpkt 1500 burst 21 probability 1.0 \
			bandwidth "$RATE" ecn
		ip netns exec "bh$i" sysctl -qw net.smartt.tcp_link_mbps=$((RATE_BPS / 1000000)) \
			net.smartt.tcp_network_rtt_us=$BASE_RTT_US net.smartt.tcp_start=1
	done
}

peak_sampler() { # peak backlog (bytes) over all switch ports, until killed
	local max=0 b
	while :; do
		for b in $(tc -n bsw -s qdisc show | awk '/backlog/ {sub("b","",$2); print $2}'); do
			case $b in *K) b=$(( ${b%K} * 1000 ));; *M) b=$(( ${b%M} * 1000000 ));; esac
			[ "${b%%[!0-9]*}" -gt "$max" ] 2>/dev/null && max=${b%%[!0-9]*}
		done
		echo "$max" >"$tmp/peak"
		sleep 0.02
	done
}

retrans() {
	local i s=0 v
	for i in $(seq 0 $((NH - 1))); do
		v=$(ip netns exec "bh$i" nstat -az TcpRetransSegs 2>/dev/null | awk '/TcpRetransSegs/ {print $2}')
		s=$((s + ${v:-0}))
	done
	echo $s
}

run() { # run ALGO SCENARIO PAIRS... ("src:dst")
	local algo=$1 scen=$2 cc=${1%%:*} prof= pr p src dst n=0 port
	shift 2
	[ "$cc" != "$algo" ] && prof=${algo#*:}
	for i in $(seq 0 $((NH - 1))); do
		[ -n "$prof" ] && ip netns exec "bh$i" sysctl -qw net.smartt.tcp_smartt_profile="$prof"
	done
	rm -f "$tmp"/fct.* "$tmp"/srv.*
	for pr in "$@"; do
		dst=${pr#*:}
		port=$((6000 + n))
		ip netns exec "bh$dst" python3 "$TOOL" server "198.18.0.$((dst + 1))" $port \
			--cc "$cc" --ready "$tmp/srv.$port" &
		pids+=($!)
		n=$((n + 1))
	done
	for p in $(seq 1 100); do
		[ "$(ls "$tmp"/srv.* 2>/dev/null | wc -l)" = "$n" ] && break
		sleep 0.1
	done
	local r0
	r0=$(retrans)
	echo 0 >"$tmp/peak"
	peak_sampler &
	local ps=$! cl=()
	n=0
	for pr in "$@"; do
		src=${pr%%:*}
		dst=${pr#*:}
		ip netns exec "bh$src" python3 "$TOOL" client "198.18.0.$((dst + 1))" $((6000 + n)) \
			--cc "$cc" --bytes "$BYTES" --fct >"$tmp/fct.$n" 2>&1 &
		cl+=($!)
		n=$((n + 1))
	done
	wait "${cl[@]}"
	kill $ps 2>/dev/null
	wait $ps 2>/dev/null
	local rtx=$(( $(retrans) - r0 ))
	for p in "${pids[@]}"; do pkill -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	pids=()
	# most loaded bottleneck: the destination with the most flows
	local load
	load=$(printf '%s\n' "$@" | cut -d: -f2 | sort | uniq -c | sort -rn | awk 'NR==1 {print $1}')
	python3 - "$tmp" "$algo" "$scen" "$BYTES" "$load" "$RATE_BPS" "$BASE_RTT_US" "$rtx" "$(cat "$tmp/peak")" <<'PY'
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
	echo "# bench-tcp: $(uname -r), $NH hosts, ports $RATE with RED ECN step at ~20 pkt, base RTT ~${BASE_RTT_US} us + emulation, $BYTES B per flow"
	echo "$hdr"
	for algo in $ALGOS; do
		run "$algo" "incast4" 1:0 2:0 3:0 4:0
		run "$algo" "incast8" 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0
		run "$algo" "permutation" 0:1 1:2 2:3 3:4 4:5 5:6 6:7 7:8 8:0
	done
} | tee "${BENCH_OUT:-/dev/null}"
