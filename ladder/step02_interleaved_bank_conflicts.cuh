#pragma once
// Step 2: interleaved addressing with a strided index (Harris' kernel 2).
// Change: thread t works on index 2*s*t, so the active threads are contiguous (t < n/2s) and
// whole warps retire instead of diverging. New cost: the stride-2s shared accesses of a warp
// fall into the same banks (2-way at s = 1, 16-way at s = 16 for 4-byte values).

#include "ladder/common.cuh"

namespace cured::ladder {

template <unsigned Block, class In, class Acc>
__global__ void __launch_bounds__(Block) step02_kernel(const In* in, std::int64_t n, Acc* out) {
  __shared__ Acc sdata[Block];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + tid;
  sdata[tid] = i < n ? Acc(in[i]) : Acc(0);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

struct step02_interleaved_bank_conflicts : multi_pass_step<step02_interleaved_bank_conflicts> {
  static constexpr int number = 2;
  static constexpr std::string_view file = "step02_interleaved_bank_conflicts";
  static constexpr std::string_view title = "interleaved addressing, strided index";
  static constexpr std::string_view change =
      "thread t works on index 2*s*t: active threads are contiguous, so warps do not diverge "
      "(but strided shared accesses conflict in banks)";

  template <unsigned Block, class In>
  static std::int64_t grid(std::int64_t n) {
    return ceil_div(n, Block);
  }
  template <unsigned Block, class In, class Acc>
  static constexpr auto kernel = step02_kernel<Block, In, Acc>;
};

}  // namespace cured::ladder
