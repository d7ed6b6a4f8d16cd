#pragma once
// The fixed-point accumulator of the exact sums: the exact sum of any number of finite
// floating-point values, kept as 32-bit digits in 64-bit limbs and rounded once.
//
// Every finite float, half, bfloat16 or double is an integer times a power of two, so their
// exact sum is one long fixed-point number. Limb j counts units of 2^(base + 32 j) and may
// exceed 32 bits between normalizations ("carry-save"); digits are added with integer atomics,
// whose order cannot change the result; round_fixed rounds the number to nearest-even once.
// A block adds into its block_accumulator in shared memory; finish_grid adds the blocks'
// accumulators into the workspace's state and the last block rounds the total.

#include <cuda/atomic>
#include <cuda/std/limits>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

// Keeps a loop rolled in device code (the host compiler does not know the pragma).
#ifdef __CUDA_ARCH__
#define CURED_ROLLED _Pragma("unroll 1")
#else
#define CURED_ROLLED
#endif

namespace cured::device::exact {


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
  unsigned int undecided;  ///< the axis exact sums' outputs left to the exact pass
  unsigned int pad;
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
    std::int64_t m = 0;
    int p = 0;
    if (v != 0) decompose(v, m, p);
    add_warp(m, p);
  }
  /// One integer m * 2^p per lane of a full warp (m = 0: nothing), as add_warp(double).
  __device__ void add_warp(std::int64_t m, int p) {
    constexpr int window = 8;
    const bool v = m != 0;
    const int j = v ? p >> 5 : Limbs;
    const int low = int(__reduce_min_sync(0xffffffffu, unsigned(j)));
    if (low == Limbs) return;  // all zero
    std::uint64_t slot[window] = {};
    if (v && j - low <= window - 3) {
      add_scaled(m, p, [&](int k, std::uint64_t digit) {
#pragma unroll
        for (int w = 0; w < window; ++w) slot[w] += k - low == w ? digit : 0;
      });
    } else if (v) {
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
  /// Carries every limb but the last into [0, 2^32), the same number: limbs that keep growing
  /// stay below 2^62. One thread calls it, with no other thread adding.
  __device__ void normalize() {
    std::int64_t carry = 0;
    for (int j = 0; j + 1 < Limbs; ++j) {
      const std::int64_t v = std::int64_t(limbs[j]) + carry;
      carry = v >> 32;
      limbs[j] = (unsigned long long)(v & 0xffffffff);
    }
    limbs[Limbs - 1] += (unsigned long long)carry;
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

}  // namespace cured::device::exact
#undef CURED_ROLLED
