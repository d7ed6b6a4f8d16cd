#pragma once
// A thread's loads: 16-byte vectors through the non-coherent path with an L2 policy, and where
// an input's elements lie for them (the scalar head, the vectors, the scalar tail).
//
//   const input_span<float> s = span_of(d_x, n);        // on the host or the device
//   vector16<float> v = load_vector(body + i, l2_policy(evict_first));

#include <cuda_pipeline.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cured::device {

/// 16 bytes of T: the unit of every vector load.
template <class T>
struct alignas(16) vector16 {
  static constexpr int size = sizeof(T) <= 16 ? int(16 / sizeof(T)) : 1;
  T v[size];
};

/// Elements before the first 16-byte boundary of `in` (at most n).
template <class T>
__host__ __device__ inline std::int64_t unaligned_head(const T* in, std::int64_t n) {
  // Unsigned and branch-free: this is on the path to every block's first load.
  const std::int64_t head = std::int64_t(((16 - reinterpret_cast<std::uintptr_t>(in)) & 15) / sizeof(T));
  return head < n ? head : n;
}

/// The L2 policy of load_vector: evict_first or evict_unchanged (which inputs take evict_first:
/// detail::load_policy). (The policy travels in the
/// load's memory descriptor: the same instruction either way.)
__device__ __forceinline__ std::uint64_t l2_policy(bool evict_first) {
  std::uint64_t p = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (evict_first) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  else asm("createpolicy.fractional.L2::evict_unchanged.b64 %0, 1.0;" : "=l"(p));
#else
  (void)evict_first;
#endif
  return p;
}

/// *p through the non-coherent path with the cache policy `l2` (from l2_policy). The input
/// must not change while the kernel runs.
template <class V>
__device__ __forceinline__ V load_vector(const V* p, std::uint64_t l2) {
  static_assert(sizeof(V) == 16 && alignof(V) == 16);
  uint4 r;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
      : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
      : "l"(p), "l"(l2));
#else
  (void)l2;
  r = __ldg(reinterpret_cast<const uint4*>(p));
#endif
  V v;
  memcpy(&v, &r, sizeof(V));
  return v;
}

/// Where an input's elements lie for the vector loads: the scalar head before the first
/// 16-byte boundary, the 16-byte vectors after it, the scalar tail. A pure function of the
/// pointer and n (span_of), made once on the host for a kernel that takes it as a parameter.
template <class In>
struct input_span {
  const In* in = nullptr;
  std::int64_t n = 0;
  std::int64_t head = 0;     ///< elements before the first vector (at most n)
  std::int64_t vectors = 0;  ///< whole 16-byte vectors after the head
  std::int64_t tail = 0;     ///< the first element after the vectors
  bool vectorized = true;    ///< false: no element starts on a 16-byte boundary; scalar loads only
};

template <class In>
__host__ __device__ inline input_span<In> span_of(const In* in, std::int64_t n) {
  input_span<In> s;
  s.in = in;
  s.n = n;
  if constexpr (sizeof(In) > 16 || 16 % sizeof(In) != 0) {
    s.vectorized = false;
  } else {
    // A type aligned below its size (a struct of two doubles at an 8-byte offset ...): no
    // element starts on a 16-byte boundary, so no vector load is safe.
    if constexpr (alignof(In) < sizeof(In)) s.vectorized = reinterpret_cast<std::uintptr_t>(in) % sizeof(In) == 0;
    if (s.vectorized) {
      s.head = unaligned_head(in, n);
      s.vectors = std::int64_t(std::uint64_t(n - s.head) / vector16<In>::size);
      s.tail = s.head + s.vectors * vector16<In>::size;
    }
  }
  return s;
}

/// *p, through the read-only path where the type allows.
template <class In>
__device__ __forceinline__ In load_element(const In* p) {
  if constexpr (std::is_arithmetic_v<In>) return __ldg(p);
  else return *p;
}

/// *dst = *src (shared from global) through an asynchronous copy where the element allows it
/// (4 or 8 bytes, aligned to its size: `async`; complete after __pipeline_commit() and
/// __pipeline_wait_prior), else through a register.
template <class In>
__device__ __forceinline__ void stage_element(In* dst, const In* src, bool async) {
  if constexpr (sizeof(In) == 4 || sizeof(In) == 8) {
    if (async) {
      __pipeline_memcpy_async(dst, src, sizeof(In));
      return;
    }
  }
  *dst = load_element(src);
}

}  // namespace cured::device
