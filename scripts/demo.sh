#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: build smartt.ko, boot a guest with a Debian kernel
# (KERNEL=6.1|6.12, default 6.12), load the module, emulate two hosts on an
# ECN-marking switch with smartt-fabric, and print a table comparing the
# congestion controls on one TCP transfer each.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
series=${KERNEL:-6.12}
rel=$(scripts/kernels.sh release "$series")
echo "demo: building smartt.ko and the fabric tools for $rel"
scripts/build-module.sh "$rel" >/dev/null
scripts/stage-modules.sh "$rel" "build/$rel"
make -s -C bpf >/dev/null
out=$top/build/demo
rm -rf "$out"
mkdir -p "$out"
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
exit $rc
