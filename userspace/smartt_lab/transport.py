# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's traffic over the smartt transport (IPPROTO_SMARTT): one
run's flows as smartt-perf processes, their output as the traffic driver's
result.

Algorithm names: "transport:LB" or "transport:LB:CC", LB a path selector
(SMARTT_LB) and CC the transport's congestion control (SMARTT_CC, default
smartt); the lab labels every run "transport:LB:CC".

Every destination host runs one "smartt-perf server"; every flow is one
"smartt-perf client" in its source host's network namespace, started
before the run's time 0 and told to begin at time 0 + the flow's start
(--start-at, CLOCK_REALTIME).  A flow of N bytes is one message of N bytes
(its completion time is the kernel's: sendmsg() to the last
acknowledgment); a flow without a size sends LONG_MSG-byte messages,
LONG_OUTSTANDING at a time, until its stop.  Received bytes over time are
the completed messages' bytes at their completion times (--raw).  The
transport's counters (/proc/net/smartt_stats) are read in every host's
namespace before and after the run; their deltas are the run's.

CC "crp" (Documentation/crp.rst, "The transport") needs the fabric's
switch ports to keep CRP reservation tables (smartt-fabric up --crp on) and
the transport's knobs (net.smartt.transport_crp_knobs) to describe the same
tables: crp_knobs() derives both from the fabric's host rate and MTU,
crp_fabric_args() and crp_sysctl() write them out.

Pure functions (commands, parsing) are separate from run(), which starts
processes, so that tests can check them without a module.
"""
import csv
import json
import os
import signal
import subprocess
import time

from . import config
from .driver import CLONE_NEWNET, _libc, setns

LBS = ("reps", "reps-single", "strack-bitmap", "oblivious", "ecmp")
CCS = ("smartt", "smartt-2024", "nscc", "strack", "none", "dctcp", "crp")
DEFAULT_CC = "smartt"
# smartt-perf's message sizes (bytes)
MSG_MIN, MSG_MAX = 32, 1 << 30
# Flows without a size: messages of 32 KiB, 4 at a time: 128 KiB queued,
# above the window of the guests' fabrics (1.5 BDP: about 40 KB), so that
# the sender never idles, in messages small enough for the received bytes
# over time (they count at a message's completion).
LONG_MSG, LONG_OUTSTANDING = 32 * 1024, 4
# smartt-perf -t beyond the run's end: a flow whose peer answers nothing
# for this long fails (the transport's SMARTT_TIMEOUT_MS too)
TIMEOUT_SLACK_S = 10
# The counters of /proc/net/smartt_stats that become the run's metrics
# (summed over the hosts): metric name <- counter name.
STATS = {"retrans": "retransmits", "rtos": "rtos", "nacks": "tx_nacks",
         "rx_trimmed": "rx_trimmed", "msgs_failed": "msgs_failed",
         "path_ecn": "path_ecn", "path_nack": "path_nack",
         "path_timeout": "path_timeout", "path_lost": "path_lost",
         "path_freezes": "path_freezes", "path_ecn_noop": "path_ecn_noop"}
# cc crp's counters (Documentation/crp.rst, "The transport"), same names
CRP_STATS = ("crp_tx_req", "crp_req_timeouts", "crp_rx_grant", "crp_rx_retry",
             "crp_retry_noslot", "crp_retry_full", "crp_retry_conv", "crp_drop_unknown",
             "crp_drop_bad", "crp_rx_req", "crp_host_grant", "crp_host_retry", "crp_tx_grant",
             "crp_tx_retry", "crp_tx_spec", "crp_tx_granted", "crp_tx_nonpart",
             "crp_spec_dropped", "crp_spec_recovered", "crp_reask")
STATS.update({c: c for c in CRP_STATS})
# CRP's sizing, the paper's (crp.rst, "Units and knobs"; crp-notes 1.6) in
# packets of the fabric's MTU.  The paper's C_max, 269 cycles, is one of its
# 8-packet messages (256 flits) plus epsilon, 5 %: here a slot holds
# CRP_SLOT_PKTS full frames at the host rate plus 5 %, about one of the
# lab's 32 KiB messages (LONG_MSG, 8 packets at MTU 4224).  N_min and N_max
# are 4 and 16 packets (N_max under 2 x C_max, as the paper's 512 flits are
# under 538), TTW and R keep the paper's 200/269 and 30/269 of the slot,
# V_cells 32.  Only slot_ns, ttw_ns and retry_ns depend on the rate; cmax
# (bytes) does not.  smartt-fabric's default --crp-slot and the module's
# default knobs hold 16 frames (at 1 Gbit/s, MTU 4224: 570 us slots, twice
# the paper's C_max, its "C_max 534" variant); at the guests' 20 Mbit/s
# these slots are 8 frames, 14.2 ms.
CRP_SLOT_PKTS, CRP_CELLS, CRP_NMIN_PKTS, CRP_NMAX_PKTS = 8, 32, 4, 16
# a frame is the MTU plus Ethernet; the transport's payload per packet over
# IPv4 is the MTU less IP, UDP and its 120-byte DATA headers (transport.rst)
ETH_HLEN, V4_DATA_HLEN = 14, 20 + 8 + 120
CRP_KNOB_NAMES = ("slot_ns", "cells", "cmax", "nmin", "nmax", "ttw_ns", "retry_ns")


def crp_knobs(rate_bps, mtu):
    """The CRP knobs of a fabric whose hosts' links run at rate_bps with
    this MTU: {slot_ns, cells, cmax, nmin, nmax, ttw_ns, retry_ns}, the
    same numbers for the ports' tables and the senders."""
    frame = mtu + ETH_HLEN
    mss = mtu - V4_DATA_HLEN
    slot = max(1, CRP_SLOT_PKTS * frame * 8 * 10**9 * 105 // (rate_bps * 100))
    if slot > 10**9:
        raise config.ConfigError("CRP at %d bit/s: %d frames of %d bytes take more than 1 s, "
                                 "the longest CRP slot" % (rate_bps, CRP_SLOT_PKTS, frame))
    cmax = rate_bps * slot // (8 * 10**9)
    return {"slot_ns": slot, "cells": CRP_CELLS, "cmax": cmax,
            "nmin": CRP_NMIN_PKTS * mss, "nmax": CRP_NMAX_PKTS * mss,
            "ttw_ns": slot * 200 // 269, "retry_ns": slot * 30 // 269}


def crp_override(k, over):
    """crp_knobs() with an experiment's "crp" overrides ({name: integer}:
    its knobs, and spec_bytes, the senders' only)."""
    out = dict(k)
    for n, v in (over or {}).items():
        if n not in CRP_KNOB_NAMES + ("spec_bytes",) or isinstance(v, bool) \
                or not isinstance(v, int) or v < 0:
            raise config.ConfigError("crp: %r=%r: want one of %s, a non-negative integer"
                                     % (n, v, ", ".join(CRP_KNOB_NAMES + ("spec_bytes",))))
        out[n] = v
    return out


def crp_fabric_args(k):
    """smartt-fabric up's options for the ports' tables of crp_knobs()."""
    return ["--crp", "on", "--crp-slot", "%dns" % k["slot_ns"], "--crp-cells", str(k["cells"]),
            "--crp-ttw", "%dns" % k["ttw_ns"], "--crp-retry", "%dns" % k["retry_ns"]]


def crp_sysctl(k):
    """net.smartt.transport_crp_knobs's value for crp_knobs()."""
    return " ".join("%s=%d" % (n, k[n]) for n in CRP_KNOB_NAMES + ("spec_bytes",) if n in k)


def parse_name(spec):
    """'transport:reps' -> ('reps', 'smartt'); 'transport:oblivious:strack'
    -> ('oblivious', 'strack').  ConfigError naming what is wrong."""
    parts = spec.split(":")
    if parts[0] != "transport":
        raise config.ConfigError("algorithm %r: not a transport algorithm" % spec)
    if len(parts) not in (2, 3) or not parts[1]:
        raise config.ConfigError("algorithm %r: want transport:LB or transport:LB:CC "
                                 "(LB one of %s)" % (spec, ", ".join(LBS)))
    lb = parts[1]
    cc = parts[2] if len(parts) == 3 else DEFAULT_CC
    if lb not in LBS:
        raise config.ConfigError("algorithm %r: path selector %r: want one of %s"
                                 % (spec, lb, ", ".join(LBS)))
    if cc not in CCS:
        raise config.ConfigError("algorithm %r: congestion control %r: want one of %s"
                                 % (spec, cc, ", ".join(CCS)))
    return lb, cc


def server_argv(perf, port, lb, cc, max_size):
    """One destination's server: --size raises its SMARTT_MSG_MAX when a
    flow is larger than the transport's default."""
    a = [perf, "server", "-p", str(port), "--lb", lb, "--cc", cc, "--json"]
    if max_size > 64 * 1024 * 1024:
        a += ["-s", str(max_size)]
    return a


def client_argv(perf, flow, port, lb, cc, t0_real, end_s, raw):
    """The client of one flow ({"size", "start_s", "stop_s", "dst_addr"}):
    a sized flow is one message; one without a size streams until its stop
    (the run's end without one)."""
    size = flow["size"]
    start = t0_real + flow["start_s"]
    stop = flow.get("stop_s") or end_s
    a = [perf, "client", "-P", "stream", "--lb", lb, "--cc", cc, "-p", str(port),
         "-S", "%.6f" % start, "-i", "0", "--json", "--raw", raw]
    if size:
        if not MSG_MIN <= size <= MSG_MAX:
            raise config.ConfigError("flow %d: %d bytes: the transport's flows are messages "
                                     "of %d B to 1 GiB" % (flow["id"], size, MSG_MIN))
        a += ["-s", str(size), "-n", "1", "-o", "1"]
    else:
        dur = stop - flow["start_s"]
        if dur <= 0:
            raise config.ConfigError("flow %d: stops at %g s, before its start at %g s"
                                     % (flow["id"], stop, flow["start_s"]))
        a += ["-s", str(LONG_MSG), "-d", "%.3f" % dur, "-o", str(LONG_OUTSTANDING)]
    a += ["-t", "%g" % (end_s + TIMEOUT_SLACK_S), flow["dst_addr"]]
    return a


def parse_stats(text):
    """/proc/net/smartt_stats ('name value description' lines) -> {name: value}."""
    out = {}
    for line in text.splitlines():
        p = line.split(None, 2)
        if len(p) >= 2 and p[1].lstrip("-").isdigit():
            out[p[0]] = int(p[1])
    return out


def stats_delta(before, after):
    """Per-host counters before and after ({host: {name: value}}) -> the
    run's metrics (STATS), summed over the hosts."""
    out = {}
    for metric, name in STATS.items():
        out[metric] = sum(after[h].get(name, 0) - before.get(h, {}).get(name, 0) for h in after)
    return out


def parse_raw(text):
    """--raw's CSV -> [(start_ns, fct_ns, error)]."""
    rows = []
    for r in csv.DictReader(text.splitlines()):
        rows.append((int(r["start_ns"]), int(r["fct_ns"]), r["error"] or None))
    return rows


def flow_result(flow, doc, raw, t0_real, bin_s, end_s, err=None):
    """One flow of the driver's result (driver.py's format) from its
    client's JSON document (None if it printed none) and --raw rows:
    completion time, bytes received (completed messages), per-bin bytes at
    the messages' completion times, the transport's retransmissions to the
    peer, and the selector's counters.  A flow without a size counts the
    messages completed by its stop (the run's end without one), as the TCP
    driver counts the bytes received until then."""
    size = flow["size"]
    msg = size if size else LONG_MSG
    res = {"id": flow["id"], "size": size, "start_s": flow["start_s"], "fct_s": None,
           "rx": 0, "sent": 0, "retrans": None, "ecn": None, "error": err, "bins": [],
           "late_s": None, "path": None}
    if doc is None:
        res["error"] = err or "smartt-perf printed no result"
        if not raw:
            return res
        # a client that gave up (its -t) prints no document but its --raw
        # rows: its messages count from its planned start (lateness unknown)
        t_first = flow["start_s"]
        doc = {"failed": 1, "peers": []}
    else:
        t_first = doc["start_realtime"] - t0_real
        res["late_s"] = t_first - flow["start_s"]
    bins = {}
    stop = None if size else (flow.get("stop_s") or end_s)
    done = [r for r in raw if r[2] is None and
            (stop is None or t_first + (r[0] + r[1]) / 1e9 <= stop)]
    for start_ns, fct_ns, _ in done:
        t = t_first + (start_ns + fct_ns) / 1e9
        b = int(t // bin_s)
        bins[b] = bins.get(b, 0) + msg
    res["bins"] = sorted(bins.items())
    res["rx"] = len(done) * msg
    res["sent"] = len(raw) * msg
    if size and done and doc["failed"] == 0:
        res["fct_s"] = done[0][1] / 1e9
    failed = [r[2] for r in raw if r[2]]
    if failed and not res["error"]:
        res["error"] = failed[0]
    peers = doc.get("peers") or []
    if peers and peers[0].get("peer"):
        res["retrans"] = peers[0]["peer"]["retransmits"]
    if peers and peers[0].get("path"):
        res["path"] = peers[0]["path"]
    return res


def perf_binary(top):
    return os.environ.get("SMARTT_PERF") or os.path.join(top, "build", "userspace",
                                                          "smartt-perf")


def read_stats(hosts):
    """{host: counters} of /proc/net/smartt_stats in each host's namespace."""
    out = {}
    home = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    try:
        for h, v in sorted(hosts.items()):
            setns("/run/netns/" + v["ns"])
            # /proc/self/net is the reading thread's namespace at open time
            with open("/proc/self/net/smartt_stats") as f:
                out[h] = parse_stats(f.read())
    finally:
        _libc.setns(home, CLONE_NEWNET)
        os.close(home)
    return out


def _in_ns(ns):
    return lambda: setns("/run/netns/" + ns)


def run(plan, rdir, hosts, perf):
    """Run one plan (host.py's, with "lb" and "cc") over the transport:
    servers, one client per flow, the events at their times; the result in
    driver.py's format plus "stats" (the counters' deltas)."""
    t0_mono, end_s = plan["t0_mono_ns"], plan["end_s"]
    # the same instant on both clocks: smartt-perf's --start-at is CLOCK_REALTIME
    t0_real = time.time() + (t0_mono - time.monotonic_ns()) / 1e9
    with open(os.path.join(rdir, "plan.json"), "w") as fh:
        json.dump(dict(plan, t0_real=t0_real), fh)
    lb, cc, port = plan["lb"], plan["cc"], plan["port"]
    bin_s = plan["bin_ms"] / 1000.0
    ns_of = {v["ns"]: h for h, v in hosts.items()}
    before = read_stats(hosts)
    procs, servers, clients = [], [], []
    logs = []
    try:
        max_size = max([f["size"] for f in plan["flows"]] + [0])
        for li in plan["listeners"]:
            log = open(os.path.join(rdir, "server-%s.log" % ns_of.get(li["ns"], li["ns"])), "w")
            logs.append(log)
            p = subprocess.Popen(server_argv(perf, port, lb, cc, max_size) + ["-B", li["addr"]],
                                 stdout=log, stderr=subprocess.STDOUT,
                                 preexec_fn=_in_ns(li["ns"]))
            servers.append(p)
            procs.append(p)
        # the servers bind before any client's first message is due (time 0)
        for f in plan["flows"]:
            raw = os.path.join(rdir, "flow-%d.csv" % f["id"])
            out = open(os.path.join(rdir, "flow-%d.json" % f["id"]), "w")
            err = open(os.path.join(rdir, "flow-%d.err" % f["id"]), "w")
            logs += [out, err]
            p = subprocess.Popen(client_argv(perf, f, port, lb, cc, t0_real, end_s, raw),
                                 stdout=out, stderr=err, preexec_fn=_in_ns(f["src_ns"]))
            clients.append((f, p))
            procs.append(p)
        events = sorted(plan.get("events", []), key=lambda e: e["t_s"])
        ran, evprocs = [], []
        deadline = t0_mono + int((end_s + TIMEOUT_SLACK_S + 5) * 1e9)
        while any(p.poll() is None for _, p in clients):
            now = time.monotonic_ns()
            t = (now - t0_mono) / 1e9
            while events and events[0]["t_s"] <= t:
                ev = events.pop(0)
                evprocs.append(subprocess.Popen(ev["argv"], stdout=subprocess.DEVNULL,
                                                stderr=subprocess.PIPE))
                ran.append({"t_s": t, "argv": ev["argv"]})
            if now > deadline:
                for _, p in clients:
                    if p.poll() is None:
                        p.send_signal(signal.SIGINT)
                deadline = now + int(30e9)
            time.sleep(0.005 if events else 0.05)
        t_end = (time.monotonic_ns() - t0_mono) / 1e9
        for p in evprocs:
            _, e = p.communicate(timeout=60)
            if p.returncode:
                ran.append({"error": "%s: exit %d: %s" % (" ".join(p.args), p.returncode,
                                                         e.decode(errors="replace").strip())})
    finally:
        # the servers; the clients too when the run was interrupted
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for log in logs:
            log.close()
    after = read_stats(hosts)
    with open(os.path.join(rdir, "stats.json"), "w") as fh:
        json.dump({"before": before, "after": after}, fh)
    flows = []
    for f, p in clients:
        base = os.path.join(rdir, "flow-%d" % f["id"])
        with open(base + ".json") as fh:
            text = fh.read().strip()
        with open(base + ".err") as fh:
            errtext = fh.read().strip()
        try:
            doc = json.loads(text) if text else None
        except ValueError:
            doc = None
        try:
            with open(base + ".csv") as fh:
                raw = parse_raw(fh.read())
        except OSError:
            raw = []
        err = None
        if p.returncode:
            err = (errtext.splitlines() or ["smartt-perf exit %d" % p.returncode])[-1]
        flows.append(flow_result(f, doc, raw, t0_real, bin_s, end_s, err))
    late = [x["late_s"] for x in flows if x["late_s"] is not None]
    # the series end where the TCP driver's do: at the run's end at the latest
    return {"flows": flows, "cwnd": [], "events": ran, "t_end_s": min(t_end, end_s),
            "bin_ms": plan["bin_ms"], "accepted": len(flows),
            "t_first_s": max(late) if late else None,
            "stats": stats_delta(before, after), "lb": lb, "transport_cc": cc}
