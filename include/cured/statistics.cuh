#pragma once
// One-pass statistics of whole arrays: one kernel launch each, for any n.
//
//   auto [var, mean] = cured::var_mean(d_x, n);          // unbiased (ddof 1), Welford and Chan
//   float s  = cured::std(d_x, n, 0.0);                // population standard deviation
//   auto  mm = cured::aminmax(d_x, n);                    // {min, max}
//   float l2 = cured::vector_norm(d_x, n);                       // 2-norm, no overflow or underflow
//   float ls = cured::logsumexp(d_x, n);
//   std::int64_t k = cured::count_nonzero(d_x, n);
//   cured::var_mean_async(d_x, n, d_out, 1.0, ws, stream); // cured::var_mean_result<float> on the device
//
// Along axes: cured/statistics_axes.cuh; per segment: cured/statistics_segments.cuh.
//
// mean, var, std, var_mean, std_mean, norm and logsumexp take float, double, __half and
// __nv_bfloat16, accumulate in cured::statistic_t<T> (float, double for double) and return it;
// aminmax, count_nonzero, any and all take any element type with limits. The rules, and where
// they differ from PyTorch's:
// - mean: the sum (cured::sum's) over n; NaN for n = 0. torch returns the input's type (half
//   for half); cured the accumulator's.
// - var, std: the sum of squared deviations m2 over max(n - ddof, 0), ddof >= 0 (torch's
//   correction; default 1): NaN for m2 = 0 over 0, inf for m2 > 0 over 0. m2 comes from
//   Welford's update per element and Chan's combination of partial states; its error is about
//   (k + log2 p) u kappa for k elements per thread, p partial states and kappa =
//   sqrt(1 + mean^2 n / m2), where the textbook sum of squares has u kappa^2 n
//   (docs/API.md#statistics).
// - var_mean, std_mean: both from the one pass; the mean is Welford's (within an ulp or two
//   of cured::mean's; NaN, as torch.var_mean's, once an infinity meets another value).
// - aminmax: min and max as cured::min and cured::max (NaN propagates); of no elements, their
//   identities (+inf, -inf) where torch raises an error.
// - norm: p = 1 (sum of |x|), 2, or inf (largest |x|, 0 for no elements); any other p throws.
//   The 2-norm squares float and bfloat16 in double and half in float, exactly and with no
//   overflow or underflow for any n below 2^64, and double by Blue's scaled sums (LAPACK's
//   dnrm2); NaN if any element is NaN, else inf if any is infinite.
// - logsumexp: log sum exp(x), with a running maximum: -inf for no elements or all -inf, +inf
//   with +inf, NaN with NaN. Float's exponentials use the hardware's ex2.approx (relative error
//   within 2^-21 per term), so the result is within about 2^-20 of log's argument, in absolute
//   terms, of the exact one.
// - count_nonzero: int64; NaN counts, -0.0 does not. any, all: bool; of no elements false and
//   true.
// Results are bit-identical run to run for the same input, n, alignment and device. The `_async`
// forms enqueue on `stream` without allocating or synchronizing (graph-capturable) and write
// to device memory; the others return the result. Bad arguments throw cured::error.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cured/detail/dispatch_statistics.cuh"
#include "cured/types/statistic_ops.cuh"
#include "cured/workspace.cuh"

namespace cured {

// ---- asynchronous ---------------------------------------------------------------------------

template <class T>
void mean_async(const T* d_in, std::int64_t n, statistic_t<T>* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::whole_statistic<detail::mode::async>(d_in, n, d_out, detail::mean_statistic<T>(), ws, stream);
}

template <class T>
void var_async(const T* d_in, std::int64_t n, statistic_t<T>* d_out, double ddof, workspace& ws,
               cudaStream_t stream = nullptr) {
  detail::whole_statistic<detail::mode::async>(
      d_in, n, d_out, detail::var_statistic<detail::statistic_kind::var, T>(ddof), ws, stream);
}

template <class T>
void std_async(const T* d_in, std::int64_t n, statistic_t<T>* d_out, double ddof, workspace& ws,
                  cudaStream_t stream = nullptr) {
  detail::whole_statistic<detail::mode::async>(
      d_in, n, d_out, detail::var_statistic<detail::statistic_kind::std, T>(ddof), ws, stream);
}

template <class T>
void var_mean_async(const T* d_in, std::int64_t n, var_mean_result<statistic_t<T>>* d_out, double ddof, workspace& ws,
                    cudaStream_t stream = nullptr) {
  detail::whole_statistic<detail::mode::async>(
      d_in, n, d_out, detail::var_statistic<detail::statistic_kind::var_mean, T>(ddof), ws, stream);
}

template <class T>
void std_mean_async(const T* d_in, std::int64_t n, std_mean_result<statistic_t<T>>* d_out, double ddof,
                       workspace& ws, cudaStream_t stream = nullptr) {
  detail::whole_statistic<detail::mode::async>(
      d_in, n, d_out, detail::var_statistic<detail::statistic_kind::std_mean, T>(ddof), ws, stream);
}

template <class T>
void aminmax_async(const T* d_in, std::int64_t n, min_max<T>* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::whole_statistic<detail::mode::async>(d_in, n, d_out, detail::aminmax_statistic<T>(), ws, stream);
}

/// p: 1, 2 or INFINITY.
template <class T>
void vector_norm_async(const T* d_in, std::int64_t n, statistic_t<T>* d_out, double p, workspace& ws,
                cudaStream_t stream = nullptr) {
  using detail::mode;
  switch (detail::norm_order(p)) {
    case 1: detail::whole_statistic<mode::async>(d_in, n, d_out, detail::norm1_statistic<T>(), ws, stream); break;
    case 2: detail::whole_statistic<mode::async>(d_in, n, d_out, detail::norm2_statistic<T>(), ws, stream); break;
    default: detail::whole_statistic<mode::async>(d_in, n, d_out, detail::norm_inf_statistic<T>(), ws, stream);
  }
}

template <class T>
void logsumexp_async(const T* d_in, std::int64_t n, statistic_t<T>* d_out, workspace& ws,
                     cudaStream_t stream = nullptr) {
  detail::whole_statistic<detail::mode::async>(d_in, n, d_out, detail::logsumexp_statistic<T>(), ws, stream);
}

template <class T>
void count_nonzero_async(const T* d_in, std::int64_t n, std::int64_t* d_out, workspace& ws,
                         cudaStream_t stream = nullptr) {
  detail::whole_statistic<detail::mode::async>(d_in, n, d_out, detail::count_nonzero_statistic<T>(), ws, stream);
}

template <class T>
void any_async(const T* d_in, std::int64_t n, bool* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::whole_statistic<detail::mode::async>(d_in, n, d_out, detail::truth_statistic<false, T>(), ws, stream);
}

template <class T>
void all_async(const T* d_in, std::int64_t n, bool* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::whole_statistic<detail::mode::async>(d_in, n, d_out, detail::truth_statistic<true, T>(), ws, stream);
}

// ---- blocking: the result returned on the host ---------------------------------------------

template <class T>
statistic_t<T> mean(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::whole_statistic_blocking(d_in, n, detail::mean_statistic<T>(), stream);
}

template <class T>
statistic_t<T> var(const T* d_in, std::int64_t n, double ddof = 1, cudaStream_t stream = nullptr) {
  return detail::whole_statistic_blocking(d_in, n, detail::var_statistic<detail::statistic_kind::var, T>(ddof), stream);
}

template <class T>
statistic_t<T> std(const T* d_in, std::int64_t n, double ddof = 1, cudaStream_t stream = nullptr) {
  return detail::whole_statistic_blocking(d_in, n, detail::var_statistic<detail::statistic_kind::std, T>(ddof),
                                          stream);
}

template <class T>
var_mean_result<statistic_t<T>> var_mean(const T* d_in, std::int64_t n, double ddof = 1,
                                         cudaStream_t stream = nullptr) {
  return detail::whole_statistic_blocking(d_in, n, detail::var_statistic<detail::statistic_kind::var_mean, T>(ddof),
                                          stream);
}

template <class T>
std_mean_result<statistic_t<T>> std_mean(const T* d_in, std::int64_t n, double ddof = 1,
                                            cudaStream_t stream = nullptr) {
  return detail::whole_statistic_blocking(d_in, n, detail::var_statistic<detail::statistic_kind::std_mean, T>(ddof),
                                          stream);
}

template <class T>
min_max<T> aminmax(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::whole_statistic_blocking(d_in, n, detail::aminmax_statistic<T>(), stream);
}

template <class T>
statistic_t<T> vector_norm(const T* d_in, std::int64_t n, double p = 2, cudaStream_t stream = nullptr) {
  switch (detail::norm_order(p)) {
    case 1: return detail::whole_statistic_blocking(d_in, n, detail::norm1_statistic<T>(), stream);
    case 2: return detail::whole_statistic_blocking(d_in, n, detail::norm2_statistic<T>(), stream);
    default: return detail::whole_statistic_blocking(d_in, n, detail::norm_inf_statistic<T>(), stream);
  }
}

template <class T>
statistic_t<T> logsumexp(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::whole_statistic_blocking(d_in, n, detail::logsumexp_statistic<T>(), stream);
}

template <class T>
std::int64_t count_nonzero(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::whole_statistic_blocking(d_in, n, detail::count_nonzero_statistic<T>(), stream);
}

template <class T>
bool any(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::whole_statistic_blocking(d_in, n, detail::truth_statistic<false, T>(), stream);
}

template <class T>
bool all(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::whole_statistic_blocking(d_in, n, detail::truth_statistic<true, T>(), stream);
}

}  // namespace cured
