#pragma once
// cured: parallel reductions on NVIDIA GPUs. Include this one header.
//
//   #include <cured/cured.cuh>
//   float s = cured::sum(d_x, n);
//
// reduce.cuh has the device-wide API; exact.cuh the exact sums; ops.cuh the operators; workspace.cuh the scratch of the
// asynchronous forms; accumulate.cuh the accumulator types; error.cuh cured::error.

#include "cured/accumulate.cuh"
#include "cured/error.cuh"
#include "cured/exact.cuh"
#include "cured/ops.cuh"
#include "cured/reduce.cuh"
#include "cured/workspace.cuh"
