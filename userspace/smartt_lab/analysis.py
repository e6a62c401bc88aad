# SPDX-License-Identifier: GPL-2.0
"""From one run's raw results to its metrics (the rows of summary.csv) and
the series its plots draw.  Pure: the run's data in, numbers out."""
from . import config, metrics

# Size buckets of the short-flow slowdown (bytes; the last is open).
SIZE_EDGES = [10**4, 10**5, 10**6]


# The transport's headers over IPv4: IP, UDP and its DATA headers per
# packet, Ethernet on the wire (Documentation/transport.rst)
TRANSPORT_HDR = 20 + 8 + 120


def wire_of(exp, transport=False):
    """(payload bytes per packet, header bytes per packet on the wire) of
    the protocol in use: TCP with timestamps, or the transport."""
    d = exp["derived"]
    if transport:
        return d["mtu"] - TRANSPORT_HDR, TRANSPORT_HDR + 14
    return d["mss"], d["overhead"]


def ideal_of(exp, base_rtt_s, transport=False):
    d = exp["derived"]
    mss, ovh = wire_of(exp, transport)
    return lambda size: metrics.ideal_fct(size, d["rate_bps"], base_rtt_s, mss, ovh)


def makespan_ideal(exp, flows, base_rtt_s, transport=False):
    """Ideal completion of the whole run: the bytes through the most loaded
    host link (a receiver's or a sender's) at the port rate, with the wire
    headers of the protocol in use, plus one base RTT.  For an incast that
    is the receiver's port."""
    d = exp["derived"]
    mss, ovh = wire_of(exp, transport)
    into, outof = {}, {}
    for f in flows:
        w = metrics.wire_bytes(f["size"], mss, ovh)
        into[f["dst"]] = into.get(f["dst"], 0) + w
        outof[f["src"]] = outof.get(f["src"], 0) + w
    most = max(list(into.values()) + list(outof.values()) + [0])
    return most * 8.0 / d["rate_bps"] + base_rtt_s


def analyse(exp, case, res, base_rtt_s):
    """{"metrics": {name: value}, "series": {...}} of one run."""
    fl = {f["id"]: f for f in res["flows"]}
    drv = {f["id"]: f for f in res["driver"]["flows"]}
    bin_s = res["driver"]["bin_ms"] / 1000.0
    t = config.case_traffic(exp, case)
    m = {}
    sized = [fid for fid, f in fl.items() if f["size"] > 0]
    tr = res.get("cc") == "transport"
    ideal = ideal_of(exp, base_rtt_s, tr)
    if sized:
        fcts = [drv[i]["fct_s"] for i in sized]
        st = metrics.fct_stats(fcts)
        m["flows"] = len(sized)
        m["failed"] = st["failed"]
        for k in ("p50", "p99", "max"):
            if st[k] is not None:
                m["fct_%s_ms" % k] = st[k] * 1000
        # completion of the last flow against the most loaded link's ideal
        ends = [fl[i]["start_s"] + drv[i]["fct_s"] for i in sized if drv[i]["fct_s"] is not None]
        if ends and not st["failed"]:
            span_ideal = makespan_ideal(exp, [fl[i] for i in sized], base_rtt_s, tr)
            m["fct_ideal_ms"] = span_ideal * 1000
            m["fct_max_over_ideal"] = (max(ends) - min(fl[i]["start_s"] for i in sized)) / span_ideal
        sl = [drv[i]["fct_s"] / ideal(fl[i]["size"]) for i in sized if drv[i]["fct_s"]]
        if sl:
            m["slowdown_p50"] = metrics.percentile(sl, 50)
            m["slowdown_p99"] = metrics.percentile(sl, 99)
        rates = [fl[i]["size"] * 8 / drv[i]["fct_s"] for i in sized if drv[i]["fct_s"]]
        if len(rates) >= 2:
            m["jain"] = metrics.jain(rates)
        if ends:
            span = max(ends) - min(fl[i]["start_s"] for i in sized)
            if span > 0:
                m["goodput_mbps"] = sum(drv[i]["rx"] for i in sized) * 8 / span / 1e6
    stats = res["driver"].get("stats")
    if stats is not None:
        # the transport: its counters' deltas over the run's hosts
        # (transport.STATS), the selector's spread over the entropies
        m.update(stats)
        used = [drv[i]["path"]["buckets_used"] for i in drv if drv[i].get("path")]
        if used:
            m["path_buckets_used"] = sum(used) / len(used)
    else:
        m["retrans"] = sum(drv[i].get("retrans") or 0 for i in drv)
        m["ecn_flows"] = sum(1 for i in drv if drv[i].get("ecn"))
    sw = [p for p in res["ports"] if p["kind"] != "nic"]
    m["drops"] = sum(p["drops"] for p in res["ports"])
    m["trims"] = sum(p["trimmed"] for p in sw)
    m["ecn_marks"] = sum(p["ce_marked"] for p in sw)
    m["samples_lost"] = res.get("samples_lost", 0)
    dl = res.get("delayline")
    if dl and dl.get("released"):
        # the fabric's delay line (htb+delayline backend), this run only
        # (the fabric's reset zeroes it): how late it released packets
        m["delay_late_p50_us"] = dl["late_p50_ns"] / 1000.0
        m["delay_late_p99_us"] = dl["late_p99_ns"] / 1000.0
        m["delay_late_max_us"] = dl["late_max_ns"] / 1000.0
        m["delay_late_share"] = dl.get("late_over_tenth", 0) / float(dl["released"])

    # queues: the experiment's ports of interest, else every switch port;
    # one definition each (metrics.queue_over_time): over time, on the
    # sampling grid, during the active period (the first flow's start to
    # the last sized flow's completion, or the end of the traffic)
    want = exp.get("queue_ports") or [p["port"] for p in sw]
    q = {p: s for p, s in res["queue"].items() if p in want and s}
    series = {"queue": q}
    if q:
        # when each flow really started: the driver's record, else the plan's
        # time or the driver's late start, whichever is later
        late = res["driver"].get("t_first_s") or 0.0

        def began(i):
            t0 = drv[i].get("t_start_s")
            return t0 if t0 is not None else max(fl[i]["start_s"], late)
        starts = [began(i) for i in fl]
        t_from = min(starts) if starts else 0.0
        sized_ends = [began(i) + drv[i]["fct_s"] for i in sized
                      if drv[i]["fct_s"] is not None]
        if sized and len(sized_ends) == len(sized):
            t_to = max(sized_ends)
        else:
            t_to = res["driver"]["t_end_s"]
        interval = exp["run"]["sample_us"] / 1e6
        rates = {p["port"]: p.get("rate") for p in res["ports"]}
        st = {}
        for p, s in q.items():
            grid = metrics.queue_over_time(s, interval, rates.get(p) or exp["derived"]["rate_bps"],
                                           t_from, t_to)
            st[p] = metrics.queue_time_stats(grid)
        top = max(st, key=lambda p: (st[p]["mean"] or 0, st[p]["peak"] or 0))
        if st[top]["mean"] is not None:
            m["queue_mean_bytes"] = st[top]["mean"]
            m["queue_p99_bytes"] = st[top]["p99"]
            m["queue_peak_bytes"] = st[top]["peak"]
            bdp = exp["derived"].get("bdp")
            if bdp:
                for k in ("mean", "p99", "peak"):
                    m["queue_%s_bdp" % k] = st[top][k] / float(bdp)
        series["queue_top"] = top

    # throughput over time per flow, Jain over time
    t_end = max([res["driver"]["t_end_s"]] + [0.0])
    tp = {i: metrics.rate_series(drv[i]["bins"], bin_s, 0.0, t_end) for i in drv}
    series["tput"] = tp
    series["cwnd"] = res["driver"]["cwnd"]

    def stop(i):
        f = fl[i]
        if f["size"] and drv[i]["fct_s"] is not None:
            return f["start_s"] + drv[i]["fct_s"]
        return f.get("stop_s") or t_end
    long_ids = [i for i in fl if fl[i]["size"] == 0]
    if long_ids:
        sub = {i: metrics.smooth(tp[i], max(1, int(t.get("smooth_ms", 20) / (bin_s * 1000))))
               for i in long_ids}
        js = metrics.jain_over_time(sub, lambda i, tt: fl[i]["start_s"] + 0.05 <= tt < stop(i))
        series["jain"] = js
        rel = [i for i in long_ids if fl[i].get("role", "background") == "background"]
        if len(rel) >= 2 and t["pattern"] == "explicit":
            last = max(fl[i]["start_s"] for i in long_ids)
            vals = [j for tt, j in js if last + 0.1 <= tt]
            if vals:
                m["jain"] = sum(vals) / len(vals)
                m["jain_min"] = min(vals)
            c = metrics.convergence_time(js, last, float(t.get("converged", 0.9)))
            if c is not None:
                m["convergence_ms"] = c * 1000
        for i in long_ids:
            f = fl[i]
            dur = max(1e-9, min(stop(i), t_end) - f["start_s"])
            f["avg_mbps"] = drv[i]["rx"] * 8 / dur / 1e6
        m["goodput_mbps"] = sum(drv[i]["rx"] for i in long_ids) * 8 / max(1e-9, t_end) / 1e6
    if t["pattern"] == "hotspot":
        hot = t.get("receiver")
        bg = [i for i in long_ids if fl[i].get("role") == "background" and fl[i]["dst"] != hot]
        agg = [(tt, sum(tp[i][k][1] for i in bg)) for k, (tt, _) in enumerate(tp[bg[0]])] if bg else []
        agg = metrics.smooth(agg, max(1, int(t.get("smooth_ms", 20) / (bin_s * 1000))))
        series["agg"] = agg
        rt = metrics.recovery_time(agg, float(t["t_hot_s"]), float(t.get("before_s", 0.5)),
                                   float(t.get("recovered", 0.9)), float(t.get("hold_s", 0.1)))
        if rt is not None:
            m["recovery_ms"] = rt * 1000
        pre = [v for tt, v in agg if float(t["t_hot_s"]) - 0.5 <= tt < float(t["t_hot_s"])]
        post = [v for tt, v in agg if float(t["t_hot_s"]) + 0.2 <= tt < t_end - 0.1]
        if pre and post:
            m["bg_after_over_before"] = (sum(post) / len(post)) / (sum(pre) / len(pre))
    if t["pattern"] == "websearch":
        short = [i for i in fl if fl[i].get("role") == "short"]
        rows = metrics.slowdown_buckets([(fl[i]["size"], drv[i]["fct_s"], ideal(fl[i]["size"]))
                                         for i in short], SIZE_EDGES)
        series["buckets"] = rows
        for label, n, p50, p99 in rows:
            m["slowdown_p99_%s" % label] = p99
            m["slowdown_p50_%s" % label] = p50
    if exp.get("events"):
        # goodput before the first event and after the last one; recovery
        # after the first, in base RTTs
        t_ev = min(e["t_s"] for e in exp["events"])
        t_last = max(e["t_s"] for e in exp["events"])
        allf = [(tt, sum(tp[i][k][1] for i in drv)) for k, (tt, _) in enumerate(tp[next(iter(drv))])]
        series["agg"] = metrics.smooth(allf, 4)
        pre = [v for tt, v in allf if 0.05 <= tt < t_ev]
        post = [v for tt, v in allf if t_last + 0.05 <= tt]
        if pre:
            m["goodput_before_mbps"] = sum(pre) / len(pre) / 1e6
        if post:
            m["goodput_after_mbps"] = sum(post) / len(post) / 1e6
        rt = metrics.recovery_time(series["agg"], t_ev, min(t_ev - 0.05, 0.5), 0.9, 0.05)
        if rt is not None and base_rtt_s:
            m["recovery_rtts"] = rt / base_rtt_s
    return {"metrics": m, "series": series}
