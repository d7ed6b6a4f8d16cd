#pragma once
// The op table of axis workloads: one entry per op of axis_op_names_in_order, saying the
// output's element type, how cured and cub::DeviceSegmentedReduce compute it, and its expected
// outputs from the CPU reference (what the segment table shares: bench/segmented_op_bases.cuh).
// An entry without `from_cub` has no CUB peer; one with `takes<T>` false has no rows for T.
// Adding an op is adding one entry here and its name to op_names.hpp.

#include <cuda_runtime_api.h>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "bench/axis_reference.cuh"
#include "bench/op_names.hpp"
#include "bench/outputs.cuh"
#include "bench/segmented_op_bases.cuh"
#include "cured/axes.cuh"
#include "cured/cured.cuh"

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

/// sum: CUB's rows are the reduced axes, so its outputs are cured's as they are.
struct axis_sum_op : sum_op_base {
  template <class T>
  static void cured(const strided_view<const T>& in, const axes& along, const strided_view<out<T>>& o, workspace& ws,
                    cudaStream_t s) {
    cured::sum_async(in, along, o, ws, s);
  }
  template <class T>
  static out<T> from_cub(const cub_out<T>& x) {
    return x;
  }
};

struct axis_exact_op : exact_op_base {
  template <class T>
  static void cured(const strided_view<const T>& in, const axes& along, const strided_view<out<T>>& o, workspace& ws,
                    cudaStream_t s) {
    if constexpr (takes<T>) {
      static_assert(std::is_same_v<exact_result_t<T>, out<T>>);
      cured::exact_sum_async(in, along, o, ws, s);
    }
  }
};

template <bool Max>
struct axis_extreme_op : extreme_op_base<Max> {
  template <class T>
  static void cured(const strided_view<const T>& in, const axes& along, const strided_view<T>& o, workspace& ws,
                    cudaStream_t s) {
    if constexpr (Max) cured::max_async(in, along, o, ws, s);
    else cured::min_async(in, along, o, ws, s);
  }
  template <class T>
  static T from_cub(const T& x) {
    return x;
  }
};

/// argmin and argmax: the flat index over the reduced axes; CUB's key is the offset in the row,
/// the same index, as the rows are the reduced axes.
template <bool Max>
struct axis_arg_op : arg_op_base<Max> {
  template <class T>
  using cub_out = typename arg_op_base<Max>::template cub_out<T>;
  template <class T>
  static void cured(const strided_view<const T>& in, const axes& along, const strided_view<index_t>& o, workspace& ws,
                    cudaStream_t s) {
    if constexpr (Max) cured::argmax_async(in, along, o, ws, s);
    else cured::argmin_async(in, along, o, ws, s);
  }
  template <class T>
  static index_t from_cub(const cub_out<T>& x) {
    return index_t(x.key);
  }
};

/// The table, in the order of axis_op_names_in_order.
using axis_op_entries = std::tuple<axis_sum_op, axis_exact_op, axis_extreme_op<false>, axis_extreme_op<true>, axis_arg_op<false>,
                                   axis_arg_op<true>>;

static_assert(ops_named_in_order(std::type_identity<axis_op_entries>{}, axis_op_names_in_order),
              "axis_op_entries and axis_op_names_in_order disagree");

// Every pass of nvcc (its front end, for the device code and the host stubs, and the host
// compiler) must agree on which ops have a CUB peer, or the peer's kernels are left out.
static_assert(op_has_cub<axis_sum_op>() && op_has_cub<axis_extreme_op<true>>() &&
                  op_has_cub<axis_arg_op<false>>() && !op_has_cub<axis_exact_op>(),
              "axis_op_entries: sum, min, max, argmin and argmax have CUB peers, exact_sum has none");

/// Calls f(std::type_identity<E>{}) for the entry E of axis_op_entries named `name`; false
/// when none is.
template <class F>
bool with_axis_op(std::string_view name, F&& f) {
  return with_op<axis_op_entries>(name, f);
}

}  // namespace cured::bench
