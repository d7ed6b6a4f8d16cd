// The exact sums' fixed-point arithmetic, on the CPU (no GPU needed): decomposition, digit
// addition and the one rounding at the end, against the exact CPU reference; and the bins'
// arithmetic that the float kernel relies on (2^13 additions to a double bin never round).

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "cpu/reference.hpp"
#include "cured/device/exact_sum.cuh"

namespace ex = cured::exact;

namespace {

template <class T>
::testing::AssertionResult same_bits(T got, T want) {
  if (std::memcmp(&got, &want, sizeof(T)) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << std::hexfloat << got << " want " << want;
}

struct limbs_adder {
  std::int64_t* limbs;
  __host__ __device__ void operator()(int j, std::uint64_t digit) const { limbs[j] += std::int64_t(digit); }
};

unsigned zero_flag(std::span<const double> v) {
  for (double x : v)
    if (!(x == 0 && std::signbit(x))) return ex::flag_not_neg_zero;
  return 0;
}

/// The double path's arithmetic: every value decomposed and added at its position.
double fixed_sum(std::span<const double> v) {
  std::int64_t limbs[ex::max_limbs] = {};
  for (double x : v) {
    std::int64_t m;
    int p;
    ex::decompose(x, m, p);
    if (m) ex::add_scaled(m, p, limbs_adder{limbs});
  }
  return ex::round_fixed<double>(limbs, ex::layout<double>::limbs, ex::layout<double>::base, zero_flag(v), v.empty());
}

/// The float path's arithmetic: per-"thread" double bins (16 exponents each), flushed every
/// `flush` elements into integers at 16 g bits above 2^-150.
float bins_sum(std::span<const float> v, int threads, std::int64_t flush) {
  std::int64_t limbs[ex::max_limbs] = {};
  unsigned flags = 0;
  std::vector<double> bins(16 * threads, -0.0);
  auto drain = [&] {
    for (int t = 0; t < threads; ++t)
      for (int g = 0; g < 16; ++g) {
        double& b = bins[16 * t + g];
        if (std::bit_cast<std::uint64_t>(b) != 0x8000000000000000ull) flags |= ex::flag_not_neg_zero;
        const double scaled = std::ldexp(b, 150 - 16 * g);
        EXPECT_EQ(scaled, std::nearbyint(scaled)) << "bin " << g << " holds a fraction of its unit";
        EXPECT_LT(std::fabs(scaled), 0x1p53) << "bin " << g << " lost exactness";
        const auto n = std::int64_t(scaled);
        if (n) ex::add_scaled(n, 16 * g, limbs_adder{limbs});
        b = -0.0;
      }
  };
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i && i % (flush * threads) == 0) drain();
    const int g = int((std::bit_cast<std::uint32_t>(v[i]) >> 27) & 15u);
    double& b = bins[16 * (i % threads) + g];
    b += double(v[i]);
  }
  drain();
  return ex::round_fixed<float>(limbs, ex::layout<float>::limbs, ex::layout<float>::base, flags, v.empty());
}

/// Random doubles: the whole exponent range, a narrow one, subnormals, near overflow, and
/// cancelling pairs.
std::vector<double> random_doubles(std::mt19937_64& g, int kind, int n) {
  std::vector<double> v(n);
  for (auto& x : v) {
    const double frac = std::ldexp(double(g() >> 11), -53);
    int e = 0;
    switch (kind) {
      case 0: e = int(g() % 2098) - 1074; break;
      case 1: e = int(g() % 60) - 30; break;
      case 3: e = 1023 - int(g() % 8); break;
      default: e = int(g() % 200) - 100; break;
    }
    x = kind == 2 ? std::ldexp(double(g() % 4096), -1074) : std::ldexp(1 + frac, e);
    if (g() & 1) x = -x;
    if (kind == 4 && g() % 3 == 0) x = -v[g() % v.size()];
  }
  return v;
}

TEST(ExactFixed, DoublesMatchTheReference) {
  std::mt19937_64 g(7);
  for (int trial = 0; trial < 5000; ++trial) {
    const auto v = random_doubles(g, trial % 5, 1 + int(g() % 64));
    const double want = cured::cpu::exact_sum(std::span<const double>(v));
    ASSERT_TRUE(same_bits(fixed_sum(v), want)) << "trial " << trial;
  }
}

TEST(ExactFixed, DoubleEdges) {
  const double max = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<std::vector<double>> cases = {
      {max, max, -max},                   // comes back from beyond the largest finite value
      {max, max},                         // overflows: +inf
      {-max, -max * 0.5},                 // -inf
      {max, std::ldexp(1.0, 970)},        // exactly halfway to 2^1024: ties to even, overflows
      {max, std::ldexp(1.0, 969)},        // below halfway: stays max
      {1.0, 0x1p-53},                     // tie: stays 1
      {1.0, 0x1p-53, tiny},               // a sticky bit far below breaks the tie upward
      {1.0 + 0x1p-52, 0x1p-53},           // tie to even: up
      {1e30, 1.0, -1e30},                 // massive cancellation
      {tiny, tiny, -tiny},                // subnormal result
      {-0.0, -0.0},                       // -0
      {-0.0, 0.0},                        // +0
      {1.0, -1.0},                        // +0
      {},                                 // empty: +0
  };
  for (const auto& v : cases)
    EXPECT_TRUE(same_bits(fixed_sum(v), cured::cpu::exact_sum(std::span<const double>(v)))) << v.size();
}

TEST(ExactFixed, SpecialFlags) {
  const std::int64_t zero[ex::max_limbs] = {};
  const auto r = [&](unsigned flags) { return ex::round_fixed<float>(zero, 12, -150, flags, false); };
  EXPECT_TRUE(std::isnan(r(ex::flag_nan)));
  EXPECT_TRUE(std::isnan(r(ex::flag_pos_inf | ex::flag_neg_inf)));
  EXPECT_TRUE(same_bits(r(ex::flag_pos_inf), std::numeric_limits<float>::infinity()));
  EXPECT_TRUE(same_bits(r(ex::flag_neg_inf), -std::numeric_limits<float>::infinity()));
  EXPECT_TRUE(same_bits(r(0), -0.0f));
  EXPECT_TRUE(same_bits(r(ex::flag_not_neg_zero), 0.0f));
  EXPECT_TRUE(same_bits(ex::round_fixed<float>(zero, 12, -150, 0, true), 0.0f));
}

TEST(ExactFixed, FloatBinsMatchTheReference) {
  std::mt19937_64 g(11);
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 1 + int(g() % 3000);
    std::vector<float> v(n);
    for (auto& x : v) {
      const int e = trial % 2 ? int(g() % 277) - 149 : int(g() % 40) - 20;
      x = float(std::ldexp(1.0 + std::ldexp(double(g() >> 40), -24), e));
      if (trial % 3 == 0) x = float(std::ldexp(double(g() % 256), -149));  // subnormals
      if (!std::isfinite(x)) x = 1.0f;
      if (g() & 1) x = -x;
    }
    const float want = cured::cpu::exact_sum(std::span<const float>(v));
    ASSERT_TRUE(same_bits(bins_sum(v, 1 + int(g() % 8), 1 + std::int64_t(g() % 64)), want)) << "trial " << trial;
  }
}

TEST(ExactFixed, AFullBinOfTheLargestValuesStaysExact) {
  // 8194 elements (a flush interval plus a head and a tail element) at the top of one bin,
  // in one thread, with a small value that must survive beside them.
  for (int g = 0; g < 16; ++g) {
    const int top_biased = 16 * g + 15 < 255 ? 16 * g + 15 : 254;
    const float big = std::bit_cast<float>((std::uint32_t(top_biased) << 23) | 0x7fffffu);
    const float small = std::bit_cast<float>((std::uint32_t(16 * g) << 23) | 1u);
    std::vector<float> v(cured::device::flush_every + 2, big);
    v.back() = small;
    EXPECT_TRUE(
        same_bits(bins_sum(v, 1, cured::device::flush_every + 2), cured::cpu::exact_sum(std::span<const float>(v))))
        << "bin " << g;
  }
}

}  // namespace
