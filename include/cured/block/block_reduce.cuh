#pragma once
// Block-wide reduction: each warp with shuffles, then warp 0 over the warps' results.
//
//   __shared__ cured::block::reduce_storage<float, 256> tmp;
//   float s = cured::block::reduce<256>(v, cured::plus{}, tmp);  // valid in thread 0 only
//
// Contract: all Block threads call it (blockDim.x == Block); the result is valid in thread 0
// only; `storage` may be reused after a __syncthreads() that follows the call. The order of
// the combination depends only on Block.

#include "cured/warp/warp_reduce.cuh"

namespace cured::block {

template <class T, unsigned Block>
struct reduce_storage {
  T warp_results[Block / 32];
};

template <unsigned Block, class T, class Op>
__device__ __forceinline__ T reduce(T v, Op op, reduce_storage<T, Block>& storage) {
  static_assert(Block % 32 == 0 && Block >= 32 && Block <= 1024, "cured: block size must be a multiple of 32, <= 1024");
  static_assert((Block & (Block - 1)) == 0, "cured: block size must be a power of two");
  v = warp::reduce(v, op);
  if constexpr (Block > 32) {
    const unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
    if (lane == 0) storage.warp_results[w] = v;
    __syncthreads();
    if (w == 0) {
      // Lane 0's result depends on lanes [0, Block / 32) only; the others keep what they hold.
      if (lane < Block / 32) v = storage.warp_results[lane];
      v = warp::reduce<int(Block / 32)>(v, op);
    }
  }
  return v;
}

}  // namespace cured::block
