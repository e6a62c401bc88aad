#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt-fabric NIC-style timestamps: the host egress program writes the
# departure time into smartt_hdr.tx_ts_ns and the ingress program the
# arrival time into rx_ts_ns (flags TX_TS/RX_TS), for every smartt packet
# type, keeping the UDP checksum valid; non-smartt UDP is left alone.
# With the EDT backend the stamped one-way delay is at least the emulated
# serialisation + propagation delay of the path.
#
# Knobs: SF_TS_PKTS (default 200).
# `make check` shares the long tests between its two plain guests
# (SMARTT_SELFTESTS_FULL=1 runs this one on both); this one runs on
# kernels: 6.1
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fabric_require

N=${SF_TS_PKTS:-200}
fabric_up --hosts 2 --rate 100mbit --mtu 1500 --buffer bdp
backend=$(fabric_backend)
delay_ns=$(sf status --json h0:eth0 | json_get /dev/stdin 'd["ports"][0]["cfg"]["delay"]')

ts_run() { # LABEL DST TYPE
	local what=$1 dst=$2 type=$3 out=$__sf_tmp/ts.$1 sum=$__sf_tmp/ts.$1.sum
	sf reset
	recv_start h1 "$dst" "$out" --count "$N" --idle 2 --packets || { ktap_result FAIL "$what: receiver"; return; }
	send_from h0 "$dst" --count "$N" --size 1000 --pps 1000 --type "$type" >"$__sf_tmp/send.$what"
	wait
	python3 - "$out" "$delay_ns" "$backend" >"$sum" <<'EOF'
import json, sys, time
d = json.load(open(sys.argv[1])); delay = int(sys.argv[2]); backend = sys.argv[3]
p = d["packets"]
# two hops (h0 NIC, l0:h1) of 1000-byte frames at 100 Mbit/s, plus delays
floor = 2 * (1000 * 8 * 1000 // 100) + 2 * delay if backend == "fq" else 0
owd = [r["rx_ts"] - r["tx_ts"] for r in p]
print(json.dumps({
    "n": len(p),
    "flags": all((r["flags"] & 0x60) == 0x60 for r in p),
    "ordered": all(r["rx_ts"] > r["tx_ts"] > 0 for r in p),
    # the application reads the packet after the NIC stamped it
    "before_app": all(r["rx_ts"] <= int(r["t"] * 1e9) for r in p),
    "floor_ns": floor, "min_owd_ns": min(owd) if owd else None,
    "median_owd_ns": sorted(owd)[len(owd) // 2] if owd else None,
    "above_floor": all(o >= floor for o in owd)}))
EOF
	echo "# $what: $(cat "$sum")"
	check "$what: all $N received (checksums still valid)" test "$(json_get "$sum" 'd["n"]')" = "$N"
	check "$what: TX_TS and RX_TS flags set" test "$(json_get "$sum" 'd["flags"]')" = True
	check "$what: 0 < tx_ts < rx_ts <= application receive time" \
		test "$(json_get "$sum" 'd["ordered"] and d["before_app"]')" = True
	if [ "$backend" = fq ]; then
		check "$what: one-way delay >= emulated path delay" test "$(json_get "$sum" 'd["above_floor"]')" = True
	else
		ktap_result SKIP "$what: one-way delay >= emulated path delay" \
			"htb backend releases at the start of serialisation"
	fi
	check "$what: counters: h0 ts_tx == h1 ts_rx == $N" \
		test "$(port_stat h0:eth0 ts_tx)/$(port_stat h1:eth0 ts_rx)" = "$N/$N"
}

ts_run data-ipv6 "$(host_field h1 ipv6)" data
ts_run data-ipv4 "$(host_field h1 ipv4)" data
ts_run ack-ipv6 "$(host_field h1 ipv6)" ack

# Plain UDP to the smartt port without the smartt magic: untouched.
sf reset
out=$__sf_tmp/plain
recv_start h1 "$(host_field h1 ipv6)" "$out" --count 50 --idle 2
send_from h0 "$(host_field h1 ipv6)" --count 50 --size 500 --pps 1000 --proto udp >/dev/null
wait
check "plain UDP: received, not stamped" \
	test "$(json_get "$out" 'd["received"]')/$(port_stat h0:eth0 ts_tx)/$(port_stat h1:eth0 ts_rx)" = "50/0/0"

ktap_exit
