#pragma once
// The state and operator of cured::vector_norm's 2-norm of doubles (detail/statistic_kinds.cuh,
// norm2_statistic), one of the statistics' operators (cured/types/statistic_ops.cuh includes them):
// Blue's sum of squares in three ranges, so that no square overflows or underflows, and its
// square root as LAPACK's dnrm2 ends.

#include <cmath>
#include <type_traits>

#include "cured/types/ops.cuh"

namespace cured {

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
