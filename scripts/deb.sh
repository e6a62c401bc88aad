#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: the Debian packages smartt-dkms and smartt-tools, built by
# dpkg-buildpackage (debhelper, dh-dkms; debian/) from a copy of the tree
# under build/deb/, then checked by lintian.  The tree itself is not
# written to.
#
#   deb.sh [--if-stale]
#
# In build/deb/: smartt-dkms_VERSION_all.deb, smartt-tools_VERSION_ARCH.deb
# (with the .buildinfo and .changes), build.log (dpkg-buildpackage's
# output), lintian.log and lintian.rc (lintian's tags and exit status) and
# source.sha1 (the digest of the tree they were built from).  The version
# is VERSION's; debian/changelog is written here, from VERSION.
#
# --if-stale: build only if build/deb/ holds no packages of this very tree
# (check.sh runs it before the guests that install them).  The exit status
# is then lintian's verdict on the packages that are there.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb

die() { echo "deb: error: $*" >&2; exit 1; }
say() { echo "deb: $*"; }

if_stale=0
case "${1:-}" in
--if-stale) if_stale=1 ;;
"") ;;
*) echo "usage: deb.sh [--if-stale]" >&2; exit 2 ;;
esac

for t in dpkg-buildpackage dh dh_dkms lintian; do
	command -v "$t" >/dev/null || die "$t is not installed (make deps installs debhelper, dh-dkms, lintian)"
done

ver=$(cat "$top/VERSION")
arch=$(dpkg --print-architecture)
debs=("$out/smartt-dkms_${ver}_all.deb" "$out/smartt-tools_${ver}_${arch}.deb")
mkdir -p "$out"
# one build at a time (check.sh's guests start side by side)
exec 9>"$top/build/.lock-deb"
flock 9

# files: the tree as git sees it (tracked and new files, not the ignored
# ones), NUL-separated; without git, everything but build/
files() {
	local f
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$top" ls-files -z -co --exclude-standard |
			while IFS= read -r -d '' f; do
				[ -e "$top/$f" ] && printf '%s\0' "$f"
			done
	else
		(cd "$top" && find . \( -path ./build -o -path ./.git \) -prune -o -type f -print0) |
			sed -z 's|^\./||'
	fi
	return 0
}

files | sort -z >"$out/files.tmp"
digest=$(cd "$top" && { xargs -0 sha1sum <"$out/files.tmp"; xargs -0 stat -c '%a %n' <"$out/files.tmp"; } |
	sha1sum | cut -c1-40)

if [ "$if_stale" = 1 ] && [ "$(cat "$out/source.sha1" 2>/dev/null)" = "$digest" ] &&
	[ -e "${debs[0]}" ] && [ -e "${debs[1]}" ] && [ -e "$out/lintian.rc" ]; then
	rm -f "$out/files.tmp"
	say "packages of this tree are in ${out#"$top"/}/ already"
	exit "$(cat "$out/lintian.rc")"
fi

src=$out/smartt-$ver
rm -rf "$src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out/source.sha1" \
	"$out/lintian.log" "$out/lintian.rc"
mkdir -p "$src"
tar -C "$top" --null -T "$out/files.tmp" -cf - | tar -C "$src" -xf -
rm -f "$out/files.tmp"

# debian/changelog from VERSION: one entry, dated by the last commit (the
# packages of one commit are the same whenever they are built)
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	date=$(git -C "$top" log -1 --format=%ct)
	desc=$(git -C "$top" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
else
	date=$(stat -c %Y "$top/VERSION")
	desc="a tree without git"
fi
maint=$(sed -n 's/^Maintainer: //p' "$src/debian/control")
cat >"$src/debian/changelog" <<EOF
smartt ($ver) unstable; urgency=medium

  * smartt $ver, built by \`make deb\` from $desc.

 -- $maint  $(LC_ALL=C date -R -u -d "@$date")
EOF

say "dpkg-buildpackage -b in ${src#"$top"/} (log: ${out#"$top"/}/build.log)"
t0=$(date +%s)
if ! (cd "$src" && SOURCE_DATE_EPOCH=$date dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	if grep -q 'Unmet build dependencies' "$out/build.log"; then
		grep 'Unmet build dependencies' "$out/build.log" >&2
		die "build dependencies missing: run make deps"
	fi
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed (${out#"$top"/}/build.log)"
fi
rm -rf "$src"
for d in "${debs[@]}"; do
	[ -e "$d" ] || die "dpkg-buildpackage made no $(basename "$d")"
done
echo "$digest" >"$out/source.sha1"
say "built in $(( $(date +%s) - t0 )) s:"
for d in "${debs[@]}"; do
	say "  ${d#"$top"/}"
done

# lintian: every tag, down to pedantic; those the packages keep are
# overridden in debian/*.lintian-overrides, each with its reason
rc=0
lintian --display-info --pedantic --fail-on error,warning,info,pedantic \
	"$out/smartt_${ver}_${arch}.changes" >"$out/lintian.raw" 2>&1 || rc=$?
# (its advice against running as root is not a tag)
grep -v 'running with root privileges' "$out/lintian.raw" >"$out/lintian.log" || true
rm -f "$out/lintian.raw"
echo "$rc" >"$out/lintian.rc"
if [ "$rc" = 0 ]; then
	say "lintian: clean"
else
	sed 's/^/deb: lintian: /' "$out/lintian.log" >&2
	say "lintian: tags above (${out#"$top"/}/lintian.log)"
fi
exit "$rc"
