// Reductions along axes: row sums and column maxima of a matrix, argmax per row, a 3-D middle
// axis, NCHW statistics over (N, H, W), a transposed view, keepdim outputs, the async form
// on a workspace, and exact row sums. Needs a CUDA device; without one it says so and exits with 77, which ctest
// reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

using cured_example::expect;
using cured_example::to_device;

void run() {
  const std::int64_t rows = 300, cols = 1000;
  std::vector<float> h_x(rows * cols);
  for (std::int64_t i = 0; i < rows * cols; ++i) h_x[i] = float((i * 7919) % 1013) - 500.0f;  // small integers: exact sums
  float* d_x = to_device(h_x);
  std::vector<float> want_rows(rows, 0.0f), want_cols(cols, -1e30f);
  std::vector<std::int64_t> want_arg(rows, 0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const float x = h_x[r * cols + c];
      want_rows[r] += x;
      want_cols[c] = std::max(want_cols[c], x);
      if (x > h_x[r * cols + want_arg[r]]) want_arg[r] = c;
    }
  float *d_rows = nullptr, *d_cols = nullptr;
  std::int64_t* d_arg = nullptr;
  CURED_CHECK(cudaMalloc(&d_rows, rows * sizeof(float)));
  CURED_CHECK(cudaMalloc(&d_cols, cols * sizeof(float)));
  CURED_CHECK(cudaMalloc(&d_arg, rows * sizeof(std::int64_t)));

  // docs:begin axes-basic
  auto x = cured::view(d_x, {rows, cols});                 // contiguous, row-major
  cured::sum(x, {1}, cured::view(d_rows, {rows}));         // the sum of each row
  cured::max(x, {0}, cured::view(d_cols, {cols}));         // the maximum of each column
  cured::argmax(x, {-1}, cured::view(d_arg, {rows}));      // the column of each row's maximum
  // docs:end axes-basic
  std::vector<float> got_rows(rows), got_cols(cols);
  std::vector<std::int64_t> got_arg(rows);
  CURED_CHECK(cudaMemcpy(got_rows.data(), d_rows, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CURED_CHECK(cudaMemcpy(got_cols.data(), d_cols, cols * sizeof(float), cudaMemcpyDeviceToHost));
  CURED_CHECK(cudaMemcpy(got_arg.data(), d_arg, rows * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  for (std::int64_t r = 0; r < rows; ++r) {
    expect(got_rows[r] == want_rows[r], "row sum", got_rows[r], want_rows[r]);
    expect(got_arg[r] == want_arg[r], "argmax of a row", double(got_arg[r]), double(want_arg[r]));
  }
  for (std::int64_t c = 0; c < cols; ++c) expect(got_cols[c] == want_cols[c], "column max", got_cols[c], want_cols[c]);

  // docs:begin axes-transposed
  // The transpose of x: cols x rows, strides {1, cols}. Its column sums are x's row sums.
  auto xt = cured::view(d_x, {cols, rows}, {1, cols});
  cured::sum(xt, {0}, cured::view(d_rows, {rows}));
  // docs:end axes-transposed
  CURED_CHECK(cudaMemcpy(got_rows.data(), d_rows, rows * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::int64_t r = 0; r < rows; ++r) expect(got_rows[r] == want_rows[r], "transposed sum", got_rows[r], want_rows[r]);

  // NCHW (here 3 x 4 x 10 x 10 of the same memory) over (N, H, W): one sum per channel.
  const std::int64_t N = 3, C = 4, HW = 100;
  std::vector<double> want_c(C, 0.0);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t i = 0; i < HW; ++i) want_c[c] += h_x[(n * C + c) * HW + i];
  double* d_c = nullptr;
  CURED_CHECK(cudaMalloc(&d_c, C * sizeof(double)));
  // docs:begin axes-async
  cured::workspace ws;
  cudaStream_t stream = nullptr;
  auto nchw = cured::view(d_x, {3, 4, 10, 10});
  // Channel sums, accumulated in double, kept as a 1 x 4 x 1 x 1 output (keepdim).
  cured::sum_async<double>(nchw, {0, 2, 3}, cured::view(d_c, {1, 4, 1, 1}), ws, stream);
  CURED_CHECK(cudaStreamSynchronize(stream));
  // docs:end axes-async
  std::vector<double> got_c(C);
  CURED_CHECK(cudaMemcpy(got_c.data(), d_c, C * sizeof(double), cudaMemcpyDeviceToHost));
  for (std::int64_t c = 0; c < C; ++c) expect(got_c[c] == want_c[c], "channel sum", got_c[c], want_c[c]);

  // Rows whose float sums lose the small terms, and their exact sums.
  const std::vector<float> h_m = {1.0f, 1e-8f, -1.0f, 1e20f, 3.0f, -1e20f};
  float* d_m = to_device(h_m);
  float* d_e = nullptr;
  CURED_CHECK(cudaMalloc(&d_e, 2 * sizeof(float)));
  // docs:begin axes-exact
  // Each row's exact sum, rounded once: 1e-8f and 3, where a float sum in any order may give 0.
  cured::exact_sum(cured::view(d_m, {2, 3}), {1}, cured::view(d_e, {2}));
  // docs:end axes-exact
  float got_e[2];
  CURED_CHECK(cudaMemcpy(got_e, d_e, sizeof got_e, cudaMemcpyDeviceToHost));
  expect(got_e[0] == 1e-8f, "exact row sum", got_e[0], 1e-8f);
  expect(got_e[1] == 3.0f, "exact row sum", got_e[1], 3.0f);

  CURED_CHECK(cudaFree(d_m));
  CURED_CHECK(cudaFree(d_e));
  CURED_CHECK(cudaFree(d_x));
  CURED_CHECK(cudaFree(d_rows));
  CURED_CHECK(cudaFree(d_cols));
  CURED_CHECK(cudaFree(d_arg));
  CURED_CHECK(cudaFree(d_c));
}

}  // namespace

int main() { return cured_example::run_example("axes", run); }
