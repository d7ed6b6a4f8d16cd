#pragma once
// How a blocking call learns its result: the kernel writes it into mapped host memory as
// report words, and the host spins on them instead of synchronizing the stream.
//
//   device: thread::deliver(out, result, done);         // thread 0, once (thread/deliver.cuh)
//   host:   read_report(words, done.value, &r, sizeof r) // true once every word has arrived
//
// Report word k holds the call's completion value in its upper 32 bits and the result's 32-bit
// word k in its lower ones. Each word is written and read whole (single-copy atomic), so the
// host takes the result once every word carries the value: one trip to host memory and no
// system-wide fence before it. The workspace owns the memory (workspace::completion_target).

#include <cstddef>
#include <cstdint>
#include <cstring>

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

}  // namespace cured
