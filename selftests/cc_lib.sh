#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the smartt_cc_* kselftests (source after lib.sh): a two-host
# pair of network namespaces over one veth, with a tc bottleneck on the
# sender's side, the TCP tool, and the smartt_cc tracepoint.
#
#   cc_pair [RATE] [DELAY]   namespaces $CC_A (sender) and $CC_B (receiver);
#                            A: 198.18.0.1, 2001:2::1; B: 198.18.0.2, 2001:2::2.
#                            RATE (e.g. 20mbit) shapes A's egress with htb,
#                            DELAY (e.g. 1ms) delays B's egress with netem.
#   cc_mark_all              every IPv4/IPv6 packet A sends leaves with CE
#                            (ECN marking forced on: "Kmin 0")
#   cc_server NS ADDR PORT [--cc NAME]  background discard server
#   cc_client NS ADDR PORT ARGS...  smartt_cc_tool.py client
#   ready FILE               wait up to 120 s for a client's --ready file
#   release PID              stop a background cc_client (and its python)
#   cc_trace_on / cc_trace_off / cc_trace_dump
CC_TOOL="$SMARTT_TOP/selftests/smartt_cc_tool.py"
CC_A=cca$$
CC_B=ccb$$
CC_TMP=$(mktemp -d)
__cc_pids=()
__cc_trace=
cc_kill_all() { # servers, their per-connection children, clients
	local p
	for p in "${__cc_pids[@]}"; do
		pkill -P "$p" 2>/dev/null
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	__cc_pids=()
	rm -f "$CC_TMP"/srv.*
}
cc_cleanup() {
	local i
	cc_kill_all
	[ -n "$__cc_trace" ] && cc_trace_off
	netns_cleanup
	rm -rf "$CC_TMP"
	# sockets of deleted namespaces go away asynchronously: let the
	# runner's unload find the module unused
	for i in $(seq 1 20); do
		[ "$(cat /sys/module/smartt/refcnt 2>/dev/null || echo 0)" = 0 ] && break
		sleep 0.5
	done
}
trap cc_cleanup EXIT

cc_pair() { # cc_pair [RATE] [DELAY]
	netns_add "$CC_A" && netns_add "$CC_B" || return 1
	ip link add va netns "$CC_A" type veth peer name vb netns "$CC_B" || return 1
	ip -n "$CC_A" addr add 198.18.0.1/24 dev va
	ip -n "$CC_B" addr add 198.18.0.2/24 dev vb
	ip -n "$CC_A" addr add 2001:2::1/64 dev va nodad
	ip -n "$CC_B" addr add 2001:2::2/64 dev vb nodad
	ip -n "$CC_A" link set va up && ip -n "$CC_B" link set vb up
	ip -n "$CC_A" link set lo up && ip -n "$CC_B" link set lo up
	# veth offloads would hand TCP 64 KB segments: keep packets real
	ip netns exec "$CC_A" ethtool -K va tso off gso off gro off >/dev/null 2>&1
	ip netns exec "$CC_B" ethtool -K vb tso off gso off gro off >/dev/null 2>&1
	if [ -n "${1:-}" ]; then
		tc -n "$CC_A" qdisc add dev va root handle 1: htb default 1 &&
			tc -n "$CC_A" class add dev va parent 1: classid 1:1 htb \
				rate "$1" ceil "$1" &&
			tc -n "$CC_A" qdisc add dev va parent 1:1 handle 10: pfifo limit 1000 ||
			return 1
	fi
	if [ -n "${2:-}" ]; then
		tc -n "$CC_B" qdisc add dev vb root netem delay "$2" limit 10000 || return 1
	fi
}

cc_mark_all() {
	tc -n "$CC_A" qdisc add dev va clsact &&
	tc -n "$CC_A" filter add dev va egress protocol ip prio 1 matchall \
		action pedit ex munge ip tos set 3 pipe action csum ip || return 1
	tc -n "$CC_A" filter add dev va egress protocol ipv6 prio 2 matchall \
		action pedit ex munge ip6 traffic_class set 3 ||
		echo "# no IPv6 CE marking (pedit ip6 traffic_class)"
}

cc_server() { # cc_server NS ADDR PORT [--cc NAME]
	ip netns exec "$1" python3 "$CC_TOOL" server "$2" "$3" --ready "$CC_TMP/srv.$3" "${@:4}" &
	__cc_pids+=($!)
	local i
	for i in $(seq 1 100); do
		[ -e "$CC_TMP/srv.$3" ] && return 0
		sleep 0.1
	done
	return 1
}

cc_client() { # cc_client NS ADDR PORT ARGS...
	local ns=$1
	shift
	ip netns exec "$ns" python3 "$CC_TOOL" client "$@"
}

ready() { # ready FILE: wait up to 120 s for the client's --ready file
	local i
	for i in $(seq 1 1200); do [ -e "$1" ] && return 0; sleep 0.1; done
	echo "# no $1 after 120 s"
	return 1
}
release() { # release PID: stop a background cc_client (and its python)
	pkill -P "$1" 2>/dev/null
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

cc_tracefs=/sys/kernel/tracing
cc_trace_on() { # cc_trace_on: clear the buffer and enable smartt:smartt_cc
	[ -d "$cc_tracefs/events/smartt" ] || mount -t tracefs nodev "$cc_tracefs" 2>/dev/null
	[ -d "$cc_tracefs/events/smartt/smartt_cc" ] || return 1
	echo 16384 >"$cc_tracefs/buffer_size_kb"
	echo >"$cc_tracefs/trace"
	echo 1 >"$cc_tracefs/events/smartt/smartt_cc/enable"
	__cc_trace=1
}
cc_trace_off() {
	echo 0 >"$cc_tracefs/events/smartt/smartt_cc/enable" 2>/dev/null
	__cc_trace=
}
cc_trace_dump() { # cc_trace_dump FILE
	cat "$cc_tracefs/trace" >"$1"
}
