#pragma once
// cured: parallel reductions on NVIDIA GPUs. Include this one header.
//
//   #include <cured/cured.cuh>
//   float s = cured::sum(d_x, n);
//
// The entry headers, beside this one: reduce.cuh (the whole-array reductions), axes.cuh (along
// axes of strided views), segments.cuh (per segment), exact.cuh (the exact sums), statistics.cuh,
// statistics_axes.cuh and statistics_segments.cuh (the one-pass statistics), workspace.cuh (the
// scratch of the asynchronous forms), and nccl.cuh (across GPUs; included on its own, with NCCL).
//
// Below them, calls go one way, each layer in its folder (namespace cured::<folder>):
//   types/   the vocabulary every layer shares (namespace cured): cured::error, strided views and
//            axes, the operators and the statistics' states, accumulator and result types,
//            segments, the completion of blocking calls
//   detail/  the dispatch: checks, the one launch decision, the launch seam, tuning
//   device/  the kernels, one file per family
//   grid/    how blocks meet: the hand-over, the cluster combine, the split combine
//   block/, warp/, thread/   block and warp reductions; a thread's loads, reduction and delivery
//   exact/   the fixed-point accumulator and double-double arithmetic of the exact sums

#include "cured/axes.cuh"
#include "cured/exact.cuh"
#include "cured/reduce.cuh"
#include "cured/segments.cuh"
#include "cured/statistics.cuh"
#include "cured/statistics_axes.cuh"
#include "cured/statistics_segments.cuh"
#include "cured/types/accumulate.cuh"
#include "cured/types/error.cuh"
#include "cured/types/ops.cuh"
#include "cured/types/statistic_ops.cuh"
#include "cured/types/view.cuh"
#include "cured/workspace.cuh"
