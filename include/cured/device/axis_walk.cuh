#pragma once
// How the axis kernels find an element: a flat index over some axes turned into offsets.
//
//   std::int64_t in_at, out_at;
//   shape.kept.at(o, in_at, out_at);   // output o: its input offset and its output offset
//
// A walk lists its axes innermost first. Each axis has an extent, an input stride and a second
// stride: the output stride for kept axes, the flat-index multiplier for reduced ones (the arg
// reductions' index). One axis takes a multiply, none nothing; only three and more divide.

#include <cstdint>

#include "cured/types/ops.cuh"
#include "cured/types/view.cuh"

namespace cured::device {

struct axis_walk {
  int count = 0;
  std::int64_t extent[max_rank] = {};
  std::int64_t in_stride[max_rank] = {};
  std::int64_t second[max_rank] = {};

  /// The number of positions: the product of the extents (1 with no axis).
  __host__ __device__ std::int64_t size() const {
    std::int64_t n = 1;
    for (int k = 0; k < count; ++k) n *= extent[k];
    return n;
  }

  /// Position `flat` (row-major over the axes, the last listed varying slowest): its input
  /// offset and its offset by the second strides.
  __host__ __device__ __forceinline__ void at(std::int64_t flat, std::int64_t& in, std::int64_t& other) const {
    if (count == 0) {
      in = other = 0;
      return;
    }
    if (count == 1) {
      in = flat * in_stride[0];
      other = flat * second[0];
      return;
    }
    if (count == 2) {
      const std::int64_t hi = flat / extent[0], lo = flat - hi * extent[0];
      in = lo * in_stride[0] + hi * in_stride[1];
      other = lo * second[0] + hi * second[1];
      return;
    }
    in = other = 0;
    for (int k = 0; k < count; ++k) {
      const std::int64_t next = k + 1 < count ? flat / extent[k] : 0;
      const std::int64_t i = flat - next * extent[k];
      in += i * in_stride[k];
      other += i * second[k];
      flat = next;
    }
  }
};

/// Where the axis kernels write: store(offset, acc) writes output element `offset` (in output
/// elements) from the output's accumulated value.
template <class Out, class Acc, class Op>
struct plain_store {
  Out* out;
  Acc init;
  Op op;
  __device__ __forceinline__ void operator()(std::int64_t at, const Acc& a) const { out[at] = Out(op(init, a)); }
};

/// The arg reductions' outputs: the index (-1 for an output with no elements) and, when
/// `values` is not null, the value, at the same offset.
template <class T>
struct arg_store {
  index_t* indices;
  T* values;
  __device__ __forceinline__ void operator()(std::int64_t at, const key_value<T>& a) const {
    indices[at] = a.index == no_index ? -1 : a.index;
    if (values) values[at] = a.value;
  }
};

}  // namespace cured::device
