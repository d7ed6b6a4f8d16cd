// cured::reduce, blocking: a library operator with an init value, the accumulator chosen by
// init's type, and a user operator with its identity. Needs a CUDA device; without one it says
// so and exits with 77, which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

// docs:begin reduce-user-op
/// Bitwise or: associative and commutative, identity 0.
struct bit_or {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return a | b;
  }
  template <class T>
  __host__ __device__ static T identity() {
    return T(0);
  }
};
// docs:end reduce-user-op

namespace {

using cured_example::expect;
using cured_example::to_device;

void run() {
  const std::int64_t n = 2'000'003;
  std::vector<int> h_i(n);
  std::vector<unsigned> h_u(n);
  std::int64_t want_sum = 0;
  unsigned want_bits = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    h_i[i] = int((i * 37) % 1001) - 500;  // -500 .. 500
    h_u[i] = 1u << (i % 20);              // bits 0 .. 19
    want_sum += h_i[i];
    want_bits |= h_u[i];
  }
  const int want_max = *std::max_element(h_i.begin(), h_i.end());
  int* d_i = to_device(h_i);
  unsigned* d_u = to_device(h_u);

  // docs:begin reduce-init
  // The accumulator is init's type; init is combined once, not once per block.
  std::int64_t s = cured::reduce(d_i, n, cured::plus{}, std::int64_t(1000));  // 1000 + the sum
  int m = cured::reduce(d_i, n, cured::maximum{}, std::numeric_limits<int>::lowest());
  int m_at_least = cured::reduce(d_i, n, cured::maximum{}, 10'000);  // max(10'000, elements)
  // docs:end reduce-init
  expect(s == 1000 + want_sum, "reduce plus with init 1000", double(s), double(1000 + want_sum));
  expect(m == want_max, "reduce maximum", m, want_max);
  expect(m_at_least == 10'000, "reduce maximum with init 10'000", m_at_least, 10'000);

  // docs:begin reduce-user-call
  unsigned bits = cured::reduce(d_u, n, bit_or{}, 0u);
  // docs:end reduce-user-call
  expect(bits == want_bits, "reduce bit_or", bits, want_bits);

  // docs:begin reduce-empty
  std::int64_t only_init = cured::reduce(d_i, 0, cured::plus{}, std::int64_t(7));  // 7
  // docs:end reduce-empty
  expect(only_init == 7, "empty reduce", double(only_init), 7);

  CURED_CHECK(cudaFree(d_i));
  CURED_CHECK(cudaFree(d_u));
}

}  // namespace

int main() { return cured_example::run_example("reduce", run); }
