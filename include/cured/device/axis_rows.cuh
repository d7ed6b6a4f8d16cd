#pragma once
// The axis kernels of the row regime: the reduced axis of smallest stride (the row) is read
// along its length; each output reduces its rows (one per position of the other reduced axes).
//
// rows_kernel: a group of Lanes threads per output (1 for rows of one 16-byte vector, up to a
// warp), the groups of a block on consecutive outputs, so that a warp's loads cover
// consecutive rows; the grid strides over the outputs. long_rows_kernel: a block per part of
// an output's rows, the parts combined by the block that finishes last (split_combine.cuh),
// for outputs too few to fill the device with warps, their parts ranges of rows times ranges
// of elements.
//
// Rows of stride 1 are read as 16-byte vectors after a scalar head up to the first 16-byte
// boundary (any alignment); other rows element by element. The order of every combination
// depends only on the shape and the launch: results are bit-identical run to run.

#include <cstdint>
#include <type_traits>

#include "cured/block/block_reduce.cuh"
#include "cured/device/axis_walk.cuh"
#include "cured/grid/split_combine.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/thread/load.cuh"
#include "cured/warp/warp_reduce.cuh"

namespace cured::device {

/// A reduction in the row regime, as its kernels take it.
struct row_shape {
  axis_walk kept;             ///< every kept axis: output o -> input offset, output offset
  axis_walk outer;            ///< the reduced axes but the row: position -> input offset, flat index
  std::int64_t outputs = 0;   ///< kept.size()
  std::int64_t rows = 1;      ///< outer.size(): rows per output
  std::int64_t length = 0;    ///< elements per row
  std::int64_t stride = 1;    ///< the row's input stride
  std::int64_t multiplier = 0;  ///< the row's flat-index multiplier
  bool vectors = false;       ///< rows of stride 1 may be read as 16-byte vectors
  bool aligned = false;       ///< and every row is whole vectors on 16-byte boundaries
  std::int64_t splits = 1;    ///< long_rows_kernel: parts per output
  std::int64_t row_parts = 1;      ///< long_rows_kernel: ranges of rows among them (dividing splits)
  std::int64_t rows_per_part = 1;  ///< long_rows_kernel: rows of a range
  std::int64_t chunk = 0;     ///< long_rows_kernel: elements of a row per part
  unsigned lanes = 1;         ///< long_rows_kernel: threads per row
  bool stream_first = false;  ///< l2_policy of the loads
};

/// Outputs a group of short_rows_kernel takes at a time (the dispatch sizes its grid by it).
inline constexpr int short_rows_outputs = 4;

/// Element types read as 16-byte vectors.
template <class In>
inline constexpr bool vector_element = sizeof(In) < 16 && 16 % sizeof(In) == 0;

/// total op= the reduction of load(index + l * multiplier, p[l * stride]) over the elements
/// l = lane, lane + lanes, ... of a row of `length` (lanes threads share it, each calling with
/// its lane). Later: every index is larger than those total holds and multiplier is positive,
/// so that the arg reductions take each element by one comparison (add_later). Rounds: the last
/// round of 16-byte vectors predicated (one round trip where a lane has up to four), instead of
/// one vector at a time after the whole rounds. Narrow
/// (with Later, a row below 2^31 elements): an arg reduction keeps its best so far with the
/// element's place in the row as an int, one comparison and a 4-byte index an element.
template <bool Later = false, bool Rounds = false, bool Narrow = false, class In, class Acc, class Load, class Op>
__device__ __forceinline__ void reduce_row(Acc& total, const In* p, std::int64_t length, std::int64_t stride,
                                           std::int64_t index, std::int64_t multiplier, unsigned lane, unsigned lanes,
                                           bool vectors, std::uint64_t l2, const Load& load, const Op& op) {
  Acc acc = total;
  constexpr bool narrow = Later && Narrow && is_arg_reduction<Load, Op, In>;
  In best{};
  int best_at = -1;
  const auto at = [&](std::int64_t l) { return index + l * multiplier; };  // element l's index
  const auto add = [&](std::int64_t l, const In& x) {
    if constexpr (narrow) {
      if (best_at < 0 || detail::arg_later<std::is_same_v<Op, arg_maximum>>(best, x)) {
        best = x;
        best_at = int(l);
      }
    } else if constexpr (Later) {
      add_later(acc, at(l), x, load, op);
    } else {
      acc = op(acc, load(at(l), x));
    }
  };
  const auto finish = [&] {
    if constexpr (narrow) {
      if (best_at >= 0) add_later(acc, at(best_at), best, load, op);
    }
    total = acc;
  };
  if constexpr (vector_element<In>) {
    if (vectors && stride == 1) {
      using vec = vector16<In>;
      constexpr int size = vec::size;
      // A whole round of four vectors goes to op.add_all where the op has one.
      constexpr bool all_of_round = !Later && adds_all<Op, Acc, loaded_t<Load, In>, 4 * size>;
      const std::int64_t head = unaligned_head(p, length), count = (length - head) / size;
      const vec* body = reinterpret_cast<const vec*>(p + head);
      for (std::int64_t l = lane; l < head; l += lanes) add(l, p[l]);
      // Rounds of four vectors a lane: with Rounds every round's loads predicated, the last (fewer
      // than four a lane) included; without, whole rounds and then one vector at a time.
      std::int64_t j = lane;
      for (; Rounds ? j < count : j + 3 * std::int64_t(lanes) < count; j += 4 * std::int64_t(lanes)) {
        vec r[4];
#pragma unroll
        for (int u = 0; u < 4; ++u)
          r[u] = load_vector(body + (!Rounds || j + u * lanes < count ? j + u * lanes : j), l2);  // (past: j)
        if constexpr (all_of_round) {
          if (!Rounds || j + 3 * std::int64_t(lanes) < count) {
            add_round_at_once(acc, r, [&](int u, int k) { return at(head + (j + u * lanes) * size + k); }, load, op);
            continue;
          }
        }
        if constexpr (!all_of_round || Rounds) {
#pragma unroll
          for (int u = 0; u < 4; ++u)
            if (!Rounds || j + u * lanes < count)
#pragma unroll
              for (int k = 0; k < size; ++k) add(head + (j + u * lanes) * size + k, r[u].v[k]);
        }
      }
      if constexpr (!Rounds) {
        for (; j < count; j += lanes) {
          const vec r = load_vector(body + j, l2);
#pragma unroll
          for (int k = 0; k < size; ++k) add(head + j * size + k, r.v[k]);
        }
      }
      for (std::int64_t l = head + count * size + lane; l < length; l += lanes) add(l, p[l]);
      finish();
      return;
    }
  }
  std::int64_t l = lane;
  for (; l + 3 * std::int64_t(lanes) < length; l += 4 * std::int64_t(lanes)) {
    In x[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) x[u] = load_element(p + (l + u * lanes) * stride);
#pragma unroll
    for (int u = 0; u < 4; ++u) add(l + u * lanes, x[u]);
  }
  for (; l < length; l += lanes) add(l, load_element(p + l * stride));
  finish();
}

/// Lanes threads per output: store(output offset, the output's reduction) for every output.
/// Blocks of Policy::block threads.
template <class Policy, int Lanes, class In, class Acc, class Load, class Op, class Store>
__global__ void __launch_bounds__(Policy::block)
    rows_kernel(const In* __restrict__ in, const row_shape shape, Acc identity, Load load, Op op, Store store) {
  constexpr unsigned groups = Policy::block / Lanes;
  const unsigned lane = threadIdx.x % Lanes;
  const std::uint64_t l2 = l2_policy(shape.stream_first);
  // Every thread of a block takes the same trips, so the shuffles see whole warps.
  for (std::int64_t first = std::int64_t(blockIdx.x) * groups; first < shape.outputs;
       first += std::int64_t(gridDim.x) * groups) {
    const std::int64_t o = first + threadIdx.x / Lanes;
    Acc acc = identity;
    std::int64_t out_at = 0;
    if (o < shape.outputs) {
      std::int64_t in_at;
      shape.kept.at(o, in_at, out_at);
      for (std::int64_t r = 0; r < shape.rows; ++r) {
        std::int64_t row_at, index;
        shape.outer.at(r, row_at, index);
        reduce_row(acc, in + in_at + row_at, shape.length, shape.stride, index, shape.multiplier, lane, Lanes,
                   shape.vectors, l2, load, op);
      }
    }
    acc = warp::reduce<Lanes>(acc, op);
    if (lane == 0 && o < shape.outputs) store(out_at, acc);
  }
}

/// Outputs of one row each that one round of Lanes threads covers: rows of at most Lanes whole
/// 16-byte vectors on 16-byte boundaries (shape.aligned), or of at most Lanes elements read
/// one by one. Lanes threads per output, each group on four outputs at a time, every load of
/// the four issued before any is combined: a thread has four rows in flight however short
/// they are. (Other short rows: rows_kernel.)
template <class Policy, int Lanes, class In, class Acc, class Load, class Op, class Store>
__global__ void __launch_bounds__(Policy::block, 4)
    short_rows_kernel(const In* __restrict__ in, const row_shape shape, Acc identity, Load load, Op op, Store store) {
  constexpr unsigned groups = Policy::block / Lanes;
  constexpr int outputs = short_rows_outputs;
  const unsigned lane = threadIdx.x % Lanes;
  const std::uint64_t l2 = l2_policy(shape.stream_first);
  const bool vectors = vector_element<In> && shape.vectors && shape.stride == 1;
  using vec = vector16<In>;
  constexpr int size = vec::size;
  const std::int64_t m = shape.multiplier;
  for (std::int64_t first = std::int64_t(blockIdx.x) * groups * outputs; first < shape.outputs;
       first += std::int64_t(gridDim.x) * groups * outputs) {
    std::int64_t out_at[outputs], index[outputs];
    Acc acc[outputs];
    vec r[outputs];
    In x[outputs];
#pragma unroll
    for (int u = 0; u < outputs; ++u) {
      const std::int64_t o = first + u * groups + threadIdx.x / Lanes;
      out_at[u] = -1;
      if (o >= shape.outputs) continue;
      std::int64_t in_at, row_at;
      shape.kept.at(o, in_at, out_at[u]);
      shape.outer.at(0, row_at, index[u]);
      const In* p = in + in_at + row_at;
      if (vectors) {
        if (lane * size < shape.length) r[u] = load_vector(reinterpret_cast<const vec*>(p) + lane, l2);
      } else {
        if (lane < shape.length) x[u] = load_element(p + lane * shape.stride);
      }
    }
#pragma unroll
    for (int u = 0; u < outputs; ++u) {
      acc[u] = identity;
      if (out_at[u] < 0) continue;
      if (vectors) {
        if (lane * size < shape.length)
#pragma unroll
          for (int k = 0; k < size; ++k) add_later(acc[u], index[u] + (lane * size + k) * m, r[u].v[k], load, op);
      } else if (lane < shape.length) {
        add_later(acc[u], index[u] + lane * m, x[u], load, op);
      }
    }
#pragma unroll
    for (int u = 0; u < outputs; ++u) {
      acc[u] = warp::reduce<Lanes>(acc[u], op);
      if (lane == 0 && out_at[u] >= 0) store(out_at[u], acc[u]);
    }
  }
}

/// A block per part of an output: blocks o * splits ... (o + 1) * splits - 1 reduce output o.
/// A part is a range of the output's rows (row_parts of them, rows_per_part rows each) times a
/// range of each row's elements (the rest of the splits, chunk elements each); the block's
/// threads go over it in groups of `lanes` per row (shape.lanes), block / lanes rows at a time.
/// With one part the block stores the output; with several, the last block to finish
/// combines the parts in order (partials: outputs * splits parts; counters: one per output,
/// zero between launches).
template <class Policy, class In, class Acc, class Load, class Op, class Store>
__global__ void __launch_bounds__(Policy::block, Policy::template long_rows_min_blocks<Acc>)
    long_rows_kernel(const In* __restrict__ in, const row_shape shape, Acc identity, Load load, Op op, Store store,
                     unsigned* __restrict__ partials, unsigned* __restrict__ counters) {
  constexpr unsigned block = Policy::block;
  __shared__ block::reduce_storage<Acc, block> storage;
  const unsigned t = threadIdx.x;
  const std::int64_t o = blockIdx.x / shape.splits, part = blockIdx.x - o * shape.splits;
  const std::int64_t length_parts = shape.splits / shape.row_parts;
  const std::int64_t row_part = part / length_parts, length_part = part - row_part * length_parts;
  std::int64_t in_at, out_at;
  shape.kept.at(o, in_at, out_at);
  const std::int64_t begin = length_part * shape.chunk;
  const std::int64_t end = begin + shape.chunk < shape.length ? begin + shape.chunk : shape.length;
  const std::int64_t first_row = row_part * shape.rows_per_part;
  const std::int64_t last_row =
      first_row + shape.rows_per_part < shape.rows ? first_row + shape.rows_per_part : shape.rows;
  const unsigned lanes = shape.lanes, lane = t % lanes, together = block / lanes;
  const std::uint64_t l2 = l2_policy(shape.stream_first);
  Acc acc = identity;
  const auto rows = [&](unsigned lane, unsigned lanes, unsigned together) {
    for (std::int64_t r = first_row + t / lanes; r < last_row; r += together) {
      std::int64_t row_at, index;
      shape.outer.at(r, row_at, index);
      reduce_row(acc, in + in_at + row_at + begin * shape.stride, end - begin, shape.stride,
                 index + begin * shape.multiplier, shape.multiplier, lane, lanes, shape.vectors, l2, load, op);
    }
  };
  if (shape.lanes == block) rows(t, block, 1);  // the common case, with the block's size known
  else rows(lane, lanes, together);
  acc = block::reduce<block>(acc, op, storage);
  if (shape.splits == 1) {
    if (t == 0) store(out_at, acc);
    return;
  }
  unsigned* const parts = partials + o * shape.splits * word_count<Acc>;
  if (t == 0) store_part(parts, part, acc);
  if (!last_to_arrive(counters + o, unsigned(shape.splits))) return;
  Acc v = identity;
  for (std::int64_t k = t; k < shape.splits; k += block) v = op(v, load_part<Acc>(parts, k));
  v = block::reduce<block>(v, op, storage);
  if (t == 0) store(out_at, v);
}

}  // namespace cured::device
