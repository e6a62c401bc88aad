# SPDX-License-Identifier: GPL-2.0
"""The transport's packets as the fabric's tests send them: UET PDS (RUD) +
SES over UDP (wire format v2, Documentation/protocol.rst and
kernel/include/uapi/linux/smartt.h), and CRP's control packets on their own
UDP port.  Only what a test sender needs: DATA (PDS RUD_REQ + SES standard
request), ACK_CC, NACK, CTRL PROBE and the CRC32C trailer, and the PDS
type and PSN of a received UDP payload.

The builders leave the trailer's 4 bytes zero: it covers the IP addresses
and the UDP header (checksum taken as 0), which only the sender that wraps
the payload knows; seal() fills it, crc_ok() checks it.

The fabric never reads these headers: its ports classify and trim by DSCP
alone (the DSCP defaults below), so a test gives every packet the DSCP of
its class.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
from smartt_uet.crc32c import trailer_crc  # noqa: E402  (userspace/smartt_uet)

UDP_PORT = 4793                 # UET's port (the transport's udp_port)
CRP_UDP_PORT = 4794             # CRP's control packets (crp_udp_port)

# DSCP classes: the transport's and the fabric's defaults.
DSCP = {"trimmable": 10, "trimmed": 12, "trimmed_lasthop": 14, "control": 46,
        "crp_spec": 8, "crp_granted": 18, "crp_spec_dropped": 16}

# PDS types, next headers, CTRL types, flags.
PDS_RUD_REQ, PDS_ACK, PDS_ACK_CC, PDS_NACK, PDS_CTRL = 2, 7, 8, 10, 11
NH_NONE, NH_REQ_STD = 0, 3
CTL_PROBE = 6
REQ_F_RETX, REQ_F_AR, REQ_F_SYN = 0x10, 0x08, 0x04
NACK_TRIMMED, NACK_TRIMMED_LASTHOP = 0x01, 0x02
SES_SEND = 0x05
SES_F_REL, SES_F_EOM, SES_F_SOM = 0x08, 0x02, 0x01

PDS_REQ_LEN, SES_STD_LEN = 12, 44
DATA_HLEN = PDS_REQ_LEN + SES_STD_LEN   # what a trimming port keeps by default
ACK_LEN, NACK_LEN, CTRL_LEN = 32, 16, 16
CRC_LEN = 4

# CRP control packets: struct smartt_hdr + struct smartt_crp_ext.
SMARTT_MAGIC, CRP_VERSION = 0x5374, 2
CRP_REQ, CRP_GRANT, CRP_RETRY = 7, 8, 9
CRP_HDR_FMT = "!HBBHBBIIQHHIQQQQ"
CRP_EXT_FMT = "!HHIQQIIIHHQQQIIQ"
CRP_HLEN = struct.calcsize(CRP_HDR_FMT) + struct.calcsize(CRP_EXT_FMT)
assert struct.calcsize(CRP_HDR_FMT) == 64 and CRP_HLEN == 144


def trailer(body):
    """@body with room for its CRC32C trailer (zero until seal())."""
    return body + b"\0" * CRC_LEN


def _crc(payload, saddr, daddr, sport, dport):
    """The trailer's CRC32C (smartt_uet's, which smarttctl decode checks):
    over the IP source and destination addresses (packed: 4 or 16 bytes
    each), the UDP header with its checksum taken as 0 (a checksum is
    computed after the trailer and covers it), and the UDP payload before
    the trailer."""
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
    return trailer_crc(saddr + daddr + udp, payload[:-CRC_LEN])


def seal(payload, saddr, daddr, sport, dport):
    """@payload (a whole UDP payload, trailer last) with its CRC32C filled
    in, little endian, for a datagram saddr:sport -> daddr:dport."""
    return payload[:-CRC_LEN] + struct.pack("<I", _crc(payload, saddr, daddr, sport, dport))


def crc_ok(payload, saddr, daddr, sport, dport):
    """Whether @payload's trailer is right for saddr:sport -> daddr:dport."""
    return len(payload) >= CRC_LEN and \
        struct.unpack("<I", payload[-CRC_LEN:])[0] == _crc(payload, saddr, daddr, sport, dport)


def prologue(pds_type, nh, flags):
    return struct.pack("!H", (pds_type << 11) | (nh << 7) | (flags & 0x7f))


def data(psn, payload, spdcid=1, dpdcid=1, msg_id=0, offset=0, msg_len=None,
         pid=1, initiator=1, job=0, flags=REQ_F_AR, som=True, eom=True):
    """DATA: PDS RUD_REQ + SES standard request (SEND, relative addressing)
    + @payload + trailer.  @offset: the segment's offset in a message of
    @msg_len bytes (default: a one-segment message of len(payload))."""
    if msg_len is None:
        msg_len = offset + len(payload)
    pds = prologue(PDS_RUD_REQ, NH_REQ_STD, flags) + struct.pack(
        "!hIHH", 0, psn & 0xffffffff, spdcid, dpdcid)
    sflags = SES_F_REL | (SES_F_SOM if som else 0) | (SES_F_EOM if eom else 0)
    ses = struct.pack("!BBHIHHQIQ", SES_SEND, sflags, msg_id & 0xffff, job & 0xffffff,
                      pid & 0xfff, 0, 0, initiator, 0)
    if som:
        ses += struct.pack("!Q", 0)
    else:
        ses += struct.pack("!II", len(payload) & 0x3fff, offset)
    ses += struct.pack("!I", msg_len)
    assert len(pds) == PDS_REQ_LEN and len(ses) == SES_STD_LEN
    body = pds + ses + payload
    return trailer(body)


def ack_cc(cack_psn, ack_psn_offset=0, spdcid=1, dpdcid=1, flags=0, service_time=0,
           rcvd_bytes=0, ooo=0):
    """ACK_CC with NSCC state (next header none) + trailer."""
    hdr = prologue(PDS_ACK_CC, NH_NONE, flags) + struct.pack(
        "!hIHH", ack_psn_offset, cack_psn & 0xffffffff, spdcid, dpdcid)
    ext = struct.pack("!BBhQ", 0, 0, 0, 0)
    nscc = struct.pack("!HB", service_time & 0xffff, 0) + \
        (rcvd_bytes & 0xffffff).to_bytes(3, "big") + struct.pack("!H", ooo & 0xffff)
    body = hdr + ext + nscc
    assert len(body) == ACK_LEN
    return trailer(body)


def nack(psn, code=NACK_TRIMMED, spdcid=1, dpdcid=1, flags=0, payload=0, vendor=0):
    """NACK (@code, e.g. TRIMMED) of @psn + trailer."""
    body = prologue(PDS_NACK, NH_NONE, flags) + struct.pack(
        "!BBIHHI", code, vendor, psn & 0xffffffff, spdcid, dpdcid, payload & 0xffffffff)
    assert len(body) == NACK_LEN
    return trailer(body)


def probe(psn, opaque=0, spdcid=1, dpdcid=1, base_psn=0):
    """CTRL PROBE + trailer."""
    body = prologue(PDS_CTRL, CTL_PROBE, 0) + struct.pack(
        "!HIHHI", opaque & 0xffff, psn & 0xffffffff, spdcid, dpdcid, base_psn & 0xffffffff)
    assert len(body) == CTRL_LEN
    return trailer(body)


def crp(ptype, hdr=None, ext=None):
    """A CRP control packet (no UET, no trailer): @hdr and @ext override
    fields of struct smartt_hdr and struct smartt_crp_ext, {index: value}
    with the indexes of CRP_HDR_FMT and CRP_EXT_FMT."""
    h = [SMARTT_MAGIC, CRP_VERSION, ptype, 0, 0, CRP_HLEN // 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    x = [0] * 16
    for i, v in (hdr or {}).items():
        h[i] = v
    for i, v in (ext or {}).items():
        x[i] = v
    return struct.pack(CRP_HDR_FMT, *h) + struct.pack(CRP_EXT_FMT, *x)


def pds_fields(b):
    """PDS type, flags and PSN of a received UDP payload (the PSN field of
    each type: DATA psn, ACK cack_psn, NACK nack_psn, CTRL psn), or None."""
    if len(b) < 8:
        return None
    p, = struct.unpack_from("!H", b, 0)
    t = p >> 11
    if t not in (PDS_RUD_REQ, PDS_ACK, PDS_ACK_CC, PDS_NACK, PDS_CTRL):
        return None
    psn, = struct.unpack_from("!I", b, 4)
    return {"pds_type": t, "pds_flags": p & 0x7f, "psn": psn}
