#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every layer of smartt's tests, one stage at a time, with a
# summary per stage and the closing line "N passed, N failed[, N skipped]".
# Exits non-zero if anything failed.
#
#   check.sh [STAGE...]     stages: harness unit build style kunit fabric tools lab selftests
#                           (default: all; selftests runs on 6.1 and 6.12,
#                           or only on $KERNEL when set; $SMARTT_SELFTESTS
#                           names the selftests to run, default all)
#                           and debug (never by default: `make check-debug`,
#                           the selftests in a KASAN/lockdep/kmemleak/UBSAN
#                           kernel; $SMARTT_DEBUG_SELFTESTS names them)
#
# A stage that cannot run here (a missing tool or kernel) says why; with
# CI=true it counts as failed, otherwise as skipped.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${SMARTT_CHECK_OUT:-$top/build/check}
results=$out/results
mkdir -p "$out"
: >"$results"
export SMARTT_TOP=$top

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(harness unit build style kunit fabric tools lab selftests)
if [ -n "${KERNEL:-}" ]; then
	series=("$KERNEL")
else
	mapfile -t series < <(scripts/kernels.sh series)
fi

# run_stage NAME COMMAND...: run, keep the log, count its TAP.
run_stage() {
	local name=$1 rc t0
	shift
	t0=$(date +%s)
	echo "# ---- stage $name: $*"
	"$@" >"$out/$name.log" 2>&1
	rc=$?
	scripts/tap_count.py "$name" "$results" "$rc" <"$out/$name.log"
	echo "# stage $name took $(( $(date +%s) - t0 )) s (log: ${out#$top/}/$name.log)"
}

# cannot_run NAME REASON: the stage could not run at all.
cannot_run() {
	echo "# ---- stage $1: cannot run: $2"
	if [ "${CI:-}" = true ]; then
		echo "not ok 1 $1 # cannot run: $2" | scripts/tap_count.py "$1" "$results" 0
	else
		echo "ok 1 $1 # SKIP $2" | scripts/tap_count.py "$1" "$results" 0
	fi
}

# Module builds: warning-free (W=1) and sparse-clean, per kernel.
stage_build() { # release
	local rel=$1 log
	if scripts/build-module.sh "$rel" SMARTT_TEST_MODULES=1 >"$out/build-$rel.txt" 2>&1; then
		echo "ok 1 smartt.ko builds for $rel with W=1 and no warning"
	else
		sed 's/^/# /' "$out/build-$rel.txt"
		echo "not ok 1 smartt.ko builds for $rel with W=1 and no warning"
	fi
	log=$top/build/$rel/sparse.log
	if command -v sparse >/dev/null; then
		# C=2 checks every source file, built or not.
		flock "$top/build/.lock-$rel" make -C "/lib/modules/$rel/build" \
			M="$top/build/$rel" C=2 CHECK=sparse modules >"$log" 2>&1
		if grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log" |
			grep "^$top/build/$rel/" >"$log.found"; then
			sed 's/^/# /' "$log.found"
			echo "not ok 2 sparse is clean on $rel"
		else
			echo "ok 2 sparse is clean on $rel"
		fi
	else
		echo "ok 2 sparse is clean on $rel # SKIP sparse not installed (make deps)"
	fi
}

# checkpatch --strict on every kernel source file.
stage_style() {
	local src cp f n=0
	src=$(scripts/linux-src.sh) || { echo "not ok 1 checkpatch # no linux source"; return; }
	cp=$src/scripts/checkpatch.pl
	while read -r f; do
		n=$((n + 1))
		if perl "$cp" --strict --no-tree --quiet --show-types \
			--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "$f" >"$out/cp.txt" 2>&1; then
			echo "ok $n checkpatch --strict $f"
		else
			sed 's/^/# /' "$out/cp.txt"
			echo "not ok $n checkpatch --strict $f"
		fi
	done < <(git ls-files 'kernel/*.c' 'kernel/*.h'; git ls-files --others --exclude-standard 'kernel/*.c' 'kernel/*.h')
}

# KUnit JSON (kunit.py --json) -> TAP, one line per test case.
stage_kunit() {
	local rc=0
	scripts/kunit.sh -j "$out/kunit.json" | sed 's/^/# /' || rc=$?
	python3 - "$out/kunit.json" <<'PY'
import json, sys
try:
    data = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print(f"not ok 1 kunit results readable # {e}")
    sys.exit(0)
n = 0
for suite in data.get("sub_groups", []):
    for case in suite.get("test_cases", []):
        n += 1
        name = f"{suite.get('name')}.{case.get('name')}"
        status = case.get("status")
        if status == "PASS":
            print(f"ok {n} {name}")
        elif status == "SKIP":
            print(f"ok {n} {name} # SKIP")
        else:
            print(f"not ok {n} {name} # {status}")
if n == 0:
    print("not ok 1 kunit ran no test case")
PY
	return $rc
}

# The kselftests inside a guest booting one of Debian's kernels.
# SERIES:timewarp: the tests marked "# timewarp" (run_guest.sh), in a guest
# under QEMU's instruction-count clock (scripts/vm-run.sh).
# timewarp_wanted SERIES: a test marked "# timewarp" runs on SERIES in
# `make check`: its "# kernels:" line names SERIES, or it has none, or
# SMARTT_SELFTESTS_FULL=1 (run_guest.sh applies the same rule).
timewarp_wanted() {
	local f k
	for f in selftests/smartt_*.sh; do
		sed -n '1,60p' "$f" | grep -qx '# timewarp' || continue
		[ "${SMARTT_SELFTESTS_FULL:-0}" = 1 ] && return 0
		k=$(sed -n '1,60{s/^# kernels: //p}' "$f" | head -1)
		[ -z "$k" ] && return 0
		case " $k " in *" $1 "*) return 0 ;; esac
	done
	return 1
}

# guest_results GOUT: a guest's KTAP, or the tail of its console if it
# wrote none.
guest_results() {
	if [ -s "$1/tap" ]; then
		cat "$1/tap"
	else
		echo "# guest produced no results; console tail:"
		tail -n 40 "$1/console.log" | sed 's/^/# /'
	fi
}

stage_selftests() { # series[:timewarp]
	local s=${1%:timewarp} rel gout rc=0 tw=0
	[ "$1" = "$s" ] || tw=1
	rel=$(scripts/kernels.sh release "$s") || return 1
	scripts/build-module.sh "$rel" SMARTT_TEST_MODULES=1 >/dev/null || return 1
	scripts/stage-modules.sh "$rel" "build/$rel" || return 1
	gout=$out/guest-$s
	[ "$tw" = 1 ] && gout=$out/guest-$s-timewarp
	rm -rf "$gout"
	mkdir -p "$gout"
	# the whole suite in one guest: each test has its own limit
	# (run_guest.sh); this one only catches a guest that hangs
	SMARTT_VM_TIMEWARP=$tw scripts/vm-run.sh -t "${SMARTT_VM_TIMEOUT:-6000}" -o "$gout" "$rel" -- \
		env SMARTT_INJECT_FAIL="${SMARTT_INJECT_FAIL:-}" CI="${CI:-}" \
		SMARTT_SELFTESTS_FULL="${SMARTT_SELFTESTS_FULL:-}" SMARTT_GUEST_TIMEWARP=$tw \
		${SMARTT_FUZZ_PACKETS:+SMARTT_FUZZ_PACKETS=$SMARTT_FUZZ_PACKETS} \
		selftests/run_guest.sh -o "$gout/tap" "build/$rel" ${SMARTT_SELFTESTS:-} \
		>"$gout/console.log" 2>&1 || rc=$?
	guest_results "$gout"
	return $rc
}

# The transport's, multipath and TCP selftests in the debug kernel
# (scripts/debug-kernel.sh builds it once, ~50 min cold): its sanitizers
# and lockdep report into the kernel log, which run_guest.sh scans, and
# run_guest.sh asks kmemleak after the module is unloaded.  Every test's
# limit is scaled by SMARTT_DEBUG_TIMEOUT_SCALE (default 4); the fuzzer
# sends SMARTT_DEBUG_FUZZ_PACKETS (default 10^5).  The "# timewarp"
# tests are not in the list: their thresholds are about time in a
# time-warped guest, and the checkers slow this kernel 3-7 times.
debug_selftests_default="smartt_module.sh smartt_transport.sh smartt_transport_input.sh
smartt_transport_mem.sh smartt_transport_rel.sh smartt_transport_stress.sh
smartt_transport_trim.sh smartt_transport_fuzz.sh smartt_multipath.sh smartt_cc_select.sh smartt_cc_netns.sh
smartt_cc_rules.sh"
stage_debug() {
	local kdir rel gout rc=0
	kdir=$(scripts/debug-kernel.sh) || { echo "not ok 1 the debug kernel builds"; return 1; }
	echo "ok 1 the debug kernel builds ($kdir)"
	rel=$(cat "$kdir/include/config/kernel.release")
	if scripts/build-module.sh "$kdir" SMARTT_TEST_MODULES=1 >"$out/build-debug.txt" 2>&1; then
		echo "ok 2 smartt.ko builds for $rel with W=1 and no warning"
	else
		sed 's/^/# /' "$out/build-debug.txt"
		echo "not ok 2 smartt.ko builds for $rel with W=1 and no warning"
		return 1
	fi
	scripts/stage-modules.sh "$rel" "build/$rel" "$(dirname "$kdir")/modroot/lib/modules/$rel" || return 1
	gout=$out/guest-debug
	rm -rf "$gout"
	mkdir -p "$gout"
	# shellcheck disable=SC2086 # the list is words
	SMARTT_VM_CPUS=$(nproc) scripts/vm-run.sh -m 3G -t "${SMARTT_VM_TIMEOUT:-10800}" -o "$gout" "$kdir" -- \
		env CI="${CI:-}" SMARTT_TIMEOUT_SCALE="${SMARTT_DEBUG_TIMEOUT_SCALE:-4}" \
		SMARTT_FUZZ_PACKETS="${SMARTT_DEBUG_FUZZ_PACKETS:-100000}" \
		selftests/run_guest.sh -o "$gout/tap" "build/$rel" \
		${SMARTT_DEBUG_SELFTESTS:-$debug_selftests_default} \
		>"$gout/console.log" 2>&1 || rc=$?
	guest_results "$gout"
	return $rc
}

# The BPF switch port, smartt-fabric and the BPF congestion controls on the
# host itself (BPF-only tests need no module; the host kernel has clsact,
# struct_ops, veth and netns): the full-size versions of the fabric and
# bpf_cc tests, which TCG guests run at reduced sizes.
stage_fabric() {
	local n=0 t rc
	if make -s -C bpf >"$out/bpf-build.txt" 2>&1; then
		echo "ok $((n += 1)) bpf programs and smartt-fabric-bpf build"
	else
		sed 's/^/# /' "$out/bpf-build.txt"
		echo "not ok $((n += 1)) bpf programs and smartt-fabric-bpf build"
		return 0
	fi
	# the fabric's delay line (smartt_fabric_delay.sh)
	if make -s -C userspace smartt-delay >"$out/delay-build.txt" 2>&1; then
		echo "ok $((n += 1)) smartt-delay builds"
	else
		sed 's/^/# /' "$out/delay-build.txt"
		echo "not ok $((n += 1)) smartt-delay builds"
	fi
	for t in selftests/smartt_fabric_*.sh selftests/smartt_bpf_*.sh; do
		timeout -k 10 "${SMARTT_TEST_TIMEOUT:-900}" "$t" 2>&1 | sed 's/^/# /'
		rc=${PIPESTATUS[0]}
		case $rc in
		0) echo "ok $((n += 1)) host: $(basename "$t")" ;;
		4) echo "ok $((n += 1)) host: $(basename "$t") # SKIP (reason above)" ;;
		*) echo "not ok $((n += 1)) host: $(basename "$t") # exit $rc" ;;
		esac
	done
}

t_start=$(date +%s)
for st in "${stages[@]}"; do
	case $st in
	harness) run_stage harness selftests/harness/run.sh ;;
	unit) run_stage unit make -s -C selftests/unit run ;;
	build)
		for s in "${series[@]}"; do
			if rel=$(scripts/kernels.sh release "$s" 2>&1); then
				run_stage "build-$s" stage_build "$rel"
			else
				cannot_run "build-$s" "$rel"
			fi
		done ;;
	style) run_stage style stage_style ;;
	kunit) run_stage kunit stage_kunit ;;
	fabric)
		if [ "$(id -u)" != 0 ]; then
			cannot_run fabric "needs root (network namespaces, tc BPF)"
		else
			run_stage fabric stage_fabric
		fi ;;
	tools)
		# The tools as a host-only user meets them (selftests/tools/):
		# bad inputs of every tool, the README's quick start as written,
		# the documentation's examples.
		run_stage tools selftests/tools/run.sh ;;
	lab)
		# smartt-lab's own tests: experiment files, metrics on synthetic
		# traces, the command's errors; a tiny run on the host as root
		# (with the fabric's BPF controller, built first: the stage may
		# run alone).
		run_stage lab bash -c 'make -s -C bpf >/dev/null && exec python3 userspace/smartt_lab/tests/run_tap.py' ;;
	selftests)
		# The guests' fabric tests load the BPF programs and run the
		# fabric's controller built here (the fabric stage builds them
		# too; this stage may run alone).
		make -s -C bpf >"$out/bpf-build-guests.txt" 2>&1 ||
			echo "# make -C bpf failed (${out#"$top"/}/bpf-build-guests.txt): the guests' fabric tests will skip"
		# smartt_transport_nscc_replay.sh replays in the guest.
		make -s -C userspace smartt-replay >"$out/replay-build-guests.txt" 2>&1 ||
			echo "# make -C userspace smartt-replay failed (${out#"$top"/}/replay-build-guests.txt): smartt_transport_nscc_replay.sh will skip"
		# smartt_package.sh installs the packages of `make deb` in
		# the guests: build them first (once; nothing to do when
		# build/deb/ holds this tree's), and the compiler cache of
		# their DKMS build for the guests' kernels.
		case " ${SMARTT_SELFTESTS:-smartt_package.sh} " in
		*smartt_package*)
			if scripts/deb.sh --if-stale >"$out/deb.log" 2>&1; then :; else
				echo "# make deb: failed or lintian tags (log: ${out#"$top"/}/deb.log)"
			fi
			rels=()
			for s in "${series[@]}"; do
				rel=$(scripts/kernels.sh release "$s" 2>/dev/null) && rels+=("$rel")
			done
			if [ -e "build/deb/smartt-dkms_$(cat VERSION)_all.deb" ] && [ ${#rels[@]} -gt 0 ]; then
				scripts/dkms-cache.sh build/deb/ccache "${rels[@]}" >>"$out/deb.log" 2>&1 ||
					echo "# scripts/dkms-cache.sh failed (log: ${out#"$top"/}/deb.log): DKMS compiles in full in the guests"
			fi ;;
		esac
		# One guest per kernel, SMARTT_GUEST_JOBS at a time (default: one
		# per kernel, the host's CPUs shared out between them as vCPUs):
		# TCG guests spend much of their time on one vCPU, so two guests
		# side by side finish sooner than one after the other.
		# Each kernel's suite runs in a plain TCG guest, and its tests
		# marked "# timewarp" in a time-warped one after it
		# (run_guest.sh); tests named in SMARTT_SELFTESTS run in the
		# plain guest (SMARTT_VM_TIMEWARP=1 makes it time-warped).
		guests=()
		for s in "${series[@]}"; do guests+=("$s"); done
		if [ -z "${SMARTT_SELFTESTS:-}" ]; then
			for s in "${series[@]}"; do
				timewarp_wanted "$s" && guests+=("$s:timewarp")
			done
		fi
		# As many guests at a time as kernels: the time-warped ones
		# start as the plain ones finish (four at once on two cores
		# slowed the plain guests' timers past what their tests allow).
		jobs=${SMARTT_GUEST_JOBS:-${#series[@]}}
		[ "$jobs" -ge 1 ] 2>/dev/null || { echo "check: SMARTT_GUEST_JOBS must be >= 1" >&2; exit 2; }
		vcpus=$(( $(nproc) / jobs ))
		[ "$vcpus" -ge 1 ] || vcpus=1
		started=()
		for g in "${guests[@]}"; do
			s=${g%:timewarp}
			name=selftests-${g/:/-}
			if ! rel=$(scripts/kernels.sh release "$s" 2>&1); then
				cannot_run "$name" "$rel"
			elif [ ! -x "${SMARTT_VENV:-/opt/smartt/venv}/bin/vng" ]; then
				cannot_run "$name" "virtme-ng not installed (make deps)"
			else
				while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
				echo "# ---- stage $name: guest with $vcpus vCPU(s), $jobs at a time"
				(
					t0=$(date +%s)
					SMARTT_VM_CPUS=$vcpus stage_selftests "$g" >"$out/$name.log" 2>&1
					echo "$? $(( $(date +%s) - t0 ))" >"$out/$name.rc"
				) &
				started+=("$name")
			fi
		done
		wait
		for name in "${started[@]}"; do
			read -r rc secs <"$out/$name.rc"
			scripts/tap_count.py "$name" "$results" "$rc" <"$out/$name.log"
			echo "# stage $name took $secs s (log: ${out#$top/}/$name.log)"
		done ;;
	debug)
		# as for the selftests: the fabric tests (trim, multipath) need
		# the BPF programs and the fabric's controller
		make -s -C bpf >"$out/bpf-build-guests.txt" 2>&1 ||
			echo "# make -C bpf failed (${out#"$top"/}/bpf-build-guests.txt): the guest's fabric tests will skip"
		run_stage debug stage_debug ;;
	*) echo "check: unknown stage $st" >&2; exit 2 ;;
	esac
done

echo "# ==== summary ($(( $(date +%s) - t_start )) s)"
p=0 f=0 k=0
while read -r name sp sf sk; do
	printf '#   %-24s %4d passed, %d failed%s\n' "$name" "$sp" "$sf" "$([ "$sk" -gt 0 ] && echo ", $sk skipped")"
	p=$((p + sp)) f=$((f + sf)) k=$((k + sk))
done <"$results"
if [ "$k" -gt 0 ]; then
	echo "$p passed, $f failed, $k skipped"
else
	echo "$p passed, $f failed"
fi
[ "$f" -eq 0 ]
