#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt-fabric multipath: 2 leaves x 4 spines.  256 IPv6 flow labels (and,
# separately, 256 IPv4 UDP source ports) from h0 (leaf 0) to h1 (leaf 1)
# put between 0.5x and 1.5x of the mean on every spine; a blackholed
# leaf->spine port delivers nothing to its spine, counts the drops, and the
# receiver gets exactly what was not dropped; random loss drops its share.
#
# Knobs: SF_MP_PER_FLOW (packets per flow, default 4), SF_MP_PPS (default 4000).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fabric_require

FLOWS=256
PER=${SF_MP_PER_FLOW:-4}
PPS=${SF_MP_PPS:-4000}
N=$((FLOWS * PER))

fabric_up --hosts 2 --leaves 2 --spines 4 --rate 1gbit --buffer 256k --uplink-buffer bdp --delay 0

# spread FAMILY-LABEL DST: send, then check each spine's share.
spread() {
	local what=$1 dst=$2 out=$__sf_tmp/mp.$1 s
	sf reset
	recv_start h1 "$dst" "$out" --count $N --idle 2 || { ktap_result FAIL "$what: receiver"; return; }
	send_from h0 "$dst" --count $N --flows $FLOWS --size 300 --pps "$PPS" >/dev/null
	wait
	sf status --json >"$__sf_tmp/st.$what"
	python3 - "$__sf_tmp/st.$what" >"$__sf_tmp/spread.$what" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
up = {p["port"]: p for p in d["ports"] if p["port"].startswith("l0:s")}
per = {k: v["tx_pkts"] for k, v in sorted(up.items())}
mean = sum(per.values()) / len(per)
print(json.dumps({"per_spine": per, "mean": mean,
                  "ratios": {k: round(v / mean, 3) if mean else 0 for k, v in per.items()}}))
EOF
	echo "# $what: $(cat "$__sf_tmp/spread.$what")"
	check "$what: receiver got all $N" test "$(json_get "$out" 'd["received"]')" = $N
	for s in 0 1 2 3; do
		check "$what: spine s$s carries 0.5x..1.5x of the mean" \
			within "$(json_get "$__sf_tmp/spread.$what" "d['ratios']['l0:s$s']")" 0.5 1.5
	done
}

spread ipv6-flowlabel "$(host_field h1 ipv6)"
spread ipv4-sport "$(host_field h1 ipv4)"

# Blackhole l0 -> s1.
sf fail l0:s1 blackhole
sf reset
dst=$(host_field h1 ipv6)
out=$__sf_tmp/bh
recv_start h1 "$dst" "$out" --count $N --idle 2
send_from h0 "$dst" --count $N --flows $FLOWS --size 300 --pps "$PPS" >/dev/null
wait
sf status --json >"$__sf_tmp/st.bh"
bh() { json_get "$__sf_tmp/st.bh" "[p for p in d['ports'] if p['port']=='$1'][0]['$2']"; }
drops=$(bh l0:s1 drop_blackhole)
rcv=$(json_get "$out" 'd["received"]')
echo "# blackhole l0:s1: drops $drops, received $rcv of $N"
check "blackhole: spine s1 received nothing from l0" test "$(bh l0:s1 rx_pkts)" = 0
check "blackhole: s1 forwarded nothing to l1" test "$(bh s1:l1 tx_pkts)" = 0
check "blackhole: drops counted ($drops > 0)" test "$drops" -gt 0
check "blackhole: received ($rcv) + dropped ($drops) == sent ($N)" test $((rcv + drops)) = $N
check "blackhole: the other spines carried the rest" \
	test $(($(bh l0:s0 tx_pkts) + $(bh l0:s2 tx_pkts) + $(bh l0:s3 tx_pkts))) -ge "$rcv"
sf fail l0:s1 clear
check "cleared: status shows no fault on l0:s1" \
	test "$(sf status --json l0:s1 | json_get /dev/stdin 'd["ports"][0]["cfg"]["blackhole"]')" = 0

# Random loss: 300 per mille on every uplink of l0.
sf fail l0 loss=300
sf reset
recv_start h1 "$dst" "$out" --count $N --idle 2
send_from h0 "$dst" --count $N --flows $FLOWS --size 300 --pps "$PPS" >/dev/null
wait
sf status --json >"$__sf_tmp/st.loss"
lost=$(json_get "$__sf_tmp/st.loss" 'sum(p["drop_loss"] for p in d["ports"] if p["port"].startswith("l0:s"))')
rcv=$(json_get "$out" 'd["received"]')
echo "# loss 300/1000 on l0 uplinks: lost $lost, received $rcv of $N"
# 4 binomial standard deviations: 0.057 for 1024 packets, 0.115 for 256.
tol=$(python3 -c "print(round(4 * (0.3 * 0.7 / $N) ** 0.5, 3))")
check "loss: lost fraction $lost/$N within 0.3 +- $tol" \
	within "$(python3 -c "print($lost / $N)")" "$(python3 -c "print(0.3 - $tol)")" "$(python3 -c "print(0.3 + $tol)")"
check "loss: received ($rcv) + lost ($lost) == sent ($N)" test $((rcv + lost)) = $N
check "bad loss value rejected" bash -c "! '$SF' fail l0:s0 loss=1001 2>/dev/null"
sf fail l0 clear

# Four fail commands at the same moment, one per uplink (a driver starts
# faults due together so): every one takes effect, in the state and in
# the ports' programs.
concurrent() {
	local pids=() p f
	sf fail l0:s0 blackhole & pids+=($!)
	sf fail l0:s1 loss=100 & pids+=($!)
	sf fail l0:s2 blackhole & pids+=($!)
	sf fail l0:s3 loss=200 & pids+=($!)
	for p in "${pids[@]}"; do
		wait "$p" || { echo "a fail command failed"; return 1; }
	done
	f=$__sf_tmp/st.conc
	sf status --json >"$f"
	for p in "s0 blackhole 1" "s1 loss 100" "s2 blackhole 1" "s3 loss 200"; do
		set -- $p
		[ "$(json_get "$f" "[q for q in d['ports'] if q['port']=='l0:$1'][0]['faults'].get('$2')")" = "$3" ] ||
			{ echo "l0:$1: fault $2 is not $3: $(json_get "$f" "[q['faults'] for q in d['ports'] if q['port']=='l0:$1'][0]")"; return 1; }
	done
	[ "$(json_get "$f" "[q for q in d['ports'] if q['port']=='l0:s0'][0]['cfg']['blackhole']")" = 1 ] &&
		[ "$(json_get "$f" "[q for q in d['ports'] if q['port']=='l0:s2'][0]['cfg']['blackhole']")" = 1 ]
}
check "four fail commands at the same moment: every fault applied" concurrent
sf fail l0 clear

ktap_exit
