#pragma once
// The course of every reduction across ranks (cured/nccl.cuh): the local step into this rank's
// record, the collective, the combine; a local failure poisons the record so that the other
// ranks fail too; NCCL's errors as cured::error. The records and the combine kernels:
// detail/ranks.cuh.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "cured/detail/blocking.cuh"
#include "cured/detail/ranks.cuh"
#include "cured/detail/seam.cuh"
#include "cured/device/rank_poison.cuh"
#include "cured/types/error.cuh"
#include "cured/workspace.cuh"

namespace cured::nccl::detail {

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

/// Once a call's stream is idle: throws for NCCL's asynchronous error (a failed collective) or
/// for a nonzero status word (the ranks' calls differ).
inline void check_finished(ncclComm_t comm, unsigned status) {
  ncclResult_t async_error = ncclSuccess;
  check(ncclCommGetAsyncError(comm, &async_error), comm, "ncclCommGetAsyncError");
  check(async_error, comm, "a collective");
  if (status) throw_invalid(rk::status_message(status));
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
  check_finished(comm, *status);
  R r;
  std::memcpy(&r, result, sizeof r);
  return r;
}

}  // namespace cured::nccl::detail
