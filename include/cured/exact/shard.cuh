#pragma once
// The exact sum of one shard of a distributed array, unrounded: a fixed-point number whose
// limbs are plain 64-bit integers, so that the shards' sums add limb by limb in any order
// (an all-reduce of integers) and the total is rounded once, on every rank, to the bits the
// exact sum of the whole array rounds to.
//
//   exact kernel ... finish_grid(acc, st, shard_sink{at, tag}, ...);   // this shard's sum
//   ... at[r] summed over the shards, limb by limb (ncclAllReduce, int64, sum) ...
//   device::round_shards<float, W, base><<<1, 32>>>(total, tag, out, status);  // every rank
//
// A shard's limbs are digits in [0, 2^32) except the last, which also carries the sign, so
// the sum of up to 2^29 shards stays below 2^62 per limb, as warp_round needs. Beside the
// limbs: how many shards saw each special-value flag (a sum, since integers are all an
// all-reduce adds), how many had elements, and the caller's tag and its square: the totals
// equal shards * tag and shards * tag^2 only when every shard carried the same tag (the
// variance of the tags is zero), which is how every rank learns that another one called a
// different reduction.

#include <cstdint>

#include "cured/exact/fixed_point.cuh"
#include "cured/exact/warp_round.cuh"

namespace cured::exact {

/// One shard's exact sum, or (added limb by limb) several shards'.
struct shard_sum {
  static constexpr int capacity = 160;  ///< limbs: 32 lanes of 5 (double_dot_layout's 134 fit)
  std::int64_t limbs[capacity];
  std::int64_t flags[4];  ///< shards that added a NaN, +inf, -inf, a value other than -0
  std::int64_t nonempty;  ///< shards with at least one element
  std::int64_t shards;    ///< shards added (1 in each)
  std::int64_t tag;       ///< the calls' tag, summed
  std::int64_t tag_square;
};
static_assert(sizeof(shard_sum) == 168 * sizeof(std::int64_t), "cured: shard_sum moves as int64s");

/// The largest tag: shards * tag^2 stays far from overflow.
constexpr std::int64_t max_shard_tag = std::int64_t(1) << 20;

/// finish_grid's destination for a shard: the total, normalized, into *at.
struct shard_sink {
  shard_sum* at;
  std::int64_t tag;
  /// The fixed point held by the warp (lane l: limbs l*W .. l*W + W - 1), its flags and
  /// whether the shard is empty, into *at. Every lane of the warp calls it.
  template <int W>
  __device__ void write(const std::int64_t (&v)[W], unsigned flags, bool empty) const {
    static_assert(32 * W <= shard_sum::capacity);
    const unsigned lane = threadIdx.x % 32;
    std::uint32_t d[W];
    std::int64_t c = 0;
#pragma unroll
    for (int k = 0; k < W; ++k) {
      const std::int64_t t = v[k] + c;
      d[k] = std::uint32_t(t);
      c = t >> 32;
    }
    const std::int64_t top = detail::ripple(d, c);  // what lies above the last digit: the sign
#pragma unroll
    for (int k = 0; k < W; ++k) {
      std::int64_t limb = std::int64_t(d[k]);
      if (lane == 31 && k == W - 1) limb += top * (std::int64_t(1) << 32);
      at->limbs[int(lane) * W + k] = limb;
    }
    for (int j = 32 * W + int(lane); j < shard_sum::capacity; j += 32) at->limbs[j] = 0;
    if (lane < 4) at->flags[lane] = (flags >> lane) & 1u;
    if (lane == 0) {
      at->nonempty = empty ? 0 : 1;
      at->shards = 1;
      at->tag = tag;
      at->tag_square = tag * tag;
    }
  }
};

/// Set in *status when the shards' tags differ: the ranks called different reductions.
constexpr unsigned shard_mismatch = 1u;

}  // namespace cured::exact
