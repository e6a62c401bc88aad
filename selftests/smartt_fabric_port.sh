#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt-fabric classes and trimming: the switch port under
# BPF_PROG_TEST_RUN (build/bpf/smartt-fabric-port-test, from
# selftests/smartt_fabric_port_test.c): crafted IPv4 and IPv6 frames through
# sf_egress and sf_ingress of smartt_port.bpf.o with the time fixed: the
# class of every DSCP code point, trimming of trimmable DSCPs only (UDP
# payload cut to trim_bytes, what is left byte for byte as sent, lengths
# fixed, a zero UDP checksum kept, a non-zero one recomputed, DSCP
# remarked trimmed or, at a host-facing port, trimmed_lasthop); TCP and
# other DSCPs dropped at a full buffer; host NICs that write nothing into
# packets; RED/ECN by class; other code points given at load.  No network
# namespace, no traffic: seconds.
source "$(dirname "$0")/lib.sh"

require_root
t=$SMARTT_TOP/build/bpf/smartt-fabric-port-test
[ -x "$t" ] || skip_all "$t missing (make -C bpf)"
[ -e /sys/kernel/btf/vmlinux ] || skip_all "kernel without BTF"

out=$("$t" 2>&1)
rc=$?
# The program's KTAP lines are this script's sub-checks.
while IFS= read -r l; do
	case $l in
	"ok "*" # SKIP "*) d=${l#ok * }; ktap_result SKIP "${d%% # SKIP *}" "${d#* # SKIP }" ;;
	"ok "*) d=${l#ok }; ktap_result OK "${d#* }" ;;
	"not ok "*) d=${l#not ok }; ktap_result FAIL "${d#* }" ;;
	"# totals"*) ;;
	"# "*) echo "$l" ;;
	esac
done <<<"$out"
if [ "$rc" != 0 ] && [ "$__ktap_failed" = 0 ]; then
	ktap_result FAIL "smartt-fabric-port-test exited $rc"
	printf '# | %s\n' "${out//$'\n'/$'\n# | '}"
fi
ktap_exit
