# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's command line: run, plot, list.  See smartt-lab(1)."""
import argparse
import json
import os
import platform
import shlex
import signal
import subprocess
import sys
import time

import copy

from . import analysis, claims, config, htsim, regime, report, stats, transport
from . import guest as guest_mod
from .host import (HostLab, LabError, algo_label, delay_available, kernel_series, parse_algo,
                   TOP)

PROG = "smartt-lab"
# how late the traffic driver may begin its plan, s
LATE_S = 0.05


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
                   "smartt profiles as bpf_smartt:nscc; in guests the transport as "
                   "transport:LB[:CC], e.g. transport:reps:strack)")
    r.add_argument("--seeds", metavar="N", type=int, help="seeds per case and algorithm "
                   "(default: the experiment's, 10, or 3 with --quick)")
    r.add_argument("--regime", metavar="R[,R]", help="papers (the default where the "
                   "experiment has a regime: BDP >= 16 MTUs, 1 BDP buffer, trimming), droptail "
                   "(the same, trimming off, the drop-tail buffer) or legacy (the fabric as "
                   "written); several run side by side")
    r.add_argument("--htsim", metavar="PATH", help="also run every case in this htsim_uec "
                   "(the UEC simulator): its rows in summary.csv with where=htsim")
    r.add_argument("--quick", action="store_true", help="the experiment's smaller, shorter "
                   "version")
    r.add_argument("--cases", metavar="C,D,...", help="only these cases")
    r.add_argument("--out", metavar="DIR", required=True, help="output directory")
    # inside the guest: the staged module's directory (set by the host)
    r.add_argument("--guest-moddir", metavar="DIR", help=argparse.SUPPRESS)
    p = sub.add_parser("plot", help="redraw the PNGs and report.html of a run directory")
    p.add_argument("--out", metavar="DIR", required=True)
    x = sub.add_parser("export-htsim", help="write an experiment's scenario in the UEC "
                       "simulator's formats: connection matrix, topology, htsim.cmd")
    x.add_argument("experiment", metavar="EXPERIMENT")
    x.add_argument("--case", metavar="C", help="one case (default: every case)")
    x.add_argument("--quick", action="store_true")
    x.add_argument("--seed", type=int, default=1)
    x.add_argument("--regime", choices=("papers", "droptail"), default="papers")
    x.add_argument("--out", metavar="DIR", required=True)
    im = sub.add_parser("import-htsim", help="an htsim_uec output as summary.csv rows")
    im.add_argument("output", metavar="OUT.txt")
    im.add_argument("--cm", metavar="FILE", help="the run's connection matrix (default: the "
                    "-tm file named by an htsim.cmd beside OUT.txt, else every flow from 0)")
    im.add_argument("--experiment", default="htsim")
    im.add_argument("--case", default="all")
    im.add_argument("--algo", default="nscc")
    im.add_argument("--seed", type=int, default=1)
    tb = sub.add_parser("tables", help="regenerate Documentation/lab.rst's result tables "
                        "from the committed CSVs (Documentation/lab-results/*/)")
    tb.add_argument("--doc", metavar="RST", default=os.path.join(TOP, "Documentation",
                                                                 "lab.rst"))
    tb.add_argument("--results", metavar="DIR", default=os.path.join(
        TOP, "Documentation", "lab-results"))
    tb.add_argument("--check", action="store_true", help="exit 1 if the file is not "
                    "what the CSVs give (nothing written)")
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
    """[done/total elapsed ETA] what, on one line of a terminal (one line
    each otherwise).  marker: machine-readable lines instead (the guest's,
    which the host turns into its own)."""

    def __init__(self, total, marker=None):
        self.total, self.done, self.t0 = total, 0, time.time()
        self.tty = sys.stderr.isatty() and not marker
        self.marker = marker
        self.shown = False

    def show(self, what, last=False):
        if self.marker:
            sys.stderr.write("%s %d %d %s\n" % (self.marker, self.done, self.total, what))
            sys.stderr.flush()
            return
        if last:
            return
        el = time.time() - self.t0
        eta = "" if not self.done else " ETA %s" % hms(el / self.done * (self.total - self.done))
        line = "[%d/%d %s%s] %s" % (min(self.done + 1, self.total), self.total, hms(el), eta,
                                    what)
        if self.tty:
            sys.stderr.write("\r\033[K" + line)
            self.shown = True
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def clear(self):
        """Before another message: the progress line is redrawn by the next show()."""
        if self.tty and self.shown:
            sys.stderr.write("\r\033[K")
            self.shown = False

    def end(self):
        if self.tty and self.shown:
            sys.stderr.write("\n")
            self.shown = False


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


def summary_lines(rec, where, mode, kernel):
    """The summary.csv rows of one run."""
    return ["%s,%s,%s,%s,%s,%d,%s,%s,%s\n"
            % (rec["experiment"], where, mode, kernel, rec["algo"], rec["seed"], k,
               ("%.6g" % v) if isinstance(v, float) else v, rec["case"])
            for k, v in rec["metrics"].items()]


def run_dir(case, label, seed):
    return "runs/%s-%s-s%d" % (case, label.replace(":", "-"), seed)


def write_json(path, obj, **kw):
    """Whole or not at all: a guest stopped halfway leaves no truncated file."""
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f, **kw)
    os.replace(path + ".tmp", path)


def cmd_run(a, argv):
    guest = a.where == "guest"
    try:
        path = config.find(a.experiment)
        exp = config.load(path, a.quick, guest=guest)
    except config.ConfigError as e:
        raise UsageError(str(e))
    if a.timewarp and not guest:
        raise UsageError("--timewarp: only with --where guest")
    if a.guest_moddir and not guest:
        raise UsageError("--guest-moddir: only with --where guest")
    algos = a.algos.split(",") if a.algos else exp["algos"].get(a.where) or []
    if not algos:
        raise UsageError("experiment %s has no algorithms for --where %s" % (exp["name"], a.where))
    for x in algos:
        try:
            parse_algo(x, a.where)
        except config.ConfigError as e:
            raise UsageError("--algos: %s" % e)
    seeds = a.seeds if a.seeds is not None else (
        config.SEEDS_QUICK if a.quick else exp.get("seeds", config.SEEDS_FULL))
    if seeds < 1:
        raise UsageError("--seeds: want 1 or more")
    regimes = (a.regime or ("papers" if exp.get("regime") else "legacy")).split(",")
    for r in regimes:
        if r not in regime.NAMES:
            raise UsageError("--regime %s: want some of %s" % (r, ",".join(regime.NAMES)))
    if len(set(regimes)) != len(regimes):
        raise UsageError("--regime: a regime twice")
    if guest and len(regimes) > 1:
        raise UsageError("--regime: one regime per guest run")
    try:
        regs = []
        for r in regimes:
            e = copy.deepcopy(exp)
            g = regime.apply(e, a.where, r, a.timewarp)
            e["derived"]["bdp"] = g["bdp"]
            regs.append((r, e))
    except config.ConfigError as e:
        raise UsageError(str(e))
    if a.htsim and not (os.path.isfile(a.htsim) and os.access(a.htsim, os.X_OK)):
        raise LabError("--htsim %s: not an executable file (a built htsim_uec)" % a.htsim)
    if (not guest and os.geteuid() == 0 and any(e["regime_used"]["delay_ns"] for _, e in regs)
            and not delay_available()):
        r, e = [(r, e) for r, e in regs if e["regime_used"]["delay_ns"]][0]
        raise LabError("--regime %s at --where host needs %d us of propagation delay per link "
                       "(BDP %.1f MTUs at %d Mbit/s), and the fabric cannot delay packets here "
                       "(no sch_fq, and no delay line: 'make tools' builds smartt-delay, "
                       "'make deps' installs iptables); without a delay the BDP is about 2 "
                       "MTUs at any rate.  Run it in a guest (--where guest), or the earlier "
                       "regime (--regime legacy)"
                       % (r, e["regime_used"]["delay_ns"] // 1000, e["regime_used"]["bdp_mtus"],
                          e["regime_used"]["rate_bps"] // 10**6))
    cases = exp["case_names"]
    if a.cases:
        cases = a.cases.split(",")
        bad = [c for c in cases if c not in exp["cases"]]
        if bad:
            raise UsageError("--cases: unknown %s: want some of %s"
                             % (",".join(bad), ",".join(exp["cases"])))
        exp["case_names"] = cases
    out = os.path.abspath(a.out)
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    suffix = {r: ("" if i == 0 else "+" + r) for i, (r, _) in enumerate(regs)}
    plan = [(c, al, s) for c in cases for al in algos for s in range(1, seeds + 1)]
    meta = {"experiment": exp["name"], "title": exp.get("title", ""),
            "papers": exp.get("papers", ""),
            "command": " ".join(shlex.quote(x) for x in ["userspace/smartt-lab"] + argv),
            "machine": machine(), "where": a.where, "mode": "native", "quick": a.quick,
            "cases": cases, "algos": algos, "seeds": seeds, "experiment_file": path,
            "regimes": regimes, "timewarp": a.timewarp,
            "regime": {r: e["regime_used"] for r, e in regs},
            "errors": [], "warnings": [], "interrupted": False}
    log = lambda msg: print("%s: %s" % (PROG, msg), file=sys.stderr)
    if guest and not a.guest_moddir:
        write_regime(out, regs, cases, suffix, a.where, "timewarp" if a.timewarp else "tcg",
                     a.timewarp)
        return run_guest(a, argv, regs[0][1], plan, out, meta, log)
    in_guest = bool(a.guest_moddir)
    sum_path = os.path.join(out, "summary.csv")
    if not in_guest:
        with open(sum_path, "w") as f:
            f.write(",".join(report.COLUMNS) + "\n")
    runs = []
    interrupted = False
    for r, e in regs:
        interrupted = run_regime(a, e, algos, plan, out, meta, log, in_guest, suffix[r],
                                 runs)
        if interrupted:
            break
    if in_guest:
        # the host writes summary.csv, the plots and the report
        return 130 if interrupted else (1 if meta["errors"] and not runs else 0)
    write_regime(out, regs, cases, suffix, a.where, meta["mode"], a.timewarp)
    if a.htsim and not interrupted:
        run_htsim(a.htsim, regs, cases, algos, seeds, out, meta, log)
    finish(out, meta, runs)
    return print_result(out, meta, runs, platform.release(), interrupted)


def run_regime(a, exp, algos, plan, out, meta, log, in_guest, suffix, runs):
    """The plan's runs in one regime (one fabric); True if interrupted."""
    if in_guest:
        mode = "timewarp" if a.timewarp else "tcg"
        lab = guest_mod.GuestLab(exp, algos, out, log, a.guest_moddir, mode)
        meta["mode"] = mode
    else:
        lab = HostLab(exp, algos, out, log)
    sum_path = os.path.join(out, "summary.csv")
    prog = Progress(len(plan), marker=guest_mod.PROGRESS if in_guest else None)
    interrupted = False
    old = signal.signal(signal.SIGTERM, lambda *x: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        lab.setup()
        meta["fabric"] = lab.info()
        meta.setdefault("fabrics", {})[exp["regime_used"]["name"]] = lab.info()
        meta["machine"]["backend"] = lab.state["backend"]
        for alg, why in lab.unavailable.items():
            meta["errors"].append("%s: %s" % (alg, why))
            log("%s unavailable: %s (its runs are skipped)" % (alg, why))
        base_rtt_s = lab.state["leaf_rtt_ns" if not exp["fabric"].get("spines") else
                               "base_rtt_ns"] / 1e9
        for case, algo, seed in plan:
            name, profile = parse_algo(algo, a.where)
            label = algo_label(name, profile)
            prog.show("%s %s%s %s seed %d" % (exp["name"], case, suffix, label, seed))
            if name in lab.unavailable:
                prog.done += 1
                continue
            rd = run_dir(case + suffix, label, seed)
            rdir = os.path.join(out, rd)
            os.makedirs(rdir, exist_ok=True)
            try:
                res = lab.run_one(case, algo, seed, rdir)
            except LabError as e:
                meta["errors"].append("%s%s %s seed %d: %s" % (case, suffix, label, seed, e))
                log("%s%s %s seed %d failed: %s" % (case, suffix, label, seed, e))
                prog.done += 1
                continue
            late = res["driver"].get("t_first_s") or 0
            if late > LATE_S:
                # the flows and events due before then started together
                w = ("%s %s seed %d: the traffic driver began %.2f s after time 0 "
                     "(run.lead_ms %d is too short here)" % (case, label, seed, late,
                                                              exp["run"]["lead_ms"]))
                meta["warnings"].append(w)
                log(w)
            an = analysis.analyse(exp, case, res, base_rtt_s)
            rec = {"experiment": exp["name"], "case": case + suffix, "algo": label,
                   "seed": seed, "regime": exp["regime_used"]["name"],
                   "mode": lab.mode, "dir": rd, "metrics": an["metrics"],
                   "cc_config": res["cc_config"],
                   "hash_seed": getattr(lab, "hash_seed", None),
                   "fcts": [{"id": f["id"], "size": f["size"], "fct_s": f["fct_s"],
                             "fct_at": f.get("fct_at")}
                            for f in res["driver"]["flows"]],
                   "queue_port": an["series"].get("queue_top"),
                   "queue_top": an["series"]["queue"].get(an["series"].get("queue_top"), []),
                   "series": an["series"]}
            write_json(os.path.join(rdir, "result.json"), rec)
            if not in_guest:
                with open(sum_path, "a") as f:
                    f.writelines(summary_lines(rec, a.where, lab.mode, kernel_series()))
            runs.append(rec)
            prog.done += 1
        prog.show("done", last=True)
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
        write_json(os.path.join(out, "guest.json" if in_guest else "meta.json"), meta, indent=1)
    return interrupted


def write_regime(out, regs, cases, suffix, where, mode, timewarp):
    """DIR/regime.csv: one row per case and regime (regime.COLUMNS)."""
    w = regime.place(where, timewarp)
    rows = [regime.csv_row(e["name"], c + suffix[r], w, mode, e["regime_used"])
            for r, e in regs for c in cases]
    claims.write_csv(os.path.join(out, "regime.csv"), regime.COLUMNS,
                     [dict(zip(regime.COLUMNS, x)) for x in rows])


def run_htsim(binary, regs, cases, algos, seeds, out, meta, log):
    """Every case in the UEC simulator: its rows (where=htsim) appended to
    summary.csv.  A failing binary stops here with its message."""
    sum_path = os.path.join(out, "summary.csv")
    for r, e in regs:
        if r == "legacy":
            continue
        d = os.path.join(out, "htsim", r)
        if os.path.exists(os.path.join(d, htsim.CMD_FILE)):
            os.unlink(os.path.join(d, htsim.CMD_FILE))
        for c in cases:
            for seed in range(1, seeds + 1):
                try:
                    cmds = htsim.export(e, c, d, seed, algos, r)
                except htsim.HtsimError as err:
                    meta["warnings"].append("htsim: %s" % err)
                    log("htsim: %s" % err)
                    break
                cm = htsim.parse_matrix(open(os.path.join(d, "%s.cm" % c)).read())["flows"]
                for label, argv in cmds:
                    try:
                        txt = htsim.run_binary(binary, argv, d)
                    except htsim.HtsimError as err:
                        raise LabError("htsim: %s" % err)
                    fn = "%s-%s-s%d.txt" % (c, label.replace(":", "-"), seed)
                    with open(os.path.join(d, fn), "w") as f:
                        f.write(txt)
                    m = htsim.run_metrics(htsim.parse_output(txt), cm)
                    rec = {"experiment": e["name"], "case": c + ("" if r == regs[0][0] else
                                                                 "+" + r),
                           "algo": label, "seed": seed, "metrics": m}
                    with open(sum_path, "a") as f:
                        f.writelines(summary_lines(rec, "htsim", "htsim", "-"))


def print_result(out, meta, runs, release, interrupted):
    rows = report.read_summary(os.path.join(out, "summary.csv"))
    print("%s %s (%s, %s, %s): %d runs; %s" % (PROG, meta["experiment"], meta["where"],
                                              meta["mode"], release, len(runs),
                                              os.path.join(out, "report.html")))
    print(report.table(rows))
    for c in meta.get("claims") or []:
        print("  %-34s %-24s %-26s %s [%s, %s] %s" % (
            c["claim"], c["algo"], c["baseline"], claims.fmt(c["lab_ratio_median"]),
            claims.fmt(c["lab_ci_low"]), claims.fmt(c["lab_ci_high"]), c["verdict"]))
    if interrupted:
        return 130
    return 1 if meta["errors"] and not runs else 0


def run_guest(a, argv, exp, plan, out, meta, log):
    """--where guest, on the host: boot the guest, follow its progress, then
    summary.csv, the plots and the report from the runs it completed."""
    if any(parse_algo(x, "guest")[0] == "transport" for x in meta["algos"]):
        perf = transport.perf_binary(TOP)
        if not os.access(perf, os.X_OK):
            raise LabError("%s missing (the transport's traffic): make tools" % perf)
    runner = guest_mod.GuestRunner(a.kernel, out, a.timewarp, log)
    meta["mode"] = "timewarp" if a.timewarp else "tcg"
    meta["kernel"] = a.kernel
    # this invocation's runs only: no result.json of an earlier one counts
    for case, algo, seed in plan:
        for fn in ("result.json", "result.json.tmp"):
            p = os.path.join(out, run_dir(case, algo_label(*parse_algo(algo, "guest")), seed), fn)
            if os.path.exists(p):
                os.unlink(p)
    for fn in ("guest.json", "meta.json"):
        if os.path.exists(os.path.join(out, fn)):
            os.unlink(os.path.join(out, fn))
    prog = Progress(len(plan))
    interrupted, rc, started = False, None, False
    old = signal.signal(signal.SIGTERM, lambda *x: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        prog.show("staging smartt.ko for %s" % a.kernel)
        rel = runner.prepare()
        timeout = guest_mod.guest_timeout(exp, len(plan), a.timewarp)
        meta["guest"] = {"release": rel, "mode": meta["mode"], "timeout_s": timeout,
                         "vcpus": int(os.environ.get("SMARTT_LAB_VM_CPUS", guest_mod.VM_CPUS)),
                         "memory": os.environ.get("SMARTT_LAB_VM_MEM", guest_mod.VM_MEM),
                         "qemu": qemu_version()}
        runner.start(guest_mod.guest_argv(argv, out), timeout)
        meta["guest"]["command"] = " ".join(shlex.quote(x) for x in runner.argv)
        prog.show("booting %s (%s)" % (rel, meta["mode"]))
        for line in runner.lines():
            p = guest_mod.parse_progress(line)
            if p:
                if not started:
                    # the ETA counts from the first run, not from the boot
                    started, prog.t0 = True, time.time()
                prog.done = p[0]
                if p[0] < len(plan):
                    prog.show(p[2])
            elif line.startswith(PROG + ":") or line.startswith("vm-run:"):
                prog.clear()
                sys.stderr.write(line if line.endswith("\n") else line + "\n")
        rc = runner.wait()
        meta["mode"] = runner.mode()
    except KeyboardInterrupt:
        interrupted = True
        meta["interrupted"] = True
        prog.end()
        log("interrupted: stopping the guest")
    finally:
        prog.end()
        runner.stop()
        signal.signal(signal.SIGTERM, old)
    try:
        with open(os.path.join(out, "guest.json")) as f:
            g = json.load(f)
    except (OSError, ValueError):
        g = {}
    meta["errors"] += g.get("errors", [])
    meta["warnings"] += g.get("warnings", [])
    if g.get("fabric"):
        meta["fabric"] = g["fabric"]
        meta["guest"]["backend"] = g["machine"].get("backend")
        meta["guest"]["machine"] = g["machine"]
        meta["guest"]["module"] = g["fabric"].get("module")
    if g.get("interrupted"):
        meta["interrupted"] = interrupted = True
    if rc == 124:
        meta["errors"].append("the guest timed out (vm-run -t %s)" % meta["guest"]["timeout_s"])
    elif rc and not interrupted:
        # the guest's own one-line error, if it got that far
        said = [x for x in runner.console if x.startswith(PROG + ":")][-1:]
        meta["errors"].append("the guest exited %d%s; its console: %s" % (
            rc, " (%s)" % said[0] if said else "", os.path.join(out, "guest-console.log")))
        if not g:
            for line in runner.console[-5:]:
                log("guest: %s" % line)
    runs = collect_guest_runs(out, plan, meta["mode"], a.kernel)
    if len(runs) < len(plan):
        log("%d of %d runs completed" % (len(runs), len(plan)))
    write_json(os.path.join(out, "meta.json"), meta, indent=1)
    finish(out, meta, runs)
    return print_result(out, meta, runs, meta.get("guest", {}).get("release", a.kernel),
                        interrupted)


def collect_guest_runs(out, plan, mode, kernel):
    """summary.csv from the plan's runs whose result.json is complete (a
    guest stopped mid-run leaves that run out); their records."""
    runs = []
    with open(os.path.join(out, "summary.csv"), "w") as f:
        f.write(",".join(report.COLUMNS) + "\n")
        for case, algo, seed in plan:
            rec = guest_mod.load_result(os.path.join(
                out, run_dir(case, algo_label(*parse_algo(algo, "guest")), seed)))
            if rec is None:
                continue
            rec["mode"] = mode
            f.writelines(summary_lines(rec, "guest", mode, kernel))
            runs.append(rec)
    return runs


def qemu_version():
    try:
        r = subprocess.run(["qemu-system-x86_64", "--version"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=30)
        return r.stdout.splitlines()[0].strip()
    except (OSError, IndexError, subprocess.SubprocessError):
        return "unknown"


def write_stats(out, exp, rows):
    """DIR/ratios.csv and DIR/claims.csv from summary.csv's rows; the
    claims' rows."""
    cl = claims.evaluate(exp, rows, lambda c: config.case_traffic(exp, c)
                         if c in exp["cases"] else {})
    rat = stats.ratios(rows) + claims.self_ratio_rows(cl)
    claims.write_csv(os.path.join(out, "ratios.csv"), stats.COLUMNS, rat)
    claims.write_csv(os.path.join(out, "claims.csv"), claims.COLUMNS, cl)
    return cl


def finish(out, meta, runs):
    """ratios.csv, claims.csv, PNGs and report.html from what is there."""
    rows = report.read_summary(os.path.join(out, "summary.csv"))
    exp = config.load(meta["experiment_file"], meta.get("quick"), meta.get("where") == "guest")
    try:
        # the plots' thresholds and buffer: the first regime's
        regime.apply(exp, meta.get("where", "host"), (meta.get("regimes") or ["legacy"])[0],
                     meta.get("timewarp", False))
    except config.ConfigError:
        pass
    meta["claims"] = write_stats(out, exp, rows)
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


TABLES_BEGIN = ".. lab-results: begin (smartt-lab tables writes this part)"
TABLES_END = ".. lab-results: end"


def rst_table(head, rows):
    """A simple rst table of strings."""
    w = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(head)]
    line = " ".join("=" * x for x in w)
    fmt = lambda r: " ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip()
    return "\n".join([line, fmt(head), line] + [fmt(r) for r in rows] + [line])


def delayline_line(rd):
    """One line on the fabric's delay line from rd's summary.csv (its
    delay_late_* metrics), or None where the runs had none."""
    import csv as csv_
    vals = {"delay_late_share": [], "delay_late_p99_us": [], "delay_late_max_us": []}
    try:
        with open(os.path.join(rd, "summary.csv")) as f:
            for r in csv_.DictReader(f):
                if r.get("metric") in vals:
                    vals[r["metric"]].append(float(r["value"]))
    except (OSError, ValueError):
        return None
    if not vals["delay_late_share"]:
        return None
    med = lambda v: sorted(v)[len(v) // 2]
    sh, p99, mx = vals["delay_late_share"], vals["delay_late_p99_us"], vals["delay_late_max_us"]
    return ("* the fabric's delay line (htb+delayline), over %d runs: packets released later "
            "than a tenth of the link's delay, a median %.1f %% of a run's (at most %.1f %%); "
            "p99 lateness a median %.0f us (at most %.0f us); the latest %.0f us"
            % (len(sh), 100 * med(sh), 100 * max(sh), med(p99), max(p99), max(mx)))


def results_rst(d):
    """lab.rst's result part from the run directories under d (each with
    regime.csv and claims.csv)."""
    import csv as csv_
    out = []
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        rd = os.path.join(d, name)
        try:
            with open(os.path.join(rd, "claims.csv")) as f:
                cl = list(csv_.DictReader(f))
            with open(os.path.join(rd, "regime.csv")) as f:
                rg = list(csv_.DictReader(f))
        except OSError:
            continue
        title = "``lab-results/%s``" % name
        out += [title, "~" * len(title), ""]
        for r in rg:
            bdp = int(r["bdp_bytes"])
            out.append("* %s %s (%s, %s): %.0f Mbit/s, base RTT %s us, BDP %.1f MTUs, buffer "
                       "%.1f BDP, Kmin/Kmax %.2f/%.2f BDP, trimming %s" % (
                           r["experiment"], r["case"], r["where"], r["mode"],
                           int(r["link_rate_bps"]) / 1e6, r["base_rtt_us"],
                           bdp / float(r["mtu_bytes"]), int(r["buffer_bytes"]) / bdp,
                           int(r["kmin_bytes"]) / bdp, int(r["kmax_bytes"]) / bdp,
                           "on" if r["trimming"] == "1" else "off"))
        dl = delayline_line(rd)
        if dl:
            out.append(dl)
        out.append("")
        rows = [[c["claim"], c["algo"], c["baseline"], c["htsim_value"] or "-",
                 c["lab_ratio_median"], "%s-%s" % (c["lab_ci_low"], c["lab_ci_high"]),
                 c["verdict"]] for c in cl]
        if rows:
            out += [rst_table(["claim", "algo", "baseline", "htsim", "lab median",
                               "95 % CI", "verdict"], rows), ""]
    return "\n".join(out)


def cmd_tables(a):
    try:
        with open(a.doc) as f:
            doc = f.read()
    except OSError as e:
        raise LabError("%s: %s" % (a.doc, e.strerror))
    if TABLES_BEGIN not in doc or TABLES_END not in doc:
        raise LabError("%s: no '%s' ... '%s' part" % (a.doc, TABLES_BEGIN, TABLES_END))
    head, rest = doc.split(TABLES_BEGIN, 1)
    _, tail = rest.split(TABLES_END, 1)
    new = head + TABLES_BEGIN + "\n\n" + results_rst(a.results) + "\n" + TABLES_END + tail
    if a.check:
        if new != doc:
            print("%s: not what %s gives: smartt-lab tables" % (a.doc, a.results),
                  file=sys.stderr)
            return 1
        return 0
    if new != doc:
        with open(a.doc + ".tmp", "w") as f:
            f.write(new)
        os.replace(a.doc + ".tmp", a.doc)
    print(a.doc)
    return 0


def cmd_export_htsim(a):
    try:
        exp = config.load(config.find(a.experiment), a.quick)
    except config.ConfigError as e:
        raise UsageError(str(e))
    cases = [a.case] if a.case else exp["case_names"]
    for c in cases:
        if c not in exp["cases"]:
            raise UsageError("--case %s: want one of %s" % (c, ",".join(exp["cases"])))
    out = os.path.abspath(a.out)
    if os.path.exists(os.path.join(out, htsim.CMD_FILE)):
        os.unlink(os.path.join(out, htsim.CMD_FILE))
    n = 0
    for c in cases:
        try:
            n += len(htsim.export(exp, c, out, a.seed, None, a.regime))
        except htsim.HtsimError as e:
            raise LabError(str(e))
    print("%s: %d commands" % (os.path.join(out, htsim.CMD_FILE), n))
    return 0


def cmd_import_htsim(a):
    try:
        with open(a.output) as f:
            txt = f.read()
    except OSError as e:
        raise LabError("%s: %s" % (a.output, e.strerror))
    cm = a.cm
    if cm is None:
        cmdf = os.path.join(os.path.dirname(os.path.abspath(a.output)), htsim.CMD_FILE)
        if os.path.exists(cmdf):
            for label, case, seed, argv in htsim.read_cmd(cmdf):
                if case == a.case and "-tm" in argv:
                    cm = os.path.join(os.path.dirname(cmdf), argv[argv.index("-tm") + 1])
                    break
    out = htsim.parse_output(txt)
    if not out["finished"] and not out["done"]:
        raise LabError("%s: not an htsim_uec output (no finished flows, no Done)" % a.output)
    if cm:
        try:
            flows = htsim.parse_matrix(open(cm).read())["flows"]
        except (OSError, ValueError) as e:
            raise LabError("%s: %s" % (cm, e))
    else:
        flows = [{"id": k, "start_us": 0.0, "size": 0, "src": None, "dst": None}
                 for k in sorted(out["finished"])]
    m = htsim.run_metrics(out, flows)
    if not cm:
        # without the matrix: no sizes, no ideal
        for k in ("fct_ideal_ms", "fct_max_over_ideal"):
            m.pop(k, None)
    rec = {"experiment": a.experiment, "case": a.case, "algo": a.algo, "seed": a.seed,
           "metrics": m}
    sys.stdout.write(",".join(report.COLUMNS) + "\n")
    sys.stdout.writelines(summary_lines(rec, "htsim", "htsim", "-"))
    return 0


def main(argv):
    try:
        a = build_parser().parse_args(argv)
        if a.cmd is None:
            raise UsageError("want a command: run, plot, list, export-htsim or import-htsim "
                             "(smartt-lab --help)")
        if a.cmd == "list":
            return cmd_list(a.json)
        if a.cmd == "plot":
            return cmd_plot(a.out)
        if a.cmd == "tables":
            return cmd_tables(a)
        if a.cmd == "export-htsim":
            return cmd_export_htsim(a)
        if a.cmd == "import-htsim":
            return cmd_import_htsim(a)
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
