#pragma once
// What a kernel makes of each element before it combines it: load(i, x) -> accumulator, where
// i is the element's index; and finish(acc), what the caller sees of the total.

#include <cstdint>
#include <type_traits>
#include <utility>

#include "cured/types/ops.cuh"
#include "cured/thread/load.cuh"

namespace cured::thread {

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

/// Whether Acc is an arg reduction's pair.
template <class Acc>
inline constexpr bool is_key_value = false;
template <class T>
inline constexpr bool is_key_value<key_value<T>> = true;

/// Whether load and op make an arg reduction of T elements (argmin or argmax).
template <class Load, class Op, class T>
inline constexpr bool is_arg_reduction =
    std::is_same_v<Load, index_load<T>> && (std::is_same_v<Op, arg_maximum> || std::is_same_v<Op, arg_minimum>);

/// acc = op(acc, load(index, x)) for an x found after every element acc holds (at a larger
/// index): for the arg reductions one comparison (detail::arg_later) instead of the whole
/// rule, since the tie and NaN rules then always keep acc.
template <class Acc, class Load, class Op, class T>
__device__ __forceinline__ void add_later(Acc& acc, std::int64_t index, const T& x, const Load& load, const Op& op) {
  if constexpr (is_arg_reduction<Load, Op, T>) {
    if (acc.index == no_index || detail::arg_later<std::is_same_v<Op, arg_maximum>>(acc.value, x)) acc = {index, x};
  } else {
    acc = op(acc, load(index, x));
  }
}

/// What load makes of an In element.
template <class Load, class In>
using loaded_t = std::remove_cv_t<
    std::remove_reference_t<decltype(std::declval<const Load&>()(std::int64_t(), std::declval<const In&>()))>>;

/// Whether op adds N loaded values at once, op.add_all(acc, values): the statistics whose step
/// per value is dearer, or a longer chain, than their step per set (moments_op, log_sum_exp_op).
template <class Op, class Acc, class V, int N, class = void>
inline constexpr bool adds_all = false;
template <class Op, class Acc, class V, int N>
inline constexpr bool adds_all<
    Op, Acc, V, N,
    std::void_t<decltype(std::declval<const Op&>().add_all(std::declval<const Acc&>(),
                                                           std::declval<const V (&)[N]>()))>> = true;

/// Whether op adds value k to state k of N states that hold as many values each,
/// op.add_each(states, values) (moments_op: one reciprocal of their common weight).
template <class Op, class Acc, class V, int N, class = void>
inline constexpr bool adds_each = false;
template <class Op, class Acc, class V, int N>
inline constexpr bool adds_each<
    Op, Acc, V, N,
    std::void_t<decltype(std::declval<const Op&>().add_each(std::declval<Acc (&)[N]>(),
                                                            std::declval<const V (&)[N]>()))>> = true;

/// acc = op.add_all(acc, values) for a round of U 16-byte vectors: value k of vector u is
/// load(index(u, k), r[u].v[k]), taken in the order of u, then k.
template <int U, class In, class Acc, class Index, class Load, class Op>
__device__ __forceinline__ void add_round_at_once(Acc& acc, const vector16<In> (&r)[U], const Index& index,
                                                  const Load& load, const Op& op) {
  constexpr int size = vector16<In>::size;
  loaded_t<Load, In> x[U * size];
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int k = 0; k < size; ++k) x[u * size + k] = load(index(u, k), r[u].v[k]);
  acc = op.add_all(acc, x);
}

}  // namespace cured::thread
