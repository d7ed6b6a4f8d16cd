#pragma once
// Block-wide segmented scan: what comes before each thread since the last segment that a
// thread before it closed, from a carry in.
//
//   __shared__ float warp_total[8], warp_before[8];
//   __shared__ bool warp_closed[8];
//   const float before = cured::block::segmented_prefix<256>(closed, v, 0.f, cured::plus{}, carry,
//                                                            warp_total, warp_before, warp_closed);
//
// Contract: all Block threads call it; `v` is the thread's part after the last segment it
// closed (`closed`), or all of its part; `carry` (shared) is what comes before thread 0. The
// result, in every thread, is op over carry (when no thread before closed) and the parts since
// the last close before this thread. Thread 0 sets carry to what follows the block's last
// close. Two barriers; the warp arrays (shared, Block / 32 each) may be reused after a
// __syncthreads() that follows the call.
// The order of combination depends only on Block.

#include "cured/warp/warp_reduce.cuh"

namespace cured::block {

template <unsigned Block, class T, class Op, class Closed>
__device__ __forceinline__ void segmented_prefix(bool closed, const T& v, const T& identity, const Op& op, T& carry,
                                                 T (&warp_total)[Block / 32], T (&warp_before)[Block / 32],
                                                 bool (&warp_closed)[Block / 32], unsigned lane, unsigned w,
                                                 Closed with_prefix) {
  const unsigned t = threadIdx.x;
  const auto [f, r, f_before, r_before] = warp::segmented_scan(closed, v, identity, op);
  if (lane == 31) {
    warp_closed[w] = f;
    warp_total[w] = r;
  }
  __syncthreads();
  if (t == 0) {
    T c = carry;
    for (unsigned u = 0; u < Block / 32; ++u) {
      warp_before[u] = c;
      c = warp_closed[u] ? warp_total[u] : op(c, warp_total[u]);
    }
    carry = c;
  }
  __syncthreads();
  if (closed) with_prefix(f_before ? r_before : op(warp_before[w], r_before));
}

}  // namespace cured::block
