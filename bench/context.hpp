#pragma once
// What one cured-bench run shares across types: the options, the device, the rows so far.

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/options.hpp"
#include "bench/report.hpp"
#include "bench/timing.cuh"

namespace cured::bench {

struct context {
  explicit context(const options& o) : opt(o) {}

  const options& opt;
  bool gpu = false;              ///< a usable CUDA device: GPU implementations run
  device_info dev;
  l2_flusher* flusher = nullptr;  ///< null without a GPU
  cudaStream_t stream = nullptr;
  std::uint64_t seed = 0;
  std::vector<row> rows;

  /// Progress on stderr, so stdout stays clean for CSV and JSON.
  void progress(const std::string& line) const { std::fprintf(stderr, "%s\n", line.c_str()); }
};

/// How the run's options time one measurement (cpu: of CPU code, which takes fewer samples).
inline timing_plan plan_of(const context& ctx, bool cpu) {
  timing_plan p;
  p.cold = ctx.opt.cold;
  p.hot = ctx.opt.hot;
  p.samples = ctx.opt.samples;
  p.min_samples = cpu ? 3 : 10;
  return p;
}

/// Appends the rows of every selected implementation and op for element type `type`
/// (one of the names options accepts): over the sizes, or over the axis workloads or the
/// segmented workloads when the options have them. Returns false for a type cured-bench cannot
/// run.
bool run_type(const std::string& type, context& ctx);

}  // namespace cured::bench
