#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport's input filter, attacked from a second netns host on a
# veth with DATA packets from a plain UDP socket (smartt_input_test):
# DATA to the IPv4 subnet broadcast, to ff02::1, and to a broadcast address
# in a frame addressed to the host alone creates no peer and gets no
# answer (drop_not_unicast counts it), where the same DATA sent unicast is
# answered; a flood of DATA to a closed port gets no more error packets
# than net.smartt.transport_err_ratelimit allows to its source
# (tx_errors_ratelimited counts the rest), and every one without a limit,
# while other sources are still answered; the sysctl's
# validation; the wire format's knobs (job id, DSCP classes) and DATA of
# another job; recvmsg(MSG_CMSG_CLOEXEC); compat sendmsg()/recvmsg() from
# a 32-bit program.  Replies are counted by the
# attacker's socket and by the victim's counters.  The runner checks dmesg.
source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip modprobe awk

bin=$SMARTT_TOP/build/selftests/smartt_input_test
[ -x "$bin" ] || skip_all "no $bin (make -C selftests)"
modprobe smartt || skip_all "cannot load smartt"

# Diagnostics go to the log even when check captures a command's output.
exec 3>&1

a=smartt-in-a-$$
b=smartt-in-b-$$
hold=()

setup() {
	veth_pair "$a" "$b" || return 1
	# A second subnet on b whose broadcast a reaches through b's MAC: the
	# frame is for b alone (PACKET_HOST), the address is a broadcast one.
	ip -n "$b" addr add 198.18.1.2/24 brd + dev veth-b &&
	ip -n "$a" route add 198.18.1.0/24 via 198.18.0.2 || return 1
	# other sources on a, for the per-source rate limit
	ip -n "$a" addr add 198.18.0.3/24 dev veth-a &&
	ip -n "$a" addr add 198.18.0.4/24 dev veth-a &&
	ip -n "$a" addr add 198.18.0.5/24 dev veth-a || return 1
	# b's sockets: 1700 (IPv4) and 1701 (IPv6); 1799 stays closed.
	local fam port out
	for fam in 4 6; do
		port=$((1700 + (fam == 6)))
		out=$(mktemp)
		ip netns exec "$b" "$bin" bind "$fam" "$port" 600 >"$out" 2>&1 &
		hold+=($!)
		wait_output "$out" bound || { cat "$out"; rm -f "$out"; return 1; }
		rm -f "$out"
	done
	# IPv6 neighbours resolved before the first measurement.
	ip netns exec "$a" ping -6 -c1 -W2 2001:2::2 >/dev/null 2>&1
	ip netns exec "$a" ping -c1 -W2 198.18.0.2 >/dev/null 2>&1
	return 0
}
cleanup() {
	local p
	for p in "${hold[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	netns_cleanup
}
trap cleanup EXIT

setup_ok=true
setup >/dev/null 2>&1 || setup_ok=false
check "two netns hosts on a veth, b bound to transport ports 1700 (IPv4) and 1701 (IPv6)" $setup_ok
$setup_ok || ktap_exit

stat() { # stat NETNS NAME
	ip netns exec "$1" awk -v n="$2" '$1 == n { print $2 }' /proc/net/smartt_stats
}
peers() { # peers NETNS: lines of /proc/net/smartt_peers
	ip netns exec "$1" cat /proc/net/smartt_peers | wc -l
}
sysctl_rl=/proc/sys/net/smartt/transport_err_ratelimit
set_rl() { # set_rl NETNS VALUE
	ip netns exec "$1" sh -c "echo $2 > $sysctl_rl" 2>/dev/null
}

# Output of the last attack: "sent S replies R ms T".
sent=0 replies=0 took=0
attack() { # attack FAM SRC DST DPORT N WAIT_MS
	local out
	out=$(ip netns exec "$a" "$bin" data "$@") || { echo "$out"; return 1; }
	read -r _ sent _ replies _ took <<<"$out"
	echo "# $3 port $4: $out" >&2
}

# group ATTACK-DESCRIPTION FAM SRC DST DPORT: N DATA packets to a group
# address: all dropped by drop_not_unicast, nothing answered or sent, no
# peer, no DATA accepted.
group() {
	local fam=$1 src=$2 dst=$3 dport=$4 n=50
	local drop0 rx0 tx0 peers0 drop1 rx1 tx1 peers1
	drop0=$(stat "$b" drop_not_unicast)
	rx0=$(stat "$b" rx_data)
	tx0=$(stat "$b" tx_packets)
	peers0=$(peers "$b")
	attack "$fam" "$src" "$dst" "$dport" $n 500 || return 1
	drop1=$(stat "$b" drop_not_unicast)
	rx1=$(stat "$b" rx_data)
	tx1=$(stat "$b" tx_packets)
	peers1=$(peers "$b")
	echo "$dst port $dport: sent $sent replies $replies drop_not_unicast" \
		"+$((drop1 - drop0)) rx_data +$((rx1 - rx0)) tx_packets +$((tx1 - tx0))" \
		"peer lines $peers0 -> $peers1" | tee /dev/fd/3
	[ "$sent" -eq $n ] && [ "$replies" -eq 0 ] && [ $((drop1 - drop0)) -eq $n ] &&
		[ "$rx1" -eq "$rx0" ] && [ "$tx1" -eq "$tx0" ] && [ "$peers1" -le "$peers0" ]
}

check "DATA to the IPv4 subnet broadcast (bound port): dropped, no peer, no answer" \
	group 4 198.18.0.1 198.18.0.255 1700
check "DATA to the IPv4 subnet broadcast (closed port): dropped, no error packet" \
	group 4 198.18.0.1 198.18.0.255 1799
check "DATA to ff02::1 (bound port): dropped, no peer, no answer" \
	group 6 2001:2::1 ff02::1%veth-a 1701
check "DATA to ff02::1 (closed port): dropped, no error packet" \
	group 6 2001:2::1 ff02::1%veth-a 1799
check "DATA to a subnet broadcast in a frame for b alone: dropped, no peer, no answer" \
	group 4 198.18.0.1 198.18.1.255 1700

# The same DATA unicast is answered: the attacker's count sees answers.
unicast() { # unicast FAM SRC DST DPORT
	local peers0 peers1
	peers0=$(peers "$b")
	attack "$@" 5 1000 || return 1
	peers1=$(peers "$b")
	echo "$3 port $4: sent $sent replies $replies peer lines $peers0 -> $peers1" | tee /dev/fd/3
	[ "$replies" -ge 1 ] && [ "$peers1" -gt "$peers0" ]
}
check "the same DATA to 198.18.0.2 (bound port): answered, a peer" \
	unicast 4 198.18.0.1 198.18.0.2 1700
check "the same DATA to 2001:2::2 (bound port): answered, a peer" \
	unicast 6 2001:2::1 2001:2::2 1701

# flood RATELIMIT_MS N: N DATA to the closed port 1799 from one source
# right after the rate limit is set (its buckets full: 50 packets for the
# netns, 5 for the source, which refills ten times slower); every error
# packet sent reaches the attacker, the others are counted suppressed.
burst=5
flood() {
	local rl=$1 n=$2 err0 lim0 ns0 err lim ns max
	set_rl "$b" "$rl" || return 1
	err0=$(stat "$b" tx_errors)
	lim0=$(stat "$b" tx_errors_ratelimited)
	ns0=$(stat "$b" drop_no_socket)
	attack 4 198.18.0.1 198.18.0.2 1799 "$n" 1000 || return 1
	err=$(($(stat "$b" tx_errors) - err0))
	lim=$(($(stat "$b" tx_errors_ratelimited) - lim0))
	ns=$(($(stat "$b" drop_no_socket) - ns0))
	echo "ratelimit $rl ms: sent $sent in $took ms, drop_no_socket +$ns, tx_errors +$err," \
		"tx_errors_ratelimited +$lim, replies $replies" | tee /dev/fd/3
	[ "$sent" -eq "$n" ] && [ "$ns" -eq "$n" ] && [ "$replies" -eq "$err" ] &&
		[ $((err + lim)) -eq "$n" ] || return 1
	if [ "$rl" -eq 0 ]; then
		[ "$err" -eq "$n" ]
	else
		# the source's burst, plus one per ten intervals while the
		# flood lasted
		max=$((burst + took / (10 * rl) + 1))
		[ "$err" -ge $burst ] && [ "$err" -le $max ]
	fi
}
check "transport_err_ratelimit 0: a flood of 300 DATA to a closed port, 300 error packets" \
	flood 0 300
check "transport_err_ratelimit 1000: 1000 DATA from one source, at most its burst + 1 per 10 s answered, the rest counted" \
	flood 1000 1000
# The source that flooded spent its share, not the others': of three
# other sources (64 buckets by a seeded hash: all three in the flooder's
# bucket once in 2^18 boots), one at least gets all its 5 answers.
others() {
	local src best=0
	for src in 198.18.0.3 198.18.0.4 198.18.0.5; do
		attack 4 "$src" 198.18.0.2 1799 5 1000 || return 1
		echo "from $src: sent $sent replies $replies" | tee /dev/fd/3
		[ "$replies" -gt "$best" ] && best=$replies
	done
	[ "$best" -eq 5 ]
}
check "transport_err_ratelimit 1000: after one source's flood, other sources are still answered" \
	others
# The source's bucket refills with time (1 per 10 x 300 ms): 60 DATA
# empty it (5 answered), 3.5 s later there is credit for one more (two, if
# the guest was slow between the two floods), not for 5.
recovers() {
	set_rl "$b" 300 || return 1
	attack 4 198.18.0.1 198.18.0.2 1799 60 300 || return 1
	echo "ratelimit 300 ms: sent $sent replies $replies" | tee /dev/fd/3
	[ "$replies" -ge $burst ] && [ "$replies" -le $((burst + 1)) ] || return 1
	sleep 3.5
	attack 4 198.18.0.1 198.18.0.2 1799 5 1000 || return 1
	echo "3.5 s later: sent $sent replies $replies" | tee /dev/fd/3
	[ "$replies" -ge 1 ] && [ "$replies" -lt 5 ]
}
check "transport_err_ratelimit 300: a source's burst, then 3.5 s later answers again, still limited" \
	recovers

# The sysctl: default, range, EINVAL, in a fresh netns.
validate_in() { # validate_in NETNS
	local ns=$1 v
	v=$(ip netns exec "$ns" cat $sysctl_rl)
	echo "default $v"
	[ "$v" = 1 ] || return 1
	for v in -1 3600001 4294967296 abc; do
		if set_rl "$ns" "$v"; then
			echo "'$v' accepted"
			return 1
		fi
	done
	[ "$(ip netns exec "$ns" cat $sysctl_rl)" = 1 ] || { echo "changed by a rejected write"; return 1; }
	for v in 3600000 0 250; do
		set_rl "$ns" $v || { echo "'$v' rejected"; return 1; }
		[ "$(ip netns exec "$ns" cat $sysctl_rl)" = $v ] || return 1
	done
	# per netns: b keeps its own (set by the checks above)
	[ "$(ip netns exec "$b" cat $sysctl_rl)" = 300 ]
}
validate() {
	local ns=smartt-in-c-$$ rc
	# Not netns_add: check runs this in a subshell, the list would not
	# see it.
	ip netns add "$ns" || return 1
	validate_in "$ns"
	rc=$?
	ip netns del "$ns"
	return $rc
}
check "transport_err_ratelimit: default 1, 0..3600000 per netns, others EINVAL" validate

# The wire format's knobs (Documentation/protocol.rst, "DSCP"): the job
# id (24 bits) and the DSCP classes (0..63; the three marks a switch
# writes distinct from each other and from the three DATA classes).
knob() { # knob NETNS NAME [VALUE]: read, or write (status of the write)
	if [ $# -eq 2 ]; then
		ip netns exec "$1" cat "/proc/sys/net/smartt/$2"
	else
		ip netns exec "$1" sh -c "echo $3 > /proc/sys/net/smartt/$2" 2>/dev/null
	fi
}
wire_knobs_in() { # wire_knobs_in NETNS
	local ns=$1 k v
	[ "$(knob "$ns" transport_job_id)" = 0 ] || { echo "job id default not 0"; return 1; }
	for v in 16777216 -1 abc; do
		knob "$ns" transport_job_id "$v" && { echo "job id '$v' accepted"; return 1; }
	done
	knob "$ns" transport_job_id 16777215 && [ "$(knob "$ns" transport_job_id)" = 16777215 ] ||
		{ echo "job id 16777215 rejected"; return 1; }
	for k in trimmable:10 trimmed:12 trimmed_lasthop:14 control:46 crp_spec:8 \
		 crp_granted:18 crp_spec_dropped:16; do
		v=$(knob "$ns" "transport_dscp_${k%%:*}")
		[ "$v" = "${k#*:}" ] || { echo "transport_dscp_${k%%:*} is $v, not ${k#*:}"; return 1; }
		knob "$ns" "transport_dscp_${k%%:*}" 64 && { echo "dscp 64 accepted"; return 1; }
	done
	# a mark equal to a DATA class or to another mark: EINVAL
	knob "$ns" transport_dscp_trimmed 10 && { echo "trimmed = trimmable accepted"; return 1; }
	knob "$ns" transport_dscp_trimmed 14 && { echo "trimmed = trimmed_lasthop accepted"; return 1; }
	knob "$ns" transport_dscp_crp_granted 16 && { echo "crp_granted = crp_spec_dropped accepted"; return 1; }
	[ "$(knob "$ns" transport_dscp_trimmed)" = 12 ] || { echo "changed by a rejected write"; return 1; }
	knob "$ns" transport_dscp_trimmed 20 && [ "$(knob "$ns" transport_dscp_trimmed)" = 20 ] ||
		{ echo "trimmed 20 rejected"; return 1; }
	echo "job id 0..16777215, dscp classes 0..63 and distinct marks, others EINVAL"
}
wire_knobs() {
	local ns=smartt-in-w-$$ rc
	ip netns add "$ns" || return 1
	wire_knobs_in "$ns"
	rc=$?
	ip netns del "$ns"
	return $rc
}
check "transport_job_id and transport_dscp_*: defaults, ranges, distinct marks, others EINVAL" wire_knobs

# DATA of another job is dropped unanswered (drop_job), no peer made.
other_job() {
	local d0 p0 d1 p1
	knob "$b" transport_job_id 5 || return 1
	d0=$(stat "$b" drop_job)
	p0=$(peers "$b")
	attack 4 198.18.0.1 198.18.0.2 1700 5 500 || { knob "$b" transport_job_id 0; return 1; }
	d1=$(stat "$b" drop_job)
	p1=$(peers "$b")
	knob "$b" transport_job_id 0
	echo "job 5 at b, DATA of job 0: sent $sent replies $replies drop_job +$((d1 - d0))" \
		"peer lines $p0 -> $p1" | tee /dev/fd/3
	# no peer made (an idle one may have been reclaimed meanwhile)
	[ "$sent" -eq 5 ] && [ "$replies" -eq 0 ] && [ $((d1 - d0)) -eq 5 ] && [ "$p1" -le "$p0" ]
}
check "DATA of another job (transport_job_id): dropped, counted drop_job, no answer" other_job

check "recvmsg(MSG_CMSG_CLOEXEC) receives a message (IPv4)" \
	ip netns exec "$b" "$bin" cloexec 4 1710
check "recvmsg(MSG_CMSG_CLOEXEC) receives a message (IPv6)" \
	ip netns exec "$b" "$bin" cloexec 6 1711

# A 32-bit process: compat sendmsg() with a cookie, compat recvmsg() of
# the message and of its completion.
compat32=$SMARTT_TOP/build/selftests/smartt_compat32
compat_desc="compat (i386) sendmsg with a cookie, recvmsg, completion"
if [ ! -x "$compat32" ]; then
	ktap_result SKIP "$compat_desc" "no $compat32: the compiler cannot target i386"
else
	out=$(ip netns exec "$b" "$compat32" 2>&1)
	rc=$?
	if [ $rc -eq 126 ]; then
		ktap_result SKIP "$compat_desc" "this kernel runs no i386 programs: $out"
	elif [ $rc -eq 0 ] && [ "$out" = ok ]; then
		ktap_result OK "$compat_desc"
	else
		ktap_result FAIL "$compat_desc" "$out"
	fi
fi

ktap_exit
