#pragma once
// The dispatch of the reductions along axes: checks, the plan, the kernel and its tiling, the
// launch.
//
//   detail::axis_plain(in, along, out, load, op, init, ws, stream);
//   detail::axis_arg<true>(in, along, indices, &values, ws, stream);   // argmax
//   detail::axis_exact(in, along, out, ws, stream);                    // exact sums
//
// The regime comes from the plan (axis_plan.cuh), the tiling from the plan and the device
// (axis_tiling.cuh). Reductions of every axis of one contiguous run, in the accumulator's own
// type, go to the whole-array kernels (dispatch.cuh).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cured/types/accumulate.cuh"
#include "cured/detail/axis_plan.cuh"
#include "cured/detail/axis_tiling.cuh"
#include "cured/detail/canonical.cuh"
#include "cured/detail/dispatch.cuh"
#include "cured/detail/dispatch_exact.cuh"
#include "cured/detail/launch.cuh"
#include "cured/detail/seam.cuh"
#include "cured/detail/tuning.cuh"
#include "cured/device/axis_columns.cuh"
#include "cured/device/axis_exact.cuh"
#include "cured/device/axis_rows.cuh"
#include "cured/types/error.cuh"
#include "cured/types/ops.cuh"
#include "cured/types/view.cuh"
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

/// What comes after the plan's kernel: nothing, or then(data, plan) launches more on the stream.
struct no_then {
  template <class In>
  void operator()(const In*, const axis_plan&) const {}
};

/// Enqueues the plan's kernel: store(offset, reduction) for each output.
template <class In, class Acc, class Load, class Op, class Store>
void axis_enqueue(const In* data, axis_plan& plan, double input_bytes, Acc identity, Load load, Op op, Store store,
                  workspace& ws, cudaStream_t stream) {
  using policy = axis_policy;
  constexpr unsigned block = policy::block;
  const bool stream_first = detail::stream_first(input_bytes, ws.l2_bytes());
  unsigned* const partials = static_cast<unsigned*>(ws.axis_partials());
  unsigned* const counters = ws.axis_counter();
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
}

/// Launches the plan's kernel through the launch seam: store(offset, reduction) for each output;
/// then then(data, plan).
template <class In, class Acc, class Load, class Op, class Store, class Then = no_then>
void axis_launch(const In* data, axis_plan plan, double input_bytes, Acc identity, Load load, Op op, Store store,
                 const void* out, workspace& ws, cudaStream_t stream, Then then = {}) {
  static_assert(std::is_trivially_copyable_v<Acc>, "cured: accumulators must be trivially copyable");
  if (plan.kind == axis_plan::regime::none) return;
  launch_seam(ws, stream, false, "axis reduction launch", [&](workspace::use& use) {
    if (plan.reduced_size > 0) use.check_pointer(data, workspace::role::input, "the input");
    use.check_pointer(out, workspace::role::output, "the output");
    axis_enqueue(data, plan, input_bytes, identity, load, op, store, ws, stream);
    then(data, plan);
  });
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
    launch_seam(ws, stream, false, "cudaMemsetAsync", [&](workspace::use& use) {
      use.check_pointer(cin.data, workspace::role::input, "the input");
      use.check_pointer(indices.data, workspace::role::output, "the output");
      (void)cudaMemsetAsync(indices.data, 0, std::size_t(plan.outputs) * sizeof(index_t), stream);
    });
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
