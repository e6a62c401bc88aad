#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the smartt-fabric selftests (source it after lib.sh).
# Every fabric brought up through fabric_up is torn down on exit, also on
# failure or interruption.

SMARTT_TOP=${SMARTT_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SF=$SMARTT_TOP/userspace/smartt-fabric
PKTGEN=$SMARTT_TOP/userspace/smartt_fabric/pktgen.py
SF_NAME=${SF_NAME:-t$$}
SF_NAME=${SF_NAME:0:8}
export SMARTT_FABRIC_NAME=$SF_NAME
__sf_tmp=$(mktemp -d /tmp/smartt-fabric-test.XXXXXX)

fabric_cleanup() {
	local pids
	pids=$(jobs -p)
	[ -n "$pids" ] && kill $pids 2>/dev/null
	wait 2>/dev/null
	"$SF" down >/dev/null 2>&1
	rm -rf "$__sf_tmp"
	if declare -F netns_cleanup >/dev/null; then netns_cleanup; fi
}
trap fabric_cleanup EXIT
trap 'exit 1' INT TERM

fabric_require() {
	require_root
	require_cmd ip tc ethtool python3 bpftool
	[ -x "$SMARTT_TOP/build/bpf/smartt-fabric-bpf" ] ||
		skip_all "build/bpf/smartt-fabric-bpf missing (make -C bpf)"
	[ -e /sys/kernel/btf/vmlinux ] || skip_all "kernel without BTF"
}

# fabric_up ARGS...: smartt-fabric up, or fail the whole test.
fabric_up() {
	local out
	if ! out=$("$SF" up "$@" 2>&1); then
		echo "# smartt-fabric up $* failed:"
		printf '# | %s\n' "${out//$'\n'/$'\n# | '}"
		ktap_result FAIL "fabric up"
		ktap_exit
	fi
	printf '# %s\n' "${out//$'\n'/$'\n# '}"
	# Cache the "host netns dev ipv4 ipv6 mac gw_mac" table: python
	# start-up is slow under TCG, host_field is called often.
	"$SF" hosts >"$__sf_tmp/hosts"
}

sf() { "$SF" "$@"; }

# The backend the fabric got (fq or htb).
fabric_backend() { "$SF" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["backend"])'; }

# host_field HOST FIELD: ns, dev, ipv4, ipv6, mac, gw_mac (of the last fabric_up)
host_field() {
	local col
	case $2 in
	ns) col=2 ;; dev) col=3 ;; ipv4) col=4 ;; ipv6) col=5 ;; mac) col=6 ;; gw_mac) col=7 ;;
	*) echo "host_field: unknown field $2" >&2; return 1 ;;
	esac
	awk -v h="$1" -v c=$col '$1 == h { print $c }' "$__sf_tmp/hosts"
}

# port_stat PORT FIELD
port_stat() {
	"$SF" status --json "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['ports'][0]['$2'])"
}

# recv_start HOST ADDR OUTFILE [ARGS...]: background receiver, waits until bound.
recv_start() {
	local host=$1 addr=$2 out=$3 ready=$__sf_tmp/ready.$RANDOM i
	shift 3
	# The first packet can take long under TCG (the sender's start-up).
	"$SF" exec "$host" python3 "$PKTGEN" recv --bind "$addr" --ready "$ready" \
		--start-timeout "${SF_RECV_START_TIMEOUT:-60}" "$@" >"$out" &
	for i in $(seq 600); do
		[ -e "$ready" ] && return 0
		sleep 0.05
	done
	echo "# receiver on $host did not start"
	return 1
}

# send_from HOST DSTADDR ARGS...: pktgen send from HOST to DSTADDR.
send_from() {
	local host=$1 dst=$2 src
	shift 2
	if [[ $dst == *:* ]]; then src=$(host_field "$host" ipv6); else src=$(host_field "$host" ipv4); fi
	"$SF" exec "$host" python3 "$PKTGEN" send --dev eth0 \
		--dmac "$(host_field "$host" gw_mac)" --src "$src" --dst "$dst" "$@"
}

# json_get FILE EXPR: evaluate a python expression on the JSON in FILE (as d).
json_get() {
	python3 -c "import json,sys; d=json.load(open('$1')); print($2)"
}

# within VALUE LOW HIGH (floats)
within() {
	python3 -c "import sys; v,l,h=map(float,sys.argv[1:]); sys.exit(0 if l<=v<=h else 1)" "$@"
}

# rx_bytes NODE DEV: interface receive byte counter inside a fabric node.
rx_bytes() { ip netns exec "sf-$SF_NAME-$1" cat "/sys/class/net/$2/statistics/rx_bytes"; }

# measure_rate NODE DEV WARMUP_S WINDOW_S: bit/s received on DEV over
# WINDOW_S, starting WARMUP_S after traffic starts arriving (waits up to 60 s
# for it: senders start slowly under TCG).  Sampled inside the namespace.
measure_rate() {
	ip netns exec "sf-$SF_NAME-$1" python3 -c '
import sys, time
dev, warm, win = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
f = "/sys/class/net/%s/statistics/rx_bytes" % dev
rd = lambda: int(open(f).read())
b = rd(); t = time.monotonic()
while rd() - b < 20000 and time.monotonic() - t < 60:
    time.sleep(0.01)
time.sleep(warm)
b0, t0 = rd(), time.monotonic()
time.sleep(win)
b1, t1 = rd(), time.monotonic()
print(int((b1 - b0) * 8 / (t1 - t0)))' "$2" "$3" "$4"
}

# wait_drained PORT: until the port's queue is empty (at most 60 s).
wait_drained() {
	local i
	for i in $(seq 120); do
		[ "$(port_stat "$1" queue_bytes)" = 0 ] && return 0
		sleep 0.5
	done
	return 1
}
