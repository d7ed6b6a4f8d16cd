"""Cold-L2 benchmark of cured's Python API beside torch and CuPy: ``python -m cured.bench``.

What it measures, in one process on the current CUDA device, float32 inputs from ``torch.rand``
(the shape sweep's data families aside):

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
  torch.cuda.synchronize(), timed by time.perf_counter, in microseconds per call;
- the shape sweep (``--parts shapes``, not in the default run; --shape-samples samples, 7, a
  workload): every 2-D split rows x cols of 2^20, 2^24 and 2^28 elements (--shape-totals; rows
  1, 2, 4, ... n, from 1 x n to n x 1) along dim 1 and dim 0; the 3-D shapes SWEEP_3D along each
  axis and each pair of axes; views (VIEWS: x.t() of a contiguous array, x[:, ::2], one row
  expanded with stride 0) along each dim; 1 x 2^24 along dim 0, 2^24 x 1 along dim 1, 1 x 2^24
  x 1 along dims (0, 2). On each, ``sum``, ``amin``, ``amax``, ``argmin``, ``argmax`` and
  ``exact_sum`` by cured, torch and CuPy (torch and CuPy take argmin and argmax along one axis:
  over several, they run on the array with those axes moved last and made one, the copy where
  one is needed timed with them); ``var_mean``, ``vector_norm`` and ``logsumexp`` by cured and
  torch on the 2-D splits of 2^24; and ``exact_sum`` with ``sum`` (the reference for its speed)
  on the data families FAMILY_DATA (normal, integer-valued, fixed-point, ties, cancellation,
  subnormal) for the cases FAMILY_CASES. --shape-ops chooses the ops; scripts/shapes_table.py
  judges the targets from the JSON. It takes minutes: --max-seconds stops it between workloads,
  the reports are rewritten as it goes, and --resume goes on from one.

How: every sample is cold. Before each one a buffer twice the size of the L2 is written, which
evicts the input from the L2; the sample is the time between two CUDA events recorded on the
current stream around the one call. A workload's time is the median of --samples samples, taken
after three warm-up calls and 20 ms more of them: the GPU runs up to 15% slower for some
milliseconds after memory is given back (as at each workload's end) or after a long kernel,
and the warm-up keeps that stretch out of every library's samples. A call of more than 10 ms
(LONG_CALL_S) ends the warm-up and is sampled 3 times. The flush occupies the GPU while the host
issues the call; where the host takes longer, the difference is in the time (the hot loop
measures the host alone). CuPy reads the torch tensor's memory (``cupy.asarray``, no
copy) and runs, as torch does by default, on the legacy default stream. GB/s is the bytes read
(the input; a view's elements, each counted once) plus the bytes written (the output: float32
sums, int64 indices and counts, both parts of var_mean and aminmax, one byte per ``any``) over
the median time.

Each cured result is checked once per workload: sums against torch's with torch.allclose (rtol
1e-3, atol 1e-3 * sqrt of the reduced size; for the families other than torch.rand's, within
rtol 1e-3 and 1e-4 of the sum of magnitudes), exact_sum bit for bit against the exact sum
rounded once to float32 (exact_reference), amin and amax exactly, argmin and argmax by their
indices (where they differ from torch's, the values they point at must be equal: ties), the
statistics with torch.allclose (rtol 1e-4, NaN equal to NaN) or, for aminmax, count_nonzero and
any, exactly. A wrong result, or a cured call that raises, marks its row WRONG or ERROR and
makes the exit status 1. Without torch, a CUDA device or an importable cured the status is 2;
without CuPy its columns are left empty.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import time
from typing import NamedTuple

LIBS = ("cured", "torch", "cupy")
OPS = ("sum", "exact_sum", "argmax")
PARTS = ("whole", "axes", "stats", "overhead", "shapes")
DEFAULT_PARTS = ("whole", "axes", "stats", "overhead")
STAT_OPS = ("sum", "var_mean", "aminmax", "vector_norm", "logsumexp", "count_nonzero", "any")
STAT_CASES = (((1 << 28,), None), ((1 << 23, 32), 1), ((16384, 16384), 0))
OUT_BYTES = {"argmax": 8, "argmin": 8, "var_mean": 8, "aminmax": 8, "count_nonzero": 8, "any": 1}
SHAPES_3D = ((64, 4096, 64), (1024, 256, 256), (8, 1 << 20, 8), (4096, 64, 256))
MIN_LOG2, EXACT_MIN_LOG2, OVERHEAD_N = 10, 20, 1 << 10
WRITE_EVERY_S = 15  # seconds between rewrites of the reports during a run
SETTLE_S = 0.02  # seconds of warm-up calls per workload, after the --warmup calls
LONG_CALL_S, LONG_SAMPLES = 0.01, 3  # a call longer than this ends the warm-up and gets this many samples
FIELDS = ("section", "op", "shape", "dim", "n", "bytes", "cured_us", "torch_us", "cupy_us",
          "cured_gbps", "torch_gbps", "cupy_gbps", "speedup", "check", "family")
FAILED = ("WRONG", "ERROR")

# The shape sweep (--parts shapes).
SHAPE_OPS = ("sum", "amin", "amax", "argmin", "argmax", "exact_sum", "var_mean", "vector_norm", "logsumexp")
SHAPE_STATS = ("var_mean", "vector_norm", "logsumexp")  # on the 2-D splits of STATS_TOTAL_LOG2 only
STATS_TOTAL_LOG2 = 24
SHAPE_TOTALS_LOG2 = (20, 24, 28)
SHAPE_SAMPLES = 7
ARG_OPS = ("argmin", "argmax")
# torch's and CuPy's function for each op of the sweep; exact_sum's peers are the plain sums.
PEER_OPS = {"sum": "sum", "exact_sum": "sum", "amin": "amin", "amax": "amax", "argmin": "argmin", "argmax": "argmax"}
SWEEP_3D = ((64, 4096, 64), (256, 256, 256), (4096, 64, 64), (16, 1024, 1024), (1024, 256, 256), (8, 1 << 20, 8))
SWEEP_3D_DIMS = (0, 1, 2, (0, 1), (0, 2), (1, 2))
# (kind, the contiguous array's shape, the view's shape): "T" is x.t(), "::2" x[:, ::2] (every other
# column), "expand" x.expand(view shape) of one row (stride 0 along dim 0).
VIEWS = (("T", (4096, 4096), (4096, 4096)), ("T", (16384, 16384), (16384, 16384)),
         ("T", (256, 65536), (65536, 256)), ("::2", (4096, 8192), (4096, 4096)),
         ("::2", (16384, 32768), (16384, 16384)), ("expand", (1, 4096), (4096, 4096)),
         ("expand", (1, 16384), (16384, 16384)))
EXTENT_ONE = (((1, 1 << 24), 0), ((1 << 24, 1), 1), ((1, 1 << 24, 1), (0, 2)))
# exact_sum's data families (beside "uniform", torch.rand): whole arrays and a few 2-D splits, each
# timed by exact_sum and by sum (the reference of its speed). Cases of one size share one array.
FAMILY_DATA = {
    "uniform": lambda torch, n, device: torch.rand(n, device=device),
    "normal": lambda torch, n, device: torch.randn(n, device=device),
    "integer": lambda torch, n, device: torch.randint(-1000, 1000, (n,), device=device).float(),
    "fixed": lambda torch, n, device: torch.randint(-(1 << 23), 1 << 23, (n,), device=device).float() * 2.0 ** -23,
    "ties": lambda torch, n, device: torch.full((n,), 0.1, device=device),
    "cancellation": lambda torch, n, device: _cancellation(torch, n, device),
    "subnormal": lambda torch, n, device: _subnormal(torch, n, device),
}
FAMILIES = tuple(f for f in FAMILY_DATA if f != "uniform")
FAMILY_CASES = (((1 << 24,), None), ((4096, 4096), 0), ((4096, 4096), 1), ((1 << 20, 16), 1),
                ((16, 1 << 20), 1), ((1 << 28,), None))
# exact_reference: elements are summed in int64 in groups of 2^EXACT_BAND_LOG2 exponents (a term
# is then below 2^31 and 2^32 of them sum exactly), EXACT_CHUNK elements at a time.
EXACT_BAND_LOG2, EXACT_CHUNK = 3, 1 << 22
# The sweep's time model (estimate_seconds): a 2^28 float32 read takes about 0.35 ms on an H200,
# the flush of twice the L2 about 0.05 ms; a call's launch and the sample's events about 10 us;
# input, check and release about 5 ms a workload, and exact_sum's exact reference about 0.2 ns an
# element.
READ_BYTES_PER_S, FLUSH_S, CALL_S, WORKLOAD_S, EXACT_CHECK_S = (1 << 30) / 0.35e-3, 0.05e-3, 10e-6, 5e-3, 0.2e-9


class Workload(NamedTuple):
    """One timed workload: op on an array of ``shape`` along ``dim`` (an int, a tuple of axes, or
    None for every axis); ``view`` (kind, contiguous shape) where the array is a view (VIEWS);
    ``family`` the data (FAMILY_DATA)."""
    section: str
    op: str
    shape: tuple
    dim: object
    view: tuple | None = None
    family: str = "uniform"


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


def parse_totals(text: str) -> list[int]:
    """--shape-totals: a comma list of log2 element counts (1..32), in order, without repeats."""
    totals = []
    for part in text.split(","):
        k = int(part)
        if not 1 <= k <= 32:
            raise ValueError(f"total 2^{k} is outside 2^1..2^32")
        if k not in totals:
            totals.append(k)
    return totals


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


def reduced_axes(dim, rank: int) -> tuple[int, ...]:
    """The axes ``dim`` reduces, sorted: None is every axis, an int one, a tuple those."""
    if dim is None:
        return tuple(range(rank))
    return tuple(sorted(d % rank for d in ((dim,) if isinstance(dim, int) else dim)))


def reduced_count(shape, dim) -> int:
    """The elements that make one output: the product of the reduced axes' extents."""
    return math.prod(shape[d] for d in reduced_axes(dim, len(shape)))


def workload_bytes(shape, dim, op: str, itemsize: int = 4) -> int:
    """Bytes read plus bytes written: the input (a view's elements, each once), and one result
    per output element (OUT_BYTES: argmin's and argmax's int64 indices, the two parts of var_mean;
    else the input's type). ``dim`` None reduces everything to one value."""
    n = math.prod(shape)
    outputs = n // reduced_count(shape, dim) if n else 0
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


def shape_label(shape, view=None) -> str:
    """A workload's shape as rows show it: ``4096x1024``, or for a view (VIEWS) the contiguous
    array and what was done to it: ``4096x4096.T``, ``4096x8192[:,::2]``,
    ``1x4096.expand(4096,4096)``."""
    if view is None:
        return "x".join(map(str, shape))
    kind, storage = view
    base = "x".join(map(str, storage))
    return {"T": f"{base}.T", "::2": f"{base}[:,::2]",
            "expand": f"{base}.expand({','.join(map(str, shape))})"}[kind]


def make_row(section: str, op: str, shape, dim, times: dict, check: str, label: str | None = None,
             family: str = "uniform") -> dict:
    """A result row: times in microseconds per library (None where not measured) and the derived
    GB/s and speedup. Overhead rows carry host microseconds per call and no GB/s. ``dim``: "all"
    for None, a list for several axes; ``label`` replaces the shape (a view's, shape_label)."""
    nbytes = None if section == "overhead" else workload_bytes(shape, dim, op)
    row = {"section": section, "op": op, "shape": label or shape_label(shape),
           "dim": "all" if dim is None else list(dim) if isinstance(dim, tuple) else dim,
           "n": math.prod(shape), "bytes": nbytes, "check": check, "family": family}
    for lib in LIBS:
        row[f"{lib}_us"] = times.get(lib)
        row[f"{lib}_gbps"] = gbps(nbytes, times.get(lib))
    row["speedup"] = speedup(row)
    return {k: row[k] for k in FIELDS}


_COLUMNS = (("shape", 18, "s"), ("dim", 4, "s"), ("op", 22, "s"), ("cured_us", 10, ".2f"),
            ("torch_us", 10, ".2f"), ("cupy_us", 10, ".2f"), ("cured_gbps", 10, ".1f"),
            ("torch_gbps", 10, ".1f"), ("cupy_gbps", 10, ".1f"), ("speedup", 8, ".2f"), ("check", 9, "s"))
_TITLES = ("shape", "dim", "op", "cured us", "torch us", "cupy us", "cured GB/s", "torch GB/s",
           "cupy GB/s", "speedup", "check")


def table_header() -> str:
    """The table's title line (speedup: torch time / cured time; overhead rows: host us per call)."""
    return "  ".join(t.rjust(w) if s != "s" else t.ljust(w) for t, (_, w, s) in zip(_TITLES, _COLUMNS)).rstrip()


def format_row(row: dict) -> str:
    """One row of the table, aligned under table_header(); a data family other than uniform
    follows the op (``exact_sum/ties``)."""
    shown = dict(row, dim=",".join(map(str, row["dim"])) if isinstance(row["dim"], list) else row["dim"])
    if row.get("family", "uniform") != "uniform":
        shown["op"] = f"{row['op']}/{row['family']}"
    cells = [str(shown[k]).ljust(w) if s == "s" else ("-" if shown[k] is None else format(shown[k], s)).rjust(w)
             for k, w, s in _COLUMNS]
    return "  ".join(cells).rstrip()


def format_table(rows: list[dict]) -> str:
    """The title line and one line per row."""
    return "\n".join([table_header()] + [format_row(r) for r in rows])


def split_cases(total_log2: int) -> list[tuple[tuple[int, int], int]]:
    """(shape, dim) of every 2-D split of 2^total_log2 elements: rows 1, 2, 4, ... 2^total_log2
    (1 x n to n x 1), each along dim 1 and dim 0."""
    n = 1 << total_log2
    return [((1 << k, n >> k), dim) for k in range(total_log2 + 1) for dim in (1, 0)]


def shape_cases(totals_log2: list[int]) -> list[tuple[tuple[int, ...], object, tuple | None]]:
    """(shape, dim, view) of the sweep's arrays: the 2-D splits of each total, the 3-D shapes
    along each axis and each pair of axes, the views along each dim, the shapes with extent-1
    axes (those that are 2-D splits of a total asked for, once)."""
    cases = [(shape, dim, None) for k in totals_log2 for shape, dim in split_cases(k)]
    cases += [(shape, dim, None) for shape in SWEEP_3D for dim in SWEEP_3D_DIMS]
    cases += [(shape, dim, (kind, storage)) for kind, storage, shape in VIEWS for dim in (1, 0)]
    return cases + [(shape, dim, None) for shape, dim in EXTENT_ONE if (shape, dim, None) not in cases]


def shape_workloads(totals_log2: list[int], ops: list[str]) -> list[Workload]:
    """The shape sweep: the ops of SHAPE_OPS asked for on every case of shape_cases (the
    statistics on the 2-D splits of 2^STATS_TOTAL_LOG2 only, where that total is asked for), then,
    with exact_sum, each data family's cases by sum and exact_sum."""
    plain = [op for op in ops if op not in SHAPE_STATS]
    out = [Workload("shapes", op, shape, dim, view) for shape, dim, view in shape_cases(totals_log2)
           for op in plain]
    if STATS_TOTAL_LOG2 in totals_log2:
        out += [Workload("shapes", op, shape, dim) for shape, dim in split_cases(STATS_TOTAL_LOG2)
                for op in ops if op in SHAPE_STATS]
    if "exact_sum" in ops:
        out += [Workload("shapes", op, shape, dim, None, family) for family in FAMILIES
                for shape, dim in FAMILY_CASES for op in ("sum", "exact_sum")]
    return out


def is_statistic(w: Workload) -> bool:
    """Whether w is timed as a statistic (cured and torch, Bench.measure_stat)."""
    return w.section == "stats" or w.op in SHAPE_STATS


def estimate_seconds(work: list[Workload], samples: int, warmup: int, shape_samples: int | None = None,
                     cupy: bool = True) -> float:
    """Seconds the workloads take by the time model beside READ_BYTES_PER_S: per library, the
    SETTLE_S of calls (at least one), the warm-up calls and the samples, each sample after a
    flush; a call reads and writes workload_bytes at READ_BYTES_PER_S. Peers' slow paths are not
    in it (a call past LONG_CALL_S gets LONG_SAMPLES samples)."""
    total = 0.0
    for w in work:
        count = shape_samples if w.section == "shapes" and shape_samples else samples
        libs = 2 if is_statistic(w) or not cupy else 3
        call = CALL_S + workload_bytes(w.shape, w.dim, w.op) / READ_BYTES_PER_S
        per_lib = max(SETTLE_S, call) + (warmup + count) * call + count * FLUSH_S
        check = math.prod(w.shape) * EXACT_CHECK_S if w.op == "exact_sum" else 0.0
        total += WORKLOAD_S + check + libs * per_lib
    return total


def round_to_float32(i: int, exp: int) -> float:
    """i * 2^exp rounded to the nearest float32, ties to even, as a Python float (+-inf past the
    largest float32)."""
    if i == 0:
        return 0.0
    m, sign = abs(i), (1.0 if i > 0 else -1.0)
    top = m.bit_length() - 1 + exp  # 2^top <= |i * 2^exp| < 2^(top + 1)
    if top >= 128:
        return sign * math.inf
    q = max(top - 23, -149)  # the float32 spacing there: 24 significant bits, or 2^-149 below 2^-126
    if q > exp:
        drop = q - exp
        rest, m, half = m & ((1 << drop) - 1), m >> drop, 1 << (drop - 1)
        if rest > half or (rest == half and m & 1):
            m += 1
    else:
        m <<= exp - q
    value = math.ldexp(m, q)  # m <= 2^24: exact
    return sign * (math.inf if value >= 2.0 ** 128 else value)


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


def _replace(path: str, write) -> None:
    """write(f) into a file beside path, then that file moved onto path: a run stopped while
    writing leaves the previous report whole."""
    part = path + ".part"
    with open(part, "w", newline="") as f:
        write(f)
    os.replace(part, path)


def write_csv(rows: list[dict], path: str) -> None:
    """Every row, one line each, the columns FIELDS."""
    def write(f):
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    _replace(path, write)


def write_json(rows: list[dict], path: str, meta: dict | None = None) -> None:
    """The run's description (``meta``), every row, and the targets' lines."""
    doc = {**(meta or {}), "rows": rows, "targets": summarize_targets(rows)}
    _replace(path, lambda f: json.dump(doc, f, indent=1))


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

def _cancellation(torch, n: int, device):
    """Pairs a, -(a - r) one after the other (along the last axis): a in [2^13, 2^14), r in
    [0, 1/16), so that each pair leaves a residual below 1/16 (a multiple of 2^-10) and the sum is
    about 2^-19 of the sum of magnitudes."""
    a = (1 + torch.rand((n + 1) // 2, device=device)) * 8192
    b = a - torch.rand(a.numel(), device=device) / 16
    return torch.stack((a, -b), 1).flatten()[:n]


def _subnormal(torch, n: int, device):
    """Subnormal float32 values of either sign, k * 2^-149 for k in 1 .. 2^17 (up to 1.8e-40)."""
    k = torch.randint(1, 1 << 17, (n,), dtype=torch.int32, device=device).view(torch.float32)
    return torch.where(torch.rand(n, device=device) < 0.5, -k, k)


def make_view(x, kind: str, shape):
    """The view of the contiguous array x that VIEWS names: x.t(), x[:, ::2] or x.expand(shape)."""
    return {"T": lambda: x.t(), "::2": lambda: x[:, ::2], "expand": lambda: x.expand(shape)}[kind]()


def reduced_last(x, dim):
    """Torch tensor x with the axes of dim (None: every axis) moved last and flattened into one
    (a copy where they cannot be viewed as one): argmin and argmax over several axes, which
    torch takes one at a time, run along the last axis of this."""
    dims = reduced_axes(dim, x.dim())
    k = len(dims)
    return x.movedim(dims, tuple(range(-k, 0))).flatten(-k)


def exact_reference(torch, x, dim, chunk: int = EXACT_CHUNK):
    """The exact sums of finite float32 torch tensor x along dim (None: every axis), each rounded
    once to float32, ties to even: the float32 tensor cured.exact_sum must equal bit for bit.

    Every finite float32 is m * 2^(e - 150) with |m| < 2^24 and e its exponent field (1 for the
    subnormals, whose field is 0). Elements are grouped by e >> 3; within a group m << (e & 7) is
    an integer below 2^31, and the group's int64 sum is exact. The groups' sums, scaled and added
    in float64, give v with |v - exact| below the bound b (2^-53 of the sum of the scaled
    magnitudes per group and per addition, doubled for the roundings of v - b and v + b). Where
    v - b and v + b round to the same float32, so does the exact sum; elsewhere (an exact sum
    within b of a point halfway between two float32s) the groups' sums are added as Python
    integers and rounded by round_to_float32.

    A float64 sum of the elements alone would not do: its error grows with the count (at 2^28
    elements it can reach float32's own spacing, 2^28 * 2^-53 = 2^-25 of the magnitudes), so
    its rounding could fail a right result or pass a wrong one next to it."""
    dims = reduced_axes(dim, x.dim())
    keep = [e for d, e in enumerate(x.shape) if d not in dims]
    outs, red = math.prod(keep), math.prod(x.shape[d] for d in dims)
    y = x.movedim(dims, tuple(range(-len(dims), 0))).reshape(outs, red)
    out = torch.empty(outs, dtype=torch.float32, device=x.device)
    rows, cols = max(1, chunk // max(red, 1)), max(1, min(red, chunk))
    for r0 in range(0, outs, rows):
        sums = {}  # {group: int64 sums of the rows}
        for c0 in range(0, red, cols):
            bits = y[r0:r0 + rows, c0:c0 + cols].contiguous().view(torch.int32)
            field = (bits >> 23) & 0xFF
            m = bits & 0x7FFFFF
            m = torch.where(field > 0, m | 0x800000, m)
            field = field.clamp(min=1)
            term = torch.where(bits < 0, -m, m).long() << (field & ((1 << EXACT_BAND_LOG2) - 1)).long()
            group = field >> EXACT_BAND_LOG2
            for g in range(int(group.min()), int(group.max()) + 1):
                part = torch.where(group == g, term, 0).sum(1)
                sums[g] = sums[g] + part if g in sums else part
        groups = sorted(sums)
        table = torch.stack([sums[g] for g in groups], 1)
        scale = torch.tensor([2.0 ** ((g << EXACT_BAND_LOG2) - 150) for g in groups], dtype=torch.float64,
                             device=x.device)
        t = table.double() * scale
        v, bound = t.sum(1), t.abs().sum(1) * (2 * (len(groups) + 4) * 2.0 ** -53)
        low, high = (v - bound).float(), (v + bound).float()
        for i in (low != high).nonzero().flatten().tolist():
            exact = sum(s << (g << EXACT_BAND_LOG2) for s, g in zip(table[i].tolist(), groups))
            low[i] = round_to_float32(exact, -150)
        out[r0:r0 + len(table)] = low
    return out.reshape(keep)


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
        self.family_key, self.family_data = None, None

    def time_libs(self, fns: dict) -> tuple[dict, dict]:
        """({lib: median cold microseconds of one call}, {lib: the result of its first call}).

        One library after the other, each warmed up (--warmup calls, then calls for SETTLE_S
        seconds) before its samples: the GPU runs slower for some milliseconds after memory is
        given back or after a long kernel, and the warm-up leaves that stretch to no library's
        samples. A call that takes more than LONG_CALL_S ends the warm-up and gets LONG_SAMPLES
        samples (where fewer are not asked for): that stretch is a small part of it. A library
        whose call raises is reported and left out."""
        times, results = {}, {}
        for lib, fn in fns.items():
            try:
                results[lib] = fn()
                per_call = self.settle(fn, self.warmup - 1)
                count = self.samples if per_call <= LONG_CALL_S else min(self.samples, LONG_SAMPLES)
                times[lib] = median(self.cold_samples(fn, count))
            except Exception as e:
                print(f"{lib} {self.workload}: {type(e).__name__}: {e}", file=sys.stderr)
                results.pop(lib, None)
        return times, results

    def settle(self, fn, calls: int) -> float:
        """Calls fn ``calls`` times (at least once) and then, each call to its end, for SETTLE_S
        seconds; only once where that call takes more than LONG_CALL_S. The seconds per call."""
        sync = self.torch.cuda.synchronize
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        done = 1
        if time.perf_counter() - t0 <= LONG_CALL_S:
            for _ in range(calls - 1):
                fn()
            sync()
            t1, done = time.perf_counter(), max(calls, 1)
            while done == max(calls, 1) or time.perf_counter() - t1 < SETTLE_S:
                fn()
                sync()
                done += 1
        return (time.perf_counter() - t0) / done

    def cold_samples(self, fn, count: int | None = None) -> list[float]:
        """``count`` (default --samples) cold microseconds of one call of fn, in the order taken."""
        stream, samples = self.torch.cuda.current_stream(), []
        for _ in range(self.samples if count is None else count):
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

    def family_input(self, shape, family: str):
        """A contiguous float32 array of a data family (FAMILY_DATA), or None if it does not fit
        in memory. Kept until another family or size is asked for: cases of one size share it."""
        n = math.prod(shape)
        if self.family_key != (family, n):
            self.family_key, self.family_data = None, None
            self.release()
            free = self.torch.cuda.mem_get_info()[0]
            if free < 3 * 4 * n + (512 << 20):  # the array and its making's temporaries
                print(f"skipping {family} {'x'.join(map(str, shape))}: {4 * n / 2**30:.1f} GiB of input, "
                      f"{free / 2**30:.1f} GiB free", file=sys.stderr)
                return None
            self.family_data = FAMILY_DATA[family](self.torch, n, "cuda")
            self.family_key = (family, n)
        return self.family_data.view(shape)

    def workload_input(self, w: Workload):
        """The array of workload w (torch.rand's values unless w names another family, a view
        of a contiguous array where it names one), or None if it does not fit in memory."""
        if w.family != "uniform":
            return self.family_input(w.shape, w.family)
        if w.view is None:
            return self.input(w.shape)
        kind, storage = w.view
        x = self.input(storage)
        return None if x is None else make_view(x, kind, w.shape)

    def check(self, op: str, x, dim, got, want, family: str = "uniform") -> str:
        """cured's result against torch's: "ok", "ok (ties)" (argmin, argmax: other indices, equal
        values) or "WRONG". exact_sum must equal exact_reference bit for bit; amin and amax torch's
        result; sums of torch.rand's values torch's within rtol 1e-3 and atol 1e-3 * sqrt(the
        reduced count), of the other families within rtol 1e-3 and 1e-4 of the output's sum of
        magnitudes (cancellation's sums are far smaller than that, subnormal's far below 1e-3)."""
        torch = self.torch
        try:
            if tuple(got.shape) != tuple(want.shape):
                return "WRONG"
            if op == "exact_sum":
                return "ok" if torch.equal(got, exact_reference(torch, x, dim)) else "WRONG"
            if op in ("amin", "amax"):
                return "ok" if torch.equal(got, want) else "WRONG"
            if op not in ARG_OPS:
                got, want = got.double(), want.double()
                if family == "uniform":
                    atol = 1e-3 * math.sqrt(reduced_count(x.shape, dim))
                    return "ok" if torch.allclose(got, want, rtol=1e-3, atol=atol) else "WRONG"
                dims = reduced_axes(dim, x.dim())
                bound = 1e-3 * want.abs() + 1e-4 * x.double().abs().sum(dim=dims)
                return "ok" if bool(((got - want).abs() <= bound).all()) else "WRONG"
            if torch.equal(got, want):
                return "ok"
            y, got = reduced_last(x, dim), got.long()
            if not bool(((got >= 0) & (got < y.shape[-1])).all()):  # before gather reads through them
                return "WRONG"
            at = lambda idx: y.gather(-1, idx.unsqueeze(-1))  # noqa: E731
            return "ok (ties)" if torch.equal(at(got), at(want)) else "WRONG"
        except Exception as e:
            print(f"check of cured.{op} failed: {e}", file=sys.stderr)
            return "WRONG"

    def torch_call(self, op: str, x, dim):
        """torch's call of op (PEER_OPS) on x along dim; argmin and argmax over several axes run
        on reduced_last(x, dim), its making timed with them."""
        fn = getattr(self.torch, PEER_OPS[op])
        if op in ARG_OPS and isinstance(dim, tuple):
            return lambda: fn(reduced_last(x, dim), dim=-1)
        return (lambda: fn(x)) if dim is None else (lambda: fn(x, dim=dim))

    def cupy_call(self, op: str, a, dim):
        """CuPy's call of op (PEER_OPS) on the CuPy array a along dim; argmin and argmax over
        several axes as torch_call's, on a with those axes moved last and reshaped into one."""
        cupy = self.cupy
        fn = getattr(cupy, PEER_OPS[op])
        if op in ARG_OPS and isinstance(dim, tuple):
            k = len(dim)
            keep = tuple(e for d, e in enumerate(a.shape) if d not in reduced_axes(dim, a.ndim))
            return lambda: fn(cupy.moveaxis(a, dim, tuple(range(-k, 0))).reshape(keep + (-1,)), axis=-1)
        return lambda: fn(a, axis=dim)

    def measure(self, section: str, op: str, x, dim, label: str | None = None, family: str = "uniform") -> dict:
        """One row: cold times of cured, torch and CuPy (PEER_OPS) on x along dim; cured's
        result checked. ``label`` names a view's shape (shape_label); ``family`` the data."""
        cured_op = getattr(self.cured, op, None)  # a missing function fails in the call: ERROR
        kw = {} if dim is None else {"dim": dim}
        fns = {"cured": lambda: cured_op(x, **kw), "torch": self.torch_call(op, x, dim)}
        if self.cupy is not None:
            fns["cupy"] = self.cupy_call(op, self.cupy.asarray(x), dim)
        self.workload = f"{op} on {label or tuple(x.shape)} ({family}) dim {dim}"
        times, results = self.time_libs(fns)
        check = ("ERROR" if "cured" not in results else "unchecked" if "torch" not in results
                 else self.check(op, x, dim, results["cured"], results["torch"], family))
        results = fns = None  # drop the outputs before the caches are emptied
        self.release()
        return make_row(section, op, tuple(x.shape), dim, times, check, label, family)

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
                else:  # NaN where torch gives NaN: var of one element (correction 1)
                    same = torch.allclose(g.double(), w.double(), rtol=1e-4, atol=1e-4, equal_nan=True)
                if not same:
                    return "WRONG"
            return "ok"
        except Exception as e:
            print(f"check of cured.{op} failed: {e}", file=sys.stderr)
            return "WRONG"

    def measure_stat(self, op: str, x, dim, section: str = "stats") -> dict:
        """One statistics row: cold times of cured and torch on x along dim; cured's result checked."""
        ours, theirs = self.stat_fns(op, x, dim)
        self.workload = f"{op} on {tuple(x.shape)} dim {dim}"
        times, results = self.time_libs({"cured": ours, "torch": theirs})
        check = ("ERROR" if "cured" not in results else "unchecked" if "torch" not in results
                 else self.check_stat(op, results["cured"], results["torch"]))
        results = None
        self.release()
        return make_row(section, op, tuple(x.shape), dim, times, check)

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
            samples, failed = {lib: [] for lib in fns}, set()
            for _ in range(5):
                for lib, fn in fns.items():
                    if lib in failed:
                        continue
                    try:
                        samples[lib].append(hot_loop_us(fn, calls, torch.cuda.synchronize))
                    except Exception as e:
                        print(f"{lib} {op} in the hot loop: {type(e).__name__}: {e}", file=sys.stderr)
                        failed.add(lib)
            times = {lib: median(t) for lib, t in samples.items() if len(t) == 5}
            out.append(make_row("overhead", op, (OVERHEAD_N,), None, times, "-" if "cured" in times else "ERROR"))
        return out


def hot_loop_us(fn, calls: int, synchronize, warmup: int = 10) -> float:
    """Microseconds per call of fn over a hot loop of ``calls`` calls between two synchronizations,
    after ``warmup`` calls: the host's cost, or the GPU's where that is longer."""
    for _ in range(warmup):
        fn()
    synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    synchronize()
    return (time.perf_counter() - t0) / calls * 1e6


def workloads(args) -> list[Workload]:
    """Every timed workload the options ask for, in order."""
    out = []
    if "whole" in args.parts:
        for n in whole_sizes(args.max_log2):
            out += [Workload("whole", op, (n,), None) for op in ("sum", "exact_sum")
                    if op in args.ops and (op == "sum" or n >= 1 << EXACT_MIN_LOG2)]
    if "axes" in args.parts:
        for shape, dim in grid_workloads(args.grid):
            out += [Workload("axes", op, shape, dim) for op in ("sum", "argmax") if op in args.ops]
    if "stats" in args.parts:
        for shape, dim in STAT_CASES:
            out += [Workload("stats", op, shape, dim) for op in args.stat_ops]
    if "shapes" in args.parts:
        out += shape_workloads(args.shape_totals, args.shape_ops)
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
    p.add_argument("--parts", type=_option(parse_list, PARTS), default=list(DEFAULT_PARTS),
                   help=f"comma list of parts to run, of {','.join(PARTS)} ({','.join(DEFAULT_PARTS)})")
    p.add_argument("--shape-totals", type=_option(parse_totals), default=list(SHAPE_TOTALS_LOG2),
                   help="shape sweep: the totals of its 2-D splits, a comma list of log2 element counts "
                        f"({','.join(map(str, SHAPE_TOTALS_LOG2))})")
    p.add_argument("--shape-ops", type=_option(parse_list, SHAPE_OPS), default=list(SHAPE_OPS),
                   help=f"shape sweep: comma list of ops, of {','.join(SHAPE_OPS)} (all)")
    p.add_argument("--shape-samples", type=int, default=SHAPE_SAMPLES,
                   help=f"shape sweep: cold samples per workload, median kept ({SHAPE_SAMPLES})")
    p.add_argument("--calls", type=int, default=2000, help="calls in the host-overhead loop (2000)")
    p.add_argument("--no-cupy", action="store_true", help="leave CuPy out")
    p.add_argument("--max-seconds", type=float, default=0,
                   help="start no workload after this many seconds; the reports hold the rows so far (0: no limit)")
    p.add_argument("--resume", metavar="PATH",
                   help="a --json report of an earlier run: its rows are kept and its workloads not run again")
    p.add_argument("--csv", metavar="PATH", help="write every row as CSV (rewritten as the run goes)")
    p.add_argument("--json", metavar="PATH", help="write every row and the targets as JSON (rewritten as the run "
                   "goes; \"complete\" says whether it ended)")
    p.add_argument("--plot", metavar="PATH", help="draw GB/s per workload to a PNG (matplotlib)")
    return p


def workload_key(w: "Workload") -> tuple:
    """What identifies w's row in a report (row_key of that row)."""
    dim = "all" if w.dim is None else list(w.dim) if isinstance(w.dim, tuple) else w.dim
    return (w.section, w.op, shape_label(w.shape, w.view), json.dumps(dim), w.family)


def row_key(r: dict) -> tuple:
    """workload_key of the workload that made row r."""
    return (r["section"], r["op"], r["shape"], json.dumps(r["dim"]), r.get("family", "uniform"))


def read_rows(path: str) -> list[dict]:
    """The rows of a report written by --json (ValueError if it holds none)."""
    with open(path) as f:
        doc = json.load(f)  # a JSONDecodeError is a ValueError
    if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
        raise ValueError("not a report of python -m cured.bench --json (no rows)")
    blank = dict({k: None for k in FIELDS}, family="uniform")
    return [{**blank, **r} for r in doc["rows"]]


def write_outputs(args, rows: list[dict], meta: dict) -> None:
    """The --csv and --json files of the rows so far (meta["complete"]: whether the run ended)."""
    if args.csv:
        write_csv(rows, args.csv)
    if args.json:
        write_json(rows, args.json, meta)


def main(argv=None) -> int:
    """Run the benchmark; 0: every result right, 1: some cured result wrong, 2: cannot run."""
    args = build_parser().parse_args(argv)
    if min(args.samples, args.warmup, args.calls, args.shape_samples) < 1:
        print("cured.bench: --samples, --warmup, --calls and --shape-samples must be at least 1", file=sys.stderr)
        return 2
    if args.max_seconds < 0:
        print("cured.bench: --max-seconds must be 0 (no limit) or more", file=sys.stderr)
        return 2
    try:
        bench = Bench(args.samples, args.warmup, not args.no_cupy)
    except Unavailable as e:
        print(f"cured.bench: cannot run: {e}", file=sys.stderr)
        return 2
    work = workloads(args)
    shapes = (f" ({args.shape_samples} in the shape sweep)" if "shapes" in args.parts else "")
    print(f"{bench.device}: L2 {bench.l2_bytes / 2**20:.0f} MiB, flushed by writing "
          f"{2 * bench.l2_bytes / 2**20:.0f} MiB before each sample; median of {args.samples} cold samples"
          + shapes + ("" if bench.cupy is not None else "; no CuPy"))
    rows, done = [], set()
    if args.resume:
        try:
            rows = read_rows(args.resume)
        except (OSError, ValueError) as e:
            print(f"cured.bench: --resume {args.resume}: {e}", file=sys.stderr)
            return 2
        done = {row_key(r) for r in rows}
        work = [w for w in work if workload_key(w) not in done]
    seconds = estimate_seconds(work, args.samples, args.warmup, args.shape_samples, bench.cupy is not None)
    print(f"{len(work)} workloads" + (f" ({len(rows)} rows read from {args.resume})" if args.resume else "")
          + f", about {seconds:.0f} s by the time model of estimate_seconds")
    print(table_header(), flush=True)
    meta = {"device": bench.device, "l2_bytes": bench.l2_bytes, "samples": args.samples,
            "shape_samples": args.shape_samples, "warmup": args.warmup, "cupy": bench.cupy is not None}
    start = last_write = time.perf_counter()
    stopped = False
    for k, w in enumerate(work):
        elapsed = time.perf_counter() - start
        if args.max_seconds and elapsed > args.max_seconds:
            stopped = True
            print(f"cured.bench: --max-seconds {args.max_seconds:g} reached after {k} of {len(work)} workloads; "
                  f"--resume the written report to go on", file=sys.stderr)
            break
        if k:
            print(f"[{k}/{len(work)}] {elapsed:.0f} s, about {elapsed / k * (len(work) - k):.0f} s left",
                  file=sys.stderr, flush=True)
        bench.samples = args.shape_samples if w.section == "shapes" else args.samples
        x = bench.workload_input(w)
        if x is not None:
            rows.append(bench.measure_stat(w.op, x, w.dim, w.section) if is_statistic(w)
                        else bench.measure(w.section, w.op, x, w.dim, shape_label(w.shape, w.view), w.family))
            print(format_row(rows[-1]), flush=True)
        x = None
        if time.perf_counter() - last_write > WRITE_EVERY_S:  # a run stopped from outside keeps its rows
            write_outputs(args, rows, dict(meta, complete=False))
            last_write = time.perf_counter()
    if "overhead" in args.parts and not stopped and not any(r["section"] == "overhead" for r in rows):
        for row in bench.overhead(args.calls):
            rows.append(row)
            print(format_row(row), flush=True)
    print()
    print("\n".join(summarize_targets(rows)))
    write_outputs(args, rows, dict(meta, complete=not stopped))
    if args.plot:
        plot(rows, args.plot)
    wrong = [r for r in rows if r["check"] in FAILED]
    if wrong:
        print(f"{len(wrong)} cured result(s) wrong or failed", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
