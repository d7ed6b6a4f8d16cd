#!/usr/bin/env python3
"""Two builds' speed against each other, from cured-bench JSON reports of one device run.

    scripts/compare_reports.py --base base1.json base2.json --new new1.json new2.json > compare.md

Each report holds the rows of one build (cured and its peer, e.g. --impl cured,cub); give each
build's runs in the order they ran (base, new, new, base cancels a drift of the machine). For
each (type, op, data) and size the table gives the peer/cured cold-time ratio of every run, and
per (type, op, data) the geometric mean over sizes of new/base (the ratio of the two builds'
mean peer/cured ratios: above 1, the new build is faster against the same peer) beside the
same measure between the base build's own runs, which is the run-to-run noise.
"""

import argparse
import json
import math
import sys


def cold(row):
    return row.get("cold_ms") if row.get("cold_ms") is not None else row.get("hot_ms")


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def ratios(rows, peer, impl):
    """{(type, op, data): {n: cold(peer) / cold(impl)}} over rows checked ok. exact_sum, which
    the peer may not offer, is set against the peer's sum of the same type and data."""
    times = {}
    for r in rows:
        if r.get("check") != "ok" or not cold(r):
            continue
        times[(r["impl"], r["type"], r["op"], r.get("data", "exact"), r["n"])] = cold(r)
    out = {}
    for (im, t, op, data, n), ms in times.items():
        if im != impl:
            continue
        p = times.get((peer, t, op, data, n)) or times.get((peer, t, "sum", data, n))
        if p:
            out.setdefault((t, op, data), {})[n] = p / ms
    return out


def mean_ratio(runs, key, n):
    return geomean([r.get(key, {}).get(n) for r in runs])


def between(a_runs, b_runs, key):
    """Geometric mean over sizes of mean(b) / mean(a), and the largest single-size deviation."""
    sizes = set.intersection(*[set(r.get(key, {})) for r in a_runs + b_runs]) if a_runs + b_runs else set()
    qs = [mean_ratio(b_runs, key, n) / mean_ratio(a_runs, key, n) for n in sorted(sizes)]
    if not qs:
        return None, None
    return geomean(qs), max(abs(math.log(q)) for q in qs)


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def size_name(n):
    e = int(math.log2(n)) if n > 0 else -1
    return f"2^{e}" if n > 0 and 2 ** e == n else str(n)


def tables(base, new, peer, impl):
    out = []
    b = [ratios(r, peer, impl) for r in base]
    w = [ratios(r, peer, impl) for r in new]
    keys = sorted(set().union(*[set(r) for r in b + w]))
    out.append(f"| type | op | data | new/base | base/base (noise) | largest size deviation new, noise |")
    out.append("|---|---|---|---:|---:|---:|")
    for key in keys:
        q, dev = between(b, w, key)
        nq, ndev = between(b[:1], b[1:], key) if len(b) > 1 else (None, None)
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | {fmt(q, 3)} | {fmt(nq, 3)} | "
                   f"{fmt(None if dev is None else math.exp(dev) - 1, 3)}, "
                   f"{fmt(None if ndev is None else math.exp(ndev) - 1, 3)} |")
    for key in keys:
        out.append("")
        out.append(f"### {key[0]} {key[1]} ({key[2]} data): {peer}/{impl}")
        out.append("")
        out.append("| n | " + " | ".join([f"base {i + 1}" for i in range(len(b))] +
                                       [f"new {i + 1}" for i in range(len(w))]) + " |")
        out.append("|---:|" + "---:|" * (len(b) + len(w)))
        sizes = sorted(set().union(*[set(r.get(key, {})) for r in b + w]))
        for n in sizes:
            out.append(f"| {size_name(n)} | " + " | ".join(fmt(r.get(key, {}).get(n)) for r in b + w) + " |")
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", nargs="+", required=True, help="the base build's reports")
    ap.add_argument("--new", nargs="+", required=True, help="the new build's reports")
    ap.add_argument("--peer", default="cub")
    ap.add_argument("--impl", default="cured")
    args = ap.parse_args(argv)

    def load(paths):
        runs = []
        for p in paths:
            with open(p) as f:
                runs.append(json.load(f)["rows"])
        return runs

    print("\n".join(tables(load(args.base), load(args.new), args.peer, args.impl)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
