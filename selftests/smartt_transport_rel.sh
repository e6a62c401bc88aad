#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport's STrack congestion control and "strack" reliability
# between two netns hosts on a veth, without trimming: messages byte for
# byte over a lossy, reordering link (netem); then one DATA packet dropped
# on purpose (a tc u32 filter on the sender's egress that matches one segment's
# first transmission): in the middle of a message it is recovered by the
# receiver's out-of-order count, at the tail by a probe, never by an RTO;
# with "sack" reliability the same drop is a SACK fast retransmit.  Checked
# through /proc/net/smartt_stats, not timing.  The runner checks dmesg.
# `make check` shares the long tests between its two plain guests
# (SMARTT_SELFTESTS_FULL=1 runs this one on both); this one runs on
# kernels: 6.1
source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip tc modprobe

bin=$SMARTT_TOP/build/selftests/smartt_transport_test
[ -x "$bin" ] || skip_all "no $bin (make -C selftests)"
modprobe smartt || skip_all "cannot load smartt"

# Diagnostics go to the log even when check captures a command's output.
exec 3>&1

a=smartt-rel-a-$$
b=smartt-rel-b-$$

setup() {
	veth_pair "$a" "$b" || return 1
	# The fabric as TCG sees it: 1 ms network RTT (probe interval 3 ms,
	# STrack's target delay), 200 Mbit/s (max_cwnd ~27 packets).
	ip netns exec "$a" sysctl -qw net.smartt.tcp_network_rtt_us=1000 \
		net.smartt.tcp_link_mbps=200
}
setup_ok=true
setup >/dev/null 2>&1 || setup_ok=false
check "two netns hosts on a veth, network RTT 1 ms, 200 Mbit/s" $setup_ok
$setup_ok || ktap_exit

stat() { # stat NETNS NAME
	ip netns exec "$1" awk -v n="$2" '$1 == n { print $2 }' /proc/net/smartt_stats
}

# transfer PORT SIZE...: a sends the messages to b with $CC and $REL
# (both ends); b checks every byte and that each arrives exactly once, and
# keeps its socket open $LINGER ms after the last message.
transfer() {
	local port=$1 out rc
	shift
	out=$(mktemp)
	ip netns exec "$b" env SMARTT_RELIABILITY="$REL" SMARTT_LINGER_MS="${LINGER:-0}" \
		"$bin" recv 4 "$port" "$@" >"$out" 2>&1 &
	local rpid=$!
	wait_output "$out" listening
	if ! ip netns exec "$a" env SMARTT_CC="$CC" SMARTT_RELIABILITY="$REL" \
		"$bin" send 4 198.18.0.2 "$port" "$@"; then
		kill $rpid
		wait $rpid
		cat "$out"
		rm -f "$out"
		return 1
	fi
	wait $rpid
	rc=$?
	cat "$out"
	rm -f "$out"
	return $rc
}

CC=strack REL=strack
check "cc strack, reliability strack: 1 B to 1 MB, byte for byte, exactly once" \
	transfer 1601 1 1353 65536 300000 1000000
check "the receiver coalesced ACKs (acks_coalesced > 0)" \
	test "$(stat "$b" acks_coalesced)" -gt 0

# ack_ratio: ACKs per DATA packet at b for one 1 MB message, "sack" and
# "strack" reliability side by side (cc none: the same window for both).
# Coalescing shows only when the sender is not window-limited and DATA
# comes closer together than the ACK delay (1 ms).  On a kernel too slow
# for that (the debug kernel under TCG) the sender's full window flags
# every packet AR (ACK requested), or the delay timer sends each ACK alone, and the
# ratio says nothing about coalescing: the check then skips, saying so.
# ACKs sent at once for no such reason still fail it.
ack_ratio() {
	local rel acks data forced per sack_per=
	for rel in sack strack; do
		acks=$(stat "$b" tx_acks)
		data=$(stat "$b" rx_data)
		forced=$(( $(stat "$b" acks_delayed) + $(stat "$b" acks_requested) ))
		CC=none REL=$rel transfer 1604 1000000 >/dev/null || return 1
		acks=$(( $(stat "$b" tx_acks) - acks ))
		data=$(( $(stat "$b" rx_data) - data ))
		forced=$(( $(stat "$b" acks_delayed) + $(stat "$b" acks_requested) - forced ))
		per=$(( acks * 1000 / data ))
		echo "#   $rel: $acks ACKs ($forced by the delay timer or AR) for $data DATA packets: $per per 1000" >&3
		[ -n "$sack_per" ] || sack_per=$per
	done
	echo "#   strack/sack ACK ratio: $(( per * 1000 / sack_per )) per 1000" >&3
	# An ACK every 16384 bytes (12 packets) at most, fewer with AR.
	[ "$per" -lt $(( sack_per / 2 )) ] && return 0
	if [ $(( forced * 2 )) -gt "$acks" ]; then
		echo "$forced of $acks strack ACKs sent by the delay timer or asked for by a full window (AR): on this kernel the window, not coalescing, set the ACK rate"
		return "$ksft_skip"
	fi
	return 1
}
check "strack reliability sends less than half the ACKs of sack (1 MB message)" ack_ratio

lossy() {
	local rc
	ip netns exec "$a" tc qdisc add dev veth-a root netem delay 1ms loss 3% \
		duplicate 2% reorder 25% 50% &&
	ip netns exec "$b" tc qdisc add dev veth-b root netem delay 1ms loss 3% \
		duplicate 2% reorder 25% 50% || return 1
	# The ACK with the last message's response may be lost: b stays to
	# answer the retransmission (a closed socket would not).
	LINGER=2000 transfer 1602 1 1353 65536 300000
	rc=$?
	ip netns exec "$a" tc qdisc del dev veth-a root
	ip netns exec "$b" tc qdisc del dev veth-b root
	return $rc
}
if modprobe sch_netem 2>/dev/null; then
	before=$(stat "$a" retransmits)
	check "cc strack, 3% loss, 2% duplicates, reordering: delivered exactly once" lossy
	check "losses were repaired (retransmits counted)" \
		test "$(stat "$a" retransmits)" -gt "$before"
else
	ktap_result SKIP "cc strack over a lossy link" "no sch_netem"
fi

# drop_filter SEG: drop the first transmission (no PDS RETX flag) of the
# DATA packet of segment SEG (> 0) of a message leaving a (IPv4 without
# options: UDP at 20, the PDS header at 28: type RUD_REQ in the top 5 bits
# of byte 28, RETX 0x10 in byte 29; the SES header at 40, its 32-bit
# message_offset at 76; Documentation/protocol.rst).  By offset, not PSN:
# a PDC's first PSN is random.  Segments are the MSS long: the veth's MTU
# less the IPv4, UDP, DATA headers and the trailer.
drop_filter() {
	local mtu
	mtu=$(ip netns exec "$a" cat /sys/class/net/veth-a/mtu) || return 1
	ip netns exec "$a" tc qdisc add dev veth-a clsact &&
	ip netns exec "$a" tc filter add dev veth-a egress protocol ip prio 1 u32 \
		match ip protocol 17 0xff \
		match u16 4793 0xffff at 22 \
		match u8 0x10 0xf8 at 28 \
		match u8 0 0x10 at 29 \
		match u32 $(($1 * (mtu - 20 - 8 - 56 - 4))) 0xffffffff at 76 \
		action drop
}
drop_count() {
	ip netns exec "$a" tc -s filter show dev veth-a egress |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -1
}
drop_clear() {
	ip netns exec "$a" tc qdisc del dev veth-a clsact 2>/dev/null
}

# one_drop SEG SIZE COUNTER...: drop segment SEG of one message of SIZE bytes;
# the message arrives, exactly one packet was dropped, no RTO fired, every
# COUNTER of a grew and every -COUNTER stayed the same.
# od_delivered and od_dropped tell the caller what happened.
one_drop() {
	local seg=$1 size=$2 c n rc=0 dropped
	shift 2
	declare -A was
	for c in rtos "$@"; do
		n=${c#-}
		was[$n]=$(stat "$a" "$n")
	done
	drop_filter "$seg" || { drop_clear; return 1; }
	od_delivered=true
	transfer 1603 "$size" || { rc=1; od_delivered=false; }
	dropped=$(drop_count)
	od_dropped=${dropped:-0}
	drop_clear
	echo "#   dropped ${dropped:-?} packet(s) of segment $seg" >&3
	[ "${dropped:-0}" = 1 ] || rc=1
	for c in -rtos "$@"; do
		n=${c#-}
		echo "#   $n: ${was[$n]} -> $(stat "$a" "$n")" >&3
		if [ "$c" = "$n" ]; then
			[ "$(stat "$a" "$n")" -gt "${was[$n]}" ] || rc=1
		else
			[ "$(stat "$a" "$n")" = "${was[$n]}" ] || rc=1
		fi
	done
	return $rc
}

# The sender's probes and losses, in a trace instance of this test's own:
# what each probe's answer was taken for (smartt_probe's verdict), shown
# with the tail check's figures.
tr=/sys/kernel/tracing
[ -d "$tr/events" ] || mount -t tracefs nodev "$tr" 2>/dev/null
tri=$tr/instances/smartt-rel-$$
trace_start() {
	[ -e "$tr/events/smartt_transport/smartt_probe" ] || return 0
	mkdir -p "$tri" 2>/dev/null || return 0
	echo >"$tri/trace"
	for e in smartt_probe smartt_loss smartt_retransmit; do
		echo 1 >"$tri/events/smartt_transport/$e/enable"
	done
}
trace_stop() {
	[ -d "$tri" ] && echo 0 >"$tri/events/enable"
	return 0
}
trace_show() {
	[ -r "$tri/trace" ] || { echo "#   (no trace: tracefs or smartt_probe missing)" >&3; return; }
	grep -v '^#' "$tri/trace" | sed 's/^ *[^ ]* *\[[0-9]*\] [^ ]* */#   trace: /' |
		tail -40 >&3
}
trap 'trace_stop; rmdir "$tri" 2>/dev/null; netns_cleanup' EXIT

# tail_probe: one_drop of the last packet, found by a probe.  A probe
# answered 2 base RTTs late or more may have found the packet queued, so
# STrack infers no loss from it and the RTO repairs it: on a kernel that
# slow (every answer late, probe_acks_late) the check skips, saying so.
tail_probe() {
	local late probes
	late=$(stat "$a" probe_acks_late)
	probes=$(stat "$a" tx_probes)
	trace_start
	one_drop 14 20000 tx_probes rx_probe_acks probe_recoveries probe_losses \
		-ooo_losses && { trace_stop; trace_show; return 0; }
	trace_stop
	trace_show
	late=$(( $(stat "$a" probe_acks_late) - late ))
	probes=$(( $(stat "$a" tx_probes) - probes ))
	if $od_delivered && [ "$od_dropped" = 1 ] && [ "$probes" -gt 0 ] &&
		[ "$late" -ge "$probes" ]; then
		echo "all $probes probe answers came 2 base RTTs late or more: too slow a kernel to tell loss from queueing; the RTO repaired the loss"
		return "$ksft_skip"
	fi
	return 1
}

if modprobe cls_u32 2>/dev/null && modprobe act_gact 2>/dev/null &&
	modprobe sch_ingress 2>/dev/null; then
	# 300000 B = 213 packets of 1412 B; segment 20 leaves 192 behind it, more
	# than the out-of-order threshold (max(cwnd in packets, 5) <= 128).
	check "strack: a packet dropped mid-message is found by the out-of-order count, no RTO" \
		one_drop 20 300000 ooo_recoveries ooo_losses retransmits -fast_retransmits
	# 20000 B = 15 packets: segment 14 is the last; nothing follows it.
	check "strack: a dropped tail packet is found by a probe, no RTO" tail_probe
	check "the receiver answered the probes (rx_probes > 0)" \
		test "$(stat "$b" rx_probes)" -gt 0
	# A network RTT of 8 ms puts the probe 24 ms after the last ACK, past
	# the minimum RTO (20 ms): the RTO must still wait for the probe.
	ip netns exec "$a" sysctl -qw net.smartt.tcp_network_rtt_us=8000
	check "strack: the same with a network RTT of 8 ms (probe after 24 ms, minimum RTO 20 ms)" \
		tail_probe
	ip netns exec "$a" sysctl -qw net.smartt.tcp_network_rtt_us=1000
	CC=none REL=sack
	check "sack: the same mid-message drop is a SACK fast retransmit, no RTO" \
		one_drop 20 300000 fast_retransmits retransmits -ooo_losses -tx_probes
else
	ktap_result SKIP "deterministic drops" "no cls_u32, act_gact or sch_ingress"
fi

for c in acks_coalesced acks_delayed acks_requested rx_probes tx_acks; do
	echo "# b: $c $(stat "$b" "$c")"
done
for c in ooo_recoveries ooo_losses tx_probes rx_probe_acks probe_recoveries \
	probe_losses probe_acks_late rto_losses rtos retransmits fast_retransmits; do
	echo "# a: $c $(stat "$a" "$c")"
done
ktap_exit
