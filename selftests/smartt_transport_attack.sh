#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport against an off-path attacker: netns host a streams 300
# messages of distinct sizes to host b (paced by a 40 Mbit/s token bucket
# on a's egress) while host c, behind b, from the PDC's establishment to
# the stream's end, forges packets with a's address towards b, or with
# b's address towards a (b forwards them), without seeing any packet of
# a's or b's (smartt_attack_test, IP transparent sockets).  The attacker
# knows the addresses, the transport ports and the UDP port; it is also
# given the PDC's ids (read from a's /proc/net/smartt_peers once the PDC
# is established), the 2 x 16 bits UET has, so that each forgery reaches
# the PDC and only the PSNs (from a random start) stand between it and the
# transfer: a stronger attacker than one that guesses the ids (the threat
# model's bound counts both).  Per attack: every message a saw succeed was
# received by b intact and exactly once (no message failed: b's
# application got all of them), the attack reached the transport and was
# dropped for the reason the protocol gives, no answer came back to the
# attacker, and the answers that went to the host whose address was
# forged were no more, and no larger, than the forged packets.  Attacks:
# SYN of other PDCs (would reset b's receive state), DATA of the PDC at
# random PSNs, errors (BAD_PID, CANCELLED, DROPPED; SPDCID 0 or the
# PDC's), ACK_CC carrying "delivered" for random messages, NACK
# INV_DPDCID, PROBEs, CRP requests of no PDC (answered with a packet of
# their size, within the per-source limit only).
# Documentation/transport.rst, "Threat model".
# kernels: 6.1
source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip tc modprobe awk

bin=$SMARTT_TOP/build/selftests/smartt_transport_test
atk=$SMARTT_TOP/build/selftests/smartt_attack_test
[ -x "$bin" ] && [ -x "$atk" ] || skip_all "no $bin or $atk (make -C selftests)"
modprobe smartt || skip_all "cannot load smartt"
modprobe sch_tbf 2>/dev/null || skip_all "no sch_tbf module for the pacing bucket"

exec 3>&1
a=smartt-at-a-$$
b=smartt-at-b-$$
c=smartt-at-c-$$
trap netns_cleanup EXIT

setup() {
	veth_pair "$a" "$b" && third_host "$c" "$b" || return 1
	# b forwards c's forgeries with its own address to a: no reverse
	# path check, and a local source address taken on veth-bc
	ip netns exec "$b" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.conf.veth-bc.rp_filter=0 net.ipv4.conf.veth-bc.accept_local=1 &&
		ip -n "$c" route add default via 198.18.2.2 &&
		ip -n "$a" route add 198.18.2.0/24 via 198.18.0.2 &&
		ip netns exec "$a" tc qdisc add dev veth-a root tbf rate 40mbit burst 16k \
			latency 200ms
}
check "hosts a and b on a veth, the attacker c behind b, a paced at 40 Mbit/s" setup

stat() { # stat NETNS NAME
	ip netns exec "$1" awk -v n="$2" '$1 == n { print $2 }' /proc/net/smartt_stats
}

# 300 sizes around 30 KB, all different (recv tells messages apart by size)
sizes=$(seq 30000 31 39269)
total=$(echo $sizes | awk '{ for (i = 1; i <= NF; i++) t += $i; print t }')

# pdc_ids SPORT PORT: a's PDC ids towards b's PORT from its SPORT, "TX
# PEER" (our sending id, b's receiving id) once b answered, else nothing.
pdc_ids() {
	ip netns exec "$a" awk -v s="$1" -v p="$2" \
		'$1 == s && $3 == p && $20 > 0 { print $19, $20 }' /proc/net/smartt_peers
}

# attack KIND FROM TO TARGET-NETNS COUNT COUNTER...: while a streams to b,
# c sends forgeries of KIND with FROM's address to TO, with the PDC's ids,
# from the PDC's establishment to the stream's end (COUNT at most, 300 at
# least: the stream waits for them); every COUNTER of TARGET-NETNS must grow.
attack() {
	local kind=$1 from=$2 to=$3 tns=$4 count=$5 out spid rpid apid rc=0 res n ids i ids_arg t0 ms
	local port=$((1700 + RANDOM % 100)) sport=$((1800 + RANDOM % 100))
	shift 5
	declare -A was
	for n in "$@" rx_packets tx_nacks tx_acks tx_errors tx_bytes crp_tx_grant crp_tx_retry; do
		was[$tns.$n]=$(stat "$tns" "$n")
	done
	out=$(mktemp -d)
	ip netns exec "$b" env SMARTT_LINGER_MS=500 "$bin" recv 4 "$port" $sizes \
		>"$out/recv" 2>&1 &
	rpid=$!
	wait_output "$out/recv" listening
	# a's stream held back (200 kbit/s) from its start until 300 forgeries
	# went, so that they meet the PDC however slowly this guest finds its
	# ids and starts the attacker
	ip netns exec "$a" tc qdisc change dev veth-a root tbf rate 200kbit burst 16k \
		latency 5s
	# the PDC is established (one message answered) before the attack
	ip netns exec "$a" env SMARTT_SPORT=$sport "$bin" send 4 198.18.0.2 "$port" $sizes \
		>"$out/send" 2>&1 &
	spid=$!
	for i in $(seq 100); do
		ids=$(pdc_ids "$sport" "$port")
		[ -n "$ids" ] && break
		sleep 0.05
	done
	[ -n "$ids" ] || { echo "#   no PDC established" >&3; rc=1; }
	# (DPDCID, SPDCID) as the forgeries of KIND carry them
	case $kind in
	syn|crp) ids_arg="" ;;
	data|probe) ids_arg="${ids#* } ${ids% *}" ;;
	*) ids_arg="${ids% *} ${ids#* }" ;;
	esac
	: >"$out/until"
	t0=$(date +%s%N)
	ip netns exec "$c" env SMARTT_ATTACK_UNTIL="$out/until" \
		SMARTT_ATTACK_MARK="$out/mark:300" "$atk" "$kind" "$from" "$to" \
		"$count" "$RANDOM" "$sport" "$port" $ids_arg >"$out/atk" 2>&1 &
	apid=$!
	for i in $(seq 600); do
		[ -e "$out/mark" ] && break
		sleep 0.1
	done
	ip netns exec "$a" tc qdisc change dev veth-a root tbf rate 40mbit burst 16k \
		latency 200ms
	wait $spid || rc=1
	rm -f "$out/until"
	wait $apid || rc=1
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	wait $rpid || rc=1
	res=$(cat "$out/atk")
	echo "#   $kind (ids ${ids_arg:-none}): attacker during the stream: $res" >&3
	echo "#   a: $(tr '\n' ' ' <"$out/send")b: $(tr '\n' ' ' <"$out/recv")" >&3
	grep -qx ok "$out/send" || rc=1
	grep -q "^ok 300 messages $total bytes$" "$out/recv" || rc=1
	case $res in
	"sent "*" replies 0") [ "$(awk '{ print $2 }' <<<"$res")" -ge 300 ] || rc=1 ;;
	*) rc=1 ;;
	esac
	for n in "$@"; do
		echo "#   $tns $n: ${was[$tns.$n]} -> $(stat "$tns" "$n")" >&3
		[ "$(stat "$tns" "$n")" -gt "${was[$tns.$n]}" ] || rc=1
	done
	echo "#   $tns drops: $(ip netns exec "$tns" awk '$2 > 0 && $1 ~ /^(drop_|rx_bad)/ { printf "%s=%s ", $1, $2 }' /proc/net/smartt_stats)" >&3
	echo "#   $tns rx_packets ${was[$tns.rx_packets]} -> $(stat "$tns" rx_packets); IP/UDP: $(ip netns exec "$tns" nstat -az 2>/dev/null | awk '$2 > 0 && $1 ~ /^(Ip|Udp|TcpExt)(InDiscards|InAddrErrors|InNoRoutes|InHdrErrors|NoPorts|InErrors|InCsumErrors|RcvbufErrors|IPReversePathFilter)/ { printf "%s=%s ", $1, $2 }')" >&3
	# answers to the forgeries: no more packets than forged, and fewer bytes
	local extra=$(( $(stat "$tns" tx_nacks) - ${was[$tns.tx_nacks]} +
		$(stat "$tns" tx_errors) - ${was[$tns.tx_errors]} ))
	local crp=$(( $(stat "$tns" crp_tx_grant) - ${was[$tns.crp_tx_grant]} +
		$(stat "$tns" crp_tx_retry) - ${was[$tns.crp_tx_retry]} ))
	echo "#   $tns answered with $extra NACK/error packets, $crp CRP answers (of their size) in $ms ms" >&3
	[ "$extra" -le "$(awk '{ print $2 }' <<<"$res")" ] || rc=1
	# CRP answers to requests of no PDC: a source's burst (16) and one
	# per 10 ms (transport_err_ratelimit 1 ms, a tenth of it per source)
	[ "$crp" -le $((16 + ms / 10 + 1)) ] || rc=1
	rm -rf "$out"
	return $rc
}

check "SYN of other PDCs with a's address: b's receive state is neither reset nor lost" \
	attack syn 198.18.0.1 198.18.0.2 "$b" 50000 drop_syn_busy rx_challenges
check "DATA of the PDC at random PSNs with a's address: dropped, b's stream intact" \
	attack data 198.18.0.1 198.18.0.2 "$b" 50000 drop_window
check "errors to the PDC with b's address: no message of a's fails" \
	attack err 198.18.0.2 198.18.0.1 "$a" 50000 drop_rsp
check "\"delivered\" responses to the PDC with b's address: no false success" \
	attack rsp 198.18.0.2 198.18.0.1 "$a" 50000 drop_ack_unsent
check "NACK INV_DPDCID to the PDC with b's address: a's PDC is not restarted" \
	attack inv 198.18.0.2 198.18.0.1 "$a" 50000 drop_rsp
check "PROBEs to the PDC with a's address: not answered" \
	attack probe 198.18.0.1 198.18.0.2 "$b" 50000 drop_window
check "CRP requests of no PDC with a's address: answered within the per-source limit" \
	attack crp 198.18.0.1 198.18.0.2 "$b" 50000 crp_req_ratelimited
check "a never restarted its PDC, never failed a message" \
	test "$(stat "$a" tx_pdc_restarts)" = 0 -a "$(stat "$a" msgs_failed)" = 0
ktap_exit
