"""The pure parts of cured.bench (grid, parsing, geomean, table, targets) on made-up rows.

    PYTHONPATH=python python3 -m unittest discover -s python/tests -p 'test_bench_table.py' -v

Needs neither torch nor a GPU. Where the package ``cured`` cannot be imported here (its shared
library not built), the module is loaded from its file instead.
"""

import contextlib
import csv
import importlib.util
import io
import json
import math
import os
import tempfile
import types
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

try:
    import cured.bench as bench
except Exception:  # the package's core needs its shared library: load the benchmark on its own
    _path = Path(__file__).resolve().parents[1] / "cured" / "bench.py"
    _spec = importlib.util.spec_from_file_location("cured_bench", _path)
    bench = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(bench)


def row(section, op, n, cured_us, torch_us, shape=None, dim=None, check="ok"):
    """A made-up result row."""
    return bench.make_row(section, op, shape or (n,), dim, {"cured": cured_us, "torch": torch_us}, check)


def passing_rows():
    """Rows on which every target is met."""
    rows = [row("whole", "sum", 1 << k, 10.0, 15.0) for k in range(10, 31)]
    rows += [row("whole", "exact_sum", 1 << k, 11.0, 10.0) for k in range(20, 31)]
    for shape, dim in bench.grid_workloads([1 << 24]):
        rows.append(row("axes", "sum", 0, 10.0, 25.0, shape, dim))
        rows.append(row("axes", "argmax", 0, 10.0, 40.0, shape, dim))
    for shape, dim in bench.STAT_CASES:
        for op in bench.STAT_OPS:
            faster = {"logsumexp": 60.0, "count_nonzero": 60.0, "var_mean": 13.0}.get(op, 25.0 if dim == 1 else 10.0)
            rows.append(row("stats", op, 0, 10.0, faster, shape, dim))
    rows.append(row("overhead", "sum/call", 1 << 10, 4.0, 5.0))
    rows.append(bench.make_row("overhead", "sum/cupy", (1 << 10,), None, {"cured": 4.0, "cupy": 5.0}, "ok"))
    return rows


def verdicts(lines):
    """{first words of a target's line: its verdict}."""
    return {line.split(":")[0]: line.rsplit(": ", 1)[1] for line in lines}


class GridTest(unittest.TestCase):
    def two_d(self, total):
        return [(shape, dim) for shape, dim in bench.grid_workloads([total]) if len(shape) == 2]

    def test_2_24_grid(self):
        shapes = self.two_d(1 << 24)
        self.assertEqual(len({s for s, _ in shapes}), 12)  # rows 4^0 .. 4^11 = 2^22 <= 2^23
        self.assertEqual(len(shapes), 24)  # each along dim 1 and dim 0
        for (rows, cols), dim in shapes:
            self.assertEqual(rows * cols, 1 << 24)
            self.assertGreaterEqual(cols, 2)
            self.assertIn(dim, (0, 1))
        self.assertEqual([s[0] for s, d in shapes if d == 1], [4**k for k in range(12)])

    def test_2_28_grid(self):
        shapes = {s for s, _ in self.two_d(1 << 28)}
        self.assertEqual(len(shapes), 14)
        self.assertIn((1 << 26, 4), shapes)
        self.assertTrue(all(r * c == 1 << 28 for r, c in shapes))

    def test_3d_shapes_once_along_dim_1(self):
        three = [(s, d) for s, d in bench.grid_workloads([1 << 24, 1 << 28]) if len(s) == 3]
        self.assertEqual(three, [((64, 4096, 64), 1), ((1024, 256, 256), 1), ((8, 1 << 20, 8), 1),
                                 ((4096, 64, 256), 1)])
        self.assertEqual(len(bench.grid_workloads([1 << 24, 1 << 28])), 24 + 28 + 4)


class ParseTest(unittest.TestCase):
    def test_grid(self):
        self.assertEqual(bench.parse_grid("both"), [1 << 24, 1 << 28])
        self.assertEqual(bench.parse_grid("2^24"), [1 << 24])
        self.assertEqual(bench.parse_grid("2^28"), [1 << 28])
        self.assertEqual(bench.parse_grid("2^20,16777216,2^20"), [1 << 20, 1 << 24])
        for bad in ("2^24x", "3", "0", "1", "-4", "2^-1"):
            with self.assertRaises(ValueError, msg=bad):
                bench.parse_grid(bad)

    def test_sizes(self):
        self.assertEqual(bench.parse_size("2^10"), 1024)
        self.assertEqual(bench.parse_size(" 4096 "), 4096)
        self.assertEqual(bench.whole_sizes(12), [1024, 2048, 4096])
        self.assertEqual(len(bench.whole_sizes(30)), 21)
        self.assertEqual(bench.whole_sizes(9), [])

    def test_lists(self):
        self.assertEqual(bench.parse_list("argmax, sum,argmax", bench.OPS), ["argmax", "sum"])
        with self.assertRaises(ValueError):
            bench.parse_list("sum,min", bench.OPS)

    def test_command_line(self):
        args = bench.build_parser().parse_args([])
        self.assertEqual((args.samples, args.warmup, args.max_log2, args.calls), (20, 3, 30, 2000))
        self.assertEqual(args.grid, [1 << 24, 1 << 28])
        self.assertEqual(args.ops, list(bench.OPS))
        self.assertEqual(args.parts, ["whole", "axes", "stats", "overhead"])  # the shape sweep only when asked for
        args = bench.build_parser().parse_args(["--grid", "2^24", "--ops", "argmax", "--parts", "axes"])
        work = bench.workloads(args)
        self.assertEqual(len(work), 24 + 4)
        self.assertTrue(all(w[0] == "axes" and w[1] == "argmax" for w in work))
        with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            bench.build_parser().parse_args(["--grid", "2^23x"])

    def test_whole_workloads(self):
        args = bench.build_parser().parse_args(["--max-log2", "21", "--parts", "whole"])
        work = bench.workloads(args)
        self.assertEqual([w[1] for w in work].count("sum"), 12)
        self.assertEqual([w[2] for w in work if w[1] == "exact_sum"], [(1 << 20,), (1 << 21,)])


class NumbersTest(unittest.TestCase):
    def test_geomean(self):
        self.assertAlmostEqual(bench.geomean([1, 4, 16]), 4.0)
        self.assertAlmostEqual(bench.geomean([2.0, 8.0]), 4.0)
        self.assertAlmostEqual(bench.geomean([2.0, None, 8.0]), 4.0)
        self.assertIsNone(bench.geomean([]))

    def test_median(self):
        self.assertEqual(bench.median([3, 1, 2]), 2)
        self.assertEqual(bench.median([4, 1, 3, 2]), 2.5)

    def test_row(self):
        r = row("axes", "argmax", 0, 100.0, 250.0, (1024, 256, 256), 1)
        self.assertEqual(r["shape"], "1024x256x256")
        self.assertEqual(r["n"], 1 << 26)
        self.assertEqual(r["bytes"], 4 * (1 << 26) + 8 * 1024 * 256)  # input + int64 indices
        self.assertAlmostEqual(r["cured_gbps"], r["bytes"] / 100e3)
        self.assertAlmostEqual(r["speedup"], 2.5)
        self.assertIsNone(r["cupy_us"])
        self.assertIsNone(r["cupy_gbps"])
        whole = row("whole", "sum", 1 << 20, 2.0, None)
        self.assertEqual((whole["dim"], whole["bytes"], whole["speedup"]), ("all", 4 * (1 << 20) + 4, None))
        self.assertIsNone(row("overhead", "sum/call", 1024, 3.0, 4.0)["cured_gbps"])

    def test_table(self):
        rows = [row("whole", "sum", 1 << 20, 5.0, 6.0), row("axes", "sum", 0, 9.0, None, (4, 8), 0, "WRONG")]
        lines = bench.format_table(rows).splitlines()
        self.assertEqual(len(lines), 3)
        self.assertEqual(lines[0].split()[:3], ["shape", "dim", "op"])
        self.assertIn("speedup", lines[0])
        cells = lines[1].split()
        self.assertEqual(cells[:5], ["1048576", "all", "sum", "5.00", "6.00"])
        self.assertEqual(cells[5], "-")  # no CuPy
        self.assertEqual(cells[-2:], ["1.20", "ok"])
        self.assertTrue(lines[2].startswith("4x8") and lines[2].endswith("WRONG"))


class TargetsTest(unittest.TestCase):
    def test_all_met(self):
        lines = bench.summarize_targets(passing_rows())
        self.assertEqual(len(lines), 14)
        for line in lines:
            self.assertTrue(line.endswith(": met"), line)

    def test_one_missed(self):
        rows = passing_rows()
        for r in rows:
            if r["section"] == "whole" and r["op"] == "sum" and r["n"] == 1 << 16:
                r.update(torch_us=9.0, speedup=0.9)  # cured slower than torch at one size
        lines = bench.summarize_targets(rows)
        missed = [line for line in lines if line.endswith(": missed")]
        self.assertEqual(len(missed), 1)
        self.assertTrue(missed[0].startswith("whole-array sum, minimum"), missed[0])
        self.assertIn("0.90", missed[0])
        self.assertEqual(sum(line.endswith(": met") for line in lines), 13)

    def test_each_target_can_miss(self):
        cases = [  # (the line that misses, the rows made slower on torch's side, torch's time, only the first)
            ("whole-array sum, geomean", "whole", "sum", 11.0, False),  # 1.1 everywhere: minimum met
            ("axes sum, geomean", "axes", "sum", 15.0, False),
            ("axes sum, minimum", "axes", "sum", 9.0, True),  # one shape at 0.9, the geomean still >= 2
            ("axes argmax", "axes", "argmax", 25.0, False),
            ("exact_sum", "whole", "exact_sum", 8.0, False),  # 11 us against 8: 1.375
            ("host us per call", "overhead", "sum/call", 3.0, False),
            ("stats var_mean", "stats", "var_mean", 12.0, True),  # the whole array comes first
            ("stats logsumexp, count_nonzero", "stats", "logsumexp", 40.0, True),
            ("stats aminmax, vector_norm, any", "stats", "any", 9.0, True),
        ]
        for label, section, op, torch_us, only_first in cases:
            rows = passing_rows()
            chosen = [r for r in rows if r["section"] == section and r["op"] == op]
            for r in chosen[:1] if only_first else chosen:
                r["torch_us"] = torch_us
                r["speedup"] = bench.speedup(r)
            missed = [k for k, v in verdicts(bench.summarize_targets(rows)).items() if v == "missed"]
            self.assertEqual(len(missed), 1, (label, missed))
            self.assertTrue(missed[0].startswith(label), (label, missed))

    def test_host_cost_on_cupy_arrays(self):
        rows = passing_rows()
        rows[-1] = bench.make_row("overhead", "sum/cupy", (1 << 10,), None, {"cured": 6.0, "cupy": 5.0}, "ok")
        missed = [k for k, v in verdicts(bench.summarize_targets(rows)).items() if v == "missed"]
        self.assertEqual(len(missed), 1)
        self.assertTrue(missed[0].startswith("host us per call at 2^10 on a CuPy array, cured / cupy (6.00 / 5.00)"),
                        missed)

    def test_stats_along_axes_against_the_sum(self):
        rows = passing_rows()
        for r in rows:  # one statistic along rows at 0.8 of the sum's GB/s, still faster than torch
            if r["section"] == "stats" and r["op"] == "aminmax" and r["dim"] == 1:
                r.update(cured_us=12.5, cured_gbps=r["cured_gbps"] * 0.8)
                r["speedup"] = bench.speedup(r)
        missed = [k for k, v in verdicts(bench.summarize_targets(rows)).items() if v == "missed"]
        self.assertEqual(missed, ["stats along axes, minimum GB/s over cured.sum's on the same case"])

    def test_stat_workloads(self):
        args = bench.build_parser().parse_args(["--parts", "stats", "--stat-ops", "sum,any"])
        self.assertEqual(bench.workloads(args), [bench.Workload("stats", op, shape, dim)
                                                 for shape, dim in bench.STAT_CASES for op in ("sum", "any")])
        self.assertEqual(bench.workload_bytes((1 << 23, 32), 1, "var_mean"), (1 << 28) * 4 + (1 << 23) * 8)

    def test_not_measured(self):
        lines = bench.summarize_targets([row("whole", "sum", 1 << 10, 1.0, 2.0)])
        self.assertTrue(lines[0].endswith("not measured"))  # no size in 2^14..2^22
        self.assertTrue(lines[1].endswith(": met"))
        self.assertTrue(all(line.endswith("not measured") for line in lines[2:]))


class OutputTest(unittest.TestCase):
    def test_csv_and_json(self):
        rows = passing_rows()
        with tempfile.TemporaryDirectory() as d:
            bench.write_csv(rows, os.path.join(d, "r.csv"))
            bench.write_json(rows, os.path.join(d, "r.json"), {"device": "made up"})
            with open(os.path.join(d, "r.csv"), newline="") as f:
                back = list(csv.DictReader(f))
            with open(os.path.join(d, "r.json")) as f:
                doc = json.load(f)
        self.assertEqual(len(back), len(rows))
        self.assertEqual(tuple(back[0]), bench.FIELDS)
        self.assertEqual(doc["device"], "made up")
        self.assertEqual(doc["rows"], rows)
        self.assertEqual(len(doc["targets"]), 14)
        self.assertTrue(math.isclose(float(back[0]["speedup"]), 1.5))

    def test_a_write_stopped_midway_keeps_the_last_report(self):
        rows = passing_rows()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            bench.write_json(rows[:3], path)
            unserializable = [dict(rows[0], cured_us=object())]
            with self.assertRaises(TypeError):
                bench.write_json(unserializable, path)
            with open(path) as f:
                self.assertEqual(json.load(f)["rows"], rows[:3])

    def test_a_library_that_fails_leaves_the_others(self):
        class Fake:
            torch = types.SimpleNamespace(cuda=types.SimpleNamespace(synchronize=lambda: None))
            cupy = None
            cured = types.SimpleNamespace(sum=lambda x: 1 / 0)

            def input(self, shape):
                return None
        fake = Fake()
        fake.torch.sum = lambda x: None
        with contextlib.redirect_stderr(io.StringIO()) as err:
            rows = bench.Bench.overhead(fake, 3)
        self.assertEqual(len(rows), 1)
        self.assertIsNone(rows[0]["cured_us"])
        self.assertIsNotNone(rows[0]["torch_us"])
        self.assertEqual(rows[0]["check"], "ERROR")
        self.assertEqual(err.getvalue().count("ZeroDivisionError"), 1)

    def test_help_and_no_gpu(self):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), self.assertRaises(SystemExit) as e:
            bench.build_parser().parse_args(["--help"])
        self.assertEqual(e.exception.code, 0)
        self.assertIn("--grid", out.getvalue())
        try:
            import torch
            has_gpu = torch.cuda.is_available()
        except ImportError:
            has_gpu = False
        if not has_gpu:  # here the benchmark must refuse with status 2, not a traceback
            with redirect_stderr(err):
                self.assertEqual(bench.main(["--parts", "overhead"]), 2)
            self.assertIn("cannot run", err.getvalue())


if __name__ == "__main__":
    unittest.main()
