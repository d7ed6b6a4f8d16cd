"""cured's one-pass statistics on a CUDA device against torch: along axes of every shape and dim
of the device tests, for every element type, with NaN, infinities, empty and huge inputs, and per
segment.

    PYTHONPATH=<build>/python python3 -m pytest -q python/tests/test_statistics.py

The reference of each output is torch's own function in float64 on the output's elements
(the kept axes first, the reduced ones flattened after them), so that the comparison is of
cured's float32 result with the exact one, within the method's error bound.
"""

import itertools
import math
import random
import unittest

from test_device import _SHAPES, DeviceCase, _Checks, _dims, _dt, _same, cured, torch

# The statistics of the library's table: the floating ones (float32 results, float64 for float64)
# and those of any element type; the element types (none where cured is not importable: every
# class skips then).
_lib = cured._lib if cured else None
_FLOATING = tuple(r.name for r in _lib.STATISTICS if r.result == _lib.RESULT_MOMENT) if cured else ()
_ANY_TYPE = tuple(r.name for r in _lib.STATISTICS if r.result != _lib.RESULT_MOMENT) if cured else ()
_DTYPES = _lib.DTYPE_NAMES if cured else ()


def _rows(x, dims):
    """x as (kept elements, reduced elements): the kept axes in order, then the reduced ones."""
    rank = x.dim()
    axes = tuple(range(rank)) if dims is None else tuple(sorted(d % max(rank, 1) for d in
                                                                 ((dims,) if isinstance(dims, int) else dims)))
    if rank == 0:
        return x.reshape(1, 1), ()
    kept = [d for d in range(rank) if d not in axes]
    rows = math.prod(x.shape[d] for d in kept)
    return x.permute(kept + list(axes)).reshape(rows, math.prod(x.shape[d] for d in axes)), axes


def _out(shape, axes, keepdim):
    return tuple(1 if k in axes else e for k, e in enumerate(shape) if keepdim or k not in axes)


def _wanted(name, x, dims, keepdim, param):
    """The exact result (float64, or the output's type for aminmax and the counts) of cured.name."""
    m, axes = _rows(x, dims)
    shape = _out(tuple(x.shape), axes, keepdim)
    w = m.double() if x.is_floating_point() else m
    if name == "mean":
        r = w.mean(dim=1)
    elif name in ("var", "std", "var_mean", "std_mean"):
        # torch's Welford on the device: its mean is NaN once an infinity meets another value.
        if m.shape[1]:
            v, mu = torch.var_mean(w, dim=1, correction=param)
        else:
            v = mu = torch.full((m.shape[0],), math.nan, dtype=w.dtype, device=w.device)
        # The variance rounded to the result type before its root: it overflows there, as torch's does.
        v = v if name.startswith("var") else v.to(_type_of(name, x)).double().sqrt()
        r = (v, mu) if "_" in name else v
    elif name == "vector_norm":  # torch has no inf-norm of nothing: cured's is 0, as the others'
        r = torch.linalg.vector_norm(w, ord=param, dim=1) if m.shape[1] else w.new_zeros(m.shape[0])
    elif name == "logsumexp":
        r = torch.logsumexp(w, dim=1)
    elif name == "aminmax":
        if m.shape[1]:
            r = (m.amin(dim=1), m.amax(dim=1)) if m.dtype != torch.bool else (m.all(dim=1), m.any(dim=1))
        else:
            top = True if m.dtype == torch.bool else math.inf if m.is_floating_point() else torch.iinfo(m.dtype).max
            low = False if m.dtype == torch.bool else -math.inf if m.is_floating_point() else torch.iinfo(m.dtype).min
            r = (torch.full((m.shape[0],), top, dtype=m.dtype, device=m.device),
                 torch.full((m.shape[0],), low, dtype=m.dtype, device=m.device))
    elif name == "count_nonzero":
        r = torch.count_nonzero(m, dim=1)
    else:
        r = getattr(torch, name)(m, dim=1)
    return tuple(p.reshape(shape) for p in r) if isinstance(r, tuple) else r.reshape(shape)


def _type_of(name, x):
    if name in _FLOATING:
        return torch.float64 if x.dtype == torch.float64 else torch.float32
    return {"aminmax": x.dtype, "count_nonzero": torch.int64}.get(name, torch.bool)


def _tolerance(name, x, reduced):
    """(rtol, atol) of the result against the exact one: a few units of the result type's roundoff
    times the depth of the combinations, and the absolute error of logsumexp's exponentials."""
    if name not in _FLOATING:
        return 0.0, 0.0
    u = 2.0 ** -53 if x.dtype == torch.float64 else 2.0 ** -24
    k = 8 * (32 + math.log2(reduced + 2)) * u
    if name.startswith("var") or name.startswith("std"):
        return 4 * k, 4 * k
    return (k, k + (2.0 ** -20 if name == "logsumexp" and x.dtype != torch.float64 else 0.0))


def _check(name, x, dims, keepdim, param, what):
    kw = {"correction": param} if name in ("var", "std", "var_mean", "std_mean") else {}
    kw = {"ord": param} if name == "vector_norm" else kw
    call = getattr(cured, name)
    got = call(x, dim=dims, keepdim=keepdim, **kw)
    want = _wanted(name, x, dims, keepdim, param)
    reduced = max(_rows(x, dims)[0].shape[1], 1)
    rtol, atol = _tolerance(name, x, reduced)
    _same_parts(got, want, _type_of(name, x), what, rtol, atol)


def _same_parts(got, want, t, what, rtol, atol):
    """got (a result, or a pair) against the exact want rounded to the output type t."""
    pairs = list(zip(got, want, (" (first part)", " (second part)"))) if isinstance(want, tuple) else [(got, want, "")]
    if isinstance(want, tuple) and (not isinstance(got, tuple) or len(got) != 2):
        raise AssertionError("%s: not a pair" % what)
    for g, w, part in pairs:
        if g.dtype != t:
            raise AssertionError("%s%s: %s, not %s" % (what, part, g.dtype, t))
        w = w.to(t)
        if t.is_floating_point:
            g, w = g.double(), w.double()
        _same(g, w, what + part, rtol, atol)


def _params(name):
    return {"var": (0, 1), "std": (1,), "var_mean": (1, 2.5), "std_mean": (0,),
            "vector_norm": (1, 2, math.inf)}.get(name, (0,))


class AxesTest(DeviceCase):
    def test_every_shape_and_dim(self):
        checks = _Checks(self)
        for shape in _SHAPES:
            x = torch.randn(shape, device="cuda") * 3 + 1
            for dims, keepdim, name in itertools.product(_dims(len(shape)), (False, True), _FLOATING + _ANY_TYPE):
                for param in _params(name):
                    what = "%s(float32 %s, dim=%r, keepdim=%r, %r)" % (name, shape, dims, keepdim, param)
                    checks.run(what, _check, name, x, dims, keepdim, param, what)
        checks.done()

    def test_every_element_type(self):
        checks = _Checks(self)
        for dtype, shape in itertools.product(_DTYPES, ((33, 17), (1000,), (3, 4096))):
            x = torch.randint(-3, 4, shape, device="cuda")
            x = (x > 0) if dtype == "bool" else x.abs().to(_dt(dtype)) if dtype == "uint8" else x.to(_dt(dtype))
            if x.is_floating_point():
                x = x + torch.rand(shape, device="cuda").to(x.dtype) * (x != 0)
            for dims, name in itertools.product((None, 0, -1), _FLOATING + _ANY_TYPE):
                if name in _FLOATING and not x.is_floating_point():
                    continue
                for param in _params(name):
                    what = "%s(%s %s, dim=%r, %r)" % (name, dtype, shape, dims, param)
                    checks.run(what, _check, name, x, dims, False, param, what)
        for name in _FLOATING:
            with self.assertRaises(TypeError, msg=name + " of int32"):
                getattr(cured, name)(torch.ones(4, dtype=torch.int32, device="cuda"))
        checks.done()

    def test_special_values(self):
        inf, nan = math.inf, math.nan
        rows = torch.tensor([[1.0, nan, 3.0, 4.0], [-inf, -inf, -inf, -inf], [1.0, inf, -2.0, 0.0],
                             [0.0, -0.0, 0.0, 0.0], [3e30, 4e30, 0.0, 0.0], [3e-30, 4e-30, 0.0, -0.0]], device="cuda")
        checks = _Checks(self)
        for name in _FLOATING + _ANY_TYPE:
            for param in _params(name):
                what = "%s(special rows, dim=1, %r)" % (name, param)
                checks.run(what, _check, name, rows, 1, False, param, what)
        checks.done()
        self.assertAlmostEqual(cured.vector_norm(torch.tensor([3e30, 4e30], device="cuda")).item() / 5e30, 1.0, 6)
        self.assertEqual(cured.var(torch.full((1000,), 1e4, device="cuda")).item(), 0.0, "var of a constant")
        self.assertTrue(math.isnan(cured.var(torch.ones(1, device="cuda")).item()), "var of one element, ddof 1")
        with self.assertRaisesRegex(ValueError, "1, 2 or inf"):
            cured.vector_norm(rows, ord=3)
        with self.assertRaisesRegex(ValueError, "ddof"):
            cured.var(rows, correction=-1)

    def test_views_and_cupy(self):
        x = torch.randn(64, 96, device="cuda")
        checks = _Checks(self)
        for label, v in (("transposed", x.t()), ("every other column", x[:, ::2]), ("broadcast", x[:1].expand(50, 96))):
            for name in ("var_mean", "logsumexp", "aminmax"):
                what = "%s(%s, dim=1)" % (name, label)
                checks.run(what, _check, name, v, 1, False, 1 if name == "var_mean" else 0, what)
        checks.done()
        try:
            import cupy
        except Exception as e:  # noqa: BLE001
            self.skipTest("cupy is not importable (%s)" % e)
        a = cupy.asarray(x)
        var, mean = cured.var_mean(a, dim=0)
        self.assertIsInstance(var, cupy.ndarray)
        _same(torch.as_tensor(mean, device="cuda"), x.mean(dim=0), "var_mean of a CuPy array, the mean", 1e-5, 1e-5)


class SegmentTest(DeviceCase):
    def test_segments(self):
        rng = random.Random(11)
        n, count = 50_000, 60
        cuts = sorted(rng.randint(0, n) for _ in range(count))
        for k in rng.sample(range(1, count), 6):
            cuts[k] = cuts[k - 1]
        offsets = [0, 0] + cuts + [n]
        o = torch.tensor(offsets, dtype=torch.int64, device="cuda")
        checks = _Checks(self)
        for dtype in ("int32", "int64", "float16", "bfloat16", "float32", "float64", "uint8", "bool"):
            x = torch.randint(-3, 4, (n,), device="cuda")
            x = (x > 0) if dtype == "bool" else x.abs().to(_dt(dtype)) if dtype == "uint8" else x.to(_dt(dtype))
            for name in _FLOATING + _ANY_TYPE:
                if (name in _FLOATING and not x.is_floating_point()) or (name == "aminmax" and dtype in ("uint8", "bool")):
                    continue
                for param, check in itertools.product(_params(name), (True, False)):
                    what = "segment_%s(%s, %d segments, %r, check=%r)" % (name, dtype, count + 2, param, check)
                    checks.run(what, self._compare, name, x, offsets, o, param, check, what)
        checks.done()

    @staticmethod
    def _compare(name, x, offsets, o, param, check, what):
        kw = {"correction": param} if name in ("var", "std", "var_mean", "std_mean") else {}
        kw = {"ord": param} if name == "vector_norm" else kw
        got = getattr(cured, "segment_" + name)(x, o, check=check, **kw)
        parts = [_wanted(name, x[a:b], None, False, param) for a, b in zip(offsets[:-1], offsets[1:])]
        rtol, atol = _tolerance(name, x, len(x))
        want = tuple(torch.stack([p[i] for p in parts]) for i in range(2)) if isinstance(parts[0], tuple) \
            else torch.stack(parts)
        _same_parts(got, want, _type_of(name, x), what, rtol, atol)

    def test_bad_offsets(self):
        v = torch.ones(100, device="cuda")
        with self.assertRaisesRegex(ValueError, "offset"):
            cured.segment_var_mean(v, torch.tensor([0, 50, 20, 100], device="cuda"))
        with self.assertRaises(TypeError):
            cured.segment_aminmax(v.to(torch.int8), torch.tensor([0, 100], device="cuda"))


class BigTest(DeviceCase):
    def test_more_than_2_32_elements(self):
        n = (1 << 32) + 3
        if torch.cuda.mem_get_info()[0] < 6 << 30:
            self.skipTest("needs 6 GiB of free GPU memory")
        x = torch.ones(n, dtype=torch.bool, device="cuda")
        x[n - 1] = False
        self.assertEqual(cured.count_nonzero(x).item(), n - 1, "count_nonzero of 2^32 + 3 bools")
        self.assertFalse(cured.all(x).item())
        lo, hi = cured.aminmax(x.view(torch.uint8))
        self.assertEqual((lo.item(), hi.item()), (0, 1))
        del x
        torch.cuda.empty_cache()


if __name__ == "__main__":
    unittest.main()
