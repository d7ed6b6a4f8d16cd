#pragma once
// Step 3: sequential addressing (Harris' kernel 3).
// Change: the stride starts at half the block and halves; thread t adds sdata[t + s], so a
// warp reads 32 consecutive words: no bank conflicts, and active threads stay contiguous.

#include "ladder/common.cuh"

namespace cured::ladder {

template <unsigned Block, class In, class Acc>
__global__ void __launch_bounds__(Block) step03_kernel(const In* in, std::int64_t n, Acc* out) {
  __shared__ Acc sdata[Block];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + tid;
  sdata[tid] = i < n ? Acc(in[i]) : Acc(0);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

struct step03_sequential_addressing : multi_pass_step<step03_sequential_addressing> {
  static constexpr int number = 3;
  static constexpr std::string_view file = "step03_sequential_addressing";
  static constexpr std::string_view title = "sequential addressing";
  static constexpr std::string_view change =
      "stride halves from blockDim/2 and thread t adds sdata[t+s]: consecutive words, no bank conflicts";

  template <unsigned Block, class In>
  static std::int64_t grid(std::int64_t n) {
    return ceil_div(n, Block);
  }
  template <unsigned Block, class In, class Acc>
  static constexpr auto kernel = step03_kernel<Block, In, Acc>;
};

}  // namespace cured::ladder
