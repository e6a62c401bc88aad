#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt-replay's ack_cc lines (a UET ACK_CC with NSCC state, and the
# sender's record of the acknowledged PSN): each amounts to the ack line
# kernel/algo/uet_ack.c derives from it, so a trace of ack_cc lines and the
# same trace converted by hand to ack lines give the same rows but for the
# event's name; the received-bytes count wraps at 2^24 and a stale count
# adds nothing; RETX and the transmission count decide whether there is an
# RTT sample; bad fields fail the line and change nothing.  Prints TAP.
#
#   replay_ack_cc.sh [SMARTT_REPLAY]   (default build/userspace/smartt-replay)
set -uo pipefail

# shellcheck source=replay_tap.sh
source "$(dirname "$0")/replay_tap.sh"

echo "TAP version 13"
if [ ! -x "$replay" ]; then
	echo "1..1"
	echo "not ok 1 $replay: not built (make tools)"
	exit 1
fi

# rows ALGO FILE [--set ...]: the replayer's rows with the event column
# blanked, so that ack_cc and ack rows compare
rows() {
	local algo=$1 file=$2
	shift 2
	"$replay" --algo "$algo" "$@" "$file" | awk -F, -v OFS=, 'NR > 1 { $2 = "" } { print }'
}

# Three packets out; ACK_CCs with service times in 1000 ns units, one
# marked, one answering a retransmission, one stale, one across the wrap
# of a count that started near 2^24 (by --set, as a receiver's count would
# after 16 MiB).
cat >"$tmp/cc" <<'EOF'
send t=100 bytes=4096
send t=200 bytes=4096
send t=300 bytes=4096
send t=400 bytes=4096
ack_cc t=30100 sent=100 service_time=5 rcvd_bytes=4096 m=0 ev=1
ack_cc t=40200 sent=200 service_time=2 rcvd_bytes=8192 m=1 ev=2
ack_cc t=40300 sent=300 service_time=1 rcvd_bytes=4096 m=0
ack_cc t=50300 sent=35000 tx=2 retx=1 service_time=3 rcvd_bytes=12288 m=0
ack_cc t=50400 sent=400 tx=2 retx=0 service_time=0 rcvd_bytes=16384 m=0
EOF
# The same by hand: bytes = difference of the counts (0 when stale), rtt =
# t - sent - 1000 x service_time, or 0 (no sample) when the ACK does not
# answer the timed transmission.
cat >"$tmp/ack" <<'EOF'
send t=100 bytes=4096
send t=200 bytes=4096
send t=300 bytes=4096
send t=400 bytes=4096
ack t=30100 rtt=25000 ecn=0 bytes=4096 ev=1
ack t=40200 rtt=38000 ecn=1 bytes=4096 ev=2
ack t=40300 rtt=39000 ecn=0 bytes=0
ack t=50300 rtt=12300 ecn=0 bytes=4096
ack t=50400 rtt=0 ecn=0 bytes=4096
EOF
for algo in nscc smartt strack; do
	if diff <(rows "$algo" "$tmp/cc" --set service_unit_ns=1000 --set in_flight=0) \
		<(rows "$algo" "$tmp/ack" --set in_flight=0) >"$tmp/d"; then
		ok "ack_cc rows are the ack rows they amount to ($algo)"
	else
		sed 's/^/# /' "$tmp/d" | head -8
		not_ok "ack_cc rows are the ack rows they amount to ($algo)"
	fi
done

# service_unit_ns 0: the service time is not subtracted; the default is
# the transport's unit, 1000 ns.
printf '%s\n' 'send t=0 bytes=4096' 'ack_cc t=30000 sent=0 service_time=7 rcvd_bytes=4096 m=0' >"$tmp/cc0"
printf '%s\n' 'send t=0 bytes=4096' 'ack t=30000 rtt=30000 ecn=0 bytes=4096' >"$tmp/ack0"
if diff <(rows nscc "$tmp/cc0" --set in_flight=0 --set service_unit_ns=0) \
	<(rows nscc "$tmp/ack0" --set in_flight=0) >/dev/null; then
	ok "service_unit_ns 0 leaves the service time out"
else
	not_ok "service_unit_ns 0 leaves the service time out"
fi
printf '%s\n' 'send t=0 bytes=4096' 'ack t=30000 rtt=23000 ecn=0 bytes=4096' >"$tmp/ack1"
if diff <(rows nscc "$tmp/cc0" --set in_flight=0) <(rows nscc "$tmp/ack1" --set in_flight=0) >/dev/null; then
	ok "service_unit_ns defaults to 1000 ns"
else
	not_ok "service_unit_ns defaults to 1000 ns"
fi

# The count wraps at 2^24: 16777000 then 200 is 416 new bytes.  (Each
# step is below half the range: a larger one reads as a stale count.)
printf '%s\n' 'send t=0 bytes=20000000' \
	'ack_cc t=10 sent=0 service_time=0 rcvd_bytes=6000000 m=0' \
	'ack_cc t=15 sent=0 service_time=0 rcvd_bytes=12000000 m=0' \
	'ack_cc t=20 sent=0 service_time=0 rcvd_bytes=16777000 m=0' \
	'ack_cc t=30 sent=0 service_time=0 rcvd_bytes=200 m=0' >"$tmp/wrap"
in_flight=$("$replay" --algo nscc --set in_flight=0 "$tmp/wrap" | awk -F, 'END { print $5 }')
if [ "$in_flight" = $((20000000 - 16777000 - 416)) ]; then
	ok "rcvd_bytes wraps at 2^24 (in flight $in_flight)"
else
	not_ok "rcvd_bytes wraps at 2^24 (in flight $in_flight, want $((20000000 - 16777000 - 416)))"
fi
# Half the range ahead reads as stale: nothing counted.
printf '%s\n' 'send t=0 bytes=20000000' \
	'ack_cc t=10 sent=0 service_time=0 rcvd_bytes=8388608 m=0' >"$tmp/half"
in_flight=$("$replay" --algo nscc --set in_flight=0 "$tmp/half" | awk -F, 'END { print $5 }')
if [ "$in_flight" = 20000000 ]; then
	ok "a count 2^23 ahead is stale"
else
	not_ok "a count 2^23 ahead is stale (in flight $in_flight)"
fi

# bad LINE WHY: the line fails with exit 1 after the good rows, and says why
bad() {
	local line=$1 why=$2 out
	printf '%s\n' 'send t=0 bytes=8192' 'ack_cc t=10 sent=0 service_time=0 rcvd_bytes=4096 m=0' \
		"$line" >"$tmp/bad"
	out=$("$replay" --algo nscc --set in_flight=0 "$tmp/bad" 2>"$tmp/bad.err")
	local st=$?
	if [ $st = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 3 ] && grep -q "line 3" "$tmp/bad.err"; then
		ok "rejected: $why ($(cat "$tmp/bad.err"))"
	else
		echo "# exit $st, stderr: $(cat "$tmp/bad.err")"
		not_ok "rejected: $why"
	fi
}
bad 'ack_cc t=20 sent=0 service_time=0 rcvd_bytes=16777216 m=0' "rcvd_bytes of 25 bits"
bad 'ack_cc t=20 sent=0 service_time=65536 rcvd_bytes=8192 m=0' "service_time of 17 bits"
bad 'ack_cc t=20 sent=0 service_time=0 rcvd_bytes=8192 m=2' "m=2"
bad 'ack_cc t=20 sent=0 service_time=0 rcvd_bytes=8192 m=0 retx=2' "retx=2"
bad 'ack_cc t=20 sent=0 service_time=0 rcvd_bytes=8192' "m missing"
bad 'ack_cc t=20 service_time=0 rcvd_bytes=8192 m=0' "sent missing"
bad 'ack_cc t=20 sent=0 service_time=0 rcvd_bytes=8192 m=0 bytes=4096' "bytes given"
bad 'ack_cc t=5 sent=0 service_time=0 rcvd_bytes=8192 m=0' "time going back"
bad 'ack_cc t=20 sent=0 service_time=0 rcvd_bytes=16384 m=0' "more new bytes than in flight"
bad 'ack_cc t=20 sent=0 service_time=0 rcvd_bytes=8192 m=0 ev=99999999' "ev beyond the paths"

# A failed line leaves the count alone: the same line, corrected, is taken
# with the bytes counted from the last good line.
printf '%s\n' 'send t=0 bytes=8192' 'ack_cc t=10 sent=0 service_time=0 rcvd_bytes=4096 m=0' \
	'ack_cc t=20 sent=0 service_time=0 rcvd_bytes=8192 m=0 ev=99999999' >"$tmp/keep"
"$replay" --algo nscc --set in_flight=0 "$tmp/keep" >/dev/null 2>&1
printf '%s\n' 'send t=0 bytes=8192' 'ack_cc t=10 sent=0 service_time=0 rcvd_bytes=4096 m=0' \
	'ack_cc t=20 sent=0 service_time=0 rcvd_bytes=8192 m=0' >"$tmp/keep2"
in_flight=$("$replay" --algo nscc --set in_flight=0 "$tmp/keep2" | awk -F, 'END { print $5 }')
if [ "$in_flight" = 0 ]; then
	ok "the corrected line counts from the last good one"
else
	not_ok "the corrected line counts from the last good one (in flight $in_flight, want 0)"
fi

for v in 1000001 -1 x; do
	if "$replay" --algo nscc --set service_unit_ns=$v - </dev/null >/dev/null 2>"$tmp/k.err"; then
		not_ok "--set service_unit_ns=$v rejected"
	else
		ok "--set service_unit_ns=$v rejected ($(cat "$tmp/k.err"))"
	fi
done

echo "1..$n"
exit $rc
