#pragma once
// The dispatch of the reductions along axes: checks, the plan, the kernel and its tiling, the
// launch.
//
//   detail::axis_plain(in, along, out, load, op, init, ws, stream);
//   detail::axis_arg<true>(in, along, indices, &values, ws, stream);   // argmax
//   detail::axis_exact(in, along, out, ws, stream);                    // exact sums
//
// The regime comes from the plan (axis_plan.cuh); the tiling from the plan and the device:
//   rows:    Lanes = the row's vectors (or elements, for rows read one by one) rounded up to a
//            power of two, at most a warp. Outputs of one row of whole, aligned vectors that
//            one round of lanes covers: short_rows_kernel; other rows: rows_kernel, a group of
//            Lanes per output; outputs of more than 1024 vectors (or of several rows, fewer than
//            the multiprocessors) fewer than a wave of warps: long_rows_kernel, each output split
//            in parts (ranges of rows, then of elements), at most one wave of blocks.
//   columns: 8 threads across (a 128-byte line of vectors), widened while the block is deeper
//            than a quarter of the rows; rows split over blocks until two waves of blocks.
// Splits need the workspace's counters and partials; a shape that would need more is split
// less. Reductions of every axis of one contiguous run, in the accumulator's own type, go to
// the whole-array kernels (dispatch.cuh).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cured/accumulate.cuh"
#include "cured/detail/axis_plan.cuh"
#include "cured/detail/canonical.cuh"
#include "cured/detail/dispatch.cuh"
#include "cured/detail/dispatch_exact.cuh"
#include "cured/detail/launch.cuh"
#include "cured/detail/tuning.cuh"
#include "cured/device/axis_columns.cuh"
#include "cured/device/axis_exact.cuh"
#include "cured/device/axis_rows.cuh"
#include "cured/error.cuh"
#include "cured/ops.cuh"
#include "cured/view.cuh"
#include "cured/workspace.cuh"

namespace cured::detail {

template <class T>
strided_view<const std::remove_const_t<T>> const_view(const strided_view<T>& v) {
  strided_view<const std::remove_const_t<T>> c;
  c.data = v.data;
  c.rank = v.rank;
  for (int k = 0; k < max_rank; ++k) {
    c.extents[k] = v.extents[k];
    c.strides[k] = v.strides[k];
  }
  return c;
}

inline unsigned pow2_ceil(std::int64_t x) {
  unsigned p = 1;
  while (p < x && p < (1u << 30)) p *= 2;
  return p;
}

/// Tiles the row regime: the lanes per output, and whether one round of them covers a row
/// (short_rows_kernel); lanes 0: long_rows_kernel, with its parts per output. vectors_per_lane
/// above 1 (axis_plan::row_vectors_per_lane): lanes enough for each to take that many vectors.
template <class In, class Acc, auto LongKernel>
unsigned tile_rows(device::row_shape& s, bool& one_round, unsigned vectors_per_lane, const workspace& ws) {
  const bool vectors = s.vectors && s.stride == 1;
  const std::int64_t units = vectors ? ceil_div(s.length, thread::vector16<In>::size) : s.length;
  one_round = units <= 32 && s.rows == 1 && (!vectors || s.aligned);
  unsigned lanes = std::min(pow2_ceil(units), 32u);
  if (vectors_per_lane > 1) lanes = std::clamp(pow2_ceil(units / vectors_per_lane + 1) / 2, 1u, 32u);
  one_round = one_round && lanes >= units;
  const std::int64_t wave_warps = std::int64_t(ws.sm_count()) * 64;
  // A group per output unless the outputs are too few for a wave of warps and each is long
  // (more than 1024 vectors, or of several rows): rows of a few KiB each are read best by a
  // warp each, however few they are (their blocks would be short-lived and mostly idle).
  const bool long_outputs = double(units) * double(s.rows) > 1024 || (s.rows > 1 && s.outputs < ws.sm_count());
  if (one_round || s.outputs >= wave_warps || (lanes < 32 && s.rows == 1) || !long_outputs) return lanes;
  // Outputs too few for a wave of warps: blocks on parts of each output (ranges of rows times
  // ranges of elements), no more than one wave of them, so that every part takes the same time.
  constexpr unsigned block = axis_policy::block;
  s.lanes = std::min(pow2_ceil(units), block);
  const std::int64_t wave = std::int64_t(resident_blocks<LongKernel>(ws.device(), block)) * ws.sm_count();
  std::int64_t splits = 1;
  if (s.outputs < wave && s.outputs <= std::int64_t(workspace::axis_counters)) {
    const std::int64_t min_part = std::int64_t(block) * thread::vector16<In>::size * 4;  // elements
    const double work = double(s.length) * double(s.rows);
    splits = std::min<std::int64_t>(wave / s.outputs, std::int64_t(std::min(work / min_part, 1e9)) + 1);
    splits = std::min<std::int64_t>(splits, workspace::axis_partial_bytes / grid::part_bytes<Acc> / s.outputs);
    splits = std::max<std::int64_t>(splits, 1);
  }
  // Ranges of rows first (each row read whole), then ranges of each row's elements.
  s.row_parts = std::min<std::int64_t>(splits, s.rows);
  s.rows_per_part = ceil_div(s.rows, s.row_parts);
  s.row_parts = ceil_div(s.rows, s.rows_per_part);
  const std::int64_t length_parts = std::max<std::int64_t>(splits / s.row_parts, 1);
  s.chunk = ceil_div(ceil_div(s.length, length_parts), 16) * 16;  // parts start on the row's alignment
  const std::int64_t chunks = s.chunk > 0 ? std::max<std::int64_t>(ceil_div(s.length, s.chunk), 1) : 1;
  s.splits = s.row_parts * chunks;
  return 0;
}

/// Tiles the column regime for vectors of V elements.
template <int V, class Acc, auto Kernel>
void tile_columns(device::column_shape& s, const workspace& ws) {
  constexpr unsigned block = axis_policy::block;
  const std::int64_t vectors = ceil_div(s.columns, V);
  const unsigned full = std::min(pow2_ceil(vectors), block);
  // Rows a thread reads at least, where there are enough: deeper threads keep more loads in
  // flight each and leave the block a shallower tree.
  constexpr std::int64_t depth = 16;
  unsigned width = std::min(full, 8u);
  while (width < full && std::int64_t(block / width) * depth > s.row_count) width *= 2;
  s.width_log2 = 0;
  while ((1u << s.width_log2) < width) ++s.width_log2;
  s.tiles = ceil_div(vectors, width);
  const std::int64_t tiles = s.tiles * s.kept.size();
  const std::int64_t height = block / width;
  const std::int64_t target = 2 * std::int64_t(resident_blocks<Kernel>(ws.device(), block)) * ws.sm_count();
  std::int64_t splits = 1;
  if (tiles < target && tiles <= std::int64_t(workspace::axis_counters)) {
    splits = std::min(ceil_div(target, tiles), ceil_div(s.row_count, height * depth));
    splits = std::min<std::int64_t>(splits, workspace::axis_partial_bytes / (grid::part_bytes<Acc> * width * V) / tiles);
    splits = std::max<std::int64_t>(splits, 1);
  }
  s.rows_per_split = std::max<std::int64_t>(ceil_div(s.row_count, splits), 1);
  s.splits = std::max<std::int64_t>(ceil_div(s.row_count, s.rows_per_split), 1);
  s.blocks = tiles * s.splits;
}

/// Whether every position the walks reach from `data` starts on a 16-byte boundary.
template <class In>
bool walks_aligned(const In* data, std::initializer_list<const device::axis_walk*> walks) {
  if (reinterpret_cast<std::uintptr_t>(data) % 16 != 0) return false;
  for (const device::axis_walk* w : walks)
    for (int k = 0; k < w->count; ++k)
      if ((w->in_stride[k] * std::int64_t(sizeof(In))) % 16 != 0) return false;
  return true;
}

/// Whether the column regime can read V-element vectors: contiguous columns, a whole number of
/// vectors per row, and every position's first column on a 16-byte boundary.
template <class In>
bool column_vectors(const In* data, const device::column_shape& s) {
  return thread::vector_element<In> && s.column_stride == 1 && s.columns % thread::vector16<In>::size == 0 &&
         walks_aligned(data, {&s.kept, &s.rows});
}

/// What comes after the plan's kernel: nothing, or then(data, plan) launches more on the stream.
struct no_then {
  template <class In>
  void operator()(const In*, const axis_plan&) const {}
};

/// Launches the plan's kernel: store(offset, reduction) for each output; then then(data, plan).
template <class In, class Acc, class Load, class Op, class Store, class Then = no_then>
void axis_launch(const In* data, axis_plan plan, double input_bytes, Acc identity, Load load, Op op, Store store,
                 const void* out, workspace& ws, cudaStream_t stream, Then then = {}) {
  static_assert(std::is_trivially_copyable_v<Acc>, "cured: accumulators must be trivially copyable");
  if (plan.kind == axis_plan::regime::none) return;
  workspace::use use(ws, stream);
  if (plan.reduced_size > 0) use.check_pointer(data, 0, "the input");
  use.check_pointer(out, 1, "the output");
  (void)cudaGetLastError();  // an earlier, unrelated error must not be taken for this launch's
  using policy = axis_policy;
  constexpr unsigned block = policy::block;
  const bool stream_first = input_bytes <= double(thread::stream_first_limit) * double(ws.l2_bytes());
  unsigned* const partials = static_cast<unsigned*>(ws.axis_partials());
  unsigned* const counters = ws.axis_counter();
  const char* what = "axis reduction launch";
  if (plan.kind == axis_plan::regime::rows) {
    device::row_shape& s = plan.rows;
    s.stream_first = stream_first;
    s.vectors = thread::vector_element<In> && reinterpret_cast<std::uintptr_t>(data) % sizeof(In) == 0;
    s.aligned = s.vectors && s.stride == 1 && s.length % thread::vector16<In>::size == 0 &&
                walks_aligned(data, {&s.kept, &s.outer});
    constexpr auto long_kernel = device::long_rows_kernel<policy, In, Acc, Load, Op, Store>;
    bool one_round = false;
    const unsigned lanes = tile_rows<In, Acc, long_kernel>(s, one_round, plan.row_vectors_per_lane, ws);
    const auto launch_lanes = [&](auto lanes_constant) {
      constexpr int L = decltype(lanes_constant)::value;
      if (one_round) {
        constexpr auto kernel = device::short_rows_kernel<policy, L, In, Acc, Load, Op, Store>;
        const std::int64_t blocks = ceil_div(s.outputs, block / L * device::short_rows_outputs);
        const std::int64_t grid = wave_grid<kernel>(blocks, block, ws.device(), ws.sm_count());
        launch_kernel(kernel, launch_shape{grid, 1, block}, stream, data, s, identity, load, op, store);
        return;
      }
      {
        constexpr auto kernel = device::rows_kernel<policy, L, In, Acc, Load, Op, Store>;
        const std::int64_t blocks = ceil_div(s.outputs, block / L);
        const std::int64_t grid = wave_grid<kernel>(blocks, block, ws.device(), ws.sm_count());
        launch_kernel(kernel, launch_shape{grid, 1, block}, stream, data, s, identity, load, op, store);
      }
    };
    switch (lanes) {
      case 0:
        launch_kernel(long_kernel, launch_shape{s.outputs * s.splits, 1, block}, stream, data, s, identity, load, op,
                      store, partials, counters);
        break;
      case 1: launch_lanes(std::integral_constant<int, 1>{}); break;
      case 2: launch_lanes(std::integral_constant<int, 2>{}); break;
      case 4: launch_lanes(std::integral_constant<int, 4>{}); break;
      case 8: launch_lanes(std::integral_constant<int, 8>{}); break;
      case 16: launch_lanes(std::integral_constant<int, 16>{}); break;
      default: launch_lanes(std::integral_constant<int, 32>{}); break;
    }
  } else {
    device::column_shape& s = plan.columns;
    s.stream_first = stream_first;
    s.ordered = true;  // the rows walk's flat index is row-major over its axes, innermost first
    for (int k = 0; k + 1 < s.rows.count; ++k) s.ordered &= s.rows.second[k + 1] == s.rows.extent[k] * s.rows.second[k];
    const auto launch_width = [&](auto v_constant) {
      constexpr int V = decltype(v_constant)::value;
      constexpr auto kernel = device::columns_kernel<policy, V, In, Acc, Load, Op, Store>;
      tile_columns<V, Acc, kernel>(s, ws);
      const std::int64_t grid = std::min<std::int64_t>(s.blocks, INT_MAX);
      launch_kernel(kernel, launch_shape{grid, 1, block}, stream, data, s, identity, load, op, store, partials,
                    counters);
    };
    if (column_vectors(data, s)) launch_width(std::integral_constant<int, thread::vector16<In>::size>{});
    else launch_width(std::integral_constant<int, 1>{});
  }
  then(data, plan);
  const cudaError_t launch_error = cudaGetLastError();
  use.enqueued();  // before throwing: a launched kernel must still be tracked
  if (launch_error != cudaSuccess) throw_cuda(launch_error, what, __FILE__, __LINE__);
}

/// Whether a view's elements are contiguous in row-major order (axes of extent 1 aside).
template <class T>
bool dense(const strided_view<T>& v) {
  std::int64_t next = 1;
  for (int k = v.rank - 1; k >= 0; --k) {
    if (v.extents[k] == 1) continue;
    if (v.strides[k] != next) return false;
    next *= v.extents[k];
  }
  return true;
}

/// Whether the plan reduces every axis of one contiguous run: the whole-array kernels' case.
inline bool whole_run(const axis_plan& plan) {
  const device::row_shape& s = plan.rows;
  return plan.kind == axis_plan::regime::rows && s.kept.count == 0 && s.outer.count == 0 && s.stride == 1;
}

/// out[o] = Out(init op load(x) op ... over output o's elements x).
template <class T, class Out, class Load, class Op, class Acc>
void axis_plain(const strided_view<T>& in, const axes& along, const strided_view<Out>& out, Load load, Op op, Acc init,
                workspace& ws, cudaStream_t stream) {
  using In = std::remove_const_t<T>;
  static_assert(sizeof(Acc) <= workspace::max_accumulator_bytes, "cured: accumulator larger than 64 bytes");
  const strided_view<const In> cin = const_view(in);
  const axis_plan plan = plan_of(canonicalize(cin, along, &out), false);
  const Acc identity = identity_of<Op, Acc>(op);
  if constexpr (std::is_same_v<Out, Acc>) {
    if (whole_run(plan)) {
      detail::reduce<mode::async>(cin.data, plan.rows.length, out.data, load, op, thread::no_finish{}, init, ws, stream);
      return;
    }
  }
  axis_launch(cin.data, plan, double(sizeof(In)) * double(plan.outputs) * double(plan.reduced_size), identity, load, op,
                 device::plain_store<Out, Acc, Op>{out.data, init, op}, out.data, ws, stream);
}

/// Checks a second output of a reduction whose first is `first`: the extents and strides of
/// `first`, no byte shared with it or the input, device memory.
template <class In, class A, class B>
void check_second_output(const strided_view<const In>& in, const axes& along, const strided_view<A>& first,
                         const strided_view<B>& second, bool any_outputs, const std::string& second_name,
                         const std::string& first_name, const workspace& ws) {
  if (second.rank != first.rank)
    throw_invalid("the " + second_name + " have " + std::to_string(second.rank) + " axes, the " + first_name + " " +
                  std::to_string(first.rank));
  for (int k = 0; k < first.rank; ++k)
    if (second.extents[k] != first.extents[k] || (first.extents[k] > 1 && second.strides[k] != first.strides[k]))
      throw_invalid("the " + second_name + "' axis " + std::to_string(k) + " differs from the " + first_name +
                    "' in extent or stride");
  // Checked as the output of the same reduction: its bytes against the input's.
  (void)canonicalize(in, along, &second);
  if (any_outputs) {
    std::uintptr_t a0, a1, b0, b1;
    byte_range(first, a0, a1);
    byte_range(second, b0, b1);
    if (a0 < b1 && b0 < a1) throw_invalid("the " + second_name + " overlap the " + first_name);
    workspace::check_device_pointer(second.data, ("the " + second_name).c_str(), ws.device());
  }
}

/// The index of each output's extreme value (Max: the maximum), and the value when `values`
/// is not null.
template <bool Max, class T>
void axis_arg(const strided_view<T>& in, const axes& along, const strided_view<index_t>& indices,
              const strided_view<std::remove_const_t<T>>* values, workspace& ws, cudaStream_t stream) {
  using In = std::remove_const_t<T>;
  using kv = key_value<In>;
  using op = std::conditional_t<Max, arg_maximum, arg_minimum>;
  const strided_view<const In> cin = const_view(in);
  const axis_plan plan = plan_of(canonicalize(cin, along, &indices), true);
  if (values) check_second_output(cin, along, indices, *values, plan.outputs > 0, "values", "indices", ws);
  // Outputs of one element each (reduced axes of extent 1): every index is 0, and without the
  // values nothing needs reading. A dense output gets them from one memset.
  if (!values && plan.reduced_size == 1 && plan.outputs > 0 && dense(indices)) {
    workspace::use use(ws, stream);
    use.check_pointer(cin.data, 0, "the input");
    use.check_pointer(indices.data, 1, "the output");
    const cudaError_t e = cudaMemsetAsync(indices.data, 0, std::size_t(plan.outputs) * sizeof(index_t), stream);
    use.enqueued();
    if (e != cudaSuccess) throw_cuda(e, "cudaMemsetAsync", __FILE__, __LINE__);
    return;
  }
  axis_launch(cin.data, plan, double(sizeof(In)) * double(plan.outputs) * double(plan.reduced_size), op::template identity<kv>(),
                 thread::index_load<In>{}, op{}, device::arg_store<In>{indices.data, values ? values->data : nullptr},
                 indices.data, ws, stream);
}

/// out[o] = the exact sum of output o's elements, rounded once (device/axis_exact.cuh).
template <class T>
void axis_exact(const strided_view<T>& in, const axes& along, const strided_view<exact_result_t<std::remove_const_t<T>>>& out,
                workspace& ws, cudaStream_t stream) {
  using In = std::remove_const_t<T>;
  using Out = exact_result_t<In>;
  namespace ex = exact;
  const strided_view<const In> cin = const_view(in);
  const axis_plan plan = plan_of(canonicalize(cin, along, &out), false);
  if (whole_run(plan) && plan.reduced_size > 0) {
    detail::exact_sum<mode::async>(cin.data, plan.rows.length, out.data, ws, stream);
    return;
  }
  auto* st = static_cast<ex::state*>(ws.exact_state());
  const auto rest = [&](const In* data, const axis_plan& p) {
    constexpr unsigned block = axis_policy::block;
    constexpr auto kernel = device::exact_rest_kernel<block, In, Out, device::axis_outputs>;
    device::axis_outputs outputs;
    plan_walks(p, outputs.kept, outputs.reduced);
    outputs.count = p.outputs;
    const std::int64_t grid = wave_grid<kernel>(ceil_div(p.outputs, block), block, ws.device(), ws.sm_count());
    launch_kernel(kernel, launch_shape{grid, 1, block}, stream, data, outputs, out.data, st);
  };
  axis_launch(cin.data, plan, double(sizeof(In)) * double(plan.outputs) * double(plan.reduced_size),
              device::axis_identity, device::widen_load{}, ex::bounded_plus{},
              device::exact_store<Out>{out.data, st, plan.reduced_size}, out.data, ws, stream, rest);
}

}  // namespace cured::detail
