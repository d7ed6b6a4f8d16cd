#pragma once
// A reduction along axes, checked and made canonical: the shape its kernels are chosen from.
//
//   const canonical_shape c = canonicalize(in, along, out);   // throws cured::error on bad input
//
// Canonical: axes of extent 1 dropped, then neighbouring axes of the same kind (both reduced
// or both kept) merged where memory makes them one axis: the outer one's stride is the inner
// one's extent times its stride, in the input and, for kept axes, in the output too. The order
// of the axes is the view's. So a contiguous (a, b, c) reduced along axis 1 becomes rows of b
// over a and c, NCHW over (0, 2, 3) becomes (N, C, H*W) with N and H*W reduced. Merging keeps
// the row-major order of the reduced elements, so the flat index over the reduced axes (the
// arg reductions' index) is the flat index over the canonical reduced axes.

#include <cstdint>
#include <string>
#include <utility>

#include "cured/types/error.cuh"
#include "cured/types/view.cuh"

namespace cured::detail {

struct canonical_shape {
  int rank = 0;
  std::int64_t extents[max_rank] = {};
  std::int64_t in_strides[max_rank] = {};   ///< elements
  std::int64_t out_strides[max_rank] = {};  ///< elements; 0 for reduced axes
  bool reduced[max_rank] = {};
  std::int64_t outputs = 1;       ///< the product of the kept extents
  std::int64_t reduced_size = 1;  ///< elements per output: the product of the reduced extents
};

/// The most elements a view may hold, and the most bytes it may span.
inline constexpr std::int64_t max_span = std::int64_t(1) << 62;

/// The view's extents and strides checked: none negative; the product of its extents (counting
/// an extent of 0 as 1, so that an empty view's other extents are bounded too) at most
/// max_span elements, and the bytes it spans below max_span; data not null unless the view is
/// empty. `what` names the view in messages.
template <class T>
void check_view(const strided_view<T>& v, const char* what) {
  if (v.rank < 0 || v.rank > max_rank)
    throw_invalid(std::string(what) + " has " + std::to_string(v.rank) + " axes: give 0.." + std::to_string(max_rank));
  __int128 size = 1, last = 0;
  bool empty = false;
  for (int k = 0; k < v.rank; ++k) {
    if (v.extents[k] < 0)
      throw_invalid(std::string(what) + ": negative extent " + std::to_string(v.extents[k]) + " of axis " +
                    std::to_string(k));
    if (v.strides[k] < 0)
      throw_invalid(std::string(what) + ": negative stride " + std::to_string(v.strides[k]) + " of axis " +
                    std::to_string(k));
    empty |= v.extents[k] == 0;
    size *= v.extents[k] > 0 ? v.extents[k] : 1;
    if (size > max_span) throw_invalid(std::string(what) + " has more than 2^62 elements");
  }
  for (int k = 0; k < v.rank; ++k) {  // each term below 2^62 * 2^63: no overflow in 128 bits
    if (v.extents[k] > 0) last += __int128(v.extents[k] - 1) * v.strides[k];
    if ((last + 1) * __int128(sizeof(T)) >= max_span) throw_invalid(std::string(what) + " spans more than 2^62 bytes");
  }
  if (!empty && v.data == nullptr) throw_invalid(std::string(what) + " is a null pointer");
}

/// Whether two of a view's elements may lie at one address: its axes of extent above 1, taken
/// from the smallest stride up, must each step past every element of the axes before them.
template <class T>
bool self_overlapping(const strided_view<T>& v) {
  int order[max_rank];
  int count = 0;
  for (int k = 0; k < v.rank; ++k)
    if (v.extents[k] > 1) order[count++] = k;
  for (int i = 1; i < count; ++i)  // insertion sort by stride: at most 8 axes
    for (int j = i; j > 0 && v.strides[order[j]] < v.strides[order[j - 1]]; --j) std::swap(order[j], order[j - 1]);
  __int128 reach = 0;  // the largest offset of the axes so far
  for (int i = 0; i < count; ++i) {
    const int k = order[i];
    if (v.strides[k] <= reach) return true;
    reach += __int128(v.extents[k] - 1) * v.strides[k];
  }
  return false;
}

/// Which of a view's `rank` axes `along` names, as a mask; throws for an axis out of range or
/// named twice.
inline unsigned reduced_mask(const axes& along, int rank) {
  unsigned mask = 0;
  for (int k = 0; k < along.count; ++k) {
    const int a = along.list[k];
    if (a < -rank || a >= rank)
      throw_invalid("axis " + std::to_string(a) + " is out of range for a view of " + std::to_string(rank) + " axes");
    const int axis = a < 0 ? a + rank : a;
    if (mask & (1u << axis)) throw_invalid("axis " + std::to_string(axis) + " is named twice");
    mask |= 1u << axis;
  }
  return mask;
}

/// Bytes [first, last) that a non-empty view touches at most.
template <class T>
void byte_range(const strided_view<T>& v, std::uintptr_t& first, std::uintptr_t& last) {
  std::uintptr_t end = 0;
  for (int k = 0; k < v.rank; ++k) end += std::uintptr_t(v.extents[k] - 1) * std::uintptr_t(v.strides[k]);
  first = reinterpret_cast<std::uintptr_t>(v.data);
  last = first + (end + 1) * sizeof(T);
}

/// The reduction of `in` along `along` into `out`, checked and canonical. `out` covers the
/// kept axes in order: either one axis per kept axis, or (keeping the reduced axes) one per
/// input axis with extent 1 on the reduced ones. out null: a contiguous output over the kept
/// axes. Throws cured::error for bad extents or strides, a bad axis, an output of another
/// shape, an output whose bytes may overlap the input's or whose elements overlap each other,
/// a null pointer of a non-empty view.
template <class T, class U = T>
canonical_shape canonicalize(const strided_view<const T>& in, const axes& along,
                             const strided_view<U>* out = nullptr) {
  check_view(in, "the input");
  const unsigned mask = reduced_mask(along, in.rank);
  // Each input axis's output stride, in the input's order.
  std::int64_t out_stride[max_rank] = {};
  if (out == nullptr) {
    std::int64_t stride = 1;
    for (int k = in.rank - 1; k >= 0; --k)
      if (!(mask & (1u << k))) {
        out_stride[k] = stride;
        stride *= in.extents[k] > 0 ? in.extents[k] : 1;
      }
  } else {
    check_view(*out, "the output");
    if (out->size() > 0 && self_overlapping(*out)) throw_invalid("the output's elements overlap each other");
    int kept = 0;
    for (int k = 0; k < in.rank; ++k) kept += !(mask & (1u << k));
    const bool keeps_axes = out->rank == in.rank && kept != in.rank;
    if (out->rank != kept && !keeps_axes)
      throw_invalid("the output has " + std::to_string(out->rank) + " axes: give " + std::to_string(kept) +
                    " (the kept axes) or " + std::to_string(in.rank) + " (with extent 1 on the reduced axes)");
    for (int k = 0, o = 0; k < in.rank; ++k) {
      const bool r = mask & (1u << k);
      if (r && !keeps_axes) continue;
      const std::int64_t want = r ? 1 : in.extents[k];
      if (out->extents[o] != want)
        throw_invalid("the output's axis " + std::to_string(o) + " has extent " + std::to_string(out->extents[o]) +
                      ", not " + std::to_string(want));
      if (!r) out_stride[k] = out->strides[o];
      ++o;
    }
    if (in.size() > 0 && out->size() > 0) {
      std::uintptr_t in_first, in_last, out_first, out_last;
      byte_range(in, in_first, in_last);
      byte_range(*out, out_first, out_last);
      if (in_first < out_last && out_first < in_last) throw_invalid("the output overlaps the input");
    }
  }

  canonical_shape c;
  for (int k = 0; k < in.rank; ++k) {
    const bool r = mask & (1u << k);
    (r ? c.reduced_size : c.outputs) *= in.extents[k];
    if (in.extents[k] == 1) continue;
    const int d = c.rank;
    if (d > 0 && c.reduced[d - 1] == r && c.in_strides[d - 1] == __int128(in.extents[k]) * in.strides[k] &&
        (r || c.out_strides[d - 1] == __int128(in.extents[k]) * out_stride[k])) {
      // The previous axis is this one's outer continuation: one axis.
      c.extents[d - 1] *= in.extents[k];
      c.in_strides[d - 1] = in.strides[k];
      c.out_strides[d - 1] = r ? 0 : out_stride[k];
      continue;
    }
    c.extents[d] = in.extents[k];
    c.in_strides[d] = in.strides[k];
    c.out_strides[d] = r ? 0 : out_stride[k];
    c.reduced[d] = r;
    ++c.rank;
  }
  return c;
}

}  // namespace cured::detail
