#pragma once
// The ladder registry: every step, by number, with what it changed, and a launcher per type.
// Tests and cured-bench loop over `cured::ladder::steps()`; nothing else names the steps.
//
//   cured::ladder::workspace ws;
//   for (const auto& step : cured::ladder::steps())
//     step.run<float>()(d_in, n, d_out, 256, ws, stream);   // d_out: one float on the device
//
// Each launcher reduces d_in[0, n) to one value on the GPU (pass after pass until one value
// remains; step 10 in a single launch) and writes it to d_out, asynchronously on `stream`.
// The ladder sums: float and double in themselves, int32 into int64, uint32 into uint64.
// block: threads per block, a power of two from 32 to 1024 (cured::error otherwise).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "cured/types/accumulate.cuh"

namespace cured::ladder {

/// Device scratch for the ladder's passes (block partials, a retirement ticket). Grows on
/// demand and never shrinks; a launch that needs no more than an earlier one allocates nothing.
/// Not for two streams at once.
class workspace {
public:
  workspace() = default;
  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;
  ~workspace();
  /// Device memory of at least `bytes` (plus a zeroed ticket word at ticket()).
  void* reserve(std::size_t bytes);
  unsigned int* ticket() const { return ticket_; }
  std::size_t capacity() const { return capacity_; }

private:
  void* base_ = nullptr;
  unsigned int* ticket_ = nullptr;
  std::size_t capacity_ = 0;
};

template <class T>
using run_fn = void (*)(const T* d_in, std::int64_t n, accumulator_t<T>* d_out, unsigned block,
                        workspace& ws, cudaStream_t stream);

struct step {
  int number;
  std::string_view file;    ///< e.g. "step01_interleaved_divergent"
  std::string_view title;   ///< e.g. "interleaved addressing, divergent branches"
  std::string_view change;  ///< the one change from the step before, and why it is faster
  run_fn<float> run_float;
  run_fn<double> run_double;
  run_fn<std::int32_t> run_int32;
  run_fn<std::uint32_t> run_uint32;

  template <class T>
  run_fn<T> run() const {
    if constexpr (std::is_same_v<T, float>) return run_float;
    else if constexpr (std::is_same_v<T, double>) return run_double;
    else if constexpr (std::is_same_v<T, std::int32_t>) return run_int32;
    else {
      static_assert(std::is_same_v<T, std::uint32_t>, "the ladder sums float, double, int32, uint32");
      return run_uint32;
    }
  }
};

/// Every step, in order: steps()[k].number == k + 1.
std::span<const step> steps();

/// Block sizes every step accepts.
inline constexpr unsigned block_sizes[] = {32, 64, 128, 256, 512, 1024};

}  // namespace cured::ladder
