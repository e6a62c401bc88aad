# SPDX-License-Identifier: GPL-2.0
"""--where guest without booting one: the options, the vm-run command line,
the guest sizes of the experiment files, the summary rows, stopping a guest."""
import contextlib
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

from smartt_lab import cli, config, guest, report
from smartt_lab.tests.test_run import lab

HERE = os.path.dirname(os.path.abspath(__file__))
INCAST = os.path.join(HERE, "..", "experiments", "incast.json")
TOP = guest.TOP


class Options(unittest.TestCase):
    def test_usage__guest_options_exit_2_in_one_line(self):
        for args, want in ((["--timewarp"], "--timewarp: only with --where guest"),
                           (["--where", "host", "--timewarp"], "only with --where guest"),
                           (["--where", "guest", "--kernel", "5.10"], "--kernel"),
                           (["--guest-moddir", "/tmp"], "only with --where guest"),
                           (["--where", "guest", "--algos", "bpf_smartt"], "the host's"),
                           (["--where", "guest", "--algos", "strack:nscc"], "profiles")):
            r = lab("run", "incast", "--out", "/tmp/smartt-lab-test-x", *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, (args, r.stderr))
            self.assertNotIn("Traceback", r.stderr)
            if want:
                self.assertIn(want, r.stderr)

    def test_parser__defaults_and_choices(self):
        a = cli.build_parser().parse_args(["run", "incast", "--where", "guest", "--out", "d"])
        self.assertEqual((a.where, a.kernel, a.timewarp, a.guest_moddir),
                         ("guest", "6.12", False, None))
        a = cli.build_parser().parse_args(["run", "incast", "--where", "guest", "--kernel",
                                           "6.1", "--timewarp", "--out", "d"])
        self.assertEqual((a.kernel, a.timewarp), ("6.1", True))

    def test_guest_algos__module_names_and_profiles(self):
        self.assertEqual(cli.parse_algo("smartt:nscc", "guest"), ("smartt", "nscc"))
        self.assertEqual(cli.parse_algo("dctcp", "guest"), ("dctcp", None))
        self.assertEqual(cli.parse_algo("smartt", "host"), ("bpf_smartt", None))


class VmCommand(unittest.TestCase):
    def test_vm_command__tcg(self):
        argv, env = guest.vm_command("6.12.117+deb12-amd64", "/tmp/o", "/m",
                                     ["run", "incast", "--where", "guest", "--out", "/tmp/o"],
                                     900, False, environ={"PATH": "/bin"})
        self.assertEqual(argv[:8], [os.path.join(TOP, "scripts", "vm-run.sh"), "-o", "/tmp/o",
                                    "-m", "1G", "-t", "900", "6.12.117+deb12-amd64"])
        self.assertEqual(argv[8], "--")
        self.assertIn(os.path.join(TOP, "userspace", "smartt-lab"), argv)
        self.assertEqual(argv[-6:], ["--where", "guest", "--out", "/tmp/o", "--guest-moddir",
                                     "/m"])
        self.assertEqual(env["SMARTT_VM_TIMEWARP"], "0")
        self.assertEqual(env["SMARTT_VM_CPUS"], "1")
        self.assertEqual(env["PATH"], "/bin")

    def test_vm_command__timewarp_and_overrides(self):
        argv, env = guest.vm_command("6.1.0-56-amd64", "/o", "/m", ["run", "x"], 60, True,
                                     environ={"SMARTT_LAB_VM_CPUS": "2",
                                              "SMARTT_LAB_VM_MEM": "2G"})
        self.assertEqual(env["SMARTT_VM_TIMEWARP"], "1")
        self.assertEqual(env["SMARTT_VM_CPUS"], "2")
        self.assertEqual(argv[argv.index("-m") + 1], "2G")
        self.assertEqual(argv[argv.index("-t") + 1], "60")

    def test_guest_argv__out_made_absolute(self):
        self.assertEqual(guest.guest_argv(["run", "incast", "--out", "rel", "--quick"], "/a/rel"),
                         ["run", "incast", "--quick", "--out", "/a/rel"])
        self.assertEqual(guest.guest_argv(["run", "x", "--out=rel", "--timewarp"], "/a/rel"),
                         ["run", "x", "--timewarp", "--out", "/a/rel"])

    def test_timeout__grows_with_runs_and_timewarp(self):
        exp = config.load(INCAST, True, guest=True)
        t1, t14 = guest.guest_timeout(exp, 1, False), guest.guest_timeout(exp, 14, False)
        self.assertGreater(t14, t1)
        self.assertGreaterEqual(t1, 600)
        self.assertGreater(guest.guest_timeout(exp, 14, True), t14)

    def test_progress_lines_and_mode(self):
        self.assertEqual(guest.parse_progress("smartt-lab-progress 3 14 incast n4 cubic seed 1\n"),
                         (3, 14, "incast n4 cubic seed 1"))
        self.assertEqual(guest.parse_progress("\x1b[0msmartt-lab-progress 0 2 x\r\n"), (0, 2, "x"))
        self.assertIsNone(guest.parse_progress("smartt-lab: fabric up"))
        self.assertEqual(guest.mode_of(["vm-run: booting 6.12 (TCG, --disable-kvm)"], False),
                         "tcg")
        self.assertEqual(guest.mode_of(["vm-run: booting 6.12 (KVM)"], False), "kvm")
        self.assertEqual(guest.mode_of(["vm-run: booting 6.12 (TCG, --disable-kvm, time warp)"],
                                       True), "timewarp")


class GuestSizes(unittest.TestCase):
    def test_incast__guest_sizes(self):
        e = config.load(INCAST, True, guest=True)
        self.assertEqual(e["case_names"], ["n4", "n8"])
        self.assertEqual(e["derived"]["rate_bps"], 20 * 10**6)
        self.assertEqual(e["fabric"]["hosts"], 9)
        self.assertEqual(config.parse_size(e["traffic"]["size"]), 256 * 1024)
        e = config.load(INCAST, False, guest=True)
        self.assertEqual(e["case_names"], ["n4", "n8", "n16"])
        self.assertEqual(e["seeds"], 5)     # guests: at least 5 seeds
        # the host's sizes are untouched
        e = config.load(INCAST, True)
        self.assertEqual(e["case_names"], ["n8", "n16"])
        self.assertEqual(e["derived"]["rate_bps"], 400 * 10**6)

    def test_every_file__loads_for_guests(self):
        for path in config.list_experiments():
            for quick in (False, True):
                e = config.load(path, quick, guest=True)
                self.assertTrue(e["algos"].get("guest"), path)
                hosts = {"h%d" % i: {"leaf": i * max(1, int(e["fabric"].get("leaves", 1)))
                                     // int(e["fabric"]["hosts"])}
                         for i in range(int(e["fabric"]["hosts"]))}
                for c in e["case_names"]:
                    self.assertTrue(config.flows(e, c, hosts, 1), (path, quick, c))
                # smartt-fabric's own uplink buffer (10 ms at the port rate)
                # is below the lab's Kmax at a guest's link rate
                if e["fabric"].get("spines"):
                    self.assertIn("uplink_buffer", e["fabric"], path)
                    self.assertGreaterEqual(config.parse_size(e["fabric"]["uplink_buffer"]),
                                            e["derived"]["kmax"], path)

    def test_guest_errors__name_the_key(self):
        base = {"name": "t", "fabric": {"hosts": 3, "rate": "1g", "buffer": "100k",
                                        "kmin": "10%", "kmax": "50%", "mtu": 1500},
                "traffic": {"pattern": "incast", "senders": 2, "size": "1k"},
                "algos": {"guest": ["cubic"]}}
        for g, want in (({"cases": ["nope"]}, "guest: unknown cases"),
                        ({"quick": {"cases": ["nope"]}}, "guest: quick: unknown cases"),
                        ([1], "guest: want an object")):
            with self.assertRaises(config.ConfigError) as cm:
                config.resolve(dict(base, guest=g), True, "t.json", guest=True)
            self.assertIn(want, str(cm.exception))


class Summary(unittest.TestCase):
    def rec(self, case, algo):
        return {"experiment": "incast", "case": case, "algo": algo, "seed": 1,
                "metrics": {"fct_max_over_ideal": 1.25, "retrans": 3}}

    def test_collect__complete_runs_only_guest_columns(self):
        plan = [("n4", "cubic", 1), ("n4", "smartt:nscc", 1), ("n8", "cubic", 1)]
        with tempfile.TemporaryDirectory() as d:
            for (case, algo, _), body in zip(plan, ("whole", "truncated", None)):
                rd = os.path.join(d, cli.run_dir(case, algo, 1))
                os.makedirs(rd)
                if body == "whole":
                    cli.write_json(os.path.join(rd, "result.json"), self.rec(case, algo))
                elif body == "truncated":
                    with open(os.path.join(rd, "result.json"), "w") as f:
                        f.write(json.dumps(self.rec(case, algo))[:40])
            runs = cli.collect_guest_runs(d, plan, "timewarp", "6.1")
            self.assertEqual([(r["case"], r["algo"], r["mode"]) for r in runs],
                             [("n4", "cubic", "timewarp")])
            with open(os.path.join(d, "summary.csv")) as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(list(rows[0]), report.COLUMNS)
            self.assertEqual(list(rows[0])[:8], ["experiment", "where", "mode", "kernel",
                                                  "algo", "seed", "metric", "value"])
            self.assertEqual({(r["where"], r["mode"], r["kernel"]) for r in rows},
                             {("guest", "timewarp", "6.1")})
            self.assertEqual({r["metric"]: r["value"] for r in rows},
                             {"fct_max_over_ideal": "1.25", "retrans": "3"})


# Stands in for scripts/vm-run.sh: the console of a guest that completes
# the first run of the plan, then hangs (FAKE_VM=hang), fails as a guest
# whose module does not load would (FAKE_VM=fail) or exits 0.
FAKE_VM = r"""#!/usr/bin/env python3
import json, os, sys, time
a = sys.argv[1:]
out = a[a.index("-o") + 1]
inner = a[a.index("--") + 1:]
assert inner[inner.index("--out") + 1] == out and "--guest-moddir" in inner, inner
with open(os.path.join(out, "fake-vm-argv.json"), "w") as f:
    json.dump({"argv": a, "timewarp": os.environ.get("SMARTT_VM_TIMEWARP"),
               "cpus": os.environ.get("SMARTT_VM_CPUS")}, f)
print("vm-run: booting 6.12.1-amd64 (TCG, --disable-kvm)", flush=True)
print("smartt-lab: fabric lab1 up (9 hosts)", flush=True)
print("smartt-lab-progress 0 2 incast n4 cubic seed 1", flush=True)
rd = os.path.join(out, "runs", "n4-cubic-s1")
os.makedirs(rd, exist_ok=True)
with open(os.path.join(rd, "result.json"), "w") as f:
    json.dump({"experiment": "incast", "case": "n4", "algo": "cubic", "seed": 1,
               "mode": "tcg", "dir": "runs/n4-cubic-s1", "series": {},
               "metrics": {"fct_max_over_ideal": 1.5, "retrans": 0}}, f)
print("smartt-lab-progress 1 2 incast n4 smartt seed 1", flush=True)
if os.environ.get("FAKE_VM") == "hang":
    time.sleep(60)
if os.environ.get("FAKE_VM") == "fail":
    print("smartt-lab: modprobe smartt: not found", flush=True)
    sys.exit(1)
with open(os.path.join(out, "guest.json"), "w") as f:
    json.dump({"errors": ["smartt unavailable"], "warnings": ["n4 cubic seed 1: late"],
               "machine": {"backend": "fq"},
               "fabric": {"module": "0.1.0"}}, f)
sys.exit(0)
"""


class FakeGuest(unittest.TestCase):
    """run_guest with a stand-in for vm-run: no module staging, no QEMU."""

    def run_guest(self, d, extra=(), hang=False, how=""):
        fake = os.path.join(d, "fake-vm-run")
        with open(fake, "w") as f:
            f.write(FAKE_VM)
        os.chmod(fake, 0o755)
        out = os.path.join(d, "out")
        argv = ["run", "incast", "--where", "guest", "--quick", "--cases", "n4",
                "--algos", "cubic,smartt", "--out", out] + list(extra)
        saved = (guest.VM_RUN, guest.GuestRunner.prepare, cli.finish)

        def prepare(runner):
            runner.rel, runner.moddir = "6.12.1-amd64", "/nonexistent"
            return runner.rel
        guest.VM_RUN, guest.GuestRunner.prepare = fake, prepare
        cli.finish = lambda *x: None
        os.environ["FAKE_VM"] = "hang" if hang else how
        try:
            a = cli.build_parser().parse_args(argv)
            if hang:
                # SIGTERM once the first run is in: as Ctrl-C
                import threading
                t = threading.Timer(4, os.kill, (os.getpid(), 15))
                t.start()
            # the command's table and progress are not TAP
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                rc = cli.cmd_run(a, argv)
        finally:
            guest.VM_RUN, guest.GuestRunner.prepare, cli.finish = saved
            os.environ.pop("FAKE_VM")
        with open(os.path.join(out, "summary.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(out, "meta.json")) as f:
            meta = json.load(f)
        with open(os.path.join(out, "fake-vm-argv.json")) as f:
            vm = json.load(f)
        return rc, rows, meta, vm

    def test_fake_guest__summary_meta_and_command(self):
        with tempfile.TemporaryDirectory() as d:
            rc, rows, meta, vm = self.run_guest(d, ["--timewarp"])
        self.assertEqual(rc, 0)
        self.assertEqual({(r["where"], r["mode"], r["kernel"], r["algo"]) for r in rows},
                         {("guest", "timewarp", "6.12", "cubic")})
        self.assertEqual((meta["where"], meta["mode"], meta["kernel"]),
                         ("guest", "timewarp", "6.12"))
        self.assertEqual(meta["guest"]["release"], "6.12.1-amd64")
        self.assertEqual(meta["guest"]["module"], "0.1.0")
        self.assertIn("smartt unavailable", meta["errors"])
        self.assertEqual(meta["warnings"], ["n4 cubic seed 1: late"])
        self.assertIn("--timewarp", meta["command"])
        self.assertEqual((vm["timewarp"], vm["cpus"]), ("1", "1"))
        self.assertEqual(vm["argv"][vm["argv"].index("-m") + 1], "1G")

    def test_fake_guest__interrupted_keeps_the_runs_done(self):
        with tempfile.TemporaryDirectory() as d:
            t = time.time()
            rc, rows, meta, _ = self.run_guest(d, hang=True)
            self.assertLess(time.time() - t, 30)
        self.assertEqual(rc, 130)
        self.assertTrue(meta["interrupted"])
        self.assertEqual(meta["mode"], "tcg")
        self.assertEqual({r["algo"] for r in rows}, {"cubic"})


    def test_fake_guest__its_failure_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            rc, rows, meta, _ = self.run_guest(d, how="fail")
        self.assertEqual({r["algo"] for r in rows}, {"cubic"})
        self.assertEqual(rc, 0, "one run of two completed")
        self.assertTrue([e for e in meta["errors"] if "the guest exited 1 (smartt-lab: "
                         "modprobe smartt: not found)" in e], meta["errors"])


class Stop(unittest.TestCase):
    def test_stop__ends_every_process_under_vm_run(self):
        # vm-run runs virtme-ng under timeout(1), which makes its own
        # process group: stopping the group vm-run leads would miss it
        r = guest.GuestRunner("6.12", "/tmp", False, lambda m: None)
        r.proc = subprocess.Popen(["bash", "-c", "timeout 60 sleep 60; exit 3"],
                                  start_new_session=True, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        r.cf = open(os.devnull, "w")
        for _ in range(50):
            kids = guest.descendants(r.proc.pid)
            if len(kids) >= 2:
                break
            time.sleep(0.05)
        self.assertGreaterEqual(len(kids), 2, "timeout and sleep under bash")
        t = time.time()
        r.stop()
        self.assertLess(time.time() - t, 10)
        self.assertIsNotNone(r.proc.poll())
        self.assertFalse([p for p in kids if guest.alive(p)])


if __name__ == "__main__":
    sys.exit(unittest.main())
