#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport's real packets are UET: captures (tcpdump on the
# receiver's veth) of a transfer and of a transfer whose tail packet is
# dropped once, so that STrack's probe finds it, decode with no malformed
# field in smarttctl decode and in the project's Wireshark Lua dissector
# (selftests/uet_capture_check.py), and hold what the transfer must have
# sent: RUD requests with SYN, ACK_CCs, and for the probe a CTRL PROBE, the
# ACK_CC that answers it (P) and the retransmission (RETX).  The trimmed
# transfer's capture is checked in smartt_transport_trim.sh, where the
# fabric trims.
# kernels: 6.12
source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip tc tcpdump python3

bin=$SMARTT_TOP/build/selftests/smartt_transport_test
check_cap=$SMARTT_TOP/selftests/uet_capture_check.py
[ -x "$bin" ] || skip_all "no $bin (make -C selftests)"
modprobe smartt || skip_all "cannot load smartt"
modprobe cls_u32 2>/dev/null && modprobe act_gact 2>/dev/null &&
	modprobe sch_ingress 2>/dev/null || skip_all "no cls_u32/act_gact/sch_ingress for the drop"

exec 3>&1
a=smartt-dec-a-$$
b=smartt-dec-b-$$
work=$(mktemp -d)
trap 'rm -rf "$work"; netns_cleanup' EXIT

setup() {
	veth_pair "$a" "$b" &&
	ip netns exec "$a" sysctl -qw net.smartt.tcp_network_rtt_us=1000 \
		net.smartt.tcp_link_mbps=200
}
setup_ok=true
setup >/dev/null 2>&1 || setup_ok=false
check "two netns hosts on a veth" $setup_ok
$setup_ok || ktap_exit

stat() { # stat NETNS NAME
	ip netns exec "$1" awk -v n="$2" '$1 == n { print $2 }' /proc/net/smartt_stats
}

# capture_start NAME / capture_stop NAME: tcpdump on b's veth into
# $work/NAME.pcap
capture_start() {
	pcap_start "$b" veth-b "$work/$1.pcap" 'udp port 4793 or udp port 4794'
}
capture_stop() {
	pcap_stop "$work/$1.pcap"
}

# transfer PORT SIZE: a sends one message to b with $CC and $REL.
transfer() {
	local out=$work/recv rpid
	ip netns exec "$b" env SMARTT_RELIABILITY="$REL" "$bin" recv 4 "$1" "$2" >"$out" 2>&1 &
	rpid=$!
	wait_output "$out" listening
	if ! ip netns exec "$a" env SMARTT_CC="$CC" SMARTT_RELIABILITY="$REL" \
		"$bin" send 4 198.18.0.2 "$1" "$2"; then
		kill $rpid
		wait $rpid
		cat "$out"
		return 1
	fi
	wait $rpid || { cat "$out"; return 1; }
}

plain() {
	capture_start plain || return 1
	transfer 1501 300000 || { capture_stop plain; return 1; }
	capture_stop plain
	python3 "$check_cap" "$work/plain.pcap" RUD_REQ RUD_REQ:SYN ACK_CC
}
CC=nscc REL=sack
check "a 300 KB transfer (cc nscc) decodes as UET: RUD_REQ with SYN, ACK_CC, nothing malformed" plain

# The tail packet (segment 14 of a 15-packet message), first transmission
# only, dropped on a's egress: RUD_REQ type 2 in the PDS prologue's top 5
# bits (offset 28), RETX (0x10 at offset 29) clear, the SES message_offset
# (offset 76) 14 MSS (the veth's MTU less the headers and trailer); by
# offset, as a PDC's first PSN is random.
probe() {
	local probes rc=0
	probes=$(stat "$a" tx_probes)
	ip netns exec "$a" tc qdisc add dev veth-a clsact &&
	ip netns exec "$a" tc filter add dev veth-a egress protocol ip prio 1 u32 \
		match ip protocol 17 0xff match u16 4793 0xffff at 22 \
		match u8 0x10 0xf8 at 28 match u8 0 0x10 at 29 \
		match u32 $((14 * ($(ip netns exec "$a" cat /sys/class/net/veth-a/mtu) - 88))) \
		0xffffffff at 76 action drop || return 1
	capture_start probe || rc=1
	transfer 1502 20000 || rc=1
	capture_stop probe
	ip netns exec "$a" tc qdisc del dev veth-a clsact
	[ $rc = 0 ] || return 1
	if [ "$(stat "$a" tx_probes)" = "$probes" ]; then
		echo "the RTO repaired the tail before a probe was due (a slow kernel): no probe to decode"
		return "$ksft_skip"
	fi
	python3 "$check_cap" "$work/probe.pcap" RUD_REQ:RETX CTRL:PROBE ACK_CC:P
}
CC=strack REL=strack
check "a tail drop found by a probe (reliability strack) decodes as UET: CTRL PROBE, ACK_CC with P, RETX" probe
ktap_exit
