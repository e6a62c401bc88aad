#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Packet generator and receiver for testing smartt-fabric.

send: builds complete Ethernet frames (AF_PACKET) so that every field the
fabric looks at is under control: the DSCP (the fabric's classes), ECN bits,
IPv6 flow label or IPv4 UDP source port, packet size, UDP checksum (computed
here, or 0 as the transport sends it), and a UET packet of the transport's
wire format v2 (uet.py: DATA = PDS RUD_REQ + SES standard request, ACK_CC,
NACK, CTRL PROBE) or plain UDP.
recv: a plain UDP socket, so the kernel validates lengths and checksums of
what it delivers; reports per-packet ECN, DSCP, hop limit and the PDS type
and PSN.

  pktgen.py send --dev eth0 --dmac MAC --src IP --dst IP [--count N]
                 [--size FRAME] [--pps N] [--ect] [--flows N]
                 [--type data|ack|nack|probe] [--dscp D] [--udp-csum on|off]
                 [--proto uet|udp] [--dport N]
  pktgen.py recv --bind IP [--port N] [--count N] [--idle S] [--packets]
"""
import argparse
import ipaddress
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import uet  # noqa: E402  (next to this file)

TYPES = ("data", "ack", "nack", "probe")
PDS_TYPE_NAMES = {uet.PDS_RUD_REQ: "data", uet.PDS_ACK: "ack", uet.PDS_ACK_CC: "ack",
                  uet.PDS_NACK: "nack", uet.PDS_CTRL: "ctrl"}
IP_TTL, IP_RECVTTL = 2, 12
IPV6_RECVHOPLIMIT, IPV6_HOPLIMIT = 51, 52
IPV6_RECVTCLASS, IPV6_TCLASS = 66, 67
TRIMMED_DSCPS = (uet.DSCP["trimmed"], uet.DSCP["trimmed_lasthop"], uet.DSCP["crp_spec_dropped"])


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def uet_payload(a, psn, l4):
    """The UDP payload of a UET packet of type a.type; DATA fills the frame
    size, the control types have their own size."""
    if a.type == "data":
        plen = l4 - 8 - uet.DATA_HLEN - uet.CRC_LEN
        if plen < 0:
            raise SystemExit("size %d too small for UET DATA" % a.size)
        return uet.data(psn, (struct.pack("!Q", psn) * (plen // 8 + 1))[:plen])
    if a.type == "ack":
        return uet.ack_cc(psn)
    if a.type == "nack":
        return uet.nack(psn)
    return uet.probe(psn)


def build(a, psn, flow):
    src, dst = ipaddress.ip_address(a.src), ipaddress.ip_address(a.dst)
    v6 = src.version == 6
    l3 = 40 if v6 else 20
    l4 = a.size - 14 - l3
    if l4 < 8:
        raise SystemExit("size %d too small" % a.size)
    if a.proto == "uet":
        payload = uet_payload(a, psn, l4)
        l4 = 8 + len(payload)
    else:
        payload = (struct.pack("!Q", psn) * (l4 // 8 + 1))[:l4 - 8]
    sport = a.sport + (flow % a.flows if not v6 else 0)
    if a.proto == "uet" and (a.crc or a.type != "data"):
        payload = uet.seal(payload, src.packed, dst.packed, sport, a.dport)
    udp = struct.pack("!HHHH", sport, a.dport, l4, 0) + payload
    dscp = a.dscp
    if dscp is None:
        dscp = 0 if a.proto == "udp" else \
            uet.DSCP["trimmable" if a.type == "data" else "control"]
    tc = (dscp << 2) | (2 if a.ect else 0)
    if v6:
        label = (a.label_base + flow % a.flows) & 0xfffff
        pseudo = src.packed + dst.packed + struct.pack("!IxxxB", l4, 17)
        if a.udp_csum == "on":
            c = csum(pseudo + udp) or 0xffff
            udp = udp[:6] + struct.pack("!H", c) + udp[8:]
        ip = struct.pack("!IHBB", (6 << 28) | (tc << 20) | label, l4, 17, 64) + src.packed + dst.packed
        et = 0x86DD
    else:
        pseudo = src.packed + dst.packed + struct.pack("!xBH", 17, l4)
        if a.udp_csum == "on":
            c = csum(pseudo + udp) or 0xffff
            udp = udp[:6] + struct.pack("!H", c) + udp[8:]
        ip = struct.pack("!BBHHHBBH", 0x45, tc, l3 + l4, psn & 0xffff, 0x4000, 64, 17, 0) + src.packed + dst.packed
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        et = 0x0800
    return mac(a.dmac) + a.smac + struct.pack("!H", et) + ip + udp


def send(a):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.dev, 0))
    a.smac = s.getsockname()[4]
    t0 = time.monotonic()
    sent = 0
    for i in range(a.count):
        f = build(a, i, i)
        if a.pps:
            target = t0 + i / a.pps
            while True:
                d = target - time.monotonic()
                if d <= 0:
                    break
                if d > 0.0005:
                    time.sleep(d - 0.0003)
        try:
            s.send(f)
            sent += 1
        except BlockingIOError:
            pass
        except OSError as e:
            if e.errno != 105:  # ENOBUFS: the qdisc is full, count as not sent
                raise
    if a.tail_acks:
        a.type, a.proto, a.dscp = "ack", "uet", None
        for i in range(a.count, a.count + a.tail_acks):
            s.send(build(a, i, i))
            sent += 1
    dt = time.monotonic() - t0
    print(json.dumps({"sent": sent, "seconds": dt, "t0": t0}))


def recv(a):
    addr = ipaddress.ip_address(a.bind)
    fam = socket.AF_INET6 if addr.version == 6 else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    try:  # root may exceed net.core.rmem_max
        s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    if fam == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
        s.setsockopt(socket.IPPROTO_IP, IP_RECVTTL, 1)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVTCLASS, 1)
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1)
    s.bind((a.bind, a.port))
    if a.ready:
        open(a.ready, "w").close()
    pkts = []
    s.settimeout(a.start_timeout)
    n = ce = ect = trimmed = 0
    nbytes = 0
    first = last = None
    while n < a.count:
        try:
            data, anc, _, peer = s.recvmsg(65536, 256)
        except socket.timeout:
            break
        now = time.monotonic()
        s.settimeout(a.idle)
        first = first or now
        last = now
        tos = ttl = None
        for lvl, typ, val in anc:
            if (lvl, typ) in ((socket.IPPROTO_IP, socket.IP_TOS), (socket.IPPROTO_IPV6, IPV6_TCLASS)):
                tos = val[0] if len(val) == 1 else struct.unpack("i", val[:4])[0]
            elif (lvl, typ) in ((socket.IPPROTO_IP, IP_TTL), (socket.IPPROTO_IPV6, IPV6_HOPLIMIT)):
                ttl = struct.unpack("i", val[:4])[0] if len(val) >= 4 else val[0]
        n += 1
        nbytes += len(data)
        e = (tos or 0) & 3
        ce += e == 3
        ect += e in (1, 2, 3)
        dscp = (tos or 0) >> 2
        rec = {"len": len(data), "ecn": e, "dscp": dscp, "ttl": ttl, "t": now,
               "src": peer[0], "sport": peer[1]}
        f = uet.pds_fields(data)
        if f:
            rec.update(f)
            rec["type"] = PDS_TYPE_NAMES[f["pds_type"]]
            rec["trimmed"] = dscp in TRIMMED_DSCPS
            trimmed += rec["trimmed"]
            if not rec["trimmed"] and not addr.is_unspecified:
                # the trailer as the datagram arrived (a trimmed one has none)
                rec["crc_ok"] = uet.crc_ok(data, ipaddress.ip_address(peer[0]).packed,
                                           addr.packed, peer[1], a.port)
        elif len(data) >= 8:
            rec["psn"] = struct.unpack("!Q", data[:8])[0]
        if a.head:
            rec["head"] = data[:a.head].hex()
        if a.packets:
            pkts.append(rec)
    out = {"received": n, "bytes": nbytes, "ce": ce, "ect": ect, "trimmed": trimmed,
           "seconds": (last - first) if first else 0}
    if a.packets:
        out["packets"] = pkts
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("--dev", required=True)
    s.add_argument("--dmac", required=True)
    s.add_argument("--src", required=True)
    s.add_argument("--dst", required=True)
    s.add_argument("--count", type=int, default=1000)
    s.add_argument("--size", type=int, default=1500, help="frame bytes incl. Ethernet")
    s.add_argument("--pps", type=float, default=0, help="0 = as fast as possible")
    s.add_argument("--ect", action="store_true")
    s.add_argument("--flows", type=int, default=1, help="distinct flow labels (v6) / source ports (v4)")
    s.add_argument("--label-base", type=int, default=0x100)
    s.add_argument("--sport", type=int, default=20000)
    s.add_argument("--dport", type=int, default=4793)
    s.add_argument("--type", choices=TYPES, default="data",
                   help="UET packet: DATA fills --size, the others have their own size")
    s.add_argument("--proto", choices=("uet", "udp"), default="uet")
    s.add_argument("--dscp", type=int, choices=range(64), metavar="0..63", default=None,
                   help="default: trimmable (10) for DATA, control (46) for the other UET "
                   "types, 0 for plain UDP")
    s.add_argument("--udp-csum", choices=("on", "off"), default="on",
                   help="off: UDP checksum 0, as the transport sends (IPv6 sockets without "
                   "zero-checksum receive drop such packets)")
    s.add_argument("--no-crc", dest="crc", action="store_false",
                   help="zeros instead of the CRC32C trailer (faster)")
    s.add_argument("--tail-acks", type=int, default=0,
                   help="then send this many ACKs (UET ACK_CC, DSCP control: priority test)")
    r = sub.add_parser("recv")
    r.add_argument("--bind", required=True)
    r.add_argument("--port", type=int, default=4793)
    r.add_argument("--count", type=int, default=10**9)
    r.add_argument("--idle", type=float, default=1.0)
    r.add_argument("--start-timeout", type=float, default=10.0)
    r.add_argument("--packets", action="store_true")
    r.add_argument("--head", type=int, default=0, metavar="BYTES",
                   help="with --packets: each packet's first BYTES of UDP payload, in hex")
    r.add_argument("--ready", help="touch this file once bound")
    a = ap.parse_args()
    if a.cmd == "send":
        if a.flows < 1:
            raise SystemExit("--flows must be >= 1")
        send(a)
    else:
        recv(a)


if __name__ == "__main__":
    sys.exit(main())
