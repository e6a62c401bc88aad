#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Which supported kernels are installed.
#
#   kernels.sh list            "SERIES RELEASE" per installed kernel with headers
#   kernels.sh release SERIES  newest installed RELEASE of SERIES (6.1 or 6.12)
#                              that has both headers and a bootable image
#   kernels.sh series          the supported series, one per line
set -euo pipefail

SUPPORTED="6.1 6.12"

series_of() { # 6.1.0-56-amd64 -> 6.1, 6.12.117+deb12-amd64 -> 6.12
	echo "$1" | sed -E 's/^([0-9]+\.[0-9]+)[.-].*/\1/'
}

list() {
	local d rel s
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] || continue
		rel=$(basename "$(dirname "$d")")
		s=$(series_of "$rel")
		case " $SUPPORTED " in *" $s "*) echo "$s $rel" ;; esac
	done | sort -V
}

case "${1:-}" in
list) list ;;
series) printf '%s\n' $SUPPORTED ;;
release)
	want=${2:?usage: kernels.sh release SERIES}
	list | while read -r s rel; do
		if [ "$s" = "$want" ] && [ -r "/boot/vmlinuz-$rel" ]; then
			echo "$rel"
		fi
	done | sort -V | tail -n 1 | grep . ||
		{ echo "kernels.sh: no installed $want kernel with headers and image (run make deps)" >&2; exit 1; }
	;;
*) echo "usage: kernels.sh list | series | release SERIES" >&2; exit 2 ;;
esac
