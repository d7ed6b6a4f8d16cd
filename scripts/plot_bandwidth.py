#!/usr/bin/env python3
"""Plot cured-bench's bandwidth from its JSON report.

    cured-bench --format json --out run.json
    scripts/plot_bandwidth.py run.json -o run.png     # needs matplotlib
    scripts/plot_bandwidth.py run.json --check        # validates only; no matplotlib needed

One subplot per (type, op) pair, one line per implementation: GB/s (the report's gbps: cold,
or hot where cold was not measured) against n on a log2 axis, with the run's measured read
ceiling and theoretical peak as dashed horizontal lines. The rows of axis workloads (those with
a shape: cured-bench --shape, --axes-grid) are scripts/plot_axes.py's, and those of segmented
workloads (with a dist: cured-bench --segments, --segments-grid) scripts/segments_table.py's.
"""

import argparse
import json
import math
import sys

ROW_STRINGS = ("impl", "type", "op")
ROW_NUMBERS = ("cold_ms", "hot_ms", "bytes", "gbps", "pct_ceiling", "pct_peak", "vs_step1", "vs_cub")
RUN_NUMBERS = ("l2_mb", "peak_gbps", "ceiling_gbps")


class ReportError(Exception):
    """The report is not what cured-bench writes."""


def _reject_constant(name):
    raise ReportError(f"{name} is not valid JSON (unmeasured values are null)")


def load(path):
    """The parsed report; ReportError when it is not valid JSON."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise ReportError(f"not valid JSON: {e}") from e
    except (OSError, UnicodeDecodeError) as e:
        raise ReportError(str(e)) from e


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def validate(doc):
    """Raises ReportError unless doc has the shape write_report gives it."""
    if not isinstance(doc, dict) or not isinstance(doc.get("run"), dict) or not isinstance(doc.get("rows"), list):
        raise ReportError('expected an object with "run" (an object) and "rows" (an array)')
    run = doc["run"]
    for key in ("device", "command", "date"):
        if key in run and not isinstance(run[key], str):
            raise ReportError(f'run.{key} should be a string, not {run[key]!r}')
    for key in ("sm_count", "samples"):
        if key in run and not _is_int(run[key]):
            raise ReportError(f'run.{key} should be an integer, not {run[key]!r}')
    for key in RUN_NUMBERS:
        if run.get(key) is not None and not _is_number(run[key]):
            raise ReportError(f'run.{key} should be a number or null, not {run[key]!r}')
    for i, row in enumerate(doc["rows"]):
        where = f"rows[{i}]"
        if not isinstance(row, dict):
            raise ReportError(f"{where} should be an object")
        for key in ROW_STRINGS:
            if not isinstance(row.get(key), str) or not row[key]:
                raise ReportError(f"{where}.{key} should be a non-empty string, not {row.get(key)!r}")
        if not _is_int(row.get("n")) or row["n"] < 0:
            raise ReportError(f"{where}.n should be an integer >= 0, not {row.get('n')!r}")
        if row.get("block") is not None and not (_is_int(row["block"]) and row["block"] > 0):
            raise ReportError(f"{where}.block should be a positive integer or null, not {row['block']!r}")
        if "check" in row and not isinstance(row["check"], str):
            raise ReportError(f"{where}.check should be a string")
        for key in ROW_NUMBERS:
            if row.get(key) is not None and not _is_number(row[key]):
                raise ReportError(f"{where}.{key} should be a number or null, not {row[key]!r}")


def bandwidth(row):
    """GB/s of a row: its gbps, else bytes over the cold (or hot) time; None when unmeasured."""
    if row.get("gbps") is not None:
        return row["gbps"]
    ms = row.get("cold_ms") if row.get("cold_ms") is not None else row.get("hot_ms")
    if ms is None or ms <= 0 or row.get("bytes") is None:
        return None
    return row["bytes"] / (ms * 1e6)


def series(doc):
    """{(type, op): {impl: [(n, gbps), ...] sorted by n}}, in order of first appearance."""
    out = {}
    for row in doc["rows"]:
        if "shape" in row or "dist" in row:  # an axis or segmented workload's row
            continue
        gbps = bandwidth(row)
        if gbps is None or row["n"] <= 0:
            continue
        out.setdefault((row["type"], row["op"]), {}).setdefault(row["impl"], []).append((row["n"], gbps))
    for lines in out.values():
        for points in lines.values():
            points.sort()
    return out


PEER_STYLES = {  # the library and its peers: bold, each its own color and marker
    "cured": ("tab:red", "o"), "cured-blocking": ("tab:orange", "o"), "cub": ("black", "s"),
    "thrust": ("tab:gray", "s"), "cpu": ("tab:brown", "^"), "cpu-mt": ("tab:pink", "^"),
    "floor": ("tab:green", "v"),  # the read floor: a kernel that only reads the input
}


def line_style(impl, plt):
    """Ladder steps in a blue-to-green ramp, thin and dashed; the peers bold and distinct."""
    if impl.startswith("step") and impl[4:].isdigit():
        step = int(impl[4:])
        return {"color": plt.cm.viridis((step - 1) / 9), "linestyle": "--", "linewidth": 1,
                "marker": ".", "markersize": 3}
    color, marker = PEER_STYLES.get(impl, ("tab:purple", "x"))
    return {"color": color, "linewidth": 2, "marker": marker, "markersize": 3}


def plot(doc, output):
    try:
        import matplotlib
    except ImportError as e:
        raise ReportError("plotting needs matplotlib (pip install matplotlib); --check works without it") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = series(doc)
    if not panels:
        raise ReportError("no measured rows to plot")
    run = doc["run"]
    cols = min(2, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(7 * cols, 4.5 * rows), squeeze=False)
    for ax, ((type_name, op), lines) in zip(axes.flat, panels.items()):
        for impl, points in lines.items():
            ax.plot([n for n, _ in points], [g for _, g in points], label=impl, **line_style(impl, plt))
        for key, label, color in (("ceiling_gbps", "measured read ceiling", "black"),
                                  ("peak_gbps", "theoretical peak", "gray")):
            if run.get(key) is not None:
                ax.axhline(run[key], linestyle="--", linewidth=1, color=color, label=f"{label} {run[key]:.0f} GB/s")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements (n)")
        ax.set_ylabel("GB/s")
        ax.set_title(f"{type_name} {op}")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="small", ncol=2)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(f"cured-bench on {run.get('device') or 'an unknown device'}")
    fig.tight_layout()
    fig.savefig(output, dpi=120)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Plot GB/s against n from a cured-bench JSON report.")
    parser.add_argument("report", help="the JSON report (cured-bench --format json --out FILE)")
    parser.add_argument("-o", "--output", help="the image to write (default: the report's name with .png)")
    parser.add_argument("--check", action="store_true", help="only parse and validate the report (no matplotlib)")
    args = parser.parse_args(argv)
    try:
        doc = load(args.report)
        validate(doc)
        if args.check:
            impls = {row["impl"] for row in doc["rows"]}
            pairs = {(row["type"], row["op"]) for row in doc["rows"]}
            print(f"{args.report}: ok, {len(doc['rows'])} rows, {len(impls)} implementations, "
                  f"{len(pairs)} type/op pairs")
            return 0
        output = args.output or (args.report[:-5] if args.report.endswith(".json") else args.report) + ".png"
        plot(doc, output)
        print(f"wrote {output}")
        return 0
    except ReportError as e:
        print(f"plot_bandwidth: {args.report}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
