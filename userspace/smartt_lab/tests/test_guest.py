# SPDX-License-Identifier: GPL-2.0
"""--where guest without booting one: the options, the vm-run command line,
the guest sizes of the experiment files, the summary rows, stopping a guest."""
import csv
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
        self.assertEqual(e["seeds"], 1)
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


class Stop(unittest.TestCase):
    def test_stop__ends_every_process_under_vm_run(self):
        # vm-run runs virtme-ng under timeout(1), which makes its own
        # process group: stopping the group vm-run leads would miss it
        r = guest.GuestRunner("6.12", "/tmp", False, lambda m: None)
        r.proc = subprocess.Popen(["bash", "-c", "timeout 60 sleep 60; exit 3"],
                                  start_new_session=True)
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
