#pragma once
// The expected outputs of a segmented workload, computed on the host's cores.
//
//   segment_reference<float> ref(h.data(), offsets);   // h: the values; offsets: count + 1 of them
//   const auto& sums = ref.sums();                      // exact sums in the accumulator
//   const auto& hi = ref.extremes<true>();              // argmax (within the segment) and max
//
// The values are cut into equal chunks, one per core (harness::parallel_chunks), whatever the
// segments: a chunk answers the segments that lie within it, and hands the parts of the (at
// most two) segments its ends cut to a serial merge, in order. Sums are integer sums, exact for
// the exact input family (small integers, or integer words), converted once to the
// accumulator: the bench's segmented workloads take that family only. Each answer is computed on
// first use.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "cpu/reference.hpp"
#include "cured/cured.cuh"
#include "harness/exact_answers.cuh"
#include "harness/parallel_chunks.hpp"

namespace cured::bench {

template <class T>
class segment_reference {
public:
  /// `h` holds offsets.back() values; both must outlive this reference. offsets: non-decreasing,
  /// offsets[0] = 0.
  segment_reference(const T* h, const std::vector<std::int64_t>& offsets) : h_(h), offsets_(offsets) {}

  std::int64_t count() const { return std::int64_t(offsets_.size()) - 1; }

  /// Each segment's exact sum in accumulator_t<T>; 0 for an empty segment.
  const std::vector<accumulator_t<T>>& sums() {
    if (!sums_) sums_ = compute_sums();
    return *sums_;
  }

  /// Each segment's argmin (Max false) or argmax (Max true) and its value: the index within the
  /// segment of the first extreme value (of the first NaN, when there is one); {-1, the
  /// operator's identity} for an empty segment.
  template <bool Max>
  const std::vector<cpu::arg_result<T>>& extremes() {
    auto& cached = Max ? hi_ : lo_;
    if (!cached) cached = compute_extremes<Max>();
    return *cached;
  }

private:
  /// out[s] = done(part) for every non-empty segment s, where part is scan(begin, end, first) over
  /// the values [begin, end) of segment s beginning at `first`, the parts of a segment the chunks
  /// cut merged in order by merge(earlier, later). Empty segments are left as they are.
  template <class Part, class R, class Scan, class Merge, class Done>
  void each_segment(std::vector<R>& out, Scan scan, Merge merge, Done done) const {
    const auto& off = offsets_;
    const std::int64_t n = off.back(), count = this->count();
    struct cut {
      std::int64_t segment;
      Part part;
    };
    const auto cuts = harness::parallel_chunks<std::vector<cut>>(n, [&](std::int64_t b, std::int64_t e) {
      std::vector<cut> parts;
      if (b == e) return parts;
      // The last segment that begins at or before b: the (non-empty) one holding value b.
      std::int64_t s = std::int64_t(std::upper_bound(off.begin(), off.end(), b) - off.begin()) - 1;
      for (; s < count && off[std::size_t(s)] < e; ++s) {
        const std::int64_t first = off[std::size_t(s)], last = off[std::size_t(s) + 1];
        const std::int64_t lo = std::max(first, b), hi = std::min(last, e);
        if (lo >= hi) continue;
        const Part p = scan(lo, hi, first);
        if (first >= b && last <= e) out[std::size_t(s)] = done(p);
        else parts.push_back({s, p});
      }
      return parts;
    });
    std::int64_t open = -1;  // the segment whose parts are being merged
    Part acc{};
    for (const auto& parts : cuts)
      for (const cut& c : parts) {
        if (c.segment == open) {
          acc = merge(acc, c.part);
          continue;
        }
        if (open >= 0) out[std::size_t(open)] = done(acc);
        open = c.segment;
        acc = c.part;
      }
    if (open >= 0) out[std::size_t(open)] = done(acc);
  }

  /// out[s] = empty for every empty segment s, over the host's cores.
  template <class R>
  void fill_empty(std::vector<R>& out, const R& empty) const {
    harness::parallel_chunks<int>(count(), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t s = b; s < e; ++s)
        if (offsets_[std::size_t(s)] == offsets_[std::size_t(s) + 1]) out[std::size_t(s)] = empty;
      return 0;
    });
  }

  /// An element of the exact family as an integer: through int64 for floating types, whose
  /// elements are small integers (double to __int128 directly is a slow library call).
  static __int128 integer_value(const T& x) {
    if constexpr (std::is_integral_v<T>) return __int128(x);
    else return __int128(std::int64_t(harness::as_double(x)));
  }

  std::vector<accumulator_t<T>> compute_sums() const {
    using acc = accumulator_t<T>;
    std::vector<acc> out(std::size_t(count()), acc(0));
    each_segment<__int128>(
        out,
        [&](std::int64_t b, std::int64_t e, std::int64_t) {
          __int128 s = 0;
          for (std::int64_t i = b; i < e; ++i) s += integer_value(h_[i]);
          return s;
        },
        [](__int128 a, __int128 b) { return a + b; },
        [](__int128 s) {
          // Integer accumulators take the sum as it is; floating ones round it once, from an int64
          // (the exact family's sums are far below 2^63).
          if constexpr (std::is_integral_v<acc>) return acc(s);
          else return acc(std::int64_t(s));
        });
    return out;
  }

  /// Whether b (later in the segment) replaces a as the answer: a NaN first, else a strictly
  /// better value; never on a tie.
  template <bool Max>
  static bool replaces(const cpu::arg_result<T>& a, const cpu::arg_result<T>& b) {
    if (detail::is_nan(a.value)) return false;
    if (detail::is_nan(b.value)) return true;
    return Max ? detail::less(a.value, b.value) : detail::less(b.value, a.value);
  }

  template <bool Max>
  std::vector<cpu::arg_result<T>> compute_extremes() const {
    using arg = cpu::arg_result<T>;
    std::vector<arg> out(static_cast<std::size_t>(count()));
    fill_empty(out, arg{-1, Max ? maximum::identity<T>() : minimum::identity<T>()});
    each_segment<arg>(
        out,
        [&](std::int64_t b, std::int64_t e, std::int64_t first) {
          arg best{b - first, h_[b]};
          for (std::int64_t i = b + 1; i < e && !detail::is_nan(best.value); ++i) {
            const arg x{i - first, h_[i]};
            if (replaces<Max>(best, x)) best = x;
          }
          return best;
        },
        [](const arg& a, const arg& b) { return replaces<Max>(a, b) ? b : a; }, [](const arg& a) { return a; });
    return out;
  }

  const T* h_;
  const std::vector<std::int64_t>& offsets_;
  std::optional<std::vector<accumulator_t<T>>> sums_;
  std::optional<std::vector<cpu::arg_result<T>>> lo_, hi_;
};

}  // namespace cured::bench
