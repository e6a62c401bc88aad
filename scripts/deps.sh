#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything smartt needs on a Debian bookworm machine, as root.
# Idempotent: a second run only checks.  Prints what it installs and fails
# with a clear message when a package cannot be had.
set -euo pipefail

VIRTME_NG_VERSION=1.42
VENV=${SMARTT_VENV:-/opt/smartt/venv}

die() { echo "deps: error: $*" >&2; exit 1; }
say() { echo "deps: $*"; }

[ "$(id -u)" = 0 ] || die "must run as root (apt-get install)"
[ -r /etc/debian_version ] || die "not a Debian system"

export DEBIAN_FRONTEND=noninteractive

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return 0
	say "apt-get update"
	apt-get update -qq || die "apt-get update failed"
	apt_updated=1
}

# Newest 6.12 version for which both the unsigned image and the headers exist.
pick_612() {
	local v
	for v in $(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
		   sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12\)-amd64-unsigned .*/\1/p' | sort -V -r); do
		if apt-cache show "linux-headers-$v-amd64" >/dev/null 2>&1; then
			echo "$v"
			return 0
		fi
	done
	return 1
}

PKGS="build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio
      rsync git python3 python3-venv python3-matplotlib
      linux-image-amd64 linux-headers-amd64 linux-source-6.12
      qemu-system-x86 busybox-static
      clang llvm libbpf-dev bpftool iproute2 ethtool iperf3 iptables sparse
      valgrind jq procps psmisc tcpdump libclang-rt-14-dev
      dkms debhelper dh-dkms dh-python lintian zlib1g-dev ccache
      tshark"

# Use the already installed 6.12 kernel if there is one with headers; else pick.
have612=$(ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -1 || true)
v612=
if [ -n "$have612" ]; then
	v612=${have612#/usr/src/linux-headers-}
	v612=${v612%-amd64}
	[ -e "/boot/vmlinuz-$v612-amd64" ] || v612=
fi
if [ -z "$v612" ]; then
	apt_update
	v612=$(pick_612) || die "no linux-image-6.12.*+deb12-amd64-unsigned with matching headers in the archive"
fi
PKGS="$PKGS linux-image-$v612-amd64-unsigned linux-headers-$v612-amd64"

missing=
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
	apt_update
	# tshark (smarttctl decode's tests run the project's Lua dissector in
	# it) asks whether non-root users may capture: answer no, without a
	# question.  debconf-set-selections is idempotent.
	case " $missing " in
	*" tshark "*)
		echo "wireshark-common wireshark-common/install-setuid boolean false" |
			debconf-set-selections ;;
	esac
	say "installing:$missing"
	# The guests boot with virtme-ng's own initramfs: skip Debian's per-kernel
	# initramfs generation in the kernel postinst hook (INITRD=No), which
	# takes minutes.
	INITRD=No apt-get install -y -qq --no-install-recommends $missing ||
		die "apt-get install failed for:$missing"
else
	say "all Debian packages present"
fi

# Kernel images are installed 0600 by Debian; the QEMU runner reads them as root
# anyway, but make them readable so a non-root 'make demo' can boot too.
chmod 0644 /boot/vmlinuz-* 2>/dev/null || true

# virtme-ng (pinned) in its own venv.
# (sed reads pip's whole output: grep -q would end the pipe early, and
# pipefail would take pip's SIGPIPE for a missing package)
have_vng=$("$VENV/bin/pip" show virtme-ng 2>/dev/null | sed -n 's/^Version: //p' || true)
if [ -x "$VENV/bin/vng" ] && [ "$have_vng" = "$VIRTME_NG_VERSION" ]; then
	say "virtme-ng $VIRTME_NG_VERSION present in $VENV"
else
	say "installing virtme-ng==$VIRTME_NG_VERSION into $VENV"
	mkdir -p "$(dirname "$VENV")"
	/usr/bin/python3 -m venv --system-site-packages "$VENV" || die "cannot create venv $VENV"
	"$VENV/bin/pip" install -q "virtme-ng==$VIRTME_NG_VERSION" || die "pip install virtme-ng failed"
fi

say "kernels: $(ls /usr/src | sed -n 's/^linux-headers-\(.*-amd64\)$/\1/p' | tr '\n' ' ')"
say "done"
