# SPDX-License-Identifier: GPL-2.0
"""smartt-perf's output of a guest's run (tests/transport_run/: a
permutation --quick of transport:reps under the time warp, its JSON
documents, --raw files and counters as the lab kept them) turned into the
driver's result and the metrics."""
import json
import os
import unittest

from smartt_lab import analysis, config, transport

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "transport_run")


def captured(name):
    with open(os.path.join(RUN, name)) as f:
        return f.read()


class Output(unittest.TestCase):
    """smartt-perf's output of a guest's run (permutation, transport:reps)."""

    def setUp(self):
        with open(os.path.join(RUN, "plan.json")) as f:
            self.plan = json.load(f)
        self.t0_real = self.plan["t0_real"]

    def flow(self, i):
        f = [x for x in self.plan["flows"] if x["id"] == i][0]
        doc = json.loads(captured("flow-%d.json" % i))
        raw = transport.parse_raw(captured("flow-%d.csv" % i))
        return f, doc, raw

    def test_raw__one_row_per_message(self):
        f, doc, raw = self.flow(0)
        self.assertEqual(len(raw), 1)
        start, fct, err = raw[0]
        self.assertIsNone(err)
        # issued just after the client's first-message time
        self.assertGreaterEqual(start, 0)
        self.assertLess(start, 50 * 10**6)
        self.assertAlmostEqual(fct / 1e3, doc["fct_us"]["max"], delta=1)

    def test_flow_result__fct_bytes_bins_retrans(self):
        # the flow with a retransmission (one packet lost by SACK)
        f, doc, raw = self.flow(6)
        r = transport.flow_result(f, doc, raw, self.t0_real, 0.02, 15)
        self.assertEqual(r["fct_s"], raw[0][1] / 1e9)
        self.assertEqual(r["rx"], f["size"])
        self.assertEqual(r["sent"], f["size"])
        self.assertEqual(sum(b for _, b in r["bins"]), f["size"])
        # completed at its start (its lateness) plus its FCT, in 20 ms bins
        t_done = doc["start_realtime"] - self.t0_real + (raw[0][0] + raw[0][1]) / 1e9
        self.assertEqual(r["bins"][0][0], int(t_done // 0.02))
        self.assertEqual(r["late_s"], doc["start_realtime"] - self.t0_real)
        self.assertEqual(r["retrans"], 1)
        self.assertEqual(r["path"]["lost"], 1)
        self.assertEqual(r["path"]["lb"], "reps")
        self.assertGreater(r["path"]["buckets_used"], 1)
        self.assertIsNone(r["error"])

    def test_flow_result__failed_or_missing(self):
        f, doc, raw = self.flow(0)
        bad = [(raw[0][0], raw[0][1], "Connection timed out")]
        r = transport.flow_result(f, dict(doc, failed=1), bad, self.t0_real, 0.02, 15)
        self.assertIsNone(r["fct_s"])
        self.assertEqual(r["rx"], 0)
        self.assertEqual(r["error"], "Connection timed out")
        r = transport.flow_result(f, None, [], self.t0_real, 0.02, 15, "smartt-perf: timed out")
        self.assertIsNone(r["fct_s"])
        self.assertEqual(r["error"], "smartt-perf: timed out")
        self.assertEqual((r["rx"], r["bins"], r["late_s"]), (0, [], None))

    def test_flow_result__gave_up_but_wrote_its_messages(self):
        # no JSON document (smartt-perf timed out), its --raw rows kept:
        # they count from the flow's planned start
        f = {"id": 2, "size": 0, "start_s": 0.0, "stop_s": None}
        raw = [(0, 30 * 10**6, None), (10 * 10**6, 40 * 10**6, None)]
        r = transport.flow_result(f, None, raw, 0, 0.02, 2.5, "smartt-perf: timed out")
        m = transport.LONG_MSG
        self.assertEqual((r["rx"], r["bins"]), (2 * m, [(1, m), (2, m)]))
        self.assertEqual(r["error"], "smartt-perf: timed out")
        self.assertIsNone(r["late_s"])
        self.assertIsNone(r["retrans"])

    def test_long_flow__bytes_at_completion_times(self):
        f = {"id": 9, "size": 0, "start_s": 0.0, "stop_s": None}
        doc = {"start_realtime": 10.0, "failed": 0, "peers": []}
        raw = [(0, 30 * 10**6, None), (0, 45 * 10**6, None), (10 * 10**6, 50 * 10**6, None),
               (20 * 10**6, 0, "Connection timed out"), (30 * 10**6, 90 * 10**6, None)]
        r = transport.flow_result(f, doc, raw, 9.5, 0.02, 0.6)
        m = transport.LONG_MSG
        # completions at 0.53, 0.545, 0.56 s after time 0: bins 26, 27, 28;
        # the one at 0.62 s is after the run's end (0.6 s)
        self.assertEqual(r["bins"], [(26, m), (27, m), (28, m)])
        self.assertEqual((r["rx"], r["sent"]), (3 * m, 5 * m))
        # its own stop comes first
        r = transport.flow_result(dict(f, stop_s=0.55), doc, raw, 9.5, 0.02, 0.6)
        self.assertEqual(r["bins"], [(26, m), (27, m)])
        self.assertIsNone(r["fct_s"])
        self.assertEqual(r["error"], "Connection timed out")

    def test_stats__deltas_summed_over_hosts(self):
        st = json.loads(captured("stats.json"))
        d = transport.stats_delta(st["before"], st["after"])
        self.assertEqual(set(d), set(transport.STATS))
        for metric, name in transport.STATS.items():
            # counters a capture's module did not have yet (cc crp's) count 0
            want = sum(st["after"][h].get(name, 0) - st["before"][h].get(name, 0)
                       for h in st["after"])
            self.assertEqual(d[metric], want, metric)
        self.assertGreater(sum(st["after"][h]["tx_data"] for h in st["after"]), 0)

    def test_parse_stats__proc_lines(self):
        txt = ("tx_packets 12 packets sent (all types)\nretransmits 3 DATA packets "
               "retransmitted\nmem_pages 0 receive memory\nbogus line\n")
        self.assertEqual(transport.parse_stats(txt), {"tx_packets": 12, "retransmits": 3,
                                                      "mem_pages": 0})

    def test_analysis__transport_metrics(self):
        exp = config.load(os.path.join(HERE, "..", "experiments", "permutation.json"), True,
                          guest=True)
        fl = self.plan["lab_flows"]
        st = json.loads(captured("stats.json"))
        flows = []
        for f in fl:
            pf = [x for x in self.plan["flows"] if x["id"] == f["id"]][0]
            doc = json.loads(captured("flow-%d.json" % f["id"]))
            raw = transport.parse_raw(captured("flow-%d.csv" % f["id"]))
            flows.append(transport.flow_result(pf, doc, raw, self.t0_real, 0.02, 15))
        drv = {"flows": flows, "cwnd": [], "events": [], "t_end_s": 3.0, "bin_ms": 20,
               "stats": transport.stats_delta(st["before"], st["after"])}
        res = {"flows": fl, "driver": drv, "ports": [], "queue": {}}
        m = analysis.analyse(exp, "all", res, 0.0075)["metrics"]
        self.assertEqual(m["flows"], len(fl))
        self.assertEqual(m["failed"], 0)
        self.assertEqual(m["retrans"], drv["stats"]["retrans"])
        self.assertEqual(m["nacks"], drv["stats"]["nacks"])
        self.assertNotIn("ecn_flows", m)
        self.assertGreaterEqual(m["fct_max_over_ideal"], 1.0)
        self.assertGreater(m["goodput_mbps"], 0)
        self.assertGreater(m["path_buckets_used"], 1)
        self.assertAlmostEqual(m["fct_max_ms"], max(f["fct_s"] for f in flows) * 1000)
        # a fabric without the delay line: no delay_late_* metrics
        self.assertNotIn("delay_late_p99_us", m)
        # with it: its lateness of the run (the statistics of status --json)
        res["delayline"] = {"released": 400, "late_over_tenth": 10, "late_p50_ns": 2000,
                            "late_p99_ns": 150000, "late_max_ns": 900000, "running": True}
        m = analysis.analyse(exp, "all", res, 0.0075)["metrics"]
        self.assertEqual((m["delay_late_p50_us"], m["delay_late_p99_us"],
                          m["delay_late_max_us"]), (2.0, 150.0, 900.0))
        self.assertAlmostEqual(m["delay_late_share"], 0.025)
