"""Tests of scripts/axes_table.py and scripts/plot_axes.py on a made-up report."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import axes_table  # noqa: E402
import plot_axes  # noqa: E402

FLOOR = axes_table.FLOOR_CHECK


def row(impl, shape, axes, ms, pct=None, vs_cub=None, check="ok", op="sum", type_name="float"):
    n = 1
    for e in shape:
        n *= e
    return {"impl": impl, "type": type_name, "op": op, "data": "exact", "n": n, "block": None, "cold_ms": ms,
            "hot_ms": None, "bytes": 4.0 * n, "gbps": 4.0 * n / (ms * 1e6), "pct_ceiling": None, "pct_peak": None,
            "vs_step1": None, "vs_cub": vs_cub, "check": check, "shape": shape, "axes": axes, "outputs": 1,
            "pct_floor": pct}


def workload(shape, axes, floor_ms, cured_pct, cub_pct=None, **kw):
    """Floor, cured and (with cub_pct) CUB rows of one workload."""
    rows = [row("floor", shape, axes, floor_ms, check=FLOOR, **kw),
            row("cured", shape, axes, floor_ms * 100 / cured_pct, cured_pct,
                None if cub_pct is None else cured_pct / cub_pct, **kw)]
    if cub_pct is not None:
        rows.append(row("cub", shape, axes, floor_ms * 100 / cub_pct, cub_pct, 1.0, **kw))
    return rows


def report(rows):
    return {"run": {"device": "test GPU", "command": "cured-bench --axes-grid", "date": "today"}, "rows": rows}


def line_of(lines, start):
    return next(l for l in lines if l.startswith(start))


class AxesTableTest(unittest.TestCase):
    def test_least_percent_of_floor_and_targets(self):
        rows = (workload([1, 2 ** 28], [1], 0.25, 95.0, 50.0) + workload([2 ** 14, 2 ** 14], [0], 0.25, 91.0)
                + workload([4, 2 ** 22], [1], 0.05, 70.0, 80.0) + workload([4, 2 ** 22], [1], 0.05, 85.0, op="argmax")
                + workload([4, 2 ** 18], [1], 0.01, 20.0, 10.0))
        lines, met, missed = axes_table.summary(report(rows))
        big = line_of(lines, "| float | sum | 2^28 |")
        self.assertIn("| 2 | 91.0 | 16384x16384 axes 0 | 90 |", big)
        self.assertIn("% of floor met; vs CUB met", big)
        self.assertIn("| 1.90 | 1x268435456 axes 1 |", big)
        mid = line_of(lines, "| float | sum | 2^24 |")
        self.assertIn("% of floor MISSED; vs CUB MISSED", mid)   # 70 < 75, and 70/80 of CUB's speed
        self.assertIn("| 0.88 |", mid)
        self.assertIn("no target", line_of(lines, "| float | argmax | 2^24 |"))  # no % target below 2^28 for arg ops
        self.assertIn("vs CUB met", line_of(lines, "| float | sum | 2^20 |"))   # no % target at 2^20
        self.assertEqual((met, missed), (3, 2))
        self.assertIn("- targets: 3 met, 2 MISSED", lines[-1])

    def test_exact_sum_against_the_sum(self):
        rows = (workload([4, 2 ** 26], [1], 0.25, 95.0) + workload([4, 2 ** 26], [1], 0.25, 80.0, op="exact_sum")
                + workload([2 ** 14, 2 ** 14], [0], 0.25, 90.0) + workload([2 ** 14, 2 ** 14], [0], 0.25, 45.0, op="exact_sum")
                + workload([2 ** 10, 2 ** 14], [0], 0.01, 90.0) + workload([2 ** 10, 2 ** 14], [0], 0.01, 30.0, op="exact_sum"))
        lines, met, missed = axes_table.summary(report(rows))
        big = line_of(lines, "| float | exact_sum | 2^28 |")
        self.assertIn("sum / exact_sum time 0.50 at 16384x16384 axes 0 (MISSED, target 0.8)", big)  # 45/90
        self.assertIn("| sum / exact_sum time 0.33 at 1024x16384 axes 0 |", line_of(lines, "| float | exact_sum | 2^24 |"))
        self.assertEqual((met, missed), (2, 1))  # the sums' % of floor, met at 2^28 and 2^24; the exact target missed

    def test_wrong_rows_are_listed_and_left_out(self):
        rows = workload([2 ** 14, 2 ** 14], [1], 0.25, 95.0, 50.0)
        rows.append(row("cured", [2 ** 10, 2 ** 18], [0], 0.1, 10.0, check="got 1 want 2 at output 3"))
        rows.append(row("cub", [2 ** 10, 2 ** 18], [1], 0.1, 10.0, check="skipped: needs 9 MiB"))
        lines, _, _ = axes_table.summary(report(rows))
        self.assertIn("- float sum 1024x262144 axes 0 cured: got 1 want 2 at output 3", lines)
        self.assertIn("| 95.0 |", line_of(lines, "| float | sum | 2^28 |"))
        self.assertFalse(any("skipped" in l for l in lines))

    def test_validation(self):
        good = report(workload([4, 4], [1], 1.0, 50.0))
        axes_table.validate_axes(good)
        for bad in ({"shape": []}, {"shape": [4, 0]}, {"axes": [2]}, {"axes": "1"}, {"outputs": -1},
                    {"pct_floor": "high"}):
            doc = report([{**good["rows"][1], **bad}])
            with self.assertRaises(axes_table.ReportError, msg=str(bad)):
                axes_table.validate_axes(doc)

    def test_size_classes(self):
        self.assertEqual(axes_table.size_class(2 ** 28), "2^28")
        self.assertEqual(axes_table.size_class(1000), "1000")
        self.assertEqual(axes_table.target_of("sum", 2 ** 24), 75.0)
        self.assertIsNone(axes_table.target_of("argmin", 2 ** 24))
        self.assertIsNone(axes_table.target_of("sum", 3 * 2 ** 24))


class PlotAxesTest(unittest.TestCase):
    def test_panels_put_two_d_shapes_on_rows_and_the_rest_apart(self):
        rows = (workload([4, 2 ** 18], [1], 0.01, 50.0, 40.0) + workload([16, 2 ** 16], [1], 0.01, 60.0)
                + workload([16, 2 ** 16], [0], 0.01, 70.0) + workload([64, 128, 128], [1], 0.01, 80.0))
        rows.append(row("cured", [2, 2 ** 19], [1], 0.01, check="got 1 want 2"))  # wrong: not drawn
        panels, names = plot_axes.panels_of(rows)
        sums = panels["sum"]
        self.assertEqual(sorted(sums, key=str), [2 ** 20, "other"])
        self.assertEqual([x for x, _ in sums[2 ** 20][("cured", 1)]], [4, 16])
        self.assertEqual([x for x, _ in sums[2 ** 20][("cured", 0)]], [16])
        self.assertEqual(len(sums[2 ** 20][("cub", 1)]), 1)
        self.assertEqual(names, {0: "64x128x128 axes 1"})
        self.assertEqual(len(sums["other"][("floor", None)]), 1)

    def test_one_image_per_type(self):
        self.assertEqual(plot_axes.output_name("out/axes.png", "float", False), "out/axes.png")
        self.assertEqual(plot_axes.output_name("out/axes.png", "int32", True), "out/axes_int32.png")
        self.assertEqual(plot_axes.output_name("axes", "half", True), "axes_half.png")


if __name__ == "__main__":
    unittest.main()
