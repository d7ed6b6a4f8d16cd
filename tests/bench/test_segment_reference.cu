// cured-bench's segment reference (bench/segment_reference.cuh): cut into chunks over the
// host's cores, it answers every segment as a serial pass over each segment in one piece does,
// for every distribution, segments the chunks cut (one of more than half the values), empty
// segments, ties and NaNs. Host code only: it runs without a GPU.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bench/answer.cuh"
#include "bench/segment_offsets.hpp"
#include "bench/segment_reference.cuh"
#include "harness/inputs.cuh"

namespace cb = cured::bench;

namespace {

using kind = cb::segment_distribution::kind;

template <class T>
std::vector<T> exact_input(std::int64_t n, std::uint64_t seed) {
  std::vector<T> h(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) h[std::size_t(i)] = cured::harness::exact_value<T>(seed, std::uint64_t(i));
  return h;
}

/// Segment s answered in one piece, from the definition: the integer sum, and the index within
/// the segment of the first extreme value (of the first NaN), -1 when empty.
template <class T, bool Max>
cured::cpu::arg_result<T> one_piece_extreme(const std::vector<T>& h, std::int64_t b, std::int64_t e) {
  cured::cpu::arg_result<T> best{-1, Max ? cured::maximum::identity<T>() : cured::minimum::identity<T>()};
  for (std::int64_t i = b; i < e; ++i) {
    const T x = h[std::size_t(i)];
    if (best.index >= 0 && cured::detail::is_nan(best.value)) break;
    if (best.index < 0 || cured::detail::is_nan(x) ||
        (Max ? cured::detail::less(best.value, x) : cured::detail::less(x, best.value)))
      best = {i - b, x};
  }
  return best;
}

template <class T>
void expect_same_as_one_piece(const std::vector<T>& h, const std::vector<std::int64_t>& off, const std::string& what,
                              bool sums = true) {
  cb::segment_reference<T> ref(h.data(), off);
  const std::size_t count = off.size() - 1;
  ASSERT_EQ(ref.count(), std::int64_t(count));
  if (sums) {
    const auto& got = ref.sums();
    ASSERT_EQ(got.size(), count) << what;
    std::size_t wrong = 0;
    for (std::size_t s = 0; s < count; ++s) {
      __int128 want = 0;
      for (std::int64_t i = off[s]; i < off[s + 1]; ++i) want += cured::harness::as_int128(h[std::size_t(i)]);
      wrong += got[s] != cured::accumulator_t<T>(std::int64_t(want));
    }
    EXPECT_EQ(wrong, 0u) << what << ": sums";
  }
  const auto& lo = ref.template extremes<false>();
  const auto& hi = ref.template extremes<true>();
  ASSERT_EQ(lo.size(), count) << what;
  ASSERT_EQ(hi.size(), count) << what;
  std::size_t wrong = 0, first_wrong = count;
  for (std::size_t s = 0; s < count; ++s) {
    const auto want_lo = one_piece_extreme<T, false>(h, off[s], off[s + 1]);
    const auto want_hi = one_piece_extreme<T, true>(h, off[s], off[s + 1]);
    const bool ok = lo[s].index == want_lo.index && cb::same_bits(lo[s].value, want_lo.value) &&
                    hi[s].index == want_hi.index && cb::same_bits(hi[s].value, want_hi.value);
    if (!ok && wrong++ == 0) first_wrong = s;
  }
  EXPECT_EQ(wrong, 0u) << what << ": extremes, first at segment " << first_wrong;
}

// Above 2^20 values, so that parallel_chunks cuts them on a machine of two cores or more.
constexpr std::int64_t large = (std::int64_t(1) << 21) + 37;

const cb::segment_distribution every[] = {{kind::uniform, 1}, {kind::uniform, 3}, {kind::uniform, 1 << 20},
                                          {kind::powerlaw},   {kind::onebig},     {kind::empty_mixed}};

}  // namespace

TEST(SegmentReference, EveryDistributionMatchesOnePiece) {
  const auto f = exact_input<float>(large, 11);
  const auto i = exact_input<std::int32_t>(large, 12);
  const auto h = exact_input<__half>(large, 13);
  for (const auto& d : every) {
    const auto off = cb::segment_offsets(d, large, 5);
    const std::string what = cb::distribution_text(d);
    expect_same_as_one_piece(f, off, "float " + what);
    expect_same_as_one_piece(i, off, "int32 " + what);
    expect_same_as_one_piece(h, off, "half " + what);
  }
}

TEST(SegmentReference, SmallInputsAndEmptySegments) {
  const auto f = exact_input<double>(1000, 3);
  expect_same_as_one_piece(f, {0, 0, 0}, "two empty segments over none");
  expect_same_as_one_piece(f, {0, 0, 5, 5, 1000, 1000}, "empty ones around");
  expect_same_as_one_piece(f, {0, 1000}, "one segment");
  const std::vector<std::int64_t> off = {0, 0, 3};
  cb::segment_reference<double> ref(f.data(), off);
  EXPECT_EQ(ref.sums()[0], 0.0);
  EXPECT_EQ(ref.extremes<true>()[0].index, -1);
  EXPECT_EQ(ref.extremes<true>()[0].value, -std::numeric_limits<double>::infinity());  // maximum's identity
  EXPECT_EQ(ref.extremes<false>()[0].value, std::numeric_limits<double>::infinity());
}

TEST(SegmentReference, TiesAndNaNsAcrossTheCut) {
  // One segment over everything and one over most of it, with ties and NaNs on either side of
  // the middle (where two chunks meet): the first extreme and the first NaN win.
  std::vector<float> h(static_cast<std::size_t>(large), 1.0f);
  const std::size_t mid = std::size_t(large / 2);
  h[mid - 5] = h[mid + 5] = 9.0f;   // a tie for max across the cut
  h[mid - 7] = h[mid + 7] = -9.0f;  // and for min
  const std::vector<std::int64_t> off = {0, 10, large - 10, large};
  expect_same_as_one_piece(h, off, "ties");
  cb::segment_reference<float> tied(h.data(), off);
  EXPECT_EQ(tied.extremes<true>()[1].index, std::int64_t(mid - 5) - 10);
  EXPECT_EQ(tied.extremes<false>()[1].index, std::int64_t(mid - 7) - 10);
  h[mid + 3] = std::numeric_limits<float>::quiet_NaN();
  h[mid + 9] = std::numeric_limits<float>::quiet_NaN();
  expect_same_as_one_piece(h, off, "NaN after the cut", false);
  cb::segment_reference<float> nan_after(h.data(), off);
  EXPECT_EQ(nan_after.extremes<true>()[1].index, std::int64_t(mid + 3) - 10);
  h[mid - 3] = std::numeric_limits<float>::quiet_NaN();
  expect_same_as_one_piece(h, off, "NaN on both sides", false);
  cb::segment_reference<float> nan_both(h.data(), off);
  EXPECT_EQ(nan_both.extremes<false>()[1].index, std::int64_t(mid - 3) - 10);
}
