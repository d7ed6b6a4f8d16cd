// Development probe: segmented sums and argmax of float and double against a read floor, cold.
//   nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -Iinclude bench/probe/segments.cu -o segments_probe
//   ./segments_probe <label> [distribution ...]
// Distributions: uN (every segment N values), rN (lengths uniform in [N/2, 3N/2]), em (a third
// empty, the others 1 to 200), pl (cured-bench's powerlaw: floor(2^(20 u)), u uniform in
// [0, 1)). n = 2^24 and 2^28; one line per case: the label, and per op the time in us and the
// floor's time over it (%), the median of 12 launches, each after 256 MiB written (the L2
// flushed). The floor reads the values as 16-byte vectors and the offsets, and
// writes one output per segment. Built against two include/ trees it compares a kernel without
// and with a change in one session.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cold_timing.cuh"
#include "cured/cured.cuh"

template <class T>
__global__ void floor_kernel(const T* v, std::int64_t n, const std::int64_t* off, std::int64_t S, T* out, int* sink) {
  const std::int64_t vectors = n * std::int64_t(sizeof(T)) / 16;
  const std::int64_t first = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t step = gridDim.x * std::int64_t(blockDim.x);
  int acc = 0;
  for (std::int64_t i = first; i < vectors; i += step) {
    const int4 x = __ldg(reinterpret_cast<const int4*>(v) + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  for (std::int64_t i = first; i <= S; i += step) acc ^= int(__ldg(off + i));
  for (std::int64_t i = first; i < S; i += step) out[i] = T(acc & 1);
  if (acc == 0x7fffffff) *sink = acc;  // (keeps the loads)
}

int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "-";
  std::vector<std::string> dists = {"u16",  "u32", "u48",  "u64",   "u128",  "u256", "u512",
                                    "u1024", "r64", "r256", "r1024", "r4096", "em"};
  if (argc > 2) dists.assign(argv + 2, argv + argc);
  const std::int64_t N = std::int64_t(1) << 28;
  void* values = nullptr;
  CK(cudaMalloc(&values, N * 8));
  {
    std::vector<float> h(N);
    std::mt19937 g(1);
    for (auto& x : h) x = float(g() % 2001) / 1000.f - 1.f;
    CK(cudaMemcpy(values, h.data(), N * 4, cudaMemcpyHostToDevice));  // (read as doubles too, for their time)
  }
  std::int64_t* d_off = nullptr;
  void *out = nullptr, *flush = nullptr;
  int* sink = nullptr;
  const size_t flush_bytes = size_t(256) << 20;
  CK(cudaMalloc(&d_off, (N + 1) * 8));
  CK(cudaMalloc(&out, N * 8));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, 4));
  cured::workspace ws;
  for (const std::int64_t n : {std::int64_t(1) << 24, N}) {
    for (const auto& d : dists) {
      std::vector<std::int64_t> off = {0};
      std::mt19937_64 g(7);
      while (off.back() < n) {
        std::int64_t l;
        if (d[0] == 'u') {
          l = std::stoll(d.substr(1));
        } else if (d[0] == 'r') {
          const std::int64_t m = std::stoll(d.substr(1));
          l = m / 2 + std::int64_t(g() % (m + 1));
        } else if (d == "pl") {
          l = std::int64_t(std::exp2(20.0 * double(g() >> 11) * 0x1p-53));
        } else {
          l = g() % 3 == 0 ? 0 : 1 + std::int64_t(g() % 200);
        }
        off.push_back(std::min(n, off.back() + l));
      }
      const std::int64_t S = std::int64_t(off.size()) - 1;
      CK(cudaMemcpy(d_off, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
      const cured::segments seg{d_off, S};
      const auto time = [&](auto&& f) { return cold_median_us(f, flush, flush_bytes, 12); };
      const auto* f = static_cast<const float*>(values);
      const auto* g64 = static_cast<const double*>(values);
      const float floor_f = time([&] { floor_kernel<<<132 * 8, 256>>>(f, n, d_off, S, (float*)out, sink); });
      const float floor_d = time([&] { floor_kernel<<<132 * 8, 256>>>(g64, n, d_off, S, (double*)out, sink); });
      const float sf = time([&] { cured::sum_async(f, n, seg, (float*)out, ws, nullptr); });
      const float sd = time([&] { cured::sum_async(g64, n, seg, (double*)out, ws, nullptr); });
      const float af = time([&] { cured::argmax_async(f, n, seg, (cured::index_t*)out, ws, nullptr); });
      const float ad = time([&] { cured::argmax_async(g64, n, seg, (cured::index_t*)out, ws, nullptr); });
      CK(cudaDeviceSynchronize());
      std::printf("%s n=2^%d %-6s S=%-9lld fsum %7.1f us %5.1f%% | dsum %7.1f us %5.1f%% | fargmax %7.1f us %5.1f%% | "
                  "dargmax %7.1f us %5.1f%%\n",
                  label, n == N ? 28 : 24, d.c_str(), (long long)S, sf, 100 * floor_f / sf, sd, 100 * floor_d / sd, af,
                  100 * floor_f / af, ad, 100 * floor_d / ad);
    }
  }
}
