// cured-bench's axis reference (bench/axis_reference.cuh): sliced over the host's cores, it
// answers every output as cured::cpu's axis reference does over the whole array in one piece,
// for slices along kept and reduced axes, outer and inner ones, ties and NaNs. Host code only:
// it runs without a GPU.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bench/answer.cuh"
#include "bench/axis_reference.cuh"
#include "harness/inputs.cuh"

namespace cb = cured::bench;

namespace {

cured::cpu::axis_shape whole_shape(const cb::axis_workload& w) {
  cured::cpu::axis_shape s;
  s.rank = int(w.shape.size());
  std::int64_t stride = 1;
  for (int k = s.rank - 1; k >= 0; --k) {
    s.extents[k] = w.shape[std::size_t(k)];
    s.strides[k] = stride;
    stride *= s.extents[k];
  }
  for (const int a : w.axes) s.reduced[a] = true;
  return s;
}

template <class T>
std::vector<T> exact_input(std::int64_t n, std::uint64_t seed) {
  std::vector<T> h(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) h[std::size_t(i)] = cured::harness::exact_value<T>(seed, std::uint64_t(i));
  return h;
}

/// The sliced reference (slices of about `slice` elements) against the one-piece one, every
/// output; the sums only where `sums` (they need integer values).
template <class T>
void expect_same_as_one_piece(const std::vector<T>& h, const cb::axis_workload& w, std::int64_t slice,
                              bool sums = true) {
  const std::string what = cb::shape_text(w.shape) + " axes " + cb::axes_text(w.axes);
  const auto s = whole_shape(w);
  cb::axis_reference<T> ref(h.data(), w, slice);
  ASSERT_LE(w.elements(), std::int64_t(h.size()));

  if (sums) {
    const auto want = cured::cpu::axis_integer_sum(s, [&](std::int64_t at) { return cured::harness::as_int128(h[at]); });
    const auto& got = ref.sums();
    ASSERT_EQ(got.size(), want.size()) << what;
    std::size_t wrong = 0;
    for (std::size_t o = 0; o < want.size(); ++o) wrong += got[o] != cured::accumulator_t<T>(want[o]);
    EXPECT_EQ(wrong, 0u) << what << ": sums";
  }

  const auto less = [](const T& a, const T& b) { return cured::detail::less(a, b); };
  const auto is_nan = [](const T& x) { return cured::detail::is_nan(x); };
  const auto lo = cured::cpu::axis_arg<false>(s, h.data(), less, is_nan);
  const auto hi = cured::cpu::axis_arg<true>(s, h.data(), less, is_nan);
  const auto& got_lo = ref.template extremes<false>();
  const auto& got_hi = ref.template extremes<true>();
  ASSERT_EQ(got_lo.size(), lo.size()) << what;
  ASSERT_EQ(got_hi.size(), hi.size()) << what;
  std::size_t wrong_lo = 0, wrong_hi = 0;
  for (std::size_t o = 0; o < lo.size(); ++o) {
    wrong_lo += got_lo[o].index != lo[o].index || !cb::same_bits(got_lo[o].value, lo[o].value);
    wrong_hi += got_hi[o].index != hi[o].index || !cb::same_bits(got_hi[o].value, hi[o].value);
  }
  EXPECT_EQ(wrong_lo, 0u) << what << ": argmin";
  EXPECT_EQ(wrong_hi, 0u) << what << ": argmax";
}

constexpr std::int64_t two_to(int e) { return std::int64_t(1) << e; }

/// Slices of 256 elements: many slices of small shapes.
constexpr std::int64_t small_slices = 256;

/// Shapes sliced along an outer or inner axis, kept or reduced, and left whole (the comment
/// says which axis the reference slices, with slices of 256 elements).
const std::vector<cb::axis_workload> workloads = {
    {{two_to(16)}, {0}},                 // one output: its reduced axis, 256 slices
    {{2, two_to(15)}, {1}},              // two long rows: the reduced axis
    {{2, two_to(15)}, {0}},              // the kept inner axis
    {{two_to(10), 32}, {0}},             // the reduced outer axis: partials of every output
    {{two_to(10), 64}, {0}},             // the kept inner axis, of 64
    {{two_to(13), 4}, {1}},              // short rows: the kept outer axis
    {{4, 128, 64}, {1}},                 // the kept inner axis, of 64
    {{4, 128, 64}, {0, 2}},              // the kept middle axis
    {{16, 128, 16}, {1}},                // the reduced middle axis
    {{4, 256, 16}, {0, 1}},              // a reduced axis inside another reduced one
    {{256, 4, 16}, {0, 1}},              // the outer of two reduced axes
    {{4, 4, 4, 4, 4, 4, 4}, {1, 3, 5}},  // no axis as long as the slices wanted: the longest, kept
    {{4, 4, 4, 4, 4, 4, 4}, {0, 2, 4, 6}},  // the longest, reduced, outside three more
    {{64, 64, 4}, {0, 1}},               // the reduced outer axis
    {{2, 2, two_to(12)}, {0, 1, 2}},     // every axis: the inner one
    {{1, two_to(14)}, {0}},              // outputs of one element (answered directly)
    {{64, 1, 256}, {1}},                 // and again, along a middle axis
    {{2, 3, 5, 7, 11, 13, 17}, {2, 5}},  // no power of two: the kept inner axis of 17
};

}  // namespace

TEST(AxisReference, SlicedAsInOnePieceFloat) {
  const auto h = exact_input<float>(510510, 11);  // small integers: ties everywhere
  for (const auto& w : workloads) expect_same_as_one_piece(h, w, small_slices);
}

TEST(AxisReference, SlicedAsInOnePieceInt32) {
  const auto h = exact_input<std::int32_t>(510510, 12);  // random words: sums far beyond 32 bits
  for (const auto& w : workloads) expect_same_as_one_piece(h, w, small_slices);
}

TEST(AxisReference, SlicedAsInOnePieceHalfAndUint32) {
  const auto h = exact_input<__half>(510510, 13);
  const auto u = exact_input<std::uint32_t>(510510, 14);
  for (const auto& w : workloads) {
    expect_same_as_one_piece(h, w, small_slices);
    expect_same_as_one_piece(u, w, small_slices);
  }
}

TEST(AxisReference, TheDefaultSlicesOverEveryCore) {
  const auto h = exact_input<float>(two_to(22), 15);
  for (const auto& w : {cb::axis_workload{{two_to(22)}, {0}}, cb::axis_workload{{two_to(11), two_to(11)}, {0}},
                        cb::axis_workload{{4, two_to(20)}, {0}}})
    expect_same_as_one_piece(h, w, cb::axis_reference<float>::default_slice_elements);
}

TEST(AxisReference, NaNsAndTiesAcrossSlices) {
  // Every element 1 but for minima and NaNs placed so that, for every output, a tie or a NaN
  // lies in a later slice than the answer: the merge must keep the first index, and the first NaN.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> h(static_cast<std::size_t>(two_to(16)), 1.0);
  for (std::size_t i = 5; i < h.size(); i += 4099) h[i] = 0.0;
  for (std::size_t i = 4000; i < h.size(); i += 8191) h[i] = nan;
  h[h.size() - 1] = nan;
  h[777] = -1.0;
  for (const auto& w : {cb::axis_workload{{two_to(16)}, {0}}, cb::axis_workload{{two_to(8), two_to(8)}, {0}},
                        cb::axis_workload{{two_to(8), two_to(8)}, {1}}, cb::axis_workload{{4, two_to(14)}, {1}},
                        cb::axis_workload{{two_to(14), 4}, {0}}, cb::axis_workload{{16, 64, 64}, {0, 2}}})
    expect_same_as_one_piece(h, w, small_slices, false);
  cb::axis_reference<double> whole(h.data(), {{two_to(16)}, {0}}, small_slices);
  EXPECT_EQ(whole.extremes<false>()[0].index, 4000);  // the first NaN
  EXPECT_EQ(whole.extremes<true>()[0].index, 4000);
  std::vector<double> no_nan(h.size(), 2.0);
  no_nan[300] = no_nan[40000] = 0.5;  // a tie for the minimum in a later slice
  cb::axis_reference<double> ties(no_nan.data(), {{two_to(16)}, {0}}, small_slices);
  EXPECT_EQ(ties.extremes<false>()[0].index, 300);
  EXPECT_EQ(ties.extremes<true>()[0].index, 0);
}
