#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The BPF struct_ops congestion controls bpf_smartt, bpf_strack, bpf_dctcp
# (bpf/tcp_*.bpf.c), loaded with smarttctl's loader (build/bpf/smartt-cc-bpf):
#  1. load registers all three, and they stay after the loader exits;
#  2. selection by the netns sysctl, by TCP_CONGESTION (iperf3 -C) and by
#     `ip route ... congctl`, each seen in `cc flows` and `ss -ti` (which
#     shows the name and no field under another algorithm's label);
#     ECN only when negotiated: against a peer without ECN bpf_smartt runs
#     reno, counted, and its data leave Not-ECT; a flow silent for 1 s
#     restarts (idles = 1), not with net.ipv4.tcp_slow_start_after_idle=0;
#  3. a transfer with each through an emulated switch port reaches a share
#     of the port rate;
#  4. CE marks at a fixed fraction (the port's held queue, RED): bpf_smartt
#     and bpf_strack get CE echoes and their cores react; bpf_dctcp's
#     alpha converges to the marked fraction;
#  5. knob validation: bad values exit 1 and change nothing, unknown names
#     exit 2, good values are applied (a new configuration generation);
#     non-root callers get one line and exit 1;
#  6. unload while a flow runs: the flow goes on with the unloaded
#     algorithm, new connections cannot select it, load works again;
#  7. unload of everything removes every pin.
# Runs on the host (the "bpfcc" stage of make check) and in the guests; on
# a kernel that cannot load them the loader's one-line reason is the skip.
#
# Knobs: BPF_CC_RATE (port rate; default 1gbit, the first of SF_RATES in
# guests), BPF_CC_SECONDS (per measured transfer, default 3, 8 in guests),
# BPF_CC_FLOW_MAX (longest wait for a flow's state, default 120 s).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fabric_require
require_cmd iperf3 ss setpriv
CCB=$SMARTT_TOP/build/bpf/smartt-cc-bpf
[ -x "$CCB" ] || skip_all "build/bpf/smartt-cc-bpf missing (make -C bpf)"
RATE=${BPF_CC_RATE:-${SF_RATES%% *}}
RATE=${RATE:-1gbit}
# TCG guests (run_guest.sh sets SF_RATES) start flows slowly: longer transfers
SECS=${BPF_CC_SECONDS:-$([ -n "${SF_RATES:-}" ] && echo 8 || echo 3)}
tmp=$__sf_tmp
CCS="bpf_smartt bpf_strack bpf_dctcp"

if "$CCB" status | grep -Eq '^bpf_[a-z]+ +loaded$'; then
	skip_all "BPF congestion controls are already loaded here: unload them first (smarttctl cc unload)"
fi

allowed0=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
cleanup_cc() {
	local ns
	# a daemon would keep its namespace (and what it holds) alive
	for ns in bcc-a bcc-b; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
	done
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed0"
	"$CCB" unload >/dev/null 2>&1
}
trap 'cleanup_cc; fabric_cleanup' EXIT

available() { grep -qw "$1" /proc/sys/net/ipv4/tcp_available_congestion_control; }

# rate_bits NAME: 1gbit -> 1000000000
rate_bits() {
	python3 -c 'import re,sys
m = re.fullmatch(r"(\d+)([kmg]?)bit", sys.argv[1])
print(int(m.group(1)) * {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[m.group(2)])' "$1"
}

# --- 1. load ---
if ! out=$("$CCB" load 2>&1); then
	echo "# $out"
	# a kernel without what they need: the loader says which, in one
	# line; anything else (the verifier refusing a program) is a failure
	if [ "$(echo "$out" | wc -l)" = 1 ] &&
		grep -Eq 'this kernel (has no|lacks)|needs CAP_BPF|not a BPF filesystem' <<<"$out"; then
		skip_all "cannot load here: $out"
	fi
	SMARTT_CC_DEBUG=1 "$CCB" load 2>&1 | grep -B20 -m1 -E '^(processed|-- END PROG LOAD LOG)' | sed 's/^/# | /'
	"$CCB" unload >/dev/null 2>&1
	ktap_result FAIL "load"
	ktap_exit
fi
check "load registers $CCS" bash -c "for c in $CCS; do grep -qw \$c /proc/sys/net/ipv4/tcp_available_congestion_control || exit 1; done"
check "a second load is a no-op" bash -c "'$CCB' load | grep -c 'already loaded' | grep -qx 3"
check "status lists all three as loaded" bash -c "[ \$('$CCB' status | grep -Ec '^bpf_[a-z]+ +loaded\$') = 3 ]"

# --- 2. selection ---
veth_pair bcc-a bcc-b || { ktap_result FAIL "veth pair"; ktap_exit; }
# ECN: a socket that selects its algorithm before connect() (the netns
# default, the route) sends an ECT SYN, which only an ECN listener accepts;
# iperf3 -C selects it after connect(), and its SYN asks for ECN with
# tcp_ecn=1.  Without ECN the three run Reno.
ip netns exec bcc-a sysctl -qw net.ipv4.tcp_ecn=1
route_congctl bcc-b bpf_dctcp || { ktap_result FAIL "congctl on bcc-b's routes"; ktap_exit; }
ip netns exec bcc-b iperf3 -s -D -B 198.18.0.2 --logfile "$tmp/srv.log" >/dev/null
sleep 0.5

# Flows run until a condition on their `cc flows` state holds (polled:
# iperf3 starts slowly in TCG guests, where one `cc flows` takes seconds),
# at most FLOW_MAX seconds.
FLOW_MAX=${BPF_CC_FLOW_MAX:-120}

# flow_start TAG NS DST IPERF_ARGS...: a long transfer in the background
flow_start() {
	local tag=$1 ns=$2 dst=$3
	shift 3
	ip netns exec "$ns" iperf3 -c "$dst" -t "$FLOW_MAX" "$@" >"$tmp/cli.$tag" 2>&1 &
	flow_pid=$!
}

# flow_wait TAG NS CC PYEXPR: until the first data flow f of CC in NS's
# `cc flows --json` satisfies PYEXPR (f a dict); its state is left in
# flows.TAG, `ss -tin` from the same moment in ss.TAG.
flow_wait() {
	local tag=$1 ns=$2 cc=$3 expr=$4 t0=$SECONDS
	while [ $((SECONDS - t0)) -lt "$FLOW_MAX" ]; do
		"$CCB" flows --json -n "$ns" >"$tmp/flows.$tag" 2>"$tmp/flows.err"
		ip netns exec "$ns" ss -tin >"$tmp/ss.$tag" 2>&1
		python3 - "$tmp/flows.$tag" "$cc" "$expr" <<'PY' && return 0
import json, sys
flows = json.load(open(sys.argv[1]))
ok = [f for f in flows if f["cc"] == sys.argv[2] and f.get("acks", 0) > 0
      and eval(sys.argv[3], {}, {"f": f})]
sys.exit(0 if ok else 1)
PY
		kill -0 "$flow_pid" 2>/dev/null || break
		sleep 0.2
	done
	echo "# no $cc flow in $ns with $expr; last state: $(head -c 600 "$tmp/flows.$tag") $(cat "$tmp/flows.err")"
	return 1
}

flow_stop() {
	kill "$flow_pid" 2>/dev/null
	wait "$flow_pid" 2>/dev/null
}

# flow_get TAG CC PYEXPR: print PYEXPR of the first data flow f of CC in flows.TAG
flow_get() {
	python3 -c 'import json, sys
f = [f for f in json.load(open(sys.argv[1])) if f["cc"] == sys.argv[2] and f.get("acks", 0) > 0][0]
print(eval(sys.argv[3], {}, {"f": f}))' "$tmp/flows.$1" "$2" "$3"
}

# Like every congestion control but reno and cubic, the BPF ones are
# restricted: a non-initial netns may make one its default once the
# initial netns allows it.
check "tcp_allowed_congestion_control takes bpf_smartt" \
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed0 bpf_smartt"
ns_cc0=$(ip netns exec bcc-a sysctl -n net.ipv4.tcp_congestion_control)
check "netns sysctl net.ipv4.tcp_congestion_control=bpf_smartt" \
	ip netns exec bcc-a sysctl -qw net.ipv4.tcp_congestion_control=bpf_smartt
flow_start sysctl bcc-a 198.18.0.2
check "netns sysctl net.ipv4.tcp_congestion_control=bpf_smartt selects it" \
	flow_wait sysctl bcc-a bpf_smartt "f['snd_cwnd'] > 0"
flow_stop
check "ss -ti names bpf_smartt" grep -q bpf_smartt "$tmp/ss.sysctl"
check "ss -ti shows no field under another algorithm's label" bash -c "! grep -Eq 'dctcp:|bbr:|vegas:' '$tmp/ss.sysctl'"
check "bpf_smartt flow state: cwnd, base RTT, target" python3 -c "
import json; f = [f for f in json.load(open('$tmp/flows.sysctl')) if f['cc'] == 'bpf_smartt'][0]
assert f['cwnd_bytes'] > 0 and f['base_rtt_ns'] > 0 and f['target_rtt_ns'] > f['base_rtt_ns'], f"
check "bpf_smartt flow state: host delay and its target (50 us by default)" python3 -c "
import json; f = [f for f in json.load(open('$tmp/flows.sysctl')) if f['cc'] == 'bpf_smartt'][0]
assert f['host_target_ns'] == 50000 and 0 <= f['host_delay_ns'] <= 10**9, f"
ip netns exec bcc-a sysctl -qw net.ipv4.tcp_congestion_control="$ns_cc0"

flow_start tcpcong bcc-a 198.18.0.2 -C bpf_strack
check "TCP_CONGESTION (iperf3 -C bpf_strack) selects it" flow_wait tcpcong bcc-a bpf_strack True
flow_stop

ip -n bcc-a route replace 198.18.0.0/24 dev veth-a congctl bpf_dctcp
flow_start route bcc-a 198.18.0.2
check "ip route ... congctl bpf_dctcp selects it" flow_wait route bcc-a bpf_dctcp True
flow_stop
ip -n bcc-a route replace 198.18.0.0/24 dev veth-a

# --- ECN only when negotiated; the restart after idle ---
# counter NAME: one of `smarttctl cc status`'s counters
counter() { "$CCB" status | awk -v n="$1" '$1 == n { print $2 }'; }
route_congctl bcc-b ""
ip netns exec bcc-b sysctl -qw net.ipv4.tcp_ecn=0
n0=$(counter flows_without_ecn)
ip netns exec bcc-b timeout 20 tcpdump -ni veth-b -v -c 20 \
	'tcp dst port 5201 and greater 1000' >"$tmp/td.noecn" 2>/dev/null &
td=$!
sleep 1
ip netns exec bcc-a iperf3 -c 198.18.0.2 -t 1 -C bpf_smartt -J >"$tmp/cli.noecn" 2>&1
wait "$td"
echo "# tcpdump: $(grep -o 'tos 0x[0-9a-f]*' "$tmp/td.noecn" | sort | uniq -c | tr '\n' ' ')"
check "bpf_smartt against a peer without ECN runs reno (iperf3's sender_tcp_congestion)" \
	grep -q '"sender_tcp_congestion":[[:space:]]*"reno"' "$tmp/cli.noecn"
check "... counted (flows_without_ecn $n0 -> $(counter flows_without_ecn))" \
	test "$(counter flows_without_ecn)" -gt "$n0"
check "... its data leave Not-ECT (tos 0x0), 20 of 20 packets" \
	test "$(grep -c 'tos 0x0,' "$tmp/td.noecn")" = 20
ip netns exec bcc-b sysctl -qw net.ipv4.tcp_ecn=2
route_congctl bcc-b bpf_dctcp
ip netns exec bcc-b python3 "$SMARTT_TOP/selftests/smartt_cc_tool.py" server 198.18.0.2 5301 \
	--ready "$tmp/ready.srv" &
srv=$!
for i in $(seq 1 100); do [ -e "$tmp/ready.srv" ] && break; sleep 0.1; done
ssai0=$(ip netns exec bcc-a sysctl -n net.ipv4.tcp_slow_start_after_idle)
for ssai in 1 0; do
	ip netns exec bcc-a sysctl -qw net.ipv4.tcp_slow_start_after_idle=$ssai
	rm -f "$tmp/ready.idle"
	ip netns exec bcc-a python3 "$SMARTT_TOP/selftests/smartt_cc_tool.py" client \
		198.18.0.2 5301 --cc bpf_smartt --bytes 4000000 --idle 1 --hold "$FLOW_MAX" \
		--ready "$tmp/ready.idle" >"$tmp/cli.idle" 2>&1 &
	flow_pid=$!
	for i in $(seq 1 600); do [ -e "$tmp/ready.idle" ] && break; sleep 0.1; done
	"$CCB" flows --json -n bcc-a >"$tmp/flows.idle.$ssai"
	flow_stop
	idles=$(flow_get idle.$ssai bpf_smartt "f['idles']")
	echo "# tcp_slow_start_after_idle=$ssai: $(cat "$tmp/cli.idle"), idles ${idles:-?}"
	check "bpf_smartt silent for 1 s with tcp_slow_start_after_idle=$ssai: $((ssai)) idle restart(s)" \
		test "${idles:-x}" = "$ssai"
done
ip netns exec bcc-a sysctl -qw net.ipv4.tcp_slow_start_after_idle="$ssai0"
kill "$srv" 2>/dev/null

# --- 3. CE marks, and 4. transfers through an emulated switch port ---
fabric_up --hosts 2 --rate "$RATE" --delay 0 --buffer 2000000 --kmin 100000 --kmax 300000 --mtu 1500
dst=$(host_field h1 ipv4)
h0ns=$(host_field h0 ns)
sf exec h1 -- iperf3 -s -D -B "$dst" >/dev/null
for ns in "$h0ns" "$(host_field h1 ns)"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1
done
sleep 0.5
bits=$(rate_bits "$RATE")
# A held queue in the middle of the RED curve marks half of the packets.
sf set l0:h1 standing=200000
flow_start ce.smartt "$h0ns" "$dst" -C bpf_smartt
check "bpf_smartt: CE echoes reach the core, which reacts (MD or no-op)" \
	flow_wait ce.smartt "$h0ns" bpf_smartt "f['ce_acks'] > 0 and ('md=' in f['rules'] or 'noop=' in f['rules'])"
flow_stop
echo "# bpf_smartt: $(flow_get ce.smartt bpf_smartt "f['ce_acks'], f['rules']")"
flow_start ce.strack "$h0ns" "$dst" -C bpf_strack
check "bpf_strack: CE echoes reach the core, which decreases" \
	flow_wait ce.strack "$h0ns" bpf_strack "f['ce_acks'] > 0 and 'md=' in f['rules']"
flow_stop
echo "# bpf_strack: $(flow_get ce.strack bpf_strack "f['ce_acks'], f['rules']")"
# alpha after 30 observation windows against the fraction marked so far
flow_start ce.dctcp "$h0ns" "$dst" -C bpf_dctcp
flow_wait ce.dctcp "$h0ns" bpf_dctcp "f['dctcp_windows'] >= 30" >/dev/null
flow_stop
echo "# bpf_dctcp: $(flow_get ce.dctcp bpf_dctcp "'alpha', round(f['dctcp_alpha'], 3), 'marked fraction', round(f['delivered_ce'] / f['delivered'], 3), 'windows', f['dctcp_windows']")"
check "bpf_dctcp: alpha converges to the marked fraction" python3 -c "
import json; f = [f for f in json.load(open('$tmp/flows.ce.dctcp')) if f['cc'] == 'bpf_dctcp'][0]
frac = f['delivered_ce'] / max(f['delivered'], 1)
print('alpha', f['dctcp_alpha'], 'marked fraction', round(frac, 3), 'windows', f['dctcp_windows'])
assert f['dctcp_windows'] >= 30 and abs(f['dctcp_alpha'] - frac) < 0.15"
sf set l0:h1 standing=0

# The papers' target queueing delays are for 12 us fabrics, below the
# jitter of an emulated one: as a user would, make the target the port's
# ECN threshold (Kmin) at its rate.
target_ns=$((100000 * 8 * 1000000000 / bits))
check "configure bpf_smartt/bpf_strack for the fabric" "$CCB" set bpf_smartt \
	tcp_smartt_knobs="trtt_abs=1 target_qdelay=$target_ns" \
	tcp_strack_knobs="target_qdelay=$target_ns"
for cc in $CCS cubic; do
	sf exec h0 -- iperf3 -c "$dst" -t "$SECS" -C "$cc" -J >"$tmp/port.$cc" 2>&1
	gp=$(python3 -c "import json; print(int(json.load(open('$tmp/port.$cc'))['end']['sum_received']['bits_per_second']))" 2>/dev/null)
	echo "# $cc through a $RATE port: ${gp:-?} bit/s"
	# a working transfer; how fast each is, is make bench-bpf-cc's
	check "$cc through a $RATE port moves data (at least a fifth of the rate)" \
		within "${gp:-0}" "$((bits / 5))" "$((bits * 11 / 10))"
done


# --- 5. knobs ---
gen() { "$CCB" status | sed -n 's/.*generation \([0-9]*\)).*/\1/p'; }
g0=$(gen)
expect_exit() { # RC COMMAND...
	local rc=$1 got
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" = "$rc" ] || { echo "exit $got, not $rc: $(cat "$tmp/err")"; return 1; }
	[ "$rc" = 0 ] || [ "$(wc -l <"$tmp/err")" = 1 ] || { echo "not one line: $(cat "$tmp/err")"; return 1; }
}
check "set tcp_start=2 is refused (exit 1, one line)" expect_exit 1 "$CCB" set bpf_smartt tcp_start=2
check "set tcp_link_mbps=abc is refused" expect_exit 1 "$CCB" set bpf_smartt tcp_link_mbps=abc
check "set tcp_link_mbps=10000001 (over 10 Tb/s) is refused" expect_exit 1 "$CCB" set bpf_smartt tcp_link_mbps=10000001
check "set tcp_smartt_knobs=fi=0.1234567 is refused" expect_exit 1 "$CCB" set bpf_smartt tcp_smartt_knobs=fi=0.1234567
check "set tcp_smartt_knobs longer than 255 characters is refused" expect_exit 1 "$CCB" set bpf_smartt "tcp_smartt_knobs=$(printf 'fi=1 %.0s' $(seq 60))"
check "set tcp_smartt_profile=bogus is refused" expect_exit 1 "$CCB" set bpf_smartt tcp_smartt_profile=bogus
check "set tcp_host_target_us=1000001 (over 1 s) is refused" expect_exit 1 "$CCB" set bpf_smartt tcp_host_target_us=1000001
check "set tcp_host_target_us=-1 is refused" expect_exit 1 "$CCB" set bpf_smartt tcp_host_target_us=-1
check "set dctcp_shift_g=11 is refused" expect_exit 1 "$CCB" set bpf_dctcp dctcp_shift_g=11
check "a good and a bad value together change nothing" expect_exit 1 "$CCB" set bpf_smartt tcp_link_mbps=1000 tcp_min_cwnd=0
check "an unknown knob is a usage error (exit 2)" expect_exit 2 "$CCB" set bpf_smartt nosuch=1
check "an unknown congestion control is a usage error (exit 2)" expect_exit 2 "$CCB" set bpf_nosuch tcp_mss=1448
check "refused values left the configuration alone" test "$(gen)" = "$g0"
check "set applies good values" expect_exit 0 "$CCB" set bpf_smartt tcp_link_mbps=1000 net.smartt.tcp_base_rtt_us=100 smartt_profile=nscc "tcp_smartt_knobs=fi=2 eta=0.5"
check "status shows them, one generation later" bash -c "'$CCB' status | grep -q 'tcp_link_mbps = 1000' && '$CCB' status | grep -q 'tcp_smartt_profile = nscc' && [ \$('$CCB' status | sed -n 's/.*generation \([0-9]*\)).*/\1/p') = $((g0 + 1)) ]"
check "a flow runs with the new configuration" bash -c "ip netns exec bcc-a iperf3 -c 198.18.0.2 -t 1 -C bpf_smartt >/dev/null"
check "non-root gets one line and exit 1" expect_exit 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$CCB" status
grep -q CAP_BPF "$tmp/err" || ktap_result FAIL "the non-root message names CAP_BPF" "$(cat "$tmp/err")"

# --- 6. unload while a flow runs ---
flow_start unload bcc-a 198.18.0.2 -C bpf_smartt
flow_wait unload bcc-a bpf_smartt True >/dev/null
acks0=$(flow_get unload bpf_smartt "f['acks']")
check "unload bpf_smartt while a flow runs" expect_exit 0 "$CCB" unload bpf_smartt
check "it is no longer available" bash -c "! grep -qw bpf_smartt /proc/sys/net/ipv4/tcp_available_congestion_control"
check "new connections cannot select it" bash -c "! ip netns exec bcc-a iperf3 -c 198.18.0.2 -t 1 -C bpf_smartt >/dev/null 2>&1"
check "the running flow goes on with it (more ACKs through its core)" \
	flow_wait unload bcc-a bpf_smartt "f['acks'] > $acks0"
flow_stop
check "load after unload works" expect_exit 0 "$CCB" load bpf_smartt

# --- 7. unload everything ---
check "unload removes every pin" bash -c "'$CCB' unload >/dev/null && [ ! -e /sys/fs/bpf/smartt ] && ! grep -q bpf_ /proc/sys/net/ipv4/tcp_available_congestion_control"
ktap_exit
