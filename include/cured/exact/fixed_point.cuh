#pragma once
// The fixed-point accumulator of the exact sums: the exact sum of any number of finite
// floating-point values, kept as 32-bit digits in 64-bit limbs and rounded once.
//
// Every finite float, half, bfloat16 or double is an integer times a power of two, so their
// exact sum is one long fixed-point number. Limb j counts units of 2^(base + 32 j) and may
// exceed 32 bits between normalizations ("carry-save"); digits are added with integer atomics,
// whose order cannot change the result; round_fixed rounds the number to nearest-even once
// (one thread; warp_round.cuh: a warp). The blocks' accumulators and the end of the kernels
// are in accumulator.cuh.
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

namespace cured::exact {


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
/// The exact dot products' fixed points. Products of floats or bfloat16s are multiples of
/// 2^-298 below 2^256: 20 limbs (640 bits: above 2^44 of the largest). Products of doubles are
/// multiples of 2^-2148 below 2^2048: 134 limbs (4288 bits). (Products of halves are floats:
/// layout<float>.)
struct float_dot_layout {
  static constexpr int base = -298;
  static constexpr int limbs = 20;
};
struct double_dot_layout {
  static constexpr int base = -2148;
  static constexpr int limbs = 134;
};
constexpr int max_limbs = 134;

/// What a workspace holds for the exact sums between kernels (zero between calls).
struct state {
  unsigned int ticket;
  unsigned int flags;
  unsigned int undecided;  ///< outputs (axes, segments) or a result (expansion_kernel) left to the exact pass
  unsigned int pad;
  unsigned long long limbs[max_limbs];
};

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
/// Bits [lo, lo + width) (width <= 64) of the number whose 32-bit digit k is digit(k), a
/// std::uint64_t (0 outside the number).
template <class Digit>
__host__ __device__ std::uint64_t extract(Digit&& digit, int lo, int width) {
  const int j = lo >> 5, s = lo & 31;
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

/// The magnitude whose leading one is bit `msb` (bit i weighs 2^(base + i)) rounded once to
/// Out, round-to-nearest-even, inf beyond the largest finite value; bits(lo, width) reads bits
/// [lo, lo + width) of the magnitude (width <= 64) and below(end) whether any of bits [0, end)
/// is set. The calls depend only on msb and base (a warp may answer them together).
template <class Out, class Bits, class Below>
__host__ __device__ Out round_magnitude(int msb, int base, bool negative, Bits&& bits, Below&& below) {
  using lim = cuda::std::numeric_limits<Out>;
  constexpr int precision = lim::digits;             // 24, 53
  constexpr int min_normal = lim::min_exponent - 1;  // -126, -1022
  constexpr int max_exponent = lim::max_exponent - 1;  // 127, 1023
  // The exponent of the result's last bit: precision bits below the leading one, but never
  // below the subnormals' last bit.
  int lsb = msb + base - precision + 1;
  if (lsb < min_normal - precision + 1) lsb = min_normal - precision + 1;
  const int cut = lsb - base;  // bits below `cut` are rounded off
  std::uint64_t mant;
  int exponent;
  if (cut <= 0) {  // every bit fits
    mant = bits(0, msb + 1);
    exponent = base;
  } else {
    mant = bits(cut, msb - cut + 1);
    const bool round = bits(cut - 1, 1) != 0;
    const bool sticky = below(cut - 1);
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

/// The result of IEEE's rules for the flags alone, if they decide it: NaN for a NaN or for
/// +inf and -inf together, else the infinity that was added; false if no special value was.
template <class Out>
__host__ __device__ bool special_result(unsigned flags, Out& r) {
  using lim = cuda::std::numeric_limits<Out>;
  if ((flags & flag_nan) || ((flags & flag_pos_inf) && (flags & flag_neg_inf))) r = lim::quiet_NaN();
  else if (flags & flag_pos_inf) r = lim::infinity();
  else if (flags & flag_neg_inf) r = -lim::infinity();
  else return false;
  return true;
}

/// The zero an exact zero sum rounds to: -0 only when every input was -0 (empty: +0).
template <class Out>
__host__ __device__ Out exact_zero_result(unsigned flags, bool empty) {
  return (empty || (flags & flag_not_neg_zero)) ? Out(0) : -Out(0);
}

/// The fixed-point number sum_j limbs[j] * 2^(base + 32 j), rounded once to Out (float or
/// double), round-to-nearest-even, with IEEE's rules for the flags: NaN, or +inf and -inf
/// together, give NaN; one infinity gives itself; a sum beyond the largest finite value gives
/// inf of its sign; an exact zero is -0 only when every input was -0 (empty: +0).
/// `limbs` must hold values below 2^62 in magnitude; `count` <= max_limbs. One thread.
template <class Out>
__host__ __device__ Out round_fixed(const std::int64_t* limbs, int count, int base, unsigned flags, bool empty) {
  Out special;
  if (special_result(flags, special)) return special;
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
  if (top < 0) return exact_zero_result<Out>(flags, empty);
  const int msb = 32 * top + 31 - detail::leading_zeros(d[top]);  // the leading one's bit
  auto digit = [&](int k) -> std::uint64_t { return k >= 0 && k < count ? d[k] : 0u; };
  return round_magnitude<Out>(
      msb, base, negative, [&](int lo, int width) { return detail::extract(digit, lo, width); },
      [&](int end) { return detail::any_below(d, end); });
}

}  // namespace cured::exact
#undef CURED_ROLLED
