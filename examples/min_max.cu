// cured::min and cured::max, blocking: float and int elements, NaN propagation, and the
// identities an empty input returns. Needs a CUDA device; without one it says so and exits
// with 77, which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

using cured_example::expect;
using cured_example::to_device;

void run() {
  const std::int64_t n = 1'000'003;
  std::vector<float> h_x(n);
  std::vector<int> h_i(n);
  for (std::int64_t i = 0; i < n; ++i) {
    h_i[i] = int((i * 7919) % 10007) - 5000;  // -5000 .. 5006
    h_x[i] = 0.5f * float(h_i[i]);
  }
  float* d_x = to_device(h_x);
  int* d_i = to_device(h_i);
  const float want_lo = *std::min_element(h_x.begin(), h_x.end());
  const float want_hi = *std::max_element(h_x.begin(), h_x.end());

  // docs:begin minmax-basic
  float lo = cured::min(d_x, n);
  float hi = cured::max(d_x, n);
  int hi_int = cured::max(d_i, n);  // min and max return the element type
  // docs:end minmax-basic
  expect(lo == want_lo, "min", lo, want_lo);
  expect(hi == want_hi, "max", hi, want_hi);
  const int want_hi_int = *std::max_element(h_i.begin(), h_i.end());
  expect(hi_int == want_hi_int, "int max", hi_int, want_hi_int);

  const float nan = std::numeric_limits<float>::quiet_NaN();
  CURED_CHECK(cudaMemcpy(d_x + n / 2, &nan, sizeof(float), cudaMemcpyHostToDevice));
  // docs:begin minmax-nan
  // d_x[n / 2] is now NaN: a NaN anywhere makes min and max NaN.
  bool nan_lo = std::isnan(cured::min(d_x, n));
  bool nan_hi = std::isnan(cured::max(d_x, n));
  // docs:end minmax-nan
  expect(nan_lo, "min with a NaN is NaN", 0, nan);
  expect(nan_hi, "max with a NaN is NaN", 0, nan);

  // docs:begin minmax-empty
  float none_lo = cured::min(d_x, 0);  // +inf: the identity of min
  float none_hi = cured::max(d_x, 0);  // -inf: the identity of max
  int none_int = cured::max(d_i, 0);   // std::numeric_limits<int>::lowest() for integers
  // docs:end minmax-empty
  expect(none_lo == INFINITY, "empty min", none_lo, INFINITY);
  expect(none_hi == -INFINITY, "empty max", none_hi, -INFINITY);
  expect(none_int == std::numeric_limits<int>::lowest(), "empty int max", none_int,
         std::numeric_limits<int>::lowest());

  CURED_CHECK(cudaFree(d_x));
  CURED_CHECK(cudaFree(d_i));
}

}  // namespace

int main() { return cured_example::run_example("min_max", run); }
