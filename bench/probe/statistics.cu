// Development probe: whole-array logsumexp against sum and a read floor, cold.
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude bench/probe/statistics.cu -o statistics_probe
//   ./statistics_probe <label> [all|one|double] [normal]
// all (the default): one line per type and size, floor, sum and logsumexp times; double: double
// only; one: one launch of each at 2^26 bfloat16 (for ncu). Values in [-2, 2] (a fixed sequence
// of 4001 steps), or with `normal` N(0, 1): independent values, whose running maximum keeps
// rising now and then. bfloat16, half, float and double, n = 2^26, 2^27, 2^28; the median of 25
// launches (STATISTICS_PROBE_SAMPLES), each after 256 MiB written (the L2 flushed). The floor reads the input as
// 16-byte vectors, one load in flight a thread; the ratios are the floor's time over each.
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
__global__ void fill_bf(__nv_bfloat16* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * std::int64_t(blockDim.x))
    p[i] = __float2bfloat16(float(value_of(i)));
}
__global__ void fill_h(__half* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * std::int64_t(blockDim.x))
    p[i] = __float2half(float(value_of(i)));
}
__global__ void fill_d(double* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * std::int64_t(blockDim.x))
    p[i] = value_of(i);
}
__global__ void fill_f(float* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * std::int64_t(blockDim.x))
    p[i] = float(value_of(i));
}
int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "-";
  const bool one = argc > 2 && std::string(argv[2]) == "one";  // one launch of bfloat16 logsumexp at 2^26 (for ncu)
  const int first_type = argc > 2 && std::string(argv[2]) == "double" ? 3 : 0;
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
  float* out;
  CK(cudaMalloc(&out, 128));
  cured::workspace ws;
  const char* env = std::getenv("STATISTICS_PROBE_SAMPLES");
  const int samples = env ? std::atoi(env) : 25;
  const auto time = [&](auto&& f) { return cold_median_us(f, flush, FB, samples); };
  if (one) {
    fill_bf<<<1024, 256>>>((__nv_bfloat16*)buf, N);
    cured::logsumexp_async((const __nv_bfloat16*)buf, std::int64_t(1) << 26, out + 4, ws, nullptr);
    cured::sum_async((const __nv_bfloat16*)buf, std::int64_t(1) << 26, out, ws, nullptr);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  const char* names[] = {"bf16", "half", "float", "double"};
  for (int type = first_type; type < 4; ++type) {
    if (type == 0) fill_bf<<<1024, 256>>>((__nv_bfloat16*)buf, N);
    if (type == 1) fill_h<<<1024, 256>>>((__half*)buf, N);
    if (type == 2) fill_f<<<1024, 256>>>((float*)buf, N);
    if (type == 3) fill_d<<<1024, 256>>>((double*)buf, N);
    const int size = type == 3 ? 8 : type == 2 ? 4 : 2;
    for (int lg = 26; lg <= 28; ++lg) {
      const std::int64_t n = std::int64_t(1) << lg;
      float fl = 0, su = 0, ls = 0;
      const auto run = [&](auto* p) {
        fl = time([&] { floor_kernel<<<132 * 8, 256>>>((const int4*)buf, n * size / 16, sink); });
        su = time([&] {
          cured::sum_async(p, n,
                           (cured::detail::sum_type<void, std::remove_const_t<std::remove_pointer_t<decltype(p)>>>*)out,
                           ws, nullptr);
        });
        ls = time([&] {
          cured::logsumexp_async(
              p, n, (cured::statistic_t<std::remove_const_t<std::remove_pointer_t<decltype(p)>>>*)(out + 8), ws,
              nullptr);
        });
      };
      if (type == 0) run((const __nv_bfloat16*)buf);
      if (type == 1) run((const __half*)buf);
      if (type == 2) run((const float*)buf);
      if (type == 3) run((const double*)buf);
      CK(cudaDeviceSynchronize());
      std::printf("%s %s 2^%d floor %7.1f us sum %7.1f us %.3f lse %7.1f us %.3f\n", label, names[type], lg, fl, su,
                  fl / su, ls, fl / ls);
    }
  }
}
