# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's plots (matplotlib, PNG) and report.html."""
import csv
import html
import json
import os

COLUMNS = ["experiment", "where", "mode", "kernel", "algo", "seed", "metric", "value", "case"]
# The side-by-side table: (metric, heading, format)
TABLE = [("fct_max_over_ideal", "maxFCT/ideal", "%.2f"), ("fct_p99_ms", "p99 FCT ms", "%.1f"),
         ("queue_mean_bdp", "mean q/BDP", "%.2f"), ("queue_p99_bytes", "p99 queue B", "%.0f"),
         ("retrans", "retrans", "%.0f"), ("drops", "drops", "%.0f"),
         ("ecn_marks", "CE marks", "%.0f"), ("jain", "jain", "%.3f"),
         ("goodput_mbps", "Mbit/s", "%.0f")]


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def read_summary(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def aggregate(rows):
    """{(experiment, case, algo): {metric: [values over seeds]}} keeping the
    order in which algorithms appear."""
    out = {}
    for r in rows:
        k = (r["experiment"], r.get("case", ""), r["algo"])
        try:
            v = float(r["value"])
        except ValueError:
            continue
        out.setdefault(k, {}).setdefault(r["metric"], []).append(v)
    return out


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def table(rows, cols=TABLE):
    """Text table: one line per (case, algo), each cell the value of the
    seeds when they agree, else their range as min~max."""
    agg = aggregate(rows)
    present = [c for c in cols if any(c[0] in m for m in agg.values())]
    lines = []
    head = "%-10s %-22s" % ("case", "algo") + "".join(" %14s" % h for _, h, _ in present)
    lines.append(head)
    cases = []
    for (e, c, a) in agg:
        if (e, c) not in cases:
            cases.append((e, c))
    for e, c in cases:
        for (e2, c2, a), m in agg.items():
            if (e2, c2) != (e, c):
                continue
            cells = []
            for k, _, fmt in present:
                xs = m.get(k)
                if not xs:
                    cells.append("%14s" % "-")
                    continue
                lo, hi = min(xs), max(xs)
                s = fmt % lo if lo == hi else "%s~%s" % ((fmt % lo).strip(), (fmt % hi).strip())
                cells.append("%14s" % s)
            lines.append("%-10s %-22s" % (c, a) + " ".join([""] + cells))
    return "\n".join(lines)


def ranking(rows, algo_key="smartt"):
    """One line per case and column: where the smartt algorithms rank."""
    agg = aggregate(rows)
    out = []
    lower_better = {"fct_max_over_ideal", "fct_p99_ms", "queue_peak_bytes", "queue_p99_bytes",
                    "retrans", "drops"}
    cases = sorted({(e, c) for e, c, _ in agg})
    for e, c in cases:
        for k in ("fct_max_over_ideal", "queue_peak_bytes", "retrans"):
            vals = {a: mean(m[k]) for (e2, c2, a), m in agg.items()
                    if (e2, c2) == (e, c) and m.get(k)}
            if len(vals) < 2:
                continue
            best = min(vals, key=vals.get) if k in lower_better else max(vals, key=vals.get)
            mine = {a: v for a, v in vals.items() if algo_key in a.split(":")[0]}
            if mine:
                a = min(mine, key=mine.get)
                verdict = "best" if a == best else "not best (best: %s %.4g, %s %.4g)" % (
                    best, vals[best], a, mine[a])
                out.append("%s %s %s: %s %s" % (e, c, k, a, verdict))
    return out


def plot_run(run_dir, title, series, exp):
    """The PNGs of one run: throughput, queue, cwnd (and Jain) over time."""
    plt = pyplot()
    made = []
    tp = series.get("tput", {})
    if tp:
        fig, ax = plt.subplots(figsize=(7, 3.2))
        ids = sorted(tp, key=int)
        for i in ids[:16]:
            s = tp[i]
            ax.plot([t for t, _ in s], [v / 1e6 for _, v in s], lw=0.8)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("Mbit/s per flow")
        ax.set_title(title + (": first 16 flows" if len(ids) > 16 else ""), fontsize=9)
        made.append(save(fig, run_dir, "tput.png"))
    q = series.get("queue", {})
    if q:
        fig, ax = plt.subplots(figsize=(7, 3.2))
        top = sorted(q, key=lambda p: -max(v for _, v in q[p]))[:6]
        for p in top:
            ax.plot([t for t, _ in q[p]], [v / 1000 for _, v in q[p]], lw=0.8, label=p)
        ax.axhline(exp["derived"]["kmin"] / 1000, ls=":", c="grey", lw=0.8)
        ax.axhline(exp["derived"]["buffer"] / 1000, ls="--", c="grey", lw=0.8)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queue (kB), port program samples")
        ax.legend(fontsize=7)
        ax.set_title(title + ": queue (dotted: Kmin, dashed: buffer)", fontsize=9)
        made.append(save(fig, run_dir, "queue.png"))
    cw = series.get("cwnd", [])
    if cw:
        fig, ax = plt.subplots(figsize=(7, 3.2))
        by = {}
        for fid, t, c, rtt in cw:
            by.setdefault(fid, []).append((t, c))
        for fid, s in sorted(by.items()):
            ax.plot([t for t, _ in s], [c for _, c in s], lw=0.8, label="flow %s" % fid)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (segments, TCP_INFO)")
        ax.legend(fontsize=7)
        ax.set_title(title + ": cwnd", fontsize=9)
        made.append(save(fig, run_dir, "cwnd.png"))
    js = series.get("jain")
    if js:
        fig, ax = plt.subplots(figsize=(7, 2.6))
        ax.plot([t for t, _ in js], [j for _, j in js], lw=0.8)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("Jain's index")
        ax.set_title(title + ": Jain over time", fontsize=9)
        made.append(save(fig, run_dir, "jain.png"))
    agg = series.get("agg")
    if agg:
        fig, ax = plt.subplots(figsize=(7, 2.6))
        ax.plot([t for t, _ in agg], [v / 1e6 for _, v in agg], lw=0.8)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("aggregate Mbit/s")
        ax.set_title(title + ": aggregate throughput", fontsize=9)
        made.append(save(fig, run_dir, "agg.png"))
    plt.close("all")
    return made


def plot_experiment(out, rows, runs):
    """Comparison PNGs across algorithms: box plots across seeds, FCT CDFs
    over every seed, the queue over time of one seed."""
    plt = pyplot()
    made = plot_boxes(out, rows)
    by_case = {}
    for r in runs:
        by_case.setdefault(r["case"], []).append(r)
    for case, rs in by_case.items():
        fig, ax = plt.subplots(figsize=(7, 3.4))
        any_ = False
        by_algo = {}
        for r in rs:
            by_algo.setdefault(r["algo"], []).extend(
                f["fct_s"] * 1000 for f in r.get("fcts", []) if f["fct_s"] is not None)
        for algo, fcts in by_algo.items():
            fcts = sorted(fcts)
            if fcts:
                any_ = True
                ax.step(fcts, [(i + 1) / len(fcts) for i in range(len(fcts))], where="post",
                        label=algo, lw=1)
        if any_:
            ax.set_xlabel("flow completion time (ms)")
            ax.set_ylabel("CDF")
            ax.legend(fontsize=7)
            ax.set_title("%s %s: FCT CDF, every seed" % (rs[0]["experiment"], case), fontsize=9)
            made.append(save(fig, out, "fct_cdf_%s.png" % case))
        fig, ax = plt.subplots(figsize=(7, 3.4))
        any_ = False
        for r in rs:
            if r["seed"] != rs[0]["seed"] or not r.get("queue_top"):
                continue
            any_ = True
            s = r["queue_top"]
            ax.plot([t for t, _ in s], [v / 1000 for _, v in s], lw=0.8,
                    label="%s (%s)" % (r["algo"], r["queue_port"]))
        if any_:
            ax.set_xlabel("time (s)")
            ax.set_ylabel("queue (kB)")
            ax.legend(fontsize=7)
            ax.set_title("%s %s: the most loaded port's queue (seed %s)"
                         % (rs[0]["experiment"], case, rs[0]["seed"]), fontsize=9)
            made.append(save(fig, out, "queue_%s.png" % case))
    plt.close("all")
    return made


def save(fig, d, name):
    path = os.path.join(d, name)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return path


def write_html(out, meta, rows, runs, pngs):
    e = html.escape
    agg_table = table(rows)
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>smartt-lab: %s</title>"
             "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}"
             "pre{background:#f4f4f4;padding:6px;overflow-x:auto}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
             "font-size:12px;text-align:right}.run{border-top:2px solid #888;margin-top:2em}"
             "</style></head><body>" % e(meta["experiment"])]
    parts.append("<h1>smartt-lab: %s</h1><p>%s</p>" % (e(meta["experiment"]),
                                                      e(meta.get("title", ""))))
    parts.append(claims_html(meta.get("claims") or []))
    parts.append("<h2>Command</h2><pre>%s</pre>" % e(meta["command"]))
    parts.append("<h2>Machine and versions</h2><pre>%s</pre>"
                 % e(json.dumps(meta["machine"], indent=1)))
    if meta.get("guest"):
        parts.append("<h2>Guest (mode %s)</h2><pre>%s</pre>"
                     % (e(meta.get("mode", "")), e(json.dumps(meta["guest"], indent=1))))
    if meta.get("papers"):
        parts.append("<h2>What the papers claim</h2><p>%s</p>" % e(meta["papers"]))
    if meta.get("interrupted"):
        parts.append("<p><b>Interrupted: the runs below are the ones that completed.</b></p>")
    if meta.get("warnings"):
        parts.append("<h2>Warnings</h2><pre>%s</pre>" % e("\n".join(meta["warnings"])))
    if meta.get("errors"):
        parts.append("<h2>Runs that failed</h2><pre>%s</pre>" % e("\n".join(meta["errors"])))
    parts.append("<h2>Summary (over seeds: one value when they agree, else min~max)</h2>"
                 "<pre>%s</pre>" % e(agg_table))
    if meta.get("regime"):
        parts.append("<h2>Regime</h2><pre>%s</pre>" % e(json.dumps(meta["regime"], indent=1)))
    parts.append("<p>Per-seed ratios to DCTCP and cubic with their confidence intervals: "
                 "<a href='ratios.csv'>ratios.csv</a>.</p>")
    for p in pngs:
        parts.append("<p><img src='%s'></p>" % e(os.path.relpath(p, out)))
    parts.append("<details><summary>Every run (%d)</summary>" % len(runs))
    for r in runs:
        parts.append("<div class='run'><h3 id='%s'>%s %s %s seed %s</h3>"
                     % (e(r["dir"]), e(r["case"]), e(r["algo"]), e(r["mode"]), r["seed"]))
        parts.append("<table><tr>%s</tr><tr>%s</tr></table>" % (
            "".join("<th>%s</th>" % e(k) for k in r["metrics"]),
            "".join("<td>%s</td>" % fmt(v) for v in r["metrics"].values())))
        if r.get("cc_config"):
            parts.append("<p>congestion control configuration: <code>%s</code></p>"
                         % e(" ".join("%s=%s" % kv for kv in r["cc_config"].items())))
        for p in r.get("pngs", []):
            parts.append("<img src='%s'>" % e(os.path.relpath(p, out)))
        parts.append("<p>raw files: <a href='%s/'>%s/</a></p></div>" % (e(r["dir"]), e(r["dir"])))
    parts.append("</details></body></html>")
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write("\n".join(parts))


def claims_html(cl):
    """Page one: the claims table (claims.csv's rows)."""
    e = html.escape
    if not cl:
        return "<h2>Claims</h2><p>No claim of the papers was tested by this run's algorithms.</p>"
    cols = ("claim", "paper", "statement", "algo", "baseline", "paper_value", "htsim_value",
            "lab_ratio_median", "lab_ci_low", "lab_ci_high", "verdict")
    colour = {"reproduced": "#d7f5d7", "not reproduced": "#f8d7d7", "inconclusive": "#eee"}
    out = ["<h2>Claims</h2><p>The verdict comes from the 95 %% confidence interval of the "
           "per-seed ratios against the claim's bound, never from the median; fewer than 3 "
           "seeds are inconclusive.</p><table><tr>%s</tr>"
           % "".join("<th>%s</th>" % c for c in cols)]
    for c in cl:
        cells = []
        for k in cols:
            v = c.get(k)
            v = "%.3f" % v if isinstance(v, float) else ("" if v is None else str(v))
            style = " style='background:%s'" % colour.get(v, "") if k == "verdict" else ""
            cells.append("<td%s>%s</td>" % (style, e(v)))
        out.append("<tr>%s</tr>" % "".join(cells))
    out.append("</table>")
    return "\n".join(out)


# The box plots' metrics: (metric, label)
BOXES = (("fct_max_over_ideal", "max FCT / ideal"), ("queue_mean_bdp", "mean queue / BDP"),
         ("queue_p99_bdp", "p99 queue / BDP"), ("retrans", "retransmissions"),
         ("goodput_after_mbps", "goodput after the faults, Mbit/s"), ("jain", "Jain's index"))


def plot_boxes(out, rows):
    """Per case and headline metric, one box per algorithm across seeds."""
    plt = pyplot()
    agg = aggregate(rows)
    made = []
    cases = []
    for (ex, c, a) in agg:
        if (ex, c) not in cases:
            cases.append((ex, c))
    for ex, c in cases:
        for metric, label in BOXES:
            data = [(a, m[metric]) for (e2, c2, a), m in agg.items()
                    if (e2, c2) == (ex, c) and m.get(metric)]
            if not data:
                continue
            fig, ax = plt.subplots(figsize=(7, 3.2))
            ax.boxplot([v for _, v in data], showmeans=False)
            ax.set_xticks(range(1, len(data) + 1))
            ax.set_xticklabels([a for a, _ in data], rotation=30, ha="right", fontsize=7)
            ax.set_ylabel(label)
            ax.set_title("%s %s: %s across seeds (n = %s)" % (
                ex, c, label, "/".join(str(len(v)) for _, v in data)), fontsize=9)
            made.append(save(fig, out, "box_%s_%s.png" % (c.replace("+", "_").replace("@", "_"),
                                                          metric)))
    plt.close("all")
    return made


def ratio_lines(rows):
    agg = aggregate(rows)
    out = []
    for (e, c, a), m in agg.items():
        for ref in ("dctcp", "cubic"):
            refk = [k for k in agg if k[:2] == (e, c) and k[2].split(":")[0].endswith(ref)]
            if not refk or (e, c, a) in refk:
                continue
            rm = agg[refk[0]]
            cells = []
            for k in ("fct_max_over_ideal", "queue_peak_bytes", "queue_p99_bytes", "retrans"):
                if m.get(k) and rm.get(k) and mean(rm[k]):
                    cells.append("%s %.2f" % (k, mean(m[k]) / mean(rm[k])))
            if cells:
                out.append("%s %s / %s: %s" % (c, a, refk[0][2], ", ".join(cells)))
    return out


def fmt(v):
    if isinstance(v, float):
        return "%.4g" % v
    return html.escape(str(v))
