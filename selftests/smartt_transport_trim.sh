#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport over smartt-fabric's trimming switch ports: a 2:1 incast
# into a 13 KB port buffer (three frames), so that the receiver's port trims
# packets to their headers.  Every message must still arrive exactly once
# (smartt-perf's message and byte counts on both sides), the fabric must
# have trimmed, the receiver must have seen the trimmed packets and
# answered them with NACKs, and the senders must have received those NACKs
# (/proc/net/smartt_stats through smarttctl).  IPv4 with cc "none" (a fixed
# window far above the buffer: trims all along), IPv6 with cc "smartt"
# (QuickAdapt on the NACKs).  A capture at the receiver of the IPv4
# incast decodes as UET with no malformed field (smarttctl decode and the
# Lua dissector, selftests/uet_capture_check.py) and holds the packets
# trimmed at the last hop (DSCP trimmed_lasthop) and their NACKs
# (TRIMMED_LASTHOP).
# `make check` shares the long tests between its two plain guests
# (SMARTT_SELFTESTS_FULL=1 runs this one on both); this one runs on
# kernels: 6.12
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fabric_require
perf=$SMARTT_TOP/build/userspace/smartt-perf
ctl=$SMARTT_TOP/userspace/smarttctl
[ -x "$perf" ] || skip_all "no $perf (make -C userspace smartt-perf)"
modprobe smartt 2>/dev/null || skip_all "cannot load smartt.ko"
RATE=${TRIM_RATE:-10mbit}
MSGS=${TRIM_MSGS:-12}
SIZE=${TRIM_SIZE:-16384}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; fabric_cleanup' EXIT

fabric_up --hosts 3 --rate "$RATE" --delay 1ms --buffer 13k --trim on

# stat HOST NAME: one counter of HOST's netns.
stat() {
	"$ctl" -n "$(host_field "$1" ns)" stats --json "$2" |
		python3 -c 'import json, sys; print(list(json.load(sys.stdin)["counters"].values())[0])'
}

# fabric_trimmed: packets trimmed by all ports so far.
fabric_trimmed() {
	sf status --json | python3 -c 'import json, sys
print(sum(p["trimmed"] for p in json.load(sys.stdin)["ports"]))'
}

# incast LABEL FAMILY-FLAG ADDR-FIELD PORT CC: h1 and h2 stream MSGS
# messages of SIZE bytes each to h0, started together.
incast() {
	local label=$1 fam=$2 field=$3 port=$4 cc=$5 dst t i pids=() spid rc=0
	local n0 tr0 nk0 rn0 tr1
	dst=$(host_field h0 "$field")
	[ "$field" = ipv6 ] && dst="[$dst]"
	tr0=$(fabric_trimmed)
	n0=$(stat h0 tx_nacks)
	nk0=$(stat h0 rx_trimmed)
	rn0=$(( $(stat h1 rx_nacks) + $(stat h2 rx_nacks) ))
	ip netns exec "$(host_field h0 ns)" "$perf" server --json --proto smartt "$fam" \
		-p "$port" >"$tmp/$label.s" 2>&1 &
	spid=$!
	wait_output "$tmp/$label.s" listening || { cat "$tmp/$label.s"; return 1; }
	# 3 s ahead: a client takes over a second to start in a busy guest
	t=$(date +%s.%N | awk '{ printf "%.3f", $1 + 3 }')
	for i in 1 2; do
		ip netns exec "$(host_field "h$i" ns)" timeout 120 "$perf" client --json \
			-P stream -n "$MSGS" -s "$SIZE" -o 2 -t 60 --cc "$cc" --start-at "$t" \
			"$dst:$port" >"$tmp/$label.$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	kill -TERM "$spid" 2>/dev/null
	wait "$spid"
	cat "$tmp/$label.1" "$tmp/$label.2" "$tmp/$label.s"
	tr1=$(fabric_trimmed)
	echo "fabric trimmed $((tr1 - tr0)); h0 rx_trimmed $(( $(stat h0 rx_trimmed) - nk0 ))," \
		"tx_nacks $(( $(stat h0 tx_nacks) - n0 )); h1+h2 rx_nacks" \
		"$(( $(stat h1 rx_nacks) + $(stat h2 rx_nacks) - rn0 ))"
	echo "h0 counters:" $("$ctl" -n "$(host_field h0 ns)" stats --json |
		python3 -c 'import json, sys
print(" ".join("%s=%s" % kv for kv in json.load(sys.stdin)["counters"].items() if kv[1]))')
	[ $rc = 0 ] || return 1
	for i in 1 2; do
		[ "$(jfield "$tmp/$label.$i" messages)" = "$MSGS" ] &&
		[ "$(jfield "$tmp/$label.$i" failed)" = 0 ] || return 1
	done
	[ "$(jfield "$tmp/$label.s" messages)" = $((2 * MSGS)) ] &&
	[ "$(jfield "$tmp/$label.s" bytes)" = $((2 * MSGS * SIZE)) ] &&
	[ "$tr1" -gt "$tr0" ] &&
	[ "$(stat h0 rx_trimmed)" -gt "$nk0" ] &&
	[ "$(stat h0 tx_nacks)" -gt "$n0" ] &&
	[ $(( $(stat h1 rx_nacks) + $(stat h2 rx_nacks) )) -gt "$rn0" ]
}

# capture at h0 (its eth0, both ways) around the IPv4 incast
cap_pid=
if command -v tcpdump >/dev/null &&
   pcap_start "$(host_field h0 ns)" "$(host_field h0 dev)" "$tmp/v4.pcap" \
	'udp port 4793 or udp port 4794'; then
	cap_pid=$pcap_pid
fi
check "IPv4, cc none: 2:1 incast into a 13 KB buffer, trimmed, NACKed, every message exactly once" \
	incast v4 -4 ipv4 1711 none
decoded() {
	[ -n "$cap_pid" ] || { echo "no capture: tcpdump missing or did not start"; return "$ksft_skip"; }
	pcap_stop "$tmp/v4.pcap"
	python3 "$SMARTT_TOP/selftests/uet_capture_check.py" "$tmp/v4.pcap" RUD_REQ ACK_CC \
		dscp:trimmed_lasthop NACK:TRIMMED_LASTHOP
}
check "the IPv4 incast's capture decodes as UET: trimmed DATA, TRIMMED_LASTHOP NACKs, nothing malformed" \
	decoded
check "IPv6, cc smartt: 2:1 incast into a 13 KB buffer, trimmed, NACKed, every message exactly once" \
	incast v6 -6 ipv6 1712 smartt
ktap_exit
