#pragma once
// The one dispatch behind every reduction: checks, the launch decision, the launch.
//
//   detail::reduce<mode::async>(in, n, out, load, op, finish, init, ws, stream);
//   detail::arg_reduce<mode::blocking, true>(in, n, out, ws, stream);       // argmax
//
// The shape of a launch is decided once, from n, the device and the launch options (a test
// seam: tests force grids, clusters and pieces through it; the public API passes none).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cured/detail/launch.cuh"
#include "cured/detail/seam.cuh"
#include "cured/detail/tuning.cuh"
#include "cured/device/arg.cuh"
#include "cured/device/single_pass.cuh"
#include "cured/types/error.cuh"
#include "cured/types/ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/workspace.cuh"

namespace cured::detail {

/// async: the result goes to the caller's device memory; blocking: to the workspace's mapped
/// host memory as report words (cured/types/completion.cuh), which the caller waits for.
enum class mode { async, blocking };

/// Launch shapes other than the automatic ones, for tests (0: automatic).
struct launch_options {
  std::int64_t grid = 0;                 ///< blocks, 1 .. sm_count * workspace::max_blocks_per_sm
  unsigned cluster = 0;                  ///< single_pass_kernel as one cluster of this many blocks
                                         ///< (clamped to the device's largest; before `grid`)
  std::int64_t arg_piece_elements = 0;   ///< arg_kernel's elements per piece (automatic: 2^30)
  unsigned exact_block = 0;              ///< exact_sum and exact_dot: threads per block, 128 or 256 (automatic: 256)
};

/// What every whole-array entry point does around its launches: checks n, the options and the
/// pointers, and runs `enqueue(use)` through the launch seam (failures named by `what`).
template <mode M, class In, class Out, class Enqueue>
void guarded_launch(const In* in, std::int64_t n, Out* out, workspace& ws, cudaStream_t stream,
                    const launch_options& options, const char* what, Enqueue&& enqueue) {
  if (n < 0) throw_invalid("negative element count " + std::to_string(n));
  const std::int64_t max_grid = std::int64_t(ws.sm_count()) * workspace::max_blocks_per_sm;
  if (options.grid < 0 || options.grid > max_grid)
    throw_invalid("grid of " + std::to_string(options.grid) + " blocks: give 1.." + std::to_string(max_grid) +
                  " or 0 for automatic");
  if (options.exact_block != 0 && options.exact_block != 128 && options.exact_block != 256)
    throw_invalid("exact_sum runs blocks of 128 or 256 threads, not " + std::to_string(options.exact_block));
  launch_seam(ws, stream, M == mode::blocking, what, [&](workspace::use& use) {
    if (n > 0) use.check_pointer(in, workspace::role::input, "the input");
    if constexpr (M == mode::async) use.check_pointer(out, workspace::role::output, "the output");
    enqueue(use);
  });
}

/// The launch state in workspace ws for an input of `bytes`, reporting as `done` says.
inline grid::launch_state launch_state_for(workspace& ws, std::int64_t bytes, completion done) {
  grid::launch_state st;
  st.stream_first = stream_first(double(bytes), ws.l2_bytes());
  st.ticket = ws.ticket();
  st.slots = ws.slots();
  st.done = done;
  return st;
}

/// The shape of single_pass_kernel's launch for n elements (Kernel; ClusterKernel for a grid
/// that is one cluster): small_kernel's one block when one round of its loads covers the
/// input; one block of Policy::block threads when one round of theirs does (no hand-over);
/// otherwise a block per round of one vector per thread, so that the per-element work spreads
/// over as many multiprocessors as there is input for: up to twice the largest cluster, as one
/// cluster of at most that many blocks (a cluster's blocks share a GPC's bandwidth), beyond
/// that a plain grid of up to one full wave.
template <class Policy, auto Kernel, auto ClusterKernel, class In>
launch_shape single_pass_shape(std::int64_t n, const workspace& ws, const launch_options& options) {
  const unsigned block = Policy::block;
  if (options.cluster > 1) {
    const unsigned limit = cluster_limit<ClusterKernel>(ws.device(), block);
    const unsigned c = std::min({options.cluster, grid::max_cluster, limit});
    if (c > 1) return {c, c, block};
  }
  if (options.grid > 0) return {options.grid, 1, block};
  if (device::one_round_covers<small_policy, In>(n)) return {1, 1, small_policy::block, true};
  if (device::one_round_covers<Policy, In>(n)) return {1, 1, block};
  // Only launches of several blocks ask about clusters (the query loads the cluster kernel).
  const unsigned cluster = cluster_limit<ClusterKernel>(ws.device(), block);
  const std::int64_t one_round = std::int64_t(block) * thread::vector16<In>::size;
  const std::int64_t blocks = ceil_div(n, one_round);
  if (cluster > 1 && blocks <= 2 * std::int64_t(cluster)) {
    const unsigned c = unsigned(std::min<std::int64_t>(blocks, cluster));
    return {c, c, block};
  }
  return {wave_grid<Kernel>(blocks, block, ws.device(), ws.sm_count()), 1, block};
}

/// finish(op(init, load(0, in[0]) op ... op load(n-1, in[n-1]))) into *out, as an Out (Acc
/// unless the finish makes something else of it): every reduction but the vectorized arg and
/// the exact ones.
template <mode M, class Acc, class In, class Load, class Op, class Finish, class Out>
void reduce(const In* in, std::int64_t n, Out* out, Load load, Op op, Finish finish, Acc init, workspace& ws,
            cudaStream_t stream, const launch_options& options = {}) {
  static_assert(sizeof(Acc) <= workspace::max_accumulator_bytes, "cured: accumulator larger than 64 bytes");
  static_assert(std::is_trivially_copyable_v<Acc>, "cured: accumulators must be trivially copyable");
  using policy = single_pass_policy;
  constexpr auto kernel = device::single_pass_kernel<policy, In, Acc, Load, Op, Finish, false, Out>;
  constexpr auto cluster_kernel = device::single_pass_kernel<policy, In, Acc, Load, Op, Finish, true, Out>;
  constexpr auto small = device::small_kernel<small_policy, In, Acc, Load, Op, Finish, Out>;
  guarded_launch<M>(in, n, out, ws, stream, options, "single_pass_kernel launch", [&](workspace::use& use) {
    const Acc identity = identity_of<Op, Acc>(op);
    const launch_shape shape = single_pass_shape<policy, kernel, cluster_kernel, In>(n, ws, options);
    const thread::input_span<In> span = thread::span_of(in, n);
    if (shape.small) {
      launch_kernel(small, shape, stream, out, use.report_to(), span, init, identity, load, op, finish);
      return;
    }
    const grid::launch_state st = launch_state_for(ws, n * std::int64_t(sizeof(In)), use.report_to());
    launch_kernel(shape.cluster > 1 ? cluster_kernel : kernel, shape, stream, out, st, span, init, identity, load, op,
                  finish);
  });
}

/// The grid of Kernel (blocks of Policy) for n elements of In: a block per tile of
/// Policy::block * Policy::unroll 16-byte vectors, one full wave at most; or the options' grid.
template <auto Kernel, class Policy, class In>
std::int64_t tile_grid(std::int64_t n, const workspace& ws, const launch_options& options) {
  if (options.grid > 0) return options.grid;
  const std::int64_t tile = std::int64_t(Policy::block) * thread::vector16<In>::size * Policy::unroll;
  return wave_grid<Kernel>(ceil_div(n, tile), Policy::block, ws.device(), ws.sm_count());
}

/// arg_kernel's grid for n elements.
template <bool Max, class T>
std::int64_t arg_grid(std::int64_t n, const workspace& ws, const launch_options& options = {}) {
  return tile_grid<device::arg_kernel<arg_policy, Max, T>, arg_policy, T>(n, ws, options);
}

/// finish(argmin (Max false) or argmax (Max true) of in[0, n)) into *out; thread::arg_finish:
/// the pair, index -1 when empty.
template <mode M, bool Max, class T, class Finish = thread::arg_finish, class Out = key_value<T>>
void arg_reduce(const T* in, std::int64_t n, Out* out, workspace& ws, cudaStream_t stream,
                const launch_options& options = {}, Finish finish = {}) {
  using kv = key_value<T>;
  using arg_op = std::conditional_t<Max, arg_maximum, arg_minimum>;
  if constexpr (!device::arg_vectorizable<T>) {
    reduce<M, kv>(in, n, out, thread::index_load<T>{}, arg_op{}, finish, arg_op::template identity<kv>(), ws, stream,
                  options);
  } else {
    static_assert(sizeof(kv) <= workspace::max_accumulator_bytes);
    using policy = arg_policy;
    guarded_launch<M>(in, n, out, ws, stream, options, "arg_kernel launch", [&](workspace::use& use) {
      const std::int64_t grid = arg_grid<Max, T>(n, ws, options);
      const std::int64_t piece = options.arg_piece_elements > 0 ? options.arg_piece_elements : std::int64_t(1) << 30;
      launch_kernel(device::arg_kernel<policy, Max, T, Finish, Out>, launch_shape{grid, 1, policy::block}, stream, out,
                    launch_state_for(ws, n * std::int64_t(sizeof(T)), use.report_to()), in,
                    device::make_arg_layout<policy>(in, n, grid, piece), static_cast<kv*>(ws.partials()), finish);
    });
  }
}

}  // namespace cured::detail
