#pragma once
// Exact sums: the exact mathematical sum of floating-point values, rounded once.
//
//   float  s = cured::exact_sum(d_x, n);                 // blocking: the result on the host
//   cured::workspace ws;
//   cured::exact_sum_async(d_x, n, d_out, ws, stream);   // no sync, no allocation, graph-capturable
//
// Inputs: float, double, __half, __nv_bfloat16 device arrays of any alignment and 64-bit
// length (at least 2^44 elements). The result (double for double inputs, float otherwise) is
// the exact sum rounded to nearest-even, so it is the same bits for any order of the inputs,
// any grid and block size, and any GPU. Special values follow IEEE arithmetic on the exact
// sum: any NaN gives NaN; +inf and -inf together give NaN; an exact sum beyond the largest
// finite value gives inf of its sign; subnormals count exactly (never flushed); an exact zero
// is -0 only when every input is -0; the empty sum is +0. How: include/cured/device/exact_sum.cuh
// and docs/EXACT.md.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cured/device/exact_sum.cuh"
#include "cured/device/single_pass.cuh"
#include "cured/error.cuh"
#include "cured/reduce.cuh"
#include "cured/workspace.cuh"

namespace cured {

/// The type exact_sum returns for inputs of type T.
template <class T>
struct exact_result {
  static_assert(sizeof(T) == 0, "cured::exact_sum takes float, double, __half or __nv_bfloat16");
};
template <>
struct exact_result<float> {
  using type = float;
};
template <>
struct exact_result<double> {
  using type = double;
};
template <>
struct exact_result<__half> {
  using type = float;
};
template <>
struct exact_result<__nv_bfloat16> {
  using type = float;
};
template <class T>
using exact_result_t = typename exact_result<T>::type;

namespace detail {

/// How to launch (tests): grid 0 = automatic; block 0 (automatic = 256) or 128 or 256; path
/// for double inputs: automatic, the exact pass alone, or the fast pass then the exact pass.
struct exact_shape {
  int grid = 0;
  unsigned block = 0;
  enum class path { automatic, exact_only, fast_first } double_path = path::automatic;
};

template <unsigned Block>
struct exact_policy {
  static constexpr unsigned block = Block;
  static constexpr int unroll = 4;
  static constexpr int min_blocks_per_sm = 2048 / Block;
};

/// One full wave at most, and no more blocks than there is work for.
template <class In, auto Kernel>
int exact_grid(unsigned block, std::int64_t n, const workspace& ws, const exact_shape& shape) {
  if (shape.grid > 0) return shape.grid;
  const std::int64_t per_block = std::int64_t(block) * device::vector16<In>::size * 4;
  const std::int64_t wave = std::int64_t(device::resident_blocks<Kernel>(ws.device(), block)) * ws.sm_count();
  return int(std::max<std::int64_t>(1, std::min((n + per_block - 1) / per_block, wave)));
}

static_assert(device::exact::fast_result_offset + sizeof(device::exact::bounded_sum) <= workspace::exact_state_bytes,
              "cured: the workspace's exact state is too small");

template <unsigned Block, class T>
void exact_enqueue(const T* in, std::int64_t n, exact_result_t<T>* out, workspace& ws, cudaStream_t stream,
                   const exact_shape& shape) {
  namespace ex = device::exact;
  auto* st = static_cast<ex::state*>(ws.exact_state());
  if constexpr (std::is_same_v<T, double>) {
    using policy = exact_policy<Block>;
    // The fast pass first, even for small n: the exact pass alone costs more than the two
    // launches on inputs whose remainders do not fit the per-thread expansion.
    const bool direct = shape.double_path == exact_shape::path::exact_only;
    const ex::bounded_sum* fast = nullptr;
    if (!direct) {
      auto* fast_out = reinterpret_cast<ex::bounded_sum*>(static_cast<char*>(ws.exact_state()) + ex::fast_result_offset);
      constexpr auto kernel = device::single_pass_kernel<policy, double, ex::bounded_sum, ex::pass_through,
                                                         ex::bounded_plus, no_finish>;
      const int grid = exact_grid<double, kernel>(Block, n, ws, shape);
      const ex::bounded_sum zero = ex::bounded_plus::identity<ex::bounded_sum>();
      // The fast pass writes into the workspace and reports nothing: the exact pass writes the result.
      const device::launch_state fast_state = launch_state_for(ws, n * std::int64_t(sizeof(double)), nullptr);
      kernel<<<unsigned(grid), Block, 0, stream>>>(fast_out, fast_state, device::span_of(in, n), zero, zero,
                                                   ex::pass_through{}, ex::bounded_plus{}, no_finish{});
      fast = fast_out;
    }
    constexpr auto kernel = ex::exact_double_kernel<Block>;
    const int grid = exact_grid<double, kernel>(Block, n, ws, shape);
    kernel<<<unsigned(grid), Block, 0, stream>>>(in, n, out, st, fast);
  } else {
    constexpr auto kernel = ex::bins_kernel<T, Block>;
    const int grid = exact_grid<T, kernel>(Block, n, ws, shape);
    kernel<<<unsigned(grid), Block, 0, stream>>>(in, n, out, st);
  }
}

template <mode M, class T>
void exact_launch(const T* in, std::int64_t n, exact_result_t<T>* out, workspace& ws, cudaStream_t stream,
                  const exact_shape& shape) {
  if (shape.block != 0 && shape.block != 128 && shape.block != 256)
    throw_invalid("exact_sum runs blocks of 128 or 256 threads, not " + std::to_string(shape.block));
  const std::int64_t max_grid = std::int64_t(ws.sm_count()) * workspace::max_blocks_per_sm;
  if (shape.grid < 0 || shape.grid > max_grid)
    throw_invalid("exact_sum grid of " + std::to_string(shape.grid) + " blocks: give 1.." + std::to_string(max_grid) +
                  " or 0 for automatic");
  guarded_launch<M>(in, n, out, ws, stream, "exact_sum launch", [&](workspace::use&) {
    if (shape.block == 128) exact_enqueue<128>(in, n, out, ws, stream, shape);
    else exact_enqueue<256>(in, n, out, ws, stream, shape);
  });
}

template <class T>
void exact_sum_async_shaped(const T* d_in, std::int64_t n, exact_result_t<T>* d_out, workspace& ws,
                            cudaStream_t stream, exact_shape shape) {
  exact_launch<mode::async>(d_in, n, d_out, ws, stream, shape);
}

}  // namespace detail

/// d_out[0] = the exact sum of d_in[0, n), rounded once to exact_result_t<T>.
template <class T>
void exact_sum_async(const T* d_in, std::int64_t n, exact_result_t<T>* d_out, workspace& ws,
                     cudaStream_t stream = nullptr) {
  detail::exact_launch<detail::mode::async>(d_in, n, d_out, ws, stream, detail::exact_shape{});
}

/// The exact sum of d_in[0, n), rounded once to exact_result_t<T>.
template <class T>
exact_result_t<T> exact_sum(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  using R = exact_result_t<T>;
  return detail::blocking<R>(stream, [&](R* d_out, workspace& ws) {
    detail::exact_launch<detail::mode::blocking>(d_in, n, d_out, ws, stream, detail::exact_shape{});
  });
}

}  // namespace cured
