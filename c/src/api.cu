// The C interface: argument checks, the type rules, the workspaces, and errors as statuses.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <tuple>

#include "abi.hpp"
#include "capi.hpp"
#include "cured_c.h"

#ifndef CURED_VERSION_STRING
#error "CURED_VERSION_STRING (the project's version) is defined by c/CMakeLists.txt"
#endif

struct cured_workspace_s {
  cured::workspace ws;
  explicit cured_workspace_s(int device) : ws(device) {}
};

namespace cured::capi {

namespace {

thread_local std::string last_error;

template <class F>
cured_status guarded(F&& f) noexcept {
  return capi::guarded(last_error, std::forward<F>(f));
}

const char* statistic_name(std::int32_t s) {
  return s >= 0 && s < CURED_STATISTIC_COUNT ? statistic_rows[s].name : "an unknown statistic";
}

bool two_part(std::int32_t s) { return statistic_rows[s].parts == 2; }

/// The output type of a statistic on in; throws unsupported when none.
std::int32_t statistic_dtype(std::int32_t s, std::int32_t in, family f) {
  if (s < 0 || s >= CURED_STATISTIC_COUNT) fail("unknown statistic " + std::to_string(s));
  if (!is_dtype(in)) refuse("unknown element type " + std::to_string(in));
  const cured_reduction_info& row = statistic_rows[s];
  const bool counts = row.result == CURED_RESULT_COUNT || row.result == CURED_RESULT_TRUTH;
  if (f == family::segments && !counts && !in_segments(in))
    refuse(std::string("no segmented ") + row.name + " of " + dtype_name(in) + " (it takes " + names_where(in_segments) +
           " and, for the counts, every type)");
  switch (row.result) {
    case CURED_RESULT_SAME: return in;
    case CURED_RESULT_COUNT: return CURED_INT64;
    case CURED_RESULT_TRUTH: return CURED_BOOL;
    default:
      if (!is_floating(in))
        refuse(std::string(row.name) + " takes floating elements, not " + dtype_name(in) + " (" +
               names_where(is_floating) + ")");
      return float_result(in);
  }
}

void check_output_type(std::int32_t op, std::int32_t in, const cured_array& out, family f) {
  // A sum's output chooses its type among those provided; the other ops have one.
  const std::int32_t expected = result_dtype(op, in, op == CURED_SUM ? out.dtype : -1, f);
  if (expected != out.dtype) fail(std::string("the output is ") + dtype_name(out.dtype) + ", not " + dtype_name(expected));
}

/// Makes the device of `data` (device or managed memory) the current device, for the rest of
/// the call (a current_device_guard restores the caller's). Host and unknown memory leave it
/// as it is, for the library's checks to reject.
int device_of(const void* data) {
  int device = 0;
  CURED_CHECK(cudaGetDevice(&device));
  if (!data) return device;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, data) != cudaSuccess) {
    (void)cudaGetLastError();
    return device;
  }
  if ((a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) && a.device >= 0 && a.device != device) {
    CURED_CHECK(cudaSetDevice(a.device));
    device = a.device;
  }
  return device;
}

/// A caller's workspace, its device made current for the rest of the call.
workspace& on_device(workspace& ws) {
  CURED_CHECK(cudaSetDevice(ws.device()));
  return ws;
}

/// The library's own workspace for the calling thread, the device of `data` and the stream:
/// created on first use, never freed (a captured graph may still use it; freeing at exit could
/// follow the CUDA runtime's own teardown).
workspace& default_workspace(const void* data, cudaStream_t stream) {
  struct last_used {
    int device = -1;
    cudaStream_t stream = nullptr;
    workspace* ws = nullptr;
  };
  thread_local last_used last;
  const int device = device_of(data);
  if (last.ws && last.device == device && last.stream == stream) return *last.ws;
  using key = std::tuple<std::thread::id, int, cudaStream_t>;
  static auto* mutex = new std::mutex;
  static auto* all = new std::map<key, workspace*>;
  const std::lock_guard<std::mutex> lock(*mutex);
  workspace*& ws = (*all)[key{std::this_thread::get_id(), device, stream}];
  if (!ws) {
    // A first call on a stream being captured (torch.cuda.graph captures on a stream of its
    // own) allocates and clears the workspace: relaxed capture mode lets this thread do so.
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CURED_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    try {
      ws = new workspace(device);
      ws->dedicate_to(stream);
    } catch (...) {
      (void)cudaThreadExchangeStreamCaptureMode(&mode);
      throw;
    }
    CURED_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  }
  last = {device, stream, ws};
  return *ws;
}

/// The statistic's outputs checked: their types, and a second exactly for the two-part ones.
void check_statistic_outputs(std::int32_t s, std::int32_t in, const cured_array* out, const cured_array* second,
                             family f) {
  check_array(out, "the output");
  const std::int32_t t = statistic_dtype(s, in, f);
  if (out->dtype != t) fail(std::string("the output is ") + dtype_name(out->dtype) + ", not " + dtype_name(t));
  if (two_part(s) != (second != nullptr))
    fail(std::string(statistic_name(s)) + (second ? " has one output: second must be null" : " needs a second output"));
  if (second) {
    check_array(second, "the second output");
    if (second->dtype != t)
      fail(std::string("the second output is ") + dtype_name(second->dtype) + ", not " + dtype_name(t));
  }
}

/// A segmented call's values and output checked (one axis each, contiguous values), its device
/// made current and its workspace chosen.
segment_call segment_call_of(const cured_array& values, const std::int64_t* offsets, std::int64_t count,
                             const cured_array& out, std::uint32_t* status, std::int32_t check, void* stream,
                             cured_workspace ws) {
  if (values.rank != 1) fail("the values have " + std::to_string(values.rank) + " axes, not 1");
  if (values.extents[0] > 1 && values.strides[0] != 1)
    fail("the values are not contiguous (stride " + std::to_string(values.strides[0]) + ")");
  if (out.rank != 1) fail("the output has " + std::to_string(out.rank) + " axes, not 1");
  const auto s = static_cast<cudaStream_t>(stream);
  segment_call c{values.data, values.extents[0], offsets, count, reinterpret_cast<unsigned*>(status), check != 0,
                 nullptr, s};
  if (ws)
    c.ws = &on_device(ws->ws);
  else if (c.check)
    (void)device_of(values.data);
  else
    c.ws = &default_workspace(values.data, s);
  return c;
}

axes axes_of(const std::int32_t* list, std::int32_t count) {
  if (count < 0 || count > CURED_C_MAX_RANK) fail("naxes " + std::to_string(count) + " outside 0.." + std::to_string(CURED_C_MAX_RANK));
  if (count > 0 && !list) fail("axes is null with naxes " + std::to_string(count));
  axes a;
  for (int k = 0; k < count; ++k) a.list[a.count++] = list[k];
  return a;
}

template <class Info>
cured_status query(const Info* rows, int32_t count, int32_t code, Info* info) {
  return guarded([&] {
    if (!info) fail("info is null");
    if (code < 0 || code >= count) fail("no row " + std::to_string(code) + " (0.." + std::to_string(count - 1) + ")");
    *info = rows[code];
  });
}

}  // namespace

}  // namespace cured::capi

using namespace cured::capi;

extern "C" {

int32_t cured_abi_version(void) { return CURED_C_ABI_VERSION; }

const char* cured_version(void) { return CURED_VERSION_STRING; }

const char* cured_status_string(cured_status status) {
  switch (status) {
    case CURED_SUCCESS: return "CURED_SUCCESS: success";
    case CURED_ERROR_INVALID: return "CURED_ERROR_INVALID: invalid argument";
    case CURED_ERROR_UNSUPPORTED: return "CURED_ERROR_UNSUPPORTED: element type or pair of types not provided";
    case CURED_ERROR_CUDA: return "CURED_ERROR_CUDA: a CUDA call failed";
    case CURED_ERROR_INTERNAL: return "CURED_ERROR_INTERNAL: internal error";
  }
  return "unknown status";
}

const char* cured_last_error(void) { return last_error.c_str(); }

cured_status cured_dtype_query(int32_t dtype, cured_dtype_info* info) {
  return query(dtype_rows, CURED_DTYPE_COUNT, dtype, info);
}

cured_status cured_op_query(int32_t op, cured_reduction_info* info) {
  return query(op_rows, CURED_OP_COUNT, op, info);
}

cured_status cured_statistic_query(int32_t statistic, cured_reduction_info* info) {
  return query(statistic_rows, CURED_STATISTIC_COUNT, statistic, info);
}

cured_status cured_result_dtype(int32_t op, int32_t in, int32_t requested, int32_t* out) {
  return guarded([&] {
    if (!out) fail("out is null");
    *out = result_dtype(op, in, requested, family::axes);
  });
}

cured_status cured_segment_result_dtype(int32_t op, int32_t in, int32_t requested, int32_t* out) {
  return guarded([&] {
    if (!out) fail("out is null");
    *out = result_dtype(op, in, requested, family::segments);
  });
}

cured_status cured_reduce(int32_t op, const cured_array* in, const int32_t* axes_list, int32_t naxes,
                          const cured_array* out, const cured_array* values, void* stream, cured_workspace ws) {
  return guarded([&] {
    check_array(in, "the input");
    check_array(out, "the output");
    check_output_type(op, in->dtype, *out, family::axes);
    const bool arg = op == CURED_ARGMIN || op == CURED_ARGMAX;
    if (values) {
      if (!arg) fail("values are given only to argmin and argmax");
      check_array(values, "the values");
      if (values->dtype != in->dtype)
        fail(std::string("the values are ") + dtype_name(values->dtype) + ", the input " + dtype_name(in->dtype));
    }
    const cured::axes along = axes_of(axes_list, naxes);
    const auto s = static_cast<cudaStream_t>(stream);
    const current_device_guard caller_device;
    cured::workspace& w = ws ? on_device(ws->ws) : default_workspace(in->data, s);
    if (op == CURED_EXACT_SUM)
      return with_floating_shard(in->dtype, [&](auto shard) {
        axis_exact<decltype(shard)::value>(*in, along, *out, w, s);
      });
    with_shard(in->dtype, [&](auto shard) {
      constexpr int K = decltype(shard)::value;
      switch (op) {
        case CURED_SUM: return axis_sum<K>(*in, along, *out, w, s);
        case CURED_MIN:
        case CURED_MAX: return axis_extremum<K>(op == CURED_MAX, *in, along, *out, w, s);
        default: return axis_arg<K>(op == CURED_ARGMAX, *in, along, *out, values, w, s);  // argmin, argmax
      }
    });
  });
}

cured_status cured_exact_dot(const cured_array* x, const cured_array* y, const cured_array* out, void* stream,
                             cured_workspace ws) {
  return guarded([&] {
    check_array(x, "x");
    check_array(y, "y");
    check_array(out, "the output");
    if (x->dtype != y->dtype) fail(std::string("x is ") + dtype_name(x->dtype) + ", y " + dtype_name(y->dtype));
    if (!is_floating(x->dtype))
      refuse(std::string("exact_dot takes floating elements, not ") + dtype_name(x->dtype) + " (" +
             names_where(is_floating) + ")");
    bool same = x->rank == y->rank;
    for (int k = 0; same && k < x->rank; ++k) same = x->extents[k] == y->extents[k];
    if (!same) fail("x and y differ in shape");
    const std::int64_t n = dense_count(*x, "x");
    (void)dense_count(*y, "y");
    const std::int64_t outputs = dense_count(*out, "the output");
    if (outputs != 1) fail("the output has " + std::to_string(outputs) + " elements, not 1");
    if (out->dtype != float_result(x->dtype))
      fail(std::string("the output is ") + dtype_name(out->dtype) + ", not " + dtype_name(float_result(x->dtype)));
    const auto s = static_cast<cudaStream_t>(stream);
    const current_device_guard caller_device;
    cured::workspace& w = ws ? on_device(ws->ws) : default_workspace(x->data, s);
    with_floating_shard(x->dtype, [&](auto shard) { exact_dot<decltype(shard)::value>(*x, *y, n, *out, w, s); });
  });
}

cured_status cured_segment_reduce(int32_t op, const cured_array* values, const int64_t* offsets, int64_t count,
                                  const cured_array* out, uint32_t* status, int32_t check, void* stream,
                                  cured_workspace ws) {
  return guarded([&] {
    check_array(values, "the values");
    check_array(out, "the output");
    check_output_type(op, values->dtype, *out, family::segments);
    const current_device_guard caller_device;
    segment_call c = segment_call_of(*values, offsets, count, *out, status, check, stream, ws);
    with_shard(values->dtype, [&](auto shard) {
      constexpr int K = decltype(shard)::value;
      switch (op) {
        case CURED_SUM: return segment_sum<K>(c, values->dtype, *out);
        case CURED_MIN:
        case CURED_MAX: return segment_extremum<K>(op == CURED_MAX, c, values->dtype, *out);
        case CURED_ARGMIN:
        case CURED_ARGMAX: return segment_arg<K>(op == CURED_ARGMAX, c, values->dtype, *out);
        default: return segment_exact<K>(c, values->dtype, *out);
      }
    });
  });
}

cured_status cured_statistic_dtype(int32_t statistic, int32_t in, int32_t* out) {
  return guarded([&] {
    if (!out) fail("out is null");
    *out = statistic_dtype(statistic, in, family::axes);
  });
}

cured_status cured_segment_statistic_dtype(int32_t statistic, int32_t in, int32_t* out) {
  return guarded([&] {
    if (!out) fail("out is null");
    *out = statistic_dtype(statistic, in, family::segments);
  });
}

cured_status cured_statistic_reduce(int32_t statistic, const cured_array* in, const int32_t* axes_list, int32_t naxes,
                                    double param, const cured_array* out, const cured_array* second, void* stream,
                                    cured_workspace ws) {
  return guarded([&] {
    check_array(in, "the input");
    check_statistic_outputs(statistic, in->dtype, out, second, family::axes);
    const cured::axes along = axes_of(axes_list, naxes);
    const auto s = static_cast<cudaStream_t>(stream);
    const current_device_guard caller_device;
    cured::workspace& w = ws ? on_device(ws->ws) : default_workspace(in->data, s);
    const statistic_call st{statistic, param, second};
    if (statistic_rows[statistic].result != CURED_RESULT_MOMENT)
      return with_shard(in->dtype, [&](auto shard) {
        axis_counts<decltype(shard)::value>(st, *in, along, *out, w, s);
      });
    with_floating_shard(in->dtype, [&](auto shard) {
      constexpr int K = decltype(shard)::value;
      if (statistic == CURED_VECTOR_NORM || statistic == CURED_LOGSUMEXP)
        return axis_norms<K>(st, *in, along, *out, w, s);
      axis_moments<K>(st, *in, along, *out, w, s);
    });
  });
}

cured_status cured_segment_statistic(int32_t statistic, const cured_array* values, const int64_t* offsets,
                                     int64_t count, double param, const cured_array* out, const cured_array* second,
                                     uint32_t* status, int32_t check, void* stream, cured_workspace ws) {
  return guarded([&] {
    check_array(values, "the values");
    check_statistic_outputs(statistic, values->dtype, out, second, family::segments);
    const current_device_guard caller_device;
    segment_call c = segment_call_of(*values, offsets, count, *out, status, check, stream, ws);
    const statistic_call st{statistic, param, second};
    if (statistic_rows[statistic].result == CURED_RESULT_MOMENT)
      return with_floating_shard(values->dtype, [&](auto shard) {
        segment_floating_statistic<decltype(shard)::value>(st, c, values->dtype, *out);
      });
    with_shard(values->dtype, [&](auto shard) { segment_counts<decltype(shard)::value>(st, c, values->dtype, *out); });
  });
}

cured_status cured_workspace_create(int32_t device, cured_workspace* ws) {
  return guarded([&] {
    if (!ws) fail("ws is null");
    *ws = nullptr;
    *ws = new cured_workspace_s(device);
  });
}

cured_status cured_workspace_destroy(cured_workspace ws) {
  return guarded([&] { delete ws; });
}

}  // extern "C"
