#pragma once
// cured::error and the checked CUDA call.
//
//   CURED_CHECK(cudaMemsetAsync(p, 0, bytes, stream));   // throws cured::error on failure
//
// Nothing in the library prints or exits: every failure reaches the caller as a cured::error.

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace cured {

/// The one exception type of cured. `code()` is the CUDA error behind it, or cudaSuccess when
/// the caller's arguments were wrong (a null pointer, a host pointer, a bad block size ...).
class error : public std::runtime_error {
public:
  explicit error(const std::string& what, cudaError_t code = cudaSuccess)
      : std::runtime_error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

private:
  cudaError_t code_;
};

namespace detail {

[[noreturn]] inline void throw_cuda(cudaError_t code, const char* call, const char* file, int line) {
  // Clear the sticky-free "last error" so the next check does not report this failure again.
  (void)cudaGetLastError();
  throw error(std::string("cured: ") + call + " failed: " + cudaGetErrorName(code) + " (" +
                  cudaGetErrorString(code) + ") at " + file + ":" + std::to_string(line),
              code);
}

inline void check(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda(code, call, file, line);
}

}  // namespace detail

/// Throws a cured::error for an argument the caller got wrong.
[[noreturn]] inline void throw_invalid(const std::string& what) { throw error("cured: " + what); }

}  // namespace cured

/// Checks a CUDA runtime call; on failure throws cured::error naming the call and the place.
#define CURED_CHECK(call) ::cured::detail::check((call), #call, __FILE__, __LINE__)

/// Checks that the last kernel launch was accepted (bad configuration, missing image ...).
#define CURED_CHECK_LAUNCH() ::cured::detail::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
