// Development probe behind docs/PERF.md: where the blocking cured::sum's time goes, against
// thrust::reduce and against the least a blocking call can do (launch one kernel, wait for a word
// it writes into mapped host memory).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude bench/probe/blocking.cu -o blocking
//
// Every sample starts as cured-bench's blocking rows do: L2 flushed by a write of twice its size,
// the stream synchronized, then the call timed with the host's steady clock. Medians (and 10th,
// 90th percentiles) of 201 samples, in us.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <cured/cured.cuh>

#include "probe.cuh"

namespace {

using steady = std::chrono::steady_clock;

double us_since(steady::time_point t0) { return std::chrono::duration<double, std::micro>(steady::now() - t0).count(); }

// Writes `value` into mapped host memory: the least a kernel can report.
__global__ void report_kernel(unsigned long long* flag, unsigned long long value) {
  if (threadIdx.x == 0) asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(flag), "l"(value) : "memory");
}

struct samples {
  std::vector<double> v;
  void add(double x) { v.push_back(x); }
  void print(const char* what) {
    std::sort(v.begin(), v.end());
    const auto at = [&](int p) { return v[std::min(v.size() - 1, v.size() * p / 100)]; };
    std::printf("| %s | %.2f | %.2f | %.2f |\n", what, at(50), at(10), at(90));
    v.clear();
  }
};

}  // namespace

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s\n", prop.name);
  timer T(prop);
  float_input I;
  cudaStream_t s = T.s;
  unsigned long long *flag_host, *flag_dev;
  CK(cudaHostAlloc(&flag_host, 64, cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&flag_dev), flag_host, 0));
  volatile unsigned long long* flag = flag_host;
  *flag = 0;
  cured::workspace ws;
  const int count = 201;
  samples S;
  // The cold start of each sample: L2 flushed, the stream idle.
  const auto cold = [&] {
    T.value ^= 0x5a;
    CK(cudaMemsetAsync(T.flush, T.value, T.flush_bytes, s));
    CK(cudaStreamSynchronize(s));
  };
  const auto run = [&](const char* what, const std::function<double()>& once) {
    once();
    for (int k = 0; k < count; ++k) {
      cold();
      S.add(once());
    }
    S.print(what);
  };
  std::printf("| what | median | p10 | p90 |\n|---|---:|---:|---:|\n");
  for (int round = 0; round < 2; ++round) {
    unsigned long long value = 0;
    run("launch report_kernel, spin on its word", [&] {
      const unsigned long long want = ++value;
      const auto t0 = steady::now();
      report_kernel<<<1, 32, 0, s>>>(flag_dev, want);
      while (*flag != want) {
      }
      return us_since(t0);
    });
    run("host time of the <<<>>> call alone (empty kernel)", [&] {
      const auto t0 = steady::now();
      report_kernel<<<1, 32, 0, s>>>(flag_dev, ++value);
      const double t = us_since(t0);
      CK(cudaStreamSynchronize(s));
      return t;
    });
    run("empty kernel + cudaStreamSynchronize", [&] {
      const auto t0 = steady::now();
      report_kernel<<<1, 32, 0, s>>>(flag_dev, ++value);
      CK(cudaStreamSynchronize(s));
      return us_since(t0);
    });
    for (int lg : {10, 12, 16, 20}) {
      const std::int64_t n = std::int64_t(1) << lg;
      char name[160];
      std::snprintf(name, sizeof name, "2^%d cured::sum", lg);
      run(name, [&] {
        const auto t0 = steady::now();
        const float r = cured::sum(I.in, n, s);
        const double t = us_since(t0);
        if (double(r) != I.prefix[lg]) ++I.bad;
        return t;
      });
      std::snprintf(name, sizeof name, "2^%d host time of cured::sum_async alone", lg);
      run(name, [&] {
        const auto t0 = steady::now();
        cured::sum_async(I.in, n, I.out, ws, s);
        const double t = us_since(t0);
        CK(cudaStreamSynchronize(s));
        return t;
      });
      std::snprintf(name, sizeof name, "2^%d cured::sum_async + cudaStreamSynchronize + copy", lg);
      run(name, [&] {
        const auto t0 = steady::now();
        cured::sum_async(I.in, n, I.out, ws, s);
        float r;
        CK(cudaMemcpyAsync(&r, I.out, 4, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        return us_since(t0);
      });
      std::snprintf(name, sizeof name, "2^%d thrust::reduce", lg);
      run(name, [&] {
        const auto t0 = steady::now();
        const float r = thrust::reduce(thrust::cuda::par.on(s), I.in, I.in + n, 0.f);
        const double t = us_since(t0);
        if (double(r) != I.prefix[lg]) ++I.bad;
        return t;
      });
    }
  }
  std::printf("\nmismatches: %d\n", I.bad);
  return I.bad != 0;
}
