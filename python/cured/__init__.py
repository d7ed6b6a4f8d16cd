"""cured: reductions of CUDA arrays, zero-copy, on the framework's current stream.

    import torch, cured
    x = torch.rand(4096, 1024, device="cuda")
    cured.sum(x, dim=1)            # like torch.sum(x, dim=1), one kernel launch
    cured.argmax(x, dim=0)         # int64 indices, first on ties, NaN wins
    cured.exact_sum(x)             # the exact sum rounded once: the same bits for any order
    var, mean = cured.var_mean(x, dim=1)   # one pass: Welford and Chan
    cured.logsumexp(x, dim=1)      # one pass: a running maximum
    cured.segment_reduce(x, "max", lengths=torch.tensor([24, 0, 1000], device="cuda"), axis=1)

Inputs: torch tensors, CuPy arrays, objects with __cuda_array_interface__ (Numba) or __dlpack__
(JAX), of bool, int8, uint8, int16, int32, int64, float16, bfloat16, float32 or float64, any
shape up to 8 axes and any non-negative strides (no copy). The result is an array of the input's
framework (torch in, torch out; CuPy in, CuPy out; others: torch if installed, else CuPy, else
Numba), allocated through it and written on its current stream; nothing waits for the GPU, except the
segmented forms with check=True. PyTorch's semantics where it defines them: see docs/PYTHON.md.

With torch 2.4 or later imported, the reductions are also torch ops (torch.ops.cured.*, with fake
kernels and torch's derivatives): torch tensors that need autograd or that torch.compile or
torch.export trace go through them (cured._torch_ops).

Errors: TypeError for an unsupported element type or memory that is not on a CUDA device,
ValueError for a bad dim, shape or offsets, cured.CuredError (a RuntimeError) for CUDA failures.
"""

import builtins as _builtins
import ctypes as _ctypes
import os as _os
import sys as _sys
import warnings as _warnings
from math import prod as _prod
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

__all__ = ["sum", "amin", "amax", "max", "min", "argmin", "argmax", "exact_sum", "exact_dot", "mean", "var", "std", "var_mean",
           "std_mean", "aminmax", "vector_norm", "logsumexp", "count_nonzero", "any", "all", "segment_sum", "segment_amin",
           "segment_amax", "segment_argmin", "segment_argmax", "segment_exact_sum", "segment_mean", "segment_var",
           "segment_std", "segment_var_mean", "segment_std_mean", "segment_aminmax", "segment_vector_norm",
           "segment_logsumexp", "segment_count_nonzero", "segment_any", "segment_all", "segment_reduce",
           "CuredError", "CuredTypeError", "CuredValueError"]

# The annotations' names: an array is a torch tensor, a CuPy array, or an object with
# __cuda_array_interface__ or __dlpack__ (results: see the module's docstring); dims as torch's.
_Array = _Any
_Dims = _Optional[_Union[int, _Sequence[int]]]
_DType = _Any  # a torch dtype, or a NumPy dtype or its name, of the input's framework

class _Axes(tuple):
    """Axes taken as they are: NumPy's axis= and the torch ops' dim lists, where () reduces
    no axis (torch's dim=() reduces every one)."""


def _normalize_dims(dim, rank):
    """dim (None, an int, or a sequence of ints, negative from the end) as sorted axes of a
    rank-`rank` array; None and an empty sequence mean every axis, as in torch.sum, and an
    empty _Axes none."""
    if type(dim) is _Axes:
        return _normalize_dims(tuple(dim), rank) if dim else ()
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
    span = rank if rank > 0 else 1
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


def _axis(dim, axis):
    """The dims of a call given NumPy's axis= (None, an int or a tuple; () reduces no axis)
    instead of torch's dim=."""
    if dim is not None:
        raise TypeError("cured: give dim (torch's) or axis (NumPy's), not both")
    if isinstance(axis, (tuple, list)):
        return _Axes(axis)
    return _Axes((axis,))


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
# The compiled torch fast path (cured._torch_fast, python/src/torch_fast.cpp): its reduce where
# the package holds the extension, built against the very torch imported; None otherwise, or
# with CURED_TORCH_FAST=0 in the environment. It takes plain tensors in the common cases and
# answers NotImplemented for the rest, which the Python fast path then takes.
_fast = None
_PTR = _lib.POINTER_BYTES
_ORDER = _byteorder


# The torch ops (the module _torch_ops once it has registered them with torch >= 2.4; None
# before a torch tensor arrives, or with an older torch).
_ops = None


def _bind_torch():
    """Binds the fast path to torch, and registers the torch ops where torch can take them:
    once a torch tensor arrives, or at import when torch was imported first."""
    global _torch_tensor, _torch_stream, _ops, _fast
    import torch
    _torch_stream = _arrays.torch_framework().current_stream
    _torch_tensor = torch.Tensor
    from . import _torch_ops
    _ops = _torch_ops if _torch_ops.register() else None
    _fast = _load_fast(torch)


def _load_fast(torch):
    """_torch_fast's reduce, initialized, or None (see _fast)."""
    if _os.environ.get("CURED_TORCH_FAST", "1") == "0":
        return None
    try:
        from . import _torch_fast
    except (ImportError, OSError):
        return None
    if _torch_fast.TORCH_VERSION != torch.__version__:
        return None
    address = _ctypes.cast(_lib.lib.cured_reduce, _ctypes.c_void_p).value
    statistic_address = _ctypes.cast(_lib.lib.cured_statistic_reduce, _ctypes.c_void_p).value
    fw = _arrays.torch_framework()
    _torch_fast.init(address, statistic_address, _resolve_which, _lib.raise_for, tuple(fw.to_code.items()),
                     tuple(_lib.TWO_PART))
    return _torch_fast.reduce


# The CuPy fast path: plans of calls on CuPy arrays kept as for torch (keys led by _CUPY), for
# arrays on the current device with no negative strides; the rest take the general path.
_CUPY = "cupy"
_cupy = None  # the cupy module once a CuPy array arrives, and what the path calls of it
_cupy_ndarray = None
_cupy_device = None
_cupy_stream = None


def _bind_cupy():
    global _cupy, _cupy_ndarray, _cupy_device, _cupy_stream
    import cupy
    _cupy, _cupy_ndarray = cupy, cupy.ndarray
    _cupy_device, _cupy_stream = cupy.cuda.runtime.getDevice, cupy.cuda.get_current_stream


def _bound_for(x):
    """Whether x is the first torch tensor or CuPy array to arrive, its framework's fast path now
    bound (the caller then starts over)."""
    if _torch_tensor is None and type(x).__module__ == "torch":
        _bind_torch()
        return True
    if _cupy_ndarray is None and type(x).__name__ == "ndarray" and "cupy" in _sys.modules:
        _bind_cupy()
        return type(x) is _cupy_ndarray
    return False


def _cupy_fast(statistic, which, x, dim, keepdim, dtype, param):
    """which (an op, or a statistic when `statistic`) along dim of CuPy array x: the new result
    (the pair of a two-part statistic), or None where the general path takes the call."""
    mem = x.data
    device = mem.device_id
    if device != _cupy_device():
        return None
    key = (_CUPY, statistic, which, x.dtype, x.shape, x.strides, device, _dim_key(dim), type(keepdim), keepdim, dtype)
    plan = _plans.get(key)
    if plan is None:
        d = _describe(x)
        if d.keep is not x:  # negative strides: the general path reduces a copy
            return None
        plan = _plan(statistic, which, d, dim, keepdim, dtype)
        plan = _keep(key, plan[:2] + (_cupy.dtype(plan[2]),) + plan[3:])  # the dtype object, not its name
    c_which, shape, out_dtype, axes, naxes, in_rest, out_rest = plan
    out = _cupy_ndarray(shape, out_dtype)  # cupy.empty's allocation, without its Python frame
    ptr = mem.ptr.to_bytes(_PTR, _ORDER) + in_rest
    stream = _cupy_stream().ptr
    if not statistic:
        status = _lib.lib.cured_reduce(c_which, ptr, axes, naxes, out.data.ptr.to_bytes(_PTR, _ORDER) + out_rest,
                                       None, stream, None)
        if status:
            _lib.raise_for(status)
        return out
    second = _cupy_ndarray(shape, out_dtype) if which in _lib.TWO_PART else None
    status = _lib.lib.cured_statistic_reduce(
        which, ptr, axes, naxes, param, out.data.ptr.to_bytes(_PTR, _ORDER) + out_rest,
        None if second is None else second.data.ptr.to_bytes(_PTR, _ORDER) + out_rest, stream, None)
    if status:
        _lib.raise_for(status)
    return out if second is None else (out, second)


def _resolve_which(statistic, which, code, requested):
    """(which as run, the output's type code) of an op, or a statistic when `statistic`, on
    elements of type code, dtype requested (-1: the default): for _plan and _torch_fast alike."""
    if statistic:
        return which, _lib.statistic_dtype(which, code)
    return _resolve_code(which, code, requested)


def _routed(x, differentiable=True):
    """Whether x, an input of any kind, goes through the registered torch op: a torch tensor
    on a CUDA (or meta) device that is traced (torch.compile, torch.export: dynamo compiling, or
    a fake or functional tensor), of a subclass (nn.Parameter), or that needs autograd (only
    for ops with a derivative). Other torch tensors take the fast path: the same C call."""
    if _torch_tensor is None:
        torch = _sys.modules.get("torch")
        if torch is None or not isinstance(x, torch.Tensor):
            return False
        _bind_torch()
    if _ops is None or not isinstance(x, _torch_tensor) or not (x.is_cuda or x.is_meta):
        return False
    if type(x) is not _torch_tensor or _ops.compiling():
        return True
    return differentiable and x.requires_grad and _ops.grad_enabled()


def _resolve_code(op, code, requested, segments=False):
    """The op as run on elements of type code (along axes, or per segment) and its output's
    type code (requested: -1, or the code asked for): the exact sum of integers is their int64
    sum (exact, wrapping as torch.sum does beyond 2^63); asking for the default result is the
    default."""
    if op == _lib.EXACT_SUM and code not in _lib.FLOATING:
        op = _lib.SUM
    if requested >= 0:
        table = _lib.SEGMENT_RESULT_DTYPES if segments else _lib.RESULT_DTYPES
        if table.get((op, code, -1)) == requested:
            requested = -1
    return op, _lib.result_dtype(op, code, requested, segments)


def _resolve(op, d, dtype, segments=False):
    """_resolve_code for input d and dtype (None, or a dtype of d's framework)."""
    return _resolve_code(op, d.dtype, -1 if dtype is None else d.fw.dtype_code(dtype), segments)


# ---- out= ---------------------------------------------------------------------------------------

def _torch_into(out, shape, dtype, x, stacklevel=4, others=()):
    """The tensor a kernel writes for out=out (torch's rules): out itself when dense after the
    checks, else a new tensor whose values the caller copies into out. The result's device and
    dtype are required (RuntimeError, as torch raises), and no autograd for a floating result
    (of x, out, or the call's other tensor inputs, others); another shape resizes out, with
    torch's warning when it held elements (stacklevel: the caller's frame, counted as
    warnings.warn counts it from here)."""
    if not isinstance(out, _torch_tensor):
        raise CuredTypeError("cured: out must be a torch tensor for a torch input, not %s" % type(out).__name__)
    if out.device != x.device:
        raise CuredValueError("cured: expected out on %s (the input's device), but it is on %s"
                              % (x.device, out.device))
    if out.dtype != dtype:
        raise CuredTypeError("cured: expected out of dtype %s (the result's), but got %s" % (dtype, out.dtype))
    needs_grad = x.requires_grad or out.requires_grad or _builtins.any(t.requires_grad for t in others)
    if dtype.is_floating_point and needs_grad and _sys.modules["torch"].is_grad_enabled():
        raise CuredError("cured: functions with out=... arguments don't support automatic differentiation, "
                         "but one of the arguments requires grad.")
    shape = tuple(shape)
    if tuple(out.shape) != shape:
        if out.numel():
            _warnings.warn("An output with one or more elements was resized since it had shape %s, which does not "
                           "match the required output shape %s. This behavior is deprecated, and in a future "
                           "PyTorch release outputs will not be resized unless they have zero elements. You can "
                           "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                           "t.resize_(0)." % (list(out.shape), list(shape)), UserWarning, stacklevel=stacklevel)
        out.resize_(shape)
    return out if out.is_contiguous() else x.new_empty(shape, dtype=dtype)


def _array_into(out, shape, code, d):
    """The data pointer of out=out for a result of shape and type code on d's device (NumPy's
    rules for arrays of other frameworks: the same shape and dtype, dense, nothing resized)."""
    o = _describe(out)
    if o.device != d.device:
        raise CuredValueError("cured: expected out on device %d (the input's), but it is on device %d"
                              % (d.device, o.device))
    if o.dtype != code:
        raise CuredTypeError("cured: expected out of dtype %s (the result's), but got %s"
                             % (_lib.DTYPE_NAMES[code], _lib.DTYPE_NAMES[o.dtype]))
    if tuple(o.shape) != tuple(shape):
        raise CuredValueError("cured: out has shape %s, the result %s" % (tuple(o.shape), tuple(shape)))
    dense = _contiguous_strides(shape)
    if _builtins.any(e > 1 and s != t for e, s, t in zip(shape, o.strides, dense)):
        raise CuredValueError("cured: out must be contiguous")
    return o.ptr


def _new_or_into(into, shape, out_dtype, d):
    """The output array of a call on input d and its data pointer: a new one, or out=into
    (torch's rules for a torch input, else _array_into's); for a torch out that is not dense, a
    new tensor that the caller copies into it."""
    if into is None:
        return d.fw.empty(shape, out_dtype, d)
    if _torch_tensor is not None and isinstance(d.keep, _torch_tensor):
        out = _torch_into(into, shape, out_dtype, d.keep)
        return out, out.data_ptr()
    return into, _array_into(into, shape, d.fw.dtype_code(out_dtype), d)


def _finish(out, into):
    """The result of a call that wrote out: into itself, filled from out where they differ."""
    if into is None or out is into:
        return out
    into.copy_(out)
    return into


def _plan(statistic, which, d, dim, keepdim, dtype=None):
    """What a reduction along axes of input d works out before it runs, for torch's fast path
    (kept by key) and every other input (each call) alike: which (an op, or a statistic when
    `statistic`) as run, the output's shape and its dtype in d's framework, the packed axes and
    their count, and the input's and the output's cured_array bytes after their data pointer."""
    axes = _normalize_dims(dim, len(d.shape))
    which, code = _resolve_which(statistic, which, d.dtype, -1 if dtype is None else d.fw.dtype_code(dtype))
    shape = _out_shape(d.shape, axes, keepdim)
    in_rest = _lib.pack_array(0, d.dtype, d.shape, d.strides)[_PTR:]  # first: it checks the rank
    return (which, shape, d.fw.dtype_of(code), _lib.pack_axes(axes), len(axes), in_rest,
            _lib.pack_array(0, code, shape, _contiguous_strides(shape))[_PTR:])


def _dim_key(dim):
    """dim as a kept plan's key holds it: with its type and its items' types, so that a dim the
    checks refuse (True, 1.0) never finds the plan of one they took (1)."""
    if type(dim) is tuple or type(dim) is list:
        return (type(dim),) + tuple((type(d), d) for d in dim)
    return type(dim), dim


def _keep(key, plan):
    """plan, kept for key (the cache forgets everything past 4096 plans)."""
    if len(_plans) > 4096:
        _plans.clear()
    _plans[key] = plan
    return plan


def _reduce(op, x, dim, keepdim, dtype=None, into=None):
    """op along dim: a new array, or out=into."""
    if type(x) is _torch_tensor:
        if _fast is not None and into is None:
            result = _fast(False, op, x, dim, keepdim, dtype, 0.0)
            if result is not NotImplemented:
                return result
        device = x.get_device()
        if device >= 0:
            key = (op, x.dtype, x.shape, x.stride(), device, _dim_key(dim), type(keepdim), keepdim, dtype)
            plan = _plans.get(key)
            if plan is None:
                plan = _keep(key, _plan(False, op, _describe(x), dim, keepdim, dtype))
            c_op, shape, out_dtype, axes, naxes, in_rest, out_rest = plan
            out = x.new_empty(shape, dtype=out_dtype) if into is None else _torch_into(into, shape, out_dtype, x)
            status = _lib.lib.cured_reduce(c_op, x.data_ptr().to_bytes(_PTR, _ORDER) + in_rest, axes, naxes,
                                           out.data_ptr().to_bytes(_PTR, _ORDER) + out_rest, None,
                                           _torch_stream(device), None)
            if status:
                _lib.raise_for(status)
            return out if into is None else _finish(out, into)
    elif type(x) is _cupy_ndarray:
        if into is None:
            result = _cupy_fast(False, op, x, dim, keepdim, dtype, 0.0)
            if result is not None:
                return result
    elif _bound_for(x):
        return _reduce(op, x, dim, keepdim, dtype, into)
    d = _describe(x)
    c_op, shape, out_dtype, axes, naxes, in_rest, out_rest = _plan(False, op, d, dim, keepdim, dtype)
    out, ptr = _new_or_into(into, shape, out_dtype, d)
    status = _lib.lib.cured_reduce(c_op, d.ptr.to_bytes(_PTR, _ORDER) + in_rest, axes, naxes,
                                   ptr.to_bytes(_PTR, _ORDER) + out_rest, None, d.stream, None)
    if status:
        _lib.raise_for(status)
    return _finish(out, into)


def _arg_values(op, x, dim, keepdim):
    """(values, indices) of argmin or argmax along dim from one call: the extreme values and
    their int64 indices."""
    d = _describe(x)
    c_op, shape, index_dtype, axes, naxes, in_rest, out_rest = _plan(False, op, d, dim, keepdim)
    indices, ptr = d.fw.empty(shape, index_dtype, d)
    values, values_ptr = d.fw.empty(shape, d.fw.dtype_of(d.dtype), d)
    values_rest = _lib.pack_array(0, d.dtype, shape, _contiguous_strides(shape))[_PTR:]
    status = _lib.lib.cured_reduce(c_op, d.ptr.to_bytes(_PTR, _ORDER) + in_rest, axes, naxes,
                                   ptr.to_bytes(_PTR, _ORDER) + out_rest,
                                   values_ptr.to_bytes(_PTR, _ORDER) + values_rest, d.stream, None)
    if status:
        _lib.raise_for(status)
    return values, indices


def sum(x: _Array, dim: _Dims = None, keepdim: bool = False, *, dtype: _DType = None, out: _Array = None,
        axis: _Dims = None) -> _Array:
    """torch.sum: integers and bool into int64, float16 and bfloat16 accumulated in float and
    returned as their own type, float32 and float64 in their own; dtype: float32 for float16 and
    bfloat16 inputs, float64 for float32 inputs, or the default. out: written in place (its
    dtype asks for the sum's type when dtype is None, as in torch). axis: NumPy's axis, instead
    of dim (() reduces no axis)."""
    if axis is not None:
        dim = _axis(dim, axis)
    if out is not None and dtype is None:
        dtype = out.dtype
    if _routed(x):
        return _ops.along("sum", x, dim, keepdim, (dtype,), out)
    return _reduce(_lib.SUM, x, dim, keepdim, dtype, out)


def amin(x: _Array, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
         axis: _Dims = None) -> _Array:
    """torch.amin: the least element along dim; NaN if any is NaN. Its gradient is shared
    evenly among the tied least elements (torch's rule)."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x):
        return _ops.along("amin", x, dim, keepdim, (), out)
    return _reduce(_lib.MIN, x, dim, keepdim, None, out)


def amax(x: _Array, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
         axis: _Dims = None) -> _Array:
    """torch.amax: the greatest element along dim; NaN if any is NaN. Its gradient is shared
    evenly among the tied greatest elements (torch's rule)."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x):
        return _ops.along("amax", x, dim, keepdim, (), out)
    return _reduce(_lib.MAX, x, dim, keepdim, None, out)


def _extreme(name, op, x, dim, keepdim, out, axis):
    """max or min: NumPy's (axis=), the whole array's (no dim), or torch's pair along one dim."""
    if axis is not None:
        if dim is not None:
            raise TypeError("cured: give dim (torch's) or axis (NumPy's), not both")
        return (amax if op == _lib.ARGMAX else amin)(x, keepdim=keepdim, out=out, axis=axis)
    if dim is None:
        if _routed(x):
            return _ops.along(name, x, None, keepdim, (), out)
        return _reduce(_lib.MAX if op == _lib.ARGMAX else _lib.MIN, x, None, keepdim, None, out)
    if isinstance(dim, bool) or not isinstance(dim, int):
        if isinstance(dim, bool) or not hasattr(dim, "__index__"):
            raise TypeError("cured: %s takes one int dim, as torch.%s (a%s takes several), not %s"
                            % (name, name, name, type(dim).__name__))
        dim = dim.__index__()
    if out is not None:
        return _extreme_into(name, op, x, dim, keepdim, out)
    if _routed(x):
        return _ops.extreme_dim(name, x, dim, keepdim)
    values, indices = _arg_values(op, x, dim, keepdim)
    if _torch_tensor is not None and isinstance(values, _torch_tensor):
        return _ops_pair(name, values, indices)
    return values, indices


def _extreme_into(name, op, x, dim, keepdim, out):
    """max or min of torch tensor x along the int dim into out=(values, indices), each checked
    and resized by torch's rules before the call, then filled; torch.return_types.max or .min
    of the two."""
    torch = _sys.modules.get("torch")
    if torch is None or not isinstance(x, torch.Tensor):
        raise CuredTypeError("cured: %s along a dim takes out=(values, indices) for torch tensors only, not for %s"
                             % (name, type(x).__name__))
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError("cured: %s along a dim takes out=(values, indices), two tensors, not %r" % (name, out))
    if _torch_tensor is None:
        _bind_torch()
    shape = _out_shape(x.shape, _normalize_dims(dim, x.dim()), keepdim)
    _torch_into(out[0], shape, x.dtype, x, stacklevel=5)
    _torch_into(out[1], shape, torch.int64, x, stacklevel=5)
    values, indices = _extreme(name, op, x, dim, keepdim, None, None)
    out[0].copy_(values)
    out[1].copy_(indices)
    return _ops_pair(name, out[0], out[1])


def _ops_pair(name, values, indices):
    """torch.return_types.max or .min of (values, indices)."""
    import torch
    return getattr(torch.return_types, name)((values, indices))


def max(x: _Array, dim: _Optional[int] = None, keepdim: bool = False, *, out: _Array = None,
        axis: _Dims = None) -> _Any:
    """torch.max: with no dim the greatest element (as amax over every axis; its gradient goes
    evenly to the greatest elements, the NaNs if any); with an int dim the pair (values,
    indices) along it from one pass, torch.return_types.max for torch tensors and a tuple
    otherwise (the first index on ties, the first NaN if any; the gradient goes to that index).
    out: without a dim one tensor; with a dim torch's pair out=(values, indices) of torch
    tensors, written in place by torch's out= rules. axis: NumPy's max, the values alone (as
    amax)."""
    return _extreme("max", _lib.ARGMAX, x, dim, keepdim, out, axis)


def min(x: _Array, dim: _Optional[int] = None, keepdim: bool = False, *, out: _Array = None,
        axis: _Dims = None) -> _Any:
    """torch.min: as max, for the least elements (torch.return_types.min)."""
    return _extreme("min", _lib.ARGMIN, x, dim, keepdim, out, axis)


def argmin(x: _Array, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
           axis: _Dims = None) -> _Array:
    """torch.argmin: the int64 index of the first least element (the first NaN if any); dim
    None: the index into the flattened array; a tuple of dims: the row-major index over them."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x, False):
        return _ops.along("argmin", x, dim, keepdim, (), out)
    return _reduce(_lib.ARGMIN, x, dim, keepdim, None, out)


def argmax(x: _Array, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
           axis: _Dims = None) -> _Array:
    """torch.argmax: as argmin, for the greatest element."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x, False):
        return _ops.along("argmax", x, dim, keepdim, (), out)
    return _reduce(_lib.ARGMAX, x, dim, keepdim, None, out)


def exact_sum(x: _Array, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
              axis: _Dims = None) -> _Array:
    """The exact sum of each output's elements, rounded once to float32 (float64 for float64
    inputs): the same bits for any order, split or device. Integers: the int64 sum. Its
    gradient is a sum's."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x):
        return _ops.along("exact_sum", x, dim, keepdim, (), out)
    return _reduce(_lib.EXACT_SUM, x, dim, keepdim, None, out)


def exact_dot(x: _Array, y: _Array, *, out: _Array = None) -> _Array:
    """The exact dot product of x and y, rounded once: the sum of x[i] * y[i] over their
    elements in order (one floating type, the same shape; any rank, as numpy.vdot without the
    conjugate), a 0-d float32 array (float64 for float64 inputs) with the same bits for any order
    or device. A NaN operand or inf * 0 gives NaN; products beyond float's range count exactly.
    torch tensors that are not contiguous are copied to be; other arrays must be dense. Its
    gradient is torch.dot's: grad * y for x and grad * x for y."""
    if _routed(x) or _routed(y):
        return _ops.exact_dot(x, y, out)
    return _exact_dot_kernel(x, y, out)


def _exact_dot_kernel(x, y, into=None):
    """exact_dot through the C call (a new 0-d array, or out=into)."""
    if _torch_tensor is not None and isinstance(x, _torch_tensor) and isinstance(y, _torch_tensor):
        x, y = x.contiguous(), y.contiguous()
    d, e = _describe(x), _describe(y)
    if d.fw is not e.fw:
        raise CuredTypeError("cured: x is a %s array, y a %s array" % (d.fw.name, e.fw.name))
    if d.device != e.device:
        raise CuredValueError("cured: x is on device %d, y on device %d" % (d.device, e.device))
    code = _exact_dot_dtype(d.dtype, e.dtype, d.shape, e.shape)
    out, ptr = _new_or_into(into, (), d.fw.dtype_of(code), d)
    _lib.exact_dot(_lib.pack_array(d.ptr, d.dtype, d.shape, d.strides),
                   _lib.pack_array(e.ptr, e.dtype, e.shape, e.strides), _lib.pack_array(ptr, code, (), ()), d.stream)
    return _finish(out, into)


def _exact_dot_dtype(code, y_code, shape, y_shape):
    """exact_dot's result type code (exact_sum's) for x and y of these type codes and shapes,
    after the checks of both (the C call's and the torch op's fake kernel's)."""
    if code != y_code:
        raise CuredTypeError("cured: x is %s, y %s" % (_lib.DTYPE_NAMES[code], _lib.DTYPE_NAMES[y_code]))
    if tuple(shape) != tuple(y_shape):
        raise CuredValueError("cured: x has shape %s, y %s" % (tuple(shape), tuple(y_shape)))
    if code not in _lib.FLOATING:
        raise CuredTypeError("cured: exact_dot takes floating elements, not %s (%s)"
                             % (_lib.DTYPE_NAMES[code], ", ".join(_lib.DTYPE_NAMES[c] for c in sorted(_lib.FLOATING))))
    return _lib.result_dtype(_lib.EXACT_SUM, code, -1)


# ---- statistics: one pass along axes ------------------------------------------------------------

def _statistic(stat, x, dim, keepdim, param=0.0, into=None):
    """The statistic's output (a new array, or out=into), or for the two-part ones the pair of
    outputs."""
    two = stat in _lib.TWO_PART
    if type(x) is _torch_tensor:
        if _fast is not None and into is None:
            result = _fast(True, stat, x, dim, keepdim, None, param)
            if result is not NotImplemented:
                return result
        device = x.get_device()
        if device >= 0:
            key = (-1 - stat, x.dtype, x.shape, x.stride(), device, _dim_key(dim), type(keepdim), keepdim)
            plan = _plans.get(key)
            if plan is None:
                plan = _keep(key, _plan(True, stat, _describe(x), dim, keepdim))
            _, shape, out_dtype, axes, naxes, in_rest, out_rest = plan
            out = x.new_empty(shape, dtype=out_dtype) if into is None else _torch_into(into, shape, out_dtype, x)
            second = x.new_empty(shape, dtype=out_dtype) if two else None
            status = _lib.lib.cured_statistic_reduce(
                stat, x.data_ptr().to_bytes(_PTR, _ORDER) + in_rest, axes, naxes, param,
                out.data_ptr().to_bytes(_PTR, _ORDER) + out_rest,
                second.data_ptr().to_bytes(_PTR, _ORDER) + out_rest if two else None, _torch_stream(device), None)
            if status:
                _lib.raise_for(status)
            return (out, second) if two else out if into is None else _finish(out, into)
    elif type(x) is _cupy_ndarray:
        if into is None:
            result = _cupy_fast(True, stat, x, dim, keepdim, None, param)
            if result is not None:
                return result
    elif _bound_for(x):
        return _statistic(stat, x, dim, keepdim, param, into)
    d = _describe(x)
    _, shape, out_dtype, axes, naxes, in_rest, out_rest = _plan(True, stat, d, dim, keepdim)
    out, ptr = _new_or_into(into, shape, out_dtype, d)
    second, second_ptr = d.fw.empty(shape, out_dtype, d) if two else (None, 0)
    status = _lib.lib.cured_statistic_reduce(
        stat, d.ptr.to_bytes(_PTR, _ORDER) + in_rest, axes, naxes, param, ptr.to_bytes(_PTR, _ORDER) + out_rest,
        second_ptr.to_bytes(_PTR, _ORDER) + out_rest if two else None, d.stream, None)
    if status:
        _lib.raise_for(status)
    return (out, second) if two else _finish(out, into)


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


def mean(x: _Array, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
         axis: _Dims = None) -> _Array:
    """torch.mean of floating elements, as float32 (float64 for float64: torch returns float16
    and bfloat16 for those, cured the float32 mean it accumulated). Empty: NaN."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x):
        return _ops.along("mean", x, dim, keepdim, (), out)
    return _statistic(_lib.MEAN, x, dim, keepdim, into=out)


def var(x: _Array, dim: _Dims = None, *, correction: _Optional[float] = 1, keepdim: bool = False,
        out: _Array = None, axis: _Dims = None) -> _Array:
    """torch.var: m2 / max(n - correction, 0) in one pass (Welford per element, Chan per
    combination), float32 for float16, bfloat16 and float32 inputs, float64 for float64."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x):
        return _ops.along("var", x, dim, keepdim, (_correction(correction),), out)
    return _statistic(_lib.VAR, x, dim, keepdim, _correction(correction), out)


def std(x: _Array, dim: _Dims = None, *, correction: _Optional[float] = 1, keepdim: bool = False,
        out: _Array = None, axis: _Dims = None) -> _Array:
    """torch.std: the square root of var."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x):
        return _ops.along("std", x, dim, keepdim, (_correction(correction),), out)
    return _statistic(_lib.STD, x, dim, keepdim, _correction(correction), out)


def var_mean(x: _Array, dim: _Dims = None, *, correction: _Optional[float] = 1, keepdim: bool = False,
             axis: _Dims = None) -> _Tuple[_Array, _Array]:
    """torch.var_mean: (var, mean) from the same pass."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x):
        return _ops.along("var_mean", x, dim, keepdim, (_correction(correction),))
    return _statistic(_lib.VAR_MEAN, x, dim, keepdim, _correction(correction))


def std_mean(x: _Array, dim: _Dims = None, *, correction: _Optional[float] = 1, keepdim: bool = False,
             axis: _Dims = None) -> _Tuple[_Array, _Array]:
    """torch.std_mean: (std, mean) from the same pass."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x):
        return _ops.along("std_mean", x, dim, keepdim, (_correction(correction),))
    return _statistic(_lib.STD_MEAN, x, dim, keepdim, _correction(correction))


def aminmax(x: _Array, *, dim: _Dims = None, keepdim: bool = False, axis: _Dims = None) -> _Tuple[_Array, _Array]:
    """torch.aminmax: (min, max) of any element type in one pass, NaN propagating; of no elements
    the identities (+inf and -inf, or the integer type's largest and smallest) where torch raises.
    No gradient: amin and amax have one."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x, False):
        return _ops.along("aminmax", x, dim, keepdim, ())
    return _statistic(_lib.AMINMAX, x, dim, keepdim)


def vector_norm(x: _Array, ord: float = 2, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
                axis: _Dims = None) -> _Array:
    """torch.linalg.vector_norm for ord 1, 2 (scaled: no overflow or underflow) and inf; other
    orders raise ValueError."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x):
        return _ops.along("vector_norm", x, dim, keepdim, (_order(ord),), out)
    return _statistic(_lib.VECTOR_NORM, x, dim, keepdim, _order(ord), out)


def logsumexp(x: _Array, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
              axis: _Dims = None) -> _Array:
    """torch.logsumexp in one pass; dim None: every axis. -inf for no elements or only -inf."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x):
        return _ops.along("logsumexp", x, dim, keepdim, (), out)
    return _statistic(_lib.LOGSUMEXP, x, dim, keepdim, into=out)


def count_nonzero(x: _Array, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
                  axis: _Dims = None) -> _Array:
    """torch.count_nonzero: int64 counts; NaN counts, -0.0 does not."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x, False):
        return _ops.along("count_nonzero", x, dim, keepdim, (), out)
    return _statistic(_lib.COUNT_NONZERO, x, dim, keepdim, into=out)


def any(x: _Array, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
        axis: _Dims = None) -> _Array:
    """torch.any: bool, whether some element is nonzero (False when empty)."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x, False):
        return _ops.along("any", x, dim, keepdim, (), out)
    return _statistic(_lib.ANY, x, dim, keepdim, into=out)


def all(x: _Array, dim: _Dims = None, keepdim: bool = False, *, out: _Array = None,
        axis: _Dims = None) -> _Array:
    """torch.all: bool, whether every element is nonzero (True when empty)."""
    if axis is not None:
        dim = _axis(dim, axis)
    if _routed(x, False):
        return _ops.along("all", x, dim, keepdim, (), out)
    return _statistic(_lib.ALL, x, dim, keepdim, into=out)


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


# The segment ops' names among the torch ops, and those with a derivative (with respect to the values).
_SEGMENT_OP_NAMES = {row.code: "segment_" + {"min": "amin", "max": "amax"}.get(row.name, row.name) for row in _lib.OPS}
_SEGMENT_STATISTIC_NAMES = {row.code: "segment_" + row.name for row in _lib.STATISTICS}
_SEGMENT_DERIVATIVES = frozenset(("segment_sum", "segment_exact_sum", "segment_mean"))


def _segment(op, values, offsets, dtype, check):
    """op of each segment, through the torch op where _routed says so, else _segment_kernel."""
    name = _SEGMENT_OP_NAMES[op]
    if _routed(values, name in _SEGMENT_DERIVATIVES):
        return _ops.segment(name, values, offsets, check, (dtype,) if op == _lib.SUM else ())
    return _segment_kernel(op, values, offsets, dtype, check)


def _segment_kernel(op, values, offsets, dtype, check):
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


def _segment_statistic(stat, values, offsets, check, param=None):
    """stat of each segment, through the torch op where _routed says so, else
    _segment_statistic_kernel (param: the correction or the order, for the statistics that take
    one)."""
    name = _SEGMENT_STATISTIC_NAMES[stat]
    if _routed(values, name in _SEGMENT_DERIVATIVES):
        return _ops.segment(name, values, offsets, check, () if param is None else (param,))
    return _segment_statistic_kernel(stat, values, offsets, check, 0.0 if param is None else param)


def _segment_statistic_kernel(stat, values, offsets, check, param=0.0):
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


# ---- torch.segment_reduce ---------------------------------------------------------------------

# segment_reduce's reduce names: torch's sum, mean, max and min (amax and amin as NumPy's names),
# then cured's other per-segment reductions of one output and no parameter.
_SEGMENT_REDUCES = {"sum": segment_sum, "mean": segment_mean, "max": segment_amax, "min": segment_amin,
                    "amax": segment_amax, "amin": segment_amin, "exact_sum": segment_exact_sum,
                    "argmax": segment_argmax, "argmin": segment_argmin, "logsumexp": segment_logsumexp,
                    "count_nonzero": segment_count_nonzero, "any": segment_any, "all": segment_all}
_INITIAL_REDUCES = ("sum", "mean", "max", "min", "amax", "amin")


def segment_reduce(data: _Array, reduce: str, *, lengths: _Array = None, indices: _Array = None,
                   offsets: _Array = None, axis: int = 0, unsafe: bool = False,
                   initial: _Optional[float] = None) -> _Array:
    """torch.segment_reduce: reduce ("sum", "mean", "max", "min"; also "amax", "amin" and cured's
    "exact_sum", "argmax", "argmin", "logsumexp", "count_nonzero", "any", "all"; no "prod") of
    each segment of data along axis, given by lengths (count) or offsets (count + 1), int32 or
    int64 on data's device: one axis (the same segments at every position of data's other axes),
    or torch's form, data.shape[:axis] + (count,) (+ 1 for offsets), segments of their own for
    each position before axis. The result has data's shape with count at axis, of the types of
    the segment_ function named (mean of float16 and bfloat16: float32). Torch tensors and CuPy
    arrays, through their own operations (gradients of sum, mean and exact_sum flow); indices
    (torch's, unimplemented there too) is refused. Empty segments: sum 0, mean NaN, max -inf
    and min +inf (integers: the type's smallest and largest), as torch's. initial (sum, mean,
    max, min): torch's start of each segment's reduction: initial + sum, (initial + sum) /
    length, max(initial, max), min(initial, min), initial for an empty segment. unsafe=False
    checks lengths as torch does (none negative, each row summing to data.shape[axis]) and the
    offsets (non-decreasing within [0, data.shape[axis]]), raising ValueError and waiting for
    the device; unsafe=True checks nothing on the device and waits for nothing."""
    function = _segment_function(reduce, initial)
    bounds, name = _segment_bounds(lengths, indices, offsets)
    xp = _segment_module(data, bounds, name)
    axis = _segment_axis(axis, data.ndim)
    _check_bounds(xp, bounds, name, data, axis)
    if isinstance(initial, float) and data.dtype in (xp.int32, xp.int64):  # torch's own take floating data only
        raise CuredTypeError("cured: initial must be an int for integer data, not %r" % initial)
    if name == "lengths" and not unsafe:
        _check_lengths(bounds, data.shape[axis])
    table = _offsets_table(xp, bounds, name)
    if data.ndim == 1:
        table = _dense(xp, table)
        result = function(_dense(xp, data), table, check=not unsafe)
        return result if initial is None else _with_initial(xp, reduce, result, initial, table)
    return _segment_rows(xp, function, data, table, axis, not unsafe, reduce, initial)


def _segment_function(reduce, initial):
    """The per-segment function of segment_reduce's reduce, initial checked against it."""
    function = _SEGMENT_REDUCES.get(reduce) if isinstance(reduce, str) else None
    if function is None:
        raise CuredValueError("cured: segment_reduce has no reduce %r; it takes %s"
                              % (reduce, ", ".join(_SEGMENT_REDUCES)))
    if initial is not None:
        if reduce not in _INITIAL_REDUCES:
            raise CuredValueError("cured: initial goes with the reduces %s, not %s"
                                  % (", ".join(_INITIAL_REDUCES), reduce))
        if isinstance(initial, bool) or not isinstance(initial, (int, float)):
            raise TypeError("cured: initial must be a number, not %s" % type(initial).__name__)
    return function


def _segment_bounds(lengths, indices, offsets):
    """The one of lengths and offsets given, and its name."""
    if indices is not None:
        raise TypeError("cured: segment_reduce takes lengths or offsets; indices is not supported "
                        "(torch.segment_reduce does not implement it either)")
    if (lengths is None) == (offsets is None):
        raise TypeError("cured: segment_reduce takes exactly one of lengths and offsets")
    return (lengths, "lengths") if offsets is None else (offsets, "offsets")


def _segment_module(data, bounds, name):
    """torch or cupy: the module of data and bounds (lengths or offsets), torch tensors or CuPy
    arrays both, whose operations segment_reduce composes around the per-segment call."""
    xp = _array_module(data, "data")
    if _array_module(bounds, name) is not xp:
        raise CuredTypeError("cured: %s must be of data's framework (%s)" % (name, xp.__name__))
    return xp


def _array_module(x, what):
    """torch or cupy: the module of x, a torch tensor or a CuPy array."""
    for module_name, kind in (("torch", "Tensor"), ("cupy", "ndarray")):
        module = _sys.modules.get(module_name)
        if module is not None and isinstance(x, getattr(module, kind)):
            return module
    raise CuredTypeError("cured: segment_reduce takes %s as a torch tensor or a CuPy array, not %s"
                         % (what, type(x).__name__))


def _segment_axis(axis, rank):
    """segment_reduce's axis, non-negative."""
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError("cured: axis must be an int, not %s" % type(axis).__name__)
    axis = axis.__index__()
    if rank == 0 or not -rank <= axis < rank:
        raise CuredValueError("cured: axis %d out of range for data of %d axes" % (axis, rank))
    return axis % rank


def _check_bounds(xp, bounds, name, data, axis):
    """lengths or offsets against data: an integer type, data's device, and a shape of one axis
    or torch's data.shape[:axis] + (k,)."""
    if bounds.dtype not in (xp.int32, xp.int64):
        raise CuredTypeError("cured: %s must be int32 or int64, not %s" % (name, bounds.dtype))
    if bounds.device != data.device:
        raise CuredValueError("cured: data is on %s, %s on %s" % (data.device, name, bounds.device))
    shape = tuple(bounds.shape)
    if not shape or (len(shape) > 1 and shape[:-1] != tuple(data.shape[:axis])):
        raise CuredValueError("cured: %s must have one axis, or data's axes before axis (%s) and one more, not "
                              "shape %s" % (name, tuple(data.shape[:axis]), shape))
    if name == "offsets" and shape[-1] < 1:
        raise CuredValueError("cured: offsets need at least one entry (count + 1)")


def _check_lengths(lengths, n):
    """torch's checks of lengths where unsafe is False (each waits for the device)."""
    if bool((lengths < 0).any()):
        raise CuredValueError("cured: lengths contains a negative value")
    if bool((lengths.sum(-1) != n).any()):
        raise CuredValueError("cured: lengths must sum to data.shape[axis] (%d) along their last axis" % n)


def _offsets_table(xp, bounds, name):
    """The int64 offsets (count + 1 along the last axis) of lengths or offsets."""
    bounds = xp.asarray(bounds, dtype=xp.int64)
    if name == "offsets":
        return bounds
    zero = bounds.sum(-1)[..., None] * 0  # a column of zeros on bounds' device, also when count is 0
    return xp.cumsum(xp.concatenate((zero, bounds), -1), -1)


def _segment_rows(xp, function, data, table, axis, check, reduce, initial):
    """segment_reduce of N-D data in one per-segment call: axis moved last, data read as rows of
    n, and every row's segments in one list of offsets (_row_offsets); the rows' results then
    take the shape of data, count at axis."""
    n = data.shape[axis]
    before, after = tuple(data.shape[:axis]), tuple(data.shape[axis + 1:])
    outer, inner = _prod(before), _prod(after)
    offsets = _row_offsets(xp, table, outer, inner, n, data)
    result = function(_dense(xp, xp.moveaxis(data, axis, -1)).reshape(-1), offsets, check=check)
    if initial is not None:
        result = _with_initial(xp, reduce, result, initial, offsets)
    count = table.shape[-1] - 1
    rows = result.reshape((outer * inner, count + 2))[:, 1:-1]
    return xp.moveaxis(rows.reshape(before + after + (count,)), -1, axis)


def _row_offsets(xp, table, outer, inner, n, data):
    """The offsets of every row's segments, row r = (o, i) of the moved data starting at r * n:
    r * n, then table's row o (or its only row) + r * n, and after the last row rows * n. Each row
    has count + 2 segments: the values before its first offset, its count segments, the values
    after its last offset (so that every offset is checked within its own row)."""
    starts = _arange(xp, outer * inner + 1, data) * n
    base = starts[:-1].reshape((outer, inner, 1))
    row = table.reshape((outer if table.ndim > 1 else 1, 1, table.shape[-1]))
    return xp.concatenate((xp.concatenate((base, row + base), -1).reshape(-1), starts[-1:]))


def _dense(xp, x):
    """x with unit strides (a copy where it has others: the per-segment functions take
    contiguous values and offsets), through torch or CuPy."""
    return x.contiguous() if xp.__name__ == "torch" else xp.ascontiguousarray(x)


def _arange(xp, n, like):
    """0, 1, ..., n - 1 as int64 on like's device, through torch or CuPy."""
    if xp.__name__ == "torch":
        return xp.arange(n, device=like.device)
    with like.device:
        return xp.arange(n, dtype=xp.int64)


def _with_initial(xp, reduce, result, initial, offsets):
    """torch's initial applied to each segment's result (offsets: the segments')."""
    if reduce == "sum":
        return result + initial
    if reduce == "mean":  # initial when empty, else (initial + sum) / length
        lengths = offsets[1:] - offsets[:-1]
        return xp.where(lengths == 0, initial, result + initial / xp.asarray(lengths, dtype=result.dtype))
    if initial != initial:  # NaN: torch's max and min from a NaN start stay NaN
        return result + initial
    if reduce in ("max", "amax"):
        return xp.where(result < initial, initial, result)
    return xp.where(result > initial, initial, result)


if _sys.modules.get("torch") is not None:  # torch imported first: the ops are registered before any trace
    _bind_torch()
