#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo, inside a guest (started by scripts/demo.sh): load smartt.ko,
# build a two-host fabric with smartt-fabric (one switch, ECN-marking and
# trimming ports), run one TCP transfer per congestion control and print a
# table.  Writes the table to OUTDIR/table.txt as well.
#
#   demo_guest.sh MODDIR OUTDIR
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
moddir=${1:?usage: demo_guest.sh MODDIR OUTDIR}
outdir=${2:?usage: demo_guest.sh MODDIR OUTDIR}
rate=${SMARTT_DEMO_RATE:-20mbit}
secs=${SMARTT_DEMO_SECONDS:-5}
ccs=${SMARTT_DEMO_CCS:-cubic dctcp bbr smartt strack}
rel=$(uname -r)
fabric=(python3 "$top/userspace/smartt-fabric" --name demo)

staged=$moddir/modroot/lib/modules/$rel
cp -r "$staged/updates" "/lib/modules/$rel/"
cp "$staged"/modules.* "/lib/modules/$rel/"
modprobe smartt
echo "demo: $(dmesg | grep -o 'smartt: version .* loaded' | tail -n 1) on $rel"

cleanup() { "${fabric[@]}" down >/dev/null 2>&1 || true; }
trap cleanup EXIT
# 1 ms per link: a base RTT (7.5 ms) well above the TCG guest's own 1-3 ms
# of scheduling noise, and a BDP of ~4.5 packets.  SMARTT_DEMO_FABRIC
# replaces these extra smartt-fabric options.
# shellcheck disable=SC2086 # word splitting of the extra options intended
"${fabric[@]}" up --hosts 2 --rate "$rate" --buffer bdp ${SMARTT_DEMO_FABRIC---delay 1ms} >"$outdir/fabric-up.txt"
sed 's/^/demo: /' "$outdir/fabric-up.txt"
hosts=$("${fabric[@]}" hosts --json)
host() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]][sys.argv[3]])' "$hosts" "$1" "$2"; }
h0=(ip netns exec "$(host h0 ns)")
h1=(ip netns exec "$(host h1 ns)")
dst=$(host h1 ipv4)
# ECN for every CC: the ports mark ECT packets, DCTCP and smartt need it.
"${h0[@]}" sysctl -qw net.ipv4.tcp_ecn=1
"${h1[@]}" sysctl -qw net.ipv4.tcp_ecn=1
# smartt/strack as an operator runs them: the fabric's link rate (its host
# ports' rate) and base RTT (full-size packets, as the fabric computes it)
# configured, not learned (Documentation/tcp.rst).
vals=$("${fabric[@]}" status --json | python3 -c '
import json, sys
st = json.load(sys.stdin)
nic = min(p["cfg"]["rate"] for p in st["ports"] if p["kind"] == "nic")
if nic < 1000000:
    sys.exit("demo: rate %d bit/s: tcp_link_mbps needs at least 1 Mbit/s" % nic)
print(nic // 1000000, round(st["base_rtt_ns"] / 1000))')
read -r link_mbps base_us <<<"$vals"
base_us=${SMARTT_DEMO_BASE_US-$base_us}
for h in h0 h1; do
	# tcp_ecn=1: iperf3 -C selects the algorithm after connect(), so the
	# SYN asks for ECN itself; without ECN smartt and strack run Reno
	ip netns exec "$(host $h ns)" sysctl -qw net.ipv4.tcp_ecn=1 \
		net.smartt.tcp_link_mbps="$link_mbps" \
		net.smartt.tcp_base_rtt_us="$base_us"
done
echo "demo: smartt/strack configured with tcp_link_mbps=$link_mbps tcp_base_rtt_us=$base_us"
"${h1[@]}" iperf3 -s -D -1 >/dev/null 2>&1 || true

printf '%-8s %12s %10s %10s %10s %s\n' cc "Mbit/s" retrans ce_marks drops note | tee "$outdir/table.txt"
for cc in $ccs; do
	modprobe "tcp_$cc" 2>/dev/null || true
	if ! grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control; then
		printf '%-8s %12s %10s %10s %10s %s\n' "$cc" - - - - "not available in this kernel/module" |
			tee -a "$outdir/table.txt"
		continue
	fi
	"${fabric[@]}" reset >/dev/null
	"${h1[@]}" iperf3 -s -D -1 >/dev/null 2>&1
	sleep 0.5
	if ! "${h0[@]}" iperf3 -c "$dst" -C "$cc" -t "$secs" -J >"$outdir/iperf-$cc.json" 2>&1; then
		printf '%-8s %12s %10s %10s %10s %s\n' "$cc" - - - - "iperf3 failed" | tee -a "$outdir/table.txt"
		continue
	fi
	"${fabric[@]}" status --json >"$outdir/status-$cc.json"
	python3 - "$cc" "$outdir/iperf-$cc.json" "$outdir/status-$cc.json" <<'PY' | tee -a "$outdir/table.txt"
import json, sys
cc, ipf, stf = sys.argv[1:4]
r = json.load(open(ipf))
sent = r["end"]["sum_sent"]
st = json.load(open(stf))
ports = st.get("ports", st) if isinstance(st, dict) else st
ce = drops = 0
for p in (ports.values() if isinstance(ports, dict) else ports):
    c = p.get("counters", p)
    ce += int(c.get("ce", c.get("ce_marked", 0)) or 0)
    drops += int(c.get("drops", 0) or 0)
print(f"{cc:<8} {sent['bits_per_second'] / 1e6:12.1f} {sent.get('retransmits', 0):10d} {ce:10d} {drops:10d}")
PY
done
