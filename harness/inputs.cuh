#pragma once
// Inputs generated on the device from cured::random (element i is a function of the seed
// and i): no multi-gigabyte copies, a fresh seed per run, and any element recomputable on the
// host (exact_answers.cuh recomputes the exact family's answers that way).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cpu/random.hpp"
#include "cured/types/error.cuh"
#include "harness/data_family.hpp"

namespace cured::harness {

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

/// The floating types with normal and spread families (and exact sums).
template <class T>
inline constexpr bool floating_input = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                       std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

/// The "normal" input family: N(0, 1) by Box-Muller from two independent unit draws, computed
/// in double and rounded once to T. log and cos differ by an ulp between CUDA and the host's
/// libm, so the host recomputes the same values only approximately: exact references are
/// computed from the device's values (copied back), never from this function on the host.
template <class T>
CURED_HD T normal_value(std::uint64_t seed, std::uint64_t i) {
  const double u1 = 1.0 - random::unit(seed, i);                       // (0, 1]: log is finite
  const double u2 = random::unit(seed ^ 0x6e6f726d616c2d32ull, i);  // another stream
  const double r = ::sqrt(-2.0 * ::log(u1));
  return T(r * ::cos(6.283185307179586 * u2));
}

/// The bit layout of a floating type, and the largest biased exponent of the spread family:
/// emax - 34 for float and emax - 40 for double (every element below 2^94 and 2^984, so sums of
/// up to 2^34 floats and 2^40 doubles stay finite); half's whole finite range (its sums
/// accumulate in float).
template <class T>
struct spread_format;
template <>
struct spread_format<float> {
  using bits = std::uint32_t;
  static constexpr int mantissa_bits = 23;
  static constexpr unsigned max_biased = 127 - 34 + 127;  // 220: 2^93 .. 2^94
};
template <>
struct spread_format<double> {
  using bits = std::uint64_t;
  static constexpr int mantissa_bits = 52;
  static constexpr unsigned max_biased = 1023 - 40 + 1023;  // 2006: 2^983 .. 2^984
};
template <>
struct spread_format<__half> {
  using bits = std::uint16_t;
  static constexpr int mantissa_bits = 10;
  static constexpr unsigned max_biased = 30;  // every finite half
};
template <>
struct spread_format<__nv_bfloat16> {
  using bits = std::uint16_t;
  static constexpr int mantissa_bits = 7;
  static constexpr unsigned max_biased = 127 - 34 + 127;  // as float: its sums accumulate in float
};

/// T from its bits.
template <class T>
CURED_HD T from_bits(typename spread_format<T>::bits raw) {
  if constexpr (std::is_same_v<T, __half>) {
    __half_raw r;
    r.x = raw;
    return T(r);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    __nv_bfloat16_raw r;
    r.x = raw;
    return T(r);
  } else {
    T v;
    std::memcpy(&v, &raw, sizeof v);
    return v;
  }
}

/// The "spread" input family: random sign, random mantissa, biased exponent uniform over
/// 0 .. spread_format<T>::max_biased (0: subnormals and zeros). Integer operations only, so
/// the host and the device agree bit for bit.
template <class T>
CURED_HD T spread_value(std::uint64_t seed, std::uint64_t i) {
  using F = spread_format<T>;
  using B = typename F::bits;
  const std::uint64_t b = random::bits(seed, i);
  const std::uint64_t e = (std::uint64_t(random::word(seed ^ 0x7370726561642d65ull, i)) * (F::max_biased + 1)) >> 32;
  const B mantissa = B(b & ((std::uint64_t(1) << F::mantissa_bits) - 1));
  const B sign = B(B(b >> 63) << (8 * sizeof(B) - 1));
  return from_bits<T>(B(sign | B(B(e) << F::mantissa_bits) | mantissa));
}

/// The "cancel" input family: uniform in [-1, 1), 53 random bits rounded once to T.
template <class T>
CURED_HD T cancel_value(std::uint64_t seed, std::uint64_t i) {
  return T(2.0 * random::unit(seed, i) - 1.0);
}

/// The "boundary" input family: 1, then 2^-24 (half an ulp of 1 in float, the result type of
/// float, half and bfloat16 exact sums) or 2^-53 (double), then pairs v, -v of N(0, 1) values.
/// For even n the exact sum is 1 plus half an ulp: a tie, which rounds to 1.
template <class T>
CURED_HD T boundary_value(std::uint64_t seed, std::uint64_t i) {
  if (i == 0) return T(1.0f);
  if (i == 1) return T(std::is_same_v<T, double> ? 0x1p-53 : 0x1p-24);
  const T v = normal_value<T>(seed, (i - 2) / 2);
  return (i % 2 == 0) ? v : T(-v);
}

/// The "subnormal" input family: random sign and significand, biased exponent 0.
template <class T>
CURED_HD T subnormal_value(std::uint64_t seed, std::uint64_t i) {
  using F = spread_format<T>;
  using B = typename F::bits;
  const std::uint64_t b = random::bits(seed, i);
  const B mantissa = B(b & ((std::uint64_t(1) << F::mantissa_bits) - 1));
  return from_bits<T>(B(B(B(b >> 63) << (8 * sizeof(B) - 1)) | mantissa));
}

/// Element i of family `f` (integer types have the exact family only).
template <class T>
CURED_HD T family_value(data_family f, std::uint64_t seed, std::uint64_t i) {
  if constexpr (floating_input<T>) {
    switch (f) {
      case data_family::normal: return normal_value<T>(seed, i);
      case data_family::spread: return spread_value<T>(seed, i);
      case data_family::cancel: return cancel_value<T>(seed, i);
      case data_family::boundary: return boundary_value<T>(seed, i);
      case data_family::subnormal: return subnormal_value<T>(seed, i);
      case data_family::exact: break;
    }
  }
  return exact_value<T>(seed, i);
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

template <class T>
__global__ void fill_family_kernel(T* out, std::int64_t n, std::uint64_t seed, data_family f) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = family_value<T>(f, seed, std::uint64_t(i));
}

/// Writes family `f` into d_out[0, n) and waits for it.
template <class T>
void fill_device_family(T* d_out, std::int64_t n, std::uint64_t seed, data_family f) {
  if (n == 0) return;
  const std::int64_t blocks = std::min<std::int64_t>((n + 255) / 256, 65536);
  fill_family_kernel<T><<<unsigned(blocks), 256>>>(d_out, n, seed, f);
  CURED_CHECK_LAUNCH();
  CURED_CHECK(cudaDeviceSynchronize());
}

}  // namespace cured::harness
