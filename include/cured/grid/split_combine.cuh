#pragma once
// Outputs whose elements are split over several blocks: each block writes its part of the
// output's partials, and the block that arrives last combines every part, in part order.
//
//   store_part(partials + part_index, v);                 // the threads holding parts
//   if (last_to_arrive(counters + group, splits)) {       // every thread of the block
//     const Acc p = load_part(partials + k);              // any part of the group, k in order
//     ...
//   }
//
// The combination order depends only on the launch, never on which block arrives last, so
// results are bit-identical run to run. The last block resets its counter to 0, ready for the
// next launch.

#include <cstdint>

#include "cured/thread/words.cuh"

namespace cured::device {

/// Writes a part (plain stores; last_to_arrive publishes them).
template <class Acc>
__device__ __forceinline__ void store_part(Acc* at, const Acc& v) {
  store_whole(at, v);
}

/// Reads a part written by another block (at the L2: never a stale line of this SM's L1).
template <class Acc>
__device__ __forceinline__ Acc load_part(const Acc* at) {
  static_assert(sizeof(Acc) % 4 == 0 && alignof(Acc) >= 4, "cured: split accumulators must be whole 32-bit words");
  unsigned w[word_count<Acc>];
#pragma unroll
  for (int k = 0; k < word_count<Acc>; ++k)
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(w[k]) : "l"(reinterpret_cast<const unsigned*>(at) + k)
                 : "memory");
  return from_words<Acc>(w);
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

}  // namespace cured::device
