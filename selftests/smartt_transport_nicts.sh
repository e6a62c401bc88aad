#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport's congestion control takes the fabric RTT from NIC
# timestamps when the fabric stamps, the host RTT when it does not
# (Documentation/transport.rst, "Congestion control"; the formula in
# Documentation/protocol.rst, "NIC timestamps and RTT").
#
# Two hosts on smartt-fabric, 1 ms per link.  The sender's NIC port
# (h0:eth0) gets a standing queue of NICTS_STANDING (default 40 ms at the
# link rate): every DATA packet waits that long in the sender's NIC before
# its first bit leaves, i.e. before the NIC tx timestamp.  So the fabric
# RTT excludes it and the host RTT (send time to ACK arrival) includes it.
# A smartt-perf stream (cc smartt, then strack) runs with stamps on
# and then with stamps off (smartt-fabric set hN nic_ts=off); the RTT of
# every congestion-control sample is read from the tracepoint
# smartt_transport:smartt_transport_cc, the host RTT (srtt) of the same
# run from /proc/net/smartt_peers.
#
#   stamps on:  every CC sample >= the 4 ms of link delay (a real RTT, not
#               0), and their median at least NICTS_STANDING / 2 below the
#               host srtt of the same run (the NIC queue excluded; both
#               hold the fabric's queues and the emulator's jitter, which
#               TCG makes tens of ms), while that srtt is >= NICTS_STANDING;
#   stamps off: every CC sample >= NICTS_STANDING (the host RTT).
#
# Knobs: NICTS_RATE (10mbit), NICTS_STANDING (40 ms, in ms), NICTS_SECONDS
# (2), NICTS_CC ("smartt strack": the congestion controls to run).
# `make check` shares the long tests between its two plain guests
# (SMARTT_SELFTESTS_FULL=1 runs this one on both); this one runs on
# kernels: 6.1
# About 480 s in a guest beside others, hence its own limit:
# timeout=1200
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

# Wire format v2 (UET) has no field for NIC timestamps: the congestion
# control's RTT is the sender's interval less the receiver's service_time
# (Documentation/protocol.rst, "ACK_CC"), so the premise of this test is gone.
skip_all "wire format v2 carries no NIC timestamps: the RTT comes from service_time"

fabric_require
perf=$SMARTT_TOP/build/userspace/smartt-perf
[ -x "$perf" ] || skip_all "no $perf (make -C userspace smartt-perf)"
modprobe smartt 2>/dev/null || skip_all "cannot load smartt.ko"
tr=/sys/kernel/tracing
[ -d "$tr/events" ] || mount -t tracefs nodev "$tr" 2>/dev/null
ev=$tr/events/smartt_transport/smartt_transport_cc
[ -e "$ev/enable" ] || skip_all "no tracepoint smartt_transport:smartt_transport_cc"

RATE=${NICTS_RATE:-10mbit}
STANDING_MS=${NICTS_STANDING:-40}
SECONDS_=${NICTS_SECONDS:-2}
CCS=${NICTS_CC:-smartt strack}
[[ $STANDING_MS =~ ^[1-9][0-9]{0,3}$ ]] || skip_all "NICTS_STANDING: 1..9999 (ms), got '$STANDING_MS'"
[[ $SECONDS_ =~ ^[1-9][0-9]?$ ]] || skip_all "NICTS_SECONDS: 1..99, got '$SECONDS_'"
tmp=$__sf_tmp
# Figures go to the log even when check captures a command's output.
exec 3>&1
t_start=$(date +%s)

cleanup_trace() { echo 0 >"$ev/enable" 2>/dev/null; }
trap 'cleanup_trace; fabric_cleanup' EXIT

fabric_up --hosts 2 --rate "$RATE" --delay 1ms --mtu 1500 --buffer bdp
[ "$(fabric_backend)" = fq ] || skip_all "needs the fq (EDT) backend: htb cannot delay"
rate_bps=$(sf status --json h0:eth0 | json_get /dev/stdin 'd["ports"][0]["cfg"]["rate"]')
standing=$((rate_bps / 8 * STANDING_MS / 1000))
check "h0:eth0: standing queue of $STANDING_MS ms ($standing bytes at $RATE)" \
	sf set h0:eth0 standing="$standing"
dst="[$(host_field h1 ipv6)]"
echo 20000 >"$tr/buffer_size_kb"

# run LABEL CC PORT: a stream from h0 to h1; leaves $tmp/LABEL.sum (JSON).
run() {
	local label=$1 cc=$2 port=$3 spid ppid rc=0
	sf reset
	ip netns exec "$(host_field h1 ns)" "$perf" server --json -6 -p "$port" \
		>"$tmp/$label.s" 2>&1 &
	spid=$!
	wait_output "$tmp/$label.s" listening || { cat "$tmp/$label.s"; return 1; }
	ip netns exec "$(host_field h0 ns)" sh -c \
		'while :; do cat /proc/net/smartt_peers; sleep 0.3; done' >"$tmp/$label.peers" &
	ppid=$!
	echo >"$tr/trace"
	echo 1 >"$ev/enable"
	ip netns exec "$(host_field h0 ns)" timeout 60 "$perf" client --json -P stream \
		-d "$SECONDS_" -s 16K -o 4 -t 20 --cc "$cc" "$dst:$port" >"$tmp/$label.c" 2>&1 || rc=1
	echo 0 >"$ev/enable"
	kill "$ppid" "$spid" 2>/dev/null
	wait "$ppid" "$spid" 2>/dev/null
	cp "$tr/trace" "$tmp/$label.trace"
	python3 - "$tmp/$label.trace" "$tmp/$label.peers" "$port" >"$tmp/$label.sum" <<'EOF'
import json, re, sys
port = sys.argv[3]
rtt = sorted(int(m.group(1)) for m in
             (re.search(r"smartt_transport_cc: \S+ ack .*dport=%s .*rtt=(\d+)" % port, l)
              for l in open(sys.argv[1])) if m)
# port peer peer_port cc mss cwnd in_flight srtt_us ...: the sender's peer
srtt = [int(f[7]) * 1000 for f in (l.split() for l in open(sys.argv[2]))
        if len(f) > 7 and f[2] == port and f[7] != "0"]
q = lambda v, x: v[min(len(v) - 1, int(len(v) * x))] if v else None
print(json.dumps({"n": len(rtt), "min": q(rtt, 0), "median": q(rtt, 0.5),
                  "p90": q(rtt, 0.9), "max": rtt[-1] if rtt else None,
                  "srtt_n": len(srtt), "srtt_median": q(sorted(srtt), 0.5)}))
EOF
	echo "# $label: cc $cc, RTT ns of the CC samples and host srtt: $(cat "$tmp/$label.sum")" >&3
	echo "# $label: client $(tail -1 "$tmp/$label.c"); h0 ts_tx $(port_stat h0:eth0 ts_tx)," \
		"h1 ts_rx $(port_stat h1:eth0 ts_rx)" >&3
	return $rc
}

s() { json_get "$tmp/$1.sum" "$2"; }
ms() { s "$1" "\"%.1f ms\" % ((d[\"$2\"] or 0) / 1e6)"; }
delay_floor=4000000
half=$((STANDING_MS * 500000))
full=$((STANDING_MS * 1000000))
port=1720
for cc in $CCS; do
	port=$((port + 1))
	sf set h0 nic_ts=on >/dev/null && sf set h1 nic_ts=on >/dev/null
	check "cc $cc, stamps on: stream ran" run "on-$cc" "$cc" "$port"
	check "cc $cc, stamps on: fabric stamped (h0 ts_tx, h1 ts_rx > 0)" \
		test "$(port_stat h0:eth0 ts_tx)" -gt 0 -a "$(port_stat h1:eth0 ts_rx)" -gt 0
	check "cc $cc, stamps on: >= 20 CC samples" test "$(s "on-$cc" 'd["n"]')" -ge 20
	check "cc $cc, stamps on: every CC RTT >= the 4 ms of link delay" \
		test "$(s "on-$cc" 'd["min"] or 0')" -ge $delay_floor
	check "cc $cc, stamps on: CC RTT median ($(ms "on-$cc" median)) <= host srtt ($(ms "on-$cc" srtt_median)) - $((STANDING_MS / 2)) ms (the NIC queue excluded)" \
		test "$(s "on-$cc" 'd["median"] or 1 << 62')" -le \
		"$(( $(s "on-$cc" 'd["srtt_median"] or 0') - half ))"
	check "cc $cc, stamps on: host srtt >= $STANDING_MS ms (the NIC queue included)" \
		test "$(s "on-$cc" 'd["srtt_median"] or 0')" -ge $full

	port=$((port + 1))
	sf set h0 nic_ts=off >/dev/null && sf set h1 nic_ts=off >/dev/null
	check "cc $cc, stamps off: stream ran" run "off-$cc" "$cc" "$port"
	check "cc $cc, stamps off: nothing stamped" \
		test "$(port_stat h0:eth0 ts_tx)/$(port_stat h1:eth0 ts_rx)" = 0/0
	check "cc $cc, stamps off: >= 5 CC samples" test "$(s "off-$cc" 'd["n"]')" -ge 5
	check "cc $cc, stamps off: every CC RTT >= $STANDING_MS ms (the host RTT)" \
		test "$(s "off-$cc" 'd["min"] or 0')" -ge $full
	echo "# cc $cc: median CC RTT stamps off / on: $(python3 -c 'import sys; print("%.1f" % (int(sys.argv[1]) / int(sys.argv[2])))' \
		"$(s "off-$cc" 'd["median"] or 0')" "$(s "on-$cc" 'd["median"] or 1')")"
done
echo "# took $(($(date +%s) - t_start)) s"
ktap_exit
