#!/usr/bin/env python3
"""Nsight Compute counters for every ladder step, the library and CUB, as one table per size.

    python3 scripts/profile_ladder.py --bench build/device/bench/cured-bench --out out/profile \
        [--ncu ncu] [--only step1,cured] [--types float,int32] [--budget-s 540]

Seed 003 explained the reduction ladder with nvprof counters; nvprof is gone, so this is the
same explanation with ncu on Hopper. Two configurations: float at 2^24 and int32 at 2^22.
For each implementation, one ncu run of cured-bench (--mode cold --samples 1: a warm-up
reduction, then one cold sample; no hot loop) collects, per kernel:

    DRAM throughput (% of peak), achieved occupancy, threads per executed instruction (warp
    execution efficiency), branch efficiency, divergent branches, shared-memory bank
    conflicts (loads, stores), instructions per warp, sectors per global load request,
    registers per thread, and the kernel's duration.

Which launch is profiled: ncu matches the kernel by its demangled name and, with
--filter-mode per-launch-config --launch-skip 1 --launch-count 1, skips the first launch of
every launch configuration (the warm-up reduction's) and profiles the second (the cold
sample's). A multi-pass ladder step therefore yields one row per pass of the cold sample; the
table keeps the first pass (the big one, the largest grid) and says "pass 1/k". CUB's large-n
reduction is two kernels (DeviceReduceKernel, then DeviceReduceSingleTileKernel): both are
reported, marked "kernel 1/2" and "kernel 2/2". The other launches in the process (the fill
kernel, the read-ceiling kernel, the L2-flush memsets) do not match the name and are not
profiled.

Writes OUT/profile.md (device and command above the tables), OUT/profile.csv, and OUT/raw/
(each run's ncu CSV, its log and cured-bench's own CSV report); prints a summary last. A
metric ncu cannot collect on the device is recorded as "n/a" instead of failing the run.
Exit status: 0 when every run produced its kernels, 1 when one did not, 2 for bad setup
(no ncu, no cured-bench).
"""

import argparse
import csv
import datetime
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

# ---- what is profiled ------------------------------------------------------------------------

# (type, size as cured-bench reads it, n): the seed's int32 size and a float size of the same order.
CONFIGS = [("float", "2^24", 1 << 24), ("int32", "2^22", 1 << 22)]

LADDER_BLOCK = 256  # cured-bench's default threads per block for the ladder, passed explicitly
SEED = 1            # fixed input, so reruns profile identical data

# What ncu collects. Lean on purpose: every extra metric group is another replay pass per kernel.
METRICS = [
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "smsp__sass_average_branch_targets_threads_uniform.pct",
    "smsp__sass_branch_targets_threads_divergent.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed.sum",
    "smsp__warps_launched.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "launch__registers_per_thread",
    "device__attribute_display_name",
]

# Report policies: "first_pass" keeps the largest-grid launch of a multi-pass reduction (its
# first pass); "all" keeps every launch, in launch order (CUB's two kernels, the library's one).
FIRST_PASS, ALL = "first_pass", "all"


def implementations():
    """(impl name for cured-bench, regex on the demangled kernel name, report policy), in table order."""
    impls = [(f"step{k}", rf"cured::ladder::step{k:02d}_kernel<", FIRST_PASS) for k in range(1, 11)]
    impls.append(("cured", r"cured::device::single_pass_kernel<", ALL))
    impls.append(("cub", r"DeviceReduce(SingleTile)?Kernel<", ALL))
    return impls


# ---- numbers ---------------------------------------------------------------------------------

_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?")
_DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")


def parse_number(text):
    """A float from one ncu CSV cell, or None for n/a, empty and anything not a number.

    ncu groups thousands with commas ("1,234,567.5"); a lone comma between digits that is not
    thousands grouping is read as a decimal comma (ncu under a European locale)."""
    s = (text or "").strip().replace("\u202f", "").replace("\xa0", "")
    if not s or s.lower() in ("n/a", "na", "nan", "-", "--"):
        return None
    if _THOUSANDS.fullmatch(s):
        s = s.replace(",", "")
    elif _DECIMAL_COMMA.fullmatch(s):
        s = s.replace(",", ".")
    try:
        return float(s)
    except ValueError:
        return None


# Time in nanoseconds; other units: an upper-case SI prefix scales the base unit (ncu's "auto"
# units write "Kinst", "Msector"; --print-units base should leave them bare, but cope anyway).
_TIME_NS = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
            "s": 1e9, "second": 1e9}
_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def unit_scale(unit):
    """Factor that turns a value in `unit` into base units (nanoseconds for time)."""
    u = (unit or "").strip()
    if u in _TIME_NS:
        return _TIME_NS[u]
    m = re.fullmatch(r"([KMGT])([a-z][a-z_/]*)", u)
    return _PREFIX[m.group(1)] if m else 1.0


def product_of_dims(text):
    """65536 from "(65536, 1, 1)"; None when unreadable."""
    nums = re.findall(r"\d+", (text or "").replace(",", " "))
    if not nums:
        return None
    p = 1
    for x in nums:
        p *= int(x)
    return p


# ---- ncu's raw CSV -----------------------------------------------------------------------------


def extract_csv(text):
    """The CSV part of ncu's stdout: from the header row (its first cell is "ID") to the end,
    without ncu's own ==PROF==/==WARNING== lines and blank lines."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None:
        return ""
    kept = [l for l in lines[start:] if l.strip() and not l.startswith("==")]
    return "\n".join(kept) + "\n"


def parse_raw_csv(text):
    """Kernels of an `ncu --csv --page raw` report, in launch order.

    Row 1 names the columns (ID, Process ID, ..., Kernel Name, ..., Block Size, Grid Size,
    Device, CC, then one column per metric); row 2, when its ID cell is empty, gives each
    metric's unit; then one row per profiled kernel. Each kernel is a dict: id, name, grid,
    block (thread counts), device (the "Device Name" column when present), values (metric ->
    cell text) and units (metric -> unit)."""
    rows = list(csv.reader(io.StringIO(extract_csv(text))))
    if not rows:
        return []
    header = rows[0]
    col = {name: i for i, name in enumerate(header)}
    info = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
            "Block Size", "Grid Size", "Device", "Device Name", "CC"}
    metric_cols = [(name, i) for i, name in enumerate(header) if name not in info]
    body = rows[1:]
    units = {}
    if body and body[0] and body[0][col.get("ID", 0)].strip() == "":
        units = {name: body[0][i] if i < len(body[0]) else "" for name, i in metric_cols}
        body = body[1:]

    def cell(r, name):
        i = col.get(name)
        return r[i] if i is not None and i < len(r) else ""

    kernels = []
    for r in body:
        if len(r) < len(header) // 2 or not cell(r, "ID").strip():
            continue  # a truncated or foreign line
        kernels.append({
            "id": int(parse_number(cell(r, "ID")) or 0),
            "name": cell(r, "Kernel Name"),
            "grid": product_of_dims(cell(r, "Grid Size")),
            "block": product_of_dims(cell(r, "Block Size")),
            "device": cell(r, "Device Name"),
            "values": {name: (r[i] if i < len(r) else "") for name, i in metric_cols},
            "units": units,
        })
    return kernels


def metric(kernel, name):
    """A metric of a kernel as a float in base units (time in ns), or None when missing."""
    v = parse_number(kernel["values"].get(name))
    return None if v is None else v * unit_scale(kernel["units"].get(name, ""))


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def failed_metrics(output, metrics):
    """Metrics of `metrics` that ncu's output says it cannot find or collect on this device.

    ncu names the metric in its error, e.g.
    ==ERROR== Failed to find metric regex:^foo__bar\\.(sum|avg|...)$ : the base name before the
    first dot (or escaped dot) is matched against each requested metric's base name."""
    bad = set()
    for line in output.splitlines():
        if "==ERROR==" not in line or "metric" not in line.lower():
            continue
        for token in re.findall(r"[a-z][a-z0-9]*__[A-Za-z0-9_]+", line):
            for m in metrics:
                if m.split(".")[0] == token or m == token:
                    bad.add(m)
    return bad


# ---- which launches are reported -------------------------------------------------------------


def select_launches(kernels, policy):
    """[(launch label, kernel)] to report from one run's kernels.

    Launches are grouped by configuration (name, grid, block); if a configuration was profiled
    more than once, its last launch (the cold sample's) stands for it. FIRST_PASS: the
    configuration with the largest grid is the first pass (every later pass reduces the previous
    pass's block partials with a smaller grid), labelled "pass 1/k" for k passes. ALL: every
    configuration in launch order, labelled "kernel i/k"."""
    last = {}
    for k in sorted(kernels, key=lambda k: k["id"]):
        last[(k["name"], k["grid"], k["block"])] = k
    configs = sorted(last.values(), key=lambda k: k["id"])
    if not configs:
        return []
    if policy == FIRST_PASS:
        first = max(configs, key=lambda k: ((k["grid"] or 0), -k["id"]))
        return [(f"pass 1/{len(configs)}", first)]
    return [(f"kernel {i + 1}/{len(configs)}", k) for i, k in enumerate(configs)]


# Kernels per reduction where the count does not depend on the device: the library launches one,
# CUB two at these sizes. (A ladder step's pass count depends on the SM count: not checked.)
EXPECTED_KERNELS = {"cured": 1, "cub": 2}


def run_warning(run):
    """"" or what is off about a run that did produce kernels (e.g. CUB's second kernel missing)."""
    want = EXPECTED_KERNELS.get(run["impl"])
    got = len(select_launches(run.get("kernels", []), ALL))
    if want is None or got in (0, want):
        return ""
    return f"expected {want} kernel{'s' if want > 1 else ''} per reduction, ncu profiled {got}"


# ---- the table ---------------------------------------------------------------------------------


def derive(kernel):
    """The table's numbers for one kernel (None where a metric is missing)."""
    threads = metric(kernel, "smsp__thread_inst_executed_per_inst_executed.ratio")
    time_ns = metric(kernel, "gpu__time_duration.sum")
    return {
        "registers": metric(kernel, "launch__registers_per_thread"),
        "time_us": None if time_ns is None else time_ns / 1e3,
        "dram_pct": metric(kernel, "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
        "occupancy_pct": metric(kernel, "sm__warps_active.avg.pct_of_peak_sustained_active"),
        "threads_per_inst": threads,
        "warp_exec_eff_pct": None if threads is None else 100.0 * threads / 32.0,
        "branch_eff_pct": metric(kernel, "smsp__sass_average_branch_targets_threads_uniform.pct"),
        "divergent_branches": metric(kernel, "smsp__sass_branch_targets_threads_divergent.sum"),
        "smem_ld_conflicts": metric(kernel, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
        "smem_st_conflicts": metric(kernel, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
        "inst_per_warp": ratio(metric(kernel, "smsp__inst_executed.sum"),
                               metric(kernel, "smsp__warps_launched.sum")),
        "sectors_per_request": ratio(metric(kernel, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                                     metric(kernel, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")),
    }


# (key of derive(), markdown header, format, the metrics behind it) in column order.
COLUMNS = [
    ("registers", "regs/thread", "int", "launch__registers_per_thread"),
    ("time_us", "time µs", "f2", "gpu__time_duration.sum"),
    ("dram_pct", "DRAM % of peak", "f1", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("occupancy_pct", "achieved occupancy %", "f1", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("warp_exec_eff_pct", "warp exec eff % (threads/inst)", "warp",
     "smsp__thread_inst_executed_per_inst_executed.ratio (÷ 32)"),
    ("branch_eff_pct", "branch eff %", "f1", "smsp__sass_average_branch_targets_threads_uniform.pct"),
    ("divergent_branches", "divergent branches", "int", "smsp__sass_branch_targets_threads_divergent.sum"),
    ("smem_ld_conflicts", "smem ld bank conflicts", "int", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("smem_st_conflicts", "smem st bank conflicts", "int", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    ("inst_per_warp", "inst/warp", "f1", "smsp__inst_executed.sum ÷ smsp__warps_launched.sum"),
    ("sectors_per_request", "sectors/global ld request", "f2",
     "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum ÷ l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
]

CSV_FIELDS = (["type", "n", "impl", "launch", "kernel", "grid", "block"]
              + [c[0] for c in COLUMNS[:4]] + ["threads_per_inst"] + [c[0] for c in COLUMNS[4:]]
              + ["check", "note"])


def fmt(value, kind, extra=None):
    """One markdown cell; "n/a" for a missing value."""
    if value is None:
        return "n/a"
    if kind == "int":
        return f"{value:,.0f}"
    if kind == "f1":
        return f"{value:.1f}"
    if kind == "f2":
        return f"{value:.2f}"
    if kind == "warp":
        return f"{value:.1f} ({extra:.1f})" if extra is not None else f"{value:.1f}"
    return str(value)


def short_kernel_name(name):
    """`step01_kernel<256u, float, float>` from ncu's demangled name; long template argument
    lists (the library's, CUB's) become <…>. The full name is in profile.csv."""
    s = name.strip()
    if s.startswith("void "):
        s = s[5:]
    depth, cut = 0, len(s)
    for i, c in enumerate(s):  # drop the parameter list: the first "(" outside template brackets
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            cut = i
            break
    s = s[:cut]
    depth, last = 0, 0
    for i, c in enumerate(s):  # drop namespaces: the text after the last "::" outside brackets
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == ":" and depth == 0 and s[i:i + 2] == "::":
            last = i + 2
    s = s[last:]
    lt = s.find("<")
    if lt >= 0 and len(s) - lt > 32:
        s = s[:lt] + "<…>"
    return s


def report_rows(run):
    """The reported rows of one run (dicts with CSV_FIELDS keys plus raw numbers for markdown);
    one placeholder row when the run produced no kernel, so the gap shows in the table."""
    base = {"type": run["type"], "n": run["n"], "impl": run["impl"], "check": run.get("check", "")}
    picked = select_launches(run.get("kernels", []), run["policy"])
    if not picked:
        row = dict(base, launch="", kernel="", grid=None, block=None,
                   note=run.get("error") or "no kernel profiled")
        row.update({k: None for k in derive({"values": {}, "units": {}})})
        return [row]
    rows = []
    for label, k in picked:
        row = dict(base, launch=label, kernel=k["name"], grid=k["grid"], block=k["block"], note=run_warning(run))
        row.update(derive(k))
        rows.append(row)
    return rows


def markdown_table(rows):
    head = ["impl", "launch", "kernel", "grid × block"] + [c[1] for c in COLUMNS]
    align = ["---", "---", "---", "---:"] + ["---:"] * len(COLUMNS)
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    for r in rows:
        if r["kernel"]:
            kernel = "`" + short_kernel_name(r["kernel"]).replace("|", "\\|") + "`"
            if r["note"]:
                kernel += " (" + r["note"] + ")"
            dims = f"{r['grid']:,} × {r['block']}" if r["grid"] and r["block"] else "n/a"
        else:
            kernel = "(none: " + r["note"].replace("|", "\\|") + ")"
            dims = "n/a"
        cells = [r["impl"], r["launch"] or "-", kernel, dims]
        for key, _, kind, _ in COLUMNS:
            cells.append(fmt(r[key], kind, r.get("threads_per_inst")))
        out.append("| " + " | ".join(cells) + " |")
    return out


def build_markdown(info, runs, missing):
    """profile.md: the device and the command first, then one table per (type, size), the
    column definitions, and every exact ncu command."""
    out = [f"# Ladder profile (Nsight Compute) on {info['device']}", ""]
    out.append(f"- Device: {info['device']}; {info['smi']}")
    out.append(f"- ncu: {info['ncu_version']}; clocks not locked (`--clock-control none`), "
               "caches flushed before every replay pass (`--cache-control all`), `--replay-mode kernel`")
    out.append(f"- Command: `{info['command']}`")
    out.append(f"- Date: {info['date']}; git: {info['git']}")
    out.append("- Each implementation is one ncu run of `cured-bench --mode cold --samples 1` (a warm-up "
               "reduction, then one cold sample); `--filter-mode per-launch-config --launch-skip 1 "
               "--launch-count 1` profiles the cold sample's launches only. Multi-pass ladder steps: "
               "the first pass (the big one) is reported, as `pass 1/k`; CUB's two kernels are both "
               "reported, as `kernel 1/2` and `kernel 2/2`. Exact commands at the end.")
    out.append("")
    for type_name, size_text, n in CONFIGS:
        rows = [r for run in runs if run["type"] == type_name for r in report_rows(run)]
        if not rows:
            continue
        out.append(f"## {type_name}, n = {size_text} ({n:,})")
        out.append("")
        out.extend(markdown_table(rows))
        out.append("")
    out.append("## Columns")
    out.append("")
    for _, header, _, source in COLUMNS:
        out.append(f"- {header}: `{source}`")
    out.append("- warp exec eff % = active threads per executed warp instruction ÷ 32 (nvprof's "
               "warp_execution_efficiency); branch eff % = nvprof's branch_efficiency.")
    out.append("- time µs is the profiled kernel's duration under ncu (caches flushed, kernel serialized), "
               "not cured-bench's timing.")
    if missing:
        out.append("- n/a everywhere in a column: ncu could not collect " +
                   ", ".join(f"`{m}`" for m in sorted(missing)) + " on this device.")
    out.append("")
    out.append("## Commands")
    out.append("")
    for run in runs:
        if run.get("command"):
            out.append(f"- {run['type']} {run['size']} {run['impl']}: `{shlex.join(run['command'])}`")
    out.append("")
    return "\n".join(out)


def csv_value(value):
    """A CSV cell: empty for a missing value, whole numbers without ".0", others to 4 decimals."""
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.4f}".rstrip("0").rstrip(".")
    return value


def write_csv(path, runs):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for run in runs:
            for r in report_rows(run):
                w.writerow({k: csv_value(r.get(k)) for k in CSV_FIELDS})


def bench_check(path, impl, type_name):
    """cured-bench's own verdict on the result ("ok" or what differed), from its CSV report."""
    try:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r.get("impl") == impl and r.get("type") == type_name:
                    return r.get("check", "")
    except OSError:
        pass
    return "no report"


# ---- running ncu ---------------------------------------------------------------------------------


def ncu_command(ncu, metrics, kernel_regex, bench_cmd):
    return [ncu, "--csv", "--page", "raw", "--print-units", "base",
            "--print-kernel-base", "demangled",
            "--metrics", ",".join(metrics),
            "--clock-control", "none", "--cache-control", "all", "--replay-mode", "kernel",
            "--target-processes", "all",
            "--kernel-name-base", "demangled", "--kernel-name", "regex:" + kernel_regex,
            "--filter-mode", "per-launch-config", "--launch-skip", "1", "--launch-count", "1",
            *bench_cmd]


def bench_command(bench, impl, type_name, size_text, report_path):
    return [bench, "--impl", impl, "--types", type_name, "--sizes", size_text, "--ops", "sum",
            "--mode", "cold", "--samples", "1", "--block", str(LADDER_BLOCK), "--seed", str(SEED),
            "--format", "csv", "--out", report_path]


def run_one(ncu, bench, out_dir, type_name, size_text, n, impl, regex, policy, metrics, missing, deadline):
    """Profiles one implementation at one size. Drops (and records in `missing`) metrics that ncu
    reports it cannot collect, and retries without them."""
    stem = f"{type_name}_{size_text.replace('^', 'p')}_{impl}"
    raw_csv = os.path.join(out_dir, "raw", stem + ".csv")
    log_path = os.path.join(out_dir, "raw", stem + ".log")
    report = os.path.join(out_dir, "raw", stem + ".bench.csv")
    run = {"type": type_name, "size": size_text, "n": n, "impl": impl, "policy": policy,
           "kernels": [], "error": "", "rc": None, "check": ""}
    for _attempt in range(4):
        wanted = [m for m in metrics if m not in missing]
        cmd = ncu_command(ncu, wanted, regex, bench_command(bench, impl, type_name, size_text, report))
        run["command"] = cmd
        remaining = deadline - time.monotonic()
        if remaining < 20:
            run["error"] = "skipped: time budget spent"
            return run
        # Own session, so a timeout ends ncu and cured-bench together (and nothing else).
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                encoding="utf-8", errors="replace", start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=remaining)
            run["rc"] = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            run["rc"] = "timeout"
        with open(log_path, "w") as f:
            f.write("$ " + shlex.join(cmd) + "\n==== stdout\n" + stdout + "\n==== stderr\n" + stderr)
        with open(raw_csv, "w") as f:
            f.write(extract_csv(stdout))
        run["kernels"] = parse_raw_csv(stdout)
        newly = failed_metrics(stdout + "\n" + stderr, wanted)
        if run["kernels"] or not newly:
            break
        missing.update(newly)  # e.g. a metric this ncu or GPU does not offer: retry without it
    run["check"] = bench_check(report, impl, type_name)
    if not run["kernels"]:
        errors = [l.strip() for l in (stdout + "\n" + stderr).splitlines() if "==ERROR==" in l]
        if run["rc"] == "timeout":
            run["error"] = "ncu timed out"
        elif errors:
            run["error"] = errors[0][:160]
        else:
            run["error"] = f"ncu rc={run['rc']}, no kernel matched"
        run["error"] += f" (see raw/{stem}.log)"
    return run


def tool_output(cmd):
    """A tool's output (e.g. `ncu --version`), or "unavailable"."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        text = (p.stdout or p.stderr).strip()
        return text if p.returncode == 0 and text else "unavailable"
    except (OSError, subprocess.TimeoutExpired):
        return "unavailable"


def find_ncu(name):
    path = shutil.which(name)
    if path is None and name == "ncu" and os.access("/usr/local/cuda/bin/ncu", os.X_OK):
        path = "/usr/local/cuda/bin/ncu"
    return path


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", required=True, help="path of cured-bench (e.g. build/device/bench/cured-bench)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--ncu", default="ncu", help="Nsight Compute CLI [ncu]")
    p.add_argument("--only", default="", help="comma-separated implementations: step1..step10, ladder, cured, cub")
    p.add_argument("--types", default="", help="comma-separated: float, int32 [both]")
    p.add_argument("--budget-s", type=float, default=540,
                   help="stop starting runs after this many seconds; the rest are recorded as skipped [540]")
    a = p.parse_args(argv)
    started = time.monotonic()

    # Setup checks: a clear message and status 2 rather than a traceback.
    ncu = find_ncu(a.ncu)
    if ncu is None:
        print(f"profile_ladder: Nsight Compute CLI '{a.ncu}' not found (not on PATH); pass --ncu /path/to/ncu",
              file=sys.stderr)
        return 2
    if not os.access(a.bench, os.X_OK):
        print(f"profile_ladder: cured-bench '{a.bench}' is not an executable; build it first", file=sys.stderr)
        return 2
    impls = implementations()
    if a.only:
        wanted = set()
        for item in a.only.split(","):
            item = item.strip()
            wanted |= {f"step{k}" for k in range(1, 11)} if item == "ladder" else {item}
        unknown = wanted - {i[0] for i in impls}
        if unknown:
            print(f"profile_ladder: unknown implementation(s) {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        impls = [i for i in impls if i[0] in wanted]
    configs = CONFIGS
    if a.types:
        types = {t.strip() for t in a.types.split(",")}
        configs = [c for c in CONFIGS if c[0] in types]
        if not configs:
            print(f"profile_ladder: no configuration for types {a.types}", file=sys.stderr)
            return 2

    os.makedirs(os.path.join(a.out, "raw"), exist_ok=True)
    bench = a.bench if os.sep in a.bench else os.path.join(".", a.bench)  # as given: the commands stay short
    smi = tool_output(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem",
                       "--format=csv,noheader"])
    info = {
        "command": shlex.join(["python3", sys.argv[0], *argv]),
        "ncu_version": tool_output([ncu, "--version"]).splitlines()[-1],
        "smi": "nvidia-smi at start (name, driver, SM clock, max SM clock, memory clock): "
               + smi.splitlines()[0] if smi != "unavailable" else "nvidia-smi unavailable",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "git": tool_output(["git", "describe", "--always", "--dirty"]),
    }

    # One ncu run per (configuration, implementation); metrics ncu rejects are dropped for the rest.
    missing = set()
    runs = []
    deadline = started + a.budget_s
    fatal = ""
    for type_name, size_text, n in configs:
        for impl, regex, policy in impls:
            print(f"profile_ladder: {type_name} {size_text} {impl}", file=sys.stderr, flush=True)
            if fatal:  # no point in 20 more runs that fail the same way
                runs.append({"type": type_name, "size": size_text, "n": n, "impl": impl, "policy": policy,
                             "kernels": [], "error": "skipped: " + fatal, "rc": None, "check": ""})
                continue
            run = run_one(ncu, bench, a.out, type_name, size_text, n, impl, regex, policy,
                          METRICS, missing, deadline)
            if "ERR_NVGPUCTRPERM" in run["error"]:
                fatal = "no permission to read GPU performance counters (ERR_NVGPUCTRPERM)"
            runs.append(run)

    # The device's name as ncu saw it, else nvidia-smi's.
    names = [k["values"].get("device__attribute_display_name") or k.get("device")
             for run in runs for k in run["kernels"]]
    names = [x for x in names if x]
    info["device"] = names[0] if names else (smi.split(",")[0] if smi != "unavailable" else "unknown device")

    md_path = os.path.join(a.out, "profile.md")
    csv_path = os.path.join(a.out, "profile.csv")
    with open(md_path, "w") as f:
        f.write(build_markdown(info, runs, missing))
    write_csv(csv_path, runs)
    with open(os.path.join(a.out, "commands.txt"), "w") as f:
        f.write("\n".join(shlex.join(r["command"]) for r in runs if r.get("command")) + "\n")

    # Summary, last.
    failed = [r for r in runs if not r["kernels"]]
    print("==== profile_ladder summary")
    print(f"device: {info['device']}; ncu: {info['ncu_version']}")
    for r in runs:
        picked = select_launches(r["kernels"], r["policy"])
        what = ", ".join(f"{label} {short_kernel_name(k['name'])}" for label, k in picked) or r["error"]
        warning = run_warning(r)
        print(f"{r['type']} {r['size']} {r['impl']}: {what}; check {r['check'] or '-'}"
              + (f"; WARNING: {warning}" if warning else ""))
    print("missing metrics: " + (", ".join(sorted(missing)) if missing else "none"))
    print(f"wrote {md_path}, {csv_path}, {os.path.join(a.out, 'raw')}/ "
          f"({len(runs)} runs, {len(failed)} without kernels) in {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
