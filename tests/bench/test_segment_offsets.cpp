// The segment lengths of cured-bench's segmented workloads (bench/segment_offsets.hpp): every
// distribution covers exactly n values, and each has the lengths it promises, the same for the
// same seed.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench/segment_offsets.hpp"

namespace cb = cured::bench;

namespace {

using kind = cb::segment_distribution::kind;
using offsets = std::vector<std::int64_t>;

constexpr std::int64_t two_to(int e) { return std::int64_t(1) << e; }

const cb::segment_distribution every[] = {{kind::uniform, 1}, {kind::uniform, 4},   {kind::uniform, 1000},
                                          {kind::powerlaw},   {kind::onebig},       {kind::empty_mixed}};

std::vector<std::int64_t> lengths_of(const offsets& off) {
  std::vector<std::int64_t> lengths;
  for (std::size_t s = 0; s + 1 < off.size(); ++s) lengths.push_back(off[s + 1] - off[s]);
  return lengths;
}

/// offsets[0] = 0, offsets.back() = n, never decreasing.
void expect_cover(const offsets& off, std::int64_t n, const cb::segment_distribution& d) {
  ASSERT_FALSE(off.empty());
  EXPECT_EQ(off.front(), 0) << cb::distribution_text(d) << " n=" << n;
  EXPECT_EQ(off.back(), n) << cb::distribution_text(d) << " n=" << n;
  EXPECT_TRUE(std::is_sorted(off.begin(), off.end())) << cb::distribution_text(d) << " n=" << n;
}

}  // namespace

TEST(SegmentOffsets, EveryDistributionCoversExactlyN) {
  for (const auto& d : every)
    for (const std::int64_t n : {std::int64_t(1), std::int64_t(2), std::int64_t(3), std::int64_t(7), std::int64_t(31),
                                 std::int64_t(1000), std::int64_t(4097), two_to(20) + 3, two_to(21)})
      expect_cover(cb::segment_offsets(d, n, 12345), n, d);
  for (const auto& d : every) EXPECT_EQ(cb::segment_offsets(d, 0, 1), (offsets{0}));
}

TEST(SegmentOffsets, UniformAndItsRemainder) {
  EXPECT_EQ(cb::segment_offsets({kind::uniform, 4}, 10, 0), (offsets{0, 4, 8, 10}));
  EXPECT_EQ(cb::segment_offsets({kind::uniform, 4}, 12, 0), (offsets{0, 4, 8, 12}));
  EXPECT_EQ(cb::segment_offsets({kind::uniform, 1}, 3, 0), (offsets{0, 1, 2, 3}));
  EXPECT_EQ(cb::segment_offsets({kind::uniform, 100}, 7, 0), (offsets{0, 7}));  // longer than n: one segment
  const std::int64_t n = two_to(22) + 5;
  const auto off = cb::segment_offsets({kind::uniform, 16}, n, 0);
  ASSERT_EQ(off.size(), std::size_t(two_to(18) + 1 + 1));
  const auto lengths = lengths_of(off);
  EXPECT_TRUE(std::all_of(lengths.begin(), lengths.end() - 1, [](std::int64_t l) { return l == 16; }));
  EXPECT_EQ(lengths.back(), 5);
  EXPECT_EQ(cb::segment_offsets({kind::uniform, two_to(20)}, two_to(20), 0), (offsets{0, two_to(20)}));
}

TEST(SegmentOffsets, PowerlawLengthsWithinOneToTwoToTheTwenty) {
  const std::int64_t n = two_to(26);
  const auto off = cb::segment_offsets({kind::powerlaw}, n, 777);
  expect_cover(off, n, {kind::powerlaw});
  const auto lengths = lengths_of(off);
  ASSERT_GT(lengths.size(), 100u);
  std::int64_t longest = 0, short_ones = 0;
  for (const std::int64_t l : lengths) {
    EXPECT_GE(l, 1);
    EXPECT_LE(l, two_to(cb::powerlaw_log2_max));
    longest = std::max(longest, l);
    short_ones += l < 1024;  // half of the octaves
  }
  // every octave about equally likely: about half the lengths below 2^10, and some long ones
  EXPECT_GT(longest, two_to(18));
  EXPECT_NEAR(double(short_ones) / double(lengths.size()), 0.5, 0.1);
  // deterministic from the seed, and different for another seed
  EXPECT_EQ(cb::segment_offsets({kind::powerlaw}, n, 777), off);
  EXPECT_NE(cb::segment_offsets({kind::powerlaw}, n, 778), off);
}

TEST(SegmentOffsets, OnebigHasHalfOfTheValuesInTheMiddle) {
  for (const std::int64_t n : {two_to(24), two_to(10), std::int64_t(1000), std::int64_t(1003)}) {
    const auto off = cb::segment_offsets({kind::onebig}, n, 0);
    expect_cover(off, n, {kind::onebig});
    const auto lengths = lengths_of(off);
    const auto big = std::max_element(lengths.begin(), lengths.end());
    EXPECT_EQ(*big, n / 2) << n;
    EXPECT_EQ(std::count(lengths.begin(), lengths.end(), n / 2), 1) << n;
    const std::size_t at = std::size_t(big - lengths.begin());
    EXPECT_NEAR(double(at) / double(lengths.size()), 0.5, 0.02) << n;  // in the middle
    EXPECT_NEAR(double(off[at]) / double(n), 0.25, 0.01) << n;
    for (std::size_t s = 0; s < lengths.size(); ++s) {
      if (s != at && s + 1 != lengths.size()) {
        EXPECT_EQ(lengths[s], cb::onebig_small_length) << n << " at " << s;
      }
    }
    EXPECT_GE(lengths.back(), 1);
    EXPECT_LE(lengths.back(), cb::onebig_small_length);
  }
  const auto off = cb::segment_offsets({kind::onebig}, two_to(24), 0);
  EXPECT_EQ(off.size(), std::size_t(2 * two_to(20) + 1 + 1));  // 2^20 segments of 4 on either side
}

TEST(SegmentOffsets, EmptyMixedIsAThirdEmpty) {
  const std::int64_t n = two_to(24);
  const auto off = cb::segment_offsets({kind::empty_mixed}, n, 99);
  expect_cover(off, n, {kind::empty_mixed});
  const auto lengths = lengths_of(off);
  const auto empty = std::count(lengths.begin(), lengths.end(), 0);
  EXPECT_NEAR(double(empty) / double(lengths.size()), 1.0 / 3, 0.01);
  EXPECT_EQ(*std::max_element(lengths.begin(), lengths.end()), cb::empty_mixed_max_length);
  EXPECT_EQ(std::count(lengths.begin(), lengths.end(), 1) > 0, true);
  EXPECT_NE(lengths.back(), 0);  // the last one ends at n
  // the non-empty lengths uniform in 1 .. 200: their mean about 100.5
  double sum = 0;
  for (const std::int64_t l : lengths) sum += double(l);
  EXPECT_NEAR(sum / double(lengths.size() - std::size_t(empty)), 100.5, 1.0);
  EXPECT_EQ(cb::segment_offsets({kind::empty_mixed}, n, 99), off);
  EXPECT_NE(cb::segment_offsets({kind::empty_mixed}, n, 100), off);
}

TEST(SegmentOffsets, UniformAndOnebigDoNotDependOnTheSeed) {
  EXPECT_EQ(cb::segment_offsets({kind::uniform, 3}, 1000, 1), cb::segment_offsets({kind::uniform, 3}, 1000, 2));
  EXPECT_EQ(cb::segment_offsets({kind::onebig}, 1000, 1), cb::segment_offsets({kind::onebig}, 1000, 2));
}
