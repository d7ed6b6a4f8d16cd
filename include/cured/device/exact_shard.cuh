#pragma once
// The end of a distributed exact sum on every rank: the total of the shards' unrounded sums
// (cured/exact/shard.cuh), added limb by limb by the all-reduce, rounded once by one warp
// (cured/detail/ranks.cuh launches it).

#include <cstdint>

#include "cured/exact/shard.cuh"
#include "cured/exact/warp_round.cuh"

namespace cured::device {

/// *out = the total of the shards' sums (fixed point of W limbs per lane from 2^Base) rounded
/// once to Out, and *status = 0; or, when the shards carried tags other than `tag`, only
/// *status = shard_mismatch. One warp.
template <class Out, int W, int Base>
__global__ void __launch_bounds__(32) round_shards(const exact::shard_sum* total, std::int64_t tag, Out* out,
                                                   unsigned* status) {
  const unsigned lane = threadIdx.x;
  const std::int64_t shards = total->shards;
  if (total->tag != shards * tag || total->tag_square != shards * tag * tag) {
    if (lane == 0) *status = exact::shard_mismatch;
    return;
  }
  std::int64_t v[W];
#pragma unroll
  for (int k = 0; k < W; ++k) v[k] = total->limbs[int(lane) * W + k];
  unsigned flags = 0;
  for (int b = 0; b < 4; ++b) flags |= total->flags[b] != 0 ? 1u << b : 0u;
  const Out r = exact::warp_round<Out>(v, Base, flags, total->nonempty == 0);
  if (lane == 0) {
    *out = r;
    *status = 0;
  }
}

}  // namespace cured::device
