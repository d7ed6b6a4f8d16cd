#!/usr/bin/env python3
"""The targets of cured-bench's segmented workloads, from its JSON reports.

    cured-bench --segments-grid --types float --ops sum,min,max,argmax,exact_sum --mode cold \\
        --format json --out segments_float.json
    scripts/segments_table.py segments_float.json segments_int32.json ...   # their rows together

For each (type, op) a table with one line per (size, distribution): the segments, cured's GB/s
(the values and offsets read plus the outputs written, over the cold time), its % of floor (the
floor's time over cured's, cold: the floor is a kernel that reads the values and the offsets and
writes the output's bytes, in the same run) and CUB's time over cured's (below 1: cured is slower
than CUB there); with cured-pairs rows (cured-bench --impl cured,cured-pairs,...), a last column
of the pair form's time over cured's on the same segments. Then every target, met or MISSED,
with its worst case:
sum, min and max of float, int32 and double >= 85% of floor on every distribution at 2^28
elements and >= 70% at 2^24; argmin, argmax and exact_sum >= 75% at 2^28; cured at least as fast
as CUB wherever CUB ran, and at least 20x as fast at uniform:268435456 (one segment of 2^28) and
uniform:4. Rows whose check is not ok are listed first and left out of the numbers.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_bandwidth  # noqa: E402  (load and validate the report)
import axes_table  # noqa: E402  (what the axis workloads' table shares: loading, sizes, the floor's check)
from axes_table import FLOOR_CHECK, ReportError, _is_int, fmt, log2_exact, opening_lines, size_class, usable  # noqa: E402,F401

# % of floor cured must reach on every distribution: {op: {log2 of the element count: percent}}.
FLOOR_TARGETS = {
    "sum": {28: 85.0, 24: 70.0},
    "min": {28: 85.0, 24: 70.0},
    "max": {28: 85.0, 24: 70.0},
    "argmin": {28: 75.0},
    "argmax": {28: 75.0},
    "exact_sum": {28: 75.0},
}
# The types FLOOR_TARGETS holds for, per op; an op not named here: every type.
FLOOR_TARGET_TYPES = {"sum": ("float", "int32", "double"), "min": ("float", "int32", "double"),
                      "max": ("float", "int32", "double")}
# CUB time / cured time wherever CUB ran, and at the distributions where CUB gives one block
# the whole array (one segment of 2^28) or millions of blocks of four values.
CUB_TARGET = 1.0
CUB_FAR_TARGET = 20.0
CUB_FAR_DISTS = ("uniform:268435456", "uniform:4")



def validate_segments(doc):
    """Raises ReportError unless doc is a report and its segment rows have dist and segments."""
    plot_bandwidth.validate(doc)
    for i, row in enumerate(doc["rows"]):
        if "dist" not in row:
            continue
        where = f"rows[{i}]"
        if not isinstance(row["dist"], str) or not row["dist"]:
            raise ReportError(f"{where}.dist should be a non-empty string, not {row['dist']!r}")
        if not _is_int(row.get("segments")) or row["segments"] < 0:
            raise ReportError(f"{where}.segments should be an integer >= 0, not {row.get('segments')!r}")
        pct = row.get("pct_floor")
        if pct is not None and not (isinstance(pct, (int, float)) and not isinstance(pct, bool) and math.isfinite(pct)):
            raise ReportError(f"{where}.pct_floor should be a number or null, not {pct!r}")


def load_reports(paths):
    """The reports at paths, validated, as one: the first one's run, every one's rows."""
    return axes_table.load_reports(paths, validate_segments)

def segment_rows(doc):
    """The report's segment rows (those with a dist)."""
    return [r for r in doc["rows"] if "dist" in r]


def where(row):
    return f"{size_class(row['n'])} {row['dist']}"


def groups(rows):
    """{(type, op): {(n, dist): {impl: row}}}: types and ops in order of first appearance, sizes
    ascending, distributions in order of first appearance."""
    out, dist_order = {}, {}
    for r in rows:
        dist_order.setdefault(r["dist"], len(dist_order))
        out.setdefault((r["type"], r["op"]), {}).setdefault((r["n"], r["dist"]), {})[r["impl"]] = r
    return {k: dict(sorted(v.items(), key=lambda kv: (kv[0][0], dist_order[kv[0][1]]))) for k, v in out.items()}


def floor_target(type_name, op, n):
    """The % of floor cured must reach for (type, op) at n; None where there is no target."""
    types = FLOOR_TARGET_TYPES.get(op)
    e = log2_exact(n)
    if (types is not None and type_name not in types) or e is None:
        return None
    return FLOOR_TARGETS.get(op, {}).get(e)


def cured_against_cub(workloads):
    """The usable cured rows of workloads ({(n, dist): {impl: row}}) with a usable CUB row of
    their own and a vs_cub."""
    return [w["cured"] for w in workloads.values()
            if "cured" in w and "cub" in w and usable(w["cured"]) and usable(w["cub"])
            and w["cured"].get("vs_cub") is not None]


def worst(rows, key):
    """(value, row) of the smallest key(row) over rows whose key is not None; (None, None) when none."""
    best = (None, None)
    for r in rows:
        v = key(r)
        if v is not None and (best[0] is None or v < best[0]):
            best = (v, r)
    return best


def targets(type_name, op, workloads):
    """[(text, met, worst value, its unit, worst row, how many)] of the targets of (type, op) that
    have rows."""
    out = []
    cured = [w["cured"] for w in workloads.values() if "cured" in w and usable(w["cured"])]
    for n in sorted({r["n"] for r in cured}):
        target = floor_target(type_name, op, n)
        if target is None:
            continue
        at_n = [r for r in cured if r["n"] == n]
        value, row = worst(at_n, lambda r: r.get("pct_floor"))
        if value is not None:
            out.append((f"{type_name} {op} {size_class(n)}: >= {target:g}% of floor on every distribution",
                        value >= target, value, "%", row, len(at_n)))
    against = cured_against_cub(workloads)
    value, row = worst(against, lambda r: r.get("vs_cub"))
    if value is not None:
        out.append((f"{type_name} {op}: at least as fast as CUB wherever it ran", value >= CUB_TARGET, value, "x",
                    row, len(against)))
    far = [r for r in against if r["dist"] in CUB_FAR_DISTS]
    value, row = worst(far, lambda r: r.get("vs_cub"))
    if value is not None:
        out.append((f"{type_name} {op}: >= {CUB_FAR_TARGET:g}x CUB at {' and '.join(CUB_FAR_DISTS)}",
                    value >= CUB_FAR_TARGET, value, "x", row, len(far)))
    return out


def summary(doc):
    """The tables' and targets' lines, and the counts of targets met and missed."""
    rows = segment_rows(doc)
    met, missed = 0, 0
    lines = opening_lines(doc, rows, "Segmented workloads", where)
    target_lines = []
    has_pairs = any(r["impl"] == "cured-pairs" for r in rows)
    for (type_name, op), workloads in groups(rows).items():
        lines.append(f"#### {type_name} {op}\n")
        lines.append("| n | dist | segments | cured GB/s | % of floor | target | CUB / cured |"
                     + (" pairs / cured |" if has_pairs else ""))
        lines.append("|---|---|---:|---:|---:|---:|---:|" + ("---:|" if has_pairs else ""))
        for (n, dist), impls in workloads.items():
            cured = impls.get("cured")
            ok = cured is not None and usable(cured)
            cub_ok = ok and "cub" in impls and usable(impls["cub"])
            segments = next(iter(impls.values())).get("segments")
            target = floor_target(type_name, op, n)
            line = (f"| {size_class(n)} | {dist} | {segments} | {fmt(cured.get('gbps') if ok else None)} | "
                    f"{fmt(cured.get('pct_floor') if ok else None)} | {fmt(target, 0) if target else '-'} | "
                    f"{fmt(cured.get('vs_cub') if cub_ok else None, 2)} |")
            if has_pairs:
                pairs = impls.get("cured-pairs")
                pairs_ok = ok and pairs is not None and usable(pairs) and (cured.get("cold_ms") or 0) > 0
                line += f" {fmt(pairs['cold_ms'] / cured['cold_ms'] if pairs_ok else None, 2)} |"
            lines.append(line)
        lines.append("")
        for text, ok, value, unit, row, count in targets(type_name, op, workloads):
            target_lines.append(f"- {text}: {'met' if ok else 'MISSED'} (worst {fmt(value, 2 if unit == 'x' else 1)}"
                                f"{unit} at {where(row)}; {count} measured)")
            met, missed = met + ok, missed + (not ok)
    lines.append("### Targets\n")
    lines += target_lines
    lines.append(f"- targets: {met} met, {missed} MISSED (sum, min, max of float, int32, double: >= 85% of floor on "
                 f"every distribution at 2^28, >= 70% at 2^24; argmin, argmax, exact_sum: >= 75% at 2^28; "
                 f"no slower than CUB anywhere, >= 20x at {' and '.join(CUB_FAR_DISTS)})")
    return lines, met, missed


def main(argv=None):
    parser = argparse.ArgumentParser(description="The segmented workloads' targets from cured-bench JSON reports.")
    parser.add_argument("reports", nargs="+", help="JSON reports (cured-bench --segments-grid --format json --out FILE)")
    args = parser.parse_args(argv)
    try:
        doc = load_reports(args.reports)
        if not segment_rows(doc):
            raise ReportError("no segment rows (cured-bench --segments or --segments-grid)")
    except ReportError as e:
        print(f"segments_table: {e}", file=sys.stderr)
        return 1
    lines, _, _ = summary(doc)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
