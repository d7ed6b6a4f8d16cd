#pragma once
// A value as 32-bit words: how values cross lanes (warp::shuffle), blocks (the hand-over's
// slots) and the bus (the blocking forms' report words).

#include <cstring>

namespace cured::thread {

/// 32-bit words that hold a T.
template <class T>
inline constexpr int word_count = int((sizeof(T) + 3) / 4);

/// v's 32-bit words, padded with zeros.
template <class T>
__device__ __forceinline__ void words_of(const T& v, unsigned (&w)[word_count<T>]) {
#pragma unroll
  for (int k = 0; k < word_count<T>; ++k) w[k] = 0;
  memcpy(w, &v, sizeof(T));
}

/// The T whose words are w (the inverse of words_of).
template <class T>
__device__ __forceinline__ T from_words(const unsigned (&w)[word_count<T>]) {
  T v;
  memcpy(&v, w, sizeof(T));
  return v;
}

/// *out = v, writing every byte of *out, padding included (key_value<__half> has six bytes of
/// it), so that copying the whole object back never reads uninitialized memory.
template <class T>
__device__ __forceinline__ void store_whole(T* out, const T& v) {
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned words[sizeof(T) / 4];
    memcpy(words, &v, sizeof(T));
#pragma unroll
    for (unsigned w = 0; w < sizeof(T) / 4; ++w) reinterpret_cast<unsigned*>(out)[w] = words[w];
  } else {
    *out = v;
  }
}

}  // namespace cured::thread
