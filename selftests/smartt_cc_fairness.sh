#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fairness of the TCP congestion control smartt (and strack): flows sharing
# one 20 Mbit/s bottleneck that ECN-marks above ~20 packets (RED with a step
# at K, as DCTCP-style switches do).  Both ends run the algorithm (the
# receivers' listeners select it), so ECN is negotiated.
#
#  1. 4 flows, same base RTT (1 ms on the ACK path): Jain's index of their
#     throughputs over seconds WARM..WARM+MEAS >= 0.95.
#  2. 2 + 2 flows with different base RTTs (1 ms and 4 ms on the ACK path:
#     intra- vs inter-leaf): Jain's index >= 0.95 as well (the fair-increase
#     rule's claim).
# Throughput is measured from bytes_acked in ss -ti at two instants, not
# from timing of the application.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/cc_lib.sh"

require_root
require_cmd ip tc ss python3
modprobe smartt || skip_all "no smartt.ko"
ALGOS=${CC_FAIR_ALGOS:-smartt strack}
WARM=${CC_FAIR_WARM:-8}
MEAS=${CC_FAIR_MEAS:-10}
JAIN_MIN=${CC_FAIR_JAIN:-0.95}

setup() {
	cc_pair 20mbit || return 1
	tc -n "$CC_A" qdisc del dev va parent 1:1 handle 10: 2>/dev/null
	tc -n "$CC_A" qdisc add dev va parent 1:1 handle 10: red limit 400000 \
		min 30000 max 31000 avpkt 1500 burst 21 probability 1.0 \
		bandwidth 20mbit ecn || return 1
	# ACK-path delay per receiver port: 5001/5002 -> 1 ms, 5003/5004 -> 4 ms
	tc -n "$CC_B" qdisc add dev vb root handle 1: prio bands 3 || return 1
	tc -n "$CC_B" qdisc add dev vb parent 1:1 handle 11: netem delay 1ms limit 10000
	tc -n "$CC_B" qdisc add dev vb parent 1:2 handle 12: netem delay 4ms limit 10000
	tc -n "$CC_B" qdisc add dev vb parent 1:3 handle 13: netem delay 1ms limit 10000
	local p
	for p in 5001 5002; do
		tc -n "$CC_B" filter add dev vb parent 1: protocol ip prio 1 u32 \
			match ip sport $p 0xffff flowid 1:1
	done
	for p in 5003 5004; do
		tc -n "$CC_B" filter add dev vb parent 1: protocol ip prio 1 u32 \
			match ip sport $p 0xffff flowid 1:2
	done
	ip netns exec "$CC_A" sysctl -qw net.smartt.tcp_link_mbps=20 \
		net.smartt.tcp_network_rtt_us=1000 net.smartt.tcp_start=1
}

acked() { # acked: "sport bytes_acked" per sender connection to 5001..5004
	ip netns exec "$CC_A" ss -tin | python3 -c '
import re, sys
port = None
for line in sys.stdin:
    m = re.search(r"198\.18\.0\.1:(\d+)\s+198\.18\.0\.2:(\d+)", line)
    if m:
        port = m.group(1) if 5001 <= int(m.group(2)) <= 5004 else None
        continue
    m = re.search(r"bytes_acked:(\d+)", line)
    if m and port:
        print(port, m.group(1))
        port = None'
}

jain() { # jain FILE0 FILE1 SECS: per-flow Mbit/s and Jain's index
	python3 - "$@" <<'PY'
import sys
a = dict(l.split() for l in open(sys.argv[1]))
b = dict(l.split() for l in open(sys.argv[2]))
secs = float(sys.argv[3])
x = [(int(b[k]) - int(a[k])) * 8 / secs / 1e6 for k in sorted(b) if k in a]
j = sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if x and sum(x) else 0
print("flows %s Mbit/s, total %.2f, jain %.3f" % (
    " ".join("%.2f" % v for v in x), sum(x), j))
sys.exit(0 if len(x) == 4 and j >= float(sys.argv[4]) else 1)
PY
}

run_case() { # run_case ALGO DESC PORT...
	local algo=$1 desc=$2 p pids=() out
	shift 2
	for p in "$@"; do
		cc_client "$CC_A" 198.18.0.2 "$p" --cc "$algo" \
			--secs $((WARM + MEAS + 3)) >/dev/null 2>&1 &
		pids+=($!)
	done
	sleep "$WARM"
	acked >"$CC_TMP/a0"
	sleep "$MEAS"
	acked >"$CC_TMP/a1"
	wait "${pids[@]}"
	out=$(jain "$CC_TMP/a0" "$CC_TMP/a1" "$MEAS" "$JAIN_MIN")
	local rc=$?
	echo "# $algo $desc: $out"
	[ $rc = 0 ] && ktap_result OK "$algo: $desc, Jain >= $JAIN_MIN after ${WARM}s ($out)" ||
		ktap_result FAIL "$algo: $desc, Jain >= $JAIN_MIN after ${WARM}s ($out)"
}

for algo in $ALGOS; do
	setup || skip_all "setup failed"
	for p in 5001 5002 5003 5004; do
		cc_server "$CC_B" 198.18.0.2 $p --cc "$algo"
	done
	run_case "$algo" "4 flows, base RTT 1 ms" 5001 5002 5001 5002
	run_case "$algo" "2 flows at 1 ms + 2 at 4 ms base RTT" 5001 5002 5003 5004
	cc_kill_all
	netns_cleanup
done

ktap_exit
