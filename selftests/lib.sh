#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the smartt kselftests (source it).  Conventions are the
# kernel's: exit 0 pass, 1 fail, 4 skip; KTAP lines for sub-checks, printed
# with a leading "# " by the runner so only the script's verdict is
# top-level.

ksft_pass=0
ksft_fail=1
ksft_skip=4

SMARTT_TOP=${SMARTT_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}

__ktap_n=0
__ktap_failed=0
__ktap_skipped=0
__ktap_passed=0

# ktap_result OK|FAIL|SKIP DESCRIPTION [REASON]
ktap_result() {
	__ktap_n=$((__ktap_n + 1))
	case "$1" in
	OK)   __ktap_passed=$((__ktap_passed + 1)); echo "ok $__ktap_n $2" ;;
	FAIL) __ktap_failed=$((__ktap_failed + 1)); echo "not ok $__ktap_n $2${3:+ # $3}" ;;
	SKIP) __ktap_skipped=$((__ktap_skipped + 1)); echo "ok $__ktap_n $2 # SKIP ${3:-no reason given}" ;;
	esac
}

# check DESCRIPTION COMMAND... : one sub-check, passes if COMMAND succeeds;
# exit status 4 ($ksft_skip) skips it, the last line of its output the
# reason.
check() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1) && rc=0 || rc=$?
	if [ "$rc" = 0 ]; then
		ktap_result OK "$desc"
		return
	fi
	if [ "$rc" = "$ksft_skip" ]; then
		ktap_result SKIP "$desc" "$(tail -n 1 <<<"$out")"
		return
	fi
	ktap_result FAIL "$desc"
	[ -n "$out" ] && printf '# | %s\n' "${out//$'\n'/$'\n# | '}"
}

# ktap_exit: the script's exit status from its sub-checks.
ktap_exit() {
	echo "# totals: pass $__ktap_passed fail $__ktap_failed skip $__ktap_skipped"
	if [ "$__ktap_failed" -gt 0 ]; then
		exit $ksft_fail
	elif [ "$__ktap_passed" -eq 0 ] && [ "$__ktap_skipped" -gt 0 ]; then
		exit $ksft_skip
	fi
	exit $ksft_pass
}

# skip_all REASON: the whole test cannot run here.
skip_all() {
	echo "# SKIP: $*"
	exit $ksft_skip
}

require_root() {
	[ "$(id -u)" = 0 ] || skip_all "needs root"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip_all "needs $c"
	done
}

# Network namespaces created through here are removed on exit.
__netns_list=()
netns_add() { # netns_add NAME
	ip netns add "$1" && __netns_list+=("$1")
}
netns_cleanup() {
	local ns
	for ns in "${__netns_list[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	__netns_list=()
}
trap netns_cleanup EXIT

# veth_pair A B: namespaces A and B joined by veth-a (in A) and veth-b (in
# B), 198.18.0.1/24 and 2001:2::1/64 on veth-a, .2 and ::2 on veth-b, every
# link up; removed on exit with the other namespaces.
veth_pair() {
	netns_add "$1" && netns_add "$2" || return 1
	ip link add veth-a netns "$1" type veth peer name veth-b netns "$2" || return 1
	ip -n "$1" link set lo up && ip -n "$2" link set lo up &&
	ip -n "$1" addr add 198.18.0.1/24 dev veth-a &&
	ip -n "$2" addr add 198.18.0.2/24 dev veth-b &&
	ip -n "$1" addr add 2001:2::1/64 dev veth-a nodad &&
	ip -n "$2" addr add 2001:2::2/64 dev veth-b nodad &&
	ip -n "$1" link set veth-a up && ip -n "$2" link set veth-b up
}

# route_congctl NS CC: every IPv4 and IPv6 unicast route of NS's main table
# gets congctl CC ("" takes it away).  The kernel refuses ECN to an ECT
# SYN (the SYN of a client whose congestion control needs ECN, selected
# before connect()) unless the listener's congestion control or the
# route's (DST_FEATURE_ECN_CA) needs ECN too, and smartt, strack and dctcp
# without negotiated ECN run Reno: this makes NS such a listener.  (iperf3
# -C selects the algorithm after connect(): its SYN is the default
# algorithm's, which asks for ECN with net.ipv4.tcp_ecn=1 on the client.)
route_congctl() {
	local ns=$1 cc=$2 fam line
	for fam in -4 -6; do
		while read -r line; do
			[ -n "$line" ] || continue
			line=$(sed -E 's/ congctl( lock)? [^ ]+//; s/ linkdown//g' <<<"$line")
			# shellcheck disable=SC2086 # the route's own words
			ip -n "$ns" "$fam" route replace $line ${cc:+congctl "$cc"} || return 1
		done < <(ip -n "$ns" "$fam" route show table main | grep -Ev '^(multicast|broadcast|fe80::)')
	done
}

# third_host C B: a third netns host C on a veth to B's veth-bc,
# 198.18.2.1/24 (C) and 198.18.2.2/24 (B); C is removed on exit like the
# others.
third_host() {
	netns_add "$1" || return 1
	ip link add veth-c netns "$1" type veth peer name veth-bc netns "$2" &&
		ip -n "$1" link set lo up &&
		ip -n "$1" addr add 198.18.2.1/24 dev veth-c &&
		ip -n "$2" addr add 198.18.2.2/24 dev veth-bc &&
		ip -n "$1" link set veth-c up && ip -n "$2" link set veth-bc up
}

# mem_back NETNS PAGES: wait up to 5 s for the protocol's memory
# (mem_pages, read in NETNS) to be PAGES or less; prints the last value.
mem_back() {
	local i p
	for i in $(seq 50); do
		p=$(ip netns exec "$1" awk '$1 == "mem_pages" { print $2 }' /proc/net/smartt_stats)
		[ "$p" -le "$2" ] && break
		sleep 0.1
	done
	echo "$p"
}

# jfield FILE KEY: a top-level field of the last JSON line of FILE (the
# report of smartt-perf --json and similar tools).
jfield() {
	python3 -c 'import json, sys
d = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])
print(d[sys.argv[2]])' "$1" "$2"
}

# wait_output FILE PATTERN: wait up to 10 s for a line matching PATTERN in
# FILE (a background program's output); fails if it never comes.
wait_output() {
	local i
	for i in $(seq 100); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# pcap_start NETNS DEV FILE FILTER: tcpdump on DEV in NETNS into FILE, its
# report in FILE.log; sets pcap_pid.  Immediate mode: each packet is handed
# to tcpdump as it arrives, not when a ring block fills or times out (a
# capture stopped within the block timeout would otherwise hold nothing).
# Fails if tcpdump does not start listening.
pcap_start() {
	ip netns exec "$1" tcpdump -i "$2" --immediate-mode -U -n -w "$3" "$4" \
		2>"$3.log" &
	pcap_pid=$!
	wait_output "$3.log" "listening on"
}

# pcap_stop FILE: once FILE has stopped growing for 0.5 s (up to 10 s),
# stop the tcpdump of pcap_start (SIGINT: it writes what it has), wait up
# to 5 s for it to exit and print its report.  pcap_pid need not be a
# child of the calling shell.
pcap_stop() {
	local i last=-1 size

	for i in $(seq 20); do
		size=$(wc -c <"$1" 2>/dev/null || echo 0)
		[ "$size" = "$last" ] && break
		last=$size
		sleep 0.5
	done
	kill -INT "$pcap_pid" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$pcap_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$1.log"
}

# module_unload NAME [TRIES]: modprobe -r, retried every 0.5 s (default 40
# times): a deleted netns drops its sockets' module references
# asynchronously.
module_unload() {
	local i
	for i in $(seq 1 "${2:-40}"); do
		modprobe -r "$1" 2>/dev/null
		[ ! -e "/sys/module/$1" ] && return 0
		sleep 0.5
	done
	return 1
}
