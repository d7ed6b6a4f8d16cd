"""cured's reductions as torch operators, torch.ops.cured.<name>, registered with
torch.library.custom_op where torch 2.4 or later is imported: a schema each, the CUDA kernel
(the package's own C call, into outputs torch allocates), a fake kernel (the outputs' shapes and
dtypes by the same type rules, so that torch.compile and torch.export trace the ops without a
graph break), and for the ops with a derivative torch's formula (register_autograd).

The package's functions call these ops for torch tensors that are traced, of a subclass, or
that need autograd (cured._routed); other torch tensors take the fast path, the same C call.
An op along axes reduces exactly the axes of its dim list, sorted and non-negative, as the
functions pass them (torch's dim and NumPy's axis normalized): [] reduces none.
"""

import collections
import math
import re

import torch

from . import _lib
from . import CuredValueError, _arg_values, _Axes, _normalize_dims, _out_shape, _reduce, _resolve_code
from . import _exact_dot_dtype, _exact_dot_kernel
from . import _segment_kernel, _segment_statistic_kernel, _statistic, _torch_into
from ._arrays import torch_framework

MIN_VERSION = (2, 4)

_fw = torch_framework()
_registered = {}  # name -> the OpOverload torch.ops.cured.<name>.default, once registered


def version_ok(version=None):
    """Whether torch `version` (torch.__version__ by default) has the APIs the ops need."""
    match = re.match(r"(\d+)\.(\d+)", version or torch.__version__)
    return bool(match) and tuple(int(p) for p in match.groups()) >= MIN_VERSION


def register():
    """Registers every op once; False, registering nothing, where this torch is older than 2.4."""
    if _registered:
        return True
    if not version_ok() or not hasattr(torch.library, "custom_op"):
        return False
    for row in OPS:
        op = torch.library.custom_op("cured::" + row.name, row.kernel, mutates_args=(), device_types="cuda",
                                     schema=row.schema)
        op.register_fake(row.fake)
        if row.backward is not None:
            op.register_autograd(row.backward, setup_context=row.setup)
        _registered[row.name] = getattr(torch.ops.cured, row.name).default
    return True


def compiling():
    """Whether torch.compile or torch.export is tracing the caller (dynamo: a constant True)."""
    return torch.compiler.is_compiling()


grad_enabled = torch.is_grad_enabled


# ---- the calls from the package's functions --------------------------------------------------------

def along(name, x, dim, keepdim, extra=(), out=None):
    """torch.ops.cured.<name> of x along dim (torch's, or an _Axes), its extra arguments after
    keepdim; out= checked, resized and filled as torch's out= are."""
    axes = list(_normalize_dims(dim, x.dim()))
    return _into(_registered[name](x, axes, keepdim, *extra), out, x)


def exact_dot(x, y, out=None):
    """torch.ops.cured.exact_dot of x and y; out= as along's (refused where y needs autograd too)."""
    return _into(_registered["exact_dot"](x, y), out, x, (y,))


def _into(result, out, x, others=()):
    """result, or out (checked, resized and filled as torch's out= are) when given."""
    if out is None:
        return result
    _torch_into(out, result.shape, result.dtype, x, others=others)
    return out.copy_(result)


def extreme_dim(name, x, dim, keepdim):
    """torch.ops.cured.max_dim or min_dim as torch.return_types.max or min."""
    axes = _normalize_dims(dim, x.dim())
    values, indices = _registered[name + "_dim"](x, axes[0] if axes else 0, keepdim)
    return getattr(torch.return_types, name)((values, indices))


def segment(name, values, offsets, check, extra=()):
    """torch.ops.cured.segment_<...> of values per segment, its extra arguments after check."""
    return _registered[name](values, offsets, check, *extra)


# ---- kernels and fake kernels ---------------------------------------------------------------------

def _code(t):
    return _fw.dtype_code(t.dtype)


def _reduce_kernel(op):
    def kernel(x, dim, keepdim, *extra):
        return _reduce(op, x, _Axes(dim), keepdim, *extra)
    return kernel


def _reduce_fake(op):
    def fake(x, dim, keepdim, *extra):
        requested = -1 if not extra or extra[0] is None else _fw.dtype_code(extra[0])
        _, code = _resolve_code(op, _code(x), requested)
        return x.new_empty(_out_shape(x.shape, _normalize_dims(_Axes(dim), x.dim()), keepdim),
                           dtype=_fw.dtype_of(code))
    return fake


def _statistic_kernel(stat):
    def kernel(x, dim, keepdim, *extra):
        return _statistic(stat, x, _Axes(dim), keepdim, *extra)
    return kernel


def _statistic_fake(stat):
    two = stat in _lib.TWO_PART

    def fake(x, dim, keepdim, *extra):
        dtype = _fw.dtype_of(_lib.statistic_dtype(stat, _code(x)))
        shape = _out_shape(x.shape, _normalize_dims(_Axes(dim), x.dim()), keepdim)
        out = x.new_empty(shape, dtype=dtype)
        return (out, x.new_empty(shape, dtype=dtype)) if two else out
    return fake


def _extreme_dim_kernel(op):
    def kernel(x, dim, keepdim):
        return _arg_values(op, x, _Axes((dim,)), keepdim)
    return kernel


def _extreme_dim_fake(x, dim, keepdim):
    _code(x)
    shape = _out_shape(x.shape, _normalize_dims(_Axes((dim,)), x.dim()), keepdim)
    return x.new_empty(shape), x.new_empty(shape, dtype=torch.int64)


def _segment_count(values, offsets):
    """The count of segments, after the shape checks the C call makes."""
    if values.dim() != 1:
        raise CuredValueError("cured: segment values must have one axis, not %d" % values.dim())
    if offsets.dim() != 1 or offsets.dtype != torch.int64:
        raise CuredValueError("cured: segment offsets must be one axis of int64 (count + 1 of them)")
    if offsets.shape[0] < 1:
        raise CuredValueError("cured: segment offsets need at least one entry (count + 1)")
    return offsets.shape[0] - 1


def _segment_op_kernel(op):
    def kernel(values, offsets, check, *extra):
        return _segment_kernel(op, values, offsets, extra[0] if extra else None, check)
    return kernel


def _segment_op_fake(op):
    def fake(values, offsets, check, *extra):
        count = _segment_count(values, offsets)
        requested = -1 if not extra or extra[0] is None else _fw.dtype_code(extra[0])
        _, code = _resolve_code(op, _code(values), requested, segments=True)
        return values.new_empty((count,), dtype=_fw.dtype_of(code))
    return fake


def _exact_dot_op_kernel(x, y):
    return _exact_dot_kernel(x, y)


def _exact_dot_fake(x, y):
    """exact_dot's 0-d result, after the checks the call makes on x and y."""
    return x.new_empty((), dtype=_fw.dtype_of(_exact_dot_dtype(_code(x), _code(y), x.shape, y.shape)))


def _segment_statistic_op_kernel(stat):
    def kernel(values, offsets, check, *extra):
        return _segment_statistic_kernel(stat, values, offsets, check, *extra)
    return kernel


def _segment_statistic_op_fake(stat):
    two = stat in _lib.TWO_PART

    def fake(values, offsets, check, *extra):
        count = _segment_count(values, offsets)
        dtype = _fw.dtype_of(_lib.statistic_dtype(stat, _code(values), segments=True))
        out = values.new_empty((count,), dtype=dtype)
        return (out, values.new_empty((count,), dtype=dtype)) if two else out
    return fake


# ---- derivatives: torch's formulas (tools/autograd/derivatives.yaml, FunctionsManual.cpp) -------------

def _unreduce(t, dim, keepdim):
    """t with the reduced axes (dim: sorted, non-negative) back as extent 1."""
    if not keepdim:
        for axis in dim:
            t = t.unsqueeze(axis)
    return t


def _count(mask, dim):
    """The count of True along dim, kept as extent 1 (dim []: each element alone)."""
    return mask.sum(dim, keepdim=True) if dim else mask.to(torch.int64)


def _mean_of(x, dim):
    return x.mean(dim, keepdim=True) if dim else x


def _reduced(shape, dim):
    """The count of elements each output reduces."""
    return math.prod(shape[axis] for axis in dim)


def _setup_axes(ctx, inputs, output, saved=()):
    """What every backward along axes needs: the input's shape and dtype, dim, keepdim, the
    count of the op's arguments, and the extra argument (dtype, correction or ord)."""
    x, dim, keepdim = inputs[:3]
    ctx.shape, ctx.dtype, ctx.dim, ctx.keepdim, ctx.nargs = x.shape, x.dtype, dim, keepdim, len(inputs)
    ctx.extra = inputs[3] if len(inputs) > 3 else None
    ctx.save_for_backward(*saved)


def _grads(ctx, grad):
    """The backward's result: grad for the input (in its dtype), None for the other arguments."""
    return (grad.to(ctx.dtype),) + (None,) * (ctx.nargs - 1)


def _setup_shape(ctx, inputs, output):
    _setup_axes(ctx, inputs, output)


def _setup_input_output(ctx, inputs, output):
    _setup_axes(ctx, inputs, output, (inputs[0], output))


def _backward_sum(ctx, grad):
    """sum_backward: the output's gradient expanded over the reduced axes."""
    return _grads(ctx, _unreduce(grad, ctx.dim, ctx.keepdim).expand(ctx.shape))


def _backward_mean(ctx, grad):
    """mean_backward: the sum's, over the count reduced."""
    return _grads(ctx, _unreduce(grad, ctx.dim, ctx.keepdim).expand(ctx.shape) / _reduced(ctx.shape, ctx.dim))


def _backward_amax_amin(ctx, grad):
    """scale_grad_by_count: the gradient shared evenly among the elements equal to the result
    (with a NaN result none is equal, and the gradients are NaN, as torch's)."""
    x, result = ctx.saved_tensors
    mask = _unreduce(result, ctx.dim, ctx.keepdim) == x
    return _grads(ctx, (_unreduce(grad, ctx.dim, ctx.keepdim) / _count(mask, ctx.dim)) * mask)


def _backward_max_min(ctx, grad):
    """evenly_distribute_backward: the gradient shared evenly among the elements equal to the
    result, or among the NaNs when the result is NaN."""
    x, result = ctx.saved_tensors
    value = _unreduce(result, ctx.dim, ctx.keepdim)
    mask = (x == value) | (x.isnan() & value.isnan())
    return _grads(ctx, mask * (_unreduce(grad, ctx.dim, ctx.keepdim) / _count(mask, ctx.dim)))


def _setup_extreme_dim(ctx, inputs, output):
    x, dim, keepdim = inputs
    ctx.shape, ctx.dtype, ctx.dim, ctx.keepdim, ctx.nargs = x.shape, x.dtype, dim, keepdim, 3
    ctx.save_for_backward(output[1])


def _backward_extreme_dim(ctx, grad_values, grad_indices):
    """value_selecting_reduction_backward: the gradient to the index selected."""
    indices, = ctx.saved_tensors
    if len(ctx.shape) == 0:
        return _grads(ctx, grad_values)
    if not ctx.keepdim:
        grad_values, indices = grad_values.unsqueeze(ctx.dim), indices.unsqueeze(ctx.dim)
    return _grads(ctx, grad_values.new_zeros(ctx.shape).scatter(ctx.dim, indices, grad_values))


def _var_grad(grad, x, dim, keepdim, correction):
    """var_backward along dim: (2 / (n - correction)) * grad * (x - mean), in grad's dtype."""
    dof = _reduced(x.shape, dim) - correction
    scale = 2.0 / dof if dof != 0 else math.inf
    x = x.to(grad.dtype)
    return scale * _unreduce(grad, dim, keepdim) * (x - _mean_of(x, dim))


def _std_to_var_grad(grad, std):
    """std_backward's first step: the gradient of the variance from that of std."""
    return (grad / (std * 2)).masked_fill(std == 0, 0)


def _mean_grad(grad, ctx):
    return _unreduce(grad, ctx.dim, ctx.keepdim).expand(ctx.shape) / _reduced(ctx.shape, ctx.dim)


def _setup_moments(ctx, inputs, output):
    """var, std and the pairs: the input, and std's result (or the pair's first) where needed."""
    first = output[0] if isinstance(output, (tuple, list)) else output
    _setup_axes(ctx, inputs, output, (inputs[0], first))


def _backward_var(ctx, grad):
    x, _ = ctx.saved_tensors
    return _grads(ctx, _var_grad(grad, x, ctx.dim, ctx.keepdim, ctx.extra))


def _backward_std(ctx, grad):
    x, std = ctx.saved_tensors
    return _grads(ctx, _var_grad(_std_to_var_grad(grad, std), x, ctx.dim, ctx.keepdim, ctx.extra))


def _backward_var_mean(ctx, grad_var, grad_mean):
    x, _ = ctx.saved_tensors
    return _grads(ctx, _var_grad(grad_var, x, ctx.dim, ctx.keepdim, ctx.extra) + _mean_grad(grad_mean, ctx))


def _backward_std_mean(ctx, grad_std, grad_mean):
    x, std = ctx.saved_tensors
    return _grads(ctx, _var_grad(_std_to_var_grad(grad_std, std), x, ctx.dim, ctx.keepdim, ctx.extra)
                  + _mean_grad(grad_mean, ctx))


def _backward_logsumexp(ctx, grad):
    """logsumexp_backward: grad * exp(x - result)."""
    x, result = ctx.saved_tensors
    return _grads(ctx, _unreduce(grad, ctx.dim, ctx.keepdim)
                  * (x.to(result.dtype) - _unreduce(result, ctx.dim, ctx.keepdim)).exp())


def _backward_vector_norm(ctx, grad):
    """linalg_vector_norm_backward for ord 1, 2 and inf (the orders cured takes)."""
    x, norm = ctx.saved_tensors
    x = x.to(norm.dtype)
    grad, norm = _unreduce(grad, ctx.dim, ctx.keepdim), _unreduce(norm, ctx.dim, ctx.keepdim)
    if ctx.extra == 1.0:
        return _grads(ctx, x.sgn() * grad)
    if ctx.extra == 2.0:
        return _grads(ctx, grad * (x / norm).masked_fill(norm == 0, 0))
    magnitude = x.abs()
    mask = magnitude.eq(norm) | magnitude.isnan()
    return _grads(ctx, x.sgn() * ((grad / _count(mask, ctx.dim)) * mask))


def _setup_segment(ctx, inputs, output):
    values, offsets = inputs[:2]
    ctx.n, ctx.dtype, ctx.nargs = values.shape[0], values.dtype, len(inputs)
    ctx.save_for_backward(offsets)


def _per_value(grad, offsets, n):
    """grad's entry for each of the n values: that of the segment holding it, 0 for values
    outside every segment (offsets as the forward checked them: non-decreasing)."""
    count = offsets.shape[0] - 1
    if count == 0:
        return grad.new_zeros((n,))
    index = torch.arange(n, device=offsets.device)
    segment = torch.searchsorted(offsets, index, right=True) - 1
    inside = (segment >= 0) & (segment < count)
    return torch.where(inside, grad[segment.clamp(0, count - 1)], grad.new_zeros(()))


def _backward_segment_sum(ctx, grad):
    offsets, = ctx.saved_tensors
    return _grads(ctx, _per_value(grad, offsets, ctx.n))


def _backward_segment_mean(ctx, grad):
    offsets, = ctx.saved_tensors
    return _grads(ctx, _per_value(grad / (offsets[1:] - offsets[:-1]), offsets, ctx.n))


def _setup_dot(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _backward_dot(ctx, grad):
    """dot's backward: grad * y for x, grad * x for y (each in its input's dtype)."""
    x, y = ctx.saved_tensors
    return (grad * y.to(grad.dtype)).to(x.dtype), (grad * x.to(grad.dtype)).to(y.dtype)


# ---- the table: one row per op ------------------------------------------------------------------

Row = collections.namedtuple("Row", "name schema kernel fake setup backward")

_EXTRA = {_lib.PARAM_NONE: "", _lib.PARAM_CORRECTION: ", float correction", _lib.PARAM_ORDER: ", float ord"}

# name -> (setup_context, backward)
_DERIVATIVES = {
    "sum": (_setup_shape, _backward_sum),
    "exact_sum": (_setup_shape, _backward_sum),
    "amin": (_setup_input_output, _backward_amax_amin),
    "amax": (_setup_input_output, _backward_amax_amin),
    "min": (_setup_input_output, _backward_max_min),
    "max": (_setup_input_output, _backward_max_min),
    "min_dim": (_setup_extreme_dim, _backward_extreme_dim),
    "max_dim": (_setup_extreme_dim, _backward_extreme_dim),
    "mean": (_setup_shape, _backward_mean),
    "var": (_setup_moments, _backward_var),
    "std": (_setup_moments, _backward_std),
    "var_mean": (_setup_moments, _backward_var_mean),
    "std_mean": (_setup_moments, _backward_std_mean),
    "logsumexp": (_setup_input_output, _backward_logsumexp),
    "vector_norm": (_setup_input_output, _backward_vector_norm),
    "segment_sum": (_setup_segment, _backward_segment_sum),
    "segment_exact_sum": (_setup_segment, _backward_segment_sum),
    "segment_mean": (_setup_segment, _backward_segment_mean),
    "exact_dot": (_setup_dot, _backward_dot),
}


def _rows():
    """The ops, from the C library's tables of ops and statistics: each along axes and per
    segment, and max and min whole (torch.max's derivative) and along one dim with indices."""
    rows = []

    def add(name, schema, kernel, fake):
        setup, backward = _DERIVATIVES.get(name, (None, None))
        rows.append(Row(name, schema, kernel, fake, setup, backward))

    for row in _lib.OPS:
        name = {"min": "amin", "max": "amax"}.get(row.name, row.name)
        dtype = ", ScalarType? dtype" if row.code == _lib.SUM else ""
        add(name, "(Tensor x, int[] dim, bool keepdim%s) -> Tensor" % dtype, _reduce_kernel(row.code),
            _reduce_fake(row.code))
        add("segment_" + name, "(Tensor values, Tensor offsets, bool check%s) -> Tensor" % dtype,
            _segment_op_kernel(row.code), _segment_op_fake(row.code))
    for row in _lib.STATISTICS:
        returns = "(Tensor, Tensor)" if row.parts == 2 else "Tensor"
        add(row.name, "(Tensor x, int[] dim, bool keepdim%s) -> %s" % (_EXTRA[row.param], returns),
            _statistic_kernel(row.code), _statistic_fake(row.code))
        add("segment_" + row.name, "(Tensor values, Tensor offsets, bool check%s) -> %s" % (_EXTRA[row.param], returns),
            _segment_statistic_op_kernel(row.code), _segment_statistic_op_fake(row.code))
    for name, op, arg in (("max", _lib.MAX, _lib.ARGMAX), ("min", _lib.MIN, _lib.ARGMIN)):
        add(name, "(Tensor x, int[] dim, bool keepdim) -> Tensor", _reduce_kernel(op), _reduce_fake(op))
        add(name + "_dim", "(Tensor x, int dim, bool keepdim) -> (Tensor values, Tensor indices)",
            _extreme_dim_kernel(arg), _extreme_dim_fake)
    add("exact_dot", "(Tensor x, Tensor y) -> Tensor", _exact_dot_op_kernel, _exact_dot_fake)
    return tuple(rows)


OPS = _rows()
