#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The smartt datagram transport between two netns hosts joined by a veth:
# socket() autoloads the module, the socket API tests (C, kselftest
# harness, exact errnos), messages of 1 byte to 3 MB over IPv4 and IPv6
# checked byte for byte and exactly once, malformed packets counted,
# random and structure-aware packets during a transfer,
# module unload refused while a socket is open, netns teardown with data in
# flight; the same over a lossy, duplicating, reordering link (netem).
# The runner checks dmesg afterwards.
source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip modprobe

bin=$SMARTT_TOP/build/selftests/smartt_transport_test
[ -x "$bin" ] || skip_all "no $bin (make -C selftests)"

# Timings go to the log even when check captures a command's output.
exec 3>&1
t_start=$(date +%s%N)
# tcheck DESCRIPTION COMMAND...: check, and log how long it took.
tcheck() {
	local t0
	t0=$(date +%s%N)
	check "$@"
	echo "#   ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
}

a=smartt-tr-a-$$
b=smartt-tr-b-$$

autoload() {
	if [ -e /sys/module/smartt ]; then
		modprobe -r smartt || return 1
	fi
	"$bin" open 6 && [ -e /sys/module/smartt ]
}
tcheck "socket(AF_INET6, SOCK_DGRAM, IPPROTO_SMARTT) autoloads smartt" autoload
modprobe smartt 2>/dev/null

setup() {
	veth_pair "$a" "$b"
}
# Not in check's subshell: netns_add must record the names for cleanup.
setup_ok=true
setup >/dev/null 2>&1 || setup_ok=false
tcheck "two netns hosts on a veth (198.18.0.0/24, 2001:2::/64)" $setup_ok

tcheck "API tests (kselftest harness, loopback v4 and v6)" \
	ip netns exec "$a" env SMARTT_DEAD4=198.18.0.3 SMARTT_DEAD6=2001:2::3 "$bin"

# Around the IPv6 and IPv4 segment sizes (1332, 1352 on a 1500 MTU).
sizes="1 2 100 1331 1332 1333 1351 1352 1353 4096 65536 100000 1000000 3000000"

# transfer FAMILY DST-ADDR PORT [CC]: the sizes above from a to b; b keeps
# its socket open $linger ms after the last message.
transfer() {
	local fam=$1 dst=$2 port=$3 cc=${4:-none} out rc i t0
	out=$(mktemp)
	t0=$(date +%s%N)
	ip netns exec "$b" env SMARTT_LINGER_MS="${linger:-0}" "$bin" recv "$fam" "$port" $sizes \
		>"$out" 2>&1 &
	local rpid=$!
	wait_output "$out" listening
	ip netns exec "$a" env SMARTT_CC="$cc" "$bin" send "$fam" "$dst" "$port" $sizes || { kill $rpid; wait $rpid; cat "$out"; rm -f "$out"; return 1; }
	wait $rpid
	rc=$?
	echo "# transfer $fam $cc: $(( ($(date +%s%N) - t0) / 1000000 )) ms, rc $rc" >&3
	cat "$out"
	rm -f "$out"
	return $rc
}
tcheck "IPv4: messages of 1 B to 3 MB, byte for byte, exactly once" transfer 4 198.18.0.2 1001
tcheck "IPv6: messages of 1 B to 3 MB, byte for byte, exactly once" transfer 6 2001:2::2 1002
# The largest message SMARTT_MSG_MAX allows by default (64 MiB).
sizes=67108864 tcheck "IPv4: one message of SMARTT_MSG_MAX_DEFAULT (64 MiB), byte for byte" \
	transfer 4 198.18.0.2 1012

# lossy PORT CC: messages over a lossy, reordering, duplicating link
# (netem on both veth ends), IPv4; skipped without sch_netem.  With cc
# smartt the window reaches the PSN window, which a plain fixed window does
# not: late ACKs then name PSNs whose slots were reused.  The receiver keeps
# its socket 2 s after its last message: the ACK that carries that
# message's response may be lost, and a closed socket answers the sender's
# retransmission no more (the sender would report ETIMEDOUT, rightly).
lossy() {
	local rc
	ip netns exec "$a" tc qdisc add dev veth-a root netem delay 1ms loss 3% \
		duplicate 2% reorder 25% 50% &&
	ip netns exec "$b" tc qdisc add dev veth-b root netem delay 1ms loss 3% \
		duplicate 2% reorder 25% 50% || return 1
	linger=2000 sizes="1 1353 65536 300000" transfer 4 198.18.0.2 "$1" "$2"
	rc=$?
	ip netns exec "$a" tc qdisc del dev veth-a root
	ip netns exec "$b" tc qdisc del dev veth-b root
	return $rc
}
if modprobe sch_netem 2>/dev/null && command -v tc >/dev/null; then
	tcheck "cc smartt, 3% loss, 2% duplicates, reordering: delivered exactly once" \
		lossy 1007 smartt
	tcheck "losses were repaired (retransmits counted)" \
		test "$(ip netns exec "$a" awk '$1 == "retransmits" { print $2 }' /proc/net/smartt_stats)" -gt 0
	tcheck "cc dctcp, 3% loss, 2% duplicates, reordering: delivered exactly once" \
		lossy 1508 dctcp
else
	ktap_result SKIP "lossy link" "no sch_netem or tc"
fi

stat_b() { # stat_b NAME
	ip netns exec "$b" awk -v n="$1" '$1 == n { print $2 }' /proc/net/smartt_stats
}

malformed() { # malformed FAMILY DST-ADDR
	local before after n i
	before=$(stat_b malformed)
	n=$(ip netns exec "$a" "$bin" inject "$1" "$2") || return 1
	for i in $(seq 50); do
		after=$(stat_b malformed)
		[ "$after" -ge $((before + n)) ] && break
		sleep 0.1
	done
	echo "malformed: $before -> $after after $n injected packets"
	[ "$after" -eq $((before + n)) ]
}

# fuzz FAMILY DST-ADDR: random packets at b's port while a transfer runs;
# every one reaches the module and is dropped; the transfer is intact.
fuzz() {
	local before after n i hold out rc
	before=$(stat_b rx_packets)
	out=$(mktemp)
	ip netns exec "$b" "$bin" recv "$1" 1011 300000 >"$out" 2>&1 &
	hold=$!
	wait_output "$out" listening
	ip netns exec "$a" "$bin" send "$1" "$2" 1011 300000 >/dev/null 2>&1 &
	n=$(ip netns exec "$a" "$bin" fuzz "$1" "$2" 300 "$RANDOM") || n=-1
	wait $hold
	rc=$?
	cat "$out"
	rm -f "$out"
	after=$(stat_b rx_packets)
	echo "fuzz: $n random packets; b received $before -> $after packets"
	[ "$rc" = 0 ] && [ "$n" -gt 0 ] && [ "$after" -ge $((before + n)) ]
}

# mutate FAMILY DST-ADDR: 2000 packets of every type that parse up to
# their extension (smartt_transport_test mutate), at a socket of b's that
# only takes them, while a transfer runs to another: the transfer is
# intact, every packet reached the module, and once that socket closes the
# protocol holds no more memory than before.  (The runner checks dmesg and
# unloads the module.)
mutate() {
	local before after n hold out rc victim pages0 pages1 i
	local mem=$SMARTT_TOP/build/selftests/smartt_mem_test
	[ -x "$mem" ] || { echo "no $mem"; return 1; }
	before=$(stat_b rx_packets)
	pages0=$(stat_b mem_pages)
	ip netns exec "$b" "$mem" victim "$1" 1014 120 1000 >/dev/null 2>&1 &
	victim=$!
	out=$(mktemp)
	ip netns exec "$b" "$bin" recv "$1" 1013 300000 >"$out" 2>&1 &
	hold=$!
	wait_output "$out" listening
	ip netns exec "$a" "$bin" send "$1" "$2" 1013 300000 >/dev/null 2>&1 &
	n=$(ip netns exec "$a" "$bin" mutate "$1" "$2" 1014 2000 "$RANDOM") || n=-1
	wait $hold
	rc=$?
	cat "$out"
	rm -f "$out"
	after=$(stat_b rx_packets)
	kill $victim 2>/dev/null
	wait $victim 2>/dev/null
	pages1=$(mem_back "$b" "$pages0")
	echo "mutate: $n packets; b received $before -> $after packets;" \
		"mem_pages $pages0 -> $pages1 after the victim closed"
	[ "$rc" = 0 ] && [ "$n" -gt 0 ] && [ "$after" -ge $((before + n)) ] &&
		[ "$pages1" -le "$pages0" ]
}

# b's UDP port is open while b has a transport socket: hold one.
hold_out=$(mktemp)
ip netns exec "$b" "$bin" recv 4 1010 1 >"$hold_out" 2>&1 &
hold=$!
wait_output "$hold_out" listening
rm -f "$hold_out"
tcheck "malformed packets over IPv4 are counted and dropped" malformed 4 198.18.0.2
tcheck "malformed packets over IPv6 are counted and dropped" malformed 6 2001:2::2
tcheck "300 random packets during a transfer: all dropped, transfer intact" \
	fuzz 4 198.18.0.2
tcheck "2000 structure-aware packets of every type at another socket: transfer intact, nothing held" \
	mutate 4 198.18.0.2
tcheck "the same over IPv6" mutate 6 2001:2::2
kill $hold
wait $hold 2>/dev/null

stats_sane() {
	local rx acks
	rx=$(stat_b msgs_delivered)
	acks=$(ip netns exec "$a" awk '$1 == "rx_acks" { print $2 }' /proc/net/smartt_stats)
	echo "b delivered $rx messages, a received $acks ACKs"
	[ "$rx" -ge 28 ] && [ "$acks" -gt 0 ]
}
tcheck "/proc/net/smartt_stats counts messages and ACKs" stats_sane

port_free() {
	ip netns exec "$b" "$bin" udpbind 4 4793
}
tcheck "UDP port 4793 is free while the netns has no transport socket" port_free

unload_busy() {
	local pid rc=0 out i
	out=$(mktemp)
	ip netns exec "$a" "$bin" hold 4 >"$out" &
	pid=$!
	wait_output "$out" open
	rm -f "$out"
	if modprobe -r smartt 2>/dev/null; then
		echo "smartt unloaded with a socket open"
		rc=1
	fi
	kill "$pid"
	wait "$pid" 2>/dev/null
	return $rc
}
tcheck "module unload is refused while a socket is open" unload_busy

teardown_inflight() {
	ip netns exec "$b" "$bin" recv 4 1003 8388608 >/dev/null 2>&1 &
	local rpid=$!
	sleep 0.3
	ip netns exec "$a" "$bin" send 4 198.18.0.2 1003 8388608 >/dev/null 2>&1 &
	local spid=$!
	sleep 0.7
	kill "$rpid" "$spid" 2>/dev/null
	wait "$rpid" "$spid" 2>/dev/null
	netns_cleanup
	# The netns are gone once their last socket closed.
	! ip netns list | grep -q "smartt-tr-.-$$"
}
tcheck "netns teardown with a message in flight" teardown_inflight

unload() {
	sleep 0.5
	modprobe -r smartt && [ ! -e /sys/module/smartt ]
}
tcheck "module unloads after the test" unload

echo "# total $(( ($(date +%s%N) - t_start) / 1000000 )) ms"
ktap_exit
