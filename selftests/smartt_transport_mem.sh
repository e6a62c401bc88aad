#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The memory a peer can make the transport's receive path hold, attacked
# from a plain UDP socket (smartt_mem_test partial) in netns a against a
# victim socket in b (SMARTT_TIMEOUT_MS 3 s, default SO_RCVBUF), while a
# legitimate sender in c uses the same socket:
#
#  1. net.smartt.transport_mem: one per netns (a copy of the initial
#     netns's at its creation), validated;
#  2. a 64 MiB message announced in 64-byte segments is refused (its
#     reservation, ~20 bytes held per byte, exceeds SO_RCVBUF and 3 x its
#     length): drop_seg_charge, an EMSGSIZE error back, nothing held;
#  3. a message larger than SO_RCVBUF is received alone (c, 1 MiB);
#  4. a partial 1 MiB message the attacker stops sending holds at most its
#     reservation (/proc/net/smartt_stats mem_pages, protocol-wide), and
#     is freed after the socket's timeout: rx_msgs_expired, an EXPIRED
#     error back, mem_pages back where it was;
#  5. no lockout: while the attacker keeps the buffer with a partial
#     message it feeds a segment every 0.5 s (never expiring), and asks
#     from a second transport port to start a 64 MiB one, c's 100 KB
#     message is refused (drop_rmem) until it has waited half a timeout;
#     (the waiter is c's host: a's holds the buffer already, whatever its
#     port); then the attacker's message is evicted (rx_msgs_evicted, a NOBUFS
#     error back), the attacker's next segments are refused while c's
#     retransmission gets the buffer, and c's message completes;
#  6. at the protocol's limit (net.smartt.transport_mem lowered) new
#     messages are refused (drop_mem) and complete once it is raised; the
#     same at b's netns's own limit (its transport_mem, netns_mem_pages);
#  7. 2000 peers claimed by one sender (a transport port each): the socket
#     keeps that address's share, SMARTT_HOST_PEERS_MAX (128) of them,
#     counts the rest drop_host_peers,
#     and holds no transmit state for them (slab and per-CPU memory grow
#     by under 3 KiB a peer, where a window and a path selector would be
#     24 KiB more), charged to the memory cgroup of the victim socket's
#     creator (cgroup v2; checked where the memory controller is); c's
#     message completes at once meanwhile (its host's share is its own); once
#     they have been idle four timeouts they are reclaimed,
#     and c's next message completes.
# The runner checks dmesg (and the module's unload checks that nothing
# stays charged to the protocol).
# `make check` shares the long tests between its two plain guests
# (SMARTT_SELFTESTS_FULL=1 runs this one on both); this one runs on
# kernels: 6.12
source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip modprobe awk

bin=$SMARTT_TOP/build/selftests/smartt_mem_test
[ -x "$bin" ] || skip_all "no $bin (make -C selftests)"
modprobe smartt || skip_all "cannot load smartt"

exec 3>&1

a=smartt-mem-a-$$
b=smartt-mem-b-$$
c=smartt-mem-c-$$
vport=1710
victim_out=$(mktemp)
hold=()
mem_sysctl=/proc/sys/net/smartt/transport_mem
mem_saved=$(cat "$mem_sysctl" 2>/dev/null)

# The victim in a memory cgroup of its own (cgroup v2 with the memory
# controller; else none, and the peer flood's charge check is skipped).
cg=/sys/fs/cgroup/smartt-mem-$$
if [ -e /sys/fs/cgroup/cgroup.subtree_control ] &&
	grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null &&
	{ grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control; } 2>/dev/null &&
	mkdir "$cg" 2>/dev/null; then
	:
else
	cg=
fi
setup() {
	veth_pair "$a" "$b" || return 1
	third_host "$c" "$b" || return 1
	# (in the cgroup before it makes its socket: the socket is charged to
	# it; before ip netns exec, which mounts a sysfs of the netns's own)
	sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1; shift; exec "$@"' \
		_ "$cg" ip netns exec "$b" "$bin" victim 4 $vport 600 3000 >"$victim_out" 2>&1 &
	hold+=($!)
	wait_output "$victim_out" bound || { cat "$victim_out"; return 1; }
	ip netns exec "$a" ping -c1 -W2 198.18.0.2 >/dev/null 2>&1
	ip netns exec "$c" ping -c1 -W2 198.18.2.2 >/dev/null 2>&1
	return 0
}
cleanup() {
	local p
	[ -n "$mem_saved" ] && echo "$mem_saved" >"$mem_sysctl" 2>/dev/null
	for p in "${hold[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -f "$victim_out" "$victim_out".*
	netns_cleanup
	[ -z "$cg" ] || rmdir "$cg" 2>/dev/null
}
trap cleanup EXIT

stat() { # stat NAME: a counter of b's (mem_pages is protocol-wide)
	ip netns exec "$b" awk -v n="$1" '$1 == n { print $2 }' /proc/net/smartt_stats
}
msgs() { # msgs LEN: messages of LEN bytes the victim received
	grep -c "^msg $1\$" "$victim_out"
}
say() { # say TEXT: to check's output and to the log
	echo "$*"
	echo "# $*" >&3
}
snap() { # snap FILE: b's counters
	ip netns exec "$b" cat /proc/net/smartt_stats >"$1"
}
changed() { # changed FILE: b's counters that moved since snap FILE
	ip netns exec "$b" cat /proc/net/smartt_stats |
		awk 'NR == FNR { v[$1] = $2; next } $2 != v[$1] { printf "%s %+d, ", $1, $2 - v[$1] }' "$1" -
	echo
}

setup_ok=true
setup >/dev/null 2>&1 || setup_ok=false
check "three netns hosts: attacker a and sender c, victim b on transport port $vport" $setup_ok
$setup_ok || ktap_exit

# 1. the protocol's limit
mem_knob() {
	local v
	read -r -a v <"$mem_sysctl" || return 1
	say "transport_mem: ${v[*]} pages"
	[ "${#v[@]}" = 3 ] && [ "${v[0]}" -ge 1 ] && [ "${v[0]}" -le "${v[1]}" ] &&
		[ "${v[1]}" -le "${v[2]}" ] || return 1
	for bad in "5 3 1" "0 1 2" "x y z"; do
		if echo "$bad" >"$mem_sysctl" 2>/dev/null; then
			echo "accepted '$bad'"; return 1
		fi
	done
	[ "$(cat "$mem_sysctl")" = "$mem_saved" ] || { echo "changed by a refused write"; return 1; }
	# each netns its own, a copy of the initial one's at its creation
	[ "$(ip netns exec "$c" cat "$mem_sysctl")" = "$mem_saved" ] ||
		{ echo "c's is not the initial netns's"; return 1; }
	ip netns exec "$c" sh -c "echo '1 2 3' >$mem_sysctl" || return 1
	if ip netns exec "$c" sh -c "echo '5 3 1' >$mem_sysctl" 2>/dev/null; then
		echo "c accepted '5 3 1'"; return 1
	fi
	say "c's after '1 2 3': $(ip netns exec "$c" cat "$mem_sysctl"); the initial netns's: $(cat "$mem_sysctl")"
	[ "$(ip netns exec "$c" cat "$mem_sysctl")" = "1	2	3" ] &&
		[ "$(cat "$mem_sysctl")" = "$mem_saved" ] || return 1
	ip netns exec "$c" sh -c "echo '$mem_saved' >$mem_sysctl"
}
check "net.smartt.transport_mem: one per netns, min <= pressure <= max (EINVAL)" mem_knob

# 2. tiny segments
tiny() {
	local d0 pages0 out d1 pages1
	d0=$(stat drop_seg_charge)
	pages0=$(stat mem_pages)
	out=$(ip netns exec "$a" "$bin" partial 4 198.18.0.1 198.18.0.2 $vport \
		$((64 << 20)) 64 200 0 2) || return 1
	d1=$(stat drop_seg_charge)
	pages1=$(stat mem_pages)
	say "drop_seg_charge +$((d1 - d0)), mem_pages $pages0 -> $pages1," \
		"errors back: $(grep -c '^err 34$' <<<"$out") EMSGSIZE"
	[ $((d1 - d0)) -eq 200 ] && grep -q '^err 34$' <<<"$out" && [ "$pages1" -le $((pages0 + 2)) ]
}
check "64 MiB in 64-byte segments: refused (drop_seg_charge), EMSGSIZE back, nothing held" tiny

# 3. a message larger than SO_RCVBUF, alone
big() {
	local out
	snap "$victim_out.s"
	out=$(ip netns exec "$c" "$bin" send 4 198.18.2.2 $vport $((1 << 20)) 20)
	say "1 MiB from c: $out; b: $(changed "$victim_out.s")"
	sleep 0.5
	[ "$(msgs $((1 << 20)))" -ge 1 ]
}
check "a 1 MiB message (over SO_RCVBUF) is received alone" big

# 4. a partial message, abandoned
expire() {
	local e0 pages0 out_f=$victim_out.a pid peak=0 p i e1 pages1 bound
	e0=$(stat rx_msgs_expired)
	pages0=$(stat mem_pages)
	# 200 of 256 segments of 4 KiB, then silence; listen 12 s.
	ip netns exec "$a" "$bin" partial 4 198.18.0.1 198.18.0.2 $vport \
		$((1 << 20)) 4096 200 0 12 >"$out_f" 2>&1 &
	pid=$!
	for i in $(seq 20); do
		p=$(stat mem_pages)
		[ "$p" -gt "$peak" ] && peak=$p
		sleep 0.25
	done
	wait $pid
	e1=$(stat rx_msgs_expired)
	pages1=$(stat mem_pages)
	# 256 segments x (256 + 8192) bytes, the head, the forward allocation
	bound=$(( (256 * 8448 + 2048) / 4096 + 4 ))
	say "mem_pages $pages0 -> peak $peak (bound $bound) -> $pages1;" \
		"rx_msgs_expired +$((e1 - e0)); back: $(grep -c '^err 30$' "$out_f") EXPIRED," \
		"$(sed -n 's/^acks //p' "$out_f") ACKs"
	[ "$peak" -gt $((pages0 + 10)) ] && [ "$peak" -le $((pages0 + bound)) ] &&
		[ $((e1 - e0)) -eq 1 ] && grep -q '^err 30$' "$out_f" &&
		[ "$pages1" -le $((pages0 + 2)) ]
}
check "an abandoned partial message: held within its reservation, freed after the timeout (EXPIRED back)" expire

# 5. no lockout
lockout() {
	local v0 r0 out_f=$victim_out.l pid out v1 r1
	v0=$(stat rx_msgs_evicted)
	r0=$(stat drop_rmem)
	# One 4 KiB segment every 0.5 s: the message never expires.  Each is
	# followed by a 64 MiB message's first segment from a second port of
	# a's: a host holding the buffer cannot also be the one waiting for it.
	ip netns exec "$a" env SMARTT_MEM_WAITER=10 "$bin" partial 4 198.18.0.1 198.18.0.2 $vport \
		$((1 << 20)) 4096 250 500 25 >"$out_f" 2>&1 &
	pid=$!
	sleep 2
	ip netns exec "$b" cat /proc/net/smartt_peers | sed 's/^/peers before: /'
	snap "$victim_out.s"
	out=$(ip netns exec "$c" "$bin" send 4 198.18.2.2 $vport 100000 20)
	v1=$(stat rx_msgs_evicted)
	r1=$(stat drop_rmem)
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	say "c's 100 KB: $out; drop_rmem +$((r1 - r0)); rx_msgs_evicted +$((v1 - v0));" \
		"back to a: $(grep -c '^err 36$' "$out_f") NOBUFS, $(sed -n 's/^acks //p' "$out_f") ACKs;" \
		"b: $(changed "$victim_out.s")"
	sleep 0.5
	[[ $out == "completed 0 "* ]] && [ "$(msgs 100000)" -ge 1 ] &&
		[ $((r1 - r0)) -ge 1 ] && [ $((v1 - v0)) -ge 1 ] && grep -q '^err 36$' "$out_f"
}
check "a trickling peer holding the buffer, its host bidding from a second port: the host is evicted after a timeout; the other host's waiting message completes" lockout

# 6. the protocol's limit reached
limit() {
	local d0 out_f=$victim_out.m pid d1 out
	d0=$(stat drop_mem)
	echo "4 8 16" >"$mem_sysctl" || return 1
	ip netns exec "$c" "$bin" send 4 198.18.2.2 $vport 100000 20 >"$out_f" 2>&1 &
	pid=$!
	sleep 2
	d1=$(stat drop_mem)
	echo "$mem_saved" >"$mem_sysctl"
	wait $pid
	out=$(cat "$out_f")
	say "transport_mem 4 8 16: drop_mem +$((d1 - d0)); raised again: $out"
	[ $((d1 - d0)) -ge 1 ] && [[ $out == "completed 0 "* ]]
}
check "at the protocol's limit (transport_mem) new messages wait (drop_mem), then complete" limit

# 6b. a netns's own limit reached
netns_limit() {
	local d0 out_f=$victim_out.n pid d1 out pages
	d0=$(stat drop_mem)
	pages=$(stat netns_mem_pages)
	ip netns exec "$b" sh -c "echo '1 $((pages + 1)) $((pages + 2))' >$mem_sysctl" || return 1
	ip netns exec "$c" "$bin" send 4 198.18.2.2 $vport 100000 20 >"$out_f" 2>&1 &
	pid=$!
	sleep 2
	d1=$(stat drop_mem)
	ip netns exec "$b" sh -c "echo '$mem_saved' >$mem_sysctl"
	wait $pid
	out=$(cat "$out_f")
	say "b's transport_mem 1 $((pages + 1)) $((pages + 2)) (b held $pages pages, the protocol $(stat mem_pages)):" \
		"drop_mem +$((d1 - d0)); raised again: $out"
	[ $((d1 - d0)) -ge 1 ] && [[ $out == "completed 0 "* ]]
}
check "at b's own limit (its netns's transport_mem) new messages wait (drop_mem), then complete" netns_limit

# 7. a flood of peers
kmem() { # kmem: slab and per-CPU memory, KiB
	awk '$1 == "Slab:" || $1 == "Percpu:" { s += $2 } END { print s }' /proc/meminfo
}
cgkmem() { # cgkmem: slab and per-CPU memory charged to the victim's cgroup, KiB
	[ -n "$cg" ] || { echo 0; return; }
	awk '$1 == "slab" || $1 == "percpu" { s += $2 } END { print int(s / 1024) }' "$cg/memory.stat"
}
vpeers() { # vpeers: the victim socket's peers
	ip netns exec "$b" awk -v p=$vport '$1 == p' /proc/net/smartt_peers | wc -l
}
idle_out() { # idle_out: wait (30 s at most) until the victim has no peer
	local i
	for i in $(seq 60); do
		[ "$(vpeers)" -eq 0 ] && return 0
		sleep 0.5
	done
	return 1
}
peer_flood() {
	local d0 m0 out n d1 m1 grown left t0 secs c0 c1
	# the earlier cases' peers reclaimed first: the flood's fill the table
	idle_out || { echo "the earlier peers did not idle out"; return 1; }
	d0=$(stat drop_host_peers)
	m0=$(kmem)
	c0=$(cgkmem)
	t0=$(date +%s)
	out=$(ip netns exec "$a" "$bin" peers 4 198.18.0.1 198.18.0.2 $vport 2000) || return 1
	secs=$(($(date +%s) - t0))
	c1=$(cgkmem)
	if [ "$secs" -ge 10 ]; then
		# (the debug kernel's sanitizers: minutes)
		echo "the flood took $secs s here, about the 12 s after which idle peers are reclaimed: it cannot fill the table"
		return "$ksft_skip"
	fi
	n=$(vpeers)
	d1=$(stat drop_host_peers)
	m1=$(kmem)
	grown=$((m1 - m0))
	say "2000 peers claimed: $(tr '\n' ' ' <<<"$out"); the socket's peers $n," \
		"drop_host_peers +$((d1 - d0)); slab + per-CPU $m0 -> $m1 KiB (+$grown," \
		"bound $((128 * 3)))"
	if [ -n "$cg" ]; then
		say "the victim's memory cgroup: slab + per-CPU $c0 -> $c1 KiB (+$((c1 - c0)))"
	else
		say "no cgroup v2 memory controller here: the charge to the victim's cgroup is not checked"
	fi
	[ "$n" -eq 128 ] && [ $((d1 - d0)) -ge 1000 ] && [ "$grown" -lt $((128 * 3)) ] || return 1
	# the peers' state is charged to the socket's cgroup: at least the
	# peer structures (1 KiB each)
	[ -z "$cg" ] || [ $((c1 - c0)) -ge 128 ] || return 1
	# another host gets in at once, the flood's peers still there
	out=$(ip netns exec "$c" "$bin" send 4 198.18.2.2 $vport 10000 20)
	say "with a's 128 peers held, c's 10 KB: $out"
	[[ $out == "completed 0 "* ]] || return 1
	# idle 4 x 3 s, then the socket's timer reclaims them
	idle_out
	left=$(vpeers)
	out=$(ip netns exec "$c" "$bin" send 4 198.18.2.2 $vport 10000 20)
	say "peers left: $left; then c's 10 KB: $out"
	[ "$left" -eq 0 ] && [[ $out == "completed 0 "* ]]
}
check "2000 peers claimed by one address: its share, 128, kept (drop_host_peers) without transmit state, another host served meanwhile, reclaimed when idle" peer_flood

ktap_exit
