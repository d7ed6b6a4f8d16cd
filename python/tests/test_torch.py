"""cured as PyTorch ops: schemas, fake kernels, autograd, torch.compile, torch.export, out=, the
(values, indices) named tuples, CUDA graphs and errors.

    PYTHONPATH=<build>/python python3 -m pytest -q python/tests/test_torch.py

Without a GPU the classes marked CPU run wherever torch is importable (any version: the table's
schemas, the fake kernels on meta tensors, and the derivative formulas against torch's own
autograd on CPU tensors); the rest skip, saying why: no torch 2.4 or later (nothing is
registered there), no CUDA device, or no importable cured. CURED_REQUIRE_DEVICE=1 turns those
skips into errors, as in the other device suites.
"""

import fractions as _fractions
import importlib
import math
import struct
import os
import types
import unittest
import warnings


def _try_import(name):
    try:
        return importlib.import_module(name), None
    except Exception as e:  # noqa: BLE001 - any failure to import means: not here
        return None, "%s is not importable (%s: %s)" % (name, type(e).__name__, e)


torch, _TORCH_ERROR = _try_import("torch")  # first: cured registers its ops at import when torch is there
cured, _CURED_ERROR = _try_import("cured")
_torch_ops, _OPS_ERROR = _try_import("cured._torch_ops") if cured and torch else (None, _TORCH_ERROR or _CURED_ERROR)


def _skip_reason(device):
    """Why a class cannot run here (None if it can): torch and cured importable, and for the
    device classes torch >= 2.4 with the ops registered and a CUDA device."""
    reason = _TORCH_ERROR or _CURED_ERROR or _OPS_ERROR
    if reason or not device:
        return reason
    if not _torch_ops.version_ok():
        return "torch %s is older than 2.4: cured registers no torch ops there" % torch.__version__
    if cured._ops is None:
        return "cured registered no torch ops"
    if not torch.cuda.is_available():
        return "torch.cuda.is_available() is False"
    return None


class CPUCase(unittest.TestCase):
    """Needs torch (any version) and cured, no GPU."""

    @classmethod
    def setUpClass(cls):
        reason = _skip_reason(False)
        if reason:
            raise unittest.SkipTest(reason)


class DeviceCase(unittest.TestCase):
    """Needs torch >= 2.4 with the ops registered, a CUDA device and cured; CURED_REQUIRE_DEVICE=1
    makes their absence an error."""

    @classmethod
    def setUpClass(cls):
        reason = _skip_reason(True)
        if reason:
            if os.environ.get("CURED_REQUIRE_DEVICE"):
                raise RuntimeError("cured torch tests cannot run: " + reason)
            raise unittest.SkipTest(reason)
        torch.manual_seed(0)


def _row(name):
    return next(r for r in _torch_ops.OPS if r.name == name)


def _meta(shape, dtype=None):
    return torch.empty(shape, dtype=dtype or torch.float32, device="meta")


# ---- CPU: the table, the fake kernels, the derivative formulas ------------------------------------

class Schemas(CPUCase):
    def test_every_op_and_statistic_along_axes_and_per_segment(self):
        names = {r.name for r in _torch_ops.OPS}
        self.assertEqual(len(names), len(_torch_ops.OPS), "one row per name")
        for row in cured._lib.OPS:
            name = {"min": "amin", "max": "amax"}.get(row.name, row.name)
            self.assertIn(name, names)
            self.assertIn("segment_" + name, names)
        for row in cured._lib.STATISTICS:
            self.assertIn(row.name, names)
            self.assertIn("segment_" + row.name, names)
        self.assertTrue({"max", "min", "max_dim", "min_dim", "exact_dot"} <= names)

    def test_schemas_parse(self):
        for row in _torch_ops.OPS:
            schema = torch._C.parse_schema("cured::" + row.name + row.schema)
            self.assertEqual(schema.arguments[0].name, "values" if row.name.startswith("segment_") else "x")
        self.assertEqual(_row("exact_dot").schema, "(Tensor x, Tensor y) -> Tensor")

    def test_the_schemas_torch_shows(self):
        schemas = {r.name: r.schema for r in _torch_ops.OPS}
        self.assertEqual(schemas["sum"], "(Tensor x, int[] dim, bool keepdim, ScalarType? dtype) -> Tensor")
        self.assertEqual(schemas["var"], "(Tensor x, int[] dim, bool keepdim, float correction) -> Tensor")
        self.assertEqual(schemas["std_mean"],
                         "(Tensor x, int[] dim, bool keepdim, float correction) -> (Tensor, Tensor)")
        self.assertEqual(schemas["vector_norm"], "(Tensor x, int[] dim, bool keepdim, float ord) -> Tensor")
        self.assertEqual(schemas["max_dim"], "(Tensor x, int dim, bool keepdim) -> (Tensor values, Tensor indices)")
        self.assertEqual(schemas["segment_sum"],
                         "(Tensor values, Tensor offsets, bool check, ScalarType? dtype) -> Tensor")
        self.assertEqual(schemas["segment_var_mean"],
                         "(Tensor values, Tensor offsets, bool check, float correction) -> (Tensor, Tensor)")

    def test_derivatives(self):
        with_backward = {r.name for r in _torch_ops.OPS if r.backward is not None}
        self.assertEqual(with_backward, {"sum", "exact_sum", "amin", "amax", "min", "max", "min_dim", "max_dim", "mean",
                                         "var", "std", "var_mean", "std_mean", "logsumexp", "vector_norm",
                                         "segment_sum", "segment_exact_sum", "segment_mean", "exact_dot"})

    def test_versions(self):
        self.assertTrue(_torch_ops.version_ok("2.4.0"))
        self.assertTrue(_torch_ops.version_ok("2.11.0+cu130"))
        self.assertFalse(_torch_ops.version_ok("2.3.1"))
        self.assertFalse(_torch_ops.version_ok("1.13.1"))
        if not _torch_ops.version_ok():
            self.assertIsNone(cured._ops, "torch %s: nothing registered" % torch.__version__)


class FakeKernels(CPUCase):
    """The fake kernels' shapes and dtypes, on meta tensors (what torch.compile traces with)."""

    def check(self, name, args, shapes, dtypes):
        result = _row(name).fake(*args)
        results = result if isinstance(result, tuple) else (result,)
        self.assertEqual([tuple(r.shape) for r in results], shapes, name)
        self.assertEqual([r.dtype for r in results], dtypes, name)
        for r in results:
            self.assertEqual(r.device.type, "meta")

    def test_along_axes(self):
        f32, f16, i64 = torch.float32, torch.float16, torch.int64
        self.check("sum", (_meta((4, 5, 6)), [1], False, None), [(4, 6)], [f32])
        self.check("sum", (_meta((4, 5, 6)), [0, 2], True, None), [(1, 5, 1)], [f32])
        self.check("sum", (_meta((4, 5, 6)), [], False, None), [(4, 5, 6)], [f32])
        self.check("sum", (_meta((4, 5), torch.int32), [0, 1], False, None), [()], [i64])
        self.check("sum", (_meta((4, 5), f16), [1], False, torch.float32), [(4,)], [f32])
        self.check("sum", (_meta((4, 5), f32), [1], False, torch.float32), [(4,)], [f32])
        self.check("exact_sum", (_meta((4, 5), f16), [1], False), [(4,)], [f32])
        self.check("exact_sum", (_meta((4, 5), torch.int8), [1], False), [(4,)], [i64])
        self.check("amax", (_meta((4, 5), f16), [0], False), [(5,)], [f16])
        self.check("argmax", (_meta((4, 5), f16), [0, 1], True), [(1, 1)], [i64])
        self.check("max", (_meta((4, 5)), [0, 1], False), [()], [f32])
        self.check("max_dim", (_meta((4, 5), f16), 1, False), [(4,), (4,)], [f16, i64])
        self.check("min_dim", (_meta((4, 5)), 0, True), [(1, 5), (1, 5)], [f32, i64])
        self.check("mean", (_meta((4, 5), torch.bfloat16), [1], False), [(4,)], [f32])
        self.check("var", (_meta((4, 5), torch.float64), [1], False, 1.0), [(4,)], [torch.float64])
        self.check("var_mean", (_meta((4, 5)), [1], True, 0.0), [(4, 1), (4, 1)], [f32, f32])
        self.check("aminmax", (_meta((4, 5), torch.int16), [0], False), [(5,), (5,)], [torch.int16] * 2)
        self.check("vector_norm", (_meta((4, 5), f16), [0, 1], False, 2.0), [()], [f32])
        self.check("count_nonzero", (_meta((4, 5), torch.bool), [1], False), [(4,)], [i64])
        self.check("any", (_meta((4, 5), torch.uint8), [1], False), [(4,)], [torch.bool])
        self.check("sum", (_meta(()), [], False, None), [()], [f32])

    def test_per_segment(self):
        offsets = _meta((5,), torch.int64)
        self.check("segment_sum", (_meta((100,)), offsets, True, None), [(4,)], [torch.float32])
        self.check("segment_sum", (_meta((100,), torch.float16), offsets, True, torch.float32), [(4,)], [torch.float32])
        self.check("segment_argmax", (_meta((100,)), offsets, False), [(4,)], [torch.int64])
        self.check("segment_std_mean", (_meta((100,), torch.float64), offsets, True, 1.0), [(4,), (4,)],
                   [torch.float64] * 2)
        self.check("segment_any", (_meta((100,), torch.int8), offsets, True), [(4,)], [torch.bool])

    def test_exact_dot(self):
        for dtype, result in ((torch.float16, torch.float32), (torch.bfloat16, torch.float32),
                              (torch.float32, torch.float32), (torch.float64, torch.float64)):
            self.check("exact_dot", (_meta((3, 5), dtype), _meta((3, 5), dtype)), [()], [result])
        with self.assertRaisesRegex(TypeError, "exact_dot takes floating elements, not int32"):
            _row("exact_dot").fake(_meta((4,), torch.int32), _meta((4,), torch.int32))
        with self.assertRaisesRegex(TypeError, "x is float32, y float64"):
            _row("exact_dot").fake(_meta((4,)), _meta((4,), torch.float64))
        with self.assertRaisesRegex(ValueError, "x has shape"):
            _row("exact_dot").fake(_meta((4,)), _meta((5,)))

    def test_errors(self):
        with self.assertRaisesRegex(TypeError, "mean takes"):
            _row("mean").fake(_meta((4,), torch.int32), [0], False)
        with self.assertRaisesRegex(TypeError, "no sum of float32 as float16"):
            _row("sum").fake(_meta((4,)), [0], False, torch.float16)
        with self.assertRaisesRegex(TypeError, "unsupported element type"):
            _row("amax").fake(_meta((4,), torch.complex64), [0], False)
        with self.assertRaisesRegex(ValueError, "dim 2 out of range"):
            _row("amax").fake(_meta((4, 5)), [2], False)
        with self.assertRaisesRegex(ValueError, "one axis"):
            _row("segment_sum").fake(_meta((4, 5)), _meta((3,), torch.int64), True, None)
        with self.assertRaisesRegex(ValueError, "int64"):
            _row("segment_sum").fake(_meta((4,)), _meta((3,), torch.int32), True, None)


class _Ctx(types.SimpleNamespace):
    """What register_autograd's setup_context and backward see of ctx."""

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors


def _formula(name, inputs, output, *grads):
    """cured's backward of op `name` for inputs and output, as torch's autograd would call it."""
    row = _row(name)
    ctx = _Ctx()
    row.setup(ctx, tuple(inputs), output)
    return row.backward(ctx, *grads)[0]


class Derivatives(CPUCase):
    """Each derivative formula against torch's own autograd on CPU doubles, with ties, NaN,
    infinities, zeros and corrections of n and beyond."""

    def check(self, name, x, reference, inputs_after_x, grads_like=None):
        """reference(x) is torch's function (its result is what cured's op returns); cured's
        formula is fed that result and the same output gradients."""
        x = x.detach().double().requires_grad_()
        result = reference(x)
        outputs = result if isinstance(result, tuple) else (result,)
        grads = tuple(torch.randn_like(o) if o.is_floating_point() else None for o in outputs)
        want = torch.autograd.grad([o for o in outputs if o.is_floating_point()],
                                   x, [g for g in grads if g is not None])[0]
        got = _formula(name, (x.detach(),) + tuple(inputs_after_x),
                       tuple(o.detach() for o in outputs) if isinstance(result, tuple) else result.detach(),
                       *[g if g is not None else torch.zeros_like(o) for g, o in zip(grads, outputs)])
        torch.testing.assert_close(got, want, equal_nan=True, msg=lambda m: "%s: %s" % (name, m))

    def test_sums_and_means(self):
        x = torch.randn(3, 4, 5)
        self.check("sum", x, lambda t: t.sum((0, 2)), ([0, 2], False, None))
        self.check("sum", x, lambda t: t.sum(1, keepdim=True), ([1], True, None))
        self.check("exact_sum", x, lambda t: t.sum((0, 1, 2)), ([0, 1, 2], False))
        self.check("mean", x, lambda t: t.mean(1), ([1], False))
        self.check("mean", x, lambda t: t.mean((0, 2), keepdim=True), ([0, 2], True))

    def test_extrema_with_ties_and_nan(self):
        x = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [math.nan, 1.0, math.nan, 5.0]])
        for dims, keepdim in (([1], False), ([0], True), ([0, 1], False)):
            self.check("amax", x, lambda t: t.amax(dims, keepdim), (dims, keepdim))
            self.check("amin", x, lambda t: t.amin(dims, keepdim), (dims, keepdim))
        self.check("max", x[:2], lambda t: t.max(), ([0, 1], False))
        self.check("min", x[:2], lambda t: t.min(), ([0, 1], False))
        self.check("max", x, lambda t: t.max(), ([0, 1], False))  # NaNs share the gradient
        y = torch.randn(4, 6)
        self.check("max_dim", y, lambda t: tuple(t.max(1)), (1, False))
        self.check("min_dim", y, lambda t: tuple(t.min(0, keepdim=True)), (0, True))

    def test_moments(self):
        x = torch.randn(3, 4, 5)
        for correction in (0, 1, 3):
            c = float(correction)
            self.check("var", x, lambda t: t.var(1, correction=correction), ([1], False, c))
            self.check("std", x, lambda t: t.std((0, 2), correction=correction, keepdim=True), ([0, 2], True, c))
            self.check("var_mean", x, lambda t: torch.var_mean(t, 2, correction=correction), ([2], False, c))
            self.check("std_mean", x, lambda t: torch.std_mean(t, (0, 1), correction=correction), ([0, 1], False, c))
        # n == correction: torch's gradient is infinite (or NaN where x equals the mean)
        self.check("var", torch.randn(3, 2), lambda t: t.var(1, correction=2), ([1], False, 2.0))
        # a constant row: std 0, its gradient masked to 0
        self.check("std", torch.ones(2, 3), lambda t: t.std(1), ([1], False, 1.0))

    def test_logsumexp(self):
        x = torch.randn(3, 4)
        x[1, :2] = -math.inf
        self.check("logsumexp", x, lambda t: t.logsumexp(1), ([1], False))
        self.check("logsumexp", x, lambda t: t.logsumexp((0, 1), keepdim=True), ([0, 1], True))

    def test_vector_norms(self):
        x = torch.tensor([[3.0, -4.0, 0.0], [0.0, 0.0, 0.0], [-2.0, 2.0, 1.0]])
        for order in (1.0, 2.0, math.inf):
            self.check("vector_norm", x, lambda t: torch.linalg.vector_norm(t, order, 1), ([1], False, order))
            self.check("vector_norm", x, lambda t: torch.linalg.vector_norm(t, order, (0, 1), keepdim=True),
                       ([0, 1], True, order))

    def test_segments(self):
        values = torch.randn(12)
        offsets = torch.tensor([1, 4, 4, 9, 11])  # values 0 and 11 are in no segment, segment 1 is empty

        def by_segment(op):
            return lambda t: torch.stack([op(t[int(a):int(b)]) for a, b in zip(offsets[:-1], offsets[1:])])

        self.check("segment_sum", values, by_segment(torch.sum), (offsets, True, None))
        self.check("segment_exact_sum", values, by_segment(torch.sum), (offsets, True))
        nonempty = torch.tensor([0, 3, 4, 9, 12])
        offsets = nonempty
        self.check("segment_mean", values, by_segment(torch.mean), (offsets, True))

    def test_exact_dot_both_inputs(self):
        x, y = torch.randn(7, dtype=torch.float64), torch.randn(7, dtype=torch.float64)
        a, b = x.clone().requires_grad_(), y.clone().requires_grad_()
        g = torch.randn((), dtype=torch.float64)
        want = torch.autograd.grad(torch.dot(a, b), (a, b), g)
        ctx = _Ctx()
        _row("exact_dot").setup(ctx, (x, y), torch.dot(x, y))
        got = _row("exact_dot").backward(ctx, g)
        torch.testing.assert_close(got[0], want[0])
        torch.testing.assert_close(got[1], want[1])


# ---- on the GPU ---------------------------------------------------------------------------------

def _round_to_float32(q):
    """The float32 nearest to the fraction q, ties to even: rounded once."""
    near = struct.unpack("<f", struct.pack("<f", float(q)))[0]  # within an ulp of q
    bits = struct.unpack("<I", struct.pack("<f", near))[0]
    candidates = [near] + [struct.unpack("<f", struct.pack("<I", b))[0] for b in (bits - 1, bits + 1)
                           if 0 <= b < 0x7F800000 or 0x80000000 <= b < 0xFF800000]
    odd = lambda c: struct.unpack("<I", struct.pack("<f", c))[0] & 1  # noqa: E731
    return min(candidates, key=lambda c: (abs(_fractions.Fraction(c) - q), odd(c)))


def _cuda(*shape, dtype=None):
    return torch.randn(*shape, dtype=dtype or torch.float64, device="cuda")


def _torch_form(bounds, data, axis):
    """lengths or offsets of one axis as torch.segment_reduce takes them along axis: repeated for
    each position of data's axes before axis (torch wants axis == bounds.dim() - 1)."""
    if bounds.dim() > 1:
        return bounds
    return bounds.expand(tuple(data.shape[:axis % data.dim()]) + tuple(bounds.shape))


def _offsets_of(lengths):
    """The offsets (count + 1 along the last axis) of lengths."""
    zero = torch.zeros(tuple(lengths.shape[:-1]) + (1,), dtype=torch.int64, device=lengths.device)
    return torch.cat((zero, lengths.cumsum(-1)), -1)


def _lengths_with_empty(n):
    """Lengths summing to n (n >= 3) with empty segments first, inside and last."""
    return torch.tensor([0, 2, 0, n - 3, 1, 0], device="cuda")


class Gradcheck(DeviceCase):
    """torch.autograd.gradcheck of every function with a derivative, in float64, small shapes."""

    def gradcheck(self, what, fn, *inputs):
        inputs = tuple(t.detach().requires_grad_() if t.is_floating_point() else t for t in inputs)
        try:
            torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-4)
        except Exception as e:  # noqa: BLE001 - name the case
            raise AssertionError("%s: %s" % (what, e)) from None

    def test_along_axes(self):
        x = _cuda(3, 4, 5)
        for dim, keepdim in ((None, False), (1, False), ((0, 2), True), (-1, True)):
            case = "dim=%s keepdim=%s" % (dim, keepdim)
            self.gradcheck("sum " + case, lambda t: cured.sum(t, dim, keepdim), x)
            self.gradcheck("exact_sum " + case, lambda t: cured.exact_sum(t, dim, keepdim), x)
            self.gradcheck("amax " + case, lambda t: cured.amax(t, dim, keepdim), x)
            self.gradcheck("amin " + case, lambda t: cured.amin(t, dim, keepdim), x)
            self.gradcheck("mean " + case, lambda t: cured.mean(t, dim, keepdim), x)
            self.gradcheck("logsumexp " + case, lambda t: cured.logsumexp(t, dim, keepdim), x)
            for correction in (0, 1):
                kw = dict(correction=correction, keepdim=keepdim)
                self.gradcheck("var %s c=%d" % (case, correction), lambda t: cured.var(t, dim, **kw), x)
                self.gradcheck("std %s c=%d" % (case, correction), lambda t: cured.std(t, dim, **kw), x)
                self.gradcheck("var_mean %s c=%d" % (case, correction), lambda t: cured.var_mean(t, dim, **kw), x)
                self.gradcheck("std_mean %s c=%d" % (case, correction), lambda t: cured.std_mean(t, dim, **kw), x)
            for order in (1, 2, math.inf):
                self.gradcheck("vector_norm %s ord=%s" % (case, order),
                               lambda t: cured.vector_norm(t, order, dim, keepdim), x)

    def test_exact_dot(self):
        x, y = _cuda(13), _cuda(13)
        self.gradcheck("exact_dot", cured.exact_dot, x, y)
        self.gradcheck("exact_dot of 2-D", cured.exact_dot, _cuda(3, 4), _cuda(3, 4))
        # one input needing no gradient
        self.gradcheck("exact_dot x only", lambda t: cured.exact_dot(t, y), x)

    def test_max_and_min(self):
        x = _cuda(4, 5)
        self.gradcheck("max", lambda t: cured.max(t), x)
        self.gradcheck("min", lambda t: cured.min(t), x)
        self.gradcheck("max dim", lambda t: cured.max(t, 1).values, x)
        self.gradcheck("min dim keepdim", lambda t: cured.min(t, 0, keepdim=True).values, x)

    def test_segments(self):
        values = _cuda(20)
        offsets = torch.tensor([2, 5, 5, 12, 19], device="cuda")
        self.gradcheck("segment_sum", lambda v: cured.segment_sum(v, offsets), values)
        self.gradcheck("segment_exact_sum", lambda v: cured.segment_exact_sum(v, offsets), values)
        self.gradcheck("segment_mean", lambda v: cured.segment_mean(v, torch.tensor([0, 5, 12, 20], device="cuda")),
                       values)

    def test_segment_reduce(self):
        """sum and mean along axis 0, 1 and -1 of N-D data (the sums with an empty segment; the
        means with one where initial gives it a value), with and without initial."""
        x = _cuda(6, 5)
        y = _cuda(3, 6, 2)
        per_row = torch.tensor([[1, 4], [2, 3], [3, 2], [4, 1], [2, 3], [5, 0]], device="cuda")  # torch's form
        cases = ((x, 0, torch.tensor([2, 0, 4], device="cuda"), ("sum",)),
                 (x, 0, torch.tensor([2, 4], device="cuda"), ("sum", "mean")),
                 (x, 1, torch.tensor([1, 3, 1], device="cuda"), ("sum", "mean")),
                 (x, 1, per_row, ("sum",)),
                 (x[:5], 1, per_row[:5], ("sum", "mean")),
                 (y, 1, torch.tensor([4, 2], device="cuda"), ("sum", "mean")),
                 (y, -1, torch.tensor([1, 1], device="cuda"), ("sum", "mean")))
        for data, axis, lengths, reduces in cases:
            for reduce in reduces:
                what = "%s axis=%d lengths=%s" % (reduce, axis, lengths.tolist())
                self.gradcheck(what, lambda t: cured.segment_reduce(t, reduce, lengths=lengths, axis=axis), data)
                self.gradcheck(what + " initial", lambda t: cured.segment_reduce(t, reduce, lengths=lengths,
                                                                                 axis=axis, initial=1.5), data)
        lengths = torch.tensor([1, 0, 4], device="cuda")
        self.gradcheck("mean initial, empty segment",
                       lambda t: cured.segment_reduce(t, "mean", lengths=lengths, axis=1, initial=-2.0), x)


class AgainstTorchGradients(DeviceCase):
    """Gradients equal to torch's own, on float32, with ties, NaN and infinities."""

    def same_grads(self, what, ours, theirs, x):
        a = x.detach().clone().requires_grad_()
        b = x.detach().clone().requires_grad_()
        out_a, out_b = ours(a), theirs(b)
        self.assertIsNotNone(out_a.grad_fn, what)
        g = torch.randn_like(out_b)
        out_a.backward(g)
        out_b.backward(g)
        torch.testing.assert_close(out_a.detach().to(out_b.dtype), out_b.detach(), equal_nan=True,
                                   msg=lambda m: "%s (values): %s" % (what, m))
        torch.testing.assert_close(a.grad, b.grad, equal_nan=True, msg=lambda m: "%s (gradients): %s" % (what, m))

    def test_ties_and_nan(self):
        x = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [math.nan, 1.0, math.nan, 5.0]], device="cuda")
        for dim in (1, 0, (0, 1), None):
            every = () if dim is None else dim
            self.same_grads("amax %s" % (dim,), lambda t: cured.amax(t, dim), lambda t: torch.amax(t, every), x)
            self.same_grads("amin %s" % (dim,), lambda t: cured.amin(t, dim), lambda t: torch.amin(t, every), x)
        self.same_grads("max", cured.max, torch.max, x)
        self.same_grads("min", cured.min, torch.min, x)
        self.same_grads("max without NaN", cured.max, torch.max, x[:2])
        y = torch.tensor([[3.0, -4.0, 0.0], [0.0, 0.0, 0.0], [-2.0, 2.0, 2.0]], device="cuda")
        for order in (1, 2, math.inf):
            self.same_grads("vector_norm %s" % order, lambda t: cured.vector_norm(t, order, 1),
                            lambda t: torch.linalg.vector_norm(t, order, 1), y)

    def test_statistics(self):
        x = torch.randn(6, 7, device="cuda")
        x[2, :3] = -math.inf
        self.same_grads("sum", lambda t: cured.sum(t, 1), lambda t: torch.sum(t, 1), x)
        self.same_grads("mean", lambda t: cured.mean(t, (0, 1)), lambda t: torch.mean(t, (0, 1)), x[3:])
        self.same_grads("logsumexp", lambda t: cured.logsumexp(t, 1), lambda t: torch.logsumexp(t, 1), x)
        y = torch.randn(6, 7, device="cuda")
        for correction in (0, 1, 7):
            self.same_grads("var c=%d" % correction, lambda t: cured.var(t, 1, correction=correction),
                            lambda t: torch.var(t, 1, correction=correction), y)
            self.same_grads("std c=%d" % correction, lambda t: cured.std(t, 0, correction=correction),
                            lambda t: torch.std(t, 0, correction=correction), y)

    def test_max_along_a_dim(self):
        x = torch.randn(5, 8, device="cuda")
        self.same_grads("max dim", lambda t: cured.max(t, 1).values, lambda t: torch.max(t, 1).values, x)
        self.same_grads("min dim", lambda t: cured.min(t, 0, True).values, lambda t: torch.min(t, 0, True).values, x)

    def test_segment_reduce(self):
        x = torch.randn(7, 6, device="cuda")
        for axis in (0, 1):
            lengths = torch.tensor([2, 0, x.shape[axis] - 3, 1], device="cuda")
            for reduce in ("sum", "mean"):
                self.same_grads("segment_reduce %s axis=%d" % (reduce, axis),
                                lambda t: cured.segment_reduce(t, reduce, lengths=lengths, axis=axis),
                                lambda t: torch.segment_reduce(t, reduce, lengths=_torch_form(lengths, t, axis),
                                                               axis=axis), x)

    def test_half_inputs_get_half_gradients(self):
        x = torch.randn(4, 5, device="cuda", dtype=torch.float16, requires_grad=True)
        cured.mean(x, 1).sum().backward()
        self.assertEqual(x.grad.dtype, torch.float16)
        torch.testing.assert_close(x.grad, torch.full_like(x, 0.2))


class Routing(DeviceCase):
    """Which calls go through the ops: those that need autograd or are traced; the rest keep the
    fast path, with the same values."""

    def test_grad_fn_only_where_needed(self):
        x = torch.randn(8, 9, device="cuda")
        self.assertIsNone(cured.sum(x, 1).grad_fn)
        x.requires_grad_()
        self.assertIsNotNone(cured.sum(x, 1).grad_fn)
        with torch.no_grad():
            self.assertIsNone(cured.sum(x, 1).grad_fn)
        self.assertIsNone(cured.argmax(x, 1).grad_fn)
        self.assertIsNotNone(cured.sum(torch.nn.Parameter(x.detach()), 1).grad_fn)

    def test_same_values_both_ways(self):
        x = torch.randn(33, 65, device="cuda")
        for name, args in (("sum", (1,)), ("amax", (0,)), ("exact_sum", ((0, 1),)), ("mean", (1,)), ("var", (0,)),
                           ("logsumexp", (1,)), ("vector_norm", (2, 1))):
            fast = getattr(cured, name)(x, *args)
            routed = getattr(cured, name)(x.detach().requires_grad_(), *args)
            self.assertEqual(torch.equal(fast, routed.detach()), True, name)

    def test_ops_directly(self):
        x = torch.randn(4, 5, device="cuda")
        torch.testing.assert_close(torch.ops.cured.sum(x, [1], False, None), x.sum(1))
        v, i = torch.ops.cured.max_dim(x, 1, False)
        torch.testing.assert_close(v, x.amax(1))
        self.assertEqual(i.dtype, torch.int64)

    def test_opcheck(self):
        """torch.library.opcheck: schema, fake kernel, autograd registration, AOT dispatch."""
        x = torch.randn(5, 6, device="cuda", dtype=torch.float64)
        offsets = torch.tensor([0, 2, 2, 6], device="cuda")
        values = torch.randn(6, device="cuda", dtype=torch.float64)
        samples = {
            "sum": (x, [1], False, None), "exact_sum": (x, [0], True), "amax": (x, [1], False),
            "amin": (x, [0, 1], False), "max": (x, [0, 1], False), "min": (x, [0, 1], False),
            "argmax": (x, [1], False), "argmin": (x, [0], True), "max_dim": (x, 1, False), "min_dim": (x, 0, True),
            "mean": (x, [1], False), "var": (x, [1], False, 1.0), "std": (x, [0], True, 0.0),
            "var_mean": (x, [1], False, 1.0), "std_mean": (x, [1], False, 1.0), "logsumexp": (x, [1], False),
            "vector_norm": (x, [1], False, 2.0), "aminmax": (x, [1], False), "count_nonzero": (x, [1], False),
            "any": (x, [1], False), "all": (x, [1], False),
            "segment_sum": (values, offsets, True, None), "segment_exact_sum": (values, offsets, True),
            "segment_mean": (values, torch.tensor([0, 2, 6], device="cuda"), True),
            "segment_amax": (values, offsets, True), "exact_dot": (x, x.flip(0)),
            # no empty segment here: its variance is NaN, and opcheck compares with equal_nan=False
            "segment_var": (values, torch.tensor([0, 2, 6], device="cuda"), True, 1.0),
        }
        failures = []
        for name, args in samples.items():
            args = tuple(a.detach().requires_grad_() if isinstance(a, torch.Tensor) and a.is_floating_point()
                         and _row(name).backward is not None else a for a in args)
            try:
                torch.library.opcheck(getattr(torch.ops.cured, name).default, args)
            except Exception as e:  # noqa: BLE001 - report every op at once
                failures.append("%s: %s: %s" % (name, type(e).__name__, str(e)[:500]))
        self.assertEqual(failures, [])


class _Model(torch.nn.Module if torch else object):
    """A small module of several cured ops, differentiable end to end."""

    def forward(self, x):
        m = cured.amax(x, 1, keepdim=True)
        lse = cured.logsumexp(x - m, 1)
        var, mean = cured.var_mean(x, 1, correction=0)
        norm = cured.vector_norm(x, 2, 1)
        return cured.sum(x, 1) + lse + var + mean + norm + cured.std(x, 1) + cured.max(x, 1).values


class Compile(DeviceCase):
    def test_fullgraph_equal_to_eager(self):
        torch._dynamo.reset()
        model = _Model()
        compiled = torch.compile(model, fullgraph=True)
        x = torch.randn(16, 33, device="cuda")
        a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
        eager, traced = model(a), compiled(b)
        torch.testing.assert_close(traced, eager)
        eager.sum().backward()
        traced.sum().backward()
        torch.testing.assert_close(b.grad, a.grad)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), model(x))

    def test_no_graph_break(self):
        torch._dynamo.reset()
        explanation = torch._dynamo.explain(_Model())(torch.randn(4, 8, device="cuda"))
        self.assertEqual(explanation.graph_break_count, 0, explanation.break_reasons)
        self.assertEqual(explanation.graph_count, 1)

    def test_segments_compile(self):
        torch._dynamo.reset()

        def f(values, offsets):
            return cured.segment_sum(values, offsets, check=False) * 2 + cured.segment_mean(values, offsets, check=False)

        values, offsets = torch.randn(100, device="cuda"), torch.tensor([0, 10, 60, 100], device="cuda")
        torch.testing.assert_close(torch.compile(f, fullgraph=True)(values, offsets), f(values, offsets))

    def test_export_sees_the_ops(self):
        exported = torch.export.export(_Model(), (torch.randn(4, 8, device="cuda"),))
        targets = {str(node.target) for node in exported.graph.nodes if node.op == "call_function"}
        for name in ("cured.amax.default", "cured.logsumexp.default", "cured.var_mean.default", "cured.sum.default",
                     "cured.max_dim.default"):
            self.assertIn(name, targets)
        x = torch.randn(4, 8, device="cuda")
        torch.testing.assert_close(exported.module()(x), _Model()(x))


class Out(DeviceCase):
    """out=: written in place; another shape resized as torch does; dtype, device and autograd
    errors where torch raises them (RuntimeError)."""

    def test_written_in_place(self):
        x = torch.randn(6, 7, device="cuda")
        for name, want in (("sum", x.sum(1)), ("amax", x.amax(1)), ("mean", x.mean(1)),
                           ("logsumexp", x.logsumexp(1))):
            out = torch.empty(6, device="cuda")
            ptr = out.data_ptr()
            self.assertIs(getattr(cured, name)(x, 1, out=out), out)
            self.assertEqual(out.data_ptr(), ptr)
            torch.testing.assert_close(out, want)
        out = torch.empty(6, dtype=torch.int64, device="cuda")
        cured.argmax(x, 1, out=out)
        torch.testing.assert_close(out, x.argmax(1))

    def test_resize_as_torch(self):
        x = torch.randn(6, 7, device="cuda")
        out = torch.empty(0, device="cuda")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            cured.sum(x, 1, out=out)  # no elements: resized without a warning
        self.assertEqual(out.shape, (6,))
        out = torch.empty(3, 2, device="cuda")
        with self.assertWarnsRegex(UserWarning, "resized"):
            cured.sum(x, 0, out=out)
        self.assertEqual(out.shape, (7,))
        torch.testing.assert_close(out, x.sum(0))

    def test_not_dense_out(self):
        x = torch.randn(6, 7, device="cuda")
        out = torch.zeros(6, 2, device="cuda")[:, 0]
        cured.sum(x, 1, out=out)
        torch.testing.assert_close(out, x.sum(1))

    def test_sum_into_out_dtype(self):
        x = torch.randn(6, 7, device="cuda")
        out = torch.empty(6, dtype=torch.float64, device="cuda")
        cured.sum(x, 1, out=out)
        torch.testing.assert_close(out, x.double().sum(1))

    def test_errors_as_torch(self):
        x = torch.randn(6, 7, device="cuda")
        cases = (("dtype", lambda f: f(x, 1, out=torch.empty(6, dtype=torch.float64, device="cuda")), "amax"),
                 ("device", lambda f: f(x, 1, out=torch.empty(6)), "amax"),
                 ("argmax dtype", lambda f: f(x, 1, out=torch.empty(6, device="cuda")), "argmax"),
                 ("autograd", lambda f: f(x.detach().requires_grad_(), 1, out=torch.empty(6, device="cuda")), "sum"))
        for what, call, name in cases:
            with self.assertRaises(RuntimeError, msg="torch " + what):
                call(getattr(torch, name))
            with self.assertRaises(RuntimeError, msg="cured " + what):
                call(getattr(cured, name))


    def test_max_and_min_into_a_pair(self):
        x = torch.randn(6, 7, device="cuda")
        for name in ("max", "min"):
            want = getattr(torch, name)(x, 1)
            values, indices = torch.empty(6, device="cuda"), torch.empty(6, dtype=torch.int64, device="cuda")
            pointers = (values.data_ptr(), indices.data_ptr())
            got = getattr(cured, name)(x, 1, out=(values, indices))
            self.assertIsInstance(got, getattr(torch.return_types, name))
            self.assertIs(got.values, values)
            self.assertIs(got.indices, indices)
            self.assertEqual((values.data_ptr(), indices.data_ptr()), pointers)
            torch.testing.assert_close(values, want.values)
            torch.testing.assert_close(indices, want.indices)

    def test_pair_resized_as_torch(self):
        x = torch.randn(6, 7, device="cuda")
        values, indices = torch.empty(0, device="cuda"), torch.empty(0, dtype=torch.int64, device="cuda")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            cured.max(x, 0, keepdim=True, out=(values, indices))  # no elements: resized without a warning
        self.assertEqual((values.shape, indices.shape), ((1, 7), (1, 7)))
        torch.testing.assert_close(values, x.amax(0, keepdim=True))
        torch.testing.assert_close(indices, x.argmax(0, keepdim=True))
        values = torch.empty(2, 2, device="cuda")
        with self.assertWarnsRegex(UserWarning, "resized"):
            cured.min(x, 1, out=[values, indices])
        self.assertEqual((values.shape, indices.shape), ((6,), (6,)))
        torch.testing.assert_close(values, x.amin(1))
        torch.testing.assert_close(indices, x.argmin(1))
        strided = torch.zeros(6, 2, device="cuda")[:, 0]
        cured.max(x, 1, out=(strided, indices))
        torch.testing.assert_close(strided, x.amax(1))

    def test_pair_errors_as_torch(self):
        x = torch.randn(6, 7, device="cuda")

        def pair(values_dtype=torch.float32, indices_dtype=torch.int64, device="cuda"):
            return (torch.empty(6, dtype=values_dtype, device=device),
                    torch.empty(6, dtype=indices_dtype, device=device))

        cases = (("values dtype", lambda f: f(x, 1, out=pair(values_dtype=torch.float64))),
                 ("indices dtype", lambda f: f(x, 1, out=pair(indices_dtype=torch.int32))),
                 ("device", lambda f: f(x, 1, out=pair(device="cpu"))),
                 ("autograd", lambda f: f(x.detach().requires_grad_(), 1, out=pair())))
        for what, call in cases:
            for library, f in (("torch", torch.max), ("cured", cured.max)):
                with self.assertRaises(RuntimeError, msg="%s: %s" % (library, what)):
                    call(f)
        with self.assertRaises(TypeError):
            cured.max(x, 1, out=torch.empty(6, device="cuda"))
        with torch.no_grad():
            values, indices = cured.max(x.detach().requires_grad_(), 1, out=pair())
        torch.testing.assert_close(values, x.amax(1))

class NamedTuples(DeviceCase):
    def test_max_and_min_along_a_dim(self):
        x = torch.randn(5, 8, device="cuda")
        for name in ("max", "min"):
            got, want = getattr(cured, name)(x, 1), getattr(torch, name)(x, 1)
            self.assertIsInstance(got, getattr(torch.return_types, name))
            torch.testing.assert_close(got.values, want.values)
            torch.testing.assert_close(got.indices, want.indices)
            values, indices = getattr(cured, name)(x, -1, keepdim=True)
            self.assertEqual(values.shape, (5, 1))
            self.assertEqual(indices.shape, (5, 1))
            routed = getattr(cured, name)(x.detach().requires_grad_(), 1)
            self.assertIsInstance(routed, getattr(torch.return_types, name))

    def test_ties_take_the_first_index(self):
        x = torch.tensor([[1.0, 3.0, 3.0], [math.nan, 2.0, math.nan]], device="cuda")
        got = cured.max(x, 1)
        self.assertEqual(got.indices.tolist(), [1, 0])

    def test_whole_array_and_axis(self):
        x = torch.randn(5, 8, device="cuda")
        torch.testing.assert_close(cured.max(x), torch.max(x))
        torch.testing.assert_close(cured.min(x), torch.min(x))
        torch.testing.assert_close(cured.max(x, axis=1), x.amax(1))  # NumPy's max: the values
        with self.assertRaises(TypeError):
            cured.max(x, (0, 1))

    def test_cupy_gets_a_tuple(self):
        cupy, error = _try_import("cupy")
        if cupy is None:
            self.skipTest(error)
        a = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)
        values, indices = cured.max(a, 1)
        self.assertIs(type(cured.max(a, 1)), tuple)
        self.assertEqual(values.tolist(), [3.0, 7.0, 11.0])
        self.assertEqual(indices.tolist(), [3, 3, 3])
        self.assertEqual(cured.sum(a, axis=()).shape, (3, 4))
        self.assertEqual(float(cured.sum(a, axis=(0, 1))), 66.0)


class Axis(DeviceCase):
    def test_numpy_axis(self):
        x = torch.randn(3, 4, 5, device="cuda")
        torch.testing.assert_close(cured.sum(x, axis=1), x.sum(1))
        torch.testing.assert_close(cured.sum(x, axis=(0, -1)), x.sum((0, 2)))
        torch.testing.assert_close(cured.sum(x, axis=()), x)  # NumPy: no axis reduced
        torch.testing.assert_close(cured.sum(x, dim=()), x.sum())  # torch: every axis
        with self.assertRaises(TypeError):
            cured.sum(x, 0, axis=0)


class CudaGraphs(DeviceCase):
    def test_captured_through_torch(self):
        x = torch.randn(1000, 33, device="cuda")
        static = x.clone()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):  # warm up (the stream's workspace) before capturing on that stream
            for _ in range(3):
                cured.sum(static, 1)
                torch.ops.cured.logsumexp(static, [1], False)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            fast = cured.sum(static, 1)
            through_op = torch.ops.cured.logsumexp(static, [1], False)
        static.copy_(torch.randn_like(static))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(fast, static.sum(1))
        torch.testing.assert_close(through_op, static.logsumexp(1))


class Errors(DeviceCase):
    """The same exceptions and messages through the ops as on the fast path."""

    def same_error(self, call, x):
        errors = []
        for t in (x, x.detach().requires_grad_() if x.is_floating_point() else x):
            try:
                call(t)
            except Exception as e:  # noqa: BLE001 - compared below
                errors.append((type(e), str(e)))
            else:
                errors.append(None)
        self.assertIsNotNone(errors[0])
        self.assertEqual(errors[0], errors[1])

    def test_errors_unchanged(self):
        x = torch.randn(4, 5, device="cuda")
        self.same_error(lambda t: cured.sum(t, 2), x)
        self.same_error(lambda t: cured.sum(t, (1, -1)), x)
        self.same_error(lambda t: cured.sum(t, dtype=torch.float16), x)
        self.same_error(lambda t: cured.vector_norm(t, 3), x)
        self.same_error(lambda t: cured.sum(t), torch.randn(4))  # host memory
        self.same_error(lambda t: cured.segment_sum(t, torch.tensor([0, 9], device="cuda")),
                        torch.randn(5, device="cuda"))
        self.same_error(lambda t: cured.exact_dot(t, torch.randn(3, device="cuda")), torch.randn(4, device="cuda"))
        self.same_error(lambda t: cured.exact_dot(t, t.double()), torch.randn(4, device="cuda"))
        with self.assertRaises(TypeError):
            cured.mean(torch.ones(3, dtype=torch.int32, device="cuda"))
        with self.assertRaisesRegex(TypeError, "exact_dot takes floating elements, not int32"):
            cured.exact_dot(torch.ones(3, dtype=torch.int32, device="cuda"), torch.ones(3, dtype=torch.int32,
                                                                                         device="cuda"))


class FastPath(DeviceCase):
    """The compiled torch fast path (cured._torch_fast) against the Python one: the same bits, the
    same errors, the Python path for what it declines, and loaded wherever the package holds it."""

    def setUp(self):
        if cured._fast is None:
            built = [n for n in os.listdir(os.path.dirname(cured.__file__)) if n.startswith("_torch_fast")]
            if built and os.environ.get("CURED_TORCH_FAST", "1") != "0":
                self.fail("the package holds %s but did not load it" % built)
            self.skipTest("no compiled torch fast path (%s)" % ("CURED_TORCH_FAST=0" if built else "not built"))

    def both(self, call):
        """call's result (or its error) through the compiled path and through the Python path."""
        results = []
        fast = cured._fast
        for f in (fast, None):
            cured._fast = f
            try:
                results.append(call())
            except Exception as e:  # noqa: BLE001 - compared by the caller
                results.append((type(e), str(e)))
            finally:
                cured._fast = fast
        return results

    def assert_same(self, call):
        a, b = self.both(call)
        if isinstance(a, tuple) and a and isinstance(a[0], type):
            self.assertEqual(a, b)
            return
        pairs = zip(a, b) if isinstance(a, tuple) else [(a, b)]
        for u, v in pairs:
            self.assertIsInstance(u, torch.Tensor, call)
            self.assertEqual((u.dtype, u.shape, u.device), (v.dtype, v.shape, v.device))
            torch.testing.assert_close(u, v, rtol=0, atol=0, equal_nan=True)

    def test_loaded_with_its_torch(self):
        self.assertEqual(cured._torch_fast.TORCH_VERSION, torch.__version__)

    def test_the_same_results(self):
        x = torch.randn(6, 5, 4, device="cuda")
        x[0, 1, 2] = float("nan")
        cases = [x, x.transpose(0, 2), x[:, ::2], x.half(), x.double(), (x * 100).int(), x > 0,
                 torch.randn(1, 1024, device="cuda").expand(3, 1024), torch.randn(1024, device="cuda")]
        for t in cases:
            for dim in (None, 0, -1, (0, -1), [1, 0]) if t.dim() > 1 else (None, 0, -1):
                for keepdim in (False, True):
                    for f in (cured.sum, cured.amax, cured.amin, cured.argmax, cured.argmin, cured.exact_sum):
                        if f in (cured.argmax, cured.argmin) and isinstance(dim, (tuple, list)):
                            continue
                        self.assert_same(lambda: f(t, dim, keepdim))
                    if t.is_floating_point():
                        for f in (cured.mean, cured.var, cured.std, cured.var_mean, cured.std_mean,
                                  cured.logsumexp):
                            self.assert_same(lambda: f(t, dim, keepdim=keepdim))
                        self.assert_same(lambda: cured.vector_norm(t, 1, dim, keepdim))
                        self.assert_same(lambda: cured.var(t, dim, correction=0, keepdim=keepdim))
                    self.assert_same(lambda: cured.count_nonzero(t, dim, keepdim))
                    self.assert_same(lambda: cured.any(t, dim, keepdim))
        self.assert_same(lambda: cured.sum(x, 1, dtype=torch.float64))
        self.assert_same(lambda: cured.sum(x.half(), dtype=torch.float32))
        self.assert_same(lambda: cured.sum(x.int(), 0, dtype=torch.int64))

    def test_what_it_declines_and_its_errors(self):
        x = torch.randn(4, 5, device="cuda")
        for call in (lambda: cured.sum(x, []), lambda: cured.sum(x, ()), lambda: cured.sum(x, (0, 0)),
                     lambda: cured.sum(x, 2), lambda: cured.sum(x, -3), lambda: cured.sum(x, 1.0),
                     lambda: cured.sum(x, True), lambda: cured.sum(x, 0, 1), lambda: cured.sum(x, (0, 1, 1)),
                     lambda: cured.sum(x, dtype=torch.float16), lambda: cured.sum(x, dtype="float64"),
                     lambda: cured.sum(torch.tensor(2.5, device="cuda")), lambda: cured.sum(torch.tensor(2.5)),
                     lambda: cured.sum(x.cpu()), lambda: cured.sum(torch.ones(3, dtype=torch.complex64, device="cuda")),
                     lambda: cured.amax(torch.empty(0, 3, device="cuda"), 0),
                     lambda: cured.amax(torch.empty(0, 3, device="cuda"), 1),
                     lambda: cured.argmax(torch.empty(0, device="cuda")),
                     lambda: cured.mean(torch.ones(3, dtype=torch.int32, device="cuda")),
                     lambda: cured.vector_norm(x, 3), lambda: cured.var(x, correction=-1),
                     lambda: cured.sum(torch.nn.Parameter(x, requires_grad=False)),
                     lambda: cured.sum(torch.randn([1] * 9, device="cuda")),
                     lambda: cured.sum(x, (1,)), lambda: cured.sum(x, (True,)), lambda: cured.sum(x, [1.0]),
                     lambda: cured.sum(x.to_sparse(), 0), lambda: cured.amax(x.to_sparse())):
            self.assert_same(call)

    def test_streams_and_devices(self):
        x = torch.randn(1 << 20, device="cuda")
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            y = cured.sum(x.view(1024, 1024), 1)
        s.synchronize()
        torch.testing.assert_close(y, x.view(1024, 1024).sum(1), rtol=1e-4, atol=1e-3)
        if torch.cuda.device_count() > 1:
            before = torch.cuda.current_device()
            z = torch.randn(4096, device="cuda:1")
            self.assertEqual(cured.sum(z).device, z.device)
            torch.testing.assert_close(cured.amax(z), z.amax())
            self.assertEqual(torch.cuda.current_device(), before)


class ExactDot(DeviceCase):
    """exact_dot: rounded once, the same bits in any order, every floating type, any layout."""

    def test_rounded_once(self):
        x = torch.tensor([1e300, 3.0, -1e300], dtype=torch.float64, device="cuda")
        y = torch.tensor([1.0, 1e-300, 1.0], dtype=torch.float64, device="cuda")
        got = cured.exact_dot(x, y)
        self.assertEqual((got.shape, got.dtype), (torch.Size([]), torch.float64))
        self.assertEqual(got.item(), 3.0 * 1e-300)
        x = torch.tensor([16777216.0, 1.0, -16777216.0], device="cuda")
        self.assertEqual(cured.exact_dot(x, torch.ones(3, device="cuda")).item(), 1.0)

    def test_float32_against_the_exact_sum(self):
        x, y = torch.randn(1000, device="cuda"), torch.randn(1000, device="cuda")
        exact = _fractions.Fraction(0)
        for a, b in zip(x.double().tolist(), y.double().tolist()):
            exact += _fractions.Fraction(a) * _fractions.Fraction(b)
        want = _round_to_float32(exact)
        self.assertEqual(cured.exact_dot(x, y).item(), want)
        order = torch.randperm(1000, device="cuda")
        self.assertEqual(cured.exact_dot(x[order], y[order]).item(), want)

    def test_out_refused_where_either_input_needs_grad(self):
        x, y = torch.randn(5, device="cuda"), torch.randn(5, device="cuda", requires_grad=True)
        for library, f in (("torch", torch.dot), ("cured", cured.exact_dot)):
            with self.assertRaises(RuntimeError, msg=library):
                f(x, y, out=torch.empty((), device="cuda"))

    def test_every_floating_type_and_layout(self):
        xs = (torch.arange(3000, device="cuda") % 7 - 3).double()
        ys = (torch.arange(3000, device="cuda") % 5 - 2).double()
        want = float((xs * ys).sum())
        for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
            got = cured.exact_dot(xs.to(dtype).reshape(30, 100), ys.to(dtype).reshape(30, 100))
            self.assertEqual(got.dtype, torch.float64 if dtype == torch.float64 else torch.float32)
            self.assertEqual(got.item(), want, dtype)
        wide = torch.stack([xs, xs]).t()  # the first column is xs, strided
        self.assertEqual(cured.exact_dot(wide[:, 0], ys).item(), want)
        out = torch.empty((), device="cuda", dtype=torch.float64)
        self.assertIs(cured.exact_dot(xs, ys, out=out), out)
        self.assertEqual(out.item(), want)
        self.assertEqual(cured.exact_dot(xs[:0], ys[:0]).item(), 0.0)

    def test_gradients_as_torch_dot(self):
        x, y = torch.randn(50, device="cuda", requires_grad=True), torch.randn(50, device="cuda", requires_grad=True)
        cured.exact_dot(x, y).backward()
        torch.testing.assert_close(x.grad, y.detach())
        torch.testing.assert_close(y.grad, x.detach())

    def test_cupy(self):
        try:
            import cupy
        except Exception as e:  # noqa: BLE001 - any failure to import means: not here
            self.skipTest("cupy is not importable (%s)" % e)
        x = cupy.arange(100, dtype=cupy.float32)
        got = cured.exact_dot(x, x)
        self.assertIsInstance(got, cupy.ndarray)
        self.assertEqual(float(got), float(sum(k * k for k in range(100))))
        out = cupy.empty((), dtype=cupy.float32)  # out= of a CuPy array: NumPy's rules
        self.assertIs(cured.exact_dot(x, x, out=out), out)
        self.assertEqual(float(out), float(sum(k * k for k in range(100))))
        total = cupy.empty((), dtype=cupy.float32)
        self.assertIs(cured.sum(x, out=total), total)
        self.assertEqual(float(total), 4950.0)
        with self.assertRaises(ValueError):
            cured.sum(x, out=cupy.empty((2,), dtype=cupy.float32))


class SegmentReduce(DeviceCase):
    """cured.segment_reduce against torch.segment_reduce: every reduce torch has, 1-D to 3-D data
    along each axis, lengths and offsets (of one axis, given to torch in its form, and torch's own
    form), empty segments, initial, unsafe, CuPy arrays and errors."""

    REDUCES = ("sum", "mean", "max", "min")

    def same_as_torch(self, what, data, reduce, **kwargs):
        axis = kwargs.get("axis", 0)
        theirs = {k: _torch_form(v, data, axis) if k in ("lengths", "offsets") else v for k, v in kwargs.items()}
        want = torch.segment_reduce(data, reduce, **theirs)
        got = cured.segment_reduce(data, reduce, **kwargs)
        self.assertEqual((got.shape, got.dtype), (want.shape, want.dtype), what)
        torch.testing.assert_close(got, want, equal_nan=True, msg=lambda m: "%s: %s" % (what, m))

    def test_every_reduce_and_axis(self):
        for dtype in (torch.float32, torch.float64):
            for shape in ((23,), (13, 6), (4, 11, 5)):
                data = torch.randn(*shape, dtype=dtype, device="cuda")
                for axis in range(-len(shape), len(shape)):
                    lengths = _lengths_with_empty(shape[axis])
                    for form, bounds in (("lengths", lengths), ("offsets", _offsets_of(lengths)),
                                         ("lengths", lengths.to(torch.int32))):
                        for reduce in self.REDUCES:
                            what = "%s %s %s axis=%d %s %s" % (reduce, dtype, shape, axis, form, bounds.dtype)
                            self.same_as_torch(what, data, reduce, axis=axis, **{form: bounds})

    def test_amax_and_amin_are_max_and_min(self):
        data = torch.randn(9, 4, device="cuda")
        lengths = _lengths_with_empty(9)
        for alias, name in (("amax", "max"), ("amin", "min")):
            self.assertTrue(torch.equal(cured.segment_reduce(data, alias, lengths=lengths),
                                        cured.segment_reduce(data, name, lengths=lengths)), alias)

    def test_torch_form_per_row(self):
        """lengths and offsets of data.shape[:axis] + (count,): segments of their own in each row."""
        data = torch.randn(5, 9, 3, device="cuda")
        lengths = torch.tensor([[9, 0], [4, 5], [0, 9], [2, 7], [3, 6]], device="cuda")
        deep = torch.randn(2, 3, 8, device="cuda")
        deep_lengths = torch.tensor([[[8, 0, 0], [1, 2, 5], [0, 0, 8]], [[4, 4, 0], [0, 8, 0], [3, 0, 5]]],
                                    device="cuda")
        for reduce in self.REDUCES:
            for axis in (1, -2):
                self.same_as_torch("%s lengths axis=%d" % (reduce, axis), data, reduce, lengths=lengths, axis=axis)
                self.same_as_torch("%s offsets axis=%d" % (reduce, axis), data, reduce, offsets=_offsets_of(lengths),
                                   axis=axis)
            self.same_as_torch("%s 3-D lengths" % reduce, deep, reduce, lengths=deep_lengths, axis=2)
            self.same_as_torch("%s 3-D offsets" % reduce, deep, reduce, offsets=_offsets_of(deep_lengths), axis=-1)

    def test_offsets_that_leave_values_out(self):
        """Offsets need not start at 0 nor end at data.shape[axis]: the values outside are in no segment."""
        offsets = torch.tensor([1, 3, 3, 7], device="cuda")
        per_row = torch.tensor([[0, 2, 5], [1, 1, 10], [3, 9, 9], [0, 0, 0]], device="cuda")
        for reduce in self.REDUCES:
            self.same_as_torch("%s 1-D" % reduce, torch.randn(10, device="cuda"), reduce, offsets=offsets)
            self.same_as_torch("%s axis 0" % reduce, torch.randn(10, 4, device="cuda"), reduce, offsets=offsets)
            self.same_as_torch("%s axis 1" % reduce, torch.randn(4, 10, device="cuda"), reduce, offsets=offsets, axis=1)
            self.same_as_torch("%s per row" % reduce, torch.randn(4, 10, device="cuda"), reduce, offsets=per_row,
                               axis=1)

    def test_initial(self):
        lengths = _lengths_with_empty(12)
        for reduce in self.REDUCES:
            for initial in (2.5, -3.0, 0.0, 7):
                for shape, axis in (((12,), 0), ((12, 5), 0), ((5, 12), 1), ((3, 12, 2), -2)):
                    what = "%s initial=%r %s axis=%d" % (reduce, initial, shape, axis)
                    self.same_as_torch(what, torch.randn(*shape, device="cuda"), reduce, lengths=lengths, axis=axis,
                                       initial=initial)
            self.same_as_torch("%s initial=nan" % reduce, torch.randn(12, device="cuda"), reduce, lengths=lengths,
                               initial=math.nan)
            got = cured.segment_reduce(torch.randn(5, 12, device="cuda"), reduce, lengths=lengths, axis=1,
                                       initial=math.nan)
            self.assertTrue(bool(got.isnan().all()), "%s initial=nan, 2-D: every result NaN" % reduce)

    def test_empty_segments(self):
        """Without initial: sum 0, mean NaN, max -inf, min +inf, as torch's; the integer types'
        limits for integer data (which torch does not take)."""
        data = torch.randn(3, 4, device="cuda")
        lengths = torch.tensor([0, 3, 0], device="cuda")
        for reduce, value in (("sum", 0.0), ("mean", math.nan), ("max", -math.inf), ("min", math.inf)):
            got = cured.segment_reduce(data, reduce, lengths=lengths)
            torch.testing.assert_close(got[0], torch.full((4,), value, device="cuda"), equal_nan=True)
            torch.testing.assert_close(got[2], torch.full((4,), value, device="cuda"), equal_nan=True)
            self.same_as_torch(reduce, data, reduce, lengths=lengths)
        ints = torch.arange(12, dtype=torch.int32, device="cuda").reshape(3, 4)
        got = cured.segment_reduce(ints, "max", lengths=lengths)
        self.assertEqual(got[0].tolist(), [torch.iinfo(torch.int32).min] * 4)
        self.assertEqual(got[1].tolist(), [8, 9, 10, 11])
        self.assertEqual(cured.segment_reduce(ints, "min", lengths=lengths)[2].tolist(),
                         [torch.iinfo(torch.int32).max] * 4)
        self.assertEqual(cured.segment_reduce(ints, "sum", lengths=lengths, initial=5)[:, 0].tolist(), [5, 17, 5])

    def test_cured_reduces(self):
        data = torch.randn(4, 9, device="cuda")
        offsets = torch.tensor([0, 2, 2, 9], device="cuda")
        for name in ("exact_sum", "argmax", "argmin", "logsumexp", "count_nonzero", "any", "all"):
            got = cured.segment_reduce(data, name, offsets=offsets, axis=1)
            want = torch.stack([getattr(cured, "segment_" + name)(row, offsets) for row in data])
            torch.testing.assert_close(got, want, msg=lambda m: "%s: %s" % (name, m))

    def test_unsafe(self):
        data = torch.randn(10, 3, device="cuda")
        lengths = torch.tensor([3, 0, 7], device="cuda")
        for reduce in self.REDUCES:  # the same bits (the empty segment's mean is NaN both ways)
            torch.testing.assert_close(cured.segment_reduce(data, reduce, lengths=lengths, unsafe=True),
                                       cured.segment_reduce(data, reduce, lengths=lengths), rtol=0, atol=0,
                                       equal_nan=True, msg=lambda m: "%s: %s" % (reduce, m))
        short = torch.tensor([3, 0, 4], device="cuda")  # sums to 7 of 10: the last 3 values are in no segment
        for reduce in self.REDUCES:
            self.same_as_torch("%s 1-D short" % reduce, data[:, 0], reduce, lengths=short, unsafe=True)
            self.same_as_torch("%s axis 0 short" % reduce, data, reduce, lengths=short, unsafe=True)
            self.same_as_torch("%s axis 1 short" % reduce, data.t(), reduce, lengths=short, axis=1, unsafe=True)
        for bad in (short, torch.tensor([4, -1, 7], device="cuda")):
            for library, f in (("torch", torch.segment_reduce), ("cured", cured.segment_reduce)):
                with self.assertRaises(RuntimeError, msg="%s lengths %s" % (library, bad.tolist())):
                    f(data, "sum", lengths=bad)
            with self.assertRaises(ValueError):
                cured.segment_reduce(data, "sum", lengths=bad)

    def test_unsafe_waits_for_nothing(self):
        """unsafe=True synchronizes nothing: the call is captured in a CUDA graph, which a wait
        for the device would break."""
        data = torch.randn(64, 8, device="cuda")
        lengths = torch.tensor([10, 0, 54], device="cuda")
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):  # warm up (the stream's workspace) before capturing on that stream
            for _ in range(3):
                cured.segment_reduce(data, "mean", lengths=lengths, unsafe=True, initial=1.0)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            got = cured.segment_reduce(data, "mean", lengths=lengths, unsafe=True, initial=1.0)
        data.copy_(torch.randn_like(data))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(got, torch.segment_reduce(data, "mean", lengths=lengths, initial=1.0))

    def test_cupy(self):
        cupy, error = _try_import("cupy")
        if cupy is None:
            self.skipTest(error)
        data = torch.randn(4, 9, device="cuda")
        lengths = torch.tensor([2, 0, 7], device="cuda")
        for reduce, initial in (("sum", None), ("mean", 1.5), ("max", 0.25), ("min", None)):
            got = cured.segment_reduce(cupy.asarray(data), reduce, lengths=cupy.asarray(lengths), axis=1,
                                       initial=initial)
            self.assertIsInstance(got, cupy.ndarray)
            want = torch.segment_reduce(data, reduce, lengths=_torch_form(lengths, data, 1), axis=1, initial=initial)
            torch.testing.assert_close(torch.as_tensor(got, device="cuda"), want, equal_nan=True,
                                       msg=lambda m: "%s: %s" % (reduce, m))
        with self.assertRaisesRegex(TypeError, "of data's framework"):
            cured.segment_reduce(cupy.asarray(data), "sum", lengths=lengths, axis=1)

    def test_errors(self):
        data = torch.randn(6, 4, device="cuda")
        lengths = torch.tensor([2, 4], device="cuda")
        cases = (
            (ValueError, "no reduce 'prod'; it takes sum, mean, max, min", dict(reduce="prod", lengths=lengths)),
            (TypeError, "indices is not supported", dict(indices=lengths)),
            (TypeError, "exactly one of lengths and offsets", dict()),
            (TypeError, "exactly one of lengths and offsets", dict(lengths=lengths, offsets=_offsets_of(lengths))),
            (ValueError, "data is on cuda", dict(lengths=lengths.cpu())),
            (TypeError, "int32 or int64", dict(lengths=lengths.float())),
            (TypeError, "torch tensor or a CuPy array", dict(lengths=[2, 4])),
            (ValueError, "one axis, or data's axes before axis", dict(lengths=torch.ones(5, 4, dtype=torch.int64,
                                                                                         device="cuda"), axis=1)),
            (ValueError, "axis 2 out of range", dict(lengths=lengths, axis=2)),
            (ValueError, "initial goes with", dict(reduce="argmax", lengths=lengths, initial=0.0)),
            (ValueError, "bad segment offsets", dict(offsets=torch.tensor([0, 7], device="cuda"))),
            (ValueError, "bad segment offsets", dict(offsets=torch.tensor([[0, 5], [0, 3], [0, 4], [0, 2], [1, 0],
                                                                           [0, 4]], device="cuda"), axis=1)),
        )
        for error, message, kwargs in cases:
            reduce = kwargs.pop("reduce", "sum")
            with self.assertRaisesRegex(error, message):
                cured.segment_reduce(data, reduce, **kwargs)
        with self.assertRaisesRegex(TypeError, "initial must be an int for integer data"):
            cured.segment_reduce(torch.ones(6, dtype=torch.int32, device="cuda"), "sum", lengths=lengths, initial=0.5)
        with self.assertRaises(TypeError, msg="integer data's mean"):
            cured.segment_reduce(torch.ones(6, dtype=torch.int32, device="cuda"), "mean", lengths=lengths)

if __name__ == "__main__":
    unittest.main()
