#pragma once
// Accumulator-type traits: the type a sum of T is carried in, and the type its exact sum is
// rounded to.
//
//   cured::accumulator_t<std::int32_t>   // std::int64_t: 2^32 int32 values cannot overflow it
//   cured::accumulator_t<__half>         // float
//   cured::exact_result_t<__half>        // float: cured::exact_sum's result
//
// Signed integers accumulate in int64, unsigned in uint64, half and bfloat16 in float,
// float and double in themselves. Users override by specializing cured::accumulator<T>
// for their own types, or by passing an explicit accumulator type to the reductions.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace cured {

template <class T, class Enable = void>
struct accumulator {
  using type = T;  // user types accumulate in themselves unless specialized
};

template <class T>
struct accumulator<T, std::enable_if_t<std::is_integral_v<T> && std::is_signed_v<T>>> {
  using type = std::int64_t;
};

template <class T>
struct accumulator<T, std::enable_if_t<std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>>> {
  using type = std::uint64_t;
};

template <>
struct accumulator<bool> {
  using type = std::uint64_t;  // a sum of bools counts the true values
};

template <>
struct accumulator<__half> {
  using type = float;
};

template <>
struct accumulator<__nv_bfloat16> {
  using type = float;
};

template <class T>
using accumulator_t = typename accumulator<T>::type;

/// The type exact_sum returns for inputs of type T: double for double, float otherwise.
template <class T>
struct exact_result {
  static_assert(sizeof(T) == 0, "cured::exact_sum takes float, double, __half or __nv_bfloat16");
};
template <>
struct exact_result<float> {
  using type = float;
};
template <>
struct exact_result<double> {
  using type = double;
};
template <>
struct exact_result<__half> {
  using type = float;
};
template <>
struct exact_result<__nv_bfloat16> {
  using type = float;
};
template <class T>
using exact_result_t = typename exact_result<T>::type;

}  // namespace cured
