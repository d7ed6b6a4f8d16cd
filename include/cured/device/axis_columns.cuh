#pragma once
// The axis kernel of the column regime: the kept axis of smallest stride (the columns) is read
// across, each thread on its own columns, down the reduced positions (the rows).
//
// columns_kernel: a block covers a tile of width * V columns of one position of the other kept
// axes (a batch), height = block / width threads deep: thread (tx, ty) reads V columns (one
// 16-byte vector when the columns are contiguous and aligned) of rows ty, ty + height, ... of
// its part of the rows, then the block combines its rows in shared memory (a tree over ty).
// Width is small (8 vectors: whole 128-byte lines) unless there are too few rows for the
// block's height. When tiles are too few to fill the device, the rows are split in parts over
// several blocks, combined by the block that finishes last (split_combine.cuh). The order of
// every combination depends only on the shape and the launch.

#include <cstdint>

#include "cured/device/axis_rows.cuh"
#include "cured/device/axis_walk.cuh"
#include "cured/grid/split_combine.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/thread/load.cuh"

namespace cured::device {

/// A reduction in the column regime, as its kernel takes it.
struct column_shape {
  axis_walk kept;                    ///< the kept axes but the columns: batch -> input, output offsets
  axis_walk rows;                    ///< every reduced axis: row -> input offset, flat index
  std::int64_t row_count = 1;        ///< rows.size()
  std::int64_t columns = 0;          ///< the columns' extent
  std::int64_t column_stride = 1;    ///< their input stride (1 when read as vectors)
  std::int64_t column_out_stride = 0;
  std::int64_t tiles = 1;            ///< column tiles per batch
  std::int64_t blocks = 0;           ///< tiles * batches * splits: the grid's work
  std::int64_t splits = 1;           ///< parts of the rows
  std::int64_t rows_per_split = 0;
  unsigned width_log2 = 0;           ///< threads across a tile: 1 << width_log2
  bool ordered = false;              ///< the rows' flat indices increase with the row
  bool stream_first = false;
};

/// Combines the block's rows: thread (tx, 0) ends with the combination of acc over every ty,
/// in a fixed tree (rows [h, 2h) hand theirs to rows [0, h) through half a block of shared
/// accumulators). All threads call it.
template <int V, unsigned Block, class Acc, class Op>
__device__ __forceinline__ void combine_rows(Acc (&acc)[V], Acc (&shared)[Block / 2][V], unsigned width,
                                             const Op& op) {
  const unsigned t = threadIdx.x, ty = t / width;
  for (unsigned h = Block / width / 2; h > 0; h >>= 1) {
    if (ty >= h && ty < 2 * h)
#pragma unroll
      for (int k = 0; k < V; ++k) shared[t - h * width][k] = acc[k];
    __syncthreads();
    if (ty < h)
#pragma unroll
      for (int k = 0; k < V; ++k) acc[k] = op(acc[k], shared[t][k]);
    __syncthreads();
  }
}

/// An arg reduction of a thread's rows r0, r0 + height, ... < end in increasing flat index
/// order: the best value of each of its V columns and the number of the row it came from,
/// counted from r0 (fewer than 2^32 rows; one comparison and two selects per element, the flat
/// index computed once, at the end), four rows in flight. acc[k] gets {index, value}, or stays
/// the identity without rows.
template <bool Max, int V, class In, class Acc, class Read>
__device__ __forceinline__ void arg_down_columns(Acc (&acc)[V], const axis_walk& rows, std::int64_t r0,
                                                 std::int64_t end, unsigned height, const Read& read) {
  if (r0 >= end) return;
  const auto element = [](const auto& x, int k) -> In {
    if constexpr (V == 1) return x;
    else return x.v[k];
  };
  const std::uint32_t total = std::uint32_t((end - r0 + height - 1) / height);
  In best[V];
  std::uint32_t best_row[V];
  const auto add = [&](const auto& x, std::uint32_t row) {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const In v = element(x, k);
      const bool later = detail::arg_later<Max>(best[k], v);
      best[k] = later ? v : best[k];
      best_row[k] = later ? row : best_row[k];
    }
  };
  const auto at_row = [&](std::uint32_t j) {
    std::int64_t at, index;
    rows.at(r0 + std::int64_t(j) * height, at, index);
    return at;
  };
  // Rows j .. j + 3, loaded together; the first four start the best values.
  const auto four = [&](std::uint32_t j, bool first) {
    std::int64_t at[4];
#pragma unroll
    for (unsigned u = 0; u < 4; ++u) at[u] = at_row(j + u);
    decltype(read(0)) x[4];
#pragma unroll
    for (unsigned u = 0; u < 4; ++u) x[u] = read(at[u]);
    if (first) {
#pragma unroll
      for (int k = 0; k < V; ++k) best[k] = element(x[0], k), best_row[k] = j;
    } else {
      add(x[0], j);
    }
#pragma unroll
    for (unsigned u = 1; u < 4; ++u) add(x[u], j + u);
  };
  std::uint32_t j = 0;
  if (total >= 4) {
    four(0, true);
    for (j = 4; j + 4 <= total; j += 4) four(j, false);
  } else {
    const auto x = read(at_row(0));
#pragma unroll
    for (int k = 0; k < V; ++k) best[k] = element(x, k), best_row[k] = 0;
    j = 1;
  }
  for (; j < total; ++j) add(read(at_row(j)), j);
#pragma unroll
  for (int k = 0; k < V; ++k) {
    std::int64_t at, index;
    rows.at(r0 + std::int64_t(best_row[k]) * height, at, index);
    acc[k] = {index, best[k]};
  }
}

template <class Policy, int V, class In, class Acc, class Load, class Op, class Store>
__global__ void __launch_bounds__(Policy::block, 3)
    columns_kernel(const In* __restrict__ in, const column_shape shape, Acc identity, Load load, Op op, Store store,
                   unsigned* __restrict__ partials, unsigned* __restrict__ counters) {
  constexpr unsigned block = Policy::block;
  __shared__ Acc shared[block / 2][V];
  const unsigned t = threadIdx.x, width = 1u << shape.width_log2, height = block >> shape.width_log2;
  const unsigned tx = t & (width - 1), ty = t >> shape.width_log2;
  const std::uint64_t l2 = thread::l2_policy(shape.stream_first);
  for (std::int64_t b = blockIdx.x; b < shape.blocks; b += gridDim.x) {
    const std::int64_t tile_index = b / shape.splits, part = b - tile_index * shape.splits;
    const std::int64_t batch = tile_index / shape.tiles, tile = tile_index - batch * shape.tiles;
    const std::int64_t column = (tile * width + tx) * V;
    const bool active = column < shape.columns;
    std::int64_t in_at, out_at;
    shape.kept.at(batch, in_at, out_at);
    Acc acc[V];
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] = identity;
    const std::int64_t begin = part * shape.rows_per_split;
    const std::int64_t end = begin + shape.rows_per_split < shape.row_count ? begin + shape.rows_per_split : shape.row_count;
    if (active) {
      const In* p = in + in_at + column * shape.column_stride;
      // A thread reads its rows in increasing order: with ordered indices each element comes
      // after every other it holds (add_later). A row's V values go to op.add_each where the op
      // has one (moments_op: the V states hold as many values, so one reciprocal a row, not one a
      // column).
      const auto add = [&](std::int64_t index, const auto& x) {
        if constexpr (V == 1) {
          if (shape.ordered) thread::add_later(acc[0], index, x, load, op);
          else acc[0] = op(acc[0], load(index, x));
        } else if constexpr (thread::adds_each<Op, Acc, thread::loaded_t<Load, In>, V>) {
          thread::loaded_t<Load, In> y[V];
#pragma unroll
          for (int k = 0; k < V; ++k) y[k] = load(index, x.v[k]);
          op.add_each(acc, y);
        } else {
#pragma unroll
          for (int k = 0; k < V; ++k) {
            if (shape.ordered) thread::add_later(acc[k], index, x.v[k], load, op);
            else acc[k] = op(acc[k], load(index, x.v[k]));
          }
        }
      };
      const auto read = [&](std::int64_t at) {
        if constexpr (V == 1) return thread::load_element(p + at);
        else return thread::load_vector(reinterpret_cast<const thread::vector16<In>*>(p + at), l2);
      };
      std::int64_t r = begin + ty;
      if constexpr (thread::is_arg_reduction<Load, Op, In>) {
        // Rows in flat index order, each thread's counted in 32 bits: values and row numbers.
        if (shape.ordered && (end - begin) / height < (std::int64_t(1) << 31)) {
          arg_down_columns<std::is_same_v<Op, arg_maximum>, V, In>(acc, shape.rows, r, end, height, read);
          r = end;
        }
      }
      for (; r + 3 * std::int64_t(height) < end; r += 4 * std::int64_t(height)) {
        std::int64_t at[4], index[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) shape.rows.at(r + u * height, at[u], index[u]);
        decltype(read(0)) x[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) x[u] = read(at[u]);
#pragma unroll
        for (int u = 0; u < 4; ++u) add(index[u], x[u]);
      }
      for (; r < end; r += height) {
        std::int64_t at, index;
        shape.rows.at(r, at, index);
        add(index, read(at));
      }
    }
    combine_rows<V, block>(acc, shared, width, op);
    const auto write = [&] {
      if (ty == 0 && active)
#pragma unroll
        for (int k = 0; k < V; ++k) store(out_at + (column + k) * shape.column_out_stride, acc[k]);
    };
    if (shape.splits == 1) {
      write();
      continue;
    }
    unsigned* const parts = partials + tile_index * shape.splits * (width * V) * thread::word_count<Acc>;
    if (ty == 0)
#pragma unroll
      for (int k = 0; k < V; ++k) grid::store_part(parts, part * (width * V) + tx * V + k, acc[k]);
    if (!grid::last_to_arrive(counters + tile_index, unsigned(shape.splits))) continue;
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] = identity;
    for (std::int64_t q = ty; q < shape.splits; q += height)
#pragma unroll
      for (int k = 0; k < V; ++k) acc[k] = op(acc[k], grid::load_part<Acc>(parts, q * (width * V) + tx * V + k));
    combine_rows<V, block>(acc, shared, width, op);
    write();
  }
}

}  // namespace cured::device
