#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""uet_capture_check.py: a capture of the transport's real traffic decodes
as UET with no malformed field, in smarttctl decode and in the project's
Lua dissector, and holds the packets asked for.

  uet_capture_check.py CAPTURE WANT...

WANT is a packet kind that must occur at least once:
  TYPE                 a PDS type name (RUD_REQ, ACK_CC, NACK, CTRL, ACK)
  TYPE:FLAG            ... with that PDS flag set (SYN, RETX, AR, M, P)
  NACK:CODE            a NACK with that code name (TRIMMED, TRIMMED_LASTHOP)
  CTRL:CTL             a CTRL of that type (PROBE)
  dscp:CLASS           a packet of that DSCP class (trimmed, trimmed_lasthop)
Prints one line per finding; exit 0 if all holds, 1 if not, 4 (skip) when
smarttctl cannot run.  The dissector's part is skipped, saying why, without
tshark or where an installed copy of the dissector differs from the tree's.
"""
import collections
import json
import os
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CTL = os.path.join(TOP, "userspace", "smarttctl")
LUA = os.path.join(TOP, "userspace", "wireshark", "smartt-uet.lua")


def kinds(p):
    """The WANT names a decoded packet answers to."""
    pds = p.get("pds") or {}
    t = pds.get("type_name")
    if not t:
        return set()
    out = {t, "dscp:" + str(p.get("dscp_class"))}
    for k, v in pds.items():
        if k.startswith("flags.") and v is True:
            out.add("%s:%s" % (t, k[6:].upper()))
    for k in ("nack_code_name", "ctl_type_name"):
        if pds.get(k):
            out.add("%s:%s" % (t, pds[k]))
    return out


def decoder(path, want):
    """Decode @path; (all holds, packets decoded), or (None, 0) if it cannot."""
    r = subprocess.run([sys.executable, CTL, "decode", "--json", path],
                       capture_output=True, text=True)
    if r.returncode not in (0, 3):
        print("smarttctl decode: exit %d: %s" % (r.returncode, r.stderr.strip()[-400:]))
        return None, 0
    pkts = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    bad = [p for p in pkts if p.get("malformed")]
    seen = collections.Counter()
    for p in pkts:
        seen.update(kinds(p))
    ok = r.returncode == 0 and not bad and pkts
    for p in bad[:5]:
        print("malformed frame %d: %s" % (p["frame"], "; ".join(p["malformed"])))
    miss = [w for w in want if not seen[w]]
    if miss:
        print("decoder: none of %s" % ", ".join(miss))
    print("decoder: %d packets, %d malformed; %s" % (
        len(pkts), len(bad), ", ".join("%s %d" % (k, seen[k]) for k in want)))
    return bool(ok) and not miss, len(pkts)


def tshark_argv():
    """tshark with the tree's dissector, or None and why not."""
    if not shutil.which("tshark"):
        return None, "tshark not installed (make deps)"
    r = subprocess.run(["tshark", "-G", "folders"], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        k, _, v = line.partition(":")
        if k.strip() not in ("Global Lua Plugins", "Personal Lua Plugins"):
            continue
        inst = os.path.join(v.strip(), os.path.basename(LUA))
        if os.path.exists(inst):
            with open(inst, "rb") as a, open(LUA, "rb") as b:
                if a.read() != b.read():
                    return None, "an installed %s differs from the tree's" % inst
            return ["tshark"], None
    return ["tshark", "-X", "lua_script:" + LUA], None


def dissector(path, npkts):
    argv, why = tshark_argv()
    if not argv:
        print("dissector: skipped: %s" % why)
        return True
    r = subprocess.run(argv + ["-n", "-r", path, "-Y", "uet || smartt_crp", "-T", "fields",
                               "-E", "separator=|", "-e", "frame.number",
                               "-e", "_ws.expert.severity", "-e", "_ws.expert.message"],
                       capture_output=True, text=True)
    if r.returncode:
        print("dissector: tshark exit %d: %s" % (r.returncode, r.stderr.strip()[-400:]))
        return False
    rows = [line.split("|") for line in r.stdout.splitlines()]
    errs = [row for row in rows if len(row) > 1 and
            any(s.isdigit() and int(s) >= 0x00800000 for s in row[1].split(","))]
    for row in errs[:5]:
        print("dissector: frame %s: %s" % (row[0], row[2] if len(row) > 2 else "?"))
    print("dissector: %d UET/CRP packets, %d with a warning or error" % (len(rows), len(errs)))
    return not errs and len(rows) == npkts


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2])
        return 2
    path, want = sys.argv[1], sys.argv[2:]
    if not os.path.exists(CTL):
        print("no %s" % CTL)
        return 4
    ok, n = decoder(path, want)
    if ok is None:
        return 1
    ok = dissector(path, n) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
