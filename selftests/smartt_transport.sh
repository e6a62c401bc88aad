#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The smartt datagram transport between two netns hosts joined by a veth:
# socket() autoloads the module, the socket API tests (C, kselftest
# harness, exact errnos), messages of 1 byte to 3 MB over IPv4 and IPv6
# checked byte for byte and exactly once, malformed packets counted,
# module unload refused while a socket is open, netns teardown with data in
# flight; the same over a lossy, duplicating, reordering link (netem).
# The runner checks dmesg afterwards.
source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3 modprobe

bin=$SMARTT_TOP/build/selftests/smartt_transport_test
[ -x "$bin" ] || skip_all "no $bin (make -C selftests)"

# Timings go to the log even when check captures a command's output.
exec 3>&1

a=smartt-tr-a-$$
b=smartt-tr-b-$$

autoload() {
	if [ -e /sys/module/smartt ]; then
		modprobe -r smartt || return 1
	fi
	python3 -c 'import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM, 253).close()' &&
		[ -e /sys/module/smartt ]
}
check "socket(AF_INET6, SOCK_DGRAM, IPPROTO_SMARTT) autoloads smartt" autoload
modprobe smartt 2>/dev/null

setup() {
	netns_add "$a" && netns_add "$b" || return 1
	ip link add veth-a netns "$a" type veth peer name veth-b netns "$b" || return 1
	ip -n "$a" link set lo up && ip -n "$b" link set lo up &&
	ip -n "$a" addr add 198.18.0.1/24 dev veth-a &&
	ip -n "$b" addr add 198.18.0.2/24 dev veth-b &&
	ip -n "$a" addr add 2001:2::1/64 dev veth-a nodad &&
	ip -n "$b" addr add 2001:2::2/64 dev veth-b nodad &&
	ip -n "$a" link set veth-a up && ip -n "$b" link set veth-b up
}
# Not in check's subshell: netns_add must record the names for cleanup.
setup_ok=true
setup >/dev/null 2>&1 || setup_ok=false
check "two netns hosts on a veth (198.18.0.0/24, 2001:2::/64)" $setup_ok

check "API tests (kselftest harness, loopback v4 and v6)" \
	ip netns exec "$a" env SMARTT_DEAD4=198.18.0.3 SMARTT_DEAD6=2001:2::3 "$bin"

# Around the IPv6 and IPv4 segment sizes (1332, 1352 on a 1500 MTU).
sizes="1 2 100 1331 1332 1333 1351 1352 1353 4096 65536 100000 1000000 3000000"

# transfer FAMILY DST-ADDR PORT [CC]: the sizes above from a to b.
transfer() {
	local fam=$1 dst=$2 port=$3 cc=${4:-none} out rc i t0
	out=$(mktemp)
	t0=$(date +%s%N)
	ip netns exec "$b" "$bin" recv "$fam" "$port" $sizes >"$out" 2>&1 &
	local rpid=$!
	for i in $(seq 100); do
		grep -q listening "$out" && break
		sleep 0.1
	done
	ip netns exec "$a" env SMARTT_CC="$cc" "$bin" send "$fam" "$dst" "$port" $sizes || { kill $rpid; wait $rpid; cat "$out"; rm -f "$out"; return 1; }
	wait $rpid
	rc=$?
	echo "# transfer $fam $cc: $(( ($(date +%s%N) - t0) / 1000000 )) ms, rc $rc" >&3
	cat "$out"
	rm -f "$out"
	return $rc
}
check "IPv4: messages of 1 B to 3 MB, byte for byte, exactly once" transfer 4 198.18.0.2 5001
check "IPv6: messages of 1 B to 3 MB, byte for byte, exactly once" transfer 6 2001:2::2 5002
check "IPv4 with congestion control smartt: the same messages" transfer 4 198.18.0.2 5004 smartt

# lossy PORT CC: the same messages over a lossy, reordering, duplicating
# link (netem on both veth ends), IPv4; skipped without sch_netem.
lossy() {
	local rc
	ip netns exec "$a" tc qdisc add dev veth-a root netem delay 1ms loss 3% \
		duplicate 2% reorder 25% 50% &&
	ip netns exec "$b" tc qdisc add dev veth-b root netem delay 1ms loss 3% \
		duplicate 2% reorder 25% 50% || return 1
	sizes="1 1352 1353 65536 100000 500000" transfer 4 198.18.0.2 "$1" "$2"
	rc=$?
	ip netns exec "$a" tc qdisc del dev veth-a root
	ip netns exec "$b" tc qdisc del dev veth-b root
	return $rc
}
if modprobe sch_netem 2>/dev/null && command -v tc >/dev/null; then
	check "3% loss, 2% duplicates, reordering: delivered exactly once" lossy 5006 none
	check "the same with congestion control smartt" lossy 5007 smartt
	check "losses were repaired (retransmits counted)" \
		test "$(ip netns exec "$a" awk '$1 == "retransmits" { print $2 }' /proc/net/smartt_stats)" -gt 0
else
	ktap_result SKIP "lossy link" "no sch_netem or tc"
fi

stat_b() { # stat_b NAME
	ip netns exec "$b" awk -v n="$1" '$1 == n { print $2 }' /proc/net/smartt_stats
}

malformed() { # malformed FAMILY DST-ADDR
	local before after n i hold out rc
	# b's UDP port is open while b has a transport socket.
	out=$(mktemp)
	ip netns exec "$b" "$bin" recv "$1" 5010 1 >"$out" 2>&1 &
	hold=$!
	for i in $(seq 100); do
		grep -q listening "$out" && break
		sleep 0.1
	done
	rm -f "$out"
	before=$(stat_b malformed)
	n=$(ip netns exec "$a" "$bin" inject "$1" "$2") || { kill $hold; return 1; }
	for i in $(seq 50); do
		after=$(stat_b malformed)
		[ "$after" -ge $((before + n)) ] && break
		sleep 0.1
	done
	echo "malformed: $before -> $after after $n injected packets"
	[ "$after" -eq $((before + n)) ]
	rc=$?
	kill $hold
	wait $hold 2>/dev/null
	return $rc
}
check "malformed packets over IPv4 are counted and dropped" malformed 4 198.18.0.2
check "malformed packets over IPv6 are counted and dropped" malformed 6 2001:2::2

stats_sane() {
	local rx acks
	rx=$(stat_b msgs_delivered)
	acks=$(ip netns exec "$a" awk '$1 == "rx_acks" { print $2 }' /proc/net/smartt_stats)
	echo "b delivered $rx messages, a received $acks ACKs"
	[ "$rx" -ge 42 ] && [ "$acks" -gt 0 ]
}
check "/proc/net/smartt_stats counts messages and ACKs" stats_sane

port_free() {
	ip netns exec "$b" python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 4793))'
}
check "UDP port 4793 is free while the netns has no transport socket" port_free

unload_busy() {
	local pid rc=0 out i
	out=$(mktemp)
	ip netns exec "$a" python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 253)
print("open", flush=True)
time.sleep(30)' >"$out" &
	pid=$!
	for i in $(seq 100); do
		grep -q open "$out" && break
		sleep 0.1
	done
	rm -f "$out"
	if modprobe -r smartt 2>/dev/null; then
		echo "smartt unloaded with a socket open"
		rc=1
	fi
	kill "$pid"
	wait "$pid" 2>/dev/null
	return $rc
}
check "module unload is refused while a socket is open" unload_busy

teardown_inflight() {
	ip netns exec "$b" "$bin" recv 4 5003 8388608 >/dev/null 2>&1 &
	local rpid=$!
	sleep 0.5
	ip netns exec "$a" "$bin" send 4 198.18.0.2 5003 8388608 >/dev/null 2>&1 &
	local spid=$!
	sleep 1
	kill "$rpid" "$spid" 2>/dev/null
	wait "$rpid" "$spid" 2>/dev/null
	netns_cleanup
	# The netns are gone once their last socket closed.
	! ip netns list | grep -q "smartt-tr-.-$$"
}
check "netns teardown with a message in flight" teardown_inflight

unload() {
	sleep 0.5
	modprobe -r smartt && [ ! -e /sys/module/smartt ]
}
check "module unloads after the test" unload

ktap_exit
