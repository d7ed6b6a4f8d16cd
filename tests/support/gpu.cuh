#pragma once
// GPU test helpers: skip cleanly without a device.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "harness/device_buffer.cuh"

namespace cured::test {

using harness::device_buffer;

/// Empty when a CUDA device is usable; otherwise the reason it is not.
inline const std::string& no_gpu_reason() {
  static const std::string reason = [] {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    }
    if (count == 0) return std::string("no CUDA device");
    return std::string();
  }();
  return reason;
}

#define CURED_REQUIRE_GPU()                                                   \
  do {                                                                        \
    if (!::cured::test::no_gpu_reason().empty())                              \
      GTEST_SKIP() << ::cured::test::no_gpu_reason();                         \
  } while (0)

/// Largest input size the GPU tests use: the environment's CURED_TEST_MAX_N, or no limit.
/// scripts/device_check.sh sets it for the compute-sanitizer runs, which are slow on big inputs.
inline std::int64_t max_test_n() {
  static const std::int64_t limit = [] {
    const char* v = std::getenv("CURED_TEST_MAX_N");
    return v && *v ? std::int64_t(std::strtoll(v, nullptr, 10)) : std::numeric_limits<std::int64_t>::max();
  }();
  return limit;
}

/// A copy of h on the device, one element longer (never empty).
template <class T>
device_buffer<T> upload(const std::vector<T>& h) {
  device_buffer<T> d(h.size() + 1);
  if (!h.empty()) CURED_CHECK(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

/// Bytes of free device memory now (0 without a device).
inline std::size_t free_device_bytes() {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return 0;
  return free_b;
}

}  // namespace cured::test
