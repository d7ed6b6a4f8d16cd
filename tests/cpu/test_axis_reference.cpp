// The reference reductions along axes (cpu/axis_reference.hpp) on small arrays worked by hand.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cpu/axis_reference.hpp"

namespace {

using cured::cpu::axis_shape;

axis_shape shape(std::initializer_list<std::int64_t> extents, std::initializer_list<std::int64_t> strides,
                 std::initializer_list<bool> reduced) {
  axis_shape s;
  s.rank = int(extents.size());
  int k = 0;
  for (auto e : extents) s.extents[k++] = e;
  k = 0;
  for (auto t : strides) s.strides[k++] = t;
  k = 0;
  for (auto r : reduced) s.reduced[k++] = r;
  return s;
}

std::vector<std::vector<std::int64_t>> offsets(const axis_shape& s) {
  std::vector<std::vector<std::int64_t>> all;
  cured::cpu::for_each_output(s, [&](std::int64_t out, const std::vector<std::int64_t>& at) {
    EXPECT_EQ(out, std::int64_t(all.size()));
    all.push_back(at);
  });
  return all;
}

TEST(AxisReference, OutputsAndElementsInRowMajorOrder) {
  // A 2 x 3 row-major matrix: rows (axis 1 reduced) and columns (axis 0 reduced).
  using v = std::vector<std::vector<std::int64_t>>;
  EXPECT_EQ(offsets(shape({2, 3}, {3, 1}, {false, true})), (v{{0, 1, 2}, {3, 4, 5}}));
  EXPECT_EQ(offsets(shape({2, 3}, {3, 1}, {true, false})), (v{{0, 3}, {1, 4}, {2, 5}}));
  EXPECT_EQ(offsets(shape({2, 3}, {3, 1}, {true, true})), (v{{0, 1, 2, 3, 4, 5}}));
  EXPECT_EQ(offsets(shape({2, 3}, {3, 1}, {false, false})), (v{{0}, {1}, {2}, {3}, {4}, {5}}));
  // 2 x 2 x 2 reduced along axes 0 and 2: the flat index over (0, 2) is i0 * 2 + i2.
  EXPECT_EQ(offsets(shape({2, 2, 2}, {4, 2, 1}, {true, false, true})), (v{{0, 1, 4, 5}, {2, 3, 6, 7}}));
  // Broadcast (stride 0) and a transposed view.
  EXPECT_EQ(offsets(shape({3, 2}, {0, 1}, {true, false})), (v{{0, 0, 0}, {1, 1, 1}}));
  EXPECT_EQ(offsets(shape({2, 3}, {1, 2}, {false, true})), (v{{0, 2, 4}, {1, 3, 5}}));
  // Rank 0: one output of one element. Empty axes: no outputs, or outputs with no elements.
  EXPECT_EQ(offsets(shape({}, {}, {})), (v{{0}}));
  EXPECT_EQ(offsets(shape({0, 3}, {3, 1}, {false, true})), v{});
  EXPECT_EQ(offsets(shape({3, 0}, {0, 1}, {false, true})), (v{{}, {}, {}}));
}

TEST(AxisReference, SumsAreExactAndRoundedOnce) {
  // Each row: 2^24, 1, 1 in float: a left-to-right float sum loses both ones; exact is 2^24 + 2.
  const std::vector<float> h = {16777216.f, 1.f, 1.f, 1e30f, -1e30f, 3.f, -0.f, -0.f, -0.f};
  const auto s = cured::cpu::axis_exact_sum(shape({3, 3}, {3, 1}, {false, true}),
                                            [&](std::int64_t i) { return double(h[i]); }, true);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], 16777218.0);
  EXPECT_EQ(s[1], 3.0);
  EXPECT_EQ(s[2], 0.0);
  EXPECT_TRUE(std::signbit(s[2]));  // every input -0
  const auto empty = cured::cpu::axis_exact_sum(shape({2, 0}, {0, 1}, {false, true}),
                                                [&](std::int64_t i) { return double(h[i]); }, false);
  EXPECT_EQ(empty, (std::vector<double>{0.0, 0.0}));
  const std::vector<std::int32_t> n = {2147483647, 2147483647, -5, 7};
  const auto t = cured::cpu::axis_integer_sum(shape({2, 2}, {2, 1}, {true, false}),
                                              [&](std::int64_t i) { return __int128(n[i]); });
  EXPECT_TRUE(t[0] == __int128(2147483642) && t[1] == __int128(2147483654));
}

TEST(AxisReference, ArgRulesPerOutput) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Rows: a tie (first index wins), a NaN after the extreme (the NaN wins), two NaNs (the first).
  const std::vector<float> h = {1, 5, 5, 2, 9, nan, 0, nan, 3, nan, 0, 0};
  const auto less = [](float a, float b) { return a < b; };
  const auto is_nan = [](float a) { return a != a; };
  const axis_shape rows = shape({3, 4}, {4, 1}, {false, true});
  const auto mx = cured::cpu::axis_arg<true>(rows, h.data(), less, is_nan);
  const auto mn = cured::cpu::axis_arg<false>(rows, h.data(), less, is_nan);
  EXPECT_EQ(mx[0].index, 1);
  EXPECT_EQ(mn[0].index, 0);
  EXPECT_EQ(mx[1].index, 1);
  EXPECT_EQ(mn[1].index, 1);
  EXPECT_EQ(mx[2].index, 1);
  EXPECT_EQ(mn[2].index, 1);
  const auto none = cured::cpu::axis_arg<true>(shape({2, 0}, {0, 1}, {false, true}), h.data(), less, is_nan);
  EXPECT_EQ(none[0].index, -1);
  EXPECT_EQ(none[1].index, -1);
}

}  // namespace
