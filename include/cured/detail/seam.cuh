#pragma once
// The one seam every launch goes through: the workspace held for the call, the pointers checked,
// the kernels enqueued, a failed launch turned into a cured::error, the work marked as the
// workspace's.
//
//   detail::launch_seam(ws, stream, false, "axis reduction launch", [&](workspace::use& use) {
//     use.check_pointer(in, workspace::role::input, "the input");
//     launch_kernel(kernel, shape, stream, ...);
//   });

#include <cuda_runtime_api.h>

#include "cured/types/error.cuh"
#include "cured/workspace.cuh"

namespace cured::detail {

/// Holds `ws` for one call on `stream` (workspace::use: the device, thread and stream checks;
/// `synchronous` for the blocking forms, whose caller waits), runs `enqueue(use)`, which checks
/// its pointers through `use` and enqueues its work, and throws a cured::error naming `what` if a
/// launch failed; the work is marked as the workspace's before that error is thrown, so that a
/// launched kernel is still tracked. (What `enqueue` itself throws passes through unmarked.)
template <class Enqueue>
void launch_seam(workspace& ws, cudaStream_t stream, bool synchronous, const char* what, Enqueue&& enqueue) {
  workspace::use use(ws, stream, synchronous);
  (void)cudaGetLastError();  // an earlier, unrelated error must not be taken for this launch's
  enqueue(use);
  const cudaError_t launch_error = cudaGetLastError();
  use.enqueued();
  if (launch_error != cudaSuccess) throw_cuda(launch_error, what, __FILE__, __LINE__);
}

}  // namespace cured::detail
