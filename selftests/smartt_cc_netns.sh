#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A network namespace torn down under kernel TCP sockets that run smartt.
#
# Kernel sockets (sock_create_kern(): NFS, SMB, iSCSI, RDS) do not hold a
# reference on their namespace, so the namespace's exit runs while they
# live, and the pernet exits of modules loaded later run first: smartt's
# per-namespace configuration is gone (freed after an RCU grace period)
# while those sockets' timers and teardown still call the congestion
# control, which then reads the static fallback configuration
# (kernel/cc/cc_glue.c).  RDS over TCP makes such sockets from user space:
# rds_tcp listens in every namespace and connects on the first RDS
# datagram, with the namespace's default congestion control.
#
#  1. rds_tcp is loaded before smartt (so smartt's pernet exit runs
#     first), the namespaces' default congestion control is smartt;
#  2. an RDS datagram from A to B: rds_tcp's kernel connection (port
#     16385) runs smartt;
#  3. A's link drops everything and A sends more, so the kernel socket has
#     data in flight and its retransmission timer armed; the user sockets
#     are closed and both namespaces deleted;
#  4. the namespaces' exits finish (smartt's reference count returns to
#     what it was once the closed sockets' orphans have given up on the
#     dead link, within 2 minutes; smartt.ko unloads), and the guest
#     kernel logged no warning, oops or KASAN/lockdep report (run_guest.sh
#     scans dmesg after the suite).  A debug kernel (KASAN, lockdep) makes
#     the last check a use-after-free detector; Debian's kernels only
#     catch crashes and warnings.
# `make check` shares the long tests between its two plain guests
# (SMARTT_SELFTESTS_FULL=1 runs this one on both); this one runs on
# kernels: 6.12
source "$(dirname "$0")/lib.sh"

require_root
require_cmd modprobe ip tc ss python3

RDS_PY='
import socket, sys, time
AF_RDS, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP = 21, 276, 8, 2
src, dst, n, hold = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
s = socket.socket(AF_RDS, socket.SOCK_SEQPACKET, 0)
s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP)
s.bind((src, 4000))
for i in range(n):
    try:
        s.sendto(b"x" * 1024, (dst, 4000))
    except OSError as e:
        print("sendto: %s" % e, flush=True)
        break
print("sent", flush=True)
time.sleep(hold)
'
RDS_RECV_PY='
import socket, sys
AF_RDS, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP = 21, 276, 8, 2
s = socket.socket(AF_RDS, socket.SOCK_SEQPACKET, 0)
s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP)
s.bind((sys.argv[1], 4000))
open(sys.argv[2], "w").close()
while True:
    s.recv(65536)
'

refcnt() { cat /sys/module/smartt/refcnt 2>/dev/null || echo 0; }
unload() { module_unload smartt 60; }
A=smartt-nsa-$$
B=smartt-nsb-$$
tmp=$(mktemp -d)
orig_cc=$(sysctl -n net.ipv4.tcp_congestion_control)
tr=/sys/kernel/tracing
tri=$tr/instances/smartt-netns-$$
trace_end() { # disable the instance's event (it holds the module) and drop it
	[ -d "$tri" ] || return 0
	echo 0 >"$tri/events/enable" 2>/dev/null
	rmdir "$tri" 2>/dev/null
}
cleanup() {
	trace_end
	pkill -f "smartt-rds-$$" 2>/dev/null
	sysctl -qw net.ipv4.tcp_congestion_control="$orig_cc" 2>/dev/null
	netns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

modprobe -r smartt 2>/dev/null
[ -e /sys/module/smartt ] && skip_all "smartt.ko is in use: the test needs to load it after rds_tcp"
rds_err=$(modprobe rds_tcp 2>&1) ||
	skip_all "cannot load rds_tcp (CONFIG_RDS_TCP): ${rds_err:-modprobe failed}"
check "rds_tcp, then smartt, loaded (smartt's pernet exit runs first)" modprobe smartt
ref0=$(refcnt)
check "default congestion control smartt" \
	sysctl -qw net.ipv4.tcp_congestion_control=smartt
veth_pair "$A" "$B" || skip_all "cannot build the namespace pair"
check "the namespaces inherit smartt" \
	test "$(ip netns exec "$A" sysctl -n net.ipv4.tcp_congestion_control)" = smartt
# the pair may use smartt, nothing else needs it: back to the original
sysctl -qw net.ipv4.tcp_congestion_control="$orig_cc"

ip netns exec "$B" python3 -c "$RDS_RECV_PY" 198.18.0.2 "$tmp/ready" "smartt-rds-$$" &
for i in $(seq 1 100); do [ -e "$tmp/ready" ] && break; sleep 0.1; done
# ss -i names the algorithm through tcp_diag.  A kernel without it (ss then
# reads /proc/net/tcp, which names none) shows it through the tracepoint
# smartt:smartt_cc, which only smartt's and strack's hooks fire.
if modprobe -q tcp_diag 2>/dev/null; then
	conn() { ip netns exec "$A" ss -tin "dport = :16385 or sport = :16385" | grep -w smartt; }
else
	[ -d "$tr/events" ] || mount -t tracefs nodev "$tr" 2>/dev/null
	if mkdir -p "$tri" 2>/dev/null &&
		echo 1 >"$tri/events/smartt/smartt_cc/enable" 2>/dev/null; then
		echo "# no tcp_diag: the algorithm is read from the tracepoint smartt:smartt_cc"
		conn() { grep -E "smartt_cc: smartt .*(sport|dport)=16385 " "$tri/trace" | head -3; }
	else
		conn() {
			echo "no tcp_diag (CONFIG_INET_TCP_DIAG) and no tracepoint smartt:smartt_cc: the kernel socket's algorithm cannot be seen"
			return "$ksft_skip"
		}
	fi
fi
sent() {
	ip netns exec "$A" timeout 60 python3 -c "$RDS_PY" 198.18.0.1 198.18.0.2 "$1" 0 \
		"smartt-rds-$$" >"$tmp/send" 2>&1
	grep -q sent "$tmp/send"
}
check "RDS datagrams from A to B" sent 20
for i in $(seq 1 50); do conn >/dev/null && break; sleep 0.2; done
ip netns exec "$A" ss -tin "dport = :16385 or sport = :16385" | sed 's/^/# ss: /'
check "rds_tcp's kernel connection runs smartt" conn
trace_end

# data in flight on a dead link: the retransmission timer is armed
tc -n "$A" qdisc add dev veth-a root handle 1: prio &&
	tc -n "$A" filter add dev veth-a parent 1: protocol all prio 1 matchall action drop
ip netns exec "$A" timeout 30 python3 -c "$RDS_PY" 198.18.0.1 198.18.0.2 50 0 \
	"smartt-rds-$$" >/dev/null 2>&1
sleep 1
ip netns exec "$A" ss -tino "dport = :16385 or sport = :16385" | sed 's/^/# dead link: /'
check "the kernel socket has unacknowledged data on the dead link" \
	bash -c "ip netns exec '$A' ss -tino 'dport = :16385 or sport = :16385' | grep -q 'timer:(on'"
check "smartt is referenced by the kernel sockets (refcnt $(refcnt) > $ref0)" \
	test "$(refcnt)" -gt "$ref0"

# Closed, rds_tcp's sockets become orphans that retransmit their FIN on
# the dead link, and its reconnection attempts SYNs: few retries, so that
# they end in seconds, not minutes.
for ns in "$A" "$B"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_orphan_retries=1 \
		net.ipv4.tcp_syn_retries=1 net.ipv4.tcp_retries2=3
done
pkill -f "smartt-rds-$$"
wait 2>/dev/null
check "both namespaces deleted with the kernel sockets alive" netns_cleanup
gone() { # every reference the namespaces' sockets held is released
	local i
	for i in $(seq 1 240); do
		[ "$(refcnt)" -le "$ref0" ] && return 0
		sleep 0.5
	done
	echo "# smartt refcnt still $(refcnt)"
	return 1
}
check "the namespaces' exits closed the kernel sockets (smartt refcnt back to $ref0)" gone
check "smartt.ko unloads" unload
modprobe -r rds_tcp 2>/dev/null
ktap_exit
