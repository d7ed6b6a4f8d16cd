#pragma once
// The pairs the arg kernel reduces, {index, value}, and their order as an operator, so that
// block::reduce and warp::reduce combine them like any other accumulator.
//
//   using P = arg_pair<std::int32_t, float>;
//   P best = block::reduce<256>(p, arg_order<true>{}, storage);   // argmax; valid in thread 0
//
// Contract of arg_order: the two pairs have distinct indices (or are both identities, whose
// index no element has); then the result is the pair that comes first in the arg order: NaN
// first, then the extreme value, then the smaller index. The identity's value is the lowest
// (Max) or highest value, so any element wins against it.

#include <cstdint>

#include "cured/types/ops.cuh"
#include "cured/warp/warp_reduce.cuh"

namespace cured::block {

/// An index (a block-local key, or the 64-bit index) and a value.
template <class I, class T>
struct arg_pair {
  I index;
  T value;
};

/// arg_minimum (Max false) or arg_maximum (Max true) for pairs with distinct indices.
template <bool Max>
struct arg_order {
  template <class P>
  __device__ __forceinline__ P operator()(const P& a, const P& b) const {
    const bool take_b = a.index < b.index ? cured::detail::arg_later<Max>(a.value, b.value)
                                          : !cured::detail::arg_later<Max>(b.value, a.value);
    return take_b ? b : a;
  }
};

}  // namespace cured::block

namespace cured::warp {

/// A pair crosses lanes field by field: no padding word is shuffled.
template <class I, class T>
struct shuffle<block::arg_pair<I, T>> {
  __device__ __forceinline__ static block::arg_pair<I, T> down(const block::arg_pair<I, T>& v, int offset) {
    return {__shfl_down_sync(0xffffffffu, v.index, offset), warp::shuffle_down(v.value, offset)};
  }
};

}  // namespace cured::warp
