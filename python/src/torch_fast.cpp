// cured._torch_fast: the reductions along axes of a plain CUDA torch tensor in one compiled call,
// for the host's cost per call. From Python a call costs the interpreter's reading of the
// tensor, the output's allocation through torch's Python binding, and ctypes; here the tensor is
// read as the at::Tensor it wraps, the output allocated by at::empty, and libcured_c entered
// through the same function the ctypes binding loaded (its address, given to init).
//
//   _torch_fast.reduce(statistic, which, x, dim, keepdim, dtype, param)
//
// returns the result (a tensor, or the pair of a two-part statistic), or NotImplemented for
// anything other than the common case, which the Python path then takes and judges with its own
// errors: a tensor of a subclass or off CUDA, a 0-d tensor, a dim other than None, an int or a
// non-empty tuple or list of ints in range without repeats, a keepdim other than a bool, a dtype
// other than None or a torch dtype of the table. What the C library rejects raises as the
// Python path raises it (the package's raise_for). Compiled against the torch of the Python that
// builds the package; the package loads it only with that same torch version (__init__.py).

#include "torch_fast_config.h"  // first: it sets the C++ library's ABI to torch's

#include <Python.h>

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>

#include "cured_c.h"

namespace {

using reduce_fn = cured_status (*)(int32_t, const cured_array*, const int32_t*, int32_t, const cured_array*,
                                   const cured_array*, void*, cured_workspace);
using statistic_fn = cured_status (*)(int32_t, const cured_array*, const int32_t*, int32_t, double,
                                      const cured_array*, const cured_array*, void*, cured_workspace);

// What init gives: the C entry points, the package's resolve(statistic, which, code, requested)
// -> (which as run, output code) and raise_for(status), torch's dtypes by code, and the two-part
// statistics.
reduce_fn reduce_entry = nullptr;
statistic_fn statistic_entry = nullptr;
PyObject* resolve = nullptr;
PyObject* raise_for = nullptr;
constexpr int max_scalar_types = 64;
std::array<int8_t, max_scalar_types> code_of_scalar;  // -1: not in the table
std::array<int8_t, 64> scalar_of_code;                // -1: torch has no such type
std::array<bool, 64> two_part{};
// resolve's answers by (statistic, which, code, requested): (which as run) << 8 | output code.
std::unordered_map<uint32_t, int32_t> resolved;

PyObject* not_implemented() {
  Py_INCREF(Py_NotImplemented);
  return Py_NotImplemented;
}

int code_of(at::ScalarType t) {
  const int k = static_cast<int>(t);
  return k >= 0 && k < max_scalar_types ? code_of_scalar[k] : -1;
}

// The sorted axes of `dim` for a tensor of `rank` (>= 1) axes, or false where the Python path
// decides (see the top of the file).
bool axes_of(PyObject* dim, int rank, std::array<int32_t, CURED_C_MAX_RANK>& axes, int& count) {
  count = 0;
  if (dim == Py_None) {
    for (int k = 0; k < rank; ++k) axes[count++] = k;
    return true;
  }
  PyObject* const* items = &dim;
  Py_ssize_t n = 1;
  if (PyTuple_CheckExact(dim) || PyList_CheckExact(dim)) {
    items = PySequence_Fast_ITEMS(dim);
    n = PySequence_Fast_GET_SIZE(dim);
    if (n == 0 || n > rank) return false;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyLong_CheckExact(items[i])) return false;
    int overflow = 0;
    long d = PyLong_AsLongAndOverflow(items[i], &overflow);
    if (overflow || d < -rank || d >= rank) return false;
    if (d < 0) d += rank;
    for (int j = 0; j < count; ++j)
      if (axes[j] == d) return false;
    axes[count++] = static_cast<int32_t>(d);
  }
  std::sort(axes.begin(), axes.begin() + count);
  return true;
}

// resolve's answer for the key, asked once; false with the Python error set where it raised.
bool resolved_of(int statistic, int which, int code, int requested, int& run, int& out_code) {
  const uint32_t key = uint32_t(statistic) << 24 | uint32_t(which & 0xff) << 16 | uint32_t(code & 0xff) << 8 |
                       uint32_t((requested + 1) & 0xff);
  auto found = resolved.find(key);
  if (found == resolved.end()) {
    PyObject* answer = PyObject_CallFunction(resolve, "iiii", statistic, which, code, requested);
    if (!answer) return false;
    long r = -1, o = -1;
    if (!PyTuple_Check(answer) || PyTuple_GET_SIZE(answer) != 2 ||
        (r = PyLong_AsLong(PyTuple_GET_ITEM(answer, 0))) < 0 || (o = PyLong_AsLong(PyTuple_GET_ITEM(answer, 1))) < 0 ||
        o >= long(scalar_of_code.size())) {
      Py_DECREF(answer);
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "cured: resolve gave no (which, code) pair");
      return false;
    }
    Py_DECREF(answer);
    found = resolved.emplace(key, int32_t(r << 8 | o)).first;
  }
  run = found->second >> 8;
  out_code = found->second & 0xff;
  return true;
}

cured_array array_of(const at::Tensor& t, int code, const void* data) {
  cured_array a{};
  a.data = const_cast<void*>(data);
  a.dtype = code;
  a.rank = static_cast<int32_t>(t.dim());
  std::copy(t.sizes().begin(), t.sizes().end(), a.extents);
  std::copy(t.strides().begin(), t.strides().end(), a.strides);
  return a;
}

const void* data_of(const at::Tensor& t) {
#if CURED_TORCH_VERSION_NUMBER >= 201  // const_data_ptr from torch 2.1: no copy-on-write materialized
  return t.const_data_ptr();
#else
  return t.data_ptr();
#endif
}

PyObject* reduce(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS  // what torch's C++ throws (an allocation out of memory, a tensor without storage) raises as torch raises it
  if (nargs != 7) {
    PyErr_SetString(PyExc_TypeError, "_torch_fast.reduce takes 7 arguments");
    return nullptr;
  }
  if (!reduce_entry) {
    PyErr_SetString(PyExc_RuntimeError, "_torch_fast.init was not called");
    return nullptr;
  }
  const int statistic = args[0] == Py_True;
  const long which = PyLong_AsLong(args[1]);
  PyObject* x = args[2];
  PyObject* dim = args[3];
  PyObject* keepdim = args[4];
  PyObject* dtype = args[5];
  const double param = PyFloat_AsDouble(args[6]);
  if (PyErr_Occurred()) return nullptr;
  if (Py_TYPE(x) != reinterpret_cast<PyTypeObject*>(THPVariableClass) || (keepdim != Py_True && keepdim != Py_False))
    return not_implemented();
  const at::Tensor& t = THPVariable_Unpack(x);
  const int rank = static_cast<int>(t.dim());
  if (t.layout() != at::kStrided || !t.has_storage() || !t.is_cuda() || rank < 1 || rank > CURED_C_MAX_RANK || which < 0 || which > 0xff) return not_implemented();
  const int code = code_of(t.scalar_type());
  int requested = -1;
  if (dtype != Py_None) {
    if (!THPDtype_Check(dtype)) return not_implemented();
    requested = code_of(reinterpret_cast<THPDtype*>(dtype)->scalar_type);
    if (requested < 0) return not_implemented();
  }
  std::array<int32_t, CURED_C_MAX_RANK> axes{};
  int naxes = 0;
  if (code < 0 || !axes_of(dim, rank, axes, naxes)) return not_implemented();
  int run = 0, out_code = 0;
  if (!resolved_of(statistic, int(which), code, requested, run, out_code)) return nullptr;
  const int out_scalar = scalar_of_code[out_code];
  if (out_scalar < 0) return not_implemented();

  std::array<int64_t, CURED_C_MAX_RANK> shape{};
  int out_rank = 0;
  const c10::IntArrayRef extents = t.sizes();
  for (int k = 0, j = 0; k < rank; ++k) {
    const bool reduced = j < naxes && axes[j] == k;
    j += reduced;
    if (!reduced)
      shape[out_rank++] = extents[k];
    else if (keepdim == Py_True)
      shape[out_rank++] = 1;
  }
  const auto options = t.options().dtype(static_cast<at::ScalarType>(out_scalar));
  const c10::IntArrayRef sizes(shape.data(), out_rank);
  at::Tensor out = at::empty(sizes, options);
  at::Tensor second;
  const bool two = statistic && two_part[run];
  if (two) second = at::empty(sizes, options);
  const cured_array in = array_of(t, code, data_of(t));
  const cured_array out_a = array_of(out, out_code, out.data_ptr());
  const cured_array second_a = two ? array_of(second, out_code, second.data_ptr()) : cured_array{};
  void* stream = c10::cuda::getCurrentCUDAStream(t.get_device()).stream();
  cured_status status;
  Py_BEGIN_ALLOW_THREADS  // as ctypes does: a full launch queue or a first allocation may wait
  status = statistic ? statistic_entry(run, &in, axes.data(), naxes, param, &out_a, two ? &second_a : nullptr, stream,
                                       nullptr)
                     : reduce_entry(run, &in, axes.data(), naxes, &out_a, nullptr, stream, nullptr);
  Py_END_ALLOW_THREADS
  if (status != CURED_SUCCESS) {
    PyObject* r = PyObject_CallFunction(raise_for, "i", int(status));
    Py_XDECREF(r);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "cured: the C call failed");
    return nullptr;
  }
  if (!two) return THPVariable_Wrap(std::move(out));
  PyObject* first = THPVariable_Wrap(std::move(out));
  PyObject* other = first ? THPVariable_Wrap(std::move(second)) : nullptr;
  if (!other) {
    Py_XDECREF(first);
    return nullptr;
  }
  PyObject* pair = PyTuple_New(2);
  if (!pair) {
    Py_DECREF(first);
    Py_DECREF(other);
    return nullptr;
  }
  PyTuple_SET_ITEM(pair, 0, first);  // the tuple takes both references
  PyTuple_SET_ITEM(pair, 1, other);
  return pair;
  END_HANDLE_TH_ERRORS
}

// init(reduce_address, statistic_address, resolve, raise_for, dtypes, two_part): dtypes is a
// sequence of (torch dtype, code), two_part the codes of the two-part statistics.
PyObject* init(PyObject*, PyObject* args) {
  unsigned long long reduce_address = 0, statistic_address = 0;
  PyObject *resolve_fn = nullptr, *raise_fn = nullptr, *dtypes = nullptr, *pairs = nullptr;
  if (!PyArg_ParseTuple(args, "KKOOOO", &reduce_address, &statistic_address, &resolve_fn, &raise_fn, &dtypes, &pairs))
    return nullptr;
  if (!reduce_address || !statistic_address || !PyCallable_Check(resolve_fn) || !PyCallable_Check(raise_fn)) {
    PyErr_SetString(PyExc_ValueError, "_torch_fast.init: two entry points and two callables");
    return nullptr;
  }
  // The new tables, kept only when every argument is good.
  std::array<int8_t, max_scalar_types> codes;
  std::array<int8_t, 64> scalars;
  std::array<bool, 64> pairs_of{};
  codes.fill(-1);
  scalars.fill(-1);
  PyObject* list = PySequence_Fast(dtypes, "_torch_fast.init: dtypes must be a sequence");
  if (!list) return nullptr;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(list); ++i) {
    PyObject* item = PySequence_Fast_ITEMS(list)[i];
    PyObject* d = nullptr;
    int code = -1;
    if (!PyArg_ParseTuple(item, "Oi", &d, &code) || !THPDtype_Check(d) || code < 0 ||
        code >= int(scalars.size())) {
      Py_DECREF(list);
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_torch_fast.init: dtypes holds (torch dtype, code) pairs");
      return nullptr;
    }
    const int k = static_cast<int>(reinterpret_cast<THPDtype*>(d)->scalar_type);
    if (k >= 0 && k < max_scalar_types) {
      codes[k] = int8_t(code);
      scalars[code] = int8_t(k);
    }
  }
  Py_DECREF(list);
  list = PySequence_Fast(pairs, "_torch_fast.init: two_part must be a sequence");
  if (!list) return nullptr;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(list); ++i) {
    const long s = PyLong_AsLong(PySequence_Fast_ITEMS(list)[i]);
    if (s == -1 && PyErr_Occurred()) {
      Py_DECREF(list);
      return nullptr;
    }
    if (s >= 0 && s < long(pairs_of.size())) pairs_of[s] = true;
  }
  Py_DECREF(list);
  code_of_scalar = codes;
  scalar_of_code = scalars;
  two_part = pairs_of;
  Py_XINCREF(resolve_fn);
  Py_XSETREF(resolve, resolve_fn);
  Py_XINCREF(raise_fn);
  Py_XSETREF(raise_for, raise_fn);
  resolved.clear();
  reduce_entry = reinterpret_cast<reduce_fn>(static_cast<std::uintptr_t>(reduce_address));
  statistic_entry = reinterpret_cast<statistic_fn>(static_cast<std::uintptr_t>(statistic_address));
  Py_RETURN_NONE;
}

PyMethodDef methods[] = {
    {"init", init, METH_VARARGS, "init(reduce_address, statistic_address, resolve, raise_for, dtypes, two_part)"},
    {"reduce", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(reduce)), METH_FASTCALL,
     "reduce(statistic, which, x, dim, keepdim, dtype, param): the result, or NotImplemented"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "_torch_fast",
                      "cured's compiled torch fast path (reductions along axes of plain CUDA tensors)", -1, methods,
                      nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__torch_fast() {
  PyObject* m = PyModule_Create(&module);
  if (m && PyModule_AddStringConstant(m, "TORCH_VERSION", CURED_TORCH_VERSION) < 0) {
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
