"""Every combination the library's tables allow, called through Python on a CUDA device: each op
of every element type and requested type that RESULT_DTYPES allows (along axes) and
SEGMENT_RESULT_DTYPES allows (per segment), each statistic of every type that STATISTIC_DTYPES
and SEGMENT_STATISTIC_DTYPES allow, with the output type the map says and a value against
torch's in float64; every combination they do not allow raises TypeError.

    PYTHONPATH=<build>/python python3 -m pytest -q python/tests/test_table.py

Skips, with the reason, without torch, a CUDA device or an importable cured (as test_device).
"""

import inspect
import itertools

from test_device import DeviceCase, _Checks, cured, torch

# The Python function of each op row, where its name is not the row's (torch's amin and amax).
_FUNCTION = {"min": "amin", "max": "amax"}
_SHAPE = (4, 6)
_DIMS = (None, 1)
# Segments of 20 values, none empty (the identities of empty ones are test_device's).
_OFFSETS = (0, 3, 4, 11, 20)
_TOLERANCE = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-5, "float64": 1e-12}


def _lib():
    return cured._lib


def _values(shape, name):
    """Small values exact in every type: 0 and 1 for bool, 0..6 for uint8, -3..3 otherwise, in
    quarters for the floating types (so that means and variances are not whole)."""
    t = getattr(torch, name)
    if name == "bool":
        return torch.randint(0, 2, shape, device="cuda").bool()
    if name == "uint8":
        return torch.randint(0, 7, shape, device="cuda").to(t)
    x = torch.randint(-3, 4, shape, device="cuda")
    return (x * 0.25).to(t) if t.is_floating_point else x.to(t)


def _op_reference(name, w, dim):
    """op `name` (the table's) of the float64 tensor w along dim (None: every axis, flattened)."""
    if name in ("sum", "exact_sum"):
        return w.sum() if dim is None else w.sum(dim=dim)
    if name in ("min", "max"):
        fn = torch.amin if name == "min" else torch.amax
        return fn(w) if dim is None else fn(w, dim=dim)
    return getattr(torch, name)(w, dim=dim)


def _statistic_reference(name, w, dim):
    """statistic `name` (the table's, default parameters) of the float64 tensor w along dim."""
    dims = tuple(range(w.dim())) if dim is None else dim
    if name in ("mean", "var", "std", "var_mean", "std_mean", "logsumexp"):
        return getattr(torch, name)(w, dim=dims)
    if name == "vector_norm":
        return torch.linalg.vector_norm(w, dim=dims)
    if name == "aminmax":
        return torch.amin(w, dim=dims), torch.amax(w, dim=dims)
    if name == "count_nonzero":
        return torch.count_nonzero(w, dim=dims)
    return getattr(torch, name)(w != 0, dim=dim) if dim is not None else getattr(torch, name)(w != 0)


def _check(got, want, out_name, what):
    """got (a tensor or a pair) of dtype torch.<out_name>, equal to want (float64) rounded to it."""
    out = getattr(torch, out_name)
    pairs = list(zip(got, want)) if isinstance(want, tuple) else [(got, want)]
    if isinstance(want, tuple) and (not isinstance(got, tuple) or len(got) != len(want)):
        raise AssertionError("%s: not a pair" % what)
    tol = _TOLERANCE.get(out_name, 0.0)
    for g, w in pairs:
        if not isinstance(g, torch.Tensor) or g.dtype != out:
            raise AssertionError("%s: %r, not a tensor of %s" % (what, getattr(g, "dtype", type(g)), out))
        torch.testing.assert_close(g.double(), w.to(out).double(), rtol=tol, atol=tol, equal_nan=True,
                                   msg=lambda m: "%s\n%s" % (what, m))


def _per_segment(reference, name, w):
    """reference(name, segment, 0) of each segment of the 1-D w, stacked (pairs part by part)."""
    parts = [reference(name, w[a:b], 0) for a, b in zip(_OFFSETS[:-1], _OFFSETS[1:])]
    if isinstance(parts[0], tuple):
        return tuple(torch.stack([p[k] for p in parts]) for k in range(len(parts[0])))
    return torch.stack(parts)


class TableTest(DeviceCase):
    def _expect_type_error(self, checks, what, call):
        def run():
            try:
                call()
            except TypeError:
                return
            raise AssertionError("%s: no TypeError" % what)
        checks.run(what + " raises TypeError", run)

    def test_ops_along_axes(self):
        lib = _lib()
        checks = _Checks(self)
        for op, t in itertools.product(lib.OPS, lib.DTYPES):
            fn_name = _FUNCTION.get(op.name, op.name)
            fn = getattr(cured, fn_name)
            takes_dtype = "dtype" in inspect.signature(fn).parameters
            x = _values(_SHAPE, t.name)
            for requested in range(-1, len(lib.DTYPES)):
                out = lib.RESULT_DTYPES.get((op.code, t.code, requested))
                if out is None and op.code == lib.EXACT_SUM and t.code not in lib.FLOATING and requested == -1:
                    out = lib.RESULT_DTYPES[(lib.SUM, t.code, -1)]  # Python's exact sum of integers: their sum
                if requested >= 0 and not takes_dtype:
                    continue
                kw = {} if requested < 0 else {"dtype": getattr(torch, lib.DTYPE_NAMES[requested])}
                for dim in _DIMS:
                    what = "%s(%s %s, dim=%r%s)" % (fn_name, t.name, _SHAPE, dim,
                                                    ", dtype=torch.%s" % lib.DTYPE_NAMES[requested] if kw else "")
                    if out is None:
                        self._expect_type_error(checks, what, lambda: fn(x, dim=dim, **kw))
                        continue
                    checks.run(what, lambda: _check(fn(x, dim=dim, **kw), _op_reference(op.name, x.double(), dim),
                                                    lib.DTYPE_NAMES[out], what))
        checks.done()

    def test_ops_per_segment(self):
        lib = _lib()
        checks = _Checks(self)
        offsets = torch.tensor(_OFFSETS, dtype=torch.int64, device="cuda")
        for op, t in itertools.product(lib.OPS, lib.DTYPES):
            fn_name = "segment_" + _FUNCTION.get(op.name, op.name)
            fn = getattr(cured, fn_name)
            takes_dtype = "dtype" in inspect.signature(fn).parameters
            x = _values((_OFFSETS[-1],), t.name)
            for requested in range(-1, len(lib.DTYPES)):
                out = lib.SEGMENT_RESULT_DTYPES.get((op.code, t.code, requested))
                if out is None and op.code == lib.EXACT_SUM and t.code not in lib.FLOATING and requested == -1:
                    out = lib.SEGMENT_RESULT_DTYPES.get((lib.SUM, t.code, -1))
                if requested >= 0 and not takes_dtype:
                    continue
                kw = {} if requested < 0 else {"dtype": getattr(torch, lib.DTYPE_NAMES[requested])}
                what = "%s(%s n=%d, %d segments%s)" % (fn_name, t.name, _OFFSETS[-1], len(_OFFSETS) - 1,
                                                       ", dtype=torch.%s" % lib.DTYPE_NAMES[requested] if kw else "")
                if out is None:
                    self._expect_type_error(checks, what, lambda: fn(x, offsets, **kw))
                    continue
                checks.run(what, lambda: _check(fn(x, offsets, **kw), _per_segment(_op_reference, op.name, x.double()),
                                                lib.DTYPE_NAMES[out], what))
        checks.done()

    def test_statistics_along_axes(self):
        lib = _lib()
        checks = _Checks(self)
        for s, t in itertools.product(lib.STATISTICS, lib.DTYPES):
            fn = getattr(cured, s.name)
            x = _values(_SHAPE, t.name)
            out = lib.STATISTIC_DTYPES.get((s.code, t.code))
            for dim in _DIMS:
                what = "%s(%s %s, dim=%r)" % (s.name, t.name, _SHAPE, dim)
                if out is None:
                    self._expect_type_error(checks, what, lambda: fn(x, dim=dim))
                    continue
                checks.run(what, lambda: _check(fn(x, dim=dim), _statistic_reference(s.name, x.double(), dim),
                                                lib.DTYPE_NAMES[out], what))
        checks.done()

    def test_statistics_per_segment(self):
        lib = _lib()
        checks = _Checks(self)
        offsets = torch.tensor(_OFFSETS, dtype=torch.int64, device="cuda")
        for s, t in itertools.product(lib.STATISTICS, lib.DTYPES):
            fn = getattr(cured, "segment_" + s.name)
            x = _values((_OFFSETS[-1],), t.name)
            out = lib.SEGMENT_STATISTIC_DTYPES.get((s.code, t.code))
            what = "segment_%s(%s n=%d, %d segments)" % (s.name, t.name, _OFFSETS[-1], len(_OFFSETS) - 1)
            if out is None:
                self._expect_type_error(checks, what, lambda: fn(x, offsets))
                continue
            checks.run(what, lambda: _check(fn(x, offsets), _per_segment(_statistic_reference, s.name, x.double()),
                                            lib.DTYPE_NAMES[out], what))
        checks.done()

    def test_segment_sum_widening(self):
        """The segment family's own rules: float16 values summed into float32 (Python's check once
        took the axes' rule and the call failed in C after allocating)."""
        x = torch.rand(1000, device="cuda").half()
        offsets = torch.tensor([0, 10, 10, 500, 1000], device="cuda")
        got = cured.segment_sum(x, offsets, dtype=torch.float32)
        want = torch.stack([x[a:b].float().sum() for a, b in ((0, 10), (10, 10), (10, 500), (500, 1000))])
        _check(got, want.double(), "float32", "segment_sum(float16 n=1000, dtype=torch.float32)")


if __name__ == "__main__":
    import unittest
    unittest.main()
