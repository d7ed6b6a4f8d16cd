#pragma once
// The seeds' CPU column, done properly: a plain serial sum and a sum over every core.
// Both accumulate in the same type as the GPU implementations (float in float, int32 in
// int64 ...) so that the benchmark compares like with like; neither is exact (see
// reference.hpp for that).

#include <cstddef>
#include <cstdint>
#include <span>

namespace cured::cpu {

/// Below this many elements parallel_sum is serial_sum.
inline constexpr std::size_t parallel_min_elements = std::size_t{1} << 16;

float serial_sum(std::span<const float> x);
double serial_sum(std::span<const double> x);
std::int64_t serial_sum(std::span<const std::int32_t> x);
std::uint64_t serial_sum(std::span<const std::uint32_t> x);

/// Splits x into one contiguous chunk per thread (threads == 0: std::thread::hardware_concurrency),
/// sums each chunk serially, then adds the chunk sums in chunk order: deterministic for a given
/// thread count. With n elements and T = min(threads, n) threads, chunk k starts at
/// k * (n / T) + min(k, n % T). Inputs shorter than parallel_min_elements are summed serially.
float parallel_sum(std::span<const float> x, unsigned threads = 0);
double parallel_sum(std::span<const double> x, unsigned threads = 0);
std::int64_t parallel_sum(std::span<const std::int32_t> x, unsigned threads = 0);
std::uint64_t parallel_sum(std::span<const std::uint32_t> x, unsigned threads = 0);

}  // namespace cured::cpu
