#pragma once
// The ops of the exact dot products (exact_sum.cuh's kernels): each makes a product exact in a
// wider format and adds it exactly.
//
// - half: a product of halves has at most 22 significant bits between 2^-48 and 2^32: an
//   exact float, added to the float bins (bins_kernel).
// - float, bfloat16: a product has at most 48 bits between 2^-298 and 2^256: an exact double,
//   added to the thread's expansion (expansion_kernel, float_dot_layout).
// - double: p = a * b rounded and its error fma(a, b, -p) are exact doubles when |p| lies in
//   [2^-960, 2^1000) (the error is then above the subnormals, and no TwoSum overflows): both
//   go to the expansion. Other products (zero, tiny, huge, NaN, inf) take product_to_shared:
//   the 106-bit integer product of the significands, added to the block's accumulator in the
//   double_dot_layout, whose 134 limbs hold 2^44 products of the largest doubles.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "cured/device/exact_sum.cuh"

namespace cured::device {

/// The product of two halves (an exact float) into the float bins.
template <unsigned Block>
struct half_dot_bins {
  bins_add<float, Block> add;
  __device__ __forceinline__ double operator()(double acc, __half a, __half b) const {
    return add(acc, __fmul_rn(to_float(a), to_float(b)));
  }
};

/// The product of two floats or bfloat16s (an exact double) into the expansion.
template <class In, bool Exact>
struct narrow_dot_expansion {
  exact::expansion_add<exact::block_accumulator<exact::float_dot_layout::limbs>, exact::float_dot_layout::base, Exact>
      add;
  __device__ __forceinline__ exact::expansion operator()(exact::expansion e, In a, In b) const {
    return add(e, __dmul_rn(widen(to_float(a)), widen(to_float(b))));
  }
};

/// The exact product a * b of finite or special doubles into the double_dot_layout's shared
/// limbs; returns the flags it contributes (IEEE's: NaN for NaN or inf * 0; the sign of an
/// exact zero product is the xor of the signs).
inline __device__ __noinline__ unsigned product_to_shared(unsigned long long* limbs, double a, double b) {
  const bool negative = signbit(a) != signbit(b);
  if (!isfinite(a) || !isfinite(b)) {
    if (a != a || b != b || a == 0 || b == 0) return exact::flag_nan | exact::flag_not_neg_zero;
    return (negative ? exact::flag_neg_inf : exact::flag_pos_inf) | exact::flag_not_neg_zero;
  }
  std::int64_t ma, mb;
  int pa, pb;
  exact::decompose(a, ma, pa);
  exact::decompose(b, mb, pb);
  if (ma == 0 || mb == 0) return negative ? 0u : exact::flag_not_neg_zero;
  const std::uint64_t ua = std::uint64_t(ma < 0 ? -ma : ma), ub = std::uint64_t(mb < 0 ? -mb : mb);
  const std::uint64_t lo = ua * ub, hi = __umul64hi(ua, ub);  // below 2^106: hi below 2^42
  const std::int64_t low = std::int64_t(lo & ((std::uint64_t(1) << 53) - 1));
  const std::int64_t high = std::int64_t((hi << 11) | (lo >> 53));
  // ma * 2^(pa - 1074) * mb * 2^(pb - 1074): units of 2^-2148 at pa + pb.
  exact::add_to_shared(limbs, negative ? -low : low, pa + pb);
  exact::add_to_shared(limbs, negative ? -high : high, pa + pb + 53);
  return exact::flag_not_neg_zero;
}

/// The product of two doubles into the expansion: p and its error, or product_to_shared.
template <bool Exact>
struct double_dot_expansion {
  exact::expansion_add<exact::block_accumulator<exact::double_dot_layout::limbs>, exact::double_dot_layout::base, Exact>
      add;
  __device__ __forceinline__ exact::expansion operator()(exact::expansion e, double a, double b) const {
    const double p = __dmul_rn(a, b), m = fabs(p);
    if (m >= 0x1p-960 && m < 0x1p1000) return add(add(e, p), __fma_rn(a, b, -p));
    e.flags |= product_to_shared(add.acc->limbs, a, b);
    return e;
  }
};

}  // namespace cured::device
