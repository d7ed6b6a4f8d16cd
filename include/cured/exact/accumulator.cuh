#pragma once
// The exact kernels' accumulators: a block's fixed-point accumulator in shared memory, the
// out-of-line path for the values the per-thread structures cannot hold, and the end of every
// exact kernel (finish_grid), which adds the blocks' accumulators into the workspace's and
// rounds the total once.

#include <cuda/atomic>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cured/exact/fixed_point.cuh"
#include "cured/exact/warp_round.cuh"

namespace cured::exact {

/// A finite double as a signed integer m times 2^p units of 2^base (base <= -1074 + p's
/// shift: the double's own unit 2^-1074 is 2^shift units). Doubles below the unit must be
/// multiples of it (sums of products): their low bits, zero, are shifted out.
template <int Base>
__device__ __forceinline__ void decompose_at(double v, std::int64_t& m, int& p) {
  decompose(v, m, p);
  p += -1074 - Base;
  if (p < 0) {
    m >>= -p;  // exact: the bits below the unit are zero
    p = 0;
  }
}

/// Adds v (two's complement) to the 64-bit shared-memory limb at shared address `at` with
/// 32-bit atomics: the low word, then the high word with the low word's carry. sm_90 has no
/// 64-bit shared-memory atomic add: atomicAdd on one compiles to a compare-and-swap loop
/// (ATOMS.CAST.SPIN.64), which the block's threads contend on. The limb's value after all adds
/// is their sum modulo 2^64 in any order: each low-word atomic sees its own carry.
__device__ __forceinline__ void shared_add64(unsigned at, std::uint64_t v) {
  const unsigned lo = unsigned(v);
  unsigned hi = unsigned(v >> 32);
  if (lo) {
    unsigned old;
    asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(at), "r"(lo) : "memory");
    hi += old + lo < old;  // the carry out of the low word
  }
  if (hi) asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(at + 4u), "r"(hi) : "memory");
}

/// Adds m * 2^p to the shared-memory limbs at shared address `at` (shared_add64, digit by digit).
__device__ __forceinline__ void add_scaled_shared(unsigned at, std::int64_t m, int p) {
  add_scaled(m, p, [at](int j, std::uint64_t digit) { shared_add64(at + 8u * unsigned(j), digit); });
}

/// add_scaled_shared on `limbs`, kept out of line: the expansions call it only for what they
/// cannot hold.
inline __device__ __noinline__ void add_to_shared(unsigned long long* limbs, std::int64_t m, int p) {
  add_scaled_shared(unsigned(__cvta_generic_to_shared(limbs)), m, p);
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
    add_scaled_shared(unsigned(__cvta_generic_to_shared(limbs)), v, p);
  }
  /// A finite double of a layout with base Base, out of line (add_to_shared).
  template <int Base>
  __device__ __forceinline__ void add_rare(double v) {
    if (v == 0) return;
    std::int64_t m;
    int p;
    decompose_at<Base>(v, m, p);
    add_to_shared(limbs, m, p);
  }
  /// One finite double per lane of a full warp. Lanes whose digits fall within 8 limbs of the
  /// warp's lowest are summed with shuffles first (one atomic per limb instead of one per lane
  /// and digit: 32 lanes on the same address would serialize); the others add their own.
  template <int Base = -1074>
  __device__ void add_warp(double v) {
    std::int64_t m = 0;
    int p = 0;
    if (v != 0) decompose_at<Base>(v, m, p);
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
        if (slot[w]) shared_add64(unsigned(__cvta_generic_to_shared(&limbs[low + w])), slot[w]);
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

/// A sum known to within a bound: the exact value lies in [e - b, e + b].
struct estimate {
  double e, b;
};
/// x + y, its rounding error (at most 2^-53 of the rounded sum) added to the bound upward.
__device__ __forceinline__ estimate combine(estimate x, estimate y) {
  const double t = __dadd_rn(x.e, y.e);
  return {t, __fma_ru(fabs(t), 0x1p-53, __dadd_ru(x.b, y.b))};
}

/// The bounded sum of the lanes' estimates in lane 0.
__device__ __forceinline__ estimate warp_combine(estimate x) {
#pragma unroll
  for (unsigned o = 16; o > 0; o >>= 1)
    x = combine(x, {__shfl_down_sync(0xffffffffu, x.e, o), __shfl_down_sync(0xffffffffu, x.b, o)});
  return x;
}

namespace detail {
/// Adds x (a multiple of 2^base, or rounded up to one when `up`) to the warp's limbs v (lane l
/// owns limbs l*W .. l*W + W - 1). Every lane passes the same x.
template <int W>
__device__ void warp_add(std::int64_t (&v)[W], double x, int base, bool up) {
  if (x == 0) return;
  std::int64_t m;
  int p;
  decompose(x, m, p);
  p += -1074 - base;
  if (p < 0) {
    const std::int64_t unit = std::int64_t(1) << -p;
    m = up ? (m + unit - 1) >> -p : m >> -p;
    p = 0;
  }
  const int first = int(threadIdx.x % 32) * W;
  add_scaled(m, p, [&](int j, std::uint64_t digit) {
#pragma unroll
    for (int k = 0; k < W; ++k)
      if (first + k == j) v[k] += std::int64_t(digit);
  });
}

/// The rounding of the exact sum F + E, where the warp holds F (limbs v) and E lies in
/// [rem.e - rem.b, rem.e + rem.b]: F + rem.e - rem.b and F + rem.e + rem.b rounded (rounding is
/// monotonic); decided when both give the same bits. flags decide first; an exact rem (b = 0)
/// always decides.
template <class Out, int W>
__device__ bool round_estimated(std::int64_t (&v)[W], int base, unsigned flags, bool empty, estimate rem, Out& r) {
  if (special_result(flags, r)) return true;
  if (rem.b == 0) {
    warp_add(v, rem.e, base, false);
    r = warp_round<Out>(v, base, flags, empty);
    return true;
  }
  if (!isfinite(rem.e) || !isfinite(rem.b)) return false;
  warp_add(v, rem.e, base, false);  // exact: rem.e is a sum of multiples of the unit, rounded
  std::int64_t lo[W], hi[W];
#pragma unroll
  for (int k = 0; k < W; ++k) lo[k] = hi[k] = v[k];
  warp_add(lo, -rem.b, base, false);  // -b rounded down: its magnitude up
  warp_add(hi, rem.b, base, true);
  const Out a = warp_round<Out>(lo, base, flags, empty), b = warp_round<Out>(hi, base, flags, empty);
  r = a;
  if constexpr (sizeof(Out) == 8) return __double_as_longlong(a) == __double_as_longlong(b);
  else return __float_as_uint(a) == __float_as_uint(b);
}
}  // namespace detail

/// The end of every exact kernel: the block's accumulator (complete: a __syncthreads() came
/// before) goes to the workspace's with atomics; the block that draws the last ticket takes the
/// total, resets the workspace's state and writes the rounded result to *out (warp_round: lane
/// l owns limbs l*W .. l*W + W - 1), or, when out is a shard_sink (shard.cuh), the total
/// itself, unrounded. A grid of one block rounds its own accumulator.
/// Estimated: the kernel also carries remainders known only within a bound, `rem` (the
/// block's total, read by warp 0); each block leaves it in slots[blockIdx.x] for the last,
/// which rounds the total with round_estimated and, if that does not decide, writes nothing
/// and sets st->undecided for the exact pass that follows.
template <bool Estimated, class Dest, int Limbs>
__device__ void finish_grid(block_accumulator<Limbs>& acc, state* st, Dest out, int base, bool empty,
                            estimate rem = {}, estimate* slots = nullptr) {
  if (threadIdx.x >= 32) return;
  constexpr int W = (Limbs + 31) / 32;
  const unsigned lane = threadIdx.x;
  unsigned flags = acc.flags;  // read only: no lane writes the shared accumulator any more
  std::int64_t v[W];
#pragma unroll
  for (int k = 0; k < W; ++k) {
    const int j = int(lane) * W + k;
    v[k] = j < Limbs ? std::int64_t(acc.limbs[j]) : 0;
  }
  if (gridDim.x > 1) {
#pragma unroll
    for (int k = 0; k < W; ++k)
      if (v[k]) atomicAdd(&st->limbs[int(lane) * W + k], (unsigned long long)v[k]);
    if (lane == 0 && flags) atomicOr(&st->flags, flags);
    if (Estimated && lane == 0) slots[blockIdx.x] = rem;
    __threadfence();
    __syncwarp();
    unsigned last = 0;
    if (lane == 0) {
      cuda::atomic_ref<unsigned int, cuda::thread_scope_device> t(st->ticket);
      last = t.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    if (!__shfl_sync(0xffffffffu, last, 0)) return;
    __threadfence();
    // Take the totals and leave zeros for the next call.
#pragma unroll
    for (int k = 0; k < W; ++k) {
      const int j = int(lane) * W + k;
      v[k] = j < Limbs ? std::int64_t(atomicExch(&st->limbs[j], 0ull)) : 0;
    }
    flags = __shfl_sync(0xffffffffu, lane == 0 ? atomicExch(&st->flags, 0u) : 0u, 0);
    if constexpr (Estimated) {
      estimate total{0.0, 0.0};
      for (unsigned b = lane; b < gridDim.x; b += 32)
        total = combine(total, {__ldcg(&slots[b].e), __ldcg(&slots[b].b)});
      total = warp_combine(total);
      rem = {__shfl_sync(0xffffffffu, total.e, 0), __shfl_sync(0xffffffffu, total.b, 0)};
    }
    if (lane == 0) st->ticket = 0;
  }
  if constexpr (!std::is_pointer_v<Dest>) {
    static_assert(!Estimated, "cured: a shard's sum is exact");
    out.write(v, flags, empty);
  } else {
    using Out = std::remove_pointer_t<Dest>;
    Out r;
    bool decided = true;
    if constexpr (Estimated) decided = detail::round_estimated(v, base, flags, empty, rem, r);
    else r = warp_round<Out>(v, base, flags, empty);
    if (lane == 0) {
      if (decided) *out = r;
      // The estimating pass leaves the flag for the exact pass, which clears it.
      st->undecided = decided ? 0u : 1u;
    }
  }
}

}  // namespace cured::exact
