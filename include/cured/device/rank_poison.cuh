#pragma once
// A rank's contribution to a reduction split over ranks when its local step failed
// (cured/nccl.cuh launches it, then joins the collective with it): one that no other rank's
// matches, so that every rank reports a mismatch instead of waiting for this one.

#include "cured/device/rank_combine.cuh"
#include "cured/exact/shard.cuh"

namespace cured::device {

/// Makes this rank's contribution one that no other rank's matches (a failed local step).
__global__ void poison_kernel(record* send, exact::shard_sum* exact_send) {
  if (send) *send = record{0, 0, {}};
  if (exact_send) {
    *exact_send = exact::shard_sum{};
    exact_send->shards = 1;
    exact_send->tag = exact::max_shard_tag + 1;
    exact_send->tag_square = (exact::max_shard_tag + 1) * (exact::max_shard_tag + 1);
  }
}

}  // namespace cured::device
