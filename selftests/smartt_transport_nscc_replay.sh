#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport's NSCC reads its ACK inputs from the UET ACK_CC state
# (rcvd_bytes, service_time, M, RETX; kernel/algo/uet_ack.c), and
# smartt-replay's ack_cc lines read the same fields the same way: a
# transfer's ACK_CCs, recorded by the tracepoint
# smartt_transport:smartt_ack_cc, replayed with smartt-replay --algo nscc
# and the transport's core knobs, give the kernel's window after every one
# of them.  Between the recorded ACKs the kernel's bytes in flight are given
# to the replayer (send/lost lines), since the transport counts them from
# its SACK state.  The sender's egress is a 50 Mbit/s token bucket over a RED
# queue that marks CE, so the window moves: increases, ECN and delay.
# this one runs on
# kernels: 6.12
source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip tc modprobe awk

bin=$SMARTT_TOP/build/selftests/smartt_transport_test
replay=$SMARTT_TOP/build/userspace/smartt-replay
[ -x "$bin" ] || skip_all "no $bin (make -C selftests)"
[ -x "$replay" ] || skip_all "no $replay (make tools)"
modprobe smartt || skip_all "cannot load smartt"
modprobe sch_tbf 2>/dev/null && modprobe sch_red 2>/dev/null ||
	skip_all "no sch_tbf/sch_red module for the marking bottleneck"

tr=/sys/kernel/tracing
[ -d "$tr/events" ] || mount -t tracefs nodev "$tr" 2>/dev/null
[ -e "$tr/events/smartt_transport/smartt_ack_cc" ] ||
	skip_all "no tracepoint smartt_transport:smartt_ack_cc (tracefs not mounted?)"

exec 3>&1
a=smartt-nr-a-$$
b=smartt-nr-b-$$
tri=$tr/instances/smartt-nscc-$$
work=$(mktemp -d)
trap 'echo 0 >"$tri/events/enable" 2>/dev/null; rmdir "$tri" 2>/dev/null; rm -rf "$work"; netns_cleanup' EXIT

link_mbps=50
rtt_us=2000
setup() {
	veth_pair "$a" "$b" || return 1
	ip netns exec "$a" sysctl -qw net.smartt.tcp_network_rtt_us=$rtt_us \
		net.smartt.tcp_link_mbps=$link_mbps net.smartt.tcp_base_rtt_us=0 || return 1
	# 50 Mbit/s, RED marking CE from 30 KB of average queue
	tc -n "$a" qdisc add dev veth-a root handle 1: tbf rate ${link_mbps}mbit \
		burst 16k latency 100ms || return 1
	tc -n "$a" qdisc add dev veth-a parent 1:1 handle 10: red limit 1000000 \
		min 30000 max 90000 avpkt 1500 burst 30 bandwidth ${link_mbps}mbit \
		probability 0.2 ecn
}
setup_ok=true
setup >/dev/null 2>&1 || setup_ok=false
check "two netns hosts, a 50 Mbit/s egress that marks CE (tbf + red ecn)" $setup_ok
$setup_ok || ktap_exit

mss=$(ip netns exec "$a" sysctl -n net.smartt.tcp_mss)
knobs=$(ip netns exec "$a" sysctl -n net.smartt.tcp_smartt_knobs)

run() {
	local out rpid
	mkdir -p "$tri" || return 1
	echo >"$tri/trace"
	echo 1 >"$tri/events/smartt_transport/smartt_ack_cc/enable" || return 1
	echo 1 >"$tri/events/smartt_transport/smartt_transport_cc/enable" || return 1
	out=$work/recv
	ip netns exec "$b" "$bin" recv 4 1401 4000000 >"$out" 2>&1 &
	rpid=$!
	wait_output "$out" listening
	if ! ip netns exec "$a" env SMARTT_CC=nscc "$bin" send 4 198.18.0.2 1401 4000000; then
		kill $rpid
		wait $rpid
		cat "$out"
		return 1
	fi
	wait $rpid || { cat "$out"; return 1; }
	echo 0 >"$tri/events/enable"
	grep -v '^#' "$tri/trace" >"$work/trace"
}
check "cc nscc: 4 MB over the marking bottleneck, byte for byte, ACK_CCs traced" run

# The recorded ACK_CCs as a replay trace: before each, a send (or lost)
# line that makes the replayer's bytes in flight the kernel's before the
# ACK (in_flight after it + the bytes it acknowledged).
convert() {
	awk -v out="$work/want" -v first="$work/first" '
	/smartt_ack_cc:/ {
		split($0, half, " \\| ")
		if (match(half[1], /bytes=[0-9]+/)) b = substr(half[1], RSTART + 6, RLENGTH - 6)
		if (match(half[1], /in_flight=[0-9]+/)) f = substr(half[1], RSTART + 10, RLENGTH - 10)
		if (match(half[1], /cwnd=[0-9]+/)) c = substr(half[1], RSTART + 5, RLENGTH - 5)
		if (!match(half[2], /t=[0-9]+/)) next
		t = substr(half[2], RSTART + 2, RLENGTH - 2)
		want = f + b
		if (n++ == 0) {
			have = want
			print want > first
		} else if (want > have)
			print "send t=" t " bytes=" want - have
		else if (want < have)
			print "lost t=" t " bytes=" have - want " ev=0"
		print half[2]
		have = f
		print c > out
	}
	END { if (n) printf "%d\n", n > "/dev/stderr" }' "$work/trace" >"$work/replay.trace" 2>"$work/n"
}

compare() {
	local first n other sets=()
	# The core must have seen only ACKs: a NACK or a timeout (no ack_cc
	# line) would leave the replay behind; this bottleneck marks, it
	# does not drop.
	other=$(grep -c 'smartt_transport_cc: smartt \(nack\|rto\)' "$work/trace")
	if [ "$other" != 0 ]; then
		grep 'smartt_transport_cc: smartt \(nack\|rto\)' "$work/trace" | head -3 | sed 's/^/#   /' >&3
		echo "the core also saw $other NACKs or timeouts (the bottleneck dropped): nothing to compare the replay with"
		return "$ksft_skip"
	fi
	for k in $knobs; do
		sets+=(--set "$k")
	done
	convert || return 1
	n=$(cat "$work/n")
	[ -n "$n" ] && [ "$n" -gt 20 ] || { echo "only ${n:-0} ACK_CCs recorded"; return 1; }
	first=$(cat "$work/first")
	"$replay" --algo nscc --set mtu="$mss" --set link_mbps=$link_mbps \
		--set network_rtt=$((rtt_us * 1000)) --set base_rtt=0 --set learn_base_rtt=1 \
		--set in_flight="$first" "${sets[@]}" \
		"$work/replay.trace" >"$work/rows" 2>"$work/err" ||
		{ echo "smartt-replay: $(cat "$work/err")"; return 1; }
	awk -F, '$2 == "ack_cc" { print $4 }' "$work/rows" >"$work/got"
	if ! cmp -s "$work/want" "$work/got"; then
		paste -d' ' "$work/want" "$work/got" | awk '$1 != $2 { print "#   ACK " NR ": kernel cwnd " $1 ", replay " $2; if (++k == 5) exit }' >&3
		return 1
	fi
	echo "# $n ACK_CCs, windows $(sort -n "$work/want" | head -1)..$(sort -n "$work/want" | tail -1) B, rules: $(awk -F, '$2 == "ack_cc" { print $7 }' "$work/rows" | tr '|' '\n' | sort -u | tr '\n' ' ')" >&3
}

check "smartt-replay --algo nscc on the recorded ACK_CCs gives the kernel's window after each" compare
ktap_exit
