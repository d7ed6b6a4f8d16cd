// Segmented reductions: the rows of a CSR matrix (sums, maxima, the column of each row's
// maximum), exact row sums, the asynchronous form with its status word, bad offsets reported,
// and padded sequences given as begin and end pairs. Needs a CUDA device; without one it says
// so and exits with 77, which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <cstdint>
#include <vector>

namespace {

using cured_example::expect;
using cured_example::to_device;

void run() {
  // A 4 x 5 CSR matrix: row r's values are values[offsets[r], offsets[r + 1]); row 2 is empty.
  //   [ 1 . 2 . . ]
  //   [ . 3 . 4 5 ]
  //   [ . . . . . ]
  //   [ 6 . . . 7 ]
  const std::vector<float> h_values = {1, 2, 3, 4, 5, 6, 7};
  const std::vector<std::int64_t> h_offsets = {0, 2, 5, 5, 7};
  const std::int64_t rows = 4, n = 7;
  float* d_values = to_device(h_values);
  std::int64_t* d_offsets = to_device(h_offsets);
  float *d_sums = nullptr, *d_max = nullptr;
  std::int64_t* d_arg = nullptr;
  CURED_CHECK(cudaMalloc(&d_sums, rows * sizeof(float)));
  CURED_CHECK(cudaMalloc(&d_max, rows * sizeof(float)));
  CURED_CHECK(cudaMalloc(&d_arg, rows * sizeof(std::int64_t)));

  // docs:begin segments-basic
  const cured::segments seg{d_offsets, rows};   // segment r: values [offsets[r], offsets[r + 1])
  cured::sum(d_values, n, seg, d_sums);         // 3, 12, 0, 13
  cured::max(d_values, n, seg, d_max);          // 2, 5, -inf, 7
  cured::argmax(d_values, n, seg, d_arg);       // 1, 2, -1, 1: the index within each row
  // docs:end segments-basic
  std::vector<float> sums(rows), maxima(rows);
  std::vector<std::int64_t> arg(rows);
  CURED_CHECK(cudaMemcpy(sums.data(), d_sums, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CURED_CHECK(cudaMemcpy(maxima.data(), d_max, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CURED_CHECK(cudaMemcpy(arg.data(), d_arg, rows * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  const float want_sums[] = {3, 12, 0, 13}, want_max[] = {2, 5, -INFINITY, 7};
  const std::int64_t want_arg[] = {1, 2, -1, 1};
  for (std::int64_t r = 0; r < rows; ++r) {
    expect(sums[r] == want_sums[r], "row sum", sums[r], want_sums[r]);
    expect(maxima[r] == want_max[r], "row max", maxima[r], want_max[r]);
    expect(arg[r] == want_arg[r], "row argmax", double(arg[r]), double(want_arg[r]));
  }

  // docs:begin segments-async
  cured::workspace ws;
  cudaStream_t stream = nullptr;
  unsigned* d_status = nullptr;                 // 0, or the bits of cured::segment_error
  CURED_CHECK(cudaMalloc(&d_status, sizeof(unsigned)));
  cured::exact_sum_async(d_values, n, seg, d_sums, ws, stream, d_status);
  unsigned status = 0;
  CURED_CHECK(cudaMemcpyAsync(&status, d_status, sizeof status, cudaMemcpyDeviceToHost, stream));
  CURED_CHECK(cudaStreamSynchronize(stream));
  if (status != 0) { /* the offsets decrease or leave [0, n]: d_sums is unspecified */ }
  // docs:end segments-async
  expect(status == 0, "status of good offsets", status, 0);
  CURED_CHECK(cudaMemcpy(sums.data(), d_sums, rows * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::int64_t r = 0; r < rows; ++r) expect(sums[r] == want_sums[r], "exact row sum", sums[r], want_sums[r]);

  // Offsets that decrease: the blocking form throws, the asynchronous one sets the status word.
  const std::vector<std::int64_t> h_bad = {0, 5, 2, 7};
  std::int64_t* d_bad = to_device(h_bad);
  bool threw = false;
  // docs:begin segments-errors
  try {
    cured::sum(d_values, n, cured::segments{d_bad, 3}, d_sums);   // offsets 0, 5, 2, 7
  } catch (const cured::error&) {
    threw = true;   // what(): "bad segment offsets: an offset is below the one before it"
  }
  // docs:end segments-errors
  expect(threw, "bad offsets throw", threw, 1);
  cured::sum_async(d_values, n, cured::segments{d_bad, 3}, d_sums, ws, stream, d_status);
  CURED_CHECK(cudaMemcpyAsync(&status, d_status, sizeof status, cudaMemcpyDeviceToHost, stream));
  CURED_CHECK(cudaStreamSynchronize(stream));
  expect(status == cured::offsets_decrease, "status of bad offsets", status, cured::offsets_decrease);

  // Begin and end pairs: sequences padded to slots of 4 values, of lengths 2, 3 and 0.
  const std::vector<float> h_padded = {1, 2, 0, 0, 3, 4, 5, 0, 0, 0, 0, 0};
  const std::vector<std::int64_t> h_begins = {0, 4, 8}, h_ends = {2, 7, 8};
  float* d_padded = to_device(h_padded);
  std::int64_t* d_begins = to_device(h_begins);
  std::int64_t* d_ends = to_device(h_ends);
  // docs:begin segments-pairs
  const auto pairs = cured::segments::pairs(d_begins, d_ends, 3);   // segment r: [begins[r], ends[r])
  cured::sum(d_padded, 12, pairs, d_sums);                          // 3, 12, 0: the padding is in none
  // docs:end segments-pairs
  CURED_CHECK(cudaMemcpy(sums.data(), d_sums, 3 * sizeof(float), cudaMemcpyDeviceToHost));
  const float want_padded[] = {3, 12, 0};
  for (int r = 0; r < 3; ++r) expect(sums[r] == want_padded[r], "sum over pairs", sums[r], want_padded[r]);

  CURED_CHECK(cudaFree(d_padded));
  CURED_CHECK(cudaFree(d_begins));
  CURED_CHECK(cudaFree(d_ends));
  CURED_CHECK(cudaFree(d_values));
  CURED_CHECK(cudaFree(d_offsets));
  CURED_CHECK(cudaFree(d_bad));
  CURED_CHECK(cudaFree(d_sums));
  CURED_CHECK(cudaFree(d_max));
  CURED_CHECK(cudaFree(d_arg));
  CURED_CHECK(cudaFree(d_status));
}

}  // namespace

int main() { return cured_example::run_example("segments", run); }
