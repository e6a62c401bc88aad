# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's statistics over seeds: per-seed ratios of an algorithm to a
baseline, their median with a bootstrap confidence interval, and the
verdict of a claim from that interval.

Paired by seed: seed s of every algorithm runs the same traffic (the same
flows, sizes, start times, source ports), so the ratio algo/baseline of
seed s compares like with like; the statistic is the median of these
per-seed ratios, its 95 % confidence interval the percentile bootstrap
(resampling the seeds with replacement, BOOT resamples, a fixed generator
so that the same data give the same interval).  Pure: no I/O.
"""
import hashlib
import random

from . import metrics

BOOT = 4000
LEVEL = 0.95
# The fewest paired seeds a verdict other than "inconclusive" needs: one or
# two seeds give no interval worth the name.
MIN_N = 3
VERDICTS = ("reproduced", "not reproduced", "inconclusive")
COLUMNS = ("experiment", "case", "metric", "algo", "baseline", "n", "ratio_median", "ci_low",
           "ci_high")


def median(xs):
    return metrics.percentile(xs, 50)


def bootstrap_ci(xs, stat=median, boot=BOOT, level=LEVEL, seed=0):
    """(low, high): the percentile bootstrap interval of stat(xs) at level;
    None for no values.  seed fixes the resampling."""
    xs = list(xs)
    if not xs:
        return None
    if len(xs) == 1:
        return (xs[0], xs[0])
    rng = random.Random(seed)
    n = len(xs)
    st = sorted(stat([xs[rng.randrange(n)] for _ in range(n)]) for _ in range(boot))
    a = (1.0 - level) / 2.0
    return (metrics.percentile(st, 100 * a), metrics.percentile(st, 100 * (1 - a)))


def key_seed(*parts):
    """A stable resampling seed per (experiment, case, metric, ...)."""
    h = hashlib.sha256("\0".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "little")


def paired_ratios(a, b):
    """Per-seed ratios a[s]/b[s] over the seeds both have, b[s] != 0.
    a, b: {seed: value}."""
    out = []
    for s in sorted(set(a) & set(b)):
        if b[s] is None or a[s] is None or b[s] == 0:
            continue
        out.append(a[s] / b[s])
    return out


def ratio_row(xs, *key):
    """{n, ratio_median, ci_low, ci_high} of per-seed ratios xs."""
    if not xs:
        return {"n": 0, "ratio_median": None, "ci_low": None, "ci_high": None}
    lo, hi = bootstrap_ci(xs, seed=key_seed(*key))
    return {"n": len(xs), "ratio_median": median(xs), "ci_low": lo, "ci_high": hi}


def verdict(ci_low, ci_high, direction, bound, n, min_n=MIN_N):
    """A claim's verdict from the confidence interval of its ratio.

    direction "<": the claim is ratio < bound; ">": ratio > bound.
    reproduced: the whole interval is on the claimed side; not reproduced:
    the whole interval is on the other side (bound included); otherwise,
    or with fewer than min_n seeds, or no interval, inconclusive."""
    if direction not in ("<", ">"):
        raise ValueError("direction %r: want < or >" % direction)
    if n is None or n < min_n or ci_low is None or ci_high is None:
        return "inconclusive"
    if direction == "<":
        if ci_high < bound:
            return "reproduced"
        if ci_low >= bound:
            return "not reproduced"
    else:
        if ci_low > bound:
            return "reproduced"
        if ci_high <= bound:
            return "not reproduced"
    return "inconclusive"


# Baselines: every algorithm against the DCTCP and cubic of the same case;
# the transport's path selectors also against oblivious and ECMP.
CC_BASELINES = ("dctcp", "cubic")
LB_BASELINES = ("oblivious", "ecmp")
# the metrics ratios.csv carries (those a run has)
RATIO_METRICS = ("fct_max_over_ideal", "fct_p99_ms", "fct_p50_ms", "slowdown_p99",
                 "queue_mean_bytes", "queue_p99_bytes", "queue_peak_bytes", "retrans", "drops",
                 "goodput_mbps", "goodput_after_mbps", "jain", "recovery_rtts")


def baseline_of(algo, algos):
    """The baselines (labels present in algos) algo is compared with."""
    out = []
    for b in CC_BASELINES:
        for x in algos:
            name = x.split(":")[0]
            if x != algo and (name == b or name == "bpf_" + b):
                out.append(x)
    if algo.startswith("transport:"):
        for b in LB_BASELINES:
            for x in algos:
                if x != algo and x.startswith("transport:%s:" % b):
                    out.append(x)
    seen = []
    for x in out:
        if x not in seen:
            seen.append(x)
    return seen


def by_seed(rows):
    """{(experiment, case, algo, metric): {seed: value}} from summary rows.
    The simulator's rows (where=htsim) are cases of their own, CASE@htsim:
    they pair with each other, never with an emulated run."""
    out = {}
    for r in rows:
        try:
            v = float(r["value"])
            s = int(r["seed"])
        except (TypeError, ValueError):
            continue
        c = r.get("case", "")
        if r.get("where") == "htsim":
            c += "@htsim"
        out.setdefault((r["experiment"], c, r["algo"], r["metric"]), {})[s] = v
    return out


def ratios(rows, metrics_=RATIO_METRICS):
    """ratios.csv's rows (dicts of COLUMNS) from summary rows: one per
    (experiment, case, metric, algo, baseline)."""
    bs = by_seed(rows)
    cases = []
    algos = {}
    for (e, c, a, m) in bs:
        if (e, c) not in cases:
            cases.append((e, c))
        lst = algos.setdefault((e, c), [])
        if a not in lst:
            lst.append(a)
    out = []
    for e, c in cases:
        al = algos[(e, c)]
        for m in metrics_:
            for a in al:
                va = bs.get((e, c, a, m))
                if not va:
                    continue
                for b in baseline_of(a, al):
                    vb = bs.get((e, c, b, m))
                    if not vb:
                        continue
                    xs = paired_ratios(va, vb)
                    row = {"experiment": e, "case": c, "metric": m, "algo": a, "baseline": b}
                    row.update(ratio_row(xs, e, c, m, a, b))
                    out.append(row)
    return out


def values_row(vals, *key):
    """ratio_row() of the values themselves (a metric that is already a
    ratio: FCT over the ideal, queue over the BDP)."""
    return ratio_row([v for _, v in sorted(vals.items())], *key)
