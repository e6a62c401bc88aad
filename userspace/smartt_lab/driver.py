# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's traffic driver: every TCP flow of one run in one process.

    python3 -m smartt_lab.driver PLAN.json RESULT.json

One process holds every socket of a run: a socket belongs to the network
namespace it was created in, so the driver enters each host's namespace
(setns) only to create its sockets and runs all of them from one event
loop.  One clock and one process: starts are synchronised to within the
loop's latency, no per-host process has to start in time.

Flow completion time, the same definition as the transport's and the UEC
simulator's: from the flow's start (its first byte handed to the socket)
to the moment the sender learns that its last byte was acknowledged.
Every connection is set up before time 0 (the handshake is not part of a
flow, as the transport has none), and the kernel stamps the
acknowledgment of the last byte (SO_TIMESTAMPING, TX_ACK with OPT_ID) on
the sender's error queue.  Where the kernel gives no stamp the time the
receiver read the last byte is taken instead, and the flow says so
("fct_at": "receiver").

PLAN (JSON):
  t0_mono_ns      CLOCK_MONOTONIC time of the plan's time 0
  cc              congestion control of every socket (TCP_CONGESTION)
  port            TCP port of the listeners
  bin_ms          width of the received-bytes bins (throughput over time)
  cwnd_ms         TCP_INFO polling period of the traced senders, 0 = off
  cwnd_flows      ids of the senders whose window is traced
  end_s           time at which unfinished flows stop (and sized ones fail)
  listeners       [{"ns", "addr"}]
  flows           [{"id", "src_ns", "src_addr", "dst_addr", "size", "start_s",
                    "stop_s"}]: size 0 = send until stop_s (or end_s)
  events          [{"t_s", "argv"}]: commands started at t_s (fabric faults)

RESULT (JSON): per flow the bytes received, completion time, TCP_INFO at the
end (retransmissions, ECN negotiated), the received bytes per bin; the
window traces; when each event ran; t_first_s, when the event loop began
(after 0: the driver started late and the plan's first times slipped).
"""
import ctypes
import json
import os
import selectors
import socket
import struct
import subprocess
import sys
import time

CLONE_NEWNET = 0x40000000
TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
TCP_INFO = getattr(socket, "TCP_INFO", 11)
TCPI_OPT_ECN = 8
# struct tcp_info: 8 bytes of u8 fields, then u32s.  Offsets of the ones read.
TI_OPTIONS, TI_RTT, TI_CWND, TI_TOTAL_RETRANS = 5, 68, 80, 100
TI_LEN = 104
CHUNK = 1 << 20
# SO_TIMESTAMPING (TX_ACK, SOFTWARE, OPT_ID, OPT_TSONLY): a software stamp
# when the last byte of each send() is acknowledged, keyed by byte offset,
# without the payload
SO_TIMESTAMPING = 37
SCM_TIMESTAMPING = SO_TIMESTAMPING
TS_FLAGS = (1 << 9) | (1 << 4) | (1 << 7) | (1 << 11)
SOL_IP, IP_RECVERR = 0, 11
SO_EE_ORIGIN_TIMESTAMPING = 4
STAMP_WAIT_NS = 2 * 10**9

_libc = ctypes.CDLL(None, use_errno=True)


def setns(path):
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "setns %s: %s" % (path, os.strerror(e)))
    finally:
        os.close(fd)


class NetnsSockets:
    """Create sockets inside named network namespaces, then come back."""

    def __init__(self):
        self.home = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)

    def socket(self, ns, family=socket.AF_INET):
        setns("/run/netns/" + ns)
        try:
            return socket.socket(family, socket.SOCK_STREAM)
        finally:
            if _libc.setns(self.home, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back to the initial netns")


def tcp_info(sock):
    try:
        b = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TI_LEN)
    except OSError:
        return None
    if len(b) < TI_LEN:
        return None
    return {"ecn": bool(b[TI_OPTIONS] & TCPI_OPT_ECN),
            "rtt_us": struct.unpack_from("I", b, TI_RTT)[0],
            "cwnd": struct.unpack_from("I", b, TI_CWND)[0],
            "retrans": struct.unpack_from("I", b, TI_TOTAL_RETRANS)[0]}


def ack_stamps(sock):
    """[(byte key, CLOCK_REALTIME ns)] of the TX_ACK stamps waiting on a
    socket's error queue."""
    out = []
    while True:
        try:
            _, anc, _, _ = sock.recvmsg(0, 1024, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return out
        except OSError:
            return out
        ts, key = None, None
        for level, typ, data in anc:
            if level == socket.SOL_SOCKET and typ == SCM_TIMESTAMPING and len(data) >= 16:
                sec, nsec = struct.unpack_from("qq", data, 0)
                ts = sec * 10**9 + nsec
            elif level == SOL_IP and typ == IP_RECVERR and len(data) >= 16:
                if data[4] == SO_EE_ORIGIN_TIMESTAMPING:
                    key = struct.unpack_from("I", data, 12)[0]
        if ts is not None and key is not None:
            out.append((key, ts))


def mono_s(t0):
    return (time.monotonic_ns() - t0) / 1e9


def run(plan):
    t0 = plan["t0_mono_ns"]
    cc = plan["cc"].encode()
    port = plan["port"]
    bin_ns = int(plan.get("bin_ms", 5) * 1e6)
    cwnd_ns = int(plan.get("cwnd_ms", 0) * 1e6)
    traced = set(plan.get("cwnd_flows", []))
    end_s = plan["end_s"]
    ns = NetnsSockets()
    sel = selectors.DefaultSelector()
    zeros = memoryview(bytearray(CHUNK))
    rbuf = bytearray(CHUNK)

    for li in plan["listeners"]:
        s = ns.socket(li["ns"])
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc)
        s.bind((li["addr"], port))
        s.listen(4096)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, ("listen", None))

    flows, by_peer = [], {}
    for f in plan["flows"]:
        s = ns.socket(f["src_ns"])
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((f["src_addr"], f.get("sport") or 0))
        s.setblocking(False)
        st = {"id": f["id"], "size": f["size"], "start_s": f["start_s"],
              "stop_s": f.get("stop_s") or end_s, "sock": s, "sent": 0, "rx": 0,
              "bins": {}, "fct_s": None, "fct_tx_s": None, "connected": False,
              "started": False,
              "done_sending": False, "info": None, "dst": f["dst_addr"]}
        by_peer[(f["src_addr"], s.getsockname()[1])] = st
        flows.append(st)
    pending = sorted(flows, key=lambda x: x["start_s"])
    events = sorted(plan.get("events", []), key=lambda e: e["t_s"])
    ran, procs = [], []
    cwnd = []
    next_poll = 0
    conns = 0

    def done(st):
        if st["size"] == 0:
            return st["done_sending"]
        if st.get("error"):
            return True
        if st.get("stamped") and st["fct_s"] is not None and st["fct_tx_s"] is None:
            # the acknowledgment's stamp follows the last byte's arrival by
            # about half a base RTT; a kernel that gives none ends the wait
            return time.monotonic_ns() - st["rx_done_ns"] > STAMP_WAIT_NS
        return st["fct_s"] is not None

    def finish_sender(st):
        st["done_sending"] = True
        try:
            sel.unregister(st["sock"])
        except (KeyError, ValueError):
            pass

    # every connection before time 0: a flow starts with its first byte
    rt_off = time.time_ns() - time.monotonic_ns()
    for st in flows:
        st["sock"].connect_ex((st["dst"], port))
        sel.register(st["sock"], selectors.EVENT_WRITE, ("conn", st))

    def connected(st):
        """The handshake completed (or failed): stamps on, wait for the start."""
        err = st["sock"].getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err:
            st["error"] = os.strerror(err)
            return
        st["connected"] = True
        try:
            st["sock"].setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, TS_FLAGS)
            st["stamped"] = True
        except OSError:
            st["stamped"] = False

    t_first = None
    while True:
        now = time.monotonic_ns()
        t = (now - t0) / 1e9
        if t_first is None:
            t_first = t
        while pending and pending[0]["start_s"] <= t:
            st = pending.pop(0)
            st["started"] = True
            st["t_start_ns"] = now
            if st.get("error"):
                finish_sender(st)
                continue
            try:
                sel.modify(st["sock"], selectors.EVENT_WRITE, ("send", st))
            except (KeyError, ValueError):
                sel.register(st["sock"], selectors.EVENT_WRITE, ("send", st))
        while events and events[0]["t_s"] <= t:
            ev = events.pop(0)
            procs.append(subprocess.Popen(ev["argv"], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE))
            ran.append({"t_s": t, "argv": ev["argv"]})
        if cwnd_ns and now >= next_poll:
            next_poll = now + cwnd_ns
            for st in flows:
                if st["id"] in traced and st["started"] and st["fct_s"] is None:
                    ti = tcp_info(st["sock"])
                    if ti:
                        cwnd.append([st["id"], round(t, 6), ti["cwnd"], ti["rtt_us"]])
        # sized flows stop when received; unsized ones when their time ends
        for st in flows:
            if st["started"] and not st["done_sending"] and t >= st["stop_s"]:
                finish_sender(st)
        if t >= end_s or all(done(st) for st in flows):
            break
        deadline = min([end_s] + [x["start_s"] for x in pending[:1]]
                       + [e["t_s"] for e in events[:1]])
        timeout = max(0.0, min(deadline - t, 0.005))
        if cwnd_ns:
            timeout = min(timeout, max(0.0, (next_poll - now) / 1e9))
        for key, mask in sel.select(timeout):
            kind, st = key.data
            if kind == "conn":
                if not st["connected"] and not st.get("error"):
                    connected(st)
                if not st["started"]:
                    # nothing to do until the start: no events
                    try:
                        sel.unregister(st["sock"])
                    except (KeyError, ValueError):
                        pass
                continue
            if kind == "ack":
                for k, ts in ack_stamps(st["sock"]):
                    if k >= st["size"] - 1 and st["fct_tx_s"] is None:
                        st["fct_tx_s"] = (ts - rt_off - st["t_start_ns"]) / 1e9
                if st["fct_tx_s"] is not None:
                    try:
                        sel.unregister(st["sock"])
                    except (KeyError, ValueError):
                        pass
                continue
            if kind == "listen":
                try:
                    c, peer = key.fileobj.accept()
                except BlockingIOError:
                    continue
                c.setblocking(False)
                conns += 1
                rst = by_peer.get((peer[0], peer[1]))
                sel.register(c, selectors.EVENT_READ, ("recv", rst))
            elif kind == "recv":
                try:
                    n = key.fileobj.recv_into(rbuf)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    n = 0
                if n == 0:
                    sel.unregister(key.fileobj)
                    key.fileobj.close()
                    continue
                if st is None:
                    continue
                now = time.monotonic_ns()
                st["rx"] += n
                b = (now - t0) // bin_ns
                st["bins"][b] = st["bins"].get(b, 0) + n
                if st["size"] and st["fct_s"] is None and st["rx"] >= st["size"]:
                    st["fct_s"] = (now - st["t_start_ns"]) / 1e9
                    st["rx_done_ns"] = now
                    st["info"] = tcp_info(st["sock"])
            elif kind == "send":
                if not st["connected"]:
                    connected(st)
                    if st.get("error"):
                        finish_sender(st)
                        continue
                left = st["size"] - st["sent"] if st["size"] else CHUNK
                try:
                    n = st["sock"].send(zeros[:min(left, CHUNK)])
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError as e:
                    st["error"] = e.strerror
                    finish_sender(st)
                    continue
                st["sent"] += n
                if st["size"] and st["sent"] >= st["size"]:
                    finish_sender(st)
                    if st.get("stamped"):
                        # the last byte's acknowledgment, on the error queue
                        sel.register(st["sock"], selectors.EVENT_READ, ("ack", st))
    t_end = mono_s(t0)
    out = []
    for st in flows:
        info = st["info"] or tcp_info(st["sock"]) or {}
        # the sender's view where the kernel stamped it, else the receiver's
        fct, at = st["fct_s"], "receiver"
        if st["size"] and st.get("stamped") and st["fct_tx_s"] is not None:
            fct, at = st["fct_tx_s"], "sender-ack"
        elif st["size"] and st.get("stamped"):
            fct = None
        out.append({"id": st["id"], "size": st["size"], "start_s": st["start_s"],
                    "t_start_s": ((st["t_start_ns"] - t0) / 1e9 if st["started"] else None),
                    "fct_s": fct, "fct_rx_s": st["fct_s"], "fct_at": at,
                    "rx": st["rx"], "sent": st["sent"],
                    "retrans": info.get("retrans"), "ecn": info.get("ecn"),
                    "error": st.get("error"),
                    "bins": sorted(st["bins"].items())})
        # a reset, not TIME_WAIT: the next run may bind the same source port
        try:
            st["sock"].setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        st["sock"].close()
    for p in procs:
        try:
            _, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            err = b"timed out"
        if p.returncode:
            ran.append({"error": "%s: exit %d: %s" % (" ".join(p.args), p.returncode,
                                                     err.decode(errors="replace").strip())})
    return {"flows": out, "cwnd": cwnd, "events": ran, "t_end_s": t_end,
            "bin_ms": bin_ns / 1e6, "accepted": conns, "t_first_s": t_first}


def main(argv):
    if len(argv) != 3:
        print("usage: python3 -m smartt_lab.driver PLAN.json RESULT.json", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        plan = json.load(f)
    try:
        res = run(plan)
    except OSError as e:
        print("smartt-lab driver: %s" % e, file=sys.stderr)
        return 1
    with open(argv[2] + ".tmp", "w") as f:
        json.dump(res, f)
    os.replace(argv[2] + ".tmp", argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
