#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport's NSCC reads its ACK inputs from the UET ACK_CC state
# (rcvd_bytes, service_time, M, RETX; kernel/algo/uet_ack.c), and
# smartt-replay's ack_cc lines read the same fields the same way: a
# transfer's ACK_CCs, recorded by the tracepoint
# smartt_transport:smartt_ack_cc, replayed with smartt-replay --algo nscc
# and the transport's core knobs, give the kernel's window after every one
# of them.  The timeouts and NACKs the core saw (smartt_transport_cc) are
# replayed with them, and between events the kernel's bytes in flight are
# given to the replayer (send/lost lines), since the transport counts them
# from its SACK state.  The sender's egress is a 10 Mbit/s token bucket over a RED
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

link_mbps=10
rtt_us=20000
setup() {
	veth_pair "$a" "$b" || return 1
	ip netns exec "$a" sysctl -qw net.smartt.tcp_network_rtt_us=$rtt_us \
		net.smartt.tcp_link_mbps=$link_mbps net.smartt.tcp_base_rtt_us=0 || return 1
	# 10 Mbit/s, RED marking CE from 3 KB of average queue (the window
	# bound is 1.5 BDP = 37500 B at 20 ms)
	tc -n "$a" qdisc add dev veth-a root handle 1: tbf rate ${link_mbps}mbit \
		burst 16k latency 100ms || return 1
	tc -n "$a" qdisc add dev veth-a parent 1:1 handle 10: red limit 1000000 \
		min 3000 max 9000 avpkt 1500 burst 3 bandwidth ${link_mbps}mbit \
		probability 0.2 ecn
}
setup_ok=true
setup >/dev/null 2>&1 || setup_ok=false
check "two netns hosts, a 10 Mbit/s egress that marks CE (tbf + red ecn)" $setup_ok
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
	ip netns exec "$b" "$bin" recv 4 1401 2000000 >"$out" 2>&1 &
	rpid=$!
	wait_output "$out" listening
	if ! ip netns exec "$a" env SMARTT_CC=nscc "$bin" send 4 198.18.0.2 1401 2000000; then
		kill $rpid
		wait $rpid
		cat "$out"
		return 1
	fi
	wait $rpid || { cat "$out"; return 1; }
	echo 0 >"$tri/events/enable"
	grep -v '^#' "$tri/trace" >"$work/trace"
}
check "cc nscc: 2 MB over the marking bottleneck, byte for byte, ACK_CCs traced" run

# The core's events as a replay trace, in the order of their times: each
# ACK_CC as its ack_cc line (smartt_ack_cc), each timeout and NACK as a
# timeout or nack line (smartt_transport_cc), and before each a send (or
# lost) line that makes the replayer's bytes in flight the kernel's before
# the event (what the core was given + the event's bytes).  The kernel's
# window after each ACK_CC goes to $work/want.
convert() {
	awk '
	function num(s, k,   r) {
		if (!match(s, " " k "=[0-9]+")) return ""
		return substr(s, RSTART + length(k) + 2, RLENGTH - length(k) - 2)
	}
	/smartt_ack_cc:/ {
		split($0, half, " \\| ")
		t = num(" " half[2], "t")
		print t, n++, "ack", num(half[1], "bytes"), num(half[1], "in_flight"),
			num(half[1], "cwnd"), half[2]
	}
	/smartt_transport_cc: smartt (rto|nack) / {
		ev = $0 ~ /smartt rto / ? "timeout" : "nack"
		line = ev " t=" num($0, "t") (ev == "nack" ? " rtt=" num($0, "rtt") : "") \
			" bytes=" num($0, "bytes")
		print num($0, "t"), n++, "other", num($0, "bytes"), num($0, "in_flight"), 0, line
	}' "$work/trace" | sort -n -k1,1 -k2,2 |
	awk -v want="$work/want" -v first="$work/first" -v nacks="$work/others" '
	{
		t = $1; b = $4; f = $5; c = $6
		line = $7; for (i = 8; i <= NF; i++) line = line " " $i
		need = f + b
		if (n++ == 0) {
			have = need
			print need > first
		} else if (need > have) {
			print "send t=" t " bytes=" need - have
		} else if (need < have) {
			print "lost t=" t " bytes=" have - need " ev=0"
		}
		print line
		have = f
		if ($3 == "ack") {
			print c > want
			acks++
		} else {
			others++
		}
	}
	END { printf "%d %d\n", acks, others > nacks }' >"$work/replay.trace"
}

compare() {
	local first acks others sets=()
	for k in $knobs; do
		sets+=(--set "$k")
	done
	convert || return 1
	read -r acks others <"$work/others"
	[ "${acks:-0}" -gt 20 ] || { echo "only ${acks:-0} ACK_CCs recorded"; return 1; }
	first=$(cat "$work/first")
	"$replay" --algo nscc --set mtu="$mss" --set link_mbps=$link_mbps \
		--set network_rtt=$((rtt_us * 1000)) --set base_rtt=0 --set learn_base_rtt=1 \
		--set in_flight="$first" "${sets[@]}" \
		"$work/replay.trace" >"$work/rows" 2>"$work/err" ||
		{ echo "smartt-replay: $(cat "$work/err")"; return 1; }
	awk -F, '$2 == "ack_cc" { print $4 }' "$work/rows" >"$work/got"
	if ! cmp -s "$work/want" "$work/got"; then
		paste -d' ' "$work/want" "$work/got" |
			awk '$1 != $2 { print "#   ACK_CC " NR ": kernel cwnd " $1 ", replay " $2; if (++k == 5) exit }' >&3
		return 1
	fi
	echo "# $acks ACK_CCs and $others timeouts/NACKs replayed; windows $(sort -n "$work/want" | head -1)..$(sort -n "$work/want" | tail -1) B; rules: $(awk -F, '$2 == "ack_cc" { print $7 }' "$work/rows" | tr '|' '\n' | sort -u | tr '\n' ' ')" >&3
}

check "smartt-replay --algo nscc on the recorded ACK_CCs gives the kernel's window after each" compare
ktap_exit
