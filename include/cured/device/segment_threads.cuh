#pragma once
// segments_kernel's windows of short segments: a thread each, or a group of 2 or 4 lanes each.
//
// Where segments of a few values follow one another, the block takes the next R * Block of them
// at once. Their ends wait in shared memory: a window that is full copies the next window's
// ends there (asynchronous copies) before it reads its values, so that the next window finds
// them there and a window costs one round trip, its values'.
// Thread t takes segments t, t + Block, ... of the window; the window holds the segments before
// the first that is longer than Short values, decreases, leaves [0, n] or the block's range.
// Each thread reduces its segments straight from global memory, R loads in flight, and stores
// them: per value one load and one combination, per segment one end and one store, and per
// full window two barriers. A chunk (device/segments.cuh) costs the same values staged in shared
// memory, every end counted into a position and checked there, then the groups or the walk.
//
// A thread's load touches one cache line per segment: a warp's load of segments of 16 floats,
// 16 lines. The Grouped kernel (for sums, min, max and the like, launched where the mean length
// is above Short / 2 and at most Short) gives a window of a mean above 4 values a group of 2
// lanes a segment, above 8 a group of 4, each lane every second or fourth value: a warp's load
// then touches the lines of 16 or 8 consecutive segments, 2 to 4 times fewer.

#include <cuda_pipeline.h>

#include <cstdint>

#include "cured/device/segment_args.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/thread/load.cuh"
#include "cured/warp/warp_reduce.cuh"

namespace cured::device {

/// The shared state of a block's windows (R * B ends, and a word for the window's length, two:
/// one per parity of the window), and their constants from the kernel's Policy for its input
/// In and accumulator Acc (detail/tuning.cuh): R, Short and MinMean.
template <class Policy, class In, class Acc>
struct short_windows {
  static constexpr unsigned B = Policy::block;
  static constexpr int R = Policy::template short_rounds<Acc>;
  static constexpr std::int64_t Short = Policy::template short_max<In>;
  static constexpr std::int64_t MinMean = Policy::template short_min_mean<Acc>;
  std::int64_t ends[R * B];
  unsigned taken[2];
};

/// A block's place among its windows, kept between calls: whether to try the next (cleared by a
/// window that fails or one of a mean length below MinMean, set by a chunk of a mean length in
/// [MinMean, Short]), the parity of the next, and the first segment of the one whose ends are
/// being fetched (-1: none).
struct short_cursor {
  bool try_next = true;
  int parity = 0;
  std::int64_t ahead_for = -1;
};

/// ends[q] = offset(s + q + 1) for q in [0, R * B) (-1 past the last), each thread its own
/// slots: asynchronous copies, complete after __pipeline_wait_prior(0) and a barrier.
template <unsigned B, int R, bool Pairs>
__device__ __forceinline__ void fetch_ends(std::int64_t* ends, const segment_shape& shape, std::int64_t s) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const std::int64_t q = threadIdx.x + r * B, j = s + q + 1;
    if (j <= shape.segments) __pipeline_memcpy_async(ends + q, shape.offset_address<Pairs>(j), sizeof(std::int64_t));
    else ends[q] = -1;
  }
  __pipeline_commit();
}

/// What a window did: the segments it reduced (0: none, the caller takes a chunk), their last end.
struct short_window {
  unsigned taken;
  std::int64_t last;
};

/// A window's segments q = t + r * Block (r < R, below g) by groups of L lanes; thread t holds
/// segment q's first value (its place after `from`) and length in packed[r], as place * 32 +
/// length. The warp's groups take the segments of its lanes p * 32 / L + l for p < L and
/// l < 32 / L, consecutive ones at once, each lane every L-th value of its group's segment, R
/// segments in flight; store(s + q, reduction, length) for each but the gaps between pairs.
template <int L, unsigned B, bool Pairs, int R, class In, class Acc, class Load, class Op, class Store>
__device__ __forceinline__ void reduce_window(const unsigned (&packed)[R], unsigned g, std::int64_t s,
                                              const In* __restrict__ from, Acc identity, Load load, Op op,
                                              Store store) {
  const unsigned t = threadIdx.x, lane = t % 32;
#pragma unroll 1
  for (int p = 0; p < L; ++p) {
    const unsigned holder = p * (32 / L) + lane / L, q0 = t - lane + holder;  // (the lane holding the segments)
    int at[R], len[R], most = 0;
    Acc acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const unsigned v = __shfl_sync(~0u, packed[r], int(holder));
      const unsigned q = q0 + r * B;
      at[r] = int(v >> 5);
      len[r] = q >= g || is_gap<Pairs>(s + q) ? -1 : int(v & 31);  // (-1: not stored)
      acc[r] = identity;
      most = len[r] > most ? len[r] : most;
    }
    for (int x = int(lane % L); x < most; x += L) {
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (x < len[r]) thread::add_later(acc[r], x, thread::load_element(from + at[r] + x), load, op);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      acc[r] = warp::reduce<L>(acc[r], op);
      if (lane % L == 0 && len[r] >= 0) store(s + q0 + r * B, acc[r], len[r]);
    }
  }
}

/// Reduces segments s, s + 1, ... of the sequence, the open one starting on value i (nothing of
/// it read yet), when at least Block / 4 of them follow one another among the next R * Block,
/// each at most Short values long, ending within [i, oS] and within the next `room` items;
/// store(j, reduction, length) for each (not for gaps between pairs). Every thread calls it,
/// with the same arguments, and with its block's cursor; MinMean: see short_cursor. Grouped:
/// groups of lanes by the window's mean length (reduce_window).
template <bool Pairs, bool Grouped, class Policy, class In, class Acc, class Load, class Op, class Store>
__device__ __forceinline__ short_window reduce_short_segments(short_windows<Policy, In, Acc>& w, short_cursor& c,
                                                              const In* __restrict__ in, const segment_shape& shape,
                                                              std::int64_t s, std::int64_t i, std::int64_t room,
                                                              std::int64_t oS, Acc identity, Load load, Op op,
                                                              Store store) {
  using W = short_windows<Policy, In, Acc>;
  constexpr unsigned B = W::B;
  constexpr int R = W::R;
  constexpr std::int64_t Short = W::Short, MinMean = W::MinMean;
  const unsigned t = threadIdx.x;
  __pipeline_wait_prior(0);  // (the copies of an earlier window's fetch, landed)
  if (c.ahead_for != s) {
    fetch_ends<B, R, Pairs>(w.ends, shape, s);
    __pipeline_wait_prior(0);
  }
  const std::int64_t* const ends = w.ends;
  if (t == 0) w.taken[c.parity] = R * B;
  __syncthreads();
  std::int64_t b[R];
  int length[R];
  unsigned bad = R * B;
#pragma unroll
  for (int r = R - 1; r >= 0; --r) {
    const unsigned q = t + r * B;
    const std::int64_t e = ends[q];
    b[r] = q ? ends[q - 1] : i;
    length[r] = int(e - b[r]);  // (when the test below holds)
    if (!(e - b[r] >= 0 && e - b[r] <= Short && e <= oS && q + (e - i) < room)) bad = q;
  }
  std::int64_t last = ends[R * B - 1];  // (the last end when the window is full)
  if (bad < R * B) atomicMin(&w.taken[c.parity], bad);
  __syncthreads();
  const unsigned g = w.taken[c.parity];
  c.ahead_for = -1;
  if (g < B / 4) {
    c.try_next = false;
    return {0, 0};
  }
  c.parity ^= 1;
  if (g == R * B) {
    // The next window's ends, while this one reads its values (every read of ends, above).
    if (s + g < shape.segments) {
      fetch_ends<B, R, Pairs>(w.ends, shape, s + g);
      c.ahead_for = s + g;
    }
  } else {
    last = ends[g - 1];
    __syncthreads();  // (ends, read before the next fetch)
  }
  c.try_next = last - i >= MinMean * g;
  if constexpr (Grouped) {  // lanes a segment: the fewest that take the window's mean in four values a lane
    const auto take = [&](auto lanes) {
      unsigned packed[R];
#pragma unroll
      for (int r = 0; r < R; ++r) packed[r] = unsigned(b[r] - i) << 5 | unsigned(length[r]);
      reduce_window<decltype(lanes)::value, B, Pairs>(packed, g, s, in + i, identity, load, op, store);
      return short_window{g, last};
    };
    if (Short > 8 && last - i > 8 * std::int64_t(g)) return take(std::integral_constant<int, (Short > 8 ? 4 : 2)>{});
    if (last - i > 4 * std::int64_t(g)) return take(std::integral_constant<int, 2>{});
  }
  Acc acc[R];
  int most = 0;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    acc[r] = identity;
    if (t + r * B >= g || is_gap<Pairs>(s + t + r * B)) length[r] = 0;  // (and not stored)
    most = length[r] > most ? length[r] : most;
  }
  for (int x = 0; x < most; ++x) {
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (x < length[r]) thread::add_later(acc[r], x, thread::load_element(in + b[r] + x), load, op);
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const unsigned q = t + r * B;
    if (q < g && !is_gap<Pairs>(s + q)) store(s + q, acc[r], length[r]);
  }
  return {g, last};
}

}  // namespace cured::device
