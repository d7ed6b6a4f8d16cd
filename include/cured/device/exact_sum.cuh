#pragma once
// The kernels behind cured::exact_sum: the exact sum of floating-point values, rounded once.
//
// Every finite float, half, bfloat16 or double is an integer times a power of two, so the
// exact sum of any number of them is one long fixed-point number. It is kept as 32-bit digits
// in 64-bit limbs ("carry-save": limb j counts units of 2^(base + 32 j) and may exceed 32 bits
// between normalizations), added to with integer atomics whose order cannot change the result,
// and rounded to nearest-even once, at the end (round_fixed). Three kernels feed it:
//
// - float, bfloat16 (bins_kernel): each thread owns 16 double-precision bins in shared memory,
//   one per 16 consecutive binary exponents of the input. All values of one bin are multiples
//   of the bin's smallest unit and below 2^39 of them, so a double adds 2^14 of them without a
//   rounding error. Each element costs a shift, a mask, a conversion and one shared-memory
//   add; every 8192 elements per thread the block converts the bins to integers and adds
//   them to its fixed-point accumulator.
// - half (bins_kernel with one bin): every half is a multiple of 2^-24 below 2^16, so one
//   register double per thread adds 2^13 of them exactly.
// - double (fast pass, then exact_double_kernel): 53-bit significands over 2^11 exponents do
//   not fit in per-thread bins. A first pass (the library's single-pass kernel) sums
//   double-doubles with error-free TwoSum and a rigorous bound on the only rounding errors
//   left (those of the low parts). When the interval [estimate - bound, estimate + bound]
//   holds no rounding boundary of double, its rounding is the answer; that is the usual
//   case. Otherwise (exact ties, heavy cancellation, results near zero or overflow, NaN or
//   inf) exact_double_kernel reads the input again and sums it exactly: a two-term TwoSum
//   expansion per thread catches what fits and sends any remainder to the block's
//   fixed-point accumulator.
//
// Every element, bin and limb is added exactly, so the result depends neither on the order of
// the additions nor on the grid, block size or device: it is the exact sum, rounded once.

#include <cuda/atomic>
#include <cuda/std/limits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cured/device/single_pass.cuh"
#include "cured/ops.cuh"

// Keeps a loop rolled in device code (the host compiler does not know the pragma).
#ifdef __CUDA_ARCH__
#define CURED_ROLLED _Pragma("unroll 1")
#else
#define CURED_ROLLED
#endif

namespace cured::device::exact {

// ---- the fixed-point accumulator -----------------------------------------------------------

/// Flags carried beside the fixed-point sum.
enum : unsigned {
  flag_nan = 1u,           ///< a NaN was added
  flag_pos_inf = 2u,       ///< +inf was added
  flag_neg_inf = 4u,       ///< -inf was added
  flag_not_neg_zero = 8u,  ///< some input is not -0 (an exact zero sum is then +0)
};

/// Where the fixed point sits for inputs of type In: limb j counts units of 2^(base + 32 j).
/// float/bfloat16/half: 2^-150 (half a float subnormal; the bins' unit) and 12 limbs (384
/// bits: above 2^170 = 2^44 elements of the largest float). double: 2^-1074, 70 limbs (above
/// 2^44 times the largest double).
template <class In>
struct layout {
  static constexpr int base = -150;
  static constexpr int limbs = 12;
};
template <>
struct layout<double> {
  static constexpr int base = -1074;
  static constexpr int limbs = 70;
};
constexpr int max_limbs = 70;

/// What a workspace holds for the exact sums between kernels (zero between calls).
struct state {
  unsigned int ticket;
  unsigned int flags;
  unsigned int pad[2];
  unsigned long long limbs[max_limbs];
};
/// Where in the workspace's exact state the double fast pass leaves its bounded_sum (after the
/// state, within workspace::exact_state_bytes: checked in exact.cuh).
constexpr std::size_t fast_result_offset = 640;
static_assert(sizeof(state) <= fast_result_offset, "cured: the exact state overlaps the fast pass's result");

/// Adds v * 2^p (p >= 0, in units of the layout's 2^base) as three 32-bit digits:
/// add(j, digit) for the nonzero ones. The digits' sum is exactly v * 2^p in two's complement.
template <class Add>
__host__ __device__ __forceinline__ void add_scaled(std::int64_t v, int p, Add&& add) {
  const int j = p >> 5, s = p & 31;
  const std::uint64_t lo = std::uint64_t(v) << s;
  const std::int64_t hi = s ? (v >> (64 - s)) : (v >> 63);
  if (lo & 0xffffffffu) add(j, lo & 0xffffffffu);
  if (lo >> 32) add(j + 1, lo >> 32);
  if (hi) add(j + 2, std::uint64_t(hi));
}

/// A finite double as a signed 54-bit integer times 2^(p - 1074).
__host__ __device__ __forceinline__ void decompose(double v, std::int64_t& m, int& p) {
  std::uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  const int e = int((bits >> 52) & 0x7ff);
  const std::int64_t frac = std::int64_t(bits & ((std::uint64_t(1) << 52) - 1));
  m = e ? (frac | (std::int64_t(1) << 52)) : frac;
  p = e ? e - 1 : 0;
  if (bits >> 63) m = -m;
}

/// The flags for one non-finite value.
__device__ __forceinline__ unsigned special_flags(double v) {
  return v != v ? flag_nan : (v > 0 ? flag_pos_inf : flag_neg_inf);
}

namespace detail {
/// Bits [lo, lo + width) of the digits d[0, count) (width <= 64).
__host__ __device__ inline std::uint64_t extract(const std::uint32_t* d, int count, int lo, int width) {
  const int j = lo >> 5, s = lo & 31;
  auto digit = [&](int k) -> std::uint64_t { return k >= 0 && k < count ? d[k] : 0u; };
  std::uint64_t r = (digit(j) | (digit(j + 1) << 32)) >> s;
  if (s) r |= digit(j + 2) << (64 - s);
  if (width < 64) r &= (std::uint64_t(1) << width) - 1;
  return r;
}

/// Whether any of bits [0, end) of d is set.
__host__ __device__ inline bool any_below(const std::uint32_t* d, int end) {
  const int j = end >> 5;
CURED_ROLLED
  for (int k = 0; k < j; ++k)
    if (d[k]) return true;
  const int s = end & 31;
  return s && (d[j] & ((std::uint32_t(1) << s) - 1));
}

__host__ __device__ inline int leading_zeros(std::uint32_t x) {
#ifdef __CUDA_ARCH__
  return __clz(int(x));
#else
  return __builtin_clz(x);
#endif
}
}  // namespace detail

/// The fixed-point number sum_j limbs[j] * 2^(base + 32 j), rounded once to Out (float or
/// double), round-to-nearest-even, with IEEE's rules for the flags: NaN, or +inf and -inf
/// together, give NaN; one infinity gives itself; a sum beyond the largest finite value gives
/// inf of its sign; an exact zero is -0 only when every input was -0 (empty: +0).
/// `limbs` must hold values below 2^62 in magnitude; `count` <= max_limbs.
template <class Out>
__host__ __device__ Out round_fixed(const std::int64_t* limbs, int count, int base, unsigned flags, bool empty) {
  using lim = cuda::std::numeric_limits<Out>;
  if ((flags & flag_nan) || ((flags & flag_pos_inf) && (flags & flag_neg_inf))) return lim::quiet_NaN();
  if (flags & flag_pos_inf) return lim::infinity();
  if (flags & flag_neg_inf) return -lim::infinity();
  // Carries: every digit into [0, 2^32), the sign in the final carry (0 or -1).
  std::uint32_t d[max_limbs];
  std::int64_t carry = 0;
CURED_ROLLED
  for (int j = 0; j < count; ++j) {
    const std::int64_t v = limbs[j] + carry;
    d[j] = std::uint32_t(v);
    carry = v >> 32;
  }
  const bool negative = carry < 0;
  if (negative) {  // the magnitude: two's complement of the digits
    std::uint64_t c = 1;
  CURED_ROLLED
  for (int j = 0; j < count; ++j) {
      const std::uint64_t t = std::uint64_t(std::uint32_t(~d[j])) + c;
      d[j] = std::uint32_t(t);
      c = t >> 32;
    }
  }
  int top = count - 1;
CURED_ROLLED
  while (top >= 0 && d[top] == 0) --top;
  if (top < 0) return (empty || (flags & flag_not_neg_zero)) ? Out(0) : -Out(0);
  const int msb = 32 * top + 31 - detail::leading_zeros(d[top]);  // the leading one's bit
  constexpr int precision = lim::digits;                          // 24, 53
  constexpr int min_normal = lim::min_exponent - 1;               // -126, -1022
  constexpr int max_exponent = lim::max_exponent - 1;             // 127, 1023
  // The exponent of the result's last bit: precision bits below the leading one, but never
  // below the subnormals' last bit.
  int lsb = msb + base - precision + 1;
  if (lsb < min_normal - precision + 1) lsb = min_normal - precision + 1;
  const int cut = lsb - base;  // bits below `cut` are rounded off
  std::uint64_t mant;
  int exponent;
  if (cut <= 0) {  // every bit fits
    mant = detail::extract(d, count, 0, msb + 1);
    exponent = base;
  } else {
    mant = detail::extract(d, count, cut, msb - cut + 1);
    const bool round = detail::extract(d, count, cut - 1, 1) != 0;
    const bool sticky = detail::any_below(d, cut - 1);
    if (round && (sticky || (mant & 1))) ++mant;
    exponent = lsb;
  }
  const int mant_bits = 64 - (mant >> 32 ? detail::leading_zeros(std::uint32_t(mant >> 32))
                                         : 32 + detail::leading_zeros(std::uint32_t(mant)));
  if (exponent + mant_bits - 1 > max_exponent) return negative ? -lim::infinity() : lim::infinity();
  // mant * 2^exponent is representable in Out: scaling a double by a power of two is exact.
  const double r = scalbn(double(mant), exponent);
  return negative ? -Out(r) : Out(r);
}

/// Adds a finite double to `limbs` (shared or global memory) with atomics.
inline __device__ __noinline__ void add_double(unsigned long long* limbs, double v) {
  if (v == 0) return;
  std::int64_t m;
  int p;
  decompose(v, m, p);
  add_scaled(m, p, [limbs](int j, std::uint64_t digit) { atomicAdd(&limbs[j], digit); });
}

/// A block's fixed-point accumulator in shared memory.
template <int Limbs>
struct block_accumulator {
  unsigned long long limbs[Limbs];
  unsigned int flags;

  __device__ void clear() {
    for (int j = threadIdx.x; j < Limbs; j += blockDim.x) limbs[j] = 0;
    if (threadIdx.x == 0) flags = 0;
  }
  __device__ void add(std::int64_t v, int p) {
    add_scaled(v, p, [this](int j, std::uint64_t digit) { atomicAdd(&limbs[j], digit); });
  }
  /// One finite double per lane of a full warp. Lanes whose digits fall within 8 limbs of the
  /// warp's lowest are summed with shuffles first (one atomic per limb instead of one per lane
  /// and digit: 32 lanes on the same address would serialize); the others add their own.
  __device__ void add_warp(double v) {
    constexpr int window = 8;
    std::int64_t m = 0;
    int p = 0;
    if (v != 0) decompose(v, m, p);
    const int j = v != 0 ? p >> 5 : Limbs;
    const int low = int(__reduce_min_sync(0xffffffffu, unsigned(j)));
    if (low == Limbs) return;  // all zero
    std::uint64_t slot[window] = {};
    if (v != 0 && j - low <= window - 3) {
      add_scaled(m, p, [&](int k, std::uint64_t digit) {
#pragma unroll
        for (int w = 0; w < window; ++w) slot[w] += k - low == w ? digit : 0;
      });
    } else if (v != 0) {
      add(m, p);
    }
#pragma unroll
    for (int w = 0; w < window; ++w) {
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) slot[w] += __shfl_down_sync(0xffffffffu, slot[w], o);
    }
    if (threadIdx.x % 32 == 0) {
#pragma unroll
      for (int w = 0; w < window; ++w)
        if (slot[w]) atomicAdd(&limbs[low + w], slot[w]);  // nonzero only where a digit landed
    }
  }
  __device__ void add_flags(unsigned f) {
    if (f) atomicOr(&flags, f);
  }
};

/// The end of every exact kernel: the block's accumulator (complete: a __syncthreads() came
/// before) goes to the workspace's with atomics; the block that draws the last ticket takes the
/// total, resets the workspace's state and writes the rounded result.
template <class Out, int Limbs>
__device__ void finish_grid(block_accumulator<Limbs>& acc, state* st, Out* out, int base, bool empty) {
  if (threadIdx.x >= 32) return;
  const unsigned lane = threadIdx.x;
  const unsigned flags = acc.flags;  // read only: no lane writes the shared accumulator any more
  if (gridDim.x == 1) {  // the block holds the whole sum unless remainders went to the workspace
    unsigned long long from_memory = 0;
    if (lane == 0) {
      for (int j = 0; j < Limbs; ++j) from_memory |= __ldcg(&st->limbs[j]);
      from_memory |= __ldcg(&st->flags);
    }
    if (__shfl_sync(0xffffffffu, from_memory, 0) == 0) {
      if (lane == 0)
        *out = round_fixed<Out>(reinterpret_cast<const std::int64_t*>(acc.limbs), Limbs, base, flags, empty);
      return;
    }
  }
  for (int j = lane; j < Limbs; j += 32)
    if (acc.limbs[j]) atomicAdd(&st->limbs[j], acc.limbs[j]);
  if (lane == 0 && flags) atomicOr(&st->flags, flags);
  __threadfence();
  __syncwarp();
  bool last = false;
  if (lane == 0) {
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> t(st->ticket);
    last = t.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
  }
  if (lane != 0 || !last) return;
  __threadfence();
  // Take the totals and leave zeros for the next call.
  std::int64_t total[Limbs];
  for (int j = 0; j < Limbs; ++j) total[j] = std::int64_t(atomicExch(&st->limbs[j], 0ull));
  const unsigned all_flags = atomicExch(&st->flags, 0u);
  *out = round_fixed<Out>(total, Limbs, base, all_flags, empty);
  st->ticket = 0;
}

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

struct pass_through {
  template <class T>
  __device__ __forceinline__ const T& operator()(std::int64_t, const T& x) const {
    return x;
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

template <class In, unsigned Block>
__global__ void __launch_bounds__(Block) bins_kernel(const In* __restrict__ in, std::int64_t n,
                                                     float* __restrict__ out, state* st) {
  constexpr int nb = bins_of<In>;
  __shared__ double bins[nb * Block];
  __shared__ block_accumulator<layout<In>::limbs> acc;
  using policy_t = device::policy;
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
    const double v = thread_reduce<policy_t>(span_of(in + begin, m), load, op, -0.0, thread, threads, l2_policy(false));
    if constexpr (nb == 1) bins[threadIdx.x] = v;
    flush_bins<In, Block>(bins, acc);
  }
  finish_grid(acc, st, out, layout<In>::base, n == 0);
}

// ---- double: the fast pass ------------------------------------------------------------------

/// Error-free sum: s + e == a + b exactly (round-to-nearest, no overflow).
__device__ __forceinline__ void two_sum(double a, double b, double& s, double& e) {
  s = __dadd_rn(a, b);
  const double bb = __dsub_rn(s, a);
  e = __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb));
}

/// A double-double estimate s + c of a sum and a bound on its error: the exact sum lies in
/// [s + c - bound, s + c + bound] when all three are finite.
struct bounded_sum {
  double s, c, bound;
};

/// Adds with TwoSum: s's error goes to c exactly; c's own rounding (at most 2^-53 |c|) goes to
/// the bound, rounded up.
struct bounded_plus {
  template <class T>
  __host__ __device__ static constexpr T identity() {
    return T{0.0, 0.0, 0.0};
  }
  __device__ __forceinline__ bounded_sum operator()(bounded_sum a, double x) const {
    double s, e;
    two_sum(a.s, x, s, e);
    const double c = __dadd_rn(a.c, e);
    return {s, c, __fma_ru(fabs(c), 0x1p-53, a.bound)};
  }
  __device__ __forceinline__ bounded_sum operator()(bounded_sum a, bounded_sum b) const {
    double s, e;
    two_sum(a.s, b.s, s, e);
    const double t = __dadd_rn(a.c, b.c);
    const double c = __dadd_rn(t, e);
    const double err = __dmul_ru(__dadd_ru(fabs(t), fabs(c)), 0x1p-53);
    return {s, c, __dadd_ru(__dadd_ru(a.bound, b.bound), err)};
  }
};

/// Whether the estimate decides the rounding; if so, *r is the exact sum rounded to double.
/// Undecided: any non-finite part, a result below 2^-1021 (zero, subnormal, the sign of zero)
/// or above 2^1023, or a rounding boundary within the bound.
__device__ inline bool decide(const bounded_sum& t, double* r) {
  if (!isfinite(t.s) || !isfinite(t.c) || !isfinite(t.bound)) return false;
  double hi, lo;
  two_sum(t.s, t.c, hi, lo);  // hi = the estimate rounded; |lo| <= half an ulp of hi
  const double a = fabs(hi);
  if (!(a >= 0x1p-1021) || a > 0x1p1023) return false;
  // The neighbours' midpoints: hi + half_up and hi - half_down (exact: hi is normal).
  const long long bits = __double_as_longlong(hi), toward_up = hi > 0 ? 1 : -1;
  const double half_up = __dsub_rn(__longlong_as_double(bits + toward_up), hi) * 0.5;
  const double half_down = __dsub_rn(hi, __longlong_as_double(bits - toward_up)) * 0.5;
  // Lower bounds of the distances from the estimate hi + lo to those midpoints.
  const double gap_up = __dsub_rd(half_up, lo), gap_down = __dadd_rd(half_down, lo);
  if (!(gap_up > t.bound && gap_down > t.bound)) return false;
  *r = hi;
  return true;
}

// ---- double: the exact pass -----------------------------------------------------------------

/// Per thread: a two-term expansion hi + lo (both finite, |hi| < 2^1001) and flags.
struct expansion {
  double hi, lo;
  unsigned flags;
};

/// Adds a double exactly: what the expansion cannot hold goes straight to the workspace's
/// fixed-point accumulator (`limbs`, in global memory: fire-and-forget atomics).
struct expansion_add {
  unsigned long long* limbs;
  __device__ __forceinline__ expansion operator()(expansion a, double x) const {
    if (__double_as_longlong(x) != std::int64_t(0x8000000000000000ull)) a.flags |= flag_not_neg_zero;
    if (!isfinite(x)) {
      a.flags |= special_flags(x);
      return a;
    }
    if (fabs(x) >= 0x1p1000) {  // keep every TwoSum below overflow
      add_double(limbs, x);
      return a;
    }
    if (fabs(__dadd_rn(a.hi, x)) >= 0x1p1001) {
      add_double(limbs, a.hi);
      a.hi = x;
      return a;
    }
    double e, r;
    two_sum(a.hi, x, a.hi, e);
    two_sum(a.lo, e, a.lo, r);  // |lo| stays far below 2^1000 for any n below 2^44
    if (r != 0) add_double(limbs, r);
    return a;
  }
};

/// The exact pass's loads: four 16-byte vectors in flight per thread, 64 registers at most.
template <unsigned Block>
struct exact_pass_policy {
  static constexpr unsigned block = Block;
  static constexpr int unroll = 4;
};

template <unsigned Block>
__global__ void __launch_bounds__(Block, 1024 / Block) exact_double_kernel(const double* __restrict__ in, std::int64_t n,
                                                             double* __restrict__ out, state* st,
                                                             const bounded_sum* fast) {
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
      thread_reduce<exact_pass_policy<Block>>(span_of(in, n), load, op, expansion{0.0, 0.0, 0u}, thread, threads,
                                               l2_policy(false));
  acc.add_warp(e.hi);
  acc.add_warp(e.lo);
  const unsigned flags = __reduce_or_sync(0xffffffffu, e.flags);
  if (threadIdx.x % 32 == 0) acc.add_flags(flags);
  __threadfence();  // the remainders' atomics, before the ticket
  __syncthreads();
  finish_grid(acc, st, out, layout<double>::base, n == 0);
}

}  // namespace cured::device::exact
#undef CURED_ROLLED
