// cured::exact_sum: the exact sum of floating-point values, rounded once. Where a plain float
// sum loses the small terms between large ones that cancel, exact_sum keeps them; its result
// is the same bits for any order of the inputs. cured::exact_dot does the same for the sum of
// products. Needs a CUDA device; without one it says so
// and exits with 77, which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

using cured_example::expect;
using cured_example::to_device;

void run() {
  // 1e8, 1, -1e8, 1, 1e8, 1, -1e8, 1 ...: the exact sum is the number of ones.
  const std::int64_t n = 1'000'000;
  std::vector<float> h_x(n);
  for (std::int64_t i = 0; i < n; ++i) h_x[i] = i % 2 ? 1.0f : (i % 4 == 0 ? 1e8f : -1e8f);
  float* d_x = to_device(h_x);

  // docs:begin exact-sum
  float exact = cured::exact_sum(d_x, n);  // 500000: every 1 counts
  float plain = cured::sum(d_x, n);        // float additions round the ones away next to 1e8
  // docs:end exact-sum
  expect(exact == 500000.0f, "exact_sum", exact, 500000.0);
  expect(plain != exact, "the plain float sum differs here", plain, exact);

  // docs:begin exact-sum-order
  std::shuffle(h_x.begin(), h_x.end(), std::mt19937_64(42));
  float* d_y = to_device(h_x);
  float again = cured::exact_sum(d_y, n);  // another order, the same bits
  // docs:end exact-sum-order
  expect(std::memcmp(&again, &exact, sizeof(float)) == 0, "exact_sum of a permutation", again, exact);

  // docs:begin exact-sum-double
  std::vector<double> h_d = {1.0, 0x1p-53, 0x1p-1074};  // 1 + half an ulp + the smallest subnormal
  double* d_d = to_device(h_d);
  double r = cured::exact_sum(d_d, 3);  // just above the midpoint: rounds up to 1 + 2^-52
  // docs:end exact-sum-double
  expect(r == 1.0 + 0x1p-52, "exact_sum of doubles", r, 1.0 + 0x1p-52);

  // docs:begin exact-sum-async
  cured::workspace ws;
  float* d_out = nullptr;
  CURED_CHECK(cudaMalloc(&d_out, sizeof(float)));
  cured::exact_sum_async(d_x, n, d_out, ws);  // no synchronization, no allocation
  // docs:end exact-sum-async
  float from_async = 0;
  CURED_CHECK(cudaMemcpy(&from_async, d_out, sizeof(float), cudaMemcpyDeviceToHost));
  expect(from_async == exact, "exact_sum_async", from_async, exact);

  // docs:begin exact-dot
  std::vector<double> h_a = {1e300, 1.0, -1e300}, h_b = {1e10, 3.0, 1e10};
  double* d_a = to_device(h_a);
  double* d_b = to_device(h_b);
  double dot = cured::exact_dot(d_a, d_b, 3);  // 3: the products +-1e310, beyond double, cancel exactly
  // docs:end exact-dot
  expect(dot == 3.0, "exact_dot", dot, 3.0);

  CURED_CHECK(cudaFree(d_x));
  CURED_CHECK(cudaFree(d_y));
  CURED_CHECK(cudaFree(d_d));
  CURED_CHECK(cudaFree(d_a));
  CURED_CHECK(cudaFree(d_b));
  CURED_CHECK(cudaFree(d_out));
}

}  // namespace

int main() { return cured_example::run_example("exact_sum", run); }
