#pragma once
// The C interface's internals: arrays as views, element types as C++ types, and the entry points
// of each family, one translation unit each (so the two cores of a build compile them side by
// side, and each kernel is instantiated once).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "cured/view.cuh"
#include "cured/workspace.cuh"
#include "cured_c.h"

namespace cured::capi {

/// An element type or a pair of types the interface does not provide.
struct unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* dtype_name(std::int32_t dtype);
std::size_t dtype_bytes(std::int32_t dtype);

template <class T>
struct tag {
  using type = T;
};

/// Calls f(tag<T>{}) with the C++ type of a cured_dtype's elements (bool as its byte).
template <class F>
decltype(auto) with_element(std::int32_t dtype, F&& f) {
  switch (dtype) {
    case CURED_BOOL:
    case CURED_UINT8: return f(tag<std::uint8_t>{});
    case CURED_INT8: return f(tag<std::int8_t>{});
    case CURED_INT16: return f(tag<std::int16_t>{});
    case CURED_INT32: return f(tag<std::int32_t>{});
    case CURED_INT64: return f(tag<std::int64_t>{});
    case CURED_FLOAT16: return f(tag<__half>{});
    case CURED_BFLOAT16: return f(tag<__nv_bfloat16>{});
    case CURED_FLOAT32: return f(tag<float>{});
    case CURED_FLOAT64: return f(tag<double>{});
    default: throw unsupported("cured: unknown element type " + std::to_string(dtype));
  }
}

/// with_element for the element types of the segmented reductions (`what` names the op in the
/// error for others).
template <class F>
void with_segment_element(std::int32_t dtype, const char* what, F&& f) {
  switch (dtype) {
    case CURED_INT32: return f(tag<std::int32_t>{});
    case CURED_INT64: return f(tag<std::int64_t>{});
    case CURED_FLOAT16: return f(tag<__half>{});
    case CURED_BFLOAT16: return f(tag<__nv_bfloat16>{});
    case CURED_FLOAT32: return f(tag<float>{});
    case CURED_FLOAT64: return f(tag<double>{});
    default:
      throw unsupported(std::string("cured: no segmented ") + what + " of " + dtype_name(dtype) +
                        " (int32, int64, float16, bfloat16, float32, float64)");
  }
}

/// The view of an array's elements as T (the array's type already checked to be T's).
template <class T>
strided_view<T> as_view(const cured_array& a) {
  strided_view<T> v;
  v.data = static_cast<T*>(a.data);
  v.rank = a.rank;
  for (int k = 0; k < a.rank; ++k) {
    v.extents[k] = a.extents[k];
    v.strides[k] = a.strides[k];
  }
  return v;
}

// ---- the families (axes_*.cu, segments_*.cu) --------------------------------------------------

void axis_sum(const cured_array& in, const axes& along, const cured_array& out, workspace& ws, cudaStream_t s);
void axis_extremum(bool max, const cured_array& in, const axes& along, const cured_array& out, workspace& ws,
                   cudaStream_t s);
void axis_arg(bool max, const cured_array& in, const axes& along, const cured_array& out, const cured_array* values,
              workspace& ws, cudaStream_t s);
void axis_exact(const cured_array& in, const axes& along, const cured_array& out, workspace& ws, cudaStream_t s);

/// A segmented call: the values as a pointer and count, the offsets, and where the status goes
/// (check: the blocking form, which throws for bad offsets; else the async form on ws).
struct segment_call {
  const void* values;
  std::int64_t n;
  const std::int64_t* offsets;
  std::int64_t count;
  unsigned* status;
  bool check;
  workspace* ws;
  cudaStream_t stream;
};

}  // namespace cured::capi

namespace cured::detail {
/// cured/segments.cuh's: the blocking forms' course (thread workspace, wait, bad offsets thrown).
template <class Enqueue>
void segment_blocking(cudaStream_t stream, Enqueue enqueue);
}  // namespace cured::detail

namespace cured::capi {

/// Runs `async(ws, status)` (an _async form) on the call's workspace and status word, or, with
/// check, as the blocking forms run it: on the thread's workspace, waited for, bad offsets thrown.
template <class Async>
void segment_run(const segment_call& c, const Async& async) {
  if (c.check)
    detail::segment_blocking(c.stream, async);
  else
    async(*c.ws, c.status);
}

// ---- the statistics (axes_moments.cu, axes_norms.cu, axes_counts.cu, segments_statistics.cu,
// segments_counts.cu) ---------------------------------------------------------------------------

/// Which statistic, its parameter (ddof or p), and its second output (null for one part).
struct statistic_call {
  std::int32_t statistic;
  double param;
  const cured_array* second;
};

/// mean, var, std, var_mean, std_mean of floating elements (var and std as var_mean and std_mean
/// without the second output: one kernel for both).
void axis_moments(const statistic_call& st, const cured_array& in, const axes& along, const cured_array& out,
                  workspace& ws, cudaStream_t s);
/// norm and logsumexp of floating elements.
void axis_norms(const statistic_call& st, const cured_array& in, const axes& along, const cured_array& out,
                workspace& ws, cudaStream_t s);
/// aminmax, count_nonzero, any and all of any element type.
void axis_counts(const statistic_call& st, const cured_array& in, const axes& along, const cured_array& out,
                 workspace& ws, cudaStream_t s);
void segment_floating_statistic(const statistic_call& st, const segment_call& c, std::int32_t in,
                                const cured_array& out);
void segment_counts(const statistic_call& st, const segment_call& c, std::int32_t in, const cured_array& out);

/// Calls f(tag<T>{}) with the C++ type of floating elements; unsupported for others.
template <class F>
void with_floating(std::int32_t dtype, const char* what, F&& f) {
  switch (dtype) {
    case CURED_FLOAT16: return f(tag<__half>{});
    case CURED_BFLOAT16: return f(tag<__nv_bfloat16>{});
    case CURED_FLOAT32: return f(tag<float>{});
    case CURED_FLOAT64: return f(tag<double>{});
    default:
      throw unsupported(std::string("cured: ") + what + " takes floating elements (float16, bfloat16, float32, "
                        "float64), not " + dtype_name(dtype));
  }
}

/// Calls f(tag<T>{}) with a type whose zero elements are those of a cured_dtype's: integers as
/// the unsigned integers of their size (zero is the same bits), floating types as themselves
/// (-0.0 is zero).
template <class F>
void with_zero_class(std::int32_t dtype, F&& f) {
  switch (dtype) {
    case CURED_BOOL:
    case CURED_INT8:
    case CURED_UINT8: return f(tag<std::uint8_t>{});
    case CURED_INT16: return f(tag<std::uint16_t>{});
    case CURED_INT32: return f(tag<std::uint32_t>{});
    case CURED_INT64: return f(tag<std::uint64_t>{});
    default: return with_floating(dtype, "count_nonzero, any and all", f);
  }
}

void segment_sum(const segment_call& c, std::int32_t in, const cured_array& out);
void segment_extremum(bool max, const segment_call& c, std::int32_t in, const cured_array& out);
void segment_arg(bool max, const segment_call& c, std::int32_t in, const cured_array& out);
void segment_exact(const segment_call& c, std::int32_t in, const cured_array& out);

}  // namespace cured::capi
