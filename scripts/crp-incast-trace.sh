#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cc crp in an N:1 incast, traced: what the destination's last-hop port,
# the senders' NICs and the senders' counters saw, and when each grant
# arrived against its start.  One time-warped 6.12 guest, the lab's
# incast fabric (quick, guest size: one leaf, 20 Mbit/s, 1 ms per link,
# 150,000-byte buffers, MTU 4224) and its CRP knobs (crp.rst,
# "Experiments"), N senders of one 256 KiB message each to h0.
#
#   crp-incast-trace.sh OUTDIR [SPEC_BYTES [SENDERS]]
#
# Uses build/6.12.118+deb12-amd64/smartt.ko (staged into OUTDIR/mod) and
# build/bpf/ (the fabric's port programs) of this tree.  OUTDIR gets the
# trace of the smartt_crp:* events (trace.txt), every host's
# /proc/net/smartt_stats (stats-hN.txt), the ports' counters before and
# after (ports-*.json), the clients' output, and summary.txt, which is
# also printed.  Documentation/crp.rst, "What the experiments found".
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
rel=6.12.118+deb12-amd64

if [ "${1:-}" = --guest ]; then
	out=$2 spec=$3 n=$4
	python3 -c "import sys; sys.path.insert(0, '$top/userspace')
from smartt_lab.guest import install_module
install_module('$out/mod', print)"
	F="$top/userspace/smartt-fabric --name ct"
	$F up --hosts $((n + 1)) --leaves 1 --spines 0 --rate 20000000bit --buffer 150000 \
		--kmin 30000 --kmax 120000 --mtu 4224 --delay 1000000ns --ecn on --trim on \
		--crp on --crp-slot 14239680ns --crp-cells 32 --crp-ttw 10587122ns \
		--crp-retry 1588068ns >"$out/up.txt"
	knobs="slot_ns=14239680 cells=32 cmax=35599 nmin=16304 nmax=65216 ttw_ns=10587122"
	knobs="$knobs retry_ns=1588068 spec_bytes=$spec"
	for i in $(seq 0 "$n"); do
		$F exec "h$i" -- sysctl -q -w net.smartt.transport_crp_knobs="$knobs" \
			net.smartt.transport_cc=crp net.smartt.transport_lb=reps
	done
	T=/sys/kernel/tracing
	mountpoint -q $T || mount -t tracefs nodev $T
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 20000 >$T/buffer_size_kb
	echo mono >$T/trace_clock
	echo 1 >$T/events/smartt_crp/enable
	perf=$top/build/userspace/smartt-perf
	$F exec h0 -- "$perf" server -p 5301 --lb reps --cc crp --json >"$out/server.json" 2>&1 &
	sleep 2
	$F status --json >"$out/ports-before.json"
	echo 1 >$T/tracing_on
	pids=
	for i in $(seq 1 "$n"); do
		$F exec "h$i" -- "$perf" client -P stream --lb reps --cc crp -p 5301 -i 0 --json \
			-s 262144 -n 1 -o 1 -t 30 198.18.0.1 >"$out/client-$i.json" 2>"$out/client-$i.err" &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids
	echo 0 >$T/tracing_on
	$F status --json >"$out/ports-after.json"
	cat $T/trace >"$out/trace.txt"
	for i in $(seq 0 "$n"); do
		$F exec "h$i" -- cat /proc/net/smartt_stats >"$out/stats-h$i.txt"
	done
	$F down >/dev/null 2>&1 || true
	exit 0
fi

out=${1:?usage: crp-incast-trace.sh OUTDIR [SPEC_BYTES [SENDERS]]}
spec=${2:-65536}
n=${3:-4}
mkdir -p "$out/mod"
out=$(cd "$out" && pwd)
ko=$top/build/$rel/smartt.ko
[ -e "$ko" ] || "$top/scripts/build-module.sh" "$rel" >/dev/null
[ -x "$top/build/userspace/smartt-perf" ] || make -s -C "$top" tools >/dev/null
make -s -C "$top/bpf" >/dev/null 2>&1
cp "$ko" "$out/mod/"
"$top/scripts/stage-modules.sh" "$rel" "$out/mod" >/dev/null
SMARTT_VM_TIMEWARP=1 "$top/scripts/vm-run.sh" -o "$out" -m 1G -t 1800 "$rel" -- \
	"$top/scripts/crp-incast-trace.sh" --guest "$out" "$spec" "$n" >"$out/guest.log" 2>&1 ||
	{ cat "$out/guest.log"; exit 1; }
python3 - "$out" "$n" >"$out/summary.txt" <<'EOF'
import json, re, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
late, early, req, ans = [], [], {}, []
for line in open(out + "/trace.txt"):
    m = re.search(r"(\d+\.\d+): smartt_crp_(\w+): (.*)", line)
    if not m:
        continue
    ts, ev, rest = float(m.group(1)), m.group(2), m.group(3)
    kv = dict(re.findall(r"(\w+)=(\S+)", rest))
    key = (kv.get("sport"), kv.get("msg"), kv.get("off"))
    if ev == "req":
        req[key] = ts
    elif ev == "answer":
        if key in req:
            ans.append((ts - req[key]) * 1e3)
        if rest.startswith("grant"):
            d = (int(kv["now"]) - int(kv["at"])) / 1e6
            (late if d > 0 else early).append(abs(d))
g = len(late) + len(early)
print("grants %d; arrived after their start %d%s" % (
    g, len(late), " (by %s ms)" % ", ".join("%.1f" % x for x in late) if late else ""))
if ans:
    print("request to answer: median %.2f ms, max %.2f ms" % (statistics.median(ans), max(ans)))
def ports(f):
    d = json.load(open(out + f))
    return {p["port"]: p for p in (d["ports"] if isinstance(d, dict) else d)}
a, b = ports("/ports-after.json"), ports("/ports-before.json")
for k in sorted(a):
    if k == "l0:h0" or k.endswith(":eth0") and k != "h0:eth0":
        d = lambda f: a[k].get(f, 0) - b.get(k, {}).get(f, 0)
        print("%-8s tx %5d trimmed %5d (speculative after TTW %5d) drops %3d peak queue %6d B"
              % (k, d("tx_pkts"), d("trimmed"), d("crp_spec_drop"), d("drop_buffer"),
                 a[k].get("max_queue_bytes", 0)))
tot = {}
for i in range(1, n + 1):
    for line in open(out + "/stats-h%d.txt" % i):
        p = line.split()
        if len(p) > 1 and p[1].isdigit():
            tot[p[0]] = tot.get(p[0], 0) + int(p[1])
print("senders: " + ", ".join("%s %d" % (k, tot.get(k, 0)) for k in (
    "tx_data", "retransmits", "fast_retransmits", "rtos", "crp_tx_req", "crp_reask",
    "crp_tx_spec", "crp_tx_granted", "crp_tx_nonpart", "crp_spec_dropped")))
fct = []
for i in range(1, n + 1):
    try:
        fct.append("%d" % round(json.load(open(out + "/client-%d.json" % i))["fct_us"]["max"] / 1e3))
    except (OSError, ValueError, KeyError):
        fct.append("failed")
print("FCT ms: " + ", ".join(fct))
EOF
cat "$out/summary.txt"
