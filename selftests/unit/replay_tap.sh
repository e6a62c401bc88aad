# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the replayer's TAP scripts (replay_cli.sh, replay_crp.sh):
# the replayer to run ($1, default build/userspace/smartt-replay), a
# scratch directory $tmp removed on exit, and the TAP counters: ok and
# not_ok number the results, $rc is 1 once one failed.  The script ends
# with `echo "1..$n"; exit $rc`.

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
replay=${1:-$top/build/userspace/smartt-replay}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
rc=0

ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n $*"; rc=1; }
