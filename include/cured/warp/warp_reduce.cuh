#pragma once
// Warp-wide reduction with shuffles.
//
//   float s = cured::warp::reduce(v, cured::plus{});   // valid in lane 0 only
//
// Contract: every lane of a full warp calls it; the result is valid in lane 0 only.
// Works for any trivially copyable T: arithmetic types shuffle directly, others as their 32-bit
// words, unless warp::shuffle<T> is specialized (a type with padding shuffles only its fields).

#include <type_traits>

#include "cured/thread/words.cuh"

namespace cured::warp {

/// How a T crosses lanes: down(v, offset) returns lane (this + offset)'s v, up(v, offset) lane
/// (this - offset)'s (its own v where there is none).
template <class T, class = void>
struct shuffle {
  __device__ __forceinline__ static T down(const T& v, int offset) { return by_words<false>(v, offset); }
  __device__ __forceinline__ static T up(const T& v, int offset) { return by_words<true>(v, offset); }

private:
  template <bool Up>
  __device__ __forceinline__ static T by_words(const T& v, int offset) {
    static_assert(std::is_trivially_copyable_v<T>, "cured: accumulators must be trivially copyable");
    constexpr int words = thread::word_count<T>;
    unsigned in[words], out[words];
    thread::words_of(v, in);
#pragma unroll
    for (int w = 0; w < words; ++w)
      out[w] = Up ? __shfl_up_sync(0xffffffffu, in[w], offset) : __shfl_down_sync(0xffffffffu, in[w], offset);
    return thread::from_words<T>(out);
  }
};

template <class T>
struct shuffle<T, std::enable_if_t<std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)>> {
  __device__ __forceinline__ static T down(const T& v, int offset) { return __shfl_down_sync(0xffffffffu, v, offset); }
  __device__ __forceinline__ static T up(const T& v, int offset) { return __shfl_up_sync(0xffffffffu, v, offset); }
};

template <class T>
__device__ __forceinline__ T shuffle_down(const T& v, int offset) {
  return shuffle<T>::down(v, offset);
}

template <class T>
__device__ __forceinline__ T shuffle_up(const T& v, int offset) {
  return shuffle<T>::up(v, offset);
}

/// op over lanes [0, Lanes) of the warp, into lane 0 (Lanes a power of two, at most 32).
template <int Lanes = 32, class T, class Op>
__device__ __forceinline__ T reduce(T v, Op op) {
  static_assert(Lanes >= 1 && Lanes <= 32 && (Lanes & (Lanes - 1)) == 0, "cured: lanes must be a power of two <= 32");
#pragma unroll
  for (int offset = Lanes / 2; offset > 0; offset >>= 1) v = op(v, shuffle_down(v, offset));
  return v;
}

/// A warp's segmented scan: each lane's `v` with a flag `closed` (a segment ended in this
/// lane). The inclusive result (closed: whether some lane up to this one closed; v: op over the
/// lanes since the last that closed, that lane's own v included), and the exclusive one, lane
/// - 1's (lane 0: not closed, identity).
template <class T>
struct segmented_scan_result {
  bool closed;
  T v;
  bool closed_before;
  T v_before;
};

template <class T, class Op>
__device__ __forceinline__ segmented_scan_result<T> segmented_scan(bool closed, T v, T identity, Op op) {
  const int lane = int(threadIdx.x % 32);
#pragma unroll
  for (int o = 1; o < 32; o *= 2) {
    const bool closed_up = __shfl_up_sync(0xffffffffu, closed, o);
    const T v_up = shuffle_up(v, o);
    if (lane >= o) {
      if (!closed) v = op(v_up, v);
      closed = closed || closed_up;
    }
  }
  const bool closed_before = __shfl_up_sync(0xffffffffu, closed, 1);
  const T v_before = shuffle_up(v, 1);
  return {closed, v, lane ? closed_before : false, lane ? v_before : identity};
}

}  // namespace cured::warp
