#pragma once
// segments_kernel's groups of lanes a segment: for the chunks of short segments of like lengths,
// and for the windows of medium segments (reduce_medium_segments).
//
// A chunk's values are staged in shared memory and its k segment ends known by position in the
// merged sequence of values and ends (device/segments.cuh): end e comes after
// bound(e) = positions[e] - e of the chunk's values, so segment e of the chunk holds the values
// [bound(e - 1), bound(e)) (bound(-1) = 0). When no segment of the chunk is much longer than its
// mean, a group of g lanes (a power of two, from the mean) reduces each segment: its lanes take
// every g-th value, then combine by shuffles into the group's first lane. Every segment costs its
// values' loads and one combination, with no walk over the merged sequence and no scan across
// the threads; the groups' order of combination depends only on the offsets.
//
// A window of medium segments (up to Block in a row, their ends in shared memory) is read straight
// from global memory by groups of 2 to 32 lanes, as 16-byte vectors: the fewer lanes a segment,
// the more segments a warp reads at once, each group's in one round trip.

#include <cstdint>

#include "cured/device/segment_args.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/thread/reduce_row.cuh"
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
      for (int x = lo + lane; x < hi; x += g) thread::add_later(acc, x + shift, elements[x], load, op);
    }
    for (int o = g / 2; o > 0; o /= 2) acc = op(acc, warp::shuffle_down(acc, o));
    if (e < k && lane == 0) emit(e, acc, hi - lo);
  }
}

/// The shared state of a block's windows of medium segments: their ends, and the first segment
/// that a window of medium ones and one of mixed ones would not take.
template <unsigned B>
struct medium_windows {
  std::int64_t ends[B];
  unsigned first_not[2];
};

/// The segments a window takes from segment s (the open one, starting on value i, `gap` values
/// long), their ends in w.ends. Medium ones: Policy::group_min<In> values or more (or gaps between
/// pairs) and below run_min; Block / 8 or more of them, or fewer when the first has warp_min
/// values or more. Else, where Mixed and `mixed`, mixed ones: below warp_min values, Block / 8
/// or more of a mean of group_min (mixed is cleared when they are not). Each ends within
/// [i, oS] and within the block's next `room` items. medium_next: whether Block / 8 or more were
/// medium. 0: none. Every thread calls it, with the same arguments.
template <class Policy, bool Pairs, bool Mixed, class In, unsigned B>
__device__ __forceinline__ unsigned medium_window(medium_windows<B>& w, const segment_shape& shape, std::int64_t s,
                                                  std::int64_t i, std::int64_t gap, std::int64_t room,
                                                  std::int64_t oS, bool& medium_next, bool& mixed) {
  constexpr std::int64_t group_min = Policy::template group_min<In>;
  constexpr std::int64_t warp_min = Policy::warp_min, run_min = Policy::run_min;
  const unsigned t = threadIdx.x;
  const std::int64_t j = s + t, e = j < shape.segments ? shape.template offset<Pairs>(j + 1) : 0;
  w.ends[t] = e;
  if (t == 0) w.first_not[0] = w.first_not[1] = B;
  __syncthreads();
  const std::int64_t length = e - (t ? w.ends[t - 1] : i);
  const bool fits = j < shape.segments && length >= 0 && length < run_min && e <= oS && t + (e - i) < room;
  if (!(fits && (length >= group_min || is_gap<Pairs>(j)))) atomicMin(&w.first_not[0], t);
  if (Mixed && !(fits && (length < warp_min || is_gap<Pairs>(j)))) atomicMin(&w.first_not[1], t);
  __syncthreads();
  const unsigned g = w.first_not[0], h = w.first_not[1];
  medium_next = g >= B / 8;
  if (g > 0 && (g >= B / 8 || gap >= warp_min)) return g;
  if constexpr (!Mixed) return 0;
  mixed = mixed && h >= B / 8 && w.ends[h - 1] - i >= group_min * std::int64_t(h);
  return mixed ? h : 0;
}

/// Medium segments s + q for q in [0, g) of a window, ends[q] the end of each (the first starting
/// on value i): store(s + q, reduction, length) for each but the gaps between pairs (by 2: every
/// other, from `first`). A group of Lanes threads per segment, the warp's groups on consecutive
/// ones; every thread of the block calls it.
template <int Lanes, unsigned B, class In, class Acc, class Load, class Op, class Store>
__device__ __forceinline__ void reduce_medium_in(const std::int64_t* ends, unsigned g, unsigned first, unsigned by,
                                                 const In* __restrict__ in, std::int64_t s, std::int64_t i,
                                                 bool vectors, std::uint64_t l2, Acc identity, Load load, Op op,
                                                 Store store) {
  constexpr unsigned per_warp = 32 / Lanes, groups = B / Lanes;
  const unsigned t = threadIdx.x, lane = t % Lanes;
  for (unsigned q0 = first + t / 32 * per_warp * by; q0 < g; q0 += groups * by) {  // (whole warps)
    const unsigned q = q0 + t % 32 / Lanes * by;
    Acc acc = identity;
    std::int64_t a = 0, z = 0;
    if (q < g) {
      a = q ? ends[q - 1] : i;
      z = ends[q];
      thread::reduce_row<true, (Lanes < 32), true>(acc, in + a, z - a, 1, 0, 1, lane, Lanes, vectors, l2, load, op);
    }
    acc = warp::reduce<Lanes>(acc, op);
    if (lane == 0 && q < g) store(s + q, acc, z - a);
  }
}

/// reduce_medium_in with 2, 4, 8, 16 or 32 lanes a segment: the fewest that take the window's
/// mean length in four 16-byte vectors a lane, one round trip (groups of fewer than 32 lanes
/// predicate the loads of their last round rather than take its vectors one by one); argmin and
/// argmax in sixteen, four round trips, and a quarter of the groups' combinations of 16-byte
/// pairs (float argmax of 256 values, 2^28: 62% -> 80% of the floor, bench/probe/segments.cu).
template <unsigned B, class In, class Acc, class Load, class Op, class Store>
__device__ __forceinline__ void reduce_medium_segments(const std::int64_t* ends, unsigned g, unsigned first,
                                                       unsigned by, const In* __restrict__ in, std::int64_t s,
                                                       std::int64_t i, bool vectors, std::uint64_t l2, Acc identity,
                                                       Load load, Op op, Store store) {
  constexpr std::int64_t lane_bytes = thread::is_arg_reduction<Load, Op, In> ? 256 : 64;
  const std::int64_t bytes = (ends[g - 1] - i) * std::int64_t(sizeof(In)), per_lane = std::int64_t(g) * lane_bytes;
  const auto take = [&](auto lanes) {
    reduce_medium_in<decltype(lanes)::value, B>(ends, g, first, by, in, s, i, vectors, l2, identity, load, op, store);
  };
  if (bytes <= 2 * per_lane) take(std::integral_constant<int, 2>{});
  else if (bytes <= 4 * per_lane) take(std::integral_constant<int, 4>{});
  else if (bytes <= 8 * per_lane) take(std::integral_constant<int, 8>{});
  else if (bytes <= 16 * per_lane) take(std::integral_constant<int, 16>{});
  else take(std::integral_constant<int, 32>{});
}

}  // namespace cured::device
