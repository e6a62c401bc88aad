# SPDX-License-Identifier: GPL-2.0
"""regime: the papers' regime derived per place; the queue over time; the
UEC simulator's formats (our export parsed back, a sample output
imported); the seed's source ports."""
import copy
import os
import subprocess
import tempfile
import unittest

from smartt_lab import config, htsim, metrics, regime

HERE = os.path.dirname(os.path.abspath(__file__))


def read(*parts):
    with open(os.path.join(*parts)) as f:
        return f.read()
LAB = os.path.join(HERE, "..", "..", "smartt-lab")
SPEC = {"rate": {"host": "400mbit", "guest": "20mbit"}}
ONE_LEAF = {"mtu": 4224, "hosts": 17}
LEAF_SPINE = {"mtu": 4224, "hosts": 8, "leaves": 2, "spines": 2}


class Derive(unittest.TestCase):
    def test_derive__bdp_at_least_16_mtus_everywhere(self):
        for fab in (ONE_LEAF, LEAF_SPINE):
            for where in regime.WHERES:
                g = regime.derive(SPEC, fab, where)
                self.assertGreaterEqual(g["bdp"], 16 * 4224, (fab, where))
                # the smallest whole-microsecond delay that does it
                self.assertLess(g["bdp"], 16.2 * 4224, (fab, where))
                self.assertEqual(g["buffer"], g["bdp"])
                self.assertEqual(g["kmin"], round(0.2 * g["bdp"]))
                self.assertEqual(g["kmax"], round(0.8 * g["bdp"]))
                self.assertTrue(g["trimming"])

    def test_derive__base_rtt_is_the_fabrics_formula(self):
        g = regime.derive(SPEC, ONE_LEAF, "host")
        # 2 links; per link: the delay both ways, a 4238-byte frame and a
        # 98-byte ACK at 400 Mbit/s (84.76 us + 1.96 us)
        self.assertEqual(g["base_rtt_ns"], 2 * (2 * g["delay_ns"] + 84760 + 1960))
        self.assertEqual(g["delay_ns"] % 1000, 0)
        self.assertEqual(g["bdp"], 400 * 10**6 * g["base_rtt_ns"] // (8 * 10**9))

    def test_derive__guest_and_timewarp_slower_links_longer_delay(self):
        h = regime.derive(SPEC, ONE_LEAF, "host")
        g = regime.derive(SPEC, ONE_LEAF, "guest")
        t = regime.derive(SPEC, ONE_LEAF, "timewarp")
        self.assertEqual(g["rate_bps"], 20 * 10**6)
        self.assertGreater(g["delay_ns"], 10 * h["delay_ns"])
        self.assertEqual(g, t)      # the time warp takes the guest's rate unless given

    def test_derive__droptail_variant(self):
        g = regime.derive(SPEC, ONE_LEAF, "host", "droptail")
        self.assertFalse(g["trimming"])
        self.assertEqual(g["buffer"], 5 * g["bdp"])
        self.assertEqual(g["kmin"], round(0.2 * g["bdp"]))

    def test_derive__oversubscribed_uplinks(self):
        g = regime.derive(dict(SPEC, oversub=2), LEAF_SPINE, "host")
        # 4 hosts per leaf x 400 Mbit/s over 2 spines at 2:1
        self.assertEqual(g["up_rate_bps"], 400 * 10**6)
        self.assertEqual(g["up_buffer"], g["bdp"])

    def test_validate__refuses_a_regime_below_16_mtus_and_bad_thresholds(self):
        for bad in ({"bdp_mtus": 8}, {"kmin_bdp": 0.9}, {"buffer_bdp": 0},
                    {"rate": {"moon": "1g", "host": "1g"}}, {"nope": 1}):
            with self.assertRaises(config.ConfigError):
                regime.validate(dict(SPEC, **bad))

    def test_apply__sets_the_fabric_and_derived_values(self):
        e = config.load(config.find("incast"), quick=True)
        g = regime.apply(e, "host", "papers")
        self.assertEqual(e["derived"]["buffer"], g["buffer"])
        self.assertEqual(e["derived"]["delay_ns"], g["delay_ns"])
        self.assertEqual(e["fabric"]["trim"], "on")
        row = dict(zip(regime.COLUMNS, regime.csv_row("incast", "n8", "host", "native", g)))
        self.assertGreaterEqual(int(row["bdp_bytes"]) / int(row["mtu_bytes"]), 16)
        self.assertTrue(0.5 <= int(row["buffer_bytes"]) / int(row["bdp_bytes"]) <= 2)
        legacy = config.load(config.find("incast"), quick=True)
        gl = regime.apply(legacy, "host", "legacy")
        self.assertEqual(gl["buffer"], 500000)
        self.assertLess(gl["bdp_mtus"], 3)


class QueueOverTime(unittest.TestCase):
    def test_queue_over_time__windows_without_arrivals_drain(self):
        # 8 Mbit/s: 1000 bytes per 1 ms window
        s = [(0.000, 3000), (0.004, 500)]
        g = metrics.queue_over_time(s, 0.001, 8 * 10**6, 0.0, 0.006)
        self.assertEqual([v for _, v in g], [3000, 2000, 1000, 0, 500, 0])
        st = metrics.queue_time_stats(g)
        self.assertAlmostEqual(st["mean"], 6500 / 6.0)
        self.assertEqual(st["peak"], 3000)

    def test_queue_over_time__time_average_not_busy_windows(self):
        # a queue of 10 kB in one window of 100 and empty otherwise: the
        # mean over time is 100 B, whatever the busy windows say
        s = [(0.0, 10000)]
        g = metrics.queue_over_time(s, 0.001, 8 * 10**9, 0.0, 0.1)
        self.assertAlmostEqual(metrics.queue_time_stats(g)["mean"], 100.0)
        self.assertEqual(metrics.queue_time_stats([])["mean"], None)


class SourcePorts(unittest.TestCase):
    def test_flows__source_ports_follow_the_seed(self):
        e = config.load(config.find("permutation"))
        hosts = {"h%d" % i: {"leaf": "l%d" % (i // 4)} for i in range(8)}
        a = config.flows(e, "all", hosts, 1)
        b = config.flows(e, "all", hosts, 1)
        c = config.flows(e, "all", hosts, 2)
        self.assertEqual([f["sport"] for f in a], [f["sport"] for f in b])
        self.assertNotEqual([f["sport"] for f in a], [f["sport"] for f in c])
        self.assertTrue(all(config.SPORT_LO <= f["sport"] < config.SPORT_HI for f in a))


class Htsim(unittest.TestCase):
    def test_export__parses_back(self):
        e = config.load(config.find("incast"), quick=True)
        with tempfile.TemporaryDirectory() as d:
            cmds = htsim.export(e, "n8", d, 3, ["bpf_smartt:nscc", "bpf_dctcp", "cubic"])
            self.assertEqual([c[0] for c in cmds], ["smartt:nscc", "dctcp"])
            cm = htsim.parse_matrix(read(d, "n8.cm"))
            self.assertEqual(cm["nodes"], 17)
            self.assertEqual(len(cm["flows"]), 8)
            self.assertEqual({f["dst"] for f in cm["flows"]}, {0})
            self.assertEqual({f["size"] for f in cm["flows"]}, {512 * 1024})
            self.assertEqual([f["id"] for f in cm["flows"]], list(range(1, 9)))
            topo = htsim.parse_topology(read(d, "n8.topo"))
            self.assertEqual((topo["nodes"], topo["tiers"], topo["podsize"]), (17, 2, 17))
            t0, t1 = topo["tier"]
            self.assertEqual(t0["downlink_speed_gbps"], 100)
            # the simulator's ToR checks: radix_down / radix_up = oversubscribed
            self.assertEqual(t0["radix_down"] // t0["radix_up"], t0["oversubscribed"])
            sr = htsim.sim_regime(e["regime"])
            self.assertEqual(t0["downlink_latency_ns"], sr["latency_ns"])
            self.assertGreaterEqual(sr["bdp_pkts"], 16)
            self.assertEqual(t0["queue_down"], sr["queue_pkts"] * htsim.MTU)
            got = htsim.read_cmd(os.path.join(d, htsim.CMD_FILE))
            self.assertEqual([(g[0], g[1], g[2]) for g in got],
                             [("smartt:nscc", "n8", 3), ("dctcp", "n8", 3)])
            argv = got[0][3]
            for flag, val in (("-tm", "n8.cm"), ("-topo", "n8.topo"), ("-seed", "3"),
                              ("-sender_cc_algo", "nscc"), ("-mtu", "4150"),
                              ("-q", str(sr["queue_pkts"]))):
                self.assertEqual(argv[argv.index(flag) + 1], val)
            self.assertEqual(argv[argv.index("-ecn") + 1:argv.index("-ecn") + 3],
                             [str(sr["ecn_low"]), str(sr["ecn_high"])])

    def test_export__leaf_spine_and_failures(self):
        e = config.load(config.find("failure"))
        with self.assertRaises(htsim.HtsimError):
            # long flows without a size: the simulator's flows end
            htsim.export(e, "all", tempfile.mkdtemp())
        e = config.load(config.find("permutation"))
        with tempfile.TemporaryDirectory() as d:
            cmds = htsim.export(e, "all", d, 1, ["transport:reps", "transport:ecmp:smartt"])
            self.assertEqual([c[0] for c in cmds], ["transport:reps:nscc",
                                                    "transport:ecmp:nscc"])
            self.assertIn("-paths", cmds[1][1])
            topo = htsim.parse_topology(read(d, "all.topo"))
            self.assertEqual(topo["tier"][0]["radix_down"], 4)
            self.assertEqual(topo["tier"][0]["oversubscribed"], 2)
            self.assertEqual(topo["tier"][0]["radix_up"], 2)
            self.assertEqual(topo["tier"][1]["radix_down"], 2)
        fl = [{"src": "h1", "dst": "h0", "size": 10, "start_s": 0.0}]
        ex = {"events": [{"t_s": 1.0, "port": "l0:s1", "fault": "blackhole"},
                         {"t_s": 1.5, "port": "s0:l1", "fault": "rate=50mbit"}]}
        cm = htsim.parse_matrix(htsim.matrix(fl, 2, fails=htsim.failures(ex, {})))
        self.assertEqual(cm["failures"], [{"switch_type": "TOR", "switch_id": "0",
                                           "link_id": "1"}])

    def test_parse_matrix__counts_must_agree(self):
        with self.assertRaises(ValueError):
            htsim.parse_matrix("Nodes 2\nConnections 2\n1->0 id 1 start 0 size 5\n")

    def test_import__sample_output(self):
        out = htsim.parse_output(read(HERE, "htsim", "incast-n4.out"))
        self.assertTrue(out["done"])
        self.assertEqual(len(out["finished"]), 4)
        self.assertEqual((out["mtu"], out["rate_gbps"], out["rtx"], out["nacks"]),
                         (4150, 100.0, 7, 7))
        cm = htsim.parse_matrix(read(HERE, "htsim", "incast-n4.cm"))
        m = htsim.run_metrics(out, cm["flows"])
        self.assertEqual(m["failed"], 0)
        self.assertAlmostEqual(m["fct_max_ms"], 0.0912)
        # 4 x (256000 + 63 x 64) bytes at 100 Gbit/s plus 5.312 us
        ideal = 4 * (256000 + 63 * 64) * 8 / 1e5 + 5.312
        self.assertAlmostEqual(m["fct_max_over_ideal"], 91.2 / ideal)
        self.assertEqual(m["retrans"], 7)

    def test_cli__import_htsim_rows_and_missing_binary(self):
        r = subprocess.run([LAB, "import-htsim", os.path.join(HERE, "htsim", "incast-n4.out"),
                            "--cm", os.path.join(HERE, "htsim", "incast-n4.cm"),
                            "--experiment", "incast", "--case", "n4", "--algo", "smartt:nscc"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "experiment,where,mode,kernel,algo,seed,metric,value,case")
        m = {x.split(",")[6]: x.split(",") for x in lines[1:]}
        self.assertEqual(m["fct_max_over_ideal"][1], "htsim")
        self.assertEqual(m["fct_max_over_ideal"][8], "n4")
        r = subprocess.run([LAB, "import-htsim", os.path.join(HERE, "htsim", "README")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not an htsim_uec output", r.stderr)
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([LAB, "run", "incast", "--quick", "--htsim",
                                os.path.join(d, "htsim_uec"), "--out", d],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("not an executable file", r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1)

    def test_cli__export_htsim(self):
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([LAB, "export-htsim", "incast", "--case", "n16", "--out", d],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(os.listdir(d)), ["htsim.cmd", "n16.cm", "n16.topo"])
            r = subprocess.run([LAB, "export-htsim", "hotspot", "--out", d],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(r.returncode, 1)


class Tables(unittest.TestCase):
    def test_tables__lab_rst_is_what_the_committed_csvs_give(self):
        r = subprocess.run([LAB, "tables", "--check"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_tables__rewrites_the_part_between_the_markers(self):
        with tempfile.TemporaryDirectory() as d:
            doc = os.path.join(d, "x.rst")
            res = os.path.join(d, "res", "run1")
            os.makedirs(res)
            with open(os.path.join(res, "regime.csv"), "w") as f:
                f.write(",".join(regime.COLUMNS) + "\n"
                        "incast,n8,host,native,400000000,1353.440,4224,67672,67672,13534,"
                        "54138,1\n")
            with open(os.path.join(res, "claims.csv"), "w") as f:
                f.write("claim,paper,statement,metric,algo,baseline,paper_value,htsim_value,"
                        "lab_ratio_median,lab_ci_low,lab_ci_high,verdict\n"
                        "c/n8,p,s,m,a,ideal,,,1.01,0.99,1.03,reproduced\n")
            with open(doc, "w") as f:
                f.write("A\n\n.. lab-results: begin (smartt-lab tables writes this part)\n"
                        "old\n.. lab-results: end\n\nB\n")
            args = [LAB, "tables", "--doc", doc, "--results", os.path.join(d, "res")]
            self.assertEqual(subprocess.run(args + ["--check"], stderr=subprocess.PIPE)
                             .returncode, 1)
            self.assertEqual(subprocess.run(args, stdout=subprocess.PIPE).returncode, 0)
            text = read(doc)
            self.assertNotIn("old", text)
            self.assertIn("BDP 16.0 MTUs, buffer 1.0 BDP", text)
            self.assertIn("c/n8", text)
            self.assertTrue(text.startswith("A\n") and text.endswith("B\n"))
            self.assertEqual(subprocess.run(args + ["--check"]).returncode, 0)
            self.assertNotIn("delay line", text)

    def test_tables__the_delay_lines_lateness_from_summary_csv(self):
        with tempfile.TemporaryDirectory() as d:
            doc = os.path.join(d, "x.rst")
            res = os.path.join(d, "res", "run1")
            os.makedirs(res)
            with open(os.path.join(res, "regime.csv"), "w") as f:
                f.write(",".join(regime.COLUMNS) + "\n"
                        "incast,n8,host,native,100000000,5409.760,4224,67622,67622,13524,"
                        "54098,1\n")
            with open(os.path.join(res, "claims.csv"), "w") as f:
                f.write("claim,paper,statement,metric,algo,baseline,paper_value,htsim_value,"
                        "lab_ratio_median,lab_ci_low,lab_ci_high,verdict\n")
            with open(os.path.join(res, "summary.csv"), "w") as f:
                f.write("experiment,where,mode,kernel,algo,seed,metric,value,case\n")
                for seed, share, p99, mx in ((1, 0.01, 100, 900), (2, 0.02, 300, 2000),
                                             (3, 0.10, 50, 700)):
                    for m, v in (("delay_late_share", share), ("delay_late_p99_us", p99),
                                 ("delay_late_max_us", mx), ("retrans", 5)):
                        f.write("incast,host,native,6.18,cubic,%d,%s,%s,n8\n" % (seed, m, v))
            with open(doc, "w") as f:
                f.write(".. lab-results: begin (smartt-lab tables writes this part)\n"
                        ".. lab-results: end\n")
            subprocess.run([LAB, "tables", "--doc", doc, "--results", os.path.join(d, "res")],
                           stdout=subprocess.PIPE, check=True)
            self.assertIn("delay line (htb+delayline), over 3 runs: packets released later "
                          "than a tenth of the link's delay, a median 2.0 % of a run's (at "
                          "most 10.0 %); p99 lateness a median 100 us (at most 300 us); the "
                          "latest 2000 us", read(doc).replace("\n", " "))


if __name__ == "__main__":
    unittest.main()
