#include "bench/timing.cuh"

#include <cstdint>

#include "cured/detail/tuning.cuh"
#include "cured/thread/load.cuh"

namespace cured::bench {

device_info query_device(int ordinal) {
  device_info d;
  d.ordinal = ordinal;
  cudaDeviceProp prop{};
  CURED_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  d.name = prop.name;
  d.sm_count = prop.multiProcessorCount;
  d.l2_bytes = std::size_t(prop.l2CacheSize);
  d.global_bytes = prop.totalGlobalMem;
  int clock_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal) == cudaSuccess && clock_khz > 0)
    d.peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;  // double data rate
  (void)cudaGetLastError();
  return d;
}

l2_flusher::l2_flusher(const device_info& dev) : bytes_(std::max<std::size_t>(2 * dev.l2_bytes, 1 << 20)) {
  CURED_CHECK(cudaMalloc(&buffer_, bytes_));
}

l2_flusher::~l2_flusher() {
  if (buffer_) (void)cudaFree(buffer_);
}

void l2_flusher::flush(cudaStream_t stream) {
  value_ ^= 0x5a;  // different bytes each time: nothing can skip the write
  CURED_CHECK(cudaMemsetAsync(buffer_, value_, bytes_, stream));
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double noise_pct(const std::vector<double>& v) {
  if (v.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  double mean = 0;
  for (double x : v) mean += x;
  mean /= double(v.size());
  double squares = 0;
  for (double x : v) squares += (x - mean) * (x - mean);
  return mean > 0 ? 100 * std::sqrt(squares / double(v.size() - 1)) / mean : std::numeric_limits<double>::quiet_NaN();
}

event_pair::event_pair() {
  CURED_CHECK(cudaEventCreate(&start_));
  CURED_CHECK(cudaEventCreate(&stop_));
}

event_pair::~event_pair() {
  (void)cudaEventDestroy(start_);
  (void)cudaEventDestroy(stop_);
}

double event_pair::elapsed_ms() {
  CURED_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  CURED_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

namespace {

// The XOR of the 16-byte words in[first], in[first + threads], ... below `words`: the loads
// cannot be removed. They are the library's (cured::thread::load_vector, with its L2 policy for
// the input's size), four in flight per thread, the last partial round issued at once.
__device__ __forceinline__ unsigned xor_of_words(const uint4* in, std::int64_t words, std::int64_t first,
                                                 std::int64_t threads, std::uint64_t l2) {
  std::int64_t i = first;
  uint4 acc = {0, 0, 0, 0};
  const auto take = [&](const uint4& r) {
    acc.x ^= r.x;
    acc.y ^= r.y;
    acc.z ^= r.z;
    acc.w ^= r.w;
  };
  for (; i + 3 * threads < words; i += 4 * threads) {
    uint4 r[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) r[u] = cured::thread::load_vector(in + i + u * threads, l2);
#pragma unroll
    for (int u = 0; u < 4; ++u) take(r[u]);
  }
  uint4 r[3];
#pragma unroll
  for (int u = 0; u < 3; ++u)
    r[u] = i + u * threads < words ? cured::thread::load_vector(in + i + u * threads, l2) : uint4{0, 0, 0, 0};
#pragma unroll
  for (int u = 0; u < 3; ++u) take(r[u]);
  return acc.x ^ acc.y ^ acc.z ^ acc.w;
}

// Reads every 16-byte word once (xor_of_words).
__global__ void __launch_bounds__(256) read_kernel(const uint4* in, std::int64_t words, unsigned* sink, bool evict_first) {
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (xor_of_words(in, words, first, threads, cured::thread::l2_policy(evict_first)) == 0x9e3779b9u)
    *sink = 1;  // almost never true
}

/// An input range of read_write_kernel: its whole 16-byte words, and the bytes past them.
struct read_range {
  const uint4* in;
  std::int64_t words;
  int tail;
};

read_range range_of(const void* in, std::size_t bytes) {
  return {static_cast<const uint4*>(in), std::int64_t(bytes / 16), int(bytes % 16)};
}

// The XOR of the bytes of r past its whole words, each in its place within a 32-bit word.
__device__ __forceinline__ unsigned xor_of_tail(const read_range& r) {
  const auto* tail = reinterpret_cast<const unsigned char*>(r.in + r.words);
  unsigned x = 0;
  for (int k = 0; k < r.tail; ++k) x ^= unsigned(tail[k]) << (8 * (k % 4));
  return x;
}

// read_kernel's loads over `a` (and with Second, then over `b`), the bytes past the last whole
// word by one thread, then the output's 16-byte words written once each, grid-strided, the
// bytes past the last whole word by one thread: the bytes of a reduction along axes (or of a
// segmented one: the values, then the offsets) and nothing else.
template <bool Second>
__global__ void __launch_bounds__(256) read_write_kernel(read_range a, read_range b, uint4* out,
                                                         std::int64_t out_words, int out_tail, unsigned* sink,
                                                         bool evict_first) {
  const std::uint64_t l2 = cured::thread::l2_policy(evict_first);
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned x = xor_of_words(a.in, a.words, first, threads, l2);
  if constexpr (Second) x ^= xor_of_words(b.in, b.words, first, threads, l2);
  if (first == 0) {
    x ^= xor_of_tail(a);
    if constexpr (Second) x ^= xor_of_tail(b);
  }
  for (std::int64_t j = first; j < out_words; j += threads) {
    const unsigned v = unsigned(j);
    out[j] = uint4{v, v ^ 1u, v ^ 2u, v ^ 3u};
  }
  if (first == 0) {
    auto* tail = reinterpret_cast<unsigned char*>(out + out_words);
    for (int k = 0; k < out_tail; ++k) tail[k] = static_cast<unsigned char>(k);
  }
  if (x == 0x9e3779b9u) *sink = 1;  // almost never true
}

template <bool Second>
void launch_read_write(read_range a, read_range b, void* out, std::size_t out_bytes, unsigned* sink,
                       const device_info& dev, cudaStream_t stream) {
  static const int blocks_per_sm = [] {
    int n = 0;
    CURED_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, read_write_kernel<Second>, 256, 0));
    return std::max(n, 1);
  }();
  const std::int64_t words = a.words + b.words, out_words = std::int64_t(out_bytes / 16);
  const std::int64_t per_block = 256 * 4;
  const std::int64_t wanted = (std::max(words, out_words) + per_block - 1) / per_block;
  const std::int64_t grid =
      std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, std::int64_t(blocks_per_sm) * dev.sm_count));
  const std::size_t in_bytes = std::size_t(words) * 16 + std::size_t(a.tail + b.tail);
  const bool evict_first = in_bytes <= std::size_t(cured::detail::load_policy::stream_first_limit) * dev.l2_bytes;
  read_write_kernel<Second><<<unsigned(grid), 256, 0, stream>>>(a, b, static_cast<uint4*>(out), out_words,
                                                                int(out_bytes % 16), sink, evict_first);
  CURED_CHECK_LAUNCH();
}

}  // namespace

void enqueue_read_write(const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes, unsigned* sink,
                        const device_info& dev, cudaStream_t stream) {
  launch_read_write<false>(range_of(in, in_bytes), range_of(nullptr, 0), out, out_bytes, sink, dev, stream);
}

void enqueue_read_write(const void* in, std::size_t in_bytes, const void* in2, std::size_t in2_bytes, void* out,
                        std::size_t out_bytes, unsigned* sink, const device_info& dev, cudaStream_t stream) {
  launch_read_write<true>(range_of(in, in_bytes), range_of(in2, in2_bytes), out, out_bytes, sink, dev, stream);
}

void enqueue_read(const void* in, std::size_t bytes, unsigned* sink, const device_info& dev, cudaStream_t stream) {
  static const int blocks_per_sm = [] {
    int b = 0;
    CURED_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, read_kernel, 256, 0));
    return std::max(b, 1);
  }();
  const std::int64_t words = std::int64_t(bytes / 16), per_block = 256 * 4;
  const std::int64_t grid =
      std::max<std::int64_t>(1, std::min<std::int64_t>((words + per_block - 1) / per_block,
                                                       std::int64_t(blocks_per_sm) * dev.sm_count));
  const bool evict_first = bytes <= std::size_t(cured::detail::load_policy::stream_first_limit) * dev.l2_bytes;
  read_kernel<<<unsigned(grid), 256, 0, stream>>>(static_cast<const uint4*>(in), words, sink, evict_first);
  CURED_CHECK_LAUNCH();
}

double measure_read_ceiling(const device_info& dev, l2_flusher& flusher, cudaStream_t stream, int samples) {
  // As large as the largest default input (4 GiB), so that launch and tail costs weigh no
  // more in the ceiling than in the reductions measured against it; smaller when memory is short.
  std::size_t free_b = 0, total_b = 0;
  CURED_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const std::size_t bytes =
      std::max<std::size_t>(std::min<std::size_t>(std::size_t(4) << 30, free_b / 4), 8 * dev.l2_bytes);
  void* buf = nullptr;
  unsigned* sink = nullptr;
  CURED_CHECK(cudaMalloc(&buf, bytes));
  CURED_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  CURED_CHECK(cudaMemsetAsync(buf, 0x3c, bytes, stream));
  timing_plan plan;
  plan.hot = false;
  plan.samples = samples;
  const timing t = time_async([&](cudaStream_t s) { enqueue_read(buf, bytes, sink, dev, s); }, plan, flusher, stream);
  CURED_CHECK(cudaFree(buf));
  CURED_CHECK(cudaFree(sink));
  return double(bytes) / (t.cold_ms * 1e-3) / 1e9;
}

}  // namespace cured::bench
