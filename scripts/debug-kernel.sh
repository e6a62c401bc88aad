#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the debug kernel that `make check-debug` boots, and print its
# build directory (a KDIR for scripts/build-module.sh; arch/x86/boot/bzImage
# in it is what the guest boots).
#
#   debug-kernel.sh
#
# The kernel is Debian's linux-source-6.12 configured by virtme-ng's
# defconfig for guests plus two fragments: selftests/config (what the
# selftests need, built in) and selftests/config.debug (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN, debug objects).  It is cached outside
# the checkout in $SMARTT_CACHE/debug/<source version>-<config hash>/, so a
# change of either fragment or of the source package builds a new one.  An
# option of a fragment that the final .config does not have (a dependency
# missing, a name wrong) fails the build instead of being dropped silently.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SMARTT_CACHE:-/var/cache/smartt}
venv=${SMARTT_VENV:-/opt/smartt/venv}
frags=("$top/selftests/config" "$top/selftests/config.debug")

pristine=$("$top"/scripts/linux-src.sh)
ver=$(basename "$pristine")
command -v "$venv/bin/virtme-configkernel" >/dev/null ||
	{ echo "debug-kernel: virtme-ng not installed in $venv (run make deps)" >&2; exit 1; }
vng_ver=$("$venv/bin/vng" --version 2>/dev/null | head -1)
key=$(cat "${frags[@]}" <(echo "$ver $vng_ver") | sha256sum | cut -c1-12)
base=$cache/debug/$ver-$key
build=$base/build

if [ ! -e "$base/.smartt-built" ]; then
	mkdir -p "$build"
	exec 9>"$base/.lock"
	flock 9
fi
if [ ! -e "$base/.smartt-built" ]; then
	t0=$(date +%s)
	echo "debug-kernel: building $ver with KASAN, lockdep, kmemleak and UBSAN in $build (cold: about 50 minutes on 2 cores)" >&2
	(cd "$pristine" && "$venv/bin/virtme-configkernel" --defconfig \
		--custom "${frags[0]}" --custom "${frags[1]}" O="$build") >"$base/config.log" 2>&1 ||
		{ cat "$base/config.log" >&2; echo "debug-kernel: configuring failed" >&2; exit 1; }
	# Every option a fragment asks for must have survived olddefconfig.
	missing=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=n) opt=${line%%=*}
			grep -q "^$opt=[ym]" "$build/.config" && { echo "debug-kernel: $opt still set" >&2; missing=1; } ;;
		CONFIG_*=*) grep -qxF "$line" "$build/.config" ||
			{ echo "debug-kernel: $line did not survive configuration" >&2; missing=1; } ;;
		esac
	done < <(cat "${frags[@]}")
	[ "$missing" = 0 ] || exit 1
	if ! nice make -C "$pristine" O="$build" -j"$(nproc)" bzImage modules >"$base/build.log" 2>&1; then
		tail -n 40 "$base/build.log" >&2
		echo "debug-kernel: build failed (whole log: $base/build.log)" >&2
		exit 1
	fi
	rm -rf "$base/modroot"
	make -s -C "$pristine" O="$build" INSTALL_MOD_PATH="$base/modroot" modules_install >>"$base/build.log" 2>&1 ||
		{ echo "debug-kernel: modules_install failed" >&2; exit 1; }
	echo "$(( $(date +%s) - t0 ))" >"$base/build-seconds"
	touch "$base/.smartt-built"
	echo "debug-kernel: built in $(cat "$base/build-seconds") s" >&2
fi
echo "$build"
