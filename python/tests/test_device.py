"""cured on a CUDA device against torch (the reference), CuPy, Numba and DLPack.

    PYTHONPATH=<build>/python python3 -m pytest -q python/tests/test_device.py

Every class skips without torch, a CUDA device, or an importable cured (its shared library not
built); CURED_REQUIRE_DEVICE=1 makes those errors, so that a broken build cannot pass as skips.
The CuPy and Numba tests skip without those. Loops of cases report all their failures at once.
"""

import importlib
import itertools
import math
import os
import random
import unittest


def _try_import(name):
    try:
        return importlib.import_module(name), None
    except Exception as e:  # noqa: BLE001 - any failure to import means: not here
        return None, "%s is not importable (%s: %s)" % (name, type(e).__name__, e)


torch, _TORCH_ERROR = _try_import("torch")
cured, _CURED_ERROR = _try_import("cured")
cupy, _CUPY_ERROR = _try_import("cupy")
numba_cuda, _NUMBA_ERROR = _try_import("numba.cuda")

_OPS = ("sum", "amin", "amax", "argmin", "argmax", "exact_sum")
_ARGS = ("argmin", "argmax")
_EXTREMA = ("amin", "amax", "argmin", "argmax")
# The element types of the library's table, the floating ones, and those the segments take (none
# where cured is not importable: every class skips then).
_DTYPES = cured._lib.DTYPE_NAMES if cured else ()
_FLOATS = tuple(r.name for r in cured._lib.DTYPES if r.code in cured._lib.FLOATING) if cured else ()
_SEGMENT_DTYPES = tuple(r.name for r in cured._lib.DTYPES if r.segments) if cured else ()
_SHAPES = [(1,), (7,), (1000,), (33, 17), (4096, 3), (3, 4096), (5, 6, 7), (2, 3, 4, 5), (64, 1, 129), (0, 5), (5, 0),
           ()]


class DeviceCase(unittest.TestCase):
    """Skips the class without torch, a CUDA device or cured."""

    @classmethod
    def setUpClass(cls):
        reason = _TORCH_ERROR or (None if torch.cuda.is_available() else "torch.cuda.is_available() is False")
        reason = reason or _CURED_ERROR
        if reason:
            if os.environ.get("CURED_REQUIRE_DEVICE"):
                raise RuntimeError("cured device tests cannot run: " + reason)
            raise unittest.SkipTest(reason)
        torch.manual_seed(0)


class _Checks:
    """Runs many checks, keeps going past failures, and fails once with all of them."""

    def __init__(self, case):
        self.case, self.failures, self.count = case, [], 0

    def run(self, what, fn, *args):
        self.count += 1
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - a mismatch, or an error from cured on a valid call
            self.failures.append("%s -> %s: %s" % (what, type(e).__name__, str(e).strip()[:700]))

    def done(self):
        if self.failures:
            self.case.fail("%d of %d checks failed:\n%s" % (len(self.failures), self.count, "\n".join(self.failures[:25])))


def _dt(name):
    return getattr(torch, name)


def _same(got, want, what, rtol=0.0, atol=0.0):
    """Same type, dtype, device, shape and values (NaN equal to NaN)."""
    if not isinstance(got, torch.Tensor):
        raise AssertionError("%s: the result is a %s, not a torch.Tensor" % (what, type(got).__name__))
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: "%s\n%s" % (what, m))


def _out_shape(shape, dim, keepdim):
    rank = len(shape)
    if rank == 0:
        return ()
    axes = set(range(rank)) if dim is None else {d % rank for d in ((dim,) if isinstance(dim, int) else dim)}
    return tuple(1 if k in axes else e for k, e in enumerate(shape) if keepdim or k not in axes)


def _identity(op, dtype, shape):
    """cured's result of amin, amax, argmin or argmax over no elements."""
    if op in _ARGS:
        return torch.full(shape, -1, dtype=torch.int64, device="cuda")
    low = op == "amin"  # amin's identity is the type's top
    value = low if dtype == torch.bool else (math.inf if low else -math.inf) if dtype.is_floating_point \
        else torch.iinfo(dtype).max if low else torch.iinfo(dtype).min
    return torch.full(shape, value, dtype=dtype, device="cuda")


def _reference(op, x, dim, keepdim, dtype=None):
    """torch's result (exact_sum: torch.sum in float64 rounded to cured's type; bool through
    uint8 where torch takes no bool), or None where torch rejects it (extrema of no elements)."""
    t = x.to(torch.uint8) if x.dtype == torch.bool and op in _EXTREMA else x
    t = t.double() if op == "exact_sum" and t.is_floating_point() else t
    fn = torch.sum if op in ("sum", "exact_sum") else getattr(torch, op)
    kw = {} if dtype is None else {"dtype": dtype}
    try:
        if op in _ARGS:
            r = fn(t, dim=dim, keepdim=keepdim)
        elif dim is None:
            r = fn(t, **kw) if t.dim() == 0 else fn(t, dim=tuple(range(t.dim())), keepdim=keepdim, **kw)
        else:
            r = fn(t, dim=dim, keepdim=keepdim, **kw)
    except (RuntimeError, IndexError, ValueError):
        if x.numel():
            raise
        return None
    if op == "exact_sum" and x.is_floating_point():
        r = r.to(torch.float64 if x.dtype == torch.float64 else torch.float32)
    return r.bool() if x.dtype == torch.bool and op in ("amin", "amax") else r


def _compare(op, x, dim, keepdim, what, rtol=0.0, atol=0.0):
    got = getattr(cured, op)(x, dim=dim, keepdim=keepdim)
    want = _reference(op, x, dim, keepdim)
    if want is None:
        want = _identity(op, x.dtype, _out_shape(tuple(x.shape), dim, keepdim))
        what += " [torch rejects it: the identity expected]"
    if op in _ARGS:
        rtol = atol = 0.0
    _same(got, want, what, rtol, atol)


def _dims(rank):
    """None, every dim (and negative), every pair, (-1, 0), and all dims as a tuple."""
    if rank == 0:
        return [None, 0, -1]
    dims = [None] + list(range(rank)) + list(range(-rank, 0)) + list(itertools.combinations(range(rank), 2))
    return dims + [(-1, 0)] * (rank >= 2) + [tuple(range(rank))] * (rank >= 3)


def _small_ints(shape, dtype, lo=-3, hi=4):
    """Small integers: exact sums in every type, many ties."""
    lo, hi = (0, 2) if dtype == torch.bool else (0, hi - lo) if dtype == torch.uint8 else (lo, hi)
    return torch.randint(lo, hi, shape, device="cuda").to(dtype)


def _distinct(shape, dtype):
    """A permutation of consecutive integers, exact in dtype: no ties."""
    n = math.prod(shape)
    lo = 0 if dtype in (torch.bool, torch.uint8) else -(n // 2)
    return (torch.randperm(n, device="cuda") + lo).to(dtype).reshape(shape)


class AxesTest(DeviceCase):
    def _run(self, data, label, tolerances):
        checks = _Checks(self)
        for shape in _SHAPES:
            x = data(shape)
            for dim, keepdim, op in itertools.product(_dims(len(shape)), (False, True), _OPS):
                if op in _ARGS and isinstance(dim, tuple):
                    continue
                what = "%s(%s %s, dim=%r, keepdim=%r)" % (op, label, shape, dim, keepdim)
                rtol, atol = tolerances.get(op, (0.0, 0.0))
                checks.run(what, _compare, op, x, dim, keepdim, what, rtol, atol * math.sqrt(x.numel() + 1))
        checks.done()

    def test_small_integers_exact(self):
        self._run(lambda s: torch.randint(-8, 9, s, device="cuda").float(), "float32 small integers", {})

    def test_random_floats(self):
        self._run(lambda s: torch.randn(s, device="cuda"), "float32 randn",
                  {"sum": (1e-5, 1e-5), "exact_sum": (2.4e-7, 1e-10)})

    def test_arg_over_tuple_of_dims(self):
        """The row-major flat index over the reduced dims: argmax of the permuted, reshaped tensor."""
        checks = _Checks(self)
        for label, x in (("distinct", _distinct((5, 6, 7), torch.float32)), ("ties", _small_ints((5, 6, 7), torch.float32))):
            for dims, keepdim, op in itertools.product([(0, 2), (2, 0), (-1, 0), (1, 2), (0, 1), (0, 1, 2)],
                                                       (False, True), _ARGS):
                axes = sorted(d % 3 for d in dims)
                kept = [d for d in range(3) if d not in axes]
                flat = x.permute(kept + axes).reshape([x.shape[d] for d in kept] + [-1])
                want = getattr(torch, op)(flat, dim=-1).reshape(_out_shape(x.shape, dims, keepdim))
                what = "%s(%s (5, 6, 7), dim=%r, keepdim=%r)" % (op, label, dims, keepdim)
                checks.run(what, lambda: _same(getattr(cured, op)(x, dim=dims, keepdim=keepdim), want, what))
        checks.done()


class ElementTypeTest(DeviceCase):
    def test_every_type(self):
        """Small integers (exact sums, ties: the first index) and distinct values; result dtypes as torch's."""
        distinct_shape = {"bool": (1, 2), "int8": (8, 30), "uint8": (8, 30), "int16": (100, 600), "float16": (32, 64),
                          "bfloat16": (16, 32)}
        checks = _Checks(self)
        for name in _DTYPES:
            x = _small_ints((300, 1000), _dt(name))
            for dim, op in itertools.product((None, 0, 1, -1, (0, 1)), _OPS):
                if not (op in _ARGS and isinstance(dim, tuple)):
                    what = "%s(%s (300, 1000) small integers, dim=%r)" % (op, name, dim)
                    checks.run(what, _compare, op, x, dim, False, what)
            x = _distinct(distinct_shape.get(name, (500, 2000)), _dt(name))
            for dim, op in itertools.product((None, 0, 1), _EXTREMA):
                what = "%s(%s %s distinct values, dim=%r)" % (op, name, tuple(x.shape), dim)
                checks.run(what, _compare, op, x, dim, False, what)
        checks.done()

    def test_random_floats(self):
        checks = _Checks(self)
        tol = {"float16": 1e-2, "bfloat16": 1e-2, "float32": 1e-5, "float64": 1e-12}
        for name in _FLOATS:
            x = (torch.rand((300, 1000), device="cuda", dtype=torch.float64) * 2 - 1).to(_dt(name))
            exact_tol = (1e-15, 1e-12) if name == "float64" else (2.4e-7, 1e-10)
            for dim in (None, 0, 1):
                n = x.numel() if dim is None else x.shape[dim]
                what = "%%s(%s (300, 1000) uniform(-1, 1), dim=%r)" % (name, dim)
                checks.run(what % "sum", _compare, "sum", x, dim, False, what % "sum", tol[name], tol[name] * math.sqrt(n))
                checks.run(what % "exact_sum", _compare, "exact_sum", x, dim, False, what % "exact_sum", *exact_tol)
        checks.done()

    def test_dtype_argument(self):
        checks = _Checks(self)
        for src, dst in (("float16", "float32"), ("bfloat16", "float32"), ("float32", "float64"),
                         ("float32", "float32"), ("int32", "int64")):
            x = _small_ints((300, 1000), _dt(src))
            for dim in (None, 1):
                what = "sum(%s (300, 1000), dim=%r, dtype=torch.%s)" % (src, dim, dst)
                checks.run(what, lambda: _same(cured.sum(x, dim=dim, dtype=_dt(dst)),
                                               _reference("sum", x, dim, False, dtype=_dt(dst)), what))
        h = torch.rand((300, 1000), device="cuda").half()
        what = "sum(float16 (300, 1000) uniform, dim=1, dtype=torch.float32)"
        checks.run(what, lambda: _same(cured.sum(h, dim=1, dtype=torch.float32),
                                       torch.sum(h, dim=1, dtype=torch.float32), what, 1e-5, 1e-4))
        checks.done()
        with self.assertRaises(TypeError, msg="sum(float32, dtype=torch.float16)"):
            cured.sum(torch.ones(10, device="cuda"), dtype=torch.float16)

    def test_nan_and_inf(self):
        """NaN propagates through amin and amax and wins argmin and argmax (the first NaN), as in torch."""
        checks = _Checks(self)
        for name in _FLOATS:
            x = torch.randn(8, 300, device="cuda").to(_dt(name))
            x[1, 5] = x[1, 9] = math.inf
            x[3, 7] = -math.inf
            x[2, 17] = x[2, 100] = x[5, 0] = x[7, 299] = math.nan
            for dim, op in itertools.product((None, 0, 1), _EXTREMA):
                what = "%s(%s (8, 300) with NaN and inf, dim=%r)" % (op, name, dim)
                checks.run(what, _compare, op, x, dim, False, what)
            what = "%s (8, 300), NaN at [2, 17], [2, 100], [5, 0], [7, 299], inf at [1, 5], [1, 9], -inf at [3, 7]: " \
                   "argmax, argmin, argmax(dim=1)[2], argmax(dim=1)[1], argmin(dim=1)[3], amax is NaN" % name
            checks.run(what, lambda: self.assertEqual(
                [cured.argmax(x).item(), cured.argmin(x).item(), cured.argmax(x, dim=1)[2].item(),
                 cured.argmax(x, dim=1)[1].item(), cured.argmin(x, dim=1)[3].item(), math.isnan(cured.amax(x).item())],
                [617, 617, 17, 5, 7, True], what))
        checks.done()


class ExactSumTest(DeviceCase):
    def test_correctly_rounded(self):
        """The exact sum rounded once (against math.fsum), the same bits for any order."""
        n = 1 << 20
        wide = torch.randn(n, device="cuda") * torch.exp2(torch.randint(-40, 40, (n,), device="cuda").float())
        mid = torch.randn(n, device="cuda") * torch.exp2(torch.randint(-10, 10, (n,), device="cuda").float())
        checks = _Checks(self)
        for label, v in (("float32 wide range", wide), ("float64 wide range", wide.double() * math.pi),
                         ("float32 cancelling", torch.cat([wide, torch.randn(1000, device="cuda"), -wide.flip(0)])),
                         ("float16", mid.half()), ("bfloat16", (mid * 1e10).bfloat16())):
            out = torch.float64 if v.dtype == torch.float64 else torch.float32
            what = "exact_sum(%s, n=%d) against math.fsum" % (label, v.numel())
            want = torch.tensor(math.fsum(v.double().cpu().tolist()), dtype=out, device="cuda")
            checks.run(what, lambda: _same(cured.exact_sum(v), want, what))
            what = "exact_sum(%s) of a permutation: the same bits" % label
            checks.run(what, lambda: _same(cured.exact_sum(v[torch.randperm(v.numel(), device="cuda")]),
                                           cured.exact_sum(v), what))
        m = torch.randn(64, 4096, device="cuda") * torch.exp2(torch.randint(-30, 30, (64, 4096), device="cuda").float())
        for dim in (0, 1):
            rows = (m if dim == 1 else m.t()).double().cpu().tolist()
            want = torch.tensor([math.fsum(r) for r in rows], dtype=torch.float32, device="cuda")
            what = "exact_sum(float32 (64, 4096) wide range, dim=%d) against math.fsum" % dim
            checks.run(what, lambda: _same(cured.exact_sum(m, dim=dim), want, what))
        checks.done()


class ViewTest(DeviceCase):
    def test_strided_views(self):
        def ints(*shape):
            return torch.randint(-8, 9, shape, device="cuda").float()
        x = ints(257, 1031)
        views = {"x.t()": x.t(), "x[:, ::3]": x[:, ::3], "x[::2]": x[::2], "x[1::3, 5::7]": x[1::3, 5::7],
                 "x[5:, 7:]": x[5:, 7:], "x.t()[::3]": x.t()[::3], "flat[3:]": x.reshape(-1)[3:],
                 "flat[1::2]": x.reshape(-1)[1::2], "(1, 500).expand(300, 500)": ints(1, 500).expand(300, 500),
                 "(300, 1).expand(300, 500)": ints(300, 1).expand(300, 500),
                 "(4, 1, 6).expand(4, 5, 6)": ints(4, 1, 6).expand(4, 5, 6),
                 "(6, 7, 8, 9).permute(2, 0, 3, 1)": ints(6, 7, 8, 9).permute(2, 0, 3, 1)}
        for name in ("int8", "float16", "float64"):  # unaligned starts
            y = _small_ints((129, 515), _dt(name))
            views.update({name + "[1:, 1:]": y[1:, 1:], name + "[:, 3::2]": y[:, 3::2],
                          name + " flat[1:]": y.reshape(-1)[1:], name + ".t()[1:]": y.t()[1:]})
        checks = _Checks(self)
        for name, v in views.items():
            for dim, op in itertools.product(_dims(v.dim()), _OPS):
                if not (op in _ARGS and isinstance(dim, tuple)):
                    what = "%s(%s: shape %s, strides %s, dim=%r, keepdim=%r)" % (
                        op, name, tuple(v.shape), v.stride(), dim, dim == 0)
                    checks.run(what, _compare, op, v, dim, dim == 0, what)
        checks.done()

    def test_no_copy(self):
        """A view is read where it lies: torch's peak memory grows by the output only."""
        x = torch.randn(2048, 1024, device="cuda")
        for name, v in (("x.t()", x.t()), ("x[:, ::2]", x[:, ::2]), ("x[::2].t()", x[::2].t())):
            torch.cuda.synchronize()
            before = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            out = cured.sum(v, dim=0)
            grown = torch.cuda.max_memory_allocated() - before
            self.assertLess(grown, v.numel() * v.element_size() // 4, "sum(%s, dim=0) allocated %d bytes" % (name, grown))
            _same(out, torch.sum(v, dim=0), "sum(%s, dim=0)" % name, 1e-5, 1e-4)


class StreamGraphTest(DeviceCase):
    @staticmethod
    def _delay():
        """Keeps the current stream busy for tens of milliseconds."""
        if hasattr(torch.cuda, "_sleep"):
            return torch.cuda._sleep(50_000_000)
        a = torch.randn(4096, 4096, device="cuda")
        for _ in range(20):
            torch.mm(a, a)

    def test_side_stream(self):
        n = 1 << 22
        x = torch.zeros(n, dtype=torch.int32, device="cuda")
        torch.cuda.synchronize()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            self._delay()
            x.fill_(2)
            y, m = cured.sum(x), cured.amax(x, dim=0)
        s.synchronize()
        self.assertEqual((y.item(), m.item()), (2 * n, 2), "sum, amax on a side stream after a delayed fill there")

    def test_ordered_after_current_stream(self):
        n = 1 << 22
        x = torch.empty(n, dtype=torch.int32, device="cuda")
        self._delay()
        x.fill_(3)
        y = cured.sum(x)
        z = y * 2 + cured.argmin(x - torch.arange(n, device="cuda", dtype=torch.int32))
        self.assertEqual(z.item(), 6 * n + n - 1, "sum, argmin after a delayed fill on the current stream")

    def _warm_up(self, calls):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                calls()
        torch.cuda.current_stream().wait_stream(s)
        return s

    def test_graph_capture_sum(self):
        """As torch's documentation captures: warm-up on a side stream, capture on torch's stream."""
        x = torch.randn(64, 1000, device="cuda")
        self._warm_up(lambda: cured.sum(x, dim=1))
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = cured.sum(x, dim=1)
        for k in range(3):
            new = torch.randn(64, 1000, device="cuda")
            x.copy_(new)
            g.replay()
            torch.cuda.synchronize()
            _same(y, torch.sum(new, dim=1), "graph replay %d of sum(x (64, 1000), dim=1)" % k, 1e-5, 1e-4)

    def test_graph_capture_other_ops(self):
        """Several ops captured on the stream they were warmed up on."""
        x = torch.randint(-8, 9, (300, 700), device="cuda").float()
        calls = (("sum", None), ("amax", 0), ("argmax", 1), ("argmin", None), ("exact_sum", 1))
        s = self._warm_up(lambda: [getattr(cured, op)(x, dim=dim) for op, dim in calls])
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            outs = [getattr(cured, op)(x, dim=dim) for op, dim in calls]
        for k in range(2):
            new = torch.randint(-8, 9, (300, 700), device="cuda").float()  # exact sums, ties
            x.copy_(new)
            g.replay()
            torch.cuda.synchronize()
            for (op, dim), out in zip(calls, outs):
                _same(out, _reference(op, new, dim, False), "graph replay %d of %s(x (300, 700), dim=%r)" % (k, op, dim))


class _CAIOnly:
    def __init__(self, t):
        self.t, self.__cuda_array_interface__ = t, t.__cuda_array_interface__


class _DLPackOnly:
    def __init__(self, t):
        self.t = t

    def __dlpack__(self, *args, **kwargs):
        return self.t.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


class InteropTest(DeviceCase):
    def _check(self, wrap, label, with_bf16=True):
        t = torch.randint(-8, 9, (300, 500), device="cuda").float()
        tensors = [("float32", t), ("float32.t()", t.t()), ("float32[:, ::3]", t[:, ::3])]
        tensors += [("bfloat16", torch.randint(-4, 5, (64, 16), device="cuda").bfloat16())] * with_bf16
        checks = _Checks(self)
        for (name, t), dim, op in itertools.product(tensors, (None, 0, 1), ("sum", "amax", "argmax")):
            what = "%s(%s of %s %s, strides %s, dim=%r)" % (op, label, name, tuple(t.shape), t.stride(), dim)
            checks.run(what, lambda: _same(getattr(cured, op)(wrap(t), dim=dim), _reference(op, t, dim, False), what))
        checks.done()

    def test_dlpack_only(self):
        self._check(_DLPackOnly, "an object with only __dlpack__")

    def test_cuda_array_interface_only(self):
        self._check(_CAIOnly, "an object with only __cuda_array_interface__", with_bf16=False)

    def test_numba(self):
        if numba_cuda is None or not numba_cuda.is_available():
            self.skipTest(_NUMBA_ERROR or "numba.cuda.is_available() is False")
        self._check(numba_cuda.as_cuda_array, "numba.cuda.as_cuda_array", with_bf16=False)


class CuPyTest(DeviceCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if cupy is None:
            raise unittest.SkipTest(_CUPY_ERROR)

    def test_cupy_in_cupy_out(self):
        import numpy

        def check(op, ref, a, axis, what, keepdim=False):
            got = getattr(cured, op)(a, dim=axis, keepdim=keepdim)
            want = ref(a, axis=axis, keepdims=True) if keepdim else ref(a, axis=axis)
            self.assertIsInstance(got, cupy.ndarray, what)
            self.assertEqual((got.dtype, got.shape), (want.dtype, want.shape), what)
            numpy.testing.assert_array_equal(cupy.asnumpy(got), cupy.asnumpy(want), err_msg=what)

        x = cupy.random.randint(-8, 9, size=(300, 500)).astype(cupy.float32)
        u = cupy.random.permutation(150000).astype(cupy.float32).reshape(300, 500)
        arrays = (("x", x), ("x[::-1]", x[::-1]), ("x[:, ::-1]", x[:, ::-1]), ("x.T", x.T), ("u", u),
                  ("u[::-1]", u[::-1]), ("u.T[::2]", u.T[::2]))
        refs = (("sum", cupy.sum), ("amin", cupy.amin), ("amax", cupy.amax), ("argmin", cupy.argmin),
                ("argmax", cupy.argmax))
        checks = _Checks(self)
        for (name, a), (op, ref), axis in itertools.product(arrays, refs, (None, 0, 1)):
            if (op in _ARGS and name[0] == "x") or (op == "sum" and name[0] == "u"):
                continue  # args of distinct values (no reliance on CuPy among ties), sums of small integers (exact)
            what = "%s(cupy %s, shape %s, strides %s, dim=%r)" % (op, name, a.shape, a.strides, axis)
            checks.run(what, check, op, ref, a, axis, what)
        what = "sum(cupy int32 (300, 500), dim=1, keepdim=True): int64"
        checks.run(what, check, "sum", lambda a, axis, keepdims: cupy.sum(a, axis=axis, dtype=cupy.int64, keepdims=keepdims),
                   x.astype(cupy.int32), 1, what, True)
        checks.done()


    def test_the_fast_path_as_the_general_one(self):
        import numpy
        x = cupy.random.standard_normal((64, 48), dtype=cupy.float32)
        calls = (lambda a: cured.sum(a, 1), lambda a: cured.amax(a, 0, keepdim=True), lambda a: cured.argmin(a),
                 lambda a: cured.var_mean(a, 1), lambda a: cured.logsumexp(a, (0, 1)),
                 lambda a: cured.exact_sum(a, [0]), lambda a: cured.count_nonzero(a > 0, 1),
                 lambda a: cured.sum(a.astype(cupy.float16), dtype="float32"))
        for k, call in enumerate(calls):
            fast = [call(x), call(x)]  # the second from the kept plan
            kept = cured._cupy_ndarray
            cured._cupy_ndarray = type("NotCuPy", (), {})  # every call takes the general path
            try:
                general = call(x)
            finally:
                cured._cupy_ndarray = kept
            for got in fast:
                for u, v in zip(*((r,) if isinstance(r, cupy.ndarray) else r for r in (got, general))):
                    self.assertIsInstance(u, cupy.ndarray, k)
                    self.assertEqual((u.dtype, u.shape), (v.dtype, v.shape), k)
                    numpy.testing.assert_array_equal(cupy.asnumpy(u), cupy.asnumpy(v), err_msg=str(k))
        cured.sum(x, (1,))  # a kept plan that a dim the checks refuse must not find
        with self.assertRaises(TypeError):
            cured.sum(x, (True,))
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            y = cured.sum(x, 1)
        s.synchronize()
        numpy.testing.assert_allclose(cupy.asnumpy(y), cupy.asnumpy(x.sum(1)), rtol=1e-5, atol=1e-5)
        if cupy.cuda.runtime.getDeviceCount() > 1:
            with cupy.cuda.Device(1):
                z = cupy.arange(1000, dtype=cupy.float32)
            self.assertEqual(int(cured.sum(z).device.id), 1)
            self.assertEqual(float(cured.sum(z)), 499500.0)
            self.assertEqual(cupy.cuda.runtime.getDevice(), 0)


class SegmentTest(DeviceCase):
    @staticmethod
    def _reference(values, offsets):
        """Per segment (offsets: a list): the sum (exact, in float64 or int64), min, max, argmin and
        argmax (within the segment), with the identities of empty segments."""
        floating = values.is_floating_point()
        w = values.cpu().double() if floating else values.cpu().long()
        c = torch.cat([w.new_zeros(1), w.cumsum(0)])
        lo = math.inf if floating else torch.iinfo(values.dtype).max
        hi = -math.inf if floating else torch.iinfo(values.dtype).min
        ext = {"segment_amin": [], "segment_amax": [], "segment_argmin": [], "segment_argmax": []}
        for a, b in zip(offsets[:-1], offsets[1:]):
            s = w[a:b]
            ext["segment_amin"].append(s.min().item() if b > a else lo)
            ext["segment_amax"].append(s.max().item() if b > a else hi)
            ext["segment_argmin"].append(int(torch.argmin(s)) if b > a else -1)
            ext["segment_argmax"].append(int(torch.argmax(s)) if b > a else -1)
        out = {k: torch.tensor(v, dtype=torch.int64 if "arg" in k else values.dtype, device="cuda") for k, v in ext.items()}
        sums = c[torch.tensor(offsets[1:])] - c[torch.tensor(offsets[:-1])]
        out["segment_sum"] = sums.to(values.dtype if floating else torch.int64).cuda()
        if floating:
            out["segment_exact_sum"] = sums.to(torch.float64 if values.dtype == torch.float64 else torch.float32).cuda()
        return out

    def test_segments(self):
        rng = random.Random(7)
        n, count = 200_000, 200
        cuts = sorted(rng.randint(0, n) for _ in range(count))
        for k in rng.sample(range(1, count), count // 10):
            cuts[k] = cuts[k - 1]  # empty segments inside, and at both ends below
        offsets = [0, 0] + cuts + [n, n]
        o = torch.tensor(offsets, dtype=torch.int64, device="cuda")
        checks = _Checks(self)
        for name in _SEGMENT_DTYPES:
            values = _small_ints((n,), _dt(name), -5, 6)
            for (op, want), check in itertools.product(self._reference(values, offsets).items(), (True, False)):
                what = "%s(%s n=%d, %d segments, check=%r)" % (op, name, n, len(offsets) - 1, check)
                checks.run(what, lambda: _same(getattr(cured, op)(values, o, check=check), want, what))
        checks.done()

    def test_empty(self):
        none, o = torch.empty(0, device="cuda"), torch.zeros(3, dtype=torch.int64, device="cuda")
        for op, value in (("segment_sum", 0.0), ("segment_amax", -math.inf), ("segment_amin", math.inf),
                          ("segment_argmax", -1), ("segment_argmin", -1), ("segment_exact_sum", 0.0)):
            got = getattr(cured, op)(none, o)
            _same(got, torch.full((2,), value, device="cuda"), "%s of two empty segments of no values" % op)
        self.assertFalse(bool(torch.signbit(got).any()), "segment_exact_sum of empty segments: +0, not -0")
        got = cured.segment_sum(torch.ones(5, device="cuda"), torch.zeros(1, dtype=torch.int64, device="cuda"))
        self.assertEqual(tuple(got.shape), (0,), "segment_sum with offsets [0]: no segments")

    def test_bad_arguments(self):
        v = torch.ones(100, device="cuda")
        for label, offsets in (("decreasing", [0, 50, 20, 100]), ("last > n", [0, 50, 101]), ("first < 0", [-1, 50, 100])):
            for op in ("segment_sum", "segment_argmax"):
                with self.assertRaises(ValueError, msg="%s with %s offsets" % (op, label)) as cm:
                    getattr(cured, op)(v, torch.tensor(offsets, device="cuda"), check=True)
                self.assertIn("offsets", str(cm.exception), "%s with %s offsets: %s" % (op, label, cm.exception))
        for what, values, offsets in (("int32 offsets", v, torch.tensor([0, 100], dtype=torch.int32, device="cuda")),
                                      ("2-D values", torch.ones(10, 10, device="cuda"), torch.tensor([0, 10], device="cuda")),
                                      ("no offsets", v, torch.empty(0, dtype=torch.int64, device="cuda"))):
            with self.assertRaises(ValueError, msg=what):
                cured.segment_sum(values, offsets)
        with self.assertRaises(TypeError, msg="int8 values (not a segment type)"):
            cured.segment_sum(v.to(torch.int8), torch.tensor([0, 100], device="cuda"))
        _same(cured.segment_sum(v, torch.tensor([0, 40, 100], device="cuda")), torch.tensor([40.0, 60.0], device="cuda"),
              "segment_sum after the failed calls")


class ErrorTest(DeviceCase):
    def test_errors(self):
        x = torch.randn(4, 5, device="cuda")
        with self.assertRaises(TypeError, msg="a CPU tensor"):
            cured.sum(torch.randn(4, 5))
        for dim in (2, -3, (0, 2), (0, 0), (1, -1)):
            with self.assertRaises(ValueError, msg="dim=%r of a (4, 5) tensor" % (dim,)) as cm:
                cured.amax(x, dim=dim)
            self.assertIsInstance(cm.exception, cured.CuredError, "dim=%r: a cured.CuredError" % (dim,))
        for what, call in (("dim=1.5", lambda: cured.argmax(x, dim=1.5)),
                           ("a complex64 tensor", lambda: cured.sum(torch.zeros(3, dtype=torch.complex64, device="cuda"))),
                           ("a Python list", lambda: cured.sum([1.0, 2.0, 3.0]))):
            with self.assertRaises(TypeError, msg=what):
                call()
        with self.assertRaises(ValueError, msg="a tensor of 9 axes"):
            cured.sum(torch.ones((1,) * 9, device="cuda"))
        _same(cured.sum(x, dim=1), torch.sum(x, dim=1), "sum(x, dim=1) after the failed calls", 1e-5, 1e-5)


class BigTest(DeviceCase):
    def test_more_than_2_31_elements(self):
        n = (1 << 31) + 5
        if torch.cuda.mem_get_info()[0] < 8 << 30:
            self.skipTest("needs 8 GiB of free GPU memory")
        x = torch.ones(n, dtype=torch.int8, device="cuda")
        self.assertEqual(cured.sum(x).item(), n, "sum of 2^31 + 5 int8 ones")
        x[n - 2], x[7] = 2, 0
        self.assertEqual((cured.argmax(x).item(), cured.argmin(x).item()), (n - 2, 7), "argmax, argmin of 2^31 + 5 int8")
        del x
        h = torch.ones(n, dtype=torch.float16, device="cuda")
        self.assertEqual(cured.exact_sum(h).item(), float(1 << 31), "exact_sum of 2^31 + 5 float16 ones, as float32")
        del h
        torch.cuda.empty_cache()


if __name__ == "__main__":
    unittest.main()
