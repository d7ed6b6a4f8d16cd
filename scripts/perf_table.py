#!/usr/bin/env python3
"""The library's speed against CUB and Thrust, from cured-bench JSON reports (docs/PERF.md).

    scripts/perf_table.py perf_sum.json perf_extrema.json > perf.md

For each (type, op): one row per size with the cold times of cured and CUB and their ratio
(CUB time / cured time: above 1 means cured is faster), then the targets: the geometric mean
of the ratio over 2^14..2^22 (target >= 1.5), over 2^10..2^12 (>= 1.0), the smallest ratio
over 2^10..2^32 (>= 0.98), and, for sums, cured's blocking form against thrust::reduce at
n <= 2^20 (>= 3). Each target line says met or MISSED. Rows of the normal and spread input
families (cured-bench --data; the field "data", "exact" when absent) are tables of their own.
Where the report has the read floor (cured-bench --impl floor: a kernel that only reads the
input), the table adds its time and CUB's time over it, and a bound line: the geometric mean
of CUB / floor over 2^14..2^22, the most that any one-launch reduction reading its input could
reach against CUB there.

Then the exact sums (cured-bench --ops sum,exact_sum): for each type and data family, cured's
exact_sum against cured::sum on the same input, cold: the throughput ratio (sum time /
exact_sum time: 1 means as fast), its smallest value over n >= 2^22 (target >= 0.9, every type
and family) and over 2^16..2^22 (>= 0.75), and the time exact_sum takes beyond the sum at
n <= 2^16 (at most 1.5 microseconds).

Then the exact dot products (cured-bench --ops exact_dot,dot, --impl cured,cub,cublas): the dot
product of the input's two halves, exact (cured's exact_dot) against CUB's fused dot product
(cub::DeviceReduce::TransformReduce over the pairs) and cuBLAS's dot, cold: the throughput
ratios (peer time / exact_dot time) at n >= 2^24 elements in all (two streams of n / 2), smallest
(targets: >= 0.85 against the fused dot, >= 0.9 against cuBLAS).
"""

import json
import math
import sys


def cold(row):
    return row.get("cold_ms") if row.get("cold_ms") is not None else row.get("hot_ms")


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


# The check cured-bench gives rows that compute no result (the read floor).
NO_RESULT = "n/a: reads only"


def usable(row):
    """Checked ok, or the floor (which has no result to check)."""
    return row["check"] == "ok" or (row["impl"] == "floor" and row["check"] == NO_RESULT)


def ratios(rows, num_impl, den_impl):
    """{n: time(num_impl) / time(den_impl)} where both rows exist and are usable."""
    by = {}
    for r in rows:
        by.setdefault(r["n"], {})[r["impl"]] = r
    out = {}
    for n, impls in by.items():
        a, b = impls.get(num_impl), impls.get(den_impl)
        if a and b and usable(a) and usable(b) and cold(a) and cold(b):
            out[n] = cold(a) / cold(b)
    return out


def in_range(d, lo_exp, hi_exp):
    return [v for n, v in d.items() if 2 ** lo_exp <= n <= 2 ** hi_exp]


def verdict(value, target, kind="at least", unit=""):
    if value is None:
        return "no data"
    if target is None:
        return f"{value:.2f}{unit} (no target)"
    met = value >= target if kind == "at least" else value <= target
    return f"{value:.2f}{unit} (target {kind} {target}{unit}: {'met' if met else 'MISSED'})"


def data_of(row):
    """The input family of a row; reports from before --data have only the exact family."""
    return row.get("data") or "exact"


def tables(reports):
    rows = [r for rep in reports for r in rep["rows"]]
    groups = sorted({(r["type"], r["op"], data_of(r)) for r in rows})
    out = []
    for type_name, op, data in groups:
        g = [r for r in rows if r["type"] == type_name and r["op"] == op and data_of(r) == data]
        vs_cub = ratios(g, "cub", "cured")
        if not vs_cub:
            continue
        out.append(f"### {type_name} {op}" + ("" if data == "exact" else f" ({data} data)") + "\n")
        floor = ratios(g, "cub", "floor")
        by = {(r["n"], r["impl"]): r for r in g}
        if floor:
            out.append("| n | cured ms | cub ms | cub / cured | floor ms | cub / floor |")
            out.append("|---:|---:|---:|---:|---:|---:|")
        else:
            out.append("| n | cured ms | cub ms | cub / cured |")
            out.append("|---:|---:|---:|---:|")
        for n in sorted(vs_cub):
            line = f"| {n} | {cold(by[(n, 'cured')]):.4f} | {cold(by[(n, 'cub')]):.4f} | {vs_cub[n]:.2f} |"
            if floor:
                line += (f" {cold(by[(n, 'floor')]):.4f} | {floor[n]:.2f} |" if n in floor else " - | - |")
            out.append(line)
        out.append("")
        out.append("- geometric mean over 2^14..2^22: " + verdict(geomean(in_range(vs_cub, 14, 22)), 1.5))
        if floor:
            bound = geomean(in_range(floor, 14, 22))
            out.append("- bound: geometric mean of cub / floor over 2^14..2^22: "
                       + (f"{bound:.2f}" if bound else "no data")
                       + " (a kernel that only reads the input: no one-launch reduction gets past it)")
        out.append("- geometric mean over 2^10..2^12: " + verdict(geomean(in_range(vs_cub, 10, 12)), 1.0))
        small = in_range(vs_cub, 10, 32)
        measured = sorted(n for n in vs_cub if 2 ** 10 <= n <= 2 ** 32)
        span = ""
        if measured and (measured[0] > 2 ** 10 or measured[-1] < 2 ** 32):
            span = f" (measured: {measured[0]}..{measured[-1]} only)"
        out.append("- smallest over 2^10..2^32" + span + ": " + verdict(min(small) if small else None, 0.98))
        if op == "sum":
            vs_thrust = ratios(g, "thrust", "cured-blocking")
            small_t = in_range(vs_thrust, 0, 20)
            out.append("- blocking cured against thrust::reduce, smallest over n <= 2^20: "
                       + verdict(min(small_t) if small_t else None, 3.0))
        out.append("")
    return out


# The exact-sum targets: exact_sum throughput / cured::sum throughput, smallest over n >= 2^22
# (every type and data family) and over 2^16..2^22; the extra time at n <= 2^16.
EXACT_LARGE_EXP, EXACT_LARGE_TARGET = 22, 0.9
EXACT_MIDDLE_EXPS, EXACT_MIDDLE_TARGET = (16, 22), 0.75
EXACT_SMALL_MAX_EXP, EXACT_SMALL_EXTRA_US = 16, 1.5
# The exact dot product against its peers at n >= 2^24 (all elements; two streams of n / 2).
DOT_LARGE_EXP = 24
DOT_TARGETS = {"cub": 0.85, "cublas": 0.9}


def checked_rows(rows, type_name, data):
    """{(op, impl, n): row} of one type and family, checked ok and timed."""
    by = {}
    for r in rows:
        if r["type"] == type_name and data_of(r) == data and r["check"] == "ok" and cold(r):
            by[(r["op"], r["impl"], r["n"])] = r
    return by


def exact_tables(reports):
    """The exact_sum section: cured's exact_sum against cured::sum (impl cured, cold), per type and data family."""
    rows = [r for rep in reports for r in rep["rows"]]
    groups = sorted({(r["type"], data_of(r)) for r in rows if r["op"] == "exact_sum"})
    out = []
    for type_name, data in groups:
        by = checked_rows(rows, type_name, data)
        sizes = sorted(n for (op, impl, n) in by if op == "exact_sum" and impl == "cured" and ("sum", "cured", n) in by)
        if not sizes:
            continue
        out.append(f"### {type_name} exact_sum against cured::sum ({data} data)\n")
        out.append("| n | cured sum ms | cub sum ms | exact_sum ms | throughput exact / sum | extra us |")
        out.append("|---:|---:|---:|---:|---:|---:|")
        ratio, extra = {}, {}
        for n in sizes:
            s, e = cold(by[("sum", "cured", n)]), cold(by[("exact_sum", "cured", n)])
            ratio[n], extra[n] = s / e, (e - s) * 1e3
            cub = by.get(("sum", "cub", n))
            out.append(f"| {n} | {s:.4f} | {f'{cold(cub):.4f}' if cub else '-'} | {e:.4f} | {ratio[n]:.2f} "
                       f"| {extra[n]:.2f} |")
        out.append("")
        large = [v for n, v in ratio.items() if n >= 2 ** EXACT_LARGE_EXP]
        middle = in_range(ratio, *EXACT_MIDDLE_EXPS)
        small = [v for n, v in extra.items() if n <= 2 ** EXACT_SMALL_MAX_EXP]
        out.append(f"- throughput exact_sum / sum, smallest over n >= 2^{EXACT_LARGE_EXP}: "
                   + verdict(min(large) if large else None, EXACT_LARGE_TARGET))
        out.append(f"- throughput exact_sum / sum, smallest over 2^{EXACT_MIDDLE_EXPS[0]}..2^{EXACT_MIDDLE_EXPS[1]}: "
                   + verdict(min(middle) if middle else None, EXACT_MIDDLE_TARGET))
        out.append(f"- exact_sum time minus sum time, largest over n <= 2^{EXACT_SMALL_MAX_EXP}: "
                   + verdict(max(small) if small else None, EXACT_SMALL_EXTRA_US, "at most", " us"))
        out.append("")
    if out:
        out = ["## Exact sums\n"] + out
    return out


def dot_tables(reports):
    """The exact_dot section: cured's exact_dot against CUB's fused dot and cuBLAS's dot, per type and family."""
    rows = [r for rep in reports for r in rep["rows"]]
    groups = sorted({(r["type"], data_of(r)) for r in rows if r["op"] == "exact_dot"})
    out = []
    for type_name, data in groups:
        by = checked_rows(rows, type_name, data)
        sizes = sorted(n for (op, impl, n) in by if op == "exact_dot" and impl == "cured")
        if not sizes:
            continue
        out.append(f"### {type_name} exact_dot against the plain dot products ({data} data)\n")
        out.append("| n (two streams of n/2) | exact_dot ms | cub fused dot ms | cublas dot ms | floor ms "
                   "| cub / exact | cublas / exact | floor / exact |")
        out.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
        vs = {peer: {} for peer in DOT_TARGETS}
        for n in sizes:
            e = cold(by[("exact_dot", "cured", n)])
            cells = [f"{e:.4f}"]
            peers = []
            for peer in DOT_TARGETS:
                r = by.get(("dot", peer, n))
                cells.append(f"{cold(r):.4f}" if r else "-")
                if r:
                    vs[peer][n] = cold(r) / e
                peers.append(f"{vs[peer][n]:.2f}" if n in vs[peer] else "-")
            floor = next((fr for fr in rows if fr["impl"] == "floor" and fr["op"] == "exact_dot" and fr["n"] == n
                          and fr["type"] == type_name and data_of(fr) == data and cold(fr)), None)
            cells.append(f"{cold(floor):.4f}" if floor else "-")
            peers.append(f"{cold(floor) / e:.2f}" if floor else "-")
            out.append(f"| {n} | " + " | ".join(cells + peers) + " |")
        out.append("")
        for peer, target in DOT_TARGETS.items():
            large = [v for n, v in vs[peer].items() if n >= 2 ** DOT_LARGE_EXP]
            out.append(f"- throughput exact_dot / {peer} dot, smallest over n >= 2^{DOT_LARGE_EXP}: "
                       + verdict(min(large) if large else None, target))
        out.append("")
    if out:
        out = ["## Exact dot products\n"] + out
    return out


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    reports = []
    for path in argv:
        with open(path) as f:
            reports.append(json.load(f))
    run = reports[0]["run"]
    print(f"Device: {run.get('device')}; date {run.get('date')}; commands: "
          + "; ".join(f"`{r['run'].get('command')}`" for r in reports) + "\n")
    print("\n".join(tables(reports) + exact_tables(reports) + dot_tables(reports)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
