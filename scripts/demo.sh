#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, in two parts:
#  1. natively on the host (root, no guest): a 8:1 and 16:1 incast through
#     one emulated switch port with the BPF congestion controls
#     (bpf_smartt's three profiles, bpf_strack, bpf_dctcp) against cubic
#     and bbr, `smartt-lab run incast --where host --quick --seeds 1` (the
#     papers' regime where the fabric can delay packets: sch_fq, or the
#     delay line, smartt-delay, where sch_fq is missing): completion
#     time over the ideal, peak and p99 queue, retransmissions side by
#     side, and a PNG of the port's queue over time;
#  2. build smartt.ko, boot a guest with a Debian kernel (KERNEL=6.1|6.12,
#     default 6.12), load the module, emulate two hosts on an ECN-marking
#     switch with smartt-fabric, and print a table comparing the
#     congestion controls on one TCP transfer each.
# SMARTT_DEMO_NATIVE=0 skips part 1.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
series=${KERNEL:-6.12}
rel=$(scripts/kernels.sh release "$series")
out=$top/build/demo
rm -rf "$out"
mkdir -p "$out"
native_rc=0
if [ "${SMARTT_DEMO_NATIVE:-1}" = 1 ]; then
	echo "demo: part 1, natively on this host ($(uname -r)): incast with the BPF congestion controls"
	if [ "$(id -u)" != 0 ]; then
		echo "demo: part 1 skipped: it needs root (network namespaces, BPF)"
	elif make -s -C bpf >/dev/null && make -s -C userspace smartt-delay >/dev/null && {
		userspace/smartt-lab run incast --where host --quick --seeds 1 \
			--out "$out/incast" >"$out/incast.log" 2>&1 ||
		# the papers' regime needs a link delay, which a host without
		# sch_fq and without the delay line (iptables, NFQUEUE) cannot
		# emulate: then the lab's earlier regime, said so
		{ grep -q 'cannot delay packets' "$out/incast.log" &&
		  echo "demo: the fabric cannot delay packets here (no sch_fq, no delay line): the lab's earlier regime (--regime legacy, BDP about 2 MTUs) instead of the papers'" &&
		  userspace/smartt-lab run incast --where host --quick --seeds 1 --regime legacy \
			--out "$out/incast" >"$out/incast.log" 2>&1; }; }; then
		echo
		grep -v '^\[' "$out/incast.log" | grep -v '^smartt-lab: '
		echo
		echo "demo: the port's queue over time: $out/incast/queue_n16.png; every plot: $out/incast/report.html"
		echo
	else
		native_rc=1
		echo "demo: part 1 failed; its log ($out/incast.log) ends:" >&2
		tail -n 10 "$out/incast.log" >&2
	fi
fi
echo "demo: part 2, smartt.ko in a guest"
echo "demo: building smartt.ko and the fabric tools for $rel"
scripts/build-module.sh "$rel" >/dev/null
scripts/stage-modules.sh "$rel" "build/$rel"
make -s -C bpf >/dev/null
echo "demo: booting $rel under QEMU (about 30 s under TCG) ..."
rc=0
scripts/vm-run.sh -o "$out" "$rel" -- scripts/demo_guest.sh "build/$rel" "$out" >"$out/console.log" 2>&1 || rc=$?
if [ ! -s "$out/table.txt" ]; then
	echo "demo: the guest produced no table (exit $rc); console tail:" >&2
	tail -n 30 "$out/console.log" >&2
	exit 1
fi
echo
echo "One TCP transfer per congestion control, ${SMARTT_DEMO_SECONDS:-5} s each, h0 -> h1 through one"
echo "emulated switch port (${SMARTT_DEMO_RATE:-20mbit}, 1 ms per link, RED/ECN 20%/80% of 1 BDP) on Linux $rel:"
echo
cat "$out/table.txt"
echo
echo "demo: logs and raw iperf3/port counters in build/demo/"
[ "$rc" = 0 ] || exit $rc
exit $native_rc
