#pragma once
// The exact sums' and dot products' launches, through the same dispatch as every reduction
// (guarded_launch, launch_kernel, wave_grid, launch_options): one kernel each.
//
//   detail::exact_sum<mode::async>(in, n, out, ws, stream);
//   detail::exact_dot<mode::async>(x, y, n, out, ws, stream);

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "cured/types/accumulate.cuh"
#include "cured/detail/dispatch.cuh"
#include "cured/device/exact_dot.cuh"
#include "cured/device/exact_sum.cuh"
#include "cured/exact/shard.cuh"

namespace cured::detail {

static_assert(sizeof(exact::state) <= workspace::exact_state_bytes, "cured: the workspace's exact state is too small");

static_assert(sizeof(exact::estimate) <= workspace::max_accumulator_bytes,
              "cured: the workspace's partials hold one estimate per block");

/// Launches Kernel (blocks of Policy) over n elements of In: a plain grid of tiles (tile_grid).
template <auto Kernel, class Policy, class In, class... Args>
void exact_launch(std::int64_t n, workspace& ws, cudaStream_t stream, const launch_options& options, Args... args) {
  launch_kernel(Kernel, launch_shape{tile_grid<Kernel, Policy, In>(n, ws, options), 1, Policy::block}, stream, args...);
}

/// The estimating pass, then the exact pass, which returns at once unless the first left the
/// result undecided (device/exact_sum.cuh, expansion_kernel).
template <class Policy, class Layout, class Out, class Source, class Estimating, class Exact, class In>
void expansion_launches(const Source& src, std::int64_t n, Out* out, workspace& ws, cudaStream_t stream,
                        const launch_options& options) {
  namespace ex = exact;
  auto* st = static_cast<ex::state*>(ws.exact_state());
  auto* slots = static_cast<ex::estimate*>(ws.partials());
  exact_launch<device::expansion_kernel<Policy, Layout, Out, Source, Estimating, false>, Policy, In>(
      n, ws, stream, options, src, n, out, st, slots);
  exact_launch<device::expansion_kernel<Policy, Layout, Out, Source, Exact, true>, Policy, In>(n, ws, stream, options,
                                                                                               src, n, out, st, slots);
}

/// The exact sum of in[0, n) into out: an exact_result_t<T>* (rounded) or an
/// exact::shard_sink (unrounded, the exact pass alone).
template <unsigned Block, class T, class Dest>
void exact_sum_enqueue(const T* in, std::int64_t n, Dest out, workspace& ws, cudaStream_t stream,
                       const launch_options& options) {
  namespace ex = exact;
  auto* st = static_cast<ex::state*>(ws.exact_state());
  const device::one_input<T> src{in, stream_first(double(n) * sizeof(T), ws.l2_bytes())};
  if constexpr (std::is_same_v<T, double>) {
    using layout = ex::layout<double>;
    using acc = ex::block_accumulator<layout::limbs>;
    using policy = exact_pass_policy<Block>;
    using exact_add = ex::expansion_add<acc, layout::base, true>;
    if constexpr (std::is_pointer_v<Dest>) {
      expansion_launches<policy, layout, double, device::one_input<T>, ex::expansion_add<acc, layout::base, false>,
                         exact_add, T>(src, n, out, ws, stream, options);
    } else {
      exact_launch<device::expansion_kernel<policy, layout, double, device::one_input<T>, exact_add, true, Dest>,
                   policy, T>(n, ws, stream, options, src, n, out, st, static_cast<ex::estimate*>(ws.partials()));
    }
  } else {
    using policy = exact_bins_policy<Block>;
    exact_launch<device::bins_kernel<policy, T, device::one_input<T>, device::bins_add<T, Block>, Dest>, policy, T>(
        n, ws, stream, options, src, n, out, st);
  }
}

template <unsigned Block, class T>
void exact_dot_enqueue(const T* x, const T* y, std::int64_t n, exact_result_t<T>* out, workspace& ws,
                       cudaStream_t stream, const launch_options& options) {
  namespace ex = exact;
  const device::two_inputs<T> src{x, y, stream_first(2 * double(n) * sizeof(T), ws.l2_bytes())};
  if constexpr (std::is_same_v<T, __half>) {
    using policy = exact_bins_policy<Block>;
    exact_launch<device::bins_kernel<policy, float, device::two_inputs<T>, device::half_dot_bins<Block>>, policy, T>(
        n, ws, stream, options, src, n, out, static_cast<ex::state*>(ws.exact_state()));
  } else if constexpr (std::is_same_v<T, double>) {
    expansion_launches<exact_dot_policy<Block>, ex::double_dot_layout, double, device::two_inputs<T>,
                       device::double_dot_expansion<false>, device::double_dot_expansion<true>, T>(src, n, out, ws,
                                                                                                   stream, options);
  } else {
    expansion_launches<exact_dot_policy<Block>, ex::float_dot_layout, float, device::two_inputs<T>,
                       device::narrow_dot_expansion<T, false>, device::narrow_dot_expansion<T, true>, T>(
        src, n, out, ws, stream, options);
  }
}

// CURED_EXACT_TEST_BLOCKS (default 1): whether exact_sum and exact_dot also compile their
// 128-thread blocks, which only launch_options (the tests' seam) selects. The C library and
// cured-bench, which never pass options, define it 0 and compile the 256-thread kernels alone.
// Every unit of one program must see the same value.
#ifndef CURED_EXACT_TEST_BLOCKS
#define CURED_EXACT_TEST_BLOCKS 1
#endif

/// f(std::integral_constant<unsigned, Block>{}) for the options' block (0: 256 threads).
template <class F>
void with_exact_block(const launch_options& options, F&& f) {
  if (options.exact_block == 128) {
#if CURED_EXACT_TEST_BLOCKS
    f(std::integral_constant<unsigned, 128>{});
    return;
#else
    throw_invalid("exact_sum's and exact_dot's blocks of 128 threads are not compiled into this program "
                  "(CURED_EXACT_TEST_BLOCKS=0)");
#endif
  }
  f(std::integral_constant<unsigned, 256>{});
}

/// The exact sum of in[0, n), rounded once to exact_result_t<T>, into *out.
template <mode M, class T>
void exact_sum(const T* in, std::int64_t n, exact_result_t<T>* out, workspace& ws, cudaStream_t stream,
               const launch_options& options = {}) {
  guarded_launch<M>(in, n, out, ws, stream, options, "exact_sum launch", [&](workspace::use&) {
    with_exact_block(options, [&](auto block) {
      exact_sum_enqueue<decltype(block)::value>(in, n, out, ws, stream, options);
    });
  });
}

/// This rank's shard in[0, n) of a distributed exact sum, unrounded, into *sink.at
/// (cured/exact/shard.cuh): asynchronous.
template <class T>
void exact_sum_shard(const T* in, std::int64_t n, exact::shard_sink sink, workspace& ws, cudaStream_t stream) {
  guarded_launch<mode::async>(in, n, sink.at, ws, stream, {}, "exact_sum launch",
                              [&](workspace::use&) { exact_sum_enqueue<256>(in, n, sink, ws, stream, {}); });
}

/// The exact dot product of x[0, n) and y[0, n), rounded once to exact_result_t<T>, into *out.
template <mode M, class T>
void exact_dot(const T* x, const T* y, std::int64_t n, exact_result_t<T>* out, workspace& ws, cudaStream_t stream,
               const launch_options& options = {}) {
  guarded_launch<M>(x, n, out, ws, stream, options, "exact_dot launch", [&](workspace::use& use) {
    if (n > 0) use.check_pointer(y, workspace::role::second_input, "the second input");
    with_exact_block(options, [&](auto block) {
      exact_dot_enqueue<decltype(block)::value>(x, y, n, out, ws, stream, options);
    });
  });
}

}  // namespace cured::detail
