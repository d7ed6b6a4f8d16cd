#pragma once
// The dispatch of the statistics (detail/statistic_kinds.cuh) to the whole-array, axis and
// segment engines, and the stores that finish each output.
//
//   auto s = detail::var_statistic<statistic_kind::var_mean, float>(1.0);
//   detail::whole_statistic<mode::async>(d_x, n, d_out, s, ws, stream);
//   detail::axis_statistic(x, along, var_view, &mean_view, s, ws, stream);
//   detail::segment_statistic(d_x, n, seg, var_view, &mean_view, s, ws, stream, status);
//
// The count of each result's elements is known to the dispatch (n, the reduced size, the
// segment's length), so the states carry no exact count: the finish gets it.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "cured/detail/blocking.cuh"
#include "cured/detail/dispatch.cuh"
#include "cured/detail/dispatch_axes.cuh"
#include "cured/detail/tuning.cuh"
#include "cured/detail/dispatch_segments.cuh"
#include "cured/detail/statistic_kinds.cuh"
#include "cured/types/view.cuh"
#include "cured/workspace.cuh"

namespace cured::detail {

/// The result of statistic S for `count` elements.
template <class S>
using statistic_result = decltype(std::declval<const S&>().finish(std::declval<const typename S::acc&>(), std::int64_t()));

/// finish(state, count) for one count: the whole-array kernels' finish.
template <class Finish>
struct counted {
  Finish finish;
  std::int64_t count;
  template <class Acc>
  __device__ __forceinline__ auto operator()(const Acc& a) const {
    return finish(a, count);
  }
};

/// The statistic of in[0, n) into *out (of the result's type, or one it converts to); `options`
/// as reduce's (a test seam).
template <mode M, class T, class S, class Out>
void whole_statistic(const T* in, std::int64_t n, Out* out, const S& s, workspace& ws, cudaStream_t stream,
                     const launch_options& options = {}) {
  using Acc = typename S::acc;
  reduce<M>(in, n, out, s.load, s.op, counted<decltype(s.finish)>{s.finish, n}, identity_of<decltype(s.op), Acc>(s.op),
            ws, stream, options);
}

template <class T, class S>
statistic_result<S> whole_statistic_blocking(const T* in, std::int64_t n, const S& s, cudaStream_t stream) {
  using R = statistic_result<S>;
  return blocking<R>(stream, [&](R* d_out, workspace& ws) { whole_statistic<mode::blocking>(in, n, d_out, s, ws, stream); });
}

/// A result's parts: one value, or two (the first and second outputs).
template <class R>
inline constexpr bool two_parts = false;
template <class F>
inline constexpr bool two_parts<var_mean_result<F>> = true;
template <class F>
inline constexpr bool two_parts<std_mean_result<F>> = true;
template <class T>
inline constexpr bool two_parts<min_max<T>> = true;

template <class F>
CURED_HD inline F first_part(const var_mean_result<F>& r) {
  return r.var;
}
template <class F>
CURED_HD inline F first_part(const std_mean_result<F>& r) {
  return r.std;
}
template <class T>
CURED_HD inline T first_part(const min_max<T>& r) {
  return r.min;
}
template <class F>
CURED_HD inline F second_part(const var_mean_result<F>& r) {
  return r.mean;
}
template <class F>
CURED_HD inline F second_part(const std_mean_result<F>& r) {
  return r.mean;
}
template <class T>
CURED_HD inline T second_part(const min_max<T>& r) {
  return r.max;
}

/// Converts a result part to an output's element type.
template <class Out, class V>
CURED_HD inline Out convert(const V& v) {
  if constexpr (is_half_like<V> && !std::is_same_v<Out, V>) return Out(float(v));
  else return Out(v);
}

/// The engines' store: the finished result of `count` elements (or of n, given) to first[at]
/// (and second[at]).
template <class Finish, class A, class B>
struct statistic_store {
  A* first;
  B* second;  // null: one output
  std::int64_t count;
  Finish finish;
  template <class Acc>
  __device__ __forceinline__ void operator()(std::int64_t at, const Acc& a) const {
    (*this)(at, a, count);
  }
  /// For an output of n elements (a segment of that length).
  template <class Acc>
  __device__ __forceinline__ void operator()(std::int64_t at, const Acc& a, std::int64_t n) const {
    put(at, finish(a, n));
  }
  template <class R>
  __device__ __forceinline__ void put(std::int64_t at, const R& r) const {
    if constexpr (two_parts<R>) {
      first[at] = convert<A>(first_part(r));
      if (second) second[at] = convert<B>(second_part(r));
    } else {
      first[at] = convert<A>(r);
    }
  }
};

/// The statistic of each output along `along` into `out` (and `second`, of out's extents and
/// strides, for the two-part results).
template <class T, class S, class A, class B = A>
void axis_statistic(const strided_view<T>& in, const axes& along, const strided_view<A>& out,
                    const strided_view<B>* second, const S& s, const char* second_name, workspace& ws,
                    cudaStream_t stream) {
  using In = std::remove_const_t<T>;
  using Acc = typename S::acc;
  static_assert(sizeof(Acc) <= workspace::max_accumulator_bytes, "cured: accumulator larger than 64 bytes");
  const strided_view<const In> cin = const_view(in);
  axis_plan plan = plan_of(canonicalize(cin, along, &out), false);
  plan.row_vectors_per_lane = axis_policy::statistic_row_vectors;
  if constexpr (!two_parts<statistic_result<S>>) {
    if (whole_run(plan) && plan.reduced_size > 0) {  // one output of one contiguous run: the whole-array kernels
      whole_statistic<mode::async>(cin.data, plan.reduced_size, out.data, s, ws, stream);
      return;
    }
  }
  if (second) check_second_output(cin, along, out, *second, plan.outputs > 0, second_name, "first outputs", ws);
  const statistic_store<decltype(s.finish), A, B> store{out.data, second ? second->data : nullptr,
                                                        plan.reduced_size, s.finish};
  axis_launch(cin.data, plan, double(sizeof(In)) * double(plan.outputs) * double(plan.reduced_size),
              identity_of<decltype(s.op), Acc>(s.op), s.load, s.op, store, out.data, ws, stream);
}

/// The statistic of each segment into `out` (and `second`, of out's stride).
template <class T, class S, class O1, class O2 = O1>
void segment_statistic(const T* values, std::int64_t n, const segments& seg, const O1& out, const O2* second,
                       const S& s, const char* second_name, workspace& ws, cudaStream_t stream, unsigned* status) {
  using In = std::remove_const_t<T>;
  using Acc = typename S::acc;
  const auto a = as_segment_out(out, seg.count);
  using A = std::remove_pointer_t<decltype(a.data)>;
  using B = segment_out_t<O2>;
  strided_view<B> b;  // null, no bytes, unless second
  std::pair<std::uintptr_t, std::uintptr_t> b_bytes{0, 0};
  if (second) {
    b = as_segment_out(*second, seg.count);
    b_bytes = second_segment_output(a, b, seg.count, second_name, "first outputs", ws);
  }
  using store = statistic_store<decltype(s.finish), A, B>;
  segment_launch(static_cast<const In*>(values), n, seg, identity_of<decltype(s.op), Acc>(s.op), s.load, s.op,
                 segment_store<store>{{a.data, b.data, 0, s.finish}, a.strides[0]}, {bytes_of(a), b_bytes},
                 ws, stream, status, no_segment_then{});
}

}  // namespace cured::detail
