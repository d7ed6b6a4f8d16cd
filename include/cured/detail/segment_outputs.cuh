#pragma once
// The outputs of the segmented reductions as their dispatch (dispatch_segments.cuh) takes them:
// one value per segment through a pointer or a view of one axis, checked on the host; the
// stores that segments_kernel calls per segment (the pair form's skipping the gaps); the
// outputs as exact_rest_kernel walks them.

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "cured/detail/canonical.cuh"
#include "cured/types/error.cuh"
#include "cured/types/view.cuh"
#include "cured/workspace.cuh"

namespace cured::detail {

/// The element type of an output given as a pointer or a view.
template <class O>
struct segment_out_element;
template <class Out>
struct segment_out_element<Out*> {
  using type = Out;
};
template <class Out>
struct segment_out_element<strided_view<Out>> {
  using type = Out;
};

template <class O>
using segment_out_t = typename segment_out_element<std::remove_cv_t<std::remove_reference_t<O>>>::type;

/// An output per segment as a view of one axis: element s at data + s * strides[0].
template <class Out>
strided_view<Out> as_segment_out(Out* p, std::int64_t count) {
  return view(p, {count});
}

template <class Out>
strided_view<Out> as_segment_out(const strided_view<Out>& v, std::int64_t count) {
  if (v.rank != 1 || v.extents[0] != count)
    throw_invalid("the output of " + std::to_string(count) + " segments must be a view of one axis of " +
                  std::to_string(count) + " elements");
  if (count > 1 && v.strides[0] < 1)
    throw_invalid("the output's stride must be positive, not " + std::to_string(v.strides[0]));
  return v;
}

/// The bytes [first, last) an output touches (none for no segments).
template <class Out>
std::pair<std::uintptr_t, std::uintptr_t> bytes_of(const strided_view<Out>& v) {
  std::uintptr_t first = 0, last = 0;
  if (v.extents[0] > 0) byte_range(v, first, last);
  return {first, last};
}

/// A store of the axis engine at segment s's offset, given the segment's length when it takes
/// one (store(at, a, length): the exact and statistics stores, which finish by the count).
template <class Store>
struct segment_store {
  Store store;
  std::int64_t stride;
  template <class Acc>
  __device__ __forceinline__ void operator()(std::int64_t s, const Acc& a, std::int64_t length) const {
    if constexpr (std::is_invocable_v<const Store&, std::int64_t, const Acc&, std::int64_t>) store(s * stride, a, length);
    else store(s * stride, a);
  }
};

/// The pair form's store: segment j of the kernel's sequence is pair j / 2 when j is even, and a
/// gap between pairs, not stored, when odd.
template <class Store>
struct pair_store {
  Store store;
  template <class Acc>
  __device__ __forceinline__ void operator()(std::int64_t j, const Acc& a, std::int64_t length) const {
    if ((j & 1) == 0) store(j >> 1, a, length);
  }
};

/// The segments' outputs as exact_rest_kernel walks them; nothing is read after bad offsets.
struct segment_outputs {
  const std::int64_t* offsets;
  const std::int64_t* ends;  ///< the pair form's; null for one array of offsets
  std::int64_t count;
  std::int64_t stride;
  const unsigned* status;
  __device__ __forceinline__ bool readable() const { return __ldcg(status) == 0; }
  __device__ __forceinline__ void output(std::int64_t o, std::int64_t& in_at, std::int64_t& out_at,
                                         std::int64_t& n) const {
    in_at = offsets[o];
    n = (ends ? ends[o] : offsets[o + 1]) - in_at;
    out_at = o * stride;
  }
  __device__ __forceinline__ std::int64_t element(std::int64_t i) const { return i; }
};

/// Checks a second output per segment beside `first` (the stride of `first`, no byte shared
/// with it, device memory) and returns its bytes.
template <class A, class B>
std::pair<std::uintptr_t, std::uintptr_t> second_segment_output(const strided_view<A>& first,
                                                                const strided_view<B>& second, std::int64_t count,
                                                                const std::string& second_name,
                                                                const std::string& first_name, const workspace& ws) {
  if (second.strides[0] != first.strides[0])
    throw_invalid("the " + second_name + "' stride differs from the " + first_name + "'");
  const auto [a, b] = bytes_of(first);
  const auto bytes = bytes_of(second);
  if (count > 0) {
    if (a < bytes.second && bytes.first < b) throw_invalid("the " + second_name + " overlap the " + first_name);
    workspace::check_device_pointer(second.data, ("the " + second_name).c_str(), ws.device());
  }
  return bytes;
}

}  // namespace cured::detail
