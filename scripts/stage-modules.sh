#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare, on the host, what a guest needs to modprobe smartt: a module tree
# whose depmod indexes already know smartt.ko.
#
#   stage-modules.sh RELEASE MODDIR [SRC]
#
# SRC is the kernel's own module tree (default /lib/modules/RELEASE; the
# debug kernel's is in its cache, scripts/debug-kernel.sh).
# depmod -a inside a TCG guest reads ~4000 modules over 9p and takes minutes;
# on the host it takes seconds.  The staged tree (MODDIR/modroot) holds
# symlinks to the distribution's modules, our modules under updates/smartt/,
# and the regenerated modules.* indexes; selftests/run_guest.sh copies the
# latter two into the guest's overlay /lib/modules.  Nothing on the host's
# /lib/modules is touched.
set -euo pipefail
rel=${1:?usage: stage-modules.sh RELEASE MODDIR [SRC]}
moddir=$(cd "${2:?usage: stage-modules.sh RELEASE MODDIR [SRC]}" && pwd)
src=${3:-/lib/modules/$rel}
[ -d "$src/kernel" ] || { echo "stage-modules: $src/kernel missing (run make deps)" >&2; exit 1; }

root=$moddir/modroot
dst=$root/lib/modules/$rel
rm -rf "$root"
mkdir -p "$dst/updates/smartt"
# A distribution kernel's modules are linked (the guest sees the host's
# /lib/modules); another tree's (the debug kernel's few modules, in a
# cache the guest's overlays may hide) is copied.
link="ln -s"
[ "$src" = "/lib/modules/$rel" ] || link="cp -a"
for f in "$src"/*; do
	case $(basename "$f") in
	modules.*|build|source|updates) ;;
	*) $link "$f" "$dst/" ;;
	esac
done
cp "$src"/modules.order "$src"/modules.builtin* "$dst/" 2>/dev/null || true
cp "$moddir/smartt.ko" "$dst/updates/smartt/"
depmod -b "$root" "$rel"
grep -q '^updates/smartt/smartt.ko:' "$dst/modules.dep" ||
	{ echo "stage-modules: depmod did not index smartt.ko" >&2; exit 1; }
# The guest tests' C programs (build/selftests/), built here on the host.
make -s -C "$(dirname "$0")/../selftests" >/dev/null ||
	{ echo "stage-modules: building selftests/*_test.c failed" >&2; exit 1; }
# ... and the userspace tools they drive (build/userspace/smartt-perf).
make -s -C "$(dirname "$0")/../userspace" smartt-perf >/dev/null ||
	{ echo "stage-modules: building userspace/smartt-perf failed" >&2; exit 1; }
