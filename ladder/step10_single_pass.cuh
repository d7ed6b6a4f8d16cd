#pragma once
// Step 10: a single pass. Each block writes its partial, and the last block to finish (the
// one that draws the last ticket) adds all partials in a fixed order and writes the result.
// Change: one launch instead of two or three, so small and middle sizes stop paying for a
// second kernel's launch and tail; the order of the final additions is fixed, so results
// are bit-identical run to run.

#include <cuda/atomic>

#include "ladder/step09_vector_loads.cuh"

namespace cured::ladder {

template <unsigned Block, class In, class Acc>
__global__ void __launch_bounds__(Block)
    step10_kernel(const In* in, std::int64_t n, Acc* out, Acc* partials, unsigned int* ticket) {
  __shared__ bool last_block;
  const std::int64_t thread = std::int64_t(blockIdx.x) * Block + threadIdx.x;
  Acc v = thread_sum_vectorized<In, Acc>(in, n, thread, std::int64_t(gridDim.x) * Block);
  v = shuffle_block_sum<Block>(v);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    // Release our partial, acquire everyone else's: the last ticket sees every partial.
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> t(*ticket);
    last_block = t.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block) return;
  __threadfence();  // order thread 0's acquire before the other threads' reads of partials
  Acc w = Acc(0);
  for (unsigned i = threadIdx.x; i < gridDim.x; i += Block) w += __ldcg(partials + i);
  w = shuffle_block_sum<Block>(w);
  if (threadIdx.x == 0) {
    *out = w;
    *ticket = 0;  // ready for the next launch on this workspace
  }
}

struct step10_single_pass {
  static constexpr int number = 10;
  static constexpr std::string_view file = "step10_single_pass";
  static constexpr std::string_view title = "single pass, last block combines";
  static constexpr std::string_view change =
      "one launch: the last block to finish adds the block partials in a fixed order";

  template <unsigned Block, class In>
  static pass_shape shape(std::int64_t n) {
    return {vectorized_grid<Block, In>(n), 1};
  }
  static std::int64_t block_partials(pass_shape s) { return s.grid; }
  template <unsigned Block, class In, class Acc>
  static void pass(const In* in, std::int64_t n, Acc* out, pass_shape s, pass_scratch scratch, cudaStream_t stream) {
    step10_kernel<Block, In, Acc><<<unsigned(s.grid), Block, 0, stream>>>(
        in, n, out, static_cast<Acc*>(scratch.block_partials), scratch.ticket);
  }
};

}  // namespace cured::ladder
