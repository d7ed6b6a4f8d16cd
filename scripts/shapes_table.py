#!/usr/bin/env python3
"""The targets of the shape sweep of cured's Python benchmark, from its JSON.

    python3 -m cured.bench --parts shapes --json shapes.json
    scripts/shapes_table.py shapes.json                      # the targets and the worst rows
    scripts/shapes_table.py shapes.json --md                 # the same as Markdown, for docs/PERF.md
    scripts/shapes_table.py shapes.json --plot shapes.png    # and a plot (needs matplotlib)

The rows of the sweep (section "shapes"; other sections' rows are left out). The targets:

- sum, amin, amax, argmin, argmax on every shape of at least 2^20 elements (torch.rand's data):
  torch's time / cured's >= 0.95, and CuPy's time / cured's >= 0.95 where CuPy ran;
- the same ops: the geometric mean of torch's time / cured's over those shapes >= 1.3;
- exact_sum at least 0.8x the speed of sum: cured.sum's time / cured.exact_sum's >= 0.8 on every
  shape and every data family, the two on the same array (shape, dim and family).

A target is met when its value is and none of its rows' cured results failed its check (WRONG,
ERROR: those rows are listed first and left out of the values); "not measured" where no row
bears on it. Rows checked neither right nor wrong ("unchecked": torch's call failed) are left
out too. Then, per op, the 5 rows with the lowest ratio: the lower of torch's and CuPy's time
over cured's (exact_sum: sum's time over its own).

--plot draws, per op, torch's time / cured's (and CuPy's) over the workloads, sorted, beside the
0.95 and 1.0 lines. Exit status: 0 whatever the targets, 1 for a report that cannot be read, 2
where --plot finds no matplotlib.
"""

import argparse
import json
import math
import sys
from typing import NamedTuple

SECTION = "shapes"
OPS = ("sum", "amin", "amax", "argmin", "argmax")
EXACT, PLAIN = "exact_sum", "sum"
PEERS = ("torch", "cupy")
MIN_N = 1 << 20        # the peer targets hold on shapes of at least this many elements
PEER_FLOOR = 0.95      # peer time / cured time, every shape
GEOMEAN_TARGET = 1.3   # torch time / cured time, geometric mean per op
EXACT_TARGET = 0.8     # cured.sum time / cured.exact_sum time, every shape and family
WORST = 5
FAILED = ("WRONG", "ERROR")
UNIFORM = "uniform"


class ReportError(Exception):
    """A report that cannot be read: a missing file, bad JSON, or rows without the needed fields."""


class Target(NamedTuple):
    label: str
    value: float | None
    goal: str
    verdict: str   # "met", "missed" or "not measured"
    rows: str      # which rows the value is over


def _number_or_none(v):
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0)


def validate(doc):
    """The sweep's rows of a report (python -m cured.bench --json), each with a family; raises
    ReportError where a row lacks what the tables read."""
    if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
        raise ReportError("not a report of python -m cured.bench --json: no list of rows")
    rows = []
    for i, r in enumerate(doc["rows"]):
        if not isinstance(r, dict):
            raise ReportError(f"rows[{i}] is not an object")
        if r.get("section") != SECTION:
            continue
        for key in ("op", "shape", "check"):
            if not isinstance(r.get(key), str):
                raise ReportError(f"rows[{i}].{key} should be a string, not {r.get(key)!r}")
        n = r.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ReportError(f"rows[{i}].n should be a positive integer, not {n!r}")
        dim = r.get("dim")
        if not (dim == "all" or (isinstance(dim, int) and not isinstance(dim, bool))
                or (isinstance(dim, list) and dim and all(isinstance(d, int) for d in dim))):
            raise ReportError(f"rows[{i}].dim should be an integer, a list of them or \"all\", not {dim!r}")
        for lib in ("cured",) + PEERS:
            if not _number_or_none(r.get(f"{lib}_us")):
                raise ReportError(f"rows[{i}].{lib}_us should be a number or null, not {r.get(f'{lib}_us')!r}")
        family = r.get("family", UNIFORM)
        if not isinstance(family, str):
            raise ReportError(f"rows[{i}].family should be a string, not {family!r}")
        rows.append(dict(r, family=family))
    return rows


def load(paths):
    """The sweep's rows of the reports at paths, in order."""
    rows = []
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise ReportError(f"{path}: {e}") from None
        try:
            rows += validate(doc)
        except ReportError as e:
            raise ReportError(f"{path}: {e}") from None
    if not rows:
        raise ReportError("no rows of the shape sweep (python -m cured.bench --parts shapes --json FILE)")
    return rows


def usable(r):
    """Whether the row's cured result was checked right."""
    return r["check"].startswith("ok")


def ratio(r, peer):
    """peer's time over cured's; None where either is missing."""
    return r[f"{peer}_us"] / r["cured_us"] if r.get(f"{peer}_us") and r.get("cured_us") else None


def dim_text(dim):
    return ",".join(map(str, dim)) if isinstance(dim, list) else str(dim)


def key(r):
    """The array a row ran on: shape, dim and data family."""
    return r["shape"], dim_text(r["dim"]), r["family"]


def exact_pairs(rows):
    """[(exact_sum row, the sum row on the same array or None)], in the exact_sum rows' order."""
    sums = {key(r): r for r in rows if r["op"] == PLAIN}
    return [(r, sums.get(key(r))) for r in rows if r["op"] == EXACT]


def exact_ratio(pair):
    """cured.sum's time over cured.exact_sum's on one array; None where either is missing."""
    exact, plain = pair
    return plain["cured_us"] / exact["cured_us"] if plain and plain.get("cured_us") and exact.get("cured_us") else None


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def judge(label, value, goal, ok, wrong, counted, total, note=""):
    """A Target: missed where a row failed its check, not measured where nothing was."""
    if wrong:
        verdict = "missed"
    elif value is None:
        verdict = "not measured"
    else:
        verdict = "met" if ok(value) else "missed"
    rows = f"{counted} of {total}" + (f", {wrong} wrong" if wrong else "") + note
    return Target(label, value, goal, verdict, rows)


def targets(rows):
    """Every target of the sweep, in order: per op the peers' least ratio and torch's geomean,
    then exact_sum's least speed against sum per data family."""
    out = []
    for op in OPS:
        mine = [r for r in rows if r["op"] == op and r["family"] == UNIFORM and r["n"] >= MIN_N]
        wrong = sum(r["check"] in FAILED for r in mine)
        good = [r for r in mine if usable(r)]
        for peer in PEERS:
            values = [v for v in (ratio(r, peer) for r in good) if v is not None]
            out.append(judge(f"{op}: {peer} time / cured time, every shape >= 2^20", min(values, default=None),
                             f">= {PEER_FLOOR}", lambda v: v >= PEER_FLOOR, wrong, len(values), len(mine)))
        values = [v for v in (ratio(r, "torch") for r in good) if v is not None]
        out.append(judge(f"{op}: torch time / cured time, geometric mean", geomean(values), f">= {GEOMEAN_TARGET}",
                         lambda v: v >= GEOMEAN_TARGET, wrong, len(values), len(mine)))
    pairs = exact_pairs(rows)
    for family in dict.fromkeys(r["family"] for r, _ in pairs):
        mine = [p for p in pairs if p[0]["family"] == family]
        wrong = sum(r["check"] in FAILED or (s is not None and s["check"] in FAILED) for r, s in mine)
        checked = [(r, s) for r, s in mine if usable(r) and (s is None or usable(s))]
        values = [v for v in map(exact_ratio, checked) if v is not None]
        lacking = sum(s is None for _, s in mine)
        where = "every shape" if family == UNIFORM else "every case"
        out.append(judge(f"exact_sum: sum time / exact_sum time, {family} data, {where}", min(values, default=None),
                         f">= {EXACT_TARGET}", lambda v: v >= EXACT_TARGET, wrong, len(values), len(mine),
                         f", {lacking} without a sum row" if lacking else ""))
    return out


def worst_rows(rows, op, count=WORST):
    """[(ratio, row)] of op's usable rows with the lowest ratios: the lower of torch's and CuPy's
    time over cured's, exact_sum's sum time over its own."""
    if op == EXACT:
        ranked = [(exact_ratio(p), p[0]) for p in exact_pairs(rows) if usable(p[0])]
    else:
        ranked = [(min((v for v in (ratio(r, p) for p in PEERS) if v is not None), default=None), r)
                  for r in rows if r["op"] == op and usable(r)]
    ranked = [(v, r) for v, r in ranked if v is not None]
    return sorted(ranked, key=lambda vr: vr[0])[:count]


def fmt(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}"


def render(headers, body, markdown, right=()):
    """A table: Markdown, or plain text in aligned columns; the columns named in right aligned right."""
    if markdown:
        rule = "|".join("---:" if h in right else "---" for h in headers)
        return "\n".join([f"| {' | '.join(headers)} |", f"|{rule}|"] + [f"| {' | '.join(row)} |" for row in body])
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *body)]
    line = lambda cells: "  ".join(c.rjust(w) if h in right else c.ljust(w)  # noqa: E731
                                   for c, w, h in zip(cells, widths, headers)).rstrip()
    return "\n".join([line(headers)] + [line(row) for row in body])


def report(rows, markdown=False):
    """The text: the rows that failed their check, the targets, the worst rows of each op."""
    heading = (lambda text: f"### {text}\n") if markdown else (lambda text: f"{text}\n{'-' * len(text)}")
    out = []
    failed = [r for r in rows if r["check"] in FAILED]
    if failed:
        out += [heading(f"Rows whose cured result failed its check ({len(failed)})"),
                render(("op", "shape", "dim", "family", "check"),
                       [(r["op"], r["shape"], dim_text(r["dim"]), r["family"], r["check"]) for r in failed],
                       markdown), ""]
    found = targets(rows)
    met = sum(t.verdict == "met" for t in found)
    missed = sum(t.verdict == "missed" for t in found)
    out += [heading(f"Targets: {met} met, {missed} missed"),
            render(("target", "value", "goal", "rows", "verdict"),
                   [(t.label, fmt(t.value), t.goal, t.rows, t.verdict) for t in found], markdown, ("value",)), ""]
    for op in dict.fromkeys(r["op"] for r in rows):
        worst = worst_rows(rows, op)
        if not worst:
            continue
        if op == EXACT:
            sums = {key(r): r for r in rows if r["op"] == PLAIN}
            headers = ("shape", "dim", "family", "exact_sum us", "sum us", "sum / exact_sum")
            body = [(r["shape"], dim_text(r["dim"]), r["family"], fmt(r["cured_us"]),
                     fmt(sums[key(r)]["cured_us"]), fmt(v)) for v, r in worst]
        else:
            peers = [p for p in PEERS if any(r.get(f"{p}_us") for r in rows if r["op"] == op)]
            headers = ("shape", "dim", "family", "cured us", *(f"{p} us" for p in peers),
                       *(f"{p} / cured" for p in peers))
            body = [(r["shape"], dim_text(r["dim"]), r["family"], fmt(r["cured_us"]),
                     *(fmt(r[f"{p}_us"]) for p in peers), *(fmt(ratio(r, p)) for p in peers)) for v, r in worst]
        out += [heading(f"{op}: the {len(worst)} rows of lowest ratio"),
                render(headers, body, markdown, headers[3:]), ""]
    return "\n".join(out).rstrip() + "\n"


def plot(rows, path):
    """A PNG: per op, torch's (and CuPy's) time over cured's for each workload, sorted, with the
    0.95 and 1.0 lines."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ops = list(dict.fromkeys(r["op"] for r in rows))
    cols = min(3, len(ops))
    grid = (len(ops) + cols - 1) // cols
    fig, axes = plt.subplots(grid, cols, figsize=(6 * cols, 4 * grid), squeeze=False)
    for ax, op in zip(axes.flat, ops):
        mine = [r for r in rows if r["op"] == op and usable(r)]
        for peer, style in (("torch", "-"), ("cupy", "--")):
            values = sorted(v for v in (ratio(r, peer) for r in mine) if v is not None)
            if values:
                ax.plot(range(len(values)), values, style, label=f"{peer} / cured")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.axhline(PEER_FLOOR, color="tab:red", lw=0.8, ls=":", label=f"{PEER_FLOOR}")
        ax.set_yscale("log")
        ax.set(title=f"{op} ({len(mine)} workloads)", xlabel="workloads, sorted", ylabel="time / cured's time")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(ops):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description="The shape sweep's targets from python -m cured.bench --json.")
    parser.add_argument("reports", nargs="+", help="JSON of python -m cured.bench --parts shapes --json FILE")
    parser.add_argument("--md", action="store_true", help="print Markdown tables")
    parser.add_argument("--plot", metavar="PNG", help="draw each op's ratios, sorted, to a PNG (matplotlib)")
    args = parser.parse_args(argv)
    try:
        rows = load(args.reports)
    except ReportError as e:
        print(f"shapes_table: {e}", file=sys.stderr)
        return 1
    print(report(rows, args.md), end="")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("shapes_table: --plot needs matplotlib", file=sys.stderr)
            return 2
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
