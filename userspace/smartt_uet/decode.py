# SPDX-License-Identifier: GPL-2.0
"""One UDP payload of the transport -> its fields by their UET names, and
every way it is malformed, each checked against the packet's own lengths.

decode_uet(payload, wire_len, dscp_class, cfg, crc_prefix) and
decode_crp(...) return a dict: "pds"/"ses" (UET) or "smartt"/"crp" (CRP)
field dicts, "payload_bytes", "crc", "malformed" (list of reasons) and
"notes" (facts worth a line that are not errors).  Field keys are the dissector's filter names without "uet."
(pds["psn"] is uet.pds.psn, ses["flags.som"] is uet.ses.flags.som).
Nothing here raises on any input.
"""

import struct

from . import fields as F
from .crc32c import bswap32, crc32c, trailer_crc


class Config:
    """What the capture is decoded against: ports, DSCP values, trim size."""

    def __init__(self, port=F.UET_PORT, crp_port=F.CRP_PORT, dscp=None, trim_bytes=F.TRIM_BYTES):
        self.port = port
        self.crp_port = crp_port
        self.dscp = dict(F.DSCP_DEFAULTS)
        self.dscp.update(dscp or {})
        self.trim_bytes = trim_bytes

    def dscp_class(self, dscp):
        """The class name of a DSCP value, or "other"."""
        for name, _ in F.DSCP_DEFAULTS:
            if self.dscp[name] == dscp:
                return name
        return "other"


class Stop(Exception):
    """Decoding cannot go on: the reason is already in the malformed list."""


class Buf:
    """Big-endian reads at offsets of the UDP payload, checked against the
    payload's length on the wire (wire) and the bytes captured (len(b))."""

    def __init__(self, b, wire, out, crc_prefix=None):
        self.b = b
        self.wire = wire
        self.out = out
        self.crc_prefix = crc_prefix

    def need(self, off, n, what):
        if off + n > self.wire:
            self.out["malformed"].append("%s cut off: needs bytes %d..%d, the packet has %d"
                                         % (what, off, off + n - 1, self.wire))
            raise Stop()
        if off + n > len(self.b):
            self.out["malformed"].append("%s not captured (snap length %d)" % (what, len(self.b)))
            raise Stop()

    def u8(self, o):
        return self.b[o]

    def u16(self, o):
        return struct.unpack_from(">H", self.b, o)[0]

    def s16(self, o):
        return struct.unpack_from(">h", self.b, o)[0]

    def u24(self, o):
        return int.from_bytes(self.b[o:o + 3], "big")

    def u32(self, o):
        return struct.unpack_from(">I", self.b, o)[0]

    def u64(self, o):
        return struct.unpack_from(">Q", self.b, o)[0]


def _name(table, v):
    return table.get(v, "unknown(%d)" % v)


def _flags(d, prefix, value, bits):
    for name, bit in bits:
        d["%s.%s" % (prefix, name)] = bool(value & bit)


def _psn(v):
    return v & 0xffffffff


def new_result():
    return {"pds": None, "ses": None, "payload_bytes": 0, "crc": None,
            "malformed": [], "notes": []}


def decode_uet(payload, wire_len, dscp_class, cfg, crc_prefix=None):
    """Decode one UET packet (the UDP payload; wire_len its length on the
    wire, more than len(payload) when the capture cut it).  crc_prefix: the
    IP source and destination addresses and the UDP header as on the wire
    (net.Datagram.crc_prefix()), which the CRC32C trailer covers before the
    payload; without it the trailer is not checked ("unchecked")."""
    out = new_result()
    buf = Buf(payload, wire_len, out, crc_prefix)
    trimmed = dscp_class in F.DSCP_TRIMMED_CLASSES
    try:
        end = _pds(buf, out, cfg)
        pds = out["pds"]
        t = pds["type"]
        nh = pds.get("next_hdr")
        if t in F.REQUEST_TYPES or t in (F.T_RUDI_REQ, F.T_RUDI_RESP, F.T_UUD_REQ) \
                or t in F.ACK_TYPES:
            if nh == F.NH_REQ_STD:
                end = _ses_std(buf, out, end)
            elif nh == F.NH_RSP:
                end = _ses_rsp(buf, out, end)
            elif nh in (F.NH_REQ_SMALL, F.NH_REQ_MEDIUM, F.NH_RSP_DATA, F.NH_RSP_DATA_SMALL):
                out["notes"].append("SES %s header not decoded (the transport sends none)"
                                    % F.NEXT_HDRS[nh])
                _trailer(buf, out, end, trimmed, checked=False)
                return out
        _trimmed_checks(buf, out, trimmed, dscp_class, cfg)
        _trailer(buf, out, end, trimmed)
        if out["ses"] is not None and out["ses"].get("kind") == "std":
            _payload_checks(out, trimmed)
    except Stop:
        pass
    return out


def _pds(b, out, cfg):
    """The PDS header; returns the offset after it."""
    b.need(0, 2, "PDS prologue")
    pro = b.u16(0)
    t = (pro >> F.PDS_TYPE_SHIFT) & F.PDS_TYPE_MASK
    nh = (pro >> F.PDS_NH_SHIFT) & F.PDS_NH_MASK
    fl = pro & F.PDS_FLAGS_MASK
    p = {"type": t, "type_name": _name(F.PDS_TYPES, t)}
    out["pds"] = p
    if t == F.T_CTRL:
        p["ctl_type"] = nh
        p["ctl_type_name"] = _name(F.CTL_TYPES, nh)
    else:
        p["next_hdr"] = nh
        p["next_hdr_name"] = _name(F.NEXT_HDRS, nh)
    p["flags"] = fl
    if t not in F.PDS_LEN:
        out["malformed"].append("unknown PDS type %d%s" % (
            t, " (TSS: encrypted packets are not decoded)" if t == 1 else ""))
        raise Stop()
    if t not in F.SMARTT_TYPES:
        out["notes"].append("PDS type %s is not one the transport sends" % F.PDS_TYPES[t])
    n = F.PDS_LEN[t]
    if t == F.T_ACK and fl & F.ACK_EPSN:
        n += 4
    b.need(0, n, "PDS %s header (%d bytes)" % (F.PDS_TYPES[t], n))
    if t in F.REQUEST_TYPES:
        _flags(p, "flags", fl, F.REQ_FLAGS)
        rsvd = F.REQ_RSVD
        if nh not in (F.NH_REQ_SMALL, F.NH_REQ_MEDIUM, F.NH_REQ_STD):
            out["malformed"].append("wrong next header %d (%s) for a %s: a request carries "
                                    "an SES request header" % (nh, _name(F.NEXT_HDRS, nh),
                                                               F.PDS_TYPES[t]))
        off = b.s16(2)
        p["psn"] = b.u32(4)
        p["clear_psn_offset"] = off
        # the highest PSN the sender has cleared (all up to it included)
        p["clear_psn"] = _psn(p["psn"] + off)
        if off >= 0:
            out["notes"].append("clear_psn_offset %d is not negative: the transport clears "
                                "only PSNs below the packet's (offset -1 or less)" % off)
        p["spdcid"] = b.u16(8)
        _dpdcid(b, p, out, fl & 0x04, 10)
        if t in (F.T_RUD_CC_REQ, F.T_ROD_CC_REQ):
            p["ccc_id"] = b.u8(12)
            p["credit_target"] = b.u24(13)
    elif t in F.ACK_TYPES:
        _flags(p, "flags", fl, F.ACK_FLAGS)
        req = (fl & F.ACK_REQ_MASK) >> F.ACK_REQ_SHIFT
        p["flags.req"] = req
        rsvd = F.ACK_RSVD
        if t == F.T_ACK:
            p["flags.epsn"] = bool(fl & F.ACK_EPSN)
            rsvd &= ~F.ACK_EPSN
        if req == 3:
            out["malformed"].append("ACK flags req = 3 (reserved)")
        if nh not in (F.NH_NONE, F.NH_RSP, F.NH_RSP_DATA, F.NH_RSP_DATA_SMALL):
            out["malformed"].append("wrong next header %d (%s) for an %s: an ACK carries no "
                                    "SES header or an SES response" % (nh, _name(F.NEXT_HDRS, nh),
                                                                     F.PDS_TYPES[t]))
        p["cack_psn"] = b.u32(4)
        if fl & 0x08:
            p["probe_opaque"] = b.u16(2)
        else:
            p["ack_psn_offset"] = b.s16(2)
            p["ack_psn"] = _psn(p["cack_psn"] + p["ack_psn_offset"])
        p["spdcid"] = b.u16(8)
        p["dpdcid"] = b.u16(10)
        if t == F.T_ACK and fl & F.ACK_EPSN:
            p["epsn"] = b.u32(12)
        if t in (F.T_ACK_CC, F.T_ACK_CCX):
            _ack_ext(b, p, out, t)
    elif t in F.NACK_TYPES:
        _flags(p, "flags", fl, F.NACK_FLAGS)
        rsvd = F.NACK_RSVD
        if nh != F.NH_NONE:
            out["malformed"].append("wrong next header %d (%s) for a %s: a NACK carries no SES "
                                    "header" % (nh, _name(F.NEXT_HDRS, nh), F.PDS_TYPES[t]))
        code = b.u8(2)
        p["nack_code"] = code
        p["nack_code_name"] = _name(F.NACK_CODES, code)
        p["vendor_code"] = b.u8(3)
        if code in F.SMARTT_VENDOR_NACKS and p["vendor_code"] == F.SMARTT_VENDOR:
            p["nack_code_name"] += "/smartt:" + F.SMARTT_VENDOR_NACKS[code]
        if code not in F.NACK_CODES:
            out["malformed"].append("unknown nack_code 0x%02x" % code)
        p["nack_psn"] = b.u32(4)
        p["spdcid"] = b.u16(8)
        p["dpdcid"] = b.u16(10)
        p["payload"] = b.u32(12)
        if t == F.T_NACK_CCX:
            p["nccx_type"] = b.u8(16) >> 4
            p["nccx_state"] = payload_hex(b.b[16:32])
    elif t == F.T_CTRL:
        _flags(p, "flags", fl, F.CTRL_FLAGS)
        rsvd = F.CTRL_RSVD
        if nh not in F.CTL_TYPES:
            out["malformed"].append("unknown ctl_type %d" % nh)
        p["probe_opaque"] = b.u16(2)
        p["psn"] = b.u32(4)
        p["spdcid"] = b.u16(8)
        _dpdcid(b, p, out, fl & 0x04, 10)
        p["payload"] = b.u32(12)
        p["payload_meaning"] = F.CTL_PAYLOAD.get(nh, "unknown")
        if nh == F.CTL_PROBE:
            p["sack_base_psn"] = p["payload"]
    elif t in (F.T_RUDI_REQ, F.T_RUDI_RESP):
        rsvd = F.RUDI_RSVD
        p["rsvd"] = b.u16(2)
        p["pkt_id"] = b.u32(4)
    else:   # UUD_REQ
        rsvd = F.UUD_RSVD
        p["rsvd"] = b.u16(2)
    if fl & rsvd:
        out["malformed"].append("reserved PDS flag bits 0x%02x set in a %s"
                                % (fl & rsvd, F.PDS_TYPES[t]))
    return n


def _dpdcid(b, p, out, syn, o):
    v = b.u16(o)
    if syn:
        p["pdc_info"] = (v >> F.PDC_INFO_SHIFT) & F.PDC_INFO_MASK
        p["pdc_info.use_rsv_pdc"] = bool(p["pdc_info"] & F.PDC_INFO_USE_RSV_PDC)
        p["psn_offset"] = v & F.PSN_OFFSET_MASK
        p["start_psn"] = _psn(p["psn"] - p["psn_offset"])
        if p["pdc_info"] & 0x7:
            out["malformed"].append("reserved pdc_info bits 0x%x set" % (p["pdc_info"] & 0x7))
    else:
        p["dpdcid"] = v


def _ack_ext(b, p, out, t):
    ct = b.u8(12)
    p["cc_type"] = ct >> 4
    p["cc_type_name"] = _name(F.CC_TYPES, p["cc_type"])
    p["cc_flags"] = ct & 0xf
    p["mpr"] = b.u8(13)
    p["mpr_psn_range"] = p["mpr"] * F.MPR_UNIT
    p["sack_psn_offset"] = b.s16(14)
    p["sack_base_psn"] = _psn(p["cack_psn"] + p["sack_psn_offset"])
    p["sack_bitmap"] = "0x%016x" % b.u64(16)
    if t == F.T_ACK_CCX:
        p["ccx_state"] = payload_hex(b.b[24:40])
        return
    if p["cc_type"] == F.CC_NSCC:
        p["cc_state.service_time"] = b.u16(24)
        v = b.u8(26)
        p["cc_state.rc"] = bool(v & 0x80)
        p["cc_state.rcv_cwnd_pend"] = v & 0x7f
        p["cc_state.rcvd_bytes"] = b.u24(27)
        p["cc_state.ooo_count"] = b.u16(30)
    elif p["cc_type"] == F.CC_CREDIT:
        p["cc_state.credit"] = b.u24(24)
        p["cc_state.ooo_count"] = b.u16(30)
        if b.u24(27):
            out["malformed"].append("reserved bytes of the credit cc_state set")
    else:
        p["cc_state"] = payload_hex(b.b[24:32])
        out["malformed"].append("unknown cc_type %d" % p["cc_type"])


def _ses_std(b, out, o):
    """The SES standard request header at offset o; returns the offset after
    it (and its extension header, if the opcode has one)."""
    b.need(o, F.SES_STD_LEN, "SES standard request header (44 bytes)")
    s = {"kind": "std"}
    out["ses"] = s
    v = b.u8(o)
    s["opcode"] = v & 0x3f
    s["opcode_name"] = _name(F.SES_OPCODES, s["opcode"])
    if v >> 6:
        out["malformed"].append("reserved SES bits set before the opcode (0x%x)" % (v >> 6))
    if s["opcode"] not in F.SES_OPCODES:
        out["malformed"].append("unknown SES opcode 0x%02x" % s["opcode"])
    v = b.u8(o + 1)
    s["version"] = v >> 6
    s["flags"] = v & 0x3f
    _flags(s, "flags", v, F.SES_FLAGS)
    s["flags.rel_name"] = F.SES_REL_NAMES[s["flags.rel"]]
    if s["version"] != 0:
        out["malformed"].append("SES version %d (the transport speaks 0)" % s["version"])
    s["message_id"] = b.u16(o + 2)
    s["ri_generation"] = b.u8(o + 4)
    s["job_id"] = b.u24(o + 5)
    v = b.u16(o + 8)
    s["pid_on_fep"] = v & 0x0fff
    if v >> 12:
        out["malformed"].append("reserved bits above PIDonFEP set (0x%x)" % (v >> 12))
    v = b.u16(o + 10)
    s["resource_index"] = v & 0x0fff
    if v >> 12:
        out["malformed"].append("reserved bits above the resource index set (0x%x)" % (v >> 12))
    s["buffer_offset"] = b.u64(o + 12)
    s["initiator"] = b.u32(o + 20)
    s["memory_key"] = "0x%016x" % b.u64(o + 24)
    if s["flags.som"]:
        s["header_data"] = "0x%016x" % b.u64(o + 32)
    else:
        v = b.u32(o + 32)
        s["payload_length"] = v & F.SES_PAYLOAD_LEN_MASK
        s["message_offset"] = b.u32(o + 36)
        if v >> 14:
            out["malformed"].append("reserved bits above payload_length set (0x%x)" % (v >> 14))
    s["request_length"] = b.u32(o + 40)
    end = o + F.SES_STD_LEN
    ext = {0x03: 4, 0x04: 4, 0x0d: 4, 0x0e: 4, 0x06: 24, 0x0a: 24}.get(s["opcode"], 0)
    if ext:
        b.need(end, ext, "SES %s extension header (%d bytes)" % (s["opcode_name"], ext))
        s["ext_header"] = payload_hex(b.b[end:end + ext])
        out["notes"].append("SES %s extension header not decoded" % s["opcode_name"])
        end += ext
    return end


def _ses_rsp(b, out, o):
    b.need(o, F.SES_RSP_LEN, "SES response header (12 bytes)")
    s = {"kind": "rsp"}
    out["ses"] = s
    v = b.u8(o)
    s["list"] = v >> 6
    s["opcode"] = v & 0x3f
    s["opcode_name"] = _name(F.SES_RSP_OPCODES, s["opcode"])
    if s["opcode"] not in (0, 1, 3):
        out["malformed"].append("SES response opcode %d (%s) in a response header without data"
                                % (s["opcode"], s["opcode_name"]))
    v = b.u8(o + 1)
    s["version"] = v >> 6
    s["return_code"] = v & 0x3f
    s["return_code_name"] = _name(F.SES_RETURN_CODES, s["return_code"])
    if s["return_code"] not in F.SES_RETURN_CODES:
        out["malformed"].append("unknown SES return code 0x%02x" % s["return_code"])
    s["message_id"] = b.u16(o + 2)
    s["ri_generation"] = b.u8(o + 4)
    s["job_id"] = b.u24(o + 5)
    s["modified_length"] = b.u32(o + 8)
    return o + F.SES_RSP_LEN


def _trimmed_checks(b, out, trimmed, dscp_class, cfg):
    if not trimmed:
        return
    t = out["pds"]["type"]
    if t not in F.REQUEST_TYPES:
        out["malformed"].append("DSCP %d (%s) on a %s: only requests (DATA) are trimmed"
                                % (cfg.dscp[dscp_class], dscp_class, F.PDS_TYPES[t]))
    elif b.wire > cfg.trim_bytes:
        out["malformed"].append("DSCP %d (%s), but it holds %d bytes after UDP, more than the "
                                "%d a trim leaves" % (cfg.dscp[dscp_class], dscp_class, b.wire,
                                                      cfg.trim_bytes))


def _trailer(b, out, end, trimmed, checked=True):
    """Everything after the headers: payload and CRC32C trailer."""
    rest = b.wire - end
    if trimmed:
        out["payload_bytes"] = max(0, rest)
        out["crc"] = {"status": "absent", "why": "trimmed"}
        return
    if rest < F.CRC_LEN:
        out["payload_bytes"] = 0
        out["crc"] = {"status": "missing"}
        out["malformed"].append("CRC32C trailer missing: %d bytes after the headers" % rest)
        return
    out["payload_bytes"] = rest - F.CRC_LEN
    t = out["pds"]["type"]
    if out["payload_bytes"] and (out["ses"] is None or out["ses"]["kind"] != "std") \
            and checked and t not in (F.T_UUD_REQ,):
        out["malformed"].append("%d bytes between the %s headers and the trailer (it carries "
                                "no payload)" % (out["payload_bytes"], F.PDS_TYPES[t]))
    if len(b.b) < b.wire:
        out["crc"] = {"status": "not captured"}
        return
    # little endian: the least significant byte first
    got = int.from_bytes(b.b[b.wire - F.CRC_LEN:b.wire], "little")
    body = b.b[:b.wire - F.CRC_LEN]
    if b.crc_prefix is None:
        out["crc"] = {"status": "unchecked", "value": "0x%08x" % got,
                      "why": "no IP addresses and UDP header"}
        return
    want = trailer_crc(csum_as_zero(b.crc_prefix), body)
    ok = got == want
    out["crc"] = {"status": "valid" if ok else "invalid", "value": "0x%08x" % got,
                  "computed": "0x%08x" % want}
    if not ok:
        hint = crc_hint(got, want, b.crc_prefix, body)
        out["malformed"].append("bad CRC32C: 0x%08x, computed 0x%08x%s"
                                % (got, want, " (%s)" % hint if hint else ""))


def csum_as_zero(prefix):
    """prefix (the addresses and the UDP header as on the wire) with the
    UDP checksum taken as 0, as the trailer covers it: a checksum, if
    any, is computed after the trailer and covers it."""
    return prefix[:-2] + b"\0\0"


def crc_hint(got, want, prefix, body):
    """What a trailer that does not match holds instead, if it is one of
    the usual mistakes: the byte order, the coverage (the UDP payload
    alone), or the UDP checksum covered as on the wire where it is not 0."""
    if bswap32(got) == want:
        return "stored big endian; the trailer is little endian"
    alone = crc32c(body)
    if got == alone:
        return "over the UDP payload alone; the trailer covers the IP addresses and the " \
               "UDP header too"
    if bswap32(got) == alone:
        return "over the UDP payload alone and big endian, the trailer's earlier format"
    if prefix[-2:] != b"\0\0" and got == trailer_crc(prefix, body):
        return "with the UDP checksum as on the wire; the trailer takes it as 0"
    return ""


def _payload_checks(out, trimmed):
    """A request's SES lengths against the payload it holds."""
    s, n = out["ses"], out["payload_bytes"]
    rl = s["request_length"]
    if s["flags.som"]:
        if s["flags.eom"] and not trimmed and n != rl:
            out["malformed"].append("SOM+EOM with request_length %d, but %d payload bytes"
                                    % (rl, n))
        elif n > rl:
            out["malformed"].append("SOM packet holds %d payload bytes, more than request_length "
                                    "%d" % (n, rl))
        return
    pl, mo = s["payload_length"], s["message_offset"]
    if not trimmed and pl != n:
        out["malformed"].append("payload_length %d, but the packet holds %d payload bytes"
                                % (pl, n))
    elif trimmed and n > pl:
        out["malformed"].append("trimmed, yet holds %d payload bytes, more than payload_length %d"
                                % (n, pl))
    if mo + pl > rl:
        out["malformed"].append("message_offset %d + payload_length %d runs past request_length "
                                "%d" % (mo, pl, rl))
    elif s["flags.eom"] and mo + pl != rl:
        out["malformed"].append("EOM, but message_offset %d + payload_length %d != request_length "
                                "%d" % (mo, pl, rl))


def payload_hex(b):
    return bytes(b).hex()


def decode_crp(payload, wire_len, cfg):
    """Decode one CRP control packet (UDP port crp_port): the project's
    vendor-specific struct smartt_hdr + struct smartt_crp_ext."""
    out = new_result()
    out["vendor"] = "smartt"
    b = Buf(payload, wire_len, out)
    try:
        b.need(0, F.SMARTT_HDR_LEN, "struct smartt_hdr (64 bytes)")
        h = {}
        o = 0
        for name, fmt in F.SMARTT_HDR_FIELDS:
            h[name] = struct.unpack_from(">" + fmt, payload, o)[0]
            o += struct.calcsize(fmt)
        out["smartt"] = h
        h["type_name"] = _name(F.CRP_TYPES, h["type"])
        if h["magic"] != F.SMARTT_MAGIC:
            out["malformed"].append("magic 0x%04x, not 0x%04x" % (h["magic"], F.SMARTT_MAGIC))
            raise Stop()
        if h["version"] not in F.SMARTT_CRP_VERSIONS:
            out["malformed"].append("version %d, want %s" % (
                h["version"], " or ".join(str(v) for v in F.SMARTT_CRP_VERSIONS)))
        if h["type"] not in F.CRP_TYPES:
            out["malformed"].append("type %d is not a CRP control packet" % h["type"])
        hl = h["hdr_words"] * 8
        if hl < F.SMARTT_CRP_HLEN:
            out["malformed"].append("hdr_words %d: %d bytes, less than the %d of the CRP headers"
                                    % (h["hdr_words"], hl, F.SMARTT_CRP_HLEN))
            hl = F.SMARTT_CRP_HLEN
        b.need(F.SMARTT_HDR_LEN, F.SMARTT_CRP_EXT_LEN, "struct smartt_crp_ext (80 bytes)")
        c = {}
        o = F.SMARTT_HDR_LEN
        for name, fmt in F.SMARTT_CRP_EXT_FIELDS:
            c[name] = struct.unpack_from(">" + fmt, payload, o)[0]
            o += struct.calcsize(fmt)
        c["vec"] = "0x%016x" % c["vec"]
        _flags(c, "crp_flags", c["crp_flags"], F.CRP_FLAGS)
        out["crp"] = c
        if c["crp_flags"] & ~F.CRP_FLAGS_KNOWN:
            out["malformed"].append("unknown crp_flags bits 0x%04x"
                                    % (c["crp_flags"] & ~F.CRP_FLAGS_KNOWN))
        if hl > wire_len:
            out["malformed"].append("hdr_words %d: %d bytes, but the packet has %d"
                                    % (h["hdr_words"], hl, wire_len))
        elif wire_len - hl != h["payload_len"]:
            out["malformed"].append("payload_len %d, but %d bytes follow the headers"
                                    % (h["payload_len"], wire_len - hl))
        out["payload_bytes"] = max(0, wire_len - hl)
        out["crc"] = {"status": "absent", "why": "CRP packets carry no trailer"}
    except Stop:
        pass
    return out
