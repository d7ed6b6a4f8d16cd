#pragma once
// Step 1: interleaved addressing with divergent branches (Harris' kernel 1).
// The baseline: one element per thread into shared memory, then a tree in which thread t
// works at stride s only when t % 2s == 0, so most threads of every warp sit idle and `%` is slow.
// Fixed from the seeds: threads past the end load the identity instead of returning early
// (an early return skips __syncthreads() and leaves shared memory unwritten); 64-bit indices.

#include "ladder/common.cuh"

namespace cured::ladder {

template <unsigned Block, class In, class Acc>
__global__ void __launch_bounds__(Block) step01_kernel(const In* in, std::int64_t n, Acc* out) {
  __shared__ Acc sdata[Block];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + tid;
  sdata[tid] = i < n ? Acc(in[i]) : Acc(0);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

struct step01_interleaved_divergent : multi_pass_step<step01_interleaved_divergent> {
  static constexpr int number = 1;
  static constexpr std::string_view file = "step01_interleaved_divergent";
  static constexpr std::string_view title = "interleaved addressing, divergent branches";
  static constexpr std::string_view change =
      "baseline: a shared-memory tree where thread t adds at stride s only if t % 2s == 0";

  template <unsigned Block, class In>
  static std::int64_t grid(std::int64_t n) {
    return ceil_div(n, Block);
  }
  template <unsigned Block, class In, class Acc>
  static constexpr auto kernel = step01_kernel<Block, In, Acc>;
};

}  // namespace cured::ladder
