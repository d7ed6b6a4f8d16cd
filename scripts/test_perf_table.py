"""Tests of scripts/perf_table.py on a made-up report."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_table  # noqa: E402


def row(impl, n, ms, check="ok", op="sum", type_name="float", data=None):
    r = {"impl": impl, "type": type_name, "op": op, "n": n, "cold_ms": ms, "hot_ms": None, "check": check}
    if data is not None:
        r["data"] = data
    return r


class PerfTableTest(unittest.TestCase):
    def test_ratios_need_both_rows_checked_ok(self):
        rows = [row("cured", 1024, 0.002), row("cub", 1024, 0.004), row("cured", 2048, 0.002),
                row("cub", 2048, 0.004, "got 1 want 2"), row("cub", 4096, 0.004)]
        self.assertEqual(perf_table.ratios(rows, "cub", "cured"), {1024: 2.0})

    def test_targets_are_judged(self):
        rows = []
        for e in range(10, 33):
            rows += [row("cured", 2 ** e, 1.0), row("cub", 2 ** e, 2.0 if e < 30 else 0.97)]
        rows += [row("cured-blocking", 2 ** 20, 1.0), row("thrust", 2 ** 20, 2.0)]
        text = "\n".join(perf_table.tables([{"run": {}, "rows": rows}]))
        self.assertIn("geometric mean over 2^14..2^22: 2.00 (target at least 1.5: met)", text)
        self.assertIn("smallest over 2^10..2^32: 0.97 (target at least 0.98: MISSED)", text)
        self.assertIn("n <= 2^20: 2.00 (target at least 3.0: MISSED)", text)

    def test_the_floor_gives_a_column_and_a_bound(self):
        rows = []
        for e in range(10, 24):
            rows += [row("cured", 2 ** e, 1.0), row("cub", 2 ** e, 1.5), row("floor", 2 ** e, 0.75, "n/a: reads only")]
        rows.append(row("floor", 2 ** 24, 0.5, "got 1 want 2"))  # not the floor's own check: left out
        rows += [row("cured", 2 ** 24, 1.0), row("cub", 2 ** 24, 1.5)]
        text = "\n".join(perf_table.tables([{"run": {}, "rows": rows}]))
        self.assertIn("| n | cured ms | cub ms | cub / cured | floor ms | cub / floor |", text)
        self.assertIn("| 1024 | 1.0000 | 1.5000 | 1.50 | 0.7500 | 2.00 |", text)
        self.assertIn("| 16777216 | 1.0000 | 1.5000 | 1.50 | - | - |", text)
        self.assertIn("- bound: geometric mean of cub / floor over 2^14..2^22: 2.00", text)
        self.assertIn("- smallest over 2^10..2^32 (measured: 1024..16777216 only): 1.50", text)
        # a floor row never stands in for cured or CUB
        self.assertEqual(perf_table.ratios([row("floor", 8, 1.0, "n/a: reads only"), row("cub", 8, 2.0)], "cub", "cured"),
                         {})

    def test_data_families_are_tables_of_their_own(self):
        rows = [row("cured", 1024, 1.0), row("cub", 1024, 2.0),
                row("cured", 1024, 1.0, data="exact"), row("cub", 1024, 4.0, data="normal"),
                row("cured", 1024, 1.0, data="normal")]
        text = "\n".join(perf_table.tables([{"run": {}, "rows": rows}]))
        self.assertIn("### float sum\n", text)
        self.assertIn("### float sum (normal data)\n", text)
        self.assertIn("| 1024 | 1.0000 | 2.0000 | 2.00 |", text)
        self.assertIn("| 1024 | 1.0000 | 4.0000 | 4.00 |", text)

    def test_exact_sum_targets_are_judged(self):
        rows = []
        for e in range(10, 31):
            n = 2 ** e
            # float normal: 0.95 from 2^22 up, 0.80 in the middle, 1 us extra below
            # double spread: 0.85 from 2^22 up (misses 0.9), 0.70 in the middle (misses 0.75)
            for data, type_name, large, middle, small_extra in (("normal", "float", 1 / 0.95, 1 / 0.80, 0.001),
                                                                 ("spread", "double", 1 / 0.85, 1 / 0.70, 0.002)):
                exact_ms = large if e >= 22 else middle if e > 16 else 1.0 + small_extra
                rows += [row("cured", n, 1.0, type_name=type_name, data=data),
                         row("cub", n, 1.1, type_name=type_name, data=data),
                         row("cured", n, exact_ms, op="exact_sum", type_name=type_name, data=data)]
            # a row that failed its check is left out
            rows += [row("cured", n, 1.0, type_name="half", data="spread"),
                     row("cured", n, 2.0, op="exact_sum", type_name="half", data="spread",
                         check="ok" if e != 28 else "got 1 want 2")]
        text = "\n".join(perf_table.exact_tables([{"run": {}, "rows": rows}]))
        self.assertTrue(text.startswith("## Exact sums"))
        self.assertIn("| 1024 | 1.0000 | 1.1000 | 1.0010 | 1.00 | 1.00 |", text)
        normal = text.split("### float exact_sum against cured::sum (normal data)")[1].split("###")[0]
        self.assertIn("smallest over n >= 2^22: 0.95 (target at least 0.9: met)", normal)
        self.assertIn("smallest over 2^16..2^22: 0.80 (target at least 0.75: met)", normal)
        self.assertIn("largest over n <= 2^16: 1.00 us (target at most 1.5 us: met)", normal)
        spread = text.split("### double exact_sum against cured::sum (spread data)")[1].split("###")[0]
        self.assertIn("smallest over n >= 2^22: 0.85 (target at least 0.9: MISSED)", spread)
        self.assertIn("smallest over 2^16..2^22: 0.70 (target at least 0.75: MISSED)", spread)
        self.assertIn("largest over n <= 2^16: 2.00 us (target at most 1.5 us: MISSED)", spread)
        half = text.split("### half exact_sum against cured::sum (spread data)")[1].split("###")[0]
        self.assertNotIn(f"| {2 ** 28} |", half)
        self.assertEqual(perf_table.exact_tables([{"rows": [row("cured", 1024, 1.0)]}]), [])

    def test_exact_dot_targets_are_judged(self):
        rows = []
        for e in (20, 24, 26):
            n = 2 ** e
            rows += [row("cured", n, 1.0, op="exact_dot", type_name="double", data="normal"),
                     row("cub", n, 0.9, op="dot", type_name="double", data="normal"),
                     row("cublas", n, 0.8, op="dot", type_name="double", data="normal"),
                     row("floor", n, 0.85, "n/a: reads only", op="exact_dot", type_name="double", data="normal")]
        text = "\n".join(perf_table.dot_tables([{"rows": rows}]))
        self.assertTrue(text.startswith("## Exact dot products"))
        self.assertIn(f"| {2 ** 24} | 1.0000 | 0.9000 | 0.8000 | 0.8500 | 0.90 | 0.80 | 0.85 |", text)
        self.assertIn("exact_dot / cub dot, smallest over n >= 2^24: 0.90 (target at least 0.85: met)", text)
        self.assertIn("exact_dot / cublas dot, smallest over n >= 2^24: 0.80 (target at least 0.9: MISSED)", text)

    def test_geomean(self):
        self.assertAlmostEqual(perf_table.geomean([1.0, 4.0]), 2.0)
        self.assertIsNone(perf_table.geomean([]))


if __name__ == "__main__":
    unittest.main()
