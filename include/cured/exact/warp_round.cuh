#pragma once
// round_fixed for a full warp: the fixed-point number spread over the lanes' registers, its
// carries rippled with shuffles, its leading one found with a ballot, its rounding bits
// fetched from the lanes that hold them. The end of every exact kernel rounds with it.

#include <cstdint>

#include "cured/exact/fixed_point.cuh"

namespace cured::exact {

namespace detail {
/// Adds the small signed carry c (|c| < 2^31) to the digits d (this lane's W consecutive
/// digits) and returns the carry out of them: -1, 0 or 1.
template <int W>
__device__ __forceinline__ std::int64_t add_carry(std::uint32_t (&d)[W], std::int64_t c) {
#pragma unroll
  for (int k = 0; k < W; ++k) {
    const std::int64_t t = std::int64_t(d[k]) + c;
    d[k] = std::uint32_t(t);
    c = t >> 32;
  }
  return c;
}
/// Delivers every lane's carry c (|c| < 2^31) to the lane above, and the carries that causes
/// in turn, until none is left; returns the carry out of lane 31. After the first step every
/// carry is -1, 0 or 1, and a unit carry runs on through the lanes whose digits are all ones
/// (a +1) or all zeros (a -1): each sign's carries are delivered at once by carry lookahead
/// over the lanes' bitmasks (the carries into the lanes of A + B, with A the lanes that
/// generate or propagate and B those that generate). A lane that both generates and would
/// propagate keeps the second carry for another round (it cannot arise twice in a row).
template <int W>
__device__ __forceinline__ std::int64_t ripple(std::uint32_t (&d)[W], std::int64_t c) {
  const unsigned lane = threadIdx.x % 32, full = 0xffffffffu;
  std::int64_t out = __shfl_sync(full, c, 31);
  std::int64_t in = __shfl_up_sync(full, c, 1);
  c = lane > 0 && in ? add_carry(d, in) : 0;
  while (__any_sync(full, c != 0)) {
#pragma unroll
    for (int sign = 1; sign >= -1; sign -= 2) {
      const std::uint32_t all = sign > 0 ? 0xffffffffu : 0u;
      bool run = true;
#pragma unroll
      for (int k = 0; k < W; ++k) run &= d[k] == all;
      const unsigned g = __ballot_sync(full, c == sign), p = __ballot_sync(full, run) & ~g;
      const std::uint64_t sum = std::uint64_t(g | p) + g;
      const unsigned into = std::uint32_t(sum) ^ (g | p) ^ g;  // bit l: a carry reaches lane l
      out += sign * std::int64_t(sum >> 32);
      if (c == sign) c = 0;
      if ((into >> lane) & 1) {
        const std::int64_t r = add_carry(d, sign);
        if (!((p >> lane) & 1)) c += r;  // a propagating lane's carry is already delivered
      }
    }
  }
  return out;
}
template <int W>
__device__ __forceinline__ std::uint32_t pick(const std::uint32_t (&d)[W], int k) {
  std::uint32_t r = 0;
#pragma unroll
  for (int i = 0; i < W; ++i) r = i == k ? d[i] : r;
  return r;
}
}  // namespace detail

/// round_fixed for a full warp: lane l holds limbs l*W .. l*W + W - 1 (below 2^62 in
/// magnitude; zero past the number's last limb). Every lane returns the result. No local
/// memory and no serial loop over the limbs: a few hundred instructions for any W.
template <class Out, int W>
__device__ Out warp_round(const std::int64_t (&v)[W], int base, unsigned flags, bool empty) {
  Out special;
  if (special_result(flags, special)) return special;
  const unsigned lane = threadIdx.x % 32;
  std::uint32_t d[W];
  std::int64_t c = 0;
#pragma unroll
  for (int k = 0; k < W; ++k) {  // the lane's own carries
    const std::int64_t t = v[k] + c;
    d[k] = std::uint32_t(t);
    c = t >> 32;
  }
  // The number is sum d * 2^(32 j) + top * 2^(32 * 32 W), and |number| < 2^(32 * 32 W - 1): top
  // is 0 or -1, the sign.
  std::int64_t top = detail::ripple(d, c);
  const bool negative = top < 0;
  if (negative) {  // the magnitude: two's complement of the digits
#pragma unroll
    for (int k = 0; k < W; ++k) d[k] = ~d[k];
    detail::ripple(d, lane == 0 ? detail::add_carry(d, 1) : std::int64_t(0));
  }
  int my_msb = -1;
#pragma unroll
  for (int k = 0; k < W; ++k)
    if (d[k]) my_msb = 32 * (int(lane) * W + k) + 31 - detail::leading_zeros(d[k]);
  const unsigned nonzero = __ballot_sync(0xffffffffu, my_msb >= 0);
  if (nonzero == 0) return exact_zero_result<Out>(flags, empty);
  const int msb = __shfl_sync(0xffffffffu, my_msb, 31 - __clz(int(nonzero)));
  auto digit = [&](int j) -> std::uint64_t {  // digit j of the magnitude, from the lane holding it
    const std::uint32_t mine = detail::pick(d, j >= 0 ? j % W : 0);
    const std::uint32_t r = __shfl_sync(0xffffffffu, mine, j >= 0 ? (j / W) % 32 : 0);
    return j >= 0 && j < 32 * W ? r : 0u;
  };
  auto bits = [&](int lo, int width) { return detail::extract(digit, lo, width); };
  auto below = [&](int end) {
    bool any = false;
#pragma unroll
    for (int k = 0; k < W; ++k) {
      const int j = int(lane) * W + k;
      const int keep = end - 32 * j;  // bits of digit j below `end`
      if (keep >= 32) any |= d[k] != 0;
      else if (keep > 0) any |= (d[k] & ((1u << keep) - 1)) != 0;
    }
    return __any_sync(0xffffffffu, any) != 0;
  };
  return round_magnitude<Out>(msb, base, negative, bits, below);
}

}  // namespace cured::exact
