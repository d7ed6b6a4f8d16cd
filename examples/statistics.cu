// The one-pass statistics: var_mean, aminmax, norm, logsumexp, count_nonzero, any/all of a
// whole array, var_mean per row along an axis, logsumexp per segment; each checked against a
// computation on the host. Needs a CUDA device; without one it says so and exits with 77,
// which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using cured_example::expect;
using cured_example::to_device;

void run() {
  const std::int64_t rows = 1000, cols = 257, n = rows * cols;
  std::vector<float> h_x(n);
  for (std::int64_t i = 0; i < n; ++i) h_x[i] = 1000.0f + float((i * 7919) % 201 - 100) / 16.0f;  // mean near 1000
  float* d_x = to_device(h_x);
  double sum = 0, squares = 0, deviations = 0, top = -INFINITY;
  for (float v : h_x) sum += v, squares += double(v) * v, top = std::fmax(top, v);
  const double mean = sum / double(n);
  double exps = 0;
  for (float v : h_x) deviations += (v - mean) * (v - mean), exps += std::exp(double(v) - top);

  // docs:begin statistics-whole
  cured::var_mean_result<float> vm = cured::var_mean(d_x, n);  // {var, mean}, ddof 1 as torch
  float population_std = cured::std(d_x, n, 0.0);              // ddof 0
  cured::min_max<float> range = cured::aminmax(d_x, n);        // {min, max}, NaN propagates
  float l2 = cured::vector_norm(d_x, n);                       // p = 2: no overflow, no underflow
  float l1 = cured::vector_norm(d_x, n, 1.0), linf = cured::vector_norm(d_x, n, INFINITY);
  float lse = cured::logsumexp(d_x, n);
  std::int64_t nonzero = cured::count_nonzero(d_x, n);
  bool some = cured::any(d_x, n), every = cured::all(d_x, n);
  // docs:end statistics-whole
  expect(std::fabs(vm.var - deviations / double(n - 1)) < 1e-4 * vm.var, "var", vm.var, deviations / double(n - 1));
  expect(std::fabs(vm.mean - mean) < 1e-4, "mean", vm.mean, mean);
  expect(std::fabs(population_std - std::sqrt(deviations / double(n))) < 1e-4, "std", population_std,
         std::sqrt(deviations / double(n)));
  expect(range.min == 993.75f && range.max == 1006.25f, "aminmax", range.min, 993.75);
  expect(std::fabs(l2 - std::sqrt(squares)) < 1e-6 * std::sqrt(squares), "vector_norm 2", l2, std::sqrt(squares));
  expect(std::fabs(l1 - sum) < 1e-5 * sum, "vector_norm 1", l1, sum);
  expect(linf == 1006.25f, "vector_norm inf", linf, 1006.25);
  expect(std::fabs(lse - (top + std::log(exps))) < 1e-3, "logsumexp", lse, top + std::log(exps));
  expect(nonzero == n && some && every, "count_nonzero, any, all", double(nonzero), double(n));

  std::vector<float> h_var(rows), h_mean(rows);
  float* d_var = to_device(h_var);
  float* d_mean = to_device(h_mean);
  // docs:begin statistics-axes
  auto x = cured::view(d_x, {rows, cols});
  cured::var_mean(x, {1}, cured::view(d_var, {rows}), cured::view(d_mean, {rows}));  // per row
  // docs:end statistics-axes
  CURED_CHECK(cudaMemcpy(h_var.data(), d_var, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CURED_CHECK(cudaMemcpy(h_mean.data(), d_mean, rows * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::int64_t r = 0; r < rows; r += 97) {
    double s = 0, d = 0;
    for (std::int64_t c = 0; c < cols; ++c) s += h_x[r * cols + c];
    const double m = s / double(cols);
    for (std::int64_t c = 0; c < cols; ++c) d += (h_x[r * cols + c] - m) * (h_x[r * cols + c] - m);
    expect(std::fabs(h_mean[r] - m) < 1e-3 && std::fabs(h_var[r] - d / double(cols - 1)) < 1e-3 * (1 + d / double(cols)),
           "row var_mean", h_var[r], d / double(cols - 1));
  }

  const std::vector<std::int64_t> h_offsets = {0, 3, 3, 1000, n};
  std::int64_t* d_offsets = to_device(h_offsets);
  std::vector<float> h_lse(4);
  float* d_lse = to_device(h_lse);
  // docs:begin statistics-segments
  cured::segments seg{d_offsets, 4};    // the second segment is empty: its logsumexp is -inf
  cured::logsumexp(d_x, n, seg, d_lse);
  // docs:end statistics-segments
  CURED_CHECK(cudaMemcpy(h_lse.data(), d_lse, 4 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int s = 0; s < 4; ++s) {
    double m = -INFINITY, e = 0;
    for (std::int64_t i = h_offsets[s]; i < h_offsets[s + 1]; ++i) m = std::fmax(m, h_x[i]);
    for (std::int64_t i = h_offsets[s]; i < h_offsets[s + 1]; ++i) e += std::exp(double(h_x[i]) - m);
    const double want = e > 0 ? m + std::log(e) : -INFINITY;
    expect(want == -INFINITY ? h_lse[s] == -INFINITY : std::fabs(h_lse[s] - want) < 1e-3, "segment logsumexp", h_lse[s],
           want);
  }
  for (void* p : {static_cast<void*>(d_x), static_cast<void*>(d_var), static_cast<void*>(d_mean),
                  static_cast<void*>(d_offsets), static_cast<void*>(d_lse)})
    CURED_CHECK(cudaFree(p));
}

}  // namespace

int main() { return cured_example::run_example("statistics", run); }
