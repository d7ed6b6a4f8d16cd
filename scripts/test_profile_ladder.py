"""Tests of scripts/profile_ladder.py on fabricated `ncu --csv --page raw` output (no GPU, no ncu).

    python3 -m unittest discover -s scripts -p "test_*.py"
"""

import contextlib
import csv
import io
import os
import stat
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_ladder as pl  # noqa: E402

INFO = ['"ID"', '"Process ID"', '"Process Name"', '"Host Name"', '"Kernel Name"', '"Context"', '"Stream"',
        '"Block Size"', '"Grid Size"', '"Device"', '"CC"']


def raw_csv(kernels, metrics=None, units=True, noise=True):
    """ncu's raw page: header, unit row, one row per kernel (name, grid, {metric: (unit, value)})."""
    metrics = metrics if metrics is not None else sorted({m for _, _, vals in kernels for m in vals})
    lines = []
    if noise:
        lines += ["==PROF== Connected to process 4242 (/x/cured-bench)",
                  '==PROF== Profiling "step01_kernel": 0%....50%....100% - 9 passes']
    lines.append(",".join(INFO + [f'"{m}"' for m in metrics]))
    if units:
        unit_of = {}
        for _, _, vals in kernels:
            for m, (u, _) in vals.items():
                unit_of[m] = u
        lines.append(",".join(['""'] * len(INFO) + [f'"{unit_of.get(m, "")}"' for m in metrics]))
    for i, (name, grid, vals) in enumerate(kernels):
        info = [str(i), "4242", "cured-bench", "127.0.0.1", name, "1", "13", "(256, 1, 1)", f"({grid}, 1, 1)",
                "0", "9.0"]
        cells = info + [vals.get(m, ("", "n/a"))[1] for m in metrics]
        lines.append(",".join(f'"{c}"' for c in cells))
    if noise:
        lines.append("==PROF== Disconnected from process 4242")
    return "\n".join(lines) + "\n"


def full_values(**over):
    """Every metric of profile_ladder.METRICS for one kernel, in ncu's base units and number format."""
    vals = {
        "gpu__time_duration.sum": ("nsecond", "1,234,560"),
        "dram__throughput.avg.pct_of_peak_sustained_elapsed": ("%", "12.34"),
        "sm__warps_active.avg.pct_of_peak_sustained_active": ("%", "87.5"),
        "smsp__thread_inst_executed_per_inst_executed.ratio": ("", "16"),
        "smsp__sass_average_branch_targets_threads_uniform.pct": ("%", "75.25"),
        "smsp__sass_branch_targets_threads_divergent.sum": ("", "1,234"),
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": ("", "2,000,000"),
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": ("", "0"),
        "smsp__inst_executed.sum": ("inst", "10,000"),
        "smsp__warps_launched.sum": ("warp", "100"),
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": ("sector", "4,096"),
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": ("request", "1,024"),
        "launch__registers_per_thread": ("register/thread", "16"),
        "device__attribute_display_name": ("", "NVIDIA H200"),
    }
    vals.update(over)
    return vals


STEP1 = "void cured::ladder::step01_kernel<256u, float, float>(const T2 *, long, T3 *)"
CUB1 = ("void cub::_V_300000_SM_900::detail::reduce::DeviceReduceKernel<cub::_V_300000_SM_900::detail::reduce::"
        "policy_hub<float, int, cuda::std::plus<float>>::Policy1000, const float *, int, cuda::std::plus<float>, "
        "float, cuda::std::identity>(T2, T4 *, T3, cub::GridEvenShare<T3>, T5, T7)")
CUB2 = ("void cub::_V_300000_SM_900::detail::reduce::DeviceReduceSingleTileKernel<cub::_V_300000_SM_900::detail::"
        "reduce::policy_hub<float, int, cuda::std::plus<float>>::Policy1000, float *, float *, int, "
        "cuda::std::plus<float>, float, float, cuda::std::identity>(T2, T3, T4, T5, T6, T8)")


def run_of(kernels, impl="step1", policy=pl.FIRST_PASS, type_name="float"):
    return {"type": type_name, "size": "2^24", "n": 1 << 24, "impl": impl, "policy": policy,
            "kernels": kernels, "error": "", "check": "ok", "command": ["ncu", "cured-bench"]}


class NumbersTest(unittest.TestCase):
    def test_thousands_separators_and_missing(self):
        self.assertEqual(pl.parse_number("1,234"), 1234.0)
        self.assertEqual(pl.parse_number("1,234,567.5"), 1234567.5)
        self.assertEqual(pl.parse_number("12.5"), 12.5)
        self.assertEqual(pl.parse_number("4.0e-05"), 4e-05)
        self.assertEqual(pl.parse_number("3,5"), 3.5)  # decimal comma (European locale)
        for text in ("n/a", "N/A", "", "  ", None, "NVIDIA H200"):
            self.assertIsNone(pl.parse_number(text))

    def test_units(self):
        self.assertEqual(pl.unit_scale("nsecond"), 1.0)
        self.assertEqual(pl.unit_scale("usecond"), 1e3)
        self.assertEqual(pl.unit_scale("msecond"), 1e6)
        self.assertEqual(pl.unit_scale("Kinst"), 1e3)
        self.assertEqual(pl.unit_scale("Msector"), 1e6)
        for unit in ("%", "", "inst", "register/thread", "sector"):
            self.assertEqual(pl.unit_scale(unit), 1.0)

    def test_dims(self):
        self.assertEqual(pl.product_of_dims("(65536, 1, 1)"), 65536)
        self.assertEqual(pl.product_of_dims("(8, 2, 1)"), 16)
        self.assertIsNone(pl.product_of_dims(""))


class ParseTest(unittest.TestCase):
    def test_full_row(self):
        text = raw_csv([(STEP1, 65536, full_values())])
        kernels = pl.parse_raw_csv(text)
        self.assertEqual(len(kernels), 1)
        k = kernels[0]
        self.assertEqual((k["id"], k["name"], k["grid"], k["block"]), (0, STEP1, 65536, 256))
        d = pl.derive(k)
        self.assertAlmostEqual(d["time_us"], 1234.56)
        self.assertAlmostEqual(d["dram_pct"], 12.34)
        self.assertAlmostEqual(d["occupancy_pct"], 87.5)
        self.assertAlmostEqual(d["threads_per_inst"], 16.0)
        self.assertAlmostEqual(d["warp_exec_eff_pct"], 50.0)
        self.assertAlmostEqual(d["branch_eff_pct"], 75.25)
        self.assertEqual(d["divergent_branches"], 1234.0)
        self.assertEqual(d["smem_ld_conflicts"], 2e6)
        self.assertEqual(d["smem_st_conflicts"], 0.0)
        self.assertAlmostEqual(d["inst_per_warp"], 100.0)
        self.assertAlmostEqual(d["sectors_per_request"], 4.0)
        self.assertEqual(d["registers"], 16.0)
        self.assertEqual(k["values"]["device__attribute_display_name"], "NVIDIA H200")

    def test_missing_metric_is_none_not_an_error(self):
        vals = full_values(**{"smsp__sass_average_branch_targets_threads_uniform.pct": ("%", "n/a")})
        del vals["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]  # column absent altogether
        k = pl.parse_raw_csv(raw_csv([(STEP1, 65536, vals)]))[0]
        d = pl.derive(k)
        self.assertIsNone(d["branch_eff_pct"])
        self.assertIsNone(d["sectors_per_request"])
        self.assertAlmostEqual(d["dram_pct"], 12.34)
        line = next(l for l in pl.markdown_table(pl.report_rows(run_of([k]))) if l.startswith("| step1 "))
        self.assertIn("n/a", line)

    def test_unit_row_scales_and_is_not_a_kernel(self):
        vals = full_values(**{"gpu__time_duration.sum": ("usecond", "1,234.56")})
        kernels = pl.parse_raw_csv(raw_csv([(STEP1, 65536, vals)]))
        self.assertEqual(len(kernels), 1)
        self.assertAlmostEqual(pl.derive(kernels[0])["time_us"], 1234.56)

    def test_no_unit_row(self):
        kernels = pl.parse_raw_csv(raw_csv([(STEP1, 65536, full_values())], units=False, noise=False))
        self.assertEqual(len(kernels), 1)
        self.assertAlmostEqual(pl.derive(kernels[0])["time_us"], 1234.56)  # base unit assumed: ns

    def test_no_csv_at_all(self):
        self.assertEqual(pl.parse_raw_csv("==ERROR== ERR_NVGPUCTRPERM - no permission\n"), [])
        self.assertEqual(pl.extract_csv("just text\n"), "")

    def test_failed_metric_names_from_ncu_errors(self):
        out = ("==PROF== Connected to process 1\n"
               "==ERROR== Failed to find metric regex:^smsp__sass_branch_targets_threads_divergent\\.(sum|avg)$\n")
        self.assertEqual(pl.failed_metrics(out, pl.METRICS), {"smsp__sass_branch_targets_threads_divergent.sum"})
        self.assertEqual(pl.failed_metrics("==ERROR== ERR_NVGPUCTRPERM\n", pl.METRICS), set())


class SelectTest(unittest.TestCase):
    def test_two_kernels_for_cub(self):
        text = raw_csv([(CUB1, 528, full_values()), (CUB2, 1, full_values())])
        run = run_of(pl.parse_raw_csv(text), impl="cub", policy=pl.ALL)
        rows = pl.report_rows(run)
        self.assertEqual([r["launch"] for r in rows], ["kernel 1/2", "kernel 2/2"])
        self.assertEqual([r["grid"] for r in rows], [528, 1])
        table = pl.markdown_table(rows)
        self.assertIn("`DeviceReduceKernel<…>`", table[2])
        self.assertIn("`DeviceReduceSingleTileKernel<…>`", table[3])

    def test_a_missing_cub_kernel_is_flagged(self):
        run = run_of(pl.parse_raw_csv(raw_csv([(CUB1, 528, full_values())])), impl="cub", policy=pl.ALL)
        self.assertEqual(pl.run_warning(run), "expected 2 kernels per reduction, ncu profiled 1")
        self.assertIn("ncu profiled 1", pl.markdown_table(pl.report_rows(run))[2])
        ok = run_of(pl.parse_raw_csv(raw_csv([(CUB1, 528, full_values()), (CUB2, 1, full_values())])),
                    impl="cub", policy=pl.ALL)
        self.assertEqual(pl.run_warning(ok), "")

    def test_first_pass_of_a_multi_pass_step(self):
        # The cold sample's three passes, and (should the skip not apply) the warm-up's first pass.
        kernels = pl.parse_raw_csv(raw_csv([
            (STEP1, 65536, full_values(**{"gpu__time_duration.sum": ("nsecond", "9")})),   # warm-up
            (STEP1, 65536, full_values(**{"gpu__time_duration.sum": ("nsecond", "1,000")})),
            (STEP1, 256, full_values()), (STEP1, 1, full_values())]))
        picked = pl.select_launches(kernels, pl.FIRST_PASS)
        self.assertEqual(len(picked), 1)
        label, k = picked[0]
        self.assertEqual(label, "pass 1/3")
        self.assertEqual((k["id"], k["grid"]), (1, 65536))  # the later launch: the cold sample's

    def test_no_kernel_gives_a_placeholder_row(self):
        run = run_of([])
        run["error"] = "ncu rc=1, no kernel matched"
        rows = pl.report_rows(run)
        self.assertEqual(len(rows), 1)
        self.assertIn("no kernel matched", pl.markdown_table(rows)[2])

    def test_short_kernel_names(self):
        self.assertEqual(pl.short_kernel_name(STEP1), "step01_kernel<256u, float, float>")
        self.assertEqual(pl.short_kernel_name(CUB1), "DeviceReduceKernel<…>")
        self.assertEqual(pl.short_kernel_name("k(int *)"), "k")


class MarkdownTest(unittest.TestCase):
    def test_header_tables_and_columns(self):
        runs = [run_of(pl.parse_raw_csv(raw_csv([(STEP1, 65536, full_values())]))),
                run_of(pl.parse_raw_csv(raw_csv([(CUB1, 528, full_values()), (CUB2, 1, full_values())])),
                       impl="cub", policy=pl.ALL)]
        info = {"device": "NVIDIA H200", "smi": "smi", "ncu_version": "Version 2025.3", "command": "python3 x",
                "date": "today", "git": "abc"}
        md = pl.build_markdown(info, runs, {"launch__registers_per_thread"}).splitlines()
        self.assertEqual(md[0], "# Ladder profile (Nsight Compute) on NVIDIA H200")
        self.assertIn("- Command: `python3 x`", md)
        title = md.index("## float, n = 2^24 (16,777,216)")
        self.assertLess(md.index("- Command: `python3 x`"), title)
        table = [l for l in md[title + 2:] if l.startswith("|")]
        self.assertEqual(len({l.count("|") for l in table}), 1)  # every row has every column
        self.assertEqual(len(table), 2 + 3)
        self.assertTrue(any("`launch__registers_per_thread`" in l and "could not collect" in l for l in md))
        self.assertNotIn("## int32, n = 2^22 (4,194,304)", md)  # no runs of that type


FAKE_NCU = r'''#!{python}
"""A stand-in for ncu: prints a raw CSV for the kernels the named implementation launches."""
import os
import sys
sys.path.insert(0, {tests!r})
import test_profile_ladder as t
args = sys.argv[1:]
if os.environ.get("FAKE_NCU_NO_PERMISSION") and args != ["--version"]:
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters")
    sys.exit(1)
if args == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.0.0 (build 1)")
    sys.exit(0)
metrics = args[args.index("--metrics") + 1].split(",")
if "smsp__sass_branch_targets_threads_divergent.sum" in metrics:  # a metric this "device" lacks
    print("==ERROR== Failed to find metric regex:^smsp__sass_branch_targets_threads_divergent\\.(sum|avg)$")
    sys.exit(1)
bench = args[args.index("--launch-count") + 2:]
impl, type_name = bench[bench.index("--impl") + 1], bench[bench.index("--types") + 1]
with open(bench[bench.index("--out") + 1], "w") as f:
    f.write("impl,type,op,n,block,cold_ms,hot_ms,bytes,gbps,pct_ceiling,pct_peak,vs_step1,vs_cub,check\n")
    f.write(f"{{impl}},{{type_name}},sum,1,256,,,,,,,,,ok\n")
vals = {{m: v for m, v in t.full_values().items() if m in metrics}}
if impl == "cub":
    kernels = [(t.CUB1, 528, vals), (t.CUB2, 1, vals)]
elif impl == "cured":
    kernels = [("void cured::device::single_pass_kernel<cured::device::policy, float, float>(...)", 1056, vals)]
else:
    name = f"void cured::ladder::step{{int(impl[4:]):02d}}_kernel<256u, float, float>(const T2 *, long, T3 *)"
    kernels = [(name, 65536, vals), (name, 256, vals), (name, 1, vals)]
print(t.raw_csv(kernels, metrics=[m for m in metrics if m in vals]))
'''


class EndToEndTest(unittest.TestCase):
    """main() with a fake ncu and a fake cured-bench: the whole pipeline, files and summary."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.ncu = os.path.join(self.dir, "ncu")
        with open(self.ncu, "w") as f:
            f.write(FAKE_NCU.format(python=sys.executable, tests=os.path.dirname(os.path.abspath(__file__))))
        self.bench = os.path.join(self.dir, "cured-bench")
        with open(self.bench, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        for path in (self.ncu, self.bench):
            os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)

    def tearDown(self):
        self.tmp.cleanup()

    def test_every_run_and_a_missing_metric(self):
        out_dir = os.path.join(self.dir, "out")
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            rc = pl.main(["--bench", self.bench, "--out", out_dir, "--ncu", self.ncu])
        self.assertEqual(rc, 0, stdout.getvalue())
        summary = stdout.getvalue().splitlines()
        self.assertEqual(summary[0], "==== profile_ladder summary")
        self.assertIn("missing metrics: smsp__sass_branch_targets_threads_divergent.sum", summary)
        with open(os.path.join(out_dir, "profile.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 2 * (10 + 1 + 2))
        step1 = rows[0]
        self.assertEqual((step1["impl"], step1["launch"], step1["grid"], step1["check"]),
                         ("step1", "pass 1/3", "65536", "ok"))
        self.assertEqual(step1["divergent_branches"], "")  # missing: empty in the CSV, n/a in the table
        self.assertEqual(float(step1["sectors_per_request"]), 4.0)
        with open(os.path.join(out_dir, "profile.md")) as f:
            md = f.read()
        self.assertTrue(md.startswith("# Ladder profile (Nsight Compute) on NVIDIA H200\n"))
        self.assertIn("## float, n = 2^24", md)
        self.assertIn("## int32, n = 2^22", md)
        self.assertIn("--launch-skip 1 --launch-count 1", md)
        self.assertEqual(len(os.listdir(os.path.join(out_dir, "raw"))), 2 * 12 * 3)  # csv, log, bench csv

    def test_only_and_types(self):
        out_dir = os.path.join(self.dir, "out")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rc = pl.main(["--bench", self.bench, "--out", out_dir, "--ncu", self.ncu,
                          "--only", "step1,cub", "--types", "int32"])
        self.assertEqual(rc, 0)
        with open(os.path.join(out_dir, "profile.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(r["type"], r["impl"], r["launch"]) for r in rows],
                         [("int32", "step1", "pass 1/3"), ("int32", "cub", "kernel 1/2"),
                          ("int32", "cub", "kernel 2/2")])

    def test_no_counter_permission_stops_early(self):
        out_dir = os.path.join(self.dir, "out")
        os.environ["FAKE_NCU_NO_PERMISSION"] = "1"
        try:
            stdout = io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
                rc = pl.main(["--bench", self.bench, "--out", out_dir, "--ncu", self.ncu])
        finally:
            del os.environ["FAKE_NCU_NO_PERMISSION"]
        self.assertEqual(rc, 1)
        self.assertIn("ERR_NVGPUCTRPERM", stdout.getvalue())
        self.assertEqual(len([f for f in os.listdir(os.path.join(out_dir, "raw")) if f.endswith(".log")]), 1)
        with open(os.path.join(out_dir, "profile.md")) as f:
            self.assertIn("(none: skipped: no permission", f.read())

    def test_time_budget(self):
        out_dir = os.path.join(self.dir, "out")
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
            rc = pl.main(["--bench", self.bench, "--out", out_dir, "--ncu", self.ncu, "--budget-s", "0",
                          "--only", "cured"])
        self.assertEqual(rc, 1)
        self.assertIn("skipped: time budget spent", stdout.getvalue())

    def test_missing_ncu_is_a_clear_error(self):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            rc = pl.main(["--bench", self.bench, "--out", self.dir, "--ncu", os.path.join(self.dir, "no-ncu")])
        self.assertEqual(rc, 2)
        self.assertIn("not found", stderr.getvalue())

    def test_unknown_implementation(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(pl.main(["--bench", self.bench, "--out", self.dir, "--ncu", self.ncu,
                                      "--only", "step11"]), 2)


if __name__ == "__main__":
    unittest.main()
