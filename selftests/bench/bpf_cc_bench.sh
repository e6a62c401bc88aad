#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-bpf-cc: the BPF congestion controls against the host kernel's
# own, natively on the host (no guest), in one run:
#
#   * goodput and sender CPU time per gigabit of bpf_smartt (each profile
#     a row of its own), bpf_strack, bpf_dctcp, cubic and bbr over one veth
#     pair and through one emulated switch port (smartt-fabric,
#     BENCH_BPF_RATE, default 1gbit); bpf_smartt and bpf_strack with the
#     default configuration and with the target at the port's ECN
#     threshold ("/tuned" rows);
#   * what each callback of the BPF programs costs: instructions (xlated),
#     JIT size, and the kernel's own run-time statistics
#     (kernel.bpf_stats_enabled: runs and ns per run during the transfers).
#
# The sender (iperf3 client) runs on CPU 0, the receiver on CPU 1 (when
# there are two).  CPU per gigabit = (user + system time of the sender
# process, as iperf3 measures it) / gigabits delivered; "machine" is every
# CPU's busy time over the same interval (/proc/stat), which also counts
# the softirq work done outside the sender.  Ratios are to cubic's figure
# of the same run.
#
# The algorithms take turns (one transfer of each, then the next round),
# so that a slow spell of the shared machine hits them alike.  A row is
# CC, or bpf_smartt:PROFILE, with "/tuned" for the tuned knobs.
#
# Knobs: BENCH_BPF_SECONDS (per transfer, default 5), BENCH_BPF_RATE,
# BENCH_BPF_REPEAT (rounds, median taken; default 3), BENCH_BPF_ALGOS.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fabric_lib.sh"

fabric_require
require_cmd iperf3 taskset
CCB=$SMARTT_TOP/build/bpf/smartt-cc-bpf
[ -x "$CCB" ] || skip_all "build/bpf/smartt-cc-bpf missing (make -C bpf)"
SECS=${BENCH_BPF_SECONDS:-5}
RATE=${BENCH_BPF_RATE:-1gbit}
REPEAT=${BENCH_BPF_REPEAT:-3}
ALGOS=${BENCH_BPF_ALGOS:-bpf_smartt:smartt bpf_smartt:smartt-2024 bpf_smartt:nscc \
	bpf_strack bpf_smartt:smartt/tuned bpf_smartt:smartt-2024/tuned \
	bpf_smartt:nscc/tuned bpf_strack/tuned bpf_dctcp cubic bbr}
tmp=$__sf_tmp

loaded_before=$("$CCB" status | grep -Ec '^bpf_[a-z]+ +loaded$')
stats0=$(sysctl -n kernel.bpf_stats_enabled)
bench_cleanup() {
	ip netns pids bb-b 2>/dev/null | xargs -r kill 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$stats0"
	# the configuration as it was (the knob strings may hold spaces)
	[ "$loaded_before" != 0 ] && [ -n "$cfg0" ] &&
		while IFS= read -r kv; do "$CCB" set bpf_smartt "$kv"; done <<<"$cfg0" >/dev/null
	[ "$loaded_before" = 0 ] && "$CCB" unload >/dev/null 2>&1
	fabric_cleanup
}
trap bench_cleanup EXIT
"$CCB" load >/dev/null || exit 1
# The papers' target queueing delays are for 12 us fabrics, below the
# scheduling jitter of veth on a shared host: the target is the switch
# port's ECN threshold (100 KB) at its rate, the rest the papers'.
target_ns=$(python3 -c 'import re,sys
m = re.fullmatch(r"(\d+)([kmg]?)bit", sys.argv[1])
bits = int(m.group(1)) * {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[m.group(2)]
print(100000 * 8 * 10**9 // bits)' "$RATE")
tuned_smartt="trtt_abs=1 target_qdelay=$target_ns"
tuned_strack="target_qdelay=$target_ns"
cfg0=$("$CCB" status | sed -n 's/^  \(tcp_[a-z_]*\) = \(.*\)$/\1=\2/p')

# row_cc ROW: the congestion control of a row; configures it first
row_cc() {
	local row=$1 cc=${1%%:*} prof=smartt sk= tk=
	cc=${cc%/tuned}
	case $row in *:*) prof=${row#*:}; prof=${prof%/tuned} ;; esac
	case $row in */tuned) sk=$tuned_smartt; tk=$tuned_strack ;; esac
	case $cc in
	bpf_smartt | bpf_strack)
		"$CCB" set bpf_smartt tcp_smartt_profile="$prof" tcp_smartt_knobs="$sk" \
			tcp_strack_knobs="$tk" >/dev/null || return 1 ;;
	esac
	echo "$cc"
}
cpu1=1
[ "$(nproc)" -ge 2 ] || cpu1=0

# busy_jiffies: every CPU's non-idle time, USER_HZ ticks
busy_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

# one NS DST CC OUT: one transfer; OUT gets "bit/s bits sender_cpu_s machine_cpu_s retrans"
one() {
	local ns=$1 dst=$2 cc=$3 out=$4 j0 j1
	j0=$(busy_jiffies)
	ip netns exec "$ns" taskset -c 0 iperf3 -c "$dst" -t "$SECS" -C "$cc" -J >"$tmp/one.json" 2>&1
	j1=$(busy_jiffies)
	python3 - "$tmp/one.json" "$((j1 - j0))" "$(getconf CLK_TCK)" >"$out" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["end"]
jif, hz = int(sys.argv[2]), int(sys.argv[3])
recv = e["sum_received"]
# iperf3: the client's user + system time over its run, in % of one CPU
sender = e["cpu_utilization_percent"]["host_total"] / 100 * e["sum_sent"]["seconds"]
print(recv["bits_per_second"], recv["bytes"] * 8, sender, jif / hz,
      e["sum_sent"].get("retransmits", 0))
PY
}

# path NAME NS DST: REPEAT rounds of every row, median row per row
path() {
	local name=$1 ns=$2 dst=$3 row cc r
	for row in $ALGOS; do
		: >"$tmp/runs.$name.${row//\//_}"
	done
	for r in $(seq "$REPEAT"); do
		for row in $ALGOS; do
			cc=$(row_cc "$row") || exit 1
			one "$ns" "$dst" "$cc" "$tmp/run" &&
				cat "$tmp/run" >>"$tmp/runs.$name.${row//\//_}"
		done
	done
	python3 - "$tmp" "$name" $ALGOS <<'PY'
import statistics, sys
tmp, name, algos = sys.argv[1], sys.argv[2], sys.argv[3:]
med = statistics.median
rows, n = {}, 0
for cc in algos:
    runs = [list(map(float, l.split()))
            for l in open(f"{tmp}/runs.{name}.{cc.replace('/', '_')}") if l.strip()]
    if not runs:
        continue
    n = max(n, len(runs))
    # bit/s, sender CPU s per Gbit, machine CPU s per Gbit, retransmissions
    rows[cc] = (med(r[0] for r in runs), med(r[2] / (r[1] / 1e9) for r in runs),
                med(r[3] / (r[1] / 1e9) for r in runs), med(r[4] for r in runs))
print(f"\n{name}: median of {n} runs")
print(f"{'cc':<29} {'Gbit/s':>7} {'x cubic':>8} {'snd_cpu_s/Gbit':>15} {'x cubic':>8}"
      f" {'all_cpu_s/Gbit':>15} {'x cubic':>8} {'retrans':>8}")
base = rows.get("cubic")
ratio = lambda v, i: f"{v / base[i]:.2f}" if base and base[i] else "-"
for cc, (bps, snd, mach, rtx) in rows.items():
    print(f"{cc:<29} {bps / 1e9:7.2f} {ratio(bps, 0):>8} {snd:15.4f} {ratio(snd, 1):>8}"
          f" {mach:15.4f} {ratio(mach, 2):>8} {rtx:8.0f}")
PY
}

echo "# bench-bpf-cc: $(uname -r), $(nproc) CPUs, ${SECS} s per transfer, $REPEAT runs each"
echo "# /tuned rows: tcp_smartt_knobs=\"$tuned_smartt\" tcp_strack_knobs=\"$tuned_strack\"; others: $("$CCB" status | grep -E 'tcp_host_target_us')"
sysctl -qw kernel.bpf_stats_enabled=1

# 1. one veth pair, nothing between the hosts
veth_pair bb-a bb-b || exit 1
# iperf3 -C selects the algorithm after connect(): the SYN asks for ECN
# itself (without ECN the ECN algorithms run Reno)
ip netns exec bb-a sysctl -qw net.ipv4.tcp_ecn=1
ip netns exec bb-b taskset -c "$cpu1" iperf3 -s -D -B 198.18.0.2 >/dev/null
sleep 0.5
path "veth pair" bb-a 198.18.0.2

# 2. one emulated switch port (tc eBPF) at RATE
fabric_up --hosts 2 --rate "$RATE" --delay 0 --buffer 2000000 --kmin 100000 --kmax 300000 --mtu 1500 >/dev/null
dst=$(host_field h1 ipv4)
for ns in "$(host_field h0 ns)" "$(host_field h1 ns)"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1
done
sf exec h1 -- taskset -c "$cpu1" iperf3 -s -D -B "$dst" >/dev/null
sleep 0.5
path "switch port $RATE" "$(host_field h0 ns)" "$dst"

# 3. the programs: size and measured cost per callback over both paths
echo
echo "BPF programs (kernel.bpf_stats_enabled during the transfers above):"
bpftool -j prog show >"$tmp/progs.json"
python3 - "$tmp/progs.json" <<'PY'
import json, sys
# the registered one of each name: older copies (kept by sockets that
# still ran an unloaded version) have not run during this benchmark
progs = {}
for p in json.load(open(sys.argv[1])):
    if p.get("type") == "struct_ops" and p.get("name", "").startswith(
            ("bpf_smartt", "bpf_strack", "bpf_dctcp")):
        if p.get("run_cnt", 0) >= progs.get(p["name"], {}).get("run_cnt", -1):
            progs[p["name"]] = p
print(f"{'program':<26} {'xlated_insns':>12} {'jited_bytes':>11} {'runs':>10} {'ns/run':>8}")
for p in sorted(progs.values(), key=lambda p: p["name"]):
    runs = p.get("run_cnt", 0)
    ns = p.get("run_time_ns", 0) / runs if runs else 0
    print(f"{p['name']:<26} {p['bytes_xlated'] // 8:12d} {p.get('bytes_jited', 0):11d}"
          f" {runs:10d} {ns:8.0f}")
PY
