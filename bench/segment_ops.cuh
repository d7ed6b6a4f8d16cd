#pragma once
// The op table of segmented workloads: one entry per op of segment_op_names_in_order, saying
// the output's element type, how cured and cub::DeviceSegmentedReduce compute it over int64
// offsets, and its expected outputs from the CPU reference (what the axis table shares:
// bench/segmented_op_bases.cuh). An entry without `from_cub` has no CUB peer; one with
// `takes<T>` false has no rows for T; `cub_max_n`, where an entry has it, is the largest input
// CUB's form takes. Adding an op is adding one entry here and its name to op_names.hpp.
//
// CUB writes its own results for empty segments, which differ from cured's where cured's
// contract says otherwise: ArgMin and ArgMax write {1, numeric_limits max or lowest} where
// cured writes -1, and Min and Max numeric_limits max or lowest where cured writes the
// operator's identity (+inf and -inf for floating types). from_cub reads exactly those
// documented results of an empty segment as cured's, so that the check compares like for like;
// anything else CUB writes there is compared as written.

#include <cuda_runtime_api.h>

#include <cuda/std/limits>

#include <cstdint>
#include <limits>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "bench/answer.cuh"
#include "bench/op_names.hpp"
#include "bench/outputs.cuh"
#include "bench/segment_reference.cuh"
#include "bench/segmented_op_bases.cuh"
#include "cured/cured.cuh"

namespace cured::bench {

struct segment_sum_op : sum_op_base {
  template <class T>
  static void cured(const T* in, std::int64_t n, const segments& seg, out<T>* o, workspace& ws, cudaStream_t s) {
    cured::sum_async(in, n, seg, o, ws, s);
  }
  template <class T>
  static out<T> from_cub(const cub_out<T>& x, std::int64_t) {
    return x;
  }
};

struct segment_exact_op : exact_op_base {
  template <class T>
  static void cured(const T* in, std::int64_t n, const segments& seg, out<T>* o, workspace& ws, cudaStream_t s) {
    if constexpr (takes<T>) {
      static_assert(std::is_same_v<exact_result_t<T>, out<T>>);
      cured::exact_sum_async(in, n, seg, o, ws, s);
    }
  }
};

/// min and max: an empty segment's is the operator's identity.
template <bool Max>
struct segment_extreme_op : extreme_op_base<Max> {
  template <class T>
  static void cured(const T* in, std::int64_t n, const segments& seg, T* o, workspace& ws, cudaStream_t s) {
    if constexpr (Max) cured::max_async(in, n, seg, o, ws, s);
    else cured::min_async(in, n, seg, o, ws, s);
  }
  /// What CUB writes to an empty segment (its initial value).
  template <class T>
  static T cub_empty() {
    if constexpr (Max) return ::cuda::std::numeric_limits<T>::lowest();
    else return ::cuda::std::numeric_limits<T>::max();
  }
  template <class T>
  static T from_cub(const T& x, std::int64_t length) {
    if (length == 0 && same_bits(x, cub_empty<T>())) return Max ? maximum::identity<T>() : minimum::identity<T>();
    return x;
  }
};

/// argmin and argmax: the index within the segment, -1 for an empty one. CUB's key counts from
/// the start of the values, as an int: its form takes inputs of up to 2^31 - 1 elements.
template <bool Max>
struct segment_arg_op : arg_op_base<Max> {
  static constexpr std::int64_t cub_max_n = std::numeric_limits<int>::max();
  template <class T>
  using cub_out = typename arg_op_base<Max>::template cub_out<T>;
  template <class T>
  static void cured(const T* in, std::int64_t n, const segments& seg, index_t* o, workspace& ws, cudaStream_t s) {
    if constexpr (Max) cured::argmax_async(in, n, seg, o, ws, s);
    else cured::argmin_async(in, n, seg, o, ws, s);
  }
  template <class T>
  static index_t from_cub(const cub_out<T>& x, std::int64_t length) {
    if (length == 0 && x.key == 1 && same_bits(x.value, segment_extreme_op<Max>::template cub_empty<T>())) return -1;
    return index_t(x.key);
  }
};

/// The table, in the order of segment_op_names_in_order.
using segment_op_entries = std::tuple<segment_sum_op, segment_exact_op, segment_extreme_op<false>,
                                      segment_extreme_op<true>, segment_arg_op<false>, segment_arg_op<true>>;

static_assert(ops_named_in_order(std::type_identity<segment_op_entries>{}, segment_op_names_in_order),
              "segment_op_entries and segment_op_names_in_order disagree");

// Every pass of nvcc (its front end, for the device code and the host stubs, and the host
// compiler) must agree on which ops have a CUB peer, or the peer's kernels are left out.
static_assert(op_has_cub<segment_sum_op>() && op_has_cub<segment_extreme_op<true>>() &&
                  op_has_cub<segment_arg_op<false>>() && !op_has_cub<segment_exact_op>(),
              "segment_op_entries: sum, min, max, argmin and argmax have CUB peers, exact_sum has none");

/// Calls f(std::type_identity<E>{}) for the entry E of segment_op_entries named `name`; false
/// when none is.
template <class F>
bool with_segment_op(std::string_view name, F&& f) {
  return with_op<segment_op_entries>(name, f);
}

}  // namespace cured::bench
