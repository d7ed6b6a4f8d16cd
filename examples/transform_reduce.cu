// cured::transform_reduce, blocking: a sum of squares, a count through a function object that
// carries state, and a user type with a user operator that has an identity(). Needs a CUDA
// device; without one it says so and exits with 77, which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

// docs:begin tr-square
/// x -> x * x, computed in double.
struct square {
  __host__ __device__ double operator()(float x) const { return double(x) * x; }
};
// docs:end tr-square

// docs:begin tr-above
/// 1 when x is above the threshold, else 0.
struct above {
  float threshold;
  __host__ __device__ std::int64_t operator()(float x) const { return x > threshold ? 1 : 0; }
};
// docs:end tr-above

// docs:begin tr-range-types
/// The smallest and the largest element, found in one pass.
struct range {
  float lo, hi;
};

struct to_range {
  __host__ __device__ range operator()(float x) const { return {x, x}; }
};

struct range_union {
  __host__ __device__ range operator()(const range& a, const range& b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
  }
  __host__ __device__ range identity() const { return {INFINITY, -INFINITY}; }
};
// docs:end tr-range-types

namespace {

using cured_example::expect;
using cured_example::to_device;

void run() {
  const std::int64_t n = 4'000'037;
  std::vector<float> h_x(n);
  for (std::int64_t i = 0; i < n; ++i) h_x[i] = 0.5f * float((i * 13) % 199) - 49.5f;  // -49.5 .. 49.5
  double want_sq = 0;  // exact: every square and partial sum is a multiple of 0.25 below 2^40
  std::int64_t want_above = 0;
  for (float x : h_x) {
    want_sq += double(x) * x;
    want_above += x > 40.0f;
  }
  float* d_x = to_device(h_x);

  // docs:begin tr-sum-of-squares
  double sum_sq = cured::transform_reduce(d_x, n, square{}, cured::plus{}, 0.0);
  // docs:end tr-sum-of-squares
  expect(sum_sq == want_sq, "sum of squares", sum_sq, want_sq);

  // docs:begin tr-count
  std::int64_t count = cured::transform_reduce(d_x, n, above{40.0f}, cured::plus{}, std::int64_t(0));
  // docs:end tr-count
  expect(count == want_above, "count above 40", double(count), double(want_above));

  // docs:begin tr-range-call
  range r = cured::transform_reduce(d_x, n, to_range{}, range_union{}, range{INFINITY, -INFINITY});
  // docs:end tr-range-call
  const float want_lo = *std::min_element(h_x.begin(), h_x.end());
  const float want_hi = *std::max_element(h_x.begin(), h_x.end());
  expect(r.lo == want_lo, "range lo", r.lo, want_lo);
  expect(r.hi == want_hi, "range hi", r.hi, want_hi);

  CURED_CHECK(cudaFree(d_x));
}

}  // namespace

int main() { return cured_example::run_example("transform_reduce", run); }
