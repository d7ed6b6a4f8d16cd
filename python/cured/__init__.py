"""cured: reductions of CUDA arrays, zero-copy, on the framework's current stream.

    import torch, cured
    x = torch.rand(4096, 1024, device="cuda")
    cured.sum(x, dim=1)            # like torch.sum(x, dim=1), one kernel launch
    cured.argmax(x, dim=0)         # int64 indices, first on ties, NaN wins
    cured.exact_sum(x)             # the exact sum rounded once: the same bits for any order
    var, mean = cured.var_mean(x, dim=1)   # one pass: Welford and Chan
    cured.logsumexp(x, dim=1)      # one pass: a running maximum

Inputs: torch tensors, CuPy arrays, objects with __cuda_array_interface__ (Numba) or __dlpack__
(JAX), of bool, int8, uint8, int16, int32, int64, float16, bfloat16, float32 or float64, any
shape up to 8 axes and any non-negative strides (no copy). The result is an array of the input's
framework (torch in, torch out; CuPy in, CuPy out; others: torch if installed, else CuPy, else
Numba), allocated through it and written on its current stream; nothing waits for the GPU, except the
segmented forms with check=True. PyTorch's semantics where it defines them: see docs/PYTHON.md.

Errors: TypeError for an unsupported element type or memory that is not on a CUDA device,
ValueError for a bad dim, shape or offsets, cured.CuredError (a RuntimeError) for CUDA failures.
"""

from sys import byteorder as _byteorder
from typing import Any as _Any
from typing import Optional as _Optional
from typing import Sequence as _Sequence
from typing import Tuple as _Tuple
from typing import Union as _Union

from . import _arrays, _lib
from ._arrays import contiguous_strides as _contiguous_strides
from ._arrays import describe as _describe
from ._lib import CuredError, CuredTypeError, CuredValueError
from ._version import __version__  # noqa: F401 - the package's version (pip's)
from ._version import cuda_architectures as __cuda_architectures__  # noqa: F401 - what libcured_c runs on

__all__ = ["sum", "amin", "amax", "argmin", "argmax", "exact_sum", "mean", "var", "std", "var_mean", "std_mean",
           "aminmax", "vector_norm", "logsumexp", "count_nonzero", "any", "all", "segment_sum", "segment_amin",
           "segment_amax", "segment_argmin", "segment_argmax", "segment_exact_sum", "segment_mean", "segment_var",
           "segment_std", "segment_var_mean", "segment_std_mean", "segment_aminmax", "segment_vector_norm",
           "segment_logsumexp", "segment_count_nonzero", "segment_any", "segment_all", "CuredError",
           "CuredTypeError", "CuredValueError"]

# The annotations' names: an array is a torch tensor, a CuPy array, or an object with
# __cuda_array_interface__ or __dlpack__ (results: see the module's docstring); dims as torch's.
_Array = _Any
_Dims = _Optional[_Union[int, _Sequence[int]]]
_DType = _Any  # a torch dtype, or a NumPy dtype or its name, of the input's framework

def _normalize_dims(dim, rank):
    """dim (None, an int, or a sequence of ints, negative from the end) as sorted axes of a
    rank-`rank` array; None and an empty sequence mean every axis, as in torch.sum."""
    if dim is None:
        return tuple(range(rank))
    if isinstance(dim, bool) or not isinstance(dim, (int, tuple, list)):
        if hasattr(dim, "__index__") and not isinstance(dim, bool):
            dim = dim.__index__()
        else:
            raise TypeError("cured: dim must be None, an int or a tuple of ints, not %s" % type(dim).__name__)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(rank))
    span = max(rank, 1)
    seen = []
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError("cured: dim must hold ints, not %s" % type(d).__name__)
        if not -span <= d < span:
            raise CuredValueError("cured: dim %d out of range for an array of %d axes (expected %d..%d)"
                                  % (d, rank, -span, span - 1))
        d %= span
        if d in seen:
            raise CuredValueError("cured: dim %d appears more than once" % d)
        seen.append(d)
    if rank == 0:
        return ()
    return tuple(sorted(seen))


def _out_shape(shape, axes, keepdim):
    if keepdim:
        return tuple(1 if k in axes else e for k, e in enumerate(shape))
    return tuple(e for k, e in enumerate(shape) if k not in axes)


# The torch fast path: plans of torch calls by (op, dtype, shape, strides, device, dim, keepdim,
# requested) for ops and (-1 - statistic, ...) for statistics, as _plan works them out, kept so
# that a repeated call does only a dict lookup, the allocation (new_empty) and the C call (a torch
# call's host cost is otherwise several microseconds of Python). Other inputs run _plan each call.
_plans = {}
_torch_tensor = None
_torch_stream = None
_PTR = _lib.POINTER_BYTES
_ORDER = _byteorder


def _bind_torch():
    """Binds the fast path to torch, once a torch tensor arrives."""
    global _torch_tensor, _torch_stream
    import torch
    _torch_stream = _arrays.torch_framework().current_stream
    _torch_tensor = torch.Tensor


def _resolve(op, d, dtype, segments=False):
    """The op as run on input d (along axes, or per segment) and its output's type code: the
    exact sum of integers is their int64 sum (exact, wrapping as torch.sum does beyond 2^63)."""
    requested = -1 if dtype is None else d.fw.dtype_code(dtype)
    if op == _lib.EXACT_SUM and d.dtype not in _lib.FLOATING:
        op = _lib.SUM
    return op, _lib.result_dtype(op, d.dtype, requested, segments)


def _plan(statistic, which, d, dim, keepdim, dtype=None):
    """What a reduction along axes of input d works out before it runs, for torch's fast path
    (kept by key) and every other input (each call) alike: which (an op, or a statistic when
    `statistic`) as run, the output's shape and its dtype in d's framework, the packed axes and
    their count, and the input's and the output's cured_array bytes after their data pointer."""
    axes = _normalize_dims(dim, len(d.shape))
    if statistic:
        code = _lib.statistic_dtype(which, d.dtype)
    else:
        which, code = _resolve(which, d, dtype)
    shape = _out_shape(d.shape, axes, keepdim)
    in_rest = _lib.pack_array(0, d.dtype, d.shape, d.strides)[_PTR:]  # first: it checks the rank
    return (which, shape, d.fw.dtype_of(code), _lib.pack_axes(axes), len(axes), in_rest,
            _lib.pack_array(0, code, shape, _contiguous_strides(shape))[_PTR:])


def _keep(key, plan):
    """plan, kept for key (the cache forgets everything past 4096 plans)."""
    if len(_plans) > 4096:
        _plans.clear()
    _plans[key] = plan
    return plan


def _reduce(op, x, dim, keepdim, dtype=None):
    if type(x) is _torch_tensor:
        device = x.get_device()
        if device >= 0:
            key = (op, x.dtype, x.shape, x.stride(), device, type(dim),
                   dim if type(dim) is not list else tuple(dim), keepdim, dtype)
            plan = _plans.get(key)
            if plan is None:
                plan = _keep(key, _plan(False, op, _describe(x), dim, keepdim, dtype))
            c_op, shape, out_dtype, axes, naxes, in_rest, out_rest = plan
            out = x.new_empty(shape, dtype=out_dtype)
            status = _lib.lib.cured_reduce(c_op, x.data_ptr().to_bytes(_PTR, _ORDER) + in_rest, axes, naxes,
                                           out.data_ptr().to_bytes(_PTR, _ORDER) + out_rest, None,
                                           _torch_stream(device), None)
            if status:
                _lib.raise_for(status)
            return out
    elif _torch_tensor is None and type(x).__module__ == "torch":
        _bind_torch()
        return _reduce(op, x, dim, keepdim, dtype)
    d = _describe(x)
    c_op, shape, out_dtype, axes, naxes, in_rest, out_rest = _plan(False, op, d, dim, keepdim, dtype)
    out, ptr = d.fw.empty(shape, out_dtype, d)
    status = _lib.lib.cured_reduce(c_op, d.ptr.to_bytes(_PTR, _ORDER) + in_rest, axes, naxes,
                                   ptr.to_bytes(_PTR, _ORDER) + out_rest, None, d.stream, None)
    if status:
        _lib.raise_for(status)
    return out


def sum(x: _Array, dim: _Dims = None, keepdim: bool = False, *, dtype: _DType = None) -> _Array:
    """torch.sum: integers and bool into int64, float16 and bfloat16 accumulated in float and
    returned as their own type, float32 and float64 in their own; dtype: float32 for float16 and
    bfloat16 inputs, float64 for float32 inputs, or the default."""
    return _reduce(_lib.SUM, x, dim, keepdim, dtype)


def amin(x: _Array, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """torch.amin: the least element along dim; NaN if any is NaN."""
    return _reduce(_lib.MIN, x, dim, keepdim)


def amax(x: _Array, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """torch.amax: the greatest element along dim; NaN if any is NaN."""
    return _reduce(_lib.MAX, x, dim, keepdim)


def argmin(x: _Array, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """torch.argmin: the int64 index of the first least element (the first NaN if any); dim
    None: the index into the flattened array; a tuple of dims: the row-major index over them."""
    return _reduce(_lib.ARGMIN, x, dim, keepdim)


def argmax(x: _Array, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """torch.argmax: as argmin, for the greatest element."""
    return _reduce(_lib.ARGMAX, x, dim, keepdim)


def exact_sum(x: _Array, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """The exact sum of each output's elements, rounded once to float32 (float64 for float64
    inputs): the same bits for any order, split or device. Integers: the int64 sum."""
    return _reduce(_lib.EXACT_SUM, x, dim, keepdim)


# ---- statistics: one pass along axes ------------------------------------------------------------

def _statistic(stat, x, dim, keepdim, param=0.0):
    """The statistic's output, or for the two-part ones the pair of outputs."""
    two = stat in _lib.TWO_PART
    if type(x) is _torch_tensor:
        device = x.get_device()
        if device >= 0:
            key = (-1 - stat, x.dtype, x.shape, x.stride(), device, type(dim),
                   dim if type(dim) is not list else tuple(dim), keepdim)
            plan = _plans.get(key)
            if plan is None:
                plan = _keep(key, _plan(True, stat, _describe(x), dim, keepdim))
            _, shape, out_dtype, axes, naxes, in_rest, out_rest = plan
            out = x.new_empty(shape, dtype=out_dtype)
            second = x.new_empty(shape, dtype=out_dtype) if two else None
            status = _lib.lib.cured_statistic_reduce(
                stat, x.data_ptr().to_bytes(_PTR, _ORDER) + in_rest, axes, naxes, param,
                out.data_ptr().to_bytes(_PTR, _ORDER) + out_rest,
                second.data_ptr().to_bytes(_PTR, _ORDER) + out_rest if two else None, _torch_stream(device), None)
            if status:
                _lib.raise_for(status)
            return (out, second) if two else out
    elif _torch_tensor is None and type(x).__module__ == "torch":
        _bind_torch()
        return _statistic(stat, x, dim, keepdim, param)
    d = _describe(x)
    _, shape, out_dtype, axes, naxes, in_rest, out_rest = _plan(True, stat, d, dim, keepdim)
    out, ptr = d.fw.empty(shape, out_dtype, d)
    second, second_ptr = d.fw.empty(shape, out_dtype, d) if two else (None, 0)
    status = _lib.lib.cured_statistic_reduce(
        stat, d.ptr.to_bytes(_PTR, _ORDER) + in_rest, axes, naxes, param, ptr.to_bytes(_PTR, _ORDER) + out_rest,
        second_ptr.to_bytes(_PTR, _ORDER) + out_rest if two else None, d.stream, None)
    if status:
        _lib.raise_for(status)
    return (out, second) if two else out


def _correction(correction):
    """torch's correction: None means 1 (Bessel's); otherwise a number >= 0."""
    if correction is None:
        return 1.0
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise TypeError("cured: correction must be a number, not %s" % type(correction).__name__)
    return float(correction)


def _order(ord):
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError("cured: ord must be 1, 2 or inf, not %r" % (ord,))
    return float(ord)


def mean(x: _Array, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """torch.mean of floating elements, as float32 (float64 for float64: torch returns float16
    and bfloat16 for those, cured the float32 mean it accumulated). Empty: NaN."""
    return _statistic(_lib.MEAN, x, dim, keepdim)


def var(x: _Array, dim: _Dims = None, *, correction: _Optional[float] = 1, keepdim: bool = False) -> _Array:
    """torch.var: m2 / max(n - correction, 0) in one pass (Welford per element, Chan per
    combination), float32 for float16, bfloat16 and float32 inputs, float64 for float64."""
    return _statistic(_lib.VAR, x, dim, keepdim, _correction(correction))


def std(x: _Array, dim: _Dims = None, *, correction: _Optional[float] = 1, keepdim: bool = False) -> _Array:
    """torch.std: the square root of var."""
    return _statistic(_lib.STD, x, dim, keepdim, _correction(correction))


def var_mean(x: _Array, dim: _Dims = None, *, correction: _Optional[float] = 1,
             keepdim: bool = False) -> _Tuple[_Array, _Array]:
    """torch.var_mean: (var, mean) from the same pass."""
    return _statistic(_lib.VAR_MEAN, x, dim, keepdim, _correction(correction))


def std_mean(x: _Array, dim: _Dims = None, *, correction: _Optional[float] = 1,
             keepdim: bool = False) -> _Tuple[_Array, _Array]:
    """torch.std_mean: (std, mean) from the same pass."""
    return _statistic(_lib.STD_MEAN, x, dim, keepdim, _correction(correction))


def aminmax(x: _Array, *, dim: _Dims = None, keepdim: bool = False) -> _Tuple[_Array, _Array]:
    """torch.aminmax: (min, max) of any element type in one pass, NaN propagating; of no elements
    the identities (+inf and -inf, or the integer type's largest and smallest) where torch raises."""
    return _statistic(_lib.AMINMAX, x, dim, keepdim)


def vector_norm(x: _Array, ord: float = 2, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """torch.linalg.vector_norm for ord 1, 2 (scaled: no overflow or underflow) and inf; other
    orders raise ValueError."""
    return _statistic(_lib.VECTOR_NORM, x, dim, keepdim, _order(ord))


def logsumexp(x: _Array, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """torch.logsumexp in one pass; dim None: every axis. -inf for no elements or only -inf."""
    return _statistic(_lib.LOGSUMEXP, x, dim, keepdim)


def count_nonzero(x: _Array, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """torch.count_nonzero: int64 counts; NaN counts, -0.0 does not."""
    return _statistic(_lib.COUNT_NONZERO, x, dim, keepdim)


def any(x: _Array, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """torch.any: bool, whether some element is nonzero (False when empty)."""
    return _statistic(_lib.ANY, x, dim, keepdim)


def all(x: _Array, dim: _Dims = None, keepdim: bool = False) -> _Array:
    """torch.all: bool, whether every element is nonzero (True when empty)."""
    return _statistic(_lib.ALL, x, dim, keepdim)


# ---- per segment ------------------------------------------------------------------------------

def _segment_inputs(values, offsets):
    """The descriptions of a segmented call's values and offsets, checked, and the count."""
    v = _describe(values)
    o = _describe(offsets)
    if len(v.shape) != 1:
        raise CuredValueError("cured: segment values must have one axis, not %d" % len(v.shape))
    if len(o.shape) != 1 or o.dtype != _lib.INT64:
        raise CuredValueError("cured: segment offsets must be one axis of int64 (count + 1 of them)")
    if o.shape[0] < 1:
        raise CuredValueError("cured: segment offsets need at least one entry (count + 1)")
    if o.shape[0] > 1 and o.strides[0] != 1:
        raise CuredValueError("cured: segment offsets must be contiguous")
    if v.device != o.device:
        raise CuredValueError("cured: the values are on device %d, the offsets on device %d" % (v.device, o.device))
    return v, o, o.shape[0] - 1


def _segment(op, values, offsets, dtype, check):
    """op of each segment, with the segment family's type rules (SEGMENT_RESULT_DTYPES)."""
    v, o, count = _segment_inputs(values, offsets)
    op, code = _resolve(op, v, dtype, segments=True)
    out, ptr = v.fw.empty((count,), v.fw.dtype_of(code), v)
    _lib.segment_reduce(op, _lib.pack_array(v.ptr, v.dtype, v.shape, v.strides), o.ptr, count,
                        _lib.pack_array(ptr, code, (count,), (1,)), check, v.stream)
    return out


def segment_sum(values: _Array, offsets: _Array, *, dtype: _DType = None, check: bool = True) -> _Array:
    """The sum of each segment values[offsets[s]:offsets[s + 1]] (values: one axis of int32,
    int64, float16, bfloat16, float32 or float64; offsets: count + 1 non-decreasing int64 within
    [0, len(values)], contiguous, on the same device), of sum's types; dtype as sum's (float32
    for float16 and bfloat16 values, float64 for float32). check=True waits for the result and
    raises ValueError for bad offsets; check=False returns at once (bad offsets then leave the
    results unspecified, never read outside the values)."""
    return _segment(_lib.SUM, values, offsets, dtype, check)


def segment_amin(values: _Array, offsets: _Array, *, check: bool = True) -> _Array:
    """The least value of each segment (NaN if any is NaN; +inf, or the type's largest, when
    empty); values and offsets as for segment_sum."""
    return _segment(_lib.MIN, values, offsets, None, check)


def segment_amax(values: _Array, offsets: _Array, *, check: bool = True) -> _Array:
    """The greatest value of each segment (NaN if any is NaN; -inf, or the type's smallest, when
    empty); values and offsets as for segment_sum."""
    return _segment(_lib.MAX, values, offsets, None, check)


def segment_argmin(values: _Array, offsets: _Array, *, check: bool = True) -> _Array:
    """The int64 index within each segment of its first least value (the first NaN if any); -1
    for an empty segment."""
    return _segment(_lib.ARGMIN, values, offsets, None, check)


def segment_argmax(values: _Array, offsets: _Array, *, check: bool = True) -> _Array:
    """The int64 index within each segment of its first greatest value (the first NaN if any);
    -1 for an empty segment."""
    return _segment(_lib.ARGMAX, values, offsets, None, check)


def segment_exact_sum(values: _Array, offsets: _Array, *, check: bool = True) -> _Array:
    """The exact sum of each segment rounded once, as exact_sum (integers: the int64 sum); 0 when
    empty."""
    return _segment(_lib.EXACT_SUM, values, offsets, None, check)


def _segment_statistic(stat, values, offsets, check, param=0.0):
    """stat of each segment (a pair for the two-part ones), with the segment family's type rules
    (SEGMENT_STATISTIC_DTYPES)."""
    v, o, count = _segment_inputs(values, offsets)
    code = _lib.statistic_dtype(stat, v.dtype, segments=True)
    out_dtype = v.fw.dtype_of(code)
    two = stat in _lib.TWO_PART
    out, ptr = v.fw.empty((count,), out_dtype, v)
    second, second_ptr = v.fw.empty((count,), out_dtype, v) if two else (None, 0)
    _lib.segment_statistic(stat, _lib.pack_array(v.ptr, v.dtype, v.shape, v.strides), o.ptr, count, param,
                           _lib.pack_array(ptr, code, (count,), (1,)),
                           _lib.pack_array(second_ptr, code, (count,), (1,)) if two else None, check, v.stream)
    return (out, second) if two else out


def segment_mean(values: _Array, offsets: _Array, *, check: bool = True) -> _Array:
    """The mean of each segment, as mean (NaN when empty); values and offsets as for segment_sum,
    of floating types for this and the other floating statistics (var to logsumexp)."""
    return _segment_statistic(_lib.MEAN, values, offsets, check)


def segment_var(values: _Array, offsets: _Array, *, correction: _Optional[float] = 1, check: bool = True) -> _Array:
    """The variance of each segment in one pass, as var: m2 / max(n - correction, 0)."""
    return _segment_statistic(_lib.VAR, values, offsets, check, _correction(correction))


def segment_std(values: _Array, offsets: _Array, *, correction: _Optional[float] = 1, check: bool = True) -> _Array:
    """The standard deviation of each segment, as std: the square root of segment_var."""
    return _segment_statistic(_lib.STD, values, offsets, check, _correction(correction))


def segment_var_mean(values: _Array, offsets: _Array, *, correction: _Optional[float] = 1,
                     check: bool = True) -> _Tuple[_Array, _Array]:
    """(var, mean) of each segment from the same pass, as var_mean."""
    return _segment_statistic(_lib.VAR_MEAN, values, offsets, check, _correction(correction))


def segment_std_mean(values: _Array, offsets: _Array, *, correction: _Optional[float] = 1,
                     check: bool = True) -> _Tuple[_Array, _Array]:
    """(std, mean) of each segment from the same pass, as std_mean."""
    return _segment_statistic(_lib.STD_MEAN, values, offsets, check, _correction(correction))


def segment_aminmax(values: _Array, offsets: _Array, *, check: bool = True) -> _Tuple[_Array, _Array]:
    """(min, max) of each segment in one pass, as aminmax (the identities when empty), of the
    segment types."""
    return _segment_statistic(_lib.AMINMAX, values, offsets, check)


def segment_vector_norm(values: _Array, offsets: _Array, ord: float = 2, *, check: bool = True) -> _Array:
    """The vector norm of each segment, as vector_norm: ord 1, 2 or inf; 0 when empty."""
    return _segment_statistic(_lib.VECTOR_NORM, values, offsets, check, _order(ord))


def segment_logsumexp(values: _Array, offsets: _Array, *, check: bool = True) -> _Array:
    """log(sum(exp(values))) of each segment in one pass, as logsumexp; -inf when empty."""
    return _segment_statistic(_lib.LOGSUMEXP, values, offsets, check)


def segment_count_nonzero(values: _Array, offsets: _Array, *, check: bool = True) -> _Array:
    """The int64 count of nonzero values of each segment (values of any type), as count_nonzero."""
    return _segment_statistic(_lib.COUNT_NONZERO, values, offsets, check)


def segment_any(values: _Array, offsets: _Array, *, check: bool = True) -> _Array:
    """Whether some value of each segment is nonzero (values of any type); False when empty."""
    return _segment_statistic(_lib.ANY, values, offsets, check)


def segment_all(values: _Array, offsets: _Array, *, check: bool = True) -> _Array:
    """Whether every value of each segment is nonzero (values of any type); True when empty."""
    return _segment_statistic(_lib.ALL, values, offsets, check)
