#pragma once
// The one-pass statistics' references (the tests' and the benchmark's), written from their definitions in long double (whose exponent
// range holds the square of every double, so the sums of squares need no scaling), and the
// error bounds the tests accept, from each method's analysis (docs/API.md#statistics).

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace cured::harness {

struct statistics_reference {
  std::int64_t count = 0;
  long double mean = NAN;  ///< NaN for no values
  long double m2 = 0;      ///< two-pass sum of squared deviations
  long double abs_sum = 0;
  long double squares = 0;
  long double abs_max = 0;
  long double log_sum_exp = -INFINITY;
  long double min = INFINITY, max = -INFINITY;  ///< NaN when a value is NaN
  std::int64_t nonzero = 0;

  /// var with correction ddof, as torch defines it.
  long double var(double ddof) const {
    const long double dof = (long double)count - ddof;
    return m2 / (dof > 0 ? dof : 0.0L);
  }
  /// The condition number of the variance: sqrt(1 + mean^2 n / m2).
  long double kappa() const { return m2 > 0 ? std::sqrt(1 + mean * mean * count / m2) : 1; }
};

inline statistics_reference reference_of(const std::vector<double>& x) {
  statistics_reference r;
  r.count = std::int64_t(x.size());
  bool nan = false;
  long double sum = 0, top = -INFINITY;
  for (const double v : x) {
    nan |= std::isnan(v);
    sum += v;
    r.abs_sum += std::fabs((long double)v);
    r.squares += (long double)v * v;
    r.abs_max = std::fabs(v) > r.abs_max || std::isnan(v) ? std::fabs((long double)v) : r.abs_max;
    if (v < r.min) r.min = v;
    if (v > r.max) r.max = v;
    if (v > top) top = v;
    r.nonzero += v != 0;
  }
  if (!x.empty()) {
    r.mean = sum / x.size();
    for (const double v : x) r.m2 += (v - r.mean) * (v - r.mean);
  }
  if (std::isinf(top)) {
    r.log_sum_exp = top;  // +inf, or -inf for all -inf
  } else if (!x.empty()) {
    long double s = 0;
    for (const double v : x) s += std::exp((long double)v - top);
    r.log_sum_exp = top + std::log(s);
  }
  if (nan) r.min = r.max = r.log_sum_exp = r.abs_max = NAN;
  return r;
}

/// Elements a thread chains through at most in the whole-array kernels (32 per thread for
/// inputs one round covers, a wave of at least 32 blocks of 1024 threads beyond), plus the depth
/// of the tree above them.
inline double chain_of(std::int64_t n) { return 32 + double(n) / 32768 + std::log2(double(n) + 2) + 8; }

/// Whether got is within `bound` of want, NaN matching NaN and infinities matching exactly.
inline bool near(double got, long double want, long double bound) {
  if (std::isnan((double)want)) return std::isnan(got);
  if (std::isinf((double)want)) return got == (double)want;
  return std::fabs((long double)got - want) <= bound;
}

}  // namespace cured::harness
