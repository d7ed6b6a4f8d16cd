#pragma once
// Step 5: unroll the last warp (Harris' kernel 5).
// Change: once 32 or fewer threads remain active, one warp finishes the tree without
// __syncthreads() or loop overhead, saving the barrier and the branch of the last six levels.
// Fixed from the seeds: their `volatile` warp-synchronous code assumes the 32 lanes run in
// lockstep, which Volta and later do not promise (independent thread scheduling): a lane may
// read sdata[t + s] before its neighbour has written it. Each level here reads into a
// register, then __syncwarp() orders every read before any write and every write before the
// next level. Blocks of 32 threads get 32 zeroed words of padding for the reads past the end.

#include "ladder/common.cuh"

namespace cured::ladder {

/// Shared words a warp-unrolled block needs: reads reach sdata[t + 32] even for 32 threads.
template <unsigned Block>
inline constexpr unsigned warp_unrolled_smem = Block < 64 ? 64 : Block;

/// The last six levels of the tree in warp 0. sdata holds at least 64 values.
/// Contract: called by threads 0..31 only; the result is valid in sdata[0] (and in the
/// return value of thread 0 only).
template <class Acc>
__device__ Acc unrolled_warp_sum(Acc* sdata, unsigned tid) {
  Acc v = sdata[tid];
#pragma unroll
  for (unsigned s = 32; s > 0; s >>= 1) {
    v += sdata[tid + s];
    __syncwarp();
    sdata[tid] = v;
    __syncwarp();
  }
  return v;
}

template <unsigned Block, class In, class Acc>
__global__ void __launch_bounds__(Block) step05_kernel(const In* in, std::int64_t n, Acc* out) {
  __shared__ Acc sdata[warp_unrolled_smem<Block>];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = std::int64_t(blockIdx.x) * (2 * blockDim.x) + tid;
  Acc v = i < n ? Acc(in[i]) : Acc(0);
  if (i + blockDim.x < n) v += Acc(in[i + blockDim.x]);
  sdata[tid] = v;
  if (Block < 64) sdata[tid + 32] = Acc(0);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) v = unrolled_warp_sum(sdata, tid);
  if (tid == 0) out[blockIdx.x] = v;
}

struct step05_unroll_last_warp : multi_pass_step<step05_unroll_last_warp> {
  static constexpr int number = 5;
  static constexpr std::string_view file = "step05_unroll_last_warp";
  static constexpr std::string_view title = "unroll the last warp";
  static constexpr std::string_view change =
      "the last six levels run in one warp without __syncthreads() (with __syncwarp(), as Volta+ requires)";

  template <unsigned Block, class In>
  static std::int64_t grid(std::int64_t n) {
    return ceil_div(n, 2 * std::int64_t(Block));
  }
  template <unsigned Block, class In, class Acc>
  static constexpr auto kernel = step05_kernel<Block, In, Acc>;
};

}  // namespace cured::ladder
