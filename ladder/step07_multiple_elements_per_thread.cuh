#pragma once
// Step 7: multiple elements per thread (Harris' kernel 7, "algorithm cascading").
// Change: the grid is fixed at one full wave of the GPU and each thread sums many elements in
// a grid-stride loop before the tree. The tree's log(block) levels and barriers are paid once
// per thread instead of once per two elements, and many loads are in flight per thread.
// Fixed from the seeds: the second load of each pair is bounds-checked.

#include <algorithm>

#include "ladder/step06_complete_unroll.cuh"

namespace cured::ladder {

/// The tree of step 6 over one value per thread. Result valid in thread 0 only.
template <unsigned Block, class Acc>
__device__ Acc unrolled_block_sum(Acc* sdata, Acc v) {
  const unsigned tid = threadIdx.x;
  sdata[tid] = v;
  if constexpr (Block < 64) sdata[tid + 32] = Acc(0);
  __syncthreads();
  unrolled_level<Block, 512>(sdata, tid);
  unrolled_level<Block, 256>(sdata, tid);
  unrolled_level<Block, 128>(sdata, tid);
  unrolled_level<Block, 64>(sdata, tid);
  if (tid < 32) v = unrolled_warp_sum(sdata, tid);
  return v;
}

template <unsigned Block, class In, class Acc>
__global__ void __launch_bounds__(Block) step07_kernel(const In* in, std::int64_t n, Acc* out) {
  __shared__ Acc sdata[warp_unrolled_smem<Block>];
  const std::int64_t grid_size = std::int64_t(2 * Block) * gridDim.x;
  Acc v = Acc(0);
  for (std::int64_t i = std::int64_t(blockIdx.x) * (2 * Block) + threadIdx.x; i < n; i += grid_size) {
    v += Acc(in[i]);
    if (i + Block < n) v += Acc(in[i + Block]);
  }
  v = unrolled_block_sum<Block>(sdata, v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

struct step07_multiple_elements_per_thread : multi_pass_step<step07_multiple_elements_per_thread> {
  static constexpr int number = 7;
  static constexpr std::string_view file = "step07_multiple_elements_per_thread";
  static constexpr std::string_view title = "multiple elements per thread";
  static constexpr std::string_view change =
      "one full wave of blocks, each thread sums many elements in a grid-stride loop before the tree";

  template <unsigned Block, class In>
  static std::int64_t grid(std::int64_t n) {
    return std::min(ceil_div(n, 2 * std::int64_t(Block)), full_wave_blocks(Block));
  }
  template <unsigned Block, class In, class Acc>
  static constexpr auto kernel = step07_kernel<Block, In, Acc>;
};

}  // namespace cured::ladder
