/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types and prototypes shared inside smartt.ko.
 */
#ifndef SMARTT_H
#define SMARTT_H

#include <linux/types.h>
#include <linux/smartt.h>

#ifndef SMARTT_VERSION
#define SMARTT_VERSION "unknown"
#endif

/* kernel/cc/: the TCP congestion controls smartt and strack */
int smartt_cc_pernet_init(void);
void smartt_cc_pernet_exit(void);
int smartt_tcp_register(void);
void smartt_tcp_unregister(void);
int strack_tcp_register(void);
void strack_tcp_unregister(void);

/* kernel/transport/: the datagram transport (IPPROTO_SMARTT) */
int smartt_transport_register(void);
void smartt_transport_unregister(void);

#endif /* SMARTT_H */
