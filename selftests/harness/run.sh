#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the test harness itself (no root, no guest): the TAP counter,
# the guest dmesg scanner, and that a failing test really fails `make check`.
source "$(dirname "$0")/../lib.sh"
top=$SMARTT_TOP
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() { # count STAGE RC <<< tap  -> "stage p f s"
	"$top"/scripts/tap_count.py "$1" "$tmp/r" "$2" >/dev/null
	tail -n 1 "$tmp/r"
}

check "tap_count: pass, fail, skip; nested and comment lines ignored" \
	test "$(printf 'ok 1 a\nnot ok 2 b\nok 3 c # SKIP why\n    ok 1 sub\n# not ok 9 x\n' | count s 0)" = "s 1 1 1"
check "tap_count: a stage without results fails" \
	test "$(printf 'TAP version 13\n1..0\n' | count s 0)" = "s 0 1 0"
check "tap_count: non-zero exit without a reported failure fails" \
	test "$(printf 'ok 1 a\n' | count s 3)" = "s 1 1 0"

scan() { "$top"/selftests/dmesg_scan.sh >/dev/null; }
check "dmesg_scan: clean log passes" \
	scan <<<"[    1.0] smartt: version 0.1.0 loaded"
for line in \
	"[ 2.0] WARNING: CPU: 0 PID: 1 at net/smartt/main.c:10 smartt_init+0x1/0x2" \
	"[ 2.0] BUG: kernel NULL pointer dereference, address: 0000000000000000" \
	"[ 2.0] Oops: 0000 [#1] PREEMPT SMP NOPTI" \
	"[ 2.0] UBSAN: shift-out-of-bounds in net/smartt/algo/smartt.c:1:2" \
	"[ 2.0] unreferenced object 0xffff888003a1b000 (size 64):" \
	"[ 2.0] kmem_cache_destroy smartt_msg: Slab cache still has objects"; do
	check "dmesg_scan: catches '${line:7:30}...'" bash -c '! "$1" <<<"$2" >/dev/null' _ \
		"$top/selftests/dmesg_scan.sh" "$line"
done

# A deliberately failing unit test must make the unit stage, and check.sh
# as a whole, fail with a non-zero exit and a count of the failure.
inject() {
	local rc=0
	SMARTT_INJECT_FAIL=unit SMARTT_CHECK_OUT=$tmp/check "$top"/scripts/check.sh unit \
		>"$tmp/inject.log" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] && tail -n 1 "$tmp/inject.log" | grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed$'
}
check "check.sh exits non-zero on an injected failing unit test" inject

ktap_exit
