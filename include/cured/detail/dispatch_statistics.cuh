#pragma once
// The statistics as reductions: for each, the state it accumulates, the load of an element,
// the operator, and the finish that turns the state of `count` elements into the result; and
// their dispatch to the whole-array, axis and segment engines.
//
//   auto s = detail::var_statistic<float>(statistic_kind::var_mean, 1.0);
//   detail::whole_statistic<mode::async>(d_x, n, d_out, s, ws, stream);
//   detail::axis_statistic(x, along, var_view, &mean_view, s, ws, stream);
//   detail::segment_statistic(d_x, n, seg, var_view, &mean_view, s, ws, stream, status);
//
// The count of each result's elements is known to the dispatch (n, the reduced size, the
// segment's length), so the states carry no exact count: the finish gets it.

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cured/accumulate.cuh"
#include "cured/detail/blocking.cuh"
#include "cured/detail/dispatch.cuh"
#include "cured/detail/dispatch_axes.cuh"
#include "cured/detail/dispatch_segments.cuh"
#include "cured/error.cuh"
#include "cured/ops.cuh"
#include "cured/statistic_ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/view.cuh"
#include "cured/workspace.cuh"

namespace cured {

/// var_mean's result: the variance and the mean.
template <class F>
struct var_mean_result {
  F var;
  F mean;
};

/// stddev_mean's result: the standard deviation and the mean.
template <class F>
struct std_mean_result {
  F std;
  F mean;
};

/// The floating type the statistics of T accumulate in and return: float for half, bfloat16
/// and float, double for double.
template <class T>
using statistic_t = std::enable_if_t<std::is_floating_point_v<accumulator_t<T>>, accumulator_t<T>>;

namespace detail {

enum class statistic_kind { var, stddev, var_mean, std_mean };


template <class T>
inline constexpr bool floating_input = std::is_floating_point_v<T> || is_half_like<T>;

/// What the reduction engines take: the load of an element, the operator (with its identity,
/// the state of no elements), and finish(state, count).
template <class Acc, class Load, class Op, class Finish>
struct statistic {
  using acc = Acc;
  Load load;
  Op op;
  Finish finish;
};

template <class Acc, class Load, class Op, class Finish>
statistic<Acc, Load, Op, Finish> make_statistic(Load load, Op op, Finish finish) {
  return {load, op, finish};
}

/// |x| as F.
template <class F>
struct abs_to {
  template <class T>
  CURED_HD F operator()(const T& x) const {
    return ::fabs(to<F>{}(x));
  }
};

/// x^2 as F (exact for F double and x float or bfloat16, and F float and x half).
template <class F>
struct square_to {
  template <class T>
  CURED_HD F operator()(const T& x) const {
    const F y = to<F>{}(x);
    return y * y;
  }
};

/// 1 for an element that is not zero (NaN included), else 0.
template <class A>
struct nonzero {
  template <class T>
  CURED_HD A operator()(const T& x) const {
    if constexpr (is_half_like<T>) return A(float(x) != 0.0f);
    else return A(x != T(0));
  }
};

/// The result as it is.
struct keep {
  template <class Acc>
  CURED_HD Acc operator()(const Acc& a, std::int64_t) const {
    return a;
  }
};

/// The sum over the count (NaN for none).
template <class F>
struct mean_finish {
  CURED_HD F operator()(F sum, std::int64_t count) const { return F(double(sum) / double(count)); }
};

/// The variance m2 / max(count - ddof, 0) (NaN for none, or for m2 0 over 0; inf for a positive
/// m2 over 0), its square root, or either with the mean (NaN for none).
template <class F, statistic_kind K>
struct moments_finish {
  double ddof;
  CURED_HD auto operator()(const moments<F>& m, std::int64_t count) const {
    const double dof = double(count) - ddof;
    const F var = F(double(m.m2) / (dof > 0 ? dof : 0.0));
    const F mean = count > 0 ? m.mean : F(NAN);
    if constexpr (K == statistic_kind::var) return var;
    else if constexpr (K == statistic_kind::stddev) return F(::sqrt(var));
    else if constexpr (K == statistic_kind::var_mean) return var_mean_result<F>{var, mean};
    else return std_mean_result<F>{F(::sqrt(var)), mean};
  }
};

/// The 1-norm or inf-norm as accumulated (the inf-norm of nothing is 0, not max's identity).
template <class F>
struct norm_finish {
  CURED_HD F operator()(F a, std::int64_t count) const { return count > 0 ? a : F(0); }
};

/// The 2-norm from a sum of squares in S.
template <class F>
struct root_finish {
  template <class S>
  CURED_HD F operator()(const S& a, std::int64_t) const {
    if constexpr (std::is_arithmetic_v<S>) return F(::sqrt(a));
    else return F(a.root());
  }
};

/// m + log(s): -inf for no elements or only -inf, +inf with +inf and no NaN, NaN with a NaN.
template <class F>
struct log_sum_exp_finish {
  CURED_HD F operator()(const log_sum_exp<F>& a, std::int64_t) const { return a.max + ::log(a.sum); }
};

/// any (all): whether some (every) element is nonzero.
struct truth_finish {
  CURED_HD bool operator()(unsigned a, std::int64_t) const { return a != 0; }
};

template <class T>
auto mean_statistic() {
  static_assert(floating_input<T>, "cured: mean takes float, double, __half or __nv_bfloat16");
  using F = statistic_t<T>;
  return make_statistic<F>(device::transform_load<F, to<F>>{}, plus{}, mean_finish<F>{});
}

template <statistic_kind K, class T>
auto var_statistic(double ddof) {
  static_assert(floating_input<T>, "cured: var, stddev, var_mean and stddev_mean take float, double, __half or __nv_bfloat16");
  if (!(ddof >= 0) || !std::isfinite(ddof))
    throw_invalid("the correction (ddof) must be finite and not negative, not " + std::to_string(ddof));
  using F = statistic_t<T>;
  return make_statistic<moments<F>>(device::transform_load<F, to<F>>{}, moments_op{}, moments_finish<F, K>{ddof});
}

template <class T>
auto aminmax_statistic() {
  static_assert(has_limits<T>, "cured: aminmax takes arithmetic types, __half and __nv_bfloat16");
  return make_statistic<min_max<T>>(device::transform_load<T, device::identity_transform>{}, min_max_op{}, keep{});
}

template <class T>
auto norm1_statistic() {
  using F = statistic_t<T>;
  return make_statistic<F>(device::transform_load<F, abs_to<F>>{}, plus{}, norm_finish<F>{});
}

template <class T>
auto norm_inf_statistic() {
  using F = statistic_t<T>;
  return make_statistic<F>(device::transform_load<F, abs_to<F>>{}, maximum{}, norm_finish<F>{});
}

/// Squares in double for float and bfloat16 (every square and sum of up to 2^64 of them in
/// range), in float for half (likewise), Blue's scaled squares for double.
template <class T>
auto norm2_statistic() {
  using F = statistic_t<T>;
  if constexpr (std::is_same_v<T, double>) {
    return make_statistic<scaled_squares<double>>(device::transform_load<double, abs_to<double>>{}, scaled_squares_op{},
                                                  root_finish<double>{});
  } else {
    using S = std::conditional_t<std::is_same_v<T, __half>, float, double>;
    return make_statistic<S>(device::transform_load<S, square_to<S>>{}, plus{}, root_finish<F>{});
  }
}

template <class T>
auto logsumexp_statistic() {
  static_assert(floating_input<T>, "cured: logsumexp takes float, double, __half or __nv_bfloat16");
  using F = statistic_t<T>;
  return make_statistic<log_sum_exp<F>>(device::transform_load<F, to<F>>{}, log_sum_exp_op{}, log_sum_exp_finish<F>{});
}

template <class T>
auto count_nonzero_statistic() {
  return make_statistic<std::int64_t>(device::transform_load<std::int64_t, nonzero<std::int64_t>>{}, plus{}, keep{});
}

/// any (All false) or all: the largest or smallest of 1 per nonzero element, 0 per zero.
template <bool All, class T>
auto truth_statistic() {
  using op = std::conditional_t<All, minimum, maximum>;
  return make_statistic<unsigned>(device::transform_load<unsigned, nonzero<unsigned>>{}, op{}, truth_finish{});
}

/// Whether p names a norm cured computes: 1, 2 or inf; throws otherwise.
inline int norm_order(double p) {
  if (p == 1 || p == 2) return int(p);
  if (p == INFINITY) return 0;
  throw_invalid("the norm's order p must be 1, 2 or inf, not " + std::to_string(p));
}

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

/// The statistic of in[0, n) into *out.
template <mode M, class T, class S>
void whole_statistic(const T* in, std::int64_t n, statistic_result<S>* out, const S& s, workspace& ws,
                     cudaStream_t stream) {
  using Acc = typename S::acc;
  reduce<M>(in, n, out, s.load, s.op, counted<decltype(s.finish)>{s.finish, n}, identity_of<decltype(s.op), Acc>(s.op),
            ws, stream);
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

/// The engines' store: the finished result of `count` elements to first[at] (and second[at]).
template <class Finish, class A, class B>
struct statistic_store {
  A* first;
  B* second;  // null: one output
  std::int64_t count;
  Finish finish;
  template <class Acc>
  __device__ __forceinline__ void operator()(std::int64_t at, const Acc& a) const {
    put(at, finish(a, count));
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

/// statistic_store per segment: segment s's result, of its `length` elements, at s * stride.
template <class Store>
struct segment_statistic_store {
  Store store;
  std::int64_t stride;
  template <class Acc>
  __device__ __forceinline__ void operator()(std::int64_t s, const Acc& a, std::int64_t length) const {
    store.put(s * stride, store.finish(a, length));
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
  const axis_plan plan = plan_of(canonicalize(cin, along, &out), false);
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
                 segment_statistic_store<store>{{a.data, b.data, 0, s.finish}, a.strides[0]}, {bytes_of(a), b_bytes},
                 ws, stream, status, no_segment_then{});
}

}  // namespace detail
}  // namespace cured
