#pragma once
// The op table of segmented workloads: one entry per op of segment_op_names_in_order, saying
// the output's element type, how cured and cub::DeviceSegmentedReduce compute it over int64
// offsets, and its expected outputs from the CPU reference. An entry without `cub` has no CUB
// peer; one with `takes<T>` false has no rows for T; `cub_max_n`, where an entry has it, is the
// largest input CUB's form takes. Adding an op is adding one entry here and its name to
// op_names.hpp.
//
// CUB writes its own results for empty segments, which differ from cured's where cured's
// contract says otherwise: ArgMin and ArgMax write {1, numeric_limits max or lowest} where
// cured writes -1, and Min and Max numeric_limits max or lowest where cured writes the
// operator's identity (+inf and -inf for floating types). from_cub reads exactly those
// documented results of an empty segment as cured's, so that the check compares like for like;
// anything else CUB writes there is compared as written.

#include <cuda_runtime_api.h>

#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/limits>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "bench/answer.cuh"
#include "bench/op_names.hpp"
#include "bench/outputs.cuh"
#include "bench/segment_reference.cuh"
#include "cured/cured.cuh"
#include "harness/inputs.cuh"

namespace cured::bench {

/// sum: accumulated and written in cured::accumulator_t<T> (int32 in int64, half in float).
struct segment_sum_op {
  static constexpr std::string_view name = "sum";
  template <class T>
  using out = accumulator_t<T>;
  template <class T>
  using cub_out = accumulator_t<T>;
  template <class T>
  static void cured(const T* in, std::int64_t n, const segments& seg, out<T>* o, workspace& ws, cudaStream_t s) {
    cured::sum_async(in, n, seg, o, ws, s);
  }
  template <class T>
  static cudaError_t cub(void* temp, std::size_t& bytes, const T* in, cub_out<T>* o, std::int64_t count,
                         const std::int64_t* offsets, cudaStream_t s) {
    // Reduce with the accumulator named, as Sum would sum half in half; an empty segment gets 0.
    using acc = accumulator_t<T>;
    return cub::DeviceSegmentedReduce::Reduce(temp, bytes, in, o, count, offsets, offsets + 1, ::cuda::std::plus<acc>{},
                                              acc(0), s);
  }
  template <class T>
  static out<T> from_cub(const cub_out<T>& x, std::int64_t) {
    return x;
  }
  template <class T>
  static std::vector<out<T>> expect(segment_reference<T>& r) {
    return r.sums();
  }
};

/// exact_sum: each segment's sum correctly rounded, in cured::exact_result_t<T> (floating types
/// only; no CUB peer). The bench's inputs are small integers, so the reference sums are exact.
struct segment_exact_op {
  static constexpr std::string_view name = "exact_sum";
  template <class T>
  static constexpr bool takes = harness::floating_input<T>;
  template <class T>
  using out = accumulator_t<T>;
  template <class T>
  using cub_out = accumulator_t<T>;
  template <class T>
  static void cured(const T* in, std::int64_t n, const segments& seg, out<T>* o, workspace& ws, cudaStream_t s) {
    if constexpr (takes<T>) {
      static_assert(std::is_same_v<exact_result_t<T>, out<T>>);
      cured::exact_sum_async(in, n, seg, o, ws, s);
    }
  }
  template <class T>
  static std::vector<out<T>> expect(segment_reference<T>& r) {
    return r.sums();
  }
};

/// min (Max false) and max (Max true): the extreme element, in T; an empty segment's is the
/// operator's identity.
template <bool Max>
struct segment_extreme_op {
  static constexpr std::string_view name = Max ? "max" : "min";
  template <class T>
  using out = T;
  template <class T>
  using cub_out = T;
  template <class T>
  static void cured(const T* in, std::int64_t n, const segments& seg, out<T>* o, workspace& ws, cudaStream_t s) {
    if constexpr (Max) cured::max_async(in, n, seg, o, ws, s);
    else cured::min_async(in, n, seg, o, ws, s);
  }
  template <class T>
  static cudaError_t cub(void* temp, std::size_t& bytes, const T* in, cub_out<T>* o, std::int64_t count,
                         const std::int64_t* offsets, cudaStream_t s) {
    if constexpr (Max) return cub::DeviceSegmentedReduce::Max(temp, bytes, in, o, count, offsets, offsets + 1, s);
    else return cub::DeviceSegmentedReduce::Min(temp, bytes, in, o, count, offsets, offsets + 1, s);
  }
  /// What CUB writes to an empty segment (its initial value).
  template <class T>
  static T cub_empty() {
    if constexpr (Max) return ::cuda::std::numeric_limits<T>::lowest();
    else return ::cuda::std::numeric_limits<T>::max();
  }
  template <class T>
  static out<T> from_cub(const cub_out<T>& x, std::int64_t length) {
    if (length == 0 && same_bits(x, cub_empty<T>())) return Max ? maximum::identity<T>() : minimum::identity<T>();
    return x;
  }
  template <class T>
  static std::vector<out<T>> expect(segment_reference<T>& r) {
    const auto& e = r.template extremes<Max>();
    std::vector<T> values(e.size());
    std::transform(e.begin(), e.end(), values.begin(), [](const auto& a) { return a.value; });
    return values;
  }
};

/// argmin (Max false) and argmax (Max true): the index within the segment of the first extreme
/// element, as cured::index_t; -1 for an empty segment. CUB writes a KeyValuePair per segment
/// whose key is that index, as an int counted from the start of the values: its form takes
/// inputs of up to 2^31 - 1 elements.
template <bool Max>
struct segment_arg_op {
  static constexpr std::string_view name = Max ? "argmax" : "argmin";
  static constexpr std::int64_t cub_max_n = std::numeric_limits<int>::max();
  template <class T>
  using out = index_t;
  template <class T>
  using cub_out = cub::KeyValuePair<int, T>;
  template <class T>
  static void cured(const T* in, std::int64_t n, const segments& seg, out<T>* o, workspace& ws, cudaStream_t s) {
    if constexpr (Max) cured::argmax_async(in, n, seg, o, ws, s);
    else cured::argmin_async(in, n, seg, o, ws, s);
  }
  template <class T>
  static cudaError_t cub(void* temp, std::size_t& bytes, const T* in, cub_out<T>* o, std::int64_t count,
                         const std::int64_t* offsets, cudaStream_t s) {
    if constexpr (Max) return cub::DeviceSegmentedReduce::ArgMax(temp, bytes, in, o, count, offsets, offsets + 1, s);
    else return cub::DeviceSegmentedReduce::ArgMin(temp, bytes, in, o, count, offsets, offsets + 1, s);
  }
  template <class T>
  static out<T> from_cub(const cub_out<T>& x, std::int64_t length) {
    if (length == 0 && x.key == 1 && same_bits(x.value, segment_extreme_op<Max>::template cub_empty<T>())) return -1;
    return index_t(x.key);
  }
  template <class T>
  static std::vector<out<T>> expect(segment_reference<T>& r) {
    const auto& e = r.template extremes<Max>();
    std::vector<index_t> indices(e.size());
    std::transform(e.begin(), e.end(), indices.begin(), [](const auto& a) { return index_t(a.index); });
    return indices;
  }
};

/// The table, in the order of segment_op_names_in_order.
using segment_op_entries = std::tuple<segment_sum_op, segment_exact_op, segment_extreme_op<false>,
                                      segment_extreme_op<true>, segment_arg_op<false>, segment_arg_op<true>>;

static_assert(ops_named_in_order(std::type_identity<segment_op_entries>{}, segment_op_names_in_order),
              "segment_op_entries and segment_op_names_in_order disagree");

/// Calls f(std::type_identity<E>{}) for the entry E of segment_op_entries named `name`; false
/// when none is.
template <class F>
bool with_segment_op(std::string_view name, F&& f) {
  return with_op<segment_op_entries>(name, f);
}

}  // namespace cured::bench
