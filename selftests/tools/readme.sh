#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's host-only quick start ("## Without QEMU"), run exactly as
# written: every command of its code blocks, one TAP line each, then what
# the reader is told to expect (iperf3 at >= 90 % of the port rate, the
# counters of the receiver's port, nothing left after down).  Then the same
# iperf3 example with every congestion control the host offers.
#
# The fabric gets a name of its own through SMARTT_FABRIC_NAME (the
# commands themselves take the default), so that a fabric "sf" of the user
# is never touched.
#
#   readme.sh [TOP]
set -u
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
cd "$top" || exit 1
n=0
fails=0
tap() { # tap OK|FAIL|SKIP DESC [REASON]
	n=$((n + 1))
	case $1 in
	OK) echo "ok $n $2" ;;
	SKIP) echo "ok $n $2 # SKIP $3" ;;
	*) echo "not ok $n $2"; fails=$((fails + 1)) ;;
	esac
}

if [ "$(id -u)" != 0 ]; then
	tap SKIP "README quick start" "needs root (network namespaces, tc, BPF)"
	exit 0
fi
for c in iperf3 ip tc ethtool; do
	command -v $c >/dev/null || { tap SKIP "README quick start" "$c not installed (make deps)"; exit 0; }
done

export SMARTT_FABRIC_NAME=rq$(($$ % 100000))
tmp=$(mktemp -d /tmp/smartt-readme.XXXXXX)
cleanup() { userspace/smartt-fabric down >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT

# The section's code blocks, one command per line.
awk '/^## Without QEMU/ { on = 1; next } /^## / { on = 0 }
     on && /^```/ { inblock = !inblock; next } on && inblock && NF' README.md >"$tmp/cmds"
if [ ! -s "$tmp/cmds" ]; then
	tap FAIL "README has a \"## Without QEMU\" section with commands"
	exit 1
fi
i=0
while read -r cmd; do
	i=$((i + 1))
	echo "# \$ $cmd"
	bash -c "$cmd" >"$tmp/out.$i" 2>&1 </dev/null
	rc=$?
	sed 's/^/#   /' "$tmp/out.$i" | tail -n 30
	if [ $rc = 0 ]; then tap OK "README: $cmd"; else tap FAIL "README: $cmd (exit $rc)"; fi
	case $cmd in
	*"smartt-fabric up"*) up_out=$tmp/out.$i ;;
	*"iperf3 -c"*) iperf_out=$tmp/out.$i ;;
	*"smartt-fabric status"*) status_out=$tmp/out.$i ;;
	esac
done <"$tmp/cmds"

# The port rate that up reported ("host ports 1Gbit, ...").
rate=$(sed -n 's/^ *host ports \([0-9.]*[kMGT]\)bit,.*/\1/p' "${up_out:-/dev/null}")
bps=$(python3 -c 'import sys; s = sys.argv[1]; print(int(float(s[:-1]) * {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[s[-1]]))' "${rate:-0k}" 2>/dev/null)
got=$(awk '/receiver/ { v = $(NF - 2); u = $(NF - 1) } END {
	m = (u ~ /^G/) ? 1e9 : (u ~ /^M/) ? 1e6 : (u ~ /^K/) ? 1e3 : 1; printf "%d", v * m }' "${iperf_out:-/dev/null}")
# iperf_bps CC: one 5-second iperf3 run from h0 to h1 of the fabric that is
# up; prints "bits/s retransmissions".
iperf_bps() {
	userspace/smartt-fabric exec h1 -- iperf3 -s -D -1 >/dev/null 2>&1
	userspace/smartt-fabric exec h0 -- iperf3 -c 198.18.0.5 -t 5 ${1:+-C "$1"} -J 2>/dev/null |
		python3 -c 'import json, sys
try:
    e = json.load(sys.stdin)["end"]
    print(int(e["sum_received"]["bits_per_second"]), e["sum_sent"]["retransmits"])
except (ValueError, KeyError):
    print(0, -1)'
}

# A second fabric with ports 10 times faster: what the emulation carries
# on this machine right now (the CPUs' share, not a port, is its limit).
capname=${SMARTT_FABRIC_NAME}c
cap_up=
cap_ensure() {
	[ -n "$cap_up" ] && return
	SMARTT_FABRIC_NAME=$capname userspace/smartt-fabric up --rate "$((bps * 10))" \
		>/dev/null 2>&1 && cap_up=1
}
capacity() { # capacity CC (after cap_ensure)
	local c
	[ -n "$cap_up" ] || { echo 0; return; }
	c=$(SMARTT_FABRIC_NAME=$capname iperf_bps "$1")
	echo "${c%% *}"
}
trap 'SMARTT_FABRIC_NAME=$capname userspace/smartt-fabric down >/dev/null 2>&1; cleanup' EXIT

# judge DESC CC [BPS]: up to three rounds of a run through the port (BPS is
# the first, already measured) and, when it is below 90 % of the port rate,
# a run through the fast fabric right after.  Passes when a run reaches
# 90 %; fails when in every round the fast fabric carried 120 % of the rate
# while the port stayed below 90 % (the port, not the machine, held it
# back); otherwise the machine was too busy to judge: a skip, with numbers.
judge() {
	local desc=$1 cc=$2 got=${3:-} cap round best=0 caps="" limited=0
	if [ -n "$cc" ] && ! grep -qw -- "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control; then
		tap SKIP "$desc" "$cc is no longer offered (unloaded while the test ran)"
		return
	fi
	for round in 1 2 3; do
		[ -n "$got" ] || read -r got _ <<<"$(iperf_bps "$cc")"
		echo "# $desc, round $round: ${got:-0} bit/s through the port"
		[ "${got:-0}" -gt "$best" ] && best=${got:-0}
		if [ "${got:-0}" -ge $((bps * 9 / 10)) ]; then
			tap OK "$desc: $got bit/s, >= 90 % of $bps"
			return
		fi
		cap_ensure
		cap=$(capacity "$cc")
		echo "# ... and right after, $cap bit/s through ports 10 times faster"
		caps="$caps ${cap:-0}"
		[ "${cap:-0}" -ge $((bps * 12 / 10)) ] && limited=$((limited + 1))
		got=
	done
	if [ $limited = 3 ]; then
		tap FAIL "$desc: at best $best bit/s, >= 90 % of $bps (ports 10 times faster carried$caps)"
	else
		tap SKIP "$desc: at best $best bit/s, >= 90 % of $bps" \
			"the machine is too busy to judge: ports 10 times faster carried$caps bit/s"
	fi
}

if awk '$1 == "l0:h1" && $4 > 1000 { f = 1 } END { exit !f }' "${status_out:-/dev/null}"; then
	tap OK "README: status shows the receiver's port l0:h1 carrying the transfer"
else
	tap FAIL "README: status shows the receiver's port l0:h1 carrying the transfer"
fi
left=$(ip netns list | grep -c "^sf-$SMARTT_FABRIC_NAME-")
if [ "$left" = 0 ] && [ ! -e "/run/smartt-fabric/$SMARTT_FABRIC_NAME.json" ]; then
	tap OK "README: down leaves no namespace and no state"
else
	tap FAIL "README: down leaves no namespace ($left left) and no state"
fi


# The example with every congestion control the host offers.
userspace/smartt-fabric up >"$tmp/up" 2>&1 || { cat "$tmp/up"; tap FAIL "fabric up for the CC runs"; exit 1; }
# (a README run below 90 % is judged like the others: more rounds on a
# fabric built the same way)
echo "# port rate ${bps:-?} bit/s, iperf3 receiver ${got:-?} bit/s"
judge "README: iperf3 reaches >= 90 % of the port rate" "" "$got"
for cc in $(cat /proc/sys/net/ipv4/tcp_available_congestion_control); do
	judge "iperf3 -C $cc through the default fabric" "$cc"
done
userspace/smartt-fabric down >/dev/null 2>&1
exit $((fails > 0))
