#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport's receive path under a long structure-aware fuzz: netns
# host a sends SMARTT_FUZZ_PACKETS (default 10^6) packets of every type
# (smartt_transport_test mutate: valid wire format v2 headers mutated field
# by field at their boundaries, random lengths, truncations, bad CRC32C
# trailers, huge offsets and lengths, ACK/NACK/SACK for unknown and future
# PSNs, unknown and known PDC ids, SYN and not, duplicates), over IPv4 and
# IPv6 in turn, at a live socket
# of b's, while legitimate transfers to another socket of b's run one
# after another the whole time.  Every transfer arrives byte for byte and
# exactly once, every fuzz packet reaches the module (rx_packets), and
# once b's sockets are closed the protocol holds no more memory than
# before (mem_pages).  The runner checks the kernel log (and kmemleak in
# the debug kernel).  Not in `make check` (minutes per 10^6 packets under
# TCG): `make fuzz-transport`, and `make check-debug` with fewer packets.
# timeout=7200
source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip modprobe awk

bin=$SMARTT_TOP/build/selftests/smartt_transport_test
mbin=$SMARTT_TOP/build/selftests/smartt_mem_test
[ -x "$bin" ] && [ -x "$mbin" ] || skip_all "no $bin or $mbin (make -C selftests)"
total=${SMARTT_FUZZ_PACKETS:-1000000}
case $total in ''|*[!0-9]*|0) echo "SMARTT_FUZZ_PACKETS must be a positive integer" >&2; exit 2 ;; esac
modprobe smartt || skip_all "cannot load smartt"

exec 3>&1

a=smartt-fz-a-$$
b=smartt-fz-b-$$
setup_ok=true
veth_pair "$a" "$b" >/dev/null 2>&1 || setup_ok=false
check "two netns hosts on a veth" $setup_ok
$setup_ok || ktap_exit
ip netns exec "$a" ping -c1 -W2 198.18.0.2 >/dev/null 2>&1
ip netns exec "$a" ping -6 -c1 -W2 2001:2::2 >/dev/null 2>&1
trap netns_cleanup EXIT

stat_b() {
	ip netns exec "$b" awk -v n="$1" '$1 == n { print $2 }' /proc/net/smartt_stats
}
say() {
	echo "$*"
	echo "# $*" >&3
}

# fuzz FAMILY DST-ADDR: half the packets, in batches of 20000 seeds
fuzz() {
	local fam=$1 dst=$2 n=$(((total + 1) / 2)) victim pages0 pages1 before after
	local sent=0 batch seed=$RANDOM flag t0 xfers=0 bad=0 out rc i
	flag=$(mktemp)
	before=$(stat_b rx_packets)
	pages0=$(stat_b mem_pages)
	ip netns exec "$b" "$mbin" victim "$fam" 1114 36000 1000 >/dev/null 2>&1 &
	victim=$!
	# legitimate transfers, one after another, until the fuzz ends
	(
		while [ -e "$flag" ]; do
			out=$(mktemp)
			ip netns exec "$b" "$bin" recv "$fam" 1113 1 1353 65536 300000 >"$out" 2>&1 &
			rpid=$!
			wait_output "$out" listening
			ip netns exec "$a" "$bin" send "$fam" "$dst" 1113 1 1353 65536 300000 \
				>/dev/null 2>&1
			wait "$rpid"
			rc=$?
			[ "$rc" = 0 ] && echo ok || { echo "bad: $(cat "$out")"; }
			rm -f "$out"
		done >"$flag.xfers"
	) &
	local xpid=$!
	t0=$(date +%s)
	while [ "$sent" -lt "$n" ]; do
		batch=$((n - sent > 20000 ? 20000 : n - sent))
		i=$(ip netns exec "$a" "$bin" mutate "$fam" "$dst" 1114 "$batch" "$seed") || i=-1
		[ "$i" -gt 0 ] || { say "mutate failed ($i)"; break; }
		sent=$((sent + i))
		seed=$((seed + 1))
	done
	rm -f "$flag"
	wait "$xpid"
	xfers=$(grep -c '^ok$' "$flag.xfers")
	bad=$(grep -c '^bad' "$flag.xfers")
	grep '^bad' "$flag.xfers" | head -3
	rm -f "$flag.xfers"
	after=$(stat_b rx_packets)
	kill "$victim" 2>/dev/null
	wait "$victim" 2>/dev/null
	pages1=$(mem_back "$b" "$pages0")
	say "IPv$fam: $sent fuzz packets in $(($(date +%s) - t0)) s; b received" \
		"$((after - before)) packets; $xfers transfers intact, $bad not;" \
		"mem_pages $pages0 -> $pages1 after b's sockets closed"
	[ "$sent" -ge "$n" ] && [ $((after - before)) -ge "$sent" ] &&
		[ "$xfers" -ge 1 ] && [ "$bad" = 0 ] && [ "$pages1" -le "$pages0" ]
}

check "IPv4: $(((total + 1) / 2)) structure-aware packets at a live socket, transfers intact throughout, nothing held" \
	fuzz 4 198.18.0.2
check "IPv6: $(((total + 1) / 2)) structure-aware packets at a live socket, transfers intact throughout, nothing held" \
	fuzz 6 2001:2::2

ktap_exit
