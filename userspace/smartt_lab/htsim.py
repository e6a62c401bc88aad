# SPDX-License-Identifier: GPL-2.0
"""The same scenario in the UEC simulator (uet-htsim's htsim_uec): its
input files from an experiment, its output as summary.csv rows.

export() writes, for one case and seed:

  CASE.cm      the connection matrix: "Nodes N", "Connections C", then one
               "SRC->DST id K start T size S" line per flow (hosts h0..hN-1
               are nodes 0..N-1; T in microseconds, every flow of the lab's
               sized patterns starts at 0 but for jitter), and "Failures F"
               with one "failure switch_type TOR switch_id L link_id S" line
               per leaf-to-spine blackhole of the experiment's events (the
               simulator fails the link for the whole run)
  CASE.topo    the fat tree: "Nodes", "Tiers 2", "Podsize", and per tier
               Downlink_speed_Gbps, Radix_Down, Radix_Up, Queue_Down,
               Queue_Up, Oversubscribed, Downlink_Latency_ns
  htsim.cmd    one htsim_uec command line per algorithm the simulator has
               (NSCC, its DCTCP; the transport's path selectors with
               NSCC), each after a "# algo LABEL case CASE seed S" line

The simulator runs the regime at its own rate (RATE_GBPS, the papers'
100 Gbit/s) and packet size (MTU, its default): the per-link latency is
chosen, as regime.derive() chooses the lab's delay, so that the BDP of the
simulator's own base RTT (its calculate_rtt: propagation both ways over
the diameter of 2 x tiers links, one packet and one ACK serialised per
link) is the regime's bdp_mtus packets.  The lab's leaf-spine of S spines
at X times the host rate becomes S x X spines at the host rate (the
simulator's links of one tier run at one speed); a single-leaf fabric is
one ToR under one spine.

parse_output() reads htsim_uec's standard output: the per-flow lines
"Flow NAME flowId K NODE finished at T ..." (T in microseconds; a flow's
completion time is T less its start, the sender's view up to the last
acknowledgment), "Packet size (MTU) is M", "Linkspeed set to G Gbps",
"network_max_unloaded_rtt R" and the totals line "New: ... Rtx: ...".
"""
import math
import os
import re
import shlex
import subprocess

from . import config, metrics, regime

RATE_GBPS = 100
MTU = 4150
# the simulator's DATA headers (UecSrc::_hdr_size) and ACK size
HDR_BYTES = 64
ACK_BYTES = 64
# connection-matrix, command and output names
CMD_FILE = "htsim.cmd"
LB = {"reps": "reps", "oblivious": "oblivious", "strack-bitmap": "bitmap",
      "reps-single": "reps_legacy"}


class HtsimError(Exception):
    """A scenario the simulator cannot express, a missing or failing binary."""


def node_ids(hosts):
    return {h: int(h[1:]) for h in hosts}


def sim_cc(label):
    """(label, sender CC, load balancer) of the simulator for a run's
    algorithm label, or None where it has no equivalent.  The simulator has
    NSCC as standardised (the nscc profile) and its own DCTCP, not the
    smartt and smartt-2024 profiles, STrack, cubic or bbr; a path selector
    of the transport runs there with NSCC, whatever CC the lab's run had,
    and is labelled transport:LB:nscc."""
    name, _, prof = label.partition(":")
    if name.startswith("bpf_"):
        name = name[4:]
    if name == "smartt" and prof == "nscc":
        return ("smartt:nscc", "nscc", None)
    if name == "dctcp":
        return ("dctcp", "dctcp", None)
    if name == "transport":
        lb = prof.partition(":")[0]
        if lb == "ecmp":
            return ("transport:ecmp:nscc", "nscc", "ecmp")
        if lb in LB:
            return ("transport:%s:nscc" % lb, "nscc", LB[lb])
    return None


def sim_regime(spec, tiers=2):
    """{latency_ns, rtt_ps, bdp_pkts, queue_pkts, ecn_low, ecn_high} of the
    regime at RATE_GBPS, MTU, over the simulator's diameter."""
    spec = regime.validate(spec)
    hops = 2 * tiers
    ser_ps = (MTU * 8 * 1000 // RATE_GBPS + ACK_BYTES * 8 * 1000 // RATE_GBPS) * hops
    want_ps = spec["bdp_mtus"] * MTU * 8 * 1000.0 / RATE_GBPS
    # 2 x diameter latency = 2 x hops x latency
    lat_ns = max(1, int(math.ceil((want_ps - ser_ps) / (2.0 * hops) / 1000.0)))
    rtt_ps = 2 * hops * lat_ns * 1000 + ser_ps
    bdp = int(math.ceil(rtt_ps / 1e12 * RATE_GBPS * 1e9 / 8 / MTU))
    return {"latency_ns": lat_ns, "rtt_ps": rtt_ps, "bdp_pkts": bdp,
            "queue_pkts": max(1, int(round(spec["buffer_bdp"] * bdp))),
            "droptail_queue_pkts": max(1, int(round(spec["droptail_buffer_bdp"] * bdp))),
            "ecn_low": int(math.ceil(spec["kmin_bdp"] * bdp)),
            "ecn_high": int(math.ceil(spec["kmax_bdp"] * bdp))}


def topology(fab, spec, hosts_n):
    """The topology file's text for the experiment's fabric."""
    sr = sim_regime(spec)
    leaves = int(fab.get("leaves", 1))
    spines = int(fab.get("spines", 0))
    if hosts_n % leaves:
        raise HtsimError("%d hosts on %d leaves: the simulator wants equal leaves"
                         % (hosts_n, leaves))
    hpl = hosts_n // leaves
    if spines:
        over = spec.get("oversub", 1)
        if hpl % over:
            raise HtsimError("oversubscription %s does not divide %d hosts per leaf"
                             % (over, hpl))
        up, over = hpl // int(over), int(over)
    else:
        # one ToR under one spine: every path stays in the ToR
        up, over = 1, hpl
    qb = sr["queue_pkts"] * MTU
    return "\n".join([
        "# smartt-lab: %d hosts, %d leaves; %d Gbit/s, %d ns per link" % (
            hosts_n, leaves, RATE_GBPS, sr["latency_ns"]),
        "Nodes %d" % hosts_n, "Tiers 2", "Podsize %d" % hosts_n,
        "Tier 0", "Downlink_speed_Gbps %d" % RATE_GBPS, "Radix_Down %d" % hpl,
        "Radix_Up %d" % up, "Queue_Down %d" % qb, "Queue_Up %d" % qb,
        "Oversubscribed %d" % over, "Downlink_Latency_ns %d" % sr["latency_ns"],
        "Tier 1", "Downlink_speed_Gbps %d" % RATE_GBPS, "Radix_Down %d" % leaves,
        "Queue_Down %d" % qb, "Downlink_Latency_ns %d" % sr["latency_ns"], ""])


def failures(exp, hosts):
    """Failure lines of the experiment's leaf-to-spine blackholes."""
    out = []
    for ev in exp.get("events") or []:
        a, _, b = ev["port"].partition(":")
        if ev["fault"].split()[0] == "blackhole" and a.startswith("l") and b.startswith("s"):
            out.append("failure switch_type TOR switch_id %d link_id %d" % (int(a[1:]),
                                                                          int(b[1:])))
    return out


def matrix(flows, hosts_n, size_of=None, fails=()):
    """The connection matrix's text of a run's flows (sized flows only: the
    simulator's flows end)."""
    lines = []
    k = 0
    for f in flows:
        size = f["size"] if size_of is None else size_of(f)
        if size <= 0:
            continue
        k += 1
        lines.append("%d->%d id %d start %g size %d" % (int(f["src"][1:]), int(f["dst"][1:]),
                                                       k, round(f["start_s"] * 1e6, 3), size))
    head = ["Nodes %d" % hosts_n, "Connections %d" % k]
    if fails:
        head.append("Failures %d" % len(fails))
    return "\n".join(head + lines + list(fails)) + "\n"


def parse_matrix(text):
    """{nodes, flows: [{src, dst, id, start_us, size}], failures: [...]} of
    a connection matrix (our own reader, for tests and import)."""
    nodes, declared, flows, fails = None, None, [], []
    for ln in text.splitlines():
        t = ln.split()
        if not t or t[0].startswith("#"):
            continue
        if t[0] == "Nodes":
            nodes = int(t[1])
        elif t[0] == "Connections":
            declared = int(t[1])
        elif t[0] in ("Triggers", "Failures"):
            continue
        elif "->" in t[0]:
            s, d = t[0].split("->")
            f = {"src": int(s), "dst": int(d), "id": None, "start_us": 0.0, "size": 0}
            i = 1
            while i < len(t):
                k = t[i]
                if k in ("start", "size", "id", "prio", "trigger", "send_done_trigger",
                         "recv_done_trigger"):
                    v = t[i + 1]
                    if k == "start":
                        f["start_us"] = float(v)
                    elif k in ("size", "id"):
                        f[k] = int(v)
                    i += 2
                else:
                    raise ValueError("connection matrix: unknown token %r" % k)
            flows.append(f)
        elif t[0] == "failure":
            fails.append(dict(zip(t[1::2], t[2::2])))
        else:
            raise ValueError("connection matrix: unknown line %r" % ln)
    if declared is not None and declared != len(flows):
        raise ValueError("connection matrix: %d connections declared, %d given"
                         % (declared, len(flows)))
    return {"nodes": nodes, "flows": flows, "failures": fails}


def parse_topology(text):
    """{nodes, tiers, podsize, tier: [{key: int}]} of a topology file."""
    out = {"tier": []}
    cur = None
    for ln in text.splitlines():
        t = ln.split()
        if not t or t[0].startswith("#"):
            continue
        k = t[0].lower()
        if k in ("nodes", "tiers", "podsize"):
            out[k] = int(t[1])
        elif k == "tier":
            cur = {}
            out["tier"].append(cur)
        else:
            cur[k] = int(t[1])
    return out


def command(cm, topo, sr, seed, cc, lb, end_us, trimming=True):
    """The htsim_uec argv (without the binary) of one run."""
    a = ["-tm", cm, "-topo", topo, "-linkspeed", str(RATE_GBPS * 1000), "-mtu", str(MTU),
         "-q", str(sr["queue_pkts"] if trimming else sr["droptail_queue_pkts"]),
         "-ecn", str(sr["ecn_low"]), str(sr["ecn_high"]), "-seed", str(seed),
         "-end", str(int(end_us)), "-sender_cc_algo", cc]
    if lb == "ecmp":
        a += ["-load_balancing_algo", "oblivious", "-paths", "1"]
    elif lb:
        a += ["-load_balancing_algo", lb]
    if not trimming:
        a.append("-disable_trim")
    return a


def ideal_us(flows, rtt_us, mtu=MTU, rate_gbps=RATE_GBPS):
    """The ideal completion of a matrix's flows in the simulator: the wire
    bytes (its 64-byte headers per packet) through the most loaded host
    link, plus one base RTT."""
    into, outof = {}, {}
    for f in flows:
        w = metrics.wire_bytes(f["size"], mtu - HDR_BYTES, HDR_BYTES)
        into[f["dst"]] = into.get(f["dst"], 0) + w
        outof[f["src"]] = outof.get(f["src"], 0) + w
    most = max(list(into.values()) + list(outof.values()) + [0])
    return most * 8.0 / (rate_gbps * 1e3) + rtt_us


def export(exp, case, out, seed=1, algos=None, regime_name="papers"):
    """Write CASE.cm, CASE.topo and htsim.cmd (appending to an htsim.cmd
    of other cases) into out; returns [(label, argv)] of the commands."""
    if not exp.get("regime"):
        raise HtsimError("experiment %s has no regime: nothing to scale to the simulator"
                         % exp["name"])
    spec = regime.validate(exp["regime"])
    fab = exp["fabric"]
    n = max([int(fab["hosts"])] + [int(exp["cases"][c].get("hosts", 0))
                                   for c in exp["case_names"]])
    leaves = int(fab.get("leaves", 1))
    hosts = {"h%d" % i: {"leaf": "l%d" % (i * leaves // n)} for i in range(n)}
    fl = config.flows(exp, case, hosts, seed)
    t = config.case_traffic(exp, case)
    if t["pattern"] in ("hotspot",) or not any(f["size"] for f in fl):
        raise HtsimError("%s %s: flows without a size (the simulator's flows end): "
                         "not exported" % (exp["name"], case))
    os.makedirs(out, exist_ok=True)
    sr = sim_regime(spec)
    cm, topo = "%s.cm" % case, "%s.topo" % case
    with open(os.path.join(out, cm), "w") as f:
        f.write(matrix(fl, n, fails=failures(exp, hosts)))
    with open(os.path.join(out, topo), "w") as f:
        f.write(topology(fab, spec, n))
    parsed = parse_matrix(open(os.path.join(out, cm)).read())["flows"]
    end = max(1000, int(20 * ideal_us(parsed, sr["rtt_ps"] / 1e6)))
    cmds = []
    for label in algos or exp["algos"].get("guest") or exp["algos"].get("host") or []:
        m = sim_cc(label)
        if m is None or any(x[0] == m[0] for x in cmds):
            continue
        cmds.append((m[0], command(cm, topo, sr, seed, m[1], m[2], end,
                                   regime_name != "droptail")))
    path = os.path.join(out, CMD_FILE)
    new = not os.path.exists(path)
    with open(path, "a") as f:
        if new:
            f.write("# smartt-lab export-htsim: experiment %s, regime %s\n"
                    "# run from this directory: each command's stdout is what "
                    "'smartt-lab import-htsim' reads\n" % (exp["name"], regime_name))
        for label, argv in cmds:
            f.write("# algo %s case %s seed %d\n" % (label, case, seed))
            f.write(" ".join(["htsim_uec"] + [shlex.quote(x) for x in argv]) + "\n")
    return cmds


def read_cmd(path):
    """[(label, case, seed, argv)] of an htsim.cmd."""
    out, cur = [], None
    with open(path) as f:
        for ln in f:
            ln = ln.strip()
            m = re.match(r"# algo (\S+) case (\S+) seed (\d+)$", ln)
            if m:
                cur = (m.group(1), m.group(2), int(m.group(3)))
            elif ln and not ln.startswith("#") and cur:
                argv = shlex.split(ln)
                out.append(cur + (argv[1:],))
                cur = None
    return out


FLOW_RE = re.compile(r"^Flow (\S+) flowId (\d+) \S+ finished at ([0-9.eE+-]+)")
TOTALS_RE = re.compile(r"^New: (\d+) Rtx: (\d+)(?: RTS: (\d+))?(?: Bounced: (\d+))?"
                       r"(?: ACKs: (\d+))?(?: NACKs: (\d+))?")


def parse_output(text):
    """{finished: {flow id: t_us}, mtu, rate_gbps, rtt_us, new, rtx, nacks}
    of htsim_uec's standard output."""
    out = {"finished": {}, "names": {}, "mtu": None, "rate_gbps": None, "rtt_us": None,
           "new": None, "rtx": None, "nacks": None, "done": False}
    for ln in text.splitlines():
        m = FLOW_RE.match(ln)
        if m:
            out["finished"][int(m.group(2))] = float(m.group(3))
            out["names"][int(m.group(2))] = m.group(1)
            continue
        m = TOTALS_RE.match(ln)
        if m:
            out["new"], out["rtx"] = int(m.group(1)), int(m.group(2))
            if m.group(6) is not None:
                out["nacks"] = int(m.group(6))
            continue
        m = re.match(r"^Packet size \(MTU\) is (\d+)", ln)
        if m:
            out["mtu"] = int(m.group(1))
        m = re.match(r"^Linkspeed set to ([0-9.]+)\s*Gbps", ln)
        if m:
            out["rate_gbps"] = float(m.group(1))
        m = re.match(r"^network_max_unloaded_rtt ([0-9.eE+-]+)", ln)
        if m:
            out["rtt_us"] = float(m.group(1))
        if ln.strip() == "Done":
            out["done"] = True
    return out


def run_metrics(out, flows):
    """summary.csv metrics of one simulator run: its parsed output and the
    connection matrix's flows (ids 1..C in file order when the matrix gives
    none)."""
    fl = {(f["id"] or i + 1): f for i, f in enumerate(flows)}
    fcts = [(out["finished"][k] - f["start_us"]) if k in out["finished"] else None
            for k, f in fl.items()]
    st = metrics.fct_stats([x / 1e6 if x is not None else None for x in fcts])
    m = {"flows": len(fl), "failed": st["failed"]}
    for k in ("p50", "p99", "max"):
        if st[k] is not None:
            m["fct_%s_ms" % k] = st[k] * 1000
    if not st["failed"] and fl and out["rtt_us"]:
        ends = [out["finished"][k] for k in fl]
        span = max(ends) - min(f["start_us"] for f in fl.values())
        ideal = ideal_us(list(fl.values()), out["rtt_us"], out["mtu"] or MTU,
                         out["rate_gbps"] or RATE_GBPS)
        m["fct_ideal_ms"] = ideal / 1000
        m["fct_max_over_ideal"] = span / ideal
    if out["rtx"] is not None:
        m["retrans"] = out["rtx"]
    if out["nacks"] is not None:
        m["nacks"] = out["nacks"]
    return m


def run_binary(binary, argv, cwd, timeout=3600):
    """Run htsim_uec; its stdout.  A missing or failing binary: HtsimError."""
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise HtsimError("--htsim %s: not an executable file (a built htsim_uec)" % binary)
    try:
        r = subprocess.run([binary] + argv, cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as e:
        raise HtsimError("%s: %s" % (binary, e))
    if r.returncode != 0:
        tail = r.stdout.strip().splitlines()[-3:]
        raise HtsimError("%s %s: exit %d: %s" % (binary, " ".join(argv[:2]), r.returncode,
                                                " | ".join(tail) or "no output"))
    return r.stdout
