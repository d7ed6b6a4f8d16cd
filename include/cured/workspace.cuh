#pragma once
// Reusable device scratch for the asynchronous reductions.
//
//   cured::workspace ws;                              // on the current device
//   cured::sum_async(d_x, n, d_out, ws, stream);      // any n, no allocation, graph-capturable
//
// One workspace serves any n on its device. Use it from one stream at a time: switching to
// another stream while work queued on the previous one has not finished, or calling from two
// host threads at once, throws cured::error instead of racing (checks are skipped while the
// stream is being captured into a graph; a graph's replays must not overlap each other).

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

#include "cured/detail/device_check.cuh"
#include "cured/types/completion.cuh"
#include "cured/types/error.cuh"

namespace cured {

class workspace {
public:
  /// Largest accumulator (in bytes) a reduction may use with this workspace.
  static constexpr std::size_t max_accumulator_bytes = max_report_bytes;
  /// Most blocks a launch uses; one partial each.
  static constexpr int max_blocks_per_sm = 32;

  explicit workspace(int device = current_device()) : device_(device) {
    int sms = 0, l2 = 0, threads = 0;
    CURED_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
    CURED_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device_));
    CURED_CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device_));
    sm_count_ = sms;
    warps_per_sm_ = threads / 32;
    l2_bytes_ = std::size_t(l2);
    partial_bytes_ = std::size_t(sms) * max_blocks_per_sm * max_accumulator_bytes;
    slot_bytes_ = std::size_t(sms) * max_blocks_per_sm * slot_bytes_per_block;
    const std::size_t zeroed = header_bytes + partial_bytes_ + slot_bytes_ + axis_counter_bytes;
    int previous = 0;
    CURED_CHECK(cudaGetDevice(&previous));
    if (previous != device_) CURED_CHECK(cudaSetDevice(device_));
    try {
      detail::check_device_runs_cured(device_);
      CURED_CHECK(cudaMalloc(&base_, zeroed + axis_partial_bytes));
      // Zero the ticket, the exact state, the slots and the axis counters, and wait: a plain
      // cudaMemset would not be ordered before kernels on non-blocking streams.
      CURED_CHECK(cudaMemsetAsync(base_, 0, zeroed, cudaStreamPerThread));
      CURED_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
      // Pinned and mapped: the blocking forms' kernel writes its result straight into it,
      // which saves a copy (a DMA of a few bytes costs several microseconds), and then the
      // completion flag the host waits on.
      CURED_CHECK(cudaHostAlloc(&host_result_, host_bytes, cudaHostAllocMapped));
      std::memset(host_result_, 0, host_bytes);
      CURED_CHECK(cudaHostGetDevicePointer(&host_result_on_device_, host_result_, 0));
      CURED_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
    } catch (...) {
      release();
      if (previous != device_) (void)cudaSetDevice(previous);
      throw;
    }
    if (previous != device_) CURED_CHECK(cudaSetDevice(previous));
  }
  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;
  ~workspace() { release(); }

  int device() const { return device_; }
  /// Gives the workspace to `stream` alone (as the C interface does with its own, one per
  /// thread, device and stream): its calls then skip what orders work across streams (a query
  /// of the stream's capture and an event per call), which the stream's order already gives;
  /// a call on another stream is an error, and use::capturing() is false. Work queued with it
  /// on another stream is waited for first.
  void dedicate_to(cudaStream_t stream) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (used_ && last_stream_ != stream) CURED_CHECK(cudaEventSynchronize(done_));
    dedicated_ = true;
    last_stream_ = stream;
  }
  int sm_count() const { return sm_count_; }
  /// Warps one multiprocessor holds at once: 64 on sm_80 and sm_90, 48 on sm_86, sm_89 and sm_120.
  int warps_per_sm() const { return warps_per_sm_; }
  std::size_t l2_bytes() const { return l2_bytes_; }

  // --- used by the reductions ---------------------------------------------------------
  unsigned int* ticket() const { return static_cast<unsigned int*>(base_); }
  /// The exact sums' state (ticket, flags, fixed-point accumulator): zero between calls.
  void* exact_state() const { return static_cast<char*>(base_) + exact_state_offset; }
  static constexpr std::size_t exact_state_bytes = 2048;
  /// The arg kernel's partials: one per block.
  void* partials() const { return static_cast<char*>(base_) + header_bytes; }
  std::size_t partial_bytes() const { return partial_bytes_; }
  /// The single-pass kernel's slots (grid::slot): one per block, zero between launches.
  std::uint64_t* slots() const {
    return reinterpret_cast<std::uint64_t*>(static_cast<char*>(base_) + header_bytes + partial_bytes_);
  }
  /// The axis reductions' arrival counters (axis_counters of them, zero between launches) and
  /// their partials (axis_partial_bytes), for reductions whose outputs are split over blocks.
  static constexpr std::size_t axis_counters = 4096;
  static constexpr std::size_t axis_partial_bytes = std::size_t(4) << 20;
  unsigned int* axis_counter() const {
    return reinterpret_cast<unsigned int*>(static_cast<char*>(base_) + header_bytes + partial_bytes_ + slot_bytes_);
  }
  void* axis_partials() const {
    return static_cast<char*>(base_) + header_bytes + partial_bytes_ + slot_bytes_ + axis_counter_bytes;
  }
  /// The status words: each zero between launches where it says so.
  struct status_words {
    unsigned segment_error;   ///< the error bits of the segmented launch in flight (zero between launches)
    unsigned segment_ticket;  ///< that launch's ticket (zero between launches)
    unsigned segment_status;  ///< the status of the last segmented call that named no status word
    unsigned rank_status;     ///< the status of the last reduction across ranks that named none
  };
  status_words* words() const {
    return reinterpret_cast<status_words*>(static_cast<char*>(base_) + status_words_offset);
  }
  /// Device memory: the status word (0, or the bits of cured::segment_error) that the last
  /// segmented _async call on this workspace that named no status word of its own writes.
  const unsigned* segment_status() const { return &words()->segment_status; }
  /// Device memory: the status word of the last reduction across ranks (cured/nccl.cuh) on
  /// this workspace that named no status word of its own.
  unsigned* rank_status() const { return &words()->rank_status; }
  /// The host side of host_result_on_device(): read it once the stream is idle.
  const void* host_result() const { return host_result_; }
  /// Mapped host memory where the blocking forms' kernels that do not report (exact_sum) write
  /// their result, as the device addresses it.
  void* host_result_on_device() const { return host_result_on_device_; }

  // --- completion of the blocking forms ------------------------------------------------
  // The blocking forms' single-pass and arg kernels end by writing their result into mapped
  // host memory as report words (cured::completion); the host spins on them instead of
  // synchronizing the stream, and has the result the moment they arrive. (Asynchronous calls
  // do not report: a kernel that writes host memory takes longer to complete, about a
  // microsecond on the H200, while the event record that tracks them costs no measurable GPU
  // time.)

  /// Picks the value the next blocking launch reports.
  void arm_completion() {
    if (++completion_value_ == 0) ++completion_value_;
  }
  /// Where the armed launch reports (device addresses).
  completion completion_target() const {
    return {reinterpret_cast<std::uint64_t*>(static_cast<char*>(host_result_on_device_) + max_accumulator_bytes),
            completion_value_};
  }
  /// True, with the result's `bytes` in `result`, once the armed launch has reported all of it.
  bool take_report(void* result, std::size_t bytes) const {
    return read_report(reinterpret_cast<const volatile std::uint64_t*>(static_cast<const char*>(host_result_) +
                                                                         max_accumulator_bytes),
                       completion_value_, result, bytes);
  }
  /// Returns once the armed launch's result (`bytes` of it) is in `result`: when the kernel has
  /// reported it, or, for kernels that do not report, when the stream is idle. Spins for up to
  /// 200 us (a report arrives about a microsecond after the kernel writes it, a stream
  /// synchronization returns several microseconds later), then blocks in
  /// cudaStreamSynchronize. A failed kernel throws cured::error.
  void wait_for_result(cudaStream_t stream, void* result, std::size_t bytes) const {
    const auto begin = std::chrono::steady_clock::now();
    for (unsigned spin = 1;; ++spin) {
      if (take_report(result, bytes)) return;
      if (spin % 64 == 0) {
        const cudaError_t q = cudaStreamQuery(stream);
        if (q == cudaSuccess) break;
        if (q != cudaErrorNotReady) CURED_CHECK(q);
        if (std::chrono::steady_clock::now() - begin > std::chrono::microseconds(200)) {
          CURED_CHECK(cudaStreamSynchronize(stream));
          break;
        }
      }
    }
    // The stream is idle: every report word has arrived, or the kernel wrote its result itself.
    if (!take_report(result, bytes)) std::memcpy(result, host_result_, bytes);
  }

  /// What a pointer checked by use::check_pointer is to the call; the workspace remembers the
  /// last good pointer of each, so that repeated calls on the same arrays skip the driver query.
  enum class role { input, output, second_input, offsets, ends, rank_output, count };

  /// Held for the duration of one call: checks the device and that the previous use (on
  /// another stream) is finished; on release, marks the stream's work as this workspace's.
  class use {
  public:
    /// synchronous: the blocking forms, whose caller waits for the result. A kernel reports
    /// its result before it ends, and may still clear the workspace's slots after that, so a
    /// call on another stream first waits for the previous call's work to end.
    use(workspace& ws, cudaStream_t stream, bool synchronous = false)
        : ws_(ws), stream_(stream), lock_(ws.mutex_, std::try_to_lock), synchronous_(synchronous) {
      if (!lock_.owns_lock()) throw_invalid("workspace used from two host threads at once");
      int dev = 0;
      CURED_CHECK(cudaGetDevice(&dev));
      if (dev != ws_.device_)
        throw_invalid("workspace of device " + std::to_string(ws_.device_) + " used on device " + std::to_string(dev));
      if (ws_.dedicated_) {
        if (stream_ != ws_.last_stream_) throw_invalid("workspace given to one stream used on another");
        return;
      }
      if (synchronous_) {
        if (ws_.used_ && ws_.last_stream_ != stream_) CURED_CHECK(cudaEventSynchronize(ws_.done_));
        return;
      }
      cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
      CURED_CHECK(cudaStreamIsCapturing(stream_, &capture));
      capturing_ = capture != cudaStreamCaptureStatusNone;
      if (!capturing_ && ws_.used_ && ws_.last_stream_ != stream_) {
        // Relaxed mode for the query: a capture running elsewhere (another thread, another
        // stream) would otherwise be invalidated by it.
        cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
        CURED_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
        const cudaError_t q = cudaEventQuery(ws_.done_);
        (void)cudaThreadExchangeStreamCaptureMode(&mode);
        if (q == cudaErrorNotReady)
          throw_invalid("workspace used on a second stream while work on another stream still uses it");
        if (q != cudaSuccess) CURED_CHECK(q);
      }
    }
    /// Where this call's kernel reports its result: for a blocking call where its caller
    /// waits for it; no report otherwise.
    completion report_to() const {
      if (!synchronous_) return {};
      return ws_.completion_target();
    }
    /// Call after the work is enqueued.
    void enqueued() {
      if (capturing_ || ws_.dedicated_) return;
      CURED_CHECK(cudaEventRecord(ws_.done_, stream_));
      ws_.last_stream_ = stream_;
      ws_.used_ = true;
    }
    bool capturing() const { return capturing_; }
    /// Checks that p is memory the device can read (`what` names it in the error).
    void check_pointer(const void* p, role r, const char* what) {
      if (p == nullptr) throw_invalid(std::string(what) + " is a null pointer");
      const void*& last = ws_.checked_[static_cast<int>(r)];
      if (last == p) return;
      check_device_pointer(p, what, ws_.device_);
      last = p;
    }

  private:
    workspace& ws_;
    cudaStream_t stream_;
    std::unique_lock<std::mutex> lock_;
    bool synchronous_ = false;
    bool capturing_ = false;
  };

  /// Throws unless p is device (or managed) memory usable on `device`.
  static void check_device_pointer(const void* p, const char* what, int device) {
    cudaPointerAttributes attr{};
    const cudaError_t e = cudaPointerGetAttributes(&attr, p);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw_invalid(std::string(what) + ": cannot query the pointer: " + cudaGetErrorString(e));
    }
    if (attr.type == cudaMemoryTypeUnregistered || attr.type == cudaMemoryTypeHost)
      throw_invalid(std::string(what) + " is host memory, not device memory");
    if (attr.type == cudaMemoryTypeDevice && attr.device != device)
      throw_invalid(std::string(what) + " is memory of device " + std::to_string(attr.device) + ", not of device " +
                    std::to_string(device));
  }

  static int current_device() {
    int d = 0;
    CURED_CHECK(cudaGetDevice(&d));
    return d;
  }

private:
  // The ticket, the status words, then the exact sums' state, padded to keep the partials
  // aligned.
  static constexpr std::size_t status_words_offset = 64;
  static constexpr std::size_t exact_state_offset = 256;
  static constexpr std::size_t header_bytes = exact_state_offset + exact_state_bytes;
  static_assert(status_words_offset + sizeof(status_words) <= exact_state_offset);
  static constexpr std::size_t axis_counter_bytes = axis_counters * sizeof(unsigned int);
  // A slot holds 8 bytes per 4 of the accumulator.
  static constexpr std::size_t slot_bytes_per_block = 2 * max_accumulator_bytes;
  // The blocking forms' result as kernels that do not report write it, then the report words.
  static constexpr std::size_t host_bytes = max_accumulator_bytes + max_accumulator_bytes / 4 * sizeof(std::uint64_t);

  void release() noexcept {
    if (done_) (void)cudaEventDestroy(done_);
    if (host_result_) (void)cudaFreeHost(host_result_);
    if (base_) (void)cudaFree(base_);
    done_ = nullptr;
    host_result_ = nullptr;
    base_ = nullptr;
  }

  int device_ = 0;
  int sm_count_ = 0;
  int warps_per_sm_ = 0;
  std::size_t l2_bytes_ = 0;
  std::size_t partial_bytes_ = 0;
  std::size_t slot_bytes_ = 0;
  unsigned completion_value_ = 0;
  void* base_ = nullptr;
  void* host_result_ = nullptr;
  void* host_result_on_device_ = nullptr;
  cudaEvent_t done_ = nullptr;
  std::mutex mutex_;
  cudaStream_t last_stream_ = nullptr;
  bool used_ = false;
  bool dedicated_ = false;
  // The last pointer of each role found valid.
  const void* checked_[static_cast<int>(role::count)] = {};
};

}  // namespace cured
