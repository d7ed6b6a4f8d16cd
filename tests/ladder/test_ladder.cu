// Every ladder step x type x block size x size, on fresh random inputs, against exact sums.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cpu/reference.hpp"
#include "ladder/ladder.cuh"
#include "tests/support/gpu.cuh"
#include "harness/exact_answers.cuh"
#include "harness/inputs.cuh"

namespace {

using cured::accumulator_t;
using cured::test::device_buffer;

constexpr unsigned test_blocks[] = {32, 128, 256, 512, 1024};

/// The issue's size list; block-dependent sizes (2*block +- 1, the step-9 tile +- 1) are added per block.
std::vector<std::int64_t> common_sizes() {
  return {0, 1, 2, 31, 32, 33, 127, 128, 129, 1023, 1024, 1025, 1000 * 1000, 16777213 /* prime, 2^24 - 3 */,
          4000 * 4000, 11000LL * 11000};
}

std::vector<std::int64_t> block_sizes_for(unsigned block) {
  const std::int64_t b = block;
  return {2 * b - 1, 2 * b + 1, 16 * b - 1, 16 * b + 1};
}

template <class T>
std::string show(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", double(v));
    return buf;
  } else {
    return std::to_string(v);
  }
}

/// Runs one step and returns its result, with the output poisoned first so an unwritten
/// result cannot pass.
template <class T>
accumulator_t<T> run_once(const cured::ladder::step& step, const T* d_in, std::int64_t n, unsigned block,
                          cured::ladder::workspace& ws, accumulator_t<T>* d_out) {
  using acc = accumulator_t<T>;
  CURED_CHECK(cudaMemset(d_out, 0xA5, sizeof(acc)));
  step.run<T>()(d_in, n, d_out, block, ws, nullptr);
  acc got;
  CURED_CHECK(cudaMemcpy(&got, d_out, sizeof(acc), cudaMemcpyDeviceToHost));
  return got;
}

template <class T>
class LadderTest : public ::testing::Test {};
using ladder_types = ::testing::Types<float, double, std::int32_t, std::uint32_t>;
TYPED_TEST_SUITE(LadderTest, ladder_types);

// Exact family: float/double inputs are small integers, so every order of summation gives the
// exact sum and any indexing error (a skipped, repeated or out-of-range element) shows.
TYPED_TEST(LadderTest, EveryStepBlockAndSizeMatchesTheExactSum) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using acc = accumulator_t<T>;
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::ladder::workspace ws;
  device_buffer<acc> out(1);
  int failures = 0;

  auto check_size = [&](std::int64_t n, const std::vector<unsigned>& blocks) {
    if (n > cured::test::max_test_n()) return;
    device_buffer<T> in{std::size_t(n)};
    cured::harness::fill_device(in.data(), n, seed);
    const __int128 exact = cured::harness::exact_family_sum<T>(n, seed);
    const acc want = acc(exact);
    for (const auto& step : cured::ladder::steps()) {
      for (unsigned block : blocks) {
        const acc got = run_once<T>(step, in.data(), n, block, ws, out.data());
        if (std::memcmp(&got, &want, sizeof(acc)) != 0 && ++failures <= 20)
          ADD_FAILURE() << "step " << step.number << " block " << block << " n " << n << ": got " << show(got)
                        << ", want " << show(want);
      }
    }
  };
  std::vector<unsigned> all_blocks(std::begin(test_blocks), std::end(test_blocks));
  for (std::int64_t n : common_sizes()) check_size(n, all_blocks);
  for (unsigned block : test_blocks)
    for (std::int64_t n : block_sizes_for(block)) check_size(n, {block});
}

// Any alignment of the input: the vector steps read a scalar head and tail around the body.
TYPED_TEST(LadderTest, MisalignedInputs) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using acc = accumulator_t<T>;
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  constexpr std::int64_t max_n = (1 << 20) + 7;
  device_buffer<T> in(max_n + 4);
  cured::harness::fill_device(in.data(), max_n + 4, seed);
  std::vector<T> host(max_n + 4);
  CURED_CHECK(cudaMemcpy(host.data(), in.data(), host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  cured::ladder::workspace ws;
  device_buffer<acc> out(1);
  for (int offset = 1; offset < int(16 / sizeof(T)); ++offset) {
    for (std::int64_t n : {std::int64_t(1), std::int64_t(3), std::int64_t(5), std::int64_t(1000), max_n}) {
      if (n > cured::test::max_test_n()) continue;
      __int128 exact = 0;
      for (std::int64_t i = 0; i < n; ++i) exact += __int128(host[offset + i]);
      for (const auto& step : cured::ladder::steps()) {
        for (unsigned block : {32u, 256u}) {
          const acc got = run_once<T>(step, in.data() + offset, n, block, ws, out.data());
          EXPECT_EQ(show(got), show(acc(exact)))
              << "step " << step.number << " block " << block << " n " << n << " offset " << offset;
        }
      }
    }
  }
}

// Real-valued inputs: within the rounding bound of the correctly rounded sum, and the same bits
// on every run. Bound: a sum in which no element passes through more than L roundings is
// within L * u * sum|x| of the exact sum (first order), u the unit roundoff. Every step's
// longest chain is its tree depth, at most 2 * ceil(log2 n) + 4, plus the serial per-thread
// loop of the grid-stride steps, at most ceil(n / (threads of one full wave)).
template <class T>
class LadderRealTest : public ::testing::Test {};
using real_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LadderRealTest, real_types);

TYPED_TEST(LadderRealTest, WithinTheRoundingBoundAndReproducible) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  int sms = 0;
  CURED_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cured::ladder::workspace ws;
  device_buffer<T> out(1);
  for (std::int64_t n : {std::int64_t(1), std::int64_t(33), std::int64_t(1025), std::int64_t(100003),
                         std::int64_t(1000 * 1000), std::int64_t(4000 * 4000)}) {
    if (n > cured::test::max_test_n()) continue;
    device_buffer<T> in(n);
    cured::harness::fill_device<T, true>(in.data(), n, seed);
    std::vector<T> host(n);
    CURED_CHECK(cudaMemcpy(host.data(), in.data(), n * sizeof(T), cudaMemcpyDeviceToHost));
    const T want = cured::cpu::exact_sum(std::span<const T>(host));
    const double sum_abs = cured::cpu::sum_abs(std::span<const T>(host));
    const double u = std::numeric_limits<T>::epsilon() / 2;
    const double chain = 2 * std::ceil(std::log2(double(n) + 1)) + 4 + std::ceil(double(n) / (sms * 2048.0));
    const double bound = chain * u * sum_abs;
    for (const auto& step : cured::ladder::steps()) {
      for (unsigned block : test_blocks) {
        const T got = run_once<T>(step, in.data(), n, block, ws, out.data());
        EXPECT_LE(std::abs(double(got) - double(want)), bound)
            << "step " << step.number << " block " << block << " n " << n << ": got " << show(got) << " want "
            << show(want);
        const T again = run_once<T>(step, in.data(), n, block, ws, out.data());
        EXPECT_EQ(std::memcmp(&got, &again, sizeof(T)), 0)
            << "step " << step.number << " block " << block << " n " << n << " not reproducible";
      }
    }
  }
}

// More than 2^32 elements: 64-bit indices everywhere (the seeds' int indices overflow).
TYPED_TEST(LadderTest, LargeMoreThan2To32Elements) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using acc = accumulator_t<T>;
  const std::int64_t n = (std::int64_t(1) << 32) + 3;
  const std::size_t need = std::size_t(n) * sizeof(T) + (std::size_t(1) << 30);
  if (n > cured::test::max_test_n()) GTEST_SKIP() << "above CURED_TEST_MAX_N";
  if (cured::test::free_device_bytes() < need)
    GTEST_SKIP() << "needs " << (need >> 20) << " MiB of free device memory";
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  device_buffer<T> in{std::size_t(n)};
  cured::harness::fill_device(in.data(), n, seed);
  const acc want = acc(cured::harness::exact_family_sum<T>(n, seed));
  cured::ladder::workspace ws;
  device_buffer<acc> out(1);
  for (const auto& step : cured::ladder::steps()) {
    const acc got = run_once<T>(step, in.data(), n, 256, ws, out.data());
    EXPECT_EQ(show(got), show(want)) << "step " << step.number;
  }
}

TEST(LadderRegistry, StepsAreNumberedInOrderAndDescribed) {
  const auto steps = cured::ladder::steps();
  ASSERT_EQ(steps.size(), 10u);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    EXPECT_EQ(steps[k].number, int(k + 1));
    EXPECT_FALSE(steps[k].title.empty());
    EXPECT_FALSE(steps[k].change.empty());
    EXPECT_EQ(steps[k].file.substr(0, 4), "step");
    EXPECT_NE(steps[k].run_float, nullptr);
    EXPECT_NE(steps[k].run_uint32, nullptr);
  }
}

TEST(LadderErrors, BadArgumentsThrowCuredError) {
  CURED_REQUIRE_GPU();
  cured::ladder::workspace ws;
  device_buffer<float> in(64), out(1);
  const auto& step = cured::ladder::steps()[0];
  EXPECT_THROW(step.run<float>()(in.data(), 64, out.data(), 100, ws, nullptr), cured::error);
  EXPECT_THROW(step.run<float>()(in.data(), 64, out.data(), 2048, ws, nullptr), cured::error);
  EXPECT_THROW(step.run<float>()(nullptr, 64, out.data(), 256, ws, nullptr), cured::error);
  EXPECT_THROW(step.run<float>()(in.data(), 64, nullptr, 256, ws, nullptr), cured::error);
  EXPECT_THROW(step.run<float>()(in.data(), -1, out.data(), 256, ws, nullptr), cured::error);
}

TEST(LadderErrors, BadBlockSizeIsRejectedWithoutADevice) {
  // Argument checks come before any CUDA call, so they work (and are tested) without a GPU.
  cured::ladder::workspace ws;
  float* fake = reinterpret_cast<float*>(std::uintptr_t(256));
  for (const auto& step : cured::ladder::steps()) {
    EXPECT_THROW(step.run<float>()(fake, 64, fake, 48, ws, nullptr), cured::error) << step.number;
    EXPECT_THROW(step.run<float>()(nullptr, 64, fake, 256, ws, nullptr), cured::error) << step.number;
  }
}

}  // namespace
