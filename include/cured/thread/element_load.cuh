#pragma once
// What a kernel makes of each element before it combines it: load(i, x) -> accumulator, where
// i is the element's index; and finish(acc), what the caller sees of the total.

#include <cstdint>

#include "cured/ops.cuh"

namespace cured::device {

/// Converts each element to the accumulator, through an optional transform.
template <class Acc, class Transform>
struct transform_load {
  Transform transform;
  template <class T>
  __device__ __forceinline__ Acc operator()(std::int64_t, const T& x) const {
    return Acc(transform(x));
  }
};

struct identity_transform {
  template <class T>
  __host__ __device__ __forceinline__ const T& operator()(const T& x) const {
    return x;
  }
};

/// The element as it is: for accumulators that add elements of another type (op(Acc, T)).
struct pass_through {
  template <class T>
  __device__ __forceinline__ const T& operator()(std::int64_t, const T& x) const {
    return x;
  }
};

/// Pairs each element with its index, for the arg reductions.
template <class T>
struct index_load {
  __device__ __forceinline__ key_value<T> operator()(std::int64_t i, const T& x) const { return {i, x}; }
};

struct no_finish {
  template <class Acc>
  __device__ __forceinline__ const Acc& operator()(const Acc& a) const {
    return a;
  }
};

/// The identity's index never reaches the caller: an empty input reports -1.
struct arg_finish {
  template <class T>
  __device__ __forceinline__ key_value<T> operator()(key_value<T> a) const {
    if (a.index == no_index) a.index = -1;
    return a;
  }
};

}  // namespace cured::device
