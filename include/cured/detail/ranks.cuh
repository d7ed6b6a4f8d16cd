#pragma once
// Reductions whose input is split over ranks (GPUs, processes), independent of how the ranks
// talk: each rank reduces its shard into a record, the records travel (an all-gather for the
// plain reductions, an integer all-reduce for the exact sum: cured/nccl.cuh does it with
// NCCL), and every rank combines what arrived into the same result.
//
//   detail::ranks::local_plain<Init>(in, n, &send, transform, op, tag, ws, stream);
//   ... every rank's `send` gathered into records[0, ranks) in rank order ...
//   detail::ranks::combine_plain(records, ranks, out, status, op, init, stream);
//
// Records carry a tag naming the call (reduction, element and result types, operator): a rank
// whose tag differs from rank 0's makes every rank report a mismatch in its status word instead
// of combining unlike partials.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <typeinfo>

#include "cured/accumulate.cuh"
#include "cured/detail/dispatch.cuh"
#include "cured/detail/dispatch_exact.cuh"
#include "cured/exact/shard.cuh"
#include "cured/ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/workspace.cuh"

namespace cured::detail::ranks {

/// What one rank contributes to a plain reduction: 64 bytes.
struct record {
  std::uint64_t tag;    ///< the call (tag_of)
  std::int64_t count;   ///< elements in the rank's shard
  alignas(16) unsigned char value[48];  ///< the shard's partial (an Acc or a key_value)
};
static_assert(sizeof(record) == 64);

template <class V>
inline constexpr bool fits_record = sizeof(V) <= sizeof(record::value) && std::is_trivially_copyable_v<V>;

/// The status word's bits: bit 0 set when the ranks called different reductions (the bit the
/// exact sum's round_shards sets too); above it, one more than the first rank whose call
/// differs from rank 0's (0: not known).
constexpr unsigned mismatch = exact::shard_mismatch;
inline std::string status_message(unsigned status) {
  std::string m = "the ranks called different reductions or element types";
  if (status >> 1) m += ": rank " + std::to_string((status >> 1) - 1) + "'s call differs from rank 0's";
  return m;
}

/// A 64-bit name of a call: FNV-1a over its kind and the names of its types.
template <class... Types>
std::uint64_t tag_of(const char* kind) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto mix = [&](const char* s) {
    for (; *s; ++s) h = (h ^ std::uint8_t(*s)) * 0x100000001b3ull;
    h = (h ^ 0xffu) * 0x100000001b3ull;  // a separator: ("ab", "c") differs from ("a", "bc")
  };
  mix(kind);
  (mix(typeid(Types).name()), ...);
  return h;
}

/// single_pass_kernel's and arg_kernel's finish for a record: `inner`'s result with the header.
template <class Inner>
struct record_finish {
  std::uint64_t tag;
  std::int64_t count;
  Inner inner;
  template <class Acc>
  __device__ __forceinline__ record operator()(const Acc& a) const {
    const auto v = inner(a);
    static_assert(fits_record<decltype(v)>, "cured: a partial larger than 48 bytes cannot travel between ranks");
    record r{};
    r.tag = tag;
    r.count = count;
    memcpy(r.value, &v, sizeof v);
    return r;
  }
};

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

/// One rank's shard in[0, n) reduced as cured::transform_reduce_async does from op's identity
/// (the caller's init joins once, in the combine), into *send.
template <class Init, class T, class Transform, class Op>
void local_plain(const T* in, std::int64_t n, record* send, Transform transform, Op op, std::uint64_t tag,
                 workspace& ws, cudaStream_t stream) {
  static_assert(fits_record<Init>, "cured: a partial larger than 48 bytes cannot travel between ranks");
  reduce<mode::async>(in, n, send, thread::transform_load<Init, Transform>{transform}, op,
                      record_finish<thread::no_finish>{tag, n, {}}, identity_of<Op, Init>(op), ws, stream);
}

/// One rank's argmin (Max false) or argmax (Max true) of its shard, into *send.
template <bool Max, class T>
void local_arg(const T* in, std::int64_t n, record* send, std::uint64_t tag, workspace& ws, cudaStream_t stream) {
  arg_reduce<mode::async, Max>(in, n, send, ws, stream, {}, record_finish<thread::arg_finish>{tag, n, {}});
}

template <class V, class Op>
void combine_plain(const record* records, int ranks, V* out, unsigned* status, Op op, V init, cudaStream_t stream) {
  combine_plain_kernel<V, Op><<<1, 32, 0, stream>>>(records, ranks, out, status, op, init);
  CURED_CHECK_LAUNCH();
}

template <bool Max, class T>
void combine_arg(const record* records, int ranks, key_value<T>* out, unsigned* status, cudaStream_t stream) {
  combine_arg_kernel<Max, T><<<1, 32, 0, stream>>>(records, ranks, out, status);
  CURED_CHECK_LAUNCH();
}

// ---- the exact sum ---------------------------------------------------------------------------

/// The exact sum's tag for inputs of T: the same for every rank that sums the same type.
template <class T>
constexpr std::int64_t exact_tag() {
  return std::is_same_v<T, float> ? 1 : std::is_same_v<T, double> ? 2 : std::is_same_v<T, __half> ? 3 : 4;
}

/// One rank's shard in[0, n), its exact sum unrounded, into *send.
template <class T>
void local_exact(const T* in, std::int64_t n, exact::shard_sum* send, workspace& ws, cudaStream_t stream) {
  exact_sum_shard(in, n, exact::shard_sink{send, exact_tag<T>()}, ws, stream);
}

/// *out = the shards' sums, added limb by limb into *total, rounded once; *status as above.
template <class T>
void round_exact(const exact::shard_sum* total, exact_result_t<T>* out, unsigned* status, cudaStream_t stream) {
  namespace ex = exact;
  using layout = ex::layout<T>;
  ex::round_shards<exact_result_t<T>, (layout::limbs + 31) / 32, layout::base>
      <<<1, 32, 0, stream>>>(total, exact_tag<T>(), out, status);
  CURED_CHECK_LAUNCH();
}

}  // namespace cured::detail::ranks
