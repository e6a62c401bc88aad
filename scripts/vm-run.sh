#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a QEMU guest booting one of Debian's kernels, through
# virtme-ng.  The guest shares the host's root filesystem read-only (with
# writable overlays on /etc, /lib, /usr, /var, /tmp, ...), so every tool
# installed on the host is there; OUTDIR (if given) is shared read-write.
#
#   vm-run.sh [-o OUTDIR] [-m MEM] [-t TIMEOUT_S] SERIES|RELEASE|KDIR -- COMMAND...
#
# KDIR: a kernel build directory of our own (scripts/debug-kernel.sh); its
# arch/x86/boot/bzImage boots.
# KVM is used only if a probe boot proves it works on this machine (a
# /dev/kvm that exists can still hang guests); the probe's verdict is cached
# per host boot.  Otherwise the guest runs under TCG.  The exit status is the
# command's, 124 if the guest timed out.
#
# SMARTT_VM_TIMEWARP=1: time warp.  The guest runs under TCG with QEMU's
# instruction-count clock (-icount shift=0,sleep=off): guest time advances
# by the instructions executed, 1 ns each, and jumps over idle time, so it
# no longer depends on the host's load and delay signals are the emulated
# network's.  Guest seconds cost more wall time (about 13 s per busy guest
# second measured), and wall-clock timeouts (SMARTT_VM_TIMEOUT) count wall
# time.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SMARTT_CACHE:-/var/cache/smartt}
venv=${SMARTT_VENV:-/opt/smartt/venv}
export PATH=$venv/bin:$PATH

outdir= mem=2G tmo=${SMARTT_VM_TIMEOUT:-1800}
while getopts "o:m:t:" opt; do
	case $opt in
	o) outdir=$OPTARG ;;
	m) mem=$OPTARG ;;
	t) tmo=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
target=${1:?usage: vm-run.sh [-o OUTDIR] SERIES|RELEASE -- COMMAND...}
shift
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "vm-run: no command" >&2; exit 2; }

command -v vng >/dev/null || { echo "vm-run: virtme-ng not installed in $venv (run make deps)" >&2; exit 2; }

case $target in
/*)	rel=$(cat "$target/include/config/kernel.release" 2>/dev/null) ||
		{ echo "vm-run: $target is not a kernel build directory" >&2; exit 2; }
	kimg=$target/arch/x86/boot/bzImage ;;
*-amd64) rel=$target kimg=/boot/vmlinuz-$target ;;
*) rel=$("$top"/scripts/kernels.sh release "$target") kimg=/boot/vmlinuz-$rel ;;
esac
[ -r "$kimg" ] || { echo "vm-run: $kimg not readable (run make deps)" >&2; exit 2; }

# Does KVM really work?  Boot a guest that prints a token, with a deadline
# far below a normal TCG boot.  Cached per host boot and QEMU version.
accel_args() {
	local key f
	key=$(cat /proc/sys/kernel/random/boot_id)-$(qemu-system-x86_64 --version | head -1 | tr -cd '0-9.')
	f=$cache/kvm-probe-$key
	if [ ! -e "$f" ]; then
		mkdir -p "$cache"
		local verdict=tcg
		if [ -w /dev/kvm ]; then
			if timeout -k 5 "${SMARTT_KVM_PROBE_TIMEOUT:-30}" \
				vng --run "$kimg" --cpus 1 --memory 512M \
				--exec "echo smartt-kvm-probe-ok" </dev/null 2>/dev/null |
				grep -q smartt-kvm-probe-ok; then
				verdict=kvm
			fi
		fi
		echo "$verdict" >"$f"
		echo "vm-run: KVM probe: $verdict" >&2
	fi
	[ "$(cat "$f")" = kvm ] || echo --disable-kvm
}

args=(--run "$kimg" --cpus "${SMARTT_VM_CPUS:-2}" --memory "$mem" --cwd "$top")
[ -n "$outdir" ] && { mkdir -p "$outdir"; args+=(--rwdir "$outdir"); }
if [ "${SMARTT_VM_TIMEWARP:-0}" = 1 ]; then
	# icount needs TCG
	accel=--disable-kvm
	args+=(--disable-kvm --qemu-opts "-icount shift=0,sleep=off")
else
	accel=$(accel_args)
	[ -n "$accel" ] && args+=("$accel")
fi

# vng --exec takes one shell string; quote each word.
cmd=$(printf '%q ' "$@")
tw=
[ "${SMARTT_VM_TIMEWARP:-0}" = 1 ] && tw=", time warp"
echo "vm-run: booting $rel (${accel:+TCG, }${accel:-KVM}$tw)" >&2
rc=0
timeout -k 10 "$tmo" vng "${args[@]}" --exec "$cmd" </dev/null || rc=$?
exit $rc
