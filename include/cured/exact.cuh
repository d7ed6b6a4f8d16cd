#pragma once
// Exact sums and dot products: the exact mathematical result, rounded once.
//
//   float  s = cured::exact_sum(d_x, n);                 // blocking: the result on the host
//   float  d = cured::exact_dot(d_x, d_y, n);            // sum of d_x[i] * d_y[i], exact
//   cured::workspace ws;
//   cured::exact_sum_async(d_x, n, d_out, ws, stream);   // no sync, no allocation, graph-capturable
//   cured::exact_dot_async(d_x, d_y, n, d_out, ws, stream);
//
// Inputs: float, double, __half, __nv_bfloat16 device arrays of any alignment and 64-bit
// length (at least 2^44 elements). The result (double for double inputs, float otherwise) is
// the exact sum rounded to nearest-even, so it is the same bits for any order of the inputs,
// any grid and block size, and any GPU. Special values follow IEEE arithmetic on the exact
// sum: any NaN gives NaN; +inf and -inf together give NaN; an exact sum beyond the largest
// finite value gives inf of its sign; subnormals count exactly (never flushed); an exact zero
// is -0 only when every input is -0; the empty sum is +0. How: include/cured/device/exact_sum.cuh
// and docs/EXACT.md. exact_result_t<T> (cured/types/accumulate.cuh) is the result's type.
//
// exact_dot: the exact sum of the exact products x[i] * y[i], rounded once, with the same rules
// applied to the products: a NaN operand or inf * 0 gives NaN; products beyond the largest
// finite value or below the smallest subnormal count exactly (an overflowing product that
// cancels leaves a finite result); an exact zero is -0 only when every product is -0 (the sign
// of a zero product is the xor of its operands' signs). x and y may have any alignment,
// different from each other.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cured/types/accumulate.cuh"
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

/// d_out[0] = the exact dot product of d_x[0, n) and d_y[0, n), rounded once to exact_result_t<T>.
template <class T>
void exact_dot_async(const T* d_x, const T* d_y, std::int64_t n, exact_result_t<T>* d_out, workspace& ws,
                     cudaStream_t stream = nullptr) {
  detail::exact_dot<detail::mode::async>(d_x, d_y, n, d_out, ws, stream);
}

/// The exact dot product of d_x[0, n) and d_y[0, n), rounded once to exact_result_t<T>.
template <class T>
exact_result_t<T> exact_dot(const T* d_x, const T* d_y, std::int64_t n, cudaStream_t stream = nullptr) {
  using R = exact_result_t<T>;
  return detail::blocking<R>(stream, [&](R* d_out, workspace& ws) {
    detail::exact_dot<detail::mode::blocking>(d_x, d_y, n, d_out, ws, stream);
  });
}

}  // namespace cured
