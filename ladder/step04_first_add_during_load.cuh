#pragma once
// Step 4: first add during load (Harris' kernel 4).
// Change: each block covers two blocks' worth of input and every thread adds two elements
// while loading, so half the blocks do the same work: no thread is idle in the first level.
// Fixed from the seeds: the second element is read only when it exists (seed 001 read
// in[i + blockDim.x] past the end whenever n was not a multiple of 2*blockDim).

#include "ladder/common.cuh"

namespace cured::ladder {

template <unsigned Block, class In, class Acc>
__global__ void __launch_bounds__(Block) step04_kernel(const In* in, std::int64_t n, Acc* out) {
  __shared__ Acc sdata[Block];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = std::int64_t(blockIdx.x) * (2 * blockDim.x) + tid;
  Acc v = i < n ? Acc(in[i]) : Acc(0);
  if (i + blockDim.x < n) v += Acc(in[i + blockDim.x]);
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

struct step04_first_add_during_load : multi_pass_step<step04_first_add_during_load> {
  static constexpr int number = 4;
  static constexpr std::string_view file = "step04_first_add_during_load";
  static constexpr std::string_view title = "first add during load";
  static constexpr std::string_view change =
      "each thread adds two elements while loading: half the blocks, no idle threads in the first level";

  template <unsigned Block, class In>
  static std::int64_t grid(std::int64_t n) {
    return ceil_div(n, 2 * std::int64_t(Block));
  }
  template <unsigned Block, class In, class Acc>
  static constexpr auto kernel = step04_kernel<Block, In, Acc>;
};

}  // namespace cured::ladder
