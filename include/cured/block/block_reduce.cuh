#pragma once
// Block-wide reduction: each warp with shuffles, then warp 0 over the warps' results.
//
//   __shared__ cured::block::reduce_storage<float, 256> tmp;
//   float s = cured::block::reduce<256>(v, cured::plus{}, 0.0f, tmp);  // valid in thread 0 only
//
// Contract: all Block threads call it (blockDim.x == Block); the result is valid in thread 0
// only; `storage` may be reused after a __syncthreads() that follows the call.

#include "cured/warp/warp_reduce.cuh"

namespace cured::block {

template <class T, unsigned Block>
struct reduce_storage {
  T warp_results[Block / 32];
};

/// Each warp with shuffles, then warp 0 over the first `warps` warps' results (reduce and
/// reduce_up_to).
template <unsigned MaxBlock, class T, class Op>
__device__ __forceinline__ T reduce_warps(T v, Op& op, const T& identity, reduce_storage<T, MaxBlock>& storage,
                                          unsigned warps) {
  static_assert(MaxBlock % 32 == 0 && MaxBlock >= 32 && MaxBlock <= 1024,
                "cured: block size must be a multiple of 32, <= 1024");
  v = warp::reduce(v, op);
  if constexpr (MaxBlock > 32) {
    const unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
    if (lane == 0) storage.warp_results[w] = v;
    __syncthreads();
    if (w == 0) v = warp::reduce(lane < warps ? storage.warp_results[lane] : identity, op);
  }
  return v;
}

template <unsigned Block, class T, class Op>
__device__ __forceinline__ T reduce(T v, Op op, const T& identity, reduce_storage<T, Block>& storage) {
  return reduce_warps<Block>(v, op, identity, storage, Block / 32);
}

/// The same for a block of blockDim.x threads, a multiple of 32 up to MaxBlock (a kernel
/// launched with fewer threads than its largest block); `storage` is sized for MaxBlock.
template <unsigned MaxBlock, class T, class Op>
__device__ __forceinline__ T reduce_up_to(T v, Op op, const T& identity, reduce_storage<T, MaxBlock>& storage) {
  return reduce_warps<MaxBlock>(v, op, identity, storage, blockDim.x / 32);
}

}  // namespace cured::block
