#!/usr/bin/env python3
"""Plot the GB/s of cured-bench's axis workloads from its JSON report.

    cured-bench --axes-grid --format json --out axes.json
    scripts/plot_axes.py axes.json -o axes.png      # needs matplotlib; one image per type
    scripts/plot_axes.py axes.json --check          # validates only; no matplotlib needed
    scripts/plot_axes.py axes_float.json axes_half.json -o axes.png   # several reports' rows together

One image per element type (axes.png for one type, else axes_float.png, axes_int32.png, ...):
one row of panels per op, one panel per size class (the input's element count) of the 2-D
workloads reduced along one axis, plus a panel of the other shapes. In a 2-D panel, GB/s (bytes
read and written over the cold time, the report's gbps) against the rows of the shape on a log
axis, one line per implementation (cured, CUB, the floor: a kernel that reads the input and
writes the output's bytes) and axis (solid: axis 1, the rows; dashed: axis 0, the columns). In
the other panel, one point per shape and implementation. The targets' summary is
scripts/axes_table.py.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import axes_table  # noqa: E402
import plot_bandwidth  # noqa: E402

IMPL_STYLES = {"cured": ("tab:red", "o"), "cub": ("black", "s"), "floor": ("tab:green", "v")}


def two_d(row):
    """A 2-D workload reduced along one axis: it goes on a rows axis."""
    return len(row["shape"]) == 2 and len(row["axes"]) == 1


def panels_of(rows):
    """{op: {panel: {(impl, axis or workload): [(x, gbps), ...]}}}; panel is n for the 2-D
    workloads, "other" for the rest (x: its position among them, in report order)."""
    out, others = {}, {}
    for r in rows:
        gbps = plot_bandwidth.bandwidth(r)
        if gbps is None or not axes_table.usable(r):
            continue
        panels = out.setdefault(r["op"], {})
        if two_d(r):
            panels.setdefault(r["n"], {}).setdefault((r["impl"], r["axes"][0]), []).append((r["shape"][0], gbps))
        else:
            x = others.setdefault(axes_table.workload_text(r), len(others))
            panels.setdefault("other", {}).setdefault((r["impl"], None), []).append((x, gbps))
    for panels in out.values():
        for lines in panels.values():
            for points in lines.values():
                points.sort()
    return out, {x: w for w, x in others.items()}


def output_name(output, type_name, several):
    if not several:
        return output
    stem, ext = os.path.splitext(output)
    return f"{stem}_{type_name}{ext or '.png'}"


def plot_type(doc, rows, type_name, output):
    import matplotlib.pyplot as plt

    panels, other_names = panels_of(rows)
    ops = list(panels)
    columns = sorted({p for op in ops for p in panels[op] if p != "other"})
    if any("other" in panels[op] for op in ops):
        columns.append("other")
    fig, axes = plt.subplots(len(ops), len(columns), figsize=(5.5 * len(columns), 3.8 * len(ops)), squeeze=False)
    for i, op in enumerate(ops):
        for j, column in enumerate(columns):
            ax = axes[i][j]
            lines = panels[op].get(column)
            if not lines:
                ax.set_visible(False)
                continue
            for (impl, axis), points in sorted(lines.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
                color, marker = IMPL_STYLES.get(impl, ("tab:purple", "x"))
                style = {"color": color, "marker": marker, "markersize": 3, "linewidth": 1.5}
                if column == "other":
                    ax.plot([x for x, _ in points], [g for _, g in points], linestyle="none", label=impl, **style)
                    continue
                ax.plot([x for x, _ in points], [g for _, g in points], linestyle="-" if axis == 1 else "--",
                        label=f"{impl} axis {axis}", **style)
            if column == "other":
                ticks = sorted(other_names)
                ax.set_xticks(ticks)
                ax.set_xticklabels([other_names[t] for t in ticks], rotation=30, ha="right", fontsize="x-small")
                ax.set_title(f"{type_name} {op}: other shapes")
            else:
                ax.set_xscale("log", base=2)
                rows_seen = sorted({x for points in lines.values() for x, _ in points})
                ax.set_xticks(rows_seen)
                ax.set_xticklabels([f"$2^{{{x.bit_length() - 1}}}$" if x & (x - 1) == 0 else str(x) for x in rows_seen],
                                   fontsize="small")
                ax.minorticks_off()
                ax.set_xlabel("rows (of rows x cols)")
                ax.set_title(f"{type_name} {op}: {axes_table.size_class(column)} elements")
            ax.set_ylabel("GB/s (read + written)")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize="x-small", ncol=2)
    run = doc["run"]
    fig.suptitle(f"cured-bench axis workloads, {type_name}, on {run.get('device') or 'an unknown device'}")
    fig.tight_layout()
    fig.savefig(output, dpi=100)
    plt.close(fig)


def plot(doc, output):
    try:
        import matplotlib
    except ImportError as e:
        raise axes_table.ReportError("plotting needs matplotlib (pip install matplotlib); --check works without it") from e
    matplotlib.use("Agg")
    rows = axes_table.axis_rows(doc)
    types = list(dict.fromkeys(r["type"] for r in rows))
    written = []
    for type_name in types:
        name = output_name(output, type_name, len(types) > 1)
        type_rows = [r for r in rows if r["type"] == type_name]
        if not panels_of(type_rows)[0]:
            continue
        plot_type(doc, type_rows, type_name, name)
        written.append(name)
    if not written:
        raise axes_table.ReportError("no measured axis rows to plot")
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description="Plot GB/s per shape of cured-bench's axis workloads.")
    parser.add_argument("reports", nargs="+", help="JSON reports (cured-bench --axes-grid --format json --out FILE)")
    parser.add_argument("-o", "--output", help="the image to write (default: the first report's name with .png); "
                        "with several types, one per type: NAME_TYPE.png")
    parser.add_argument("--check", action="store_true", help="only parse and validate the reports (no matplotlib)")
    args = parser.parse_args(argv)
    try:
        doc = axes_table.load_reports(args.reports)
        rows = axes_table.axis_rows(doc)
        if not rows:
            raise axes_table.ReportError("no axis rows (cured-bench --shape or --axes-grid)")
        if args.check:
            workloads = {axes_table.workload_text(r) for r in rows}
            print(f"{' '.join(args.reports)}: ok, {len(rows)} axis rows, {len(workloads)} workloads")
            return 0
        first = args.reports[0]
        output = args.output or (first[:-5] if first.endswith(".json") else first) + ".png"
        for name in plot(doc, output):
            print(f"wrote {name}")
        return 0
    except axes_table.ReportError as e:
        print(f"plot_axes: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
