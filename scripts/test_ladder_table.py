"""Tests of scripts/ladder_table.py on a made-up report."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder_table  # noqa: E402


def row(impl, ms, gbps, check="ok"):
    return {"impl": impl, "type": "int32", "op": "sum", "n": 4194304, "cold_ms": ms, "hot_ms": None,
            "gbps": gbps, "check": check}


REPORT = {
    "run": {"device": "test GPU", "ceiling_gbps": 4000.0, "command": "cured-bench ...", "date": "today"},
    "rows": [row("step1", 1.0, 16.0), row("step2", 0.5, 32.0), row("step3", 0.25, 64.0, "got 1 want 2"),
             row("cub", 0.01, 1600.0), {**row("step1", 9.0, 1.0), "n": 1024}],
}


class LadderTableTest(unittest.TestCase):
    def test_step_and_cumulative_speedups(self):
        lines = ladder_table.build_table(REPORT, "int32", 4194304)
        step2 = next(l for l in lines if l.startswith("| step2 "))
        cells = [c.strip() for c in step2.split("|")[1:-1]]
        self.assertEqual(cells[3], "2.00")   # over step 1
        self.assertEqual(cells[4], "2.00")   # cumulative
        self.assertEqual(cells[5], "0.8")    # 32 / 4000 GB/s
        self.assertEqual(cells[7], "3.456")  # Harris' kernel 2
        self.assertEqual(cells[9], "2.33")   # Harris' step speedup

    def test_checks_and_peers_are_carried(self):
        lines = ladder_table.build_table(REPORT, "int32", 4194304)
        self.assertIn("got 1 want 2", next(l for l in lines if l.startswith("| step3 ")))
        cub = next(l for l in lines if l.startswith("| cub "))
        self.assertIn("100.00", cub)  # cumulative over step 1
        self.assertEqual(sum(1 for l in lines if l.startswith("| step")), 3)  # other n excluded

    def test_every_line_has_the_same_number_of_columns(self):
        lines = ladder_table.build_table(REPORT, "int32", 4194304)
        self.assertEqual({l.count("|") for l in lines}, {12})

    def test_missing_rows_are_an_error(self):
        with self.assertRaises(ValueError):
            ladder_table.build_table(REPORT, "float", 4194304)


if __name__ == "__main__":
    unittest.main()
