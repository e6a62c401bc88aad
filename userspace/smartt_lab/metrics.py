# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's metrics: pure functions of a run's traces.

No I/O and no clock: every function takes plain lists and numbers (times in
seconds, sizes in bytes, rates in bit/s) and returns numbers or lists, so
that tests can feed them synthetic traces.
"""
import math


def percentile(values, p):
    """p-th percentile (0..100), linear interpolation between closest ranks
    (numpy's default); None for no values."""
    xs = sorted(values)
    if not xs:
        return None
    if not 0 <= p <= 100:
        raise ValueError("percentile %r outside 0..100" % p)
    k = (len(xs) - 1) * p / 100.0
    lo = int(math.floor(k))
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def jain(xs):
    """Jain's fairness index of non-negative allocations: 1 = equal shares,
    1/n = one takes everything.  None for no values; 1 when all are 0."""
    xs = list(xs)
    if not xs:
        return None
    if any(x < 0 for x in xs):
        raise ValueError("negative allocation")
    s, s2 = sum(xs), sum(x * x for x in xs)
    if s2 == 0:
        return 1.0
    return s * s / (len(xs) * s2)


def wire_bytes(size, mss, overhead):
    """Bytes a flow of `size` payload bytes puts on the wire: one frame of
    `overhead` header bytes per MSS-sized segment."""
    if size <= 0:
        return 0
    return size + -(-size // mss) * overhead


def ideal_fct(total_bytes, rate_bps, base_rtt_s, mss, overhead):
    """Completion time of `total_bytes` through one bottleneck of rate_bps
    with nothing else in the way: serialisation of its frames plus one base
    RTT (the handshake's half and the last packet's one-way trip)."""
    return wire_bytes(total_bytes, mss, overhead) * 8.0 / rate_bps + base_rtt_s


def fct_stats(fcts):
    """{p50, p99, max} of completion times (s); None values (flows that did
    not complete) are left out and counted as 'failed'."""
    done = [x for x in fcts if x is not None]
    return {"p50": percentile(done, 50), "p99": percentile(done, 99),
            "max": max(done) if done else None, "failed": len(fcts) - len(done)}


def rate_series(bins, bin_s, t_from, t_to):
    """Throughput (bit/s) per bin between t_from and t_to (s) from
    [(bin index, bytes)] where bin i covers [i*bin_s, (i+1)*bin_s)."""
    first, last = int(math.floor(t_from / bin_s)), int(math.ceil(t_to / bin_s))
    d = dict(bins)
    return [(i * bin_s, d.get(i, 0) * 8.0 / bin_s) for i in range(first, last)]


def jain_over_time(series, active):
    """Jain's index per bin over the flows active in that bin.
    series: {flow: [(t, rate)]} on a common time grid; active(flow, t) ->
    bool.  Returns [(t, jain)] for bins with at least two active flows."""
    if not series:
        return []
    grid = [t for t, _ in next(iter(series.values()))]
    out = []
    for i, t in enumerate(grid):
        xs = [s[i][1] for f, s in series.items() if active(f, t)]
        if len(xs) >= 2:
            out.append((t, jain(xs)))
    return out


def convergence_time(jain_series, t_from, threshold=0.9):
    """Time (s) from t_from until Jain's index reaches `threshold` and stays
    at or above it for the rest of the series; None if it never does."""
    after = [(t, j) for t, j in jain_series if t >= t_from]
    if not after:
        return None
    last_bad = None
    for t, j in after:
        if j < threshold:
            last_bad = t
    if last_bad is None:
        return 0.0
    later = [t for t, _ in after if t > last_bad]
    return later[0] - t_from if later else None


def smooth(series, n):
    """Moving average over n points of [(t, v)]."""
    out, acc = [], []
    for t, v in series:
        acc.append(v)
        if len(acc) > n:
            acc.pop(0)
        out.append((t, sum(acc) / len(acc)))
    return out


def recovery_time(agg, t_event, before_s, frac=0.9, hold_s=0.0):
    """Time (s) after t_event until the aggregate rate `agg` ([(t, rate)])
    is back at `frac` of its mean over [t_event - before_s, t_event) and
    stays there at least hold_s (or to the end); 0 if it never dropped
    below, None if it never recovers."""
    base = [v for t, v in agg if t_event - before_s <= t < t_event]
    if not base:
        return None
    level = frac * sum(base) / len(base)
    after = [(t, v) for t, v in agg if t >= t_event]
    if not after:
        return None
    dipped = False
    for i, (t, v) in enumerate(after):
        if v < level:
            dipped = True
            continue
        end = t + hold_s
        if all(w >= level for u, w in after[i:] if u <= end):
            return (t - t_event) if dipped else 0.0
    return None


def queue_stats(samples):
    """{peak, p99} of queue samples [(t, bytes)]; None without samples."""
    qs = [q for _, q in samples]
    return {"peak": max(qs) if qs else None, "p99": percentile(qs, 99)}


def queue_over_time(samples, interval_s, rate_bps, t_from, t_to):
    """The queue of one port on a regular grid of interval_s from t_from to
    t_to: [(t, bytes)], one value per window.

    samples: [(window start, bytes)], the port program's windows in which
    packets arrived (the largest occupancy an arrival saw).  A window
    without a sample had no arrival: the queue only drained, by rate_bps
    since the last window's value (the virtual queue drains at the link
    rate), down to 0.  Before the first sample the queue is 0."""
    if interval_s <= 0 or t_to <= t_from:
        return []
    by = {}
    for t, q in samples:
        by[int(math.floor(t / interval_s + 1e-9))] = q
    first, last = int(math.floor(t_from / interval_s + 1e-9)), int(math.ceil(t_to / interval_s - 1e-9))
    keys = sorted(k for k in by if k < first)
    q = 0.0
    qk = None
    if keys:
        qk = keys[-1]
        q = by[qk]
    out = []
    drain = rate_bps / 8.0 * interval_s
    for i in range(first, last):
        if i in by:
            q, qk = float(by[i]), i
            v = q
        elif qk is None:
            v = 0.0
        else:
            v = max(0.0, q - drain * (i - qk))
        out.append((i * interval_s, v))
    return out


def queue_time_stats(grid):
    """{mean, p99, peak} over time of queue_over_time()'s grid: the time
    average (every window weighs its length), the 99th percentile of the
    windows, the largest; None without windows."""
    qs = [v for _, v in grid]
    if not qs:
        return {"mean": None, "p99": None, "peak": None}
    return {"mean": sum(qs) / len(qs), "p99": percentile(qs, 99), "peak": max(qs)}


def slowdown_buckets(flows, edges):
    """FCT slowdown (fct / ideal) by size bucket.  flows: [(size, fct,
    ideal)]; edges: ascending upper bounds (bytes) of the buckets, the last
    bucket open.  Returns [(label, count, p50, p99)] of non-empty buckets;
    flows that did not complete (fct None) are left out."""
    buckets = [[] for _ in range(len(edges) + 1)]
    for size, fct, ideal in flows:
        if fct is None or not ideal:
            continue
        i = 0
        while i < len(edges) and size > edges[i]:
            i += 1
        buckets[i].append(fct / ideal)
    out = []
    lo = 0
    for i, b in enumerate(buckets):
        hi = edges[i] if i < len(edges) else None
        label = ("<=%s" % fmt_bytes(hi)) if i == 0 else (
            "%s-%s" % (fmt_bytes(lo), fmt_bytes(hi)) if hi else ">%s" % fmt_bytes(lo))
        if b:
            out.append((label, len(b), percentile(b, 50), percentile(b, 99)))
        lo = hi
    return out


def fmt_bytes(n):
    for unit, div in (("M", 10**6), ("k", 10**3)):
        if n >= div and n % div == 0:
            return "%d%s" % (n // div, unit)
    return str(n)


def sample_cdf(points, u):
    """Inverse of a piecewise-linear CDF [(value, cumulative probability)]
    (ascending, ending at 1) at u in [0, 1)."""
    if not points or points[-1][1] < 1.0 - 1e-9:
        raise ValueError("a CDF must end at probability 1")
    prev_v, prev_p = points[0][0], 0.0
    for v, p in points:
        if u < p:
            if p == prev_p:
                return v
            return prev_v + (v - prev_v) * (u - prev_p) / (p - prev_p)
        prev_v, prev_p = v, p
    return points[-1][0]
