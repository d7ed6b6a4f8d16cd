"""Tests of scripts/segments_table.py on a made-up report."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import segments_table  # noqa: E402

FLOOR = segments_table.FLOOR_CHECK


def row(impl, n, dist, ms, pct=None, vs_cub=None, check="ok", op="sum", type_name="float", segments=1):
    return {"impl": impl, "type": type_name, "op": op, "data": "exact", "n": n, "block": None, "cold_ms": ms,
            "hot_ms": None, "bytes": 4.0 * n, "gbps": 4.0 * n / (ms * 1e6) if ms else None, "pct_ceiling": None,
            "pct_peak": None, "vs_step1": None, "vs_cub": vs_cub, "check": check, "dist": dist,
            "segments": segments, "pct_floor": pct}


def workload(n, dist, floor_ms, cured_pct, vs_cub=None, **kw):
    """Floor, cured and (with vs_cub: CUB's time over cured's) CUB rows of one workload."""
    cured_ms = floor_ms * 100 / cured_pct
    rows = [row("floor", n, dist, floor_ms, check=FLOOR, **kw),
            row("cured", n, dist, cured_ms, cured_pct, vs_cub, **kw)]
    if vs_cub is not None:
        rows.append(row("cub", n, dist, cured_ms * vs_cub, cured_pct / vs_cub, 1.0, **kw))
    return rows


def report(rows):
    return {"run": {"device": "test GPU", "command": "cured-bench --segments-grid", "date": "today"}, "rows": rows}


def line_of(lines, start):
    return next(l for l in lines if l.startswith(start))


BIG, MID = 2 ** 28, 2 ** 24


class SegmentsTableTest(unittest.TestCase):
    def test_tables_and_floor_targets(self):
        rows = (workload(BIG, "uniform:4", 1.0, 92.0, 30.0, segments=2 ** 26)
                + workload(BIG, "powerlaw", 1.0, 84.0, 1.5, segments=3500)
                + workload(BIG, "uniform:268435456", 1.0, 95.0, 150.0)
                + workload(MID, "uniform:4", 0.1, 71.0, 25.0) + workload(MID, "onebig", 0.1, 90.0, 2.0))
        lines, met, missed = segments_table.summary(report(rows))
        self.assertIn("#### float sum\n", lines)
        self.assertIn("| 2^28 | uniform:4 | 67108864 | ", line_of(lines, "| 2^28 | uniform:4 |"))
        self.assertIn("| 92.0 | 85 | 30.00 |", line_of(lines, "| 2^28 | uniform:4 |"))
        self.assertIn("| 71.0 | 70 | 25.00 |", line_of(lines, "| 2^24 | uniform:4 |"))
        # sizes ascending, distributions in order of first appearance
        table = [l for l in lines if l.startswith("| 2^")]
        self.assertEqual([l.split(" | ")[1] for l in table],
                         ["uniform:4", "onebig", "uniform:4", "powerlaw", "uniform:268435456"])
        self.assertIn("- float sum 2^28: >= 85% of floor on every distribution: MISSED (worst 84.0% at 2^28 powerlaw; "
                      "3 measured)", lines)
        self.assertIn("- float sum 2^24: >= 70% of floor on every distribution: met (worst 71.0% at 2^24 uniform:4; "
                      "2 measured)", lines)
        self.assertIn("- float sum: at least as fast as CUB wherever it ran: met (worst 1.50x at 2^28 powerlaw; "
                      "5 measured)", lines)
        self.assertIn("- float sum: >= 20x CUB at uniform:268435456 and uniform:4: met (worst 25.00x at 2^24 uniform:4; "
                      "3 measured)", lines)
        self.assertEqual((met, missed), (3, 1))
        self.assertTrue(lines[-1].startswith("- targets: 3 met, 1 MISSED"))

    def test_pairs_column(self):
        rows = workload(BIG, "uniform:4", 1.0, 50.0) + workload(BIG, "powerlaw", 1.0, 80.0)
        rows.append(row("cured-pairs", BIG, "uniform:4", 2.0 * 1.4, 50.0 / 1.4))
        rows.append(row("cured-pairs", BIG, "powerlaw", 1.25, 80.0, check="wrong: segment 3"))
        lines, _, _ = segments_table.summary(report(rows))
        self.assertTrue(line_of(lines, "| n | dist |").endswith("| CUB / cured | pairs / cured |"))
        self.assertTrue(line_of(lines, "| 2^28 | uniform:4 |").endswith("| - | 1.40 |"))
        self.assertTrue(line_of(lines, "| 2^28 | powerlaw |").endswith("| - | - |"))  # a wrong row gives no ratio
        # without pair rows, no such column
        lines, _, _ = segments_table.summary(report(workload(BIG, "uniform:4", 1.0, 50.0)))
        self.assertTrue(line_of(lines, "| n | dist |").endswith("| CUB / cured |"))

    def test_targets_per_op_and_type(self):
        rows = (workload(BIG, "onebig", 1.0, 76.0, 0.8, op="argmax") + workload(MID, "onebig", 0.1, 10.0, op="argmax")
                + workload(BIG, "onebig", 1.0, 74.0, op="exact_sum")
                + workload(BIG, "uniform:4", 1.0, 50.0, 10.0, type_name="half")
                + workload(BIG, "uniform:4", 1.0, 50.0, op="exact_sum", type_name="half"))
        lines, met, missed = segments_table.summary(report(rows))
        self.assertIn("- float argmax 2^28: >= 75% of floor on every distribution: met (worst 76.0% at 2^28 onebig; "
                      "1 measured)", lines)
        self.assertFalse(any(l.startswith("- float argmax 2^24") for l in lines))  # no target at 2^24
        self.assertIn("- float argmax: at least as fast as CUB wherever it ran: MISSED (worst 0.80x at 2^28 onebig; "
                      "1 measured)", lines)
        self.assertIn("- float exact_sum 2^28: >= 75% of floor on every distribution: MISSED (worst 74.0% at 2^28 "
                      "onebig; 1 measured)", lines)
        self.assertFalse(any(l.startswith("- half sum 2^28") for l in lines))  # sums: float, int32, double only
        self.assertTrue(any(l.startswith("- half exact_sum 2^28: >= 75% of floor") for l in lines))
        self.assertIn("- half sum: >= 20x CUB at uniform:268435456 and uniform:4: MISSED (worst 10.00x at 2^28 "
                      "uniform:4; 1 measured)", lines)
        self.assertEqual((met, missed), (2, 4))  # met: float argmax % of floor, half sum vs CUB

    def test_wrong_rows_are_listed_and_left_out(self):
        rows = workload(BIG, "uniform:4", 1.0, 95.0, 30.0)
        rows.append(row("cured", BIG, "empty-mixed", 1.0, 10.0, 0.5, check="got 1 want 2 at output 3"))
        rows.append(row("cub", BIG, "empty-mixed", 0.5, 20.0, 1.0))
        rows.append(row("cub", MID, "powerlaw", None, check="skipped: needs 9 MiB"))
        rows.append(row("cured", MID, "powerlaw", 0.1, 80.0))
        lines, met, missed = segments_table.summary(report(rows))
        self.assertIn("- float sum 2^28 empty-mixed cured: got 1 want 2 at output 3", lines)
        self.assertIn("- float sum 2^28: >= 85% of floor on every distribution: met (worst 95.0% at 2^28 uniform:4; "
                      "1 measured)", lines)
        self.assertIn("| 2^28 | empty-mixed | 1 | - | - | 85 | - |", lines)
        self.assertIn("| 2^24 | powerlaw | 1 | 671.1 | 80.0 | 70 | - |", lines)
        self.assertFalse(any("skipped" in l for l in lines))
        self.assertEqual((met, missed), (4, 0))

    def test_validation(self):
        good = report(workload(MID, "onebig", 1.0, 50.0))
        segments_table.validate_segments(good)
        for bad in ({"dist": ""}, {"dist": 4}, {"segments": -1}, {"segments": "many"}, {"segments": 1.5},
                    {"pct_floor": "high"}):
            doc = report([{**good["rows"][1], **bad}])
            with self.assertRaises(segments_table.ReportError, msg=str(bad)):
                segments_table.validate_segments(doc)

    def test_targets_by_size(self):
        self.assertEqual(segments_table.floor_target("float", "sum", MID), 70.0)
        self.assertEqual(segments_table.floor_target("int32", "max", BIG), 85.0)
        self.assertIsNone(segments_table.floor_target("half", "sum", BIG))
        self.assertEqual(segments_table.floor_target("half", "argmin", BIG), 75.0)
        self.assertIsNone(segments_table.floor_target("float", "argmin", MID))
        self.assertIsNone(segments_table.floor_target("float", "sum", 3 * MID))
        self.assertEqual(segments_table.size_class(BIG), "2^28")
        self.assertEqual(segments_table.size_class(1000), "1000")

    def test_main_reads_reports_and_rejects_others(self):
        with tempfile.TemporaryDirectory() as d:
            good, axes = os.path.join(d, "seg.json"), os.path.join(d, "axes.json")
            with open(good, "w", encoding="utf-8") as f:
                json.dump(report(workload(BIG, "uniform:4", 1.0, 90.0, 30.0)), f)
            with open(axes, "w", encoding="utf-8") as f:
                json.dump(report([]), f)
            script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "segments_table.py")
            ok = subprocess.run([sys.executable, script, good], capture_output=True, text=True)
            self.assertEqual(ok.returncode, 0, ok.stderr)
            self.assertIn("- targets: 3 met, 0 MISSED", ok.stdout)
            none = subprocess.run([sys.executable, script, axes], capture_output=True, text=True)
            self.assertEqual(none.returncode, 1)
            self.assertIn("no segment rows", none.stderr)


if __name__ == "__main__":
    unittest.main()
