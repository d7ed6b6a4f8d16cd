#pragma once
// How a blocking call learns its result: the kernel writes it into mapped host memory as
// report words, and the host spins on them instead of synchronizing the stream.
//
//   device: deliver(out, result, done);                 // thread 0, once, at the kernel's end
//   host:   read_report(words, done.value, &r, sizeof r) // true once every word has arrived
//
// Report word k holds the call's completion value in its upper 32 bits and the result's 32-bit
// word k in its lower ones. Each word is written and read whole (single-copy atomic), so the
// host takes the result once every word carries the value: one trip to host memory and no
// system-wide fence before it. The workspace owns the memory (workspace::completion_target).

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cured/thread/words.cuh"

namespace cured {

/// Where a kernel reports its result (device addresses of the report words) and the value that
/// marks this call's words; words null: no report (the result goes to `out`).
struct completion {
  std::uint64_t* words = nullptr;
  unsigned value = 0;
};

/// Largest result (in bytes) a report carries.
inline constexpr std::size_t max_report_bytes = 64;

/// True, with the result's `bytes` in `result`, once every report word at `words` (host
/// addresses) carries `value`.
inline bool read_report(const volatile std::uint64_t* words, unsigned value, void* result, std::size_t bytes) {
  unsigned lo[max_report_bytes / 4];
  for (std::size_t k = 0; k < (bytes + 3) / 4; ++k) {
    const std::uint64_t w = words[k];  // one 8-byte load: the value and its word together
    if (unsigned(w >> 32) != value) return false;
    lo[k] = unsigned(w);
  }
  std::memcpy(result, lo, bytes);
  return true;
}

namespace device {

/// In one thread, once, with the launch's result: writes it to *out, or as report words when
/// `done` names them.
template <class T>
__device__ __forceinline__ void deliver(T* out, const T& v, const completion& done) {
  static_assert(sizeof(T) <= max_report_bytes, "cured: result larger than a report");
  if (!done.words) {
    thread::store_whole(out, v);
    return;
  }
  unsigned w[thread::word_count<T>];
  thread::words_of(v, w);
#pragma unroll
  for (int k = 0; k < thread::word_count<T>; ++k)
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(done.words + k),
                 "l"((std::uint64_t(done.value) << 32) | w[k])
                 : "memory");
}

}  // namespace device
}  // namespace cured
