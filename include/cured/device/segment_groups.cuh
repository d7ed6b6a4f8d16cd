#pragma once
// segments_kernel's chunks of short segments of like lengths: a group of lanes per segment.
//
// A chunk's values are staged in shared memory and its k segment ends known by position in the
// merged sequence of values and ends (device/segments.cuh): end e comes after
// bound(e) = positions[e] - e of the chunk's values, so segment e of the chunk holds the values
// [bound(e - 1), bound(e)) (bound(-1) = 0). When no segment of the chunk is much longer than its
// mean, a group of g lanes (a power of two, from the mean) reduces each segment: its lanes take
// every g-th value, then combine by shuffles into the group's first lane. Every segment costs its
// values' loads and one combination, with no walk over the merged sequence and no scan across
// the threads; the groups' order of combination depends only on the offsets.

#include <cstdint>

#include "cured/thread/element_load.cuh"
#include "cured/warp/warp_reduce.cuh"

namespace cured::device {

/// Lanes per segment for a chunk of `elements` values in `ends` segments: the power of two at
/// least half the mean length; 0 (walk the chunk) above a mean of 8. Groups of 8 and 32 lanes
/// (means of 16 and 64 values) were as fast as the walk or slower: a group's segments follow one
/// another, each a round of loads and of shuffles, while the walk's threads take 15 items each
/// at once (docs/PERF.md#segmented-reductions).
__device__ __forceinline__ int group_lanes(std::int64_t elements, std::int64_t ends) {
  const std::int64_t half = (elements + 2 * ends - 1) / (2 * ends);
  if (half > 4) return 0;
  int g = 1;
  while (g < half) g *= 2;
  return g;
}

/// The longest segment a group of g lanes takes: 8 rounds of its loads. A chunk with a longer
/// one is walked instead (its group would keep the others of its block waiting).
__device__ __forceinline__ int group_longest(int g) { return 8 * g; }

/// emit(e, part, count) in the first lane of segment e's group, for e = first, first + by, ...
/// below k (by 2 takes every other segment: the pairs of the pair form, not the gaps between
/// them): part is op over load(index, value) of the segment's `count` values in the chunk,
/// index the value's place in its segment, which for segment 0 starts at `head_before` (its
/// values before the chunk). Every thread of the block calls it, with the same arguments.
template <unsigned B, class Acc, class Elem, class Load, class Op, class Emit>
__device__ __forceinline__ void reduce_in_groups(const int* positions, const Elem* elements, int k, int first, int by,
                                                 int g, std::int64_t head_before, Acc identity, Load load, Op op,
                                                 Emit emit) {
  const int t = int(threadIdx.x), lane = t & (g - 1), groups = int(B) / g;
  for (int e0 = first; e0 < k; e0 += groups * by) {
    const int e = e0 + t / g * by;
    Acc acc = identity;
    int lo = 0, hi = 0;
    if (e < k) {
      lo = e ? positions[e - 1] - (e - 1) : 0;
      hi = positions[e] - e;
      const std::int64_t shift = (e ? 0 : head_before) - lo;
      for (int x = lo + lane; x < hi; x += g) add_later(acc, x + shift, elements[x], load, op);
    }
    for (int o = g / 2; o > 0; o /= 2) acc = op(acc, warp::shuffle_down(acc, o));
    if (e < k && lane == 0) emit(e, acc, hi - lo);
  }
}

}  // namespace cured::device
