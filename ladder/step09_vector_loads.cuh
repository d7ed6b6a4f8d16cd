#pragma once
// Step 9: 16-byte vector loads, several in flight per thread.
// Change: each thread issues Unroll independent 16-byte loads per iteration (LDG.128) before
// adding any of them, so one warp has 2 KB of reads outstanding instead of 256 bytes; fewer
// load instructions and more bytes in flight is what a memory-bound kernel needs on Hopper.
// Any alignment of the input works: elements before the first 16-byte boundary and after the
// last whole vector are read one by one.

#include <algorithm>
#include <cstdint>

#include "ladder/step08_warp_shuffle.cuh"

namespace cured::ladder {

/// 16 bytes of T, loaded by one instruction.
template <class T>
struct alignas(16) vec16 {
  static constexpr int size = 16 / sizeof(T);
  T v[size];
};

inline constexpr int vector_unroll = 4;

/// Elements of `in` before its first 16-byte boundary (at most n).
template <class T>
__host__ __device__ inline std::int64_t unaligned_head(const T* in, std::int64_t n) {
  const auto misalign = reinterpret_cast<std::uintptr_t>(in) % 16;
  const std::int64_t head = misalign ? std::int64_t((16 - misalign) / sizeof(T)) : 0;
  return head < n ? head : n;
}

/// This thread's sum of in[0, n): scalar head and tail, vector body, grid-stride.
/// thread: the thread's index in the grid; threads: threads in the grid.
template <class In, class Acc>
__device__ Acc thread_sum_vectorized(const In* in, std::int64_t n, std::int64_t thread, std::int64_t threads) {
  using vec = vec16<In>;
  const std::int64_t head = unaligned_head(in, n);
  const std::int64_t vectors = (n - head) / vec::size;
  const std::int64_t tail = head + vectors * vec::size;
  const vec* body = reinterpret_cast<const vec*>(in + head);
  Acc v = Acc(0);
  if (thread < head) v += Acc(in[thread]);
  if (thread < n - tail) v += Acc(in[tail + thread]);
  std::int64_t i = thread;
  for (; i + (vector_unroll - 1) * threads < vectors; i += vector_unroll * threads) {
    vec r[vector_unroll];
#pragma unroll
    for (int u = 0; u < vector_unroll; ++u) r[u] = body[i + u * threads];
#pragma unroll
    for (int u = 0; u < vector_unroll; ++u)
#pragma unroll
      for (int k = 0; k < vec::size; ++k) v += Acc(r[u].v[k]);
  }
  for (; i < vectors; i += threads) {
    const vec r = body[i];
#pragma unroll
    for (int k = 0; k < vec::size; ++k) v += Acc(r.v[k]);
  }
  return v;
}

template <unsigned Block, class In, class Acc>
__global__ void __launch_bounds__(Block) step09_kernel(const In* in, std::int64_t n, Acc* out) {
  const std::int64_t thread = std::int64_t(blockIdx.x) * Block + threadIdx.x;
  Acc v = thread_sum_vectorized<In, Acc>(in, n, thread, std::int64_t(gridDim.x) * Block);
  v = shuffle_block_sum<Block>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/// Blocks for a vectorized grid-stride pass: one full wave, fewer when n is small.
template <unsigned Block, class In>
std::int64_t vectorized_grid(std::int64_t n) {
  const std::int64_t per_block = std::int64_t(Block) * vec16<In>::size * vector_unroll;
  return std::max<std::int64_t>(1, std::min(ceil_div(n, per_block), full_wave_blocks(Block)));
}

struct step09_vector_loads : multi_pass_step<step09_vector_loads> {
  static constexpr int number = 9;
  static constexpr std::string_view file = "step09_vector_loads";
  static constexpr std::string_view title = "16-byte vector loads";
  static constexpr std::string_view change =
      "4 independent 16-byte loads per thread per iteration: fewer instructions, more bytes in flight";

  template <unsigned Block, class In>
  static std::int64_t grid(std::int64_t n) {
    return vectorized_grid<Block, In>(n);
  }
  template <unsigned Block, class In, class Acc>
  static constexpr auto kernel = step09_kernel<Block, In, Acc>;
};

}  // namespace cured::ladder
