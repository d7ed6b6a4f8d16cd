// The host's cost of the CUDA calls inside one cured_reduce, and of cured_reduce itself from C++
// (microseconds per call): "burst", the median over 41 bursts of 100 calls after a
// synchronization (the launch queue never fills: the host's time alone); "loop", hot loops of
// 20000 calls between two synchronizations (what a hot loop sees).
//
//   nvcc -O2 -I c/include -o build/host_cost scripts/host_cost.cu -Lbuild/release/python/cured \
//     -l:libcured_c.so.0 -Xlinker -rpath="$PWD/build/release/python/cured" && build/host_cost
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>
#include "cured_c.h"

__global__ void empty_kernel(float* p) {
  if (p && threadIdx.x == 1000) p[0] = 1;
}

static double burst(const std::function<void()>& f, int k = 100, int reps = 41) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    cudaDeviceSynchronize();
    auto s = std::chrono::steady_clock::now();
    for (int i = 0; i < k; ++i) f();
    auto e = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(e - s).count() / k);
  }
  cudaDeviceSynchronize();
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static double loop(const std::function<void()>& f, int n = 20000) {
  for (int i = 0; i < 200; ++i) f();
  cudaDeviceSynchronize();
  auto s = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  cudaDeviceSynchronize();
  auto e = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(e - s).count() / n;
}

int main() {
  float* x = nullptr;
  float* y = nullptr;
  long long* idx = nullptr;
  cudaMalloc(&x, 1 << 24);
  cudaMalloc(&y, 1 << 20);
  cudaMalloc(&idx, 1 << 20);
  cudaMemset(x, 0, 1 << 24);
  cured_array in{x, CURED_FLOAT32, 1, {1024}, {1}};
  cured_array out{y, CURED_FLOAT32, 0, {}, {}};
  cured_array outi{idx, CURED_INT64, 0, {}, {}};
  cured_array in2{x, CURED_FLOAT32, 2, {64, 16}, {16, 1}};
  cured_array out2{y, CURED_FLOAT32, 1, {64}, {1}};
  cured_array big{x, CURED_FLOAT32, 1, {1 << 20}, {1}};
  int32_t ax0 = 0, ax1 = 1;
  cured_workspace ws = nullptr;
  cured_workspace_create(0, &ws);
  auto check = [](cured_status s) {
    if (s != CURED_SUCCESS) std::printf("error %s\n", cured_last_error());
  };
  struct row {
    const char* name;
    std::function<void()> f;
  };
  int dev = 0;
  cudaPointerAttributes a{};
  cudaStreamCaptureStatus cs{};
  cudaEvent_t ev;
  cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(256);
  std::vector<row> rows = {
      {"cudaGetDevice", [&] { cudaGetDevice(&dev); }},
      {"cudaSetDevice(0)", [&] { cudaSetDevice(0); }},
      {"cudaPointerGetAttributes", [&] { cudaPointerGetAttributes(&a, x); }},
      {"cudaStreamIsCapturing", [&] { cudaStreamIsCapturing(0, &cs); }},
      {"cudaGetLastError", [&] { (void)cudaGetLastError(); }},
      {"cudaEventRecord", [&] { cudaEventRecord(ev, 0); }},
      {"empty kernel <<<1,256>>>", [&] { empty_kernel<<<1, 256>>>(y); }},
      {"empty kernel cudaLaunchKernelEx", [&] { cudaLaunchKernelEx(&cfg, empty_kernel, y); }},
      {"cured_reduce sum 1024", [&] { check(cured_reduce(CURED_SUM, &in, &ax0, 1, &out, nullptr, nullptr, nullptr)); }},
      {"cured_reduce sum 1024 (ws)", [&] { check(cured_reduce(CURED_SUM, &in, &ax0, 1, &out, nullptr, nullptr, ws)); }},
      {"cured_reduce max 1024", [&] { check(cured_reduce(CURED_MAX, &in, &ax0, 1, &out, nullptr, nullptr, nullptr)); }},
      {"cured_reduce argmax 1024", [&] { check(cured_reduce(CURED_ARGMAX, &in, &ax0, 1, &outi, nullptr, nullptr, nullptr)); }},
      {"cured_reduce sum 64x16 dim 1", [&] { check(cured_reduce(CURED_SUM, &in2, &ax1, 1, &out2, nullptr, nullptr, nullptr)); }},
      {"cured_reduce sum 2^20", [&] { check(cured_reduce(CURED_SUM, &big, &ax0, 1, &out, nullptr, nullptr, nullptr)); }},
      {"cured_reduce exact_sum 1024", [&] { check(cured_reduce(CURED_EXACT_SUM, &in, &ax0, 1, &out, nullptr, nullptr, nullptr)); }},
  };
  std::printf("%-36s %10s %10s\n", "call", "burst us", "loop us");
  for (auto& r : rows) std::printf("%-36s %10.3f %10.3f\n", r.name, burst(r.f), loop(r.f));
  cured_workspace_destroy(ws);
  return 0;
}
