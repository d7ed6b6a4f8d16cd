// The ladder registry, its workspace and the device queries the steps share.

#include <array>
#include <mutex>
#include <vector>

#include "ladder/common.cuh"

namespace cured::ladder {

namespace detail {
const step& entry_01();
const step& entry_02();
const step& entry_03();
const step& entry_04();
const step& entry_05();
const step& entry_06();
const step& entry_07();
const step& entry_08();
const step& entry_09();
const step& entry_10();
}  // namespace detail

std::span<const step> steps() {
  static const std::array<step, 10> all = {
      detail::entry_01(), detail::entry_02(), detail::entry_03(), detail::entry_04(), detail::entry_05(),
      detail::entry_06(), detail::entry_07(), detail::entry_08(), detail::entry_09(), detail::entry_10()};
  return all;
}

int sm_count() {
  static std::mutex mutex;
  static std::vector<int> per_device;
  int device = 0;
  CURED_CHECK(cudaGetDevice(&device));
  std::lock_guard lock(mutex);
  if (per_device.size() <= std::size_t(device)) per_device.resize(device + 1, 0);
  if (per_device[device] == 0)
    CURED_CHECK(cudaDeviceGetAttribute(&per_device[device], cudaDevAttrMultiProcessorCount, device));
  return per_device[device];
}

workspace::~workspace() {
  if (base_) (void)cudaFree(base_);
}

void* workspace::reserve(std::size_t bytes) {
  constexpr std::size_t ticket_bytes = 256;  // keeps the data 256-byte aligned
  if (base_ == nullptr || bytes > capacity_) {
    if (base_) {
      CURED_CHECK(cudaFree(base_));  // synchronizes: no pass still uses the old buffer
      base_ = nullptr;
      capacity_ = 0;
    }
    void* p = nullptr;
    CURED_CHECK(cudaMalloc(&p, bytes + ticket_bytes));
    base_ = p;
    // Zero the ticket and wait: a plain cudaMemset is not ordered before non-blocking streams.
    CURED_CHECK(cudaMemsetAsync(p, 0, ticket_bytes, cudaStreamPerThread));
    CURED_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    ticket_ = static_cast<unsigned int*>(p);
    capacity_ = bytes;
  }
  return static_cast<char*>(base_) + ticket_bytes;
}

}  // namespace cured::ladder
