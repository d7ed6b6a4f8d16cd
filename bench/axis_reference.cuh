#pragma once
// The expected outputs of an axis workload, from cured::cpu's axis reference over every core.
//
//   axis_reference<float> ref(h.data(), workload);   // h: the input, row-major, on the host
//   const auto& sums = ref.sums();                   // exact sums in the accumulator
//   const auto& hi = ref.extremes<true>();           // argmax and max per output
//
// The array is cut into slices along one axis (a kept one where one is long enough: each slice
// then answers its own outputs; else a reduced one: each slice answers every output over its
// part, the parts merged in order), each slice answered by cpu::axis_integer_sum or
// cpu::axis_arg on the host's cores (harness::parallel_chunks). Sums are integer sums, exact for
// the exact input family (small integers, or integer words), converted once to the accumulator:
// the bench's axis workloads take that family only. Each answer is computed on first use.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "bench/options.hpp"
#include "cpu/axis_reference.hpp"
#include "cured/cured.cuh"
#include "harness/exact_answers.cuh"
#include "harness/parallel_chunks.hpp"

namespace cured::bench {

template <class T>
class axis_reference {
public:
  /// `h` holds the workload's input and must outlive this reference. Slices hold about
  /// `slice_elements` elements each (the tests make them small).
  axis_reference(const T* h, const axis_workload& w, std::int64_t slice_elements = default_slice_elements)
      : h_(h), slice_elements_(slice_elements) {
    shape_.rank = int(w.shape.size());
    std::int64_t stride = 1;
    for (int k = shape_.rank - 1; k >= 0; --k) {
      shape_.extents[k] = w.shape[std::size_t(k)];
      shape_.strides[k] = stride;
      stride *= shape_.extents[k];
    }
    for (const int a : w.axes) shape_.reduced[a] = true;
    plan_slices(w.elements());
  }

  /// Each output's exact sum in accumulator_t<T>, outputs in row-major order over the kept axes.
  const std::vector<accumulator_t<T>>& sums() {
    if (!sums_) sums_ = compute_sums();
    return *sums_;
  }

  /// Each output's argmin (Max false) or argmax (Max true) and its value: the first flat index
  /// over the reduced axes of the extreme element (of the first NaN, when there is one).
  template <bool Max>
  const std::vector<cpu::arg_result<T>>& extremes() {
    auto& cached = Max ? hi_ : lo_;
    if (!cached) cached = compute_extremes<Max>();
    return *cached;
  }

  /// Elements per slice, about: enough slices to keep every core busy, small enough that a
  /// slice's offsets (cpu::for_each_output lists an output's offsets) stay a few MiB.
  static constexpr std::int64_t default_slice_elements = std::int64_t(1) << 20;

private:
  /// A reduced axis's slices each hold partial answers of every output: at most this many in all.
  static constexpr std::int64_t max_partials = std::int64_t(1) << 24;

  /// The slicing: `slices` parts of axis `axis_`.
  void plan_slices(std::int64_t elements) {
    const std::int64_t wanted = std::clamp<std::int64_t>(elements / slice_elements_, 1, 4096);
    const cpu::axis_shape& s = shape_;
    int kept = -1, reduced = -1, longest_kept = -1, longest = 0;
    for (int k = 0; k < s.rank; ++k) {
      if (s.extents[k] > s.extents[longest]) longest = k;
      if (s.reduced[k] && reduced < 0 && s.extents[k] >= wanted) reduced = k;
      if (!s.reduced[k] && kept < 0 && s.extents[k] >= wanted) kept = k;
      if (!s.reduced[k] && (longest_kept < 0 || s.extents[k] > s.extents[longest_kept])) longest_kept = k;
    }
    if (kept < 0 && longest_kept >= 0 && s.extents[longest_kept] >= 64) kept = longest_kept;  // enough for the cores
    axis_ = kept >= 0 ? kept : reduced >= 0 ? reduced : longest;
    slices_ = wanted == 1 ? 1 : std::min(wanted, s.extents[axis_]);
    if (s.reduced[axis_]) slices_ = std::clamp<std::int64_t>(max_partials / s.outputs(), 1, slices_);
  }

  std::int64_t begin_of(std::int64_t j) const { return shape_.extents[axis_] * j / slices_; }

  /// Slice j: its shape, and the offset of its first element.
  cpu::axis_shape slice_shape(std::int64_t j) const {
    cpu::axis_shape s = shape_;
    s.extents[axis_] = begin_of(j + 1) - begin_of(j);
    return s;
  }
  std::int64_t slice_base(std::int64_t j) const { return begin_of(j) * shape_.strides[axis_]; }

  /// The product of the extents after the sliced axis, of the axes reduced (or kept) as it is.
  std::int64_t inner_of_kind() const {
    std::int64_t inner = 1;
    for (int k = axis_ + 1; k < shape_.rank; ++k)
      if (shape_.reduced[k] == shape_.reduced[axis_]) inner *= shape_.extents[k];
    return inner;
  }

  /// A flat index over the axes of the sliced axis's kind in slice j: the index in the whole array.
  std::int64_t widen(std::int64_t local, std::int64_t j, std::int64_t inner) const {
    const std::int64_t part = begin_of(j + 1) - begin_of(j);
    const std::int64_t q = local / inner, rest = local % inner;
    return ((q / part) * shape_.extents[axis_] + begin_of(j) + q % part) * inner + rest;
  }

  /// f(j) for every slice, over the host's cores; the slices' results in order.
  template <class R, class F>
  std::vector<R> each_slice(F f) const {
    std::vector<R> parts(static_cast<std::size_t>(slices_));
    // parallel_chunks splits [0, elements) over the cores; slice j goes to the chunk holding its first element.
    const std::int64_t n = slices_ == 1 ? 1 : shape_.outputs() * shape_.reduced_size();
    harness::parallel_chunks<int>(n, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t j = 0; j < slices_; ++j) {
        const std::int64_t start = std::int64_t(__int128(j) * n / slices_);
        if (start >= b && start < e) parts[std::size_t(j)] = f(j);
      }
      return 0;
    });
    return parts;
  }

  /// An element of the exact family as an integer: through int64 for floating types, whose
  /// elements are small integers (double to __int128 directly is a slow library call).
  static __int128 integer_value(const T& x) {
    if constexpr (std::is_integral_v<T>) return __int128(x);
    else return __int128(std::int64_t(harness::as_double(x)));
  }

  /// Whether every output is one element: output o is element o (the reduced extents are 1),
  /// answered directly (the per-output cost of cpu's reference would dominate).
  bool one_element_outputs() const { return shape_.reduced_size() == 1; }

  std::vector<accumulator_t<T>> compute_sums() const {
    using acc = accumulator_t<T>;
    if (one_element_outputs()) {
      std::vector<acc> out(std::size_t(shape_.outputs()));
      harness::parallel_chunks<int>(shape_.outputs(), [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t o = b; o < e; ++o) out[std::size_t(o)] = acc(integer_value(h_[o]));
        return 0;
      });
      return out;
    }
    const auto parts = each_slice<std::vector<__int128>>([&](std::int64_t j) {
      const T* base = h_ + slice_base(j);
      return cpu::axis_integer_sum(slice_shape(j), [&](std::int64_t at) { return integer_value(base[at]); });
    });
    std::vector<acc> out(std::size_t(shape_.outputs()));
    if (!shape_.reduced[axis_]) {
      const std::int64_t inner = inner_of_kind();
      for (std::int64_t j = 0; j < slices_; ++j)
        for (std::size_t o = 0; o < parts[std::size_t(j)].size(); ++o)
          out[std::size_t(widen(std::int64_t(o), j, inner))] = acc(parts[std::size_t(j)][o]);
      return out;
    }
    for (std::size_t o = 0; o < out.size(); ++o) {
      __int128 s = 0;
      for (const auto& p : parts) s += p[o];
      out[o] = acc(s);
    }
    return out;
  }

  /// Whether b replaces a as the answer (the arg rule, by index: the first NaN, else the
  /// strictly better value, else on a tie the smaller index).
  template <bool Max>
  static bool replaces(const cpu::arg_result<T>& a, const cpu::arg_result<T>& b) {
    if (b.index < 0) return false;
    if (a.index < 0) return true;
    const bool a_nan = detail::is_nan(a.value), b_nan = detail::is_nan(b.value);
    if (a_nan || b_nan) return a_nan && b_nan ? b.index < a.index : b_nan;
    if (Max ? detail::less(a.value, b.value) : detail::less(b.value, a.value)) return true;
    if (Max ? detail::less(b.value, a.value) : detail::less(a.value, b.value)) return false;
    return b.index < a.index;
  }

  template <bool Max>
  std::vector<cpu::arg_result<T>> compute_extremes() const {
    if (one_element_outputs()) {
      std::vector<cpu::arg_result<T>> out(std::size_t(shape_.outputs()));
      harness::parallel_chunks<int>(shape_.outputs(), [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t o = b; o < e; ++o) out[std::size_t(o)] = {0, h_[o]};
        return 0;
      });
      return out;
    }
    const auto parts = each_slice<std::vector<cpu::arg_result<T>>>([&](std::int64_t j) {
      return cpu::axis_arg<Max>(
          slice_shape(j), h_ + slice_base(j), [](const T& a, const T& b) { return detail::less(a, b); },
          [](const T& x) { return detail::is_nan(x); });
    });
    std::vector<cpu::arg_result<T>> out(std::size_t(shape_.outputs()), cpu::arg_result<T>{-1, T{}});
    const std::int64_t inner = inner_of_kind();
    for (std::int64_t j = 0; j < slices_; ++j) {
      const auto& p = parts[std::size_t(j)];
      for (std::size_t o = 0; o < p.size(); ++o) {
        if (!shape_.reduced[axis_]) {
          out[std::size_t(widen(std::int64_t(o), j, inner))] = p[o];
          continue;
        }
        cpu::arg_result<T> c = p[o];
        if (c.index >= 0) c.index = widen(c.index, j, inner);
        if (replaces<Max>(out[o], c)) out[o] = c;
      }
    }
    return out;
  }

  const T* h_;
  std::int64_t slice_elements_;
  cpu::axis_shape shape_;
  int axis_ = 0;
  std::int64_t slices_ = 1;
  std::optional<std::vector<accumulator_t<T>>> sums_;
  std::optional<std::vector<cpu::arg_result<T>>> lo_, hi_;
};

}  // namespace cured::bench
