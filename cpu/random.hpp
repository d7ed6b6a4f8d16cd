#pragma once
// Counter-based random inputs: element i of a stream is a pure function of (seed, i), so the
// host and the device generate the same array without copying it, and any element can be
// recomputed on its own. Never all zeros.

#include <cstdint>

#if defined(__CUDACC__)
#define CURED_HD __host__ __device__
#else
#define CURED_HD
#endif

namespace cured::random {

/// SplitMix64 finalizer: a bijection on 64-bit words with good avalanche.
CURED_HD constexpr std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

CURED_HD constexpr std::uint64_t bits(std::uint64_t seed, std::uint64_t i) {
  return mix(mix(seed) ^ (i * 0xd1342543de82ef95ull));
}

/// A nonzero integer in [-8, 8] \ {0}: sums of such values are exact in float and double
/// (in any order) as long as every partial sum stays below 2^24, which random signs ensure.
CURED_HD constexpr int small_int(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t b = bits(seed, i);
  const int magnitude = static_cast<int>(b & 7u) + 1;
  return (b & 8u) ? -magnitude : magnitude;
}

/// A double uniform in [0, 1) with 53 random bits.
CURED_HD constexpr double unit(std::uint64_t seed, std::uint64_t i) {
  return static_cast<double>(bits(seed, i) >> 11) * 0x1.0p-53;
}

/// A uniform 32-bit word.
CURED_HD constexpr std::uint32_t word(std::uint64_t seed, std::uint64_t i) {
  return static_cast<std::uint32_t>(bits(seed, i) >> 32);
}

}  // namespace cured::random
