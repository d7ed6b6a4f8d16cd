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

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "cured/types/accumulate.cuh"
#include "cured/detail/blocking.cuh"
#include "cured/detail/ranks.cuh"
#include "cured/detail/seam.cuh"
#include "cured/device/rank_poison.cuh"
#include "cured/types/error.cuh"
#include "cured/types/ops.cuh"
#include "cured/workspace.cuh"

namespace cured::nccl {

namespace detail {

namespace rk = cured::detail::ranks;
namespace ex = cured::exact;

/// Throws cured::error for a failed NCCL call, with NCCL's own account of it.
inline void check(ncclResult_t r, ncclComm_t comm, const char* call) {
  if (r == ncclSuccess) return;
  std::string m = std::string("cured: ") + call + " failed: " + ncclGetErrorString(r);
  if (comm) {
    const char* last = ncclGetLastError(comm);
    if (last && *last) m += " (" + std::string(last) + ")";
  }
  throw cured::error(m);
}

/// Where the records live: the workspace's axis partials, unused by the local reductions.
constexpr std::size_t exact_send_offset = 256, exact_total_offset = 2048, gathered_offset = 4096;
constexpr int max_ranks = int((workspace::axis_partial_bytes - gathered_offset) / sizeof(rk::record));
static_assert(exact_send_offset >= sizeof(rk::record) && exact_total_offset - exact_send_offset >= sizeof(ex::shard_sum) &&
              gathered_offset - exact_total_offset >= sizeof(ex::shard_sum));

inline char* records(const workspace& ws) { return static_cast<char*>(ws.axis_partials()); }

/// The communicator's rank count, after checking that it is on the workspace's device.
inline int ranks_of(ncclComm_t comm, const workspace& ws) {
  if (comm == nullptr) throw_invalid("null NCCL communicator");
  int count = 0, device = 0;
  check(ncclCommCount(comm, &count), comm, "ncclCommCount");
  check(ncclCommCuDevice(comm, &device), comm, "ncclCommCuDevice");
  if (device != ws.device())
    throw_invalid("a communicator of device " + std::to_string(device) + " with a workspace of device " +
                  std::to_string(ws.device()));
  if (count > max_ranks)
    throw_invalid(std::to_string(count) + " ranks: at most " + std::to_string(max_ranks) + " are supported");
  return count;
}

/// The common course of every call: the local step into the send buffer (a failure there is
/// rethrown only after this rank has joined the collective with a poisoned contribution),
/// then `collective`, then `combine(status)`.
template <class Local, class Collective, class Combine>
void run(workspace& ws, cudaStream_t stream, const void* out, unsigned* status, bool check_out,
         rk::record* send, ex::shard_sum* exact_send, Local local, Collective collective, Combine combine) {
  std::exception_ptr failed;
  try {
    if (check_out) {
      workspace::use use(ws, stream);
      use.check_pointer(out, workspace::role::rank_output, "the output");
      if (status) workspace::check_device_pointer(status, "the status word", ws.device());
    }
    local();
  } catch (...) {
    failed = std::current_exception();
    device::poison_kernel<<<1, 1, 0, stream>>>(send, exact_send);
  }
  try {
    cured::detail::launch_seam(ws, stream, false, "reduction across ranks", [&](workspace::use&) {
      collective();
      if (!failed) combine(status ? status : ws.rank_status());
    });
  } catch (...) {
    if (!failed) throw;  // the local step's failure is the one to report
  }
  if (failed) std::rethrow_exception(failed);
}

/// A plain reduction: `local(send)` fills this rank's record, `combine(gathered, ranks, status)`.
template <class Local, class Combine>
void plain(ncclComm_t comm, workspace& ws, cudaStream_t stream, const void* out, unsigned* status, bool check_out,
           Local local, Combine combine) {
  const int ranks = ranks_of(comm, ws);
  auto* send = reinterpret_cast<rk::record*>(records(ws));
  // One rank gathers its own record: no collective (NCCL's would be a copy).
  auto* gathered = ranks > 1 ? reinterpret_cast<rk::record*>(records(ws) + gathered_offset) : send;
  run(
      ws, stream, out, status, check_out, send, nullptr, [&] { local(send); },
      [&] {
        if (ranks > 1)
          check(ncclAllGather(send, gathered, sizeof(rk::record), ncclUint8, comm, stream), comm, "ncclAllGather");
      },
      [&](unsigned* st) { combine(gathered, ranks, st); });
}

template <class T>
void exact_sum(const T* in, std::int64_t n, exact_result_t<T>* out, ncclComm_t comm, workspace& ws,
               cudaStream_t stream, unsigned* status, bool check_out) {
  const int ranks = ranks_of(comm, ws);
  auto* send = reinterpret_cast<ex::shard_sum*>(records(ws) + exact_send_offset);
  auto* total = ranks > 1 ? reinterpret_cast<ex::shard_sum*>(records(ws) + exact_total_offset) : send;
  constexpr std::size_t words = sizeof(ex::shard_sum) / sizeof(std::int64_t);
  run(
      ws, stream, out, status, check_out, nullptr, send, [&] { rk::local_exact(in, n, send, ws, stream); },
      [&] {
        if (ranks > 1) check(ncclAllReduce(send, total, words, ncclInt64, ncclSum, comm, stream), comm, "ncclAllReduce");
      },
      [&](unsigned* st) { rk::round_exact<T>(total, out, st, stream); });
}

template <class T, class Init, class Op>
void reduce(const T* in, std::int64_t n, Init* out, Op op, Init init, const char* kind, ncclComm_t comm,
            workspace& ws, cudaStream_t stream, unsigned* status, bool check_out) {
  const std::uint64_t tag = rk::tag_of<T, Init, Op>(kind);
  plain(
      comm, ws, stream, out, status, check_out,
      [&](rk::record* send) {
        rk::local_plain<Init>(in, n, send, cured::thread::identity_transform{}, op, tag, ws, stream);
      },
      [&](const rk::record* gathered, int ranks, unsigned* st) {
        rk::combine_plain(gathered, ranks, out, st, op, init, stream);
      });
}

template <bool Max, class T>
void arg(const T* in, std::int64_t n, key_value<T>* out, ncclComm_t comm, workspace& ws, cudaStream_t stream,
         unsigned* status, bool check_out) {
  const std::uint64_t tag = rk::tag_of<T>(Max ? "argmax" : "argmin");
  plain(
      comm, ws, stream, out, status, check_out,
      [&](rk::record* send) { rk::local_arg<Max>(in, n, send, tag, ws, stream); },
      [&](const rk::record* gathered, int ranks, unsigned* st) {
        rk::combine_arg<Max>(gathered, ranks, out, st, stream);
      });
}

/// The blocking forms: the asynchronous one on the calling thread's workspace, writing its
/// result and status to mapped host memory, a wait, then the status and NCCL's own errors.
template <class R, class Async>
R blocking(ncclComm_t comm, cudaStream_t stream, Async async) {
  const volatile unsigned* status = nullptr;
  const void* result = nullptr;
  cured::detail::enqueue_and_wait(stream, [&](workspace& ws) {
    auto* host = static_cast<char*>(ws.host_result_on_device());
    status = static_cast<const volatile unsigned*>(ws.host_result());
    result = static_cast<const char*>(ws.host_result()) + 16;
    async(reinterpret_cast<R*>(host + 16), reinterpret_cast<unsigned*>(host), ws);
  });
  ncclResult_t async_error = ncclSuccess;
  check(ncclCommGetAsyncError(comm, &async_error), comm, "ncclCommGetAsyncError");
  check(async_error, comm, "a collective");
  if (const unsigned bits = *status) throw_invalid(rk::status_message(bits));
  R r;
  std::memcpy(&r, result, sizeof r);
  return r;
}

}  // namespace detail

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

}  // namespace cured::nccl
