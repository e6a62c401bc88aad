# SPDX-License-Identifier: GPL-2.0
"""The transport's cc crp in the lab (transport:LB:crp) without booting a
guest: the name, the CRP knobs converted to the fabric's host rate, the
fabric brought up with --crp on and the same knobs, the senders' and
receivers' net.smartt.transport_crp_knobs, the CRP counters as metrics."""
import json
import os
import subprocess
import tempfile
import unittest
from unittest import mock

from smartt_lab import cli, config, guest, host, transport

HERE = os.path.dirname(os.path.abspath(__file__))
EXP = os.path.join(HERE, "..", "experiments")


def load(name):
    return config.load(os.path.join(EXP, name + ".json"), True, guest=True)


class Names(unittest.TestCase):
    def test_parse__crp_is_a_transport_cc(self):
        self.assertEqual(cli.parse_algo("transport:reps:crp", "guest"), ("transport", "reps:crp"))
        self.assertEqual(host.algo_label(*cli.parse_algo("transport:reps:crp", "guest")),
                         "transport:reps:crp")
        self.assertEqual(cli.run_dir("incast", "transport:reps:crp", 1),
                         "runs/incast-transport-reps-crp-s1")
        with self.assertRaises(config.ConfigError):
            cli.parse_algo("transport:reps:crp", "host")


class Knobs(unittest.TestCase):
    def test_knobs__1gbit_half_the_modules_default_slot(self):
        # the paper's C_max (one 8-packet message + 5 %): 8 frames a slot,
        # half the module's default 570 us (16 frames); 32 cells, N_min and
        # N_max 4 and 16 packets, TTW and R 200/269 and 30/269 of the slot
        k = transport.crp_knobs(10**9, 4224)
        self.assertEqual(k["slot_ns"], 8 * 4238 * 8 * 105 // 100)
        self.assertEqual(k["slot_ns"] // 1000, 284)
        self.assertEqual((k["cells"], k["nmin"], k["nmax"]), (32, 4 * 4076, 16 * 4076))
        self.assertAlmostEqual(k["cmax"], 71250 / 2, delta=100)
        self.assertEqual(k["ttw_ns"], k["slot_ns"] * 200 // 269)
        self.assertEqual(k["retry_ns"], k["slot_ns"] * 30 // 269)

    def test_knobs__converted_to_the_guests_rate(self):
        # 20 Mbit/s: the slot 50 times longer (14.2 ms), the same bytes a slot
        e = load("incast")
        self.assertEqual(e["derived"]["rate_bps"], 20 * 10**6)
        k = transport.crp_knobs(e["derived"]["rate_bps"], e["derived"]["mtu"])
        g = transport.crp_knobs(10**9, 4224)
        self.assertEqual(k["slot_ns"], 8 * 4238 * 8 * 10**9 * 105 // (20 * 10**6 * 100))
        self.assertAlmostEqual(k["slot_ns"] / g["slot_ns"], 50, delta=0.01)
        # the sender's cmax is what the fabric's host(h) table holds a slot
        self.assertEqual(k["cmax"], 20 * 10**6 * k["slot_ns"] // (8 * 10**9))
        self.assertAlmostEqual(k["cmax"], g["cmax"], delta=2)
        self.assertLessEqual(k["nmax"], 2 * k["cmax"])
        self.assertLessEqual(k["nmin"], k["nmax"])
        self.assertEqual(transport.crp_sysctl(k),
                         "slot_ns=%d cells=32 cmax=%d nmin=16304 nmax=65216 ttw_ns=%d "
                         "retry_ns=%d" % (k["slot_ns"], k["cmax"], k["ttw_ns"], k["retry_ns"]))
        self.assertEqual(transport.crp_fabric_args(k),
                         ["--crp", "on", "--crp-slot", "%dns" % k["slot_ns"], "--crp-cells",
                          "32", "--crp-ttw", "%dns" % k["ttw_ns"], "--crp-retry",
                          "%dns" % k["retry_ns"]])

    def test_knobs__a_slot_above_1s_refused(self):
        with self.assertRaises(config.ConfigError):
            transport.crp_knobs(100000, 4224)


    def test_knobs__an_experiments_overrides(self):
        k = transport.crp_knobs(20 * 10**6, 4224)
        o = transport.crp_override(k, {"spec_bytes": 0, "cells": 16})
        self.assertEqual((o["spec_bytes"], o["cells"], o["slot_ns"]), (0, 16, k["slot_ns"]))
        self.assertTrue(transport.crp_sysctl(o).endswith(" spec_bytes=0"))
        self.assertIn("--crp-cells", transport.crp_fabric_args(o))
        self.assertEqual(transport.crp_fabric_args(o)[5], "16")
        for bad in ({"eager": 1}, {"cells": -1}, {"cells": "8"}, {"spec_bytes": True}):
            with self.assertRaises(config.ConfigError):
                transport.crp_override(k, bad)


class Fabric(unittest.TestCase):
    def lab(self, algos, exp="hotspot"):
        return guest.GuestLab(load(exp), algos, "/tmp", lambda m: None, "/m", "timewarp")

    def test_fabric__crp_on_only_with_a_crp_algo(self):
        a = self.lab(["transport:reps:smartt", "transport:reps:crp"]).fabric_args()
        k = transport.crp_knobs(20 * 10**6, 4224)
        self.assertEqual(a[a.index("--crp"):], transport.crp_fabric_args(k))
        for algos in (["transport:reps:smartt"], ["dctcp", "transport:ecmp"]):
            self.assertNotIn("--crp", self.lab(algos).fabric_args(), algos)

    def test_configure__crp_writes_the_knobs_in_every_host(self):
        lab = self.lab(["transport:reps:crp"])
        with mock.patch.object(lab, "write_sysctls") as w:
            vals = lab.configure_cc("transport", "reps:crp")
        k = transport.crp_sysctl(transport.crp_knobs(20 * 10**6, 4224))
        w.assert_called_once_with({"transport_crp_knobs": k}, ["transport_crp_knobs"])
        self.assertEqual(vals, {"transport_lb": "reps", "transport_cc": "crp",
                                "transport_crp_knobs": k})

    def test_setup__up_with_crp_and_refused_by_a_module_without_it(self):
        exp = load("incast")
        status = {"hosts": {}, "ports": [], "base_rtt_ns": 1, "leaf_rtt_ns": 1,
                  "backend": "fq"}
        calls = []

        def fake_run(cmd, check=True, input=None, timeout=120, tries=1):
            calls.append(cmd)
            return subprocess.CompletedProcess(cmd, 0, json.dumps(status), "")

        rel = "0.0-lab-test"
        real_exists = os.path.exists
        for has_crp in (True, False):
            del calls[:]

            def exists(p):
                if p == "/proc/net/smartt_stats":
                    return True
                if p == "/proc/sys/net/smartt/transport_crp_knobs":
                    return has_crp
                return real_exists(p)
            with tempfile.TemporaryDirectory() as d, \
                    mock.patch.object(host, "run", fake_run), \
                    mock.patch.object(guest, "run", fake_run), \
                    mock.patch.object(guest.shutil, "copytree"), \
                    mock.patch.object(guest.shutil, "copy"), \
                    mock.patch.object(guest.platform, "release", return_value=rel), \
                    mock.patch.object(host.os, "geteuid", return_value=0), \
                    mock.patch.object(host.os, "access", return_value=True), \
                    mock.patch.object(host.os.path, "exists", exists), \
                    mock.patch.dict(os.environ, {"SMARTT_FABRIC_BPF": "/bin/true"}):
                os.makedirs(os.path.join(d, "modroot", "lib", "modules", rel, "updates"))
                lab = guest.GuestLab(exp, ["transport:reps:smartt", "transport:reps:crp"], d,
                                     lambda m: None, d, "timewarp")
                lab.setup()
            up = [c for c in calls if "up" in c]
            self.assertEqual(len(up), 1)
            self.assertIn("--crp", up[0])
            self.assertEqual(up[0][up[0].index("--crp-slot") + 1],
                             "%dns" % transport.crp_knobs(20 * 10**6, 4224)["slot_ns"])
            if has_crp:
                self.assertNotIn("transport", lab.unavailable)
            else:
                self.assertIn("no cc crp", lab.unavailable["transport"])


class Stats(unittest.TestCase):
    def test_stats__crp_counters_are_metrics(self):
        before = {"h0": {"crp_tx_req": 2, "crp_rx_grant": 1}}
        after = {"h0": {"crp_tx_req": 10, "crp_rx_grant": 7, "crp_rx_retry": 3},
                 "h1": {"crp_tx_grant": 5, "crp_tx_spec": 4}}
        d = transport.stats_delta(before, after)
        self.assertEqual((d["crp_tx_req"], d["crp_rx_grant"], d["crp_rx_retry"],
                          d["crp_tx_grant"], d["crp_tx_spec"], d["crp_spec_dropped"]),
                         (8, 6, 3, 5, 4, 0))
        self.assertEqual(d["retrans"], 0)


if __name__ == "__main__":
    unittest.main()
