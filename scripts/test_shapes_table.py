"""Tests of scripts/shapes_table.py on made-up reports of python -m cured.bench --parts shapes,
their rows made by cured.bench's own make_row and write_json."""

import importlib.util
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shapes_table  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "cured_bench", Path(__file__).resolve().parents[1] / "python" / "cured" / "bench.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

SHAPES = [((1 << 10, 1 << 14), 1), ((1 << 10, 1 << 14), 0), ((64, 4096, 64), (0, 2)), ((4096, 4096), 1),
          ((1 << 28, 1), 1), ((1, 1 << 24, 1), (0, 2))]


def row(op, shape, dim, cured, torch=None, cupy=None, check="ok", family="uniform", label=None):
    times = {lib: t for lib, t in (("cured", cured), ("torch", torch), ("cupy", cupy)) if t is not None}
    return bench.make_row("shapes", op, shape, dim, times, check, label, family)


def passing_rows():
    """Rows on which every target is met: the peers 1.5x and 1.2x cured's time, exact_sum 0.9x
    the sum's speed on every shape and family."""
    rows = []
    for shape, dim in SHAPES:
        rows += [row(op, shape, dim, 10.0, 15.0, 12.0) for op in shapes_table.OPS]
        rows.append(row("exact_sum", shape, dim, 11.0, 15.0, 12.0))
    rows.append(row("sum", (4096, 4096), 1, 10.0, 11.0, 10.0, label="4096x4096.T"))
    rows.append(row("exact_sum", (4096, 4096), 1, 11.0, 11.0, 10.0, label="4096x4096.T"))
    rows += [row("var_mean", (4096, 4096), 1, 10.0, 30.0)]
    for family in ("normal", "ties"):
        for shape, dim in (((1 << 24,), None), ((4096, 4096), 0)):
            rows += [row("sum", shape, dim, 10.0, 10.0, 10.0, family=family),
                     row("exact_sum", shape, dim, 12.0, 10.0, 10.0, family=family)]
    return rows


def verdicts(rows):
    return {t.label: t.verdict for t in shapes_table.targets(rows)}


def missed(rows):
    return [t.label for t in shapes_table.targets(rows) if t.verdict == "missed"]


def report_of(rows, others=()):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "shapes.json")
        bench.write_json(list(others) + rows, path, {"device": "made up"})
        with open(path) as f:
            return json.load(f)


class TargetsTest(unittest.TestCase):
    def test_all_met(self):
        found = shapes_table.targets(passing_rows())
        self.assertEqual(len(found), 3 * 5 + 3)  # per op two peers and a geomean; exact_sum per family
        self.assertTrue(all(t.verdict == "met" for t in found), [t for t in found if t.verdict != "met"])
        by_label = {t.label: t for t in found}
        self.assertAlmostEqual(by_label["amin: torch time / cured time, geometric mean"].value, 1.5)
        self.assertAlmostEqual(by_label["sum: torch time / cured time, geometric mean"].value,
                               (1.5 ** 6 * 1.1) ** (1 / 7))
        self.assertEqual(by_label["sum: torch time / cured time, every shape >= 2^20"].rows, "7 of 7")  # and the view
        self.assertEqual(by_label["amin: cupy time / cured time, every shape >= 2^20"].rows, "6 of 6")
        self.assertAlmostEqual(by_label["exact_sum: sum time / exact_sum time, ties data, every case"].value, 10 / 12)

    def test_one_slow_shape(self):
        rows = passing_rows()
        slow = next(r for r in rows if r["op"] == "amin" and r["dim"] == [0, 2])
        slow["torch_us"] = 9.0  # 0.9 of cured's time: below 0.95 on one shape, the geomean still >= 1.3
        self.assertEqual(missed(rows), ["amin: torch time / cured time, every shape >= 2^20"])
        slow["torch_us"], slow["cupy_us"] = 15.0, 9.4
        self.assertEqual(missed(rows), ["amin: cupy time / cured time, every shape >= 2^20"])
        slow["cupy_us"] = 9.5  # exactly 0.95
        self.assertEqual(missed(rows), [])

    def test_geomean(self):
        rows = passing_rows()
        for r in rows:
            if r["op"] == "argmax":
                r["torch_us"] = 12.5  # 1.25 everywhere: every shape >= 0.95, the geomean below 1.3
        self.assertEqual(missed(rows), ["argmax: torch time / cured time, geometric mean"])

    def test_small_shapes_do_not_count(self):
        rows = passing_rows() + [row("sum", (1 << 10, 1 << 9), 0, 10.0, 5.0, 5.0)]  # 2^19 elements, 0.5
        self.assertEqual(missed(rows), [])
        self.assertEqual(verdicts([row("sum", (1 << 19,), None, 10.0, 5.0, 5.0)])
                         ["sum: torch time / cured time, every shape >= 2^20"], "not measured")

    def test_exact_sum_against_the_sum(self):
        rows = passing_rows()
        for r in rows:
            if r["op"] == "exact_sum" and r["family"] == "ties" and r["dim"] == 0:
                r["cured_us"] = 12.6  # 10 / 12.6 = 0.79
        self.assertEqual(missed(rows), ["exact_sum: sum time / exact_sum time, ties data, every case"])
        # the view's exact_sum pairs with the view's sum (10 us), not with 4096x4096's (also 10 us here)
        rows = passing_rows()
        view = next(r for r in rows if r["op"] == "sum" and r["shape"] == "4096x4096.T")
        view["cured_us"] = 8.0  # 8 / 11 = 0.73
        self.assertEqual(missed(rows), ["exact_sum: sum time / exact_sum time, uniform data, every shape"])

    def test_exact_sum_without_its_sum(self):
        rows = [r for r in passing_rows() if not (r["op"] == "sum" and r["family"] == "normal" and r["dim"] == 0)]
        target = next(t for t in shapes_table.targets(rows) if t.label.startswith("exact_sum") and "normal" in t.label)
        self.assertEqual((target.verdict, target.rows), ("met", "1 of 2, 1 without a sum row"))

    def test_missing_peer_column(self):
        rows = passing_rows()
        for r in rows:
            r["cupy_us"] = r["cupy_gbps"] = None  # a run without CuPy
        found = verdicts(rows)
        self.assertEqual(found["argmin: cupy time / cured time, every shape >= 2^20"], "not measured")
        self.assertEqual(found["argmin: torch time / cured time, every shape >= 2^20"], "met")
        rows = passing_rows()
        next(r for r in rows if r["op"] == "amax")["cupy_us"] = None  # CuPy failed on one shape
        target = next(t for t in shapes_table.targets(rows) if t.label.startswith("amax: cupy"))
        self.assertEqual((target.verdict, target.rows), ("met", "5 of 6"))

    def test_wrong_rows_miss_their_targets(self):
        rows = passing_rows()
        wrong = next(r for r in rows if r["op"] == "argmin")
        wrong.update(check="WRONG", torch_us=1.0)  # slow peers would not matter: the row is left out
        self.assertEqual(missed(rows), [f"argmin: {p}" for p in (
            "torch time / cured time, every shape >= 2^20", "cupy time / cured time, every shape >= 2^20",
            "torch time / cured time, geometric mean")])
        target = next(t for t in shapes_table.targets(rows) if t.label.startswith("argmin: torch"))
        self.assertEqual(target.rows, "5 of 6, 1 wrong")
        self.assertAlmostEqual(target.value, 1.5)
        rows = passing_rows()
        next(r for r in rows if r["op"] == "exact_sum" and r["family"] == "normal")["check"] = "ERROR"
        self.assertEqual(missed(rows), ["exact_sum: sum time / exact_sum time, normal data, every case"])
        rows = passing_rows()
        next(r for r in rows if r["op"] == "sum" and r["family"] == "ties")["check"] = "WRONG"  # its reference
        self.assertEqual(missed(rows), ["exact_sum: sum time / exact_sum time, ties data, every case"])
        rows = passing_rows()
        next(r for r in rows if r["op"] == "sum")["check"] = "unchecked"  # torch failed: left out, not wrong
        self.assertEqual(missed(rows), [])


class ReportTest(unittest.TestCase):
    def test_text(self):
        rows = passing_rows()
        rows[0]["check"] = "WRONG"  # a sum: its three targets and exact_sum's against it are missed
        text = shapes_table.report(shapes_table.validate(report_of(rows)))
        self.assertTrue(text.startswith("Rows whose cured result failed its check (1)"))
        self.assertIn("Targets: 14 met, 4 missed", text)
        self.assertRegex(text, r"sum: torch time / cured time, every shape >= 2\^20 +1\.10 +>= 0\.95 +6 of 7, "
                               r"1 wrong +missed")
        self.assertRegex(text, r"exact_sum: sum time / exact_sum time, uniform data, every shape +0\.91 +>= 0\.8 +"
                               r"6 of 7, 1 wrong +missed")
        self.assertIn("exact_sum: the 5 rows of lowest ratio", text)
        self.assertIn("var_mean: the 1 rows of lowest ratio", text)
        worst = text.split("argmax: the 5 rows of lowest ratio")[1].splitlines()
        self.assertEqual(worst[2].split()[:3], ["shape", "dim", "family"])
        self.assertEqual(worst[3].split()[:2], ["1024x16384", "1"])

    def test_worst_rows(self):
        rows = passing_rows()
        for i, r in enumerate(r for r in rows if r["op"] == "amax"):
            r["cupy_us"] = 10.0 + i  # the lowest ratio is CuPy's on the first shapes
        worst = shapes_table.worst_rows(rows, "amax")
        self.assertEqual([round(v, 2) for v, _ in worst], [1.0, 1.1, 1.2, 1.3, 1.4])  # then torch's 1.5
        self.assertEqual(worst[0][1]["dim"], 1)
        exact = shapes_table.worst_rows(rows, "exact_sum")
        self.assertEqual(round(exact[0][0], 3), round(10 / 12, 3))
        self.assertEqual(exact[0][1]["family"], "normal")

    def test_markdown(self):
        text = shapes_table.report(passing_rows(), markdown=True)
        self.assertIn("### Targets: 18 met, 0 missed\n\n| target | value | goal | rows | verdict |\n|---|---:|", text)
        self.assertIn("| 64x4096x64 | 0,2 | uniform | 10.00 | 15.00 | 12.00 | 1.50 | 1.20 |", text)
        self.assertIn("| exact_sum: sum time / exact_sum time, normal data, every case | 0.83 | >= 0.8 | 2 of 2 "
                      "| met |", text)
        self.assertIn("| shape | dim | family | cured us | torch us | torch / cured |", text)  # var_mean: no CuPy


class CommandTest(unittest.TestCase):
    def run_main(self, argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = shapes_table.main(argv)
        return status, out.getvalue(), err.getvalue()

    def write(self, d, doc, name="r.json"):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return path

    def test_status(self):
        rows = passing_rows()
        rows[3]["cured_us"] = 100.0  # targets missed: still 0
        others = [bench.make_row("whole", "sum", (1 << 20,), None, {"cured": 1.0}, "ok")]
        with tempfile.TemporaryDirectory() as d:
            good = self.write(d, report_of(rows, others))
            status, out, _ = self.run_main([good, "--md"])
            self.assertEqual(status, 0)
            self.assertIn("missed", out)
            self.assertNotIn("| 1048576 |", out)  # the whole part's rows are not the sweep's
            bad_row = report_of(passing_rows())
            bad_row["rows"][2]["dim"] = "rows"
            for doc, message in ((None, "No such file"), ("{", "Expecting"), ({"targets": []}, "no list of rows"),
                                 ({"rows": [others[0]]}, "no rows of the shape sweep"),
                                 (bad_row, "rows[2].dim"),
                                 ({"rows": [dict(rows[0], cured_us="fast")]}, "rows[0].cured_us")):
                path = os.path.join(d, "missing.json") if doc is None else self.write(d, doc, "bad.json")
                status, out, err = self.run_main([path])
                self.assertEqual((status, out), (1, ""), message)
                self.assertIn(message, err)

    def test_plot(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            with tempfile.TemporaryDirectory() as d:
                status, _, err = self.run_main([self.write(d, report_of(passing_rows())), "--plot",
                                                os.path.join(d, "p.png")])
            self.assertEqual(status, 2)
            self.assertIn("matplotlib", err)
            return
        with tempfile.TemporaryDirectory() as d:
            png = os.path.join(d, "p.png")
            status, _, _ = self.run_main([self.write(d, report_of(passing_rows())), "--plot", png])
            self.assertEqual(status, 0)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
