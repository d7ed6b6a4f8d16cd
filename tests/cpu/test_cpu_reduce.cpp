// serial_sum is a plain in-order loop; parallel_sum matches it on integers for every thread
// count and follows its documented chunking (so it is deterministic) on floating point.

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "cpu/cpu_reduce.hpp"

namespace {

using cured::cpu::parallel_sum;
using cured::cpu::serial_sum;

constexpr unsigned thread_counts[] = {0, 1, 2, 3, 7, 64};
constexpr std::size_t sizes[] = {0, 1, 2, 5, 1000, cured::cpu::parallel_min_elements - 1,
                                 cured::cpu::parallel_min_elements, 100'003, 300'000};

TEST(SerialSum, AccumulatesInOrderInTheReturnType) {
  // In order, in float: 1e8 + 1 rounds back to 1e8 (ulp 8), so the 1 is lost.
  std::vector<float> f = {1e8f, 1.0f, -1e8f};
  EXPECT_EQ(serial_sum(std::span<const float>(f)), 0.0f);
  f = {1e8f, -1e8f, 1.0f};
  EXPECT_EQ(serial_sum(std::span<const float>(f)), 1.0f);
  std::vector<double> d = {1.0, 0x1p-53, 0x1p-53};
  EXPECT_EQ(serial_sum(std::span<const double>(d)), 1.0);
  d = {0x1p-53, 0x1p-53, 1.0};
  EXPECT_EQ(serial_sum(std::span<const double>(d)), 1.0 + 0x1p-52);
  // int32 accumulates in int64, uint32 in uint64: no wrap-around.
  std::vector<std::int32_t> i(3, std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(serial_sum(std::span<const std::int32_t>(i)), 3 * std::int64_t{std::numeric_limits<std::int32_t>::max()});
  i.assign(3, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(serial_sum(std::span<const std::int32_t>(i)), 3 * std::int64_t{std::numeric_limits<std::int32_t>::min()});
  std::vector<std::uint32_t> u(3, std::numeric_limits<std::uint32_t>::max());
  EXPECT_EQ(serial_sum(std::span<const std::uint32_t>(u)), 3 * std::uint64_t{std::numeric_limits<std::uint32_t>::max()});
}

TEST(SerialSum, Empty) {
  EXPECT_EQ(serial_sum(std::span<const float>()), 0.0f);
  EXPECT_EQ(serial_sum(std::span<const double>()), 0.0);
  EXPECT_EQ(serial_sum(std::span<const std::int32_t>()), 0);
  EXPECT_EQ(serial_sum(std::span<const std::uint32_t>()), 0u);
}

TEST(ParallelSum, Empty) {
  for (unsigned t : thread_counts) {
    EXPECT_EQ(parallel_sum(std::span<const float>(), t), 0.0f);
    EXPECT_EQ(parallel_sum(std::span<const double>(), t), 0.0);
    EXPECT_EQ(parallel_sum(std::span<const std::int32_t>(), t), 0);
    EXPECT_EQ(parallel_sum(std::span<const std::uint32_t>(), t), 0u);
  }
}

TEST(ParallelSum, MatchesSerialOnIntegersForEveryThreadCount) {
  std::mt19937_64 rng(42);
  for (std::size_t n : sizes) {
    std::vector<std::int32_t> v(n);
    std::vector<std::uint32_t> u(n);
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(rng()));
      u[i] = static_cast<std::uint32_t>(rng());
    }
    const auto want_v = serial_sum(std::span<const std::int32_t>(v));
    const auto want_u = serial_sum(std::span<const std::uint32_t>(u));
    for (unsigned t : thread_counts) {
      EXPECT_EQ(parallel_sum(std::span<const std::int32_t>(v), t), want_v) << "n " << n << " threads " << t;
      EXPECT_EQ(parallel_sum(std::span<const std::uint32_t>(u), t), want_u) << "n " << n << " threads " << t;
    }
  }
}

TEST(ParallelSum, NoWrapAroundInTheWideAccumulator) {
  std::vector<std::uint32_t> u(200'000, std::numeric_limits<std::uint32_t>::max());
  std::vector<std::int32_t> v(200'000, std::numeric_limits<std::int32_t>::min());
  for (unsigned t : thread_counts) {
    EXPECT_EQ(parallel_sum(std::span<const std::uint32_t>(u), t), 200'000 * std::uint64_t{std::numeric_limits<std::uint32_t>::max()});
    EXPECT_EQ(parallel_sum(std::span<const std::int32_t>(v), t), 200'000 * std::int64_t{std::numeric_limits<std::int32_t>::min()});
  }
}

/// The documented chunking, redone by hand: chunk k starts at k * (n / T) + min(k, n % T).
template <class T>
T chunked_sum(std::span<const T> x, unsigned threads) {
  const std::size_t n = x.size();
  if (n < cured::cpu::parallel_min_elements || threads <= 1) return serial_sum(x);
  const std::size_t parts = std::min<std::size_t>(threads, n);
  const auto start = [&](std::size_t k) { return k * (n / parts) + std::min(k, n % parts); };
  T s = 0;
  for (std::size_t k = 0; k < parts; ++k) s += serial_sum(x.subspan(start(k), start(k + 1) - start(k)));
  return s;
}

template <class T>
class ParallelFloat : public ::testing::Test {};
using float_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ParallelFloat, float_types);

TYPED_TEST(ParallelFloat, FollowsTheDocumentedChunkingAndIsDeterministic) {
  using T = TypeParam;
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (std::size_t n : sizes) {
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(dist(rng) * (1 + rng() % 1000));
    const std::span<const T> s(v);
    for (unsigned t : {1u, 2u, 3u, 7u, 64u}) {
      const T got = parallel_sum(s, t);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(static_cast<double>(got)),
                std::bit_cast<std::uint64_t>(static_cast<double>(chunked_sum(s, t))))
          << "n " << n << " threads " << t;
      for (int again = 0; again < 3; ++again) {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(static_cast<double>(parallel_sum(s, t))),
                  std::bit_cast<std::uint64_t>(static_cast<double>(got)))
            << "n " << n << " threads " << t;
      }
    }
    EXPECT_EQ(parallel_sum(s, 1), serial_sum(s));
  }
}

TEST(ParallelSum, MoreThreadsThanUsefulStillExact) {
  // Small inputs with many threads requested: exact integer sums either way.
  for (std::size_t n : {1u, 2u, 3u, 63u, 64u, 65u}) {
    std::vector<std::int32_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int32_t>(i) - 30;
    std::int64_t want = 0;
    for (auto x : v) want += x;
    for (unsigned t : thread_counts) {
      EXPECT_EQ(parallel_sum(std::span<const std::int32_t>(v), t), want) << "n " << n << " threads " << t;
    }
  }
}

}  // namespace
