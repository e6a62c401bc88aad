#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The TCP congestion controls smartt and strack at the edges of TCP's state
# machine, checked through the smartt:smartt_cc tracepoint.  Sender A ->
# router B -> receiver C (B forwards; A's egress shaped to 50 Mbit/s).
#
#  1. ECN only when negotiated: against a receiver without ECN (cubic,
#     tcp_ecn=0) a smartt and a strack client run smartt-reno and
#     strack-reno (the tracepoint's "noecn" event, the client's
#     TCP_CONGESTION, ss -ti) and their data leave Not-ECT (tcpdump -v at
#     C: tos 0x0); against a receiver that negotiates ECN (its routes
#     congctl smartt) the client stays smartt and its data leave ECT(0).
#  2. An RTO (B drops everything for 2 s mid-flow): "rto" events, each
#     leaving the core's loss window (at most net.smartt.tcp_mss bytes),
#     for smartt and strack, also when the timeout comes in fast recovery
#     (where TCP raises no CA_EVENT_LOSS).
#  3. A path-MTU drop (B's link to C lowered to MTU 1000 mid-flow: ICMP
#     "fragmentation needed" to A, tcp_simple_retransmit()): the flow
#     completes at the new MSS and no "rto" event fires (entering
#     TCP_CA_Loss for a PMTU drop leaves the window alone).
#  4. Idle restart (10 ms more on the ACK path): a flow silent for 1 s
#     (several RTOs) after 4 MB: one
#     "idle" event that lowers the window, not below the smaller of the
#     window and the initial window; with net.ipv4.tcp_slow_start_after_idle
#     = 0 no "idle" event.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/cc_lib.sh"

require_root
require_cmd ip tc python3 tcpdump ss
modprobe smartt || skip_all "no smartt.ko"
# ss names the algorithm through tcp_diag (else it reads /proc/net/tcp);
# a first run of ss under TCG takes seconds
modprobe -q tcp_diag 2>/dev/null
ss -tin >/dev/null 2>&1

# established NS PORT: wait up to 60 s for A's connection to PORT to carry data
established() {
	local i
	for i in $(seq 1 600); do
		ip netns exec "$1" ss -tin "dport = :$2" | grep -q "bytes_acked:" && return 0
		sleep 0.1
	done
	return 1
}
A=cea$$
B=ceb$$
C=cec$$

topo() {
	netns_add "$A" && netns_add "$B" && netns_add "$C" || return 1
	ip link add va netns "$A" type veth peer name vb netns "$B" || return 1
	ip link add vc netns "$C" type veth peer name bc netns "$B" || return 1
	ip -n "$A" addr add 198.18.0.1/24 dev va
	ip -n "$B" addr add 198.18.0.2/24 dev vb
	ip -n "$B" addr add 198.18.2.2/24 dev bc
	ip -n "$C" addr add 198.18.2.1/24 dev vc
	local ns
	for ns in "$A" "$B" "$C"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$A" link set va up && ip -n "$B" link set vb up &&
		ip -n "$B" link set bc up && ip -n "$C" link set vc up || return 1
	ip -n "$A" route add 198.18.2.0/24 via 198.18.0.2 || return 1
	ip -n "$C" route add 198.18.0.0/24 via 198.18.2.2 || return 1
	# B's "fragmentation needed" not rate-limited: one per PMTU case
	ip netns exec "$B" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.icmp_ratelimit=0 ||
		return 1
	# real packets, not 64 KB segments
	for ns in "$A:va" "$B:vb" "$B:bc" "$C:vc"; do
		ip netns exec "${ns%%:*}" ethtool -K "${ns#*:}" tso off gso off gro off \
			>/dev/null 2>&1
	done
	tc -n "$A" qdisc add dev va root handle 1: htb default 1 &&
		tc -n "$A" class add dev va parent 1: classid 1:1 htb rate 50mbit ceil 50mbit &&
		tc -n "$A" qdisc add dev va parent 1:1 handle 10: pfifo limit 1000
}
topo || { ktap_result FAIL "three namespaces A - B - C"; ktap_exit; }

# events TRACEFILE CC [EVENT...]: the sender's (dport 5001..5009) records of
# CC, one "ev cwnd_before cwnd_after bytes" line each, EVENT only if given
events() {
	python3 - "$@" <<'PY'
import re, sys
path, cc, want = sys.argv[1], sys.argv[2], set(sys.argv[3:])
pat = re.compile(r"smartt_cc: (\w+) (\w+) sport=\d+ dport=(\d+) rules=\S+ "
                 r"cwnd=(\d+)->(\d+) .* bytes=(\d+)")
for line in open(path):
    m = pat.search(line)
    if not m or m.group(1) != cc or not 5001 <= int(m.group(3)) <= 5009:
        continue
    if want and m.group(2) not in want:
        continue
    print(m.group(2), m.group(4), m.group(5), m.group(6))
PY
}

# --- 1. ECN only when negotiated ---
ip netns exec "$C" sysctl -qw net.ipv4.tcp_ecn=0
cc_server "$C" 198.18.2.1 5001 --cc cubic || { ktap_result FAIL "server"; ktap_exit; }
for cc in smartt strack; do
	cc_trace_on || skip_all "no smartt:smartt_cc tracepoint"
	ip netns exec "$C" timeout 20 tcpdump -ni vc -v -c 20 \
		'tcp dst port 5001 and greater 1000' >"$CC_TMP/td.$cc" 2>/dev/null &
	td=$!
	sleep 1
	cc_client "$A" 198.18.2.1 5001 --cc "$cc" --bytes 400000 --hold 600 \
		--ready "$CC_TMP/r.$cc" >"$CC_TMP/c.$cc" 2>&1 &
	cl=$!
	ready "$CC_TMP/r.$cc"
	ip netns exec "$A" ss -tin "dport = :5001" >"$CC_TMP/ss.$cc"
	release "$cl"
	wait "$td"
	cc_trace_off
	cc_trace_dump "$CC_TMP/trace.$cc"
	sed 's/^/# client: /' "$CC_TMP/c.$cc"
	check "$cc against a peer without ECN: ECN not negotiated, runs $cc-reno" \
		grep -q "^cc=$cc-reno .*ecn=0" "$CC_TMP/c.$cc"
	sed 's/^/# ss: /' "$CC_TMP/ss.$cc"
	check "$cc: ss -ti names $cc-reno" grep -q "$cc-reno" "$CC_TMP/ss.$cc"
	check "$cc: the tracepoint shows the fallback (noecn)" \
		test "$(events "$CC_TMP/trace.$cc" "$cc" noecn | wc -l)" -ge 1
	check "$cc: and no core event after it" \
		test "$(events "$CC_TMP/trace.$cc" "$cc" ack loss rto | wc -l)" = 0
	echo "# tcpdump: $(grep -o 'tos 0x[0-9a-f]*' "$CC_TMP/td.$cc" | sort | uniq -c | tr '\n' ' ')"
	check "$cc: its data leave Not-ECT (tos 0x0), 20 of 20 packets" \
		test "$(grep -c 'tos 0x0,' "$CC_TMP/td.$cc")" = 20
done
cc_kill_all

# the same receiver negotiating ECN through its route
route_congctl "$C" smartt || { ktap_result FAIL "congctl on C's routes"; ktap_exit; }
cc_server "$C" 198.18.2.1 5001 --cc cubic
ip netns exec "$C" timeout 20 tcpdump -ni vc -v -c 20 \
	'tcp dst port 5001 and greater 1000' >"$CC_TMP/td.ecn" 2>/dev/null &
td=$!
sleep 1
cc_client "$A" 198.18.2.1 5001 --cc smartt --bytes 400000 >"$CC_TMP/c.ecn" 2>&1
wait "$td"
sed 's/^/# client: /' "$CC_TMP/c.ecn"
check "smartt against a peer that negotiates ECN: stays smartt" \
	grep -q "^cc=smartt .*ecn=1" "$CC_TMP/c.ecn"
check "smartt with ECN: its data leave ECT(0) (tos 0x2), 20 of 20 packets" \
	test "$(grep -c 'tos 0x2,' "$CC_TMP/td.ecn")" = 20
cc_kill_all

# --- 2. RTO ---
mss_knob=$(ip netns exec "$A" sysctl -n net.smartt.tcp_mss)
cc_server "$C" 198.18.2.1 5002
for cc in smartt strack; do
	cc_trace_on
	cc_client "$A" 198.18.2.1 5002 --cc "$cc" --secs 600 >"$CC_TMP/c.rto.$cc" 2>&1 &
	cl=$!
	established "$A" 5002 || echo "# no $cc connection to port 5002"
	sleep 0.5
	check "$cc: B drops everything (netem loss 100%)" \
		tc -n "$B" qdisc add dev bc root netem loss 100%
	sleep 2
	tc -n "$B" qdisc del dev bc root
	sleep 1
	release "$cl"
	cc_trace_off
	cc_trace_dump "$CC_TMP/trace.rto.$cc"
	events "$CC_TMP/trace.rto.$cc" "$cc" rto >"$CC_TMP/rto.$cc"
	echo "# $cc rto events (ev before after bytes): $(head -3 "$CC_TMP/rto.$cc" | tr '\n' ';')"
	check "$cc: the blackout fires RTO events" test -s "$CC_TMP/rto.$cc"
	check "$cc: each RTO leaves the loss window (<= tcp_mss $mss_knob B)" \
		awk -v m="$mss_knob" '$3 > m { exit 1 }' "$CC_TMP/rto.$cc"
done
cc_kill_all

# --- 3. path-MTU drop ---
# one destination per algorithm: A keeps the first one's path MTU
dst=11
for cc in smartt strack; do
	ip -n "$B" link set bc mtu 1500
	ip -n "$C" link set vc mtu 1500
	ip -n "$C" addr add 198.18.2.$dst/24 dev vc
	cc_server "$C" 198.18.2.$dst 5003
	cc_trace_on
	cc_client "$A" 198.18.2.$dst 5003 --cc "$cc" --bytes 20000000 --hold 600 \
		--ready "$CC_TMP/r.pmtu.$cc" >"$CC_TMP/c.pmtu.$cc" 2>&1 &
	cl=$!
	established "$A" 5003 || echo "# no $cc connection to port 5003"
	ip -n "$B" link set bc mtu 1000
	ip -n "$C" link set vc mtu 1000
	ready "$CC_TMP/r.pmtu.$cc"
	ip netns exec "$A" ss -tin "dport = :5003" >"$CC_TMP/ss.pmtu.$cc"
	release "$cl"
	cc_trace_off
	cc_trace_dump "$CC_TMP/trace.pmtu.$cc"
	sed 's/^/# client: /' "$CC_TMP/c.pmtu.$cc"
	mss=$(grep -o ' mss:[0-9]*' "$CC_TMP/ss.pmtu.$cc" | head -1 | cut -d: -f2)
	echo "# ss: mss ${mss:-?}"
	check "$cc: the flow crosses the PMTU drop and completes" \
		grep -q "^cc=$cc bytes=20000000 " "$CC_TMP/c.pmtu.$cc"
	check "$cc: at the new path MTU (mss ${mss:-?} < 1000 - 40)" test "${mss:-1500}" -lt 960
	check "$cc: no RTO event (the PMTU drop is not a timeout)" \
		test "$(events "$CC_TMP/trace.pmtu.$cc" "$cc" rto | wc -l)" = 0
	dst=$((dst + 1))
done
ip -n "$B" link set bc mtu 1500
ip -n "$C" link set vc mtu 1500
cc_kill_all

# --- 4. idle restart ---
# 10 ms on the ACK path: a window of several times the initial one
tc -n "$C" qdisc add dev vc root netem delay 10ms limit 10000
cc_server "$C" 198.18.2.1 5004
ssai0=$(ip netns exec "$A" sysctl -n net.ipv4.tcp_slow_start_after_idle)
for ssai in 1 0; do
	ip netns exec "$A" sysctl -qw net.ipv4.tcp_slow_start_after_idle=$ssai
	cc_trace_on
	cc_client "$A" 198.18.2.1 5004 --cc smartt --bytes 4000000 --idle 1 \
		>"$CC_TMP/c.idle.$ssai" 2>&1
	cc_trace_off
	cc_trace_dump "$CC_TMP/trace.idle.$ssai"
	events "$CC_TMP/trace.idle.$ssai" smartt idle >"$CC_TMP/idle.$ssai"
	echo "# tcp_slow_start_after_idle=$ssai: idle events (ev before after jiffies): $(tr '\n' ';' <"$CC_TMP/idle.$ssai")"
done
ip netns exec "$A" sysctl -qw net.ipv4.tcp_slow_start_after_idle="$ssai0"
check "a flow silent for 1 s: one idle event" test "$(wc -l <"$CC_TMP/idle.1")" = 1
check "... that lowers the window, not below min(window, 10 x 1448 B)" \
	awk '{ lo = $2 < 14480 ? $2 : 14480; if ($3 >= $2 && $2 > 14480 || $3 < lo) exit 1 }' \
	"$CC_TMP/idle.1"
check "tcp_slow_start_after_idle=0: no idle event" test ! -s "$CC_TMP/idle.0"

ktap_exit
