#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A deliberately failing kselftest, run by selftests/run_guest.sh only with
# SMARTT_INJECT_FAIL=selftest, to prove a failing selftest fails make check.
source "$(dirname "$0")/../lib.sh"
ktap_result FAIL "deliberate failure injected by SMARTT_INJECT_FAIL=selftest"
ktap_exit
