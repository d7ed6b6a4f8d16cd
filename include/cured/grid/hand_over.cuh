#pragma once
// The hand-over between the blocks of a grid: a start ticket per block, a slot per block for
// its partial, and the block that draws the last ticket combines the others' partials.
//
//   const unsigned ticket = draw_start_ticket<slot<Acc>::words>(st);   // first thing
//   ... the block's reduction into v (thread 0) ...
//   if (hand_over(ticket, v, op, identity, st, block_combine)) deliver(out, v, st.done);
//
// Every block has started by the time one draws the last ticket, so the combining block's
// waits for the others cannot deadlock. It combines the partials in block order whatever order
// they arrive in: the result depends only on the grid. The ticket wraps to 0 and every slot is
// cleared as it is read, so the workspace is ready for the next launch.

#include <cstddef>
#include <cstdint>

#include "cured/types/completion.cuh"
#include "cured/thread/words.cuh"

namespace cured::grid {

/// A block's partial as the workspace holds it: one 64-bit word per 32 bits of the value, the
/// upper half a tag (1: published). Each word is written and read whole (single-copy atomic),
/// so a word's value is seen exactly when its tag is; no fence is needed between a partial and
/// its tag. Between launches every slot is 0. Slots are packed, a block's after the one before,
/// so that the combining block's polls touch as few L2 sectors as there can be: polling traffic
/// delays the partials it waits for (docs/PERF.md#one-packed-slot-per-block).
template <class Acc>
struct slot {
  static constexpr int words = thread::word_count<Acc>;
  static_assert(words <= 32, "cured: accumulator too large for a slot");
  /// Slots one thread of the combining block polls at once (their words all in flight).
  static constexpr int batch = words >= 8 ? 1 : 8 / words;
};

/// What a launch needs besides its input: the input's L2 policy, the workspace's start ticket
/// and slots, and where to report the result (blocking forms).
struct launch_state {
  bool stream_first = false;  ///< load with evict_first (see l2_policy)
  unsigned int* ticket = nullptr;
  std::uint64_t* slots = nullptr;
  completion done;
};

__device__ __forceinline__ void store_relaxed(std::uint64_t* p, std::uint64_t v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ std::uint64_t load_relaxed(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

/// A value with 16 bytes of shared memory to itself (aligned and padded to 16). ptxas may read a
/// 12-byte value's three words by one 16-byte load, which would otherwise cover a word of the
/// variable beside it: here the last word of the block's reduction storage, which the block's
/// second reduction writes while the combining block reads its own partial (a word the load does
/// not use, but a race, and compute-sanitizer's racecheck reports it).
template <class T>
struct alignas(16) shared_alone {
  T value;
};

/// Writes v into slot s (slot<Acc>::words words at s), tagged 1.
template <class Acc>
__device__ __forceinline__ void publish(std::uint64_t* s, const Acc& v) {
  unsigned w[slot<Acc>::words];
  thread::words_of(v, w);
#pragma unroll
  for (int k = 0; k < slot<Acc>::words; ++k) store_relaxed(s + k, (std::uint64_t(1) << 32) | w[k]);
}

/// In one thread: the combination, in block order, of the partials of blocks first, first +
/// stride, ... below `count`: `own` for block own_index, the others' from their slots, each
/// waited for and then cleared. The slots of a batch are polled together, so that their round
/// trips overlap.
template <class Acc, class Op>
__device__ __forceinline__ Acc collect_share(std::uint64_t* slots, unsigned first, unsigned stride, unsigned count,
                                             Op& op, const Acc& identity, unsigned own_index, const Acc& own) {
  constexpr int words = slot<Acc>::words, batch = slot<Acc>::batch;
  constexpr unsigned all = words == 32 ? ~0u : (1u << words) - 1;
  Acc acc = identity;
  for (; first < count; first += batch * stride) {
    std::uint64_t x[batch][words];
    unsigned pending[batch];  // per slot: words not yet seen published
#pragma unroll
    for (int k = 0; k < batch; ++k) {
      const unsigned i = first + k * stride;
      pending[k] = i < count && i != own_index ? all : 0u;
    }
    for (bool waiting = true; waiting;) {
#pragma unroll
      for (int k = 0; k < batch; ++k)
#pragma unroll
        for (int w = 0; w < words; ++w)
          if (pending[k] & (1u << w)) x[k][w] = load_relaxed(slots + std::size_t(first + k * stride) * words + w);
      waiting = false;
#pragma unroll
      for (int k = 0; k < batch; ++k) {
#pragma unroll
        for (int w = 0; w < words; ++w)
          if ((pending[k] & (1u << w)) && (x[k][w] >> 32) != 0) pending[k] &= ~(1u << w);
        waiting |= pending[k] != 0;
      }
    }
#pragma unroll
    for (int k = 0; k < batch; ++k) {
      const unsigned i = first + k * stride;
      if (i >= count) break;
      if (i == own_index) {
        acc = op(acc, own);
        continue;
      }
      unsigned w32[words];
#pragma unroll
      for (int w = 0; w < words; ++w) {
        w32[w] = unsigned(x[k][w]);
        store_relaxed(slots + std::size_t(i) * words + w, 0);
      }
      acc = op(acc, thread::from_words<Acc>(w32));
    }
  }
  return acc;
}

/// First thing in every block of a grid of several: thread 0 draws the block's start ticket
/// (returned in thread 0; the block that draws grid - 1 combines), and block 0 brings the
/// slots' lines (Words 8-byte words per block) into L2 ahead of the combining block's polls.
template <int Words>
__device__ __forceinline__ unsigned draw_start_ticket(const launch_state& st) {
  const unsigned t = threadIdx.x, grid = gridDim.x;
  unsigned start = 0;
  if (grid > 1) {
    if (t == 0) start = atomicInc(st.ticket, grid - 1);  // wraps to 0 after the last block: ready for the next launch
    if (blockIdx.x == 0)
      for (unsigned line = t; line * 128 < grid * Words * 8u; line += blockDim.x)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(reinterpret_cast<const char*>(st.slots) + line * 128));
  }
  return start;
}

/// The end of a block of a grid of several, after the block's reduction (v valid in thread 0),
/// in every thread: every block but the combining one (start ticket grid - 1) publishes its
/// partial and leaves; in the combining block every thread combines its share of the partials
/// (blocks t, t + blockDim.x, ...: one each, for grids up to a block's threads), and
/// block_combine(share) (valid in thread 0; all threads call it) combines the shares, into v in
/// thread 0. Returns true in the combining block's thread 0, false everywhere else.
template <class Acc, class Op, class BlockCombine>
__device__ __forceinline__ bool hand_over(unsigned ticket, Acc& v, Op& op, const Acc& identity, const launch_state& st,
                                          BlockCombine&& block_combine) {
  __shared__ bool combines;
  __shared__ shared_alone<Acc> own;
  const unsigned t = threadIdx.x, grid = gridDim.x;
  if (t == 0) {
    combines = ticket == grid - 1;
    if (combines) own.value = v;
    else publish(st.slots + std::size_t(blockIdx.x) * slot<Acc>::words, v);
  }
  __syncthreads();  // also: the block's reduction storage may be reused
  if (!combines) return false;
  v = block_combine(collect_share(st.slots, t, blockDim.x, grid, op, identity, blockIdx.x, own.value));
  return t == 0;
}

}  // namespace cured::grid
