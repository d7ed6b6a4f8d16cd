#pragma once
// Device-wide reductions: one kernel launch for any n.
//
//   float s  = cured::sum(d_x, n);                      // blocking: the result on the host
//   double d = cured::sum<double>(d_x, n);              // explicit accumulator type
//   auto  am = cured::argmax(d_x, n);                   // {index, value}; first index on ties
//   cured::workspace ws;
//   cured::sum_async(d_x, n, d_out, ws, stream);        // no sync, no allocation, graph-capturable
//   cured::transform_reduce_async(d_x, n, d_out, square{}, cured::plus{}, 0.0, ws, stream);
//
// Inputs are device (or managed) arrays of any alignment and 64-bit length. Sums accumulate
// in cured::accumulator_t<T> unless told otherwise; min/max propagate NaN; argmin/argmax
// return the first index of the extreme value, the first NaN's index when there is one, and
// index -1 for an empty input; the empty sum, min and max are the operator's identity
// (0, +inf / largest, -inf / lowest). Results are bit-identical run to run for the same input,
// n, pointer alignment and device. Bad arguments and failed launches throw cured::error.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "cured/types/accumulate.cuh"
#include "cured/detail/blocking.cuh"
#include "cured/detail/dispatch.cuh"
#include "cured/types/ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/workspace.cuh"

namespace cured {

namespace detail {

template <class Explicit, class T>
using sum_type = std::conditional_t<std::is_void_v<Explicit>, accumulator_t<T>, Explicit>;

/// The one step from every public form but the arg ones to the dispatch: init op
/// transform(d_in[0]) op ..., into d_out (async) or returned (blocking).
template <class T, class Init, class Transform, class Op>
void plain_async(const T* d_in, std::int64_t n, Init* d_out, Transform transform, Op op, Init init, workspace& ws,
                 cudaStream_t stream) {
  reduce<mode::async>(d_in, n, d_out, thread::transform_load<Init, Transform>{transform}, op, thread::no_finish{}, init,
                      ws, stream);
}

template <class T, class Init, class Transform, class Op>
Init plain_blocking(const T* d_in, std::int64_t n, Transform transform, Op op, Init init, cudaStream_t stream) {
  return blocking<Init>(stream, [&](Init* d_out, workspace& ws) {
    reduce<mode::blocking>(d_in, n, d_out, thread::transform_load<Init, Transform>{transform}, op, thread::no_finish{},
                           init, ws, stream);
  });
}

template <bool Max, class T>
key_value<T> arg_blocking(const T* d_in, std::int64_t n, cudaStream_t stream) {
  return blocking<key_value<T>>(stream, [&](key_value<T>* d_out, workspace& ws) {
    arg_reduce<mode::blocking, Max>(d_in, n, d_out, ws, stream);
  });
}

}  // namespace detail

// ---- asynchronous: result written to device memory, nothing waited for ---------------------

/// d_out[0] = init op transform(d_in[0]) op ... op transform(d_in[n-1]).
template <class T, class Init, class Transform, class Op>
void transform_reduce_async(const T* d_in, std::int64_t n, Init* d_out, Transform transform, Op op, Init init,
                            workspace& ws, cudaStream_t stream = nullptr) {
  detail::plain_async(d_in, n, d_out, transform, op, init, ws, stream);
}

/// d_out[0] = init op d_in[0] op ... op d_in[n-1], accumulated in Init.
template <class T, class Init, class Op>
void reduce_async(const T* d_in, std::int64_t n, Init* d_out, Op op, Init init, workspace& ws,
                  cudaStream_t stream = nullptr) {
  detail::plain_async(d_in, n, d_out, thread::identity_transform{}, op, init, ws, stream);
}

/// Sum in Acc (default cured::accumulator_t<T>).
template <class Acc = void, class T>
void sum_async(const T* d_in, std::int64_t n, detail::sum_type<Acc, T>* d_out, workspace& ws,
               cudaStream_t stream = nullptr) {
  using acc = detail::sum_type<Acc, T>;
  detail::plain_async(d_in, n, d_out, thread::identity_transform{}, plus{}, acc(0), ws, stream);
}

template <class T>
void min_async(const T* d_in, std::int64_t n, T* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::plain_async(d_in, n, d_out, thread::identity_transform{}, minimum{}, minimum::identity<T>(), ws, stream);
}

template <class T>
void max_async(const T* d_in, std::int64_t n, T* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::plain_async(d_in, n, d_out, thread::identity_transform{}, maximum{}, maximum::identity<T>(), ws, stream);
}

template <class T>
void argmin_async(const T* d_in, std::int64_t n, key_value<T>* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::arg_reduce<detail::mode::async, false>(d_in, n, d_out, ws, stream);
}

template <class T>
void argmax_async(const T* d_in, std::int64_t n, key_value<T>* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::arg_reduce<detail::mode::async, true>(d_in, n, d_out, ws, stream);
}

// ---- blocking: the result returned on the host ---------------------------------------------

template <class T, class Init, class Transform, class Op>
Init transform_reduce(const T* d_in, std::int64_t n, Transform transform, Op op, Init init,
                      cudaStream_t stream = nullptr) {
  return detail::plain_blocking(d_in, n, transform, op, init, stream);
}

template <class T, class Init, class Op>
Init reduce(const T* d_in, std::int64_t n, Op op, Init init, cudaStream_t stream = nullptr) {
  return detail::plain_blocking(d_in, n, thread::identity_transform{}, op, init, stream);
}

template <class Acc = void, class T>
detail::sum_type<Acc, T> sum(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  using acc = detail::sum_type<Acc, T>;
  return detail::plain_blocking(d_in, n, thread::identity_transform{}, plus{}, acc(0), stream);
}

template <class T>
T min(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::plain_blocking(d_in, n, thread::identity_transform{}, minimum{}, minimum::identity<T>(), stream);
}

template <class T>
T max(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::plain_blocking(d_in, n, thread::identity_transform{}, maximum{}, maximum::identity<T>(), stream);
}

template <class T>
key_value<T> argmin(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::arg_blocking<false>(d_in, n, stream);
}

template <class T>
key_value<T> argmax(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::arg_blocking<true>(d_in, n, stream);
}

}  // namespace cured
