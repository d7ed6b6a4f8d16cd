// Errors: every failure reaches the caller as a cured::error. A host pointer, a null pointer,
// a negative count, a failed CUDA call, and a workspace used on two streams at once. Needs a
// CUDA device; without one it says so and exits with 77, which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

/// Checks that f throws a cured::error whose message contains `expected`, with CUDA error `code`.
template <class F>
void expect_error(const char* what, F f, const std::string& expected, cudaError_t code = cudaSuccess) {
  try {
    f();
    std::printf("MISMATCH %s: no cured::error thrown\n", what);
    ++cured_example::failures;
  } catch (const cured::error& e) {
    const std::string message = e.what();
    if (message.find(expected) == std::string::npos || e.code() != code) {
      std::printf("MISMATCH %s: got \"%s\" (code %s), want \"%s\" (code %s)\n", what, message.c_str(),
                  cudaGetErrorName(e.code()), expected.c_str(), cudaGetErrorName(code));
      ++cured_example::failures;
    } else {
      std::printf("%s: caught \"%s\"\n", what, message.c_str());
    }
  }
}

/// Keeps one thread busy for about `clocks` clock cycles.
__global__ void busy(long long clocks) {
  const long long start = clock64();
  while (clock64() - start < clocks) {
  }
}

void run() {
  const std::int64_t n = 1000;
  std::vector<float> host(n, 1.0f);
  float* d_x = cured_example::to_device(host);
  float* d_out = nullptr;
  CURED_CHECK(cudaMalloc(&d_out, sizeof(float)));

  // docs:begin error-host-pointer
  try {
    float s = cured::sum(host.data(), n);  // host memory: the GPU cannot read it
    std::printf("unexpected: sum %g\n", s);
  } catch (const cured::error& e) {
    std::printf("%s\n", e.what());  // "cured: the input is host memory, not device memory"
    // e.code() == cudaSuccess: the argument was wrong, no CUDA call failed
  }
  // docs:end error-host-pointer

  expect_error("host input", [&] { cured::sum(host.data(), n); }, "cured: the input is host memory, not device memory");
  expect_error("null input", [&] { cured::max(static_cast<const float*>(nullptr), n); },
               "cured: the input is a null pointer");
  expect_error("negative count", [&] { cured::sum(d_x, -1); }, "cured: negative element count -1");
  cured::workspace ws;
  float host_out = 0;
  expect_error("host output", [&] { cured::sum_async(d_x, n, &host_out, ws); },
               "cured: the output is host memory, not device memory");

  // A failed CUDA call: a workspace for a device that does not exist.
  int devices = 0;
  CURED_CHECK(cudaGetDeviceCount(&devices));
  // docs:begin error-cuda
  try {
    cured::workspace nowhere(devices);  // device ordinals are 0 .. devices - 1
  } catch (const cured::error& e) {
    // e.code() == cudaErrorInvalidDevice; e.what() names the failed call:
    // "cured: cudaDeviceGetAttribute(...) failed: cudaErrorInvalidDevice (invalid device ordinal) at ..."
    std::printf("%s\n", cudaGetErrorName(e.code()));
  }
  // docs:end error-cuda
  expect_error("workspace of a missing device", [&] { cured::workspace nowhere(devices); },
               "failed: cudaErrorInvalidDevice", cudaErrorInvalidDevice);

  cudaStream_t a, b;
  CURED_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CURED_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  busy<<<1, 1, 0, a>>>(500'000'000LL);  // stream a stays busy for a few tenths of a second
  CURED_CHECK(cudaGetLastError());
  // docs:begin error-two-streams
  cured::sum_async(d_x, n, d_out, ws, a);  // queued behind other work on stream a
  try {
    cured::sum_async(d_x, n, d_out, ws, b);  // the same workspace on stream b, while a uses it
  } catch (const cured::error& e) {
    // "cured: workspace used on a second stream while work on another stream still uses it"
    std::printf("%s\n", e.what());
  }
  CURED_CHECK(cudaStreamSynchronize(a));
  cured::sum_async(d_x, n, d_out, ws, b);  // in turn: fine
  // docs:end error-two-streams
  CURED_CHECK(cudaStreamSynchronize(b));

  busy<<<1, 1, 0, a>>>(500'000'000LL);
  CURED_CHECK(cudaGetLastError());
  cured::sum_async(d_x, n, d_out, ws, a);
  expect_error("workspace on two streams", [&] { cured::sum_async(d_x, n, d_out, ws, b); },
               "cured: workspace used on a second stream while work on another stream still uses it");
  CURED_CHECK(cudaStreamSynchronize(a));

  float result = 0;
  CURED_CHECK(cudaMemcpy(&result, d_out, sizeof(float), cudaMemcpyDeviceToHost));
  if (result != float(n)) {
    std::printf("MISMATCH sum after the errors: got %g, want %g\n", result, double(n));
    ++cured_example::failures;
  }

  CURED_CHECK(cudaStreamDestroy(a));
  CURED_CHECK(cudaStreamDestroy(b));
  CURED_CHECK(cudaFree(d_x));
  CURED_CHECK(cudaFree(d_out));
}

}  // namespace

int main() { return cured_example::run_example("errors", run, "unexpected "); }
