"""cured's reductions of a torch tensor sharded over the ranks of a torch.distributed process
group, through libcured_nccl (header cured_nccl.h) and one NCCL communicator per group.

    torchrun --nproc_per_node=2 examples/python/distributed_sum.py

    import torch, torch.distributed as dist, cured.distributed as cd
    dist.init_process_group("nccl"); torch.cuda.set_device(local_rank)
    x = torch.rand(1000 + rank, 64, device="cuda")  # this rank's shard
    cd.sum(x)                  # the sum of the whole, on every rank
    cd.argmax(x, dim=0)        # int64 indices into the whole along dim 0
    cd.exact_sum(x, dim=0)     # the same bits for any number of ranks and any split
    cd.all_reduce_exact(grad)  # in place: each element the exact sum over the ranks, rounded once

The whole tensor is the concatenation, in group-rank order, of every rank's shard along dim
(dim None: of the flattened shards); the shards agree in element type and in every other axis,
and may be empty along dim. Every rank gets the result for the whole, a new CUDA tensor on its
shard's device (torch's shapes, the dim reduced) with the types of the package's own functions.
Along a dim every element type cured takes; with dim None, sum, amin, amax, argmin, argmax and
exact_sum take libcured_nccl's (the table's `segments` column, as the segmented reductions). No autograd:
results carry no gradient.

Every call is collective: each rank of the group makes the same calls in the same order, on the
current torch stream of its shard's device, and returns once the result is written. Where the
ranks' calls differ, every rank raises ValueError rather than wait: along a dim (and
vector_norm, var_mean) another function, dim, parameter, element type or shape; of the whole
(dim None) another op or element type; all_reduce_exact another type or element count. So does
a call that one rank refuses (a CPU tensor, a bad dim): that rank joins the others' collective
before it raises. Not seen, as with any mismatched NCCL calls, they wait: a call missing on
some rank, and calls of different kinds (one along a dim against one of the whole; exact_sum of
the whole against another reduction of the whole; all_reduce_exact against another call).

The library (libcured_nccl.so.0) is found beside libcured_c, or where CURED_NCCL_LIBRARY points;
it exists where cured was built with NCCL. `import cured` does not import this module.
"""

import atexit
import ctypes
import functools
import itertools
import math
import os
import struct
import sys
from typing import Any, Dict, List, Optional, Tuple

import cured as _cured  # the package's own functions reduce each shard and combine the partials

from . import _arrays, _lib
from ._lib import CuredError, CuredTypeError, CuredValueError

__all__ = ["sum", "amin", "amax", "argmin", "argmax", "exact_sum", "vector_norm", "var_mean", "all_reduce_exact",
           "communicator", "destroy", "nccl_version", "Communicator"]

ABI_VERSION = 1
UNIQUE_ID_BYTES = 128


def _find():
    path = os.environ.get("CURED_NCCL_LIBRARY")
    if path:
        return path
    return os.path.join(os.path.dirname(os.path.abspath(_lib.__file__)), "libcured_nccl.so.0")


def _load():
    path = _find()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        if os.path.exists(path):
            raise ImportError("cured: cannot load %s (%s); it needs the NCCL it was built with (libnccl.so.2) on "
                              "the loader's path" % (path, e)) from None
        raise ImportError("cured was built without NCCL: there is no %s, so cured.distributed is not available; "
                          "build cured where NCCL is found (NCCL_HOME may point at it), or set CURED_NCCL_LIBRARY"
                          % path) from None
    i32, p, array = ctypes.c_int32, ctypes.c_void_p, ctypes.c_char_p
    _lib.check_abi(lib, "cured_nccl_", ABI_VERSION, path, "cured.distributed")
    lib.cured_nccl_version.restype = i32
    lib.cured_nccl_version.argtypes = [ctypes.POINTER(i32)]
    lib.cured_nccl_unique_id.restype = i32
    lib.cured_nccl_unique_id.argtypes = [ctypes.c_char_p]
    lib.cured_nccl_comm_create.restype = i32
    lib.cured_nccl_comm_create.argtypes = [ctypes.c_char_p, i32, i32, i32, ctypes.POINTER(p)]
    lib.cured_nccl_comm_destroy.restype = i32
    lib.cured_nccl_comm_destroy.argtypes = [p]
    lib.cured_nccl_comm_info.restype = i32
    lib.cured_nccl_comm_info.argtypes = [p, ctypes.POINTER(i32), ctypes.POINTER(i32), ctypes.POINTER(i32)]
    # Arrays go as the bytes of cured_array (char*), the communicator and the stream as integers.
    lib.cured_nccl_reduce.restype = i32
    lib.cured_nccl_reduce.argtypes = [i32, array, array, array, p, p]
    lib.cured_nccl_all_gather.restype = i32
    lib.cured_nccl_all_gather.argtypes = [array, array, p, p]
    lib.cured_nccl_exact_all_reduce.restype = i32
    lib.cured_nccl_exact_all_reduce.argtypes = [array, array, p, p]
    return lib


lib = _load()
_nccl_reduce = lib.cured_nccl_reduce
_nccl_all_gather = lib.cured_nccl_all_gather
_nccl_exact_all_reduce = lib.cured_nccl_exact_all_reduce

try:
    import torch
    import torch.distributed as _dist
except ImportError as e:
    raise ImportError("cured.distributed needs torch with torch.distributed (%s)" % e) from None
if not _dist.is_available():
    raise ImportError("cured.distributed needs torch.distributed, which this torch (%s) was built without"
                      % torch.__version__)

_fw = _arrays.torch_framework()
_stream = _fw.current_stream  # the raw current stream of a device, without torch's Python frames
_PTR = _lib.POINTER_BYTES
_ORDER = sys.byteorder


def _check(status):
    """Raises the exception of a failed call here, with cured_nccl_last_error's message."""
    if status:
        _lib.raise_for(status, lib.cured_nccl_last_error().decode("utf-8", "replace"))


def nccl_version() -> int:
    """The NCCL version libcured_nccl runs with, as NCCL's code (22803 for 2.28.3)."""
    version = ctypes.c_int32()
    _check(lib.cured_nccl_version(ctypes.byref(version)))
    return version.value


# ---- communicators --------------------------------------------------------------------------------

class Communicator:
    """This rank's cured NCCL communicator of a process group: its number of ranks, this rank's
    rank in the group, and the CUDA device it runs on (handle: the C library's
    cured_nccl_comm)."""

    __slots__ = ("handle", "group", "ranks", "rank", "device")

    def __init__(self, handle, group, ranks, rank, device):
        self.handle, self.group, self.ranks, self.rank, self.device = handle, group, ranks, rank, device

    def __repr__(self):
        return "cured.distributed.Communicator(rank %d of %d, cuda:%d)" % (self.rank, self.ranks, self.device)


# One communicator per process group on this rank (key: the group, the default group's object
# for None), on the device of its first use: a second one of the same group would need every
# rank to create it at once, so a tensor on another device is refused instead (destroy first).
_communicators: Dict[Any, Communicator] = {}


def _group_key(group):
    return _dist.group.WORLD if group is None else group


def _require_initialized():
    if not _dist.is_available() or not _dist.is_initialized():
        raise RuntimeError("cured.distributed: torch.distributed is not initialized; call "
                           "torch.distributed.init_process_group first (torchrun sets the environment it reads)")


def _device_index(device):
    """A CUDA device (None: torch's current one, an int, "cuda:1", a torch.device) as its index."""
    if device is None:
        return torch.cuda.current_device()
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    device = torch.device(device)
    if device.type != "cuda":
        raise CuredValueError("cured.distributed: a communicator runs on a CUDA device, not %s" % device)
    return torch.cuda.current_device() if device.index is None else device.index


def communicator(group: Any = None, device: Any = None) -> Communicator:
    """The cured NCCL communicator of a torch.distributed process group (None: the default
    group) on this rank, created on first use, collectively, on `device` (None: the current
    CUDA device): group rank 0 makes the NCCL id and broadcasts it over the group. The
    functions here create it on their tensor's device."""
    key = _group_key(group)
    comm = _communicators.get(key)
    if comm is None:
        _require_initialized()
        return _create(key, group, _device_index(device))
    if device is not None and _device_index(device) != comm.device:
        raise CuredValueError("cured.distributed: this rank's communicator of the group is on cuda:%d, not %s; "
                              "cured.distributed.destroy(group) first to move it" % (comm.device, device))
    return comm


def _create(key, group, device):
    """A new communicator of group on device, kept under key (collective)."""
    _require_initialized()
    rank, ranks = _dist.get_rank(group), _dist.get_world_size(group)
    if rank < 0:
        raise CuredValueError("cured.distributed: this process is not a member of the group")
    ident: List[Any] = [None]
    if rank == 0:  # a failure here is sent to the other ranks instead of the id, so that none waits
        buffer = ctypes.create_string_buffer(UNIQUE_ID_BYTES)
        status = lib.cured_nccl_unique_id(buffer)
        ident[0] = buffer.raw if status == 0 else (status, lib.cured_nccl_last_error().decode("utf-8", "replace"))
    source = 0 if group is None else _global_rank(group, 0)
    with torch.cuda.device(device):  # the NCCL backend sends objects from the current device
        _dist.broadcast_object_list(ident, src=source, group=group)
    if not isinstance(ident[0], bytes):
        status, message = ident[0]
        _lib.raise_for(status, "cured.distributed: group rank 0 could not make the NCCL id: " + message)
    handle = ctypes.c_void_p()
    _check(lib.cured_nccl_comm_create(ident[0], ranks, rank, device, ctypes.byref(handle)))
    comm = _communicators[key] = Communicator(handle.value, key, ranks, rank, device)
    return comm


def _global_rank(group, group_rank):
    get = getattr(_dist, "get_global_rank", None) or _dist.distributed_c10d._get_global_rank  # torch < 2.0
    return get(group, group_rank)


def destroy(group: Any = None) -> None:
    """Frees this rank's communicator of the group (None: the default group), if it has one (not
    collective); the next call on the group creates a new one."""
    comm = _communicators.pop(_group_key(group), None)
    if comm is not None:
        _check(lib.cured_nccl_comm_destroy(comm.handle))


@atexit.register
def _destroy_all():
    while _communicators:
        _, comm = _communicators.popitem()
        lib.cured_nccl_comm_destroy(comm.handle)  # at exit a failure has no one to tell


# ---- the calls' checks ------------------------------------------------------------------------------

# A rank whose call fails its own checks still makes the C call that the other ranks make, with
# arrays that fail every check (_REFUSED): that call joins their collective with a failed
# contribution, so that they raise too rather than wait (cured_nccl.h). A join makes it: each
# function here names the join of its first C call.
_REFUSED = _lib.pack_array(0, -1, (), ())


def _join_gather(comm):
    _nccl_all_gather(_REFUSED, _REFUSED, comm.handle, _stream(comm.device))


def _join_exact(comm):
    _nccl_exact_all_reduce(_REFUSED, _REFUSED, comm.handle, _stream(comm.device))


def _join_reduce(op, comm):
    _nccl_reduce(op, _REFUSED, _REFUSED, None, comm.handle, _stream(comm.device))


_JOIN_REDUCE = {row.code: functools.partial(_join_reduce, row.code) for row in _lib.OPS}


def _bind(x, group, join):
    """(the group's communicator on this rank, x's dtype code) for a call on shard x: a CUDA
    tensor of a type cured takes, on the communicator's device. A refused shard joins the
    call's first collective (join) before raising: where the group has no communicator yet, the
    other ranks are making it, so this rank makes it with them (on the current device) first."""
    comm = _communicators.get(_group_key(group))
    try:
        if not isinstance(x, torch.Tensor):
            raise CuredTypeError("cured.distributed: expected a torch tensor, not %s" % type(x).__name__)
        if not x.is_cuda:
            raise CuredTypeError("cured.distributed: the tensor is in %s memory, not on a CUDA device" % x.device.type)
        device = x.get_device()
        if comm is not None and device != comm.device:
            raise CuredValueError("cured.distributed: the tensor is on cuda:%d, this rank's communicator of the group "
                                  "on cuda:%d; cured.distributed.destroy(group) first to move it" % (device, comm.device))
        code = _fw.dtype_code(x.dtype)
    except CuredError as refused:
        if comm is None and _dist.is_initialized():
            try:
                comm = _create(_group_key(group), group, torch.cuda.current_device())
            except Exception:  # noqa: BLE001 - the refusal is what this rank reports
                comm = None
        if comm is not None:
            join(comm)
        raise refused
    if comm is None:
        comm = _create(_group_key(group), group, device)
    return comm, code


def _refusing(comm, join, check, *args):
    """check(*args)'s answer; if it raises, the call's first collective is joined (join) first."""
    try:
        return check(*args)
    except Exception:
        join(comm)
        raise


def _dim(dim, x):
    """dim as a non-negative axis of x (None stays None)."""
    if dim is None:
        return None
    if isinstance(dim, bool) or not hasattr(dim, "__index__"):
        raise TypeError("cured.distributed: dim must be None or one int (the axis the shards are concatenated along), "
                        "not %s" % type(dim).__name__)
    if x.dim() == 0:
        raise CuredValueError("cured.distributed: a 0-d shard has no axis %d to concatenate along; pass dim=None"
                              % dim.__index__())
    if x.dim() > _lib.MAX_RANK:
        raise CuredValueError("cured.distributed: a shard has at most %d axes, not %d" % (_lib.MAX_RANK, x.dim()))
    return _cured._normalize_dims(dim.__index__(), x.dim())[0]


# The functions as the shards' record names them.
_CALLS = ("sum", "amin", "amax", "argmin", "argmax", "exact_sum", "vector_norm", "var_mean")
# The record each rank sends before a call along a dim: the call, the element type, the number
# of axes, the dim (-1 for None), the parameter's bits, the extents (-1 past the last); padded.
_RECORD = 16


def _bits(value):
    """A float parameter as the int64 of its bits, for the record."""
    return struct.unpack("=q", struct.pack("=d", float(value)))[0]


def _from_bits(bits):
    return struct.unpack("=d", struct.pack("=q", bits))[0]


def _agree(comm, call, code, shape, dim, param, stream):
    """Every rank's extent along dim (the whole shard's element count for dim None), once the
    ranks' records show the same call on shards that agree in every other axis; otherwise
    CuredValueError on every rank, naming the first rank that differs from group rank 0."""
    shape = tuple(shape)
    record = [_CALLS.index(call), code, len(shape), -1 if dim is None else dim, _bits(param)]
    record += list(shape) + [-1] * (_RECORD - len(record) - len(shape))
    mine = torch.tensor(record, dtype=torch.int64, device=torch.device("cuda", comm.device))
    rows = _gather(comm, mine, stream).tolist()
    message = _disagreement(call, rows)
    if message:
        raise CuredValueError(message)
    axis = 0 if dim is None else dim
    return [row[5 + axis] for row in rows]


def _disagreement(call, rows):
    """What the first rank whose record differs from group rank 0's does differently, or None."""
    first = rows[0]
    for r, row in enumerate(rows[1:], 1):
        if row[0] != first[0]:
            return ("cured.distributed: group rank %d called %s, group rank 0 %s: every rank makes the same calls in "
                    "the same order" % (r, _CALLS[row[0]], _CALLS[first[0]]))
        what = "cured.distributed.%s: " % call
        if row[3] != first[3]:
            return what + "group rank %d reduces along dim %s, group rank 0 along dim %s" % (
                r, "None" if row[3] < 0 else row[3], "None" if first[3] < 0 else first[3])
        if row[4] != first[4]:
            return what + "group rank %d passes %g, group rank 0 %g" % (r, _from_bits(row[4]), _from_bits(first[4]))
        if row[1] != first[1]:
            return what + "group rank %d's shard is %s, group rank 0's %s" % (
                r, _lib.DTYPE_NAMES[row[1]], _lib.DTYPE_NAMES[first[1]])
        if first[3] >= 0:
            dim, shape, first_shape = first[3], tuple(row[5:5 + row[2]]), tuple(first[5:5 + first[2]])
            if len(shape) != len(first_shape) or any(a != b for k, (a, b) in enumerate(zip(shape, first_shape))
                                                     if k != dim):
                return what + ("group rank %d's shard has shape %s, group rank 0's %s: shards agree in every axis "
                               "but dim %d" % (r, shape, first_shape, dim))
    return None


def _gather(comm, t, stream):
    """Every rank's t (the same type and shape on every rank), stacked: [ranks, *t.shape]. No
    elements: no collective (every rank skips it alike)."""
    t = t.contiguous()
    out = t.new_empty((comm.ranks,) + tuple(t.shape))
    code, n = _fw.dtype_code(t.dtype), t.numel()
    if n == 0:
        return out
    _check(_nccl_all_gather(_lib.pack_array(t.data_ptr(), code, (n,), (1,)),
                            _lib.pack_array(out.data_ptr(), code, (comm.ranks * n,), (1,)), comm.handle, stream))
    return out


# ---- reductions of the whole (dim None): one C call ----------------------------------------------

# (op, torch dtype) -> (the op as run, the result's torch dtype, the result's cured_array bytes
# after its data pointer): what a call of the whole works out before it runs.
_whole_plans: Dict[Tuple[int, Any], Tuple[int, Any, bytes]] = {}


def _whole_plan(op, code, dtype):
    """_whole_plans' entry for op on elements of type code (torch dtype dtype), made and kept."""
    plan = _whole_plans.get((op, dtype))
    if plan is None:
        c_op, out_code = _cured._resolve_code(op, code, -1)  # the package's rule: integers' exact sum is their sum
        plan = _whole_plans[(op, dtype)] = (c_op, _fw.dtype_of(out_code), _lib.pack_array(0, out_code, (), ())[_PTR:])
    return plan


def _reduce_whole(op, x, group):
    """op of the concatenation of the flattened shards: a 0-d tensor on every rank."""
    join = _JOIN_REDUCE[op]
    if op == _lib.EXACT_SUM and isinstance(x, torch.Tensor) and not x.dtype.is_floating_point:
        join = _JOIN_REDUCE[_lib.SUM]  # the other ranks run integers' exact sum as their sum
    comm, code = _bind(x, group, join)
    plan = _whole_plans.get((op, x.dtype))
    c_op, out_dtype, out_rest = plan if plan is not None else _refusing(comm, join, _whole_plan, op, code, x.dtype)
    x = x.contiguous()
    out = x.new_empty((), dtype=out_dtype)
    _check(_nccl_reduce(c_op, _lib.pack_array(x.data_ptr(), code, (x.numel(),), (1,)),
                        out.data_ptr().to_bytes(_PTR, _ORDER) + out_rest, None, comm.handle, _stream(comm.device)))
    return out


# ---- reductions along a dim: each rank's partial, gathered, combined in rank order ----------------

def _along(call, combine, x, dim, group, param=0.0, check_param=None):
    """call of the whole along dim (None: of the flattened shards): once the ranks' records agree,
    combine(param, comm, code, x, d, extents, stream) with x flattened for None, d the axis and
    extents every rank's extent along it. check_param: param's check, where it has one."""
    comm, code = _bind(x, group, _join_gather)  # the first collective: _agree's
    d = _refusing(comm, _join_gather, _dim, dim, x)
    if check_param is not None:
        param = _refusing(comm, _join_gather, check_param, param)
    x = x.detach()
    if d is None:
        x = x.reshape(-1)
    stream = _stream(comm.device)
    extents = _agree(comm, call, code, x.shape, d, param, stream)
    return combine(param, comm, code, x, 0 if d is None else d, extents, stream)


def _out_shape(x, d):
    return tuple(e for k, e in enumerate(x.shape) if k != d)


def _sum_along(param, comm, code, x, d, extents, stream):
    if code in _lib.FLOATING and _lib.DTYPE_BYTES[code] == 2:  # float32 partials (the accumulator), rounded once
        partial = _cured.sum(x, dim=d, dtype=torch.float32)
        return _cured.sum(_gather(comm, partial, stream), dim=0).to(x.dtype)
    return _cured.sum(_gather(comm, _cured.sum(x, dim=d), stream), dim=0)


def _extreme_along(op, param, comm, code, x, d, extents, stream):
    """amin (op MIN) or amax (MAX) of the whole along d; the empty shards' partials left out."""
    local = _cured.amin if op == _lib.MIN else _cured.amax
    nonempty = [r for r, n in enumerate(extents) if n > 0]
    if not nonempty:  # the whole is empty: what the package gives for it, the identity
        return local(x, dim=d)
    partial = local(x, dim=d) if x.shape[d] > 0 else x.new_empty(_out_shape(x, d))
    partials = _gather(comm, partial, stream)
    if len(nonempty) < comm.ranks:
        partials = partials[nonempty]
    return local(partials, dim=0)


def _arg_along(op, param, comm, code, x, d, extents, stream):
    """argmin (op ARGMIN) or argmax (ARGMAX) of the whole along d: each rank's extremes and their
    indices, the winning rank per output by the package's argmin or argmax of the extremes over
    the ranks (the first on ties, the first NaN), its index plus its shard's offset along d.
    Empty shards never win; all empty: -1, as the package gives."""
    arg = _cured.argmin if op == _lib.ARGMIN else _cured.argmax
    nonempty = [r for r, n in enumerate(extents) if n > 0]
    if not nonempty:
        return arg(x, dim=d)
    if x.shape[d] > 0:
        values, indices = (_cured.min if op == _lib.ARGMIN else _cured.max)(x, dim=d)
    else:
        shape = _out_shape(x, d)
        values, indices = x.new_empty(shape), x.new_empty(shape, dtype=torch.int64)
    values, indices = _gather(comm, values, stream), _gather(comm, indices, stream)
    if len(nonempty) < comm.ranks:
        values, indices = values[nonempty], indices[nonempty]
    starts = list(itertools.accumulate(extents, initial=0))
    offsets = torch.tensor([starts[r] for r in nonempty], dtype=torch.int64, device=x.device)
    winner = arg(values, dim=0)
    return indices.gather(0, winner.unsqueeze(0)).squeeze(0) + offsets[winner]


def _exact_along(param, comm, code, x, d, extents, stream):
    """The exact sum of the whole along d from one C call: x as rows [extent, m] (d first, the
    other axes flattened), summed over the rows and the ranks and rounded once."""
    if code not in _lib.FLOATING:  # integers: the int64 sum, exact (wrapping) in any order
        return _sum_along(param, comm, code, x, d, extents, stream)
    shape = _out_shape(x, d)
    m = math.prod(shape)
    out_code = _lib.result_dtype(_lib.EXACT_SUM, code)
    out = x.new_empty(shape, dtype=_fw.dtype_of(out_code))
    if m == 0:  # every rank's m is 0 (the shapes agree): nothing to sum
        return out
    rows = x.movedim(d, 0).reshape(x.shape[d], m)
    if (m > 1 and rows.stride(1) != 1) or (rows.shape[0] > 1 and rows.stride(0) < m):  # (stride 0: expanded)
        rows = rows.contiguous()
    row_stride = rows.stride(0) if rows.shape[0] > 1 else m
    _check(_nccl_exact_all_reduce(_lib.pack_array(rows.data_ptr(), code, (rows.shape[0], m), (row_stride, 1)),
                                  _lib.pack_array(out.data_ptr(), out_code, (m,), (1,)), comm.handle, stream))
    return out


def _norm_along(ord, comm, code, x, d, extents, stream):
    """vector_norm of the whole along d: the norm (the same ord) of the ranks' partial norms; an
    empty shard's partial is 0."""
    if x.shape[d] > 0:
        partial = _cured.vector_norm(x, ord, dim=d)
    else:
        partial = x.new_zeros(_out_shape(x, d), dtype=_fw.dtype_of(_lib.statistic_dtype(_lib.VECTOR_NORM, code)))
    return _cured.vector_norm(_gather(comm, partial, stream), ord, dim=0)


def _var_mean_along(correction, comm, code, x, d, extents, stream):
    """(var, mean) of the whole along d: each rank's (mean, m2) in float64, combined in rank order
    by Chan's formula (the counts are the extents, which every rank holds), then cast back; var
    is m2 / max(n - correction, 0)."""
    out_dtype = _fw.dtype_of(_lib.statistic_dtype(_lib.VAR_MEAN, code))
    shape = _out_shape(x, d)
    if x.shape[d] > 0:
        var, mean = _cured.var_mean(x, dim=d, correction=0)
        mine = torch.stack((mean.double(), var.double() * x.shape[d]))
    else:
        mine = x.new_zeros((2,) + shape, dtype=torch.float64)
    parts = _gather(comm, mine, stream)
    n, mean, m2 = 0, None, None
    for r, count in enumerate(extents):
        if count == 0:
            continue
        if mean is None:
            n, mean, m2 = count, parts[r, 0].clone(), parts[r, 1].clone()
            continue
        total = n + count
        delta = parts[r, 0] - mean
        mean += delta * (count / total)
        m2 += parts[r, 1] + delta * delta * (n * count / total)
        n = total
    if mean is None:  # the whole is empty
        return x.new_full(shape, math.nan, dtype=out_dtype), x.new_full(shape, math.nan, dtype=out_dtype)
    return (m2 / max(n - correction, 0)).to(out_dtype), mean.to(out_dtype)


def _order(ord):
    """vector_norm's ord as a float: 1, 2 or inf, whose norms of partial norms are the norm."""
    if isinstance(ord, bool) or not isinstance(ord, (int, float)) or float(ord) not in (1.0, 2.0, math.inf):
        raise CuredValueError("cured.distributed.vector_norm takes ord 1, 2 or inf, not %r" % (ord,))
    return float(ord)


# ---- the functions --------------------------------------------------------------------------------

# The ops of the whole (dim None: one cured_nccl_reduce) and along a dim: the call's name in the
# ranks' records and the combine of the shards' partials.
_ALONG = {
    _lib.SUM: ("sum", _sum_along),
    _lib.MIN: ("amin", functools.partial(_extreme_along, _lib.MIN)),
    _lib.MAX: ("amax", functools.partial(_extreme_along, _lib.MAX)),
    _lib.ARGMIN: ("argmin", functools.partial(_arg_along, _lib.ARGMIN)),
    _lib.ARGMAX: ("argmax", functools.partial(_arg_along, _lib.ARGMAX)),
    _lib.EXACT_SUM: ("exact_sum", _exact_along),
}


def _reduction(op, x, dim, group):
    if dim is None:
        return _reduce_whole(op, x, group)
    call, combine = _ALONG[op]
    return _along(call, combine, x, dim, group)


def sum(x: torch.Tensor, dim: Optional[int] = None, group: Any = None) -> torch.Tensor:
    """torch.sum of the whole (this rank's shard x: see the module's docstring), of cured.sum's
    types; the ranks' partials are combined in rank order: deterministic for a given number of
    ranks and split. Along a dim, float16 and bfloat16 partials are float32, rounded once at the
    end."""
    return _reduction(_lib.SUM, x, dim, group)


def amin(x: torch.Tensor, dim: Optional[int] = None, group: Any = None) -> torch.Tensor:
    """torch.amin of the whole: the least element along dim (every axis for None); NaN if any is
    NaN; of no elements the identity (+inf, or the integer type's largest), as cured.amin."""
    return _reduction(_lib.MIN, x, dim, group)


def amax(x: torch.Tensor, dim: Optional[int] = None, group: Any = None) -> torch.Tensor:
    """torch.amax of the whole: as amin, for the greatest element."""
    return _reduction(_lib.MAX, x, dim, group)


def argmin(x: torch.Tensor, dim: Optional[int] = None, group: Any = None) -> torch.Tensor:
    """torch.argmin of the whole: the int64 index of the first least element (the first NaN if
    any) in the concatenation along dim, or in the concatenation of the flattened shards for
    None; -1 where the whole has no elements."""
    return _reduction(_lib.ARGMIN, x, dim, group)


def argmax(x: torch.Tensor, dim: Optional[int] = None, group: Any = None) -> torch.Tensor:
    """torch.argmax of the whole: as argmin, for the greatest element."""
    return _reduction(_lib.ARGMAX, x, dim, group)


def exact_sum(x: torch.Tensor, dim: Optional[int] = None, group: Any = None) -> torch.Tensor:
    """cured.exact_sum of the whole: the exact sum rounded once, float32 (float64 for float64),
    the bits cured.exact_sum gives for the whole tensor on one GPU, for any number of ranks and
    any split. Integers: the int64 sum."""
    return _reduction(_lib.EXACT_SUM, x, dim, group)


def vector_norm(x: torch.Tensor, ord: float = 2, dim: Optional[int] = None, group: Any = None) -> torch.Tensor:
    """torch.linalg.vector_norm of the whole for ord 1, 2 and inf (others raise ValueError), of
    cured.vector_norm's types: the norm of the ranks' partial norms, with the same ord."""
    return _along("vector_norm", _norm_along, x, dim, group, ord, _order)


def var_mean(x: torch.Tensor, dim: Optional[int] = None, correction: float = 1,
             group: Any = None) -> Tuple[torch.Tensor, torch.Tensor]:
    """torch.var_mean of the whole: (var, mean), var = m2 / max(n - correction, 0), of
    cured.var_mean's types; the ranks' (mean, m2) combined in rank order by Chan's formula in
    float64. Of no elements: NaN, NaN."""
    return _along("var_mean", _var_mean_along, x, dim, group, correction, _cured._correction)


def all_reduce_exact(tensor: torch.Tensor, group: Any = None) -> torch.Tensor:
    """In place: each element of tensor (contiguous, float32 or float64, the same number of
    elements on every rank) becomes the exact sum of that element over the ranks, rounded once:
    the same bits for any number of ranks and order (NaN and infinities as IEEE addition gives
    them, -0 only when every term is -0). Returns tensor."""
    comm, code = _bind(tensor, group, _join_exact)
    _refusing(comm, _join_exact, _in_place, tensor, code)
    n = tensor.numel()
    array = _lib.pack_array(tensor.data_ptr(), code, (n,), (1,))
    _check(_nccl_exact_all_reduce(array, array, comm.handle, _stream(comm.device)))
    return tensor


def _in_place(tensor, code):
    """all_reduce_exact's checks of its tensor."""
    # In place: the types whose exact sum's type (the table's rule) is their own.
    if code in _lib.FLOATING and _lib.result_dtype(_lib.EXACT_SUM, code) != code:
        raise CuredTypeError("cured.distributed.all_reduce_exact: %s is not taken: correct rounding of the exact sum "
                             "to it is not provided (it is rounded to %s); reduce a copy of that type and cast back"
                             % (_lib.DTYPE_NAMES[code], _lib.DTYPE_NAMES[_lib.result_dtype(_lib.EXACT_SUM, code)]))
    if code not in _lib.FLOATING:
        raise CuredTypeError("cured.distributed.all_reduce_exact takes float32 or float64 tensors, not %s"
                             % _lib.DTYPE_NAMES[code])
    if not tensor.is_contiguous():
        raise CuredValueError("cured.distributed.all_reduce_exact takes a contiguous tensor (it writes it in place)")
