// Development probe: whole-array logsumexp against sum and a read floor, cold.
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude bench/probe/statistics.cu -o statistics_probe
//   ./statistics_probe <label>        one line per type and size: floor, sum and logsumexp times
//   ./statistics_probe <label> one    one launch of each at 2^26 bfloat16 (for ncu)
// bfloat16, half and float values in [-2, 2], n = 2^26, 2^27, 2^28; the median of 25 launches,
// each after 256 MiB written (the L2 flushed). The floor reads the input as 16-byte vectors, one
// load in flight a thread; the ratios are the floor's time over each.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cured/cured.cuh"
#define CK(x)                                                           \
  do {                                                                  \
    const cudaError_t e_ = (x);                                         \
    if (e_ != cudaSuccess) {                                            \
      std::printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                     \
    }                                                                   \
  } while (0)
__global__ void floor_kernel(const int4* v, std::int64_t nv, int* sink) {
  int acc = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < nv;
       i += gridDim.x * std::int64_t(blockDim.x)) {
    const int4 x = __ldg(v + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x7fffffff) *sink = acc;
}
__global__ void fill_bf(__nv_bfloat16* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * std::int64_t(blockDim.x))
    p[i] = __float2bfloat16(float((i * 2654435761u) % 4001) / 1000.f - 2.f);
}
__global__ void fill_h(__half* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * std::int64_t(blockDim.x))
    p[i] = __float2half(float((i * 2654435761u) % 4001) / 1000.f - 2.f);
}
__global__ void fill_f(float* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * std::int64_t(blockDim.x))
    p[i] = float((i * 2654435761u) % 4001) / 1000.f - 2.f;
}
int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "-";
  const bool one = argc > 2;  // one launch of bfloat16 logsumexp at 2^26 (for ncu)
  const std::int64_t N = std::int64_t(1) << 28;
  void* buf;
  CK(cudaMalloc(&buf, N * 4));
  void* flush;
  const size_t FB = size_t(256) << 20;
  CK(cudaMalloc(&flush, FB));
  int* sink;
  CK(cudaMalloc(&sink, 4));
  float* out;
  CK(cudaMalloc(&out, 64));
  cured::workspace ws;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  const auto time = [&](auto&& f) {
    std::vector<float> t;
    for (int r = 0; r < 25; ++r) {
      CK(cudaMemsetAsync(flush, r, FB));
      CK(cudaEventRecord(a));
      f();
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  if (one) {
    fill_bf<<<1024, 256>>>((__nv_bfloat16*)buf, N);
    cured::logsumexp_async((const __nv_bfloat16*)buf, std::int64_t(1) << 26, out + 4, ws, nullptr);
    cured::sum_async((const __nv_bfloat16*)buf, std::int64_t(1) << 26, out, ws, nullptr);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  for (int type = 0; type < 3; ++type) {
    if (type == 0) fill_bf<<<1024, 256>>>((__nv_bfloat16*)buf, N);
    if (type == 1) fill_h<<<1024, 256>>>((__half*)buf, N);
    if (type == 2) fill_f<<<1024, 256>>>((float*)buf, N);
    const int size = type == 2 ? 4 : 2;
    for (int lg = 26; lg <= 28; ++lg) {
      const std::int64_t n = std::int64_t(1) << lg;
      float fl = 0, su = 0, ls = 0;
      const auto run = [&](auto* p) {
        fl = time([&] { floor_kernel<<<132 * 8, 256>>>((const int4*)buf, n * size / 16, sink); });
        su = time([&] { cured::sum_async(p, n, out, ws, nullptr); });
        ls = time([&] { cured::logsumexp_async(p, n, out + 4, ws, nullptr); });
      };
      if (type == 0) run((const __nv_bfloat16*)buf);
      if (type == 1) run((const __half*)buf);
      if (type == 2) run((const float*)buf);
      CK(cudaDeviceSynchronize());
      std::printf("%s %s 2^%d floor %7.1f us sum %7.1f us %.3f lse %7.1f us %.3f\n", label,
                  type == 0   ? "bf16"
                  : type == 1 ? "half"
                              : "float",
                  lg, fl, su, fl / su, ls, fl / ls);
    }
  }
}
