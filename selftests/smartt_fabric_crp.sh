#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt-fabric CRP: the switch port's reservation tables under
# BPF_PROG_TEST_RUN (build/bpf/smartt-fabric-crp-test, from
# selftests/smartt_fabric_crp_test.c): crafted IPv4 and IPv6 frames through
# sf_egress and sf_ingress of smartt_port_crp.bpf.o with the time fixed:
# a request's vector ANDed at a channel (the CRP paper's Fig. 4), the
# destination's decision (Fig. 5: slot B, timestamp 984, table
# 30,0,60,512,100), the grant settled at the channel (B 10 -> 0,
# C 100 -> 30) and, repeated, turned into a retry; retry and retry_full;
# tables and vectors moving on with time; eager reservations;
# non-participating bytes (DATA by its DSCP: crp_granted and crp_spec are
# not taken again); a speculative packet (DSCP crp_spec) waiting more than
# TTW at a port trimmed and remarked crp_spec_dropped; CRP packets read on
# CRP's UDP port with its version only; malformed and truncated CRP
# packets dropped and counted; the UDP checksum valid after every rewrite.
# No network namespace, no traffic: seconds.
source "$(dirname "$0")/lib.sh"

require_root
t=$SMARTT_TOP/build/bpf/smartt-fabric-crp-test
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
	ktap_result FAIL "smartt-fabric-crp-test exited $rc"
	printf '# | %s\n' "${out//$'\n'/$'\n# | '}"
fi
ktap_exit
