// The asynchronous forms: results written to device memory on a stream, with a reusable
// cured::workspace; nothing waits until the caller does. Needs a CUDA device; without one it
// says so and exits with 77, which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

struct square {
  __host__ __device__ double operator()(float x) const { return double(x) * x; }
};

namespace {

using cured_example::expect;
using cured_example::to_device;

/// The device-side results, one allocation.
struct results {
  float sum;
  double sum_d;
  float min, max;
  cured::key_value<float> argmin, argmax;
  double sum_sq;
  std::int64_t sum_plus_init;
};

void run() {
  const std::int64_t n = 5'000'011;
  std::vector<float> h_x(n);
  for (std::int64_t i = 0; i < n; ++i) h_x[i] = float((i * 7) % 1024) - 512.0f;  // -512 .. 511
  float* d_x = to_device(h_x);
  double want_sum = 0, want_sq = 0, abs_sum = 0;  // all exact in double
  for (float x : h_x) {
    want_sum += x;
    want_sq += double(x) * x;
    abs_sum += x < 0 ? -x : x;
  }
  const auto lo = std::min_element(h_x.begin(), h_x.end()), hi = std::max_element(h_x.begin(), h_x.end());
  std::vector<std::int32_t> h_i(n, 3);
  std::int32_t* d_i = to_device(h_i);
  results* d_r = nullptr;
  CURED_CHECK(cudaMalloc(&d_r, sizeof(results)));

  // docs:begin async-queue
  cudaStream_t stream;
  CURED_CHECK(cudaStreamCreate(&stream));
  cured::workspace ws;  // scratch for any n on the current device: make it once, reuse it

  // Each call enqueues one kernel on `stream` and returns; none allocates or waits.
  cured::sum_async(d_x, n, &d_r->sum, ws, stream);
  cured::sum_async<double>(d_x, n, &d_r->sum_d, ws, stream);  // explicit accumulator
  cured::min_async(d_x, n, &d_r->min, ws, stream);
  cured::max_async(d_x, n, &d_r->max, ws, stream);
  cured::argmin_async(d_x, n, &d_r->argmin, ws, stream);
  cured::argmax_async(d_x, n, &d_r->argmax, ws, stream);
  cured::transform_reduce_async(d_x, n, &d_r->sum_sq, square{}, cured::plus{}, 0.0, ws, stream);
  cured::reduce_async(d_i, n, &d_r->sum_plus_init, cured::plus{}, std::int64_t(100), ws, stream);

  results r;  // wait once, for all of them
  CURED_CHECK(cudaMemcpyAsync(&r, d_r, sizeof(results), cudaMemcpyDeviceToHost, stream));
  CURED_CHECK(cudaStreamSynchronize(stream));
  // docs:end async-queue

  const double sum_error = r.sum > want_sum ? r.sum - want_sum : want_sum - r.sum;
  expect(sum_error <= 1e-6 * abs_sum, "sum_async", r.sum, want_sum);  // float rounding only
  expect(r.sum_d == want_sum, "sum_async<double>", r.sum_d, want_sum);
  expect(r.min == *lo, "min_async", r.min, *lo);
  expect(r.max == *hi, "max_async", r.max, *hi);
  expect(r.argmin.index == lo - h_x.begin(), "argmin_async index", double(r.argmin.index), double(lo - h_x.begin()));
  expect(r.argmax.index == hi - h_x.begin(), "argmax_async index", double(r.argmax.index), double(hi - h_x.begin()));
  expect(r.sum_sq == want_sq, "transform_reduce_async", r.sum_sq, want_sq);
  expect(r.sum_plus_init == 100 + 3 * n, "reduce_async", double(r.sum_plus_init), double(100 + 3 * n));

  // docs:begin async-other-stream
  // One stream at a time: the work queued on `stream` is finished (synchronized above), so
  // the workspace may move to another stream.
  cudaStream_t other;
  CURED_CHECK(cudaStreamCreate(&other));
  cured::sum_async(d_x, n, &d_r->sum, ws, other);
  float sum_again = 0;
  CURED_CHECK(cudaMemcpyAsync(&sum_again, &d_r->sum, sizeof(float), cudaMemcpyDeviceToHost, other));
  CURED_CHECK(cudaStreamSynchronize(other));
  // docs:end async-other-stream
  expect(sum_again == r.sum, "sum_async on another stream", sum_again, r.sum);

  // docs:begin async-blocking-stream
  float total = cured::sum(d_x, n, stream);  // blocking form on a stream: waits for `stream` only
  // docs:end async-blocking-stream
  expect(total == r.sum, "blocking sum on a stream", total, r.sum);

  CURED_CHECK(cudaStreamDestroy(stream));
  CURED_CHECK(cudaStreamDestroy(other));
  CURED_CHECK(cudaFree(d_x));
  CURED_CHECK(cudaFree(d_i));
  CURED_CHECK(cudaFree(d_r));
}

}  // namespace

int main() { return cured_example::run_example("async", run); }
