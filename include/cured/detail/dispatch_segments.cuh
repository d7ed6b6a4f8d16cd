#pragma once
// The dispatch of the segmented reductions: the checks, the grid, the launch.
//
//   detail::segment_plain(values, n, seg, out, load, op, init, ws, stream, status);
//   detail::segment_arg<true>(values, n, seg, indices, values_out, ws, stream, status);  // argmax
//   detail::segment_exact(values, n, seg, out, ws, stream, status);
//
// One launch of segments_kernel (device/segments.cuh), a grid of at most one wave of blocks
// (and no more than the workspace's counters), each with an equal share of the elements and
// segment ends; exact sums add exact_rest_kernel, which returns at once unless some segment
// was left undecided.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "cured/detail/canonical.cuh"
#include "cured/detail/launch.cuh"
#include "cured/detail/seam.cuh"
#include "cured/detail/segment_outputs.cuh"
#include "cured/detail/tuning.cuh"
#include "cured/device/axis_exact.cuh"
#include "cured/device/axis_walk.cuh"
#include "cured/device/segments.cuh"
#include "cured/types/error.cuh"
#include "cured/types/ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/types/view.cuh"
#include "cured/types/segments.cuh"
#include "cured/workspace.cuh"

/// 0 leaves the pair form's kernels out of a build that never takes pairs (the C interface):
/// a reduction given pairs then throws.
#ifndef CURED_SEGMENT_PAIRS
#define CURED_SEGMENT_PAIRS 1
#endif

namespace cured {

namespace detail {

/// Throws unless p is memory the device can write: device, managed, or mapped host memory.
inline void check_status_pointer(const unsigned* p) {
  cudaPointerAttributes attr{};
  const cudaError_t e = cudaPointerGetAttributes(&attr, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw_invalid(std::string("the status word: cannot query the pointer: ") + cudaGetErrorString(e));
  }
  if (attr.type == cudaMemoryTypeUnregistered || attr.devicePointer == nullptr)
    throw_invalid("the status word is not memory the device can write");
}

/// The launch of segments_kernel: the walk by the mean length (the default) or the one named,
/// and the grid by the work (0) or as given (within the workspace's counters). A test and probe
/// seam; a named walk that cannot take the reduction gives the chunks'.
struct segment_options {
  bool by_mean = true;
  device::segment_walk walk = device::segment_walk::chunks;
  std::int64_t grid = 0;
};

/// Launches `kernel` (an instantiation of segments_kernel) on `shape`: up to one wave, each block
/// at least two chunks' items, within the workspace's counters and parts (two per block, after
/// the blocks' ranges).
template <auto kernel, class In, class Acc, class Load, class Op, class Store>
void segment_kernel_launch_of(const In* data, const device::segment_shape& shape, Acc identity, Load load, Op op,
                              Store store, workspace& ws, cudaStream_t stream, unsigned* word,
                              const segment_options& options) {
  constexpr unsigned block = segment_policy::block;
  constexpr std::int64_t chunk = std::int64_t(block) * segment_policy::items_per_thread<In>;
  const std::int64_t items = shape.segments + shape.n;
  const std::int64_t blocks = ceil_div(items, segment_policy::min_chunks_per_block * chunk);
  std::int64_t grid = options.grid > 0 ? options.grid : wave_grid<kernel>(blocks, block, ws.device(), ws.sm_count());
  const std::int64_t range_bytes = 2 * sizeof(std::int64_t);
  grid = std::min<std::int64_t>(grid, workspace::axis_counters);
  grid = std::min<std::int64_t>(grid, workspace::axis_partial_bytes / (range_bytes + 2 * grid::part_bytes<Acc>));
  device::segment_scratch scratch;
  scratch.ranges = static_cast<std::int64_t*>(ws.axis_partials());
  scratch.parts = reinterpret_cast<unsigned*>(scratch.ranges + 2 * grid);
  scratch.counters = ws.axis_counter();
  scratch.error = &ws.words()->segment_error;
  scratch.ticket = &ws.words()->segment_ticket;
  launch_kernel(kernel, launch_shape{grid, 1, block}, stream, data, shape, identity, load, op, store, scratch, word);
}

/// The walk of segments_kernel for the mean length n / S (docs/PERF.md#segmented-reductions):
/// code that helps some lengths costs the others, though no path is taken on them, by the
/// kernel's registers. `groups`: the reduction may take the Grouped walk (sums, min, max and the
/// like of one array of offsets).
///  - Grouped (windows of short segments by groups of lanes) from a mean above half short_max
///    to short_max;
///  - Mixed (windows of mixed lengths below warp_min) from a mean of group_min to warp_min;
///  - else Chunks.
template <class In>
constexpr device::segment_walk segment_walk_by_mean(std::int64_t n, std::int64_t S, bool groups) {
  using P = segment_policy;
  if (groups && 2 * n > P::short_max<In> * S && n <= P::short_max<In> * S) return device::segment_walk::grouped;
  if (n >= P::group_min<In> * S && n < P::warp_min * S) return device::segment_walk::mixed;
  return device::segment_walk::chunks;
}

/// Launches segments_kernel (Pairs: its pair form) on `shape`, the walk by its mean length
/// unless options name one.
template <bool Pairs, class In, class Acc, class Load, class Op, class Store>
void segment_kernel_launch(const In* data, const device::segment_shape& shape, Acc identity, Load load, Op op,
                           Store store, workspace& ws, cudaStream_t stream, unsigned* word,
                           const segment_options& options) {
  using P = segment_policy;
  using walk = device::segment_walk;
  const auto take = [&](auto tag) {
    constexpr walk W = decltype(tag)::value;
    constexpr auto kernel = device::segments_kernel<P, Pairs, W, In, Acc, Load, Op, Store>;
    segment_kernel_launch_of<kernel>(data, shape, identity, load, op, store, ws, stream, word, options);
  };
  constexpr bool groups = !Pairs && sizeof(Acc) <= 8 && !thread::is_arg_reduction<Load, Op, In>;
  const walk w = options.by_mean ? segment_walk_by_mean<In>(shape.n, shape.segments, groups) : options.walk;
  if constexpr (groups) {
    if (w == walk::grouped) return take(std::integral_constant<walk, walk::grouped>{});
  }
  if (w == walk::mixed) return take(std::integral_constant<walk, walk::mixed>{});
  take(std::integral_constant<walk, walk::chunks>{});
}

/// Checks the pointers and enqueues segments_kernel and then(shape, word) (segment_launch's
/// body, inside the launch seam); `word`: where the status goes.
template <class In, class Acc, class Load, class Op, class Store, class Then>
void segment_enqueue(const In* data, std::int64_t n, const segments& seg, Acc identity, Load load, Op op, Store store,
                     std::initializer_list<std::pair<std::uintptr_t, std::uintptr_t>> outs, workspace::use& use,
                     workspace& ws, cudaStream_t stream, unsigned* word, Then then, const segment_options& options) {
  if (seg.count == 0) {
    (void)cudaMemsetAsync(word, 0, sizeof(unsigned), stream);
    return;
  }
  const bool pairs = seg.paired();
  if (pairs && !CURED_SEGMENT_PAIRS) throw_invalid("the pair form of segments is left out of this build");
  use.check_pointer(seg.offsets, workspace::role::offsets, pairs ? "the begins" : "the offsets");
  if (pairs) use.check_pointer(seg.ends, workspace::role::ends, "the ends");
  if (n > 0) use.check_pointer(data, workspace::role::input, "the values");
  const auto [first_out, last_out] = *outs.begin();
  use.check_pointer(reinterpret_cast<const void*>(first_out), workspace::role::output, "the output");
  const std::uintptr_t v0 = reinterpret_cast<std::uintptr_t>(data), v1 = v0 + std::uintptr_t(n) * sizeof(In);
  const std::uintptr_t f0 = reinterpret_cast<std::uintptr_t>(seg.offsets),
                       f1 = f0 + std::uintptr_t(seg.count + (pairs ? 0 : 1)) * sizeof(std::int64_t);
  const std::uintptr_t e0 = reinterpret_cast<std::uintptr_t>(seg.ends),
                       e1 = pairs ? e0 + std::uintptr_t(seg.count) * sizeof(std::int64_t) : e0;
  for (const auto& [a, b] : outs) {
    if (a < v1 && v0 < b) throw_invalid("the output overlaps the values");
    if (a < f1 && f0 < b) throw_invalid(pairs ? "the output overlaps the begins" : "the output overlaps the offsets");
    if (a < e1 && e0 < b) throw_invalid("the output overlaps the ends");
  }
  device::segment_shape shape;
  shape.offsets = seg.offsets;
  shape.ends = pairs ? seg.ends : nullptr;
  shape.segments = pairs ? 2 * seg.count - 1 : seg.count;  // (pairs: with the gaps between them)
  shape.n = n;
  shape.vectors = thread::vector_element<In> && reinterpret_cast<std::uintptr_t>(data) % sizeof(In) == 0;
  shape.async_copy = (sizeof(In) == 4 || sizeof(In) == 8) && reinterpret_cast<std::uintptr_t>(data) % sizeof(In) == 0;
  shape.stream_first = stream_first(double(n) * sizeof(In), ws.l2_bytes());
  if constexpr (CURED_SEGMENT_PAIRS) {
    if (pairs)
      segment_kernel_launch<true>(data, shape, identity, load, op, pair_store<Store>{store}, ws, stream, word, options);
  }
  if (!pairs) segment_kernel_launch<false>(data, shape, identity, load, op, store, ws, stream, word, options);
  then(shape, word);
}

/// Launches segments_kernel: store(s, reduction, length) for every segment; then
/// then(shape, status) enqueues more. The outputs (`outs`: first and last byte of each) may not
/// overlap the values or the offsets.
template <class In, class Acc, class Load, class Op, class Store, class Then>
void segment_launch(const In* data, std::int64_t n, const segments& seg, Acc identity, Load load, Op op, Store store,
                    std::initializer_list<std::pair<std::uintptr_t, std::uintptr_t>> outs, workspace& ws,
                    cudaStream_t stream, unsigned* status, Then then, const segment_options& options = {}) {
  static_assert(std::is_trivially_copyable_v<Acc>, "cured: accumulators must be trivially copyable");
  static_assert(sizeof(Acc) <= workspace::max_accumulator_bytes, "cured: accumulator larger than 64 bytes");
  if (n < 0) throw_invalid("negative count of values: " + std::to_string(n));
  if (seg.count < 0) throw_invalid("negative count of segments: " + std::to_string(seg.count));
  if (status) check_status_pointer(status);
  launch_seam(ws, stream, false, "segmented reduction launch", [&](workspace::use& use) {
    segment_enqueue(data, n, seg, identity, load, op, store, outs, use, ws, stream,
                    status ? status : &ws.words()->segment_status, then, options);
  });
}

struct no_segment_then {
  void operator()(const device::segment_shape&, const unsigned*) const {}
};

/// out[s] = Out(init op load(x) op ... over segment s's values x).
template <class T, class O, class Load, class Op, class Acc>
void segment_plain(const T* values, std::int64_t n, const segments& seg, const O& out, Load load, Op op, Acc init,
                   workspace& ws, cudaStream_t stream, unsigned* status, const segment_options& options = {}) {
  using In = std::remove_const_t<T>;
  const auto o = as_segment_out(out, seg.count);
  using Out = std::remove_pointer_t<decltype(o.data)>;
  segment_launch(static_cast<const In*>(values), n, seg, identity_of<Op, Acc>(op), load, op,
                 segment_store<device::plain_store<Out, Acc, Op>>{{o.data, init, op}, o.strides[0]}, {bytes_of(o)}, ws,
                 stream, status, no_segment_then{}, options);
}

/// The index within its segment of each segment's extreme value (Max: the maximum), and the
/// value when `values_out` is not null.
template <bool Max, class T, class I, class V>
void segment_arg(const T* values, std::int64_t n, const segments& seg, const I& indices, const V* values_out,
                 workspace& ws, cudaStream_t stream, unsigned* status) {
  using In = std::remove_const_t<T>;
  using kv = key_value<In>;
  using op = std::conditional_t<Max, arg_maximum, arg_minimum>;
  const strided_view<index_t> idx = as_segment_out(indices, seg.count);
  const auto [a, b] = bytes_of(idx);
  strided_view<In> val;  // null, no bytes, unless values_out
  std::pair<std::uintptr_t, std::uintptr_t> val_bytes{0, 0};
  if (values_out) {
    val = as_segment_out(*values_out, seg.count);
    val_bytes = second_segment_output(idx, val, seg.count, "values", "indices", ws);
  }
  segment_launch(values, n, seg, op::template identity<kv>(), thread::index_load<In>{}, op{},
                 segment_store<device::arg_store<In>>{{idx.data, val.data}, idx.strides[0]}, {{a, b}, val_bytes}, ws,
                 stream, status, no_segment_then{});
}

/// out[s] = the exact sum of segment s, rounded once; undecided segments go to the second launch.
template <class T, class O>
void segment_exact(const T* values, std::int64_t n, const segments& seg, const O& out, workspace& ws,
                   cudaStream_t stream, unsigned* status) {
  using In = std::remove_const_t<T>;
  using Out = exact_result_t<In>;
  namespace ex = exact;
  const strided_view<Out> o = as_segment_out(out, seg.count);
  auto* st = static_cast<ex::state*>(ws.exact_state());
  const auto rest = [&](const device::segment_shape& shape, const unsigned* word) {
    constexpr unsigned block = axis_policy::block;
    constexpr auto kernel = device::exact_rest_kernel<block, In, Out, segment_outputs>;
    const std::int64_t grid = wave_grid<kernel>(ceil_div(seg.count, block), block, ws.device(), ws.sm_count());
    launch_kernel(kernel, launch_shape{grid, 1, block}, stream, values,
                  segment_outputs{shape.offsets, shape.ends, seg.count, o.strides[0], word}, o.data, st);
  };
  segment_launch(values, n, seg, device::axis_identity, device::widen_load{}, ex::bounded_plus{},
                 segment_store<device::exact_store<Out>>{{o.data, st, 0}, o.strides[0]}, {bytes_of(o)}, ws, stream,
                 status, rest);
}

}  // namespace detail
}  // namespace cured
