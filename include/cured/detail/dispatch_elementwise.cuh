#pragma once
// The elementwise exact sum across ranks (cured::nccl::exact_all_reduce, cured/nccl.cuh): the
// course of its collectives and kernels (device/exact_elementwise.cuh), and the stream-ordered
// scratch it takes from a pool per device.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "cured/detail/blocking.cuh"
#include "cured/detail/dispatch_ranks.cuh"
#include "cured/detail/launch.cuh"
#include "cured/device/exact_elementwise.cuh"
#include "cured/segments.cuh"
#include "cured/types/accumulate.cuh"
#include "cured/types/error.cuh"
#include "cured/workspace.cuh"

namespace cured::nccl::detail {

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

/// Kernel over n elements (grid-stride) on one wave of blocks at most.
template <auto Kernel, class... Args>
void launch_over(std::int64_t n, int device, int sms, cudaStream_t stream, Args... args) {
  const std::int64_t grid = cured::detail::wave_grid<Kernel>(std::max<std::int64_t>(1, cured::detail::ceil_div(n, 256)),
                                                               256, device, sms);
  Kernel<<<unsigned(grid), 256, 0, stream>>>(args...);
  CURED_CHECK_LAUNCH();
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
  // The thread's workspace: its multiprocessor count, its mapped host words for what the call
  // reads back, and the exact pass's segmented sum.
  workspace& ws = cured::detail::thread_workspace();
  const int sms = ws.sm_count();
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
  launch_over<ew::exponents_kernel<T>>(failed ? 0 : m, device, sms, stream, in, failed ? 0 : rows, row_stride,
                                       failed ? 0 : m, block_len, record, tag, failed ? -1 : m,
                                       std::int32_t(failed ? 0 : rows));
  check(ncclAllReduce(record, record, std::size_t(words), ncclInt32, ncclMax, comm, stream), comm, "ncclAllReduce");
  auto* host = static_cast<std::int64_t*>(const_cast<void*>(ws.host_result()));
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
      launch_over<ew::encode_kernel<T, L>>(padded, device, sms, stream, in, rows, row_stride, m, padded, block_len,
                                           static_cast<const std::int32_t*>(record), h, pq, packed, keep);
      check(ncclReduceScatter(packed, mine, std::size_t(chunk * L), ncclInt64, ncclSum, comm, stream), comm,
            "ncclReduceScatter");
      launch_over<ew::round_kernel<R, L>>(chunk, device, sms, stream, static_cast<const std::int64_t*>(mine), chunk,
                                          std::int64_t(rank) * chunk, m, block_len,
                                          static_cast<const std::int32_t*>(record), h, pq, rows_max > 0,
                                          gathered + rank * chunk, count);
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
  launch_over<ew::gather_kernel<T, G>>(per_rank, device, sms, stream, source, source_rows, source_stride,
                                       static_cast<const std::int64_t*>(index), undecided, rows_max, local);
  auto* gathered = mem.get<G>(per_rank * ranks);
  check(ncclAllGather(local, gathered, std::size_t(per_rank), nccl_type<G>(), comm, stream), comm, "ncclAllGather");
  auto* segment_terms = mem.get<G>(per_rank * ranks);
  auto* offsets = mem.get<std::int64_t>(undecided + 1);
  launch_over<ew::transpose_kernel<G>>(per_rank * ranks, device, sms, stream, static_cast<const G*>(gathered),
                                       std::int64_t(ranks), undecided, rows_max, segment_terms, offsets);
  auto* sums = mem.get<R>(undecided);
  cured::detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) {
    cured::exact_sum_async(static_cast<const G*>(segment_terms), per_rank * ranks, segments{offsets, undecided}, sums,
                           ws, stream, st);
  });
  launch_over<ew::scatter_kernel<R>>(undecided, device, sms, stream, static_cast<const R*>(sums),
                                     static_cast<const std::int64_t*>(index), undecided, out);
  CURED_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace cured::nccl::detail
