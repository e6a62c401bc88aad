#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Probe the target kernel's headers for the API differences smartt cares
# about and print one -DSMARTT_HAVE_* flag per capability found.  Called by
# Kbuild with the kernel's $(srctree); compat.h turns the flags into the
# wrappers core code uses.  Probing headers rather than comparing version
# numbers keeps distribution backports working.
#
# usage: probe.sh SRCTREE
set -u
src=${1:?usage: probe.sh SRCTREE}

has() { # has FILE EXTENDED-REGEX
	grep -qsE "$2" "$src/$1"
}
flag() { printf ' -D%s' "$1"; }

# 6.10: cong_control() got the ACK sequence and flags.
has include/net/tcp.h 'cong_control\)\(struct sock \*sk, u32 ack, int flag' &&
	flag SMARTT_HAVE_CONG_CONTROL_ACK_FLAG
# 6.11: sysctl tables and proc handlers take const struct ctl_table.
has include/linux/sysctl.h 'typedef int proc_handler\(const struct ctl_table' &&
	flag SMARTT_HAVE_CONST_CTL_TABLE
# 6.5: register_net_sysctl_sz() with an explicit table size.
has include/net/net_namespace.h 'register_net_sysctl_sz\(' &&
	flag SMARTT_HAVE_REGISTER_NET_SYSCTL_SZ
# 6.7: struct proto knows where a protocol keeps its ipv6_pinfo.
has include/net/sock.h 'unsigned int[[:space:]]+ipv6_pinfo_offset;' &&
	flag SMARTT_HAVE_IPV6_PINFO_OFFSET
# 6.2 (and stable backports): VISIBLE_IF_KUNIT/EXPORT_SYMBOL_IF_KUNIT.
[ -e "$src/include/kunit/visibility.h" ] && flag SMARTT_HAVE_KUNIT_VISIBILITY
# 6.12 tcp_snd_cwnd_set() exists since 5.18; probe it anyway: it is the
# only way core code touches snd_cwnd.
has include/net/tcp.h 'static inline void tcp_snd_cwnd_set\(' &&
	flag SMARTT_HAVE_TCP_SND_CWND_SET
# 6.10: __tcp_send_ack() got a flags argument.
has include/net/tcp.h 'void __tcp_send_ack\(struct sock \*sk, u32 rcv_nxt, u16 flags\)' &&
	flag SMARTT_HAVE_TCP_SEND_ACK_FLAGS
echo
