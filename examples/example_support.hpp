// What every example program shares, so that each .cu file holds only its own checks: a count
// of failed checks, expect() to make one, to_device() to copy test data to the GPU, and
// run_example(), the body of every example's main(). Not part of cured: it uses only the
// public API (#include <cured/cured.cuh>), as the examples do.

#pragma once

#include <cured/cured.cuh>

#include <cstdio>
#include <vector>

namespace cured_example {

/// How many checks have failed; run_example() returns 1 when it is not 0. A check that prints
/// its own MISMATCH line counts itself here (++cured_example::failures).
inline int failures = 0;

/// One check: when `ok` is false, prints "MISMATCH <what>: got <got>, want <want>" and counts a
/// failure; the program goes on, so one run reports every wrong result.
inline void expect(bool ok, const char* what, double got, double want) {
  if (ok) return;
  std::printf("MISMATCH %s: got %.17g, want %.17g\n", what, got, want);
  ++failures;
}

/// Copies `h` into a new device allocation (cudaMalloc + cudaMemcpy); the caller frees it with
/// cudaFree. A failed CUDA call throws a cured::error.
template <class T>
T* to_device(const std::vector<T>& h) {
  T* d = nullptr;
  CURED_CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CURED_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

/// The examples' main(): `return cured_example::run_example("sum", run);`. Without a CUDA
/// device it prints "<name>: no CUDA device, nothing run" and returns 77, which ctest reports as
/// skipped. Otherwise it calls run(); a cured::error escaping it is printed as
/// "<name>: <error_prefix><what()>" and gives 1, a failed check gives 1, and success prints
/// "<name>: ok" and gives 0.
template <class Run>
int run_example(const char* name, Run run, const char* error_prefix = "") {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("%s: no CUDA device, nothing run\n", name);
    return 77;
  }
  try {
    run();
  } catch (const cured::error& e) {
    std::printf("%s: %s%s\n", name, error_prefix, e.what());
    return 1;
  }
  if (failures) return 1;
  std::printf("%s: ok\n", name);
  return 0;
}

}  // namespace cured_example
