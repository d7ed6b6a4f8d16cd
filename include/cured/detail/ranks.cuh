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

#include "cured/types/accumulate.cuh"
#include "cured/detail/dispatch.cuh"
#include "cured/detail/dispatch_exact.cuh"
#include "cured/device/exact_shard.cuh"
#include "cured/device/rank_combine.cuh"
#include "cured/exact/shard.cuh"
#include "cured/types/ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/workspace.cuh"

namespace cured::detail::ranks {

/// What one rank contributes (a record) and the status word's mismatch bit: device/rank_combine.cuh.
using device::mismatch;
using device::record;

template <class V>
inline constexpr bool fits_record = sizeof(V) <= sizeof(record::value) && std::is_trivially_copyable_v<V>;

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
  device::combine_plain_kernel<V, Op><<<1, 32, 0, stream>>>(records, ranks, out, status, op, init);
  CURED_CHECK_LAUNCH();
}

template <bool Max, class T>
void combine_arg(const record* records, int ranks, key_value<T>* out, unsigned* status, cudaStream_t stream) {
  device::combine_arg_kernel<Max, T><<<1, 32, 0, stream>>>(records, ranks, out, status);
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
  using layout = exact::layout<T>;
  device::round_shards<exact_result_t<T>, (layout::limbs + 31) / 32, layout::base>
      <<<1, 32, 0, stream>>>(total, exact_tag<T>(), out, status);
  CURED_CHECK_LAUNCH();
}

}  // namespace cured::detail::ranks
