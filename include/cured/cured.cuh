#pragma once
// cured: parallel reductions on NVIDIA GPUs. Include this one header.
//
//   #include <cured/cured.cuh>
//   float s = cured::sum(d_x, n);
//
// The public API: reduce.cuh (the whole-array reductions), axes.cuh (along axes of strided
// views), segments.cuh (per segment), exact.cuh (the exact sums), statistics.cuh,
// statistics_axes.cuh and statistics_segments.cuh (the one-pass statistics), ops.cuh and
// statistic_ops.cuh (the operators and the statistics' states), workspace.cuh (the scratch of
// the asynchronous forms), accumulate.cuh (the accumulator and result types), view.cuh
// (strided N-D views and axes), error.cuh (cured::error).
//
// Below it, calls go one way, each layer in its folder:
//   detail/  the dispatch: the one launch decision, per-device caches, the launch, tuning
//   device/  the kernels, one file per family (whole array, arg, exact, axis rows and columns)
//   grid/    the hand-over between blocks, the cluster combine, the split combine
//   block/, warp/, thread/   block and warp reductions; a thread's loads and reduction
//   exact/   the fixed-point accumulator and double-double arithmetic of the exact sums
//   completion.cuh   how a blocking call learns its result, shared by kernels and workspace

#include "cured/accumulate.cuh"
#include "cured/axes.cuh"
#include "cured/error.cuh"
#include "cured/exact.cuh"
#include "cured/ops.cuh"
#include "cured/reduce.cuh"
#include "cured/segments.cuh"
#include "cured/statistic_ops.cuh"
#include "cured/statistics.cuh"
#include "cured/statistics_axes.cuh"
#include "cured/statistics_segments.cuh"
#include "cured/view.cuh"
#include "cured/workspace.cuh"
