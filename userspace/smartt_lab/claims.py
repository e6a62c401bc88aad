# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's claims: what the papers say an algorithm does, tested
against a run's seeds.

An experiment file lists its claims once ("claims": [...]), each

  id          short name (claims.csv's claim is ID/CASE)
  paper       the paper (a file name of the papers' extractions)
  statement   the claim in words, with the bound the lab tests
  metric      a summary.csv metric
  algo        the algorithm the claim is about (bpf_ prefixes and the
              transport's :CC suffix match: "smartt:nscc" is bpf_smartt:nscc
              on the host, smartt:nscc in a guest; "transport:reps" any
              transport:reps:CC)
  baseline    an algorithm (matched the same way), or "ideal" / "bdp" /
              "value": the metric itself (FCT over the ideal, a queue over
              the BDP, an index) is the ratio
  direction   "<" or ">": the claim holds when the ratio is below / above
  bound       the bound (1 for "better than the baseline")
  paper_value what the paper reports, in words (empty where it gives no
              number)
  htsim       where the UEC simulator has the figure: {"metric": M, "match":
              {column: value}, "scale": S} for one row of the reference
              (divided by S, e.g. the simulator's BDP), or {"num":
              {...}, "den": {...}} for the ratio of two; "{senders}" and
              the case's other traffic keys are filled in
  cases       the cases it applies to (default: every case)

The verdict comes from the confidence interval of the per-seed ratios
(stats.verdict): reproduced, not reproduced, inconclusive.
"""
import csv
import os

from . import stats

REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference",
                   "htsim-reference.csv")
COLUMNS = ("claim", "paper", "statement", "metric", "algo", "baseline", "paper_value",
           "htsim_value", "lab_ratio_median", "lab_ci_low", "lab_ci_high", "verdict")
KEYS = ("id", "paper", "statement", "metric", "algo", "baseline", "direction", "bound",
        "paper_value", "htsim", "cases")
SELF = ("ideal", "bdp", "value")


def validate(claims, where="claims"):
    from . import config
    if not isinstance(claims, list):
        raise config.ConfigError("%s: want a list" % where)
    ids = set()
    for i, c in enumerate(claims):
        w = "%s[%d]" % (where, i)
        if not isinstance(c, dict):
            raise config.ConfigError("%s: want an object" % w)
        for k in c:
            if k not in KEYS:
                raise config.ConfigError("%s: unknown key %r: want one of %s"
                                         % (w, k, ", ".join(KEYS)))
        for k in ("id", "paper", "statement", "metric", "algo", "baseline", "direction",
                  "bound"):
            if k not in c:
                raise config.ConfigError("%s: missing %r" % (w, k))
        if c["direction"] not in ("<", ">"):
            raise config.ConfigError("%s: direction: want < or >" % w)
        if c["id"] in ids:
            raise config.ConfigError("%s: id %r twice" % (w, c["id"]))
        ids.add(c["id"])
    return claims


def matches(label, pattern):
    """Does a run's algorithm label match a claim's algorithm name?"""
    name = label[4:] if label.startswith("bpf_") else label
    return name == pattern or name.startswith(pattern + ":")


def load_reference(path=REF):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def fill(d, traffic):
    return {k: str(v).format(**traffic) for k, v in d.items()}


def ref_value(ref, sel, traffic):
    """The reference's value of a selector ({"metric", "match"}), or the
    ratio num/den; None where no row matches."""
    if not sel:
        return None
    if "num" in sel:
        a, b = ref_value(ref, sel["num"], traffic), ref_value(ref, sel["den"], traffic)
        return a / b if a is not None and b else None
    want = fill(sel.get("match", {}), traffic)
    rows = [r for r in ref if r["metric"] == sel["metric"]
            and all(r.get(k, "") == v for k, v in want.items())]
    if len(rows) != 1:
        return None
    try:
        return float(rows[0]["value"]) / float(sel.get("scale", 1))
    except ValueError:
        return None


def evaluate(exp, rows, traffic_of, ref=None):
    """claims.csv's rows (dicts of COLUMNS) of experiment exp from its
    summary rows; traffic_of(case) gives the case's traffic keys.  Claims
    whose algorithm or baseline did not run are left out."""
    if ref is None:
        ref = load_reference()
    bs = stats.by_seed(rows)
    labels = {}
    for (e, c, a, m) in bs:
        if e == exp["name"]:
            lst = labels.setdefault(c, [])
            if a not in lst:
                lst.append(a)
    out = []
    for cl in exp.get("claims") or []:
        for case in labels:
            base_case = case.split("@")[0].split("+")[0]
            if cl.get("cases") and case not in cl["cases"] and base_case not in cl["cases"]:
                continue
            tr = dict(traffic_of(base_case))
            tr.setdefault("senders", "")
            for a in [x for x in labels[case] if matches(x, cl["algo"])]:
                va = bs.get((exp["name"], case, a, cl["metric"]))
                if not va:
                    continue
                if cl["baseline"] in SELF:
                    pairs = [(cl["baseline"], stats.values_row(
                        va, exp["name"], case, cl["metric"], a, cl["baseline"]))]
                else:
                    pairs = []
                    for b in [x for x in labels[case] if matches(x, cl["baseline"]) and x != a]:
                        vb = bs.get((exp["name"], case, b, cl["metric"]))
                        if vb:
                            pairs.append((b, stats.ratio_row(
                                stats.paired_ratios(va, vb), exp["name"], case,
                                cl["metric"], a, b)))
                for b, r in pairs:
                    hv = ref_value(ref, cl.get("htsim"), tr)
                    out.append({
                        "claim": "%s/%s" % (cl["id"], case), "paper": cl["paper"],
                        "statement": cl["statement"], "metric": cl["metric"], "algo": a,
                        "baseline": b, "paper_value": cl.get("paper_value", ""),
                        "htsim_value": "" if hv is None else "%.3f" % hv,
                        "lab_ratio_median": r["ratio_median"], "lab_ci_low": r["ci_low"],
                        "lab_ci_high": r["ci_high"], "n": r["n"],
                        "verdict": stats.verdict(r["ci_low"], r["ci_high"], cl["direction"],
                                                 float(cl["bound"]), r["n"]),
                        "direction": cl["direction"], "bound": cl["bound"],
                        "experiment": exp["name"], "case": case})
    return out


def self_ratio_rows(claim_rows):
    """ratios.csv rows for the claims whose baseline is the metric itself
    (ideal, bdp, value), so that every claim's figures are in ratios.csv."""
    out = []
    for c in claim_rows:
        if c["baseline"] in SELF:
            out.append({"experiment": c["experiment"], "case": c["case"],
                        "metric": c["metric"], "algo": c["algo"], "baseline": c["baseline"],
                        "n": c["n"], "ratio_median": c["lab_ratio_median"],
                        "ci_low": c["lab_ci_low"], "ci_high": c["lab_ci_high"]})
    return out


def fmt(v):
    if v is None or v == "":
        return ""
    if isinstance(v, float):
        return "%.4f" % v
    return str(v)


def write_csv(path, columns, rows):
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow([fmt(r.get(c)) for c in columns])
    os.replace(path + ".tmp", path)
