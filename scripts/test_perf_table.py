"""Tests of scripts/perf_table.py on a made-up report."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_table  # noqa: E402


def row(impl, n, ms, check="ok", op="sum"):
    return {"impl": impl, "type": "float", "op": op, "n": n, "cold_ms": ms, "hot_ms": None, "check": check}


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

    def test_geomean(self):
        self.assertAlmostEqual(perf_table.geomean([1.0, 4.0]), 2.0)
        self.assertIsNone(perf_table.geomean([]))


if __name__ == "__main__":
    unittest.main()
