# SPDX-License-Identifier: GPL-2.0
"""From a captured frame to its UDP datagram: the link layer (Ethernet with
VLAN tags, Linux cooked SLL and SLL2, raw IP, BSD loopback), IPv4 or IPv6
(extension headers skipped) and the UDP header, each checked against the
lengths the packet itself gives.

udp(linktype, data, wire_len) returns None for anything that is not a UDP
datagram, else a Datagram; its `malformed` lists what disagrees.  The
Datagram keeps the addresses and the UDP header as on the wire: the CRC32C
trailer covers them, the UDP checksum taken as 0 (Documentation/decode.rst).
"""

import ipaddress
import struct

LINKTYPE_NULL = 0
LINKTYPE_ETHERNET = 1
LINKTYPE_RAW = 101
LINKTYPE_LINUX_SLL = 113
LINKTYPE_IPV4 = 228
LINKTYPE_IPV6 = 229
LINKTYPE_LINUX_SLL2 = 276
LINKTYPES = {
    LINKTYPE_NULL: "null", LINKTYPE_ETHERNET: "ethernet", LINKTYPE_RAW: "raw",
    LINKTYPE_LINUX_SLL: "linux_sll", LINKTYPE_IPV4: "ipv4", LINKTYPE_IPV6: "ipv6",
    LINKTYPE_LINUX_SLL2: "linux_sll2",
}

ETH_P_IP, ETH_P_IPV6 = 0x0800, 0x86dd
ETH_VLAN = (0x8100, 0x88a8, 0x9100)
IPPROTO_UDP = 17
IPV6_EXT = (0, 43, 60, 135, 139, 140)   # hop-by-hop, routing, dest opts, mobility, HIP, shim6
IPV6_FRAG = 44


class Datagram:
    """One UDP datagram: addresses, IP fields, the UDP payload as captured
    (payload) and its length on the wire (payload_len), what is malformed
    about the IP/UDP framing, and whether it is a fragment (which the
    decoder passes over).  src_raw, dst_raw and udp_header are the
    addresses and the UDP header as on the wire (bytes)."""

    def __init__(self):
        self.ip_version = 0
        self.src = self.dst = ""
        self.src_raw = self.dst_raw = b""
        self.udp_header = b""
        self.sport = self.dport = 0
        self.dscp = self.ecn = 0
        self.ttl = 0
        self.flow_label = None
        self.udp_len = 0
        self.udp_checksum = 0
        self.payload = b""
        self.payload_len = 0
        self.fragment = False
        self.malformed = []

    def crc_prefix(self):
        """What the CRC32C trailer covers before the UDP payload: the IP
        source and destination addresses, then the UDP header, as on the
        wire (the checksum too: decode takes it as 0 for the CRC and tells
        a trailer that covers it apart); None without a whole UDP header."""
        if len(self.udp_header) != 8 or not self.src_raw:
            return None
        return self.src_raw + self.dst_raw + self.udp_header


def _ether_type(linktype, d):
    """(ethertype, offset of the network header) or None."""
    if linktype == LINKTYPE_ETHERNET:
        if len(d) < 14:
            return None
        et, off = struct.unpack(">H", d[12:14])[0], 14
        while et in ETH_VLAN:
            if len(d) < off + 4:
                return None
            et, off = struct.unpack(">H", d[off + 2:off + 4])[0], off + 4
        return et, off
    if linktype == LINKTYPE_LINUX_SLL:
        if len(d) < 16:
            return None
        return struct.unpack(">H", d[14:16])[0], 16
    if linktype == LINKTYPE_LINUX_SLL2:
        if len(d) < 20:
            return None
        return struct.unpack(">H", d[0:2])[0], 20
    if linktype in (LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6):
        if not d:
            return None
        v = d[0] >> 4
        return (ETH_P_IP if v == 4 else ETH_P_IPV6 if v == 6 else 0), 0
    if linktype == LINKTYPE_NULL:
        if len(d) < 4:
            return None
        fam = struct.unpack("<I", d[:4])[0]
        if fam > 0xffff:
            fam = struct.unpack(">I", d[:4])[0]
        return (ETH_P_IP if fam == 2 else ETH_P_IPV6 if fam in (10, 24, 28, 30) else 0), 4
    return None


def udp(linktype, data, wire_len):
    """The UDP datagram in one captured frame, or None."""
    lt = _ether_type(linktype, data)
    if lt is None:
        return None
    et, off = lt
    # bytes of the frame the capture did not keep
    snapped = max(0, wire_len - len(data))
    d = data[off:]
    g = Datagram()
    if et == ETH_P_IP:
        if len(d) < 20 or d[0] >> 4 != 4:
            return None
        ihl = (d[0] & 0xf) * 4
        tot, frag, ttl, proto = struct.unpack(">H2xHBB", d[2:10])
        if proto != IPPROTO_UDP:
            return None
        g.ip_version = 4
        g.dscp, g.ecn, g.ttl = d[1] >> 2, d[1] & 3, ttl
        g.src_raw, g.dst_raw = bytes(d[12:16]), bytes(d[16:20])
        g.src = str(ipaddress.IPv4Address(g.src_raw))
        g.dst = str(ipaddress.IPv4Address(g.dst_raw))
        if ihl < 20:
            g.malformed.append("IPv4 header length %d is below 20" % ihl)
            return g
        if tot < ihl:
            g.malformed.append("IPv4 total length %d is below its header length %d" % (tot, ihl))
            return g
        if tot > len(d) + snapped:
            g.malformed.append("IPv4 total length %d exceeds the %d bytes the frame holds"
                               % (tot, len(d) + snapped))
        if frag & 0x3fff:
            g.fragment = True
            return g
        l4, l4_len = d[ihl:tot], tot - ihl
    elif et == ETH_P_IPV6:
        if len(d) < 40 or d[0] >> 4 != 6:
            return None
        vtf, plen, nh, hop = struct.unpack(">IHBB", d[:8])
        g.ip_version = 6
        tc = (vtf >> 20) & 0xff
        g.dscp, g.ecn, g.ttl, g.flow_label = tc >> 2, tc & 3, hop, vtf & 0xfffff
        g.src_raw, g.dst_raw = bytes(d[8:24]), bytes(d[24:40])
        g.src = str(ipaddress.IPv6Address(g.src_raw))
        g.dst = str(ipaddress.IPv6Address(g.dst_raw))
        if 40 + plen > len(d) + snapped:
            g.malformed.append("IPv6 payload length %d exceeds the %d bytes the frame holds"
                               % (plen, len(d) + snapped - 40))
        off6 = 40
        while nh in IPV6_EXT or nh == IPV6_FRAG:
            if len(d) < off6 + 8:
                return None
            if nh == IPV6_FRAG:
                g.fragment = True
                return g
            nh, hl = d[off6], (d[off6 + 1] + 1) * 8
            off6 += hl
        if nh != IPPROTO_UDP:
            return None
        if off6 > 40 + plen:
            g.malformed.append("IPv6 extension headers run past the payload length %d" % plen)
            return g
        l4, l4_len = d[off6:40 + plen], 40 + plen - off6
    else:
        return None
    if len(l4) < 8:
        if l4_len >= 8:
            g.malformed.append("UDP header not captured (%d of 8 bytes)" % len(l4))
        else:
            g.malformed.append("UDP header cut off: %d of 8 bytes" % l4_len)
        return g
    g.udp_header = bytes(l4[:8])
    g.sport, g.dport, g.udp_len, g.udp_checksum = struct.unpack(">HHHH", g.udp_header)
    if g.udp_len != l4_len:
        g.malformed.append("UDP length %d, but the IP header leaves %d bytes"
                           % (g.udp_len, l4_len))
    # what follows the UDP header: by the smaller of the two lengths
    g.payload_len = max(0, min(g.udp_len, l4_len) - 8)
    g.payload = bytes(l4[8:8 + g.payload_len])
    return g
