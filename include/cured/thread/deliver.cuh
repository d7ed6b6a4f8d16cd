#pragma once
// How a kernel hands its one result over: to device memory, or as report words in mapped host
// memory that a blocking call waits on (types/completion.cuh).

#include <cstdint>

#include "cured/thread/words.cuh"
#include "cured/types/completion.cuh"

namespace cured::thread {

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

}  // namespace cured::thread
