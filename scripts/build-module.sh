#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build smartt.ko out of tree for one kernel.
#
#   build-module.sh RELEASE|KDIR [make arguments...]
#
# The output goes to build/<release>/, a symlink farm of Kbuild and kernel/,
# so that builds for several kernels never share objects.  W=1 is always on;
# any compiler or modpost warning fails the build (warning-free is a
# requirement, not a wish).  Prints the path of the built module last.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
arg=${1:?usage: build-module.sh RELEASE|KDIR [make args...]}
shift

if [ -d "$arg" ]; then
	kdir=$(cd "$arg" && pwd)
	# UTS_RELEASE is what uname -r will say (Debian's kernel.release is not).
	if [ -r "$kdir/include/generated/utsrelease.h" ]; then
		rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h")
	else
		rel=$(make -s -C "$kdir" kernelrelease 2>/dev/null) ||
			{ echo "build-module: cannot ask $kdir for its kernelrelease" >&2; exit 1; }
	fi
else
	rel=$arg
	kdir=/lib/modules/$rel/build
fi
[ -e "$kdir/Makefile" ] || { echo "build-module: no kernel build tree at $kdir (headers not installed? run make deps)" >&2; exit 1; }

out=$top/build/$rel
mkdir -p "$out"
# One build at a time per output directory (parallel make invocations for
# the same kernel would race in modpost).
exec 9>"$top/build/.lock-$rel"
flock 9
# Refresh the farm: new files get links, removed files lose theirs.
cp -rsf "$top/kernel" "$top/Kbuild" "$top/VERSION" "$out/"
find "$out" -xtype l -delete

version=$(cat "$top/VERSION")
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	version="$version-$(git -C "$top" describe --always --dirty --abbrev=12 2>/dev/null || echo nogit)"
fi

log=$out/build.log
echo "  MODULE  smartt.ko for $rel"
if ! make -C "$kdir" M="$out" W=1 SMARTT_VERSION="$version" "$@" modules >"$log" 2>&1; then
	cat "$log" >&2
	echo "build-module: build for $rel failed" >&2
	exit 1
fi
if grep -E 'warning:|WARNING:' "$log" | grep -v 'Skipping BTF generation' >&2; then
	echo "build-module: build for $rel has warnings (see above); smartt must build warning-free" >&2
	exit 1
fi
echo "$out/smartt.ko"
