#pragma once
// The kernels that combine the records of a reduction split over ranks, once every rank's has
// arrived, in rank order (cured/detail/ranks.cuh launches them, one warp each): the record one
// rank contributes, and the status word that reports ranks whose calls differ.

#include <cstdint>
#include <cstring>

#include "cured/exact/shard.cuh"
#include "cured/types/ops.cuh"

namespace cured::device {

/// What one rank contributes to a plain reduction: 64 bytes.
struct record {
  std::uint64_t tag;    ///< the call (detail::ranks::tag_of)
  std::int64_t count;   ///< elements in the rank's shard
  alignas(16) unsigned char value[48];  ///< the shard's partial (an Acc or a key_value)
};
static_assert(sizeof(record) == 64);

/// The status word's bits: bit 0 set when the ranks called different reductions (the bit the
/// exact sum's round_shards sets too); above it, one more than the first rank whose call
/// differs from rank 0's (0: not known).
constexpr unsigned mismatch = exact::shard_mismatch;

template <class V>
__device__ __forceinline__ V value_of(const record& r) {
  V v;
  memcpy(&v, r.value, sizeof v);
  return v;
}

/// Whether some rank's tag differs from rank 0's; if so, *status says which rank first.
__device__ inline bool mismatched(const record* records, int ranks, unsigned* status) {
  for (int r = 1; r < ranks; ++r)
    if (records[r].tag != records[0].tag) {
      *status = mismatch | unsigned(r + 1) << 1;
      return true;
    }
  return false;
}

/// *out = init op (the ranks' partials in rank order, empty shards skipped); *status = 0. Or,
/// when the calls differ, only *status.
template <class V, class Op>
__global__ void __launch_bounds__(32) combine_plain_kernel(const record* records, int ranks, V* out, unsigned* status,
                                                           Op op, V init) {
  if (threadIdx.x != 0 || mismatched(records, ranks, status)) return;
  V acc = init;
  for (int r = 0; r < ranks; ++r)
    if (records[r].count > 0) acc = V(op(acc, value_of<V>(records[r])));
  *out = acc;
  *status = 0;
}

/// The arg reductions': each shard's index made global (the counts of the ranks before it
/// added), then the first extreme value, or the first NaN, over the ranks in order.
template <bool Max, class T>
__global__ void __launch_bounds__(32) combine_arg_kernel(const record* records, int ranks, key_value<T>* out,
                                                         unsigned* status) {
  if (threadIdx.x != 0 || mismatched(records, ranks, status)) return;
  key_value<T> best = value_of<key_value<T>>(records[0]);
  bool any = false;
  std::int64_t offset = 0;
  for (int r = 0; r < ranks; ++r) {
    key_value<T> p = value_of<key_value<T>>(records[r]);
    if (records[r].count > 0) {
      p.index += offset;
      best = any ? cured::detail::arg_pick<Max>(best, p) : p;
      any = true;
    }
    offset += records[r].count;
  }
  *out = best;
  *status = 0;
}

}  // namespace cured::device
