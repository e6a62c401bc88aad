#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The `tools` stage of `make check`, on the host: `make tools`, then every
# tool driven with bad inputs (cli.py), the README's host-only quick start
# as written with each congestion control (readme.sh), the examples of
# Documentation/fabric.rst and the man pages (docs.sh), and `smarttctl
# decode` with the Wireshark dissector on built packets (decode.py).  TAP
# lines; the network parts need root and are skipped without it, saying so.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
if make tools >/tmp/smartt-tools-build.$$ 2>&1; then
	sed 's/^/# /' /tmp/smartt-tools-build.$$ | grep '^# tools:'
	echo "ok 1 make tools (the fabric's BPF controller, smartt-perf, smartt-replay)"
else
	sed 's/^/# /' /tmp/smartt-tools-build.$$
	echo "not ok 1 make tools (the fabric's BPF controller, smartt-perf, smartt-replay)"
	rm -f /tmp/smartt-tools-build.$$
	exit 1
fi
rm -f /tmp/smartt-tools-build.$$
rc=0
for t in cli.py readme.sh docs.sh decode.py; do
	echo "# ---- $t"
	t0=$(date +%s)
	"$top/selftests/tools/$t" "$top" || rc=1
	echo "# $t took $(( $(date +%s) - t0 )) s"
done
exit $rc
