#pragma once
// One-pass statistics along axes of strided N-D views: one launch for any shape.
//
//   auto x = cured::view(d_x, {8388608, 32});
//   cured::var_mean_async(x, {1}, cured::view(d_var, {8388608}), cured::view(d_mean, {8388608}), 1.0, ws, stream);
//   cured::logsumexp_async(x, {1}, cured::view(d_lse, {8388608}), ws, stream);
//   cured::aminmax(x, {0, 1}, cured::view(d_lo, {}), cured::view(d_hi, {}));  // blocking
//
// The views, axes and outputs of the reductions along axes (cured/axes.cuh); per output, the
// rules of the whole-array statistics (cured/statistics.cuh), each result converted once to the
// output's element type. The two-part statistics (var_mean, std_mean, aminmax) write their
// second part to a second view with the first's extents and strides, overlapping neither it
// nor the input. The `_async` forms enqueue one kernel launch on `stream` (no allocation, no
// synchronization); the others return once the outputs are written. Bad arguments throw
// cured::error.

#include <cuda_runtime_api.h>

#include <type_traits>

#include "cured/detail/blocking.cuh"
#include "cured/detail/dispatch_statistics.cuh"
#include "cured/types/view.cuh"
#include "cured/workspace.cuh"

namespace cured {

namespace detail {

/// One output along axes.
template <class T, class A, class S>
void axis_one(const strided_view<T>& in, const axes& along, const strided_view<A>& out, const S& s, workspace& ws,
              cudaStream_t stream) {
  axis_statistic(in, along, out, static_cast<const strided_view<A>*>(nullptr), s, "", ws, stream);
}

/// p's norm along axes.
template <class T, class A>
void axis_norm(const strided_view<T>& in, const axes& along, const strided_view<A>& out, double p, workspace& ws,
               cudaStream_t stream) {
  using E = std::remove_const_t<T>;
  switch (norm_order(p)) {
    case 1: axis_one(in, along, out, norm1_statistic<E>(), ws, stream); break;
    case 2: axis_one(in, along, out, norm2_statistic<E>(), ws, stream); break;
    default: axis_one(in, along, out, norm_inf_statistic<E>(), ws, stream);
  }
}

template <class T>
using element_t = std::remove_const_t<T>;

}  // namespace detail

// ---- asynchronous ---------------------------------------------------------------------------

template <class T, class A>
void mean_async(const strided_view<T>& in, const axes& along, const strided_view<A>& out, workspace& ws,
                cudaStream_t stream = nullptr) {
  detail::axis_one(in, along, out, detail::mean_statistic<detail::element_t<T>>(), ws, stream);
}

template <class T, class A>
void var_async(const strided_view<T>& in, const axes& along, const strided_view<A>& out, double ddof, workspace& ws,
               cudaStream_t stream = nullptr) {
  using detail::statistic_kind;
  detail::axis_one(in, along, out, detail::var_statistic<statistic_kind::var, detail::element_t<T>>(ddof), ws, stream);
}

template <class T, class A>
void std_async(const strided_view<T>& in, const axes& along, const strided_view<A>& out, double ddof,
                  workspace& ws, cudaStream_t stream = nullptr) {
  using detail::statistic_kind;
  detail::axis_one(in, along, out, detail::var_statistic<statistic_kind::std, detail::element_t<T>>(ddof), ws,
                   stream);
}

/// With `mean_out` null: the first output alone, through the same kernel as with the means.
template <class T, class A, class B>
void var_mean_async(const strided_view<T>& in, const axes& along, const strided_view<A>& var_out,
                    const strided_view<B>* mean_out, double ddof, workspace& ws, cudaStream_t stream = nullptr) {
  using detail::statistic_kind;
  detail::axis_statistic(in, along, var_out, mean_out,
                         detail::var_statistic<statistic_kind::var_mean, detail::element_t<T>>(ddof), "means", ws,
                         stream);
}

template <class T, class A, class B>
void var_mean_async(const strided_view<T>& in, const axes& along, const strided_view<A>& var_out,
                    const strided_view<B>& mean_out, double ddof, workspace& ws, cudaStream_t stream = nullptr) {
  var_mean_async(in, along, var_out, &mean_out, ddof, ws, stream);
}

/// With `mean_out` null: the first output alone, through the same kernel as with the means.
template <class T, class A, class B>
void std_mean_async(const strided_view<T>& in, const axes& along, const strided_view<A>& std_out,
                    const strided_view<B>* mean_out, double ddof, workspace& ws, cudaStream_t stream = nullptr) {
  using detail::statistic_kind;
  detail::axis_statistic(in, along, std_out, mean_out,
                         detail::var_statistic<statistic_kind::std_mean, detail::element_t<T>>(ddof), "means", ws,
                         stream);
}

template <class T, class A, class B>
void std_mean_async(const strided_view<T>& in, const axes& along, const strided_view<A>& std_out,
                    const strided_view<B>& mean_out, double ddof, workspace& ws, cudaStream_t stream = nullptr) {
  std_mean_async(in, along, std_out, &mean_out, ddof, ws, stream);
}

template <class T, class A, class B>
void aminmax_async(const strided_view<T>& in, const axes& along, const strided_view<A>& min_out,
                   const strided_view<B>& max_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::axis_statistic(in, along, min_out, &max_out, detail::aminmax_statistic<detail::element_t<T>>(), "maxima", ws,
                         stream);
}

/// p: 1, 2 or INFINITY.
template <class T, class A>
void vector_norm_async(const strided_view<T>& in, const axes& along, const strided_view<A>& out, double p, workspace& ws,
                cudaStream_t stream = nullptr) {
  detail::axis_norm(in, along, out, p, ws, stream);
}

template <class T, class A>
void logsumexp_async(const strided_view<T>& in, const axes& along, const strided_view<A>& out, workspace& ws,
                     cudaStream_t stream = nullptr) {
  detail::axis_one(in, along, out, detail::logsumexp_statistic<detail::element_t<T>>(), ws, stream);
}

template <class T, class A>
void count_nonzero_async(const strided_view<T>& in, const axes& along, const strided_view<A>& out, workspace& ws,
                         cudaStream_t stream = nullptr) {
  detail::axis_one(in, along, out, detail::count_nonzero_statistic<detail::element_t<T>>(), ws, stream);
}

template <class T, class A>
void any_async(const strided_view<T>& in, const axes& along, const strided_view<A>& out, workspace& ws,
               cudaStream_t stream = nullptr) {
  detail::axis_one(in, along, out, detail::truth_statistic<false, detail::element_t<T>>(), ws, stream);
}

template <class T, class A>
void all_async(const strided_view<T>& in, const axes& along, const strided_view<A>& out, workspace& ws,
               cudaStream_t stream = nullptr) {
  detail::axis_one(in, along, out, detail::truth_statistic<true, detail::element_t<T>>(), ws, stream);
}

// ---- blocking: return once the outputs are written -------------------------------------------

template <class T, class A>
void mean(const strided_view<T>& in, const axes& along, const strided_view<A>& out, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { mean_async(in, along, out, ws, stream); });
}

template <class T, class A>
void var(const strided_view<T>& in, const axes& along, const strided_view<A>& out, double ddof = 1,
         cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { var_async(in, along, out, ddof, ws, stream); });
}

template <class T, class A>
void std(const strided_view<T>& in, const axes& along, const strided_view<A>& out, double ddof = 1,
            cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { std_async(in, along, out, ddof, ws, stream); });
}

template <class T, class A, class B>
void var_mean(const strided_view<T>& in, const axes& along, const strided_view<A>& var_out,
              const strided_view<B>& mean_out, double ddof = 1, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { var_mean_async(in, along, var_out, mean_out, ddof, ws, stream); });
}

template <class T, class A, class B>
void std_mean(const strided_view<T>& in, const axes& along, const strided_view<A>& std_out,
                 const strided_view<B>& mean_out, double ddof = 1, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream,
                           [&](workspace& ws) { std_mean_async(in, along, std_out, mean_out, ddof, ws, stream); });
}

template <class T, class A, class B>
void aminmax(const strided_view<T>& in, const axes& along, const strided_view<A>& min_out,
             const strided_view<B>& max_out, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { aminmax_async(in, along, min_out, max_out, ws, stream); });
}

template <class T, class A>
void vector_norm(const strided_view<T>& in, const axes& along, const strided_view<A>& out, double p = 2,
          cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { vector_norm_async(in, along, out, p, ws, stream); });
}

template <class T, class A>
void logsumexp(const strided_view<T>& in, const axes& along, const strided_view<A>& out,
               cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { logsumexp_async(in, along, out, ws, stream); });
}

template <class T, class A>
void count_nonzero(const strided_view<T>& in, const axes& along, const strided_view<A>& out,
                   cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { count_nonzero_async(in, along, out, ws, stream); });
}

template <class T, class A>
void any(const strided_view<T>& in, const axes& along, const strided_view<A>& out, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { any_async(in, along, out, ws, stream); });
}

template <class T, class A>
void all(const strided_view<T>& in, const axes& along, const strided_view<A>& out, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { all_async(in, along, out, ws, stream); });
}

}  // namespace cured
