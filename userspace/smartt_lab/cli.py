# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's command line: run, plot, list.  See smartt-lab(1)."""
import argparse
import json
import os
import platform
import shlex
import signal
import sys
import time

from . import analysis, config, report
from .host import HostLab, LabError, algo_label, kernel_series, parse_algo, TOP

PROG = "smartt-lab"


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line (exit status 2)."""

    def error(self, message):
        raise UsageError(message)


def read_version():
    try:
        with open(os.path.join(TOP, "VERSION")) as f:
            return f.read().strip()
    except OSError:
        return "unknown"


def build_parser():
    ap = Parser(prog=PROG, description="The papers' experiments on real kernels: "
                "run them, plot them, list them.")
    ap.add_argument("--version", action="version", version="%s %s" % (PROG, read_version()))
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND", parser_class=Parser)
    r = sub.add_parser("run", help="run an experiment, write DIR/summary.csv, PNGs, "
                       "report.html")
    r.add_argument("experiment", metavar="EXPERIMENT", help="a name from 'list' or a file")
    r.add_argument("--where", choices=("host", "guest"), default="host",
                   help="host: this kernel, BPF congestion controls (default); guest: a QEMU "
                   "guest with smartt.ko")
    r.add_argument("--kernel", choices=("6.1", "6.12"), default="6.12",
                   help="guest kernel (default 6.12)")
    r.add_argument("--timewarp", action="store_true",
                   help="guest time by instruction count (QEMU -icount shift=0,sleep=off)")
    r.add_argument("--algos", metavar="A,B,...", help="algorithms (default: the experiment's; "
                   "smartt profiles as bpf_smartt:nscc)")
    r.add_argument("--seeds", metavar="N", type=int, help="seeds per case and algorithm")
    r.add_argument("--quick", action="store_true", help="the experiment's smaller, shorter "
                   "version")
    r.add_argument("--cases", metavar="C,D,...", help="only these cases")
    r.add_argument("--out", metavar="DIR", required=True, help="output directory")
    p = sub.add_parser("plot", help="redraw the PNGs and report.html of a run directory")
    p.add_argument("--out", metavar="DIR", required=True)
    lst = sub.add_parser("list", help="the experiments")
    lst.add_argument("--json", action="store_true")
    return ap


def cmd_list(as_json):
    exps = []
    for path in config.list_experiments():
        try:
            e = config.load(path)
        except config.ConfigError as err:
            raise LabError(str(err))
        exps.append({"name": e["name"], "title": e.get("title", ""),
                     "where": sorted(k for k, v in e["algos"].items() if v),
                     "cases": e["case_names"], "file": path})
    if as_json:
        print(json.dumps(exps, indent=1))
    else:
        for e in exps:
            print("%-12s %-12s %s" % (e["name"], ",".join(e["where"]), e["title"]))
    return 0


class Progress:
    def __init__(self, total):
        self.total, self.done, self.t0 = total, 0, time.time()
        self.tty = sys.stderr.isatty()

    def show(self, what):
        el = time.time() - self.t0
        eta = "" if not self.done else " ETA %s" % hms(el / self.done * (self.total - self.done))
        line = "[%d/%d %s%s] %s" % (self.done + 1, self.total, hms(el), eta, what)
        if self.tty:
            sys.stderr.write("\r\033[K" + line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def end(self):
        if self.tty:
            sys.stderr.write("\n")


def hms(s):
    s = int(s)
    return "%dm%02ds" % (s // 60, s % 60) if s >= 60 else "%ds" % s


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"kernel": platform.release(), "cpus": os.cpu_count(), "cpu": cpu,
            "load": os.getloadavg(), "python": platform.python_version(),
            "smartt": read_version(), "host": platform.node()}


def cmd_run(a, argv):
    try:
        path = config.find(a.experiment)
        exp = config.load(path, a.quick)
    except config.ConfigError as e:
        raise UsageError(str(e))
    if a.where == "guest":
        raise LabError("--where guest: the lab does not run experiments in guests yet; "
                       "scripts/vm-run.sh (SMARTT_VM_TIMEWARP=1) runs commands in one")
    if a.timewarp:
        raise UsageError("--timewarp: only with --where guest")
    algos = a.algos.split(",") if a.algos else exp["algos"].get(a.where) or []
    if not algos:
        raise UsageError("experiment %s has no algorithms for --where %s" % (exp["name"], a.where))
    for x in algos:
        try:
            parse_algo(x, a.where)
        except config.ConfigError as e:
            raise UsageError("--algos: %s" % e)
    seeds = a.seeds if a.seeds is not None else (1 if a.quick else exp.get("seeds", 1))
    if seeds < 1:
        raise UsageError("--seeds: want 1 or more")
    cases = exp["case_names"]
    if a.cases:
        cases = a.cases.split(",")
        bad = [c for c in cases if c not in exp["cases"]]
        if bad:
            raise UsageError("--cases: unknown %s: want some of %s"
                             % (",".join(bad), ",".join(exp["cases"])))
        exp["case_names"] = cases
    out = a.out
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    plan = [(c, al, s) for c in cases for al in algos for s in range(1, seeds + 1)]
    sum_path = os.path.join(out, "summary.csv")
    with open(sum_path, "w") as f:
        f.write(",".join(report.COLUMNS) + "\n")
    meta = {"experiment": exp["name"], "title": exp.get("title", ""),
            "papers": exp.get("papers", ""),
            "command": " ".join(shlex.quote(x) for x in ["userspace/smartt-lab"] + argv),
            "machine": machine(), "where": a.where, "mode": "native", "quick": a.quick,
            "cases": cases, "algos": algos, "seeds": seeds, "experiment_file": path,
            "errors": [], "interrupted": False}
    log = lambda msg: print("%s: %s" % (PROG, msg), file=sys.stderr)
    lab = HostLab(exp, algos, out, log)
    runs = []
    prog = Progress(len(plan))
    interrupted = False
    old = signal.signal(signal.SIGTERM, lambda *x: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        lab.setup()
        meta["fabric"] = lab.info()
        meta["machine"]["backend"] = lab.state["backend"]
        for alg, why in lab.unavailable.items():
            meta["errors"].append("%s: %s" % (alg, why))
            log("%s unavailable: %s (its runs are skipped)" % (alg, why))
        base_rtt_s = lab.state["leaf_rtt_ns" if not exp["fabric"].get("spines") else
                               "base_rtt_ns"] / 1e9
        for case, algo, seed in plan:
            name, profile = parse_algo(algo, a.where)
            label = algo_label(name, profile)
            prog.show("%s %s %s seed %d" % (exp["name"], case, label, seed))
            if name in lab.unavailable:
                prog.done += 1
                continue
            rd = "runs/%s-%s-s%d" % (case, label.replace(":", "-"), seed)
            rdir = os.path.join(out, rd)
            os.makedirs(rdir, exist_ok=True)
            try:
                res = lab.run_one(case, algo, seed, rdir)
            except LabError as e:
                meta["errors"].append("%s %s seed %d: %s" % (case, label, seed, e))
                log("%s %s seed %d failed: %s" % (case, label, seed, e))
                prog.done += 1
                continue
            an = analysis.analyse(exp, case, res, base_rtt_s)
            rec = {"experiment": exp["name"], "case": case, "algo": label, "seed": seed,
                   "mode": lab.mode, "dir": rd, "metrics": an["metrics"],
                   "cc_config": res["cc_config"],
                   "fcts": [{"id": f["id"], "size": f["size"], "fct_s": f["fct_s"]}
                            for f in res["driver"]["flows"]],
                   "queue_port": an["series"].get("queue_top"),
                   "queue_top": an["series"]["queue"].get(an["series"].get("queue_top"), []),
                   "series": an["series"]}
            with open(os.path.join(rdir, "result.json"), "w") as f:
                json.dump(rec, f)
            with open(sum_path, "a") as f:
                for k, v in an["metrics"].items():
                    f.write("%s,%s,%s,%s,%s,%d,%s,%s,%s\n"
                            % (exp["name"], a.where, lab.mode, kernel_series(), label, seed, k,
                               ("%.6g" % v) if isinstance(v, float) else v, case))
            runs.append(rec)
            prog.done += 1
    except KeyboardInterrupt:
        interrupted = True
        meta["interrupted"] = True
        prog.end()
        log("interrupted: cleaning up; %d of %d runs completed" % (len(runs), len(plan)))
    finally:
        prog.end()
        signal.signal(signal.SIGTERM, old)
        try:
            for e in lab.teardown():
                meta["errors"].append("cleanup: %s" % e)
                log("cleanup: %s" % e)
        except KeyboardInterrupt:
            pass
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
    finish(out, meta, runs)
    rows = report.read_summary(sum_path)
    print("%s %s (%s, %s, %s): %d runs; %s" % (PROG, exp["name"], a.where, lab.mode,
                                              platform.release(), len(runs),
                                              os.path.join(out, "report.html")))
    print(report.table(rows))
    for line in report.ranking(rows):
        print("  " + line)
    if interrupted:
        return 130
    return 1 if meta["errors"] and not runs else 0


def finish(out, meta, runs):
    """PNGs and report.html from what is there."""
    rows = report.read_summary(os.path.join(out, "summary.csv"))
    exp = config.load(meta["experiment_file"], meta.get("quick"))
    for r in runs:
        r["pngs"] = report.plot_run(os.path.join(out, r["dir"]), "%s %s %s s%d" % (
            r["experiment"], r["case"], r["algo"], r["seed"]), r["series"], exp)
    pngs = report.plot_experiment(out, rows, runs)
    report.write_html(out, meta, rows, runs, pngs)


def cmd_plot(out):
    try:
        with open(os.path.join(out, "meta.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        raise LabError("%s: no meta.json: not a smartt-lab run directory" % out)
    runs = []
    for d in sorted(os.listdir(os.path.join(out, "runs"))):
        p = os.path.join(out, "runs", d, "result.json")
        if os.path.exists(p):
            with open(p) as f:
                runs.append(json.load(f))
    finish(out, meta, runs)
    print(os.path.join(out, "report.html"))
    return 0


def main(argv):
    try:
        a = build_parser().parse_args(argv)
        if a.cmd is None:
            raise UsageError("want a command: run, plot or list (smartt-lab --help)")
        if a.cmd == "list":
            return cmd_list(a.json)
        if a.cmd == "plot":
            return cmd_plot(a.out)
        return cmd_run(a, argv)
    except UsageError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    except (LabError, config.ConfigError) as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("%s: interrupted" % PROG, file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away: end quietly, as cat does
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return 0
    except OSError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
