#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of an extracted, pristine linux-source-6.12 tree, extracting
# Debian's tarball on first use.  The tree lives outside the checkout, keyed
# by the package version, and is shared by: the KUnit kernel builds (which
# copy it), checkpatch.pl, and the kselftest harness header used by the
# userspace unit tests.  Never build inside it.
set -euo pipefail

cache=${SMARTT_CACHE:-/var/cache/smartt}
tarball=/usr/src/linux-source-6.12.tar.xz
[ -r "$tarball" ] || { echo "linux-src: $tarball missing (run make deps)" >&2; exit 1; }
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	{ echo "linux-src: linux-source-6.12 is not installed (run make deps)" >&2; exit 1; }
dir=$cache/src/linux-source-${ver//[^A-Za-z0-9.+-]/_}
if [ ! -e "$dir/.smartt-complete" ]; then
	echo "linux-src: extracting $tarball into $dir" >&2
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	tar -C "$dir.tmp" --strip-components=1 -xJf "$tarball"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	touch "$dir/.smartt-complete"
fi
echo "$dir"
