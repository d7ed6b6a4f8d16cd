#pragma once
// Reductions of an array split over the ranks of a NCCL communicator: every rank passes its
// shard and gets the result for the whole array (all-reduce semantics). Include this header
// and link NCCL (CMake: cured::nccl); the rest of cured does not need it.
//
//   ncclComm_t comm = ...;                                  // the caller's, one GPU per rank
//   float s = cured::nccl::sum(d_shard, n, comm);           // blocking: the result on the host
//   auto  m = cured::nccl::argmax(d_shard, n, comm);        // {global index, value}
//   float e = cured::nccl::exact_sum(d_shard, n, comm);     // same bits for any ranks and split
//   cured::workspace ws;
//   cured::nccl::sum_async(d_shard, n, d_out, comm, ws, stream);  // no sync, graph-capturable
//   cured::nccl::exact_all_reduce(d_grad, n, comm, stream);   // in place: each element's exact
//                                                             // sum over the ranks, rounded once
//
// How: each rank reduces its shard with cured's single-GPU kernels into a 64-byte record
// (its partial, its element count and a tag naming the call); one ncclAllGather brings every
// rank all the records; a one-warp kernel combines them in rank order. exact_sum instead
// leaves its shard's exact sum unrounded as integers (cured/exact/shard.cuh), which one
// ncclAllReduce (int64, sum) adds in any order, and every rank rounds the total once. A
// communicator of one rank skips the collective.
//
// Results: every rank gets the same bits. sum, min, max, argmin, argmax and reduce combine the
// shards' partials in rank order, so a floating sum is deterministic for a given number of
// ranks and split (and, like any floating sum, may change with them); exact_sum is the exact
// sum of the concatenated shards rounded once: the bits cured::exact_sum gives for the whole
// array on one GPU, for any number of ranks and any split. argmin/argmax return the index in
// the concatenation of the shards in rank order (rank r's shard starts after the counts of
// ranks 0..r-1), the first one on ties and the first NaN's when any; min/max propagate NaN;
// empty shards are allowed (all empty: the identity, index -1). reduce(op, init) takes the
// operators cured::reduce takes (device-callable, with an identity) whose accumulator fits 48
// bytes: each shard is reduced from op's identity and init joins once, on the combine, so the
// result is init op x[0] op ... as on one GPU. NCCL's own reduction operators are not used:
// the gathered records give every rank the same bits and cured's NaN and tie rules, at the
// cost of one small all-gather, the same collective latency as a one-value all-reduce.
//
// Errors: arguments are checked as the single-GPU forms check them (cured::error before
// anything is enqueued). A NCCL failure is a cured::error naming the call. Ranks that call
// different reductions, element types or operators (through the same kind of collective:
// the plain forms with each other, exact_sum with exact_sum) all see it: the _async forms
// write a nonzero status word (bit 0; above it one more than the first differing rank) to
// `status` (device or managed memory) or, with none given, to ws.rank_status(), and leave the
// output unwritten; the blocking forms throw cured::error on every rank. A rank whose call
// throws before its collective (a bad argument) still joins the collective with a record that
// no other rank matches, so the other ranks throw instead of waiting. A plain form on one rank
// against exact_sum on another is a mismatch of collectives that NCCL cannot detect: like any
// mismatched NCCL calls, it waits.
//
// exact_all_reduce, the elementwise exact sum (below, and docs/API.md): blocking; its scratch
// comes from a memory pool per device that keeps what it allocated for the next calls (14 to 16
// bytes an element for float, 28 to 32 for double, more where the exact pass runs: docs/API.md);
// release_scratch(device) gives it back.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "cured/detail/dispatch_elementwise.cuh"
#include "cured/detail/dispatch_ranks.cuh"
#include "cured/reduce.cuh"
#include "cured/types/accumulate.cuh"
#include "cured/types/ops.cuh"
#include "cured/workspace.cuh"
namespace cured::nccl {

// ---- errors and memory --------------------------------------------------------------------------

/// Throws cured::error for a failed NCCL call (`call` names it), with NCCL's own account.
inline void check(ncclResult_t result, ncclComm_t comm, const char* call) { detail::check(result, comm, call); }

/// Once an _async call's stream is idle: throws cured::error for a failed collective (NCCL's
/// asynchronous error) or for a nonzero status word (the ranks called different reductions),
/// as the blocking forms do.
inline void check_status(ncclComm_t comm, unsigned status) { detail::check_finished(comm, status); }

/// Gives the driver back the device memory exact_all_reduce keeps between calls on `device`
/// (what no call in flight holds).
inline void release_scratch(int device) { detail::trim_scratch(device); }

// ---- asynchronous: the result written to device memory on every rank ------------------------

/// Sum in Acc (default cured::accumulator_t<T>) of the shards of every rank.
template <class Acc = void, class T>
void sum_async(const T* d_in, std::int64_t n, cured::detail::sum_type<Acc, T>* d_out, ncclComm_t comm, workspace& ws,
               cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  using acc = cured::detail::sum_type<Acc, T>;
  detail::reduce(d_in, n, d_out, plus{}, acc(0), "sum", comm, ws, stream, status, true);
}

template <class T>
void min_async(const T* d_in, std::int64_t n, T* d_out, ncclComm_t comm, workspace& ws, cudaStream_t stream = nullptr,
               unsigned* status = nullptr) {
  detail::reduce(d_in, n, d_out, minimum{}, minimum::identity<T>(), "min", comm, ws, stream, status, true);
}

template <class T>
void max_async(const T* d_in, std::int64_t n, T* d_out, ncclComm_t comm, workspace& ws, cudaStream_t stream = nullptr,
               unsigned* status = nullptr) {
  detail::reduce(d_in, n, d_out, maximum{}, maximum::identity<T>(), "max", comm, ws, stream, status, true);
}

template <class T>
void argmin_async(const T* d_in, std::int64_t n, key_value<T>* d_out, ncclComm_t comm, workspace& ws,
                  cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::arg<false>(d_in, n, d_out, comm, ws, stream, status, true);
}

template <class T>
void argmax_async(const T* d_in, std::int64_t n, key_value<T>* d_out, ncclComm_t comm, workspace& ws,
                  cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::arg<true>(d_in, n, d_out, comm, ws, stream, status, true);
}

/// init op x[0] op x[1] ... over the concatenated shards, as cured::reduce_async on one GPU.
template <class T, class Init, class Op>
void reduce_async(const T* d_in, std::int64_t n, Init* d_out, Op op, Init init, ncclComm_t comm, workspace& ws,
                  cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::reduce(d_in, n, d_out, op, init, "reduce", comm, ws, stream, status, true);
}

/// The exact sum of the concatenated shards, rounded once: the same bits for any ranks and split.
template <class T>
void exact_sum_async(const T* d_in, std::int64_t n, exact_result_t<T>* d_out, ncclComm_t comm, workspace& ws,
                     cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::exact_sum(d_in, n, d_out, comm, ws, stream, status, true);
}

// ---- blocking: the result returned on the host of every rank ---------------------------------

template <class Acc = void, class T>
cured::detail::sum_type<Acc, T> sum(const T* d_in, std::int64_t n, ncclComm_t comm, cudaStream_t stream = nullptr) {
  using acc = cured::detail::sum_type<Acc, T>;
  return detail::blocking<acc>(comm, stream, [&](acc* out, unsigned* status, workspace& ws) {
    detail::reduce(d_in, n, out, plus{}, acc(0), "sum", comm, ws, stream, status, false);
  });
}

template <class T>
T min(const T* d_in, std::int64_t n, ncclComm_t comm, cudaStream_t stream = nullptr) {
  return detail::blocking<T>(comm, stream, [&](T* out, unsigned* status, workspace& ws) {
    detail::reduce(d_in, n, out, minimum{}, minimum::identity<T>(), "min", comm, ws, stream, status, false);
  });
}

template <class T>
T max(const T* d_in, std::int64_t n, ncclComm_t comm, cudaStream_t stream = nullptr) {
  return detail::blocking<T>(comm, stream, [&](T* out, unsigned* status, workspace& ws) {
    detail::reduce(d_in, n, out, maximum{}, maximum::identity<T>(), "max", comm, ws, stream, status, false);
  });
}

template <class T>
key_value<T> argmin(const T* d_in, std::int64_t n, ncclComm_t comm, cudaStream_t stream = nullptr) {
  return detail::blocking<key_value<T>>(comm, stream, [&](key_value<T>* out, unsigned* status, workspace& ws) {
    detail::arg<false>(d_in, n, out, comm, ws, stream, status, false);
  });
}

template <class T>
key_value<T> argmax(const T* d_in, std::int64_t n, ncclComm_t comm, cudaStream_t stream = nullptr) {
  return detail::blocking<key_value<T>>(comm, stream, [&](key_value<T>* out, unsigned* status, workspace& ws) {
    detail::arg<true>(d_in, n, out, comm, ws, stream, status, false);
  });
}

template <class T, class Init, class Op>
Init reduce(const T* d_in, std::int64_t n, Op op, Init init, ncclComm_t comm, cudaStream_t stream = nullptr) {
  return detail::blocking<Init>(comm, stream, [&](Init* out, unsigned* status, workspace& ws) {
    detail::reduce(d_in, n, out, op, init, "reduce", comm, ws, stream, status, false);
  });
}

template <class T>
exact_result_t<T> exact_sum(const T* d_in, std::int64_t n, ncclComm_t comm, cudaStream_t stream = nullptr) {
  using R = exact_result_t<T>;
  return detail::blocking<R>(comm, stream, [&](R* out, unsigned* status, workspace& ws) {
    detail::exact_sum(d_in, n, out, comm, ws, stream, status, false);
  });
}

// ---- the elementwise exact sum: blocking --------------------------------------------------------

/// d_out[i] = the exact sum over every rank r and row j < rows (rank r's) of d_in[j * row_stride
/// + i], rounded once to exact_result_t<T>, for i in [0, m), on every rank: the same bits for
/// any number of ranks and any split of the rows. Every rank's m and T agree (rows may differ,
/// 0 allowed); otherwise, or when a rank's arguments are bad, cured::error on every rank. NaN
/// and infinities as IEEE addition of the exact sum gives them; a zero is -0 only when every
/// term is -0; no rows anywhere: +0. Runs on the current device (the communicator's) and
/// returns once d_out is written. How and what it costs: docs/API.md.
template <class T>
void exact_all_reduce(const T* d_in, std::int64_t rows, std::int64_t row_stride, std::int64_t m,
                      exact_result_t<T>* d_out, ncclComm_t comm, cudaStream_t stream = nullptr) {
  detail::exact_all_reduce(d_in, rows, row_stride, m, d_out, comm, stream);
}

/// In place: d_data[i] = the exact sum over the ranks of their d_data[i], rounded once (float
/// or double): a reproducible all-reduce of gradients.
template <class T>
void exact_all_reduce(T* d_data, std::int64_t n, ncclComm_t comm, cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "cured: the in-place exact all-reduce takes float or double (its result's type)");
  detail::exact_all_reduce(static_cast<const T*>(d_data), 1, n, n, d_data, comm, stream);
}

}  // namespace cured::nccl
