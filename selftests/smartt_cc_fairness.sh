#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fairness of the TCP congestion controls smartt and strack on smartt-fabric
# (ECN-marking switch ports, RED between kmin and kmax of the port buffer).
# Four senders, one receiver; the bottleneck is the receiver's port.
#
#  1. One leaf: four senders with the same base RTT.  Jain's index of the
#     flows' throughputs over seconds WARM..WARM+MEAS >= JAIN.
#  2. Two leaves and a spine: two senders on the receiver's leaf (intra-leaf)
#     and two behind the spine (inter-leaf, twice the base RTT).  Jain's
#     index >= JAIN as well: the fair-increase rule scales with each flow's
#     BDP so that flows with different base RTTs share fairly.
#
# The link rate is configured (net.smartt.tcp_link_mbps) and so is each
# sender's base RTT to the receiver (net.smartt.tcp_base_rtt_us, from the
# fabric's own figures), as the papers assume a known base RTT; with
# CC_FAIR_BASE=learned every flow learns it instead (Documentation/tcp.rst,
# "Fairness", says why that is unfair under a standing queue).  Links have a 4 ms delay so that the emulated RTT
# dominates the guest's scheduling noise (TCG: 1-3 ms) and the BDP holds
# a few packets per flow (~12 x 4 KB intra-leaf).  Throughput is
# iperf3's per-second sender report (-J -i 1), not a timing of ours.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fabric_require
require_cmd iperf3
modprobe smartt || skip_all "no smartt.ko"
ALGOS=${CC_FAIR_ALGOS:-smartt strack}
RATE=${CC_FAIR_RATE:-16}	# Mbit/s of every port
WARM=${CC_FAIR_WARM:-6}
MEAS=${CC_FAIR_MEAS:-10}
JAIN_MIN=${CC_FAIR_JAIN:-0.95}
DELAY=${CC_FAIR_DELAY:-4ms}	# per link
BUF=${CC_FAIR_BUFFER:-64k}	# per port, ~1.3 BDP intra-leaf
BASE=${CC_FAIR_BASE:-configured}	# configured | learned
# CC_FAIR_SYSCTLS: extra net.smartt.* settings for every host, e.g.
# "net.smartt.tcp_smartt_profile=nscc".  The default gives the smartt
# profile one target queueing delay for every flow (8 ms: between the
# ports' Kmin and Kmax, 6.4 and 25.6 ms at 16 Mbit/s) and four times the
# paper's fair increase (Documentation/tcp.rst, "Fairness").
SYSCTLS=${CC_FAIR_SYSCTLS-net.smartt.tcp_smartt_knobs=trtt_abs=1,target_qdelay=8000000,fi=1}
case $BASE in configured|learned) ;; *) skip_all "CC_FAIR_BASE must be configured or learned" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; fabric_cleanup' EXIT

# fabric_rtt_us KEY: the fabric's base_rtt_ns or leaf_rtt_ns, in us.
fabric_rtt_us() {
	sf status --json | python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]] // 1000)' "$1"
}

# hosts_setup KEY HOST...: ECN, the link rate and (CC_FAIR_BASE=configured)
# the base RTT KEY of the fabric (base_rtt_ns: the longest path;
# leaf_rtt_ns: within a leaf).  (iperf3 -C selects the algorithm on both
# ends: the receiver's runs the CE echo.)
hosts_setup() {
	local key=$1 h base=
	shift
	[ "$BASE" = configured ] && base="net.smartt.tcp_base_rtt_us=$(fabric_rtt_us "$key")"
	for h in "$@"; do
		# shellcheck disable=SC2086 # SYSCTLS: more name=value words
		ip netns exec "$(host_field "$h" ns)" sysctl -qw net.ipv4.tcp_ecn=1 \
			net.smartt.tcp_link_mbps="$RATE" $base $SYSCTLS || return 1
	done
}

# run_case ALGO DESC RECEIVER SENDER...: one iperf3 flow per sender.
run_case() {
	local algo=$1 desc=$2 rx=$3 i=0 h dst rns pids=() out rc n
	shift 3
	rns=$(host_field "$rx" ns)
	dst=$(host_field "$rx" ipv4)
	rm -f "$tmp"/flow.*
	for h in "$@"; do
		ip netns exec "$rns" iperf3 -s -1 -D -p $((5201 + i)) >/dev/null 2>&1
		i=$((i + 1))
	done
	sleep 1
	i=0
	for h in "$@"; do
		ip netns exec "$(host_field "$h" ns)" iperf3 -c "$dst" -p $((5201 + i)) \
			-C "$algo" -t $((WARM + MEAS + 1)) -i 1 -J >"$tmp/flow.$h" 2>&1 &
		pids+=($!)
		i=$((i + 1))
	done
	sleep "$WARM"
	# the receiver's sockets must run the algorithm too (per-packet CE echo)
	n=$(ip netns exec "$rns" ss -tin state established "( sport >= :5201 and sport <= :5210 )" |
		grep -c " $algo ")
	echo "# receiver sockets running $algo: $n"
	sleep $((MEAS / 2))
	for h in "$@"; do	# window and RTTs mid-way
		echo "# $h: $(ip netns exec "$(host_field "$h" ns)" ss -tin dst "$dst" \
			"( dport >= :5201 and dport <= :5210 )" | grep -oE \
			'(cwnd|rtt|minrtt|delivery_rate|retrans):[^ ,)]+' | paste -sd' ')"
	done
	wait "${pids[@]}"
	out=$(python3 - "$WARM" "$MEAS" "$JAIN_MIN" "$tmp"/flow.* <<'PY'
import json, sys
warm, meas, jmin = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
x, err = [], []
for f in sys.argv[4:]:
    r = {}
    try:
        r = json.load(open(f))
        iv = [i["sum"] for i in r["intervals"]
              if i["sum"]["start"] >= warm - 0.5 and i["sum"]["end"] <= warm + meas + 0.5]
        x.append(sum(i["bytes"] for i in iv) * 8 / sum(i["seconds"] for i in iv) / 1e6)
    except (ValueError, KeyError, ZeroDivisionError) as e:
        err.append("%s: %s" % (f.rsplit(".", 1)[-1], r.get("error", e)))
j = sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if x and sum(x) else 0
print("flows %s Mbit/s, total %.2f, jain %.3f%s" % (
    " ".join("%.2f" % v for v in x), sum(x), j, "; " + "; ".join(err) if err else ""))
sys.exit(0 if not err and j >= jmin else 1)
PY
)
	rc=$?
	if [ $rc = 0 ]; then
		ktap_result OK "$algo: $desc, $BASE base RTT: Jain >= $JAIN_MIN over ${MEAS}s after ${WARM}s ($out)"
	else
		ktap_result FAIL "$algo: $desc, $BASE base RTT: Jain >= $JAIN_MIN over ${MEAS}s after ${WARM}s ($out)"
	fi
}

for algo in $ALGOS; do
	fabric_up --hosts 5 --rate "${RATE}mbit" --delay "$DELAY" --buffer "$BUF"
	hosts_setup leaf_rtt_ns h0 h1 h2 h3 h4 || skip_all "sysctls"
	run_case "$algo" "4 flows, same base RTT" h0 h1 h2 h3 h4
	sf down >/dev/null

	fabric_up --hosts 6 --leaves 2 --spines 1 --rate "${RATE}mbit" --delay "$DELAY" --buffer "$BUF" \
		--uplink-buffer bdp
	hosts_setup leaf_rtt_ns h0 h1 h2 || skip_all "sysctls"
	hosts_setup base_rtt_ns h3 h4 h5 || skip_all "sysctls"
	run_case "$algo" "2 intra-leaf + 2 inter-leaf flows (2x base RTT)" h0 h1 h2 h3 h4
	sf down >/dev/null
done

ktap_exit
