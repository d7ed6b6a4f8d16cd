#pragma once
// The op table of axis workloads: one entry per op of axis_op_names_in_order, saying the
// output's element type, how cured and cub::DeviceSegmentedReduce compute it, and its expected
// outputs from the CPU reference. An entry without `cub` has no CUB peer; one with `takes<T>`
// false has no rows for T. Adding an op is adding one entry here and its name to op_names.hpp.

#include <cuda_runtime_api.h>

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "bench/axis_reference.cuh"
#include "bench/op_names.hpp"
#include "bench/outputs.cuh"
#include "cured/axes.cuh"
#include "cured/cured.cuh"
#include "harness/inputs.cuh"

namespace cured::bench {

/// Row i's first element, i * length: CUB's begin offsets (row i's end is row i + 1's begin).
struct row_start {
  std::int64_t length;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i * length; }
};
using row_offsets = thrust::transform_iterator<row_start, thrust::counting_iterator<std::int64_t>>;

inline row_offsets row_offsets_of(std::int64_t length) {
  return row_offsets(thrust::counting_iterator<std::int64_t>(0), row_start{length});
}

/// sum: accumulated and written in cured::accumulator_t<T> (int32 in int64, half in float).
struct axis_sum_op {
  static constexpr std::string_view name = "sum";
  template <class T>
  using out = accumulator_t<T>;
  template <class T>
  using cub_out = accumulator_t<T>;
  template <class T>
  static void cured(const strided_view<const T>& in, const axes& along, const strided_view<out<T>>& o, workspace& ws,
                    cudaStream_t s) {
    cured::sum_async(in, along, o, ws, s);
  }
  template <class T>
  static cudaError_t cub(void* temp, std::size_t& bytes, const T* in, cub_out<T>* o, std::int64_t rows,
                         row_offsets begin, cudaStream_t s) {
    // Reduce with the accumulator named, as Sum would sum half in half.
    using acc = accumulator_t<T>;
    return cub::DeviceSegmentedReduce::Reduce(temp, bytes, in, o, rows, begin, begin + 1, ::cuda::std::plus<acc>{},
                                              acc(0), s);
  }
  template <class T>
  static out<T> from_cub(const cub_out<T>& x) {
    return x;
  }
  template <class T>
  static std::vector<out<T>> expect(axis_reference<T>& r) {
    return r.sums();
  }
};

/// exact_sum: each output correctly rounded, in cured::exact_result_t<T> (floating types only;
/// no CUB peer). The bench's inputs are small integers, so the reference sums are exact.
struct axis_exact_op {
  static constexpr std::string_view name = "exact_sum";
  template <class T>
  static constexpr bool takes = harness::floating_input<T>;
  template <class T>
  using out = accumulator_t<T>;
  template <class T>
  using cub_out = accumulator_t<T>;
  template <class T>
  static void cured(const strided_view<const T>& in, const axes& along, const strided_view<out<T>>& o, workspace& ws,
                    cudaStream_t s) {
    if constexpr (takes<T>) {
      static_assert(std::is_same_v<exact_result_t<T>, out<T>>);
      cured::exact_sum_async(in, along, o, ws, s);
    }
  }
  template <class T>
  static std::vector<out<T>> expect(axis_reference<T>& r) {
    return r.sums();
  }
};

/// min (Max false) and max (Max true): the extreme element, in T.
template <bool Max>
struct axis_extreme_op {
  static constexpr std::string_view name = Max ? "max" : "min";
  template <class T>
  using out = T;
  template <class T>
  using cub_out = T;
  template <class T>
  static void cured(const strided_view<const T>& in, const axes& along, const strided_view<out<T>>& o, workspace& ws,
                    cudaStream_t s) {
    if constexpr (Max) cured::max_async(in, along, o, ws, s);
    else cured::min_async(in, along, o, ws, s);
  }
  template <class T>
  static cudaError_t cub(void* temp, std::size_t& bytes, const T* in, cub_out<T>* o, std::int64_t rows,
                         row_offsets begin, cudaStream_t s) {
    if constexpr (Max) return cub::DeviceSegmentedReduce::Max(temp, bytes, in, o, rows, begin, begin + 1, s);
    else return cub::DeviceSegmentedReduce::Min(temp, bytes, in, o, rows, begin, begin + 1, s);
  }
  template <class T>
  static out<T> from_cub(const cub_out<T>& x) {
    return x;
  }
  template <class T>
  static std::vector<out<T>> expect(axis_reference<T>& r) {
    const auto& e = r.template extremes<Max>();
    std::vector<T> values(e.size());
    std::transform(e.begin(), e.end(), values.begin(), [](const auto& a) { return a.value; });
    return values;
  }
};

/// argmin (Max false) and argmax (Max true): the flat index over the reduced axes of the first
/// extreme element, as cured::index_t. CUB writes a KeyValuePair per row, whose key is the
/// offset in the row: the same index, as the rows are the reduced axes.
template <bool Max>
struct axis_arg_op {
  static constexpr std::string_view name = Max ? "argmax" : "argmin";
  template <class T>
  using out = index_t;
  template <class T>
  using cub_out = cub::KeyValuePair<int, T>;
  template <class T>
  static void cured(const strided_view<const T>& in, const axes& along, const strided_view<out<T>>& o, workspace& ws,
                    cudaStream_t s) {
    if constexpr (Max) cured::argmax_async(in, along, o, ws, s);
    else cured::argmin_async(in, along, o, ws, s);
  }
  template <class T>
  static cudaError_t cub(void* temp, std::size_t& bytes, const T* in, cub_out<T>* o, std::int64_t rows,
                         row_offsets begin, cudaStream_t s) {
    if constexpr (Max) return cub::DeviceSegmentedReduce::ArgMax(temp, bytes, in, o, rows, begin, begin + 1, s);
    else return cub::DeviceSegmentedReduce::ArgMin(temp, bytes, in, o, rows, begin, begin + 1, s);
  }
  template <class T>
  static out<T> from_cub(const cub_out<T>& x) {
    return index_t(x.key);
  }
  template <class T>
  static std::vector<out<T>> expect(axis_reference<T>& r) {
    const auto& e = r.template extremes<Max>();
    std::vector<index_t> indices(e.size());
    std::transform(e.begin(), e.end(), indices.begin(), [](const auto& a) { return index_t(a.index); });
    return indices;
  }
};

/// The table, in the order of axis_op_names_in_order.
using axis_op_entries = std::tuple<axis_sum_op, axis_exact_op, axis_extreme_op<false>, axis_extreme_op<true>, axis_arg_op<false>,
                                   axis_arg_op<true>>;

static_assert(ops_named_in_order(std::type_identity<axis_op_entries>{}, axis_op_names_in_order),
              "axis_op_entries and axis_op_names_in_order disagree");

/// Calls f(std::type_identity<E>{}) for the entry E of axis_op_entries named `name`; false
/// when none is.
template <class F>
bool with_axis_op(std::string_view name, F&& f) {
  return with_op<axis_op_entries>(name, f);
}

}  // namespace cured::bench
