// The input families' promises (harness/data_family.hpp), checked on the host's copy of the
// generators: the ranges of cancel and subnormal, and boundary's exact sum on a rounding tie.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cpu/reference.hpp"
#include "harness/inputs.cuh"

namespace {

using cured::harness::data_family;
using cured::harness::family_value;

template <class T>
double as_double(T x) {
  return double(float(x));
}
double as_double(double x) { return x; }

template <class T>
class FamiliesTest : public ::testing::Test {};
using floating = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(FamiliesTest, floating);

TYPED_TEST(FamiliesTest, CancelIsUniformInMinusOneToOne) {
  using T = TypeParam;
  int negative = 0;
  for (std::uint64_t i = 0; i < 4096; ++i) {
    const double x = as_double(family_value<T>(data_family::cancel, 7, i));
    ASSERT_TRUE(x >= -1.0 && x <= 1.0) << x;  // rounding to a short type may reach 1
    negative += x < 0;
  }
  EXPECT_GT(negative, 1800);
  EXPECT_LT(negative, 2300);
}

TYPED_TEST(FamiliesTest, SubnormalIsBelowTheSmallestNormal) {
  using T = TypeParam;
  const double smallest_normal = std::is_same_v<T, double>   ? 0x1p-1022
                                 : std::is_same_v<T, __half> ? 0x1p-14
                                                             : 0x1p-126;
  int nonzero = 0;
  for (std::uint64_t i = 0; i < 4096; ++i) {
    const double x = as_double(family_value<T>(data_family::subnormal, 7, i));
    ASSERT_LT(std::fabs(x), smallest_normal) << x;
    nonzero += x != 0;
  }
  EXPECT_GT(nonzero, 4000);
}

// For even n, 1 + half an ulp of 1 in the result type, exactly: a tie, which rounds to 1
// (even); for odd n the last pair is incomplete and the tie is gone.
TYPED_TEST(FamiliesTest, BoundarySumsToATieForEvenN) {
  using T = TypeParam;
  constexpr bool is_double = std::is_same_v<T, double>;
  for (std::uint64_t n : {2ull, 4ull, 1000ull, 65536ull}) {
    cured::cpu::exact_accumulator acc, without_half_ulp;
    for (std::uint64_t i = 0; i < n; ++i) {
      const double x = as_double(family_value<T>(data_family::boundary, 11, i));
      acc.add(x);
      if (i != 1) without_half_ulp.add(x);
    }
    EXPECT_EQ(without_half_ulp.round_to_double(), 1.0) << "n " << n;  // the pairs cancel exactly
    if (is_double) EXPECT_EQ(acc.round_to_double(), 1.0) << "n " << n;
    else EXPECT_EQ(acc.round_to_float(), 1.0f) << "n " << n;
    // One more half ulp rounds up: the sum sat exactly on the tie.
    acc.add(is_double ? 0x1p-60 : 0x1p-40);
    if (is_double) EXPECT_EQ(acc.round_to_double(), 1.0 + 0x1p-52) << "n " << n;
    else EXPECT_EQ(acc.round_to_float(), 1.0f + 0x1p-23f) << "n " << n;
  }
}

}  // namespace
