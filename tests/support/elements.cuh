#pragma once
// The element types of the library tests (float, double, integers, __half, __nv_bfloat16) as the
// references see them: through double, and compared bit for bit.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <type_traits>

namespace cured::test {

template <class T>
constexpr bool is_half = std::is_same_v<T, __half>;

template <class T>
double to_double(const T& x) {
  if constexpr (is_half<T>) return double(__half2float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return double(__bfloat162float(x));
  else return double(x);
}

template <class T>
T from_double(double x) {
  if constexpr (is_half<T>) return __float2half_rn(float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(float(x));
  else return T(x);
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace cured::test
