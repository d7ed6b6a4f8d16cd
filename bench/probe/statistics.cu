// Development probe: whole-array logsumexp and var_mean against sum and a read floor, cold.
//   cmake -S . -B build/release -DCURED_BUILD_PROBES=ON && cmake --build build/release --target statistics_probe
//   build/release/bench/statistics_probe <label> [all|one|double] [normal]
// all (the default): one line per type and size, floor, sum, logsumexp and var_mean times;
// double: double only; one: one launch of logsumexp and sum of bfloat16 at the first size (for
// ncu). Values in [-2, 2] (a fixed sequence of 4001 steps), or with `normal` N(0, 1):
// independent values, whose running maximum keeps rising now and then. bfloat16, half, float
// and double, n = 2^26, 2^27, 2^28 (STATISTICS_PROBE_LOG2="20 28": 2^20 to 2^28); the median of
// 25 launches (STATISTICS_PROBE_SAMPLES), each after 256 MiB written (the L2 flushed). The
// floor reads the input as 16-byte vectors, one load in flight a thread; the ratios are the
// floor's time over each.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "cold_timing.cuh"
#include "cured/cured.cuh"

__global__ void floor_kernel(const int4* v, std::int64_t nv, int* sink) {
  int acc = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < nv;
       i += gridDim.x * std::int64_t(blockDim.x)) {
    const int4 x = __ldg(v + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x7fffffff) *sink = acc;
}
// Value i: the fixed sequence, or N(0, 1) by Box-Muller on a hash of i.
__device__ bool normal_data = false;
__device__ double value_of(std::int64_t i) {
  if (!normal_data) return double((i * 2654435761u) % 4001) / 1000. - 2.;
  std::uint64_t z = std::uint64_t(i) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const double u1 = (double(z >> 40) + 0.5) * 0x1p-24, u2 = (double(z & 0xFFFFFF) + 0.5) * 0x1p-24;
  return sqrt(-2 * log(u1)) * cospi(2 * u2);
}
template <class T>
__global__ void fill(T* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * std::int64_t(blockDim.x)) {
    if constexpr (std::is_same_v<T, double>)
      p[i] = value_of(i);
    else
      p[i] = T(float(value_of(i)));
  }
}
int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "-";
  const bool one = argc > 2 && std::string(argv[2]) == "one";  // bfloat16 logsumexp and sum once (for ncu)
  const bool double_only = argc > 2 && std::string(argv[2]) == "double";
  const bool normal = argc > 3 && std::string(argv[3]) == "normal";
  CK(cudaMemcpyToSymbol(normal_data, &normal, sizeof(bool)));
  const std::int64_t N = std::int64_t(1) << 28;
  void* buf;
  CK(cudaMalloc(&buf, N * 8));
  void* flush;
  const size_t FB = size_t(256) << 20;
  CK(cudaMalloc(&flush, FB));
  int* sink;
  CK(cudaMalloc(&sink, 4));
  void* out;
  CK(cudaMalloc(&out, 64));
  cured::workspace ws;
  const char* env = std::getenv("STATISTICS_PROBE_SAMPLES");
  const int samples = env ? std::max(1, std::atoi(env)) : 25;
  int log2_from = 26, log2_to = 28;  // STATISTICS_PROBE_LOG2="from to", within 10..28
  if (const char* sizes = std::getenv("STATISTICS_PROBE_LOG2")) {
    if (std::sscanf(sizes, "%d %d", &log2_from, &log2_to) != 2 || log2_from < 10 || log2_to > 28) {
      std::fprintf(stderr, "STATISTICS_PROBE_LOG2: give \"from to\" within 10..28\n");
      return 2;
    }
  }
  const auto time = [&](auto&& f) { return cold_median_us(f, flush, FB, samples); };
  if (one) {
    const auto* p = static_cast<const __nv_bfloat16*>(buf);
    fill<<<1024, 256>>>(static_cast<__nv_bfloat16*>(buf), N);
    cured::logsumexp_async(p, std::int64_t(1) << log2_from, static_cast<float*>(out), ws, nullptr);
    cured::sum_async(p, std::int64_t(1) << log2_from, static_cast<float*>(out) + 1, ws, nullptr);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  // One line per size: floor, sum, logsumexp and var_mean of T (accumulator cured::statistic_t<T>).
  const auto run = [&](auto zero, const char* name) {
    using T = decltype(zero);
    const T* p = static_cast<const T*>(buf);
    auto* o = static_cast<cured::statistic_t<T>*>(out);
    auto* vo = reinterpret_cast<cured::var_mean_result<cured::statistic_t<T>>*>(o + 2);
    fill<<<1024, 256>>>(static_cast<T*>(buf), N);
    for (int lg = log2_from; lg <= log2_to; ++lg) {
      const std::int64_t n = std::int64_t(1) << lg;
      const float fl =
          time([&] { floor_kernel<<<132 * 8, 256>>>(static_cast<const int4*>(buf), n * sizeof(T) / 16, sink); });
      const float su = time([&] { cured::sum_async(p, n, o, ws, nullptr); });
      const float ls = time([&] { cured::logsumexp_async(p, n, o + 1, ws, nullptr); });
      const float vm = time([&] { cured::var_mean_async(p, n, vo, 1.0, ws, nullptr); });
      CK(cudaDeviceSynchronize());
      std::printf("%s %s 2^%d floor %7.1f us sum %7.1f us %.3f lse %7.1f us %.3f var_mean %7.1f us %.3f\n", label, name,
                  lg, fl, su, fl / su, ls, fl / ls, vm, fl / vm);
    }
  };
  if (!double_only) {
    run(__nv_bfloat16{}, "bf16");
    run(__half{}, "half");
    run(float{}, "float");
  }
  run(double{}, "double");
}
