#pragma once
// Exact sums: the exact mathematical sum of floating-point values, rounded once.
//
//   float  s = cured::exact_sum(d_x, n);                 // blocking: the result on the host
//   cured::workspace ws;
//   cured::exact_sum_async(d_x, n, d_out, ws, stream);   // no sync, no allocation, graph-capturable
//
// Inputs: float, double, __half, __nv_bfloat16 device arrays of any alignment and 64-bit
// length (at least 2^44 elements). The result (double for double inputs, float otherwise) is
// the exact sum rounded to nearest-even, so it is the same bits for any order of the inputs,
// any grid and block size, and any GPU. Special values follow IEEE arithmetic on the exact
// sum: any NaN gives NaN; +inf and -inf together give NaN; an exact sum beyond the largest
// finite value gives inf of its sign; subnormals count exactly (never flushed); an exact zero
// is -0 only when every input is -0; the empty sum is +0. How: include/cured/device/exact_sum.cuh
// and docs/EXACT.md. exact_result_t<T> (cured/accumulate.cuh) is the result's type.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cured/accumulate.cuh"
#include "cured/detail/blocking.cuh"
#include "cured/detail/dispatch_exact.cuh"
#include "cured/workspace.cuh"

namespace cured {

/// d_out[0] = the exact sum of d_in[0, n), rounded once to exact_result_t<T>.
template <class T>
void exact_sum_async(const T* d_in, std::int64_t n, exact_result_t<T>* d_out, workspace& ws,
                     cudaStream_t stream = nullptr) {
  detail::exact_sum<detail::mode::async>(d_in, n, d_out, ws, stream);
}

/// The exact sum of d_in[0, n), rounded once to exact_result_t<T>.
template <class T>
exact_result_t<T> exact_sum(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  using R = exact_result_t<T>;
  return detail::blocking<R>(stream, [&](R* d_out, workspace& ws) {
    detail::exact_sum<detail::mode::blocking>(d_in, n, d_out, ws, stream);
  });
}

}  // namespace cured
