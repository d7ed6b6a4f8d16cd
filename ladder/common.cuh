#pragma once
// What every ladder step shares: index arithmetic, the block-size dispatch, the pass driver.
// The kernels themselves live one per file (stepNN_*.cuh).

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "cured/types/error.cuh"
#include "ladder/ladder.cuh"

namespace cured::ladder {

__host__ __device__ constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Multiprocessors of the current device (read once per device).
int sm_count();

/// Blocks of `block` threads that fill every multiprocessor once at full occupancy
/// (2048 resident threads per SM on Hopper): the grid of the grid-stride steps 7-10.
inline std::int64_t full_wave_blocks(unsigned block) { return std::int64_t(sm_count()) * (2048 / block); }

/// The grid of one pass and the number of values it leaves behind.
struct pass_shape {
  std::int64_t grid;
  std::int64_t outputs;
};

/// Scratch a pass may use besides its output (step 10: block partials and the ticket).
struct pass_scratch {
  void* block_partials;
  unsigned int* ticket;
};

/// Calls f(std::integral_constant<unsigned, B>{}) for the block size B == block.
template <class F>
void with_block_size(unsigned block, F&& f) {
  bool found = false;
  [&]<unsigned... B>(std::integer_sequence<unsigned, B...>) {
    ((block == B ? (f(std::integral_constant<unsigned, B>{}), found = true) : false), ...);
  }(std::integer_sequence<unsigned, 32, 64, 128, 256, 512, 1024>{});
  if (!found)
    throw_invalid("block size " + std::to_string(block) + " is not a power of two from 32 to 1024");
}

inline void check_grid(std::int64_t grid) {
  if (grid > INT_MAX) throw_invalid("input too large for this step's one-element-per-thread grid");
}

/// Reduces in[0, n) to one value at out, launching Step's pass until one value remains.
/// Passes alternate between two scratch buffers (never in place: a block would overwrite
/// partials another block has not read yet) and the last pass writes straight to out.
template <class Step, unsigned Block, class T>
void run_passes(const T* in, std::int64_t n, accumulator_t<T>* out, workspace& ws, cudaStream_t stream) {
  using acc = accumulator_t<T>;
  if (n < 0) throw_invalid("negative element count");
  if (n > 0 && in == nullptr) throw_invalid("null input pointer with n > 0");
  if (out == nullptr) throw_invalid("null output pointer");
  if (n == 0) {  // the empty sum is the identity, 0 (all-zero bits for every ladder type)
    CURED_CHECK(cudaMemsetAsync(out, 0, sizeof(acc), stream));
    return;
  }
  // Size the scratch: two ping-pong buffers of the first pass's outputs.
  const pass_shape first = Step::template shape<Block, T>(n);
  const std::int64_t second = first.outputs > 1 ? Step::template shape<Block, acc>(first.outputs).outputs : 0;
  const std::size_t a_bytes = (std::size_t(first.outputs > 1 ? first.outputs : 0) * sizeof(acc) + 255) / 256 * 256;
  const std::size_t partial_bytes = std::size_t(Step::block_partials(first)) * sizeof(acc);
  const std::size_t b_bytes = std::size_t(second > 1 ? second : 0) * sizeof(acc);
  char* base = static_cast<char*>(ws.reserve(a_bytes + b_bytes + partial_bytes + 256));
  acc* buf[2] = {reinterpret_cast<acc*>(base), reinterpret_cast<acc*>(base + a_bytes)};
  const pass_scratch scratch{base + (a_bytes + b_bytes + 255) / 256 * 256, ws.ticket()};

  pass_shape shape = first;
  acc* dst = shape.outputs == 1 ? out : buf[0];
  check_grid(shape.grid);
  (void)cudaGetLastError();  // an earlier, unrelated error must not be taken for this launch's
  Step::template pass<Block, T, acc>(in, n, dst, shape, scratch, stream);
  CURED_CHECK_LAUNCH();
  int which = 0;
  while (shape.outputs > 1) {
    const acc* src = dst;
    const std::int64_t m = shape.outputs;
    shape = Step::template shape<Block, acc>(m);
    which ^= 1;
    dst = shape.outputs == 1 ? out : buf[which];
    check_grid(shape.grid);
    Step::template pass<Block, acc, acc>(src, m, dst, shape, scratch, stream);
    CURED_CHECK_LAUNCH();
  }
}

/// The type-erased launcher a registry entry stores.
template <class Step, class T>
void run_step(const T* in, std::int64_t n, accumulator_t<T>* out, unsigned block, workspace& ws,
              cudaStream_t stream) {
  with_block_size(block, [&](auto b) { run_passes<Step, decltype(b)::value, T>(in, n, out, ws, stream); });
}

template <class Step>
constexpr step make_step() {
  return step{Step::number,          Step::file,
              Step::title,           Step::change,
              &run_step<Step, float>, &run_step<Step, double>,
              &run_step<Step, std::int32_t>, &run_step<Step, std::uint32_t>};
}

/// The pass of steps 1-9: `Step::kernel<Block, In, Acc>` over `Step::grid<Block, In>(n)` blocks,
/// one partial per block, no scratch besides the outputs.
template <class Step>
struct multi_pass_step {
  static constexpr std::int64_t block_partials(pass_shape) { return 0; }
  template <unsigned Block, class In>
  static pass_shape shape(std::int64_t n) {
    const std::int64_t g = Step::template grid<Block, In>(n);
    return {g, g};
  }
  template <unsigned Block, class In, class Acc>
  static void pass(const In* in, std::int64_t n, Acc* out, pass_shape s, pass_scratch, cudaStream_t stream) {
    Step::template kernel<Block, In, Acc><<<unsigned(s.grid), Block, 0, stream>>>(in, n, out);
  }
};

}  // namespace cured::ladder
