#pragma once
// Warp-wide reduction with shuffles.
//
//   float s = cured::warp::reduce(v, cured::plus{});   // valid in lane 0 only
//
// Contract: every lane of a full warp calls it; the result is valid in lane 0 only.
// Works for any trivially copyable Acc: arithmetic types shuffle directly, others (key_value,
// user types) as a sequence of 32-bit words.

#include <cstring>
#include <type_traits>

namespace cured::warp {

template <class T>
__device__ __forceinline__ T shuffle_down(const T& v, int offset) {
  if constexpr (std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)) {
    return __shfl_down_sync(0xffffffffu, v, offset);
  } else {
    static_assert(std::is_trivially_copyable_v<T>, "cured: accumulators must be trivially copyable");
    constexpr int words = (sizeof(T) + 3) / 4;
    unsigned in[words] = {}, out[words];
    memcpy(in, &v, sizeof(T));
#pragma unroll
    for (int w = 0; w < words; ++w) out[w] = __shfl_down_sync(0xffffffffu, in[w], offset);
    T r;
    memcpy(&r, out, sizeof(T));
    return r;
  }
}

template <class T, class Op>
__device__ __forceinline__ T reduce(T v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, shuffle_down(v, offset));
  return v;
}

}  // namespace cured::warp
