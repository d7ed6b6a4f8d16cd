"""The C library (libcured_c, header cured_c.h) through ctypes: loading, the array record,
the calls and their statuses as Python exceptions.

The library is found beside this file, or where the environment variable CURED_C_LIBRARY
points. Arrays cross the ABI as the C struct cured_array, packed with `struct` (faster than
building a ctypes.Structure per call).
"""

import ctypes
import os
import struct

MAX_RANK = 8

# cured_dtype
BOOL, INT8, UINT8, INT16, INT32, INT64, FLOAT16, BFLOAT16, FLOAT32, FLOAT64 = range(10)
DTYPE_NAMES = ("bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
DTYPE_BYTES = (1, 1, 1, 2, 4, 8, 2, 2, 4, 8)

# cured_op
SUM, MIN, MAX, ARGMIN, ARGMAX, EXACT_SUM = range(6)
OP_NAMES = ("sum", "amin", "amax", "argmin", "argmax", "exact_sum")

# cured_statistic
(MEAN, VAR, STD, VAR_MEAN, STD_MEAN, NORM, LOGSUMEXP, AMINMAX, COUNT_NONZERO, ANY,
 ALL) = range(11)
STATISTIC_NAMES = ("mean", "var", "std", "var_mean", "std_mean", "vector_norm", "logsumexp", "aminmax",
                   "count_nonzero", "any", "all")
TWO_PART = frozenset((VAR_MEAN, STD_MEAN, AMINMAX))

# cured_status
SUCCESS, ERROR_INVALID, ERROR_UNSUPPORTED, ERROR_CUDA, ERROR_INTERNAL = range(5)

# struct cured_array { void* data; int32_t dtype; int32_t rank; int64_t extents[8]; int64_t strides[8]; }
_ARRAY = struct.Struct("@Pii8q8q")  # native: the C layout, 144 bytes
POINTER_BYTES = struct.calcsize("@P")
_PAD = (0,) * MAX_RANK
_AXES = [struct.Struct("=%di" % k) for k in range(MAX_RANK + 1)]


class CuredError(RuntimeError):
    """A failure inside cured or CUDA (a launch, a device, memory)."""


class CuredValueError(CuredError, ValueError):
    """A bad argument: shape, axes, pointer, offsets."""


class CuredTypeError(CuredError, TypeError):
    """An element type, or a pair of input and output types, cured does not provide."""


def pack_array(data, dtype, shape, strides):
    """The bytes of a cured_array: shape and strides (in elements) as tuples of up to 8."""
    rank = len(shape)
    if rank > MAX_RANK:
        raise CuredValueError("cured: an array has at most %d axes, not %d" % (MAX_RANK, rank))
    return _ARRAY.pack(data, dtype, rank, *(tuple(shape) + _PAD[rank:]), *(tuple(strides) + _PAD[rank:]))


def pack_axes(axes):
    return _AXES[len(axes)].pack(*axes)


def _find():
    path = os.environ.get("CURED_C_LIBRARY")
    if path:
        return path
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libcured_c.so")


def _load():
    path = _find()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("cured: cannot load the C library %s (%s); build it with CMake (target cured-python) "
                          "or set CURED_C_LIBRARY" % (path, e)) from None
    i32, i64, p = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p
    lib.cured_abi_version.restype = i32
    lib.cured_abi_version.argtypes = []
    lib.cured_last_error.restype = ctypes.c_char_p
    lib.cured_last_error.argtypes = []
    lib.cured_result_dtype.restype = i32
    lib.cured_result_dtype.argtypes = [i32, i32, i32, ctypes.POINTER(i32)]
    # Arrays and axes go as bytes (char*), streams and workspaces as integers.
    lib.cured_reduce.restype = i32
    lib.cured_reduce.argtypes = [i32, ctypes.c_char_p, ctypes.c_char_p, i32, ctypes.c_char_p, ctypes.c_char_p, p, p]
    lib.cured_segment_reduce.restype = i32
    lib.cured_segment_reduce.argtypes = [i32, ctypes.c_char_p, p, i64, ctypes.c_char_p, p, i32, p, p]
    lib.cured_statistic_dtype.restype = i32
    lib.cured_statistic_dtype.argtypes = [i32, i32, ctypes.POINTER(i32)]
    lib.cured_statistic_reduce.restype = i32
    lib.cured_statistic_reduce.argtypes = [i32, ctypes.c_char_p, ctypes.c_char_p, i32, ctypes.c_double,
                                           ctypes.c_char_p, ctypes.c_char_p, p, p]
    lib.cured_segment_statistic.restype = i32
    lib.cured_segment_statistic.argtypes = [i32, ctypes.c_char_p, p, i64, ctypes.c_double, ctypes.c_char_p,
                                            ctypes.c_char_p, p, i32, p, p]
    version = lib.cured_abi_version()
    if version != 1:
        raise ImportError("cured: %s has C ABI version %d, this package needs 1" % (path, version))
    return lib


lib = _load()


def raise_for(status):
    """Raises the exception of a failed call's status, with the library's message."""
    message = lib.cured_last_error().decode("utf-8", "replace")
    if status == ERROR_INVALID:
        raise CuredValueError(message)
    if status == ERROR_UNSUPPORTED:
        raise CuredTypeError(message)
    raise CuredError(message)


def _result_dtypes():
    """Every (op, input type, requested or -1) the library provides, with its output type."""
    table = {}
    out = ctypes.c_int32()
    for op in range(len(OP_NAMES)):
        for t in range(len(DTYPE_NAMES)):
            for requested in (-1,) + tuple(range(len(DTYPE_NAMES))):
                if lib.cured_result_dtype(op, t, requested, ctypes.byref(out)) == SUCCESS:
                    table[(op, t, requested)] = out.value
    return table


RESULT_DTYPES = _result_dtypes()


def _statistic_dtypes():
    """Every (statistic, input type) the library provides, with its output type."""
    table = {}
    out = ctypes.c_int32()
    for s in range(len(STATISTIC_NAMES)):
        for t in range(len(DTYPE_NAMES)):
            if lib.cured_statistic_dtype(s, t, ctypes.byref(out)) == SUCCESS:
                table[(s, t)] = out.value
    return table


STATISTIC_DTYPES = _statistic_dtypes()


def statistic_dtype(statistic, dtype):
    """The output type of a statistic on dtype elements, or CuredTypeError."""
    try:
        return STATISTIC_DTYPES[(statistic, dtype)]
    except KeyError:
        raise CuredTypeError("cured: %s takes floating elements (float16, bfloat16, float32, float64), not %s"
                             % (STATISTIC_NAMES[statistic], DTYPE_NAMES[dtype])) from None


def result_dtype(op, dtype, requested=-1):
    """The output type of op on dtype elements, or CuredTypeError."""
    try:
        return RESULT_DTYPES[(op, dtype, requested)]
    except KeyError:
        pass
    if requested == -1:
        raise CuredTypeError("cured: %s takes no %s elements" % (OP_NAMES[op], DTYPE_NAMES[dtype]))
    raise CuredTypeError("cured: no %s of %s as %s" % (OP_NAMES[op], DTYPE_NAMES[dtype], DTYPE_NAMES[requested]))


def reduce(op, in_array, axes, out_array, stream):
    """cured_reduce on packed arrays; raises on failure."""
    status = lib.cured_reduce(op, in_array, pack_axes(axes), len(axes), out_array, None, stream, None)
    if status:
        raise_for(status)


def segment_reduce(op, values_array, offsets, count, out_array, check, stream):
    status = lib.cured_segment_reduce(op, values_array, offsets, count, out_array, None, 1 if check else 0, stream, None)
    if status:
        raise_for(status)


def statistic_reduce(statistic, in_array, axes, param, out_array, second_array, stream):
    """cured_statistic_reduce on packed arrays (second_array None for one output); raises on failure."""
    status = lib.cured_statistic_reduce(statistic, in_array, pack_axes(axes), len(axes), param, out_array,
                                        second_array, stream, None)
    if status:
        raise_for(status)


def segment_statistic(statistic, values_array, offsets, count, param, out_array, second_array, check, stream):
    status = lib.cured_segment_statistic(statistic, values_array, offsets, count, param, out_array, second_array,
                                         None, 1 if check else 0, stream, None)
    if status:
        raise_for(status)
