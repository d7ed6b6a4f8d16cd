#pragma once
// What one cured-bench run shares across types: the options, the device, the rows so far.

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
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
  /// Print each row to stdout as it is measured (a table on stdout).
  bool stream_rows = false;

  /// The work of the run, in units of work_of(n) (plan_work), and how much of it is done: the
  /// progress lines' share done and time left.
  double work_planned = 0, work_finished = 0;
  /// When the run started, and when the work last finished grew.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now(), finished_at = started;

  /// An input of n elements, measured in every selected way, as work: its elements and a
  /// fixed cost per input (drawing it, the reference, the first launches).
  static double work_of(std::int64_t n) { return double(n) + double(1 << 22); }

  /// Keeps r; with stream_rows, prints it to stdout at once.
  void add(row r) {
    if (stream_rows) {
      std::fputs(stream_line(r).c_str(), stdout);
      std::fflush(stdout);
    }
    rows.push_back(std::move(r));
  }

  /// Progress on stderr, so stdout stays clean for CSV and JSON: the share of the planned work
  /// done and the time left at the pace of the inputs finished so far, less the time since the
  /// last one finished, then the line.
  void progress(const std::string& line) const {
    if (work_planned > 0 && work_finished > 0) {
      using seconds = std::chrono::duration<double>;
      const double pace = seconds(finished_at - started).count() / work_finished;
      const double left = pace * (work_planned - work_finished) -
                          seconds(std::chrono::steady_clock::now() - finished_at).count();
      std::fprintf(stderr, "[%3.0f%%, ~%.0f s left] %s\n", 100 * work_finished / work_planned, left > 0 ? left : 0,
                   line.c_str());
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  }
};

/// One input's measurements, counted done when it goes out of scope.
class work_done {
public:
  work_done(context& ctx, std::int64_t n) : ctx_(ctx), n_(n) {}
  work_done(const work_done&) = delete;
  work_done& operator=(const work_done&) = delete;
  ~work_done() {
    ctx_.work_finished += context::work_of(n_);
    ctx_.finished_at = std::chrono::steady_clock::now();
  }

private:
  context& ctx_;
  std::int64_t n_;
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
