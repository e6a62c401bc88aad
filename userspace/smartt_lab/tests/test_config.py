# SPDX-License-Identifier: GPL-2.0
"""config: experiment files and traffic patterns."""
import copy
import unittest

from smartt_lab import config

BASE = {
    "name": "t", "fabric": {"hosts": 8, "leaves": 2, "spines": 2, "rate": "100mbit",
                            "buffer": "100k", "kmin": "20%", "kmax": "80%", "mtu": 4224},
    "traffic": {"pattern": "incast", "size": "64k",
                "cases": {"n2": {"senders": 2}, "n4": {"senders": 4}}},
    "algos": {"host": ["cubic"]},
    "quick": {"cases": ["n2"], "traffic": {"size": "8k"}, "run": {"end_s": 3}},
}
HOSTS = {"h%d" % i: {"leaf": "l%d" % (i // 4)} for i in range(8)}


class Load(unittest.TestCase):
    def test_every_shipped_experiment_loads(self):
        names = []
        for path in config.list_experiments():
            for quick in (False, True):
                e = config.load(path, quick)
                names.append(e["name"])
                for c in e["case_names"]:
                    fl = config.flows(e, c, {"h%d" % i: {"leaf": "l%d" % (i * int(
                        e["fabric"].get("leaves", 1)) // int(e["fabric"]["hosts"]))}
                        for i in range(int(e["fabric"]["hosts"]))}, 1)
                    self.assertTrue(fl, "%s %s: no flows" % (e["name"], c))
        self.assertIn("incast", names)

    def test_resolve__derived_values(self):
        e = config.resolve(copy.deepcopy(BASE))
        d = e["derived"]
        self.assertEqual(d["buffer"], 102400)
        self.assertEqual(d["kmin"], 20480)
        self.assertEqual(d["kmax"], 81920)
        self.assertEqual(d["rate_bps"], 10**8)
        self.assertEqual(d["mss"], 4172)
        self.assertEqual(d["kmin_ns"], 20480 * 8 * 10)   # 20480 B at 100 Mbit/s
        self.assertEqual(e["case_names"], ["n2", "n4"])
        self.assertEqual(e["run"]["end_s"], 20.0)

    def test_resolve__quick_overrides(self):
        e = config.resolve(copy.deepcopy(BASE), quick=True)
        self.assertEqual(e["case_names"], ["n2"])
        self.assertEqual(e["traffic"]["size"], "8k")
        self.assertEqual(e["run"]["end_s"], 3)

    def test_resolve__errors_name_the_key(self):
        for path, value, words in ((("fabric", "rate"), "fast", "rate"),
                                   (("fabric", "kmin"), "90%", "kmin"),
                                   (("traffic", "pattern"), "zigzag", "pattern"),
                                   (("run", "bogus"), 1, "bogus"),
                                   (("fabric", "bogus"), 1, "bogus")):
            e = copy.deepcopy(BASE)
            e.setdefault(path[0], {})[path[1]] = value
            with self.assertRaises(config.ConfigError) as cm:
                config.resolve(e)
            self.assertIn(words, str(cm.exception))
        e = copy.deepcopy(BASE)
        del e["fabric"]["buffer"]
        with self.assertRaisesRegex(config.ConfigError, "buffer"):
            config.resolve(e)

    def test_parse__units(self):
        self.assertEqual(config.parse_size("1M"), 1 << 20)
        self.assertEqual(config.parse_size("1MB"), 10**6)
        self.assertEqual(config.parse_rate("400mbit"), 4 * 10**8)
        self.assertEqual(config.parse_time("20us"), 20000)
        with self.assertRaises(config.ConfigError):
            config.parse_size("lots")


class Flows(unittest.TestCase):
    def test_incast__senders_to_receiver(self):
        e = config.resolve(copy.deepcopy(BASE))
        fl = config.flows(e, "n4", HOSTS, 1)
        self.assertEqual(len(fl), 4)
        self.assertTrue(all(f["dst"] == "h0" and f["src"] != "h0" for f in fl))
        self.assertEqual(len({f["src"] for f in fl}), 4)
        self.assertTrue(all(f["size"] == 65536 and f["start_s"] == 0 for f in fl))

    def test_permutation__derangement_cross_leaf(self):
        e = copy.deepcopy(BASE)
        e["traffic"] = {"pattern": "permutation", "size": "1M", "cross_leaf": True}
        e = config.resolve(e)
        for seed in range(1, 6):
            fl = config.flows(e, "all", HOSTS, seed)
            self.assertEqual(sorted(f["src"] for f in fl), sorted(HOSTS))
            self.assertEqual(sorted(f["dst"] for f in fl), sorted(HOSTS))
            self.assertTrue(all(HOSTS[f["src"]]["leaf"] != HOSTS[f["dst"]]["leaf"] for f in fl))

    def test_flows__deterministic_per_seed(self):
        e = copy.deepcopy(BASE)
        e["traffic"] = {"pattern": "permutation", "size": "1M"}
        e = config.resolve(e)
        self.assertEqual(config.flows(e, "all", HOSTS, 3), config.flows(e, "all", HOSTS, 3))
        self.assertNotEqual([f["dst"] for f in config.flows(e, "all", HOSTS, 3)],
                            [f["dst"] for f in config.flows(e, "all", HOSTS, 4)])

    def test_all_to_all__every_pair(self):
        e = copy.deepcopy(BASE)
        e["traffic"] = {"pattern": "all_to_all", "size": "64k"}
        e = config.resolve(e)
        fl = config.flows(e, "all", HOSTS, 1)
        self.assertEqual(len(fl), 8 * 7)
        self.assertEqual(len({(f["src"], f["dst"]) for f in fl}), 56)

    def test_websearch__load_and_sizes(self):
        e = copy.deepcopy(BASE)
        e["traffic"] = {"pattern": "websearch", "load": 0.5, "duration_s": 20,
                        "cdf": [[1000, 0], [10000, 0.5], [100000, 1.0]]}
        e = config.resolve(e)
        fl = config.flows(e, "all", HOSTS, 1)
        sizes = [f["size"] for f in fl]
        self.assertTrue(all(1000 <= s <= 100000 for s in sizes))
        # offered load: 8 senders x 0.5 x 100 Mbit/s for 20 s, within 15 %
        offered = sum(sizes) * 8 / 20
        self.assertAlmostEqual(offered / (8 * 0.5 * 1e8), 1.0, delta=0.15)
        self.assertTrue(all(0 <= f["start_s"] < 20 for f in fl))

    def test_hotspot__background_and_hotspot(self):
        e = copy.deepcopy(BASE)
        e["traffic"] = {"pattern": "hotspot", "duration_s": 2, "t_hot_s": 1, "senders": 3,
                        "receiver": "h7"}
        e = config.resolve(e)
        fl = config.flows(e, "all", HOSTS, 1)
        hot = [f for f in fl if f["role"] == "hotspot"]
        bg = [f for f in fl if f["role"] == "background"]
        self.assertEqual(len(hot), 3)
        self.assertTrue(all(f["dst"] == "h7" and f["start_s"] == 1 for f in hot))
        self.assertEqual(len(bg), 7)
        self.assertTrue(all(f["dst"] != "h7" and f["src"] != "h7" for f in bg))


if __name__ == "__main__":
    unittest.main()
