#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt.ko through DKMS, from this tree (`make dkms`, `make dkms-remove`).
#
#   dkms.sh install [RELEASE]   copy the module's sources to
#                               /usr/src/smartt-VERSION, then dkms add,
#                               build and install for RELEASE (default: the
#                               running kernel); DKMS rebuilds it for every
#                               kernel installed later
#   dkms.sh remove              dkms remove every version of smartt that
#                               this script added, and its sources
#   dkms.sh sources DIR         only copy the module's sources and dkms.conf
#                               into DIR (the smartt-dkms package's
#                               /usr/src/smartt-VERSION; no root needed)
#
# The build is Kbuild's (dkms.conf).  When it fails, Kbuild's or the
# compiler's message is printed from DKMS's make.log and the module is
# removed from DKMS again: nothing half-installed stays.  A smartt added by
# the smartt-dkms package is left alone (apt/dpkg own it).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
name=smartt

die() { echo "dkms: error: $*" >&2; exit 1; }
say() { echo "dkms: $*"; }

ver=$(cat "$top/VERSION")
src=/usr/src/$name-$ver
tmp=

need_dkms() {
	[ "$(id -u)" = 0 ] || die "must run as root (DKMS installs into /usr/src and /lib/modules)"
	command -v dkms >/dev/null || die "dkms is not installed (make deps)"
	tmp=$(mktemp -d /tmp/smartt-dkms.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
}

# sources DIR: what DKMS builds from: Kbuild, VERSION, the module's C
# sources and headers and the compat probe (kernel/tests/ holds KUnit
# suites and test modules that Kbuild builds only on request), and
# dkms.conf with this VERSION.
sources() {
	local dir=$1
	mkdir -p "$dir"
	cp "$top/Kbuild" "$top/VERSION" "$dir/"
	(cd "$top" && find kernel -path kernel/tests -prune -o -type f \
		\( -name '*.[ch]' -o -name '*.sh' \) -print0 | xargs -0 cp --parents -t "$dir")
	sed "s/#MODULE_VERSION#/$ver/" "$top/dkms.conf" >"$dir/dkms.conf"
}

package_owned() { # VERSION: installed by the smartt-dkms package?
	dpkg-query -S "/usr/src/$name-$1" >/dev/null 2>&1
}

# remove_ours: every version of smartt in DKMS that no package owns.
remove_ours() {
	local d v
	for d in /var/lib/dkms/$name/*/; do
		[ -d "$d" ] || continue
		v=$(basename "$d")
		[ "$v" = original_module ] && continue
		if package_owned "$v"; then
			say "smartt $v belongs to the smartt-dkms package: left alone (apt remove smartt-dkms)"
			continue
		fi
		say "dkms remove $name/$v --all"
		dkms remove -m "$name" -v "$v" --all >/dev/null 2>&1 || true
		rm -rf "/usr/src/$name-$v"
	done
	# sources copied by an install that never reached dkms add
	for d in /usr/src/$name-*/; do
		[ -d "$d" ] || continue
		v=${d%/}
		v=${v#/usr/src/$name-}
		package_owned "$v" || [ -d "/var/lib/dkms/$name/$v" ] || rm -rf "$d"
	done
	rmdir "/var/lib/dkms/$name" 2>/dev/null || true
}

# make_log RELEASE: DKMS's make.log of a failed build (it stays in the
# build directory when the build fails).
make_log() {
	local f
	for f in "/var/lib/dkms/$name/$ver/build/make.log" \
		"/var/lib/dkms/$name/$ver/$1/$(uname -m)/log/make.log"; do
		[ -r "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# step STEP RELEASE: dkms STEP for RELEASE; on failure print why, undo
# the add, exit 1.
step() {
	dkms "$1" -m "$name" -v "$ver" ${2:+-k "$2"} >"$tmp/out" 2>&1 || failed "$1" "${2:-}"
}

failed() {
	local log keep
	echo "dkms: dkms $1 of $name $ver${2:+ for $2} failed" >&2
	if [ "$1" = build ] && log=$(make_log "$2"); then
		# Kbuild's $(error ...) and the compiler's errors, else the tail
		if grep -E '\*\*\*|error:|Error [0-9]' "$log" >/dev/null; then
			grep -E -B2 -A2 '\*\*\*|error:|Error [0-9]' "$log" | head -n 40 >&2 || true
		else
			tail -n 20 "$log" >&2
		fi
		# the build directory goes with the module: keep the log
		keep=$(mktemp /tmp/smartt-dkms-make.XXXXXX)
		cp "$log" "$keep"
		echo "dkms: DKMS's make.log: $keep" >&2
	else
		tail -n 20 "$tmp/out" >&2
	fi
	dkms remove -m "$name" -v "$ver" --all >/dev/null 2>&1 || true
	rm -rf "$src"
	rmdir "/var/lib/dkms/$name" 2>/dev/null || true
	echo "dkms: nothing installed" >&2
	exit 1
}

case "${1:-}" in
install)
	rel=${2:-$(uname -r)}
	need_dkms
	package_owned "$ver" &&
		die "smartt $ver is installed by the smartt-dkms package: remove it first (apt remove smartt-dkms)"
	[ -e "/lib/modules/$rel/build/Makefile" ] ||
		die "no kernel headers for $rel (/lib/modules/$rel/build): install linux-headers-$rel, or pass KERNEL=6.1|6.12"
	remove_ours
	say "sources -> $src"
	sources "$src"
	say "dkms add $name/$ver"
	step add
	say "dkms build $name/$ver for $rel (Kbuild; a minute or more)"
	step build "$rel"
	say "dkms install $name/$ver for $rel"
	step install "$rel"
	say "installed: $(modinfo -k "$rel" -n "$name")"
	say "'modprobe smartt' loads it (on $rel); DKMS rebuilds it for kernels installed later"
	;;
remove)
	need_dkms
	remove_ours
	say "done"
	;;
sources)
	[ -n "${2:-}" ] || { echo "usage: dkms.sh sources DIR" >&2; exit 2; }
	sources "$2"
	;;
*)
	echo "usage: dkms.sh install [RELEASE] | remove | sources DIR" >&2
	exit 2
	;;
esac
