#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-transport: the smartt message transport against TCP with the same
# congestion control, on the same emulated path, with smartt-perf.
# Not a test: prints a table (and writes it to $BENCH_OUT if set).
#
# On the host:   selftests/bench/transport_bench.sh [RELEASE]
#   builds and stages smartt.ko, the fabric tools and smartt-perf for
#   RELEASE (default 6.12.117+deb12-amd64) and runs itself inside a QEMU
#   guest (scripts/vm-run.sh).
# In a guest:    selftests/bench/transport_bench.sh --guest
#
# Path: smartt-fabric, two hosts behind one switch, every port BENCH_RATE
# (20mbit) with 1 ms per link, RED/ECN and trimming as the fabric sets
# them; net.smartt.tcp_link_mbps / tcp_base_rtt_us on both hosts from the
# fabric's status, so both transports' SMaRTT cores describe the same
# fabric.  For each pair "SMARTT_CC:TCP_CC" of BENCH_PAIRS (default
# "smartt:smartt none:cubic") and each size of BENCH_SIZES, one-way
# streams of COUNT messages with OUTSTANDING in flight, smartt and TCP run
# one after the other: goodput (bytes / first send to last completion)
# and p50/p99 message completion time (smartt: the kernel's completion
# fct_ns; TCP: issue to the receiver's 1-byte ack), and the ratios
# smartt/TCP.  Then 64 B ping-pong (one outstanding): p50/p99 round trip.
# Then an N:1 incast (BENCH_INCAST "N:SIZE:COUNT", default 4:262144:4; ""
# skips it): N more hosts on the switch each send COUNT messages of SIZE
# bytes, all outstanding, to h1, every sender starting at one
# CLOCK_REALTIME instant (smartt-perf --start-at); goodput is all bytes
# over the slowest sender's time, p50 the median of the senders' median
# FCTs, p99 the largest of their p99s.
# Counts are scaled for TCG (~1000 packets/s): see BENCH_SIZES.
set -u
# shellcheck source=selftests/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"

if [ "${1:-}" != --guest ]; then
	bench_build bench-transport "${1:-6.12.117+deb12-amd64}" || exit 1
	bench_boot
fi

RATE=${BENCH_RATE:-20mbit}
DELAY=${BENCH_DELAY:-1ms}
PAIRS=${BENCH_PAIRS:-smartt:smartt none:cubic}
# SIZE:COUNT:OUTSTANDING
SIZES=${BENCH_SIZES:-64:300:8 65536:60:4 1048576:8:2 16777216:2:1}
PING_N=${BENCH_PING_N:-200}
INCAST=${BENCH_INCAST-4:262144:4}
IFS=: read -r inc_n inc_size inc_count <<<"${INCAST:-0:0:0}"
case $inc_n in ''|*[!0-9]*) echo "BENCH_INCAST=$INCAST: want N:SIZE:COUNT"; exit 1 ;; esac
# smartt socket buffers (SO_*BUFFORCE): the receiver admits a message only
# when it fits SO_RCVBUF and drops it unacknowledged otherwise (the sender's
# RTO retries), so with the default 208 KiB several outstanding 64 KiB+
# messages would measure RTOs.  TCP autotunes its buffers (tcp_rmem/wmem).
BUF=${BENCH_SMARTT_BUF:-67108864}
perf=$top/build/userspace/smartt-perf
fabric=(python3 "$top/userspace/smartt-fabric" --name bt)

bench_load_module
[ -x "$perf" ] || { echo "no $perf"; exit 1; }
tmp=$(mktemp -d)
srv=()
cleanup() {
	local p
	for p in "${srv[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	"${fabric[@]}" down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

# h0 -> h1 for the streams and ping-pong; h0 and h2.. are the incast's senders.
nhosts=$((inc_n > 1 ? inc_n + 1 : 2))
"${fabric[@]}" up --hosts "$nhosts" --rate "$RATE" --delay "$DELAY" --buffer bdp >"$tmp/up.txt" ||
	{ cat "$tmp/up.txt"; exit 1; }
hosts=$("${fabric[@]}" hosts --json)
host() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]][sys.argv[3]])' "$hosts" "$1" "$2"; }
ns0=$(host h0 ns)
ns1=$(host h1 ns)
dst=$(host h1 ipv4)
read -r link_mbps base_us mtu <<<"$("${fabric[@]}" status --json | python3 -c '
import json, sys
st = json.load(sys.stdin)
nic = min(p["cfg"]["rate"] for p in st["ports"] if p["kind"] == "nic")
print(max(1, nic // 1000000), round(st["base_rtt_ns"] / 1000), st.get("mtu", "?"))')"
senders=("$ns0")
for i in $(seq 2 $((nhosts - 1))); do
	senders+=("$(host "h$i" ns)")
done
for ns in "${senders[@]}" "$ns1"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1 net.smartt.tcp_link_mbps="$link_mbps" \
		net.smartt.tcp_base_rtt_us="$base_us"
done
modprobe tcp_cubic 2>/dev/null

# run TAG PROTO CC PORT CLIENT-ARGS...: one client run, its JSON tagged.
run() {
	local tag=$1 proto=$2 cc=$3 port=$4 out
	shift 4
	if out=$(ip netns exec "$ns0" timeout 300 "$perf" client --json --proto "$proto" -C "$cc" \
		-t 30 -p "$port" "$@" "$dst" 2>"$tmp/err"); then
		echo "$tag $out" >>"$tmp/results"
	else
		echo "$tag {\"error\": $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' \
			"$(tail -n 1 "$tmp/err")")}" >>"$tmp/results"
	fi
}

# incast TAG PROTO CC PORT: INCAST's senders at once, one line per sender.
incast() {
	local tag=$1 proto=$2 cc=$3 port=$4 i at pids=() extra=()
	[ "$proto" = smartt ] && extra=(--sndbuf "$BUF")
	at=$(($(date +%s) + 3))
	for i in "${!senders[@]}"; do
		ip netns exec "${senders[$i]}" timeout 300 "$perf" client --json --proto "$proto" \
			-C "$cc" -t 30 -p "$port" -P stream -s "$inc_size" -n "$inc_count" \
			-o "$inc_count" -S "$at" "${extra[@]}" "$dst" >"$tmp/inc.$i" 2>"$tmp/inc.$i.err" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		if wait "${pids[$i]}"; then
			echo "$tag $(cat "$tmp/inc.$i")" >>"$tmp/results"
		else
			echo "$tag {\"error\": $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' \
				"$(tail -n 1 "$tmp/inc.$i.err")")}" >>"$tmp/results"
		fi
	done
}

: >"$tmp/results"
for pair in $PAIRS; do
	scc=${pair%%:*}
	tcc=${pair#*:}
	ip netns exec "$ns1" "$perf" server --proto smartt -C "$scc" -p 1700 --rcvbuf "$BUF" \
		>/dev/null 2>&1 &
	srv+=($!)
	ip netns exec "$ns1" "$perf" server --proto tcp -C "$tcc" -p 7001 >/dev/null 2>&1 &
	srv+=($!)
	sleep 1
	for s in $SIZES; do
		IFS=: read -r size n o <<<"$s"
		run "$pair stream $size" smartt "$scc" 1700 -P stream -s "$size" -n "$n" -o "$o" \
			--sndbuf "$BUF"
		run "$pair stream $size" tcp "$tcc" 7001 -P stream -s "$size" -n "$n" -o "$o"
	done
	run "$pair pingpong 64" smartt "$scc" 1700 -P pingpong -s 64 -n "$PING_N"
	run "$pair pingpong 64" tcp "$tcc" 7001 -P pingpong -s 64 -n "$PING_N"
	if [ "$inc_n" -gt 1 ]; then
		incast "$pair incast${inc_n} $inc_size" smartt "$scc" 1700
		incast "$pair incast${inc_n} $inc_size" tcp "$tcc" 7001
	fi
	for p in "${srv[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	srv=()
done

{
	echo "# bench-transport: $(uname -r), smartt-fabric 2 hosts, ports $RATE, $DELAY per link, MTU $mtu, tcp_link_mbps=$link_mbps tcp_base_rtt_us=$base_us"
	echo "# SIZE:COUNT:OUTSTANDING = $SIZES; ping-pong 64 B x $PING_N; incast N:SIZE:COUNT = ${INCAST:-none}"
	python3 - "$tmp/results" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    pair, pat, size, js = line.split(" ", 3)
    d = json.loads(js)
    rows.setdefault((pair, pat, int(size)), []).append(d)
def r(a, b):
    return "%6.2f" % (a / b) if a and b else "     -"
print("%-14s %-9s %9s | %9s %9s %6s | %10s %10s %6s | %10s %10s %6s" % (
    "smartt:tcp cc", "pattern", "size", "st_Mbit/s", "tcp_Mbit/s", "ratio",
    "st_p50_ms", "tcp_p50_ms", "ratio", "st_p99_ms", "tcp_p99_ms", "ratio"))
def incast(ds):
    """The senders of one incast as one client: all bytes over the slowest."""
    if not ds:
        return None
    secs = max(d["seconds"] for d in ds)
    p50 = sorted(d["fct_us"]["p50"] for d in ds)[len(ds) // 2]
    return {"goodput_mbps": sum(d["bytes"] for d in ds) * 8 / secs / 1e6 if secs else 0,
            "fct_us": {"p50": p50, "p99": max(d["fct_us"]["p99"] for d in ds)}}
for (pair, pat, size), ds in rows.items():
    errs = [d["error"] for d in ds if "error" in d]
    if pat.startswith("incast"):
        st = None if errs else incast([d for d in ds if d.get("proto") == "smartt"])
        tc = None if errs else incast([d for d in ds if d.get("proto") == "tcp"])
    else:
        st = next((d for d in ds if d.get("proto") == "smartt"), None)
        tc = next((d for d in ds if d.get("proto") == "tcp"), None)
    if not st or not tc:
        print("%-14s %-9s %9d   failed: %s" % (pair, pat, size, "; ".join(errs)))
        continue
    k = "latency_us" if pat == "pingpong" else "fct_us"
    g1, g2 = st["goodput_mbps"], tc["goodput_mbps"]
    p1, p2 = st[k]["p50"] / 1e3, tc[k]["p50"] / 1e3
    q1, q2 = st[k]["p99"] / 1e3, tc[k]["p99"] / 1e3
    print("%-14s %-9s %9d | %9.2f %9.2f %6s | %10.2f %10.2f %6s | %10.2f %10.2f %6s" % (
        pair, pat, size, g1, g2, r(g1, g2), p1, p2, r(p1, p2), q1, q2, r(q1, q2)))
PY
} | tee "${BENCH_OUT:-/dev/null}"
