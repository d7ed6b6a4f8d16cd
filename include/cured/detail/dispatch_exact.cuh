#pragma once
// The exact sums' launches, through the same dispatch as every reduction (guarded_launch,
// launch_kernel, wave_grid, launch_options).
//
//   detail::exact_sum<mode::async>(in, n, out, ws, stream);

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "cured/accumulate.cuh"
#include "cured/detail/dispatch.cuh"
#include "cured/device/exact_sum.cuh"
#include "cured/device/single_pass.cuh"

namespace cured::detail {

static_assert(device::exact::fast_result_offset + sizeof(device::exact::bounded_sum) <= workspace::exact_state_bytes,
              "cured: the workspace's exact state is too small");

/// The launch of an exact kernel: a plain grid of tiles (tile_grid).
template <auto Kernel, class Policy, class In>
launch_shape exact_shape(std::int64_t n, const workspace& ws, const launch_options& options) {
  return {tile_grid<Kernel, Policy, In>(n, ws, options), 1, Policy::block};
}

template <unsigned Block, class T>
void exact_enqueue(const T* in, std::int64_t n, exact_result_t<T>* out, workspace& ws, cudaStream_t stream,
                   const launch_options& options) {
  namespace ex = device::exact;
  auto* st = static_cast<ex::state*>(ws.exact_state());
  if constexpr (std::is_same_v<T, double>) {
    // The fast pass first, even for small n: the exact pass alone costs more than the two
    // launches on inputs whose remainders do not fit the per-thread expansion.
    const ex::bounded_sum* fast = nullptr;
    if (options.exact_double != launch_options::double_path::exact_only) {
      using policy = exact_fast_policy<Block>;
      constexpr auto kernel = device::single_pass_kernel<policy, double, ex::bounded_sum, device::pass_through,
                                                         ex::bounded_plus, device::no_finish>;
      auto* fast_out =
          reinterpret_cast<ex::bounded_sum*>(static_cast<char*>(ws.exact_state()) + ex::fast_result_offset);
      const ex::bounded_sum zero = ex::bounded_plus::identity<ex::bounded_sum>();
      // The fast pass writes into the workspace and reports nothing: the exact pass writes the result.
      launch_kernel(kernel, exact_shape<kernel, policy, double>(n, ws, options), stream, fast_out,
                    launch_state_for(ws, n * std::int64_t(sizeof(double)), completion{}), device::span_of(in, n), zero,
                    zero, device::pass_through{}, ex::bounded_plus{}, device::no_finish{});
      fast = fast_out;
    }
    using policy = exact_pass_policy<Block>;
    constexpr auto kernel = ex::exact_double_kernel<policy>;
    launch_kernel(kernel, exact_shape<kernel, policy, double>(n, ws, options), stream, in, n, out, st, fast);
  } else {
    using policy = exact_bins_policy<Block>;
    constexpr auto kernel = ex::bins_kernel<policy, T>;
    launch_kernel(kernel, exact_shape<kernel, policy, T>(n, ws, options), stream, in, n, out, st);
  }
}

/// The exact sum of in[0, n), rounded once to exact_result_t<T>, into *out.
template <mode M, class T>
void exact_sum(const T* in, std::int64_t n, exact_result_t<T>* out, workspace& ws, cudaStream_t stream,
               const launch_options& options = {}) {
  guarded_launch<M>(in, n, out, ws, stream, options, "exact_sum launch", [&](workspace::use&) {
    if (options.exact_block == 128) exact_enqueue<128>(in, n, out, ws, stream, options);
    else exact_enqueue<256>(in, n, out, ws, stream, options);
  });
}

}  // namespace cured::detail
