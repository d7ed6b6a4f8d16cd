#pragma once
// Step 8: warp shuffles instead of shared memory for the tree.
// Change: each warp reduces its 32 values in registers with __shfl_down_sync (5 steps, no
// shared memory, no barrier); only one value per warp goes through shared memory, and one
// __syncthreads() replaces the log2(block) - 5 barriers of step 7.

#include <algorithm>

#include "ladder/step07_multiple_elements_per_thread.cuh"

namespace cured::ladder {

/// Sum over the 32 lanes of a full warp. Result valid in lane 0 only.
template <class Acc>
__device__ __forceinline__ Acc warp_sum(Acc v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

/// Sum over the block: warps in registers, then warp 0 over the warps' sums.
/// Result valid in thread 0 only. Every thread of the block must call it.
template <unsigned Block, class Acc>
__device__ Acc shuffle_block_sum(Acc v) {
  v = warp_sum(v);
  if constexpr (Block > 32) {
    __shared__ Acc warp_sums[Block / 32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_sum(lane < Block / 32 ? warp_sums[lane] : Acc(0));
  }
  return v;
}

template <unsigned Block, class In, class Acc>
__global__ void __launch_bounds__(Block) step08_kernel(const In* in, std::int64_t n, Acc* out) {
  const std::int64_t grid_size = std::int64_t(2 * Block) * gridDim.x;
  Acc v = Acc(0);
  for (std::int64_t i = std::int64_t(blockIdx.x) * (2 * Block) + threadIdx.x; i < n; i += grid_size) {
    v += Acc(in[i]);
    if (i + Block < n) v += Acc(in[i + Block]);
  }
  v = shuffle_block_sum<Block>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

struct step08_warp_shuffle : multi_pass_step<step08_warp_shuffle> {
  static constexpr int number = 8;
  static constexpr std::string_view file = "step08_warp_shuffle";
  static constexpr std::string_view title = "warp shuffle reductions";
  static constexpr std::string_view change =
      "warps reduce in registers with __shfl_down_sync; one barrier instead of log2(block)-5";

  template <unsigned Block, class In>
  static std::int64_t grid(std::int64_t n) {
    return std::min(ceil_div(n, 2 * std::int64_t(Block)), full_wave_blocks(Block));
  }
  template <unsigned Block, class In, class Acc>
  static constexpr auto kernel = step08_kernel<Block, In, Acc>;
};

}  // namespace cured::ladder
