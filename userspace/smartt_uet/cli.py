# SPDX-License-Identifier: GPL-2.0
"""smarttctl decode FILE|-: every UDP packet of a capture file to or from
the transport's UET port (or the CRP port), decoded (Documentation/decode.rst).

smarttctl builds the parser with add_arguments() and calls run(); run()
returns the exit status: 0 every packet well-formed, 3 at least one
malformed.  A file that is not a capture, or is damaged, raises
CaptureFileError (smarttctl: one line, status 1); bad options raise
OptionError (status 2).
"""

import sys

from . import fields as F
from . import fmt
from . import net
from .decode import Config, decode_crp, decode_uet
from .pcap import CaptureError, records

EXIT_MALFORMED = 3


class OptionError(Exception):
    """A bad option value."""


class CaptureFileError(Exception):
    """The capture cannot be read (the packets before the damage were printed)."""


def add_arguments(s):
    """The options of `decode` on the argparse (sub)parser s."""
    s.add_argument("file", metavar="FILE", help="a pcap or pcapng file, or - for standard input")
    s.add_argument("--json", action="store_true",
                   help="one JSON object per packet and line (fields by their UET names)")
    s.add_argument("--port", default=str(F.UET_PORT), metavar="PORT",
                   help="UDP port of the transport's UET packets (default %d)" % F.UET_PORT)
    s.add_argument("--crp-port", default=str(F.CRP_PORT), metavar="PORT",
                   help="UDP port of the CRP control packets (default %d)" % F.CRP_PORT)
    for name, v in F.DSCP_DEFAULTS:
        s.add_argument("--dscp-" + name.replace("_", "-"), default=str(v), metavar="DSCP",
                       dest="dscp_" + name,
                       help="DSCP of the %s class (default %d)" % (name, v))
    s.add_argument("--trim-bytes", default=str(F.TRIM_BYTES), metavar="N",
                   help="bytes of UDP payload a trimming switch keeps (default %d)"
                   % F.TRIM_BYTES)


def _int(opt, v, lo, hi):
    try:
        x = int(v, 0)
    except (TypeError, ValueError):
        x = None
    if x is None or not lo <= x <= hi:
        raise OptionError("decode %s %s: want an integer, %d..%d" % (opt, v, lo, hi))
    return x


def config_of(a):
    """The Config of parsed options (OptionError on a bad value)."""
    port = _int("--port", a.port, 1, 65535)
    crp = _int("--crp-port", a.crp_port, 1, 65535)
    if port == crp:
        raise OptionError("decode: --port and --crp-port are both %d" % port)
    dscp = {}
    for name, _ in F.DSCP_DEFAULTS:
        dscp[name] = _int("--dscp-" + name.replace("_", "-"), getattr(a, "dscp_" + name), 0, 63)
    seen = {}
    for name, v in dscp.items():
        if v in seen:
            raise OptionError("decode: --dscp-%s and --dscp-%s are both %d (the classes must "
                              "differ)" % (seen[v].replace("_", "-"), name.replace("_", "-"), v))
        seen[v] = name
    return Config(port, crp, dscp, _int("--trim-bytes", a.trim_bytes, 1, 65535))


def decode_packet(rec, cfg):
    """The decoded packet of one capture record, or None when it is not a
    UDP packet to or from the UET or CRP port."""
    g = net.udp(rec.linktype, rec.data, rec.wire_len)
    if g is None or g.fragment:
        return None
    ports = (g.sport, g.dport)
    if cfg.port in ports:
        proto = "uet"
    elif cfg.crp_port in ports:
        proto = "smartt-crp"
    else:
        return None
    cls = cfg.dscp_class(g.dscp)
    p = {
        "frame": rec.number, "time": round(rec.time, 9), "protocol": proto,
        "ip_version": g.ip_version, "src": g.src, "sport": g.sport, "dst": g.dst,
        "dport": g.dport, "ttl": g.ttl, "dscp": g.dscp, "dscp_class": cls, "ecn": g.ecn,
        "ecn_name": F.ECN_NAMES[g.ecn], "udp_length": g.udp_len,
        "udp_checksum": g.udp_checksum,
    }
    if g.ip_version == 6:
        p["flow_label"] = g.flow_label
    if proto == "uet":
        if g.dport == cfg.port:
            p["entropy"] = g.sport
        d = decode_uet(g.payload, g.payload_len, cls, cfg, g.crc_prefix())
    else:
        d = decode_crp(g.payload, g.payload_len, cfg)
    p.update(d)
    p["malformed"] = g.malformed + d["malformed"]
    _class_notes(p, cfg)
    return p


def _class_notes(p, cfg):
    """Where the DSCP is not the class the design sends such a packet in."""
    cls = p["dscp_class"]
    if p["protocol"] == "smartt-crp":
        want = ("control",)
        what = "a CRP control packet"
    elif p.get("pds") and p["pds"]["type"] in F.REQUEST_TYPES:
        want = F.DSCP_DATA_CLASSES
        what = "DATA"
    elif p.get("pds") and p["pds"]["type"] in (F.T_ACK, F.T_ACK_CC, F.T_NACK, F.T_CTRL):
        want = ("control",)
        what = "a " + p["pds"]["type_name"]
    else:
        return
    if cls not in want:
        p["notes"].append("DSCP %d (%s) for %s; the transport sends it in %s"
                          % (p["dscp"], cls, what, " or ".join(
                              "%s (%d)" % (w, cfg.dscp[w]) for w in want)))
    if p["ecn"] == 3:
        p["notes"].append("CE: a switch marked congestion")


def run(a, out=None):
    """smarttctl decode: print every packet; the exit status."""
    out = out or sys.stdout
    cfg = config_of(a)
    if a.file == "-":
        f, close = sys.stdin.buffer, False
    else:
        try:
            f, close = open(a.file, "rb"), True
        except OSError as e:
            raise CaptureFileError("decode: %s: %s" % (a.file, e.strerror))
    n = bad = uet = crp = 0
    try:
        for rec in records(f):
            n += 1
            p = decode_packet(rec, cfg)
            if p is None:
                continue
            if p["protocol"] == "uet":
                uet += 1
            else:
                crp += 1
            bad += bool(p["malformed"])
            if a.json:
                out.write(fmt.json_line(p) + "\n")
            else:
                out.write("\n".join(fmt.text(p)) + "\n")
            if a.file == "-":
                out.flush()     # a live capture: each packet as it comes
    except CaptureError as e:
        raise CaptureFileError("decode: %s: %s (after %d packets)"
                               % ("stdin" if a.file == "-" else a.file, e, n))
    finally:
        if close:
            f.close()
    if not a.json:
        out.write("%d frames: %d UET, %d CRP, %d malformed\n" % (n, uet, crp, bad))
    return EXIT_MALFORMED if bad else 0
