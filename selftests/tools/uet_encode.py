# SPDX-License-Identifier: GPL-2.0
"""Build the transport's packets for the decoder's tests: UET PDS/SES
headers with the CRC32C trailer, the CRP control packets, and their
UDP/IPv4/IPv6 and Ethernet/SLL/SLL2 framing, written to pcap or pcapng.

The trailer covers the IP source and destination addresses, the UDP header
and the UDP payload before it, and is stored little endian: with_crc()
marks a payload as ending in a trailer, which udp_ip() fills in once the
addresses and the UDP header are known (or fills in wrongly on purpose).

Written from the wire format as Documentation/protocol.rst and
Documentation/decode.rst give it, independently of userspace/smartt_uet
(whose decoder it tests): nothing of that package is imported here.
"""

import struct

# CRC32C, reflected polynomial 0x82f63b78
POLY = 0x82f63b78
_T = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ POLY if _c & 1 else _c >> 1
    _T.append(_c)


def crc32c(b):
    c = 0xffffffff
    for x in b:
        c = _T[(c ^ x) & 0xff] ^ (c >> 8)
    return c ^ 0xffffffff


def prologue(t, nh, flags):
    return struct.pack(">H", (t << 11) | (nh << 7) | flags)


def rud_req(psn, spdcid, dpdcid=0, clear_off=-1, retx=False, ar=False, syn=False,
            pdc_info=0, psn_offset=0, nh=3, rsvd=0, t=2):
    fl = (0x10 if retx else 0) | (0x08 if ar else 0) | (0x04 if syn else 0) | rsvd
    last = ((pdc_info << 12) | psn_offset) if syn else dpdcid
    return prologue(t, nh, fl) + struct.pack(">hIHH", clear_off, psn, spdcid, last)


def ses_std(opcode=5, som=True, eom=True, message_id=0, job_id=0, pid_on_fep=0,
            resource_index=0, initiator=0, buffer_offset=0, memory_key=0, header_data=0,
            payload_length=0, message_offset=0, request_length=0, version=0, ri_gen=0,
            rsvd_op=0, hd=False, rel=True):
    fl = (0x01 if som else 0) | (0x02 if eom else 0) | (0x04 if hd else 0) | \
        (0x08 if rel else 0)
    b = struct.pack(">BBHB", (rsvd_op << 6) | opcode, (version << 6) | fl, message_id, ri_gen)
    b += job_id.to_bytes(3, "big")
    b += struct.pack(">HHQIQ", pid_on_fep, resource_index, buffer_offset, initiator, memory_key)
    if som:
        b += struct.pack(">Q", header_data)
    else:
        b += struct.pack(">II", payload_length, message_offset)
    b += struct.pack(">I", request_length)
    assert len(b) == 44
    return b


def ack_cc(cack_psn, spdcid, dpdcid, ack_psn_offset=0, m=False, retx=False, p=False,
           probe_opaque=0, cc_type=0, cc_flags=0, mpr=0, sack_psn_offset=0, sack_bitmap=0,
           service_time=0, rc=False, rcv_cwnd_pend=0, rcvd_bytes=0, ooo_count=0, nh=0, t=8,
           rsvd=0):
    fl = (0x20 if m else 0) | (0x10 if retx else 0) | (0x08 if p else 0) | rsvd
    second = struct.pack(">H", probe_opaque) if p else struct.pack(">h", ack_psn_offset)
    b = prologue(t, nh, fl) + second + struct.pack(">IHH", cack_psn, spdcid, dpdcid)
    if t == 7:
        return b
    b += struct.pack(">BBhQ", (cc_type << 4) | cc_flags, mpr, sack_psn_offset, sack_bitmap)
    b += struct.pack(">HB", service_time, (0x80 if rc else 0) | rcv_cwnd_pend)
    b += rcvd_bytes.to_bytes(3, "big") + struct.pack(">H", ooo_count)
    assert len(b) == 32
    return b


def ses_rsp(opcode=1, return_code=0x1a, message_id=0, job_id=0, modified_length=0, lst=0,
            ri_gen=0):
    return (struct.pack(">BBHB", (lst << 6) | opcode, return_code, message_id, ri_gen)
            + job_id.to_bytes(3, "big") + struct.pack(">I", modified_length))


def nack(nack_code, nack_psn, spdcid, dpdcid, payload=0, vendor_code=0, m=False, retx=False,
         nh=0, rsvd=0):
    fl = (0x20 if m else 0) | (0x10 if retx else 0) | rsvd
    return prologue(10, nh, fl) + struct.pack(">BBIHHI", nack_code, vendor_code, nack_psn,
                                              spdcid, dpdcid, payload)


def ctrl(ctl_type, psn, spdcid, dpdcid=0, probe_opaque=0, payload=0, retx=False, ar=False,
         syn=False, pdc_info=0, psn_offset=0, rsvd=0):
    fl = (0x10 if retx else 0) | (0x08 if ar else 0) | (0x04 if syn else 0) | rsvd
    last = ((pdc_info << 12) | psn_offset) if syn else dpdcid
    return prologue(11, ctl_type, fl) + struct.pack(">HIHHI", probe_opaque, psn, spdcid, last,
                                                    payload)


class Crc(bytes):
    """A UDP payload ending in a CRC32C trailer that udp_ip() fills in (a
    slice of it is plain bytes, whose last 4 bytes udp_ip() leaves)."""


def with_crc(b):
    return Crc(b + b"\0" * 4)


def trailer(body, prefix, how="le"):
    """body + its CRC32C trailer; prefix: the IP source and destination
    addresses and the UDP header.  how: "le" (right), "be" (the right value
    big endian), "payload" (over body alone, little endian), "old" (over
    body alone, big endian)."""
    if how in ("payload", "old"):
        c = crc32c(body)
    else:
        c = crc32c(prefix + body)
    return body + struct.pack("<I" if how in ("le", "payload") else ">I", c)


def crp(ptype=7, version=2, flags=0, hdr_words=18, entropy=0, psn=0, payload_len=0,
        magic=0x5374, sport=1, dport=2, epoch=0, msg_id=0, seg_off=0, seg_len=0, req_bytes=0,
        tag=0, crp_flags=0, retries=0, slot_base=0, vec=0, grant_slot=0, grant_offset=0,
        retry_after_ns=0, grant_ns=0):
    h = struct.pack(">HBBHBBIIQHHIQQQQ", magic, version, ptype, flags, 0, hdr_words, entropy,
                    0, psn, payload_len, 0, 0, 0, 0, 0, 0)
    e = struct.pack(">HHIQQIIIHHQQQIIQ", sport, dport, epoch, msg_id, seg_off, seg_len,
                    req_bytes, tag, crp_flags, retries, slot_base, vec, grant_slot,
                    grant_offset, retry_after_ns, grant_ns)
    assert len(h) == 64 and len(e) == 80
    return h + e


def _csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(">%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def addrs(v6=False, src=None, dst=None):
    """The source and destination addresses as bytes (IPv6: src and dst
    are hex strings, IPv4: bytes)."""
    if v6:
        return (bytes.fromhex(src or "20010002000000000000000000000001"),
                bytes.fromhex(dst or "20010002000000000000000000000005"))
    return (bytes((198, 18, 0, 1)) if src is None else src,
            bytes((198, 18, 0, 5)) if dst is None else dst)


def udp_ip(payload, sport=49152, dport=4793, v6=False, dscp=10, ecn=2, src=None, dst=None,
           flow_label=0, udp_len=None, ip_len_delta=0, udp_csum=0, crc="le", crc_other_src=False,
           crc_sport=None, crc_csum=None, crc_flip=None):
    """IPv4 or IPv6 + UDP (checksum udp_csum, default 0) around payload;
    udp_len and ip_len_delta make lengths disagree on purpose.  A payload of
    with_crc() gets its trailer here, as trailer()'s crc says, or computed
    over another source address (crc_other_src: the last byte differs),
    source port (crc_sport) than the packet's or over a UDP checksum
    (crc_csum) where the trailer takes it as 0,
    or "xor" (the right CRC with its first byte flipped); crc_flip=N flips
    a bit of payload byte N after (if there is one)."""
    ul = 8 + len(payload) if udp_len is None else udp_len
    s, d = addrs(v6, src, dst)
    if isinstance(payload, Crc):
        cs = s[:-1] + bytes([s[-1] ^ 1]) if crc_other_src else s
        # the trailer takes the UDP checksum as 0 (crc_csum: as another)
        ch = struct.pack(">HHHH", sport if crc_sport is None else crc_sport, dport, ul,
                         0 if crc_csum is None else crc_csum)
        payload = trailer(payload[:-4], cs + d + ch, "le" if crc == "xor" else crc)
        if crc == "xor":
            payload = payload[:-4] + bytes([payload[-4] ^ 1]) + payload[-3:]
    if crc_flip is not None and crc_flip < len(payload):
        payload = payload[:crc_flip] + bytes([payload[crc_flip] ^ 0x80]) + payload[crc_flip + 1:]
    u = struct.pack(">HHHH", sport, dport, ul, udp_csum) + payload
    tos = (dscp << 2) | ecn
    if v6:
        vtf = (6 << 28) | (tos << 20) | flow_label
        return struct.pack(">IHBB", vtf, len(u) + ip_len_delta, 17, 64) + s + d + u
    h = struct.pack(">BBHHHBBH4s4s", 0x45, tos, 20 + len(u) + ip_len_delta, 0, 0x4000, 64, 17,
                    0, s, d)
    h = h[:10] + struct.pack(">H", _csum(h)) + h[12:]
    return h + u


def link(ip, linktype=1):
    """Frame an IP packet for a link type: 1 Ethernet, 113 SLL, 276 SLL2,
    101 raw."""
    et = 0x86dd if ip[0] >> 4 == 6 else 0x0800
    if linktype == 1:
        return b"\x02\0\0\0\0\x05\x02\0\0\0\0\x01" + struct.pack(">H", et) + ip
    if linktype == 113:
        return struct.pack(">HHH8sH", 0, 1, 6, b"\x02\0\0\0\0\x01\0\0", et) + ip
    if linktype == 276:
        return struct.pack(">HHIHBB8s", et, 0, 2, 1, 0, 6, b"\x02\0\0\0\0\x01\0\0") + ip
    if linktype == 101:
        return ip
    raise ValueError(linktype)


def write_pcap(path, frames, linktype=1, snaplen=65535, big_endian=False):
    """frames: list of bytes, or of (bytes, wire_len) for cut captures."""
    e = ">" if big_endian else "<"
    with open(path, "wb") as f:
        f.write(struct.pack(e + "IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, snaplen, linktype))
        for i, fr in enumerate(frames):
            data, wl = fr if isinstance(fr, tuple) else (fr, len(fr))
            f.write(struct.pack(e + "IIII", 1700000000 + i, 1000 * i, len(data), wl))
            f.write(data)


def write_pcapng(path, frames, linktype=1):
    def block(t, body):
        body += b"\0" * (-len(body) % 4)
        n = len(body) + 12
        return struct.pack("<II", t, n) + body + struct.pack("<I", n)
    with open(path, "wb") as f:
        f.write(block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1)))
        # if_tsresol 9 (nanoseconds), then opt_endofopt
        f.write(block(1, struct.pack("<HHI", linktype, 0, 65535)
                      + struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0)))
        for i, fr in enumerate(frames):
            data, wl = fr if isinstance(fr, tuple) else (fr, len(fr))
            ts = (1700000000 + i) * 10**9 + 1000 * i
            f.write(block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(data), wl)
                          + data))
