#pragma once
// The tiling of the axis kernels from the plan and the device (the numbers: axis_policy):
//   rows:    Lanes = the row's vectors (or elements, for rows read one by one) rounded up to a
//            power of two, at most a warp. Outputs of one row of whole, aligned vectors that
//            one round of lanes covers: short_rows_kernel; other rows: rows_kernel, a group of
//            Lanes per output; long outputs fewer than a wave of warps: long_rows_kernel, each
//            output split in parts (ranges of rows, then of elements), at most one wave of blocks.
//   columns: column_width threads across (a 128-byte line of vectors), widened while the block
//            is deeper than a quarter of the rows; rows split over blocks until column_waves
//            waves of blocks.
// Splits need the workspace's counters and partials; a shape that would need more is split less.

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "cured/detail/launch.cuh"
#include "cured/detail/tuning.cuh"
#include "cured/device/axis_columns.cuh"
#include "cured/device/axis_rows.cuh"
#include "cured/workspace.cuh"

namespace cured::detail {

inline unsigned pow2_ceil(std::int64_t x) {
  unsigned p = 1;
  while (p < x && p < (1u << 30)) p *= 2;
  return p;
}

/// Tiles the row regime: the lanes per output, and whether one round of them covers a row
/// (short_rows_kernel); lanes 0: long_rows_kernel, with its parts per output. vectors_per_lane
/// above 1 (axis_plan::row_vectors_per_lane): lanes enough for each to take that many vectors.
template <class In, class Acc, auto LongKernel>
unsigned tile_rows(device::row_shape& s, bool& one_round, unsigned vectors_per_lane, const workspace& ws) {
  const bool vectors = s.vectors && s.stride == 1;
  const std::int64_t units = vectors ? ceil_div(s.length, thread::vector16<In>::size) : s.length;
  one_round = units <= 32 && s.rows == 1 && (!vectors || s.aligned);
  unsigned lanes = std::min(pow2_ceil(units), 32u);
  if (vectors_per_lane > 1) lanes = std::clamp(pow2_ceil(units / vectors_per_lane + 1) / 2, 1u, 32u);
  one_round = one_round && lanes >= units;
  const std::int64_t wave_warps = std::int64_t(ws.sm_count()) * ws.warps_per_sm();
  // A group per output unless the outputs are too few for a wave of warps and each is long
  // (more than 1024 vectors, or of several rows): rows of a few KiB each are read best by a
  // warp each, however few they are (their blocks would be short-lived and mostly idle).
  const bool long_outputs = double(units) * double(s.rows) > axis_policy::long_output_vectors || (s.rows > 1 && s.outputs < ws.sm_count());
  if (one_round || s.outputs >= wave_warps || (lanes < 32 && s.rows == 1) || !long_outputs) return lanes;
  // Outputs too few for a wave of warps: blocks on parts of each output (ranges of rows times
  // ranges of elements), no more than one wave of them, so that every part takes the same time.
  constexpr unsigned block = axis_policy::block;
  s.lanes = std::min(pow2_ceil(units), block);
  const std::int64_t wave = std::int64_t(resident_blocks<LongKernel>(ws.device(), block)) * ws.sm_count();
  std::int64_t splits = 1;
  if (s.outputs < wave && s.outputs <= std::int64_t(workspace::axis_counters)) {
    const std::int64_t min_part = std::int64_t(block) * thread::vector16<In>::size * axis_policy::min_part_rounds;
    const double work = double(s.length) * double(s.rows);
    splits = std::min<std::int64_t>(wave / s.outputs, std::int64_t(std::min(work / min_part, 1e9)) + 1);
    splits = std::min<std::int64_t>(splits, workspace::axis_partial_bytes / grid::part_bytes<Acc> / s.outputs);
    splits = std::max<std::int64_t>(splits, 1);
  }
  // Ranges of rows first (each row read whole), then ranges of each row's elements.
  s.row_parts = std::min<std::int64_t>(splits, s.rows);
  s.rows_per_part = ceil_div(s.rows, s.row_parts);
  s.row_parts = ceil_div(s.rows, s.rows_per_part);
  const std::int64_t length_parts = std::max<std::int64_t>(splits / s.row_parts, 1);
  s.chunk = ceil_div(ceil_div(s.length, length_parts), 16) * 16;  // parts start on the row's alignment
  const std::int64_t chunks = s.chunk > 0 ? std::max<std::int64_t>(ceil_div(s.length, s.chunk), 1) : 1;
  s.splits = s.row_parts * chunks;
  return 0;
}

/// Tiles the column regime for vectors of V elements.
template <int V, class Acc, auto Kernel>
void tile_columns(device::column_shape& s, const workspace& ws) {
  constexpr unsigned block = axis_policy::block;
  const std::int64_t vectors = ceil_div(s.columns, V);
  const unsigned full = std::min(pow2_ceil(vectors), block);
  constexpr std::int64_t depth = axis_policy::column_depth;
  unsigned width = std::min(full, axis_policy::column_width);
  while (width < full && std::int64_t(block / width) * depth > s.row_count) width *= 2;
  s.width_log2 = 0;
  while ((1u << s.width_log2) < width) ++s.width_log2;
  s.tiles = ceil_div(vectors, width);
  const std::int64_t tiles = s.tiles * s.kept.size();
  const std::int64_t height = block / width;
  const std::int64_t target =
      axis_policy::column_waves * std::int64_t(resident_blocks<Kernel>(ws.device(), block)) * ws.sm_count();
  std::int64_t splits = 1;
  if (tiles < target && tiles <= std::int64_t(workspace::axis_counters)) {
    splits = std::min(ceil_div(target, tiles), ceil_div(s.row_count, height * depth));
    splits = std::min<std::int64_t>(splits, workspace::axis_partial_bytes / (grid::part_bytes<Acc> * width * V) / tiles);
    splits = std::max<std::int64_t>(splits, 1);
  }
  s.rows_per_split = std::max<std::int64_t>(ceil_div(s.row_count, splits), 1);
  s.splits = std::max<std::int64_t>(ceil_div(s.row_count, s.rows_per_split), 1);
  s.blocks = tiles * s.splits;
}

/// Whether every position the walks reach from `data` starts on a 16-byte boundary.
template <class In>
bool walks_aligned(const In* data, std::initializer_list<const device::axis_walk*> walks) {
  if (reinterpret_cast<std::uintptr_t>(data) % 16 != 0) return false;
  for (const device::axis_walk* w : walks)
    for (int k = 0; k < w->count; ++k)
      if ((w->in_stride[k] * std::int64_t(sizeof(In))) % 16 != 0) return false;
  return true;
}

/// Whether the column regime can read V-element vectors: contiguous columns, a whole number of
/// vectors per row, and every position's first column on a 16-byte boundary.
template <class In>
bool column_vectors(const In* data, const device::column_shape& s) {
  return thread::vector_element<In> && s.column_stride == 1 && s.columns % thread::vector16<In>::size == 0 &&
         walks_aligned(data, {&s.kept, &s.rows});
}

}  // namespace cured::detail
