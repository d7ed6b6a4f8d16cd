#pragma once
// What segments_kernel (segments.cuh) takes: the reduction's shape, its state in the workspace,
// and the bits of its status word; the dispatch (detail/dispatch_segments.cuh) fills them. And
// how every block of it ends: finish_segments.

#include <cstdint>

#include "cured/grid/split_combine.cuh"
#include "cured/types/segments.cuh"

namespace cured::device {

/// Bits of a segmented reduction's status word (0: the offsets were valid).
inline constexpr unsigned segment_offsets_decrease = offsets_decrease;
inline constexpr unsigned segment_offsets_outside = offsets_outside;

/// The walks of segments_kernel, each a kernel of its own that holds only its own paths'
/// code (detail/dispatch_segments.cuh launches one by the mean length): chunks and windows;
/// with short windows by groups of lanes (grouped); with mixed windows (mixed).
enum class segment_walk { chunks, grouped, mixed };

/// A segmented reduction, as its kernel takes it: a non-decreasing sequence of offsets,
/// segment j holding the values [offset(j), offset(j + 1)). The pair form (ends not null) is the
/// sequence begins[0], ends[0], begins[1], ends[1], ...: its even segments are the pairs, its odd
/// ones the gaps between them, whose results are not stored.
struct segment_shape {
  const std::int64_t* offsets = nullptr;  ///< segments + 1 of them, or the begins of the pairs
  const std::int64_t* ends = nullptr;     ///< the ends of the pairs; null for one array of offsets
  std::int64_t segments = 0;              ///< of the sequence: 2 * pairs - 1 in the pair form
  std::int64_t n = 0;         ///< the values' count
  bool vectors = false;       ///< the values may be read as 16-byte vectors (aligned to their size)
  bool stream_first = false;  ///< l2_policy of the runs' loads
  bool async_copy = false;    ///< the values may be staged by 4- or 8-byte asynchronous copies

  /// Where offset j of the sequence is (Pairs: the pair form, ends not null), and its value.
  template <bool Pairs>
  __device__ __forceinline__ const std::int64_t* offset_address(std::int64_t j) const {
    if constexpr (Pairs) return (j & 1 ? ends : offsets) + (j >> 1);
    else return offsets + j;
  }
  template <bool Pairs>
  __device__ __forceinline__ std::int64_t offset(std::int64_t j) const {
    return __ldg(offset_address<Pairs>(j));
  }
};

/// Whether segment j of the sequence is a gap between pairs (its values need not be read).
template <bool Pairs>
__device__ __forceinline__ bool is_gap(std::int64_t j) {
  return Pairs && (j & 1) != 0;
}

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
