#pragma once
// One-pass statistics per segment: one launch for any lengths.
//
//   cured::segments seg{d_offsets, count};
//   cured::var_mean_async(d_x, n, seg, d_var, d_mean, 1.0, ws, stream);  // count of each
//   cured::logsumexp_async(d_x, n, seg, d_lse, ws, stream);
//   cured::aminmax(d_x, n, seg, d_lo, d_hi);                             // blocking
//
// The values, offsets, outputs and status word of the segmented reductions (cured/segments.cuh),
// balanced over the device by elements and segments alike; per segment, the rules of the
// whole-array statistics (cured/statistics.cuh), each result converted once to the output's
// element type. The two-part statistics (var_mean, std_mean, aminmax) write their second
// part to a second output (a pointer, or a view of the first's stride) that overlaps neither
// the first nor the values and offsets. The `_async` forms enqueue one launch on `stream`; the
// blocking forms return once the outputs are written and throw cured::error for bad offsets.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "cured/detail/dispatch_statistics.cuh"
#include "cured/segments.cuh"
#include "cured/workspace.cuh"

namespace cured {

namespace detail {

/// One output per segment.
template <class T, class O, class S>
void segment_one(const T* values, std::int64_t n, const segments& seg, const O& out, const S& s, workspace& ws,
                 cudaStream_t stream, unsigned* status) {
  segment_statistic(values, n, seg, out, static_cast<const O*>(nullptr), s, "", ws, stream, status);
}

/// Whether O is a pointer to a strided view (the nullable means of var_mean and std_mean), not an
/// output of its own.
template <class O>
inline constexpr bool is_view_pointer = false;
template <class B>
inline constexpr bool is_view_pointer<strided_view<B>*> = true;
template <class B>
inline constexpr bool is_view_pointer<const strided_view<B>*> = true;

/// var_mean's or std_mean's first output per segment, and the means where `means` is not null.
template <statistic_kind K, class T, class O1, class O2>
void segment_moments(const T* values, std::int64_t n, const segments& seg, const O1& out, const O2* means, double ddof,
                     workspace& ws, cudaStream_t stream, unsigned* status) {
  segment_statistic(values, n, seg, out, means, var_statistic<K, T>(ddof), "means", ws, stream, status);
}

}  // namespace detail

// ---- asynchronous ---------------------------------------------------------------------------

template <class T, class O>
void mean_async(const T* values, std::int64_t n, const segments& seg, const O& out, workspace& ws,
                cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_one(values, n, seg, out, detail::mean_statistic<T>(), ws, stream, status);
}

template <class T, class O>
void var_async(const T* values, std::int64_t n, const segments& seg, const O& out, double ddof, workspace& ws,
               cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_one(values, n, seg, out, detail::var_statistic<detail::statistic_kind::var, T>(ddof), ws, stream,
                      status);
}

template <class T, class O>
void std_async(const T* values, std::int64_t n, const segments& seg, const O& out, double ddof, workspace& ws,
                  cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_one(values, n, seg, out, detail::var_statistic<detail::statistic_kind::std, T>(ddof), ws, stream,
                      status);
}

/// With `mean_out` null: the first output alone, through the same kernel as with the means.
template <class T, class O, class B>
void var_mean_async(const T* values, std::int64_t n, const segments& seg, const O& var_out,
                    const strided_view<B>* mean_out, double ddof, workspace& ws, cudaStream_t stream = nullptr,
                    unsigned* status = nullptr) {
  detail::segment_moments<detail::statistic_kind::var_mean>(values, n, seg, var_out, mean_out, ddof, ws, stream,
                                                            status);
}

template <class T, class O1, class O2, class = std::enable_if_t<!detail::is_view_pointer<O2>>>
void var_mean_async(const T* values, std::int64_t n, const segments& seg, const O1& var_out, const O2& mean_out,
                    double ddof, workspace& ws, cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_moments<detail::statistic_kind::var_mean>(values, n, seg, var_out, &mean_out, ddof, ws, stream,
                                                            status);
}

/// With `mean_out` null: the first output alone, through the same kernel as with the means.
template <class T, class O, class B>
void std_mean_async(const T* values, std::int64_t n, const segments& seg, const O& std_out,
                    const strided_view<B>* mean_out, double ddof, workspace& ws, cudaStream_t stream = nullptr,
                    unsigned* status = nullptr) {
  detail::segment_moments<detail::statistic_kind::std_mean>(values, n, seg, std_out, mean_out, ddof, ws, stream,
                                                            status);
}

template <class T, class O1, class O2, class = std::enable_if_t<!detail::is_view_pointer<O2>>>
void std_mean_async(const T* values, std::int64_t n, const segments& seg, const O1& std_out, const O2& mean_out,
                    double ddof, workspace& ws, cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_moments<detail::statistic_kind::std_mean>(values, n, seg, std_out, &mean_out, ddof, ws, stream,
                                                            status);
}

template <class T, class O1, class O2>
void aminmax_async(const T* values, std::int64_t n, const segments& seg, const O1& min_out, const O2& max_out,
                   workspace& ws, cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_statistic(values, n, seg, min_out, &max_out, detail::aminmax_statistic<T>(), "maxima", ws, stream,
                            status);
}

/// p: 1, 2 or INFINITY.
template <class T, class O>
void vector_norm_async(const T* values, std::int64_t n, const segments& seg, const O& out, double p, workspace& ws,
                cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  switch (detail::norm_order(p)) {
    case 1: detail::segment_one(values, n, seg, out, detail::norm1_statistic<T>(), ws, stream, status); break;
    case 2: detail::segment_one(values, n, seg, out, detail::norm2_statistic<T>(), ws, stream, status); break;
    default: detail::segment_one(values, n, seg, out, detail::norm_inf_statistic<T>(), ws, stream, status);
  }
}

template <class T, class O>
void logsumexp_async(const T* values, std::int64_t n, const segments& seg, const O& out, workspace& ws,
                     cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_one(values, n, seg, out, detail::logsumexp_statistic<T>(), ws, stream, status);
}

template <class T, class O>
void count_nonzero_async(const T* values, std::int64_t n, const segments& seg, const O& out, workspace& ws,
                         cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_one(values, n, seg, out, detail::count_nonzero_statistic<T>(), ws, stream, status);
}

template <class T, class O>
void any_async(const T* values, std::int64_t n, const segments& seg, const O& out, workspace& ws,
               cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_one(values, n, seg, out, detail::truth_statistic<false, T>(), ws, stream, status);
}

template <class T, class O>
void all_async(const T* values, std::int64_t n, const segments& seg, const O& out, workspace& ws,
               cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_one(values, n, seg, out, detail::truth_statistic<true, T>(), ws, stream, status);
}

// ---- blocking: return once the outputs are written; bad offsets throw ---------------------

template <class T, class O>
void mean(const T* values, std::int64_t n, const segments& seg, const O& out, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) { mean_async(values, n, seg, out, ws, stream, st); });
}

template <class T, class O>
void var(const T* values, std::int64_t n, const segments& seg, const O& out, double ddof = 1,
         cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream,
                           [&](workspace& ws, unsigned* st) { var_async(values, n, seg, out, ddof, ws, stream, st); });
}

template <class T, class O>
void std(const T* values, std::int64_t n, const segments& seg, const O& out, double ddof = 1,
            cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream,
                           [&](workspace& ws, unsigned* st) { std_async(values, n, seg, out, ddof, ws, stream, st); });
}

template <class T, class O1, class O2>
void var_mean(const T* values, std::int64_t n, const segments& seg, const O1& var_out, const O2& mean_out,
              double ddof = 1, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) {
    var_mean_async(values, n, seg, var_out, mean_out, ddof, ws, stream, st);
  });
}

template <class T, class O1, class O2>
void std_mean(const T* values, std::int64_t n, const segments& seg, const O1& std_out, const O2& mean_out,
                 double ddof = 1, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) {
    std_mean_async(values, n, seg, std_out, mean_out, ddof, ws, stream, st);
  });
}

template <class T, class O1, class O2>
void aminmax(const T* values, std::int64_t n, const segments& seg, const O1& min_out, const O2& max_out,
             cudaStream_t stream = nullptr) {
  detail::segment_blocking(
      stream, [&](workspace& ws, unsigned* st) { aminmax_async(values, n, seg, min_out, max_out, ws, stream, st); });
}

template <class T, class O>
void vector_norm(const T* values, std::int64_t n, const segments& seg, const O& out, double p = 2,
          cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream,
                           [&](workspace& ws, unsigned* st) { vector_norm_async(values, n, seg, out, p, ws, stream, st); });
}

template <class T, class O>
void logsumexp(const T* values, std::int64_t n, const segments& seg, const O& out, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream,
                           [&](workspace& ws, unsigned* st) { logsumexp_async(values, n, seg, out, ws, stream, st); });
}

template <class T, class O>
void count_nonzero(const T* values, std::int64_t n, const segments& seg, const O& out, cudaStream_t stream = nullptr) {
  detail::segment_blocking(
      stream, [&](workspace& ws, unsigned* st) { count_nonzero_async(values, n, seg, out, ws, stream, st); });
}

template <class T, class O>
void any(const T* values, std::int64_t n, const segments& seg, const O& out, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) { any_async(values, n, seg, out, ws, stream, st); });
}

template <class T, class O>
void all(const T* values, std::int64_t n, const segments& seg, const O& out, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) { all_async(values, n, seg, out, ws, stream, st); });
}

}  // namespace cured
