// Strided views and the canonical form of a reduction along axes (host code: runs without a
// GPU): worked cases, every bad input, and random views whose canonical form must reach the
// same elements in the same order as the view itself (checked against cpu/axis_reference.hpp).

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cpu/axis_reference.hpp"
#include "cured/detail/canonical.cuh"
#include "cured/types/view.cuh"

namespace {

using cured::axes;
using cured::detail::canonical_shape;
using cured::detail::canonicalize;

struct dim {
  std::int64_t extent, in_stride, out_stride;
  bool reduced;
  bool operator==(const dim&) const = default;
};

std::vector<dim> dims(const canonical_shape& c) {
  std::vector<dim> d;
  for (int k = 0; k < c.rank; ++k) d.push_back({c.extents[k], c.in_strides[k], c.out_strides[k], c.reduced[k]});
  return d;
}

// Any non-null address: canonicalize reads no element.
const float* const base = reinterpret_cast<const float*>(std::uintptr_t(1) << 20);

TEST(Canonical, MergesAndDropsAxes) {
  using v = std::vector<dim>;
  // (a, b, c) contiguous along axis 1: rows of b over a x c columns.
  EXPECT_EQ(dims(canonicalize(cured::view(base, {3, 4, 5}), {1})),
            (v{{3, 20, 5, false}, {4, 5, 0, true}, {5, 1, 1, false}}));
  // Along (1, 2): rows of 20.
  EXPECT_EQ(dims(canonicalize(cured::view(base, {3, 4, 5}), {1, 2})), (v{{3, 20, 1, false}, {20, 1, 0, true}}));
  // NCHW over (0, 2, 3): (N, C, H*W) with N and H*W reduced.
  const canonical_shape nchw = canonicalize(cured::view(base, {8, 16, 7, 9}), {0, 2, 3});
  EXPECT_EQ(dims(nchw), (v{{8, 16 * 63, 0, true}, {16, 63, 1, false}, {63, 1, 0, true}}));
  EXPECT_EQ(nchw.outputs, 16);
  EXPECT_EQ(nchw.reduced_size, 8 * 63);
  // Extent-1 axes dropped; a negative axis counts from the last.
  EXPECT_EQ(dims(canonicalize(cured::view(base, {1, 5, 1, 7}), {-1})), (v{{5, 7, 1, false}, {7, 1, 0, true}}));
  // Every axis: the whole array; no axis: one output per element.
  EXPECT_EQ(dims(canonicalize(cured::view(base, {3, 4, 5}), axes::all(3))), (v{{60, 1, 0, true}}));
  EXPECT_EQ(dims(canonicalize(cured::view(base, {3, 4}), {})), (v{{12, 1, 1, false}}));
  // A transposed view, a broadcast axis, a slice of columns: nothing to merge.
  EXPECT_EQ(dims(canonicalize(cured::view(base, {4, 6}, {1, 4}), {1})), (v{{4, 1, 1, false}, {6, 4, 0, true}}));
  EXPECT_EQ(dims(canonicalize(cured::view(base, {8, 5}, {0, 1}), {0})), (v{{8, 0, 0, true}, {5, 1, 1, false}}));
  EXPECT_EQ(dims(canonicalize(cured::view(base, {4, 3}, {10, 1}), {0, 1})), (v{{4, 10, 0, true}, {3, 1, 0, true}}));
  // Rank 0: one output of one element.
  const canonical_shape scalar = canonicalize(cured::view(base, {}), {});
  EXPECT_EQ(scalar.rank, 0);
  EXPECT_EQ(scalar.outputs, 1);
  EXPECT_EQ(scalar.reduced_size, 1);
  // Empty: no outputs, or outputs with no elements.
  const canonical_shape none = canonicalize(cured::view(base, {0, 5}), {1});
  EXPECT_EQ(none.outputs, 0);
  const canonical_shape empty_rows = canonicalize(cured::view(base, {5, 0}), {1});
  EXPECT_EQ(empty_rows.outputs, 5);
  EXPECT_EQ(empty_rows.reduced_size, 0);
}

TEST(Canonical, OutputViews) {
  using v = std::vector<dim>;
  float* const out = reinterpret_cast<float*>(std::uintptr_t(1) << 30);
  // The kept axes only, or every axis with extent 1 where reduced (PyTorch's keepdim).
  auto compact = cured::view(out, {3, 5}, {1, 3});
  EXPECT_EQ(dims(canonicalize(cured::view(base, {3, 4, 5}), {1}, &compact)),
            (v{{3, 20, 1, false}, {4, 5, 0, true}, {5, 1, 3, false}}));
  auto kept = cured::view(out, {3, 1, 5});
  EXPECT_EQ(dims(canonicalize(cured::view(base, {3, 4, 5}), {1}, &kept)),
            (v{{3, 20, 5, false}, {4, 5, 0, true}, {5, 1, 1, false}}));
  // Kept axes merge only where the output allows it too.
  auto transposed = cured::view(out, {3, 4}, {1, 3});
  EXPECT_EQ(dims(canonicalize(cured::view(base, {3, 4}), {}, &transposed)), (v{{3, 4, 1, false}, {4, 1, 3, false}}));
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const cured::error& e) {
    return e.what();
  }
  return "";
}

TEST(Canonical, BadInputIsAnError) {
  float* const out = reinterpret_cast<float*>(std::uintptr_t(1) << 30);
  const auto x = cured::view(base, {3, 4, 5});
  EXPECT_NE(error_of([&] { canonicalize(x, {3}); }).find("axis 3 is out of range"), std::string::npos);
  EXPECT_NE(error_of([&] { canonicalize(x, {-4}); }).find("out of range"), std::string::npos);
  EXPECT_NE(error_of([&] { canonicalize(x, {1, -2}); }).find("axis 1 is named twice"), std::string::npos);
  EXPECT_NE(error_of([] { axes a{0, 1, 2, 3, 4, 5, 6, 7, 8}; }).find("at most 8 axes"), std::string::npos);
  EXPECT_NE(error_of([] { cured::view(base, {1, 1, 1, 1, 1, 1, 1, 1, 1}); }).find("at most 8 axes"), std::string::npos);
  EXPECT_NE(error_of([] { cured::view(base, {2, 2}, {1}); }).find("needs as many strides"), std::string::npos);
  EXPECT_NE(error_of([] { canonicalize(cured::view(base, {3, -1}), {1}); }).find("negative extent -1"),
            std::string::npos);
  EXPECT_NE(error_of([] { canonicalize(cured::view(base, {3, 4}, {-4, 1}), {1}); }).find("negative stride"),
            std::string::npos);
  EXPECT_NE(error_of([] { canonicalize(cured::view(base, {std::int64_t(1) << 40, std::int64_t(1) << 40}), {1}); })
                .find("more than 2^62 elements"),
            std::string::npos);
  EXPECT_NE(error_of([] { canonicalize(cured::view(base, {2, 2}, {std::int64_t(1) << 62, 1}), {1}); })
                .find("spans more than 2^62"),
            std::string::npos);
  EXPECT_NE(error_of([] { canonicalize(cured::view(static_cast<const float*>(nullptr), {3}), {0}); })
                .find("the input is a null pointer"),
            std::string::npos);
  EXPECT_EQ(error_of([] { canonicalize(cured::view(static_cast<const float*>(nullptr), {0, 3}), {1}); }), "");
  auto wrong_rank = cured::view(out, {3, 5, 1, 1});
  EXPECT_NE(error_of([&] { canonicalize(x, {1}, &wrong_rank); }).find("the output has 4 axes"), std::string::npos);
  auto wrong_extent = cured::view(out, {3, 4});
  EXPECT_NE(error_of([&] { canonicalize(x, {1}, &wrong_extent); }).find("axis 1 has extent 4, not 5"),
            std::string::npos);
  auto not_one = cured::view(out, {3, 2, 5});
  EXPECT_NE(error_of([&] { canonicalize(x, {1}, &not_one); }).find("has extent 2, not 1"), std::string::npos);
  // The output inside the input's bytes, and just past them.
  float* const inside = const_cast<float*>(base) + 59;
  auto overlapping = cured::view(inside, {3, 5});
  EXPECT_NE(error_of([&] { canonicalize(x, {1}, &overlapping); }).find("overlaps the input"), std::string::npos);
  auto after = cured::view(const_cast<float*>(base) + 60, {3, 5});
  EXPECT_EQ(error_of([&] { canonicalize(x, {1}, &after); }), "");
  // Outputs whose elements alias: a zero stride, interleaved axes; a broadcast input is fine.
  auto repeated = cured::view(out, {3, 5}, {0, 1});
  EXPECT_NE(error_of([&] { canonicalize(x, {1}, &repeated); }).find("elements overlap each other"), std::string::npos);
  auto interleaved = cured::view(out, {3, 5}, {2, 1});
  EXPECT_NE(error_of([&] { canonicalize(x, {1}, &interleaved); }).find("overlap each other"), std::string::npos);
  auto transposed = cured::view(out, {3, 5}, {1, 3});
  EXPECT_EQ(error_of([&] { canonicalize(x, {1}, &transposed); }), "");
  EXPECT_EQ(error_of([] { canonicalize(cured::view(base, {3, 4}, {0, 0}), {1}); }), "");
  // An empty view's other extents are bounded too, and its span in bytes.
  EXPECT_NE(error_of([] { canonicalize(cured::view(base, {0, 3, std::int64_t(1) << 62}, {0, 0, 1}), {0}); })
                .find("the input has more than 2^62 elements"),
            std::string::npos);
  const auto* doubles = reinterpret_cast<const double*>(base);
  EXPECT_NE(error_of([&] { canonicalize(cured::view(doubles, {2}, {std::int64_t(1) << 61}), {0}); })
                .find("spans more than 2^62 bytes"),
            std::string::npos);
}

// Random views (extents 0..4 with extent-1 axes, contiguous, permuted, sliced and broadcast
// strides) and random axes: the canonical form must give every output the same elements in
// the same order as the view does, at the output offset the view gives it.
TEST(Canonical, RandomViewsReachTheSameElementsInTheSameOrder) {
  std::mt19937_64 rng(12345);
  int merged = 0;  // trials whose canonical form merged axes: the generator must make many
  for (int trial = 0; trial < 3000; ++trial) {
    const int rank = int(rng() % 6);
    cured::strided_view<const float> in;
    in.data = base;
    in.rank = rank;
    cured::cpu::axis_shape s;
    s.rank = rank;
    for (int k = 0; k < rank; ++k) in.extents[k] = s.extents[k] = std::int64_t(rng() % 5);
    // Strides: contiguous over a random axis order, padded at random, some broadcast.
    int order[cured::max_rank];
    for (int k = 0; k < rank; ++k) order[k] = k;
    if (rng() % 2) std::shuffle(order, order + rank, rng);
    std::int64_t stride = 1;
    for (int k = rank - 1; k >= 0; --k) {
      const int a = order[k];
      in.strides[a] = rng() % 8 == 0 ? 0 : stride;
      stride *= std::max<std::int64_t>(in.extents[a], 1) + (rng() % 4 == 0 ? 1 : 0);
    }
    axes along;
    for (int k = 0; k < rank; ++k)
      if (rng() % 2) along.list[along.count++] = rng() % 2 ? k : k - rank;
    for (int k = 0; k < rank; ++k) s.strides[k] = in.strides[k];
    for (int k = 0; k < along.count; ++k) s.reduced[along.list[k] < 0 ? along.list[k] + rank : along.list[k]] = true;
    const canonical_shape c = canonicalize(in, along);
    int kept_axes = 0;
    for (int k = 0; k < rank; ++k) kept_axes += in.extents[k] != 1;
    merged += c.rank < kept_axes;
    EXPECT_EQ(c.outputs, s.outputs());
    EXPECT_EQ(c.reduced_size, s.reduced_size());

    cured::cpu::axis_shape cs;
    cs.rank = c.rank;
    for (int k = 0; k < c.rank; ++k) {
      cs.extents[k] = c.extents[k];
      cs.strides[k] = c.in_strides[k];
      cs.reduced[k] = c.reduced[k];
    }
    std::vector<std::vector<std::int64_t>> want, got;
    cured::cpu::for_each_output(s, [&](std::int64_t, const std::vector<std::int64_t>& at) { want.push_back(at); });
    cured::cpu::for_each_output(cs, [&](std::int64_t, const std::vector<std::int64_t>& at) { got.push_back(at); });
    ASSERT_EQ(got, want) << "trial " << trial;
    // Output offsets: the contiguous output over the kept axes gives output i offset i.
    cured::cpu::axis_shape outs = cs;
    for (int k = 0; k < c.rank; ++k) outs.strides[k] = c.out_strides[k];
    std::int64_t i = 0;
    cured::cpu::for_each_output(outs, [&](std::int64_t, const std::vector<std::int64_t>& at) {
      if (c.reduced_size > 0) EXPECT_EQ(at.front(), i) << "trial " << trial;
      ++i;
    });
  }
  EXPECT_GT(merged, 300);
}

}  // namespace
