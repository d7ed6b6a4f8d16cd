#pragma once
// Reductions along axes of strided N-D views: one launch for any shape.
//
//   auto x = cured::view(d_x, {4096, 1024});                  // contiguous, row-major
//   cured::workspace ws;
//   cured::sum_async(x, {1}, cured::view(d_rows, {4096}), ws, stream);     // 4096 row sums
//   cured::max_async(x, {0}, cured::view(d_cols, {1024}), ws, stream);     // 1024 column maxima
//   cured::argmax_async(x, {1}, cured::view(d_idx, {4096}), ws, stream);   // index per row
//   cured::exact_sum_async(x, {1}, cured::view(d_exact, {4096}), ws, stream); // rounded once
//   cured::sum(x, {0, 1}, cured::view(d_total, {}));                       // blocking: waits
//
// `in` is a strided_view (cured/types/view.cuh) of device memory: any rank up to 8, any strides
// (0 broadcasts), any alignment. `along` names the reduced axes. The output covers the kept axes
// in order: a view of one axis per kept axis, or of one per input axis with extent 1 on the
// reduced ones (keepdim); any strides, but its elements may not overlap each other or the
// input. Reducing no axis applies the op to each element alone; reducing every axis gives
// one output.
//
// Per output, the rules of the whole-array reductions (cured/reduce.cuh): sums accumulate in
// cured::accumulator_t<T> (or Acc) and are converted to the output's type once; min/max
// propagate NaN; argmin/argmax give the flat row-major index over the reduced axes (for one
// axis, the index along it) of the first extreme value, or of the first NaN, and -1 for an
// output with no elements; the empty sum, min and max are the operator's identity; exact_sum
// gives each output the exact sum rounded once (cured::exact_sum's rules). Results
// are bit-identical run to run for the same views, device and type. The `_async` forms
// enqueue one kernel launch on `stream` (no allocation, no synchronization; graph-capturable);
// the others run on the calling thread's workspace and return once the output is written.
// Bad arguments and failed launches throw cured::error.

#include <cuda_runtime_api.h>

#include <type_traits>

#include "cured/types/accumulate.cuh"
#include "cured/detail/blocking.cuh"
#include "cured/detail/dispatch_axes.cuh"
#include "cured/types/ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/types/view.cuh"
#include "cured/workspace.cuh"

namespace cured {

namespace detail {

template <class Explicit, class T>
using axis_sum_type = std::conditional_t<std::is_void_v<Explicit>, accumulator_t<std::remove_const_t<T>>, Explicit>;

}  // namespace detail

// ---- asynchronous ---------------------------------------------------------------------------

/// out[o] = Out(init op transform(x) op ... over the elements x of output o), accumulated in Init.
template <class T, class Out, class Transform, class Op, class Init>
void transform_reduce_async(const strided_view<T>& in, const axes& along, const strided_view<Out>& out,
                            Transform transform, Op op, Init init, workspace& ws, cudaStream_t stream = nullptr) {
  detail::axis_plain(in, along, out, thread::transform_load<Init, Transform>{transform}, op, init, ws, stream);
}

template <class T, class Out, class Op, class Init>
void reduce_async(const strided_view<T>& in, const axes& along, const strided_view<Out>& out, Op op, Init init,
                  workspace& ws, cudaStream_t stream = nullptr) {
  detail::axis_plain(in, along, out, thread::transform_load<Init, thread::identity_transform>{}, op, init, ws,
                     stream);
}

/// Sums in Acc (default cured::accumulator_t<T>), each converted to Out once.
template <class Acc = void, class T, class Out>
void sum_async(const strided_view<T>& in, const axes& along, const strided_view<Out>& out, workspace& ws,
               cudaStream_t stream = nullptr) {
  using acc = detail::axis_sum_type<Acc, T>;
  detail::axis_plain(in, along, out, thread::transform_load<acc, thread::identity_transform>{}, plus{}, acc(0), ws,
                     stream);
}

template <class T, class Out>
void min_async(const strided_view<T>& in, const axes& along, const strided_view<Out>& out, workspace& ws,
               cudaStream_t stream = nullptr) {
  using E = std::remove_const_t<T>;
  detail::axis_plain(in, along, out, thread::transform_load<E, thread::identity_transform>{}, minimum{},
                     minimum::identity<E>(), ws, stream);
}

template <class T, class Out>
void max_async(const strided_view<T>& in, const axes& along, const strided_view<Out>& out, workspace& ws,
               cudaStream_t stream = nullptr) {
  using E = std::remove_const_t<T>;
  detail::axis_plain(in, along, out, thread::transform_load<E, thread::identity_transform>{}, maximum{},
                     maximum::identity<E>(), ws, stream);
}

/// The index of each output's minimum; with `values`, the minimum too (values must have the
/// extents and strides of `indices`).
template <class T>
void argmin_async(const strided_view<T>& in, const axes& along, const strided_view<index_t>& indices, workspace& ws,
                  cudaStream_t stream = nullptr) {
  detail::axis_arg<false>(in, along, indices, static_cast<const strided_view<std::remove_const_t<T>>*>(nullptr), ws,
                          stream);
}

template <class T>
void argmin_async(const strided_view<T>& in, const axes& along, const strided_view<index_t>& indices,
                  const strided_view<std::remove_const_t<T>>& values, workspace& ws, cudaStream_t stream = nullptr) {
  detail::axis_arg<false>(in, along, indices, &values, ws, stream);
}

template <class T>
void argmax_async(const strided_view<T>& in, const axes& along, const strided_view<index_t>& indices, workspace& ws,
                  cudaStream_t stream = nullptr) {
  detail::axis_arg<true>(in, along, indices, static_cast<const strided_view<std::remove_const_t<T>>*>(nullptr), ws,
                         stream);
}

template <class T>
void argmax_async(const strided_view<T>& in, const axes& along, const strided_view<index_t>& indices,
                  const strided_view<std::remove_const_t<T>>& values, workspace& ws, cudaStream_t stream = nullptr) {
  detail::axis_arg<true>(in, along, indices, &values, ws, stream);
}

/// Each output the exact sum of its elements, rounded once to exact_result_t<T> (the rules of
/// cured::exact_sum, cured/exact.cuh, per output). Two launches: the second returns at once
/// unless the first left outputs it could not decide (device/axis_exact.cuh).
template <class T>
void exact_sum_async(const strided_view<T>& in, const axes& along,
                     const strided_view<exact_result_t<std::remove_const_t<T>>>& out, workspace& ws,
                     cudaStream_t stream = nullptr) {
  detail::axis_exact(in, along, out, ws, stream);
}

// ---- blocking: return once the output is written -------------------------------------------

template <class T, class Out, class Transform, class Op, class Init>
void transform_reduce(const strided_view<T>& in, const axes& along, const strided_view<Out>& out, Transform transform,
                      Op op, Init init, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { transform_reduce_async(in, along, out, transform, op, init, ws, stream); });
}

template <class T, class Out, class Op, class Init>
void reduce(const strided_view<T>& in, const axes& along, const strided_view<Out>& out, Op op, Init init,
            cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { reduce_async(in, along, out, op, init, ws, stream); });
}

template <class Acc = void, class T, class Out>
void sum(const strided_view<T>& in, const axes& along, const strided_view<Out>& out, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { sum_async<Acc>(in, along, out, ws, stream); });
}

template <class T>
void exact_sum(const strided_view<T>& in, const axes& along,
               const strided_view<exact_result_t<std::remove_const_t<T>>>& out, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { exact_sum_async(in, along, out, ws, stream); });
}

template <class T, class Out>
void min(const strided_view<T>& in, const axes& along, const strided_view<Out>& out, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { min_async(in, along, out, ws, stream); });
}

template <class T, class Out>
void max(const strided_view<T>& in, const axes& along, const strided_view<Out>& out, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { max_async(in, along, out, ws, stream); });
}

template <class T>
void argmin(const strided_view<T>& in, const axes& along, const strided_view<index_t>& indices,
            cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { argmin_async(in, along, indices, ws, stream); });
}

template <class T>
void argmin(const strided_view<T>& in, const axes& along, const strided_view<index_t>& indices,
            const strided_view<std::remove_const_t<T>>& values, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { argmin_async(in, along, indices, values, ws, stream); });
}

template <class T>
void argmax(const strided_view<T>& in, const axes& along, const strided_view<index_t>& indices,
            cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { argmax_async(in, along, indices, ws, stream); });
}

template <class T>
void argmax(const strided_view<T>& in, const axes& along, const strided_view<index_t>& indices,
            const strided_view<std::remove_const_t<T>>& values, cudaStream_t stream = nullptr) {
  detail::enqueue_and_wait(stream, [&](workspace& ws) { argmax_async(in, along, indices, values, ws, stream); });
}

}  // namespace cured
