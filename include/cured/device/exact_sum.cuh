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
// - double (expansion_kernel): 53-bit significands over 2^11 exponents do not fit in
//   per-thread bins. Each thread keeps a two-term expansion hi + lo and adds each element
//   with two error-free TwoSums; hi and lo reach the fixed-point accumulator exactly. The
//   remainder neither term can hold (bits far below the thread's running sum: rare, except
//   on data spread over the whole exponent range) is summed in double with a rigorous bound;
//   the result is decided when the bound cannot change the rounding, which it cannot unless
//   the exact sum lies within the bound of a rounding boundary. Only then does the second
//   launch read the input again and add every remainder exactly (shared-memory atomics).
// - exact dot products (the ops of exact_dot.cuh): every product is exact in a wider format
//   (halves in float, floats and bfloat16s in double, doubles as a TwoProduct p + e, or, far
//   from 1, as a 106-bit integer), then summed as above: products of halves in bins, the
//   others in expansions, in the dot layouts of cured/exact/fixed_point.cuh.
//
// Every element, bin and limb is added exactly, so the result depends neither on the order of
// the additions nor on the grid, block size or device: it is the exact sum, rounded once.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "cured/exact/double_double.cuh"
#include "cured/exact/accumulator.cuh"
#include "cured/exact/fixed_point.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/thread/load.cuh"
#include "cured/thread/pair_reduce.cuh"
#include "cured/thread/reduce.cuh"

namespace cured::device {

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
    if (__double_as_longlong(v) != std::int64_t(0x8000000000000000ull)) flags |= exact::flag_not_neg_zero;
    if (isfinite(v)) sum += __double2ll_rn(v * scale);  // exact: an integer below 2^53
    else flags |= exact::special_flags(v);
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

/// Where an exact kernel's elements come from: one input (the sums: op(acc, in[i])) or two of
/// the same length (the dot products: op(acc, x[i], y[i])). reduce() is the thread's share
/// of elements [begin, begin + m); stream_first: the loads' L2 policy (l2_policy).
template <class In>
struct one_input {
  const In* __restrict__ in;
  bool stream_first;
  template <class Policy, class Op, class Acc>
  __device__ __forceinline__ Acc reduce(std::int64_t begin, std::int64_t m, Op& op, const Acc& identity,
                                        std::int64_t thread, std::int64_t threads) const {
    thread::pass_through load;
    return thread::thread_reduce<Policy>(thread::span_of(in + begin, m), load, op, identity, thread, threads,
                                         thread::l2_policy(stream_first));
  }
};
template <class In>
struct two_inputs {
  const In* __restrict__ x;
  const In* __restrict__ y;
  bool stream_first;
  template <class Policy, class Op, class Acc>
  __device__ __forceinline__ Acc reduce(std::int64_t begin, std::int64_t m, Op& op, const Acc& identity,
                                        std::int64_t thread, std::int64_t threads) const {
    return thread::pair_reduce<Policy>(x + begin, y + begin, m, op, identity, thread, threads,
                                       thread::l2_policy(stream_first));
  }
};

/// The exact sum of in[0, n) (float, bfloat16, half), rounded to float, into *out (a float*),
/// or, unrounded, into a shard_sink (cured/exact/shard.cuh); st is the workspace's exact state
/// (zero before, zero after). Blocks of Policy::block threads.
/// Bin: the type whose bins the elements go to (the input's for the sums, with Op bins_add;
/// float for the dot products of halves, whose Op makes each product a float). Source:
/// one_input or two_inputs.
template <class Policy, class Bin, class Source, class Op, class Dest = float*>
__global__ void __launch_bounds__(Policy::block) bins_kernel(Source src, std::int64_t n, Dest out, exact::state* st) {
  constexpr unsigned Block = Policy::block;
  constexpr int nb = bins_of<Bin>;
  __shared__ double bins[nb * Block];
  __shared__ exact::block_accumulator<exact::layout<Bin>::limbs> acc;
  for (int k = 0; k < nb; ++k) bins[k * Block + threadIdx.x] = -0.0;
  acc.clear();
  const std::int64_t threads = std::int64_t(gridDim.x) * Block;
  const std::int64_t thread = std::int64_t(blockIdx.x) * Block + threadIdx.x;
  const std::int64_t chunk = threads * flush_every;  // keeps 16-byte alignment of each chunk
  Op op{bins + threadIdx.x};  // the column, the first member of Op (or of its first member)
  // The same number of chunks in every block: the flushes synchronize the block.
  for (std::int64_t begin = 0; begin == 0 || begin < n; begin += chunk) {
    const std::int64_t m = n - begin < chunk ? n - begin : chunk;
    const double v = src.template reduce<Policy>(begin, m, op, -0.0, thread, threads);
    if constexpr (nb == 1) bins[threadIdx.x] = v;
    flush_bins<Bin, Block>(bins, acc);
  }
  exact::finish_grid<false>(acc, st, out, exact::layout<Bin>::base, n == 0);
}

// ---- double, and the dot products of float, bfloat16 and double: expansions -----------------

/// The exact sum of what Op adds for the elements of src (n of them), rounded to Out, into
/// *out (Dest Out*), or unrounded into a shard_sink; st is the workspace's exact state (zero
/// before and after). Op{&acc} is the op of a
/// block whose accumulator is acc (the sums: expansion_add<..., Exact>); Layout: the fixed
/// point (layout<double>, the dot layouts). Two launches of the same grid: the estimating pass
/// (Exact false), whose remainders are known within a bound (slots: one estimate per block),
/// decides the result unless that bound straddles a rounding boundary; then, and only then,
/// the exact pass (Exact true) reads the input again and adds every remainder exactly. A
/// shard_sink takes the exact pass alone, which then always runs.
template <class Policy, class Layout, class Out, class Source, class Op, bool Exact, class Dest = Out*>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks_per_sm)
    expansion_kernel(Source src, std::int64_t n, Dest out, exact::state* st, exact::estimate* slots) {
  constexpr unsigned warps = Policy::block / 32;
  __shared__ exact::block_accumulator<Layout::limbs> acc;
  __shared__ exact::estimate warp_rem[warps];
  static_assert(Exact || std::is_pointer_v<Dest>, "cured: a shard's sum takes the exact pass alone");
  if constexpr (Exact && std::is_pointer_v<Dest>) {
    if (__ldcg(&st->undecided) == 0) return;  // the usual case: the estimating pass decided
  }
  acc.clear();
  __syncthreads();
  const std::int64_t threads = std::int64_t(gridDim.x) * Policy::block;
  const std::int64_t thread = std::int64_t(blockIdx.x) * Policy::block + threadIdx.x;
  Op op{&acc};  // the accumulator, the first member of Op (or of its first member)
  const exact::expansion e =
      src.template reduce<Policy>(0, n, op, exact::expansion{0.0, 0.0, {0.0, 0.0}, 0u}, thread, threads);
  acc.template add_warp<Layout::base>(e.hi);
  acc.template add_warp<Layout::base>(e.lo);
  const unsigned flags = __reduce_or_sync(0xffffffffu, e.flags);
  if (threadIdx.x % 32 == 0) acc.add_flags(flags);
  if constexpr (!Exact) {
    const exact::estimate w = exact::warp_combine(e.rem);
    if (threadIdx.x % 32 == 0) warp_rem[threadIdx.x / 32] = w;
  }
  __syncthreads();
  exact::estimate rem{0.0, 0.0};
  if (!Exact && threadIdx.x < 32) {
    const exact::estimate x =
        exact::warp_combine(threadIdx.x < warps ? warp_rem[threadIdx.x] : exact::estimate{0.0, 0.0});
    rem = {__shfl_sync(0xffffffffu, x.e, 0), __shfl_sync(0xffffffffu, x.b, 0)};
  }
  exact::finish_grid<!Exact>(acc, st, out, Layout::base, n == 0, rem, slots);
}

}  // namespace cured::device
