# SPDX-License-Identifier: GPL-2.0
"""Read capture files: pcap (either byte order, micro- or nanosecond
timestamps; what tcpdump writes) and pcapng (section header, interface
description, enhanced/simple/obsolete packet blocks; what tshark and
dumpcap write).

records(f) yields Record(number, time, linktype, data, wire_len) for every
packet; a damaged file raises CaptureError after the records before the
damage.
"""

import collections
import struct

Record = collections.namedtuple("Record", "number time linktype data wire_len")

PCAP_MAGICS = {
    b"\xd4\xc3\xb2\xa1": ("<", 1e-6),
    b"\xa1\xb2\xc3\xd4": (">", 1e-6),
    b"\x4d\x3c\xb2\xa1": ("<", 1e-9),
    b"\xa1\xb2\x3c\x4d": (">", 1e-9),
}
PCAPNG_SHB = 0x0a0d0d0a
PCAPNG_BOM = 0x1a2b3c4d
BLK_IDB, BLK_OPB, BLK_SPB, BLK_EPB = 1, 2, 3, 6
OPT_IF_TSRESOL = 9
# A record larger than this is a damaged file, not a packet.
MAX_RECORD = 1 << 26


class CaptureError(Exception):
    """The file is not a capture, or is damaged: one line for the user."""


def _read(f, n, what):
    b = f.read(n)
    if len(b) != n:
        raise CaptureError("%s: file ends %d bytes into %d" % (what, len(b), n))
    return b


def records(f):
    """Every packet of the capture file f (a binary stream)."""
    head = f.read(4)
    if len(head) < 4:
        raise CaptureError("not a capture file: %d bytes" % len(head))
    if head in PCAP_MAGICS:
        yield from _pcap(f, head)
    elif struct.unpack("<I", head)[0] == PCAPNG_SHB:
        yield from _pcapng(f, head)
    else:
        raise CaptureError("not a pcap or pcapng file (magic %s)" % head.hex())


def _pcap(f, magic):
    e, unit = PCAP_MAGICS[magic]
    rest = _read(f, 20, "pcap file header")
    _vmaj, _vmin, _zone, _sig, _snap, linktype = struct.unpack(e + "HHiIII", rest)
    linktype &= 0x0fffffff      # the upper bits carry FCS information
    n = 0
    while True:
        h = f.read(16)
        if not h:
            return
        if len(h) < 16:
            raise CaptureError("record %d: header cut off (%d of 16 bytes)" % (n + 1, len(h)))
        sec, frac, incl, orig = struct.unpack(e + "IIII", h)
        if incl > MAX_RECORD:
            raise CaptureError("record %d: length %d is not plausible" % (n + 1, incl))
        data = _read(f, incl, "record %d" % (n + 1))
        n += 1
        yield Record(n, sec + frac * unit, linktype, data, max(orig, incl))


def _pcapng(f, head):
    ifaces = []         # (linktype, seconds per timestamp unit) per interface
    e = "<"
    n = 0
    first = True
    while True:
        h = head if first else f.read(4)
        first = False
        if not h:
            return
        if len(h) < 4:
            raise CaptureError("pcapng: block header cut off")
        h += _read(f, 4, "pcapng block header")
        btype = struct.unpack(e + "I", h[:4])[0]
        if btype == PCAPNG_SHB:
            bom = _read(f, 4, "pcapng section header")
            if struct.unpack("<I", bom)[0] == PCAPNG_BOM:
                e = "<"
            elif struct.unpack(">I", bom)[0] == PCAPNG_BOM:
                e = ">"
            else:
                raise CaptureError("pcapng: bad byte-order magic %s" % bom.hex())
            blen = struct.unpack(e + "I", h[4:8])[0]
            if blen < 28 or blen % 4 or blen > MAX_RECORD:
                raise CaptureError("pcapng: section header length %d" % blen)
            _read(f, blen - 12, "pcapng section header")
            ifaces = []
            continue
        blen = struct.unpack(e + "I", h[4:8])[0]
        if blen < 12 or blen % 4 or blen > MAX_RECORD:
            raise CaptureError("pcapng: block of type %d with length %d" % (btype, blen))
        body = _read(f, blen - 8, "pcapng block")
        if struct.unpack(e + "I", body[-4:])[0] != blen:
            raise CaptureError("pcapng: block of type %d: trailing length differs" % btype)
        body = body[:-4]
        if btype == BLK_IDB:
            if len(body) < 8:
                raise CaptureError("pcapng: interface description block too short")
            linktype = struct.unpack(e + "H", body[:2])[0]
            ifaces.append((linktype, _tsresol(body[8:], e)))
        elif btype in (BLK_EPB, BLK_OPB):
            if len(body) < 20:
                raise CaptureError("pcapng: packet block too short")
            if btype == BLK_EPB:
                ifid, hi, lo, incl, orig = struct.unpack(e + "IIIII", body[:20])
            else:
                ifid, _drops, hi, lo, incl, orig = struct.unpack(e + "HHIIII", body[:20])
            if ifid >= len(ifaces):
                raise CaptureError("pcapng: packet of interface %d, which was not described"
                                   % ifid)
            if 20 + incl > len(body):
                raise CaptureError("pcapng: packet block holds less than its length %d" % incl)
            n += 1
            linktype, unit = ifaces[ifid]
            yield Record(n, ((hi << 32) | lo) * unit, linktype, body[20:20 + incl],
                         max(orig, incl))
        elif btype == BLK_SPB:
            if len(body) < 4 or not ifaces:
                raise CaptureError("pcapng: simple packet block without an interface")
            orig = struct.unpack(e + "I", body[:4])[0]
            data = body[4:4 + orig]
            n += 1
            yield Record(n, 0.0, ifaces[0][0], data, max(orig, len(data)))
        # other blocks (name resolution, statistics, custom) carry no packet


def _tsresol(opts, e):
    """Seconds per timestamp unit from an interface's options (default
    microseconds)."""
    i = 0
    while i + 4 <= len(opts):
        code, olen = struct.unpack(e + "HH", opts[i:i + 4])
        if code == 0:
            break
        if code == OPT_IF_TSRESOL and olen >= 1 and i + 5 <= len(opts):
            v = opts[i + 4]
            return 2.0 ** -(v & 0x7f) if v & 0x80 else 10.0 ** -v
        i += 4 + (olen + 3) // 4 * 4
    return 1e-6
