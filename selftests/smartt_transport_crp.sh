#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport's cc "crp" (Documentation/crp.rst, "The transport").
#
# Fabric: a 4:1 hotspot through smartt-fabric's CRP switch ports (one leaf,
# five hosts, 10 Mbit/s, --crp on, 20 ms slots, TTW 2 ms so that the four
# senders' speculative bursts queue past it at h0's port).  h1..h4 send
# four messages each to h0 with SMARTT_CC=crp, started together: every
# message must arrive exactly once and byte for byte (smartt_transport_test
# recv: every size once, every byte checked, nothing more for 1 s); the
# senders must have asked (crp_tx_req), been granted (crp_rx_grant) and
# sent under the grants (crp_tx_granted), sent speculatively (crp_tx_spec),
# had speculative packets trimmed after TTW (crp_spec_dropped) and sent
# every one of them again under its grant (crp_spec_recovered equal to it);
# h0 must have reflected the requests the fabric decided, with none left
# to its own table; h0's port must have decided and trimmed speculative
# packets (smartt-fabric's crp_dest_grant, crp_spec_drop).
#
# Host table: two namespaces on a veth, no fabric: the receiver's own
# destination table decides the requests.  The sender takes cc "crp" from
# net.smartt.transport_cc (no socket option) and does not speculate
# (spec_bytes=0): every packet of a segment of at least nmin waits for its
# grant.  The receiver's table has two cells: the current slot, which has
# begun and is never granted, and the next one, which holds one segment's
# reservation: a segment that asks in the slot of the one before it is
# refused (no common slot), waits and asks again.  IPv6.
# kernels: 6.12
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fabric_require
bin=$SMARTT_TOP/build/selftests/smartt_transport_test
[ -x "$bin" ] || skip_all "no $bin (make -C selftests)"
modprobe smartt 2>/dev/null || skip_all "cannot load smartt.ko"
[ -e /proc/sys/net/smartt/transport_crp_knobs ] ||
	skip_all "this smartt.ko has no cc crp (net.smartt.transport_crp_knobs)"

# 20 ms slots at 10 Mbit/s: 25000 bytes a slot at a host's rate.  Segments
# of 4 packets (16 KiB of payload, 17.8 KB reserved); a message's last
# packet is below nmin and goes without CRP.
SLOT_NS=20000000
KNOBS="slot_ns=$SLOT_NS cells=32 cmax=25000 nmin=8192 nmax=16384 retry_ns=$((SLOT_NS * 30 / 269))"
MSGS=4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; fabric_cleanup' EXIT

# snap NETNS...: keep each one's /proc/net/smartt_stats in $tmp/stats.NETNS
# (one read per namespace: every process start is slow under TCG).
snap() {
	local ns
	for ns in "$@"; do
		ip netns exec "$ns" cat /proc/net/smartt_stats >"$tmp/stats.$ns" || return 1
	done
}

# stat NETNS NAME: one counter of the last snap of NETNS.
stat() {
	awk -v n="$2" '$1 == n { print $2 }' "$tmp/stats.$1"
}

# sum NAME NETNS...: a counter summed over namespaces' last snaps.
sum() {
	local n=$1 t=0 ns
	shift
	for ns in "$@"; do t=$((t + $(stat "$ns" "$n"))); done
	echo "$t"
}

# pstat FIELD: a counter of h0's port l0:h0 from the last portsnap.
portsnap() { port_stat_all l0:h0 >"$tmp/port"; }
port_stat_all() {
	"$SF" status --json "$1" | python3 -c 'import json, sys
p = json.load(sys.stdin)["ports"][0]
print("\n".join("%s %s" % kv for kv in p.items() if isinstance(kv[1], int)))'
}
pstat() { awk -v n="$1" '$1 == n { print $2 }' "$tmp/port"; }

# The knobs: out of range or inconsistent is EINVAL and changes nothing.
knob_errors() {
	local f=/proc/sys/net/smartt/transport_crp_knobs before
	before=$(cat $f)
	for bad in "cells=65" "cells=0" "slot_ns=0" "nmin=70000 nmax=65536" \
		   "cmax=1000 nmax=4096" "spec_bytes=2147483648" "eps=2" "bogus=1" "cells"; do
		if echo "$bad" >$f 2>/dev/null; then
			echo "'$bad' accepted"
			return 1
		fi
	done
	[ "$(cat $f)" = "$before" ] || { echo "changed to $(cat $f)"; return 1; }
	if echo crp2 >/proc/sys/net/smartt/transport_cc 2>/dev/null; then
		echo "transport_cc crp2 accepted"
		return 1
	fi
	[ "$(cat /proc/sys/net/smartt/transport_cc)" = none ]
}
check "transport_crp_knobs and transport_cc: bad values are EINVAL, nothing changes" knob_errors

fabric_up --hosts 5 --rate 10mbit --delay 1ms --trim on --crp on --crp-slot 20ms \
	--crp-ttw 2ms
for h in h0 h1 h2 h3 h4; do
	ip netns exec "$(host_field $h ns)" sysctl -qw net.smartt.transport_crp_knobs="$KNOBS"
done

# sizes_of I: sender I's message sizes (every size of the run unique).
sizes_of() {
	local j
	for j in $(seq 0 $((MSGS - 1))); do echo $((32768 + 64 * (4 * j + $1))); done
}

hotspot() {
	local all="" i t pids=() rpid rc=0 senders=() ns0
	ns0=$(host_field h0 ns)
	for i in 1 2 3 4; do
		all="$all $(sizes_of $i | tr '\n' ' ')"
		senders+=("$(host_field h$i ns)")
	done
	ip netns exec "$ns0" env SMARTT_LINGER_MS=1000 SMARTT_TIMEOUT_SCALE=2 \
		"$bin" recv 4 1721 $all >"$tmp/recv" 2>&1 &
	rpid=$!
	wait_output "$tmp/recv" listening || { cat "$tmp/recv"; return 1; }
	for i in 1 2 3 4; do
		ip netns exec "$(host_field h$i ns)" env SMARTT_CC=crp SMARTT_TIMEOUT_SCALE=2 \
			"$bin" send 4 "$(host_field h0 ipv4)" 1721 $(sizes_of $i) \
			>"$tmp/send.$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	wait "$rpid" || rc=1
	for i in 1 2 3 4; do sed "s/^/h$i: /" "$tmp/send.$i"; done
	sed 's/^/h0: /' "$tmp/recv"
	[ $rc = 0 ] && grep -q "^ok $((4 * MSGS)) messages" "$tmp/recv"
}
sender_ns=()
for i in 1 2 3 4; do sender_ns+=("$(host_field h$i ns)"); done
ns0=$(host_field h0 ns)
t0=$(date +%s%N)
check "4:1 hotspot, cc crp over CRP ports: every message exactly once, byte for byte" \
	hotspot
echo "# the hotspot took $(( ($(date +%s%N) - t0) / 1000000 )) ms"
snap "$ns0" "${sender_ns[@]}"
portsnap
# The counters, for the log.
for c in crp_tx_req crp_req_timeouts crp_rx_grant crp_rx_retry crp_retry_noslot \
	 crp_retry_full crp_retry_conv crp_drop_unknown crp_tx_spec crp_tx_granted \
	 crp_tx_nonpart crp_spec_dropped crp_spec_recovered rx_nacks retransmits; do
	echo "# senders: $c $(sum $c "${sender_ns[@]}")"
done
for c in crp_rx_req crp_tx_grant crp_tx_retry crp_host_grant crp_host_retry crp_drop_bad \
	 tx_nacks rx_trimmed; do
	echo "# h0: $c $(stat "$ns0" $c)"
done
echo "# port l0:h0:" $(grep -E '^crp_|^trimmed' "$tmp/port" | tr '\n' ' ')
check "senders asked for reservations (crp_tx_req > 0)" \
	test "$(sum crp_tx_req "${sender_ns[@]}")" -gt 0
check "senders were granted (crp_rx_grant > 0) and sent under grants (crp_tx_granted > 0)" \
	bash -c '[ "$1" -gt 0 ] && [ "$2" -gt 0 ]' _ \
	"$(sum crp_rx_grant "${sender_ns[@]}")" "$(sum crp_tx_granted "${sender_ns[@]}")"
check "senders speculated (crp_tx_spec > 0) and segments below nmin went without CRP" \
	bash -c '[ "$1" -gt 0 ] && [ "$2" -gt 0 ]' _ \
	"$(sum crp_tx_spec "${sender_ns[@]}")" "$(sum crp_tx_nonpart "${sender_ns[@]}")"
check "speculative packets trimmed after TTW came back as SPEC_DROP NACKs (crp_spec_dropped > 0)" \
	test "$(sum crp_spec_dropped "${sender_ns[@]}")" -gt 0
check "every one was sent again under its grant (crp_spec_recovered = crp_spec_dropped)" \
	test "$(sum crp_spec_recovered "${sender_ns[@]}")" = \
	"$(sum crp_spec_dropped "${sender_ns[@]}")"
check "h0 reflected the requests, all decided by its port (none by its own table)" \
	bash -c '[ "$1" -gt 0 ] && [ "$1" = "$(($2 + $3))" ] && [ "$4" = 0 ] && [ "$5" = 0 ]' _ \
	"$(stat "$ns0" crp_rx_req)" "$(stat "$ns0" crp_tx_grant)" "$(stat "$ns0" crp_tx_retry)" \
	"$(($(stat "$ns0" crp_host_grant) + $(stat "$ns0" crp_host_retry)))" \
	"$(stat "$ns0" crp_drop_bad)"
check "h0's port decided requests and trimmed speculative packets after TTW" \
	bash -c '[ "$1" -gt 0 ] && [ "$2" -gt 0 ]' _ "$(pstat crp_dest_grant)" \
	"$(pstat crp_spec_drop)"
fabric_cleanup
trap 'rm -rf "$tmp"; netns_cleanup' EXIT

# ---- the host's table, no fabric ----
a=crpa$$
b=crpb$$
host_setup() {
	veth_pair "$a" "$b" &&
	ip netns exec "$a" sysctl -qw net.smartt.transport_crp_knobs="$KNOBS spec_bytes=0" &&
	ip netns exec "$b" sysctl -qw net.smartt.transport_crp_knobs="${KNOBS/cells=32/cells=2}" &&
	ip netns exec "$a" sysctl -qw net.smartt.transport_cc=crp
}
setup_ok=true
host_setup >/dev/null 2>&1 || setup_ok=false
check "two namespaces on a veth, net.smartt.transport_cc=crp in the sender's" $setup_ok

host_table() {
	local sizes="65536 40000 20000 5000 32768" rc=0 rpid
	ip netns exec "$b" env SMARTT_LINGER_MS=1000 "$bin" recv 6 1722 $sizes \
		>"$tmp/hrecv" 2>&1 &
	rpid=$!
	wait_output "$tmp/hrecv" listening || { cat "$tmp/hrecv"; return 1; }
	ip netns exec "$a" "$bin" send 6 2001:2::2 1722 $sizes || rc=1
	wait "$rpid" || rc=1
	cat "$tmp/hrecv"
	[ $rc = 0 ] && grep -q "^ok 5 messages" "$tmp/hrecv"
}
if $setup_ok; then
	check "host table, IPv6: every message exactly once, byte for byte" host_table
	snap "$a" "$b"
	for c in crp_tx_req crp_rx_grant crp_rx_retry crp_retry_full crp_req_timeouts crp_tx_spec \
		 crp_tx_granted crp_tx_nonpart; do
		echo "# sender: $c $(stat "$a" $c)"
	done
	for c in crp_rx_req crp_host_grant crp_host_retry crp_tx_grant crp_tx_retry; do
		echo "# receiver: $c $(stat "$b" $c)"
	done
	check "the sender's sockets took cc crp from net.smartt.transport_cc (requests sent)" \
		test "$(stat "$a" crp_tx_req)" -gt 0
	check "the receiver's table decided every request it answered" \
		bash -c '[ "$1" -gt 0 ] && [ "$1" = "$(($2 + $3))" ] && [ "$2" -gt 0 ]' _ \
		"$(stat "$b" crp_rx_req)" "$(stat "$b" crp_host_grant)" "$(stat "$b" crp_host_retry)"
	check "a full table refused (crp_host_retry > 0); the sender waited, asked again, got grants" \
		bash -c '[ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$3" -gt "$4" ]' _ \
		"$(stat "$b" crp_host_retry)" "$(stat "$a" crp_rx_retry)" \
		"$(stat "$a" crp_tx_req)" "$(stat "$a" crp_rx_grant)"
	check "spec_bytes=0: nothing speculative; packets of reserved segments all under grants" \
		bash -c '[ "$1" = 0 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ]' _ \
		"$(stat "$a" crp_tx_spec)" "$(stat "$a" crp_tx_granted)" "$(stat "$a" crp_rx_grant)"
fi
ktap_exit
