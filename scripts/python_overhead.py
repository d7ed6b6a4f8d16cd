"""The host's cost of one cured.sum call from Python, part by part, beside torch.sum: hot loops
of 20000 calls on 2^10 floats between two synchronizations (microseconds per call).

    PYTHONPATH=build/release/python python3 scripts/python_overhead.py
"""
import time, torch, cured
from cured import _lib, _arrays
x = torch.rand(1024, device="cuda")
def t(name, f, n=20000):
    for _ in range(200): f()
    torch.cuda.synchronize(); s = time.perf_counter()
    for _ in range(n): f()
    torch.cuda.synchronize(); print("%-28s %.2f us" % (name, (time.perf_counter() - s) / n * 1e6))
d = _arrays.describe(x)
in_b = _lib.pack_array(d.ptr, d.dtype, d.shape, d.strides)
out = torch.empty((), device="cuda")
out_b = _lib.pack_array(out.data_ptr(), _lib.FLOAT32, (), ())
axes_b = _lib.pack_axes((0,))
lib = _lib.lib
t("abi_version (ctypes floor)", lib.cured_abi_version)
t("describe", lambda: _arrays.describe(x))
t("torch.empty", lambda: torch.empty((), dtype=torch.float32, device=x.device))
t("pack_array", lambda: _lib.pack_array(d.ptr, d.dtype, d.shape, d.strides))
t("cured_reduce (C + launch)", lambda: lib.cured_reduce(_lib.SUM, in_b, axes_b, 1, out_b, None, d.stream, None))
t("cured.sum", lambda: cured.sum(x))
t("torch.sum", lambda: torch.sum(x))
t("torch.sum out=", lambda: torch.sum(x, dim=0, out=out))
y = torch.rand(64, 16, device="cuda")
t("cured.sum dim=1 64x16", lambda: cured.sum(y, dim=1))
t("torch.sum dim=1 64x16", lambda: torch.sum(y, dim=1))
