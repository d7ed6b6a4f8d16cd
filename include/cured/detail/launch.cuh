#pragma once
// How kernels are launched: the shape of a launch, the per-device facts that decide it
// (computed once per kernel and device), and the one launcher.
//
//   const std::int64_t grid = wave_grid<kernel>(work_blocks, block, ws);   // one full wave at most
//   launch_kernel(kernel, launch_shape{grid, 1, block}, stream, args...);

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>

#include "cured/grid/cluster_combine.cuh"
#include "cured/types/error.cuh"
#include "cured/detail/device_check.cuh"

namespace cured::detail {

/// `grid` blocks of `block` threads, all in one cluster when `cluster` (then equal to grid) is
/// above 1; `small`: small_kernel's launch.
struct launch_shape {
  std::int64_t grid = 1;
  unsigned cluster = 1;
  unsigned block = 0;
  bool small = false;
};

/// a / b rounded up (a >= 0, b > 0).
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// compute() for `device`, computed once per device and call site (each call site's lambda
/// is its own type); compute() must not return 0, which marks "not yet".
template <class T, class Compute>
T once_per_device(int device, Compute compute) {
  static std::atomic<T> cached[64] = {};
  std::atomic<T>& c = cached[device & 63];
  T v = c.load(std::memory_order_relaxed);
  if (v == 0) {
    v = compute();
    c.store(v, std::memory_order_relaxed);
  }
  return v;
}

/// Blocks of `Kernel` (launched with `block` threads) resident on one multiprocessor.
template <auto Kernel>
int resident_blocks(int device, unsigned block) {
  return once_per_device<int>(device, [&] {
    int b = 0;
    CURED_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, Kernel, int(block), 0));
    return std::max(b, 1);
  });
}

/// min(blocks, one full wave of Kernel), at least 1: no more blocks than there is work for.
template <auto Kernel>
std::int64_t wave_grid(std::int64_t blocks, unsigned block, int device, int sm_count) {
  const std::int64_t wave = std::int64_t(resident_blocks<Kernel>(device, block)) * sm_count;
  return std::max<std::int64_t>(1, std::min(blocks, wave));
}

/// A launch configuration of `shape`; `dims` (which the configuration points to) holds the
/// cluster's dimensions.
inline cudaLaunchConfig_t cluster_config(const launch_shape& shape, cudaStream_t stream, cudaLaunchAttribute& dims) {
  dims = {};
  dims.id = cudaLaunchAttributeClusterDimension;
  dims.val.clusterDim.x = shape.cluster;
  dims.val.clusterDim.y = dims.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(shape.grid));
  config.blockDim = dim3(shape.block);
  config.stream = stream;
  config.attrs = &dims;
  config.numAttrs = 1;
  return config;
}

/// The largest cluster of `Kernel` (launched with `block` threads) that the device can run, up
/// to grid::max_cluster: 1 before Hopper, or when the kernel was compiled for an earlier
/// architecture (its code then has no cluster path), or when CURED_ARCH_CAP is below 90.
template <auto Kernel>
unsigned cluster_limit(int device, unsigned block) {
  if (!cap_allows(90)) return 1;
  return once_per_device<unsigned>(device, [&] {
    unsigned limit = 1;
    int major = 0;
    cudaFuncAttributes attr{};
    CURED_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CURED_CHECK(cudaFuncGetAttributes(&attr, Kernel));
    if (major >= 9 && attr.ptxVersion >= 90) {
      const bool non_portable =
          cudaFuncSetAttribute(Kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
      for (unsigned size = non_portable ? grid::max_cluster : 8; size > 1 && limit == 1; size /= 2) {
        cudaLaunchAttribute dims;
        const cudaLaunchConfig_t config = cluster_config({size, size, block}, nullptr, dims);
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, Kernel, &config) == cudaSuccess && clusters > 0) limit = size;
      }
      (void)cudaGetLastError();  // a size the device refused is not the caller's error
    }
    return limit;
  });
}

/// kernel<<<shape.grid, shape.block, 0, stream>>>(args...), as one cluster when
/// shape.cluster > 1. A failed launch is left to cudaGetLastError, as with <<<>>>.
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), const launch_shape& shape, cudaStream_t stream, Args&&... args) {
  if (shape.cluster <= 1) {
    kernel<<<unsigned(shape.grid), shape.block, 0, stream>>>(std::forward<Args>(args)...);
    return;
  }
  cudaLaunchAttribute dims;
  const cudaLaunchConfig_t config = cluster_config(shape, stream, dims);
  (void)cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace cured::detail
