#pragma once
// Segmented reductions: one output per segment of an array, one launch for any lengths.
//
//   cured::segments seg{d_offsets, count};        // segment s: values [offsets[s], offsets[s + 1])
//   auto pairs = cured::segments::pairs(d_begins, d_ends, count);  // values [begins[s], ends[s])
//   cured::workspace ws;
//   cured::sum_async(d_x, n, seg, d_sums, ws, stream);           // count sums
//   cured::argmax_async(d_x, n, seg, d_idx, ws, stream);         // index within each segment
//   cured::exact_sum_async(d_x, n, seg, d_exact, ws, stream);    // each rounded once
//   cured::max(d_x, n, seg, cured::view(d_col, {count}, {4}));   // blocking, a strided output
//
// `values`: n device values of any alignment. `seg.offsets`: count + 1 int64 offsets in device
// memory, non-decreasing, within [0, n]; or, in the pair form, count begins and count ends with
// begins[0] <= ends[0] <= begins[1] <= ... <= ends[count - 1] within [0, n] (the values between
// two pairs are in no segment; they are read only when fewer than 256 and among short pairs).
// The output (a device pointer, or a strided_view of one axis of count elements) gets one value
// per segment; it may not overlap the values, offsets, begins or ends. The work is balanced
// over the device by elements and segments alike, so that one segment of 2^28 values, 2^26
// segments of 4 and any mixture keep every multiprocessor busy (the speed each distribution
// reaches: docs/PERF.md).
//
// Per segment, the rules of the whole-array reductions (cured/reduce.cuh): sums accumulate in
// cured::accumulator_t<T> (or Acc) and are converted to the output's type once; min/max
// propagate NaN; argmin/argmax give the index within the segment of the first extreme value,
// or of the first NaN, and -1 for an empty segment; the empty sum, min and max are the
// operator's identity; exact_sum gives each segment its exact sum rounded once (+0 when
// empty). Results are bit-identical run to run for the same offsets, device and type.
//
// Offsets (or pairs) that decrease or leave [0, n] cannot be checked without reading them, which the
// kernel does as it goes: it then writes the bits of cured::segment_error to a status word
// (0 when the offsets were valid), and the outputs are unspecified. The `_async` forms write
// it to `status` (device, managed or mapped host memory), or, with none given, to the word at
// ws.segment_status(); they enqueue on `stream` without allocating or synchronizing and are
// graph-capturable (exact_sum: two launches, the second returning at once unless some
// segment needs the exact pass). The blocking forms run on the calling thread's workspace,
// return once the outputs are written, and throw cured::error for bad offsets. Other bad
// arguments (null or host pointers, negative counts, overlapping outputs) throw cured::error
// before anything is enqueued.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "cured/types/accumulate.cuh"
#include "cured/detail/blocking.cuh"
#include "cured/detail/dispatch_segments.cuh"
#include "cured/types/ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/types/view.cuh"
#include "cured/workspace.cuh"

namespace cured {

namespace detail {

template <class Explicit, class T>
using segment_sum_type = std::conditional_t<std::is_void_v<Explicit>, accumulator_t<std::remove_const_t<T>>, Explicit>;

}  // namespace detail

/// Runs enqueue(ws, status), one segmented `_async` call given the workspace and status word to
/// use, as the blocking forms run theirs: on the calling thread's workspace, then waits for the
/// stream, and throws cured::error naming bad offsets. (Each segmented launch writes the whole
/// status word, so a second call in `enqueue` would overwrite the first's.)
template <class Enqueue>
void run_blocking(cudaStream_t stream, Enqueue enqueue) {
  detail::segment_blocking(stream, enqueue);
}

// ---- asynchronous ---------------------------------------------------------------------------

/// out[s] = init op transform(x) op ... over the values x of segment s, accumulated in Init.
template <class T, class O, class Transform, class Op, class Init>
void transform_reduce_async(const T* values, std::int64_t n, const segments& seg, const O& out, Transform transform,
                            Op op, Init init, workspace& ws, cudaStream_t stream = nullptr,
                            unsigned* status = nullptr) {
  detail::segment_plain(values, n, seg, out, thread::transform_load<Init, Transform>{transform}, op, init, ws, stream,
                        status);
}

template <class T, class O, class Op, class Init>
void reduce_async(const T* values, std::int64_t n, const segments& seg, const O& out, Op op, Init init, workspace& ws,
                  cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_plain(values, n, seg, out, thread::transform_load<Init, thread::identity_transform>{}, op, init, ws,
                        stream, status);
}

/// Sums in Acc (default cured::accumulator_t<T>), each converted to the output's type once.
template <class Acc = void, class T, class O>
void sum_async(const T* values, std::int64_t n, const segments& seg, const O& out, workspace& ws,
               cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  using acc = detail::segment_sum_type<Acc, T>;
  detail::segment_plain(values, n, seg, out, thread::transform_load<acc, thread::identity_transform>{}, plus{}, acc(0),
                        ws, stream, status);
}

template <class T, class O>
void min_async(const T* values, std::int64_t n, const segments& seg, const O& out, workspace& ws,
               cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  using E = std::remove_const_t<T>;
  detail::segment_plain(values, n, seg, out, thread::transform_load<E, thread::identity_transform>{}, minimum{},
                        minimum::identity<E>(), ws, stream, status);
}

template <class T, class O>
void max_async(const T* values, std::int64_t n, const segments& seg, const O& out, workspace& ws,
               cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  using E = std::remove_const_t<T>;
  detail::segment_plain(values, n, seg, out, thread::transform_load<E, thread::identity_transform>{}, maximum{},
                        maximum::identity<E>(), ws, stream, status);
}

/// The index within its segment of each segment's minimum (-1 when empty).
template <class T, class I>
void argmin_async(const T* values, std::int64_t n, const segments& seg, const I& indices, workspace& ws,
                  cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_arg<false>(values, n, seg, indices, static_cast<std::remove_const_t<T>* const*>(nullptr), ws,
                             stream, status);
}

/// With `minima`, each segment's minimum too (a pointer, or a view of the indices' stride).
template <class T, class I, class V>
void argmin_async(const T* values, std::int64_t n, const segments& seg, const I& indices, const V& minima,
                  workspace& ws, cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_arg<false>(values, n, seg, indices, &minima, ws, stream, status);
}

template <class T, class I>
void argmax_async(const T* values, std::int64_t n, const segments& seg, const I& indices, workspace& ws,
                  cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_arg<true>(values, n, seg, indices, static_cast<std::remove_const_t<T>* const*>(nullptr), ws,
                            stream, status);
}

template <class T, class I, class V>
void argmax_async(const T* values, std::int64_t n, const segments& seg, const I& indices, const V& maxima,
                  workspace& ws, cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  detail::segment_arg<true>(values, n, seg, indices, &maxima, ws, stream, status);
}

/// Each segment's exact sum rounded once to exact_result_t<T> (cured::exact_sum's rules).
template <class T, class O>
void exact_sum_async(const T* values, std::int64_t n, const segments& seg, const O& out, workspace& ws,
                     cudaStream_t stream = nullptr, unsigned* status = nullptr) {
  static_assert(std::is_same_v<detail::segment_out_t<O>, exact_result_t<std::remove_const_t<T>>>,
                "cured: exact_sum's output has the type exact_result_t<T>");
  detail::segment_exact(values, n, seg, out, ws, stream, status);
}

// ---- blocking: return once the outputs are written; bad offsets throw ---------------------

template <class T, class O, class Transform, class Op, class Init>
void transform_reduce(const T* values, std::int64_t n, const segments& seg, const O& out, Transform transform, Op op,
                      Init init, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) {
    transform_reduce_async(values, n, seg, out, transform, op, init, ws, stream, st);
  });
}

template <class T, class O, class Op, class Init>
void reduce(const T* values, std::int64_t n, const segments& seg, const O& out, Op op, Init init,
            cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream,
                           [&](workspace& ws, unsigned* st) { reduce_async(values, n, seg, out, op, init, ws, stream, st); });
}

template <class Acc = void, class T, class O>
void sum(const T* values, std::int64_t n, const segments& seg, const O& out, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) { sum_async<Acc>(values, n, seg, out, ws, stream, st); });
}

template <class T, class O>
void min(const T* values, std::int64_t n, const segments& seg, const O& out, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) { min_async(values, n, seg, out, ws, stream, st); });
}

template <class T, class O>
void max(const T* values, std::int64_t n, const segments& seg, const O& out, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream, [&](workspace& ws, unsigned* st) { max_async(values, n, seg, out, ws, stream, st); });
}

template <class T, class I>
void argmin(const T* values, std::int64_t n, const segments& seg, const I& indices, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream,
                           [&](workspace& ws, unsigned* st) { argmin_async(values, n, seg, indices, ws, stream, st); });
}

template <class T, class I, class V>
void argmin(const T* values, std::int64_t n, const segments& seg, const I& indices, const V& minima,
            cudaStream_t stream = nullptr) {
  detail::segment_blocking(
      stream, [&](workspace& ws, unsigned* st) { argmin_async(values, n, seg, indices, minima, ws, stream, st); });
}

template <class T, class I>
void argmax(const T* values, std::int64_t n, const segments& seg, const I& indices, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream,
                           [&](workspace& ws, unsigned* st) { argmax_async(values, n, seg, indices, ws, stream, st); });
}

template <class T, class I, class V>
void argmax(const T* values, std::int64_t n, const segments& seg, const I& indices, const V& maxima,
            cudaStream_t stream = nullptr) {
  detail::segment_blocking(
      stream, [&](workspace& ws, unsigned* st) { argmax_async(values, n, seg, indices, maxima, ws, stream, st); });
}

template <class T, class O>
void exact_sum(const T* values, std::int64_t n, const segments& seg, const O& out, cudaStream_t stream = nullptr) {
  detail::segment_blocking(stream,
                           [&](workspace& ws, unsigned* st) { exact_sum_async(values, n, seg, out, ws, stream, st); });
}

}  // namespace cured
