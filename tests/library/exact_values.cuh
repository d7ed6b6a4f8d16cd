#pragma once
// The exact sums' and dot products' GPU tests share these: the formats bit by bit, special
// values, exact conversions, bitwise comparison of results and the CPU references.

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/reference.hpp"
#include "cured/cured.cuh"
#include "tests/support/gpu.cuh"

namespace cured::test::exact_values {

using cured::exact_result_t;
using cured::test::device_buffer;

// ---- the formats, bit by bit ---------------------------------------------------------------

template <class T>
struct fmt;
template <>
struct fmt<float> {
  using U = std::uint32_t;
  static constexpr int mant = 23, exp_max = 254;  // exp_max: the largest finite biased exponent
};
template <>
struct fmt<double> {
  using U = std::uint64_t;
  static constexpr int mant = 52, exp_max = 2046;
};
template <>
struct fmt<__half> {
  using U = std::uint16_t;
  static constexpr int mant = 10, exp_max = 30;
};
template <>
struct fmt<__nv_bfloat16> {
  using U = std::uint16_t;
  static constexpr int mant = 7, exp_max = 254;
};

template <class T>
constexpr bool is_narrow = sizeof(T) == 2;  // half, bfloat16
template <class T>
constexpr int bias = (fmt<T>::exp_max + 1) / 2;
template <class T>
constexpr std::uint64_t sign_bit = std::uint64_t(1) << (8 * sizeof(T) - 1);
template <class T>
constexpr std::uint64_t mant_mask = (std::uint64_t(1) << fmt<T>::mant) - 1;

template <class T>
T from_bits(std::uint64_t b) {
  const auto u = static_cast<typename fmt<T>::U>(b);
  T t;
  std::memcpy(static_cast<void*>(&t), &u, sizeof t);
  return t;
}
template <class T>
std::uint64_t to_bits(T x) {
  typename fmt<T>::U u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

/// The exact value of x (independent of the CUDA headers' conversions for half and bfloat16).
template <class T>
double widen(T x) {
  if constexpr (!is_narrow<T>) {
    return double(x);
  } else {
    const std::uint64_t b = to_bits(x);
    const int biased = int(b >> fmt<T>::mant) & (fmt<T>::exp_max + 1);  // the exponent field
    const std::uint64_t m = b & mant_mask<T>;
    double v;
    if (biased == fmt<T>::exp_max + 1) v = m ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
    else if (biased == 0) v = std::ldexp(double(m), 1 - bias<T> - fmt<T>::mant);
    else v = std::ldexp(double(m | (mant_mask<T> + 1)), biased - bias<T> - fmt<T>::mant);
    return (b & sign_bit<T>) ? -v : v;
  }
}

template <class T>
__host__ __device__ T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(float(x));
  else return T(x);
}

/// x as a T; x must be representable (checked).
template <class T>
T make(double x) {
  const T t = from_double<T>(x);
  if (!std::isnan(x) && widen(t) != x) ADD_FAILURE() << std::hexfloat << x << " is not representable in the type";
  return t;
}

template <class T>
T neg(T x) {
  return from_bits<T>(to_bits(x) ^ sign_bit<T>);
}
template <class T>
T tiny() {
  return from_bits<T>(1);
}
template <class T>
T min_normal() {
  return from_bits<T>(mant_mask<T> + 1);
}
template <class T>
T max_finite() {
  return from_bits<T>((std::uint64_t(fmt<T>::exp_max) << fmt<T>::mant) | mant_mask<T>);
}
template <class T>
T inf() {
  return from_bits<T>(std::uint64_t(fmt<T>::exp_max + 1) << fmt<T>::mant);
}
template <class T>
T nan() {
  return from_bits<T>((std::uint64_t(fmt<T>::exp_max + 1) << fmt<T>::mant) | (std::uint64_t(1) << (fmt<T>::mant - 1)));
}
template <class T>
T snan() {  // signalling: only the lowest mantissa bit
  return from_bits<T>((std::uint64_t(fmt<T>::exp_max + 1) << fmt<T>::mant) | 1);
}
template <class T>
T neg_zero() {
  return from_bits<T>(sign_bit<T>);
}
template <class T>
bool is_nan(T x) {
  return std::isnan(widen(x));
}

/// Random sign (unless positive), biased exponent in [e_lo, e_hi] (0: subnormal), random mantissa.
template <class T>
T random_value(std::mt19937_64& g, int e_lo, int e_hi, bool positive = false) {
  const std::uint64_t e = std::uint64_t(e_lo) + g() % std::uint64_t(e_hi - e_lo + 1);
  const std::uint64_t s = positive ? 0 : (g() & 1) * sign_bit<T>;
  return from_bits<T>(s | (e << fmt<T>::mant) | (g() & mant_mask<T>));
}
/// Biased exponents "from the smallest subnormal to near the largest": sums of 3e7 cannot overflow.
template <class T>
constexpr int full_hi = std::is_same_v<T, __half> ? fmt<T>::exp_max : fmt<T>::exp_max - 16;

// ---- results and references ----------------------------------------------------------------

template <class R>
std::string hex(R x) {
  std::ostringstream o;
  o << std::hexfloat << x << " (0x" << std::hex << to_bits(x) << ")";
  return o.str();
}

/// Same bits; any NaN matches a NaN.
template <class R>
::testing::AssertionResult same_result(R got, R want) {
  if (std::isnan(want) ? std::isnan(got) : std::memcmp(&got, &want, sizeof(R)) == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << hex(got) << " want " << hex(want);
}

template <class T>
exact_result_t<T> reference(std::span<const T> x) {
  if constexpr (!is_narrow<T>) {
    return cured::cpu::exact_sum(x);
  } else {
    std::vector<float> f(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) f[i] = float(widen(x[i]));  // exact
    return cured::cpu::exact_sum(std::span<const float>(f));
  }
}
template <class T>
exact_result_t<T> reference(const std::vector<T>& x) {
  return reference(std::span<const T>(x));
}

template <class T>
device_buffer<T> upload(const std::vector<T>& h) {
  device_buffer<T> d(h.size());
  if (!h.empty()) CURED_CHECK(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

inline bool fits(std::int64_t n) { return n <= cured::test::max_test_n(); }

/// The exact dot product's CPU reference (products of halves and bfloat16s through float:
/// every such value is a float).
template <class T>
exact_result_t<T> dot_reference(std::span<const T> x, std::span<const T> y) {
  if constexpr (!is_narrow<T>) {
    return cured::cpu::exact_dot(x, y);
  } else {
    std::vector<float> fx(x.size()), fy(y.size());
    for (std::size_t i = 0; i < x.size(); ++i) fx[i] = float(widen(x[i]));
    for (std::size_t i = 0; i < y.size(); ++i) fy[i] = float(widen(y[i]));
    return cured::cpu::exact_dot(std::span<const float>(fx), std::span<const float>(fy));
  }
}

}  // namespace cured::test::exact_values
