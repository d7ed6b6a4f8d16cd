#pragma once
// Reduction operators, with their identities and the NaN and tie rules users know from
// NumPy and PyTorch.
//
//   cured::reduce(d_x, n, cured::maximum{}, -INFINITY);  // NaN if any element is NaN
//   cured::argmin(d_x, n);                               // first index of the minimum
//
// - plus: a + b; identity 0.
// - minimum / maximum: propagate NaN (a NaN operand wins); identity +inf / -inf for floating
//   types and the largest / smallest value for integers.
// - arg_minimum / arg_maximum over key_value<T>: the extreme value, the smallest index on
//   ties, and the first NaN when any; identity {no_index, +max / lowest}. An empty input
//   reports index -1 (cured::no_index is never returned to the caller).
// A user operator is any callable Acc(Acc, Acc) that is associative and commutative, with a
// member `template <class T> static T identity()` (or `identity()` returning its Acc).

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cuda/std/limits>
#include <type_traits>

#ifndef CURED_HD
#define CURED_HD __host__ __device__
#endif

/// `#pragma unroll` for the loops of CURED_HD code, in the device compilation only (host
/// compilers warn of it).
#ifdef __CUDA_ARCH__
#define CURED_UNROLL _Pragma("unroll")
#else
#define CURED_UNROLL
#endif

namespace cured {

namespace detail {

template <class T>
inline constexpr bool is_half_like = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

/// float, double, __half or __nv_bfloat16.
template <class T>
inline constexpr bool is_floating = std::is_floating_point_v<T> || is_half_like<T>;

template <class T>
CURED_HD inline bool is_nan(const T& x) {
  if constexpr (std::is_floating_point_v<T>) return x != x;
  else if constexpr (is_half_like<T>) return float(x) != float(x);
  else return false;
}

/// a < b, comparing half and bfloat16 through float.
template <class T>
CURED_HD inline bool less(const T& a, const T& b) {
  if constexpr (is_half_like<T>) return float(a) < float(b);
  else return a < b;
}

template <class T>
inline constexpr bool has_limits = ::cuda::std::numeric_limits<T>::is_specialized || is_half_like<T>;

template <class T>
CURED_HD inline T highest() {
  static_assert(has_limits<T>, "cured: minimum/maximum need numeric_limits<T>; give a user type its own operator");
  if constexpr (std::is_floating_point_v<T>) return ::cuda::std::numeric_limits<T>::infinity();
  else if constexpr (std::is_same_v<T, __half>) return __ushort_as_half(0x7c00);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __ushort_as_bfloat16(0x7f80);
  else return ::cuda::std::numeric_limits<T>::max();
}

template <class T>
CURED_HD inline T lowest() {
  static_assert(has_limits<T>, "cured: minimum/maximum need numeric_limits<T>; give a user type its own operator");
  if constexpr (std::is_floating_point_v<T>) return -::cuda::std::numeric_limits<T>::infinity();
  else if constexpr (std::is_same_v<T, __half>) return __ushort_as_half(0xfc00);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __ushort_as_bfloat16(0xff80);
  else return ::cuda::std::numeric_limits<T>::lowest();
}

/// The arg rule for two values whose indices are known to be ordered: true when b, found at
/// a larger index than a, replaces a (a is not NaN, and b is NaN or strictly better). With
/// it, arg_pick(a, b) picks b exactly when a.index < b.index ? arg_later(a, b) : !arg_later(b, a);
/// and minimum / maximum return arg_later(a, b) ? b : a (the NaN rule in one comparison).
template <bool Max, class T>
CURED_HD inline bool arg_later(const T& a, const T& b) {
  if constexpr (is_floating<T>) {
    using F = std::conditional_t<is_half_like<T>, float, T>;  // half and bfloat16 compare exactly as float
    const F x = F(a), y = F(b);
    return (x == x) & (Max ? !(y <= x) : !(y >= x));  // !(y <= x): y > x, or y is NaN; & keeps it branch-free
  } else {
    return Max ? less(a, b) : less(b, a);
  }
}

}  // namespace detail

/// Index type of the arg reductions; the index of an empty input's result.
using index_t = std::int64_t;
inline constexpr index_t no_index = ::cuda::std::numeric_limits<index_t>::max();

/// An element of an arg reduction: the value and where it was.
template <class T>
struct key_value {
  index_t index;
  T value;
};

struct plus {
  template <class T>
  CURED_HD T operator()(const T& a, const T& b) const {
    return a + b;
  }
  template <class T>
  CURED_HD static T identity() {
    return T(0);
  }
};

struct minimum {
  template <class T>
  CURED_HD T operator()(const T& a, const T& b) const {  // a if a is NaN, else b if b is NaN or smaller
    return detail::arg_later<false>(a, b) ? b : a;
  }
  template <class T>
  CURED_HD static T identity() {
    return detail::highest<T>();
  }
};

struct maximum {
  template <class T>
  CURED_HD T operator()(const T& a, const T& b) const {  // a if a is NaN, else b if b is NaN or larger
    return detail::arg_later<true>(a, b) ? b : a;
  }
  template <class T>
  CURED_HD static T identity() {
    return detail::lowest<T>();
  }
};

namespace detail {

/// The arg rule shared by arg_minimum and arg_maximum: a NaN beats any number (the first NaN
/// wins among NaNs), a strictly better value wins, and equal values keep the smaller index.
template <bool Max, class T>
CURED_HD inline key_value<T> arg_pick(const key_value<T>& a, const key_value<T>& b) {
  const bool a_nan = is_nan(a.value), b_nan = is_nan(b.value);
  if (a_nan || b_nan) {
    if (a_nan && b_nan) return a.index <= b.index ? a : b;
    return a_nan ? a : b;
  }
  const bool b_better = Max ? less(a.value, b.value) : less(b.value, a.value);
  const bool a_better = Max ? less(b.value, a.value) : less(a.value, b.value);
  if (b_better) return b;
  if (a_better) return a;
  return a.index <= b.index ? a : b;
}

}  // namespace detail

struct arg_minimum {
  template <class T>
  CURED_HD key_value<T> operator()(const key_value<T>& a, const key_value<T>& b) const {
    return detail::arg_pick<false>(a, b);
  }
  template <class KV>
  CURED_HD static KV identity() {
    using T = decltype(KV{}.value);
    return KV{no_index, detail::highest<T>()};
  }
};

struct arg_maximum {
  template <class T>
  CURED_HD key_value<T> operator()(const key_value<T>& a, const key_value<T>& b) const {
    return detail::arg_pick<true>(a, b);
  }
  template <class KV>
  CURED_HD static KV identity() {
    using T = decltype(KV{}.value);
    return KV{no_index, detail::lowest<T>()};
  }
};

namespace detail {

template <class Op, class Acc, class = void>
struct has_template_identity : std::false_type {};
template <class Op, class Acc>
struct has_template_identity<Op, Acc, std::void_t<decltype(Op::template identity<Acc>())>> : std::true_type {};

template <class Op, class Acc, class = void>
struct has_plain_identity : std::false_type {};
template <class Op, class Acc>
struct has_plain_identity<Op, Acc, std::void_t<decltype(Acc(std::declval<const Op&>().identity()))>> : std::true_type {};

/// The identity of op for accumulator Acc.
template <class Op, class Acc>
CURED_HD inline Acc identity_of(const Op& op) {
  if constexpr (has_template_identity<Op, Acc>::value) {
    return Op::template identity<Acc>();
  } else {
    static_assert(has_plain_identity<Op, Acc>::value,
                  "cured: the operator needs an identity: a member `template <class T> static T identity()` "
                  "or `Acc identity() const`");
    return Acc(op.identity());
  }
}

}  // namespace detail

}  // namespace cured
