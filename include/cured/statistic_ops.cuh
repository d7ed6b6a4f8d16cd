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
// - min_max_op: the smallest and largest values, NaN as minimum and maximum propagate it.
// - log_sum_exp_op: the largest value m and s = sum exp(x - m), rescaled when m grows: one
//   exponential per value.
// - scaled_squares_op: Blue's sum of squares in three ranges (small values scaled up, large ones
//   scaled down), so that no square overflows or underflows (LAPACK's dnrm2).

#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

#include "cured/ops.cuh"

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

/// e^d for d <= 0 (or NaN): on the device for float 2^(d log2 e) by the hardware's approximation
/// (relative error within 2^-21 for |d| < 1, growing as |d| 2^-24 beyond; results below 2^-126
/// are 0).
template <class F>
CURED_HD inline F exp_nonpositive(F d) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<F, float>) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d * 1.44269504088896341f));
    return r;
  } else {
    return ::exp(d);
  }
#else
  return std::exp(d);
#endif
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

/// Blue's sum of squares of |x|: values above big_limit scaled by big_scale, below small_limit by
/// small_scale, the others as they are, so that no square overflows or underflows.
template <class F>
struct scaled_squares {
  F small;
  F medium;
  F big;
  scaled_squares() = default;
  CURED_HD scaled_squares(F s, F m, F b) : small(s), medium(m), big(b) {}
  CURED_HD explicit scaled_squares(F ax) : small(0), medium(0), big(0) { add(ax); }

  static_assert(std::is_same_v<F, double>, "cured: scaled_squares holds doubles");
  static constexpr F small_limit = 0x1p-511, big_limit = 0x1p486;   // 2^ceil((emin-1)/2), 2^floor((emax-p+1)/2)
  static constexpr F small_scale = 0x1p537, big_scale = 0x1p-538;  // 2^-floor((emin-p)/2), 2^-ceil((emax+p-1)/2)

  /// Adds |x| (NaN goes to the medium range, so the result is NaN).
  CURED_HD void add(F ax) {
    if (ax > big_limit) {
      const F y = ax * big_scale;
      big += y * y;
    } else if (ax < small_limit) {
      const F y = ax * small_scale;
      small += y * y;
    } else {
      medium += ax * ax;
    }
  }

  /// The square root of the sum of squares, as LAPACK's dnrm2 ends.
  CURED_HD F root() const {
    using std::sqrt;
    if (big > F(0)) {
      F b = big;
      if (medium > F(0) || medium != medium) b += (medium * big_scale) * big_scale;
      return sqrt(b) / big_scale;
    }
    if (small > F(0)) {
      if (medium > F(0) || medium != medium) {
        const F m = sqrt(medium), s = sqrt(small) / small_scale;
        const F hi = m > s ? m : s, lo = m > s ? s : m;
        const F q = lo / hi;
        return hi * sqrt(F(1) + q * q);
      }
      return sqrt(small) / small_scale;
    }
    return sqrt(medium);
  }
};

struct scaled_squares_op {
  template <class F>
  CURED_HD scaled_squares<F> operator()(scaled_squares<F> a, const F& ax) const {
    a.add(ax);
    return a;
  }
  template <class F>
  CURED_HD scaled_squares<F> operator()(const scaled_squares<F>& a, const scaled_squares<F>& b) const {
    return {a.small + b.small, a.medium + b.medium, a.big + b.big};
  }
  template <class S>
  CURED_HD static S identity() {
    return S(0, 0, 0);
  }
};

}  // namespace cured
