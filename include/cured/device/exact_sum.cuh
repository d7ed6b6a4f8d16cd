#pragma once
// The kernels behind cured::exact_sum: the exact sum of floating-point values, rounded once,
// through the fixed-point accumulator (cured/exact/fixed_point.cuh).
//
// - float, bfloat16 (bins_kernel): each thread owns 16 double-precision bins in shared memory,
//   one per 16 consecutive binary exponents of the input. All values of one bin are multiples
//   of the bin's smallest unit and below 2^39 of them, so a double adds 2^14 of them without a
//   rounding error. Each element costs a shift, a mask, a conversion and one shared-memory
//   add; every 8192 elements per thread the block converts the bins to integers and adds
//   them to its fixed-point accumulator.
// - half (bins_kernel with one bin): every half is a multiple of 2^-24 below 2^16, so one
//   register double per thread adds 2^13 of them exactly.
// - double (a fast pass, then exact_double_kernel): 53-bit significands over 2^11 exponents do
//   not fit in per-thread bins. The fast pass (single_pass_kernel over bounded_plus) sums
//   double-doubles with error-free TwoSum and a rigorous bound on the only rounding errors
//   left (those of the low parts). When the interval [estimate - bound, estimate + bound]
//   holds no rounding boundary of double, its rounding is the answer; that is the usual
//   case. Otherwise (exact ties, heavy cancellation, results near zero or overflow, NaN or
//   inf) exact_double_kernel reads the input again and sums it exactly: a two-term TwoSum
//   expansion per thread catches what fits and sends any remainder to the fixed-point
//   accumulator.
//
// Every element, bin and limb is added exactly, so the result depends neither on the order of
// the additions nor on the grid, block size or device: it is the exact sum, rounded once.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "cured/exact/double_double.cuh"
#include "cured/exact/fixed_point.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/thread/load.cuh"
#include "cured/thread/reduce.cuh"

namespace cured::device::exact {

// ---- float, bfloat16, half: bins in shared memory -------------------------------------------

/// Exact widening without flushing subnormals, whatever the compiler's flush-to-zero setting.
__device__ __forceinline__ double widen(float x) {
  double d;
  asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(x));
  return d;
}
__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) {
  return __uint_as_float(unsigned(__bfloat16_as_ushort(x)) << 16);
}
__device__ __forceinline__ float to_float(__half x) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(__half_as_ushort(x)));
  return f;
}

/// Bins per thread: 16 for float and bfloat16 (bin g holds biased exponents 16g .. 16g+15),
/// one register for half.
template <class In>
constexpr int bins_of = std::is_same_v<In, __half> ? 1 : 16;

/// Elements a thread adds to its bins between two flushes: with values below 2^39 units of
/// their bin (2^40 for half), 2^14 (2^13) additions cannot round.
constexpr std::int64_t flush_every = 8192;

/// Bin g's values are integers in units of 2^(16 g - 150); half's one bin counts 2^-24.
template <class In>
__device__ __forceinline__ int bin_position(int g) {
  return std::is_same_v<In, __half> ? 126 : 16 * g;
}

/// Adds one element to this thread's bins (a column of stride Block in shared memory).
template <class In, unsigned Block>
struct bins_add {
  double* column;
  __device__ __forceinline__ double operator()(double acc, In x) const {
    const float f = to_float(x);
    if constexpr (std::is_same_v<In, __half>) {
      return __dadd_rn(acc, widen(f));
    } else {
      double* slot = column + ((__float_as_uint(f) >> 27) & 15u) * Block;
      *slot = __dadd_rn(*slot, widen(f));
      return acc;
    }
  }
};

/// Converts every thread's bins to integers, adds them to the block's accumulator and resets
/// them to -0 (the value that keeps "every input was -0" visible). All threads call it.
template <class In, unsigned Block, class Acc>
__device__ void flush_bins(double* bins, Acc& acc) {
  constexpr int nb = bins_of<In>;
  constexpr unsigned lanes = Block / nb;  // threads per bin
  constexpr unsigned group = lanes < 32 ? lanes : 32;
  __syncthreads();
  const unsigned g = threadIdx.x / lanes, part = threadIdx.x % lanes;
  // Bin g's values times 2^(150 - 16 g) are integers (half: times 2^24).
  const double scale = std::is_same_v<In, __half> ? 0x1p24 : __hiloint2double((1023 + 150 - 16 * int(g)) << 20, 0);
  std::int64_t sum = 0;
  unsigned flags = 0;
#pragma unroll
  for (int k = 0; k < nb; ++k) {
    double& b = bins[g * Block + part + k * lanes];
    const double v = b;
    if (__double_as_longlong(v) != std::int64_t(0x8000000000000000ull)) flags |= flag_not_neg_zero;
    if (isfinite(v)) sum += __double2ll_rn(v * scale);  // exact: an integer below 2^53
    else flags |= special_flags(v);
    b = -0.0;
  }
  // At most 16 * 32 terms below 2^53: no overflow.
#pragma unroll
  for (unsigned o = group / 2; o > 0; o >>= 1) {
    sum += __shfl_down_sync(0xffffffffu, sum, o, group);
    flags |= __shfl_down_sync(0xffffffffu, flags, o, group);
  }
  if (threadIdx.x % group == 0) {
    if (sum) acc.add(sum, bin_position<In>(int(g)));
    acc.add_flags(flags);
  }
  __syncthreads();
}

/// The exact sum of in[0, n) (float, bfloat16, half), rounded to float, into *out; st is the
/// workspace's exact state (zero before, zero after). Blocks of Policy::block threads.
template <class Policy, class In>
__global__ void __launch_bounds__(Policy::block) bins_kernel(const In* __restrict__ in, std::int64_t n,
                                                             float* __restrict__ out, state* st) {
  constexpr unsigned Block = Policy::block;
  constexpr int nb = bins_of<In>;
  __shared__ double bins[nb * Block];
  __shared__ block_accumulator<layout<In>::limbs> acc;
  for (int k = 0; k < nb; ++k) bins[k * Block + threadIdx.x] = -0.0;
  acc.clear();
  const std::int64_t threads = std::int64_t(gridDim.x) * Block;
  const std::int64_t thread = std::int64_t(blockIdx.x) * Block + threadIdx.x;
  const std::int64_t chunk = threads * flush_every;  // keeps 16-byte alignment of each chunk
  bins_add<In, Block> op{bins + threadIdx.x};
  pass_through load;
  // The same number of chunks in every block: the flushes synchronize the block.
  for (std::int64_t begin = 0; begin == 0 || begin < n; begin += chunk) {
    const std::int64_t m = n - begin < chunk ? n - begin : chunk;
    const double v = thread_reduce<Policy>(span_of(in + begin, m), load, op, -0.0, thread, threads, l2_policy(false));
    if constexpr (nb == 1) bins[threadIdx.x] = v;
    flush_bins<In, Block>(bins, acc);
  }
  finish_grid(acc, st, out, layout<In>::base, n == 0);
}

// ---- double: the exact pass -----------------------------------------------------------------

/// The exact sum of in[0, n), rounded to double, into *out, unless the fast pass's result
/// `fast` (null: none) decides it; st is the workspace's exact state (zero before and after).
template <class Policy>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks_per_sm)
    exact_double_kernel(const double* __restrict__ in, std::int64_t n, double* __restrict__ out, state* st,
                        const bounded_sum* fast) {
  constexpr unsigned Block = Policy::block;
  __shared__ block_accumulator<layout<double>::limbs> acc;
  __shared__ bool decided;
  if (threadIdx.x == 0) {
    double r = 0;
    decided = fast != nullptr && decide(*fast, &r);
    if (decided && blockIdx.x == 0) *out = r;
  }
  acc.clear();
  __syncthreads();
  if (decided) return;
  const std::int64_t threads = std::int64_t(gridDim.x) * Block;
  const std::int64_t thread = std::int64_t(blockIdx.x) * Block + threadIdx.x;
  expansion_add op{st->limbs};
  pass_through load;
  const expansion e =
      thread_reduce<Policy>(span_of(in, n), load, op, expansion{0.0, 0.0, 0u}, thread, threads, l2_policy(false));
  acc.add_warp(e.hi);
  acc.add_warp(e.lo);
  const unsigned flags = __reduce_or_sync(0xffffffffu, e.flags);
  if (threadIdx.x % 32 == 0) acc.add_flags(flags);
  __threadfence();  // the remainders' atomics, before the ticket
  __syncthreads();
  finish_grid(acc, st, out, layout<double>::base, n == 0);
}

}  // namespace cured::device::exact
