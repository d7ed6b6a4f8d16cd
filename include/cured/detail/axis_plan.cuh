#pragma once
// From a checked reduction along axes to the regime of its kernel.
//
//   const axis_plan p = plan_axes(in, along, out);   // throws cured::error on bad input
//
// The canonical shape (canonical.cuh) is put in memory order: its axes sorted by input stride,
// largest first, and merged again where that makes neighbours one axis (a transposed view
// becomes the contiguous one it is). The axis of smallest input stride decides the regime: a
// reduced one is the row (rows_kernel, long_rows_kernel), a kept one the columns
// (columns_kernel). Each reduced axis carries its flat-index multiplier in the view's order, so
// the arg reductions' index does not depend on the order the kernels read in.

#include <algorithm>
#include <cstdint>

#include "cured/detail/canonical.cuh"
#include "cured/device/axis_columns.cuh"
#include "cured/device/axis_rows.cuh"
#include "cured/device/axis_walk.cuh"
#include "cured/types/view.cuh"

namespace cured::detail {

struct axis_plan {
  enum class regime { none, rows, columns } kind = regime::none;  ///< none: no output
  std::int64_t outputs = 0, reduced_size = 0;
  device::row_shape rows;        ///< kind rows: the shape, but splits and chunk (the dispatch's)
  device::column_shape columns;  ///< kind columns: the shape, but the tiling (the dispatch's)
  /// Rows of fewer than 32 x this many vectors: lanes per output such that each takes this many
  /// (0: a lane per vector, up to 32). Operators dearer than an addition (the statistics) spend
  /// less on combining lanes and finishing outputs with fewer lanes per row.
  unsigned row_vectors_per_lane = 0;
};

namespace plan_detail {

struct axis {
  std::int64_t extent, in_stride, second;
  bool reduced;
};

inline void push(device::axis_walk& w, const axis& a) {
  w.extent[w.count] = a.extent;
  w.in_stride[w.count] = a.in_stride;
  w.second[w.count] = a.second;
  ++w.count;
}

}  // namespace plan_detail

/// The plan of `c`, a canonical shape. `indexed`: the reduction needs the flat index of its
/// elements (the arg reductions); without it, reduced axes merge whenever memory allows.
inline axis_plan plan_of(const canonical_shape& c, bool indexed) {
  using plan_detail::axis;
  axis_plan p;
  p.outputs = c.outputs;
  p.reduced_size = c.reduced_size;
  if (c.outputs == 0) return p;
  axis list[max_rank];
  int n = 0;
  std::int64_t multiplier = 1;  // the reduced axes' flat-index multipliers, last axis first
  for (int k = c.rank - 1; k >= 0; --k) {
    list[k] = {c.extents[k], c.in_strides[k], c.reduced[k] ? multiplier : c.out_strides[k], c.reduced[k]};
    if (c.reduced[k]) multiplier *= c.extents[k];
  }
  n = c.rank;
  if (c.reduced_size == 0) {  // every output is empty: rows of no elements
    n = 0;
    for (int k = 0; k < c.rank; ++k)
      if (!c.reduced[k]) list[n++] = list[k];
    list[n++] = {0, 0, 0, true};
  }
  // Memory order; axes of stride 0 (broadcasts) outermost, never the row or the columns.
  const auto key = [](const axis& a) { return a.in_stride == 0 ? INT64_MAX : a.in_stride; };
  std::stable_sort(list, list + n, [&](const axis& a, const axis& b) { return key(a) > key(b); });
  int m = 0;  // merged again in the new order
  for (int k = 0; k < n; ++k) {
    if (m > 0) {
      axis& outer = list[m - 1];
      const axis& inner = list[k];
      if (outer.reduced == inner.reduced && outer.extent > 0 && inner.extent > 0 &&
          outer.in_stride == inner.extent * inner.in_stride &&
          (outer.second == inner.extent * inner.second || (outer.reduced && !indexed))) {
        outer = {outer.extent * inner.extent, inner.in_stride, inner.second, inner.reduced};
        continue;
      }
    }
    list[m++] = list[k];
  }
  n = m;
  if (n == 0 || list[n - 1].reduced) {
    p.kind = axis_plan::regime::rows;
    device::row_shape& s = p.rows;
    if (n > 0) {
      s.length = list[n - 1].extent;
      s.stride = list[n - 1].in_stride;
      s.multiplier = list[n - 1].second;
      --n;
    } else {
      s.length = 1;  // one element, reduced along no axis
    }
    for (int k = n - 1; k >= 0; --k) plan_detail::push(list[k].reduced ? s.outer : s.kept, list[k]);
    s.outputs = s.kept.size();
    s.rows = s.outer.size();
  } else {
    p.kind = axis_plan::regime::columns;
    device::column_shape& s = p.columns;
    s.columns = list[n - 1].extent;
    s.column_stride = list[n - 1].in_stride;
    s.column_out_stride = list[n - 1].second;
    for (int k = n - 2; k >= 0; --k) plan_detail::push(list[k].reduced ? s.rows : s.kept, list[k]);
    s.row_count = s.rows.size();
  }
  return p;
}

/// Every kept axis (kept) and every reduced axis (reduced) of a plan, innermost first: the
/// walks of a kernel that takes each output whole (the exact sums' second launch).
inline void plan_walks(const axis_plan& p, device::axis_walk& kept, device::axis_walk& reduced) {
  using plan_detail::axis;
  using plan_detail::push;
  kept = {};
  reduced = {};
  if (p.kind == axis_plan::regime::rows) {
    const device::row_shape& s = p.rows;
    kept = s.kept;
    push(reduced, axis{s.length, s.stride, 0, true});
    for (int k = 0; k < s.outer.count; ++k) push(reduced, axis{s.outer.extent[k], s.outer.in_stride[k], 0, true});
  } else {
    const device::column_shape& s = p.columns;
    push(kept, axis{s.columns, s.column_stride, s.column_out_stride, false});
    for (int k = 0; k < s.kept.count; ++k) push(kept, axis{s.kept.extent[k], s.kept.in_stride[k], s.kept.second[k], false});
    reduced = s.rows;
  }
}

}  // namespace cured::detail
