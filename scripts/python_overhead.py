"""The host's cost of one cured.sum call from Python, part by part, beside torch.sum and
cupy.sum (microseconds per call on 2^10 float32 values): "loop", a hot loop of 20000 calls
between two synchronizations (what a Python loop sees: the GPU's time where it is longer than
the host's); "burst", the median over 41 bursts of 100 calls each after a synchronization (the
host's time alone: the launch queue never fills). Each figure is the median of three rounds
over all the rows in turn.

    PYTHONPATH=build/release/python python3 scripts/python_overhead.py
"""
import statistics
import time

import torch

import cured
from cured import _arrays, _lib
from cured.bench import hot_loop_us


def loop(f):
    return hot_loop_us(f, 20000, torch.cuda.synchronize, warmup=200)


def burst(f, k=100, reps=41):
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        s = time.perf_counter()
        for _ in range(k):
            f()
        times.append((time.perf_counter() - s) / k * 1e6)
    torch.cuda.synchronize()
    return statistics.median(times)


ROWS = []


def row(name, f):
    ROWS.append((name, f))


def python_path(f):
    """f with the compiled torch fast path off: the Python fast path and ctypes."""
    def g():
        fast, cured._fast = cured._fast, None
        try:
            return f()
        finally:
            cured._fast = fast
    return g


x = torch.rand(1024, device="cuda")
cured.sum(x)  # binds torch (and the compiled fast path where the package has it)
d = _arrays.describe(x)
in_b = _lib.pack_array(d.ptr, d.dtype, d.shape, d.strides)
out = torch.empty((), device="cuda")
out_b = _lib.pack_array(out.data_ptr(), _lib.FLOAT32, (), ())
axes_b = _lib.pack_axes((0,))
lib = _lib.lib
print("compiled torch fast path: %s" % ("loaded" if cured._fast is not None else "not loaded"))
row("abi_version (the ctypes floor)", lib.cured_abi_version)
row("describe", lambda: _arrays.describe(x))
row("torch.empty", lambda: torch.empty((), dtype=torch.float32, device=x.device))
row("x.new_empty", lambda: x.new_empty(()))
row("pack_array", lambda: _lib.pack_array(d.ptr, d.dtype, d.shape, d.strides))
row("cured_reduce (ctypes, C, launch)", lambda: lib.cured_reduce(_lib.SUM, in_b, axes_b, 1, out_b, None, d.stream, None))
row("cured.sum", lambda: cured.sum(x))
if cured._fast is not None:
    row("cured.sum, Python path", python_path(lambda: cured.sum(x)))
row("torch.sum", lambda: torch.sum(x))
row("torch.sum out=", lambda: torch.sum(x, dim=0, out=out))
row("cured.amax", lambda: cured.amax(x))
row("torch.amax", lambda: torch.amax(x))
row("cured.var_mean", lambda: cured.var_mean(x))
row("torch.var_mean", lambda: torch.var_mean(x))
y = torch.rand(64, 16, device="cuda")
row("cured.sum dim=1 64x16", lambda: cured.sum(y, dim=1))
row("torch.sum dim=1 64x16", lambda: torch.sum(y, dim=1))
try:
    import cupy
except ImportError as e:
    print("no CuPy: %s" % e)
else:
    c = cupy.asarray(x)
    row("cured.sum, CuPy array", lambda: cured.sum(c))
    row("cupy.sum", lambda: cupy.sum(c))
    row("cured.amax, CuPy array", lambda: cured.amax(c))
    row("cupy.amax", lambda: cupy.amax(c))
times = {name: ([], []) for name, _ in ROWS}
for _ in range(3):
    for name, f in ROWS:
        times[name][0].append(loop(f))
        times[name][1].append(burst(f))
print("%-40s %8s %8s" % ("us per call", "loop", "burst"))
for name, _ in ROWS:
    print("%-40s %8.2f %8.2f" % ((name,) + tuple(statistics.median(t) for t in times[name])))
