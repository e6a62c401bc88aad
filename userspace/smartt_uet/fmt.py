# SPDX-License-Identifier: GPL-2.0
"""Output of smarttctl decode: a few lines of text per packet, or one JSON
object per line (--json).

Text: a first line with frame number, time, addresses, IP version, DSCP
(and its class), ECN, UDP length (and flow label, entropy); then one line per header (pds, ses,
smartt, crp) of name=value pairs in wire order, a value with a name shown
as "3(REQ_STD)"; then the payload and CRC32C; then "malformed: WHY" and
"note: WHAT" lines.
"""

import json

WIDTH = 100


def _pairs(d):
    out = []
    for k, v in d.items():
        if k.endswith("_name") or k == "kind":
            continue
        name = d.get(k + "_name")
        if isinstance(v, bool):
            v = int(v)
        if name is not None:
            out.append("%s=%s(%s)" % (k, v, name))
        else:
            out.append("%s=%s" % (k, v))
    return out


def _wrap(head, items):
    lines, cur = [], "  " + head
    for it in items:
        if len(cur) + 1 + len(it) > WIDTH and cur.strip() != head:
            lines.append(cur)
            cur = "    " + it
        else:
            cur += " " + it
    lines.append(cur)
    return lines


def text(p):
    """The lines for one decoded packet (a dict of cli.decode_packet)."""
    v6 = p["ip_version"] == 6
    addr = ("[%s]:%d -> [%s]:%d" if v6 else "%s:%d -> %s:%d") % (
        p["src"], p["sport"], p["dst"], p["dport"])
    first = "#%d %.6f %s %s IPv%d dscp %d(%s) ecn %s udp %d" % (
        p["frame"], p["time"], p["protocol"], addr, p["ip_version"], p["dscp"], p["dscp_class"],
        p["ecn_name"], p["udp_length"])
    if v6:
        first += " flow_label 0x%05x" % p["flow_label"]
    if "entropy" in p:
        first += " entropy %d" % p["entropy"]
    lines = [first]
    for h in ("pds", "ses", "smartt", "crp"):
        d = p.get(h)
        if d:
            head = h
            if h == "ses":
                head = "ses(%s)" % ("standard request" if d.get("kind") == "std" else "response")
            lines += _wrap(head + ":", _pairs(d))
    crc = p.get("crc")
    if crc:
        c = "crc32c %s" % crc["status"]
        if "value" in crc:
            c += " %s" % crc["value"]
            if "computed" in crc and crc["status"] != "valid":
                c += " (computed %s)" % crc["computed"]
        if "why" in crc:
            c += " (%s)" % crc["why"]
        lines.append("  payload %d bytes, %s" % (p["payload_bytes"], c))
    for m in p["malformed"]:
        lines.append("  malformed: " + m)
    for n in p["notes"]:
        lines.append("  note: " + n)
    return lines


def json_line(p):
    return json.dumps(p, sort_keys=False)
