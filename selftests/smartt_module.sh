#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt.ko loads, identifies itself and unloads cleanly, repeatedly.
# Runs in a guest where the runner installed the module (modprobe works).
source "$(dirname "$0")/lib.sh"

require_root
require_cmd modprobe modinfo

modinfo_field() { modinfo -F "$1" smartt 2>/dev/null; }

check "modinfo: license is GPL" test "$(modinfo_field license)" = GPL
check "modinfo: has a version" test -n "$(modinfo_field version)"
check "modinfo: has a description" test -n "$(modinfo_field description)"

modprobe -r smartt 2>/dev/null
before=$(dmesg | wc -l)
check "modprobe smartt" modprobe smartt
check "module is live" grep -qx live /sys/module/smartt/initstate
check "version in sysfs matches modinfo" \
	test "$(cat /sys/module/smartt/version 2>/dev/null)" = "$(modinfo_field version)"
check "load message printed once" \
	test "$(dmesg | tail -n +"$((before + 1))" | grep -c 'smartt: version .* loaded')" = 1
check "refcount is 0 with no users" test "$(cat /sys/module/smartt/refcnt 2>/dev/null)" = 0
check "rmmod smartt" modprobe -r smartt
check "module is gone" test ! -e /sys/module/smartt

cycles_ok() {
	local i
	for i in $(seq 1 10); do
		modprobe smartt && modprobe -r smartt || return 1
	done
	[ ! -e /sys/module/smartt ]
}
check "10 load/unload cycles" cycles_ok

# The UDP ports: crp_udp_port defaults to 4794 and never equals udp_port.
ports_ok() {
	modprobe smartt || return 1
	[ "$(cat /sys/module/smartt/parameters/crp_udp_port)" = 4794 ] || return 1
	modprobe -r smartt || return 1
	if modprobe smartt crp_udp_port=4793 2>/dev/null; then
		echo "crp_udp_port equal to udp_port accepted"
		modprobe -r smartt
		return 1
	fi
	if modprobe smartt udp_port=4794 2>/dev/null; then
		echo "udp_port equal to crp_udp_port accepted"
		modprobe -r smartt
		return 1
	fi
	[ ! -e /sys/module/smartt ]
}
check "crp_udp_port: default 4794, equal to udp_port refused (EINVAL)" ports_ok

ktap_exit
