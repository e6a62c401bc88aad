#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The suite inside a QEMU guest (started by scripts/vm-run.sh).
#
#   run_guest.sh [-o TAPFILE] MODDIR [TEST...]
#
# Installs MODDIR/smartt.ko and the module indexes staged on the host by
# scripts/stage-modules.sh into the guest's (overlay) /lib/modules, so that
# modprobe and autoloading work, runs each kselftest (default: every
# selftests/smartt_*.sh), unloads the module, and fails if the guest kernel
# logged a warning, oops or leak meanwhile.  Prints KTAP: one top-level line
# per test; each test's own output is indented as "# ...".
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = -o ]; then
	exec > >(tee "$2") 2>&1
	shift 2
fi
moddir=${1:?usage: run_guest.sh [-o TAPFILE] MODDIR [TEST...]}
shift
rel=$(uname -r)
timeout_s=${SMARTT_TEST_TIMEOUT:-600}
# slower kernels (the debug kernel's sanitizers) scale every test's limit
scale=${SMARTT_TIMEOUT_SCALE:-1}
case $scale in ''|*[!0-9]*|0) echo "run_guest: SMARTT_TIMEOUT_SCALE must be a positive integer" >&2; exit 2 ;; esac

notes=()
if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=("$here"/smartt_*.sh)
	# The fabric's RED curve needs ~1000 packets per point, which takes
	# minutes under TCG: the host runs it on every `make check` (BPF-only),
	# guests only with SMARTT_SELFTESTS_FULL=1.  So do the fabric's
	# trimming and multipath tests (no module either, 5 min each in a
	# guest): the guests' transport tests trim and spray through the same
	# port programs on both kernels.
	# smartt_cc_fairness.sh takes ~4 min under TCG and its smartt cases
	# do not pass yet (Documentation/tcp.rst, "Status"): it runs only
	# with SMARTT_SELFTESTS_FULL=1 or by name.
	# smartt_bpf_cc.sh (the BPF congestion controls; 4 min under TCG,
	# mostly the verifier) runs on the host on every `make check`; in
	# guests with SMARTT_SELFTESTS_FULL=1 or by name
	# (Documentation/compat.rst has its 6.1 and 6.12 results).
	# A test whose header has a line "# kernels: 6.1" (or "6.12", or
	# both) runs in the guests of `make check` (plain or time-warped)
	# only on those kernels; SMARTT_SELFTESTS_FULL=1 runs it on every
	# kernel.  The
	# kernels share the long tests so that the two guests, side by side,
	# take about as long as each other: what differs between the kernels
	# (the compat flags, the verifier) is exercised on both by the tests
	# without the line.
	# A test whose header has the line "# timewarp" measures timing
	# that TCG's jitter would decide: it runs in the time-warped guest
	# of `make check` (SMARTT_GUEST_TIMEWARP=1, scripts/check.sh),
	# which runs only those; the plain guests leave it out.
	for i in "${!tests[@]}"; do
		if sed -n '1,60p' "${tests[$i]}" | grep -qx '# timewarp'; then
			[ "${SMARTT_GUEST_TIMEWARP:-0}" = 1 ] && continue
			notes+=("$(basename "${tests[$i]}"): in the time-warped guest (# timewarp)")
		elif [ "${SMARTT_GUEST_TIMEWARP:-0}" != 1 ]; then
			continue
		fi
		unset "tests[$i]"
	done
	tests=("${tests[@]}")
	if [ "${SMARTT_SELFTESTS_FULL:-0}" != 1 ]; then
		tests=("${tests[@]/"$here/smartt_fabric_red.sh"}")
		tests=("${tests[@]/"$here/smartt_cc_fairness.sh"}")
		tests=("${tests[@]/"$here/smartt_bpf_cc.sh"}")
		tests=("${tests[@]/"$here/smartt_fabric_trim.sh"}")
		tests=("${tests[@]/"$here/smartt_fabric_multipath.sh"}")
		# about 8 min in a TCG guest; the host's fabric stage runs it,
		# and smartt_fabric_crp.sh loads the same port program here
		tests=("${tests[@]/"$here/smartt_fabric_crp_netns.sh"}")
		# the delay line serves kernels without sch_fq (the host's);
		# guests delay with fq
		tests=("${tests[@]/"$here/smartt_fabric_delay.sh"}")
		# 10^6 fuzz packets take minutes: `make fuzz-transport`,
		# and `make check-debug` with fewer
		tests=("${tests[@]/"$here/smartt_transport_fuzz.sh"}")
		mm=$(echo "$rel" | cut -d. -f1,2)
		for i in "${!tests[@]}"; do
			[ -n "${tests[$i]}" ] || continue
			k=$(sed -n '1,60{s/^# kernels: //p}' "${tests[$i]}" | head -1)
			[ -n "$k" ] || continue
			case " $k " in *" $mm "*) continue ;; esac
			notes+=("$(basename "${tests[$i]}"): on kernel $k only (# kernels:; SMARTT_SELFTESTS_FULL=1 runs it here too)")
			unset "tests[$i]"
		done
		tests=("${tests[@]}")
	fi
fi
# Guest-sized fabric tests (TCG runs ~1000 packets/s at ~10-20 Mbit/s;
# Documentation/fabric.rst).  Explicit settings win.
if [ "${SMARTT_SELFTESTS_FULL:-0}" != 1 ]; then
	export SF_RATES=${SF_RATES:-10mbit} SF_SECONDS=${SF_SECONDS:-4} \
		SF_RATE_LEN=${SF_RATE_LEN:-4000} SF_MP_PER_FLOW=${SF_MP_PER_FLOW:-1} \
		SF_MP_PPS=${SF_MP_PPS:-300} SF_TRIM_BURST=${SF_TRIM_BURST:-40} \
		SF_TS_PKTS=${SF_TS_PKTS:-30}
fi
modprobe sch_fq 2>/dev/null
if [ "${SMARTT_INJECT_FAIL:-}" = selftest ]; then
	tests+=("$here/harness/inject_fail.sh")
fi
for i in "${!tests[@]}"; do
	[ -n "${tests[$i]}" ] || { unset "tests[$i]"; continue; }
	case ${tests[$i]} in */*) ;; *) tests[$i]=$here/${tests[$i]} ;; esac
done

n=0
failed=0
result() { # result 0|1|4 DESCRIPTION [REASON]
	n=$((n + 1))
	case $1 in
	0) echo "ok $n $2" ;;
	4) echo "ok $n $2 # SKIP ${3:-}" ;;
	*) echo "not ok $n $2${3:+ # $3}"; failed=1 ;;
	esac
}
indent() { sed -u 's/^/# /'; }

# A kernel with kmemleak (the debug kernel): what it suspected before the
# suite is not ours.
kmemleak=/sys/kernel/debug/kmemleak
[ -w "$kmemleak" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -w "$kmemleak" ] && echo clear >"$kmemleak" 2>/dev/null

echo "KTAP version 1"
echo "# guest kernel $rel, module from $moddir"
echo "1..$(( ${#tests[@]} + 4 + $([ -w "$kmemleak" ] && echo 1 || echo 0) ))"
for t in "${notes[@]}"; do echo "# $t"; done

log_start=$(dmesg | wc -l)

install_module() {
	local staged=$moddir/modroot/lib/modules/$rel
	[ -r "$staged/updates/smartt/smartt.ko" ] ||
		{ echo "no $staged/updates/smartt/smartt.ko (scripts/stage-modules.sh)"; return 1; }
	# a kernel of our own (the debug kernel) has no tree here, or only
	# virtme-ng's link to its build directory: take the staged one
	# whole (its links point into the host's cache, shared)
	if [ -L "/lib/modules/$rel" ] || [ ! -d "/lib/modules/$rel" ]; then
		rm -f "/lib/modules/$rel"
		cp -a "$staged" /lib/modules/ && modinfo smartt >/dev/null
		return
	fi
	cp -r "$staged/updates" "/lib/modules/$rel/" &&
		cp "$staged"/modules.* "/lib/modules/$rel/" &&
		modinfo smartt >/dev/null
}
if out=$(install_module 2>&1); then
	result 0 "install smartt.ko into the guest"
else
	echo "$out" | indent
	result 1 "install smartt.ko into the guest"
fi

for t in "${tests[@]}"; do
	name=$(basename "$t")
	t0=$(date +%s)
	# a test that needs longer says so in its header: "# timeout=SECONDS"
	limit=$(sed -n '1,60s/^# timeout=\([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
	limit=$(( ${limit:-$timeout_s} * scale ))
	timeout --kill-after=10 "$limit" "$t" 2>&1 | indent
	rc=${PIPESTATUS[0]}
	echo "# $name took $(($(date +%s) - t0)) s"
	case $rc in
	0) result 0 "$name" ;;
	4) result 4 "$name" "skipped by the test (reason above)" ;;
	124) result 1 "$name" "timed out after ${limit}s" ;;
	*) result 1 "$name" "exit $rc" ;;
	esac
done

if [ -e /sys/module/smartt ]; then
	if out=$(modprobe -r smartt 2>&1); then
		result 0 "unload smartt after the suite"
	else
		echo "$out" | indent
		result 1 "unload smartt after the suite"
	fi
else
	result 0 "unload smartt after the suite"
fi

# kmemleak after the module is gone: an object it reports as unreferenced
# whose allocation backtrace passes through smartt (a "[smartt]" symbol,
# or a bare address in module space once the module is unloaded: every
# other module this suite uses is built into the debug kernel) is a leak
# of ours.  Objects are reported once unreferenced for 5 s and two scans.
kmemleak_check() {
	local report ours total what="kmemleak: nothing allocated through smartt leaked"

	sleep 6
	# a kmemleak that disabled itself (out of metadata) refuses to scan
	if ! { echo scan >"$kmemleak" && sleep 6 && echo scan >"$kmemleak" &&
		report=$(cat "$kmemleak"); } 2>/dev/null; then
		result 1 "$what" "kmemleak does not scan (disabled?)"
		return
	fi
	ours=$(awk '
		/^unreferenced object/ { if (obj != "" && hit) print obj; obj = $0; hit = 0; next }
		{ obj = obj "\n" $0 }
		/\[smartt\]/ || /\] 0xffffffff[0-9a-f]+$/ { hit = 1 }
		END { if (obj != "" && hit) print obj }' <<<"$report")
	total=$(grep -c '^unreferenced object' <<<"$report")
	echo "# kmemleak: $total unreferenced object(s) after the suite, $(grep -c '^unreferenced object' <<<"$ours") allocated through smartt"
	if [ -n "$ours" ]; then
		printf '%b\n' "$ours" | head -n 200 | indent
		result 1 "$what" "see above"
	else
		[ "$total" -gt 0 ] && head -n 60 <<<"$report" | indent
		result 0 "$what"
	fi
}
[ -w "$kmemleak" ] && kmemleak_check

# (kmemleak's own "new suspected memory leaks" lines were judged above)
found=$(dmesg | tail -n +"$((log_start + 1))" |
	if [ -w "$kmemleak" ]; then grep -v 'kmemleak: [0-9]* new suspected memory leaks'; else cat; fi |
	"$here"/dmesg_scan.sh)
if [ -n "$found" ]; then
	echo "$found" | indent
	result 1 "guest kernel log is clean" "warnings above"
else
	result 0 "guest kernel log is clean"
fi

# The harness checks itself: a deliberate WARN in a test-only module must be
# caught by the same scan.
if [ -r "$moddir/smartt_harness_warn.ko" ]; then
	mark=$(dmesg | wc -l)
	insmod "$moddir/smartt_harness_warn.ko" 2>/dev/null
	if [ -n "$(dmesg | tail -n +"$((mark + 1))" | "$here"/dmesg_scan.sh)" ]; then
		result 0 "harness: dmesg scan catches a deliberate guest WARN"
	else
		result 1 "harness: dmesg scan catches a deliberate guest WARN" "scan missed it"
	fi
else
	result 4 "harness: dmesg scan catches a deliberate guest WARN" \
		"smartt_harness_warn.ko not built (SMARTT_TEST_MODULES=1)"
fi

exit $failed
