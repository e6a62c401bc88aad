#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The example commands of Documentation/fabric.rst ("Using it") and of the
# man pages' EXAMPLES, run as written: one TAP line per command.  The
# examples of smarttctl(8) and smartt-perf(1) drive the transport, which
# needs smartt.ko (loaded only in the guests): without it each must still
# be accepted (exit status other than 2, no traceback) and fail only for
# want of the module or a peer.
#
#   docs.sh [TOP]
set -u
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
cd "$top" || exit 1
n=0
tap() { # tap OK|FAIL|SKIP DESC [REASON]
	n=$((n + 1))
	case $1 in
	OK) echo "ok $n $2" ;;
	SKIP) echo "ok $n $2 # SKIP $3" ;;
	*) echo "not ok $n $2" ;;
	esac
}
fails() { grep -c '^not ok' "$tmp/tap" 2>/dev/null || echo 0; }

if [ "$(id -u)" != 0 ]; then
	tap SKIP "documentation examples" "needs root (network namespaces, tc, BPF)"
	exit 0
fi
tmp=$(mktemp -d /tmp/smartt-docs.XXXXXX)
export SMARTT_FABRIC_NAME=dx$(($$ % 100000))
export PATH=$top/userspace:$top/build/userspace:$PATH
cleanup() {
	local f
	for f in demo ls tr "$SMARTT_FABRIC_NAME"; do
		[ -n "${ours[$f]:-}" ] && userspace/smartt-fabric --name "$f" down >/dev/null 2>&1
	done
	rm -rf "$tmp"
}
declare -A ours
trap cleanup EXIT
# The examples use the fabric names demo, ls and tr: never touch one that
# someone else has up.
for f in demo ls tr; do
	if [ -e "/run/smartt-fabric/$f.json" ]; then
		tap SKIP "documentation examples" "a fabric named $f is up (not ours)"
		exit 0
	fi
	ours[$f]=1
done
ours[$SMARTT_FABRIC_NAME]=1

# run_lines FILE LABEL: every line of FILE (a command) with bash, in order.
run_lines() {
	local cmd rc i=0
	while IFS= read -r cmd; do
		i=$((i + 1))
		echo "# \$ $cmd"
		# (make: the BPF objects may need building, slowly on a busy machine)
		timeout 900 bash -c "$cmd" >"$tmp/out" 2>&1 </dev/null
		rc=$?
		sed 's/^/#   /' "$tmp/out" | tail -n 12
		if [ $rc = 0 ] && ! grep -q Traceback "$tmp/out"; then
			tap OK "$2: $cmd"
		else
			tap FAIL "$2: $cmd (exit $rc)"
		fi
	done <"$1"
}

# rst literal blocks of a section (lines indented by 3 after a "::" line),
# trailing comments dropped.
rst_blocks() { # FILE SECTION-TITLE
	python3 - "$1" "$2" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
i = lines.index(sys.argv[2]) + 2
blk = False
for j in range(i, len(lines)):
    line = lines[j]
    if j + 1 < len(lines) and re.fullmatch(r"=+", lines[j + 1]) and line:
        break
    if line.rstrip().endswith("::"):
        blk = True
    elif blk and line.startswith("   ") and line.strip():
        print(re.sub(r"\s+#.*$", "", line[3:]))
    elif blk and line.strip():
        blk = False
PY
}

# man EXAMPLES: the .nf/.fi lines, groff escapes undone.
man_examples() { # FILE
	awk '/^\.SH EXAMPLES/ { on = 1; next } /^\.SH/ { on = 0 }
	     on && /^\.nf/ { nf = 1; next } on && /^\.fi/ { nf = 0; next }
	     on && nf && !/^\./ { print }' "$1" |
		sed -e 's/\\-/-/g' -e 's/\\\\/\\/g'
}

rst_blocks Documentation/fabric.rst "Using it (the demo)" >"$tmp/rst"
[ -s "$tmp/rst" ] || tap FAIL "fabric.rst: found the examples of \"Using it\""
run_lines "$tmp/rst" "fabric.rst"

man_examples userspace/man/smartt-fabric.8 | grep -v '^$' >"$tmp/man-sf"
run_lines "$tmp/man-sf" "smartt-fabric(8)"

# smartt-replay(1): the examples are pipelines over several lines: each
# block (up to an empty line) is one script, run in a scratch directory.
man_examples userspace/man/smartt-replay.1 >"$tmp/man-replay"
awk -v d="$tmp" 'BEGIN { b = 1 } NF { print > (d "/replay." b) } !NF { b++ }' "$tmp/man-replay"
for f in "$tmp"/replay.*; do
	( cd "$tmp" && bash -e "$f" >"$f.out" 2>&1 )
	rc=$?
	sed 's/^/#   /' "$f" "$f.out" | tail -n 12
	if [ $rc = 0 ] && ! grep -q Traceback "$f.out" && [ "$(wc -l <"$f.out")" -gt 1 ]; then
		tap OK "smartt-replay(1): example $(basename "$f")"
	else
		tap FAIL "smartt-replay(1): example $(basename "$f") (exit $rc)"
	fi
done

# smarttctl(8) in the root namespace (it enters a namespace itself with
# -n; h0, h1 are the nodes of our fabric), smartt-perf(1) in a fabric host.
userspace/smartt-fabric up --hosts 2 >/dev/null 2>&1 || tap FAIL "fabric for the transport examples"
for page in userspace/man/smarttctl.8 userspace/man/smartt-perf.1; do
	man_examples "$page" | grep -v -e '^#' -e '^$' >"$tmp/man-t"
	in=(userspace/smartt-fabric exec h0 --)
	[ "$page" = userspace/man/smarttctl.8 ] && in=()
	while IFS= read -r cmd; do
		cmd=${cmd% &}
		echo "# \$ $cmd"
		t=$(date +%s) timeout 5 "${in[@]}" bash -c "$cmd" >"$tmp/out" 2>&1 </dev/null
		rc=$?
		sed 's/^/#   /' "$tmp/out" | tail -n 6
		if grep -q Traceback "$tmp/out" || [ $rc = 2 ]; then
			tap FAIL "$(basename "$page"): $cmd (exit $rc)"
		elif [ $rc = 0 ] || [ $rc = 124 ] ||
			grep -q -e 'smartt\.ko' -e 'Connection refused' -e 'timed out' "$tmp/out"; then
			tap OK "$(basename "$page"): $cmd (accepted; exit $rc)"
		else
			tap FAIL "$(basename "$page"): $cmd (exit $rc)"
		fi
	done <"$tmp/man-t"
done
exit 0
