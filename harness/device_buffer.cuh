#pragma once
// An owning device array for the benchmark and the tests, freed on destruction.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "cured/types/error.cuh"

namespace cured::harness {

/// An owning device array.
template <class T>
class device_buffer {
public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : n_(n) {
    if (n) CURED_CHECK(cudaMalloc(&p_, n * sizeof(T)));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~device_buffer() {
    if (p_) (void)cudaFree(p_);
  }
  T* data() const { return p_; }
  std::size_t size() const { return n_; }

private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace cured::harness
