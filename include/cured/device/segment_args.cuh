#pragma once
// What segments_kernel (segments.cuh) takes: the reduction's shape, its state in the workspace,
// and the bits of its status word; the dispatch (detail/dispatch_segments.cuh) fills them. And
// how every block of it ends: finish_segments.

#include <cstdint>

#include "cured/grid/split_combine.cuh"

namespace cured::device {

/// Bits of a segmented reduction's status word (0: the offsets were valid).
inline constexpr unsigned segment_offsets_decrease = 1;  ///< some offset is below the one before it
inline constexpr unsigned segment_offsets_outside = 2;   ///< offsets[0] < 0 or offsets[count] > n

/// A segmented reduction, as its kernel takes it.
struct segment_shape {
  const std::int64_t* offsets = nullptr;  ///< segments + 1 of them
  std::int64_t segments = 0;
  std::int64_t n = 0;         ///< the values' count
  bool vectors = false;       ///< the values may be read as 16-byte vectors (aligned to their size)
  bool stream_first = false;  ///< l2_policy of the runs' loads
  bool async_copy = false;    ///< the values may be staged by 4- or 8-byte asynchronous copies
};

/// The kernel's state in the workspace, zero between launches where it says so.
struct segment_scratch {
  unsigned* parts;         ///< two accumulators per block: the part before its first end, after its last
  unsigned* counters;      ///< one per block, zero between launches
  unsigned* error;         ///< one word, zero between launches
  unsigned* ticket;        ///< one word, zero between launches
  std::int64_t* ranges;    ///< two per block: the first and one past the last segment end it walked
};

__device__ __forceinline__ std::int64_t smaller(std::int64_t a, std::int64_t b) { return a < b ? a : b; }
__device__ __forceinline__ std::int64_t larger(std::int64_t a, std::int64_t b) { return a < b ? b : a; }

/// The end of every block of segments_kernel: its range of ends [first, last) and its error bits
/// go to the scratch; the last block to arrive checks that the ranges meet and cover [0, S) and
/// writes the status word.
template <unsigned B>
__device__ __forceinline__ void finish_segments(const segment_scratch& scratch, std::int64_t first, std::int64_t last,
                                                unsigned error, std::int64_t S, unsigned* status) {
  const std::int64_t b = blockIdx.x, G = gridDim.x;
  const unsigned t = threadIdx.x;
  if (t == 0) {
    scratch.ranges[2 * b] = first;
    scratch.ranges[2 * b + 1] = last;
    if (error) atomicOr(scratch.error, error);
  }
  if (!last_to_arrive(scratch.ticket, unsigned(G))) return;
  // The last block: the blocks' ranges of ends meet and cover [0, S).
  bool gap = false;
  if (!(__ldcg(scratch.error) & segment_offsets_outside)) gap = ranges_gap<B>(scratch.ranges, G, S);
  gap = __syncthreads_or(gap);
  const unsigned all = __ldcg(scratch.error) | (gap ? segment_offsets_decrease : 0u);
  if (all) {
    // A bad launch may leave counters part-way: the next one starts from zero.
    for (std::int64_t q = t; q < G; q += B) scratch.counters[q] = 0;
  }
  if (t == 0) {
    *status = all;
    *scratch.error = 0;
  }
}

}  // namespace cured::device
