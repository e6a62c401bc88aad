// SPDX-License-Identifier: GPL-2.0
/*
 * smartt: SMaRTT and STrack congestion control and a REPS multipath
 * datagram transport for datacenter fabrics.
 *
 * Module init and exit.  Every facility the module offers is registered
 * here, in order, and unregistered in exactly the reverse order: a failure
 * at step N unwinds steps N-1..1 through the goto ladder, so that a
 * half-loaded module never stays visible.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/net.h>

#include "smartt.h"

static void __init smartt_build_checks(void)
{
	/* The wire and uAPI constants are ABI: changing them breaks peers. */
	BUILD_BUG_ON(IPPROTO_SMARTT != 253);
	BUILD_BUG_ON(SMARTT_UDP_PORT_DEFAULT != 4793);
	BUILD_BUG_ON(sizeof(struct smartt_hdr) != SMARTT_HDR_LEN);
	BUILD_BUG_ON(SOCK_DGRAM != 2);	/* the autoload aliases below */
}

static int __init smartt_init(void)
{
	int err;

	smartt_build_checks();

	/*
	 * Registration ladder, in order (each facility adds its rung):
	 * pernet state and counters, sysctls, proc files, the transport's
	 * proto/protosw, its UDP encapsulation sockets, and last the
	 * congestion controls (once registered, any socket may take one).
	 * Unwind in reverse with one label per rung.
	 */
	err = smartt_cc_pernet_init();	/* net.smartt.tcp_* */
	if (err)
		goto fail;
	err = smartt_transport_register();	/* pernet UDP port, protosw */
	if (err)
		goto fail_cc_pernet;
	/* last: a congestion control is usable by any socket once registered */
	err = smartt_tcp_register();
	if (err)
		goto fail_transport;
	err = strack_tcp_register();
	if (err)
		goto fail_smartt_tcp;

	pr_info("version %s loaded\n", SMARTT_VERSION);
	return 0;

fail_smartt_tcp:
	smartt_tcp_unregister();
fail_transport:
	smartt_transport_unregister();
fail_cc_pernet:
	smartt_cc_pernet_exit();
fail:
	return err;
}

static void __exit smartt_exit(void)
{
	/* Reverse order of smartt_init(): the congestion controls first. */
	strack_tcp_unregister();
	smartt_tcp_unregister();
	smartt_transport_unregister();
	smartt_cc_pernet_exit();
	pr_info("version %s unloaded\n", SMARTT_VERSION);
}

module_init(smartt_init);
module_exit(smartt_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The smartt developers");
MODULE_DESCRIPTION("SMaRTT/STrack congestion control and REPS multipath transport");
MODULE_VERSION(SMARTT_VERSION);
/* tcp_cong.c autoloads a congestion control with request_module("tcp_%s"). */
MODULE_ALIAS("tcp_smartt");
MODULE_ALIAS("tcp_strack");
/*
 * socket(AF_INET or AF_INET6, SOCK_DGRAM, IPPROTO_SMARTT) autoloads us
 * (inet_create() asks for "net-pf-%d-proto-%d-type-%d"; SOCK_DGRAM is an
 * enum, so its value 2 is spelled out and asserted in smartt_build_checks).
 */
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_SMARTT, 2);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_SMARTT, 2);
