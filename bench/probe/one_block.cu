// Development probe behind docs/PERF.md ("The afternoon"): where the time of small and middle
// float sums goes, cold. Times (median of 41 launches, CUDA events, L2 flushed before each)
// the library's float sum beside CUB and minimal kernels of the same shape: the read floor,
// `rr` (the floor's loads, a shuffle reduction, one write), the library's thread_reduce and
// block::reduce in a bare kernel, the kernel's launch shapes. Not built with the project:
//
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude bench/probe/one_block.cu -o one_block
//
// The first table uses the public API, CUB and the library's loads only: built against another
// version's include/ (the same command with -I<that checkout>/include), it times that
// version's kernel, which is how docs/PERF.md compares kernels in the same session. The other
// tables use the kernel's internals as of this version.
#include <algorithm>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <cured/cured.cuh>
#include <functional>
#include <string>
#include <vector>

#include "probe.cuh"

template <unsigned B, int U>
struct pol {
  static constexpr unsigned block = B;
  static constexpr int unroll = U;
  static constexpr int min_blocks_per_sm = B >= 1024 ? 1 : 1024 / B;
};

using load_t = cured::detail::transform_load<float, cured::detail::identity_transform>;
using fin_t = cured::detail::no_finish;

template <int P>
struct pad_t {
  char c[P];
};

// rr_kernel<256> with `out` P bytes further into the parameters.
template <int P>
__global__ void __launch_bounds__(256) rr_pad_kernel(const float4* in, std::int64_t words, pad_t<P> pad, float* out) {
  const std::uint64_t l2 = cured::device::l2_policy(true);
  float acc = 0;
  const int i = threadIdx.x;
  float4 r[4];
#pragma unroll
  for (int u = 0; u < 4; ++u)
    r[u] = i + u * 256 < words ? cured::device::load_vector(in + i + u * 256, l2) : float4{0, 0, 0, 0};
#pragma unroll
  for (int u = 0; u < 4; ++u) acc += (r[u].x + r[u].y) + (r[u].z + r[u].w);
  for (int o = 16; o; o /= 2) acc += __shfl_xor_sync(~0u, acc, o);
  __shared__ float w[8];
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < 8 ? w[threadIdx.x] : 0.f;
    for (int o = 16; o; o /= 2) acc += __shfl_xor_sync(~0u, acc, o);
    if (threadIdx.x == 0) out[0] = acc + float(pad.c[0]);
  }
}

// Decomposition: cured's thread_reduce and block::reduce in a bare kernel.
template <unsigned B>
__global__ void __launch_bounds__(B) tr_kernel(const float* in, std::int64_t n, float* out, bool ef) {
  load_t load{};
  cured::plus op{};
  float v = cured::device::thread_reduce<pol<B, 4>>(cured::device::span_of(in, n), load, op, 0.f, threadIdx.x, B,
                                                    cured::device::l2_policy(ef));
  __shared__ cured::block::reduce_storage<float, B> st;
  v = cured::block::reduce<B>(v, op, 0.f, st);
  if (threadIdx.x == 0) *out = v;
}
// The same with the layout computed on the host (aligned input: no head, no tail).
template <unsigned B>
__global__ void __launch_bounds__(B) tr_fast_kernel(const float4* body, std::int64_t vectors, float* out) {
  const std::uint64_t l2 = cured::device::l2_policy(true);
  float acc = 0;
  std::int64_t j = threadIdx.x;
  constexpr std::int64_t threads = B;
  for (; j + 3 * threads < vectors; j += 4 * threads) {
    float4 r[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) r[u] = cured::device::load_vector(body + j + u * threads, l2);
#pragma unroll
    for (int u = 0; u < 4; ++u) acc = acc + r[u].x + r[u].y + r[u].z + r[u].w;
  }
  float4 r[3];
#pragma unroll
  for (int u = 0; u < 3; ++u)
    if (j + u * threads < vectors) r[u] = cured::device::load_vector(body + j + u * threads, l2);
#pragma unroll
  for (int u = 0; u < 3; ++u)
    if (j + u * threads < vectors) acc = acc + r[u].x + r[u].y + r[u].z + r[u].w;
  __shared__ cured::block::reduce_storage<float, B> st;
  acc = cured::block::reduce<B>(acc, cured::plus{}, 0.f, st);
  if (threadIdx.x == 0) *out = acc;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs, L2 %d\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize);
  timer T(prop);
  float_input I;
  const std::int64_t max_n = I.max_n;
  float *in = I.in, *out = I.out, *dummy, *out2;
  unsigned* sink = I.sink;
  void* cub_temp = I.cub_temp;
  const std::size_t cub_bytes = I.cub_bytes;
  int& bad = I.bad;
  const auto check = [&](const char* what, int lg) { I.check(T.s, what, lg); };
  CK(cudaMalloc(&dummy, max_n * 4));
  CK(cudaMemcpy(dummy, in, max_n * 4, cudaMemcpyDeviceToDevice));
  CK(cudaMalloc(&out2, 4096 * 4));
  cured::workspace ws;
  const int sizes[] = {10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22};

  std::printf(
      "\n## baseline: cold / code-warm (us)\n| n | floor | floor-w | rr256 | rr1024 | cured | cured-w | cub | cub-w "
      "|\n");
  for (int lg : sizes) {
    const std::int64_t n = std::int64_t(1) << lg;
    const std::int64_t words = n / 4;
    auto floor_l = [&](const float* p) {
      return [=, &T] {
        const std::int64_t g = std::max<std::int64_t>(1, std::min<std::int64_t>((words + 1023) / 1024, 8 * 132));
        read_kernel<<<unsigned(g), 256, 0, T.s>>>(reinterpret_cast<const uint4*>(p), words, sink);
      };
    };
    auto cured_l = [&](const float* p, float* o) { return [=, &ws, &T] { cured::sum_async(p, n, o, ws, T.s); }; };
    auto cub_l = [&](const float* p, float* o) {
      return [=, &T] {
        std::size_t b = cub_bytes;
        CK(cub::DeviceReduce::Sum(cub_temp, b, p, o, n, T.s));
      };
    };
    const double f = T.cold(floor_l(in)), fw = T.warm_cold(floor_l(in), floor_l(dummy));
    double rr256 = -1, rr1024 = -1;
    if (words <= 256 * 4)
      rr256 = T.cold([&] { rr_kernel<256><<<1, 256, 0, T.s>>>((const float4*)in, words, out); });
    if (words <= 1024 * 4)
      rr1024 = T.cold([&] { rr_kernel<1024><<<1, 1024, 0, T.s>>>((const float4*)in, words, out); });
    const double c = T.cold(cured_l(in, out));
    check("cured", lg);
    const double cw = T.warm_cold(cured_l(in, out), cured_l(dummy, out2));
    check("cured-w", lg);
    const double k = T.cold(cub_l(in, out));
    check("cub", lg);
    const double kw = T.warm_cold(cub_l(in, out), cub_l(dummy, out2));
    std::printf("| 2^%d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", lg, f, fw, rr256, rr1024, c, cw,
                k, kw);
    std::fflush(stdout);
  }

  {
    std::printf("\n## rr256 at 2^12 with out at parameter offset 0x220 + P (us)\n");
    const std::int64_t words = 1024;
    auto run = [&](auto padv, int P) {
      const double t = T.cold([&] {
        rr_pad_kernel<decltype(padv)::value>
            <<<1, 256, 0, T.s>>>((const float4*)in, words, pad_t<decltype(padv)::value>{}, out);
      });
      check("rr_pad", 12);
      std::printf("P=%d: %.2f\n", P, t);
    };
    run(std::integral_constant<int, 8>{}, 8);
    run(std::integral_constant<int, 40>{}, 40);
    run(std::integral_constant<int, 8>{}, 8);
    run(std::integral_constant<int, 104>{}, 104);
    run(std::integral_constant<int, 232>{}, 232);
    run(std::integral_constant<int, 40>{}, 40);
  }

  {
    std::printf(
        "\n## decomposition, one block (us)\n| n | rr256 | tr256 | trfast256 | rr1024 | tr1024 | trfast1024 |\n");
    for (int lg : {10, 11, 12, 13, 14}) {
      const std::int64_t n = std::int64_t(1) << lg, words = n / 4;
      double r256 = -1, t256 = -1, f256 = -1;
      if (words <= 1024) {
        r256 = T.cold([&] { rr_kernel<256><<<1, 256, 0, T.s>>>((const float4*)in, words, out); });
        t256 = T.cold([&] { tr_kernel<256><<<1, 256, 0, T.s>>>(in, n, out, true); });
        check("tr256", lg);
        f256 = T.cold([&] { tr_fast_kernel<256><<<1, 256, 0, T.s>>>((const float4*)in, words, out); });
        check("trfast256", lg);
      }
      const double r1024 =
          T.cold([&] { rr_kernel<1024><<<1, 1024, 0, T.s>>>((const float4*)in, words, out); });
      const double t1024 = T.cold([&] { tr_kernel<1024><<<1, 1024, 0, T.s>>>(in, n, out, true); });
      check("tr1024", lg);
      const double f1024 = T.cold([&] { tr_fast_kernel<1024><<<1, 1024, 0, T.s>>>((const float4*)in, words, out); });
      check("trfast1024", lg);
      std::printf("| 2^%d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", lg, r256, t256, f256, r1024, t1024, f1024);
    }
  }
  std::printf("\n## shapes of single_pass_kernel: block x unroll, KiB per block, cluster (us)\n");
  auto sweep = [&](auto policy_tag) {
    using P = decltype(policy_tag);
    constexpr auto kernel = cured::device::single_pass_kernel<P, float, float, load_t, cured::plus, fin_t>;
    constexpr auto ckernel = cured::device::single_pass_kernel<P, float, float, load_t, cured::plus, fin_t, true>;
    const int resident = cured::device::resident_blocks<kernel>(0, P::block);
    const unsigned climit = cured::device::cluster_limit<ckernel>(0, P::block);
    std::printf("\n### block %u unroll %d (resident %d, cluster limit %u)\n| n |", P::block, P::unroll, resident,
                climit);
    const int kibs[] = {4, 8, 16, 32, 64};
    for (int kib : kibs) std::printf(" %dK | %dK cl |", kib, kib);
    std::printf("\n");
    for (int lg : sizes) {
      const std::int64_t n = std::int64_t(1) << lg;
      std::printf("| 2^%d |", lg);
      for (int kib : kibs) {
        const std::int64_t per_block = std::int64_t(kib) * 1024 / 4;
        if (per_block > std::int64_t(P::block) * 4 * P::unroll || per_block < std::int64_t(P::block) * 4) {
          std::printf(" - | - |");
          continue;
        }
        const std::int64_t grid = std::min<std::int64_t>((n + per_block - 1) / per_block, std::int64_t(resident) * 132);
        for (int cl = 0; cl < 2; ++cl) {
          if (cl && (grid < 2 || grid > climit)) {
            std::printf(" - |");
            continue;
          }
          const cured::device::launch_shape shape{grid, cl ? unsigned(grid) : 1u, P::block};
          auto launch = [&] {
            cured::device::launch_state st;
            st.stream_first = true;
            st.ticket = ws.ticket();
            st.slots = ws.slots();
            cured::device::launch_kernel(cl ? ckernel : kernel, shape, T.s, out, st, cured::device::span_of(in, n), 0.f,
                                         0.f, load_t{}, cured::plus{}, fin_t{});
            CK(cudaGetLastError());
          };
          const double t = T.cold(launch);
          check("shape", lg);
          std::printf(" %.2f |", t);
        }
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  };
  sweep(pol<256, 4>{});
  sweep(pol<512, 4>{});
  sweep(pol<1024, 4>{});
  sweep(pol<1024, 2>{});

  {
    std::printf("\n## argmax (us)\n| n | cured | cub |\n");
    cured::key_value<float>* kv;
    CK(cudaMalloc(&kv, sizeof(*kv)));
    cub::KeyValuePair<int, float>* ckv;
    CK(cudaMalloc(&ckv, sizeof(*ckv)));
    float* vmax;
    std::int64_t* imax;
    CK(cudaMalloc(&vmax, 4));
    CK(cudaMalloc(&imax, 8));
    std::size_t ab = 0;
    CK(cub::DeviceReduce::ArgMax(nullptr, ab, in, vmax, imax, max_n, T.s));
    void* at;
    CK(cudaMalloc(&at, ab));
    for (int lg : {10, 11, 12, 14, 16, 18, 20}) {
      const std::int64_t n = std::int64_t(1) << lg;
      const double c = T.cold([&] { cured::argmax_async(in, n, kv, ws, T.s); });
      const double k = T.cold([&] {
        std::size_t b = ab;
        CK(cub::DeviceReduce::ArgMax(at, b, in, vmax, imax, n, T.s));
      });
      std::printf("| 2^%d | %.2f | %.2f |\n", lg, c, k);
    }
  }
  std::printf("\nmismatches: %d\n", bad);
  return bad != 0;
}
