#!/usr/bin/env python3
"""The targets of cured-bench's axis workloads, from its JSON report.

    cured-bench --axes-grid --types float,int32,half,double --ops sum,min,max,argmax --mode cold \\
        --format json --out axes.json
    scripts/axes_table.py axes.json > axes.md          # --detail adds every shape's numbers
    scripts/axes_table.py axes_float.json axes_int32.json ...   # several reports: their rows together

For each (type, op, size class: the input's element count) one line: the shapes measured, the
smallest % of floor of cured over them (the floor's time over cured's, cold: the floor is a
kernel that reads the input and writes the output's bytes, in the same run) and on which shape,
the same for CUB where it ran (row workloads only), the smallest CUB time / cured time (below 1:
cured is slower than CUB on that shape) and where, and the verdict against the targets:
sum, min and max at 2^28 elements >= 90% of floor on every shape, at 2^24 >= 75%; argmin and
argmax at 2^28 >= 80%; exact_sum at 2^28 at least 0.8x the speed of the sum on every shape
(cured's sum time / its exact_sum time, same type and shape); on no shape slower than CUB.
Rows whose check is not ok are listed first
and left out of the numbers.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_bandwidth  # noqa: E402  (load and validate the report)

# The check of the axis floor (cured-bench's no_result_check_axes): it computes no result.
FLOOR_CHECK = "n/a: reads and writes only"

# % of floor cured must reach on every shape: {op: {log2 of the element count: percent}}.
FLOOR_TARGETS = {
    "sum": {28: 90.0, 24: 75.0},
    "min": {28: 90.0, 24: 75.0},
    "max": {28: 90.0, 24: 75.0},
    "argmin": {28: 80.0},
    "argmax": {28: 80.0},
}
# CUB time / cured time on every shape where CUB ran.
CUB_TARGET = 1.0
# exact_sum: cured's sum time / cured's exact_sum time on every shape of these sizes (log2).
EXACT_TARGETS = {28: 0.8}

ReportError = plot_bandwidth.ReportError


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def validate_axes(doc):
    """Raises ReportError unless doc is a report and its axis rows have shape, axes and outputs."""
    plot_bandwidth.validate(doc)
    for i, row in enumerate(doc["rows"]):
        if "shape" not in row:
            continue
        where = f"rows[{i}]"
        shape, axes = row.get("shape"), row.get("axes")
        if not isinstance(shape, list) or not shape or not all(_is_int(e) and e >= 1 for e in shape):
            raise ReportError(f"{where}.shape should be a non-empty list of extents >= 1, not {shape!r}")
        if not isinstance(axes, list) or not all(_is_int(a) and 0 <= a < len(shape) for a in axes):
            raise ReportError(f"{where}.axes should be a list of axes of the shape, not {axes!r}")
        if not _is_int(row.get("outputs")) or row["outputs"] < 0:
            raise ReportError(f"{where}.outputs should be an integer >= 0, not {row.get('outputs')!r}")
        pct = row.get("pct_floor")
        if pct is not None and not (isinstance(pct, (int, float)) and math.isfinite(pct)):
            raise ReportError(f"{where}.pct_floor should be a number or null, not {pct!r}")


def load_reports(paths, validate=None):
    """The reports at paths, validated (by validate, default validate_axes), as one: the first
    one's run, every one's rows."""
    validate = validate or validate_axes
    docs = []
    for path in paths:
        try:
            doc = plot_bandwidth.load(path)
            validate(doc)
        except ReportError as e:
            raise ReportError(f"{path}: {e}") from e
        docs.append(doc)
    return {"run": docs[0]["run"], "rows": [r for d in docs for r in d["rows"]]}


def axis_rows(doc):
    """The report's axis rows (those with a shape)."""
    return [r for r in doc["rows"] if "shape" in r]


def shape_text(row):
    return "x".join(str(e) for e in row["shape"])


def workload_text(row):
    return f"{shape_text(row)} axes {','.join(str(a) for a in row['axes'])}"


def size_class(n):
    """'2^k' for a power of two, else n."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def log2_exact(n):
    return n.bit_length() - 1 if n > 0 and n & (n - 1) == 0 else None


def usable(row):
    return row.get("check") == "ok" or (row["impl"] == "floor" and row.get("check") == FLOOR_CHECK)


def groups(rows):
    """{(type, op, n): [rows]}: types and ops in order of first appearance, sizes ascending."""
    out, order = {}, {}
    for r in rows:
        order.setdefault((r["type"], r["op"]), len(order))
        out.setdefault((r["type"], r["op"], r["n"]), []).append(r)
    return dict(sorted(out.items(), key=lambda kv: (order[kv[0][:2]], kv[0][2])))


def smallest(rows, impl, key):
    """(value, row) of the smallest key(row) over the usable rows of impl; (None, None) when none."""
    best = (None, None)
    for r in rows:
        if r["impl"] != impl or not usable(r) or key(r) is None:
            continue
        if best[0] is None or key(r) < best[0]:
            best = (key(r), r)
    return best


def target_of(op, n):
    e = log2_exact(n)
    return FLOOR_TARGETS.get(op, {}).get(e) if e is not None else None


def vs_sum(rows, g):
    """(ratio, row): the smallest cured sum time / cured exact_sum time over the exact_sum rows g
    whose workload has a usable cured sum row of the same type; (None, None) when none."""
    sums = {(r["type"], workload_text(r)): r for r in rows
            if r["op"] == "sum" and r["impl"] == "cured" and usable(r) and r.get("cold_ms")}

    def ratio(r):
        s = sums.get((r["type"], workload_text(r)))
        return s["cold_ms"] / r["cold_ms"] if s and r.get("cold_ms") else None

    return smallest(g, "cured", ratio)


def fmt(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def opening_lines(doc, rows, title, where):
    """What a summary opens with: the rows whose results are wrong (where(row) names the
    workload), then the title with the run's device and date, and its command."""
    lines = []
    wrong = [r for r in rows if not usable(r) and not r.get("check", "").startswith("skipped")]
    if wrong:
        lines.append(f"### Wrong results ({len(wrong)} rows)\n")
        for r in wrong:
            lines.append(f"- {r['type']} {r['op']} {where(r)} {r['impl']}: {r.get('check')}")
        lines.append("")
    run = doc["run"]
    lines.append(f"### {title} on {run.get('device') or 'an unknown device'}"
                 + (f" ({run['date']})" if run.get("date") else "") + "\n")
    if run.get("command"):
        lines.append(f"`{run['command']}`\n")
    return lines


def summary(doc):
    """The targets table's lines and the counts of targets met and missed."""
    rows = axis_rows(doc)
    met, missed = 0, 0
    lines = opening_lines(doc, rows, "Axis targets", workload_text)
    lines.append("| type | op | size | shapes | cured: least % of floor | at | target | CUB: least % of floor "
                 "| least CUB / cured | at | verdict |")
    lines.append("|---|---|---|---:|---:|---|---:|---:|---:|---|---|")
    for (type_name, op, n), g in groups(rows).items():
        shapes = len({workload_text(r) for r in g})
        cured_pct, cured_at = smallest(g, "cured", lambda r: r.get("pct_floor"))
        cub_pct, _ = smallest(g, "cub", lambda r: r.get("pct_floor"))
        vs_cub, vs_at = smallest([r for r in g if any(c["impl"] == "cub" and usable(c) and workload_text(c) ==
                                                      workload_text(r) for c in g)],
                                 "cured", lambda r: r.get("vs_cub"))
        target = target_of(op, n)
        verdicts = []
        if target is not None:
            ok = cured_pct is not None and cured_pct >= target
            verdicts.append(f"% of floor {'met' if ok else 'MISSED'}")
            met, missed = met + ok, missed + (not ok)
        if op == "exact_sum":
            ratio, ratio_at = vs_sum(rows, g)
            exact_target = EXACT_TARGETS.get(log2_exact(n))
            if ratio is not None:
                ok = exact_target is None or ratio >= exact_target
                verdicts.append(f"sum / exact_sum time {fmt(ratio, 2)} at {workload_text(ratio_at)}"
                                + ("" if exact_target is None else f" ({'met' if ok else 'MISSED'}, target {exact_target})"))
                if exact_target is not None:
                    met, missed = met + ok, missed + (not ok)
        if vs_cub is not None:
            ok = vs_cub >= CUB_TARGET
            verdicts.append(f"vs CUB {'met' if ok else 'MISSED'}")
            met, missed = met + ok, missed + (not ok)
        lines.append(f"| {type_name} | {op} | {size_class(n)} | {shapes} | {fmt(cured_pct)} | "
                     f"{workload_text(cured_at) if cured_at else '-'} | {fmt(target, 0) if target else '-'} | "
                     f"{fmt(cub_pct)} | {fmt(vs_cub, 2)} | {workload_text(vs_at) if vs_at else '-'} | "
                     f"{'; '.join(verdicts) if verdicts else 'no target'} |")
    lines.append("")
    lines.append(f"- targets: {met} met, {missed} MISSED (sum, min, max: >= 90% of floor on every shape at 2^28, "
                 f">= 75% at 2^24; argmin, argmax: >= 80% at 2^28; exact_sum: >= 0.8x the sum's speed at 2^28; no shape slower than CUB)")
    return lines, met, missed


def detail(doc):
    """Every workload's numbers: cold ms and % of floor of cured and CUB, CUB / cured."""
    rows = axis_rows(doc)
    by = {}
    for r in rows:
        by.setdefault((r["type"], r["op"], r["n"], workload_text(r)), {})[r["impl"]] = r
    lines = ["| type | op | shape | axes | floor ms | cured ms | cured % floor | CUB ms | CUB % floor | CUB / cured |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for (type_name, op, _, _), impls in by.items():
        any_row = next(iter(impls.values()))

        def cell(impl, key, digits):
            r = impls.get(impl)
            return fmt(r.get(key), digits) if r and usable(r) else "-"

        lines.append(f"| {type_name} | {op} | {shape_text(any_row)} | {','.join(str(a) for a in any_row['axes'])} | "
                     f"{cell('floor', 'cold_ms', 4)} | {cell('cured', 'cold_ms', 4)} | {cell('cured', 'pct_floor', 1)} | "
                     f"{cell('cub', 'cold_ms', 4)} | {cell('cub', 'pct_floor', 1)} | {cell('cured', 'vs_cub', 2)} |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description="The axis workloads' targets from cured-bench JSON reports.")
    parser.add_argument("reports", nargs="+", help="JSON reports (cured-bench --axes-grid --format json --out FILE)")
    parser.add_argument("--detail", action="store_true", help="add a table of every workload's numbers")
    args = parser.parse_args(argv)
    try:
        doc = load_reports(args.reports)
        if not axis_rows(doc):
            raise ReportError("no axis rows (cured-bench --shape or --axes-grid)")
    except ReportError as e:
        print(f"axes_table: {e}", file=sys.stderr)
        return 1
    lines, _, _ = summary(doc)
    if args.detail:
        lines += ["", "### Every workload", ""] + detail(doc)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
