// A user of the installed (or added) cured: compiled and linked in every configuration; the
// reduction runs only where a CUDA device exists, so the install test passes on CPU machines.

#include <cured/cured.cuh>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

int sum_on_device() {
  const std::int64_t n = 100'000;
  const std::vector<std::int32_t> h(n, 3);
  std::int32_t* d = nullptr;
  CURED_CHECK(cudaMalloc(&d, n * sizeof(std::int32_t)));
  CURED_CHECK(cudaMemcpy(d, h.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  const std::int64_t s = cured::sum(d, n);
  CURED_CHECK(cudaFree(d));
  if (s != 3 * n) {
    std::printf("consumer: cured::sum gave %lld, want %lld\n", static_cast<long long>(s),
                static_cast<long long>(3 * n));
    return 1;
  }
  std::printf("consumer: cured::sum ok\n");
  return 0;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("consumer: built and linked; no CUDA device, nothing run\n");
    return 0;
  }
  try {
    return sum_on_device();
  } catch (const cured::error& e) {
    std::printf("consumer: %s\n", e.what());
    return 1;
  }
}
