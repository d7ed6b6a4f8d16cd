#pragma once
// The exact sums along axes: each output the exact sum of its elements, rounded once.
//
// Two launches. The first is the axis engine's ordinary kernel (rows or columns) with a
// double-double accumulator and a rigorous bound on its error (bounded_sum, cured/exact/
// double_double.cuh): exact_store rounds the interval [estimate - bound, estimate + bound];
// when both ends round to the same value that value is the correctly rounded sum, whatever
// order the kernel added in. The rare outputs it cannot decide (a rounding boundary inside the
// interval; for doubles also NaN, infinities, overflow and results near zero) get a NaN mark
// and a count. The second launch, exact_rest_kernel, returns at once when the count is zero;
// otherwise its blocks find the marked outputs and sum each one exactly in a fixed-point
// accumulator (cured/exact/fixed_point.cuh) in shared memory.

#include <cstdint>
#include <type_traits>

#include "cured/device/axis_walk.cuh"
#include "cured/device/exact_sum.cuh"
#include "cured/exact/accumulator.cuh"
#include "cured/exact/double_double.cuh"
#include "cured/exact/fixed_point.cuh"
#include "cured/grid/split_combine.cuh"

namespace cured::device {

/// Each element exactly as a double (no flushing of subnormals).
struct widen_load {
  __device__ __forceinline__ double operator()(std::int64_t, double x) const { return x; }
  template <class In>
  __device__ __forceinline__ double operator()(std::int64_t, const In& x) const {
    return widen(to_float(x));
  }
};

/// The accumulator's identity: -0, so that the estimate stays -0 exactly when every element is.
constexpr exact::bounded_sum axis_identity{-0.0, 0.0, 0.0};

/// Round to nearest-even from double to float, never flushing subnormals.
__device__ __forceinline__ float narrow(double x) {
  float f;
  asm("cvt.rn.f32.f64 %0, %1;" : "=f"(f) : "d"(x));
  return f;
}

/// The interval [lo, hi] that holds the exact sum of t, rounded outward.
__device__ __forceinline__ void interval(const exact::bounded_sum& t, double& lo, double& hi) {
  lo = __dadd_rd(t.s, __dsub_rd(t.c, t.bound));
  hi = __dadd_ru(t.s, __dadd_ru(t.c, t.bound));
}

/// An exact sum of zero: -0 only when every element was -0, that is when the estimate (its
/// identity -0) is -0 itself.
template <class Out>
__device__ __forceinline__ Out exact_zero(const exact::bounded_sum& t) {
  return __double_as_longlong(t.s) == std::int64_t(0x8000000000000000ull) ? -Out(0) : Out(0);
}

/// Whether the interval of t (the sum of float, half or bfloat16 elements: multiples of
/// 2^-149) rounds to one float; if so, *r is the exact sum rounded to float. A double cannot
/// overflow on such elements, so a non-finite estimate comes from the elements themselves: NaN
/// for NaN or both infinities, else the infinity added.
__device__ inline bool decide_float(const exact::bounded_sum& t, float* r) {
  if (!isfinite(t.s)) {
    *r = t.s != t.s ? __int_as_float(0x7fc00000) : narrow(t.s);
    return true;
  }
  if (!isfinite(t.c) || !isfinite(t.bound)) return false;
  double lo, hi;
  interval(t, lo, hi);
  if (lo > -0x1p-149 && hi < 0x1p-149) {  // the only multiple of 2^-149 inside: zero
    *r = exact_zero<float>(t);
    return true;
  }
  const float a = narrow(lo), b = narrow(hi);  // rounding is monotonic: all between round alike
  if (__float_as_uint(a) != __float_as_uint(b)) return false;
  *r = a;
  return true;
}

/// As decide_float, for the sum of doubles rounded to double (decide), and an exact zero.
__device__ inline bool decide_double(const exact::bounded_sum& t, double* r) {
  if (isfinite(t.s) && isfinite(t.c) && isfinite(t.bound)) {
    double lo, hi;
    interval(t, lo, hi);
    if (lo == 0 && hi == 0) {
      *r = exact_zero<double>(t);
      return true;
    }
  }
  return exact::decide(t, r);
}

/// Whether v is a NaN (the mark), by its bits.
__device__ __forceinline__ bool is_mark(float v) { return (__float_as_uint(v) & 0x7fffffffu) > 0x7f800000u; }
__device__ __forceinline__ bool is_mark(double v) {
  return (std::uint64_t(__double_as_longlong(v)) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}

/// The first launch's store: the decided sum, +0 for an output with no elements, or the mark
/// (a NaN) and one more in st->undecided. n: the elements of each output.
template <class Out>
struct exact_store {
  Out* out;
  exact::state* st;
  std::int64_t n;
  __device__ __forceinline__ void operator()(std::int64_t at, const exact::bounded_sum& t) const { (*this)(at, t, n); }
  /// For an output of n elements (+0 when there are none).
  __device__ __forceinline__ void operator()(std::int64_t at, const exact::bounded_sum& t, std::int64_t n) const {
    Out r;
    bool decided;
    if (n == 0) {
      r = Out(0);
      decided = true;
    } else if constexpr (std::is_same_v<Out, double>) {
      decided = decide_double(t, &r);
    } else {
      decided = decide_float(t, &r);
    }
    if (decided) {
      out[at] = r;
      return;
    }
    out[at] = cuda::std::numeric_limits<Out>::quiet_NaN();
    atomicAdd(&st->undecided, 1u);
  }
};

/// An element as an integer m times 2^p units of its layout (float's 2^-150, double's
/// 2^-1074), m = 0 for zeros and non-finite values, whose flags go to `flags`.
__device__ __forceinline__ void exact_digits(double x, std::int64_t& m, int& p, unsigned& flags) {
  m = 0;
  p = 0;
  if (__double_as_longlong(x) != std::int64_t(0x8000000000000000ull)) flags |= exact::flag_not_neg_zero;
  if (!isfinite(x)) flags |= exact::special_flags(x);
  else if (x != 0) exact::decompose(x, m, p);
}
template <class In>
__device__ __forceinline__ void exact_digits(const In& x, std::int64_t& m, int& p, unsigned& flags) {
  const unsigned bits = __float_as_uint(to_float(x));
  m = 0;
  p = 0;
  if (bits != 0x80000000u) flags |= exact::flag_not_neg_zero;
  const unsigned e = (bits >> 23) & 0xff, frac = bits & 0x7fffffu;
  if (e == 0xff) {
    flags |= frac ? exact::flag_nan : (bits >> 31 ? exact::flag_neg_inf : exact::flag_pos_inf);
    return;
  }
  // A normal float is (frac + 2^23) * 2^(e - 150); a subnormal frac * 2^(1 - 150).
  m = e ? std::int64_t(frac | 0x800000u) : std::int64_t(frac);
  p = e ? int(e) : 1;
  if (bits >> 31) m = -m;
}

/// Elements between two carry passes of the block's limbs: each limb then stays below 2^62.
constexpr std::int64_t exact_rest_normalize_every = std::int64_t(1) << 24;

/// The outputs of a reduction along axes, as exact_rest_kernel walks them: `kept` maps an
/// output to its first element's offset and its output offset; `reduced` maps an element's
/// flat index within the output to its offset.
struct axis_outputs {
  axis_walk kept, reduced;
  std::int64_t count;
  __device__ __forceinline__ bool readable() const { return true; }
  __device__ __forceinline__ void output(std::int64_t o, std::int64_t& in_at, std::int64_t& out_at,
                                         std::int64_t& n) const {
    kept.at(o, in_at, out_at);
    n = reduced.size();
  }
  __device__ __forceinline__ std::int64_t element(std::int64_t i) const {
    std::int64_t at, unused;
    reduced.at(i, at, unused);
    return at;
  }
};

/// The second launch: every output marked by exact_store (the NaN mark; NaN results of the
/// first launch are summed again, to the same NaN) gets the exact sum of its elements, one
/// block per output. Outputs: where each output's elements and result are (axis_outputs, or
/// the segments' segment_outputs); nothing is read unless outputs.readable().
template <unsigned Block, class In, class Out, class Outputs>
__global__ void __launch_bounds__(Block) exact_rest_kernel(const In* __restrict__ in, Outputs outputs,
                                                           Out* __restrict__ out, exact::state* st) {
  constexpr int limbs = exact::layout<In>::limbs;
  __shared__ exact::block_accumulator<limbs> acc;
  __shared__ std::int64_t marked[Block];
  __shared__ unsigned count;
  if (__ldcg(&st->undecided) == 0) return;  // the usual case: every output decided
  if (outputs.readable()) {
    for (std::int64_t first = std::int64_t(blockIdx.x) * Block; first < outputs.count;
         first += std::int64_t(gridDim.x) * Block) {
      if (threadIdx.x == 0) count = 0;
      __syncthreads();
      const std::int64_t o = first + threadIdx.x;
      if (o < outputs.count) {
        std::int64_t in_at, out_at, n;
        outputs.output(o, in_at, out_at, n);
        if (is_mark(out[out_at])) marked[atomicAdd(&count, 1u)] = o;
      }
      __syncthreads();
      const unsigned m = count;
      for (unsigned k = 0; k < m; ++k) {
        std::int64_t in_at, out_at, n;
        outputs.output(marked[k], in_at, out_at, n);
        acc.clear();
        __syncthreads();
        unsigned flags = 0;
        for (std::int64_t begin = 0; begin < n; begin += Block) {
          std::int64_t digits = 0;
          int p = 0;
          const std::int64_t i = begin + threadIdx.x;
          if (i < n) exact_digits(in[in_at + outputs.element(i)], digits, p, flags);
          acc.add_warp(digits, p);
          if ((begin / Block + 1) % (exact_rest_normalize_every / Block) == 0) {
            __syncthreads();
            if (threadIdx.x == 0) acc.normalize();
            __syncthreads();
          }
        }
        flags = __reduce_or_sync(0xffffffffu, flags);
        if (threadIdx.x % 32 == 0) acc.add_flags(flags);
        __syncthreads();
        if (threadIdx.x == 0)
          out[out_at] = exact::round_fixed<Out>(reinterpret_cast<const std::int64_t*>(acc.limbs), limbs,
                                                exact::layout<In>::base, acc.flags, n == 0);
        __syncthreads();
      }
    }
  }
  // The last block to finish leaves the count at zero for the next call.
  if (grid::last_to_arrive(&st->ticket, gridDim.x) && threadIdx.x == 0) st->undecided = 0;
}

}  // namespace cured::device
