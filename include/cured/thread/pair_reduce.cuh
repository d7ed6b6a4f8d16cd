#pragma once
// A thread's reduction of its share of two inputs of the same length, element by element
// (the dot products): Policy::unroll 16-byte loads of each in flight per iteration.
//
//   Acc v = pair_reduce<Policy>(x, y, n, op, identity, thread, threads, l2);  // op(acc, x[i], y[i])
//
// When x and y sit at the same offset from a 16-byte boundary, both are read as vectors (with
// a scalar head and tail, as thread_reduce); otherwise both are read element by element,
// Policy::unroll * (16 / sizeof(In)) loads in flight per thread. The assignment of elements to
// threads depends only on n, the two offsets and the thread count.

#include <cstdint>

#include "cured/thread/load.cuh"

namespace cured::thread {

template <class Policy, class In, class Acc, class Op>
__device__ __forceinline__ Acc pair_reduce(const In* __restrict__ x, const In* __restrict__ y, std::int64_t n,
                                           Op& op, Acc acc, std::int64_t thread, std::int64_t threads,
                                           std::uint64_t l2) {
  using vec = vector16<In>;
  constexpr int U = Policy::unroll, V = vec::size;
  const std::int64_t head = unaligned_head(x, n);
  if (head == unaligned_head(y, n) && reinterpret_cast<std::uintptr_t>(x) % sizeof(In) == 0 &&
      reinterpret_cast<std::uintptr_t>(y) % sizeof(In) == 0) {
    const std::int64_t vectors = (n - head) / V, tail = head + vectors * V;
    const vec* __restrict__ bx = reinterpret_cast<const vec*>(x + head);
    const vec* __restrict__ by = reinterpret_cast<const vec*>(y + head);
    std::int64_t j = thread;
    for (; j + (U - 1) * threads < vectors; j += U * threads) {
      vec a[U], b[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        a[u] = load_vector(bx + j + u * threads, l2);
        b[u] = load_vector(by + j + u * threads, l2);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int k = 0; k < V; ++k) acc = op(acc, a[u].v[k], b[u].v[k]);
    }
    for (; j < vectors; j += threads) {
      const vec a = load_vector(bx + j, l2), b = load_vector(by + j, l2);
#pragma unroll
      for (int k = 0; k < V; ++k) acc = op(acc, a.v[k], b.v[k]);
    }
    if (thread < head) acc = op(acc, x[thread], y[thread]);
    if (tail + thread < n) acc = op(acc, x[tail + thread], y[tail + thread]);
    return acc;
  }
  constexpr int S = U * V;  // scalar loads of each input in flight
  std::int64_t i = thread;
  for (; i + (S - 1) * threads < n; i += S * threads) {
    In a[S], b[S];
#pragma unroll
    for (int u = 0; u < S; ++u) {
      a[u] = x[i + u * threads];
      b[u] = y[i + u * threads];
    }
#pragma unroll
    for (int u = 0; u < S; ++u) acc = op(acc, a[u], b[u]);
  }
  for (; i < n; i += threads) acc = op(acc, x[i], y[i]);
  return acc;
}

}  // namespace cured::thread
