#pragma once
// How the C interface's segmented calls run: the _async form on the call's workspace and status
// word, or, with check, as the blocking forms run it (cured::run_blocking): on the thread's
// workspace, waited for, bad offsets thrown.

#include "capi.hpp"
#include "cured/segments.cuh"

namespace cured::capi {

template <class Async>
void segment_run(const segment_call& c, const Async& async) {
  if (c.check)
    run_blocking(c.stream, async);
  else
    async(*c.ws, c.status);
}

}  // namespace cured::capi
