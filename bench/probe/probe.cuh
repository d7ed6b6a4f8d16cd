#pragma once
// What the development probes (one_block.cu, timeline.cu) share: the error check, the cold
// timer, the read floor's kernel, a minimal one-block float sum and the input. Include it after
// <cured/cured.cuh>: its kernels mark their stages with CURED_PROBE, which the library defines
// to nothing unless a probe defined it first (timeline.cu's traced build).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <cub/device/device_reduce.cuh>

#ifndef CURED_PROBE  // a library from before the stage marks
#define CURED_PROBE(point, value) ((void)0)
#endif

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

// The read floor (cured-bench's enqueue_read): the library's 16-byte loads with the L2 policy of
// inputs up to a few L2 sizes, four in flight per thread, the last partial round issued at once;
// launched with 256 threads, a block per 16 KiB up to a wave. Marks entry (0), its loads' value
// (1) and its end (6).
__global__ void __launch_bounds__(256) read_kernel(const uint4* in, std::int64_t words, unsigned* sink) {
  CURED_PROBE(0, 0);
  const std::uint64_t l2 = cured::device::l2_policy(true);
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * threads < words; i += 4 * threads) {
    uint4 r[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) r[u] = cured::device::load_vector(in + i + u * threads, l2);
#pragma unroll
    for (int u = 0; u < 4; ++u) acc ^= r[u].x ^ r[u].y ^ r[u].z ^ r[u].w;
  }
  uint4 r[3];
#pragma unroll
  for (int u = 0; u < 3; ++u)
    r[u] = i + u * threads < words ? cured::device::load_vector(in + i + u * threads, l2) : uint4{0, 0, 0, 0};
#pragma unroll
  for (int u = 0; u < 3; ++u) acc ^= r[u].x ^ r[u].y ^ r[u].z ^ r[u].w;
  CURED_PROBE(1, acc);
  if (acc == 0x9e3779b9u) *sink = 1;  // almost never: keeps the loads
  CURED_PROBE(6, acc);
}

// `rr`: one block of B threads that loads like the floor (one round, four predicated 16-byte
// loads per thread), reduces with shuffles and shared memory and writes one float: a minimal
// one-block sum of up to 16 * B floats. Marks 0, 1, 2 (reduced) and 6 (written).
template <unsigned B>
__global__ void __launch_bounds__(B) rr_kernel(const float4* in, std::int64_t words, float* out) {
  CURED_PROBE(0, 0);
  const std::uint64_t l2 = cured::device::l2_policy(true);
  const int i = threadIdx.x;
  float acc = 0;
  float4 r[4];
#pragma unroll
  for (int u = 0; u < 4; ++u)
    r[u] = i + u * B < words ? cured::device::load_vector(in + i + u * B, l2) : float4{0, 0, 0, 0};
#pragma unroll
  for (int u = 0; u < 4; ++u) acc += (r[u].x + r[u].y) + (r[u].z + r[u].w);
  CURED_PROBE(1, acc);
  for (int o = 16; o; o /= 2) acc += __shfl_xor_sync(~0u, acc, o);
  __shared__ float w[B / 32];
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < B / 32 ? w[threadIdx.x] : 0.f;
    for (int o = 16; o; o /= 2) acc += __shfl_xor_sync(~0u, acc, o);
    CURED_PROBE(2, acc);
    if (threadIdx.x == 0) *out = acc;
    CURED_PROBE(6, acc);
  }
}

inline double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Cold timing: before each sample, `before` (untimed), a write of twice the L2 size, `warm`
// (untimed: code and state warm, data cold), then launch() between two events; after it,
// inspect() (the stream idle). Returns the median in us; pct() reads the last call's samples.
struct timer {
  cudaStream_t s{};
  void* flush = nullptr;
  std::size_t flush_bytes = 0;
  cudaEvent_t a{}, b{};
  int value = 0;
  int samples = 41;
  std::vector<double> last;  // the last call's samples, sorted

  explicit timer(const cudaDeviceProp& prop, int samples_ = 41) : samples(samples_) {
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    flush_bytes = 2 * std::size_t(prop.l2CacheSize);
    CK(cudaMalloc(&flush, flush_bytes));
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }

  double cold(const std::function<void()>& launch, const std::function<void()>& before = {},
              const std::function<void()>& inspect = {}, const std::function<void()>& warm = {}) {
    launch();
    CK(cudaStreamSynchronize(s));
    std::vector<double> v;
    for (int k = 0; k < samples; ++k) {
      if (before) before();
      value ^= 0x5a;
      CK(cudaMemsetAsync(flush, value, flush_bytes, s));
      if (warm) warm();
      CK(cudaEventRecord(a, s));
      launch();
      CK(cudaEventRecord(b, s));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      v.push_back(ms * 1e3);
      if (inspect) inspect();
    }
    std::sort(v.begin(), v.end());
    last = v;
    return v[v.size() / 2];
  }
  double warm_cold(const std::function<void()>& launch, const std::function<void()>& warm) {
    return cold(launch, {}, {}, warm);
  }
  double pct(int p) const { return last[std::min(last.size() - 1, last.size() * p / 100)]; }
};

// The probes' input: 2^22 floats of small integers (every partial sum exact in float) on the
// device, the exact sums of their first 2^k, a 4096-float output, a sink for the floor, and
// CUB's temporary storage for sums of up to 2^22 floats. check() compares out[0] with the sum
// of the first 2^lg and counts mismatches in `bad`.
struct float_input {
  static constexpr std::int64_t max_n = std::int64_t(1) << 22;
  float* in = nullptr;
  float* out = nullptr;
  unsigned* sink = nullptr;
  void* cub_temp = nullptr;
  std::size_t cub_bytes = 0;
  std::vector<double> prefix = std::vector<double>(23);
  int bad = 0;

  float_input() {
    CK(cudaMalloc(&in, max_n * 4));
    CK(cudaMalloc(&out, 4096 * 4));
    CK(cudaMalloc(&sink, 4));
    std::vector<float> h(max_n);
    for (std::int64_t i = 0; i < max_n; ++i) h[i] = float((i * 2654435761u >> 9) & 7);
    CK(cudaMemcpy(in, h.data(), max_n * 4, cudaMemcpyHostToDevice));
    double acc = 0;
    for (std::int64_t i = 0, next = 1, k = 0; i < max_n; ++i) {
      acc += h[i];
      if (i + 1 == next) prefix[k++] = acc, next *= 2;
    }
    CK(cub::DeviceReduce::Sum(nullptr, cub_bytes, in, out, max_n));
    CK(cudaMalloc(&cub_temp, cub_bytes));
  }
  void check(cudaStream_t s, const char* what, int lg) {
    float r;
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(&r, out, 4, cudaMemcpyDeviceToHost));
    if (double(r) != prefix[lg]) {
      std::printf("MISMATCH %s 2^%d: %g vs %g\n", what, lg, r, prefix[lg]);
      ++bad;
    }
  }
};
