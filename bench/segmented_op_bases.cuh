#pragma once
// What the op tables of axis and segmented workloads (bench/axis_ops.cuh, bench/segment_ops.cuh)
// share: per op, its name, its output types, its cub::DeviceSegmentedReduce call over begin
// offsets (each segment ends where the next begins: begin + 1) and its expected outputs from a
// CPU reference (axis_reference or segment_reference: sums() and extremes<Max>()). Each table's
// entry adds how cured computes the op and how CUB's output reads as cured's.

#include <cuda_runtime_api.h>

#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cured/cured.cuh"
#include "harness/inputs.cuh"

namespace cured::bench {

/// sum: accumulated and written in cured::accumulator_t<T> (int32 in int64, half in float).
struct sum_op_base {
  static constexpr std::string_view name = "sum";
  template <class T>
  using out = accumulator_t<T>;
  template <class T>
  using cub_out = accumulator_t<T>;
  template <class T, class Offsets>
  static cudaError_t cub(void* temp, std::size_t& bytes, const T* in, cub_out<T>* o, std::int64_t count, Offsets begin,
                         cudaStream_t s) {
    // Reduce with the accumulator named, as Sum would sum half in half; an empty segment gets 0.
    using acc = accumulator_t<T>;
    return cub::DeviceSegmentedReduce::Reduce(temp, bytes, in, o, count, begin, begin + 1, ::cuda::std::plus<acc>{},
                                              acc(0), s);
  }
  template <class T, class Reference>
  static std::vector<out<T>> expect(Reference& r) {
    return r.sums();
  }
};

/// exact_sum: each output correctly rounded, in cured::exact_result_t<T> (floating types only;
/// no CUB peer). The bench's inputs are small integers, so the reference sums are exact.
struct exact_op_base {
  static constexpr std::string_view name = "exact_sum";
  template <class T>
  static constexpr bool takes = harness::floating_input<T>;
  template <class T>
  using out = accumulator_t<T>;
  template <class T>
  using cub_out = accumulator_t<T>;
  template <class T, class Reference>
  static std::vector<out<T>> expect(Reference& r) {
    return r.sums();
  }
};

/// min (Max false) and max (Max true): the extreme element, in T.
template <bool Max>
struct extreme_op_base {
  static constexpr std::string_view name = Max ? "max" : "min";
  template <class T>
  using out = T;
  template <class T>
  using cub_out = T;
  template <class T, class Offsets>
  static cudaError_t cub(void* temp, std::size_t& bytes, const T* in, cub_out<T>* o, std::int64_t count, Offsets begin,
                         cudaStream_t s) {
    if constexpr (Max) return cub::DeviceSegmentedReduce::Max(temp, bytes, in, o, count, begin, begin + 1, s);
    else return cub::DeviceSegmentedReduce::Min(temp, bytes, in, o, count, begin, begin + 1, s);
  }
  template <class T, class Reference>
  static std::vector<out<T>> expect(Reference& r) {
    const auto& e = r.template extremes<Max>();
    std::vector<T> values(e.size());
    std::transform(e.begin(), e.end(), values.begin(), [](const auto& a) { return a.value; });
    return values;
  }
};

/// argmin (Max false) and argmax (Max true): the index of the first extreme element, as
/// cured::index_t. CUB writes a KeyValuePair per segment whose key is that index, as an int.
template <bool Max>
struct arg_op_base {
  static constexpr std::string_view name = Max ? "argmax" : "argmin";
  template <class T>
  using out = index_t;
  template <class T>
  using cub_out = cub::KeyValuePair<int, T>;
  template <class T, class Offsets>
  static cudaError_t cub(void* temp, std::size_t& bytes, const T* in, cub_out<T>* o, std::int64_t count, Offsets begin,
                         cudaStream_t s) {
    if constexpr (Max) return cub::DeviceSegmentedReduce::ArgMax(temp, bytes, in, o, count, begin, begin + 1, s);
    else return cub::DeviceSegmentedReduce::ArgMin(temp, bytes, in, o, count, begin, begin + 1, s);
  }
  template <class T, class Reference>
  static std::vector<out<T>> expect(Reference& r) {
    const auto& e = r.template extremes<Max>();
    std::vector<index_t> indices(e.size());
    std::transform(e.begin(), e.end(), indices.begin(), [](const auto& a) { return index_t(a.index); });
    return indices;
  }
};

}  // namespace cured::bench
