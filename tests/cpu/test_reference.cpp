// The CPU reference: exact sums checked bit for bit against hand-built hard cases and an
// independent slow reference (Shewchuk partials, as in Python's math.fsum); min/max/arg rules.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/reference.hpp"

namespace {

using cured::cpu::exact_accumulator;
using cured::cpu::exact_sum;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();
constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr double denorm_d = std::numeric_limits<double>::denorm_min();
constexpr float denorm_f = std::numeric_limits<float>::denorm_min();

std::string show(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

template <class T>
auto bits_of(T v) {
  if constexpr (sizeof(T) == 8) {
    return std::bit_cast<std::uint64_t>(v);
  } else {
    return std::bit_cast<std::uint32_t>(v);
  }
}

/// Bit-identical comparison (distinguishes -0 from +0; any NaN matches any NaN).
template <class T>
::testing::AssertionResult same(T got, T want) {
  if ((std::isnan(got) && std::isnan(want)) || bits_of(got) == bits_of(want)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << show(got) << ", want " << show(want);
}

double sum_d(std::vector<double> v) { return exact_sum(std::span<const double>(v)); }
float sum_f(std::vector<float> v) { return exact_sum(std::span<const float>(v)); }

/// exact_sum of every permutation of v equals want, bit for bit.
template <class T>
void expect_all_permutations(std::vector<T> v, T want) {
  std::sort(v.begin(), v.end());
  do {
    std::string order;
    for (T x : v) order += show(x) + " ";
    EXPECT_TRUE(same(exact_sum(std::span<const T>(v)), want)) << "order: " << order;
  } while (std::next_permutation(v.begin(), v.end()));
}

// ---- Independent slow reference -------------------------------------------------------------

/// Python's math.fsum (Shewchuk's exact partials, then a correctly rounded, ties-to-even sum of
/// the partials). Assumes finite inputs whose partial sums never overflow.
double fsum(const std::vector<double>& xs) {
  std::vector<double> partials;
  for (double x : xs) {
    std::size_t i = 0;
    for (double y : partials) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double hi = x + y;
      const double lo = y - (hi - x);
      if (lo != 0.0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }
  std::size_t n = partials.size();
  double hi = 0.0;
  if (n > 0) {
    double lo = 0.0;
    hi = partials[--n];
    while (n > 0) {
      const double x = hi;
      const double y = partials[--n];
      hi = x + y;
      const double yr = hi - x;
      lo = y - yr;
      if (lo != 0.0) break;
    }
    if (n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0))) {
      const double y = lo * 2.0;
      const double x = hi + y;
      const double yr = x - hi;
      if (y == yr) hi = x;
    }
  }
  return hi;
}

/// Sign of the exact value sum(xs) + extra.
int exact_sign(std::vector<double> xs, double extra) {
  xs.push_back(extra);
  const double s = fsum(xs);
  return (s > 0.0) - (s < 0.0);
}

/// The float nearest to the exact sum of xs (ties to even), found from fsum's double by exact
/// comparisons with the midpoints between neighbouring floats. Assumes no float overflow.
float fsum_float(const std::vector<double>& xs) {
  const auto odd = [](float f) { return (std::bit_cast<std::uint32_t>(f) & 1u) != 0; };
  float g = static_cast<float>(fsum(xs));
  for (;;) {
    const float up = std::nextafter(g, inf_f);
    const int s_up = exact_sign(xs, -((static_cast<double>(g) + static_cast<double>(up)) / 2));
    if (s_up > 0 || (s_up == 0 && odd(g))) {
      g = up;
      continue;
    }
    const float down = std::nextafter(g, -inf_f);
    const int s_down = exact_sign(xs, -((static_cast<double>(g) + static_cast<double>(down)) / 2));
    if (s_down < 0 || (s_down == 0 && odd(g))) {
      g = down;
      continue;
    }
    return g;
  }
}

/// A double with random sign, significand and biased exponent in [0, max_biased] (0: subnormal).
double random_double(std::mt19937_64& rng, int max_biased) {
  const std::uint64_t sign = rng() & 1;
  const std::uint64_t biased = std::uniform_int_distribution<int>(0, max_biased)(rng);
  std::uint64_t frac = rng() & ((std::uint64_t{1} << 52) - 1);
  if (biased == 0 && frac == 0) frac = 1;
  return std::bit_cast<double>(sign << 63 | biased << 52 | frac);
}

float random_float(std::mt19937_64& rng, int max_biased) {
  const std::uint32_t sign = rng() & 1;
  const std::uint32_t biased = std::uniform_int_distribution<int>(0, max_biased)(rng);
  std::uint32_t frac = rng() & ((1u << 23) - 1);
  if (biased == 0 && frac == 0) frac = 1;
  return std::bit_cast<float>(sign << 31 | biased << 23 | frac);
}

// ---- The slow reference checks itself on cases known by hand --------------------------------

TEST(SlowReference, KnownCases) {
  EXPECT_TRUE(same(fsum({1e30, 1.0, -1e30}), 1.0));
  EXPECT_TRUE(same(fsum({1.0, 0x1p-53}), 1.0));
  EXPECT_TRUE(same(fsum({1.0, 0x1p-53, 0x1p-105}), 1.0 + 0x1p-52));
  EXPECT_TRUE(same(fsum({1.0 + 0x1p-52, 0x1p-53}), 1.0 + 0x1p-51));
  EXPECT_TRUE(same(fsum_float({1.0, 0x1p-24, 0x1p-60}), 1.0f + 0x1p-23f));
  EXPECT_TRUE(same(fsum_float({1.0, 0x1p-24}), 1.0f));
  EXPECT_TRUE(same(fsum_float({1.0 + 0x1p-23, 0x1p-24}), 1.0f + 0x1p-22f));
}

// ---- exact_sum: hard cases -------------------------------------------------------------------

TEST(ExactSum, MassiveCancellation) {
  expect_all_permutations<double>({1e30, 1.0, -1e30}, 1.0);
  expect_all_permutations<double>({0x1p1000, 0x1p-1000, -0x1p1000}, 0x1p-1000);
  expect_all_permutations<double>({0x1p1000, 1.0, -0x1p1000, 0x1p-1074, -1.0}, 0x1p-1074);
  expect_all_permutations<float>({1e30f, 1.0f, -1e30f}, 1.0f);
  expect_all_permutations<float>({0x1p127f, 0x1p-149f, -0x1p127f}, 0x1p-149f);
}

TEST(ExactSum, DoubleTiesToEven) {
  // 1 + 2^-53 is the midpoint between 1 and 1 + 2^-52: even is 1.
  expect_all_permutations<double>({1.0, 0x1p-53}, 1.0);
  expect_all_permutations<double>({-1.0, -0x1p-53}, -1.0);
  // Anything beyond the midpoint, however far below, rounds up.
  expect_all_permutations<double>({1.0, 0x1p-53, 0x1p-105}, 1.0 + 0x1p-52);
  expect_all_permutations<double>({1.0, 0x1p-53, denorm_d}, 1.0 + 0x1p-52);
  expect_all_permutations<double>({1.0, 0x1p-53, -denorm_d}, 1.0);
  // Odd significand: the tie goes up.
  expect_all_permutations<double>({1.0 + 0x1p-52, 0x1p-53}, 1.0 + 0x1p-51);
  expect_all_permutations<double>({-1.0 - 0x1p-52, -0x1p-53}, -1.0 - 0x1p-51);
  // A tie reached only after cancellation of huge terms.
  expect_all_permutations<double>({0x1p600, 1.0, 0x1p-53, -0x1p600}, 1.0);
  expect_all_permutations<double>({0x1p600, 3.0, -0x1p-52, -0x1p600}, 3.0);  // 3 - 2^-52: tie, even is 3
  expect_all_permutations<double>({0x1p600, 1.5, 0x1p-53, -0x1p600}, 1.5);   // tie, even is 1.5
  EXPECT_TRUE(same(sum_d({1.0, 0x1p-54, 0x1p-54}), 1.0));
  EXPECT_TRUE(same(sum_d({1.0, 0x1p-54, 0x1p-54, 0x1p-54}), 1.0 + 0x1p-52));
}

TEST(ExactSum, FloatTiesToEven) {
  expect_all_permutations<float>({1.0f, 0x1p-24f}, 1.0f);
  expect_all_permutations<float>({1.0f + 0x1p-23f, 0x1p-24f}, 1.0f + 0x1p-22f);
  expect_all_permutations<float>({-1.0f, -0x1p-24f, -0x1p-60f}, -1.0f - 0x1p-23f);
}

TEST(ExactSum, FloatDoubleRoundingTrap) {
  // Rounding the exact sum to double first lands exactly on a float midpoint and the second
  // rounding then goes the wrong way; the direct rounding does not.
  const double via_double_up = 1.0 + 0x1p-24 + 0x1p-60;
  ASSERT_EQ(static_cast<float>(via_double_up), 1.0f);  // the trap is real
  expect_all_permutations<float>({1.0f, 0x1p-24f, 0x1p-60f}, 1.0f + 0x1p-23f);
  const double via_double_down = (1.0 + 0x1p-23) + 0x1p-24 - 0x1p-60;
  ASSERT_EQ(static_cast<float>(via_double_down), 1.0f + 0x1p-22f);
  expect_all_permutations<float>({1.0f + 0x1p-23f, 0x1p-24f, -0x1p-60f}, 1.0f + 0x1p-23f);
  // The same through an accumulator fed with doubles.
  exact_accumulator acc;
  acc.add(1.0);
  acc.add(0x1p-24);
  acc.add(0x1p-80);
  EXPECT_TRUE(same(acc.round_to_float(), 1.0f + 0x1p-23f));
  EXPECT_TRUE(same(acc.round_to_double(), 1.0 + 0x1p-24));
}

TEST(ExactSum, SubnormalsOnly) {
  EXPECT_TRUE(same(sum_d(std::vector<double>(1000, denorm_d)), 1000 * denorm_d));
  EXPECT_TRUE(same(sum_d(std::vector<double>(1000, -denorm_d)), -1000 * denorm_d));
  EXPECT_TRUE(same(sum_f(std::vector<float>(1000, denorm_f)), 1000 * denorm_f));
  // Two largest subnormals cross into the normal range: 2^-1021 - 2^-1073, exact.
  const double big_sub = DBL_MIN - denorm_d;
  EXPECT_TRUE(same(sum_d({big_sub, big_sub}), std::ldexp(1.0, -1021) - std::ldexp(1.0, -1073)));
  const float big_sub_f = FLT_MIN - denorm_f;
  EXPECT_TRUE(same(sum_f({big_sub_f, big_sub_f, denorm_f}), 0x1p-125f - denorm_f));
}

TEST(ExactSum, CancellationIntoSubnormals) {
  expect_all_permutations<double>({1.0, 1.5 * DBL_MIN, -1.0, -DBL_MIN}, 0.5 * DBL_MIN);
  expect_all_permutations<double>({1e300, 3 * denorm_d, -1e300}, 3 * denorm_d);
  expect_all_permutations<double>({-1e300, DBL_MIN, 1e300, -5 * denorm_d}, DBL_MIN - 5 * denorm_d);
  expect_all_permutations<float>({1e30f, 1.5f * FLT_MIN, -1e30f, -FLT_MIN}, 0.5f * FLT_MIN);
}

TEST(ExactSum, FloatRoundingOfDoublesInTheSubnormalRange) {
  const auto rounded = [](std::vector<double> v) {
    exact_accumulator acc;
    for (double x : v) acc.add(x);
    return acc.round_to_float();
  };
  EXPECT_TRUE(same(rounded({0x1p-150}), 0.0f));  // tie between 0 and 2^-149: even is 0
  EXPECT_TRUE(same(rounded({-0x1p-150}), -0.0f));  // a nonzero value rounding to zero keeps its sign
  EXPECT_TRUE(same(rounded({0x1p-150, denorm_d}), 0x1p-149f));
  EXPECT_TRUE(same(rounded({0x1p-150, -denorm_d}), 0.0f));
  EXPECT_TRUE(same(rounded({3 * 0x1p-150}), 0x1p-148f));  // 1.5 quanta: tie, even is 2
  EXPECT_TRUE(same(rounded({5 * 0x1p-150}), 0x1p-148f));  // 2.5 quanta: tie, even is 2
  EXPECT_TRUE(same(rounded({1e-300}), 0.0f));
  EXPECT_TRUE(same(rounded({FLT_MIN, -0x1p-151}), FLT_MIN));
  EXPECT_TRUE(same(rounded({FLT_MIN, -0x1p-150}), FLT_MIN));  // tie: FLT_MIN is even
  EXPECT_TRUE(same(rounded({FLT_MIN, -0x1p-150, -denorm_d}), FLT_MIN - denorm_f));
}

TEST(ExactSum, DoubleOverflow) {
  // ulp(DBL_MAX) = 2^971 and DBL_MAX has an odd significand: DBL_MAX + 2^970 is a tie that
  // rounds up, to 2^1024, i.e. overflows.
  expect_all_permutations<double>({DBL_MAX, 0x1p970}, inf);
  expect_all_permutations<double>({-DBL_MAX, -0x1p970}, -inf);
  expect_all_permutations<double>({DBL_MAX, 0x1p969}, DBL_MAX);
  expect_all_permutations<double>({DBL_MAX, 0x1p970, -denorm_d}, DBL_MAX);
  expect_all_permutations<double>({DBL_MAX, 0x1p970, denorm_d}, inf);
  expect_all_permutations<double>({DBL_MAX, DBL_MAX}, inf);
  expect_all_permutations<double>({DBL_MAX, DBL_MAX, -DBL_MAX}, DBL_MAX);
  expect_all_permutations<double>({-DBL_MAX, -DBL_MAX, DBL_MAX, -1.0}, -DBL_MAX);
  std::vector<double> v(1000, DBL_MAX);
  v.insert(v.end(), 999, -DBL_MAX);
  EXPECT_TRUE(same(sum_d(v), DBL_MAX));
  v.push_back(-DBL_MAX);
  v.push_back(0x1p-1000);
  EXPECT_TRUE(same(sum_d(v), 0x1p-1000));
}

TEST(ExactSum, FloatOverflow) {
  // ulp(FLT_MAX) = 2^104.
  expect_all_permutations<float>({FLT_MAX, 0x1p103f}, inf_f);
  expect_all_permutations<float>({-FLT_MAX, -0x1p103f}, -inf_f);
  expect_all_permutations<float>({FLT_MAX, 0x1p102f}, FLT_MAX);
  expect_all_permutations<float>({FLT_MAX, 0x1p103f, -denorm_f}, FLT_MAX);
  expect_all_permutations<float>({FLT_MAX, FLT_MAX, -FLT_MAX}, FLT_MAX);
  exact_accumulator acc;
  acc.add(1e300);
  EXPECT_TRUE(same(acc.round_to_float(), inf_f));
  EXPECT_TRUE(same(acc.round_to_double(), 1e300));
  exact_accumulator neg;
  neg.add(-static_cast<double>(FLT_MAX) - 0x1p102);
  EXPECT_TRUE(same(neg.round_to_float(), -FLT_MAX));
  neg.add(-0x1p102);  // -(FLT_MAX + 2^103): a tie, FLT_MAX's significand is odd
  EXPECT_TRUE(same(neg.round_to_float(), -inf_f));
  EXPECT_TRUE(same(neg.round_to_double(), -static_cast<double>(FLT_MAX) - 0x1p103));
}

TEST(ExactSum, NanAndInfinities) {
  EXPECT_TRUE(std::isnan(sum_d({nan_d, 1.0, 2.0})));
  EXPECT_TRUE(std::isnan(sum_d({1.0, nan_d, 2.0})));
  EXPECT_TRUE(std::isnan(sum_d({1.0, 2.0, nan_d})));
  EXPECT_TRUE(std::isnan(sum_d({inf, nan_d})));
  EXPECT_TRUE(std::isnan(sum_d({inf, -inf})));
  EXPECT_TRUE(std::isnan(sum_d({-inf, 1.0, inf})));
  EXPECT_TRUE(same(sum_d({1.0, inf, 2.0}), inf));
  EXPECT_TRUE(same(sum_d({inf, inf, -DBL_MAX, -DBL_MAX}), inf));
  EXPECT_TRUE(same(sum_d({-inf}), -inf));
  EXPECT_TRUE(same(sum_d({-inf, DBL_MAX, DBL_MAX}), -inf));
  EXPECT_TRUE(std::isnan(sum_f({nan_f})));
  EXPECT_TRUE(std::isnan(sum_f({1.0f, 2.0f, nan_f})));
  EXPECT_TRUE(std::isnan(sum_f({inf_f, 1.0f, -inf_f})));
  EXPECT_TRUE(same(sum_f({inf_f, -FLT_MAX}), inf_f));
  EXPECT_TRUE(same(sum_f({-inf_f, 0.0f}), -inf_f));
}

TEST(ExactSum, SignedZeros) {
  EXPECT_TRUE(same(sum_d({}), 0.0));
  EXPECT_TRUE(same(sum_d({-0.0}), -0.0));
  EXPECT_TRUE(same(sum_d({-0.0, -0.0}), -0.0));
  EXPECT_TRUE(same(sum_d({-0.0, 0.0}), 0.0));
  EXPECT_TRUE(same(sum_d({0.0, -0.0}), 0.0));
  EXPECT_TRUE(same(sum_d({1.0, -1.0}), 0.0));
  EXPECT_TRUE(same(sum_d({-1.0, 1.0, -0.0}), 0.0));
  EXPECT_TRUE(same(sum_d({-denorm_d, denorm_d}), 0.0));
  EXPECT_TRUE(same(sum_f({}), 0.0f));
  EXPECT_TRUE(same(sum_f({-0.0f, -0.0f, -0.0f}), -0.0f));
  EXPECT_TRUE(same(sum_f({-0.0f, 0.0f}), 0.0f));
  EXPECT_TRUE(same(sum_f({-1.0f, 1.0f}), 0.0f));
  EXPECT_TRUE(same(sum_d({-0.0, 1.0}), 1.0));
  EXPECT_TRUE(same(sum_d({-0.0, -1.0}), -1.0));
  exact_accumulator empty;
  EXPECT_TRUE(same(empty.round_to_double(), 0.0));
  EXPECT_TRUE(same(empty.round_to_float(), 0.0f));
}

TEST(ExactSum, Sign) {
  const auto sign_of = [](std::vector<double> v) {
    exact_accumulator acc;
    for (double x : v) acc.add(x);
    return acc.sign();
  };
  EXPECT_EQ(sign_of({}), 0);
  EXPECT_EQ(sign_of({1e-300, -1e-300}), 0);
  EXPECT_EQ(sign_of({-denorm_d}), -1);
  EXPECT_EQ(sign_of({DBL_MAX, DBL_MAX, DBL_MAX}), 1);
  EXPECT_EQ(sign_of({1e300, -denorm_d, -1e300}), -1);
  EXPECT_EQ(sign_of({inf, nan_d, -0.0}), 0);  // specials are ignored
}

// ---- exact_sum against the slow reference ----------------------------------------------------

TEST(ExactSum, RandomWideRangeMatchesSlowReferenceInEveryOrder) {
  std::mt19937_64 rng(20240611);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = std::uniform_int_distribution<int>(1, 300)(rng);
    // Exponents up to 2^997: the slow reference's partial sums cannot overflow.
    const int max_biased = trial % 3 == 0 ? 2020 : std::uniform_int_distribution<int>(1, 2020)(rng);
    std::vector<double> v(n);
    for (auto& x : v) x = random_double(rng, max_biased);
    const double want = fsum(v);
    for (int perm = 0; perm < 5; ++perm) {
      std::shuffle(v.begin(), v.end(), rng);
      ASSERT_TRUE(same(exact_sum(std::span<const double>(v)), want)) << "trial " << trial << " perm " << perm;
    }
  }
}

TEST(ExactSum, RandomCancellationMatchesSlowReferenceInEveryOrder) {
  // Big values cancel exactly (most of them); what is left is small, often subnormal.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> v;
    const int big = std::uniform_int_distribution<int>(1, 100)(rng);
    for (int i = 0; i < big; ++i) {
      const double x = random_double(rng, 2020);
      v.push_back(x);
      if (rng() % 8 != 0) v.push_back(-x);
    }
    const int small = std::uniform_int_distribution<int>(0, 20)(rng);
    for (int i = 0; i < small; ++i) v.push_back(random_double(rng, 1 + static_cast<int>(rng() % 60)));
    const double want = fsum(v);
    for (int perm = 0; perm < 5; ++perm) {
      std::shuffle(v.begin(), v.end(), rng);
      ASSERT_TRUE(same(exact_sum(std::span<const double>(v)), want)) << "trial " << trial << " perm " << perm;
    }
  }
}

TEST(ExactSum, RandomFloatsMatchSlowReferenceInEveryOrder) {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = std::uniform_int_distribution<int>(1, 300)(rng);
    // Exponents up to 2^113: no float overflow with n <= 300.
    const int max_biased = trial % 2 == 0 ? 240 : std::uniform_int_distribution<int>(1, 240)(rng);
    std::vector<float> v(n);
    for (auto& x : v) x = random_float(rng, max_biased);
    const float want = fsum_float(std::vector<double>(v.begin(), v.end()));
    for (int perm = 0; perm < 5; ++perm) {
      std::shuffle(v.begin(), v.end(), rng);
      ASSERT_TRUE(same(exact_sum(std::span<const float>(v)), want)) << "trial " << trial << " perm " << perm;
    }
  }
}

TEST(ExactSum, RandomDoublesRoundedToFloatMatchSlowReference) {
  // Doubles carry bits far below a float's precision: every float rounding case shows up,
  // including results in the float subnormal range.
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = std::uniform_int_distribution<int>(1, 40)(rng);
    const int hi = std::uniform_int_distribution<int>(1023 - 160, 1023 + 100)(rng);
    std::vector<double> v(n);
    for (auto& x : v) {
      x = random_double(rng, hi);
      if (std::fabs(x) < 0x1p-400) x = std::ldexp(x, 600);
    }
    const float want = fsum_float(v);
    exact_accumulator acc;
    for (double x : v) acc.add(x);
    ASSERT_TRUE(same(acc.round_to_float(), want)) << "trial " << trial;
    ASSERT_TRUE(same(acc.round_to_double(), fsum(v))) << "trial " << trial;
  }
}

TEST(ExactSum, LargeThreadedInputMatchesSlowReference) {
  std::mt19937_64 rng(5);
  std::vector<double> v(3'000'003);
  for (auto& x : v) x = random_double(rng, 1900);
  const double want = fsum(v);
  EXPECT_TRUE(same(exact_sum(std::span<const double>(v)), want));
  exact_accumulator acc;
  for (double x : v) acc.add(x);
  EXPECT_TRUE(same(acc.round_to_double(), want));
  v[1'234'567] = -0.0;
  v[2'999'999] = nan_d;
  EXPECT_TRUE(std::isnan(exact_sum(std::span<const double>(v))));

  std::vector<float> f(2'500'001);
  for (auto& x : f) x = random_float(rng, 200);
  EXPECT_TRUE(same(exact_sum(std::span<const float>(f)), fsum_float(std::vector<double>(f.begin(), f.end()))));
  std::vector<float> zeros(2'000'000, -0.0f);
  EXPECT_TRUE(same(exact_sum(std::span<const float>(zeros)), -0.0f));
  zeros.back() = 0.0f;
  EXPECT_TRUE(same(exact_sum(std::span<const float>(zeros)), 0.0f));
}

TEST(ExactSum, ManyAddsOfTheWidestTermsStayExact) {
  // Terms with all 53 significand bits set, at two offsets within a 32-bit chunk, so that some
  // chunk receives 2^32 - 1 per add: more than 2^31 adds overflow any 64-bit chunk that is
  // never carry-propagated.
  const double a = std::ldexp(0x1.fffffffffffffp0, 20);
  const double b = std::ldexp(0x1.fffffffffffffp0, 31);
  const std::int64_t half = (std::int64_t{1} << 30) + 512;
  exact_accumulator acc;
  for (std::int64_t i = 0; i < half; ++i) {
    acc.add(a);
    acc.add(b);
  }
  // Exact: half * (a + b) = (2^30 + 2^9) * (a + b).
  exact_accumulator want;
  for (double x : {a, b}) {
    want.add(0x1p30 * x);
    want.add(0x1p9 * x);
  }
  EXPECT_TRUE(same(acc.round_to_double(), want.round_to_double()));
  for (double x : {a, b}) {
    acc.add(-0x1p30 * x);
    acc.add(-0x1p9 * x);
  }
  EXPECT_EQ(acc.sign(), 0);
}

TEST(ExactAccumulator, MergeEqualsOneAccumulator) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> v(500);
    for (auto& x : v) x = random_double(rng, 2020);
    exact_accumulator one;
    for (double x : v) one.add(x);
    exact_accumulator parts[4];
    for (std::size_t i = 0; i < v.size(); ++i) parts[rng() % 4].add(v[i]);
    exact_accumulator merged;
    for (const auto& p : parts) merged.merge(p);
    ASSERT_TRUE(same(merged.round_to_double(), one.round_to_double()));
    ASSERT_TRUE(same(merged.round_to_float(), one.round_to_float()));
    ASSERT_TRUE(same(merged.round_to_double(), fsum(v)));
    ASSERT_EQ(merged.sign(), one.sign());
  }
}

TEST(ExactAccumulator, MergeCarriesSpecialsAndZeros) {
  exact_accumulator empty;
  exact_accumulator neg_zero;
  neg_zero.add(-0.0);
  exact_accumulator m = empty;
  m.merge(neg_zero);
  EXPECT_TRUE(same(m.round_to_double(), -0.0));
  m.merge(empty);
  EXPECT_TRUE(same(m.round_to_double(), -0.0));
  exact_accumulator pos_zero;
  pos_zero.add(0.0);
  m.merge(pos_zero);
  EXPECT_TRUE(same(m.round_to_double(), 0.0));
  exact_accumulator e2 = empty;
  e2.merge(empty);
  EXPECT_TRUE(same(e2.round_to_double(), 0.0));

  exact_accumulator p;
  p.add(inf);
  exact_accumulator n;
  n.add(-inf);
  exact_accumulator pn = p;
  EXPECT_TRUE(same(pn.round_to_double(), inf));
  pn.merge(n);
  EXPECT_TRUE(std::isnan(pn.round_to_double()));
  exact_accumulator q;
  q.add(nan_d);
  exact_accumulator one;
  one.add(1.0);
  one.merge(q);
  EXPECT_TRUE(std::isnan(one.round_to_float()));

  // Merging an accumulator with itself doubles it, exactly.
  exact_accumulator t;
  t.add(DBL_MAX);
  t.add(0x1p968);
  t.merge(t);
  EXPECT_TRUE(same(t.round_to_double(), inf));
  t.add(-DBL_MAX);  // DBL_MAX + 2^969: below the midpoint DBL_MAX + 2^970
  EXPECT_TRUE(same(t.round_to_double(), DBL_MAX));
  t.add(0x1p969);  // exactly the midpoint: rounds to 2^1024, overflow
  EXPECT_TRUE(same(t.round_to_double(), inf));
}

// ---- integer sums ----------------------------------------------------------------------------

std::string to_string(__int128 v) {
  const bool negative = v < 0;
  auto magnitude = negative ? ~static_cast<unsigned __int128>(v) + 1 : static_cast<unsigned __int128>(v);
  std::string s;
  do {
    s.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  if (negative) s.push_back('-');
  std::reverse(s.begin(), s.end());
  return s;
}

std::string to_string(unsigned __int128 v) {
  std::string s;
  do {
    s.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  std::reverse(s.begin(), s.end());
  return s;
}

TEST(ExactSum, Int32) {
  constexpr std::int32_t mx = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t mn = std::numeric_limits<std::int32_t>::min();
  std::vector<std::int32_t> v(1'000'000, mx);
  EXPECT_EQ(to_string(exact_sum(std::span<const std::int32_t>(v))), "2147483647000000");
  v.assign(3, mn);
  EXPECT_EQ(to_string(exact_sum(std::span<const std::int32_t>(v))), "-6442450944");
  v = {mx, mn, 5, -7};
  EXPECT_EQ(to_string(exact_sum(std::span<const std::int32_t>(v))), "-3");
  EXPECT_EQ(to_string(exact_sum(std::span<const std::int32_t>())), "0");
}

TEST(ExactSum, Uint32) {
  std::vector<std::uint32_t> v(5, std::numeric_limits<std::uint32_t>::max());
  EXPECT_EQ(to_string(exact_sum(std::span<const std::uint32_t>(v))), "21474836475");
  EXPECT_EQ(to_string(exact_sum(std::span<const std::uint32_t>())), "0");
}

TEST(ExactSum, Int64BeyondSixtyFourBits) {
  constexpr std::int64_t mx = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t mn = std::numeric_limits<std::int64_t>::min();
  std::vector<std::int64_t> v = {mx, mx, mx};
  EXPECT_EQ(to_string(exact_sum(std::span<const std::int64_t>(v))), "27670116110564327421");
  v = {mn, mn};
  EXPECT_EQ(to_string(exact_sum(std::span<const std::int64_t>(v))), "-18446744073709551616");
  v = {mx, mx, mn, mn, -1};
  EXPECT_EQ(to_string(exact_sum(std::span<const std::int64_t>(v))), "-3");
  std::vector<std::uint64_t> u(4, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(to_string(exact_sum(std::span<const std::uint64_t>(u))), "73786976294838206460");
}

TEST(SumAbs, Basic) {
  std::vector<double> d = {1.0, -2.0, 3.5, -0.0};
  EXPECT_EQ(cured::cpu::sum_abs(std::span<const double>(d)), 6.5);
  std::vector<float> f = {-1.0f, -2.0f, 0.25f};
  EXPECT_EQ(cured::cpu::sum_abs(std::span<const float>(f)), 3.25);
  EXPECT_EQ(cured::cpu::sum_abs(std::span<const float>()), 0.0);
}

// ---- min / max / argmin / argmax -------------------------------------------------------------

template <class T>
class MinMax : public ::testing::Test {};
using float_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MinMax, float_types);

TYPED_TEST(MinMax, TiesGiveTheFirstIndex) {
  using T = TypeParam;
  const std::vector<T> v = {3, 1, 5, 1, 5, 2};
  const std::span<const T> s(v);
  EXPECT_EQ(cured::cpu::argmin(s).index, 1);
  EXPECT_EQ(cured::cpu::argmin(s).value, T(1));
  EXPECT_EQ(cured::cpu::argmax(s).index, 2);
  EXPECT_EQ(cured::cpu::argmax(s).value, T(5));
  EXPECT_EQ(cured::cpu::min(s), T(1));
  EXPECT_EQ(cured::cpu::max(s), T(5));
  const std::vector<T> one = {-7};
  EXPECT_EQ(cured::cpu::argmin(std::span<const T>(one)).index, 0);
  EXPECT_EQ(cured::cpu::argmax(std::span<const T>(one)).index, 0);
}

TYPED_TEST(MinMax, NanPropagatesWithTheFirstNanIndex) {
  using T = TypeParam;
  const T q = std::numeric_limits<T>::quiet_NaN();
  const std::vector<std::vector<T>> cases = {{q, 1, 2}, {1, q, 0, q}, {1, 2, q}, {q, q}, {-1, 5, q, -9, q, 3}};
  const std::int64_t first[] = {0, 1, 2, 0, 2};
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const std::span<const T> s(cases[c]);
    EXPECT_EQ(cured::cpu::argmin(s).index, first[c]) << "case " << c;
    EXPECT_EQ(cured::cpu::argmax(s).index, first[c]) << "case " << c;
    EXPECT_TRUE(std::isnan(cured::cpu::argmin(s).value)) << "case " << c;
    EXPECT_TRUE(std::isnan(cured::cpu::argmax(s).value)) << "case " << c;
    EXPECT_TRUE(std::isnan(*cured::cpu::min(s))) << "case " << c;
    EXPECT_TRUE(std::isnan(*cured::cpu::max(s))) << "case " << c;
  }
}

TYPED_TEST(MinMax, SignedZerosAreEqual) {
  using T = TypeParam;
  const std::vector<T> pos_first = {T(0), T(-0.0), T(1)};
  const std::vector<T> neg_first = {T(-0.0), T(0), T(-1)};
  auto r = cured::cpu::argmin(std::span<const T>(pos_first));
  EXPECT_EQ(r.index, 0);
  EXPECT_FALSE(std::signbit(r.value));
  EXPECT_FALSE(std::signbit(*cured::cpu::min(std::span<const T>(pos_first))));
  r = cured::cpu::argmax(std::span<const T>(neg_first));
  EXPECT_EQ(r.index, 0);
  EXPECT_TRUE(std::signbit(r.value));
  EXPECT_TRUE(std::signbit(*cured::cpu::max(std::span<const T>(neg_first))));
}

TYPED_TEST(MinMax, Infinities) {
  using T = TypeParam;
  const T i = std::numeric_limits<T>::infinity();
  const std::vector<T> v = {1, -i, i, -i, i, std::numeric_limits<T>::max()};
  const std::span<const T> s(v);
  EXPECT_EQ(cured::cpu::argmin(s).index, 1);
  EXPECT_EQ(cured::cpu::argmin(s).value, -i);
  EXPECT_EQ(cured::cpu::argmax(s).index, 2);
  EXPECT_EQ(cured::cpu::argmax(s).value, i);
  EXPECT_EQ(cured::cpu::min(s), -i);
  EXPECT_EQ(cured::cpu::max(s), i);
}

TYPED_TEST(MinMax, Empty) {
  using T = TypeParam;
  const std::span<const T> s;
  EXPECT_FALSE(cured::cpu::min(s).has_value());
  EXPECT_FALSE(cured::cpu::max(s).has_value());
  EXPECT_EQ(cured::cpu::argmin(s).index, -1);
  EXPECT_EQ(cured::cpu::argmax(s).index, -1);
}

TEST(MinMaxInt32, ExtremesTiesAndEmpty) {
  constexpr std::int32_t mx = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t mn = std::numeric_limits<std::int32_t>::min();
  const std::vector<std::int32_t> v = {0, mx, -4, mn, mx, mn, 7};
  const std::span<const std::int32_t> s(v);
  EXPECT_EQ(cured::cpu::min(s), mn);
  EXPECT_EQ(cured::cpu::max(s), mx);
  EXPECT_EQ(cured::cpu::argmin(s).index, 3);
  EXPECT_EQ(cured::cpu::argmin(s).value, mn);
  EXPECT_EQ(cured::cpu::argmax(s).index, 1);
  EXPECT_EQ(cured::cpu::argmax(s).value, mx);
  const std::span<const std::int32_t> e;
  EXPECT_FALSE(cured::cpu::min(e).has_value());
  EXPECT_FALSE(cured::cpu::max(e).has_value());
  EXPECT_EQ(cured::cpu::argmin(e).index, -1);
  EXPECT_EQ(cured::cpu::argmax(e).index, -1);
}

TEST(MinMaxRandom, MatchesStdAlgorithms) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<std::int32_t> v(1 + rng() % 1000);
    for (auto& x : v) x = static_cast<std::int32_t>(rng() % 50) - 25;
    const std::span<const std::int32_t> s(v);
    EXPECT_EQ(cured::cpu::argmin(s).index, std::min_element(v.begin(), v.end()) - v.begin());
    EXPECT_EQ(cured::cpu::argmax(s).index, std::max_element(v.begin(), v.end()) - v.begin());
  }
}

// ---- exact dot products: products taken exactly, beyond and below the double range ----------

double dot_d(std::vector<double> x, std::vector<double> y) {
  return cured::cpu::exact_dot(std::span<const double>(x), std::span<const double>(y));
}
float dot_f(std::vector<float> x, std::vector<float> y) {
  return cured::cpu::exact_dot(std::span<const float>(x), std::span<const float>(y));
}

TEST(ExactDot, ProductsBeyondTheRangeCancel) {
  // DBL_MAX^2 is about 2^2048: it cancels exactly, leaving 2 * 3.
  EXPECT_TRUE(same(dot_d({DBL_MAX, DBL_MAX, 2.0}, {DBL_MAX, -DBL_MAX, 3.0}), 6.0));
  EXPECT_TRUE(same(dot_d({1e300, 1.0, -1e300}, {1e10, 3.0, 1e10}), 3.0));
  // Uncancelled: inf of its sign.
  EXPECT_TRUE(same(dot_d({DBL_MAX, 1.0}, {-2.0, 1.0}), -inf));
  // Float products stay below 2^256 but above float's range: rounded once, to inf or back.
  EXPECT_TRUE(same(dot_f({FLT_MAX, 1.0f}, {2.0f, 1.0f}), inf_f));
  EXPECT_TRUE(same(dot_f({FLT_MAX, FLT_MAX, 1.0f}, {4.0f, -4.0f, 0.5f}), 0.5f));
}

TEST(ExactDot, ProductsBelowTheSubnormalsCount) {
  // 2^-1074 * 2^-1 is half the smallest subnormal: a tie, to +0; three of them round to even
  // (2 * 2^-1074); two are exactly the smallest subnormal.
  EXPECT_TRUE(same(dot_d({denorm_d}, {0.5}), 0.0));
  EXPECT_TRUE(same(dot_d({denorm_d, denorm_d, denorm_d}, {0.5, 0.5, 0.5}), 2 * denorm_d));
  EXPECT_TRUE(same(dot_d({denorm_d, denorm_d}, {0.5, 0.5}), denorm_d));
  // 64 products of 2^-1080, each below the subnormals, make exactly the smallest subnormal; a
  // product of 2^-2148 (the smallest subnormal squared) is a sticky bit far below it.
  std::vector<double> x(64, 0x1p-1040), y(64, 0x1p-40);
  EXPECT_TRUE(same(dot_d(x, y), denorm_d));
  x.push_back(denorm_d), y.push_back(denorm_d);
  EXPECT_TRUE(same(dot_d(x, y), denorm_d));
}

TEST(ExactDot, TiesRoundToEvenWithExactProducts) {
  // 1 + 2^-53 is a tie (to 1); the product 2^-27 * 2^-26 supplies the half ulp exactly, and a
  // product far below it breaks the tie upward.
  EXPECT_TRUE(same(dot_d({1.0, 0x1p-27}, {1.0, 0x1p-26}), 1.0));
  EXPECT_TRUE(same(dot_d({1.0, 0x1p-27, 0x1p-600}, {1.0, 0x1p-26, 0x1p-600}), 1.0 + 0x1p-52));
  EXPECT_TRUE(same(dot_d({1.0, 0x1p-27, 0x1p-600}, {1.0, 0x1p-26, -0x1p-600}), 1.0));
  EXPECT_TRUE(same(dot_f({1.0f, 0x1p-12f}, {1.0f, 0x1p-12f}), 1.0f));
}

TEST(ExactDot, SpecialValuesAndSignedZeros) {
  EXPECT_TRUE(std::isnan(dot_d({1.0, nan_d}, {1.0, 1.0})));
  EXPECT_TRUE(std::isnan(dot_d({inf, 1.0}, {0.0, 1.0})));
  EXPECT_TRUE(std::isnan(dot_d({inf, inf}, {1.0, -1.0})));
  EXPECT_TRUE(same(dot_d({inf, 1.0}, {-2.0, 1.0}), -inf));
  EXPECT_TRUE(same(dot_d({}, {}), 0.0));
  EXPECT_TRUE(same(dot_d({-0.0, 0.0}, {1.0, -1.0}), -0.0));  // -0 + -0
  EXPECT_TRUE(same(dot_d({-0.0, -0.0}, {1.0, -1.0}), 0.0));  // -0 + +0
  EXPECT_TRUE(same(dot_d({1.0, -1.0}, {1.0, 1.0}), 0.0));
  EXPECT_THROW(dot_d({1.0}, {}), std::invalid_argument);
}

TEST(ExactDot, AgreesWithExactSumsOfExactProducts) {
  // Float products are exact doubles: the dot is the exact sum of those doubles, rounded to float.
  std::mt19937_64 g(7);
  std::uniform_real_distribution<float> u(-1e3f, 1e3f);
  std::vector<float> x(5000), y(5000);
  cured::cpu::exact_accumulator acc;
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = u(g), y[i] = u(g) * 1e-3f;
    acc.add(double(x[i]) * double(y[i]));
  }
  EXPECT_TRUE(same(cured::cpu::exact_dot(std::span<const float>(x), std::span<const float>(y)), acc.round_to_float()));
}

}  // namespace
