#pragma once
// How cured-bench times things: CUDA events around asynchronous GPU work, a steady clock
// around blocking calls and CPU code; cold samples start from an L2 flushed by writing a
// buffer twice its size; hot time is the mean of back-to-back launches; medians throughout.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "cured/types/error.cuh"

namespace cured::bench {

struct device_info {
  int ordinal = 0;
  std::string name;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_bytes = 0;
  double peak_gbps = std::numeric_limits<double>::quiet_NaN();  ///< 2 x memory clock x bus width
};

device_info query_device(int ordinal);

/// Evicts the input from L2 by writing a buffer of twice the L2 size.
class l2_flusher {
public:
  explicit l2_flusher(const device_info& dev);
  l2_flusher(const l2_flusher&) = delete;
  l2_flusher& operator=(const l2_flusher&) = delete;
  ~l2_flusher();
  void flush(cudaStream_t stream);

private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
  int value_ = 0;
};

struct timing {
  double cold_ms = std::numeric_limits<double>::quiet_NaN();
  double hot_ms = std::numeric_limits<double>::quiet_NaN();
  double cold_noise = std::numeric_limits<double>::quiet_NaN();  ///< noise_pct of the cold samples
};

struct timing_plan {
  bool cold = true;
  bool hot = true;
  int samples = 0;      ///< cold samples; 0: as many as fit in about `budget_ms`, within [min_samples, 200]
  int min_samples = 10;
  double budget_ms = 100;
};

double median(std::vector<double> v);
/// The samples' relative standard deviation, % of their mean (NaN for fewer than two).
double noise_pct(const std::vector<double>& v);

/// RAII pair of events.
class event_pair {
public:
  event_pair();
  ~event_pair();
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
  void start(cudaStream_t s) { CURED_CHECK(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { CURED_CHECK(cudaEventRecord(stop_, s)); }
  double elapsed_ms();  ///< waits for stop

private:
  cudaEvent_t start_{}, stop_{};
};

inline int auto_samples(const timing_plan& plan, double estimate_ms) {
  if (plan.samples > 0) return plan.samples;
  const double fit = plan.budget_ms / std::max(estimate_ms, 1e-3);
  return int(std::clamp(fit, double(plan.min_samples), 200.0));
}

/// Times `launch(stream)`, which enqueues asynchronous work on the stream.
template <class Launch>
timing time_async(Launch&& launch, const timing_plan& plan, l2_flusher& flusher, cudaStream_t stream) {
  event_pair ev;
  // Warm-up: module load, workspace sizing, first-touch of the input.
  ev.start(stream);
  launch(stream);
  ev.stop(stream);
  const double estimate = ev.elapsed_ms();
  timing t;
  if (plan.cold) {
    std::vector<double> samples;
    const int count = auto_samples(plan, estimate);
    for (int s = 0; s < count; ++s) {
      flusher.flush(stream);
      ev.start(stream);
      launch(stream);
      ev.stop(stream);
      samples.push_back(ev.elapsed_ms());
    }
    t.cold_ms = median(samples);
    t.cold_noise = noise_pct(samples);
  }
  if (plan.hot) {
    const int reps = int(std::clamp(30.0 / std::max(estimate, 1e-3), 10.0, 1000.0));
    launch(stream);  // bring the input into L2 as far as it fits
    std::vector<double> samples;
    for (int s = 0; s < 3; ++s) {
      ev.start(stream);
      for (int r = 0; r < reps; ++r) launch(stream);
      ev.stop(stream);
      samples.push_back(ev.elapsed_ms() / reps);
    }
    t.hot_ms = median(samples);
  }
  return t;
}

/// Times `call()`, which blocks until its result is on the host (Thrust, the CPU), with a
/// steady clock. Cold samples flush L2 first (a no-op flusher for the CPU).
template <class Call, class Flush>
timing time_blocking(Call&& call, const timing_plan& plan, Flush&& flush) {
  using clock = std::chrono::steady_clock;
  auto once = [&] {
    const auto t0 = clock::now();
    call();
    return std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  };
  const double estimate = once();
  timing t;
  if (plan.cold) {
    std::vector<double> samples;
    const int count = auto_samples(plan, estimate);
    for (int s = 0; s < count; ++s) {
      flush();
      samples.push_back(once());
    }
    t.cold_ms = median(samples);
    t.cold_noise = noise_pct(samples);
  }
  if (plan.hot) {
    const int reps = int(std::clamp(50.0 / std::max(estimate, 1e-3), 3.0, 1000.0));
    std::vector<double> samples;
    for (int s = 0; s < 3; ++s) {
      const auto t0 = clock::now();
      for (int r = 0; r < reps; ++r) call();
      samples.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count() / reps);
    }
    t.hot_ms = median(samples);
  }
  return t;
}

/// Enqueues a read of every whole 16-byte word of in[0, bytes) and nothing else (it writes *sink
/// only if the XOR of all words is one particular value, so the loads cannot be removed):
/// the library's 16-byte loads and L2 policy, 256-thread blocks, four loads in flight per
/// thread, a block per 16 KiB up to one full wave. The time a launch needs to read the input
/// cold, with no reduction at all: the floor under any single-launch reduction of it.
void enqueue_read(const void* in, std::size_t bytes, unsigned* sink, const device_info& dev, cudaStream_t stream);

/// Enqueues the floor of an axis reduction that reads in[0, in_bytes) and writes out[0, out_bytes):
/// every input byte read once (its whole 16-byte words as enqueue_read reads them, the XOR kept
/// and written to *sink for one value only), then every output byte written once with plain
/// coalesced 16-byte stores, and nothing else. in and out 16-byte aligned. The time a launch
/// needs to move the reduction's bytes, cold, with no reduction at all.
void enqueue_read_write(const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes, unsigned* sink,
                        const device_info& dev, cudaStream_t stream);

/// The same with two inputs, in[0, in_bytes) then in2[0, in2_bytes), both read in one launch:
/// the floor of a segmented reduction, which reads the values and the offsets. in2 16-byte
/// aligned too.
void enqueue_read_write(const void* in, std::size_t in_bytes, const void* in2, std::size_t in2_bytes, void* out,
                        std::size_t out_bytes, unsigned* sink, const device_info& dev, cudaStream_t stream);

/// The device's streaming-read ceiling in GB/s: a read-only kernel with 16-byte loads, four in
/// flight per thread, over 4 GiB (at least 8 x L2), cold, median of `samples`.
double measure_read_ceiling(const device_info& dev, l2_flusher& flusher, cudaStream_t stream, int samples = 30);

}  // namespace cured::bench
