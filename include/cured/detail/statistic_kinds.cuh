#pragma once
// The statistics as reductions: for each, the state it accumulates, the load of an element,
// the operator (with its identity), and the finish that turns the state of `count` elements
// into the result; and the result types of the two-part ones.
//
//   auto s = detail::var_statistic<statistic_kind::var_mean, float>(1.0);  // s.load, s.op, s.finish

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cured/types/accumulate.cuh"
#include "cured/types/error.cuh"
#include "cured/types/ops.cuh"
#include "cured/types/statistic_ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/types/statistics.cuh"

namespace cured {

namespace detail {

enum class statistic_kind { var, std, var_mean, std_mean };

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

/// x as the floating type F (half and bfloat16 through float, their one exact conversion).
template <class F, class T>
CURED_HD inline F to_floating(const T& x) {
  if constexpr (is_half_like<T>) return F(float(x));
  else return F(x);
}

/// |x| as F.
template <class F>
struct abs_to {
  template <class T>
  CURED_HD F operator()(const T& x) const {
    return ::fabs(to_floating<F>(x));
  }
};

/// x^2 as F (exact for F double and x float or bfloat16, and F float and x half).
template <class F>
struct square_to {
  template <class T>
  CURED_HD F operator()(const T& x) const {
    const F y = to_floating<F>(x);
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

/// The sum over the count (NaN for none), correctly rounded: in float while the count is exact
/// in float (through double, rounding twice is innocuous for a quotient of floats).
template <class F>
struct mean_finish {
  CURED_HD F operator()(F sum, std::int64_t count) const {
    if constexpr (std::is_same_v<F, float>)
      if (count <= (std::int64_t(1) << 24)) return sum / float(count);
    return F(double(sum) / double(count));
  }
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
    else if constexpr (K == statistic_kind::std) return F(::sqrt(var));
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
  static_assert(is_floating<T>, "cured: mean takes float, double, __half or __nv_bfloat16");
  using F = statistic_t<T>;
  return make_statistic<F>(thread::transform_load<F, thread::identity_transform>{}, plus{}, mean_finish<F>{});
}

template <statistic_kind K, class T>
auto var_statistic(double ddof) {
  static_assert(is_floating<T>,
                "cured: var, std, var_mean and std_mean take float, double, __half or __nv_bfloat16");
  if (!(ddof >= 0) || !std::isfinite(ddof))
    throw_invalid("the correction (ddof) must be finite and not negative, not " + std::to_string(ddof));
  using F = statistic_t<T>;
  return make_statistic<moments<F>>(thread::transform_load<F, thread::identity_transform>{}, moments_op{},
                                    moments_finish<F, K>{ddof});
}

template <class T>
auto aminmax_statistic() {
  static_assert(has_limits<T>, "cured: aminmax takes arithmetic types, __half and __nv_bfloat16");
  return make_statistic<min_max<T>>(thread::transform_load<T, thread::identity_transform>{}, min_max_op{}, keep{});
}

template <class T>
auto norm1_statistic() {
  using F = statistic_t<T>;
  return make_statistic<F>(thread::transform_load<F, abs_to<F>>{}, plus{}, norm_finish<F>{});
}

template <class T>
auto norm_inf_statistic() {
  using F = statistic_t<T>;
  return make_statistic<F>(thread::transform_load<F, abs_to<F>>{}, maximum{}, norm_finish<F>{});
}

/// Squares in double for float and bfloat16 (every square and sum of up to 2^64 of them in
/// range), in float for half (likewise), Blue's scaled squares for double.
template <class T>
auto norm2_statistic() {
  using F = statistic_t<T>;
  if constexpr (std::is_same_v<T, double>) {
    return make_statistic<scaled_squares<double>>(thread::transform_load<double, abs_to<double>>{}, scaled_squares_op{},
                                                  root_finish<double>{});
  } else {
    using S = std::conditional_t<std::is_same_v<T, __half>, float, double>;
    return make_statistic<S>(thread::transform_load<S, square_to<S>>{}, plus{}, root_finish<F>{});
  }
}

template <class T>
auto logsumexp_statistic() {
  static_assert(is_floating<T>, "cured: logsumexp takes float, double, __half or __nv_bfloat16");
  using F = statistic_t<T>;
  return make_statistic<log_sum_exp<F>>(thread::transform_load<F, thread::identity_transform>{}, log_sum_exp_op{},
                                        log_sum_exp_finish<F>{});
}

template <class T>
auto count_nonzero_statistic() {
  return make_statistic<std::int64_t>(thread::transform_load<std::int64_t, nonzero<std::int64_t>>{}, plus{}, keep{});
}

/// any (All false) or all: the largest or smallest of 1 per nonzero element, 0 per zero.
template <bool All, class T>
auto truth_statistic() {
  using op = std::conditional_t<All, minimum, maximum>;
  return make_statistic<unsigned>(thread::transform_load<unsigned, nonzero<unsigned>>{}, op{}, truth_finish{});
}

/// Whether p names a norm cured computes: 1, 2 or inf; throws otherwise.
inline int norm_order(double p) {
  if (p == 1 || p == 2) return int(p);
  if (p == INFINITY) return 0;
  throw_invalid("the norm's order p must be 1, 2 or inf, not " + std::to_string(p));
}

}  // namespace detail
}  // namespace cured
