// Development probe: segmented reductions through the walk the mean took before the Strips
// kernel and through the strips (device/segment_strips.cuh), against a read floor, cold.
//   nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -Iinclude bench/probe/segments.cu -o segments_probe
//   ./segments_probe <label> [distribution ...]
// Distributions: uN (every segment N values), rN (lengths uniform in [N/2, 3N/2]), em (a third
// empty, the others 1 to 200), pl (cured-bench's powerlaw: floor(2^(20 u)), u uniform in
// [0, 1)), ob (cured-bench's onebig: segments of 4, one of n / 2). n = 2^24 and 2^28; one line
// per case: the label, and per reduction (float sum and max, int32 sum, double sum) the time in
// us and the floor's time over it (%), before -> strips, the median of 12 launches, each after
// 256 MiB written (the L2 flushed); DIFFER where the two walks' results differ (float and
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

/// The walk the dispatch took before the Strips kernel, for the mean length n / S.
template <class In>
cured::detail::segment_options walk_before_strips(std::int64_t n, std::int64_t S) {
  using P = cured::detail::segment_policy;
  using walk = cured::device::segment_walk;
  cured::detail::segment_options o;
  o.by_mean = false;
  o.walk = 2 * n > P::short_max<In> * S && n <= P::short_max<In> * S ? walk::grouped
           : n >= P::group_min * S && n < P::warp_min * S            ? walk::mixed
                                                                     : walk::chunks;
  return o;
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
      cured::detail::segment_options strips;
      strips.by_mean = false;
      strips.walk = cured::device::segment_walk::strips;
      // One reduction of In values into Out, before the Strips kernel and in it: times, floor %,
      // and whether the two gave the same bits.
      const auto both = [&](auto in_tag, auto load, auto op, auto init, const char* name, float floor_us) {
        using In = decltype(in_tag);
        using Out = decltype(init);
        const auto* x = static_cast<const In*>(values);
        const auto before = walk_before_strips<In>(n, S);
        const float t0 = time([&] {
          cured::detail::segment_plain(x, n, seg, (Out*)out, load, op, init, ws, nullptr, nullptr, before);
        });
        const float t1 = time([&] {
          cured::detail::segment_plain(x, n, seg, (Out*)out2, load, op, init, ws, nullptr, nullptr, strips);
        });
        CK(cudaDeviceSynchronize());
        std::vector<Out> a(S), b(S);
        CK(cudaMemcpy(a.data(), out, S * sizeof(Out), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(b.data(), out2, S * sizeof(Out), cudaMemcpyDeviceToHost));
        std::int64_t differ = 0;
        for (std::int64_t q = 0; q < S; ++q) differ += std::memcmp(&a[q], &b[q], sizeof(Out)) != 0;
        mismatches += differ != 0;
        std::printf(" | %s %7.1f %5.1f%% -> %7.1f %5.1f%%%s", name, t0, 100 * floor_us / t0, t1, 100 * floor_us / t1,
                    differ ? " DIFFER" : "");
      };
      using namespace cured;
      const auto* f = static_cast<const float*>(values);
      const auto* g64 = static_cast<const double*>(values);
      const float floor_f = time([&] { floor_kernel<<<132 * 8, 256>>>(f, n, d_off, S, (float*)out, sink); });
      const float floor_d = time([&] { floor_kernel<<<132 * 8, 256>>>(g64, n, d_off, S, (double*)out, sink); });
      std::printf("%s n=2^%d %-6s S=%-9lld", label, n == N ? 28 : 24, d.c_str(), (long long)S);
      both(float{}, device::transform_load<float, device::identity_transform>{}, plus{}, 0.f, "fsum", floor_f);
      both(float{}, device::transform_load<float, device::identity_transform>{}, maximum{},
           maximum::identity<float>(), "fmax", floor_f);
      both(std::int32_t{}, device::transform_load<std::int64_t, device::identity_transform>{}, plus{},
           std::int64_t(0), "isum", floor_f);
      both(double{}, device::transform_load<double, device::identity_transform>{}, plus{}, 0.0, "dsum", floor_d);
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  std::printf("%s: %d cases where the walks' results differ (float and double sums may, by rounding)\n", label,
              mismatches);
}
