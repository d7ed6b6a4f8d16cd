#pragma once
// The states and operators of the one-pass statistics (cured/statistics.cuh), usable on their
// own with cured::reduce and cured::transform_reduce:
//
//   auto m = cured::reduce(d_x, n, cured::moments_op{}, cured::moments<float>{});
//   // m.weight values, their mean m.mean and sum of squared deviations m.m2
//
// Each operator combines two states (associative and commutative up to rounding, with the
// state of no values as identity) and adds one value to a state, the cheaper step the
// kernels take per element:
// - moments_op: Welford's update per value (one approximate reciprocal of the weight and two
//   fused multiply-adds), Chan, Golub and LeVeque's combination of two states (another).
//   add_all(state, values) takes a kernel's round of values in two passes and one combination;
//   add_each(states, values) updates states of a common weight with one reciprocal.
// - min_max_op: the smallest and largest values, NaN as minimum and maximum propagate it.
// - log_sum_exp_op: the largest value m and s = sum exp(x - m), rescaled when m grows: one
//   exponential per value; add_all(state, values) rescales once per round of values.
// - scaled_squares_op: Blue's sum of squares in three ranges (small values scaled up, large ones
//   scaled down), so that no square overflows or underflows (LAPACK's dnrm2): in
//   cured/types/scaled_squares.cuh.

#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

#include "cured/types/ops.cuh"
#include "cured/types/scaled_squares.cuh"

namespace cured {

/// Of `weight` values: their mean and the sum of their squared deviations from it.
template <class F>
struct moments {
  F weight;
  F mean;
  F m2;
  moments() = default;
  CURED_HD moments(F w, F mu, F s) : weight(w), mean(mu), m2(s) {}
  CURED_HD explicit moments(F x) : weight(1), mean(x), m2(0) {}  ///< one value
};

namespace detail {

/// 1 / w for a weight w >= 1: on the device for float the hardware's approximation (within an
/// ulp), for double a correctly rounded one.
template <class F>
CURED_HD inline F weight_reciprocal(F w) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<F, float>) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(w));
    return r;
  } else {
    return __drcp_rn(w);
  }
#else
  return F(1) / w;
#endif
}

/// e^d for d <= 0 (or NaN) in double on the device: d = (32 k + j) ln2 / 32 + r with |r| <=
/// ln2 / 64, e^d = 2^k 2^(j/32) (1 + p(r)), p the degree-6 Taylor polynomial of e^r - 1 (error
/// below 2^-57), 2^(j/32) from a table of 32 doubles: within about an ulp of e^d (the table's
/// rounding and the last fused multiply-add's, half an ulp each), in 12 double operations and one
/// load; results below 2^-1020 (d < -707) are 0, as a sum that holds 1 cannot tell.
__device__ inline double exp_nonpositive_double(double d) {
  static constexpr double two_to_j32[32] = {
      0x1.0000000000000p+0, 0x1.059b0d3158574p+0, 0x1.0b5586cf9890fp+0, 0x1.11301d0125b51p+0, 0x1.172b83c7d517bp+0,
      0x1.1d4873168b9aap+0, 0x1.2387a6e756238p+0, 0x1.29e9df51fdee1p+0, 0x1.306fe0a31b715p+0, 0x1.371a7373aa9cbp+0,
      0x1.3dea64c123422p+0, 0x1.44e086061892dp+0, 0x1.4bfdad5362a27p+0, 0x1.5342b569d4f82p+0, 0x1.5ab07dd485429p+0,
      0x1.6247eb03a5585p+0, 0x1.6a09e667f3bcdp+0, 0x1.71f75e8ec5f74p+0, 0x1.7a11473eb0187p+0, 0x1.82589994cce13p+0,
      0x1.8ace5422aa0dbp+0, 0x1.93737b0cdc5e5p+0, 0x1.9c49182a3f090p+0, 0x1.a5503b23e255dp+0, 0x1.ae89f995ad3adp+0,
      0x1.b7f76f2fb5e47p+0, 0x1.c199bdd85529cp+0, 0x1.cb720dcef9069p+0, 0x1.d5818dcfba487p+0, 0x1.dfc97337b9b5fp+0,
      0x1.ea4afa2a490dap+0, 0x1.f50765b6e4540p+0};
  constexpr double round = 0x1.8p52;  // adding it rounds to an integer, kept in the low word
  const double t = fma(d, 0x1.71547652b82fep+5, round);  // d 32 / ln2 + round
  const int k = __double2loint(t);
  const double kd = t - round;
  const double r = fma(kd, 0x1.718432a1b0e26p-40, fma(kd, -0x1.62e42ff000000p-6, d));  // ln2 / 32 in two parts
  const double q = fma(fma(fma(fma(1.0 / 720, r, 1.0 / 120), r, 1.0 / 24), r, 1.0 / 6), r, 0.5);
  const double p = fma(q, r * r, r);
  const double c = two_to_j32[k & 31];
  // c 2^(k >> 5), by adding to c's exponent (normal for d >= -707)
  const double cs = __hiloint2double(__double2hiint(c) + ((k >> 5) << 20), __double2loint(c));
  const double e = fma(cs, p, cs);  // computed before the test: a select, not a branch per value
  return d < -707.0 ? 0.0 : e;      // a NaN d fails the test and stays NaN
}

/// e^d for d <= 0 (or NaN): on the device for float 2^(d log2 e) by the hardware's approximation
/// (relative error within 2^-21 for |d| < 1, growing as |d| 2^-24 beyond; results below 2^-126
/// are 0), for double exp_nonpositive_double.
template <class F>
CURED_HD inline F exp_nonpositive(F d) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<F, float>) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d * 1.44269504088896341f));
    return r;
  } else {
    return exp_nonpositive_double(d);
  }
#else
  return std::exp(d);
#endif
}

/// x[0] + ... + x[N - 1] as a balanced tree, so that each level's adds are independent.
template <class F, int N>
CURED_HD inline F tree_sum(F (&x)[N]) {
CURED_UNROLL
  for (int w = 1; w < N; w *= 2)
CURED_UNROLL
    for (int i = 0; i + w < N; i += 2 * w) x[i] += x[i + w];
  return x[0];
}

}  // namespace detail

struct moments_op {
  /// Adds one value (Welford).
  template <class F>
  CURED_HD moments<F> operator()(const moments<F>& a, const F& x) const {
    const F w = a.weight + F(1);
    const F d = x - a.mean;
    const F mean = a.mean + d * detail::weight_reciprocal(w);
    return {w, mean, a.m2 + d * (x - mean)};
  }
  /// Adds N values at once where they and their sum are finite: their mean and squared deviations
  /// by two passes over them, each a tree, then one combination (one reciprocal, not N). Otherwise
  /// one at a time, so that infinities and NaN give Welford's results.
  template <class F, int N>
  CURED_HD moments<F> add_all(const moments<F>& a, const F (&x)[N]) const {
    F y[N];
CURED_UNROLL
    for (int i = 0; i < N; ++i) y[i] = x[i];
    const F sum = detail::tree_sum(y);
    if (!(::fabs(sum) <= ::cuda::std::numeric_limits<F>::max())) {  // not finite
      moments<F> m = a;
CURED_UNROLL
      for (int i = 0; i < N; ++i) m = (*this)(m, x[i]);
      return m;
    }
    const F mean = sum * (F(1) / F(N));
CURED_UNROLL
    for (int i = 0; i < N; ++i) {
      const F deviation = x[i] - mean;
      y[i] = deviation * deviation;
    }
    return (*this)(a, moments<F>(F(N), mean, detail::tree_sum(y)));
  }
  /// Adds x[k] to a[k] for each k, where every a[k] holds the same weight: Welford's update of
  /// each, with one reciprocal for all (the column kernel's V columns of a row).
  template <class F, int N>
  CURED_HD void add_each(moments<F> (&a)[N], const F (&x)[N]) const {
    const F w = a[0].weight + F(1), r = detail::weight_reciprocal(w);
CURED_UNROLL
    for (int k = 0; k < N; ++k) {  // (operator()(a[k], x[k]) with r for its reciprocal)
      const F d = x[k] - a[k].mean;
      const F mean = a[k].mean + d * r;
      a[k] = {w, mean, a[k].m2 + d * (x[k] - mean)};
    }
  }
  /// Combines two states (Chan, Golub and LeVeque).
  template <class F>
  CURED_HD moments<F> operator()(const moments<F>& a, const moments<F>& b) const {
    if (b.weight == F(0)) return a;
    if (a.weight == F(0)) return b;
    const F w = a.weight + b.weight;
    const F d = b.mean - a.mean;
    const F share = b.weight * detail::weight_reciprocal(w);
    return {w, a.mean + d * share, a.m2 + b.m2 + d * d * a.weight * share};
  }
  template <class M>
  CURED_HD static M identity() {
    return M(0, 0, 0);
  }
};

/// The smallest and the largest of a set of values.
template <class T>
struct min_max {
  T min;
  T max;
  min_max() = default;
  CURED_HD min_max(const T& lo, const T& hi) : min(lo), max(hi) {}
  CURED_HD explicit min_max(const T& x) : min(x), max(x) {}
};

struct min_max_op {
  template <class T>
  CURED_HD min_max<T> operator()(const min_max<T>& a, const T& x) const {
    return {minimum{}(a.min, x), maximum{}(a.max, x)};
  }
  template <class T>
  CURED_HD min_max<T> operator()(const min_max<T>& a, const min_max<T>& b) const {
    return {minimum{}(a.min, b.min), maximum{}(a.max, b.max)};
  }
  template <class M>
  CURED_HD static M identity() {
    using T = decltype(M{}.min);
    return M(minimum::identity<T>(), maximum::identity<T>());
  }
};

/// Of a set of values x: the largest m (-inf when none is larger) and s = sum exp(x - m), so
/// that log sum exp(x) = m + log(s). A NaN value makes s NaN.
template <class F>
struct log_sum_exp {
  F max;
  F sum;
  log_sum_exp() = default;
  CURED_HD log_sum_exp(F m, F s) : max(m), sum(s) {}
  CURED_HD explicit log_sum_exp(F x) : max(x), sum(1) {}
};

struct log_sum_exp_op {
  /// Adds one value: exp(x - m) to s, or, for x above m, s rescaled to x plus one. A value
  /// equal to m (infinities included) adds 1, so -inf values count while m is -inf, which
  /// m + log(s) = -inf absorbs and the first larger value's rescaling by exp(-inf) clears.
  template <class F>
  CURED_HD log_sum_exp<F> operator()(const log_sum_exp<F>& a, const F& x) const {
    const F d = x == a.max ? F(0) : x - a.max;
    const bool above = d > F(0);
    const F e = detail::exp_nonpositive(above ? -d : d);
    return {above ? x : a.max, above ? a.sum * e + F(1) : a.sum + e};
  }
  /// Adds N values at once where their largest m (NaN aside) is finite: s rescaled once if m is
  /// above the state's maximum, then the N exponentials, independent of each other, as a tree.
  /// Otherwise (and where x[0] is NaN, which m then is) one at a time, for the rules of
  /// infinities and NaN.
  template <class F, int N>
  CURED_HD log_sum_exp<F> add_all(log_sum_exp<F> a, const F (&x)[N]) const {
    F m = x[0];
CURED_UNROLL
    for (int i = 1; i < N; ++i) m = x[i] > m ? x[i] : m;  // NaN aside, but for a NaN x[0]: see below
    if (!(::fabs(m) <= ::cuda::std::numeric_limits<F>::max())) {  // not finite
CURED_UNROLL
      for (int i = 0; i < N; ++i) a = (*this)(a, x[i]);
      return a;
    }
    if (m > a.max) {  // a.max -inf (no values yet, or only -inf): s, 0 or their count, becomes 0
      a.sum *= detail::exp_nonpositive(a.max - m);
      a.max = m;
    }
    F e[N];  // a.max is finite or +inf, each x below it: no inf - inf
CURED_UNROLL
    for (int i = 0; i < N; ++i) e[i] = detail::exp_nonpositive(x[i] - a.max);
    a.sum += detail::tree_sum(e);
    return a;
  }
  template <class F>
  CURED_HD log_sum_exp<F> operator()(const log_sum_exp<F>& a, const log_sum_exp<F>& b) const {
    if (a.max == b.max) return {a.max, a.sum + b.sum};
    if (b.max > a.max) return {b.max, a.sum * detail::exp_nonpositive(a.max - b.max) + b.sum};
    return {a.max, a.sum + b.sum * detail::exp_nonpositive(b.max - a.max)};  // and NaN maxima
  }
  template <class L>
  CURED_HD static L identity() {
    using F = decltype(L{}.max);
    return L(-::cuda::std::numeric_limits<F>::infinity(), F(0));
  }
};

}  // namespace cured
