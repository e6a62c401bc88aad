#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tiny TCP tool for the smartt_cc_* kselftests.

  smartt_cc_tool.py server ADDR PORT [--cc NAME]  accept forever, discard
  smartt_cc_tool.py client ADDR PORT [--cc NAME] [--bytes N] [--secs S]
                                     [--hold S] [--ready FILE]
      connect (setsockopt TCP_CONGESTION first when --cc is given), send N
      bytes or for S seconds, print "cc=<name> bytes=<n> secs=<t>
      mbps=<rate> ecn=<0|1>" (ecn: negotiated, TCPI_OPT_ECN), then keep the socket open for --hold seconds (touching
      --ready when the data is sent).  --fct: after the last byte, shut
      down the sending side and wait for the receiver's close; secs is then
      the flow completion time (also printed as fct=).  --start-at T:
      wait until T (seconds since the epoch) before connecting and count
      secs/fct from T, so that flows started by separate processes begin
      together and their FCTs include the handshake.  --idle S: after
      the N bytes, stay silent for S seconds and send N bytes again.
"""
import argparse
import fcntl
import os
import socket
import struct
import sys
import termios
import time


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def server(a):
    s = socket.socket(family(a.addr), socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if a.cc:
        # accepted sockets inherit a congestion control set on the listener
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, a.cc.encode())
    s.bind((a.addr, a.port))
    s.listen(64)
    if a.ready:
        open(a.ready, "w").close()
    while True:
        c, _ = s.accept()
        if os.fork() == 0:
            s.close()
            while c.recv(1 << 20):
                pass
            os._exit(0)
        c.close()


def client(a):
    s = socket.socket(family(a.addr), socket.SOCK_STREAM)
    if a.cc:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, a.cc.encode())
    s.settimeout(30)
    late = 0
    if a.start_at:
        wait = a.start_at - time.time()
        if wait < 0:
            late = -wait
            print("warning: started %.3f s after --start-at" % late, file=sys.stderr)
        time.sleep(max(wait, 0))
    t0 = time.monotonic() - late
    s.connect((a.addr, a.port))
    buf = b"\0" * 65536
    sent = 0
    while True:
        if a.secs and time.monotonic() - t0 >= a.secs:
            break
        if not a.secs and sent >= a.bytes:
            break
        sent += s.send(buf if a.secs else buf[:min(len(buf), a.bytes - sent)])
    if a.idle and not a.secs:
        # let the first part be acknowledged (SIOCOUTQ: bytes not yet
        # acknowledged), then idle, then the second
        while struct.unpack("i", fcntl.ioctl(s, termios.TIOCOUTQ, b"\0" * 4))[0]:
            time.sleep(0.01)
        time.sleep(a.idle)
        goal = sent + a.bytes
        while sent < goal:
            sent += s.send(buf[:min(len(buf), goal - sent)])
    if a.fct:
        # flow completion: the receiver closes after reading the last byte
        s.shutdown(socket.SHUT_WR)
        while s.recv(4096):
            pass
    dt = time.monotonic() - t0
    cc = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
    cc = cc.split(b"\0")[0].decode()
    # struct tcp_info: tcpi_options is the sixth byte; TCPI_OPT_ECN = 8
    ecn = 1 if s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[5] & 8 else 0
    print("cc=%s bytes=%d secs=%.3f mbps=%.2f ecn=%d%s" % (
        cc, sent, dt, sent * 8 / dt / 1e6, ecn, " fct=%.6f" % dt if a.fct else ""),
        flush=True)
    if a.ready:
        open(a.ready, "w").close()
    if a.hold:
        time.sleep(a.hold)
    s.close()


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("server", "client"):
        q = sub.add_parser(name)
        q.add_argument("addr")
        q.add_argument("port", type=int)
        q.add_argument("--ready")
        q.add_argument("--cc")
        if name == "client":
            q.add_argument("--bytes", type=int, default=1 << 20)
            q.add_argument("--secs", type=float, default=0)
            q.add_argument("--hold", type=float, default=0)
            q.add_argument("--fct", action="store_true")
            q.add_argument("--start-at", type=float, default=0)
            q.add_argument("--idle", type=float, default=0)
    a = p.parse_args()
    try:
        server(a) if a.cmd == "server" else client(a)
    except OSError as e:
        print("error: %s" % e, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
