# SPDX-License-Identifier: GPL-2.0
"""report: the text table's cells over seeds."""
import unittest

from smartt_lab import report


def rows(algo, metric, values):
    return [{"experiment": "e", "case": "all", "algo": algo, "seed": str(i + 1),
             "metric": metric, "value": str(v)} for i, v in enumerate(values)]


class Table(unittest.TestCase):
    def cells(self, values):
        out = report.table(rows("cubic", "fct_p99_ms", values))
        line = [ln for ln in out.splitlines() if "cubic" in ln]
        self.assertEqual(len(line), 1)
        return line[0].split()[2]

    def test_table__seeds_that_differ_give_min_max(self):
        # not mean~max (which read as a range that starts above the minimum)
        self.assertEqual(self.cells([3.0, 1.0, 2.0]), "1.0~3.0")

    def test_table__one_seed_or_agreeing_seeds_give_the_value(self):
        self.assertEqual(self.cells([2.5]), "2.5")
        self.assertEqual(self.cells([2.5, 2.5]), "2.5")

    def test_table__missing_metric_is_a_dash(self):
        out = report.table(rows("cubic", "fct_p99_ms", [1]) +
                           rows("bbr", "retrans", [4]))
        bbr = [ln for ln in out.splitlines() if ln.split()[1:2] == ["bbr"]][0]
        self.assertIn("-", bbr.split()[2:])


if __name__ == "__main__":
    unittest.main()
