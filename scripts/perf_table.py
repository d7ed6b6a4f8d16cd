#!/usr/bin/env python3
"""The library's speed against CUB and Thrust, from cured-bench JSON reports (docs/PERF.md).

    scripts/perf_table.py perf_sum.json perf_extrema.json > perf.md

For each (type, op): one row per size with the cold times of cured and CUB and their ratio
(CUB time / cured time: above 1 means cured is faster), then the targets: the geometric mean
of the ratio over 2^14..2^22 (target >= 1.5), over 2^10..2^12 (>= 1.0), the smallest ratio
over 2^10..2^32 (>= 0.98), and, for sums, cured's blocking form against thrust::reduce at
n <= 2^20 (>= 3). Each target line says met or MISSED.
"""

import json
import math
import sys


def cold(row):
    return row.get("cold_ms") if row.get("cold_ms") is not None else row.get("hot_ms")


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def ratios(rows, num_impl, den_impl):
    """{n: time(num_impl) / time(den_impl)} where both rows exist and checked ok."""
    by = {}
    for r in rows:
        by.setdefault(r["n"], {})[r["impl"]] = r
    out = {}
    for n, impls in by.items():
        a, b = impls.get(num_impl), impls.get(den_impl)
        if a and b and a["check"] == "ok" and b["check"] == "ok" and cold(a) and cold(b):
            out[n] = cold(a) / cold(b)
    return out


def in_range(d, lo_exp, hi_exp):
    return [v for n, v in d.items() if 2 ** lo_exp <= n <= 2 ** hi_exp]


def verdict(value, target, kind="at least"):
    if value is None:
        return "no data"
    return f"{value:.2f} (target {kind} {target}: {'met' if value >= target else 'MISSED'})"


def tables(reports):
    rows = [r for rep in reports for r in rep["rows"]]
    groups = sorted({(r["type"], r["op"]) for r in rows})
    out = []
    for type_name, op in groups:
        g = [r for r in rows if r["type"] == type_name and r["op"] == op]
        vs_cub = ratios(g, "cub", "cured")
        if not vs_cub:
            continue
        out.append(f"### {type_name} {op}\n")
        out.append("| n | cured ms | cub ms | cub / cured |")
        out.append("|---:|---:|---:|---:|")
        by = {(r["n"], r["impl"]): r for r in g}
        for n in sorted(vs_cub):
            out.append(f"| {n} | {cold(by[(n, 'cured')]):.4f} | {cold(by[(n, 'cub')]):.4f} | {vs_cub[n]:.2f} |")
        out.append("")
        out.append("- geometric mean over 2^14..2^22: " + verdict(geomean(in_range(vs_cub, 14, 22)), 1.5))
        out.append("- geometric mean over 2^10..2^12: " + verdict(geomean(in_range(vs_cub, 10, 12)), 1.0))
        small = in_range(vs_cub, 10, 32)
        out.append("- smallest over 2^10..2^32: " + verdict(min(small) if small else None, 0.98))
        if op == "sum":
            vs_thrust = ratios(g, "thrust", "cured-blocking")
            small_t = in_range(vs_thrust, 0, 20)
            out.append("- blocking cured against thrust::reduce, smallest over n <= 2^20: "
                       + verdict(min(small_t) if small_t else None, 3.0))
        out.append("")
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
    print("\n".join(tables(reports)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
