#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared by the guest benchmarks of selftests/bench/ (cc_bench_tcp.sh,
# transport_bench.sh, multipath_bench.sh), sourced, not run.  Each of them
# runs twice: on the host it builds and stages smartt.ko and boots a QEMU
# guest that runs the same script with --guest; in the guest it installs
# the staged module and measures.
#
# Sets: here (selftests/bench), top (the source tree).
#
# On the host:
#   bench_build NAME RELEASE [build-module.sh ARGS...]
#       builds smartt.ko for RELEASE (with ARGS), stages it in build/RELEASE
#       and builds the fabric's BPF programs; the output directory (made
#       here) is bench_out = $BENCH_OUT_DIR or build/NAME.  Returns non-zero
#       on any failure (the tools' output is discarded).
#   bench_boot [VAR=value...]
#       replaces the shell with scripts/vm-run.sh, running the calling
#       script with --guest in a guest of that RELEASE, with BENCH_OUT
#       (bench_out/NAME.txt), BENCH_MODDIR (build/RELEASE), every BENCH_*
#       variable of the host's environment (the benchmarks' knobs) and the
#       VARs in its environment.
# In the guest:
#   bench_load_module
#       installs the smartt.ko staged in $BENCH_MODDIR (if set; as
#       run_guest.sh does) and loads it; exits 1 if it cannot.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)

bench_build() {
	bench_name=$1
	bench_rel=$2
	shift 2
	bench_out=${BENCH_OUT_DIR:-$top/build/$bench_name}
	mkdir -p "$bench_out" &&
		"$top"/scripts/build-module.sh "$bench_rel" "$@" >/dev/null &&
		"$top"/scripts/stage-modules.sh "$bench_rel" "$top/build/$bench_rel" >/dev/null &&
		make -s -C "$top/bpf" >/dev/null
}

bench_boot() {
	local v knobs=()

	for v in $(compgen -e BENCH_); do
		knobs+=("$v=${!v}")
	done
	exec "$top"/scripts/vm-run.sh -o "$bench_out" "$bench_rel" -- \
		env "${knobs[@]}" BENCH_OUT="$bench_out/$bench_name.txt" \
		BENCH_MODDIR="build/$bench_rel" "$@" "$here/$(basename "$0")" --guest
}

bench_load_module() {
	local rel staged

	rel=$(uname -r)
	if [ -n "${BENCH_MODDIR:-}" ]; then
		staged=$top/$BENCH_MODDIR/modroot/lib/modules/$rel
		cp -r "$staged/updates" "/lib/modules/$rel/" && cp "$staged"/modules.* "/lib/modules/$rel/"
	fi
	modprobe smartt || { echo "no smartt.ko"; exit 1; }
}
