#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Read kernel log lines on stdin; print the ones that show a kernel warning,
# oops, sanitizer report, lockup or leak, and exit 1 if there is any.
# Used by the guest runner after the suite, and by the harness's own test.
set -u

pattern='WARNING:|BUG:|Oops|general protection fault|kernel BUG|Call Trace:'
pattern+='|UBSAN:|KASAN:|KFENCE:|kmemleak|unreferenced object|refcount_t:'
pattern+='|list_(add|del) corruption|soft lockup|hung_task|blocked for more than'
pattern+='|rcu.*(stall|self-detected)|Kernel panic|double free|use-after-free'
pattern+='|still has objects|Objects remaining|leaked'

if grep -E "$pattern"; then
	exit 1
fi
exit 0
