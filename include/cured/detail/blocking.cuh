#pragma once
// The blocking forms: a launch into the calling thread's workspace, then a wait for the
// kernel's report (cured/types/completion.cuh).
//
//   float s = detail::blocking<float>(stream, [&](float* d_out, workspace& ws) {
//     detail::reduce<mode::blocking>(..., d_out, ..., ws, stream);
//   });

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cured/types/error.cuh"
#include "cured/types/segments.cuh"
#include "cured/workspace.cuh"

namespace cured::detail {

/// The calling thread's workspace for the blocking forms: one per device, made on first use.
inline workspace& thread_workspace() {
  thread_local std::vector<std::unique_ptr<workspace>> per_device;
  const int device = workspace::current_device();
  if (per_device.size() <= std::size_t(device)) per_device.resize(device + 1);
  if (!per_device[device]) per_device[device] = std::make_unique<workspace>(device);
  return *per_device[device];
}

/// Runs `enqueue(d_result, ws)` (a mode::blocking launch into the thread's workspace), waits
/// for the result and returns it.
template <class Acc, class Enqueue>
Acc blocking(cudaStream_t stream, Enqueue enqueue) {
  workspace& ws = thread_workspace();
  ws.arm_completion();
  enqueue(static_cast<Acc*>(ws.host_result_on_device()), ws);
  Acc r;
  ws.wait_for_result(stream, &r, sizeof(Acc));
  return r;
}

/// The blocking forms whose results go to device memory (along axes, per segment): the
/// asynchronous form, `enqueue(ws)`, on the thread's workspace, then a wait for the stream.
template <class Enqueue>
void enqueue_and_wait(cudaStream_t stream, Enqueue enqueue) {
  workspace& ws = thread_workspace();
  { workspace::use wait(ws, stream, true); }  // the thread's earlier call on another stream, finished
  enqueue(ws);
  CURED_CHECK(cudaStreamSynchronize(stream));
}

/// The message of a status word's bits.
inline std::string segment_error_message(unsigned bits) {
  std::string m = "bad segment offsets:";
  if (bits & offsets_outside) m += " offsets[0] < 0 or offsets[count] > n;";
  if (bits & offsets_decrease) m += " an offset is below the one before it;";
  m.pop_back();
  return m;
}

/// The blocking forms: the asynchronous one on the calling thread's workspace with its status
/// word in mapped host memory, a wait, then the status.
template <class Enqueue>
void segment_blocking(cudaStream_t stream, Enqueue enqueue) {
  const volatile unsigned* word = nullptr;
  enqueue_and_wait(stream, [&](workspace& ws) {
    volatile unsigned* host_word = static_cast<volatile unsigned*>(const_cast<void*>(ws.host_result()));
    *host_word = 0;  // no launch, no stale status: the thread's earlier call has finished
    word = host_word;
    enqueue(ws, static_cast<unsigned*>(ws.host_result_on_device()));
  });
  if (const unsigned bits = *word) throw_invalid(segment_error_message(bits));
}

}  // namespace cured::detail
