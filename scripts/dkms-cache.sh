#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Warm a compiler cache (ccache) with the compile DKMS runs when the
# smartt-dkms package of build/deb/ is installed, for
# selftests/smartt_package.sh: in a TCG guest, gcc alone takes about ten
# minutes over smartt.ko.  With this cache on the guest's PATH, DKMS still
# runs the whole build (Kbuild, the compat probe, modpost, BTF, the link)
# and gcc's objects come from the cache.
#
#   dkms-cache.sh CACHEDIR RELEASE...
#   dkms-cache.sh --env CACHEDIR    the environment to run dpkg/dkms with
#                                   (NAME=VALUE lines) to use the cache
#
# The compile is DKMS's, path for path: the package's /usr/src/smartt-VERSION
# is copied to /var/lib/dkms/smartt/VERSION/build on a private tmpfs
# mounted over /var/lib/dkms in a mount namespace of its own (the host's
# DKMS state is not touched), then Kbuild runs there for RELEASE with
# ccache's gcc first on the PATH.  Same paths, same flags, same headers: the
# guest's compile hits.  What ccache hashes of the environment is fixed
# (the locale); --env prints the environment the guest runs dpkg with.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "dkms-cache: error: $*" >&2; exit 1; }

# env CACHEDIR: gcc is ccache's; sources that DKMS has just copied are not
# "too new" for ccache's direct mode (their contents are hashed anyway)
env_for() {
	echo "PATH=/usr/lib/ccache:$PATH"
	echo "CCACHE_DIR=$1"
	echo "CCACHE_TEMPDIR=$1/tmp"
	echo "CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime"
	echo "LC_ALL=C"
	echo "LANG=C"
}

if [ "${1:-}" = --env ]; then
	[ $# = 2 ] || { echo "usage: dkms-cache.sh --env CACHEDIR" >&2; exit 2; }
	env_for "$2"
	exit 0
fi

[ $# -ge 2 ] || { echo "usage: dkms-cache.sh CACHEDIR RELEASE..." >&2; exit 2; }
cache=$1
shift
[ "$(id -u)" = 0 ] || die "must run as root (a mount namespace over /var/lib/dkms)"
[ -x /usr/lib/ccache/gcc ] || die "ccache is not installed (make deps)"
ver=$(cat "$top/VERSION")
deb=$top/build/deb/smartt-dkms_${ver}_all.deb
[ -r "$deb" ] || die "no ${deb#"$top"/} (make deb)"
mkdir -p "$cache" /var/lib/dkms
cache=$(cd "$cache" && pwd)

tmp=$(mktemp -d /tmp/smartt-dkms-cache.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/pkg"
srcdir=$tmp/pkg/usr/src/smartt-$ver
[ -r "$srcdir/dkms.conf" ] || die "no usr/src/smartt-$ver/dkms.conf in $(basename "$deb")"

for rel in "$@"; do
	[ -e "/lib/modules/$rel/build/Makefile" ] ||
		die "no headers for $rel at /lib/modules/$rel/build"
	t0=$(date +%s)
	# shellcheck disable=SC2016 # expanded by the inner shell
	mapfile -t envs < <(env_for "$cache")
	unshare -m env "${envs[@]}" bash -euc '
		mount --make-rprivate /
		mount -t tmpfs smartt-dkms-cache /var/lib/dkms
		b=/var/lib/dkms/smartt/$3/build
		mkdir -p "$b"
		cp -a "$2/." "$b/"
		cd "$b"
		make -j"$(nproc)" KERNELRELEASE="$1" -C "/lib/modules/$1/build" M="$b" modules
	' dkms-cache "$rel" "$srcdir" "$ver" \
		>"$tmp/make.log" 2>&1 ||
		{ tail -n 20 "$tmp/make.log" >&2; die "the build for $rel failed"; }
	echo "dkms-cache: $rel: $(( $(date +%s) - t0 )) s, $(CCACHE_DIR=$cache ccache -s | grep -Ei '^ *(hits|misses):' | xargs)"
done
