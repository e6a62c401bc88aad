#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The userspace tools against the transport between two netns hosts on a
# veth: smartt-perf ping-pong and streaming over smartt (IPv4, IPv6) and
# TCP, a 2:1 incast with a common start time; the message and byte counts
# the client and the server report must agree with what was asked;
# smarttctl shows the counters rising (stats --diff, --json, -n),
# /proc/net/smartt_peers the server's peer, the net.smartt.* knobs; bad
# options fail at once with a clear error, an absent server with
# ECONNREFUSED instead of a hang.
# `make check` shares the long tests between its two plain guests
# (SMARTT_SELFTESTS_FULL=1 runs this one on both); this one runs on
# kernels: 6.1
source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3 modprobe

perf=$SMARTT_TOP/build/userspace/smartt-perf
ctl=$SMARTT_TOP/userspace/smarttctl
[ -x "$perf" ] || skip_all "no $perf (make -C userspace smartt-perf)"
modprobe smartt 2>/dev/null || skip_all "cannot load smartt.ko"

t_start=$(date +%s%N)
a=smartt-to-a-$$
b=smartt-to-b-$$
tmp=$(mktemp -d)
on_exit() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	netns_cleanup
	rm -rf "$tmp"
}
trap on_exit EXIT

setup() {
	veth_pair "$a" "$b"
}
setup_ok=true
setup >/dev/null 2>&1 || setup_ok=false
check "two netns hosts on a veth" $setup_ok
$setup_ok || ktap_exit

# server_start NAME ARGS...: a smartt-perf server in b, output in $tmp/NAME.
server_start() {
	local name=$1
	shift
	ip netns exec "$b" "$perf" server --json "$@" >"$tmp/$name" 2>&1 &
	echo $! >"$tmp/$name.pid"
	wait_output "$tmp/$name" listening
}

server_stop() { # server_stop NAME: SIGTERM, the server prints its totals
	local pid
	pid=$(cat "$tmp/$1.pid")
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
}

# perf_run LABEL PROTO FAM-FLAG ADDR PORT CLIENT-ARGS...: server in b,
# client in a; the counts must match: client messages = N, server messages
# = N (x clients), bytes = N x size on both sides.
perf_run() {
	local label=$1 proto=$2 fam=$3 addr=$4 port=$5 n size cm cb sm sb sr
	shift 5
	n=$(echo "$@" | sed -n 's/.*-n \([0-9]*\).*/\1/p')
	size=$(echo "$@" | sed -n 's/.*-s \([0-9]*\).*/\1/p')
	server_start "$label" --proto "$proto" "$fam" -p "$port" || { cat "$tmp/$label"; return 1; }
	ip netns exec "$a" timeout 100 "$perf" client --json --proto "$proto" -t 20 "$@" \
		-p "$port" "$addr" >"$tmp/$label.c" 2>&1 || { cat "$tmp/$label.c"; server_stop "$label"; return 1; }
	if [ "$proto" = smartt ] && [ -n "${peers_check:-}" ]; then
		"$ctl" -n "$b" peers --json >"$tmp/$label.peers" 2>&1
	fi
	server_stop "$label"
	cat "$tmp/$label.c" "$tmp/$label"
	cm=$(jfield "$tmp/$label.c" messages) cb=$(jfield "$tmp/$label.c" bytes)
	sm=$(jfield "$tmp/$label" messages) sb=$(jfield "$tmp/$label" bytes)
	sr=$(jfield "$tmp/$label" responses)
	[ "$(jfield "$tmp/$label.c" failed)" = 0 ] &&
	[ "$(jfield "$tmp/$label.c" unexpected)" = 0 ] &&
	[ "$cm" = "$n" ] && [ "$cb" = $((n * size)) ] &&
	[ "$sm" = "$n" ] && [ "$sb" = $((n * size)) ] || return 1
	if echo "$@" | grep -q stream; then
		[ "$sr" = 0 ]
	else
		[ "$sr" = "$n" ]
	fi
}

stat_b() { "$ctl" -n "$b" stats --json "$1" | python3 -c 'import json,sys; print(list(json.load(sys.stdin)["counters"].values())[0])'; }

d0=$(stat_b msgs_delivered)
check "smartt ping-pong IPv4, 1000 B, 4 outstanding: counts match" \
	perf_run pp4 smartt -4 198.18.0.2 3001 -P pingpong -n 200 -s 1000 -o 4
peers_check=1
check "smartt stream IPv6, 64 KiB, completions with cookie: counts match" \
	perf_run st6 smartt -6 2001:2::2 3002 -P stream -n 20 -s 65536 -o 4 --cc smartt
peers_check=
check "smartt stream IPv4, 1 MiB: counts match" \
	perf_run st4 smartt -4 198.18.0.2 3003 -P stream -n 3 -s 1048576 -o 2
check "smartt ping-pong IPv6, 64 B: counts match" \
	perf_run pp6 smartt -6 2001:2::2 3004 -P pingpong -n 100 -s 64
check "TCP ping-pong IPv4, 1000 B: counts match" \
	perf_run tpp4 tcp -4 198.18.0.2 7005 -P pingpong -n 200 -s 1000 -o 4 -C cubic
check "TCP stream IPv6, 64 KiB, 1-byte acks: counts match" \
	perf_run tst6 tcp -6 2001:2::2 7006 -P stream -n 20 -s 65536 -o 4 -C cubic
d1=$(stat_b msgs_delivered)
check "smarttctl stats: msgs_delivered in b rose by the smartt messages ($d0 -> $d1)" \
	test "$d1" -ge $((d0 + 200 + 20 + 3 + 100))

peers_seen() {
	cat "$tmp/st6.peers"
	python3 -c 'import json,sys
rows = json.load(open(sys.argv[1]))
ok = [r for r in rows if r["port"] == 3002 and r["peer"] == "2001:2::1" and r["cc"] == "none"]
sys.exit(0 if ok and ok[0]["rcv_nxt"] >= 20 else 1)' "$tmp/st6.peers"
}
check "/proc/net/smartt_peers (smarttctl peers): the stream's peer at the server" peers_seen

# 2:1 incast: two clients in a start together towards one server in b.
incast() {
	local t i pids=() rd reads
	server_start inc --proto smartt -4 -p 3010 || return 1
	# /proc/net/smartt_peers read in a loop meanwhile, also while the
	# sockets close (the runner then checks the kernel log).
	ip netns exec "$b" bash -c 'n=0; while [ ! -e "$1" ]; do
		cat /proc/net/smartt_peers >/dev/null || exit 1; n=$((n + 1)); sleep 0.02; done
		echo $n' _ "$tmp/inc.stop" >"$tmp/inc.reads" 2>&1 &
	rd=$!
	t=$(date +%s.%N | awk '{printf "%.3f", $1 + 1}')
	for i in 1 2; do
		ip netns exec "$a" timeout 100 "$perf" client --json -P stream -n 4 -s 100000 \
			-o 2 -t 20 --start-at "$t" 198.18.0.2:3010 >"$tmp/inc.$i" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	server_stop inc
	touch "$tmp/inc.stop"
	wait $rd || { echo "reading /proc/net/smartt_peers failed"; return 1; }
	reads=$(cat "$tmp/inc.reads")
	cat "$tmp/inc.1" "$tmp/inc.2" "$tmp/inc"
	echo "/proc/net/smartt_peers read $reads times meanwhile"
	[ "$reads" -gt 0 ] || return 1
	[ "$(jfield "$tmp/inc.1" messages)" = 4 ] && [ "$(jfield "$tmp/inc.2" messages)" = 4 ] &&
	[ "$(jfield "$tmp/inc" messages)" = 8 ] && [ "$(jfield "$tmp/inc" bytes)" = 800000 ]
}
check "2:1 incast with --start-at: both clients' messages arrive (smartt_peers read meanwhile)" incast

# in_sleep PID SECS: wait until PID sleeps in (clock_)nanosleep, the
# system call it makes (/proc/PID/syscall: nanosleep 35, clock_nanosleep
# 230 on x86-64); fails if it never does or has exited
in_sleep() {
	local nr _ i
	for ((i = 0; i < $2 * 10; i++)); do
		read -r nr _ <"/proc/$1/syscall" 2>/dev/null || return 1
		[ "$nr" = 35 ] || [ "$nr" = 230 ] && return 0
		sleep 0.1
	done
	return 1
}

diff_rises() {
	local out
	server_start dif --proto smartt -4 -p 3011 || return 1
	# The client starts once smarttctl made its first read, when it sleeps
	# (Python takes one to over eight seconds to start in a TCG guest,
	# with the host's load), and ends before the second.
	"$ctl" -n "$b" stats --diff 20 --json rx_data msgs_delivered >"$tmp/dif.json" &
	local cpid=$!
	in_sleep "$cpid" 60 || { echo "smarttctl never slept"; wait $cpid; return 1; }
	ip netns exec "$a" "$perf" client -P stream -n 10 -s 10000 -t 4 198.18.0.2:3011 \
		>"$tmp/dif.client" 2>&1 || echo "the client failed:"
	tail -3 "$tmp/dif.client"
	wait $cpid
	out=$(cat "$tmp/dif.json")
	server_stop dif >/dev/null
	echo "$out"
	echo "$out" | python3 -c 'import json,sys
c = json.load(sys.stdin)["counters"]
sys.exit(0 if c["msgs_delivered"] == 10 and c["rx_data"] >= 80 else 1)'
}
check "smarttctl stats --diff: exactly the 10 messages sent meanwhile" diff_rises

check "smarttctl knobs lists net.smartt.tcp_link_mbps" \
	bash -c "'$ctl' -n '$a' knobs | grep -q '^net.smartt.tcp_link_mbps = '"

set_einval() {
	local out rc
	out=$("$ctl" -n "$a" set net.smartt.tcp_start=7 2>&1)
	rc=$?
	echo "$out"
	[ $rc = 1 ] && echo "$out" | grep -q "Invalid argument" &&
	"$ctl" -n "$a" set tcp_start=1 | grep -q '= 1$' &&
	"$ctl" -n "$a" set tcp_start=0 >/dev/null
}
check "smarttctl set: EINVAL reported clearly, good values written" set_einval

# fails_with EXPECTED-TEXT COMMAND...: exits 1 within 30 s, stderr names the error.
fails_with() {
	local want=$1 out rc
	shift
	out=$(timeout 30 "$@" 2>&1)
	rc=$?
	echo "rc $rc: $out"
	[ $rc = 1 ] && echo "$out" | grep -q "$want"
}
check "smartt-perf --cc bogus: EINVAL from SMARTT_CC" \
	fails_with "SMARTT_CC: Invalid argument" ip netns exec "$a" "$perf" client --cc bogus -n 1 198.18.0.2
check "smartt-perf --proto tcp -C bogus: TCP_CONGESTION error" \
	fails_with "TCP_CONGESTION" ip netns exec "$a" "$perf" client --proto tcp -C bogus -n 1 198.18.0.2
# usage_error EXPECTED-TEXT COMMAND...: exits 2 (a usage error), names it.
usage_error() {
	local want=$1 out rc
	shift
	out=$(timeout 30 "$@" 2>&1)
	rc=$?
	echo "rc $rc: $out"
	[ $rc = 2 ] && echo "$out" | grep -q -- "$want"
}
check "smartt-perf --size 10: refused as a usage error" \
	usage_error "--size 10: want 32 B" "$perf" client -s 10 198.18.0.2
# b's UDP port is open only while b has a transport socket: hold one, so
# that b answers a port without a socket with the transport's error.
server_start hold --proto smartt -4 -p 3098
check "smartt-perf: no server (stream) fails with ECONNREFUSED, no hang" \
	fails_with "Connection refused" ip netns exec "$a" "$perf" client -P stream -n 2 198.18.0.2:3099
check "smartt-perf: no server (ping-pong) fails with ECONNREFUSED, no hang" \
	fails_with "Connection refused" ip netns exec "$a" "$perf" client -n 2 198.18.0.2:3099
check "smartt-perf: an unanswering address times out (-t 2)" \
	fails_with "timed out" ip netns exec "$a" "$perf" client -P stream -n 1 -t 2 198.18.0.3
server_stop hold >/dev/null
check "smarttctl stats NOSUCH: clear error" fails_with "no counter" "$ctl" stats nosuch_counter

echo "# total $(( ($(date +%s%N) - t_start) / 1000000 )) ms"
ktap_exit
