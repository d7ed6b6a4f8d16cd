// Development probe behind docs/PERF.md: where a cold float sum's time goes, stage by stage.
// Two builds of this file:
//
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude bench/probe/timeline.cu -o timeline
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude -DTRACE bench/probe/timeline.cu -o timeline_trace
//
// The first times (median of cold launches: L2 flushed before each, CUDA events) the library's
// float sum beside CUB and the read floor; built against another version's include/ (-I<that
// checkout>/include) it times that version, so that two versions run alternately in one session.
// The second defines CURED_PROBE (include/cured/device/single_pass.cuh) so that thread 0 of each
// block of the library's kernel records %globaltimer (ns, one clock for the whole GPU) at each
// stage, and prints, per size, the median over launches of when each stage ended, counted from
// the first block's entry, beside the launch's event time. Its kernels carry the timestamps'
// stores, so its event times run a little over the first build's.
//
// Modes of the first build (its first argument): none, the event table at 2^10..2^22 with the
// launch baselines; `shapes`, the table and forced launch shapes; `once`, a launch of each at
// a few sizes for ncu; `small`, one-block float sums (the library, its small_kernel launched
// directly, rr, CUB, an empty kernel), cold and with their code warm; `types`, one-block double
// and int32 sums and float min and sum against CUB; `argmax`, float argmax against CUB.
// TIMELINE_SIZES=lo-hi (log2, at most 22) narrows the event table, the traces and `argmax`.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#ifdef TRACE
// [block][8]: globaltimer at each point, 0 where not reached. An array, not a pointer, so that
// its address is an immediate in the code: a mark loads nothing (a load would miss, cold).
constexpr int probe_blocks = 4096;
__device__ unsigned long long probe_trace[probe_blocks * 8];

template <class V>
__device__ __forceinline__ void probe_mark(int point, const V& v) {
  if (threadIdx.x != 0) return;
  unsigned bits = 0;
  std::memcpy(&bits, &v, sizeof(bits) < sizeof(V) ? sizeof(bits) : sizeof(V));
  // A branch on the stage's value (taken about once in 2^32), so that the timestamp cannot be
  // read before the value exists.
  if (bits == unsigned(clock())) return;
  unsigned long long g;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g)::"memory");
  probe_trace[std::size_t(blockIdx.x) * 8 + point] = g;
}
#define CURED_PROBE(point, value) probe_mark(point, value)
#endif

#include <cub/device/device_reduce.cuh>
#include <cured/cured.cuh>

#include "probe.cuh"

// Launch baselines: a kernel that does nothing, and one whose thread 0 writes one float.
__global__ void empty_kernel() {}
// The multiprocessor's clock while it runs: cycles (clock64) over nanoseconds (globaltimer) of a
// 20 us spin, in MHz.
__global__ void clock_kernel(double* mhz) {
  unsigned long long g0, g1;
  const long long c0 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  while (g1 - g0 < 20000);
  const long long c1 = clock64();
  *mhz = double(c1 - c0) / double(g1 - g0) * 1e3;
}
__global__ void write_kernel(float* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = 1.f;
}

#ifdef TRACE
// globaltimer's resolution: one thread reads it back to back.
__global__ void timer_steps(unsigned long long* out, int reads) {
  unsigned long long prev, now, min_step = ~0ull, distinct = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(prev));
  const unsigned long long first = prev;
  for (int k = 0; k < reads; ++k) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now != prev) {
      ++distinct;
      if (now - prev < min_step) min_step = now - prev;
      prev = now;
    }
  }
  out[0] = min_step;
  out[1] = distinct;
  out[2] = prev - first;
}
#endif

int main(int argc, char** argv) {
  // "once": one warm-up and one launch of each reduction at a few sizes, for ncu.
  const bool once = argc > 1 && std::strcmp(argv[1], "once") == 0;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs, L2 %d\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize);
  timer T(prop, 101);
  float_input I;
  float *in = I.in, *out = I.out;
  unsigned* sink = I.sink;
  int& bad = I.bad;
  const auto check = [&](const char* what, int lg) { I.check(T.s, what, lg); };
  cured::workspace ws;
  // TIMELINE_SIZES=lo-hi (log2) narrows the event table and the traces to those sizes.
  std::vector<int> sizes;
  {
    int lo = 10, hi = 22;
    if (const char* e = std::getenv("TIMELINE_SIZES")) std::sscanf(e, "%d-%d", &lo, &hi);
    for (int lg = lo; lg <= hi; ++lg) sizes.push_back(lg);
  }
  auto floor_launch = [&](std::int64_t n) {
    return [=, &T] {
      const std::int64_t words = n / 4;
      const std::int64_t g = std::max<std::int64_t>(1, std::min<std::int64_t>((words + 1023) / 1024, 8 * 132));
      read_kernel<<<unsigned(g), 256, 0, T.s>>>(reinterpret_cast<const uint4*>(in), words, sink);
    };
  };
  auto cured_launch = [&](std::int64_t n) { return [=, &ws, &T] { cured::sum_async(in, n, out, ws, T.s); }; };

#ifndef TRACE
  if (once) {
    for (int lg : {12, 15, 20}) {
      const std::int64_t n = std::int64_t(1) << lg;
      for (int k = 0; k < 2; ++k) {
        cured_launch(n)();
        std::size_t b = I.cub_bytes;
        CK(cub::DeviceReduce::Sum(I.cub_temp, b, in, out, n, T.s));
        floor_launch(n)();
      }
    }
    CK(cudaStreamSynchronize(T.s));
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "argmax") == 0) {
    // Float argmax, the library against CUB, cold, at the sizes TIMELINE_SIZES names.
    void* temp;
    const std::size_t temp_bytes = std::size_t(1) << 24;
    CK(cudaMalloc(&temp, temp_bytes));
    auto* kv = reinterpret_cast<cured::key_value<float>*>(out);
    auto* cub_index = reinterpret_cast<std::int64_t*>(out + 64);
    std::vector<float> h(float_input::max_n);
    CK(cudaMemcpy(h.data(), in, h.size() * 4, cudaMemcpyDeviceToHost));
    std::printf("\n## float argmax (us, median of %d cold launches)\n| n | cured | cub | cub/cured |\n", T.samples);
    for (int lg : sizes) {
      if (lg > 22) break;  // the input's length
      const std::int64_t n = std::int64_t(1) << lg;
      const std::int64_t want = std::max_element(h.begin(), h.begin() + n) - h.begin();
      const double c = T.cold([&] { cured::argmax_async(in, n, kv, ws, T.s); });
      cured::key_value<float> got;
      CK(cudaMemcpy(&got, kv, sizeof got, cudaMemcpyDeviceToHost));
      if (got.index != want) std::printf("MISMATCH argmax 2^%d: %lld vs %lld\n", lg, (long long)got.index, (long long)want), ++bad;
      const double k = T.cold([&] {
        std::size_t b = temp_bytes;
        CK(cub::DeviceReduce::ArgMax(temp, b, in, out + 32, cub_index, n, T.s));
      });
      std::printf("| 2^%d | %.2f | %.2f | %.3f |\n", lg, c, k, k / c);
      std::fflush(stdout);
    }
    std::printf("\nmismatches: %d\n", bad);
    return bad != 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "types") == 0) {
    // One-block sizes of other types and operators: the library against CUB, cold, three rounds.
    std::vector<double> hd(4096);
    std::vector<std::int32_t> hi(4096);
    std::vector<float> hf(4096);
    CK(cudaMemcpy(hf.data(), in, 4096 * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4096; ++i) hd[i] = hf[i], hi[i] = std::int32_t(hf[i]);
    double* din;
    std::int32_t* iin;
    CK(cudaMalloc(&din, 4096 * 8));
    CK(cudaMalloc(&iin, 4096 * 4));
    CK(cudaMemcpy(din, hd.data(), 4096 * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(iin, hi.data(), 4096 * 4, cudaMemcpyHostToDevice));
    // CUB's temporary storage for every case here (more than any of them asks).
    void* temp;
    const std::size_t temp_bytes = std::size_t(1) << 24;
    CK(cudaMalloc(&temp, temp_bytes));
    double* dout = reinterpret_cast<double*>(out);
    std::int64_t* iout = reinterpret_cast<std::int64_t*>(out);
    const auto host_check = [&](const char* what, int lg, double want, double got) {
      if (want != got) {
        std::printf("MISMATCH %s 2^%d: %g vs %g\n", what, lg, got, want);
        ++bad;
      }
    };
    std::printf("\n## one block, other types (us, median of %d cold launches)\n| case | round | cured | cub | cub/cured |\n",
                T.samples);
    struct item {
      const char* name;
      int lg;
      std::function<void()> lib, cub;
      std::function<double()> got;
      double want;
    };
    std::vector<item> items;
    for (int lg : {10, 11, 12}) {
      const std::int64_t n = std::int64_t(1) << lg;
      double sum = 0, mn = 1e300;
      for (std::int64_t i = 0; i < n; ++i) sum += hd[i], mn = std::min(mn, hd[i]);
      const auto read_double = [=] { double r; CK(cudaMemcpy(&r, dout, 8, cudaMemcpyDeviceToHost)); return r; };
      const auto read_float = [=] { float r; CK(cudaMemcpy(&r, out, 4, cudaMemcpyDeviceToHost)); return double(r); };
      const auto read_int = [=] { std::int64_t r; CK(cudaMemcpy(&r, iout, 8, cudaMemcpyDeviceToHost)); return double(r); };
      items.push_back({"double sum", lg, [=, &ws, &T] { cured::sum_async(din, n, dout, ws, T.s); },
                       [=, &T] { std::size_t b = temp_bytes; CK(cub::DeviceReduce::Sum(temp, b, din, dout, n, T.s)); },
                       read_double, sum});
      items.push_back({"float min", lg, [=, &ws, &T] { cured::min_async(in, n, out, ws, T.s); },
                       [=, &T] { std::size_t b = temp_bytes; CK(cub::DeviceReduce::Min(temp, b, in, out, n, T.s)); },
                       read_float, mn});
      items.push_back({"int32 sum", lg, [=, &ws, &T] { cured::sum_async(iin, n, iout, ws, T.s); },
                       [=, &T] {
                         std::size_t b = temp_bytes;
                         CK(cub::DeviceReduce::Reduce(temp, b, iin, iout, n, ::cuda::std::plus<std::int64_t>{},
                                                      std::int64_t(0), T.s));
                       },
                       read_int, sum});
      items.push_back({"float sum", lg, [=, &ws, &T] { cured::sum_async(in, n, out, ws, T.s); },
                       [=, &T] { std::size_t b = temp_bytes; CK(cub::DeviceReduce::Sum(temp, b, in, out, n, T.s)); },
                       read_float, sum});
    }
    for (int round = 0; round < 3; ++round)
      for (auto& it : items) {
        const double c = T.cold(it.lib);
        host_check(it.name, it.lg, it.want, it.got());
        const double k = T.cold(it.cub);
        host_check(it.name, it.lg, it.want, it.got());
        std::printf("| %s 2^%d | %d | %.2f | %.2f | %.3f |\n", it.name, it.lg, round, c, k, k / c);
        std::fflush(stdout);
      }
    std::printf("\nmismatches: %d\n", bad);
    return bad != 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "small") == 0) {
    // One-block sizes: the library (through cured::sum_async), its small_kernel launched
    // directly, rr, CUB and an empty block, each cold (L2 flushed: data, code and launch state
    // all cold) and code-warm (after the flush, the same launch once on another part of the
    // input, untimed: only the timed launch's data is cold). Three rounds, alternating.
    using load_t = cured::detail::transform_load<float, cured::detail::identity_transform>;
    constexpr auto small = cured::device::small_kernel<cured::device::small_policy, float, float, load_t, cured::plus,
                                                       cured::detail::no_finish>;
    const std::int64_t other = std::int64_t(1) << 21;  // the warm-up's input: in + other
    std::printf("\n## one block, cold and code-warm (us, median of %d)\n"
                "| n | round | empty cold | empty warm | rr cold | rr warm | small cold | small warm | "
                "cured cold | cured warm | cub cold | cub warm |\n",
                T.samples);
    for (int lg : {10, 11, 12}) {
      const std::int64_t n = std::int64_t(1) << lg;
      const auto empty = [&](const float*) { empty_kernel<<<1, 256, 0, T.s>>>(); };
      const auto rr = [&](const float* p) { rr_kernel<256><<<1, 256, 0, T.s>>>((const float4*)p, n / 4, out); };
      const auto sk = [&](const float* p) {
        small<<<1, cured::device::small_policy::block, 0, T.s>>>(out, cured::completion{}, cured::device::span_of(p, n),
                                                                 0.f, 0.f, load_t{}, cured::plus{}, cured::detail::no_finish{});
      };
      const auto lib = [&](const float* p) { cured::sum_async(p, n, out, ws, T.s); };
      const auto cub = [&](const float* p) {
        std::size_t b = I.cub_bytes;
        CK(cub::DeviceReduce::Sum(I.cub_temp, b, p, out, n, T.s));
      };
      const std::function<void(const float*)> kinds[] = {empty, rr, sk, lib, cub};
      const char* names[] = {"empty", "rr", "small", "cured", "cub"};
      for (int round = 0; round < 3; ++round) {
        std::printf("| 2^%d | %d |", lg, round);
        for (int k = 0; k < 5; ++k) {
          const auto& f = kinds[k];
          const double cold = T.cold([&] { f(in); });
          if (k) check(names[k], lg);
          const double warm = T.warm_cold([&] { f(in); }, [&] { f(in + other); });
          if (k) check(names[k], lg);
          std::printf(" %.2f | %.2f |", cold, warm);
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
    std::printf("\nmismatches: %d\n", bad);
    return bad != 0;
  }
  std::printf(
      "\n## cold event times (us, median of %d; cured and cub also 10th and 90th percentiles)\n"
      "| n | floor | cured | cured p10 | cured p90 | cub | cub p10 | cub p90 | cub/cured |\n",
      T.samples);
  for (int lg : sizes) {
    const std::int64_t n = std::int64_t(1) << lg;
    const double f = T.cold(floor_launch(n));
    const double c = T.cold(cured_launch(n));
    const double c10 = T.pct(10), c90 = T.pct(90);
    check("cured", lg);
    const double k = T.cold([&] {
      std::size_t b = I.cub_bytes;
      CK(cub::DeviceReduce::Sum(I.cub_temp, b, in, out, n, T.s));
    });
    check("cub", lg);
    std::printf("| 2^%d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f |\n", lg, f, c, c10, c90, k, T.pct(10),
                T.pct(90), k / c);
    std::fflush(stdout);
  }
  if (argc > 1 && std::strcmp(argv[1], "shapes") == 0) {
    // The kernel's shapes at middle sizes (float sums, us): the automatic one, forced plain grids
    // of g blocks (grid_override), forced clusters of c blocks (cluster_override).
    std::printf("\n## shapes (us)\n| n | auto | g1 | g2 | g4 | g8 | g16 | g32 | g64 | c4 | c8 | c16 |\n");
    for (int lg : {13, 14, 15, 16, 17, 18}) {
      const std::int64_t n = std::int64_t(1) << lg;
      std::printf("| 2^%d | %.2f |", lg, T.cold(cured_launch(n)));
      check("auto", lg);
      for (int g : {1, 2, 4, 8, 16, 32, 64}) {
        if (std::int64_t(g) * 4096 > n && g > 1) {
          std::printf(" - |");
          continue;
        }
        cured::detail::grid_override = g;
        std::printf(" %.2f |", T.cold(cured_launch(n)));
        check("grid", lg);
        cured::detail::grid_override = 0;
      }
      for (unsigned c : {4u, 8u, 16u}) {
        cured::detail::cluster_override = c;
        std::printf(" %.2f |", T.cold(cured_launch(n)));
        check("cluster", lg);
        cured::detail::cluster_override = 0;
      }
      std::printf("\n");
      std::fflush(stdout);
    }
    std::printf("\nmismatches: %d\n", bad);
    return bad != 0;
  }
  std::printf("\n## launch baselines (us)\n");
  std::printf("empty 1x32: %.2f\n", T.cold([&] { empty_kernel<<<1, 32, 0, T.s>>>(); }));
  std::printf("empty 1x1024: %.2f\n", T.cold([&] { empty_kernel<<<1, 1024, 0, T.s>>>(); }));
  std::printf("empty 132x1024: %.2f\n", T.cold([&] { empty_kernel<<<132, 1024, 0, T.s>>>(); }));
  std::printf("write 1x32: %.2f\n", T.cold([&] { write_kernel<<<1, 32, 0, T.s>>>(out); }));
  std::printf("write 1x256: %.2f\n", T.cold([&] { write_kernel<<<1, 256, 0, T.s>>>(out); }));
  std::printf("rr256 2^12: %.2f\n", T.cold([&] { rr_kernel<256><<<1, 256, 0, T.s>>>((const float4*)in, 1024, out); }));
  check("rr256", 12);
  {
    // What an event recorded after the kernel (as each asynchronous call records the
    // workspace's) adds to the timed span.
    cudaEvent_t extra;
    CK(cudaEventCreateWithFlags(&extra, cudaEventDisableTiming));
    std::printf("rr256 2^12, then an event: %.2f\n", T.cold([&] {
      rr_kernel<256><<<1, 256, 0, T.s>>>((const float4*)in, 1024, out);
      CK(cudaEventRecord(extra, T.s));
    }));
    std::printf("rr256 2^12 again: %.2f\n",
                T.cold([&] { rr_kernel<256><<<1, 256, 0, T.s>>>((const float4*)in, 1024, out); }));
    CK(cudaEventDestroy(extra));
    double* mhz;
    CK(cudaMalloc(&mhz, sizeof(double)));
    std::vector<double> clocks;
    T.cold([&] { clock_kernel<<<1, 32, 0, T.s>>>(mhz); }, {}, [&] {
      double h;
      CK(cudaMemcpy(&h, mhz, sizeof h, cudaMemcpyDeviceToHost));
      clocks.push_back(h);
    });
    std::printf("SM clock after the flush: %.0f MHz (median)\n", median(clocks));
  }
  std::printf("rr1024 2^14: %.2f\n",
              T.cold([&] { rr_kernel<1024><<<1, 1024, 0, T.s>>>((const float4*)in, 4096, out); }));
  check("rr1024", 14);
  {
    // The shared-memory carveout of the library's float-sum kernel and of rr256: the driver's
    // choice, then the smallest and the largest shared-memory share.
    using load_t = cured::detail::transform_load<float, cured::detail::identity_transform>;
    constexpr auto lib = cured::device::single_pass_kernel<cured::device::policy, float, float, load_t, cured::plus,
                                                           cured::detail::no_finish>;
    cudaFuncAttributes a{};
    CK(cudaFuncGetAttributes(&a, lib));
    std::printf("library kernel: %d registers, %zu static shared bytes, %d max threads\n", a.numRegs,
                a.sharedSizeBytes, a.maxThreadsPerBlock);
    CK(cudaFuncGetAttributes(&a, rr_kernel<256>));
    std::printf("rr256: %d registers, %zu static shared bytes\n", a.numRegs, a.sharedSizeBytes);
    for (int carve : {-1, 0, 100, -1}) {
      if (carve >= 0) {
        CK(cudaFuncSetAttribute(lib, cudaFuncAttributePreferredSharedMemoryCarveout, carve));
        CK(cudaFuncSetAttribute(rr_kernel<256>, cudaFuncAttributePreferredSharedMemoryCarveout, carve));
      }
      const double c12 = T.cold(cured_launch(4096));
      check("cured", 12);
      const double c20 = T.cold(cured_launch(1 << 20));
      check("cured", 20);
      const double r = T.cold([&] { rr_kernel<256><<<1, 256, 0, T.s>>>((const float4*)in, 1024, out); });
      std::printf("carveout %d: cured 2^12 %.2f, cured 2^20 %.2f, rr256 2^12 %.2f\n", carve, c12, c20, r);
    }
  }
#else
  {
    unsigned long long* d;
    CK(cudaMalloc(&d, 24));
    timer_steps<<<1, 1>>>(d, 100000);
    unsigned long long h[3];
    CK(cudaMemcpy(h, d, 24, cudaMemcpyDeviceToHost));
    std::printf("globaltimer: smallest step %llu ns, %llu steps over %llu ns\n", h[0], h[1], h[2]);
  }
  const int max_blocks = probe_blocks;
  unsigned long long* trace;
  CK(cudaGetSymbolAddress(reinterpret_cast<void**>(&trace), probe_trace));
  std::vector<unsigned long long> h(max_blocks * 8);

  // Per launch: the stage times (ns after the first entry) of the block that wrote the result
  // (point 6), the latest of each stage over the other blocks, and the event time.
  struct stats {
    std::vector<double> ev, grid, entry_last, own[7], others_last[7];
  };
  auto traced = [&](const char* name, int lg, const std::function<void()>& launch) {
    stats st;
    const double ev = T.cold(
        launch, [&] { CK(cudaMemsetAsync(trace, 0, h.size() * 8, T.s)); },
        [&] {
          CK(cudaMemcpy(h.data(), trace, h.size() * 8, cudaMemcpyDeviceToHost));
          int blocks = 0, writer = -1;
          unsigned long long t0 = ~0ull, entry_last = 0, end = 0;
          for (int b = 0; b < max_blocks; ++b) {
            if (!h[b * 8]) continue;
            ++blocks;
            t0 = std::min(t0, h[b * 8]);
            entry_last = std::max(entry_last, h[b * 8]);
            if (h[b * 8 + 6] > end) end = h[b * 8 + 6], writer = b;
          }
          if (writer < 0) return;
          st.grid.push_back(blocks);
          st.entry_last.push_back(double(entry_last - t0));
          for (int p = 0; p < 7; ++p) {
            if (h[writer * 8 + p]) st.own[p].push_back(double(h[writer * 8 + p] - t0));
            unsigned long long last = 0;
            for (int b = 0; b < max_blocks; ++b)
              if (b != writer && h[b * 8 + p]) last = std::max(last, h[b * 8 + p]);
            if (last) st.others_last[p].push_back(double(last - t0));
          }
        });
    if (std::strcmp(name, "floor") != 0) check(name, lg);
    std::printf("| %s | 2^%d | %.0f | %.2f | %.0f |", name, lg, median(st.grid), ev, median(st.entry_last));
    for (int p = 1; p < 7; ++p) std::printf(" %.0f |", median(st.own[p]));
    for (int p = 1; p < 4; ++p) std::printf(" %.0f |", median(st.others_last[p]));
    std::printf("\n");
    std::fflush(stdout);
  };
  std::printf(
      "\n## stages (ns after the first block's entry; medians of %d cold launches)\n"
      "W: the block that wrote the result (floor: the last to end); O: the latest over the other blocks.\n"
      "1 loads' value, 2 block reduced, 3 handed over, 4 partials collected, 5 combined, 6 written.\n"
      "| kernel | n | blocks | event us | last entry | W1 | W2 | W3 | W4 | W5 | W6 | O1 | O2 | O3 |\n",
      T.samples);
  for (int lg : sizes) {
    traced("floor", lg, floor_launch(std::int64_t(1) << lg));
    traced("cured", lg, cured_launch(std::int64_t(1) << lg));
    if (lg <= 12)
      traced("rr256", lg, [&] { rr_kernel<256><<<1, 256, 0, T.s>>>((const float4*)in, (1 << lg) / 4, out); });
  }
#endif
  std::printf("\nmismatches: %d\n", bad);
  return bad != 0;
}
