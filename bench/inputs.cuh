#pragma once
// Inputs generated on the device from cured::random (element i is a function of the seed
// and i), with exact expected sums recomputed on the host in parallel: no multi-gigabyte
// copies, and a fresh seed per run.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cpu/random.hpp"
#include "cured/error.cuh"

namespace cured::bench {

/// A fresh seed for every run (reported, so that a failure can be replayed).
inline std::uint64_t fresh_seed() {
  std::random_device rd;
  return (std::uint64_t(rd()) << 32) ^ rd();
}

/// The "exact" input family: floating types (half and bfloat16 too) get nonzero integers in
/// [-8, 8], whose sums are exact in any order; integers up to 32 bits get uniform random words;
/// 64-bit integers get 40 random bits, so that sums of up to 2^23 of them cannot overflow.
template <class T>
CURED_HD T exact_value(std::uint64_t seed, std::uint64_t i) {
  if constexpr (std::is_integral_v<T> && sizeof(T) <= 4) {
    return T(random::word(seed, i));
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return T(std::int64_t(random::bits(seed, i)) >> 24);
  } else if constexpr (std::is_integral_v<T>) {
    return T(random::bits(seed, i) >> 24);
  } else {
    return T(float(random::small_int(seed, i)));
  }
}

/// The "real" input family for floating types: uniform in [0, 1) with 53 random bits.
template <class T>
CURED_HD T real_value(std::uint64_t seed, std::uint64_t i) {
  return T(random::unit(seed, i));
}

template <class T, bool Real>
__global__ void fill_kernel(T* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    if constexpr (Real) out[i] = real_value<T>(seed, i);
    else out[i] = exact_value<T>(seed, i);
  }
}

/// Writes the exact (or real) family into d_out[0, n) and waits for it.
template <class T, bool Real = false>
void fill_device(T* d_out, std::int64_t n, std::uint64_t seed) {
  if (n == 0) return;
  const std::int64_t blocks = std::min<std::int64_t>((n + 255) / 256, 65536);
  fill_kernel<T, Real><<<unsigned(blocks), 256>>>(d_out, n, seed);
  CURED_CHECK_LAUNCH();
  CURED_CHECK(cudaDeviceSynchronize());
}

/// f(begin, end) over [0, n) split across the host's cores; returns the per-chunk results in order.
template <class R, class F>
std::vector<R> parallel_chunks(std::int64_t n, F f) {
  const unsigned threads = n < (1 << 20) ? 1u : std::max(1u, std::thread::hardware_concurrency());
  std::vector<R> results(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    const std::int64_t b = n * t / threads, e = n * (t + 1) / threads;
    pool.emplace_back([&, t, b, e] { results[t] = f(b, e); });
  }
  for (auto& th : pool) th.join();
  return results;
}

/// An integer-valued element as a 128-bit integer (half and bfloat16 through float).
template <class T>
__int128 as_int128(const T& x) {
  if constexpr (std::is_integral_v<T>) return __int128(x);
  else return __int128(double(float(x)));
}

/// The exact sum of the exact family of T over [0, n), as a 128-bit integer.
template <class T>
__int128 exact_family_sum(std::int64_t n, std::uint64_t seed) {
  auto parts = parallel_chunks<__int128>(n, [&](std::int64_t b, std::int64_t e) {
    __int128 s = 0;
    for (std::int64_t i = b; i < e; ++i) s += as_int128(exact_value<T>(seed, std::uint64_t(i)));
    return s;
  });
  __int128 s = 0;
  for (auto p : parts) s += p;
  return s;
}

}  // namespace cured::bench
