#pragma once
// Step 6: complete unrolling (Harris' kernel 6).
// Change: the block size is a template parameter, so every level of the tree is unrolled at
// compile time: no loop counter, no shift, and the levels a block does not have vanish.

#include "ladder/step05_unroll_last_warp.cuh"

namespace cured::ladder {

/// One level of the block tree at compile-time stride S, with its barrier.
template <unsigned Block, unsigned S, class Acc>
__device__ __forceinline__ void unrolled_level(Acc* sdata, unsigned tid) {
  if constexpr (Block >= 2 * S && S > 32) {
    if (tid < S) sdata[tid] += sdata[tid + S];
    __syncthreads();
  }
}

template <unsigned Block, class In, class Acc>
__global__ void __launch_bounds__(Block) step06_kernel(const In* in, std::int64_t n, Acc* out) {
  __shared__ Acc sdata[warp_unrolled_smem<Block>];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = std::int64_t(blockIdx.x) * (2 * Block) + tid;
  Acc v = i < n ? Acc(in[i]) : Acc(0);
  if (i + Block < n) v += Acc(in[i + Block]);
  sdata[tid] = v;
  if constexpr (Block < 64) sdata[tid + 32] = Acc(0);
  __syncthreads();
  unrolled_level<Block, 512>(sdata, tid);
  unrolled_level<Block, 256>(sdata, tid);
  unrolled_level<Block, 128>(sdata, tid);
  unrolled_level<Block, 64>(sdata, tid);
  if (tid < 32) v = unrolled_warp_sum(sdata, tid);
  if (tid == 0) out[blockIdx.x] = v;
}

struct step06_complete_unroll : multi_pass_step<step06_complete_unroll> {
  static constexpr int number = 6;
  static constexpr std::string_view file = "step06_complete_unroll";
  static constexpr std::string_view title = "complete unrolling";
  static constexpr std::string_view change =
      "block size as a template parameter: every tree level unrolled at compile time";

  template <unsigned Block, class In>
  static std::int64_t grid(std::int64_t n) {
    return ceil_div(n, 2 * std::int64_t(Block));
  }
  template <unsigned Block, class In, class Acc>
  static constexpr auto kernel = step06_kernel<Block, In, Acc>;
};

}  // namespace cured::ladder
