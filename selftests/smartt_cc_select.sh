#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The TCP congestion controls smartt and strack: registration, selection by
# sysctl (autoloading smartt.ko after rmmod), setsockopt(TCP_CONGESTION),
# ip route congctl and iperf3 -C, over IPv4 and IPv6; ECN negotiated (both
# ends smartt) and not (peer without ECN: the Reno fallback smartt-reno, in
# ss); validation of net.smartt.tcp_*; unload refused while a socket uses
# the algorithm and allowed once it is closed.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/cc_lib.sh"

require_root
require_cmd modprobe ip tc ss python3

unload() { module_unload smartt; }
loaded() { [ -e /sys/module/smartt ]; }

check "module unloaded at start" unload
cc_pair || skip_all "cannot build the namespace pair"

# --- sysctl autoload ---
# A netns other than the initial one may only make a non-restricted
# algorithm its default (tcp_set_default_congestion_control()), and both are
# restricted like dctcp and bbr, so the default is set in the initial netns
# (and restored); new namespaces inherit it.
orig_cc=$(sysctl -n net.ipv4.tcp_congestion_control)
restore_cc() { sysctl -qw net.ipv4.tcp_congestion_control="$orig_cc"; }
check "sysctl net.ipv4.tcp_congestion_control=smartt autoloads smartt.ko" \
	sysctl -qw net.ipv4.tcp_congestion_control=smartt
check "module is loaded" loaded
check "default is smartt" test "$(sysctl -n net.ipv4.tcp_congestion_control)" = smartt
# (Not checked: a non-initial netns making smartt its default gets EPERM,
# but Debian's 6.1 leaks a module reference on that path -- it takes the
# reference before the check -- and smartt.ko could never be unloaded.)
avail=$(sysctl -n net.ipv4.tcp_available_congestion_control)
check "smartt is available ($avail)" grep -qw smartt <<<"$avail"
check "strack is available" grep -qw strack <<<"$avail"

# The receivers run dctcp (a separate module): a listener negotiates ECN
# only if its congestion control needs it, and without ECN smartt and
# strack run their Reno fallbacks (checked at the end).
cc_server "$CC_B" 198.18.0.2 5001 --cc dctcp || skip_all "server did not start (dctcp)"
cc_server "$CC_B" 2001:2::2 5002 --cc dctcp || skip_all "v6 server did not start"

# A namespace created now inherits the default; a socket that sets nothing
# runs it.
CC_C=ccc$$
netns_add "$CC_C"
check "a new netns inherits smartt as its default" \
	test "$(ip netns exec "$CC_C" sysctl -n net.ipv4.tcp_congestion_control)" = smartt
ip netns del "$CC_C"
restore_cc
check "module stays loaded after the default is restored" loaded

# --- setsockopt autoload ---
unload
check "module unloaded before setsockopt" test ! -e /sys/module/smartt
out=$(cc_client "$CC_A" 198.18.0.2 5001 --cc strack --bytes 300000)
check "setsockopt(TCP_CONGESTION, strack) autoloads, IPv4 ($out)" grep -q "^cc=strack " <<<"$out"
out=$(cc_client "$CC_A" 2001:2::2 5002 --cc smartt --bytes 300000)
check "setsockopt(TCP_CONGESTION, smartt), IPv6 ($out)" grep -q "^cc=smartt " <<<"$out"
out=$(cc_client "$CC_A" 2001:2::2 5002 --cc strack --bytes 300000)
check "setsockopt(TCP_CONGESTION, strack), IPv6 ($out)" grep -q "^cc=strack " <<<"$out"
# a non-root user may not select them (restricted; the module was loaded
# by setsockopt, so no sysctl made smartt the default, which would allow it)
check "both are restricted (not in tcp_allowed_congestion_control)" \
	sh -c "! sysctl -n net.ipv4.tcp_allowed_congestion_control | grep -qw -e smartt -e strack"
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	check "unprivileged setsockopt(smartt) is refused" sh -c \
		"! ip netns exec $CC_A setpriv --reuid=nobody --regid=nogroup --clear-groups \
		python3 $CC_TOOL client 198.18.0.2 5001 --cc smartt --bytes 1000"
fi

# --- ip route congctl autoload ---
unload
check "module unloaded before the route" test ! -e /sys/module/smartt
check "ip route ... congctl strack autoloads" \
	ip -n "$CC_A" route add 198.18.9.0/24 dev va congctl strack
check "module is loaded by the route" loaded
ip -n "$CC_B" addr add 198.18.9.2/24 dev vb
cc_server "$CC_B" 198.18.9.2 5003 --cc dctcp
out=$(cc_client "$CC_A" 198.18.9.2 5003 --bytes 300000)
check "flow over the congctl route runs strack ($out)" grep -q "^cc=strack " <<<"$out"
check "ip -6 route ... congctl smartt" \
	ip -n "$CC_A" -6 route add 2001:2:0:9::/64 dev va congctl smartt
ip -n "$CC_B" addr add 2001:2:0:9::2/64 dev vb nodad
cc_server "$CC_B" 2001:2:0:9::2 5004 --cc dctcp
out=$(cc_client "$CC_A" 2001:2:0:9::2 5004 --bytes 300000)
check "IPv6 flow over the congctl route runs smartt ($out)" grep -q "^cc=smartt " <<<"$out"

# --- iperf3 -C ---
if command -v iperf3 >/dev/null; then
	unload
	# iperf3 -C selects the algorithm after connect(): the SYN asks for
	# ECN with tcp_ecn=1
	ip netns exec "$CC_A" sysctl -qw net.ipv4.tcp_ecn=1
	ip netns exec "$CC_B" iperf3 -s -1 -p 5201 -B 198.18.0.2 >/dev/null 2>&1 &
	__cc_pids+=($!)
	sleep 1
	out=$(ip netns exec "$CC_A" iperf3 -c 198.18.0.2 -p 5201 -t 2 -C smartt -J 2>&1)
	check "iperf3 -C smartt autoloads and runs smartt" \
		grep -q '"sender_tcp_congestion":[[:space:]]*"smartt"' <<<"$out"
	ip netns exec "$CC_B" iperf3 -s -1 -p 5202 -B 2001:2::2 >/dev/null 2>&1 &
	__cc_pids+=($!)
	sleep 1
	out=$(ip netns exec "$CC_A" iperf3 -6 -c 2001:2::2 -p 5202 -t 2 -C strack -J 2>&1)
	check "iperf3 -6 -C strack runs strack" \
		grep -q '"sender_tcp_congestion":[[:space:]]*"strack"' <<<"$out"
	ip netns exec "$CC_A" sysctl -qw net.ipv4.tcp_ecn=2
else
	ktap_result SKIP "iperf3 -C" "no iperf3"
fi

# --- ECN negotiated or not, seen through ss -ti ---
lacks() { ! grep -qE "$1" <<<"$2"; }	# lacks ERE TEXT
ss_of() { # ss_of DPORT: ss -tin line(s) of the sender's connection
	ip netns exec "$CC_A" ss -tin "dport = :$1"
}
# both ends run smartt (the receiver's listener selects it): ECN negotiated.
# The SYN of a TCP_CONG_NEEDS_ECN sender is ECT, and a receiver whose
# congestion control does not need ECN refuses ECN for such a SYN, so only
# an ECN-aware receiver (smartt, strack, dctcp) negotiates it.
cc_server "$CC_B" 198.18.0.2 5005 --cc smartt
# The clients hold their sockets open until killed (release), and are
# waited for without a short limit: on a slow kernel (the debug kernel
# under TCG) a fixed hold ended the connection before ss looked.
cc_client "$CC_A" 198.18.0.2 5005 --cc smartt --bytes 200000 --hold 600 --ready "$CC_TMP/r1" >"$CC_TMP/c1" 2>"$CC_TMP/c1.err" &
hold=$!
check "the client sent 200000 B and holds its connection (IPv4)" ready "$CC_TMP/r1"

# --- unload while a socket uses it ---
check "refcount > 0 while smartt sockets exist" \
	test "$(cat /sys/module/smartt/refcnt)" -gt 0
check "modprobe -r smartt is refused while in use" sh -c "! modprobe -r smartt 2>/dev/null"
check "module still live" loaded

s=$(ss_of 5005)
echo "$s" | sed 's/^/# ss: /'
# ss -i reads the algorithm from tcp_diag; without it ss falls back to
# /proc/net/tcp, which has none (rto, cwnd and little else).
ss_cc() { # ss_cc NAME TEXT [CC]: the check NAME, that ss shows CC (smartt) in TEXT
	if modprobe -q tcp_diag 2>/dev/null; then
		check "$1" grep -qw -- "${3:-smartt}" <<<"$2"
	else
		ktap_result SKIP "$1" "no tcp_diag in this kernel (CONFIG_INET_TCP_DIAG): ss read /proc/net/tcp, which names no algorithm"
	fi
}
ss_cc "ss -ti shows the algorithm" "$s"
check "ECN negotiated (the client's TCPI_OPT_ECN)" grep -q "ecn=1" "$CC_TMP/c1"
check "ss -ti shows no other algorithm's label (no dctcp:, bbr:, vegas:)" \
	lacks '(dctcp|bbr|vegas):' "$s"
release $hold

# peer without ECN: cubic and tcp_ecn=0 on the receiver
ip netns exec "$CC_B" sysctl -qw net.ipv4.tcp_ecn=0
cc_server "$CC_B" 2001:2::2 5006 --cc cubic
cc_client "$CC_A" 2001:2::2 5006 --cc smartt --bytes 200000 --hold 600 --ready "$CC_TMP/r2" >"$CC_TMP/c2" 2>"$CC_TMP/c2.err" &
hold=$!
check "the client sent 200000 B and holds its connection (IPv6)" ready "$CC_TMP/r2"
s=$(ss_of 5006)
echo "$s" | sed 's/^/# ss: /'
check "ECN not negotiated (IPv6): the client's TCPI_OPT_ECN is off" grep -q "ecn=0" "$CC_TMP/c2"
check "ECN not negotiated: the client runs smartt-reno" grep -q "^cc=smartt-reno " "$CC_TMP/c2"
ss_cc "ECN not negotiated: ss -ti shows smartt-reno" "$s" smartt-reno
release $hold
cc_kill_all
check "unload succeeds once the sockets are closed" unload

# --- validation of net.smartt.tcp_* ---
modprobe smartt
bad() { ! sysctl -qw "$1" 2>/dev/null; }
check "tcp_start=2 is rejected" bad net.smartt.tcp_start=2
check "tcp_smartt_profile=bogus is rejected" bad net.smartt.tcp_smartt_profile=bogus
check "tcp_network_rtt_us=0 is rejected" bad net.smartt.tcp_network_rtt_us=0
check "tcp_mss=10 is rejected" bad net.smartt.tcp_mss=10
check "tcp_smartt_knobs='trtt=0.5' is rejected" bad "net.smartt.tcp_smartt_knobs=trtt=0.5"
check "tcp_smartt_knobs='nosuch=1' is rejected" bad "net.smartt.tcp_smartt_knobs=nosuch=1"
check "tcp_strack_knobs='gamma=2' is rejected" bad "net.smartt.tcp_strack_knobs=gamma=2"
check "tcp_min_cwnd=0 is rejected" bad net.smartt.tcp_min_cwnd=0
check "tcp_min_cwnd=1025 is rejected" bad net.smartt.tcp_min_cwnd=1025
check "tcp_min_cwnd is 2 by default" test "$(sysctl -n net.smartt.tcp_min_cwnd)" = 2
check "tcp_strack_loss=2 is rejected" bad net.smartt.tcp_strack_loss=2
check "tcp_strack_loss is 1 by default" test "$(sysctl -n net.smartt.tcp_strack_loss)" = 1
check "tcp_strack_loss=0 accepted" sysctl -qw net.smartt.tcp_strack_loss=0
check "tcp_host_target_us=1000001 is rejected" bad net.smartt.tcp_host_target_us=1000001
check "tcp_host_target_us is 50 by default" test "$(sysctl -n net.smartt.tcp_host_target_us)" = 50
check "tcp_host_target_us=0 and 1000000 accepted" \
	sysctl -qw net.smartt.tcp_host_target_us=0 net.smartt.tcp_host_target_us=1000000
check "values unchanged after rejections" \
	test "$(sysctl -n net.smartt.tcp_start) $(sysctl -n net.smartt.tcp_smartt_profile)" = "0 smartt"
check "tcp_smartt_profile=nscc accepted" sysctl -qw net.smartt.tcp_smartt_profile=nscc
check "tcp_smartt_knobs='trtt=2 fi=0.5' accepted" sysctl -qw "net.smartt.tcp_smartt_knobs=trtt=2 fi=0.5"
check "tcp_link_mbps=20 tcp_start=1 accepted" \
	sysctl -qw net.smartt.tcp_link_mbps=20 net.smartt.tcp_start=1
check "tcp_min_cwnd=1 and 1024 accepted" \
	sysctl -qw net.smartt.tcp_min_cwnd=1024 net.smartt.tcp_min_cwnd=1
check "per-netns: a new netns has the defaults" \
	test "$(ip netns exec "$CC_A" sysctl -n net.smartt.tcp_smartt_profile)" = smartt
sysctl -qw net.smartt.tcp_smartt_profile=smartt net.smartt.tcp_smartt_knobs= \
	net.smartt.tcp_link_mbps=0 net.smartt.tcp_start=0 net.smartt.tcp_min_cwnd=2 \
	net.smartt.tcp_strack_loss=1 net.smartt.tcp_host_target_us=50

ktap_exit
