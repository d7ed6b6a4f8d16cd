"""Array descriptions without copies: PyTorch tensors, CuPy arrays, objects with
__cuda_array_interface__ (Numba) or __dlpack__ (JAX), and outputs allocated through the
input's framework on its current stream (for inputs of no framework: torch, CuPy or Numba,
whichever is installed first in that order).

describe(x) gives a Desc: the data pointer, cured dtype code, shape and strides (in elements),
the device, the stream to run on, and the framework that allocates the result. Frameworks are
imported only when an input of theirs arrives (`import cured` does not import torch).
"""

import ctypes
import sys

from . import _lib


class Desc:
    __slots__ = ("ptr", "dtype", "shape", "strides", "device", "stream", "fw", "keep")

    def __init__(self, ptr, dtype, shape, strides, device, stream, fw, keep=None):
        self.ptr, self.dtype, self.shape, self.strides = ptr, dtype, shape, strides
        self.device, self.stream, self.fw, self.keep = device, stream, fw, keep


def contiguous_strides(shape):
    strides = [1] * len(shape)
    s = 1
    for k in range(len(shape) - 1, -1, -1):
        strides[k] = s
        s *= max(shape[k], 1)
    return tuple(strides)


# The element types' table (_lib.DTYPES) as each way of naming a type names them: NumPy's type
# strings (__array_interface__'s, without the byte order; a row with "" has none), the names
# (NumPy's, CuPy's, torch's) and DLPack's (code, bits).
_TYPESTR = {row.typestr: row.code for row in _lib.DTYPES if row.typestr}
_NAMES = {row.name: row.code for row in _lib.DTYPES}
_DL_CODES = {(row.dlpack_code, row.dlpack_bits): row.code for row in _lib.DTYPES}


def _unsupported(what):
    return _lib.CuredTypeError("cured: unsupported element type %s (cured takes %s)" % (what, ", ".join(_lib.DTYPE_NAMES)))


def _code_named(name):
    """The dtype code of a NumPy-style dtype name ("float32"), or CuredTypeError."""
    code = _NAMES.get(name)
    if code is None:
        raise _unsupported(name)
    return code


def _byte_strides(byte_strides, itemsize, shape):
    """Strides in bytes to strides in elements; negative strides are not taken (None)."""
    strides = []
    for s, e in zip(byte_strides, shape):
        if e <= 1:
            strides.append(0 if e == 1 else 1)
            continue
        if s < 0:
            return None
        if s % itemsize:
            raise _lib.CuredValueError("cured: a stride of %d bytes is not a whole number of %d-byte elements" % (s, itemsize))
        strides.append(s // itemsize)
    return tuple(strides)


# ---- PyTorch ------------------------------------------------------------------------------------

class _Torch:
    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch
        # torch.<name> for each row of the table (torch.bool, torch.float32, ...); rows torch lacks are not taken.
        dtypes = ((getattr(torch, row.name, None), row.code) for row in _lib.DTYPES)
        self.to_code = {t: code for t, code in dtypes if isinstance(t, torch.dtype)}
        self.of_code = {code: t for t, code in self.to_code.items()}
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.current_stream = raw if raw is not None else (lambda d: torch.cuda.current_stream(d).cuda_stream)

    def dtype_code(self, dtype):
        code = self.to_code.get(dtype)
        if code is None:
            raise _unsupported(str(dtype))
        return code

    def describe(self, x):
        if not x.is_cuda:
            raise _lib.CuredTypeError("cured: the tensor is in %s memory, not on a CUDA device" % x.device.type)
        code = self.to_code.get(x.dtype)
        if code is None:
            raise _unsupported(str(x.dtype))
        device = x.get_device()
        return Desc(x.data_ptr(), code, tuple(x.shape), x.stride(), device, self.current_stream(device), self, x)

    def dtype_of(self, code):
        """torch's dtype of a cured dtype code."""
        dtype = self.of_code.get(code)
        if dtype is None:
            raise _unsupported("%s (torch has none)" % _lib.DTYPE_NAMES[code])
        return dtype

    def empty(self, shape, dtype, d):
        """A new tensor of shape and torch dtype on d's device, and its data pointer."""
        out = self.torch.empty(shape, dtype=dtype, device=self.torch.device("cuda", d.device))
        return out, out.data_ptr()

    def stream(self, device):
        """The current stream on device."""
        return self.current_stream(device)


# ---- CuPy ---------------------------------------------------------------------------------------

class _CuPy:
    name = "cupy"

    def __init__(self):
        import cupy
        self.cupy = cupy

    def dtype_code(self, dtype):
        return _code_named(self.cupy.dtype(dtype).name)

    def describe(self, x):
        code = _code_named(x.dtype.name)
        strides = _byte_strides(x.strides, x.itemsize, x.shape)
        if strides is None:  # negative strides: a copy in the element order
            x = self.cupy.ascontiguousarray(x)
            strides = contiguous_strides(x.shape)
        return Desc(x.data.ptr, code, tuple(x.shape), strides, x.device.id, self.cupy.cuda.get_current_stream().ptr, self, x)

    def dtype_of(self, code):
        """CuPy's dtype of a cured dtype code: its name."""
        return _lib.DTYPE_NAMES[code]

    def empty(self, shape, dtype, d):
        """A new array of shape and dtype on d's device, and its data pointer."""
        with self.cupy.cuda.Device(d.device):
            out = self.cupy.empty(shape, dtype=dtype)
        return out, out.data.ptr

    def stream(self, device):
        """The current stream (CuPy's is per device and thread; the caller's device is d's)."""
        with self.cupy.cuda.Device(device):
            return self.cupy.cuda.get_current_stream().ptr


# ---- Numba (results only: its arrays come in through __cuda_array_interface__) ----------------

class _Numba:
    name = "numba"

    def __init__(self):
        import numpy
        from numba import cuda
        self.numpy = numpy
        self.cuda = cuda

    def dtype_code(self, dtype):
        return _code_named(self.numpy.dtype(dtype).name)

    def dtype_of(self, code):
        """NumPy's dtype of a cured dtype code (NumPy has no bfloat16)."""
        if not _lib.DTYPES[code].typestr:
            raise _unsupported("%s for a result allocated with Numba (NumPy has none; torch allocates it)"
                               % _lib.DTYPE_NAMES[code])
        return self.numpy.dtype(_lib.DTYPE_NAMES[code])

    def empty(self, shape, dtype, d):
        """A new device array of shape and dtype on d's device, and its data pointer."""
        with self.cuda.gpus[d.device]:
            out = self.cuda.device_array(shape, dtype=dtype)
        return out, out.__cuda_array_interface__["data"][0] or 0

    def stream(self, device):
        """The legacy default stream, Numba's default."""
        return 0


# ---- __cuda_array_interface__ and __dlpack__ -------------------------------------------------------

_fallback = None


def _fallback_framework():
    """The framework that allocates results for inputs of none (Numba's, JAX's, any other
    __cuda_array_interface__ or __dlpack__): torch, CuPy or Numba, the first that imports."""
    global _fallback
    if _fallback is None:
        for name, make in (("torch", _Torch), ("cupy", _CuPy), ("numba", _Numba)):
            try:
                _fallback = _framework(name, make)
                break
            except ImportError:
                continue
        else:
            raise _lib.CuredTypeError("cured: the results for an input known by __cuda_array_interface__ or __dlpack__ "
                                      "alone are allocated with torch, CuPy or Numba, and none of them is installed")
    return _fallback


def _describe_cai(x, cai):
    typestr = cai["typestr"]
    code = _TYPESTR.get(typestr[1:])
    if code is None:
        raise _unsupported(typestr)
    shape = tuple(cai["shape"])
    itemsize = _lib.DTYPE_BYTES[code]
    strides = cai.get("strides")
    strides = contiguous_strides(shape) if strides is None else _byte_strides(strides, itemsize, shape)
    if strides is None:
        raise _lib.CuredValueError("cured: negative strides in __cuda_array_interface__ are not taken; pass a copy")
    ptr = cai["data"][0] or 0
    # Version 3's stream: the producer's, on which the data is ready (1: legacy default, 2: per-thread).
    stream = cai.get("stream")
    stream = 0 if stream in (None, 1) else stream
    fw = _fallback_framework()
    return Desc(ptr, code, shape, strides, _device_of_pointer(ptr), stream, fw, None)


_driver = None


def _device_of_pointer(ptr):
    """The device ordinal of device memory at ptr (the driver's cuPointerGetAttribute)."""
    global _driver
    if not ptr:
        return 0
    if _driver is None:
        _driver = ctypes.CDLL("libcuda.so.1")
        _driver.cuPointerGetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        _driver.cuInit(0)
    ordinal = ctypes.c_int(-1)
    # CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
    if _driver.cuPointerGetAttribute(ctypes.byref(ordinal), 9, ctypes.c_void_p(ptr)) != 0 or ordinal.value < 0:
        raise _lib.CuredTypeError("cured: the array's memory at 0x%x is not CUDA device memory" % ptr)
    return ordinal.value


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _describe_dlpack(x):
    kind, device = x.__dlpack_device__()
    if int(kind) not in (2, 13):  # kDLCUDA, kDLCUDAManaged
        raise _lib.CuredTypeError("cured: the array is on DLPack device type %d, not a CUDA device" % int(kind))
    fw = _fallback_framework()
    stream = fw.stream(device)
    capsule = x.__dlpack__(stream=stream or 1)
    t = _DLTensor.from_address(_get_pointer(capsule, b"dltensor"))
    code = _DL_CODES.get((t.code, t.bits))
    if code is None or t.lanes != 1:
        raise _unsupported("DLPack code %d, %d bits, %d lanes" % (t.code, t.bits, t.lanes))
    shape = tuple(t.shape[k] for k in range(t.ndim))
    strides = contiguous_strides(shape) if not t.strides else tuple(t.strides[k] for k in range(t.ndim))
    if any(s < 0 for s in strides):
        raise _lib.CuredValueError("cured: negative strides in a DLPack tensor are not taken; pass a copy")
    ptr = (t.data or 0) + t.byte_offset
    # The capsule stays referenced until the call returns; its destructor frees the tensor.
    return Desc(ptr, code, shape, strides, device, stream, fw, capsule)


# ---- dispatch by type ---------------------------------------------------------------------------

_frameworks = {}
_by_type = {}


def _framework(name, make):
    fw = _frameworks.get(name)
    if fw is None:
        fw = _frameworks[name] = make()
    return fw


def torch_framework():
    """The torch framework (imports torch)."""
    return _framework("torch", _Torch)


def describe(x):
    """The Desc of x, or TypeError for anything that is not an array in CUDA memory."""
    handler = _by_type.get(type(x))
    if handler is not None:
        return handler(x)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        handler = _framework("torch", _Torch).describe
    else:
        cupy = sys.modules.get("cupy")
        if cupy is not None and isinstance(x, cupy.ndarray):
            handler = _framework("cupy", _CuPy).describe
        elif hasattr(x, "__cuda_array_interface__"):
            def handler(a):
                return _describe_cai(a, a.__cuda_array_interface__)
        elif hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
            handler = _describe_dlpack
        elif hasattr(x, "__array_interface__") or hasattr(x, "__array__"):
            raise _lib.CuredTypeError("cured: %s is in host memory; cured reduces arrays on a CUDA device" % type(x).__name__)
        else:
            raise _lib.CuredTypeError("cured: expected a CUDA array (a torch tensor, a CuPy array, or an object with "
                                      "__cuda_array_interface__ or __dlpack__), not %s" % type(x).__name__)
    _by_type[type(x)] = handler
    return handler(x)
