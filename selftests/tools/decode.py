#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""smarttctl decode and the Wireshark Lua dissector against packets built
by uet_encode.py: every packet type of the wire format in pcap and pcapng,
over Ethernet, SLL and SLL2, IPv4 and IPv6, each field checked; every
malformed case (cut at each header boundary, bad CRC, unknown type, wrong
next header, reserved bits, lengths that disagree, a full packet marked
trimmed...) reported as malformed with exit status 3 and no traceback; a
real tcpdump capture of packets sent over loopback (root); a bounded fuzz
loop; then the same captures through tshark with the project's dissector
(skipped, saying why, without tshark).  One TAP line per case.

    decode.py [TOP]
"""

import json
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "selftests", "tools"))
sys.path.insert(0, os.path.join(TOP, "userspace"))
import uet_encode as E  # noqa: E402
from smartt_uet import fields as F  # noqa: E402
from smartt_uet import fmt  # noqa: E402
from smartt_uet.cli import decode_packet  # noqa: E402
from smartt_uet.decode import Config  # noqa: E402
from smartt_uet.pcap import Record  # noqa: E402

CTL = os.path.join(TOP, "userspace", "smarttctl")
LUA = os.path.join(TOP, "userspace", "wireshark", "smartt-uet.lua")
FUZZ_SECONDS = float(os.environ.get("SMARTT_DECODE_FUZZ_SECONDS", "5"))
n = 0
failed = 0


def tap(ok, desc, diag=()):
    global n, failed
    n += 1
    for d in diag:
        for line in str(d).splitlines() or [""]:
            print("# " + line)
    if ok is None:
        print("ok %d %s # SKIP %s" % (n, desc, diag[-1] if diag else ""))
    else:
        print("%s %d %s" % ("ok" if ok else "not ok", n, desc))
        failed += not ok
    sys.stdout.flush()


def run(argv, stdin=None, timeout=300):
    r = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


# ---- the packets: (name, UDP payload, framing options, expected fields) ----

PAY = bytes(range(256)) * 8


def data(psn=1000, som=True, eom=True, seg=64, off=0, msg_len=None, syn=False, **kw):
    """DATA as the transport sends it: CLEAR_PSN below the PSN (offset -1
    unless told), REL set (relative addressing)."""
    msg_len = seg if msg_len is None else msg_len
    hdr = E.rud_req(psn, 0x1234, dpdcid=0x5678, syn=syn, psn_offset=kw.pop("psn_offset", 0),
                    clear_off=kw.pop("clear_off", -1), retx=kw.pop("retx", False),
                    ar=kw.pop("ar", False))
    ses = E.ses_std(som=som, eom=eom, message_id=kw.pop("message_id", 7), job_id=0x123456,
                    rel=kw.pop("rel", True),
                    pid_on_fep=kw.pop("pid_on_fep", 5), initiator=kw.pop("initiator", 2048),
                    payload_length=0 if som else seg, message_offset=0 if som else off,
                    request_length=msg_len)
    return E.with_crc(hdr + ses + PAY[:seg])


def good_packets():
    """Every packet type the transport sends, with the fields to expect."""
    P = []
    P.append(("DATA SYN single segment", data(syn=True, psn_offset=3, ar=True, clear_off=-3),
              {}, {"pds": {"type": 2, "type_name": "RUD_REQ", "next_hdr": 3, "flags.syn": True,
                           "flags.ar": True, "flags.retx": False, "psn": 1000,
                           "clear_psn_offset": -3, "clear_psn": 997, "spdcid": 0x1234,
                           "pdc_info": 0, "psn_offset": 3, "start_psn": 997},
                   "ses": {"opcode": 5, "opcode_name": "SEND", "version": 0, "flags.som": True,
                           "flags.eom": True, "flags.rel": True, "flags.rel_name": "relative",
                           "flags": 0x0b, "message_id": 7, "job_id": 0x123456,
                           "pid_on_fep": 5, "resource_index": 0, "initiator": 2048,
                           "buffer_offset": 0, "header_data": "0x0000000000000000",
                           "request_length": 64},
                   "payload_bytes": 64, "crc": {"status": "valid"}}))
    # "use reserved PDC": bit 15 of bytes 10-11, the top bit of pdc_info
    P.append(("DATA SYN using a reserved PDC", E.with_crc(
        E.rud_req(5000, 0x1234, syn=True, pdc_info=8, psn_offset=0x0fff)
        + E.ses_std(request_length=0)), {},
        {"pds": {"flags.syn": True, "pdc_info": 8, "pdc_info.use_rsv_pdc": True,
                 "psn_offset": 0x0fff, "start_psn": 5000 - 0x0fff}, "malformed": []}))
    P.append(("DATA first segment", data(som=True, eom=False, seg=100, msg_len=300),
              {}, {"pds": {"dpdcid": 0x5678, "flags.syn": False},
                   "ses": {"flags.som": True, "flags.eom": False, "request_length": 300},
                   "payload_bytes": 100}))
    P.append(("DATA middle segment, retransmitted",
              data(psn=0xffffffff, som=False, eom=False, seg=100, off=100, msg_len=300,
                   retx=True, clear_off=-5, message_id=0xffff),
              {}, {"pds": {"flags.retx": True, "psn": 0xffffffff, "clear_psn": 0xfffffffa},
                   "ses": {"flags.som": False, "flags.eom": False, "payload_length": 100,
                           "message_offset": 100, "message_id": 0xffff},
                   "payload_bytes": 100}))
    P.append(("DATA last segment", data(som=False, eom=True, seg=100, off=200, msg_len=300),
              {}, {"ses": {"flags.eom": True, "payload_length": 100, "message_offset": 200,
                           "request_length": 300}}))
    # CLEAR_PSN = PSN + offset, the highest PSN cleared: the transport's is
    # below the PSN; another sender's 0 or more is UET, only noted
    P.append(("DATA CLEAR_PSN one below the PSN", data(psn=0, clear_off=-1), {},
              {"pds": {"psn": 0, "clear_psn_offset": -1, "clear_psn": 0xffffffff},
               "malformed": []}))
    P.append(("DATA CLEAR_PSN offset 0 (another sender)", data(psn=50, clear_off=0), {},
              {"pds": {"clear_psn_offset": 0, "clear_psn": 50}, "malformed": [],
               "notes": ["clear_psn_offset 0 is not negative: the transport clears only PSNs "
                         "below the packet's (offset -1 or less)"]}))
    P.append(("DATA absolute addressing (REL clear)", data(rel=False), {},
              {"ses": {"flags.rel": False, "flags.rel_name": "absolute", "flags": 0x03},
               "malformed": []}))
    P.append(("DATA CRP speculative", data(), {"dscp": 8}, {"dscp_class": "crp_spec"}))
    P.append(("DATA CRP granted", data(), {"dscp": 18}, {"dscp_class": "crp_granted"}))
    P.append(("DATA CE marked", data(), {"ecn": 3}, {"ecn": 3, "ecn_name": "CE",
                                                     "notes": ["CE: a switch marked congestion"]}))
    trim = data(som=False, eom=False, seg=100, off=100, msg_len=300)[:56]
    P.append(("DATA trimmed", trim, {"dscp": 12},
              {"dscp_class": "trimmed", "crc": {"status": "absent"}, "payload_bytes": 0,
               "ses": {"payload_length": 100}}))
    P.append(("DATA trimmed at the last hop", trim, {"dscp": 14},
              {"dscp_class": "trimmed_lasthop", "crc": {"status": "absent"}}))
    P.append(("DATA CRP speculative trimmed after TTW", trim, {"dscp": 16},
              {"dscp_class": "crp_spec_dropped", "crc": {"status": "absent"}}))
    P.append(("ACK_CC NSCC", E.with_crc(E.ack_cc(
        5000, 0x5678, 0x1234, ack_psn_offset=7, m=True, retx=True, mpr=200,
        sack_psn_offset=1, sack_bitmap=0x8000000000000005, service_time=0xfffe,
        rcvd_bytes=0xabcdef, ooo_count=0x1234, rcv_cwnd_pend=0)),
        {"dscp": 46, "sport": 50001},
        {"dscp_class": "control", "entropy": 50001,
         "pds": {"type": 8, "type_name": "ACK_CC", "next_hdr": 0, "flags.m": True,
                 "flags.retx": True, "flags.p": False, "flags.req": 0, "cack_psn": 5000,
                 "ack_psn_offset": 7, "ack_psn": 5007, "spdcid": 0x5678, "dpdcid": 0x1234,
                 "cc_type": 0, "cc_type_name": "NSCC", "cc_flags": 0, "mpr": 200,
                 "mpr_psn_range": 25600,
                 "sack_psn_offset": 1, "sack_base_psn": 5001,
                 "sack_bitmap": "0x8000000000000005", "cc_state.service_time": 0xfffe,
                 "cc_state.rc": False, "cc_state.rcv_cwnd_pend": 0,
                 "cc_state.rcvd_bytes": 0xabcdef, "cc_state.ooo_count": 0x1234},
         "crc": {"status": "valid"}, "payload_bytes": 0, "malformed": []}))
    # MPR in units of 128 PSNs: the transport sends 2, a 256-PSN window
    P.append(("ACK_CC MPR 2 (256 PSNs)", E.with_crc(E.ack_cc(7, 1, 2, mpr=2)), {"dscp": 46},
              {"pds": {"mpr": 2, "mpr_psn_range": 256}, "malformed": []}))
    P.append(("ACK_CC answering a probe", E.with_crc(E.ack_cc(
        5000, 0x5678, 0x1234, p=True, probe_opaque=0xbeef, sack_psn_offset=-2)),
        {"dscp": 46}, {"pds": {"flags.p": True, "probe_opaque": 0xbeef,
                               "sack_psn_offset": -2, "sack_base_psn": 4998}}))
    P.append(("NACK TRIMMED", E.with_crc(E.nack(1, 1001, 0x5678, 0x1234, payload=1000, m=True)),
              {"dscp": 46}, {"pds": {"type": 10, "nack_code": 1, "nack_code_name": "TRIMMED",
                                     "vendor_code": 0, "nack_psn": 1001, "spdcid": 0x5678,
                                     "dpdcid": 0x1234, "payload": 1000, "flags.m": True,
                                     "flags.retx": False, "flags.nt": False}}))
    P.append(("NACK TRIMMED_LASTHOP", E.with_crc(E.nack(2, 1002, 0x5678, 0x1234, retx=True)),
              {"dscp": 46}, {"pds": {"nack_code": 2, "nack_code_name": "TRIMMED_LASTHOP",
                                     "flags.retx": True}}))
    P.append(("NACK CRP speculative dropped", E.with_crc(E.nack(0xfd, 9, 1, 2, vendor_code=1)),
              {"dscp": 46}, {"pds": {"nack_code": 0xfd, "vendor_code": 1,
                                     "nack_code_name": "EXP_NACK_NORMAL/smartt:SPEC_DROPPED"}}))
    P.append(("NACK NO_RESOURCE", E.with_crc(E.nack(0x0a, 9, 1, 2)),
              {"dscp": 46}, {"pds": {"nack_code_name": "NO_RESOURCE"}}))
    P.append(("CTRL PROBE", E.with_crc(E.ctrl(6, 2000, 0x1234, dpdcid=0x5678, probe_opaque=77,
                                              payload=1990, ar=True)),
              {"dscp": 46}, {"pds": {"type": 11, "ctl_type": 6, "ctl_type_name": "PROBE",
                                     "probe_opaque": 77, "psn": 2000, "spdcid": 0x1234,
                                     "dpdcid": 0x5678, "payload": 1990, "sack_base_psn": 1990,
                                     "flags.ar": True}}))
    P.append(("CTRL PROBE with SYN", E.with_crc(E.ctrl(6, 2000, 0x1234, syn=True, psn_offset=5)),
              {"dscp": 46}, {"pds": {"flags.syn": True, "psn_offset": 5, "start_psn": 1995}}))
    P.append(("ACK + SES response (no such PIDonFEP)", E.with_crc(
        E.ack_cc(77, 0x5678, 0x1234, t=7, nh=4) + E.ses_rsp(
            1, 0x1a, message_id=9, job_id=0x654321, modified_length=0)),
        {"dscp": 46}, {"pds": {"type": 7, "type_name": "ACK", "next_hdr": 4, "cack_psn": 77},
                       "ses": {"opcode": 1, "opcode_name": "RESPONSE", "return_code": 0x1a,
                               "return_code_name": "RC_BAD_PID", "message_id": 9,
                               "job_id": 0x654321, "modified_length": 0}}))
    # the return codes the transport answers a message with
    for rc, rname in ((0x06, "RC_UNSUPPORTED_OP"), (0x07, "RC_UNSUPPORTED_SIZE"),
                      (0x1b, "RC_BAD_JOB_ID"), (0x1e, "RC_CANCELLED"), (0x22, "RC_TOO_LONG"),
                      (0x24, "RC_DROPPED")):
        P.append(("ACK + SES response (%s)" % rname, E.with_crc(
            E.ack_cc(77, 1, 2, t=7, nh=4) + E.ses_rsp(1, rc, message_id=3)),
            {"dscp": 46}, {"ses": {"return_code": rc, "return_code_name": rname}}))
    P.append(("NACK PSN_OOR_WINDOW", E.with_crc(E.nack(0x0b, 99999, 1, 2, payload=100)),
              {"dscp": 46}, {"pds": {"nack_code": 0x0b, "nack_code_name": "PSN_OOR_WINDOW"}}))
    for t, name in ((7, "CRP_REQ"), (8, "CRP_GRANT"), (9, "CRP_RETRY")):
        P.append(("CRP " + name, E.crp(ptype=t, sport=1, dport=2048, msg_id=2**40 + 3,
                                       seg_len=4096, req_bytes=5000, crp_flags=0x9,
                                       vec=0xf0f0, grant_ns=123456789),
                  {"dscp": 46, "dport": 4794},
                  {"protocol": "smartt-crp", "vendor": "smartt",
                   "smartt": {"magic": 0x5374, "version": 2, "type": t, "type_name": name,
                              "hdr_words": 18},
                   "crp": {"sport": 1, "dport": 2048, "msg_id": 2**40 + 3, "seg_len": 4096,
                           "req_bytes": 5000, "crp_flags": 9, "crp_flags.dest_done": True,
                           "crp_flags.converted": True, "crp_flags.no_slot": False,
                           "vec": "0x000000000000f0f0", "grant_ns": 123456789}}))
    return P


def bad_packets():
    """(name, UDP payload, framing, substring of a malformed reason)."""
    B = []
    d = data(som=False, eom=False, seg=100, off=100, msg_len=300)
    B.append(("bad CRC", d, {"crc": "xor"}, "bad CRC32C"))
    B.append(("bad CRC in the payload", d, {"crc_flip": 70}, "bad CRC32C"))
    B += crc_packets()
    B.append(("CRC missing", d[:56 + 2], {}, "CRC32C trailer missing"))
    for t in (0, 1, 15):
        B.append(("unknown PDS type %d" % t, E.with_crc(E.prologue(t, 0, 0) + b"\0" * 30), {},
                  "unknown PDS type %d" % t))
    B.append(("RUD_REQ with next header SES response",
              E.with_crc(E.rud_req(1, 1, 2, nh=4) + E.ses_rsp()), {}, "wrong next header"))
    B.append(("RUD_REQ with no next header", E.with_crc(E.rud_req(1, 1, 2, nh=0)), {},
              "wrong next header"))
    B.append(("ACK_CC with next header SES request",
              E.with_crc(E.ack_cc(1, 1, 2, nh=3) + E.ses_std()), {"dscp": 46},
              "wrong next header"))
    B.append(("NACK with next header", E.with_crc(E.nack(1, 1, 1, 2, nh=4)), {"dscp": 46},
              "wrong next header"))
    B.append(("unknown next header 9", E.with_crc(E.rud_req(1, 1, 2, nh=9) + E.ses_std()), {},
              "wrong next header"))
    B.append(("reserved RUD_REQ flag", E.with_crc(E.rud_req(1, 1, 2, rsvd=0x40) + E.ses_std()),
              {}, "reserved PDS flag bits 0x40"))
    B.append(("reserved ACK_CC flag", E.with_crc(E.ack_cc(1, 1, 2, rsvd=0x01)), {"dscp": 46},
              "reserved PDS flag bits 0x01"))
    B.append(("reserved NACK flag", E.with_crc(E.nack(1, 1, 1, 2, rsvd=0x04)), {"dscp": 46},
              "reserved PDS flag bits 0x04"))
    B.append(("reserved CTRL flag", E.with_crc(E.ctrl(6, 1, 1, rsvd=0x01)), {"dscp": 46},
              "reserved PDS flag bits 0x01"))
    B.append(("reserved pdc_info bits", E.with_crc(E.rud_req(1, 1, syn=True, pdc_info=1)
                                                  + E.ses_std(request_length=0)), {},
              "reserved pdc_info bits"))
    B.append(("reserved SES bits before the opcode",
              E.with_crc(E.rud_req(1, 1, 2) + E.ses_std(rsvd_op=1, request_length=0)), {},
              "reserved SES bits"))
    B.append(("SES version 1", E.with_crc(E.rud_req(1, 1, 2) + E.ses_std(version=1)), {},
              "SES version 1"))
    B.append(("unknown SES opcode", E.with_crc(E.rud_req(1, 1, 2) + E.ses_std(opcode=0x30)), {},
              "unknown SES opcode"))
    B.append(("reserved bits above PIDonFEP",
              E.with_crc(E.rud_req(1, 1, 2) + E.ses_std(pid_on_fep=0x1005)), {},
              "reserved bits above PIDonFEP"))
    B.append(("unknown nack_code", E.with_crc(E.nack(0x0c, 1, 1, 2)), {"dscp": 46},
              "unknown nack_code 0x0c"))
    B.append(("unknown ctl_type", E.with_crc(E.ctrl(12, 1, 1)), {"dscp": 46},
              "unknown ctl_type 12"))
    B.append(("unknown cc_type", E.with_crc(E.ack_cc(1, 1, 2, cc_type=5)), {"dscp": 46},
              "unknown cc_type 5"))
    B.append(("unknown SES return code", E.with_crc(E.ack_cc(1, 1, 2, t=7, nh=4)
                                                     + E.ses_rsp(1, 0x3f)), {"dscp": 46},
              "unknown SES return code"))
    B.append(("SES response opcode with data", E.with_crc(E.ack_cc(1, 1, 2, t=7, nh=4)
                                                           + E.ses_rsp(2, 1)), {"dscp": 46},
              "SES response opcode 2"))
    full_som = data(som=True, eom=False, seg=100, msg_len=300)
    B.append(("SOM packet with a trimmed DSCP, untrimmed", full_som, {"dscp": 12},
              "more than the 56 a trim leaves"))
    B.append(("ACK_CC with a trimmed DSCP", E.with_crc(E.ack_cc(1, 1, 2)), {"dscp": 12},
              "only requests \\(DATA\\) are trimmed"))
    B.append(("payload_length disagrees", data(som=False, eom=False, seg=100, off=0,
                                               msg_len=300)[:-4 - 1] + b"", {},
              "payload_length 100, but"))
    wrong = E.with_crc(E.rud_req(1, 1, 2) + E.ses_std(som=False, eom=True, payload_length=10,
                                                       message_offset=0, request_length=50)
                       + PAY[:10])
    B.append(("EOM before the message's end", wrong, {}, "EOM, but message_offset"))
    past = E.with_crc(E.rud_req(1, 1, 2) + E.ses_std(som=False, eom=False, payload_length=10,
                                                      message_offset=45, request_length=50)
                      + PAY[:10])
    B.append(("segment past request_length", past, {}, "runs past request_length"))
    B.append(("SOM+EOM shorter than request_length", data(seg=64, msg_len=65), {},
              "SOM\\+EOM with request_length 65"))
    B.append(("trailing bytes after an ACK_CC", E.with_crc(E.ack_cc(1, 1, 2) + b"xx"),
              {"dscp": 46}, "2 bytes between the ACK_CC headers and the trailer"))
    B.append(("UDP length larger than IP's", data(), {"udp_len": 8 + len(data()) + 4},
              "UDP length"))
    B.append(("UDP length smaller than IP's", data(), {"udp_len": 8 + len(data()) - 4},
              "UDP length"))
    B.append(("IP length past the frame", data(), {"ip_len_delta": 8}, "exceeds the"))
    B.append(("CRP bad magic", E.crp(magic=0x1234), {"dport": 4794, "dscp": 46}, "magic 0x1234"))
    B.append(("CRP version 1", E.crp(version=1), {"dport": 4794, "dscp": 46}, "version 1"))
    B.append(("CRP unknown type", E.crp(ptype=1), {"dport": 4794, "dscp": 46},
              "not a CRP control packet"))
    B.append(("CRP hdr_words too small", E.crp(hdr_words=8), {"dport": 4794, "dscp": 46},
              "hdr_words 8"))
    B.append(("CRP payload_len disagrees", E.crp(payload_len=4), {"dport": 4794, "dscp": 46},
              "payload_len 4"))
    B.append(("CRP unknown flags", E.crp(crp_flags=0x100), {"dport": 4794, "dscp": 46},
              "unknown crp_flags"))
    B.append(("CRP cut off", E.crp()[:100], {"dport": 4794, "dscp": 46}, "cut off"))
    return B


def crc_packets():
    """Trailers that are wrong over the CRC's coverage (the IP addresses, the
    UDP header and the UDP payload) or byte order (little endian), each
    right by some other rule: (name, payload, framing, reason)."""
    d = data(som=False, eom=False, seg=100, off=100, msg_len=300)
    a = E.with_crc(E.ack_cc(1, 1, 2, mpr=2))
    B = []
    for what, p, kw in (("DATA", d, {}), ("ACK_CC", a, {"dscp": 46})):
        B.append(("%s CRC over the UDP payload alone" % what, p, dict(kw, crc="payload"),
                  "bad CRC32C: .* \\(over the UDP payload alone; the trailer covers"))
        B.append(("%s CRC big endian" % what, p, dict(kw, crc="be"),
                  "bad CRC32C: .* \\(stored big endian; the trailer is little endian\\)"))
        B.append(("%s CRC over the payload alone, big endian" % what, p, dict(kw, crc="old"),
                  "bad CRC32C: .* \\(over the UDP payload alone and big endian"))
        B.append(("%s CRC over another source address" % what, p,
                  dict(kw, crc_other_src=True), "bad CRC32C: 0x[0-9a-f]{8}, computed "
                  "0x[0-9a-f]{8}$"))
        B.append(("%s CRC over another UDP source port" % what, p, dict(kw, crc_sport=1),
                  "bad CRC32C: 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}$"))
        B.append(("%s CRC over the UDP checksum as on the wire, not as 0" % what, p,
                  dict(kw, udp_csum=0x1234, crc_csum=0x1234),
                  "bad CRC32C: .* \\(with the UDP checksum as on the wire; the trailer "
                  "takes it as 0\\)"))
    return B


def crc_good():
    """Trailers that are right: (name, payload, framing)."""
    d = data(som=False, eom=False, seg=100, off=100, msg_len=300)
    return [("DATA", d, {}), ("ACK_CC", E.with_crc(E.ack_cc(1, 1, 2, mpr=2)), {"dscp": 46}),
            ("DATA, UDP checksum 0x1234 taken as 0", d, {"udp_csum": 0x1234}),
            ("CTRL PROBE", E.with_crc(E.ctrl(6, 2000, 1, 2)), {"dscp": 46})]


def boundaries():
    """Every good UET packet cut at each of its header boundaries (the IP
    and UDP lengths follow the cut: the packet itself is short)."""
    out = []
    cuts = {
        2: (0, 1, 2, 11, 12, 12 + 43, 12 + 44, 12 + 45),
        7: (0, 1, 2, 11, 12, 12 + 11, 12 + 12),
        8: (0, 1, 2, 11, 12, 31, 32, 33),
        10: (0, 1, 2, 15, 16, 17),
        11: (0, 1, 2, 15, 16, 17),
    }
    for name, pkt, kw, _ in good_packets():
        if kw.get("dport") == 4794 or kw.get("dscp") in (12, 14, 16):
            continue
        t = pkt[0] >> 3
        for c in cuts.get(t, ()):
            if c < len(pkt):
                out.append(("%s cut to %d bytes" % (name, c), pkt[:c], kw,
                            "cut off|missing|trailer"))
    for c in (0, 10, 63, 64, 143):
        out.append(("CRP cut to %d bytes" % c, E.crp()[:c], {"dport": 4794, "dscp": 46},
                    "cut off"))
    return out


def frame(payload, kw, v6=False, linktype=1):
    k = dict(kw)
    sport = k.pop("sport", 49152)
    dport = k.pop("dport", 4793)
    return E.link(E.udp_ip(payload, sport=sport, dport=dport, v6=v6, **k), linktype)


def check(got, want, path=""):
    """The differences between a decoded object and the expected subset."""
    bad = []
    for k, v in want.items():
        g = got.get(k) if isinstance(got, dict) else None
        if isinstance(v, dict):
            if not isinstance(g, dict):
                bad.append("%s%s: %r, want an object" % (path, k, g))
            else:
                bad += check(g, v, path + k + ".")
        elif k == "notes":
            for note in v:
                if note not in (g or []):
                    bad.append("%snotes lack %r: %r" % (path, note, g))
        elif g != v:
            bad.append("%s%s: %r, want %r" % (path, k, g, v))
    return bad


def decode_file(path, *opts):
    rc, so, se = run([CTL, "decode", "--json"] + list(opts) + [path])
    objs = []
    for line in so.splitlines():
        try:
            objs.append(json.loads(line))
        except ValueError:
            objs.append({"unparsable": line})
    return rc, objs, se


def uapi_checks(hdr):
    """fields.py against a uAPI header's text: (differences, how many
    constants were compared, whether the header is the UET one)."""
    why = []

    def struct_fields(name):
        m = re.search(r"struct %s \{(.*?)\};" % name, hdr, re.S)
        return re.findall(r"__(?:be|u)(\d+)\s+(\w+);", m.group(1)) if m else []

    def const(name, depth=0):
        m = re.search(r"\b%s\s*=?\s*(0x[0-9a-fA-F]+|\d+|SMARTT_\w+)U?\b" % name, hdr)
        if not m:
            return None
        v = m.group(1)
        if v.startswith("SMARTT_"):     # defined as another constant
            return const(v, depth + 1) if depth < 4 else None
        return int(v, 0)
    size = {"8": "B", "16": "H", "32": "I", "64": "Q"}
    for sname, mine in (("smartt_hdr", F.SMARTT_HDR_FIELDS),
                        ("smartt_crp_ext", F.SMARTT_CRP_EXT_FIELDS)):
        theirs = [(nm, size[b]) for b, nm in struct_fields(sname)]
        if theirs != list(mine):
            why.append("struct %s: header %s, decoder %s" % (sname, theirs, list(mine)))
    want = [("SMARTT_MAGIC", F.SMARTT_MAGIC), ("SMARTT_HDR_LEN", F.SMARTT_HDR_LEN),
            ("SMARTT_CRP_EXT_LEN", F.SMARTT_CRP_EXT_LEN)]
    want += [("SMARTT_PKT_" + v, k) for k, v in F.CRP_TYPES.items()]
    want += [("SMARTT_CRP_" + k.upper(), v) for k, v in F.CRP_FLAGS]
    uet = const("SMARTT_PDS_TYPE_MASK") is not None
    if uet:
        # the UET wire format's header: every constant both name
        want += [("SMARTT_WIRE_VERSION", F.SMARTT_CRP_VERSIONS[-1]),
                 ("SMARTT_UDP_PORT_DEFAULT", F.UET_PORT),
                 ("SMARTT_CRP_UDP_PORT_DEFAULT", F.CRP_PORT),
                 ("SMARTT_CRC_LEN", F.CRC_LEN), ("SMARTT_TRIM_BYTES_DEFAULT", F.TRIM_BYTES),
                 ("SMARTT_PDS_TYPE_MASK", F.PDS_TYPE_MASK << F.PDS_TYPE_SHIFT),
                 ("SMARTT_PDS_NH_MASK", F.PDS_NH_MASK << F.PDS_NH_SHIFT),
                 ("SMARTT_PDS_FLAGS_MASK", F.PDS_FLAGS_MASK),
                 ("SMARTT_NACK_VENDOR_CRP_SPEC_DROP", F.SMARTT_VENDOR),
                 ("SMARTT_SES_OPCODE_SEND", F.SES_SEND)]
        want += [("SMARTT_DSCP_" + k.upper(), v) for k, v in F.DSCP_DEFAULTS]
        want += [("SMARTT_PDS_" + v, k) for k, v in F.PDS_TYPES.items() if k]
        want += [("SMARTT_PDS_NH_" + v, k) for k, v in F.NEXT_HDRS.items()]
        want += [("SMARTT_PDS_CTL_" + v, k) for k, v in F.CTL_TYPES.items()]
        want += [("SMARTT_PDS_REQ_F_" + k.upper(), v) for k, v in F.REQ_FLAGS]
        want += [("SMARTT_PDS_ACK_F_" + k.upper(), v) for k, v in F.ACK_FLAGS]
        want += [("SMARTT_PDS_NACK_F_" + k.upper(), v) for k, v in F.NACK_FLAGS]
        want += [("SMARTT_PDS_CTRL_F_" + k.upper(), v) for k, v in F.CTRL_FLAGS]
        want += [("SMARTT_SES_F_" + k.upper(), v) for k, v in F.SES_FLAGS]
        # the header's names of NACK codes and return codes are shorter
        # here and there (EXP_NORMAL, GTD_RESP_UNAVAIL): compare by value
        for pre, table in (("SMARTT_NACK_", F.NACK_CODES), ("SMARTT_SES_RC_", F.SES_RETURN_CODES)):
            for nm, v in re.findall(r"\b%s(\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)" % pre, hdr):
                if int(v, 0) not in table:
                    why.append("%s%s = %s: the decoder has no such code" % (pre, nm, v))
                elif pre == "SMARTT_SES_RC_" and table[int(v, 0)] != "RC_" + nm:
                    why.append("%s%s = %s: the decoder calls it %s" % (pre, nm, v,
                                                                        table[int(v, 0)]))
    for name, val in want:
        got = const(name)
        if got != val:
            why.append("%s: header %s, decoder %d" % (name, got, val))
    return why, len(want), uet


def test_uapi():
    """fields.py against the uAPI header of the tree."""
    hdr = open(os.path.join(TOP, "kernel/include/uapi/linux/smartt.h")).read()
    why, count, uet = uapi_checks(hdr)
    tap(not why, "decode: the wire constants match the uAPI header (%d compared%s)"
        % (count, "" if uet else "; the CRP layout only: the header predates the UET format"),
        why)


def test_good(tmp):
    good = good_packets()
    variants = [("pcap ethernet ipv4", "pcap", 1, False),
                ("pcapng ethernet ipv6", "pcapng", 1, True),
                ("pcap sll ipv6", "pcap", 113, True), ("pcapng sll2 ipv4", "pcapng", 276, False),
                ("pcap sll2 ipv6", "pcap", 276, True), ("pcap raw ipv4", "pcap", 101, False)]
    files = {}
    for vname, kind, lt, v6 in variants:
        frames = [frame(p, kw, v6, lt) for _, p, kw, _ in good]
        path = os.path.join(tmp, "good-%s.%s" % (vname.replace(" ", "-"), kind))
        (E.write_pcap if kind == "pcap" else E.write_pcapng)(path, frames, lt)
        files[vname] = path
        rc, objs, se = decode_file(path)
        why = []
        if rc != 0:
            why.append("exit status %s, want 0; stderr %s" % (rc, se.strip()))
        if len(objs) != len(good):
            why.append("%d objects for %d packets" % (len(objs), len(good)))
        for (name, _, kw, want), o in zip(good, objs):
            w = dict(want)
            w.setdefault("malformed", [])
            w["ip_version"] = 6 if v6 else 4
            for d in check(o, w):
                why.append("%s: %s" % (name, d))
        tap(not why, "decode: every packet type, %s (%d packets, each field)" % (vname, len(good)),
            why[:30])
    return files


def test_stdin_text(files):
    path = files["pcap ethernet ipv4"]
    with open(path, "rb") as f:
        raw = f.read()
    rc, so, se = run([CTL, "decode", "-"], stdin=raw)
    good = good_packets()
    why = []
    if rc != 0 or "Traceback" in se:
        why.append("exit status %s; stderr %s" % (rc, se.strip()))
    want = "%d frames: %d UET, 3 CRP, 0 malformed" % (len(good), len(good) - 3)
    if want not in so:
        why.append("no summary line %r" % want)
    for must in ("type=2(RUD_REQ)", "opcode=5(SEND)", "nack_code=1(TRIMMED)",
                 "ctl_type=6(PROBE)", "cc_type=0(NSCC)", "return_code=26(RC_BAD_PID)",
                 "dscp 12(trimmed)", "crc32c valid", "crc32c absent (trimmed)",
                 "type=8(CRP_GRANT)", "smartt-crp"):
        if must not in so:
            why.append("text output lacks %r" % must)
    tap(not why, "decode - (standard input), text output names every type", why)
    rc, so, se = run(["bash", "-c", "%s decode %s | head -c 10 >/dev/null" % (CTL, path)])
    tap("Traceback" not in se and not se.strip(),
        "decode: a reader that goes away ends the output quietly",
        [se.strip()[-300:]] if se.strip() else [])


def test_knobs(tmp):
    path = os.path.join(tmp, "knobs.pcap")
    E.write_pcap(path, [frame(data(), {"dscp": 20, "dport": 5000}),
                        frame(data()[:56], {"dscp": 22, "dport": 5000})])
    rc, objs, se = decode_file(path, "--port", "5000", "--dscp-trimmable", "20",
                               "--dscp-trimmed", "22")
    why = []
    if rc != 0 or len(objs) != 2:
        why.append("exit %s, %d objects, stderr %s" % (rc, len(objs), se.strip()))
    else:
        why += check(objs[0], {"dscp_class": "trimmable", "crc": {"status": "valid"}})
        why += check(objs[1], {"dscp_class": "trimmed", "crc": {"status": "absent"},
                               "malformed": []})
    rc2, objs2, _ = decode_file(path)
    if rc2 != 0 or objs2:
        why.append("default port: exit %s, %d objects (want none on port 5000)"
                   % (rc2, len(objs2)))
    tap(not why, "decode --port and --dscp-* knobs classify by the given values", why)
    for argv, err in ((["--port", "0"], "--port 0"), (["--dscp-control", "64"], "64"),
                      (["--dscp-control", "10"], "both 10"), (["--port", "4794"], "both 4794"),
                      (["--trim-bytes", "x"], "--trim-bytes x")):
        rc, so, se = run([CTL, "decode"] + argv + [path])
        ok = rc == 2 and err in se and "Traceback" not in se and len(se.strip().splitlines()) == 1
        tap(ok, "decode %s: usage error (2), one line" % " ".join(argv),
            [] if ok else ["exit %s, stderr %r" % (rc, se)])


def test_file_errors(tmp):
    cases = []
    p = os.path.join(tmp, "not-a-capture")
    with open(p, "w") as f:
        f.write("hello, this is text\n")
    cases.append(("not a capture file", p, "not a pcap or pcapng file"))
    p = os.path.join(tmp, "cut.pcap")
    E.write_pcap(p, [frame(data(), {}), frame(data(), {})])
    with open(p, "rb") as f:
        raw = f.read()
    with open(p, "wb") as f:
        f.write(raw[:-10])
    cases.append(("a pcap cut in its last record", p, "after 1 packets"))
    p = os.path.join(tmp, "cut.pcapng")
    E.write_pcapng(p, [frame(data(), {})])
    with open(p, "rb") as f:
        raw = f.read()
    with open(p, "wb") as f:
        f.write(raw[:-7])
    cases.append(("a pcapng cut in its last block", p, "pcapng"))
    cases.append(("a missing file", os.path.join(tmp, "nope.pcap"), "No such file"))
    for name, path, err in cases:
        rc, so, se = run([CTL, "decode", path])
        ok = rc == 1 and err in se and "Traceback" not in se and len(se.strip().splitlines()) == 1
        tap(ok, "decode: %s: runtime error (1), one line" % name,
            [] if ok else ["exit %s, stderr %r" % (rc, se)])


def test_bad(tmp):
    cases = bad_packets() + boundaries()
    path = os.path.join(tmp, "malformed.pcap")
    frames = [frame(p, kw) for _, p, kw, _ in cases]
    E.write_pcap(path, frames)
    rc, objs, se = decode_file(path)
    why = []
    if rc != 3 or "Traceback" in se:
        why.append("exit status %s, want 3; stderr %s" % (rc, se.strip()[-500:]))
    if len(objs) != len(cases):
        why.append("%d objects for %d packets" % (len(objs), len(cases)))
    for (name, _, _, want), o in zip(cases, objs):
        m = o.get("malformed") or []
        if not any(re.search(want, x) for x in m):
            why.append("%s: malformed %r, want /%s/" % (name, m, want))
    tap(not why, "decode: %d malformed packets (%d cut at a header boundary) each reported, "
        "exit status 3" % (len(cases), len(boundaries())), why[:40])
    # one at a time too: each file alone exits 3
    bad = []
    for i, (name, p, kw, _) in enumerate(bad_packets()):
        one = os.path.join(tmp, "one.pcap")
        E.write_pcap(one, [frame(p, kw)])
        rc, so, se = run([CTL, "decode", one])
        if rc != 3 or "malformed:" not in so or "Traceback" in se:
            bad.append("%s: exit %s" % (name, rc))
    tap(not bad, "decode: each malformed packet alone: exit status 3, a `malformed:` line", bad)
    return path


def crc_files(tmp):
    """The right and the wrong trailers of crc_good() and crc_packets() in
    one capture per IP version: {version: (path, [(name, reason or None)])}."""
    out = {}
    for v6, lt in ((False, 1), (True, 276)):
        cases = [(name, p, kw, None) for name, p, kw in crc_good()] + crc_packets()
        path = os.path.join(tmp, "crc-ipv%d.pcap" % (6 if v6 else 4))
        E.write_pcap(path, [frame(p, kw, v6, lt) for _, p, kw, _ in cases], lt)
        out[6 if v6 else 4] = (path, [(name, want) for name, _, _, want in cases])
    return out


def crc_check(v, cases, statuses, reasons):
    """The differences between what one tool said of crc_files()'s packets
    (a CRC status and the malformed reasons per packet) and what it must."""
    why = []
    if len(statuses) != len(cases):
        return ["IPv%d: %d packets decoded for %d" % (v, len(statuses), len(cases))]
    for (name, want), st, rs in zip(cases, statuses, reasons):
        if want is None:
            if st != "valid" or rs:
                why.append("IPv%d %s: crc %s, malformed %r, want valid" % (v, name, st, rs))
        elif st != "invalid" or not any(re.search(want, r) for r in rs):
            why.append("IPv%d %s: crc %s, malformed %r, want invalid and /%s/"
                       % (v, name, st, rs, want))
    return why


def test_crc(tmp):
    """The trailer's coverage (IP addresses, UDP header, payload) and byte
    order (little endian), IPv4 and IPv6; a trailer without the IP and UDP
    headers is unchecked, not bad."""
    files = crc_files(tmp)
    for v, (path, cases) in sorted(files.items()):
        rc, objs, se = decode_file(path)
        why = [] if rc == 3 and "Traceback" not in se else ["exit %s: %s" % (rc, se.strip())]
        why += crc_check(v, cases, [(o.get("crc") or {}).get("status") for o in objs],
                         [o.get("malformed") or [] for o in objs])
        tap(not why, "decode: IPv%d CRC32C over the addresses, UDP header and payload, little "
            "endian: %d right, %d wrong by coverage or byte order" % (
                v, len(crc_good()), len(crc_packets())), why)
    # no IP and UDP header to cover: unchecked, not malformed
    from smartt_uet.decode import decode_uet
    p = data()
    d = decode_uet(p, len(p), "trimmable", Config())
    ok = d["crc"].get("status") == "unchecked" and not d["malformed"]
    try:
        d.update(frame=1, time=0.0, protocol="uet", src="x", dst="y", sport=1, dport=4793,
                 ip_version=4, dscp=10, dscp_class="trimmable", ecn_name="ECT(0)",
                 udp_length=len(p) + 8)
        ok = ok and "crc32c unchecked" in "\n".join(fmt.text(d))
    except Exception as e:      # noqa: BLE001 - any exception is the failure
        ok = False
        d["malformed"].append("fmt.text: %s: %s" % (type(e).__name__, e))
    tap(ok, "decode: a UET payload without its IP and UDP headers: CRC32C unchecked, not bad",
        [] if ok else ["crc %r, malformed %r" % (d["crc"], d["malformed"])])
    return files


def test_snap(tmp):
    """A capture that kept only the first 100 bytes of each frame."""
    path = os.path.join(tmp, "snap.pcap")
    full = frame(data(seg=500, msg_len=500), {})
    E.write_pcap(path, [(full[:100], len(full))], snaplen=100)
    rc, objs, se = decode_file(path)
    ok = rc == 0 and len(objs) == 1 and objs[0]["crc"]["status"] == "not captured" \
        and objs[0]["ses"]["request_length"] == 500 and objs[0]["payload_bytes"] == 500
    tap(ok, "decode: a snapped capture decodes its headers; CRC not captured, not malformed",
        [] if ok else ["exit %s, %s" % (rc, objs)])


def test_live(tmp):
    """Packets sent through UDP sockets over loopback, captured by tcpdump
    -i any (Linux cooked SLL2, as a user captures them)."""
    if os.geteuid() != 0 or not shutil.which("tcpdump"):
        tap(None, "decode: a tcpdump -i any capture of packets sent over loopback",
            ["needs root and tcpdump"])
        return
    path = os.path.join(tmp, "live.pcap")
    td = subprocess.Popen(["tcpdump", "-i", "any", "--immediate-mode", "-U", "-w", path,
                           "udp dst port 4793 and (host 127.0.0.1 or host ::1)"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # capturing once it says "listening on"
    line = ""
    for _ in range(5):
        got = td.stderr.readline().decode(errors="replace")
        line += got
        if not got or "listening on" in got:
            break
    dat = E.rud_req(5, 1, 2) + E.ses_std(request_length=3) + b"abc"
    ack = E.ack_cc(5, 2, 1, ooo_count=3)
    try:
        # UDP checksum 0 (SO_NO_CHECK, UDP_NO_CHECK6_TX), as the transport
        # sends; the trailer covers the addresses and the bound ports
        s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s4.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 10 << 2)
        s4.setsockopt(socket.SOL_SOCKET, 11, 1)
        s4.bind(("127.0.0.1", 0))
        hdr = struct.pack(">HHHH", s4.getsockname()[1], 4793, 8 + len(dat) + 4, 0)
        dat = E.trailer(dat, socket.inet_pton(socket.AF_INET, "127.0.0.1") * 2 + hdr)
        s4.sendto(dat, ("127.0.0.1", 4793))
        s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, 46 << 2)
        s6.setsockopt(socket.IPPROTO_UDP, 101, 1)
        s6.bind(("::1", 0))
        hdr = struct.pack(">HHHH", s6.getsockname()[1], 4793, 8 + len(ack) + 4, 0)
        ack = E.trailer(ack, socket.inet_pton(socket.AF_INET6, "::1") * 2 + hdr)
        s6.sendto(ack, ("::1", 4793))
        s4.close()
        s6.close()
    except OSError as e:
        line += " (send: %s)" % e
    # both written (pcap header 24, each record 16 + frame), or 10 s
    want = 24 + 2 * 16 + len(dat) + len(ack) + 2 * 20 + 20 + 40 + 2 * 8
    t0 = time.time()
    while time.time() - t0 < 10 and (not os.path.exists(path) or os.path.getsize(path) < want):
        time.sleep(0.1)
    td.terminate()
    td.wait(timeout=10)
    rc, objs, se = decode_file(path)
    why = [] if rc == 0 and len(objs) == 2 else ["exit %s, %d packets; tcpdump said %r; %s"
                                                 % (rc, len(objs), line, se.strip())]
    if not why:
        why += check(objs[0], {"ip_version": 4, "dscp_class": "trimmable", "malformed": [],
                               "pds": {"type": 2, "psn": 5}, "ses": {"request_length": 3},
                               "payload_bytes": 3, "crc": {"status": "valid"}})
        why += check(objs[1], {"ip_version": 6, "dscp_class": "control", "malformed": [],
                               "pds": {"type": 8, "cc_state.ooo_count": 3},
                               "crc": {"status": "valid"}})
    tap(not why, "decode: a tcpdump -i any capture of packets sent over loopback (SLL2)", why)


def test_fuzz():
    rnd = random.Random(int(os.environ.get("SMARTT_DECODE_SEED", "4793")))
    base = [(p, kw) for _, p, kw, _ in good_packets() + bad_packets()]
    cfg = Config()
    t0 = time.time()
    count = errors = 0
    first = None
    while time.time() - t0 < FUZZ_SECONDS:
        p, kw = rnd.choice(base)
        b = bytearray(p)
        for _ in range(rnd.randint(0, 4)):
            if b:
                b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        if rnd.random() < 0.5:
            b = b[:rnd.randint(0, len(b))]
        elif isinstance(p, E.Crc) and rnd.random() < 0.5:
            b = E.Crc(b)        # a right trailer over the flipped bits
        fr = bytearray(frame(b if isinstance(b, E.Crc) else bytes(b), kw,
                             v6=rnd.random() < 0.5,
                             linktype=rnd.choice((1, 113, 276))))
        if rnd.random() < 0.3:          # the framing too
            for _ in range(rnd.randint(1, 3)):
                fr[rnd.randrange(len(fr))] ^= 1 << rnd.randrange(8)
        if rnd.random() < 0.2:
            fr = fr[:rnd.randint(0, len(fr))]
        lt = rnd.choice((1, 113, 276))
        try:
            d = decode_packet(Record(count, 0.0, lt, bytes(fr), len(fr) + rnd.choice((0, 0, 7))),
                              cfg)
            if d is not None:
                json.dumps(d)
                "\n".join(fmt.text(d))
        except Exception as e:      # noqa: BLE001 - any exception is the failure
            errors += 1
            first = first or "%s: %s on %s" % (type(e).__name__, e, bytes(fr).hex())
        count += 1
    tap(errors == 0 and count > 100, "decode: fuzz, %d random cuts and bit flips in %.0f s, "
        "never raises" % (count, FUZZ_SECONDS), [first] if first else [])


# ---- the Lua dissector in tshark ----

TSHARK = None


def tshark_cmd(tmp):
    """How to run tshark with the tree's dissector: with -X lua_script; or,
    where a copy of it is installed (make install) and loads first, that
    copy if it is the tree's, else tshark in a mount namespace where the
    plugin directories holding it are empty.  None, why: cannot."""
    rc, so, _ = run(["tshark", "-G", "folders"])
    dirs = []
    for line in so.splitlines():
        k, _, v = line.partition(":")
        if k.strip() in ("Global Lua Plugins", "Personal Lua Plugins"):
            d = v.strip()
            if os.path.exists(os.path.join(d, os.path.basename(LUA))):
                dirs.append(d)
    if not dirs:
        return ["tshark", "-X", "lua_script:" + LUA], None
    with open(LUA, "rb") as f:
        mine = f.read()
    same = True
    for d in dirs:
        with open(os.path.join(d, os.path.basename(LUA)), "rb") as f:
            same = same and f.read() == mine
    if same:
        return ["tshark"], None
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return None, "an installed %s differs from the tree's (make install-dissector)" % (
            os.path.join(dirs[0], os.path.basename(LUA)))
    empty = os.path.join(tmp, "no-plugins")
    os.makedirs(empty, exist_ok=True)
    script = ('while [ "$1" != -- ]; do mount --bind "%s" "$1" || exit 97; shift; done; '
              'shift; exec tshark "$@"' % empty)
    return ["unshare", "-m", "--", "sh", "-c", script, "sh"] + dirs + ["--", "-X",
                                                                        "lua_script:" + LUA], None


def tshark_fields(path, flds, extra=()):
    argv = TSHARK + ["-n", "-r", path, "-T", "fields",
            "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"] + list(extra)
    for f in flds:
        argv += ["-e", f]
    rc, so, se = run(argv)
    return rc, [line.split("|") for line in so.splitlines()], se


def lua_value(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, str) and v.startswith("0x"):
        return str(int(v, 16))
    return str(v)


def tshark_norm(s):
    if s in ("True", "False"):
        return "1" if s == "True" else "0"
    if s.startswith("0x"):
        return str(int(s, 16))
    return s


# Where Wireshark's own IP or UDP dissector reports the fault (and may not
# hand the payload on), its message.
LUA_WANT = {
    "UDP length larger than IP's": "Bad length value",
    "IP length past the frame": "total length exceeds packet length",
}


def test_lua(files, bad_path, crc, tmp):
    global TSHARK
    if not shutil.which("tshark"):
        tap(None, "dissector: every field in tshark", ["tshark not installed (make deps)"])
        return
    if not os.path.exists(LUA):
        tap(False, "dissector: %s exists" % LUA)
        return
    TSHARK, why = tshark_cmd(tmp)
    if TSHARK is None:
        tap(None, "dissector: every field in tshark", [why])
        return
    print("# tshark: %s" % " ".join(TSHARK))
    good = good_packets()
    for vname in ("pcap ethernet ipv4", "pcapng ethernet ipv6", "pcapng sll2 ipv4"):
        path = files[vname]
        rc, objs, _ = decode_file(path)
        keys = []
        for o in objs:
            for h in ("pds", "ses"):
                for k, v in (o.get(h) or {}).items():
                    if k.endswith("_name") or k in ("kind", "payload_meaning"):
                        continue
                    f = "uet.%s.%s" % (h, k)
                    if f not in keys:
                        keys.append(f)
            for h in ("smartt", "crp"):
                for k, v in (o.get(h) or {}).items():
                    if k.endswith("_name"):
                        continue
                    f = "smartt_crp.%s.%s" % (h, k)
                    if f not in keys:
                        keys.append(f)
        keys += ["uet.crc.status", "uet.dscp_class"]
        trc, rows, se = tshark_fields(path, keys)
        why = []
        if trc != 0 or "Lua" in se and "rror" in se:
            why.append("tshark exit %s: %s" % (trc, se.strip()[-800:]))
        if len(rows) != len(objs):
            why.append("%d rows for %d packets" % (len(rows), len(objs)))
        for (name, _, _, _), o, row in zip(good, objs, rows):
            got = dict(zip(keys, row))
            for h, pre in (("pds", "uet.pds."), ("ses", "uet.ses."),
                           ("smartt", "smartt_crp.smartt."), ("crp", "smartt_crp.crp.")):
                for k, v in (o.get(h) or {}).items():
                    f = pre + k
                    if f not in got:
                        continue
                    if tshark_norm(got[f]) != lua_value(v):
                        why.append("%s: %s = %r, decoder %r" % (name, f, got[f], v))
            if o["protocol"] == "uet":
                if got.get("uet.crc.status") != o["crc"]["status"]:
                    why.append("%s: uet.crc.status %r, decoder %r" % (
                        name, got.get("uet.crc.status"), o["crc"]["status"]))
                if got.get("uet.dscp_class") != o["dscp_class"]:
                    why.append("%s: uet.dscp_class %r, decoder %r" % (
                        name, got.get("uet.dscp_class"), o["dscp_class"]))
        tap(not why, "dissector: every field of every packet type agrees with the decoder, %s"
            % vname, why[:40])
    # malformed: every one raises expert info
    rc, objs, _ = decode_file(bad_path)
    trc, rows, se = tshark_fields(bad_path, ["frame.number", "_ws.expert.message",
                                             "_ws.expert.severity"])
    cases = bad_packets() + boundaries()
    why = []
    if len(rows) != len(cases):
        why.append("%d rows for %d packets; %s" % (len(rows), len(cases), se.strip()[-500:]))
    skipped = 0
    for (name, p, _, want), row in zip(cases, rows):
        msg = row[1] if len(row) > 1 else ""
        if not p:
            # Wireshark's UDP dissector hands an empty payload to no
            # dissector: nothing of ours to check.
            skipped += 1
            continue
        want = LUA_WANT.get(name, want)
        if not msg or not re.search(want, msg):
            why.append("%s: expert %r, want /%s/" % (name, msg, want))
    tap(not why, "dissector: every malformed packet raises expert info with the decoder's reason "
        "(%d of %d: not the empty ones)" % (len(cases) - skipped, len(cases)), why[:40])
    # and the good ones raise none (notes aside)
    path = files["pcap ethernet ipv4"]
    trc, rows, se = tshark_fields(path, ["frame.number", "_ws.expert.severity"])
    errs = [r for r in rows if len(r) > 1 and r[1] and
            any(int(s) >= 0x00800000 for s in r[1].split(",") if s.isdigit())]
    tap(not errs and len(rows) == len(good), "dissector: well-formed packets raise no warning "
        "or error", ["frames with warnings: %s" % errs] if errs else [])
    # -V shows the names
    rc, so, se = run(TSHARK + ["-n", "-r", path, "-V"])
    miss = [w for w in ("RUD_REQ", "REQ_STD", "SEND", "ACK_CC", "NSCC", "TRIMMED_LASTHOP",
                        "PROBE", "RC_BAD_PID", "CRP_GRANT", "Start of message (SOM)",
                        "CRC32C: valid", "(relative addressing: PIDonFEP within the JobID)",
                        "(absolute addressing)", "Maximum PSN range (MPR, units of 128 PSNs): "
                        "2 (256 PSNs)", "MPR in PSNs: 256",
                        "CLEAR_PSN (highest cleared PSN): 4294967295") if w not in so]
    tap(not miss, "dissector: tshark -V names types, opcodes, codes, the CRC status, REL, "
        "MPR in PSNs and CLEAR_PSN", ["missing: %s" % miss] if miss else [])
    # the trailer: coverage and byte order, IPv4 and IPv6, as the decoder
    for v, (path, cases) in sorted(crc.items()):
        rc, so, se = run(TSHARK + ["-n", "-r", path, "-T", "fields", "-E", "separator=|",
                                   "-E", "occurrence=a", "-E", "aggregator=~",
                                   "-e", "uet.crc.status", "-e", "_ws.expert.message"])
        rows = [line.split("|") for line in so.splitlines()]
        why = [] if rc == 0 else ["tshark exit %s: %s" % (rc, se.strip()[-300:])]
        why += crc_check(v, cases, [r[0] for r in rows],
                         [[m for m in r[1].split("~") if m.startswith("bad CRC32C")]
                          if len(r) > 1 else [] for r in rows])
        tap(not why, "dissector: IPv%d CRC32C over the addresses, UDP header and payload, "
            "little endian, as the decoder" % v, why)
    # a UET payload without IP and UDP around it (a user DLT mapped to the
    # dissector): unchecked, no error
    dlt = os.path.join(tmp, "dlt147.pcap")
    E.write_pcap(dlt, [data()], linktype=147)
    rc, so, se = run(TSHARK + ["-n", "-o", 'uat:user_dlts:"User 0 (DLT=147)","uet","0","",'
                               '"0",""', "-r", dlt, "-T", "fields", "-E", "separator=|",
                               "-e", "uet.crc.status", "-e", "_ws.expert.severity",
                               "-e", "uet.pds.psn"])
    row = so.strip().split("|")
    ok = rc == 0 and len(row) == 3 and row[0] == "unchecked" and row[2] == "1000" and not any(
        int(x) >= 0x00800000 for x in row[1].split(",") if x.isdigit())
    tap(ok, "dissector: a UET payload without its IP and UDP headers: CRC32C unchecked, "
        "not bad", [] if ok else ["exit %s, row %r; %s" % (rc, row, se.strip()[-300:])])
    # the preferences: port and DSCP classes, as decode's knobs
    trc, rows, se = tshark_fields(os.path.join(tmp, "knobs.pcap"),
                                  ["uet.dscp_class", "uet.crc.status", "_ws.expert.message"],
                                  ["-o", "uet.port:5000", "-o", "uet.dscp_trimmable:20",
                                   "-o", "uet.dscp_trimmed:22"])
    want = [["trimmable", "valid", ""], ["trimmed", "absent", ""]]
    tap(rows == want, "dissector: -o uet.port, uet.dscp_* classify as decode's knobs do",
        [] if rows == want else ["rows %r, want %r; %s" % (rows, want, se.strip()[-300:])])
    # fuzzed packets: the dissector never fails with a Lua error
    rnd = random.Random(4794)
    base = [(p, kw) for _, p, kw, _ in good_packets() + bad_packets()]
    frames = []
    for _ in range(3000):
        p, kw = rnd.choice(base)
        b = bytearray(p)
        for _ in range(rnd.randint(0, 4)):
            if b:
                b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        if rnd.random() < 0.5:
            b = b[:rnd.randint(1, max(1, len(b)))]
        elif isinstance(p, E.Crc) and rnd.random() < 0.5:
            b = E.Crc(b)        # a right trailer over the flipped bits
        frames.append(frame(b if isinstance(b, E.Crc) else bytes(b), kw,
                            v6=rnd.random() < 0.5))
    fz = os.path.join(tmp, "fuzz.pcap")
    E.write_pcap(fz, frames)
    rc, so, se = run(TSHARK + ["-n", "-r", fz, "-V"])
    errs = [line.strip() for line in so.splitlines() if "Lua Error" in line]
    tap(rc == 0 and not errs and so.count("Frame ") >= len(frames),
        "dissector: %d fuzzed packets, no Lua error" % len(frames),
        errs[:5] + ([se.strip()[-300:]] if rc else []))


def main():
    tmp = tempfile.mkdtemp(prefix="smartt-decode.")
    try:
        test_uapi()
        files = test_good(tmp)
        test_stdin_text(files)
        test_knobs(tmp)
        test_file_errors(tmp)
        bad_path = test_bad(tmp)
        crc = test_crc(tmp)
        test_snap(tmp)
        test_live(tmp)
        test_fuzz()
        test_lua(files, bad_path, crc, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
