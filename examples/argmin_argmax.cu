// cured::argmin and cured::argmax, blocking: the {index, value} result, the first index on
// ties, the first NaN, and index -1 for an empty input. Needs a CUDA device; without one it
// says so and exits with 77, which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

using cured_example::expect;
using cured_example::to_device;

void run() {
  const std::int64_t n = 2'000'000;
  std::vector<float> h_x(n);
  for (std::int64_t i = 0; i < n; ++i) h_x[i] = float(i % 1000);  // 0 .. 999
  h_x[700'000] = h_x[1'500'000] = -3.0f;                            // the minimum, twice
  h_x[1'999'000] = h_x[9] = 5000.0f;                                // the maximum, twice
  float* d_x = to_device(h_x);

  // docs:begin arg-basic
  cured::key_value<float> lo = cured::argmin(d_x, n);  // {index, value}
  auto [hi_index, hi_value] = cured::argmax(d_x, n);   // index is std::int64_t
  // lo.index == 700'000: the first of the two minima; hi_index == 9
  // docs:end arg-basic
  expect(lo.index == 700'000, "argmin index", double(lo.index), 700'000);
  expect(lo.value == -3.0f, "argmin value", lo.value, -3.0);
  expect(hi_index == 9, "argmax index", double(hi_index), 9);
  expect(hi_value == 5000.0f, "argmax value", hi_value, 5000.0);

  // docs:begin arg-empty
  cured::key_value<float> none = cured::argmax(d_x, 0);
  // none.index == -1: there is no element; none.value == -INFINITY, max's identity
  // docs:end arg-empty
  expect(none.index == -1, "empty argmax index", double(none.index), -1);
  expect(none.value == -INFINITY, "empty argmax value", none.value, -INFINITY);
  const cured::key_value<float> none_lo = cured::argmin(d_x, 0);
  expect(none_lo.index == -1, "empty argmin index", double(none_lo.index), -1);

  const float nan = std::numeric_limits<float>::quiet_NaN();
  CURED_CHECK(cudaMemcpy(d_x + 1'234'567, &nan, sizeof(float), cudaMemcpyHostToDevice));
  CURED_CHECK(cudaMemcpy(d_x + 1'800'000, &nan, sizeof(float), cudaMemcpyHostToDevice));
  // docs:begin arg-nan
  // d_x[1'234'567] and d_x[1'800'000] are now NaN: both reductions report the first NaN.
  std::int64_t nan_lo = cured::argmin(d_x, n).index;  // 1'234'567
  std::int64_t nan_hi = cured::argmax(d_x, n).index;  // 1'234'567
  // docs:end arg-nan
  expect(nan_lo == 1'234'567, "argmin with NaNs", double(nan_lo), 1'234'567);
  expect(nan_hi == 1'234'567, "argmax with NaNs", double(nan_hi), 1'234'567);

  CURED_CHECK(cudaFree(d_x));
}

}  // namespace

int main() { return cured_example::run_example("argmin_argmax", run); }
