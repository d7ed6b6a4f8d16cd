"""The C library (libcured_c, header cured_c.h) through ctypes: loading, its tables, the array
record, the calls and their statuses as Python exceptions.

The library (libcured_c.so.0) is found beside this file, where `pip install` and the CMake
build put it, or where the environment variable CURED_C_LIBRARY points. Its tables of element
types, ops and statistics are read from it at import (cured_dtype_query, cured_op_query,
cured_statistic_query), and so are its type rules: every name and map below is made from
those rows, none is kept by hand. Each row's name, uppercased, is a module constant holding its
code (FLOAT32, SUM, VECTOR_NORM, ...). Arrays cross the ABI as the C struct cured_array, packed
with `struct` (faster than building a ctypes.Structure per call).
"""

import collections
import ctypes
import os
import struct

MAX_RANK = 8
ABI_VERSION = 3

# cured_status
SUCCESS, ERROR_INVALID, ERROR_UNSUPPORTED, ERROR_CUDA, ERROR_INTERNAL = range(5)

# The codes of the tables' columns (cured_kind, cured_result, cured_param), not of their rows.
KIND_BOOL, KIND_SIGNED, KIND_UNSIGNED, KIND_FLOATING = range(4)
(RESULT_SUM, RESULT_SAME, RESULT_INDEX, RESULT_EXACT, RESULT_MOMENT, RESULT_COUNT,
 RESULT_TRUTH) = range(7)
PARAM_NONE, PARAM_CORRECTION, PARAM_ORDER = range(3)


class DtypeInfo(ctypes.Structure):
    """struct cured_dtype_info: one row of the element types' table."""
    _fields_ = [("name", ctypes.c_char_p), ("bytes", ctypes.c_int32), ("kind", ctypes.c_int32),
                ("dlpack_code", ctypes.c_int32), ("dlpack_bits", ctypes.c_int32), ("typestr", ctypes.c_char_p),
                ("segments", ctypes.c_int32)]


class ReductionInfo(ctypes.Structure):
    """struct cured_reduction_info: one row of the ops' or the statistics' table."""
    _fields_ = [("name", ctypes.c_char_p), ("result", ctypes.c_int32), ("parts", ctypes.c_int32),
                ("param", ctypes.c_int32)]


# The rows as Python reads them: `code` is the row's index (its enum value), the rest its columns.
DtypeRow = collections.namedtuple("DtypeRow", "code name bytes kind dlpack_code dlpack_bits typestr segments")
ReductionRow = collections.namedtuple("ReductionRow", "code name result parts param")

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
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libcured_c.so.0")


def check_abi(lib, prefix, expected, path, who):
    """Checks a loaded library's <prefix>abi_version() against `expected` before anything else
    is declared (another version may lack some functions), and declares <prefix>last_error."""
    version_of = getattr(lib, prefix + "abi_version")
    version_of.restype = ctypes.c_int32
    version_of.argtypes = []
    version = version_of()
    if version != expected:
        raise ImportError("cured: %s has C ABI version %d, %s needs %d" % (path, version, who, expected))
    last_error = getattr(lib, prefix + "last_error")
    last_error.restype = ctypes.c_char_p
    last_error.argtypes = []


def _load():
    path = _find()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("cured: cannot load the C library %s (%s); install the package with "
                          "`pip install --no-build-isolation <cured's source tree>`, build the CMake target "
                          "cured-python, or set CURED_C_LIBRARY" % (path, e)) from None
    i32, i64, p = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p
    check_abi(lib, "cured_", ABI_VERSION, path, "this package")
    lib.cured_version.restype = ctypes.c_char_p
    lib.cured_version.argtypes = []
    lib.cured_status_string.restype = ctypes.c_char_p
    lib.cured_status_string.argtypes = [i32]
    # The tables and the type rules.
    lib.cured_dtype_query.restype = i32
    lib.cured_dtype_query.argtypes = [i32, ctypes.POINTER(DtypeInfo)]
    for name in ("cured_op_query", "cured_statistic_query"):
        getattr(lib, name).restype = i32
        getattr(lib, name).argtypes = [i32, ctypes.POINTER(ReductionInfo)]
    for name in ("cured_result_dtype", "cured_segment_result_dtype"):
        getattr(lib, name).restype = i32
        getattr(lib, name).argtypes = [i32, i32, i32, ctypes.POINTER(i32)]
    for name in ("cured_statistic_dtype", "cured_segment_statistic_dtype"):
        getattr(lib, name).restype = i32
        getattr(lib, name).argtypes = [i32, i32, ctypes.POINTER(i32)]
    # Arrays and axes go as bytes (char*), streams and workspaces as integers.
    lib.cured_reduce.restype = i32
    lib.cured_reduce.argtypes = [i32, ctypes.c_char_p, ctypes.c_char_p, i32, ctypes.c_char_p, ctypes.c_char_p, p, p]
    lib.cured_exact_dot.restype = i32
    lib.cured_exact_dot.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, p, p]
    lib.cured_segment_reduce.restype = i32
    lib.cured_segment_reduce.argtypes = [i32, ctypes.c_char_p, p, i64, ctypes.c_char_p, p, i32, p, p]
    lib.cured_statistic_reduce.restype = i32
    lib.cured_statistic_reduce.argtypes = [i32, ctypes.c_char_p, ctypes.c_char_p, i32, ctypes.c_double,
                                           ctypes.c_char_p, ctypes.c_char_p, p, p]
    lib.cured_segment_statistic.restype = i32
    lib.cured_segment_statistic.argtypes = [i32, ctypes.c_char_p, p, i64, ctypes.c_double, ctypes.c_char_p,
                                            ctypes.c_char_p, p, i32, p, p]
    return lib


lib = _load()


def last_error():
    """The message of this thread's last failed call into the library."""
    return lib.cured_last_error().decode("utf-8", "replace")


def version():
    """The C library's version, "major.minor.patch" (cured_version)."""
    return lib.cured_version().decode("ascii")


def status_string(status):
    """A status's name and meaning (cured_status_string)."""
    return lib.cured_status_string(status).decode("ascii")


def raise_for(status, message=None):
    """Raises the exception of a failed call's status, with its message (by default this
    library's, cured_last_error; libcured_nccl's calls pass theirs) or, where there is none, the
    status's meaning."""
    message = (last_error() if message is None else message) or "cured: " + status_string(status)
    if status == ERROR_INVALID:
        raise CuredValueError(message)
    if status == ERROR_UNSUPPORTED:
        raise CuredTypeError(message)
    raise CuredError(message)


# ---- the tables ---------------------------------------------------------------------------------

def _text(value):
    return (value or b"").decode("ascii")


def _read_rows(query, info, row):
    """Every row of one table: query(code) for code 0, 1, ... until CURED_ERROR_INVALID."""
    rows = []
    while True:
        status = query(len(rows), ctypes.byref(info))
        if status == ERROR_INVALID:
            break
        if status != SUCCESS or len(rows) > 1000:
            raise ImportError("cured: the C library's %s answered %d for row %d (%s)"
                              % (query.__name__, status, len(rows), last_error()))
        rows.append(row(len(rows), info))
    if not rows:
        raise ImportError("cured: the C library's %s has no rows" % query.__name__)
    return tuple(rows)


DTYPES = _read_rows(lib.cured_dtype_query, DtypeInfo(), lambda code, i: DtypeRow(
    code, _text(i.name), i.bytes, i.kind, i.dlpack_code, i.dlpack_bits, _text(i.typestr), bool(i.segments)))
OPS = _read_rows(lib.cured_op_query, ReductionInfo(), lambda code, i: ReductionRow(
    code, _text(i.name), i.result, i.parts, i.param))
STATISTICS = _read_rows(lib.cured_statistic_query, ReductionInfo(), lambda code, i: ReductionRow(
    code, _text(i.name), i.result, i.parts, i.param))


def _name_codes(rows):
    """Each row's name, uppercased, as a module constant holding its code (the C enum's name
    without CURED_)."""
    module = globals()
    for row in rows:
        constant = row.name.upper()
        if not constant.isidentifier() or constant in module:
            raise ImportError("cured: the C library's table row %r cannot be named %s here" % (row.name, constant))
        module[constant] = row.code


for _rows in (DTYPES, OPS, STATISTICS):
    _name_codes(_rows)
del _rows

DTYPE_NAMES = tuple(row.name for row in DTYPES)
DTYPE_BYTES = tuple(row.bytes for row in DTYPES)
FLOATING = frozenset(row.code for row in DTYPES if row.kind == KIND_FLOATING)
OP_NAMES = tuple(row.name for row in OPS)
STATISTIC_NAMES = tuple(row.name for row in STATISTICS)
TWO_PART = frozenset(row.code for row in STATISTICS if row.parts == 2)


def _result_dtypes(rule):
    """Every (op, input type, requested or -1) that rule (cured_result_dtype or
    cured_segment_result_dtype) allows, with its output type."""
    table = {}
    out = ctypes.c_int32()
    for op in range(len(OPS)):
        for t in range(len(DTYPES)):
            for requested in range(-1, len(DTYPES)):
                if rule(op, t, requested, ctypes.byref(out)) == SUCCESS:
                    table[(op, t, requested)] = out.value
    return table


def _statistic_dtypes(rule):
    """Every (statistic, input type) that rule (cured_statistic_dtype or
    cured_segment_statistic_dtype) allows, with its output type."""
    table = {}
    out = ctypes.c_int32()
    for s in range(len(STATISTICS)):
        for t in range(len(DTYPES)):
            if rule(s, t, ctypes.byref(out)) == SUCCESS:
                table[(s, t)] = out.value
    return table


# Along axes (cured_reduce, cured_statistic_reduce) and per segment (cured_segment_reduce,
# cured_segment_statistic): the segments take fewer types (the `segments` column).
RESULT_DTYPES = _result_dtypes(lib.cured_result_dtype)
SEGMENT_RESULT_DTYPES = _result_dtypes(lib.cured_segment_result_dtype)
STATISTIC_DTYPES = _statistic_dtypes(lib.cured_statistic_dtype)
SEGMENT_STATISTIC_DTYPES = _statistic_dtypes(lib.cured_segment_statistic_dtype)


def _name(names, code):
    return names[code] if 0 <= code < len(names) else "code %d" % code


def _names(codes):
    return ", ".join(DTYPE_NAMES[c] for c in sorted(set(codes))) or "no"


def result_dtype(op, dtype, requested=-1, segments=False):
    """The output type of op on dtype elements (requested: -1 for the default, or a dtype code),
    along axes or per segment, or CuredTypeError naming what the library provides."""
    table = SEGMENT_RESULT_DTYPES if segments else RESULT_DTYPES
    try:
        return table[(op, dtype, requested)]
    except KeyError:
        pass
    what = ("segment " if segments else "") + _name(OP_NAMES, op)
    if (op, dtype, -1) not in table:
        raise CuredTypeError("cured: %s takes %s elements, not %s"
                             % (what, _names(t for (o, t, r) in table if o == op and r == -1),
                                _name(DTYPE_NAMES, dtype)))
    raise CuredTypeError("cured: no %s of %s as %s (dtype may be %s)"
                         % (what, DTYPE_NAMES[dtype], _name(DTYPE_NAMES, requested),
                            _names(r for (o, t, r) in table if o == op and t == dtype and r >= 0)))


def statistic_dtype(statistic, dtype, segments=False):
    """The output type of a statistic on dtype elements, along axes or per segment, or
    CuredTypeError naming the types it takes."""
    table = SEGMENT_STATISTIC_DTYPES if segments else STATISTIC_DTYPES
    try:
        return table[(statistic, dtype)]
    except KeyError:
        raise CuredTypeError("cured: %s%s takes %s elements, not %s"
                             % ("segment " if segments else "", _name(STATISTIC_NAMES, statistic),
                                _names(t for (s, t) in table if s == statistic), _name(DTYPE_NAMES, dtype))) from None


def reduce(op, in_array, axes, out_array, stream):
    """cured_reduce on packed arrays; raises on failure."""
    status = lib.cured_reduce(op, in_array, pack_axes(axes), len(axes), out_array, None, stream, None)
    if status:
        raise_for(status)


def exact_dot(x_array, y_array, out_array, stream):
    """cured_exact_dot on packed arrays; raises on failure."""
    status = lib.cured_exact_dot(x_array, y_array, out_array, stream, None)
    if status:
        raise_for(status)


def segment_reduce(op, values_array, offsets, count, out_array, check, stream):
    """cured_segment_reduce on packed arrays and the offsets' device pointer; raises on failure."""
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
    """cured_segment_statistic on packed arrays (second_array None for one output); raises on failure."""
    status = lib.cured_segment_statistic(statistic, values_array, offsets, count, param, out_array, second_array,
                                         None, 1 if check else 0, stream, None)
    if status:
        raise_for(status)
