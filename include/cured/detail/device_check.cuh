#pragma once
// Whether a device can run cured, and the features the launches may use on it: checked once per
// workspace (workspace.cuh), read by the launch decisions (detail/launch.cuh).
//
//   detail::check_device_runs_cured(device);   // throws cured::error naming what is missing
//   if (detail::cap_allows(90)) ...            // clusters, unless CURED_ARCH_CAP says otherwise

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <string>

#include "cured/types/error.cuh"

namespace cured {

namespace detail {

/// A kernel that does nothing: whether the program holds code a device can run.
template <int = 0>
__global__ void code_probe_kernel() {}

/// The newest compute capability (major * 10 + minor) whose features the launches use, or 0:
/// the device's own. CURED_ARCH_CAP=80 in the environment runs every family as on an Ampere GPU
/// (no thread-block clusters): the portable paths, tested on a Hopper GPU. Read once a process.
inline int architecture_cap() {
  static const int cap = [] {
    const char* text = std::getenv("CURED_ARCH_CAP");
    if (text == nullptr || *text == '\0') return 0;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value < 80 || value > 1000)
      throw_invalid("CURED_ARCH_CAP=" + std::string(text) +
                    ": give a compute capability of 80 or more (80, 90 ...) or leave it unset");
    return int(value);
  }();
  return cap;
}

/// Whether launches may use the features of compute capability `arch` (90: clusters), as far
/// as CURED_ARCH_CAP allows.
inline bool cap_allows(int arch) {
  const int cap = architecture_cap();
  return cap == 0 || arch <= cap;
}

/// Throws a cured::error naming what is missing where the current device, `device`, cannot run
/// cured: older than compute capability 8.0, or no code for it in this program (built for other
/// architectures; the launches would fail with "no kernel image is available"); or where
/// CURED_ARCH_CAP is not a compute capability. (The probe is the one kernel of the translation
/// unit the linker kept this function from: a program whose .cu files are built for different
/// architectures should build all of them for every GPU it runs on.)
inline void check_device_runs_cured(int device) {
  (void)architecture_cap();
  int major = 0, minor = 0;
  CURED_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CURED_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const std::string cc = std::to_string(major) + "." + std::to_string(minor);
  if (major < 8)
    throw error("cured: device " + std::to_string(device) + " has compute capability " + cc +
                    "; cured needs 8.0 (Ampere) or newer",
                cudaErrorInvalidDevice);
  cudaFuncAttributes attributes{};
  const cudaError_t e = cudaFuncGetAttributes(&attributes, code_probe_kernel<>);
  if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
    (void)cudaGetLastError();
    throw error("cured: this program holds no code for device " + std::to_string(device) + " (compute capability " +
                    cc + "): build it for sm_" + std::to_string(major) + std::to_string(minor) +
                    " too (CMAKE_CUDA_ARCHITECTURES, nvcc -arch)",
                e);
  }
  CURED_CHECK(e);
}

}  // namespace detail

}  // namespace cured
