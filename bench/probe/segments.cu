// Development probe: segmented reductions through each walk of segments_kernel (chunks,
// grouped, mixed), the one the mean length takes marked *, against a read floor, cold.
//   cmake -S . -B build/release -DCURED_BUILD_PROBES=ON && cmake --build build/release --target segments_probe
//   build/release/bench/segments_probe <label> [distribution ...]
// Distributions: uN (every segment N values), rN (lengths uniform in [N/2, 3N/2]), em (a third
// empty, the others 1 to 200), pl (cured-bench's powerlaw: floor(2^(20 u)), u uniform in
// [0, 1)), ob (cured-bench's onebig: segments of 4, one of n / 2). n = 2^24 and 2^28; one line
// per case: the label, and per reduction (float sum and max, int32 sum, double sum) each walk's
// time in us and the floor's time over it (%), the median of 12 launches, each after 256 MiB
// written (the L2 flushed); DIFFER where a walk's results differ from the chunks' (float and
// double sums may, by rounding; int32 sums and max may not). The floor reads the values as
// 16-byte vectors and the offsets, and writes one output per segment.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  std::vector<std::string> dists = {"u1", "u4", "u16", "u64", "u256", "u1024", "u4096", "pl", "ob", "em"};
  if (argc > 2) dists.assign(argv + 2, argv + argc);
  const std::int64_t N = std::int64_t(1) << 28;
  void* values = nullptr;
  CK(cudaMalloc(&values, N * 8));
  {
    std::vector<float> h(N);
    std::mt19937 g(1);
    for (auto& x : h) x = float(g() % 2001) / 1000.f - 1.f;
    CK(cudaMemcpy(values, h.data(), N * 4, cudaMemcpyHostToDevice));  // (read as doubles and int32 too)
  }
  std::int64_t* d_off = nullptr;
  void *out = nullptr, *out2 = nullptr, *flush = nullptr;
  int* sink = nullptr;
  const size_t flush_bytes = size_t(256) << 20;
  CK(cudaMalloc(&d_off, (N + 1) * 8));
  CK(cudaMalloc(&out, N * 8));
  CK(cudaMalloc(&out2, N * 8));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, 4));
  cured::workspace ws;
  int mismatches = 0;
  for (const std::int64_t n : {std::int64_t(1) << 24, N}) {
    for (const auto& d : dists) {
      std::vector<std::int64_t> off = {0};
      std::mt19937_64 g(7);
      while (off.back() < n) {
        std::int64_t l;
        if (d == "ob") {  // cured-bench's onebig: segments of 4, one of n / 2 in the middle
          l = off.back() == (n / 4) / 4 * 4 ? n / 2 : 4;
        } else if (d[0] == 'u') {
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
      // One reduction of In values into Out through each walk: times, floor %, and whether the
      // walk gave the chunks' bits.
      const auto each = [&](auto in_tag, auto load, auto op, auto init, const char* name, float floor_us) {
        using In = decltype(in_tag);
        using Out = decltype(init);
        using walk = cured::device::segment_walk;
        const auto* x = static_cast<const In*>(values);
        const walk by_mean = cured::detail::segment_walk_by_mean<In>(n, S, true);  // (sums and max: any walk)
        std::printf(" | %s", name);
        std::vector<Out> first(S), other(S);
        for (const walk w : {walk::chunks, walk::grouped, walk::mixed}) {
          const cured::detail::segment_options options{false, w};
          Out* o = w == walk::chunks ? (Out*)out : (Out*)out2;
          const float us = time([&] {
            cured::detail::segment_plain(x, n, seg, o, load, op, init, ws, nullptr, nullptr, options);
          });
          CK(cudaDeviceSynchronize());
          auto& host = w == walk::chunks ? first : other;
          CK(cudaMemcpy(host.data(), o, S * sizeof(Out), cudaMemcpyDeviceToHost));
          std::int64_t differ = 0;
          if (w != walk::chunks)
            for (std::int64_t q = 0; q < S; ++q) differ += std::memcmp(&first[q], &other[q], sizeof(Out)) != 0;
          mismatches += differ != 0;
          std::printf(" %c%c%6.1f %5.1f%%%s", "cgm"[int(w)], w == by_mean ? '*' : ' ', us, 100 * floor_us / us,
                      differ ? " DIFFER" : "");
        }
      };
      using namespace cured;
      const auto* f = static_cast<const float*>(values);
      const auto* g64 = static_cast<const double*>(values);
      const float floor_f = time([&] { floor_kernel<<<132 * 8, 256>>>(f, n, d_off, S, (float*)out, sink); });
      const float floor_d = time([&] { floor_kernel<<<132 * 8, 256>>>(g64, n, d_off, S, (double*)out, sink); });
      std::printf("%s n=2^%d %-6s S=%-9lld", label, n == N ? 28 : 24, d.c_str(), (long long)S);
      each(float{}, device::transform_load<float, device::identity_transform>{}, plus{}, 0.f, "fsum", floor_f);
      each(float{}, device::transform_load<float, device::identity_transform>{}, maximum{},
           maximum::identity<float>(), "fmax", floor_f);
      each(std::int32_t{}, device::transform_load<std::int64_t, device::identity_transform>{}, plus{},
           std::int64_t(0), "isum", floor_f);
      each(double{}, device::transform_load<double, device::identity_transform>{}, plus{}, 0.0, "dsum", floor_d);
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  std::printf("%s: %d cases where a walk's results differ from the chunks' (float and double sums may, by "
              "rounding)\n",
              label, mismatches);
}
