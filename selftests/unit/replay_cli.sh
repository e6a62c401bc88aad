#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt-replay --bpf behaves as smartt-replay, the cores' BPF build
# running in the kernel: for each trace and set of options the same bytes
# on standard output and standard error and the same exit status, good
# traces and bad (a bad line after rows, bad knobs, a missing file).
# Without the means to load BPF programs, --bpf is one line naming what is
# missing and exit status 1, never the C build's rows.  Prints TAP; the
# comparisons are skipped, saying why, where the kernel cannot run BPF.
#
#   replay_cli.sh [SMARTT_REPLAY]     (default build/userspace/smartt-replay)
set -uo pipefail

# shellcheck source=replay_tap.sh
source "$(dirname "$0")/replay_tap.sh"

# run NAME ARGS...: the replayer's stdout, stderr and status into $tmp/NAME.*
run() {
	local name=$1
	shift
	"$replay" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" <"$tmp/stdin"
	echo $? >"$tmp/$name.rc"
}

# same DESCRIPTION ARGS...: with and without --bpf, the same bytes
same() {
	local what=$1
	shift
	run c "$@"
	run bpf --bpf "$@"
	if [ -n "$skip" ]; then
		ok "$what # SKIP $skip"
	elif cmp -s "$tmp/c.out" "$tmp/bpf.out" && cmp -s "$tmp/c.err" "$tmp/bpf.err" &&
		cmp -s "$tmp/c.rc" "$tmp/bpf.rc"; then
		ok "$what (exit $(cat "$tmp/c.rc"), $(wc -l <"$tmp/c.out") lines)"
	else
		diff "$tmp/c.out" "$tmp/bpf.out" | head -5 | sed 's/^/# /'
		echo "# stderr: $(cat "$tmp/c.err") | --bpf: $(cat "$tmp/bpf.err")"
		echo "# exit: $(cat "$tmp/c.rc") | --bpf: $(cat "$tmp/bpf.rc")"
		not_ok "$what"
	fi
}

echo "TAP version 13"
if [ ! -x "$replay" ]; then
	echo "1..1"
	echo "not ok 1 $replay: not built (make tools)"
	exit 1
fi

: >"$tmp/stdin"
skip=
if ! "$replay" --bpf --algo nscc - </dev/null >/dev/null 2>"$tmp/probe"; then
	skip=$(head -1 "$tmp/probe")
fi

printf '%s\n' 'send t=1 bytes=4096' 'ack t=20000 rtt=20000 ecn=0 bytes=4096 ev=3' \
	'send t=20001 bytes=4096' 'nack t=30000 rtt=0 bytes=4096 ev=4' \
	'send t=30001 bytes=4096' 'timeout t=900000 bytes=4096' 'send t=900001 bytes=4096' \
	'lost t=900002 bytes=4096 ev=5' 'ack t=950000 rtt=41000 ecn=1 bytes=4096' >"$tmp/mix"
printf '%s\n' 'send t=1 bytes=4096' 'ack t=20000 rtt=20000 ecn=0 bytes=4096' \
	'ack t=20001 rtt=20000 ecn=0 bytes=99999999' 'send t=20002 bytes=4096' >"$tmp/bad"

printf '%s\n' 'ack t=12000 rtt=20000 ecn=1 bytes=4096' 'nack t=14000 rtt=0 bytes=4096' \
	'ack t=20000 rtt=20000 ecn=1 bytes=4096' 'ack t=28000 rtt=20000 ecn=1 bytes=4096' \
	'nack t=31000 rtt=0 bytes=4096' >"$tmp/fig4"

same "smartt-2024, the man page's Fig. 4 example" --algo smartt-2024 --set qa_scaling=1 \
	--set cwnd=16384 --set in_flight=32768 "$tmp/fig4"
# every core with its default selector, every selector once
for algo in smartt-2024 smartt nscc strack; do
	same "$algo: a trace of every event" --algo "$algo" --set paths=8 "$tmp/mix"
done
for al in smartt-2024:reps smartt:strack-bitmap nscc:oblivious strack:ecmp strack:reps-single; do
	same "${al%:*} --lb ${al#*:}: a trace of every event" --algo "${al%:*}" --lb "${al#*:}" \
		--set paths=8 "$tmp/mix"
done
same "options after the trace, KEY=VALUE after =" "$tmp/mix" --algo=strack --set=gamma=0.5
cp "$tmp/mix" "$tmp/stdin"
same "the trace on standard input" --algo nscc --set link_mbps=25000 -
: >"$tmp/stdin"
same "a bad line after good ones: the rows, then line 3 (exit 1)" --algo nscc "$tmp/bad"
same "a trace that is not there (exit 1)" --algo smartt "$tmp/nothing"
same "a knob out of range (exit 2)" --algo nscc --set mtu=10 "$tmp/mix"
same "a window the cores' maxwnd refuses (exit 2)" --algo nscc --set cwnd=100000000 "$tmp/mix"
same "an unknown algorithm (exit 2)" --algo cubic "$tmp/mix"
same "--help --algo strack" --help --algo strack

# Without CAP_SYS_ADMIN/CAP_BPF: one line that says so, status 1, no rows.
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	ok "--bpf without privileges # SKIP needs root and setpriv to drop them"
else
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$replay" --bpf --algo nscc - <"$tmp/mix" >"$tmp/np.out" 2>"$tmp/np.err"
	status=$?
	if [ $status = 1 ] && [ ! -s "$tmp/np.out" ] && [ "$(wc -l <"$tmp/np.err")" = 1 ] &&
		grep -q '^smartt-replay: --bpf: .*needs root' "$tmp/np.err"; then
		ok "--bpf without privileges: $(cat "$tmp/np.err")"
	else
		echo "# exit $status: $(cat "$tmp/np.err")"
		not_ok "--bpf without privileges: one line naming them, exit 1"
	fi
fi

echo "1..$n"
exit $rc
