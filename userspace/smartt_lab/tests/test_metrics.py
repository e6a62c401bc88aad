# SPDX-License-Identifier: GPL-2.0
"""metrics: the pure functions on synthetic traces."""
import unittest

from smartt_lab import metrics


class Percentile(unittest.TestCase):
    def test_percentile__interpolates(self):
        xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        self.assertEqual(metrics.percentile(xs, 50), 5.5)
        self.assertAlmostEqual(metrics.percentile(xs, 99), 9.91)
        self.assertEqual(metrics.percentile(xs, 100), 10)
        self.assertEqual(metrics.percentile(xs, 0), 1)

    def test_percentile__unsorted_and_empty(self):
        self.assertEqual(metrics.percentile([3, 1, 2], 50), 2)
        self.assertIsNone(metrics.percentile([], 50))
        with self.assertRaises(ValueError):
            metrics.percentile([1], 101)


class Jain(unittest.TestCase):
    def test_jain__equal_shares_is_one(self):
        self.assertEqual(metrics.jain([5, 5, 5, 5]), 1.0)

    def test_jain__one_takes_all(self):
        self.assertAlmostEqual(metrics.jain([10, 0, 0, 0]), 0.25)

    def test_jain__two_to_one(self):
        # (3)^2 / (2 * 5) = 0.9
        self.assertAlmostEqual(metrics.jain([1, 2]), 0.9)

    def test_jain__negative_refused(self):
        with self.assertRaises(ValueError):
            metrics.jain([1, -1])


class Ideal(unittest.TestCase):
    def test_wire_bytes__per_segment_overhead(self):
        # 10000 bytes in 4172-byte segments: 3 segments of 66 header bytes
        self.assertEqual(metrics.wire_bytes(10000, 4172, 66), 10000 + 3 * 66)
        self.assertEqual(metrics.wire_bytes(4172, 4172, 66), 4172 + 66)
        self.assertEqual(metrics.wire_bytes(0, 4172, 66), 0)

    def test_ideal_fct__incast(self):
        # 8 x 1 MB through 400 Mbit/s: 8 * (1048576 + 252 * 66) * 8 / 4e8 s + 100 us
        total = 8 * 1048576
        want = (total + 2011 * 66) * 8 / 4e8 + 100e-6
        self.assertEqual(-(-total // 4172), 2011)
        self.assertAlmostEqual(metrics.ideal_fct(total, 400e6, 100e-6, 4172, 66), want)

    def test_fct_stats__failed_left_out(self):
        s = metrics.fct_stats([0.1, 0.2, None, 0.3])
        self.assertEqual(s["failed"], 1)
        self.assertEqual(s["max"], 0.3)
        self.assertAlmostEqual(s["p50"], 0.2)


class Series(unittest.TestCase):
    def test_rate_series__bins_to_bits_per_second(self):
        s = metrics.rate_series([(0, 1250), (2, 2500)], 0.001, 0.0, 0.004)
        self.assertEqual([t for t, _ in s], [0.0, 0.001, 0.002, 0.003])
        self.assertEqual([r for _, r in s], [1e7, 0.0, 2e7, 0.0])

    def test_jain_over_time__only_active_flows(self):
        series = {0: [(0.0, 10), (1.0, 10)], 1: [(0.0, 0), (1.0, 10)]}
        js = metrics.jain_over_time(series, lambda f, t: f == 0 or t >= 1.0)
        self.assertEqual(js, [(1.0, 1.0)])

    def test_convergence_time__last_dip(self):
        js = [(0.0, 0.5), (0.1, 0.95), (0.2, 0.7), (0.3, 0.92), (0.4, 0.99)]
        self.assertAlmostEqual(metrics.convergence_time(js, 0.0, 0.9), 0.3)
        self.assertEqual(metrics.convergence_time(js, 0.3, 0.9), 0.0)
        self.assertIsNone(metrics.convergence_time([(0.0, 0.5), (0.1, 0.6)], 0.0, 0.9))

    def test_recovery_time__dip_and_back(self):
        agg = [(t / 10, 100.0) for t in range(10)]            # 0.0 .. 0.9: 100
        agg += [(1.0, 20.0), (1.1, 50.0), (1.2, 95.0), (1.3, 99.0), (1.4, 100.0)]
        self.assertAlmostEqual(metrics.recovery_time(agg, 1.0, 0.5, 0.9), 0.2)
        self.assertEqual(metrics.recovery_time(agg[:10] + [(1.0, 95.0)], 1.0, 0.5, 0.9), 0.0)
        self.assertIsNone(metrics.recovery_time(agg[:10] + [(1.0, 10.0)], 1.0, 0.5, 0.9))

    def test_recovery_time__hold(self):
        agg = [(0.0, 100.0), (0.5, 100.0), (1.0, 10.0), (1.1, 95.0), (1.2, 10.0),
               (1.3, 95.0), (1.4, 95.0), (1.5, 95.0)]
        # back at 1.1 but down again at 1.2: with a hold of 0.15 s it is 1.3
        self.assertAlmostEqual(metrics.recovery_time(agg, 1.0, 1.0, 0.9, 0.15), 0.3)

    def test_queue_stats(self):
        s = metrics.queue_stats([(i * 1e-5, i) for i in range(101)])
        self.assertEqual(s["peak"], 100)
        self.assertEqual(s["p99"], 99)
        self.assertIsNone(metrics.queue_stats([])["peak"])


class Buckets(unittest.TestCase):
    def test_slowdown_buckets__by_size(self):
        flows = [(5000, 2.0, 1.0), (8000, 4.0, 1.0), (50000, 3.0, 1.0), (2 * 10**6, 1.5, 1.0),
                 (50000, None, 1.0)]
        rows = metrics.slowdown_buckets(flows, [10**4, 10**5, 10**6])
        self.assertEqual([r[0] for r in rows], ["<=10k", "10k-100k", ">1M"])
        self.assertEqual(rows[0][1], 2)
        self.assertAlmostEqual(rows[0][2], 3.0)
        self.assertEqual(rows[1][1], 1)

    def test_sample_cdf__inverse(self):
        cdf = [[0, 0], [100, 0.5], [1000, 1.0]]
        self.assertEqual(metrics.sample_cdf(cdf, 0.25), 50)
        self.assertEqual(metrics.sample_cdf(cdf, 0.75), 550)
        with self.assertRaises(ValueError):
            metrics.sample_cdf([[0, 0], [1, 0.5]], 0.1)


if __name__ == "__main__":
    unittest.main()
