// cured-nccl-bench: the sum of an array split over GPUs, one process per GPU
// (harness/ranks.hpp), against what users write by hand.
//
//   cured-nccl-bench [--ranks=R] [--min-log=20] [--max-log=32] [--type=float|double] [--graphs]
//
// Per size (elements per GPU), microseconds per call, the slowest rank's median of 7 samples
// (with --graphs, of the calls captured in a CUDA graph, the host's work left out):
//   local        cured::sum_async on the rank's shard alone
//   allreduce8   ncclAllReduce of one 8-byte value alone; gather64, ncclAllGather of 64 bytes a rank alone
//   cured        cured::nccl::sum_async (local sum, all-gather of 64-byte records, combine)
//   cub+nccl     cub::DeviceReduce::Sum, then ncclAllReduce of its one value
//   local+ar     cured::sum_async, then ncclAllReduce of its one value (the same two steps by hand)
//   exact        cured::nccl::exact_sum_async (same bits for any ranks and split)
//   nccl-whole   ncclAllReduce of the whole array in place (up to 2^28 per GPU)
// and the targets: cured within max(2 us, 5%) of local + allreduce8 (timed apart); exact
// within 10% of cured at 2^28 per GPU; `hand`, cured's time over local+ar's. Then the
// elementwise sums of a whole array of that many elements on every GPU (up to 2^28), each
// result element the sum of the ranks' elements:
//   nccl-ar      ncclAllReduce (sum), out of place
//   exact-ar     cured::nccl::exact_all_reduce (each element rounded once), out of place
//   rs+ag        its collectives alone: ncclReduceScatter of one int64 an element (double: two),
//                then ncclAllGather of the results (the floor of its way, kernels left out)
// and its target: exact-ar within 1.5x of nccl-ar from 2^20 up. NCCL's NVLink multicast stays
// off (NCCL_NVLS_ENABLE=0).

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cured/cured.cuh"
#include "cured/nccl.cuh"
#include "harness/ranks.hpp"

namespace {

template <class T>
__global__ void fill(T* x, std::int64_t n, unsigned seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ unsigned(i >> 32) * 40503u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = T(int(h % 2000001u) - 1000000) * T(1e-6);
  }
}

#define CHECK_NCCL(call)                                                                 \
  do {                                                                                   \
    if (ncclResult_t r_ = (call); r_ != ncclSuccess) {                                   \
      std::fprintf(stderr, "%s failed: %s\n", #call, ncclGetErrorString(r_));           \
      std::exit(3);                                                                      \
    }                                                                                    \
  } while (0)

/// Microseconds per call of fn: the median of 7 samples of `reps` calls, after 3 warm-up calls;
/// with `graph`, the reps calls captured once as a CUDA graph and each sample one launch of it
/// (the host's work per call left out).
template <class Fn>
double time_us(cudaStream_t s, int reps, bool graph, Fn fn) {
  cudaEvent_t a, b;
  CURED_CHECK(cudaEventCreate(&a));
  CURED_CHECK(cudaEventCreate(&b));
  cudaGraphExec_t exec = nullptr;
  if (graph) {  // (after one call outside: a workspace or a connection set up on first use)
    fn();
    CURED_CHECK(cudaStreamSynchronize(s));
    cudaGraph_t g;
    CURED_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int r = 0; r < reps; ++r) fn();
    CURED_CHECK(cudaStreamEndCapture(s, &g));
    CURED_CHECK(cudaGraphInstantiate(&exec, g, 0));
    CURED_CHECK(cudaGraphDestroy(g));
  }
  const auto run = [&](int calls) {
    if (graph) CURED_CHECK(cudaGraphLaunch(exec, s));
    else
      for (int r = 0; r < calls; ++r) fn();
  };
  for (int k = 0; k < 3; ++k) run(1);
  std::vector<double> samples;
  for (int k = 0; k < 7; ++k) {
    CURED_CHECK(cudaEventRecord(a, s));
    run(reps);
    CURED_CHECK(cudaEventRecord(b, s));
    CURED_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CURED_CHECK(cudaEventElapsedTime(&ms, a, b));
    samples.push_back(1e3 * ms / reps);
  }
  if (exec) CURED_CHECK(cudaGraphExecDestroy(exec));
  CURED_CHECK(cudaEventDestroy(a));
  CURED_CHECK(cudaEventDestroy(b));
  std::sort(samples.begin(), samples.end());
  return samples[3];
}

/// Every rank's times t[0, N) replaced by the slowest rank's.
template <std::size_t N>
void slowest(const cured::harness::rank_context& ctx, double (&t)[N], cudaStream_t s) {
  double* d_t;
  CURED_CHECK(cudaMalloc(&d_t, sizeof t));
  CURED_CHECK(cudaMemcpy(d_t, t, sizeof t, cudaMemcpyHostToDevice));
  CHECK_NCCL(ncclAllReduce(d_t, d_t, N, ncclFloat64, ncclMax, ctx.comm, s));
  CURED_CHECK(cudaMemcpyAsync(t, d_t, sizeof t, cudaMemcpyDeviceToHost, s));
  CURED_CHECK(cudaStreamSynchronize(s));
  CURED_CHECK(cudaFree(d_t));
}

struct options {
  int ranks = 1, min_log = 20, max_log = 32;
  std::string type = "float";
  bool graphs = false;
};

/// The elementwise table: exact_all_reduce against ncclAllReduce, per size; returns the misses.
template <class T>
int elementwise(cured::harness::rank_context& ctx, const options& o, cudaStream_t s) {
  if (ctx.rank == 0)
    std::printf("\nelementwise sums across ranks (%s, microseconds per call, slowest rank)\n%-8s %10s %10s %10s %7s  %s\n",
                o.type.c_str(), "elements", "nccl-ar", "exact-ar", "rs+ag", "ratio", "target");
  int missed = 0;
  for (int lg = o.min_log; lg <= std::min(o.max_log, 28); ++lg) {
    const std::int64_t n = std::int64_t(1) << lg;
    std::size_t free_b = 0, total_b = 0;
    CURED_CHECK(cudaMemGetInfo(&free_b, &total_b));
    constexpr std::int64_t limbs = sizeof(T) == 8 ? 2 : 1;
    if (std::size_t(n) * (2 * sizeof(T) + 24 + 16 * limbs) + (std::size_t(2) << 30) > free_b) break;
    T *d, *out;
    std::int64_t* packed;
    CURED_CHECK(cudaMalloc(&d, std::size_t(n) * sizeof(T)));
    CURED_CHECK(cudaMalloc(&out, std::size_t(n) * sizeof(T)));
    CURED_CHECK(cudaMalloc(&packed, std::size_t(2 * (n + ctx.ranks)) * limbs * 8));
    fill<<<1024, 256, 0, s>>>(d, n, unsigned(ctx.rank * 7919 + lg));
    const int reps = lg <= 24 ? 20 : 5;
    double t[3];
    const std::int64_t chunk = (n + ctx.ranks - 1) / ctx.ranks;
    t[2] = time_us(s, reps, false, [&] {
      CHECK_NCCL(ncclReduceScatter(packed, packed + (n + ctx.ranks) * limbs, std::size_t(chunk * limbs), ncclInt64, ncclSum, ctx.comm, s));
      CHECK_NCCL(ncclAllGather(out + ctx.rank * chunk, out, std::size_t(chunk), sizeof(T) == 8 ? ncclFloat64 : ncclFloat32,
                               ctx.comm, s));
    });
    t[0] = time_us(s, reps, false, [&] {
      CHECK_NCCL(ncclAllReduce(d, out, n, sizeof(T) == 8 ? ncclFloat64 : ncclFloat32, ncclSum, ctx.comm, s));
    });
    t[1] = time_us(s, reps, false, [&] { cured::nccl::exact_all_reduce(d, 1, n, n, out, ctx.comm, s); });
    slowest(ctx, t, s);
    CURED_CHECK(cudaFree(d));
    CURED_CHECK(cudaFree(out));
    CURED_CHECK(cudaFree(packed));
    const bool met = t[1] <= 1.5 * t[0];
    missed += !met;
    if (ctx.rank == 0)
      std::printf("2^%-6d %10.1f %10.1f %10.1f %7.2f  %s\n", lg, t[0], t[1], t[2], t[1] / t[0], met ? "met" : "MISSED");
  }
  if (ctx.rank == 0)
    std::printf("target: exact-ar <= 1.5 x nccl-ar from 2^20 elements: %s\n", missed ? "some missed" : "all met");
  return missed;
}

template <class T>
int run(cured::harness::rank_context& ctx, const options& o) {
  cudaStream_t s;
  CURED_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cured::workspace ws;
  using acc = cured::accumulator_t<T>;
  acc* d_sum;
  double* d_one;
  unsigned char* d_gather;  // 64 bytes to send, then 64 from every rank
  cured::exact_result_t<T>* d_exact;
  CURED_CHECK(cudaMalloc(&d_sum, sizeof(acc)));
  CURED_CHECK(cudaMalloc(&d_one, sizeof(double)));
  CURED_CHECK(cudaMalloc(&d_gather, 64 * std::size_t(ctx.ranks + 1)));
  CURED_CHECK(cudaMalloc(&d_exact, sizeof(cured::exact_result_t<T>)));
  if (ctx.rank == 0) {
    std::printf("cured-nccl-bench: %d rank(s), %s, NCCL_NVLS_ENABLE=%s; microseconds per call, slowest rank%s\n",
                ctx.ranks, o.type.c_str(), std::getenv("NCCL_NVLS_ENABLE"), o.graphs ? ", calls in CUDA graphs" : "");
    std::printf("%-8s %10s %10s %10s %10s %10s %10s %10s %11s  %-9s %-9s %6s\n", "per-GPU", "local", "allreduce8",
                "gather64", "cured", "cub+nccl", "local+ar", "exact", "nccl-whole", "sum-tgt", "exact-tgt", "hand");
  }
  int missed = 0;
  for (int lg = o.min_log; lg <= o.max_log; ++lg) {
    const std::int64_t n = std::int64_t(1) << lg;
    std::size_t free_b = 0, total_b = 0;
    CURED_CHECK(cudaMemGetInfo(&free_b, &total_b));
    int fits = std::size_t(n) * sizeof(T) + (std::size_t(2) << 30) < free_b ? 1 : 0, all_fit = 0;
    {
      int* d_fit;
      CURED_CHECK(cudaMalloc(&d_fit, sizeof(int)));
      CURED_CHECK(cudaMemcpy(d_fit, &fits, sizeof(int), cudaMemcpyHostToDevice));
      CHECK_NCCL(ncclAllReduce(d_fit, d_fit, 1, ncclInt32, ncclMin, ctx.comm, s));
      CURED_CHECK(cudaMemcpyAsync(&all_fit, d_fit, sizeof(int), cudaMemcpyDeviceToHost, s));
      CURED_CHECK(cudaStreamSynchronize(s));
      CURED_CHECK(cudaFree(d_fit));
    }
    if (!all_fit) {
      if (ctx.rank == 0) std::printf("2^%-6d does not fit in device memory\n", lg);
      break;
    }
    T* d;
    CURED_CHECK(cudaMalloc(&d, std::size_t(n) * sizeof(T)));
    fill<<<1024, 256, 0, s>>>(d, n, unsigned(ctx.rank * 7919 + lg));
    void* temp = nullptr;
    std::size_t temp_bytes = 0;
    CURED_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, d, d_sum, n, s));
    CURED_CHECK(cudaMalloc(&temp, temp_bytes));
    const int reps = lg <= 24 ? 50 : lg <= 28 ? 10 : 3;
    double t[8];
    t[0] = time_us(s, reps, o.graphs, [&] { cured::sum_async(d, n, d_sum, ws, s); });
    t[1] = time_us(s, reps, o.graphs, [&] { CHECK_NCCL(ncclAllReduce(d_one, d_one, 1, ncclFloat64, ncclSum, ctx.comm, s)); });
    t[7] = time_us(s, reps, o.graphs, [&] {
      CHECK_NCCL(ncclAllGather(d_gather, d_gather + 64, 64, ncclUint8, ctx.comm, s));
    });
    t[2] = time_us(s, reps, o.graphs, [&] { cured::nccl::sum_async(d, n, d_sum, ctx.comm, ws, s); });
    t[3] = time_us(s, reps, o.graphs, [&] {
      CURED_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, d, d_sum, n, s));
      CHECK_NCCL(ncclAllReduce(d_sum, d_sum, 1, sizeof(acc) == 8 ? ncclFloat64 : ncclFloat32, ncclSum, ctx.comm, s));
    });
    t[4] = time_us(s, reps, o.graphs, [&] { cured::nccl::exact_sum_async(d, n, d_exact, ctx.comm, ws, s); });
    t[6] = time_us(s, reps, o.graphs, [&] {
      cured::sum_async(d, n, d_sum, ws, s);
      CHECK_NCCL(ncclAllReduce(d_sum, d_sum, 1, sizeof(acc) == 8 ? ncclFloat64 : ncclFloat32, ncclSum, ctx.comm, s));
    });
    t[5] = lg <= 28 ? time_us(s, std::max(1, reps / 5), o.graphs, [&] {
      CHECK_NCCL(ncclAllReduce(d, d, n, sizeof(T) == 8 ? ncclFloat64 : ncclFloat32, ncclSum, ctx.comm, s));
    })
                    : -1;
    slowest(ctx, t, s);
    CURED_CHECK(cudaFree(temp));
    CURED_CHECK(cudaFree(d));
    const double bound = t[0] + t[1], slack = std::max(2.0, 0.05 * bound);
    const bool sum_met = t[2] <= bound + slack;
    const bool exact_met = t[4] <= 1.10 * t[2];
    missed += !sum_met + (lg == 28 && !exact_met);
    if (ctx.rank == 0) {
      char whole[32] = "-";
      if (t[5] >= 0) std::snprintf(whole, sizeof whole, "%.1f", t[5]);
      std::printf("2^%-6d %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %11s  %-9s %-9s %6.2f\n", lg, t[0], t[1], t[7],
                  t[2], t[3], t[6], t[4], whole, sum_met ? "met" : "MISSED", lg == 28 ? (exact_met ? "met" : "MISSED") : "",
                  t[2] / t[6]);
    }
  }
  if (ctx.rank == 0)
    std::printf("targets: cured sum <= local + allreduce8 + max(2 us, 5%%) at every size; exact <= 1.10 x cured "
                "at 2^28: %s\n",
                missed ? "some missed" : "all met");
  if (!o.graphs) missed += elementwise<T>(ctx, o, s);
  CURED_CHECK(cudaFree(d_sum));
  CURED_CHECK(cudaFree(d_one));
  CURED_CHECK(cudaFree(d_gather));
  CURED_CHECK(cudaFree(d_exact));
  CURED_CHECK(cudaStreamDestroy(s));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const char* key) { return a.rfind(key, 0) == 0 ? a.substr(std::strlen(key)) : std::string(); };
    if (!value("--ranks=").empty()) o.ranks = std::atoi(value("--ranks=").c_str());
    else if (!value("--min-log=").empty()) o.min_log = std::atoi(value("--min-log=").c_str());
    else if (!value("--max-log=").empty()) o.max_log = std::atoi(value("--max-log=").c_str());
    else if (!value("--type=").empty()) o.type = value("--type=");
    else if (a == "--graphs") o.graphs = true;
    else {
      std::fprintf(stderr, "cured-nccl-bench: unknown argument '%s'\nusage: cured-nccl-bench [--ranks=R] "
                           "[--min-log=20] [--max-log=32] [--type=float|double] [--graphs]\n", argv[i]);
      return 2;
    }
  }
  if (o.ranks < 1 || o.min_log < 0 || o.max_log > 34 || o.min_log > o.max_log || (o.type != "float" && o.type != "double")) {
    std::fprintf(stderr, "cured-nccl-bench: want --ranks >= 1, 0 <= --min-log <= --max-log <= 34, --type float or double\n");
    return 2;
  }
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  return cured::harness::run_ranks(o.ranks, [&](cured::harness::rank_context& ctx) {
    try {
      return o.type == "float" ? run<float>(ctx, o) : run<double>(ctx, o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rank %d: %s\n", ctx.rank, e.what());
      return 1;
    }
  });
}
