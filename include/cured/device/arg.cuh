#pragma once
// The arg reductions' kernel (argmin, argmax of types the vector loads can read).
//
// The same launch, start ticket and combining block as single_pass_kernel, reading tiles of
// `block * unroll` 16-byte vectors (block b takes tiles b, b + grid, ...; block 0 also takes
// the unaligned head; the tail goes with the tile it would start), but each block carries an
// arg_pair with a 32-bit key: 8 bytes for float, so a shuffle level moves two words instead of
// four. The key is the element's place in the block's own sequence of tiles (iteration * tile
// + offset), which orders the block's elements as their indices do; it becomes the 64-bit
// index once, when the block writes its partial. A thread sees its elements in increasing
// order, so along one vector the rule needs no index comparison (arg_later). A block with more
// than 2^30 elements of tiles (never in practice: 2^30 per block times a full wave of blocks)
// reduces them a piece at a time, widening each piece's result in thread 0. Every combination
// is exact and the rule is a total order on (value, index), so the result is the same for any
// grid and bit-identical run to run.

#include <algorithm>
#include <cstdint>

#include "cured/block/arg_pair.cuh"
#include "cured/block/block_reduce.cuh"
#include "cured/thread/deliver.cuh"
#include "cured/types/completion.cuh"
#include "cured/device/launch_bounds.cuh"
#include "cured/grid/hand_over.cuh"
#include "cured/types/ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/thread/load.cuh"

namespace cured::device {

template <class T>
using arg_local = block::arg_pair<std::int32_t, T>;

/// The identity's key: no element has it (a piece's keys stay below 2^30 + 2 tiles).
inline constexpr std::int32_t no_local = 0x7fffffff;

/// Inputs the arg kernel reads with vector loads: every element's address is a multiple of
/// its size, and 16 bytes hold a whole number of elements. (Other types take the generic
/// single_pass_kernel with 64-bit pairs.)
template <class T>
inline constexpr bool arg_vectorizable = alignof(T) == sizeof(T) && sizeof(T) <= 16 && 16 % sizeof(T) == 0;

/// This thread's vectors of one tile, tile[threadIdx.x + u * block] for u < unroll, combined
/// into acc; element k of vector u has the key key0 + u * block * size + k. A vector at or past
/// `count` reads the tile's last vector, tile[count - 1], instead: a copy of an element that
/// is also read under its own, smaller index, so the copy never wins (equal values go to the
/// smaller index) and no load needs a predicate.
template <class Policy, bool Max, class T>
__device__ __forceinline__ void arg_tile(const thread::vector16<T>* __restrict__ tile, int count, int key0,
                                         arg_local<T>& acc, std::uint64_t l2) {
  using vec = thread::vector16<T>;
  constexpr int u_count = Policy::unroll, block = int(Policy::block);
  vec r[u_count];
#pragma unroll
  for (int u = 0; u < u_count; ++u)
    r[u] = thread::load_vector(tile + ::min(int(threadIdx.x) + u * block, count - 1), l2);
  // One chain in key order: no key comparison needed.
  arg_local<T> m = {0, r[0].v[0]};
#pragma unroll
  for (int u = 0; u < u_count; ++u)
#pragma unroll
    for (int k = 0; k < vec::size; ++k)
      if ((u || k) && cured::detail::arg_later<Max>(m.value, r[u].v[k])) m = {u * block * vec::size + k, r[u].v[k]};
  m.index += key0;
  acc = block::arg_order<Max>{}(acc, m);
}

/// How arg_kernel splits in[0, n) among `grid` blocks; made on the host (make_arg_layout), so
/// that the kernel reads it from its parameters instead of computing it (64-bit divisions) and
/// holding it in registers.
struct arg_layout {
  std::int64_t n;
  std::int64_t head;              ///< elements before the first 16-byte boundary: block 0's
  std::int64_t vectors;           ///< whole 16-byte vectors after them, in tiles; then the tail
  std::int64_t rounds, extra;     ///< block b takes rounds tiles, one more when b < extra
  std::int64_t tail_block;        ///< the block that takes the tail (-1: no tail) ...
  std::int64_t tail_round;        ///< ... as part of its tile of this round
  std::int64_t piece_iterations;  ///< tiles per block reduced with 32-bit keys before widening
};

/// The layout for `grid` blocks, with pieces of at most piece_elements (at most 2^30).
template <class Policy, class T>
arg_layout make_arg_layout(const T* in, std::int64_t n, std::int64_t grid, std::int64_t piece_elements) {
  constexpr std::int64_t size = thread::vector16<T>::size, tile_vectors = std::int64_t(Policy::block) * Policy::unroll;
  const thread::input_span<T> s = thread::span_of(in, n);  // vectorized: arg_vectorizable<T>
  const std::int64_t head = s.head, vectors = s.vectors;
  const std::int64_t tiles = (vectors + tile_vectors - 1) / tile_vectors, tail_tile = vectors / tile_vectors;
  const bool tail = s.tail < n;
  return {n,
          head,
          vectors,
          tiles / grid,
          tiles % grid,
          tail ? tail_tile % grid : -1,
          tail_tile / grid,
          std::max<std::int64_t>(1, std::min<std::int64_t>(piece_elements, 1 << 30) / (tile_vectors * size))};
}

/// finish(arg_minimum (Max false) or arg_maximum (Max true) of in[0, n)) into *out (or
/// st.done's report words); arg_finish: the pair, index -1 when empty.
template <class Policy, bool Max, class T, class Finish = thread::arg_finish, class Out = key_value<T>>
__global__ void __launch_bounds__(Policy::block, min_blocks_for<Policy, sizeof(arg_local<T>)>)
    arg_kernel(Out* __restrict__ out, const grid::launch_state st, const T* __restrict__ in, const arg_layout layout,
               key_value<T>* __restrict__ partials, Finish finish = {}) {
  static_assert(arg_vectorizable<T>);
  using vec = thread::vector16<T>;
  using local = arg_local<T>;
  constexpr unsigned block = Policy::block;
  constexpr int tile_vectors = int(block) * Policy::unroll, tile = tile_vectors * vec::size;
  using wide = block::arg_pair<long long, T>;  // the combining block's pairs: the 64-bit index, no padding to carry
  __shared__ union {
    block::reduce_storage<local, block> keys;
    block::reduce_storage<wide, block> indices;
  } storage;
  const block::arg_order<Max> order;
  const T identity_value = Max ? cured::detail::lowest<T>() : cured::detail::highest<T>();
  const unsigned t = threadIdx.x, b = blockIdx.x, grid = gridDim.x;
  const vec* __restrict__ body = reinterpret_cast<const vec*>(in + layout.head);
  const unsigned ticket = grid::draw_start_ticket<grid::slot<key_value<T>>::words>(st);
  const std::uint64_t l2 = thread::l2_policy(st.stream_first);

  // This block's tiles are b + i * grid for i < iterations. The tail (n - tail_begin elements,
  // fewer than a vector) follows the last vector, in tile `vectors / tile_vectors` (perhaps one
  // holding no vector), which is tail_block's tile of round tail_round.
  const std::int64_t tail_begin = layout.head + layout.vectors * vec::size;
  const bool tail_here = layout.tail_block == b;
  const std::int64_t iterations = tail_here ? layout.tail_round + 1 : layout.rounds + (b < layout.extra);

  // The block's reduction of iterations [p, p + piece_iterations), valid in thread 0.
  const auto reduce_piece = [&](std::int64_t p) {
    const bool first = b == 0 && p == 0;
    const int lead = first ? int(layout.head) : 0;  // key of the first tile's first element
    const int steps = int(iterations - p < layout.piece_iterations ? iterations - p : layout.piece_iterations);
    local acc{no_local, identity_value};
    if (first && t < layout.head) acc = {int(t), in[t]};
    // The tail element is loaded now and combined after the tiles, so that its load overlaps theirs.
    const std::int64_t tail_iteration = layout.tail_round - p;
    const bool tail = tail_here && tail_iteration >= 0 && tail_iteration < steps && t < layout.n - tail_begin;
    T tail_value = identity_value;
    if (tail) tail_value = in[tail_begin + t];
    std::int64_t start = (p * grid + b) * std::int64_t(tile_vectors);  // the tile's first vector
    for (int i = 0; i < steps; ++i, start += std::int64_t(grid) * tile_vectors) {
      const std::int64_t left = layout.vectors - start;
      if (left <= t) break;  // no vector here for this thread (nor in later tiles)
      arg_tile<Policy, Max>(body + start, left < tile_vectors ? int(left) : tile_vectors,
                            lead + i * tile + int(t) * vec::size, acc, l2);
    }
    if (tail) {
      const int key = lead + int(tail_iteration) * tile + int(layout.vectors % tile_vectors) * vec::size + int(t);
      acc = order(acc, local{key, tail_value});
    }
    return block::reduce<block>(acc, order, storage.keys);
  };
  // That reduction with its 64-bit index (no_index when the piece holds no element).
  const auto widen = [&](std::int64_t p, const local& r) {
    const int lead = b == 0 && p == 0 ? int(layout.head) : 0;
    if (r.index == no_local) return key_value<T>{no_index, r.value};
    if (r.index < lead) return key_value<T>{r.index, r.value};  // the head
    const int key = r.index - lead;
    return key_value<T>{layout.head + ((p + key / tile) * grid + b) * std::int64_t(tile) + key % tile, r.value};
  };
  key_value<T> best;  // thread 0's
  if (iterations <= layout.piece_iterations) {
    const local r = reduce_piece(0);
    if (t == 0) best = widen(0, r);
  } else {  // never in practice. The running result waits in partials[b].
    for (std::int64_t p = 0; p < iterations; p += layout.piece_iterations) {
      const local r = reduce_piece(p);
      if (t == 0) partials[b] = p == 0 ? widen(p, r) : cured::detail::arg_pick<Max>(partials[b], widen(p, r));
      __syncthreads();  // before the storage is reused
    }
    best = partials[b];
  }

  if (grid == 1) {
    if (t == 0) thread::deliver(out, Out(finish(best)), st.done);
    return;
  }
  if (grid::hand_over(ticket, best, order, key_value<T>{no_index, identity_value}, st, [&](const key_value<T>& share) {
        const wide w = block::reduce<block>(wide{share.index, share.value}, order, storage.indices);
        return key_value<T>{w.index, w.value};
      }))
    thread::deliver(out, Out(finish(best)), st.done);
}

}  // namespace cured::device
