#!/usr/bin/env python3
"""The ladder table of docs/LADDER.md from a cured-bench JSON report.

    cured-bench --impl ladder,cub,thrust --types int32 --sizes 2^22 --mode cold \
        --format json --out int32.json
    scripts/ladder_table.py int32.json --type int32 --n 4194304 > table.md

One row per ladder step (cold time, GB/s, speedup over the step before, cumulative speedup
over step 1, % of the run's measured read ceiling, check), then the library, CUB and Thrust
rows of the same run, then Harris' G80 figures for the same steps (2^22 int32, from his
"Optimizing Parallel Reduction in CUDA"), so each step's gain can be read beside his.
"""

import argparse
import json
import sys

# Harris' G80 measurements: kernel number -> (time ms, GB/s), 2^22 ints.
HARRIS_G80 = {
    1: (8.054, 2.083),
    2: (3.456, 4.854),
    3: (1.722, 9.741),
    4: (0.965, 17.377),
    5: (0.536, 31.289),
    6: (0.381, 43.996),
    7: (0.268, 62.671),
}

PEERS = ["cured", "cured-blocking", "cub", "thrust"]


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def time_of(row):
    return row.get("cold_ms") if row.get("cold_ms") is not None else row.get("hot_ms")


def build_table(report, type_name, n):
    """Markdown lines for the ladder rows of (type_name, sum, n) in the report."""
    rows = [r for r in report["rows"] if r["type"] == type_name and r["op"] == "sum" and r["n"] == n]
    if not rows:
        raise ValueError(f"no sum rows for {type_name} n={n} in the report")
    by_impl = {r["impl"]: r for r in rows}
    steps = sorted((int(r["impl"][4:]), r) for r in rows if r["impl"].startswith("step"))
    ceiling = report["run"].get("ceiling_gbps")
    step1 = time_of(by_impl["step1"]) if "step1" in by_impl else None
    out = [
        "| impl | cold ms | GB/s | step speedup | cumulative | % of ceiling | check | G80 ms | G80 GB/s | G80 step | G80 cumulative |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    prev = None
    for number, r in steps:
        t = time_of(r)
        g80 = HARRIS_G80.get(number)
        g80_prev = HARRIS_G80.get(number - 1)
        out.append(
            "| step{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                number, fmt(t, 4), fmt(r.get("gbps"), 1),
                fmt(ratio(prev, t), 2) if prev is not None else "-",
                fmt(ratio(step1, t), 2),
                fmt(100 * r["gbps"] / ceiling, 1) if ceiling and r.get("gbps") else "-",
                r["check"],
                fmt(g80[0]) if g80 else "", fmt(g80[1]) if g80 else "",
                fmt(g80_prev[0] / g80[0], 2) if g80 and g80_prev else ("-" if g80 else ""),
                fmt(HARRIS_G80[1][0] / g80[0], 2) if g80 else ""))
        prev = t
    for name in PEERS:
        if name in by_impl:
            r = by_impl[name]
            t = time_of(r)
            out.append("| {} | {} | {} | - | {} | {} | {} |  |  |  |  |".format(
                name, fmt(t, 4), fmt(r.get("gbps"), 1), fmt(ratio(step1, t), 2),
                fmt(100 * r["gbps"] / ceiling, 1) if ceiling and r.get("gbps") else "-", r["check"]))
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("report")
    p.add_argument("--type", required=True)
    p.add_argument("--n", type=int, required=True)
    a = p.parse_args(argv)
    with open(a.report) as f:
        report = json.load(f)
    run = report["run"]
    print(f"Device: {run.get('device')}; read ceiling {fmt(run.get('ceiling_gbps'), 0)} GB/s; "
          f"command: `{run.get('command')}`; {run.get('date')}\n")
    print("\n".join(build_table(report, a.type, a.n)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
