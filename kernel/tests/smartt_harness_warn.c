// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module for the test harness itself: loading it emits one
 * kernel warning (WARN) and fails with -EAGAIN, so that the harness can
 * prove that its dmesg scan catches warnings in the guest.  Built only
 * with SMARTT_TEST_MODULES=1; never installed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>

static int __init smartt_harness_warn_init(void)
{
	WARN(1, "smartt harness self-test: deliberate warning\n");
	return -EAGAIN;
}

module_init(smartt_harness_warn_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("smartt test harness: emits one deliberate WARN on load");
