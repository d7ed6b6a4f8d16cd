"""Cold-L2 benchmark of cured's Python API beside torch and CuPy: ``python -m cured.bench``.

What it measures, in one process on the current CUDA device, float32 inputs from ``torch.rand``:

- whole arrays: ``sum`` of n = 2^10 .. 2^K elements (K: --max-log2, 30; sizes that do not fit
  in the GPU's free memory are skipped) by cured.sum, torch.sum and cupy.sum, and ``exact_sum``
  from 2^20 up (cured.exact_sum; its torch and cupy columns are the plain torch.sum and
  cupy.sum, neither library having an exact sum);
- along axes, the grid of docs/PERF.md: contiguous rows x cols of 2^24 and 2^28 elements, rows
  1, 4, 16, ... up to half the elements, along dim 1 and along dim 0, and the 3-D shapes
  64x4096x64, 1024x256x256, 8x1048576x8 and 4096x64x256 along dim 1; ``sum`` and ``argmax``;
- statistics (``--parts stats``), the cases of the statistics issue: a whole array of 2^28,
  2^23 rows of 32 along dim 1 and 16384 x 16384 along dim 0; ``sum`` (the reference for the
  bandwidth), ``var_mean``, ``aminmax``, ``vector_norm``, ``logsumexp``, ``count_nonzero`` and
  ``any`` by cured and by torch's functions of the same names (``torch.linalg.vector_norm``);
- the host's cost per call: a hot loop of ``sum`` on 2^10 elements between two
  torch.cuda.synchronize(), timed by time.perf_counter, in microseconds per call.

How: every sample is cold. Before each one a buffer twice the size of the L2 is written, which
evicts the input from the L2; the sample is the time between two CUDA events recorded on the
current stream around the one call. A workload's time is the median of --samples samples, taken
after three warm-up calls and 20 ms more of them: the GPU runs up to 15% slower for some
milliseconds after memory is given back (as at each workload's end) or after a long kernel,
and the warm-up keeps that stretch out of every library's samples. The flush occupies the GPU
while the host issues the call; where the host takes longer, the difference is in the time (the
hot loop measures the host alone). CuPy reads the torch tensor's memory (``cupy.asarray``, no
copy) and runs, as torch does by default, on the legacy default stream. GB/s is the bytes read
(the input) plus the bytes written (the output: float32 sums, int64 indices and counts, both
parts of var_mean and aminmax, one byte per ``any``) over the median time.

Each cured result is checked once per workload against torch's: sums with torch.allclose
(rtol 1e-3, atol 1e-3 * sqrt of the reduced size), argmax by its indices (where they differ from
torch's, the values they point at must be equal: ties), the statistics with torch.allclose (rtol
1e-4) or, for aminmax, count_nonzero and any, exactly. A wrong result, or a cured call that
raises, marks its row WRONG or ERROR and makes the exit status 1. Without torch, a CUDA device or
an importable cured the status is 2; without CuPy its columns are left empty.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time

LIBS = ("cured", "torch", "cupy")
OPS = ("sum", "exact_sum", "argmax")
PARTS = ("whole", "axes", "stats", "overhead")
STAT_OPS = ("sum", "var_mean", "aminmax", "vector_norm", "logsumexp", "count_nonzero", "any")
STAT_CASES = (((1 << 28,), None), ((1 << 23, 32), 1), ((16384, 16384), 0))
OUT_BYTES = {"argmax": 8, "var_mean": 8, "aminmax": 8, "count_nonzero": 8, "any": 1}
SHAPES_3D = ((64, 4096, 64), (1024, 256, 256), (8, 1 << 20, 8), (4096, 64, 256))
MIN_LOG2, EXACT_MIN_LOG2, OVERHEAD_N = 10, 20, 1 << 10
SETTLE_S = 0.02  # seconds of warm-up calls per workload, after the --warmup calls
FIELDS = ("section", "op", "shape", "dim", "n", "bytes", "cured_us", "torch_us", "cupy_us",
          "cured_gbps", "torch_gbps", "cupy_gbps", "speedup", "check")
FAILED = ("WRONG", "ERROR")


# ---------------------------------------------------------------- pure computations (no torch)

def parse_size(text: str) -> int:
    """An element count written ``2^k`` or as a plain integer (positive)."""
    base, _, exp = text.strip().partition("^")
    value = int(base) ** int(exp) if exp else int(base)
    if value < 1:
        raise ValueError(f"not a positive size: {text!r}")
    return value


def parse_grid(text: str) -> list[int]:
    """--grid: ``2^24``, ``2^28``, ``both`` (the two), or a comma list of powers of 2 (>= 2)."""
    if text.strip() == "both":
        return [1 << 24, 1 << 28]
    sizes = []
    for part in text.split(","):
        n = parse_size(part)
        if n < 2 or n & (n - 1):
            raise ValueError(f"grid size {part!r} is not a power of 2 of at least 2")
        if n not in sizes:
            sizes.append(n)
    return sizes


def parse_list(text: str, allowed: tuple[str, ...]) -> list[str]:
    """A comma list of names from ``allowed`` (for --ops and --parts), in order, without repeats."""
    names = []
    for name in (p.strip() for p in text.split(",")):
        if name not in allowed:
            raise ValueError(f"{name!r} is not one of {', '.join(allowed)}")
        if name not in names:
            names.append(name)
    return names


def whole_sizes(max_log2: int, min_log2: int = MIN_LOG2) -> list[int]:
    """The whole-array sizes: the powers of 2 from 2^min_log2 to 2^max_log2."""
    return [1 << k for k in range(min_log2, max_log2 + 1)]


def grid_workloads(totals: list[int]) -> list[tuple[tuple[int, ...], int]]:
    """(shape, dim) of the axis grid: for each total, rows x cols with rows 1, 4, 16, ... up to
    half the total (cols >= 2), along dim 1 and dim 0; then the 3-D shapes along dim 1."""
    out = []
    for n in totals:
        rows = 1
        while rows <= n // 2:
            out += [((rows, n // rows), 1), ((rows, n // rows), 0)]
            rows *= 4
    return out + [(s, 1) for s in SHAPES_3D]


def workload_bytes(shape, dim, op: str, itemsize: int = 4) -> int:
    """Bytes read plus bytes written: the input, and one result per output element (OUT_BYTES:
    argmax's int64 indices, the two parts of var_mean; else the input's type). ``dim`` None
    reduces everything to one value."""
    n = math.prod(shape)
    outputs = 1 if dim is None else n // shape[dim]
    return n * itemsize + outputs * OUT_BYTES.get(op, itemsize)


def gbps(nbytes, us):
    """GB/s (1e9 bytes per second) of ``nbytes`` in ``us`` microseconds; None if either is missing."""
    return nbytes / (us * 1e3) if nbytes and us else None


def median(values: list[float]) -> float:
    """The median (the mean of the two middle values for an even count)."""
    v = sorted(values)
    m = len(v) // 2
    return v[m] if len(v) % 2 else 0.5 * (v[m - 1] + v[m])


def geomean(values):
    """The geometric mean of positive numbers; None for none."""
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def speedup(row: dict):
    """torch's time over cured's (above 1: cured is faster); None if either is missing."""
    return row["torch_us"] / row["cured_us"] if row.get("torch_us") and row.get("cured_us") else None


def make_row(section: str, op: str, shape, dim, times: dict, check: str) -> dict:
    """A result row: times in microseconds per library (None where not measured) and the derived
    GB/s and speedup. Overhead rows carry host microseconds per call and no GB/s."""
    nbytes = None if section == "overhead" else workload_bytes(shape, dim, op)
    row = {"section": section, "op": op, "shape": "x".join(map(str, shape)),
           "dim": "all" if dim is None else dim, "n": math.prod(shape), "bytes": nbytes, "check": check}
    for lib in LIBS:
        row[f"{lib}_us"] = times.get(lib)
        row[f"{lib}_gbps"] = gbps(nbytes, times.get(lib))
    row["speedup"] = speedup(row)
    return {k: row[k] for k in FIELDS}


_COLUMNS = (("shape", 13, "s"), ("dim", 4, "s"), ("op", 9, "s"), ("cured_us", 10, ".2f"),
            ("torch_us", 10, ".2f"), ("cupy_us", 10, ".2f"), ("cured_gbps", 10, ".1f"),
            ("torch_gbps", 10, ".1f"), ("cupy_gbps", 10, ".1f"), ("speedup", 8, ".2f"), ("check", 9, "s"))
_TITLES = ("shape", "dim", "op", "cured us", "torch us", "cupy us", "cured GB/s", "torch GB/s",
           "cupy GB/s", "speedup", "check")


def table_header() -> str:
    """The table's title line (speedup: torch time / cured time; overhead rows: host us per call)."""
    return "  ".join(t.rjust(w) if s != "s" else t.ljust(w) for t, (_, w, s) in zip(_TITLES, _COLUMNS)).rstrip()


def format_row(row: dict) -> str:
    """One row of the table, aligned under table_header()."""
    cells = [str(row[k]).ljust(w) if s == "s" else ("-" if row[k] is None else format(row[k], s)).rjust(w)
             for k, w, s in _COLUMNS]
    return "  ".join(cells).rstrip()


def format_table(rows: list[dict]) -> str:
    """The title line and one line per row."""
    return "\n".join([table_header()] + [format_row(r) for r in rows])


def summarize_targets(rows: list[dict]) -> list[str]:
    """One line per target, each ending "met", "missed", or "not measured" where no row bears on it."""
    lines = []

    def pick(section, op, lo=0, hi=float("inf")):
        return [r for r in rows if r["section"] == section and r["op"] == op and lo <= r["n"] <= hi]

    def add(label, value, target, ok):
        verdict = "not measured" if value is None else ("met" if ok else "missed")
        shown = "-" if value is None else f"{value:.2f}"
        lines.append(f"{label}: {shown} (target {target}): {verdict}")

    mid = geomean(r["speedup"] for r in pick("whole", "sum", 1 << 14, 1 << 22))
    add("whole-array sum, geomean torch/cured time over 2^14..2^22", mid, ">= 1.2", mid and mid >= 1.2)
    low = min((r["speedup"] for r in pick("whole", "sum") if r["speedup"]), default=None)
    add("whole-array sum, minimum torch/cured time over all n", low, ">= 1.0", low and low >= 1.0)
    axes = [r["speedup"] for r in pick("axes", "sum") if r["speedup"]]
    g, low = geomean(axes), min(axes, default=None)
    add("axes sum, geomean torch/cured time over the grid", g, ">= 2", g and g >= 2.0)
    add("axes sum, minimum torch/cured time over the grid", low, ">= 1.0", low and low >= 1.0)
    g = geomean(r["speedup"] for r in pick("axes", "argmax"))
    add("axes argmax, geomean torch.argmax/cured time over the grid", g, ">= 3", g and g >= 3.0)
    worst = max((1 / r["speedup"] for r in pick("whole", "exact_sum", 1 << 26) if r["speedup"]), default=None)
    add("exact_sum time / torch.sum time at 2^26 and above, worst", worst, "<= 1.2", worst and worst <= 1.2)
    stats = [r for r in rows if r["section"] == "stats"]
    v = next((r["speedup"] for r in stats if r["op"] == "var_mean" and r["dim"] == "all"), None)
    add("stats var_mean, whole array, torch/cured time", v, ">= 1.25", v and v >= 1.25)
    even = [r["speedup"] for r in stats if r["op"] in ("aminmax", "vector_norm", "any") and r["dim"] == "all"]
    low = min(even, default=None) if all(even) else None
    add("stats aminmax, vector_norm, any, whole array, minimum torch/cured time", low, ">= 1.0", low and low >= 1.0)
    fast = [r["speedup"] for r in stats if r["op"] in ("logsumexp", "count_nonzero")]
    low = min(fast, default=None) if all(fast) else None
    add("stats logsumexp, count_nonzero, every case, minimum torch/cured time", low, ">= 5", low and low >= 5.0)
    sums = {(r["shape"], r["dim"]): r["cured_gbps"] for r in stats if r["op"] == "sum"}
    ratios = [r["cured_gbps"] / sums[(r["shape"], r["dim"])] for r in stats
              if r["op"] != "sum" and r["dim"] != "all" and r["cured_gbps"] and sums.get((r["shape"], r["dim"]))]
    low = min(ratios, default=None)
    add("stats along axes, minimum GB/s over cured.sum's on the same case", low, ">= 0.9", low and low >= 0.9)
    rows_ = [r["speedup"] for r in stats if r["dim"] == 1 and r["speedup"]]
    g, low = geomean(rows_), min(rows_, default=None)
    add("stats along short rows, geomean torch/cured time", g, ">= 2", g and g >= 2.0)
    add("stats along short rows, minimum torch/cured time", low, ">= 1.0", low and low >= 1.0)
    for op, peer in (("sum/call", "torch"), ("sum/cupy", "cupy")):
        over = [(r["cured_us"], r[f"{peer}_us"]) for r in rows
                if r["section"] == "overhead" and r["op"] == op and r["cured_us"] and r[f"{peer}_us"]]
        c, t = over[0] if over else (1, 1)
        on = "a torch tensor" if peer == "torch" else "a CuPy array"
        add(f"host us per call at 2^10 on {on}, cured / {peer}" + (f" ({c:.2f} / {t:.2f})" if over else ""),
            c / t if over else None, "<= 1", c <= t)
    return lines


def write_csv(rows: list[dict], path: str) -> None:
    """Every row, one line each, the columns FIELDS."""
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)


def write_json(rows: list[dict], path: str, meta: dict | None = None) -> None:
    """The run's description (``meta``), every row, and the targets' lines."""
    with open(path, "w") as f:
        json.dump({**(meta or {}), "rows": rows, "targets": summarize_targets(rows)}, f, indent=1)


def plot(rows: list[dict], path: str) -> None:
    """A PNG: GB/s of each library, whole arrays against n (log2 axis) and the axis grid's workloads."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"cured": "tab:blue", "torch": "tab:orange", "cupy": "tab:green"}
    fig, (left, right) = plt.subplots(1, 2, figsize=(22, 7), gridspec_kw={"width_ratios": [1, 3]})
    for op, style in (("sum", "-"), ("exact_sum", "--")):
        for lib in LIBS if op == "sum" else ("cured",):  # exact_sum's torch/cupy columns are plain sums
            pts = [(r["n"], r[f"{lib}_gbps"]) for r in rows
                   if r["section"] == "whole" and r["op"] == op and r[f"{lib}_gbps"]]
            if pts:
                left.plot(*zip(*pts), style, marker="o", ms=3, color=colors[lib], label=f"{lib} {op}")
    left.set_xscale("log", base=2)
    left.set(yscale="log", xlabel="n (float32 elements)", ylabel="GB/s", title="whole arrays, cold L2")
    left.grid(True, alpha=0.3)
    if left.lines:
        left.legend(fontsize=8)
    grid = [r for r in rows if r["section"] == "axes"]
    for lib in LIBS:
        for op, marker in (("sum", "o"), ("argmax", "^")):
            pts = [(i, r[f"{lib}_gbps"]) for i, r in enumerate(grid) if r["op"] == op and r[f"{lib}_gbps"]]
            if pts:
                right.scatter(*zip(*pts), s=14, marker=marker, color=colors[lib], label=f"{lib} {op}")
    right.set_xticks(range(len(grid)))
    right.set_xticklabels([f"{r['shape']} d{r['dim']} {r['op']}" for r in grid], rotation=90, fontsize=5)
    right.set(ylabel="GB/s", title="along axes (float32), cold L2")
    right.grid(True, axis="y", alpha=0.3)
    if grid:
        right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


# ---------------------------------------------------------------- measurement (torch, CUDA)

class Unavailable(Exception):
    """torch, a CUDA device or cured is missing: the benchmark cannot run (exit status 2)."""


class Bench:
    """The libraries, the L2 flush buffer, the CUDA events and the input buffer of one run."""

    def __init__(self, samples: int, warmup: int, use_cupy: bool):
        try:
            import torch
        except ImportError as e:
            raise Unavailable(f"torch is not importable ({e})") from None
        if not torch.cuda.is_available():
            raise Unavailable("torch sees no CUDA device")
        try:
            import cured
        except Exception as e:  # the package or its shared library
            raise Unavailable(f"cured is not importable ({e}): put <build>/python on PYTHONPATH") from None
        self.torch, self.cured, self.cupy = torch, cured, None
        if use_cupy:
            try:
                import cupy
                self.cupy = cupy
            except Exception as e:
                print(f"cupy is not importable ({e}): running without its columns", file=sys.stderr)
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        self.device, self.l2_bytes = props.name, getattr(props, "L2_cache_size", 0) or 60 << 20
        self.flush_buffer = torch.empty(2 * self.l2_bytes, dtype=torch.uint8, device="cuda")
        self.flush_value = 0
        self.start, self.stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        self.samples, self.warmup, self.base, self.workload = samples, warmup, None, ""

    def time_libs(self, fns: dict) -> tuple[dict, dict]:
        """({lib: median cold microseconds of one call}, {lib: the result of its first call}).

        One library after the other, each warmed up (--warmup calls, then calls for SETTLE_S
        seconds) before its samples: the GPU runs slower for some milliseconds after memory is
        given back or after a long kernel, and the warm-up leaves that stretch to no library's
        samples. A library whose call raises is reported and left out."""
        times, results = {}, {}
        for lib, fn in fns.items():
            try:
                results[lib] = fn()
                for _ in range(self.warmup - 1):
                    fn()
                self.settle(fn)
                times[lib] = median(self.cold_samples(fn))
            except Exception as e:
                print(f"{lib} {self.workload}: {type(e).__name__}: {e}", file=sys.stderr)
                results.pop(lib, None)
        return times, results

    def settle(self, fn) -> None:
        """Calls fn, each to its end, for SETTLE_S seconds."""
        self.torch.cuda.synchronize()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < SETTLE_S:
            fn()
            self.torch.cuda.synchronize()

    def cold_samples(self, fn) -> list[float]:
        """--samples cold microseconds of one call of fn, in the order taken."""
        stream, samples = self.torch.cuda.current_stream(), []
        for _ in range(self.samples):
            self.flush_value ^= 0x5A  # different bytes each time: no write can be skipped
            self.flush_buffer.fill_(self.flush_value)
            self.start.record(stream)
            fn()
            self.stop.record(stream)
            self.stop.synchronize()
            samples.append(self.start.elapsed_time(self.stop) * 1e3)
        return samples

    def release(self) -> None:
        """Give cached memory back (CuPy's pool holds what torch could use)."""
        if self.cupy is not None:
            self.cupy.get_default_memory_pool().free_all_blocks()
        self.torch.cuda.empty_cache()

    def input(self, shape):
        """A contiguous float32 view of uniform [0, 1) values, or None if it does not fit in memory.
        One buffer, regrown when a larger size is asked for; smaller inputs are prefixes of it."""
        n = math.prod(shape)
        if self.base is None or self.base.numel() < n:
            self.base = None
            self.release()
            free = self.torch.cuda.mem_get_info()[0]
            if free < 1.25 * 4 * n + (512 << 20):
                print(f"skipping {'x'.join(map(str, shape))}: {4 * n / 2**30:.1f} GiB of input, "
                      f"{free / 2**30:.1f} GiB free", file=sys.stderr)
                return None
            self.base = self.torch.rand(n, dtype=self.torch.float32, device="cuda")
        return self.base[:n].view(shape)

    def check(self, op: str, x, dim, got, want) -> str:
        """cured's result against torch's: "ok", "ok (ties)" (argmax: other indices, equal values) or "WRONG"."""
        torch = self.torch
        try:
            if tuple(got.shape) != tuple(want.shape):
                return "WRONG"
            if op != "argmax":
                atol = 1e-3 * math.sqrt(x.numel() if dim is None else x.shape[dim])
                return "ok" if torch.allclose(got.double(), want.double(), rtol=1e-3, atol=atol) else "WRONG"
            if torch.equal(got, want):
                return "ok"
            got = got.long()
            if not bool(((got >= 0) & (got < x.shape[dim])).all()):  # before gather reads through them
                return "WRONG"
            at = lambda idx: x.gather(dim, idx.unsqueeze(dim))  # noqa: E731
            return "ok (ties)" if torch.equal(at(got), at(want)) else "WRONG"
        except Exception as e:
            print(f"check of cured.{op} failed: {e}", file=sys.stderr)
            return "WRONG"

    def measure(self, section: str, op: str, x, dim) -> dict:
        """One row: cold times of cured, torch and CuPy on x along dim; cured's result checked."""
        torch, cured, cupy, kw = self.torch, self.cured, self.cupy, {} if dim is None else {"dim": dim}
        cured_op = getattr(cured, op, None)  # a missing function fails in the call: ERROR
        torch_op = torch.argmax if op == "argmax" else torch.sum
        fns = {"cured": lambda: cured_op(x, **kw), "torch": lambda: torch_op(x, **kw)}
        if cupy is not None:
            a, cupy_op = cupy.asarray(x), (cupy.argmax if op == "argmax" else cupy.sum)
            fns["cupy"] = lambda: cupy_op(a, axis=dim)
        self.workload = f"{op} on {tuple(x.shape)} dim {dim}"
        times, results = self.time_libs(fns)
        check = ("ERROR" if "cured" not in results else "unchecked" if "torch" not in results
                 else self.check(op, x, dim, results["cured"], results["torch"]))
        results = fns = None  # drop the outputs before the caches are emptied
        self.release()
        return make_row(section, op, tuple(x.shape), dim, times, check)

    def stat_fns(self, op: str, x, dim):
        """(cured's call, torch's call) of a statistic on x along dim (None: every axis)."""
        torch, cured = self.torch, self.cured
        dims = tuple(range(x.dim())) if dim is None else dim
        ours = getattr(cured, op, None)  # a missing function fails in the call: ERROR
        theirs = {"sum": torch.sum, "var_mean": torch.var_mean, "aminmax": torch.aminmax,
                  "vector_norm": torch.linalg.vector_norm, "logsumexp": torch.logsumexp,
                  "count_nonzero": torch.count_nonzero, "any": torch.any}[op]
        if op == "aminmax":
            return (lambda: ours(x, dim=dim)), (lambda: theirs(x) if dim is None else theirs(x, dim=dim))
        if op in ("any", "sum") and dim is None:
            return (lambda: ours(x)), (lambda: theirs(x))
        return (lambda: ours(x, dim=dim)), (lambda: theirs(x, dim=dims))

    def check_stat(self, op: str, got, want) -> str:
        """cured's statistic against torch's: "ok" or "WRONG" (pairs part by part)."""
        torch = self.torch
        try:
            got = tuple(got) if isinstance(got, tuple) else (got,)
            want = tuple(want) if isinstance(want, tuple) else (want,)
            for g, w in zip(got, want, strict=True):
                if tuple(g.shape) != tuple(w.shape):
                    return "WRONG"
                if op in ("aminmax", "count_nonzero", "any"):
                    same = torch.equal(g.to(w.dtype), w)
                else:
                    same = torch.allclose(g.double(), w.double(), rtol=1e-4, atol=1e-4)
                if not same:
                    return "WRONG"
            return "ok"
        except Exception as e:
            print(f"check of cured.{op} failed: {e}", file=sys.stderr)
            return "WRONG"

    def measure_stat(self, op: str, x, dim) -> dict:
        """One statistics row: cold times of cured and torch on x along dim; cured's result checked."""
        ours, theirs = self.stat_fns(op, x, dim)
        self.workload = f"{op} on {tuple(x.shape)} dim {dim}"
        times, results = self.time_libs({"cured": ours, "torch": theirs})
        check = ("ERROR" if "cured" not in results else "unchecked" if "torch" not in results
                 else self.check_stat(op, results["cured"], results["torch"]))
        results = None
        self.release()
        return make_row("stats", op, tuple(x.shape), dim, times, check)

    def overhead(self, calls: int) -> list[dict]:
        """Host microseconds per call of sum on 2^10 elements: hot loops of ``calls`` calls between
        two synchronizations, five rounds with the libraries in turn, the median of each kept. One
        row on a torch tensor (cured and torch, with cupy.sum of the same memory), one on a CuPy
        array (cured and cupy)."""
        torch, x = self.torch, self.input((OVERHEAD_N,))
        rows = {"sum/call": {"cured": lambda: self.cured.sum(x), "torch": lambda: torch.sum(x)}}
        if self.cupy is not None:
            a = self.cupy.asarray(x)
            rows["sum/call"]["cupy"] = lambda: self.cupy.sum(a)
            rows["sum/cupy"] = {"cured": lambda: self.cured.sum(a), "cupy": lambda: self.cupy.sum(a)}
        out = []
        for op, fns in rows.items():
            samples = {lib: [] for lib in fns}
            for _ in range(5):
                for lib, fn in fns.items():
                    try:
                        for _ in range(10):
                            fn()
                        torch.cuda.synchronize()
                        t0 = time.perf_counter()
                        for _ in range(calls):
                            fn()
                        torch.cuda.synchronize()
                        samples[lib].append((time.perf_counter() - t0) / calls * 1e6)
                    except Exception as e:
                        print(f"{lib} {op} in the hot loop: {type(e).__name__}: {e}", file=sys.stderr)
                        break
            times = {lib: median(t) for lib, t in samples.items() if len(t) == 5}
            out.append(make_row("overhead", op, (OVERHEAD_N,), None, times, "-" if "cured" in times else "ERROR"))
        return out


def workloads(args) -> list[tuple[str, str, tuple[int, ...], int | None]]:
    """(section, op, shape, dim) of every timed workload the options ask for, in order."""
    out = []
    if "whole" in args.parts:
        for n in whole_sizes(args.max_log2):
            out += [("whole", op, (n,), None) for op in ("sum", "exact_sum")
                    if op in args.ops and (op == "sum" or n >= 1 << EXACT_MIN_LOG2)]
    if "axes" in args.parts:
        for shape, dim in grid_workloads(args.grid):
            out += [("axes", op, shape, dim) for op in ("sum", "argmax") if op in args.ops]
    if "stats" in args.parts:
        for shape, dim in STAT_CASES:
            out += [("stats", op, shape, dim) for op in args.stat_ops]
    return out


def _option(parse, *extra):
    """An argparse type from a parser raising ValueError, its message shown as the error."""
    def convert(text):
        try:
            return parse(text, *extra)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    return convert


def build_parser() -> argparse.ArgumentParser:
    """The command line (needs neither torch nor a GPU)."""
    p = argparse.ArgumentParser(prog="python -m cured.bench", description=(__doc__ or "").split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Speedup is torch's time over cured's; the targets follow the table.")
    p.add_argument("--samples", type=int, default=20, help="cold samples per workload, median kept (20)")
    p.add_argument("--warmup", type=int, default=3, help="warm-up calls before the samples (3)")
    p.add_argument("--max-log2", type=int, default=30, help="largest whole array, 2^k float32 elements (30)")
    p.add_argument("--grid", type=_option(parse_grid), default="both",
                   help="axis grid totals: 2^24, 2^28 or both (default), or a comma list of powers of 2")
    p.add_argument("--ops", type=_option(parse_list, OPS), default=list(OPS),
                   help=f"comma list of ops to time, of {','.join(OPS)} (all)")
    p.add_argument("--stat-ops", type=_option(parse_list, STAT_OPS), default=list(STAT_OPS),
                   help=f"comma list of the statistics part's ops, of {','.join(STAT_OPS)} (all)")
    p.add_argument("--parts", type=_option(parse_list, PARTS), default=list(PARTS),
                   help=f"comma list of parts to run, of {','.join(PARTS)} (all)")
    p.add_argument("--calls", type=int, default=2000, help="calls in the host-overhead loop (2000)")
    p.add_argument("--no-cupy", action="store_true", help="leave CuPy out")
    p.add_argument("--csv", metavar="PATH", help="write every row as CSV")
    p.add_argument("--json", metavar="PATH", help="write every row and the targets as JSON")
    p.add_argument("--plot", metavar="PATH", help="draw GB/s per workload to a PNG (matplotlib)")
    return p


def main(argv=None) -> int:
    """Run the benchmark; 0: every result right, 1: some cured result wrong, 2: cannot run."""
    args = build_parser().parse_args(argv)
    if args.samples < 1 or args.warmup < 1 or args.calls < 1:
        print("cured.bench: --samples, --warmup and --calls must be at least 1", file=sys.stderr)
        return 2
    try:
        bench = Bench(args.samples, args.warmup, not args.no_cupy)
    except Unavailable as e:
        print(f"cured.bench: cannot run: {e}", file=sys.stderr)
        return 2
    print(f"{bench.device}: L2 {bench.l2_bytes / 2**20:.0f} MiB, flushed by writing "
          f"{2 * bench.l2_bytes / 2**20:.0f} MiB before each sample; median of {args.samples} cold samples"
          + ("" if bench.cupy is not None else "; no CuPy"))
    print(table_header(), flush=True)
    rows = []
    for section, op, shape, dim in workloads(args):
        x = bench.input(shape)
        if x is not None:
            rows.append(bench.measure_stat(op, x, dim) if section == "stats" else bench.measure(section, op, x, dim))
            print(format_row(rows[-1]), flush=True)
    if "overhead" in args.parts:
        for row in bench.overhead(args.calls):
            rows.append(row)
            print(format_row(row), flush=True)
    print()
    print("\n".join(summarize_targets(rows)))
    if args.csv:
        write_csv(rows, args.csv)
    if args.json:
        meta = {"device": bench.device, "l2_bytes": bench.l2_bytes, "samples": args.samples,
                "warmup": args.warmup, "cupy": bench.cupy is not None}
        write_json(rows, args.json, meta)
    if args.plot:
        plot(rows, args.plot)
    wrong = [r for r in rows if r["check"] in FAILED]
    if wrong:
        print(f"{len(wrong)} cured result(s) wrong or failed", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
