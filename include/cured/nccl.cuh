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
// detail::trim_scratch(device) gives it back.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "cured/types/accumulate.cuh"
#include "cured/detail/blocking.cuh"
#include "cured/detail/ranks.cuh"
#include "cured/detail/seam.cuh"
#include "cured/reduce.cuh"
#include "cured/device/exact_elementwise.cuh"
#include "cured/device/rank_poison.cuh"
#include "cured/segments.cuh"
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

// ---- the elementwise exact sum ----------------------------------------------------------------

namespace ew = cured::device::elementwise;

/// The scratch pool of a device (created on first use when `create`; null otherwise): it keeps
/// what it has allocated, so that the calls of a training loop reuse it instead of returning
/// it to the driver; trim_scratch gives back what no call holds.
inline cudaMemPool_t scratch_pool(int device, bool create) {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;
  const std::lock_guard<std::mutex> lock(mutex);
  if (pools.size() <= std::size_t(device)) pools.resize(device + 1, nullptr);
  if (!pools[device] && create) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    CURED_CHECK(cudaMemPoolCreate(&pools[device], &props));
    std::uint64_t keep = UINT64_MAX;
    CURED_CHECK(cudaMemPoolSetAttribute(pools[device], cudaMemPoolAttrReleaseThreshold, &keep));
  }
  return pools[device];
}

inline void trim_scratch(int device) {
  if (cudaMemPool_t pool = scratch_pool(device, false)) CURED_CHECK(cudaMemPoolTrimTo(pool, 0));
}

/// Stream-ordered scratch for one call, from the device's scratch pool.
class scratch {
public:
  scratch(int device, cudaStream_t stream) : stream_(stream), pool_(scratch_pool(device, true)) {}
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  ~scratch() {
    for (void* p : held_) (void)cudaFreeAsync(p, stream_);
  }
  template <class U>
  U* get(std::int64_t count) {
    void* p = nullptr;
    CURED_CHECK(cudaMallocFromPoolAsync(&p, std::size_t(count > 0 ? count : 1) * sizeof(U), pool_, stream_));
    held_.push_back(p);
    return static_cast<U*>(p);
  }

private:
  cudaStream_t stream_;
  cudaMemPool_t pool_ = nullptr;
  std::vector<void*> held_;
};

/// A pinned host buffer of the calling thread, for what a call reads back.
inline std::int64_t* host_words() {
  struct pinned {
    std::int64_t* p = nullptr;
    pinned() { CURED_CHECK(cudaMallocHost(&p, 64 * sizeof(std::int64_t))); }
    ~pinned() { (void)cudaFreeHost(p); }
  };
  thread_local pinned words;
  return words.p;
}

inline unsigned grid_for(std::int64_t n, int sms) {
  const std::int64_t blocks = (n + 255) / 256;
  return unsigned(std::max<std::int64_t>(1, std::min<std::int64_t>(blocks, std::int64_t(sms) * 8)));
}

template <class T>
constexpr ncclDataType_t nccl_type() {
  return std::is_same_v<T, double> ? ncclFloat64 : ncclFloat32;
}

/// The element types' numbers in a call's header (a rank calling with another type differs).
template <class T>
constexpr std::int32_t elementwise_tag() {
  return 16 + std::int32_t(rk::exact_tag<T>());
}

/// exact_only: the test seam that sends every element through the exact pass.
template <class T>
void exact_all_reduce(const T* in, std::int64_t rows, std::int64_t row_stride, std::int64_t m,
                      exact_result_t<T>* out, ncclComm_t comm, cudaStream_t stream, bool exact_only = false) {
  using R = exact_result_t<T>;
  using G = std::conditional_t<std::is_same_v<T, double>, double, float>;
  if (comm == nullptr) throw_invalid("null NCCL communicator");
  int ranks = 0, rank = 0, device = 0, current = 0;
  check(ncclCommCount(comm, &ranks), comm, "ncclCommCount");
  check(ncclCommUserRank(comm, &rank), comm, "ncclCommUserRank");
  check(ncclCommCuDevice(comm, &device), comm, "ncclCommCuDevice");
  CURED_CHECK(cudaGetDevice(&current));
  if (current != device)
    throw_invalid("the current device is " + std::to_string(current) + ", the communicator's " + std::to_string(device));
  int sms = 0;
  CURED_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const bool in_place = static_cast<const void*>(in) == static_cast<const void*>(out);

  // The arguments, checked; a rank whose arguments fail still joins the header's all-reduce,
  // with a tag no good call has, so that every rank fails rather than waits.
  std::exception_ptr failed;
  try {
    if (rows < 0 || m < 0) throw_invalid("negative rows or elements");
    if (rows > 1 && row_stride < m) throw_invalid("rows overlap: the row stride is below the row length");
    if (rows >= (std::int64_t(1) << 30)) throw_invalid("2^30 rows or more");
    if (m >= (std::int64_t(1) << 60)) throw_invalid("2^60 elements or more");
    if (in_place && (rows != 1 || !std::is_same_v<T, R>)) throw_invalid("in place needs one row of float or double");
    if (rows > 0 && m > 0) workspace::check_device_pointer(in, "the input", device);
    if (m > 0) workspace::check_device_pointer(out, "the output", device);
    if (!in_place && rows > 0 && m > 0) {  // out is written before the exact pass reads in again
      const auto in_begin = reinterpret_cast<std::uintptr_t>(in), out_begin = reinterpret_cast<std::uintptr_t>(out);
      const auto in_end = in_begin + std::uintptr_t(((rows - 1) * row_stride + m) * std::int64_t(sizeof(T)));
      const auto out_end = out_begin + std::uintptr_t(m * std::int64_t(sizeof(R)));
      if (in_begin < out_end && out_begin < in_end) throw_invalid("the output overlaps the input (other than in place)");
    }
  } catch (...) {
    failed = std::current_exception();
  }
  const std::int64_t block_len = std::max<std::int64_t>(32, (m + ew::max_blocks - 1) / ew::max_blocks + 31) / 32 * 32;
  const std::int64_t words = ew::header_words + 2 * ew::max_blocks;
  scratch mem(device, stream);
  auto* record = mem.get<std::int32_t>(words);
  CURED_CHECK(cudaMemsetAsync(record, 0, std::size_t(words) * sizeof(std::int32_t), stream));
  const std::int32_t tag = failed ? 0 : elementwise_tag<T>();
  ew::exponents_kernel<T><<<grid_for(failed ? 0 : m, sms), 256, 0, stream>>>(
      in, failed ? 0 : rows, row_stride, failed ? 0 : m, block_len, record, tag, failed ? -1 : m,
      std::int32_t(failed ? 0 : rows));
  CURED_CHECK_LAUNCH();
  check(ncclAllReduce(record, record, std::size_t(words), ncclInt32, ncclMax, comm, stream), comm, "ncclAllReduce");
  std::int64_t* host = host_words();
  auto* header = reinterpret_cast<std::int32_t*>(host);
  CURED_CHECK(cudaMemcpyAsync(header, record, ew::header_words * sizeof(std::int32_t), cudaMemcpyDeviceToHost, stream));
  CURED_CHECK(cudaStreamSynchronize(stream));
  if (failed) std::rethrow_exception(failed);
  if (header[ew::tag_max] != -header[ew::tag_min] || header[ew::tag_min] >= 0)
    throw_invalid("the ranks called exact_all_reduce with different element types, or one failed its checks");
  if (header[ew::m_low_max] != -header[ew::m_low_min] || header[ew::m_high_max] != -header[ew::m_high_min])
    throw_invalid("the ranks called exact_all_reduce with different element counts");
  if (m == 0) return;
  const std::int64_t rows_max = header[ew::rows_max];
  if (rows_max == 0) {  // every rank's rows empty: each sum is +0
    CURED_CHECK(cudaMemsetAsync(out, 0, std::size_t(m) * sizeof(R), stream));
    CURED_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  const std::int64_t terms = std::int64_t(ranks) * rows_max;
  int h = 1;
  while ((std::int64_t(1) << h) <= terms) ++h;

  // One int64 an element for the 16-bit and 32-bit types while the scale leaves 40 bits, else two.
  const int pq1 = 62 - 3 * h, pq2 = 124 - 4 * h;  // (two: the high limbs' sum stays below 2^63)
  const bool one_limb = !std::is_same_v<T, double> && pq1 >= 40;
  const int pq = one_limb ? pq1 : pq2;
  const bool fast = pq > std::numeric_limits<G>::digits + 1 && !exact_only;

  const T* source = in;  // the terms, for the exact pass
  std::int64_t undecided = m;
  if (fast) {
    const std::int64_t chunk = (m + ranks - 1) / ranks, padded = chunk * ranks;
    const int limbs = one_limb ? 1 : 2;
    auto* packed = mem.get<std::int64_t>(padded * limbs);
    auto* mine = mem.get<std::int64_t>(chunk * limbs);
    T* keep = in_place ? mem.get<T>(m) : nullptr;
    if (keep) source = keep;
    R* gathered = padded == m ? out : mem.get<R>(padded);
    auto* count = mem.get<unsigned long long>(1);
    CURED_CHECK(cudaMemsetAsync(count, 0, sizeof(unsigned long long), stream));
    const auto encode_and_round = [&](auto limbs_constant) {
      constexpr int L = decltype(limbs_constant)::value;
      ew::encode_kernel<T, L><<<grid_for(padded, sms), 256, 0, stream>>>(in, rows, row_stride, m, padded, block_len,
                                                                         record, h, pq, packed, keep);
      CURED_CHECK_LAUNCH();
      check(ncclReduceScatter(packed, mine, std::size_t(chunk * L), ncclInt64, ncclSum, comm, stream), comm,
            "ncclReduceScatter");
      ew::round_kernel<R, L><<<grid_for(chunk, sms), 256, 0, stream>>>(mine, chunk, std::int64_t(rank) * chunk, m,
                                                                       block_len, record, h, pq, rows_max > 0,
                                                                       gathered + rank * chunk, count);
      CURED_CHECK_LAUNCH();
    };
    if (one_limb)
      encode_and_round(std::integral_constant<int, 1>{});
    else
      encode_and_round(std::integral_constant<int, 2>{});
    check(ncclGroupStart(), comm, "ncclGroupStart");
    check(ncclAllGather(gathered + rank * chunk, gathered, std::size_t(chunk), nccl_type<R>(), comm, stream), comm,
          "ncclAllGather");
    check(ncclAllReduce(count, count, 1, ncclUint64, ncclSum, comm, stream), comm, "ncclAllReduce");
    check(ncclGroupEnd(), comm, "ncclGroupEnd");
    if (gathered != out)
      CURED_CHECK(cudaMemcpyAsync(out, gathered, std::size_t(m) * sizeof(R), cudaMemcpyDeviceToDevice, stream));
    CURED_CHECK(cudaMemcpyAsync(host, count, sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
    CURED_CHECK(cudaStreamSynchronize(stream));
    undecided = host[0];
    if (undecided == 0) return;
  }

  // The exact pass: the undecided elements' terms, every rank's, summed exactly per element.
  std::int64_t* index = nullptr;  // null: every element
  const std::int64_t source_rows = source == in ? rows : 1, source_stride = source == in ? row_stride : m;
  if (fast) {
    index = mem.get<std::int64_t>(undecided);
    auto* selected = mem.get<std::int64_t>(1);
    std::size_t temp_bytes = 0;
    const thrust::counting_iterator<std::int64_t> all(0);
    CURED_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, all, index, selected, m, ew::undecided_at<R>{out}, stream));
    void* temp = mem.get<char>(std::int64_t(temp_bytes));
    CURED_CHECK(cub::DeviceSelect::If(temp, temp_bytes, all, index, selected, m, ew::undecided_at<R>{out}, stream));
  }
  const std::int64_t per_rank = undecided * rows_max;
  auto* local = mem.get<G>(per_rank);
  ew::gather_kernel<T, G><<<grid_for(per_rank, sms), 256, 0, stream>>>(source, source_rows, source_stride, index,
                                                                      undecided, rows_max, local);
  CURED_CHECK_LAUNCH();
  auto* gathered = mem.get<G>(per_rank * ranks);
  check(ncclAllGather(local, gathered, std::size_t(per_rank), nccl_type<G>(), comm, stream), comm, "ncclAllGather");
  auto* segment_terms = mem.get<G>(per_rank * ranks);
  auto* offsets = mem.get<std::int64_t>(undecided + 1);
  ew::transpose_kernel<G><<<grid_for(per_rank * ranks, sms), 256, 0, stream>>>(gathered, ranks, undecided, rows_max,
                                                                              segment_terms, offsets);
  CURED_CHECK_LAUNCH();
  auto* sums = mem.get<R>(undecided);
  cured::detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) {
    cured::exact_sum_async(static_cast<const G*>(segment_terms), per_rank * ranks, segments{offsets, undecided}, sums,
                           ws, stream, st);
  });
  ew::scatter_kernel<R><<<grid_for(undecided, sms), 256, 0, stream>>>(sums, index, undecided, out);
  CURED_CHECK_LAUNCH();
  CURED_CHECK(cudaStreamSynchronize(stream));
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
