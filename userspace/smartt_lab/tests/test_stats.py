# SPDX-License-Identifier: GPL-2.0
"""stats: the bootstrap on known distributions, the paired ratios, the
verdict rule; claims: matching, evaluation and the reference figures."""
import random
import unittest

from smartt_lab import claims, stats


class Bootstrap(unittest.TestCase):
    def test_bootstrap_ci__covers_the_median_of_a_known_distribution(self):
        # 200 draws of a normal(10, 2): the median's standard error is
        # about 1.2533 x 2 / sqrt(200) = 0.18, so a 95 % interval is about
        # +-0.35 wide around the sample median and holds the true median 10
        rng = random.Random(7)
        xs = [rng.gauss(10.0, 2.0) for _ in range(200)]
        lo, hi = stats.bootstrap_ci(xs, seed=1)
        self.assertLess(lo, 10.0)
        self.assertGreater(hi, 10.0)
        self.assertGreater(hi - lo, 0.2)
        self.assertLess(hi - lo, 1.0)

    def test_bootstrap_ci__coverage_is_about_95_percent(self):
        # 200 samples of 30 exponential draws (median ln 2): the interval
        # should hold the true median in roughly 95 % of them; a bootstrap
        # of the median with n=30 is a little liberal, so 85..100 %
        rng = random.Random(11)
        true = 0.6931471805599453
        hit = 0
        for i in range(200):
            xs = [rng.expovariate(1.0) for _ in range(30)]
            lo, hi = stats.bootstrap_ci(xs, boot=1000, seed=i)
            hit += lo <= true <= hi
        self.assertGreaterEqual(hit, 170)
        self.assertLessEqual(hit, 200)

    def test_bootstrap_ci__three_values_span_them_one_value_is_a_point(self):
        lo, hi = stats.bootstrap_ci([1.0, 2.0, 3.0], seed=0)
        self.assertEqual((lo, hi), (1.0, 3.0))
        self.assertEqual(stats.bootstrap_ci([4.0]), (4.0, 4.0))
        self.assertIsNone(stats.bootstrap_ci([]))

    def test_bootstrap_ci__same_seed_same_interval(self):
        xs = [0.9, 1.1, 1.0, 1.3, 0.8]
        self.assertEqual(stats.bootstrap_ci(xs, seed=3), stats.bootstrap_ci(xs, seed=3))

    def test_paired_ratios__by_seed_only_common_seeds(self):
        self.assertEqual(stats.paired_ratios({1: 2.0, 2: 3.0, 3: 1.0}, {1: 1.0, 2: 2.0, 4: 9.0}),
                         [2.0, 1.5])
        self.assertEqual(stats.paired_ratios({1: 1.0}, {1: 0.0}), [])


class Verdict(unittest.TestCase):
    def test_verdict__lower_claim(self):
        self.assertEqual(stats.verdict(0.7, 0.95, "<", 1.0, 3), "reproduced")
        self.assertEqual(stats.verdict(0.9, 1.05, "<", 1.0, 3), "inconclusive")
        self.assertEqual(stats.verdict(1.0, 1.4, "<", 1.0, 3), "not reproduced")
        self.assertEqual(stats.verdict(1.2, 1.4, "<", 1.0, 10), "not reproduced")

    def test_verdict__higher_claim(self):
        self.assertEqual(stats.verdict(0.92, 0.97, ">", 0.9, 3), "reproduced")
        self.assertEqual(stats.verdict(0.85, 0.95, ">", 0.9, 3), "inconclusive")
        self.assertEqual(stats.verdict(0.5, 0.9, ">", 0.9, 3), "not reproduced")

    def test_verdict__never_from_a_point_or_too_few_seeds(self):
        # one or two seeds: no interval worth the name
        self.assertEqual(stats.verdict(0.5, 0.5, "<", 1.0, 1), "inconclusive")
        self.assertEqual(stats.verdict(0.5, 0.6, "<", 1.0, 2), "inconclusive")
        self.assertEqual(stats.verdict(None, None, "<", 1.0, 5), "inconclusive")
        with self.assertRaises(ValueError):
            stats.verdict(0.5, 0.6, "<=", 1.0, 5)


def rows(values):
    """summary rows of {(case, algo): {seed: value}} for metric m."""
    out = []
    for (case, algo), by in values.items():
        for s, v in by.items():
            out.append({"experiment": "e", "where": "host", "mode": "native", "kernel": "6.1",
                        "algo": algo, "seed": str(s), "metric": "m", "value": str(v),
                        "case": case})
    return out


class Ratios(unittest.TestCase):
    def test_ratios__every_algo_against_dctcp_and_cubic(self):
        r = stats.ratios(rows({("c", "bpf_smartt:nscc"): {1: 1.0, 2: 2.0, 3: 3.0},
                               ("c", "bpf_dctcp"): {1: 2.0, 2: 4.0, 3: 6.0},
                               ("c", "cubic"): {1: 1.0, 2: 1.0, 3: 1.0}}), ["m"])
        got = {(x["algo"], x["baseline"]): x for x in r}
        self.assertEqual(got[("bpf_smartt:nscc", "bpf_dctcp")]["ratio_median"], 0.5)
        self.assertEqual(got[("bpf_smartt:nscc", "bpf_dctcp")]["ci_low"], 0.5)
        self.assertEqual(got[("bpf_smartt:nscc", "bpf_dctcp")]["n"], 3)
        self.assertEqual(got[("bpf_smartt:nscc", "cubic")]["ratio_median"], 2.0)
        self.assertIn(("cubic", "bpf_dctcp"), got)
        self.assertIn(("bpf_dctcp", "cubic"), got)
        self.assertNotIn(("cubic", "cubic"), got)

    def test_ratios__path_selectors_also_against_oblivious_and_ecmp(self):
        r = stats.ratios(rows({("c", "transport:reps:smartt"): {1: 1.0},
                               ("c", "transport:oblivious:smartt"): {1: 2.0},
                               ("c", "transport:ecmp:smartt"): {1: 4.0}}), ["m"])
        base = {x["baseline"] for x in r if x["algo"] == "transport:reps:smartt"}
        self.assertEqual(base, {"transport:oblivious:smartt", "transport:ecmp:smartt"})

    def test_ratios__the_simulator_pairs_only_with_itself(self):
        rs = rows({("c", "dctcp"): {1: 2.0}, ("c", "smartt:nscc"): {1: 1.0}})
        sim = rows({("c", "smartt:nscc"): {1: 5.0}})
        for x in sim:
            x["where"] = "htsim"
        r = stats.ratios(rs + sim, ["m"])
        self.assertEqual([(x["case"], x["ratio_median"]) for x in r
                          if x["algo"] == "smartt:nscc"], [("c", 0.5)])


EXP = {"name": "e", "claims": [
    {"id": "lower", "paper": "p.txt", "statement": "s", "metric": "m",
     "algo": "smartt:nscc", "baseline": "dctcp", "direction": "<", "bound": 1.0,
     "htsim": {"metric": "queue_mean_bytes",
               "match": {"scenario": "incast", "n_senders": "{senders}",
                         "size_bytes": "2000000", "cc": "nscc"}, "scale": 178450}},
    {"id": "near", "paper": "p.txt", "statement": "s", "metric": "m",
     "algo": "smartt:nscc", "baseline": "ideal", "direction": "<", "bound": 1.1},
    {"id": "absent", "paper": "p.txt", "statement": "s", "metric": "m",
     "algo": "transport:reps", "baseline": "transport:oblivious", "direction": "<",
     "bound": 1.0}]}


class Claims(unittest.TestCase):
    def test_matches__host_names_and_transport_cc(self):
        self.assertTrue(claims.matches("bpf_smartt:nscc", "smartt:nscc"))
        self.assertTrue(claims.matches("smartt:nscc", "smartt:nscc"))
        self.assertFalse(claims.matches("bpf_smartt:smartt", "smartt:nscc"))
        self.assertTrue(claims.matches("transport:reps:smartt", "transport:reps"))
        self.assertFalse(claims.matches("transport:reps-single:smartt", "transport:reps"))
        self.assertTrue(claims.matches("bpf_dctcp", "dctcp"))

    def test_evaluate__verdicts_follow_the_intervals(self):
        rs = rows({("n8", "bpf_smartt:nscc"): {1: 1.0, 2: 1.05, 3: 1.02},
                   ("n8", "bpf_dctcp"): {1: 2.0, 2: 2.1, 3: 2.2}})
        got = {c["claim"]: c for c in claims.evaluate(EXP, rs, lambda c: {"senders": 8})}
        self.assertEqual(set(got), {"lower/n8", "near/n8"})
        self.assertEqual(got["lower/n8"]["verdict"], "reproduced")
        self.assertLess(got["lower/n8"]["lab_ci_high"], 1.0)
        self.assertEqual(got["near/n8"]["verdict"], "reproduced")
        self.assertEqual(got["near/n8"]["lab_ratio_median"], 1.02)
        # the reference's NSCC 8:1 2 MB incast: 127285 B of mean queue
        self.assertEqual(got["lower/n8"]["htsim_value"], "%.3f" % (127285 / 178450.0))
        # the same claims' figures are in ratios.csv's rows
        self.assertEqual([x["baseline"] for x in claims.self_ratio_rows(got.values())],
                         ["ideal"])

    def test_evaluate__wrong_side_is_not_reproduced_one_seed_inconclusive(self):
        rs = rows({("n8", "bpf_smartt:nscc"): {1: 3.0, 2: 3.1, 3: 3.2},
                   ("n8", "bpf_dctcp"): {1: 1.0, 2: 1.0, 3: 1.0}})
        got = {c["claim"]: c["verdict"] for c in claims.evaluate(EXP, rs, lambda c: {})}
        self.assertEqual(got["lower/n8"], "not reproduced")
        self.assertEqual(got["near/n8"], "not reproduced")
        one = rows({("n8", "bpf_smartt:nscc"): {1: 0.5}, ("n8", "bpf_dctcp"): {1: 1.0}})
        got = {c["claim"]: c["verdict"] for c in claims.evaluate(EXP, one, lambda c: {})}
        self.assertEqual(got["lower/n8"], "inconclusive")

    def test_every_experiment_claim_names_a_reference_figure_that_exists(self):
        import os
        from smartt_lab import config
        ref = claims.load_reference()
        self.assertGreater(len(ref), 100)
        for path in config.list_experiments():
            e = config.load(path)
            for cl in e.get("claims") or []:
                if cl.get("htsim"):
                    for c in e["case_names"]:
                        tr = dict(config.case_traffic(e, c))
                        v = claims.ref_value(ref, cl["htsim"], tr)
                        if "senders" not in tr or int(tr["senders"]) in (8, 16):
                            self.assertIsNotNone(v, (os.path.basename(path), cl["id"], c))


if __name__ == "__main__":
    unittest.main()
