"""cured.bench's shape sweep (--parts shapes) without a GPU: its workloads, options, rows and time
model, the float32 rounding of exact_sum's reference; and, where torch imports (on the CPU),
exact_reference against sums of Fractions, the data families, the views and the checks.

    PYTHONPATH=python python3 -m unittest discover -s python/tests -p 'test_bench_shapes.py' -v

Where the package ``cured`` cannot be imported here (its shared library not built), the module
is loaded from its file instead.
"""

import contextlib
import csv
import io
import json
import math
import os
import random
import struct
import tempfile
import time
import unittest
from collections import Counter
from contextlib import redirect_stderr
from fractions import Fraction
from types import SimpleNamespace

from test_bench_table import bench  # cured.bench, or the file alone where the package cannot load

try:
    import torch
except ImportError:
    torch = None

needs_torch = unittest.skipIf(torch is None, "torch is not importable")


def parse(*argv):
    return bench.build_parser().parse_args(list(argv))


def float32(value: float) -> float:
    """value rounded to float32 by the C cast (ties to even), as a Python float."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


class SweepTest(unittest.TestCase):
    def test_splits(self):
        cases = bench.split_cases(20)
        self.assertEqual(len(cases), 42)  # rows 2^0 .. 2^20, each along dim 1 and dim 0
        shapes = [s for s, d in cases if d == 1]
        self.assertEqual(shapes[0], (1, 1 << 20))
        self.assertEqual(shapes[-1], (1 << 20, 1))
        self.assertTrue(all(r * c == 1 << 20 for r, c in shapes))
        self.assertEqual([s for s, d in cases if d == 0], shapes)

    def test_cases(self):
        cases = bench.shape_cases([20, 24, 28])
        self.assertEqual(cases[:150], [(s, d, None) for k in (20, 24, 28) for s, d in bench.split_cases(k)])
        three = [(s, d) for s, d, v in cases if len(s) == 3 and s in bench.SWEEP_3D]
        self.assertEqual(len(three), 36)
        self.assertEqual({d for _, d in three}, {0, 1, 2, (0, 1), (0, 2), (1, 2)})
        self.assertEqual(sum(math.prod(s) == 1 << 24 for s in bench.SWEEP_3D), 4)
        self.assertEqual(sum(math.prod(s) == 1 << 26 for s in bench.SWEEP_3D), 2)
        views = [(s, d, v) for s, d, v in cases if v is not None]
        self.assertEqual(len(views), 2 * len(bench.VIEWS))
        # 1 x 2^24 along dim 0 and 2^24 x 1 along dim 1 are splits of 2^24 already
        self.assertEqual(cases[-1], ((1, 1 << 24, 1), (0, 2), None))
        self.assertEqual(len(cases), 150 + 36 + 14 + 1)
        self.assertEqual(len(set(cases)), len(cases))
        extent_one = bench.shape_cases([20])[-3:]
        self.assertEqual(extent_one, [((1, 1 << 24), 0, None), ((1 << 24, 1), 1, None),
                                      ((1, 1 << 24, 1), (0, 2), None)])

    def test_views_are_consistent(self):
        kinds = Counter(kind for kind, _, _ in bench.VIEWS)
        self.assertEqual(set(kinds), {"T", "::2", "expand"})
        for kind, (rows, cols), shape in bench.VIEWS:
            want = {"T": (cols, rows), "::2": (rows, cols // 2), "expand": (shape[0], cols)}[kind]
            self.assertEqual(shape, want, kind)
            if kind == "expand":
                self.assertEqual(rows, 1)
        self.assertEqual(bench.shape_label((4096, 4096), ("T", (4096, 4096))), "4096x4096.T")
        self.assertEqual(bench.shape_label((4096, 4096), ("::2", (4096, 8192))), "4096x8192[:,::2]")
        self.assertEqual(bench.shape_label((4096, 4096), ("expand", (1, 4096))), "1x4096.expand(4096,4096)")
        self.assertEqual(bench.shape_label((1, 16777216, 1)), "1x16777216x1")

    def test_default_workloads(self):
        work = bench.workloads(parse("--parts", "shapes"))
        self.assertTrue(all(w.section == "shapes" for w in work))
        ops = Counter(w.op for w in work)
        cases = len(bench.shape_cases([20, 24, 28]))
        families = len(bench.FAMILIES) * len(bench.FAMILY_CASES)
        for op in ("amin", "amax", "argmin", "argmax"):
            self.assertEqual(ops[op], cases)
        self.assertEqual(ops["sum"], cases + families)
        self.assertEqual(ops["exact_sum"], cases + families)
        for op in bench.SHAPE_STATS:  # the 2-D splits of 2^24 only
            self.assertEqual(ops[op], 50)
            self.assertTrue(all(math.prod(w.shape) == 1 << 24 and len(w.shape) == 2 for w in work if w.op == op))
        family_rows = [w for w in work if w.family != "uniform"]
        self.assertEqual(len(family_rows), 2 * families)
        self.assertEqual({w.op for w in family_rows}, {"sum", "exact_sum"})
        self.assertEqual(set(bench.FAMILIES), {"normal", "integer", "fixed", "ties", "cancellation", "subnormal"})
        self.assertEqual({w.family for w in family_rows}, set(bench.FAMILIES))
        # each family case is timed by sum, then by exact_sum, on the same array
        for a, b in zip(family_rows[0::2], family_rows[1::2]):
            self.assertEqual((a.op, b.op), ("sum", "exact_sum"))
            self.assertEqual(a._replace(op="exact_sum"), b)

    def test_options(self):
        args = parse()
        self.assertEqual((args.shape_totals, args.shape_ops, args.shape_samples),
                         ([20, 24, 28], list(bench.SHAPE_OPS), 7))
        self.assertFalse(any(w.section == "shapes" for w in bench.workloads(args)))
        args = parse("--parts", "shapes", "--shape-totals", "20", "--shape-ops", "argmax,var_mean")
        work = bench.workloads(args)
        self.assertEqual({w.op for w in work}, {"argmax"})  # no split of 2^24: no statistics
        self.assertEqual(len(work), 42 + 36 + 14 + 3)  # the extent-1 shapes: no split of 2^24 holds them
        args = parse("--parts", "shapes", "--shape-totals", "24,20,24", "--shape-ops", "var_mean,exact_sum")
        self.assertEqual(args.shape_totals, [24, 20])
        ops = Counter(w.op for w in bench.workloads(args))
        self.assertEqual(ops["var_mean"], 50)
        self.assertEqual(ops["sum"], len(bench.FAMILIES) * len(bench.FAMILY_CASES))  # the families' reference
        self.assertEqual(bench.parse_totals("28"), [28])
        for bad in ("0", "33", "2^24", "", "24,x"):
            with self.assertRaises(ValueError, msg=bad):
                bench.parse_totals(bad)
        with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            parse("--shape-ops", "sum,median")
        with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            parse("--parts", "shapes,all")

    def test_the_sweep_fits_its_time(self):
        work = bench.workloads(parse("--parts", "shapes"))
        seconds = bench.estimate_seconds(work, 20, 3, 7)
        self.assertGreater(seconds, 60)
        self.assertLess(seconds, 4 * 60)
        self.assertLess(seconds, bench.estimate_seconds(work, 20, 3, 20))
        self.assertLess(bench.estimate_seconds(work, 20, 3, 7, cupy=False), seconds)
        # one workload of 2^28 sums: three libraries, each its settling, 3 + 7 calls and 7 flushes
        one = [bench.Workload("shapes", "sum", (1 << 28,), None)]
        call = bench.CALL_S + (4 * (1 << 28) + 4) / bench.READ_BYTES_PER_S
        self.assertAlmostEqual(bench.estimate_seconds(one, 20, 3, 7),
                               bench.WORKLOAD_S + 3 * (bench.SETTLE_S + 10 * call + 7 * bench.FLUSH_S))


class RowsTest(unittest.TestCase):
    def test_tuple_dims_views_and_families(self):
        r = bench.make_row("shapes", "argmax", (64, 4096, 64), (0, 2), {"cured": 10.0, "torch": 20.0}, "ok")
        self.assertEqual((r["dim"], r["n"], r["family"]), ([0, 2], 1 << 24, "uniform"))
        self.assertEqual(r["bytes"], 4 * (1 << 24) + 8 * 4096)
        self.assertAlmostEqual(r["speedup"], 2.0)
        v = bench.make_row("shapes", "sum", (4096, 4096), 0, {"cured": 5.0}, "ok", "4096x4096.T")
        self.assertEqual((v["shape"], v["dim"], v["bytes"]), ("4096x4096.T", 0, 4 * (1 << 24) + 4 * 4096))
        f = bench.make_row("shapes", "exact_sum", (1 << 24,), None, {"cured": 5.0}, "ok", family="ties")
        self.assertEqual((f["dim"], f["family"]), ("all", "ties"))
        self.assertEqual(tuple(r), bench.FIELDS)
        self.assertEqual(bench.workload_bytes((1, 1 << 24, 1), (0, 2), "amin"), 4 * (1 << 24) + 4 * (1 << 24))
        self.assertEqual(bench.reduced_count((8, 1 << 20, 8), (0, 1)), 8 << 20)
        self.assertEqual(bench.reduced_axes(-1, 3), (2,))
        self.assertEqual(bench.reduced_axes((2, 0), 3), (0, 2))

    def test_table_and_files(self):
        rows = [bench.make_row("shapes", "argmax", (64, 4096, 64), (0, 2), {"cured": 10.0, "torch": 20.0}, "ok"),
                bench.make_row("shapes", "exact_sum", (4096, 4096), 1, {"cured": 5.0}, "WRONG", family="ties")]
        lines = bench.format_table(rows).splitlines()
        self.assertEqual(lines[1].split()[:3], ["64x4096x64", "0,2", "argmax"])
        self.assertEqual(lines[2].split()[:3], ["4096x4096", "1", "exact_sum/ties"])
        self.assertTrue(lines[2].endswith("WRONG"))
        with tempfile.TemporaryDirectory() as d:
            bench.write_csv(rows, os.path.join(d, "r.csv"))
            bench.write_json(rows, os.path.join(d, "r.json"), {"shape_samples": 7})
            with open(os.path.join(d, "r.csv"), newline="") as f:
                back = list(csv.DictReader(f))
            with open(os.path.join(d, "r.json")) as f:
                doc = json.load(f)
        self.assertEqual(doc["rows"], rows)
        self.assertEqual(doc["rows"][0]["dim"], [0, 2])
        self.assertEqual((back[0]["dim"], back[1]["family"]), ("[0, 2]", "ties"))


class ResumeTest(unittest.TestCase):
    def test_each_workload_is_known_by_its_row(self):
        args = bench.build_parser().parse_args(["--parts", "whole,axes,stats,shapes", "--max-log2", "24"])
        work = bench.workloads(args)
        keys = [bench.workload_key(w) for w in work]
        self.assertEqual(len(set(keys)), len(keys))  # --resume skips exactly the workloads measured
        rows = [bench.make_row(w.section, w.op, w.shape, w.dim, {"cured": 1.0}, "ok",
                               bench.shape_label(w.shape, w.view), w.family) for w in work]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            bench.write_json(rows, path, {"complete": False})
            back = bench.read_rows(path)
        self.assertEqual(back, rows)
        self.assertEqual([bench.row_key(r) for r in back], keys)

    def test_reports_that_cannot_be_resumed(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            with open(path, "w") as f:
                json.dump({"targets": []}, f)
            with self.assertRaises(ValueError):
                bench.read_rows(path)
            with open(path, "w") as f:
                f.write("{")
            with self.assertRaises(ValueError):
                bench.read_rows(path)
        opts = bench.build_parser().parse_args(["--max-seconds", "300", "--resume", "r.json"])
        self.assertEqual((opts.max_seconds, opts.resume), (300.0, "r.json"))


class _FakeBench:
    """Stands in for cured.bench.Bench in main(): rows made up, no GPU; counts what it measures."""
    measured = []

    def __init__(self, samples, warmup, use_cupy):
        self.device, self.l2_bytes, self.cupy, self.samples = "fake", 1 << 20, None, samples

    def workload_input(self, w):
        return w

    def measure(self, section, op, x, dim, label=None, family="uniform"):
        time.sleep(0.002)
        _FakeBench.measured.append(x)
        return bench.make_row(section, op, x.shape, dim, {"cured": 1.0, "torch": 2.0}, "ok", label, family)

    def measure_stat(self, op, x, dim, section="stats"):
        _FakeBench.measured.append(x)
        return bench.make_row(section, op, x.shape, dim, {"cured": 1.0, "torch": 2.0}, "ok")

    def overhead(self, calls):
        return [bench.make_row("overhead", "sum/call", (1024,), None, {"cured": 1.0, "torch": 2.0}, "-")]


class MainLoopTest(unittest.TestCase):
    """main()'s loop on a made-up Bench: the reports, --max-seconds and --resume."""

    def run_main(self, *argv):
        kept, bench.Bench = bench.Bench, _FakeBench
        _FakeBench.measured = []
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                status = bench.main(list(argv))
        finally:
            bench.Bench = kept
        return status, err.getvalue()

    def test_stop_and_resume(self):
        with tempfile.TemporaryDirectory() as d:
            report = os.path.join(d, "r.json")
            common = ["--parts", "shapes,overhead", "--shape-totals", "20", "--shape-ops", "sum,amax", "--json", report]
            total = len(bench.workloads(bench.build_parser().parse_args(common)))
            status, err = self.run_main(*common, "--max-seconds", "0.005")
            self.assertEqual(status, 0)
            self.assertIn("--max-seconds", err)
            with open(report) as f:
                first = json.load(f)
            self.assertFalse(first["complete"])
            self.assertEqual(len(first["rows"]), len(_FakeBench.measured))
            self.assertTrue(0 < len(first["rows"]) < total, len(first["rows"]))
            self.assertFalse(any(r["section"] == "overhead" for r in first["rows"]))
            status, err = self.run_main(*common, "--resume", report)
            self.assertEqual(status, 0)
            self.assertIn("left", err)  # the progress
            with open(report) as f:
                done = json.load(f)
            self.assertTrue(done["complete"])
            self.assertEqual(len(_FakeBench.measured), total - len(first["rows"]))
            shapes = [r for r in done["rows"] if r["section"] == "shapes"]
            self.assertEqual(len(shapes), total)
            self.assertEqual(len({bench.row_key(r) for r in shapes}), total)
            self.assertEqual(sum(r["section"] == "overhead" for r in done["rows"]), 1)
            status, _ = self.run_main(*common, "--resume", os.path.join(d, "missing.json"))
            self.assertEqual(status, 2)


class RoundingTest(unittest.TestCase):
    def test_against_the_c_cast(self):
        rng = random.Random(7)
        for _ in range(20000):  # i * 2^exp is a float64 here, so the cast rounds once
            i = rng.randrange(-(1 << 53), 1 << 53) >> rng.randrange(0, 53)
            exp = rng.randrange(-200, 120)
            value = math.ldexp(i, exp)
            try:
                want = float32(value)
            except OverflowError:
                want = math.copysign(math.inf, value)
            self.assertEqual(bench.round_to_float32(i, exp), want, (i, exp))

    def test_ties_subnormals_and_overflow(self):
        r = bench.round_to_float32
        self.assertEqual(r((1 << 24) + 1, 0), 1 << 24)  # halfway: to the even neighbour
        self.assertEqual(r((1 << 24) + 3, 0), (1 << 24) + 4)
        self.assertEqual(r((1 << 50) + (1 << 26) + 1, -50), 1 + 2.0 ** -23)  # just past halfway
        self.assertEqual(r(1, -150), 0.0)  # half the least subnormal: to zero, the even one
        self.assertEqual(r(3, -150), 2.0 ** -148)
        self.assertEqual(r(3, -151), 2.0 ** -149)
        self.assertEqual(r(-5, -151), -(2.0 ** -149))
        self.assertEqual(r((1 << 24) - 1, 104), (2 - 2.0 ** -23) * 2.0 ** 127)  # the largest float32
        self.assertEqual(r((1 << 25) - 1, 103), math.inf)  # halfway to 2^128: to the even, past the range
        self.assertEqual(r((1 << 26) - 3, 102), (2 - 2.0 ** -23) * 2.0 ** 127)
        self.assertEqual(r(-(1 << 300), 0), -math.inf)
        self.assertEqual(r(0, 12), 0.0)


def exact_sums(x, dim):
    """The exact sums of float32 tensor x along dim as Fractions, rounded once (round_to_float32
    of an integer count of 2^-149: every float32 is a whole multiple of it)."""
    dims = bench.reduced_axes(dim, x.dim())
    y = bench.reduced_last(x, dims).double()
    flat = y.reshape(-1, y.shape[-1]).tolist()
    out = [bench.round_to_float32(int(sum(Fraction(v) for v in row) * 2 ** 149), -149) for row in flat]
    return torch.tensor(out, dtype=torch.float32).reshape(y.shape[:-1])


@needs_torch
class ExactReferenceTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(3)

    def test_families_shapes_and_chunks(self):
        for family in bench.FAMILY_DATA:
            x = bench.FAMILY_DATA[family](torch, 6 * 10 * 12, "cpu").reshape(6, 10, 12)
            for dim in (None, 0, 1, 2, (0, 1), (0, 2), (1, 2)):
                want = exact_sums(x, dim)
                for chunk in (bench.EXACT_CHUNK, 16, 1):
                    got = bench.exact_reference(torch, x, dim, chunk)
                    self.assertTrue(torch.equal(got, want), (family, dim, chunk, got, want))

    def test_views(self):
        x = torch.randn(40, 24)
        for view in (x.t(), x[:, ::2], x[:1].expand(40, 24)):
            for dim in (0, 1):
                self.assertTrue(torch.equal(bench.exact_reference(torch, view, dim, 64), exact_sums(view, dim)))

    def test_halfway_cases(self):
        # exact sums at, just above and just below points halfway between float32s, where a
        # float64 screen cannot decide and the Python integers do
        one, half_ulp, tiny = 1.0, 2.0 ** -24, 2.0 ** -70
        cases = [([one, half_ulp], one), ([one, half_ulp, tiny], one + 2 * half_ulp),
                 ([one, half_ulp, -tiny], one), ([one + 2 * half_ulp, half_ulp], one + 4 * half_ulp),
                 ([2.0 ** 100, -(2.0 ** 100), 2.0 ** -149], 2.0 ** -149),
                 ([3.0e38, 3.0e38], math.inf), ([2.0 ** -149, 2.0 ** -149, -(2.0 ** -148)], 0.0)]
        for values, want in cases:
            x = torch.tensor(values, dtype=torch.float32)
            self.assertEqual(bench.exact_reference(torch, x, None).item(), want, values)
        # the same along rows, with a 2^24 column that float32 sums drop the ones from
        x = torch.tensor([[2.0 ** 24] + [1.0] * 8, [1.0] * 8 + [2.0 ** 24]])
        self.assertEqual(bench.exact_reference(torch, x, 1).tolist(), [2.0 ** 24 + 8] * 2)

    def test_large_counts(self):
        x = torch.full((1 << 16,), 0.1)  # 0.1f * 2^16, exactly, then rounded
        want = bench.round_to_float32(int(Fraction(float32(0.1)) * 2 ** 149) << 16, -149)
        self.assertEqual(bench.exact_reference(torch, x, None, 1000).item(), want)


@needs_torch
class DataAndViewsTest(unittest.TestCase):
    def test_families(self):
        torch.manual_seed(5)
        n = 4096
        data = {f: make(torch, n, "cpu") for f, make in bench.FAMILY_DATA.items()}
        for family, x in data.items():
            self.assertEqual((x.dtype, tuple(x.shape)), (torch.float32, (n,)), family)
            self.assertTrue(bool(torch.isfinite(x).all()), family)
        self.assertTrue(bool(((data["uniform"] >= 0) & (data["uniform"] < 1)).all()))
        integer = data["integer"]
        self.assertTrue(bool((integer == integer.round()).all() and integer.abs().max() <= 1000))
        fixed = data["fixed"] * 2 ** 23
        self.assertTrue(bool((fixed == fixed.round()).all() and data["fixed"].abs().max() <= 1))
        self.assertTrue(bool((data["ties"] == float32(0.1)).all()))
        a, b = data["cancellation"][0::2], data["cancellation"][1::2]
        self.assertTrue(bool((a >= 8192).all() and (b <= -8192).all()))
        residual = a + b
        self.assertTrue(bool(((residual >= 0) & (residual <= 1 / 16)).all()))
        self.assertLess(float(data["cancellation"].double().sum()), 1e-3 * float(data["cancellation"].abs().sum()))
        sub = data["subnormal"]
        self.assertTrue(bool(((sub != 0) & (sub.abs() < 2.0 ** -126) & (sub.abs() < 2e-40)).all()))
        self.assertTrue(bool((sub < 0).any() and (sub > 0).any()))
        self.assertEqual(tuple(bench.FAMILY_DATA["cancellation"](torch, 5, "cpu").shape), (5,))

    def test_views(self):
        for kind, storage, shape in bench.VIEWS:
            x = bench.make_view(torch.empty(storage, device="meta"), kind, shape)
            self.assertEqual(tuple(x.shape), shape, kind)
            self.assertFalse(x.is_contiguous(), kind)
        self.assertEqual(bench.make_view(torch.empty(1, 8), "expand", (4, 8)).stride(), (0, 1))
        self.assertEqual(bench.make_view(torch.empty(4, 8), "::2", (4, 4)).stride(), (8, 2))

    def test_reduced_last_is_the_row_major_index(self):
        torch.manual_seed(6)
        x = torch.randn(3, 4, 5)
        y = bench.reduced_last(x, (0, 2))
        self.assertEqual(tuple(y.shape), (4, 15))
        idx = y.argmax(-1)
        for j in range(4):
            i0, i2 = divmod(int(idx[j]), 5)
            self.assertEqual(float(x[i0, j, i2]), float(x[:, j, :].max()))
        self.assertEqual(tuple(bench.reduced_last(x, None).shape), (60,))
        self.assertEqual(tuple(bench.reduced_last(x, 1).shape), (3, 5, 4))


@needs_torch
class ChecksTest(unittest.TestCase):
    """Bench.check and Bench.torch_call, which read only the Bench's torch, on CPU tensors."""

    def setUp(self):
        torch.manual_seed(8)
        self.bench = SimpleNamespace(torch=torch)

    def check(self, *args, **kw):
        with redirect_stderr(io.StringIO()):
            return bench.Bench.check(self.bench, *args, **kw)

    def test_arg_ops_over_several_axes(self):
        x = torch.randn(6, 5, 7)
        for op in ("argmin", "argmax"):
            want = bench.Bench.torch_call(self.bench, op, x, (0, 2))()
            self.assertEqual(tuple(want.shape), (5,))
            self.assertEqual(self.check(op, x, (0, 2), want.clone(), want), "ok")
            self.assertEqual(self.check(op, x, (0, 2), (want + 1) % 42, want), "WRONG")
            self.assertEqual(self.check(op, x, (0, 2), want + 42, want), "WRONG")  # out of range
            self.assertEqual(self.check(op, x, (0, 2), want[:4], want), "WRONG")  # shape
        ties = torch.zeros(4, 3)
        ties[1, :] = 1.0
        ties[3, :] = 1.0
        want = torch.argmax(ties, dim=0)
        self.assertEqual(self.check("argmax", ties, 0, torch.full((3,), 3), want), "ok (ties)")
        self.assertEqual(self.check("argmax", ties, 0, torch.full((3,), 2), want), "WRONG")

    def test_extrema_and_sums(self):
        x = torch.rand(64, 33)
        self.assertEqual(self.check("amin", x, 1, x.amin(1), x.amin(1)), "ok")
        self.assertEqual(self.check("amax", x, (0, 1), x.amax((0, 1)) * (1 + 2 ** -20), x.amax((0, 1))), "WRONG")
        want = x.sum(0)
        self.assertEqual(self.check("sum", x, 0, want * (1 + 1e-5), want), "ok")
        self.assertEqual(self.check("sum", x, 0, want * 1.01, want), "WRONG")
        sub = bench.FAMILY_DATA["subnormal"](torch, 64 * 33, "cpu").reshape(64, 33)
        want = sub.double().sum(0).float()
        self.assertEqual(self.check("sum", sub, 0, want.clone(), want, "subnormal"), "ok")
        self.assertEqual(self.check("sum", sub, 0, want * 2, want, "subnormal"), "WRONG")
        self.assertEqual(self.check("sum", sub, 0, want * 2, want), "ok")  # torch.rand's tolerance would not see it

    def test_exact_sum(self):
        for family in ("uniform", "cancellation"):
            x = bench.FAMILY_DATA[family](torch, 48 * 40, "cpu").reshape(48, 40)
            for dim in (None, 0, 1):
                right = exact_sums(x, dim)
                plain = x.sum() if dim is None else x.sum(dim)
                self.assertEqual(self.check("exact_sum", x, dim, right.clone(), plain, family), "ok")
                one_off = torch.nextafter(right, torch.tensor(math.inf))
                self.assertEqual(self.check("exact_sum", x, dim, one_off, plain, family), "WRONG")


if __name__ == "__main__":
    unittest.main()
