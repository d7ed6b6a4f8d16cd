#pragma once
// What every C entry point of cured's libraries does around its work: errors as statuses and
// messages, the arguments' common checks, and the caller's current device restored. Each
// library (libcured_c, libcured_nccl) keeps its own thread's last message.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "capi.hpp"
#include "cured/types/error.cuh"
#include "cured_c.h"

namespace cured::capi {

/// A bad argument (CURED_ERROR_INVALID).
struct invalid : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs f, turning whatever it throws into a status and a message in `last_error` (the calling
/// thread's, one per library).
template <class F>
inline cured_status guarded(std::string& last_error, F&& f) noexcept {
  try {
    f();
    last_error.clear();
    return CURED_SUCCESS;
  } catch (const unsupported& e) {
    last_error = e.what();
    return CURED_ERROR_UNSUPPORTED;
  } catch (const invalid& e) {
    last_error = e.what();
    return CURED_ERROR_INVALID;
  } catch (const cured::error& e) {
    last_error = e.what();
    return e.code() == cudaSuccess ? CURED_ERROR_INVALID : CURED_ERROR_CUDA;
  } catch (const std::exception& e) {
    try {
      last_error = std::string("cured: internal error: ") + e.what();
    } catch (...) {
    }
    return CURED_ERROR_INTERNAL;
  } catch (...) {
    try {
      last_error = "cured: internal error";
    } catch (...) {
    }
    return CURED_ERROR_INTERNAL;
  }
}

[[noreturn]] inline void fail(const std::string& what) { throw invalid("cured: " + what); }

inline void check_array(const cured_array* a, const char* what) {
  if (!a) fail(std::string(what) + " is null");
  if (!is_dtype(a->dtype)) throw unsupported(std::string("cured: ") + what + ": unknown element type " + std::to_string(a->dtype));
  if (a->rank < 0 || a->rank > CURED_C_MAX_RANK)
    fail(std::string(what) + " has " + std::to_string(a->rank) + " axes (at most " + std::to_string(CURED_C_MAX_RANK) + ")");
  if (reinterpret_cast<std::uintptr_t>(a->data) % dtype_bytes(a->dtype) != 0)
    fail(std::string(what) + "'s address is not a multiple of its element size (" + std::to_string(dtype_bytes(a->dtype)) +
         " bytes)");
}

/// Restores the calling thread's current device when the call returns. The current device is
/// the driver's current context, which every runtime in the process (PyTorch's, CuPy's and the
/// one linked into this library) reads and sets: a call that switches to its input's device
/// must switch back. A thread with no usable device has nothing to restore.
class current_device_guard {
public:
  current_device_guard() {
    if (cudaGetDevice(&device_) != cudaSuccess) {
      (void)cudaGetLastError();
      device_ = -1;
    }
  }
  current_device_guard(const current_device_guard&) = delete;
  current_device_guard& operator=(const current_device_guard&) = delete;
  ~current_device_guard() {
    int now = -1;
    if (device_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != device_) (void)cudaSetDevice(device_);
  }

private:
  int device_ = -1;
};

/// The count of a's elements, which must lie densely in row-major order (`what` names a).
inline std::int64_t dense_count(const cured_array& a, const char* what) {
  std::int64_t n = 1;
  for (int k = 0; k < a.rank; ++k) {
    if (a.extents[k] < 0) fail(std::string(what) + " has a negative extent (" + std::to_string(a.extents[k]) + ")");
    if (a.extents[k] > 0 && n > INT64_MAX / a.extents[k]) fail(std::string(what) + " has more than 2^63 elements");
    n *= a.extents[k];
  }
  std::int64_t next = 1;
  for (int k = a.rank - 1; k >= 0 && n > 0; --k) {
    if (a.extents[k] == 1) continue;
    if (a.strides[k] != next)
      fail(std::string(what) + " is not contiguous (axis " + std::to_string(k) + "'s stride is " +
           std::to_string(a.strides[k]) + ", not " + std::to_string(next) + ")");
    next *= a.extents[k];
  }
  return n;
}

/// The calls that take the rules' types: along axes (and whole arrays), or per segment.
enum class family { axes, segments };

[[noreturn]] inline void refuse(const std::string& what) { throw unsupported("cured: " + what); }

/// The output type of op on in (requested -1: the default); throws unsupported when none.
inline std::int32_t result_dtype(std::int32_t op, std::int32_t in, std::int32_t requested, family f) {
  if (op < 0 || op >= CURED_OP_COUNT) fail("unknown op " + std::to_string(op));
  if (!is_dtype(in)) refuse("unknown element type " + std::to_string(in));
  const cured_reduction_info& row = op_rows[op];
  if (f == family::segments && !in_segments(in))
    refuse(std::string("no segmented ") + row.name + " of " + dtype_name(in) + " (it takes " + names_where(in_segments) +
           ")");
  std::int32_t def = in;
  switch (row.result) {
    case CURED_RESULT_SUM: def = sum_default(in); break;
    case CURED_RESULT_INDEX: def = CURED_INT64; break;
    case CURED_RESULT_EXACT:
      if (!is_floating(in))
        refuse(std::string(row.name) + " takes floating elements, not " + dtype_name(in) + " (" +
               names_where(is_floating) + ")");
      def = float_result(in);
      break;
    default: break;
  }
  if (requested == -1 || requested == def) return def;
  if (row.result == CURED_RESULT_SUM && sum_provided(in, requested)) return requested;
  refuse(std::string("no ") + row.name + " of " + dtype_name(in) + " as " +
         (is_dtype(requested) ? dtype_name(requested) : std::to_string(requested).c_str()));
}

}  // namespace cured::capi
