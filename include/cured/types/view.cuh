#pragma once
// Strided N-D views of device memory, and sets of axes to reduce along.
//
//   auto x = cured::view(d_x, {4096, 1024});                  // contiguous, row-major
//   auto t = cured::view(d_x, {1024, 4096}, {1, 1024});        // its transpose
//   cured::axes along = {0, 2, 3};                             // NCHW over (N, H, W)
//
// Element (i_0, ..., i_{r-1}) of a view lies at data + i_0 * strides[0] + ... (strides in
// elements, 64-bit, never negative; 0 repeats an element along that axis, as a broadcast
// does). Rank 0 is one element. A view does not own its memory.

#include <cstdint>
#include <initializer_list>
#include <string>

#include "cured/types/error.cuh"

namespace cured {

/// Most axes of a view.
inline constexpr int max_rank = 8;

template <class T>
struct strided_view {
  T* data = nullptr;
  int rank = 0;
  std::int64_t extents[max_rank] = {};
  std::int64_t strides[max_rank] = {};  ///< in elements

  /// The number of elements: the product of the extents (1 for rank 0).
  std::int64_t size() const {
    std::int64_t n = 1;
    for (int k = 0; k < rank; ++k) n *= extents[k];
    return n;
  }
};

namespace detail {

template <class T>
strided_view<T> make_view(T* data, std::initializer_list<std::int64_t> extents) {
  if (extents.size() > std::size_t(max_rank))
    throw_invalid("a view has at most " + std::to_string(max_rank) + " axes, not " + std::to_string(extents.size()));
  strided_view<T> v;
  v.data = data;
  v.rank = int(extents.size());
  int k = 0;
  for (const std::int64_t e : extents) v.extents[k++] = e;
  return v;
}

}  // namespace detail

/// A contiguous row-major view of `extents` (the last axis varies fastest).
template <class T>
strided_view<T> view(T* data, std::initializer_list<std::int64_t> extents) {
  strided_view<T> v = detail::make_view(data, extents);
  std::int64_t stride = 1;
  for (int k = v.rank - 1; k >= 0; --k) {
    v.strides[k] = stride;
    const std::int64_t e = v.extents[k] > 0 ? v.extents[k] : 1;
    if (stride > (std::int64_t(1) << 62) / e) throw_invalid("a view of more than 2^62 elements");
    stride *= e;
  }
  return v;
}

/// A view of `extents` with the given strides (in elements), one per axis.
template <class T>
strided_view<T> view(T* data, std::initializer_list<std::int64_t> extents, std::initializer_list<std::int64_t> strides) {
  strided_view<T> v = detail::make_view(data, extents);
  if (strides.size() != extents.size())
    throw_invalid("a view of " + std::to_string(extents.size()) + " axes needs as many strides, not " +
                  std::to_string(strides.size()));
  int k = 0;
  for (const std::int64_t s : strides) v.strides[k++] = s;
  return v;
}

/// The axes to reduce along: indices into a view's axes, -rank..rank-1 (a negative axis counts
/// from the last, as in NumPy and PyTorch), each at most once. Empty: reduce along no axis.
struct axes {
  int count = 0;
  int list[max_rank] = {};

  axes() = default;
  axes(std::initializer_list<int> along) {
    if (along.size() > std::size_t(max_rank))
      throw_invalid("at most " + std::to_string(max_rank) + " axes to reduce along, not " +
                    std::to_string(along.size()));
    for (const int a : along) list[count++] = a;
  }
  /// Every axis of a view of `rank` axes.
  static axes all(int rank) {
    axes a;
    for (int k = 0; k < rank && k < max_rank; ++k) a.list[a.count++] = k;
    return a;
  }
};

}  // namespace cured
