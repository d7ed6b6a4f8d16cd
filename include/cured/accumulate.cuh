#pragma once
// Accumulator-type traits: the type a sum of T is carried in.
//
//   cured::accumulator_t<std::int32_t>   // std::int64_t: 2^32 int32 values cannot overflow it
//   cured::accumulator_t<__half>         // float
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

}  // namespace cured
