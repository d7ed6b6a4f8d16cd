#pragma once
// Double-double arithmetic for the exact sums: error-free TwoSum; a double-double sum with a
// rigorous bound on its error (bounded_sum: the first launch of the exact sums along axes and
// per segment); the per-thread two-term expansion of the whole-array sums of doubles and of
// the dot products, which estimates what it cannot hold (or, in the exact pass, sends it to
// the block's fixed-point accumulator).

#include <cmath>
#include <cstdint>

#include "cured/exact/accumulator.cuh"
#include "cured/exact/fixed_point.cuh"

namespace cured::exact {

/// Error-free sum: s + e == a + b exactly (round-to-nearest, no overflow).
__device__ __forceinline__ void two_sum(double a, double b, double& s, double& e) {
  s = __dadd_rn(a, b);
  const double bb = __dsub_rn(s, a);
  e = __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb));
}

/// A double-double estimate s + c of a sum and a bound on its error: the exact sum lies in
/// [s + c - bound, s + c + bound] when all three are finite.
struct bounded_sum {
  double s, c, bound;
};

/// Adds with TwoSum: s's error goes to c exactly; c's own rounding (at most 2^-53 |c|) goes to
/// the bound, rounded up.
struct bounded_plus {
  template <class T>
  __host__ __device__ static constexpr T identity() {
    return T{0.0, 0.0, 0.0};
  }
  __device__ __forceinline__ bounded_sum operator()(bounded_sum a, double x) const {
    double s, e;
    two_sum(a.s, x, s, e);
    const double c = __dadd_rn(a.c, e);
    return {s, c, __fma_ru(fabs(c), 0x1p-53, a.bound)};
  }
  __device__ __forceinline__ bounded_sum operator()(bounded_sum a, bounded_sum b) const {
    double s, e;
    two_sum(a.s, b.s, s, e);
    const double t = __dadd_rn(a.c, b.c);
    const double c = __dadd_rn(t, e);
    const double err = __dmul_ru(__dadd_ru(fabs(t), fabs(c)), 0x1p-53);
    return {s, c, __dadd_ru(__dadd_ru(a.bound, b.bound), err)};
  }
};

/// Whether the estimate decides the rounding; if so, *r is the exact sum rounded to double.
/// Undecided: any non-finite part, a result below 2^-1021 (zero, subnormal, the sign of zero)
/// or above 2^1023, or a rounding boundary within the bound.
__device__ inline bool decide(const bounded_sum& t, double* r) {
  if (!isfinite(t.s) || !isfinite(t.c) || !isfinite(t.bound)) return false;
  double hi, lo;
  two_sum(t.s, t.c, hi, lo);  // hi = the estimate rounded; |lo| <= half an ulp of hi
  const double a = fabs(hi);
  if (!(a >= 0x1p-1021) || a > 0x1p1023) return false;
  // The neighbours' midpoints: hi + half_up and hi - half_down (exact: hi is normal).
  const long long bits = __double_as_longlong(hi), toward_up = hi > 0 ? 1 : -1;
  const double half_up = __dsub_rn(__longlong_as_double(bits + toward_up), hi) * 0.5;
  const double half_down = __dsub_rn(hi, __longlong_as_double(bits - toward_up)) * 0.5;
  // Lower bounds of the distances from the estimate hi + lo to those midpoints.
  const double gap_up = __dsub_rd(half_up, lo), gap_down = __dadd_rd(half_down, lo);
  if (!(gap_up > t.bound && gap_down > t.bound)) return false;
  *r = hi;
  return true;
}

/// Per thread: a two-term expansion hi + lo (both finite, |hi| < 2^1001), the remainders it
/// could not hold (rem, the exact pass: none), and flags.
struct expansion {
  double hi, lo;
  estimate rem;
  unsigned flags;
};

/// Adds a double: hi + lo holds it with two TwoSums when it can. The remainder of the second
/// TwoSum (bits of lo's sum too far below it) is the only part that can be lost: the estimating
/// pass (Exact false) adds it to rem with a bound; the exact pass adds it to the block's
/// fixed-point accumulator `acc` (shared memory, base Base: add_rare), as both passes do with
/// the rare values near overflow. Values are multiples of the layout's unit.
template <class Acc, int Base, bool Exact>
struct expansion_add {
  Acc* acc;
  __device__ __forceinline__ expansion operator()(expansion a, double x) const {
    if (__double_as_longlong(x) != std::int64_t(0x8000000000000000ull)) a.flags |= flag_not_neg_zero;
    // |x| and |hi| below 2^1000 keep every TwoSum below overflow: one comparison each (NaN too).
    if (!(fabs(x) < 0x1p1000)) {
      if (isfinite(x)) acc->template add_rare<Base>(x);
      else a.flags |= special_flags(x);
      return a;
    }
    if (!(fabs(a.hi) < 0x1p1000)) {
      acc->template add_rare<Base>(a.hi);
      a.hi = 0;
    }
    double e, r;
    two_sum(a.hi, x, a.hi, e);
    two_sum(a.lo, e, a.lo, r);  // |lo| stays far below 2^1000 for any n below 2^44
    if (r != 0) {
      if constexpr (Exact) acc->template add_rare<Base>(r);
      else a.rem = combine(a.rem, {r, 0.0});
    }
    return a;
  }
};

}  // namespace cured::exact
