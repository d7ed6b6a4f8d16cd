// cured::sum, blocking: the default accumulators (float for float and half, int64 for int32)
// and an explicit one (cured::sum<double>). Needs a CUDA device; without one it says so and
// exits with 77, which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace {

using cured_example::expect;
using cured_example::to_device;

void run() {
  const std::int64_t n = 3'000'017;
  std::vector<float> h_x(n);
  for (std::int64_t i = 0; i < n; ++i) h_x[i] = 0.1f * float(i % 10);
  double want = 0;  // on the host, in double
  for (float x : h_x) want += x;
  float* d_x = to_device(h_x);

  // docs:begin sum-default
  float total = cured::sum(d_x, n);  // float input: accumulated in float, returned as float
  // docs:end sum-default
  expect(std::fabs(total - want) <= 1e-5 * want, "float sum", total, want);

  // docs:begin sum-explicit
  double total_d = cured::sum<double>(d_x, n);  // the same floats, accumulated in double
  // docs:end sum-explicit
  expect(std::fabs(total_d - want) <= 1e-12 * want, "sum<double>", total_d, want);

  // docs:begin sum-repeat
  float again = cured::sum(d_x, n);  // same input, n, alignment and device: the same bits
  bool same = std::memcmp(&again, &total, sizeof(float)) == 0;
  // docs:end sum-repeat
  expect(same, "repeated float sum", again, total);

  // int32 elements whose sum overflows int32 but not the default int64 accumulator.
  const std::int64_t n_i = 1000;
  const std::vector<std::int32_t> h_i(n_i, 2'000'000'000);
  std::int32_t* d_i = to_device(h_i);
  // docs:begin sum-int
  std::int64_t big = cured::sum(d_i, n_i);  // int32 input: accumulated in std::int64_t
  static_assert(std::is_same_v<cured::accumulator_t<std::int32_t>, std::int64_t>);
  // docs:end sum-int
  expect(big == std::int64_t(2'000'000'000) * n_i, "int32 sum", double(big), 2e12);

  // half elements: accumulated and returned in float.
  std::vector<__half> h_h(n);
  for (std::int64_t i = 0; i < n; ++i) h_h[i] = __float2half(float(i % 4));  // 0, 1, 2, 3
  __half* d_h = to_device(h_h);
  // docs:begin sum-half
  float total_h = cured::sum(d_h, n);  // __half input: accumulated in float
  // docs:end sum-half
  double want_h = 0;
  for (std::int64_t i = 0; i < n; ++i) want_h += double(i % 4);
  expect(std::fabs(total_h - want_h) <= 1e-5 * want_h, "half sum", total_h, want_h);

  // docs:begin sum-empty
  float nothing = cured::sum(d_x, 0);  // the empty sum is 0
  // docs:end sum-empty
  expect(nothing == 0.0f, "empty sum", nothing, 0.0);

  CURED_CHECK(cudaFree(d_x));
  CURED_CHECK(cudaFree(d_i));
  CURED_CHECK(cudaFree(d_h));
}

}  // namespace

int main() { return cured_example::run_example("sum", run); }
