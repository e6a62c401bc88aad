#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt-fabric RED/ECN:
#  1. at a held queue occupancy (the port's "standing" knob) the CE fraction
#     of ECT packets is within 5 points of the configured curve
#     (0 below Kmin, linear to 1 at Kmax, 1 above), and the port's CE
#     counter equals the CE marks the receiver saw;
#  2. marking reflects the queue at dequeue: in a burst into an empty port,
#     the first packet is CE although it saw an empty queue on arrival (and
#     arrives with near-base delay), the last one is not although it queued
#     behind the whole burst;
#  3. non-ECT packets are never marked.
#
# Knobs: SF_RED_PKTS (packets per occupancy point, default 1000),
# SF_RED_TOL (points, default 5).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fabric_require

N=${SF_RED_PKTS:-1000}
TOL=${SF_RED_TOL:-5}
BUF=200000 KMIN=40000 KMAX=160000

fabric_up --hosts 2 --rate 1gbit --buffer $BUF --kmin $KMIN --kmax $KMAX --delay 0 --mtu 1500
dst=$(host_field h1 ipv6)

# 1. The curve, sampled below Kmin, inside, and above Kmax.  Packets are
# 1000 bytes at 2000/s (16 Mbit/s on a 1 Gbit/s port, 8 us each): no real
# queue builds even when a slow (TCG) sender bunches packets, so the
# occupancy is the held one.
for held in 20000 70000 100000 130000 175000; do
	sf set l0:h1 standing=$held
	sf reset
	out=$__sf_tmp/red.$held
	recv_start h1 "$dst" "$out" --count "$N" --idle 2 || { ktap_result FAIL "receiver"; continue; }
	send_from h0 "$dst" --count "$N" --size 1000 --pps 2000 --ect >/dev/null
	wait
	rcv=$(json_get "$out" 'd["received"]')
	ce=$(json_get "$out" 'd["ce"]')
	want=$(python3 -c "print(100.0 * min(1.0, max(0.0, ($held - $KMIN) / ($KMAX - $KMIN))))")
	got=$(python3 -c "print(round(100.0 * $ce / max($rcv, 1), 2))")
	echo "# held $held B: CE $ce/$rcv = $got%, curve $want%"
	check "held $held B: received all $N" test "$rcv" = "$N"
	check "held $held B: CE $got% within $TOL points of $want%" \
		within "$got" "$(python3 -c "print($want - $TOL)")" "$(python3 -c "print($want + $TOL)")"
	check "held $held B: port ce_marked == receiver CE ($ce)" \
		test "$(port_stat l0:h1 ce_marked)" = "$ce"
done
sf set l0:h1 standing=0

# 3. Not-ECT traffic is never marked, even above Kmax.
sf set l0:h1 standing=175000
out=$__sf_tmp/noect
recv_start h1 "$dst" "$out" --count 200 --idle 2
send_from h0 "$dst" --count 200 --size 1000 --pps 2000 >/dev/null
wait
check "not-ECT packets above Kmax: all 200 received, none marked" \
	test "$(json_get "$out" '(d["received"], d["ce"])')" = "(200, 0)"
sf set l0:h1 standing=0
sf down >/dev/null

# 2. Dequeue semantics.  A slow port (SF_RED_BURST_RATE, default 200 kbit/s:
# 60 ms per packet, so that even a sender slowed down by TCG delivers the
# burst faster than the port drains it), Kmin = Kmax = 3 packets; the NIC
# runs at 1 Gbit/s so a 20-packet burst reaches the port at once.  Needs
# the EDT backend: htb releases a packet when its transmission starts, so
# there the first packet of a burst leaves before the rest has arrived.
B=20
fabric_up --hosts 2 --rate "${SF_RED_BURST_RATE:-200kbit}" --buffer $BUF --kmin 4500 --kmax 4500 \
	--delay 0 --mtu 1500
if [ "$(fabric_backend)" != fq ]; then
	for d in "all $B packets received" "first packet CE" "first packet near base delay" "last packet not CE"; do
		ktap_result SKIP "burst: $d" "needs the fq (EDT) backend; this kernel has no sch_fq"
	done
	ktap_exit
fi
sf set h0:eth0 rate=1gbit
dst=$(host_field h1 ipv6)
out=$__sf_tmp/burst
recv_start h1 "$dst" "$out" --count $B --idle 2 --packets
send_from h0 "$dst" --count $B --size 1500 --ect >"$__sf_tmp/send"
wait
t0=$(json_get "$__sf_tmp/send" 'd["t0"]')
python3 - "$out" "$t0" >"$__sf_tmp/burst.sum" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); t0 = float(sys.argv[2])
p = sorted(d["packets"], key=lambda r: r["psn"])
print(json.dumps({"n": len(p), "first_ce": p[0]["ecn"] == 3, "last_ce": p[-1]["ecn"] == 3,
                  "first_ms": (p[0]["t"] - t0) * 1e3, "last_ms": (p[-1]["t"] - t0) * 1e3,
                  "ecn": [r["ecn"] for r in p]}))
EOF
echo "# burst: $(cat "$__sf_tmp/burst.sum")"
check "burst: all $B packets received" test "$(json_get "$__sf_tmp/burst.sum" 'd["n"]')" = $B
check "burst: first packet CE (queue at its dequeue, not at its enqueue)" \
	test "$(json_get "$__sf_tmp/burst.sum" 'd["first_ce"]')" = True
check "burst: first packet near base delay (< 1/4 of the last one's)" \
	test "$(json_get "$__sf_tmp/burst.sum" 'int(d["first_ms"] * 4 < d["last_ms"])')" = 1
check "burst: last packet not CE (empty queue behind it)" \
	test "$(json_get "$__sf_tmp/burst.sum" 'd["last_ce"]')" = False

ktap_exit
