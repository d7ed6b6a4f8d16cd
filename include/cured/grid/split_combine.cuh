#pragma once
// Outputs whose elements are split over several blocks: each block writes its part of the
// output's partials, and the block that arrives last combines every part, in part order.
//
//   store_part(parts, k, v);                              // the threads holding parts
//   if (last_to_arrive(counters + group, splits)) {       // every thread of the block
//     const Acc p = load_part<Acc>(parts, k);             // any part of the group, in order
//     ...
//   }
//
// The combination order depends only on the launch, never on which block arrives last, so
// results are bit-identical run to run. The last block resets its counter to 0, ready for the
// next launch.

#include <cstddef>
#include <cstdint>

#include "cured/thread/words.cuh"

namespace cured::grid {

/// Parts as the workspace holds them: each accumulator in word_count<Acc> 32-bit words, so
/// that any accumulator (two-byte ones included) is written and read whole.
template <class Acc>
inline constexpr std::size_t part_bytes = thread::word_count<Acc> * sizeof(unsigned);

/// Writes part `k` of the parts at `parts` (plain stores; last_to_arrive publishes them).
template <class Acc>
__device__ __forceinline__ void store_part(unsigned* parts, std::int64_t k, const Acc& v) {
  unsigned w[thread::word_count<Acc>];
  thread::words_of(v, w);
#pragma unroll
  for (int j = 0; j < thread::word_count<Acc>; ++j) parts[k * thread::word_count<Acc> + j] = w[j];
}

/// Reads part `k`, written by another block (at the L2: never a stale line of this SM's L1).
template <class Acc>
__device__ __forceinline__ Acc load_part(const unsigned* parts, std::int64_t k) {
  unsigned w[thread::word_count<Acc>];
#pragma unroll
  for (int j = 0; j < thread::word_count<Acc>; ++j)
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];"
                 : "=r"(w[j])
                 : "l"(parts + k * thread::word_count<Acc> + j)
                 : "memory");
  return thread::from_words<Acc>(w);
}

/// Called by every thread of a block once its threads have stored their parts of the group
/// counted at *counter: true in every thread of the block that arrives last of `splits`, which
/// may then load every part of the group.
__device__ __forceinline__ bool last_to_arrive(unsigned* counter, unsigned splits) {
  __shared__ bool last;
  __threadfence();  // this thread's parts, visible to the whole device before the arrival
  __syncthreads();
  if (threadIdx.x == 0) {
    const bool is_last = atomicAdd(counter, 1u) == splits - 1;
    if (is_last) {
      *counter = 0;
      __threadfence();  // the others' parts, ordered before this block's loads
    }
    last = is_last;
  }
  __syncthreads();
  return last;
}

/// Whether, as far as this thread looks (blocks threadIdx.x, + Block, ...), the ranges
/// [ranges[2b], ranges[2b + 1]) of `blocks` blocks fail to follow one another from 0 to `total`
/// (a block that took nothing holds total, total). Called by every thread of a block once every
/// block has written its range; __syncthreads_or of the answers is the whole block's.
template <unsigned Block>
__device__ __forceinline__ bool ranges_gap(const std::int64_t* ranges, std::int64_t blocks, std::int64_t total) {
  bool gap = false;
  for (std::int64_t q = threadIdx.x; q < blocks; q += Block) {
    const std::int64_t from = __ldcg(ranges + 2 * q), to = __ldcg(ranges + 2 * q + 1);
    const std::int64_t next = q + 1 < blocks ? __ldcg(ranges + 2 * q + 2) : total;
    gap |= (q == 0 && from != 0 && total > 0) || to != next || from > to;
  }
  return gap;
}

}  // namespace cured::grid
