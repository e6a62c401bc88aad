# SPDX-License-Identifier: GPL-2.0
"""The transport's algorithms (transport:LB[:CC]): names, refusal on the
host, smartt-perf's command lines, running them (with a stand-in)."""
import json
import os
import subprocess
import tempfile
import time
import unittest
from unittest import mock

from smartt_lab import cli, config, guest, host, transport
from smartt_lab.tests.test_run import lab

HERE = os.path.dirname(os.path.abspath(__file__))
PERF = transport.perf_binary(host.TOP)


class Names(unittest.TestCase):
    def test_parse__selector_and_cc(self):
        self.assertEqual(cli.parse_algo("transport:reps", "guest"), ("transport", "reps:smartt"))
        self.assertEqual(cli.parse_algo("transport:oblivious:strack", "guest"),
                         ("transport", "oblivious:strack"))
        self.assertEqual(cli.parse_algo("transport:strack-bitmap:nscc", "guest"),
                         ("transport", "strack-bitmap:nscc"))
        self.assertEqual(host.algo_label(*cli.parse_algo("transport:ecmp", "guest")),
                         "transport:ecmp:smartt")
        self.assertEqual(cli.run_dir("all", "transport:reps:smartt", 2),
                         "runs/all-transport-reps-smartt-s2")

    def test_parse__bad_names_say_what_they_want(self):
        for spec, want in (("transport", "transport:LB"), ("transport:", "transport:LB"),
                           ("transport:spray", "path selector 'spray': want one of reps"),
                           ("transport:reps:cubic", "congestion control 'cubic'"),
                           ("transport:reps:smartt:x", "transport:LB:CC")):
            with self.assertRaises(config.ConfigError) as c:
                cli.parse_algo(spec, "guest")
            self.assertIn(want, str(c.exception), spec)

    def test_host__refused(self):
        with self.assertRaises(config.ConfigError) as c:
            cli.parse_algo("transport:reps", "host")
        self.assertIn("only with --where guest", str(c.exception))

    def test_host__refused_at_once_exit_2(self):
        # before any fabric: no root, no BPF, no smartt.ko needed to say so
        for algos in ("transport:reps", "cubic,transport:oblivious:strack"):
            r = lab("run", "permutation", "--where", "host", "--algos", algos,
                    "--out", "/tmp/smartt-lab-test-transport", timeout=30)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn("--algos", r.stderr)
            self.assertIn("only with --where guest", r.stderr)
            self.assertNotIn("fabric", r.stderr)

    def test_guest__bad_transport_name_exit_2(self):
        r = lab("run", "permutation", "--where", "guest", "--algos", "transport:reps:bbr",
                "--out", "/tmp/smartt-lab-test-transport", timeout=30)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("congestion control 'bbr'", r.stderr)

    def test_experiments__transport_in_guest_lists_only(self):
        want = {"permutation", "failure", "all_to_all", "incast"}
        seen = set()
        for path in config.list_experiments():
            e = config.load(path, True, guest=True)
            for a in e["algos"].get("host", []):
                self.assertFalse(a.startswith("transport"), (path, a))
            tr = [a for a in e["algos"]["guest"] if a.startswith("transport")]
            for a in e["algos"]["guest"]:
                cli.parse_algo(a, "guest")
            if tr:
                seen.add(e["name"])
                self.assertIn("transport:reps", tr, path)
                self.assertIn("transport:oblivious", tr, path)
        self.assertEqual(seen, want)


class Commands(unittest.TestCase):
    FLOW = {"id": 3, "size": 262144, "start_s": 0.0, "stop_s": None, "dst_addr": "198.18.0.9"}

    def test_client__sized_flow_is_one_message(self):
        a = transport.client_argv("/p", self.FLOW, 1301, "reps", "smartt", 1000.5, 15, "/r.csv")
        self.assertEqual(a[:2], ["/p", "client"])
        self.assertEqual(a[-1], "198.18.0.9")
        for opt, val in (("-P", "stream"), ("--lb", "reps"), ("--cc", "smartt"),
                         ("-p", "1301"), ("-S", "1000.500000"), ("-s", "262144"),
                         ("-n", "1"), ("-o", "1"), ("--raw", "/r.csv"), ("-i", "0"),
                         ("-t", "25")):
            self.assertEqual(a[a.index(opt) + 1], val, opt)
        self.assertIn("--json", a)
        self.assertNotIn("-d", a)

    def test_client__start_offset_and_long_flow(self):
        f = dict(self.FLOW, size=0, start_s=0.25, stop_s=2.0)
        a = transport.client_argv("/p", f, 1301, "oblivious", "strack", 100.0, 2.5, "/r")
        self.assertEqual(a[a.index("-S") + 1], "100.250000")
        self.assertEqual(a[a.index("-d") + 1], "1.750")
        self.assertEqual(a[a.index("-s") + 1], str(transport.LONG_MSG))
        self.assertEqual(a[a.index("-o") + 1], str(transport.LONG_OUTSTANDING))
        self.assertNotIn("-n", a)
        # no stop: until the run's end
        a = transport.client_argv("/p", dict(f, stop_s=None), 1301, "reps", "smartt", 0, 2.5,
                                  "/r")
        self.assertEqual(a[a.index("-d") + 1], "2.250")

    def test_client__sizes_outside_a_message_refused(self):
        for size in (1, 31, (1 << 30) + 1):
            with self.assertRaises(config.ConfigError) as c:
                transport.client_argv("/p", dict(self.FLOW, size=size), 1, "reps", "smartt", 0,
                                      1, "/r")
            self.assertIn("flow 3: %d bytes" % size, str(c.exception))
        with self.assertRaises(config.ConfigError):
            transport.client_argv("/p", dict(self.FLOW, size=0, start_s=3.0), 1, "reps",
                                  "smartt", 0, 2.5, "/r")

    def test_server__msg_max_only_when_needed(self):
        a = transport.server_argv("/p", 1301, "ecmp", "strack", 1 << 20)
        self.assertEqual(a, ["/p", "server", "-p", "1301", "--lb", "ecmp", "--cc", "strack",
                             "--json"])
        a = transport.server_argv("/p", 1301, "reps", "smartt", 100 << 20)
        self.assertEqual(a[-2:], ["-s", str(100 << 20)])

    @unittest.skipUnless(os.access(PERF, os.X_OK), "smartt-perf not built (make tools)")
    def test_smartt_perf__accepts_every_option_built(self):
        # every option parses: smartt-perf stops at the bad target, after them
        for argv in (transport.client_argv(PERF, dict(self.FLOW, dst_addr="bogus"), 1301,
                                           "strack-bitmap", "strack", 0, 15, "/dev/null"),
                     transport.client_argv(PERF, dict(self.FLOW, size=0, dst_addr="bogus"),
                                           1301, "ecmp", "smartt-2024", 0, 15, "/dev/null")):
            r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, timeout=30)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("target bogus", r.stderr)
        for argv, want in (([PERF, "client", "--proto", "tcp", "--lb", "reps", "198.18.0.5"],
                            "--lb reps: only with --proto smartt"),
                           ([PERF, "client", "--lb", "x" * 16, "198.18.0.5"],
                            "want a path selector name of 1..15")):
            r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, timeout=30)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(want, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1)


@unittest.skipUnless(os.geteuid() == 0, "needs root (a network namespace)")
class Run(unittest.TestCase):
    """transport.run() with a stand-in for smartt-perf (tests/fake_perf.py)
    in a namespace of its own: servers and clients started in their hosts'
    namespaces with the options above, clients begin at time 0 plus their
    start, the events at their times, the outputs collected."""

    def setUp(self):
        self.ns = "smartt-lab-t%d" % os.getpid()
        subprocess.run(["ip", "netns", "add", self.ns], check=True)
        self.addCleanup(subprocess.run, ["ip", "netns", "del", self.ns])
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.counts = iter([{"h0": {"retransmits": 5, "tx_nacks": 1}},
                            {"h0": {"retransmits": 9, "tx_nacks": 4}}])
        real = transport.read_stats
        transport.read_stats = lambda hosts: next(self.counts)
        self.addCleanup(setattr, transport, "read_stats", real)

    def test_run__processes_times_outputs(self):
        d = self.tmp.name
        log = os.path.join(d, "log")
        os.environ["FAKE_PERF_LOG"] = log
        self.addCleanup(os.environ.pop, "FAKE_PERF_LOG")
        mark = os.path.join(d, "event")
        # a lead long enough for three Python processes on a loaded host
        t0 = time.monotonic_ns() + int(2e9)
        plan = {"t0_mono_ns": t0, "end_s": 1.0, "bin_ms": 20, "port": 1301, "lb": "oblivious",
                "cc": "strack", "listeners": [{"ns": self.ns, "addr": "198.18.0.1"}],
                "flows": [{"id": 0, "src_ns": self.ns, "src_addr": "198.18.0.1",
                           "dst_addr": "198.18.0.1", "size": 65536, "start_s": 0.2,
                           "stop_s": None},
                          {"id": 1, "src_ns": self.ns, "src_addr": "198.18.0.1",
                           "dst_addr": "198.18.0.1", "size": 0, "start_s": 0.0,
                           "stop_s": 0.5}],
                "events": [{"t_s": 0.3, "argv": ["touch", mark]}]}
        fake = os.path.join(HERE, "fake_perf.py")
        res = transport.run(plan, d, {"h0": {"ns": self.ns}}, fake)
        with open(log) as f:
            calls = [json.loads(x) for x in f]
        want_ns = subprocess.run(["ip", "netns", "exec", self.ns, "readlink",
                                  "/proc/self/ns/net"], stdout=subprocess.PIPE,
                                 text=True).stdout.strip()
        self.assertEqual(len(calls), 3)
        for c in calls:
            self.assertEqual(c["netns"], want_ns)
        srv = [c["argv"] for c in calls if c["argv"][0] == "server"][0]
        self.assertEqual(srv[srv.index("-B") + 1], "198.18.0.1")
        self.assertEqual(srv[srv.index("--lb") + 1], "oblivious")
        with open(os.path.join(d, "plan.json")) as f:
            t0_real = json.load(f)["t0_real"]
        f0, f1 = res["flows"]
        self.assertAlmostEqual(f0["fct_s"], 0.01)
        self.assertEqual(f0["rx"], 65536)
        self.assertEqual(f0["retrans"], 2)
        self.assertGreaterEqual(f0["late_s"], 0)
        self.assertLess(f0["late_s"], 0.2)
        self.assertIsNone(f1["fct_s"])
        # its messages completed by its stop at 0.5 s (every 50 ms from its start)
        done = sum(1 for i in range(10) if f1["late_s"] + 0.01 + 0.05 * i <= 0.5)
        self.assertGreater(done, 0)
        self.assertEqual(f1["rx"], done * transport.LONG_MSG)
        self.assertEqual(f1["sent"], 10 * transport.LONG_MSG)
        self.assertTrue(os.path.exists(mark))
        self.assertEqual(len(res["events"]), 1)
        self.assertGreaterEqual(res["events"][0]["t_s"], 0.3)
        self.assertLess(res["events"][0]["t_s"], 0.4)
        self.assertEqual(res["stats"]["retrans"], 4)
        self.assertEqual(res["stats"]["nacks"], 3)
        self.assertEqual(res["t_first_s"], max(f0["late_s"], f1["late_s"]))
        self.assertGreater(t0_real, 1e9)


class Retry(unittest.TestCase):
    """host.run(tries=N): a command that gives no answer in time runs again."""

    def test_run__again_after_a_timeout(self):
        with tempfile.TemporaryDirectory() as d:
            mark = os.path.join(d, "once")
            # the first call hangs, the later ones answer
            cmd = ["sh", "-c", 'if [ -e "$0" ]; then echo ok; else touch "$0"; exec sleep 30; fi',
                   mark]
            with self.assertRaises(host.LabError) as c:
                host.run(cmd, timeout=1)
            self.assertIn("no answer in 1 s", str(c.exception))
            os.unlink(mark)
            self.assertEqual(host.run(cmd, timeout=1, tries=2).stdout, "ok\n")
            os.unlink(mark)
            with self.assertRaises(host.LabError) as c:
                host.run(["sleep", "30"], timeout=1, tries=2)
            self.assertIn("(2 tries)", str(c.exception))

    def test_guest__no_command_timeout_under_the_time_warp(self):
        exp = config.load(os.path.join(HERE, "..", "experiments", "failure.json"), True,
                          guest=True)
        mk = lambda mode: guest.GuestLab(exp, ["transport:reps"], "/tmp", print, "/m", mode)
        self.assertIsNone(mk("timewarp").cmd_timeout)
        self.assertEqual(mk("tcg").cmd_timeout, 120)
        self.assertEqual(host.HostLab(exp, ["cubic"], "/tmp", print).cmd_timeout, 120)

    def test_guest__setup_and_teardown_without_timeouts_under_the_time_warp(self):
        """The commands before the first run (modprobe, the fabric's up and
        status) wait as long as it takes under the time warp too: the
        status after "up" once expired its 120 s in a few wall seconds;
        with TCG they keep theirs.  (A guest's fabric goes with the guest:
        no "down".)"""
        exp = config.load(os.path.join(HERE, "..", "experiments", "incast.json"), True,
                          guest=True)
        status = {"hosts": {}, "ports": [], "base_rtt_ns": 1, "leaf_rtt_ns": 1,
                  "backend": "fq"}
        calls = []

        def fake_run(cmd, check=True, input=None, timeout=120, tries=1):
            calls.append((os.path.basename(cmd[0]), cmd[3] if cmd[1:2] == ["--name"]
                          else cmd[1], timeout))
            return subprocess.CompletedProcess(cmd, 0, json.dumps(status), "")

        rel = "0.0-lab-test"
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(host, "run", fake_run), \
                mock.patch.object(guest, "run", fake_run), \
                mock.patch.object(guest.shutil, "copytree"), \
                mock.patch.object(guest.shutil, "copy"), \
                mock.patch.object(guest.platform, "release", return_value=rel), \
                mock.patch.object(host.os, "geteuid", return_value=0), \
                mock.patch.dict(os.environ, {"SMARTT_FABRIC_BPF": "/bin/true"}):
            os.makedirs(os.path.join(d, "modroot", "lib", "modules", rel, "updates"))
            for mode in ("timewarp", "tcg"):
                del calls[:]
                lab = guest.GuestLab(exp, ["transport:reps", "dctcp"], d, lambda m: None,
                                     d, mode)
                lab.setup()
                lab.teardown()
                what = [(c[0], c[1]) for c in calls]
                for want in (("modprobe", "smartt"), ("modprobe", "sch_fq"),
                             ("modprobe", "tcp_dctcp"), ("smartt-fabric", "up"),
                             ("smartt-fabric", "status")):
                    self.assertIn(want, what, mode)
                timeouts = [c[2] for c in calls]
                if mode == "timewarp":
                    self.assertEqual(timeouts, [None] * len(calls), calls)
                else:
                    self.assertNotIn(None, timeouts, calls)
                    self.assertIn(("smartt-fabric", "status", 120), calls)
