#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The TCP congestion controls smartt and strack when the fabric drops
# instead of marking (Documentation/tcp.rst, "Loss"): packet conservation
# in fast recovery, strack's loss rule (net.smartt.tcp_strack_loss = 1),
# the loss window after an RTO.  Two hosts on smartt-fabric, links of
# 2 x LOSS_RATE; the switch port to the receiver (l0:h1) runs at LOSS_RATE
# with a drop-tail buffer of LOSS_QLEN packets and no ECN marking.  (The
# bottleneck is a switch port, in another namespace than the sender: a
# queue in the sender's own qdisc holds only what TCP Small Queues lets
# in, and never overflows.)  iperf3 carries the flows.
#
#  1. drop-tail, one flow at a time of cubic, smartt, strack and dctcp
#     (the port's drops under cubic are printed): retransmitted segments
#     per segment of smartt and strack at most 2x cubic's or 1 %,
#     whichever is larger (cubic's own moves between 0 and 2 % under
#     TCG); goodput at least 0.8x cubic's;
#  2. drop-tail, two strack flows and one cubic flow at once: cubic keeps
#     at least a third of its fair share (a ninth of the three's total);
#  3. a LOSS_HOLE-second blackhole of l0:h1 in the middle of a smartt and
#     of a strack flow: an RTO drops the window to the loss window (one
#     packet, smartt_cc tracepoint), the flow delivers again within 3 s of
#     the link coming back (or 1 s of TCP's next RTO if its backoff fires
#     later), and its window regrows by the core's rules to at least 3
#     loss windows (the window's path is printed; at the default rate
#     and delay the bound, 1.5 BDPs, is about 4 packets);
#  4. 1% random loss at l0:h1 with a deep buffer: the goodput of cubic,
#     bbr, smartt and strack side by side (reported, no target: a known
#     trade-off of loss-reactive rules).
#
# Delay-based rules read a plain TCG guest's scheduling jitter as queueing
# delay (their goodput against cubic's moved between 0.67 and 1.04 from run
# to run there): the test runs in a time-warped guest, whose clock counts
# the instructions executed and skips idle time, so that delays are the
# emulated network's (scripts/check.sh runs the tests marked so beside the
# plain guests):
# timewarp
# Guest time also runs on while the guest waits for the host (its file
# system, under load): 426 to 610 s of it measured, hence its own limit:
# timeout=1500
# `make check` runs it on one kernel (SMARTT_SELFTESTS_FULL=1: on both;
# the plain guests run the congestion controls on both):
# kernels: 6.1
# The bottleneck is 4 Mbit/s by default: the port, not the CPU, limits the
# flows (a plain TCG guest's sender fills little more than 10 Mbit/s).
# smartt's target queueing delay is half the bottleneck buffer's drain
# time (its default target is below the emulator's jitter); strack runs
# with its defaults.
# Knobs: LOSS_RATE (4mbit), LOSS_DELAY (per link, 2ms), LOSS_QLEN (10
# packets), LOSS_SECS (4, per flow), LOSS_HOLE (2, seconds), LOSS_HOLE_BYTES
# (the blackholed flows' size, 4M).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fabric_require
require_cmd iperf3
modprobe smartt || skip_all "no smartt.ko"
modprobe tcp_dctcp 2>/dev/null
modprobe tcp_bbr 2>/dev/null

RATE=${LOSS_RATE:-4mbit}
DELAY=${LOSS_DELAY:-2ms}
QLEN=${LOSS_QLEN:-10}
SECS=${LOSS_SECS:-4}
HOLE=${LOSS_HOLE:-2}
HOLE_BYTES=${LOSS_HOLE_BYTES:-4M}
[[ $RATE =~ ^([1-9][0-9]{0,3})mbit$ ]] || skip_all "LOSS_RATE: 1mbit..9999mbit, got '$RATE'"
rate_mbit=${BASH_REMATCH[1]}
fast=$((rate_mbit * 2))mbit
[[ $QLEN =~ ^[1-9][0-9]{0,3}$ ]] || skip_all "LOSS_QLEN: 1..9999 packets, got '$QLEN'"
[[ $SECS =~ ^[1-9][0-9]?$ ]] || skip_all "LOSS_SECS: 1..99, got '$SECS'"
[[ $HOLE =~ ^[1-9]$ ]] || skip_all "LOSS_HOLE: 1..9 seconds, got '$HOLE'"
[[ $HOLE_BYTES =~ ^[1-9][0-9]{0,3}[KM]?$ ]] || skip_all "LOSS_HOLE_BYTES: an iperf3 size (e.g. 2M), got '$HOLE_BYTES'"
tmp=$__sf_tmp
exec 3>&1
t_start=$(date +%s)

fabric_up --hosts 2 --rate "$fast" --delay "$DELAY" --mtu 1500 --buffer bdp
h0ns=$(host_field h0 ns)
dst=$(host_field h1 ipv4)
check "l0:h1: $RATE, drop-tail buffer of $QLEN packets, no ECN" \
	sf set l0:h1 rate="$RATE" buffer=$((QLEN * 1514)) ecn=off
for p in 5201 5202 5203; do
	sf exec h1 -- iperf3 -s -D -B "$dst" -p "$p" >/dev/null
done
# SMaRTT's target RTT, 1.5 x a base RTT learned under TCG's jitter, is
# below that jitter: as a user would, give its delay rules a target of
# half the bottleneck buffer's drain time, so that they act before it
# fills.  strack keeps its defaults.
bits=$((rate_mbit * 1000000))
target_ns=$((QLEN * 1514 * 8 * 1000000000 / bits / 2))
# net.ipv4.tcp_ecn=1: iperf3 -C selects the algorithm after connect(), so
# the SYN must ask for ECN itself; without ECN smartt and strack run Reno
# (the port does not mark: ECN is negotiated end to end only)
ip netns exec "$h0ns" sysctl -qw net.ipv4.tcp_no_metrics_save=1 net.ipv4.tcp_ecn=1 \
	net.smartt.tcp_smartt_knobs="trtt_abs=1,target_qdelay=$target_ns" ||
	skip_all "cannot configure smartt's target in h0"
echo "# smartt's target queueing delay: $((target_ns / 1000)) us"
sleep 1

# flow LABEL CC [PORT [SECS [IPERF3-ARGS...]]]: one iperf3 flow (SECS 0:
# the arguments give its length); leaves
# $tmp/LABEL.json and $tmp/LABEL: "goodput_mbps retransmits segments cc"
flow() {
	local label=$1 cc=$2 port=${3:-5201} secs=${4:-$SECS} len
	len=(-t "$secs")
	[ "$secs" = 0 ] && len=()	# the arguments give the length (-n)
	timeout 150 "$SF" exec h0 -- iperf3 -c "$dst" -p "$port" "${len[@]}" -C "$cc" -J "${@:5}" \
		>"$tmp/$label.json" 2>&1
	python3 - "$tmp/$label.json" >"$tmp/$label" <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
s, r = d["end"]["sum_sent"], d["end"]["sum_received"]
cc = d["end"].get("sender_tcp_congestion", "?")
print("%.3f %d %d %s" % (r["bits_per_second"] / 1e6, s.get("retransmits", 0),
                         max(1, s["bytes"] // 1448), cc))
PY
	echo "# $label: goodput Mbit/s, retransmits, segments, cc: $(cat "$tmp/$label")" >&3
	read -r _ _ _ got <"$tmp/$label"
	[ "$got" = "$cc" ] || { echo "# $label: ran $got, not $cc"; return 1; }
}
py_check() { python3 -c "import sys; sys.exit(0 if ($1) else 1)"; }

# --- 1. drop-tail, one flow at a time ---
d0=$(port_stat l0:h1 drops)
check "drop-tail: a cubic flow ran" flow tail-cubic cubic
d1=$(port_stat l0:h1 drops)
# A guest short of CPU may not fill the port: then the bound below is 1 %.
echo "# drop-tail: the port dropped $((d1 - d0)) packets under cubic"
for cc in smartt strack dctcp; do
	check "drop-tail: a $cc flow ran" flow "tail-$cc" "$cc"
done
read -r mc rc oc _ <"$tmp/tail-cubic" || { mc=1 rc=0 oc=1; }
for cc in smartt strack; do
	read -r m r o _ <"$tmp/tail-$cc" || { m=0 r=1 o=1; }
	# cubic's own count moves between 0 and 2 % from run to run under
	# TCG: the bound is twice cubic's or 1 %, whichever is larger
	check "drop-tail: $cc retransmits per segment ($r/$o) <= max(2 x cubic's ($rc/$oc), 1 %)" \
		py_check "$r / $o <= max(2 * $rc / $oc, 0.01)"
	echo "# drop-tail: $cc goodput / cubic's: $(python3 -c "print(round($m / $mc, 2))")"
	check "drop-tail: $cc goodput ($m Mbit/s) >= 0.8 x cubic's ($mc)" \
		py_check "$m > 0 and $m >= 0.8 * $mc"
done

# --- 2. drop-tail, two strack flows and one cubic flow ---
mix() {
	local pids=() i
	flow mix-strack1 strack 5201 $((SECS * 2)) & pids+=($!)
	flow mix-strack2 strack 5202 $((SECS * 2)) & pids+=($!)
	flow mix-cubic cubic 5203 $((SECS * 2)) & pids+=($!)
	for i in "${pids[@]}"; do wait "$i" || return 1; done
}
check "drop-tail: two strack flows and one cubic flow ran together" mix
read -r s1 _ <"$tmp/mix-strack1" || s1=1
read -r s2 _ <"$tmp/mix-strack2" || s2=1
read -r c3 _ <"$tmp/mix-cubic" || c3=0
check "drop-tail: cubic's goodput ($c3) >= a third of its fair share (($s1 + $s2 + $c3) / 9)" \
	py_check "$c3 > 0 and $c3 >= ($s1 + $s2 + $c3) / 9"

# --- 3. a blackhole in the middle of a flow ---
tracefs=/sys/kernel/tracing
[ -d "$tracefs/events" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null
trace_on() {
	[ -e "$tracefs/events/smartt/smartt_cc/enable" ] || return 1
	echo 16384 >"$tracefs/buffer_size_kb"
	echo >"$tracefs/trace"
	echo 1 >"$tracefs/events/smartt/smartt_cc/enable"
}
trace_off() { echo 0 >"$tracefs/events/smartt/smartt_cc/enable"; }
trap 'trace_off 2>/dev/null; fabric_cleanup' EXIT
marker() { echo "$1" >"$tracefs/trace_marker"; }
# The blackhole goes through the fabric's C controller (the "cfg" lines
# smartt-fabric itself writes): smartt-fabric, a python program, takes
# seconds to start under TCG, and the hole's length must be known.
# blackhole_lines PORT 0|1: the controller's batch line for PORT.
blackhole_lines() {
	python3 - "/run/smartt-fabric/$SF_NAME.json" "$1" "$2" <<'PY'
import json, sys
st, port, on = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
p = st["ports"][port]
c = dict(p["orig"])
c.update(p.get("faults", {}))
c["blackhole"] = on
print(st["pin"])
print(" ".join(["cfg", str(p["ifindex"])] + ["%s=%d" % (k, int(v)) for k, v in c.items()]))
PY
}
ctl_batch() { # ctl_batch FILE: the controller's batch (pin dir on the first line)
	tail -n +2 "$1" | "$SMARTT_TOP/build/bpf/smartt-fabric-bpf" batch "$(head -1 "$1")"
}
blackhole_lines l0:h1 1 >"$tmp/hole.on" && blackhole_lines l0:h1 0 >"$tmp/hole.off" ||
	echo "# cannot read the fabric's state: the blackhole checks fail"
flowing() { # flowing SPORT: until that stream of h0 has 64 KB acked (30 s)
	local i n
	for i in $(seq 1 150); do
		n=$(ip netns exec "$h0ns" ss -tin "sport = :$1" | grep -o 'bytes_acked:[0-9]*' | cut -d: -f2)
		[ "${n:-0}" -ge 65536 ] && return 0
		sleep 0.2
	done
	return 1
}
hole() { # hole CC SPORT: a flow with the link dropping everything for HOLE s
	local cc=$1 pid
	trace_on || return 1
	# a flow of a fixed size, not length: it lasts through the hole and
	# its restart whatever iperf3's start-up under TCG takes
	flow "hole-$cc" "$cc" 5201 0 --cport "$2" -n "$HOLE_BYTES" &
	pid=$!
	# iperf3 takes seconds to start under TCG: the hole comes once the
	# data stream has moved 64 KB
	flowing "$2" || { echo "# the data stream did not start"; wait "$pid"; return 1; }
	ctl_batch "$tmp/hole.on" || return 1
	marker "smartt-hole-start"
	sleep "$HOLE"
	ctl_batch "$tmp/hole.off" || return 1
	marker "smartt-hole-end"
	wait "$pid" || return 1
	trace_off
	cat "$tracefs/trace" >"$tmp/hole-$cc.trace"
	python3 - "$tmp/hole-$cc.trace" "$cc" "$2" >"$tmp/hole-$cc.r" <<'PY'
import json, re, sys
path, algo = sys.argv[1], sys.argv[2]
# the data stream's own port (iperf3's control connection has dport 5201 too)
sport = int(sys.argv[3])
ev = re.compile(r'\s(\d+\.\d+): smartt_cc: %s (\w+) sport=%d dport=5201 '
                r'rules=\S+ cwnd=(\d+)->(\d+) .*bytes=(\d+)' % (algo, sport))
mark = re.compile(r'\s(\d+\.\d+): .*smartt-hole-(start|end)')
t = {}
events = []
for line in open(path):
    m = mark.search(line)
    if m:
        t[m.group(2)] = float(m.group(1))
        continue
    m = ev.search(line)
    if m:
        events.append((float(m.group(1)), m.group(2), int(m.group(3)),
                       int(m.group(4)), int(m.group(5))))
start, end = t.get("start"), t.get("end")
r = {"events": len(events), "marks": len(t)}
if start is not None and end is not None:
    rtos = [e for e in events if e[1] == "rto" and start <= e[0] <= end + 3]
    later = [e[0] - end for e in events if e[1] == "rto" and e[0] > end]
    r["rto_after_s"] = round(later[0], 3) if later else None
    r["rtos"] = len(rtos)
    r["acks_in_hole"] = sum(1 for e in events
                            if e[1] == "ack" and start + 0.5 < e[0] < end)
    r["rto_at"] = [round(e[0] - start, 3) for e in events if e[1] == "rto"]
    r["before_hole"] = max((e[3] for e in events
                            if e[1] == "ack" and start - 1 < e[0] < start), default=0)
    r["rto_min_after"] = min((e[3] for e in rtos), default=None)
    acks = [e for e in events if e[1] == "ack" and e[0] > end and e[4] > 0]
    r["resume_s"] = round(acks[0][0] - end, 3) if acks else None
    r["max_after"] = max((e[3] for e in acks), default=0)
    # the window's path after the hole, one sample per 0.5 s
    trace, nxt = [], end
    for e in acks:
        if e[0] >= nxt:
            trace.append(e[3])
            nxt += 0.5
    r["cwnd_trace"] = trace
print(json.dumps(r))
PY
	echo "# hole $cc: $(cat "$tmp/hole-$cc.r")" >&3
}
hf() { json_get_py "$tmp/hole-$1.r" "$2"; }
json_get_py() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print("" if v is None else v)' "$1" "$2" 2>/dev/null; }
mss=$(sysctl -n net.smartt.tcp_mss)
cport=40000
for cc in smartt strack; do
	cport=$((cport + 1))
	check "blackhole ${HOLE}s: a $cc flow ran through it" hole "$cc" "$cport"
	check "blackhole: $cc's RTO dropped the window to the loss window ($(hf "$cc" 'd.get("rto_min_after")') <= $mss bytes)" \
		py_check "0 < $(hf "$cc" 'd.get("rto_min_after") or 0') <= $mss"
	# When TCP's backed-off RTO fires later than that, the restart is
	# measured from it: TCP's backoff, not the congestion control, sets it.
	check "blackhole: $cc delivers again within 3 s of the link's return, or 1 s of the next RTO ($(hf "$cc" 'd.get("resume_s")') s, RTO at $(hf "$cc" 'd.get("rto_after_s")') s)" \
		py_check "0 <= $(hf "$cc" 'd.get("resume_s") if d.get("resume_s") is not None else 99') <= max(3, $(hf "$cc" 'd.get("rto_after_s") or 0') + 1)"
	check "blackhole: $cc's window regrows to >= 3 loss windows ($(hf "$cc" 'd.get("max_after")') bytes)" \
		py_check "$(hf "$cc" 'd.get("max_after") or 0') >= 3 * $mss"
done

# --- 4. random loss without congestion ---
check "l0:h1: 1% random loss, a deep buffer, the links' rate" \
	sf set l0:h1 rate="$fast" buffer=$((QLEN * 1514 * 20)) loss=10
for cc in cubic bbr smartt strack; do
	if ! ip netns exec "$h0ns" sysctl -n net.ipv4.tcp_available_congestion_control | grep -qw "$cc"; then
		ktap_result SKIP "1% random loss: a $cc flow" "$cc is not available in this kernel"
		continue
	fi
	check "1% random loss: a $cc flow ran" flow "rand-$cc" "$cc"
done
summary() { # summary PREFIX CC...
	local p=$1 cc m r o
	shift
	for cc in "$@"; do
		[ -e "$tmp/$p-$cc" ] && read -r m r o _ <"$tmp/$p-$cc" && printf ' %s %s (%s/%s)' "$cc" "$m" "$r" "$o"
	done
}
echo "# drop-tail at $RATE, goodput Mbit/s (retransmits/segments):$(summary tail cubic smartt strack dctcp)"
echo "# 1% random loss at $fast, goodput Mbit/s (retransmits/segments):$(summary rand cubic bbr smartt strack)"
echo "# took $(($(date +%s) - t_start)) s"
ktap_exit
