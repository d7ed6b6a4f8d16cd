// cured-bench: every reduction implementation, timed cold and hot, checked, and compared.
// `cured-bench --help` for the options; exit status 0 when every result checked ok, 1 when
// any was wrong, 2 for bad arguments.

#include <cuda_runtime_api.h>

#include <cuda/std/version>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <iostream>
#include <string>
#include <vector>

#include "bench/context.hpp"
#include "bench/op_names.hpp"
#include "bench/type_runs.hpp"
#include "harness/inputs.cuh"
#include "ladder/ladder.cuh"

namespace cured::bench {

namespace {

const type_run_entry* find_type(const std::string& type) {
  for (const auto& t : type_runs)
    if (type == t.name) return &t;
  return nullptr;
}

}  // namespace

bool run_type(const std::string& type, context& ctx) {
  const type_run_entry* t = find_type(type);
  void (*const run)(context&) = !t                       ? nullptr
                                : ctx.opt.axis_mode()    ? t->run_axes
                                : ctx.opt.segment_mode() ? t->run_segments
                                                         : t->run;
  if (run) run(ctx);  // (a type without the run's workloads is left out by the options)
  return run != nullptr;
}

namespace {

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return buf;
}

/// "13.0" of CUDA's 13000.
std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

/// The versions a run names: cured's, the CUDA runtime linked, the driver's CUDA, CCCL's.
void fill_versions(run_info& info) {
  info.cured_version = CURED_VERSION_TEXT;
  int v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) info.cuda_runtime = cuda_version_text(v);
  if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0) info.cuda_driver = cuda_version_text(v);
  (void)cudaGetLastError();
  info.cccl = std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
              std::to_string(CCCL_PATCH_VERSION);
}

/// The planned work of the run (context::work_of each input of each type).
double plan_work(const options& opt) {
  double per_type = 0;
  if (opt.axis_mode()) {
    for (const auto& w : opt.workloads) per_type += context::work_of(w.elements());
  } else if (opt.segment_mode()) {
    for (const auto& w : opt.segment_workloads) per_type += context::work_of(w.n);
  } else {
    for (const std::int64_t n : opt.sizes) per_type += context::work_of(n);
  }
  return per_type * double(opt.types.size());
}

/// A report to write at the end, its file opened before the run (stdout when path is empty).
struct report_target {
  options::format fmt;
  std::string path;
  std::unique_ptr<std::ofstream> file;
};

void print_list() {
  std::printf("implementations:\n");
  for (const auto& s : ladder::steps())
    std::printf("  step%-2d   %s: %s\n", s.number, std::string(s.title).c_str(), std::string(s.change).c_str());
  std::printf("  cured           the library's asynchronous form (cured::sum_async ...), one launch\n");
  std::printf("  cured-blocking  the library's blocking form (cured::sum ...): launch, copy back, synchronize\n");
  std::printf("  cured-pairs     segmented workloads only: the segments as begin and end pairs\n");
  std::printf("  cub      cub::DeviceReduce (temporary storage allocated once, outside the timing)\n");
  std::printf("  cublas   cuBLAS's cublasSdot/cublasDdot (the dot op; handle created outside the timing)\n");
  std::printf("  thrust   thrust::reduce, as users call it (its allocation and synchronization timed)\n");
  std::printf("  cpu      serial CPU sum\n");
  std::printf("  cpu-mt   CPU sum over every core\n");
  std::printf("types:");
  for (const auto& t : type_runs) std::printf(" %s", std::string(t.name).c_str());
  std::printf("\n  (sums accumulate int32 in int64, uint32 in uint64, half in float; the ladder sums\n"
              "   float, double, int32, uint32; the CPU rows sum the ladder's types)\n");
  std::printf("ops:");
  for (const auto name : op_names_in_order) std::printf(" %s", std::string(name).c_str());
  std::printf(" (the ladder and cpu-mt: sum only; exact_sum: floating types,\n"
              "     cured, cured-blocking and cpu (cured::cpu::exact_sum, float and double) only;\n"
              "     exact_dot and dot: the dot product of the input's halves x = in[0, n/2), y = in[n/2, 2(n/2)),\n"
              "     exact_dot by cured, dot in floating point by cub (a fused TransformReduce) and cublas)\n");
  std::printf("data (--data): exact (small integers, every sum exact; the default), normal (N(0,1) values),\n"
              "     spread (random exponents over the type's whole finite range), cancel (uniform in [-1, 1)),\n"
              "     boundary (1, half an ulp, then pairs v, -v: a rounding tie for even n), subnormal; all but\n"
              "     exact: the floating types, checked against the exact sum of the device's values\n");
  std::printf("axis workloads (--shape with --axes, --axes-grid):\n");
  std::printf("  cured    the library's asynchronous axis call (cured::sum_async(view, axes, out, ws, stream) ...)\n");
  std::printf("  cub      cub::DeviceSegmentedReduce over the rows (shapes whose reduced axes are the trailing ones;\n"
              "           temporary storage allocated once, outside the timing)\n");
  std::printf("  floor    a kernel that reads the input and writes the output's bytes, nothing else\n");
  std::printf("  ops:");
  for (const auto name : axis_op_names_in_order) std::printf(" %s", std::string(name).c_str());
  std::printf(" (sums write the accumulator; argmin, argmax int64 indices); exact data\n");
  std::printf("segmented workloads (--segments, --segments-grid; the sizes of --sizes, default 2^24 and 2^28):\n");
  std::printf("  distributions: uniform:L (every segment L values, the last the remainder), powerlaw (lengths\n"
              "           floor(2^(20u)), u uniform in [0,1)), onebig (n/2 values in one segment, the others 4),\n"
              "           empty-mixed (a third empty, the others 1..200); int64 offsets, drawn from the seed\n");
  std::printf("  cured    the library's asynchronous segmented call (cured::sum_async(d_x, n, segments, out, ws, stream) ...)\n");
  std::printf("  cub      cub::DeviceSegmentedReduce over the same offsets (temporary storage allocated once, outside\n"
              "           the timing; argmin and argmax up to 2^31 - 1 values)\n");
  std::printf("  floor    a kernel that reads the values and the offsets and writes the output's bytes, nothing else\n");
  std::printf("  ops:");
  for (const auto name : segment_op_names_in_order) std::printf(" %s", std::string(name).c_str());
  std::printf(" (as along axes; argmin, argmax the index within the segment, -1 when empty);\n"
              "       exact data\n");
}

int run(int argc, char** argv) {
  options opt;
  try {
    opt = parse_options(argc, argv);
  } catch (const parse_error& e) {
    std::fprintf(stderr, "cured-bench: %s\n", e.what());
    return 2;
  }
  if (opt.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (opt.list) {
    print_list();
    return 0;
  }
  run_info info;
  fill_versions(info);
  if (opt.version) {
    std::printf("cured-bench %s (CUDA runtime %s, driver for CUDA %s, CCCL %s)\n", info.cured_version.c_str(),
                info.cuda_runtime.empty() ? "?" : info.cuda_runtime.c_str(),
                info.cuda_driver.empty() ? "none" : info.cuda_driver.c_str(), info.cccl.c_str());
    return 0;
  }
  for (const auto& type : opt.types)
    if (!find_type(type)) {
      std::fprintf(stderr, "cured-bench: type '%s' is not benchmarked (see --list)\n", type.c_str());
      return 2;
    }

  // Every report file is opened now: a path that cannot be written stops the run before it starts.
  std::vector<report_target> reports;
  reports.push_back({opt.fmt, opt.out, nullptr});
  for (const auto& r : opt.reports) reports.push_back({r.fmt, r.path, nullptr});
  for (auto& r : reports) {
    if (r.path.empty()) continue;
    r.file = std::make_unique<std::ofstream>(r.path);
    if (!*r.file) {
      std::fprintf(stderr, "cured-bench: cannot write '%s'\n", r.path.c_str());
      return 2;
    }
  }

  context ctx(opt);
  ctx.seed = opt.seed_given ? opt.seed : harness::fresh_seed();
  // A table on stdout shows each row as it is measured, then the whole table with its ratios.
  ctx.stream_rows = opt.fmt == options::format::table && opt.out.empty();
  info.date = now_utc();
  info.command = "cured-bench";
  for (int i = 1; i < argc; ++i) info.command += std::string(" ") + argv[i];

  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    if (opt.axis_mode())
      std::fprintf(stderr, "cured-bench: no CUDA device (%s); the axis workloads run on the GPU only: nothing timed\n",
                   e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    else if (opt.segment_mode())
      std::fprintf(stderr,
                   "cured-bench: no CUDA device (%s); the segmented workloads run on the GPU only: nothing timed\n",
                   e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    else
      std::fprintf(stderr, "cured-bench: no CUDA device (%s); running the CPU implementations only\n",
                   e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    info.device = "none (CPU only)";
  } else if (opt.device >= count) {
    std::fprintf(stderr, "cured-bench: device %d does not exist (%d found)\n", opt.device, count);
    return 2;
  }

  std::unique_ptr<l2_flusher> flusher;
  if (e == cudaSuccess && count > 0) {
    CURED_CHECK(cudaSetDevice(opt.device));
    ctx.gpu = true;
    ctx.dev = query_device(opt.device);
    flusher = std::make_unique<l2_flusher>(ctx.dev);
    ctx.flusher = flusher.get();
    CURED_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
    info.device = ctx.dev.name;
    info.sm_count = ctx.dev.sm_count;
    info.l2_mb = double(ctx.dev.l2_bytes) / (1 << 20);
    info.peak_gbps = ctx.dev.peak_gbps;
    ctx.progress("measuring the streaming-read ceiling on " + ctx.dev.name);
    info.ceiling_gbps = measure_read_ceiling(ctx.dev, *ctx.flusher, ctx.stream);
  }
  info.samples = opt.samples;
  ctx.progress("seed " + std::to_string(ctx.seed));
  if (ctx.stream_rows) {
    std::fputs(stream_header().c_str(), stdout);
    std::fflush(stdout);
  }
  ctx.work_planned = plan_work(opt);
  ctx.started = ctx.finished_at = std::chrono::steady_clock::now();

  for (const auto& type : opt.types) run_type(type, ctx);

  fill_derived(ctx.rows, info);
  if (ctx.stream_rows) std::fputs("\n", stdout);
  for (auto& r : reports) {
    std::ostream& os = r.file ? *r.file : std::cout;
    write_report(os, r.fmt, info, ctx.rows);
    os.flush();
    if (!os) {
      std::fprintf(stderr, "cured-bench: writing '%s' failed\n", r.path.empty() ? "stdout" : r.path.c_str());
      return 2;
    }
  }
  if (ctx.stream) (void)cudaStreamDestroy(ctx.stream);
  return exit_status(ctx.rows);
}

}  // namespace
}  // namespace cured::bench

int main(int argc, char** argv) {
  try {
    return cured::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cured-bench: %s\n", e.what());
    return 1;
  }
}
