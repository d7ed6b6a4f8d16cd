#pragma once
// The device-wide reduction kernel: one launch for every n.
//
// A grid of at most one full wave of blocks grid-strides over the input with 16-byte loads,
// `unroll` of them in flight per thread (scalar loads for the unaligned head and the tail).
// Each block reduces its threads' values with shuffles and writes one partial; the block that
// draws the last ticket adds the partials in block order, applies `init`, writes the result
// and resets the ticket. A grid of one block writes the result directly. The assignment of
// elements to threads and the order of every combination depend only on n, the pointer's
// alignment and the device, so results are bit-identical run to run. argmin and argmax take
// arg_kernel (below): the same tiles and scheme, with 32-bit keys local to each block.

#include <cuda/atomic>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "cured/block/block_reduce.cuh"
#include "cured/error.cuh"
#include "cured/ops.cuh"

namespace cured::device {

/// Tuning of the single-pass kernel.
struct policy {
  static constexpr unsigned block = 256;  ///< threads per block
  static constexpr int unroll = 4;        ///< 16-byte loads in flight per thread per iteration
  /// Blocks resident per multiprocessor the compiler must allow for accumulators of up to 8
  /// bytes (registers <= 32 for 256 threads): a full wave keeps 2048 threads per SM, each
  /// with its loads in flight. Wider accumulators (key_value) get 6 blocks (40 registers):
  /// they would spill under the cap of 32.
  static constexpr int min_blocks_per_sm = 2048 / block;
};

template <class T>
struct alignas(16) vector16 {
  static constexpr int size = sizeof(T) <= 16 ? int(16 / sizeof(T)) : 1;
  T v[size];
};

/// Elements before the first 16-byte boundary of `in` (at most n).
template <class T>
__host__ __device__ inline std::int64_t unaligned_head(const T* in, std::int64_t n) {
  const auto misalign = reinterpret_cast<std::uintptr_t>(in) % 16;
  const std::int64_t head = misalign ? std::int64_t((16 - misalign) / sizeof(T)) : 0;
  return head < n ? head : n;
}

/// This thread's reduction of load(i, in[i]) over its share of [0, n).
/// *out = v, writing every byte of *out, padding included (key_value<__half> has six bytes of
/// it), so that copying the whole object back never reads uninitialized memory.
template <class T>
__device__ __forceinline__ void store_whole(T* out, const T& v) {
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned words[sizeof(T) / 4];
    memcpy(words, &v, sizeof(T));
#pragma unroll
    for (unsigned w = 0; w < sizeof(T) / 4; ++w) reinterpret_cast<unsigned*>(out)[w] = words[w];
  } else {
    *out = v;
  }
}

template <class Policy, class In, class Acc, class Load, class Op>
__device__ __forceinline__ Acc thread_reduce(const In* __restrict__ in, std::int64_t n, Load& load, Op& op,
                                             const Acc& identity, std::int64_t thread, std::int64_t threads) {
  using vec = vector16<In>;
  Acc acc = identity;
  if constexpr (sizeof(In) > 16 || 16 % sizeof(In) != 0) {
    for (std::int64_t i = thread; i < n; i += threads) acc = op(acc, load(i, in[i]));
  } else {
    if (reinterpret_cast<std::uintptr_t>(in) % sizeof(In) != 0) {
      // A type aligned below its size (a struct of two doubles at an 8-byte offset ...): no
      // element starts on a 16-byte boundary, so no vector load is safe. Uniform branch.
      for (std::int64_t i = thread; i < n; i += threads) acc = op(acc, load(i, in[i]));
      return acc;
    }
    const std::int64_t head = unaligned_head(in, n);
    const std::int64_t vectors = (n - head) / vec::size;
    const std::int64_t tail = head + vectors * vec::size;
    const vec* __restrict__ body = reinterpret_cast<const vec*>(in + head);
    if (thread < head) acc = op(acc, load(thread, in[thread]));
    if (thread < n - tail) acc = op(acc, load(tail + thread, in[tail + thread]));
    std::int64_t j = thread;
    constexpr int u_count = Policy::unroll;
    for (; j + (u_count - 1) * threads < vectors; j += u_count * threads) {
      vec r[u_count];
#pragma unroll
      for (int u = 0; u < u_count; ++u) r[u] = body[j + u * threads];
#pragma unroll
      for (int u = 0; u < u_count; ++u)
#pragma unroll
        for (int k = 0; k < vec::size; ++k)
          acc = op(acc, load(head + (j + u * threads) * vec::size + k, r[u].v[k]));
    }
    for (; j < vectors; j += threads) {
      const vec r = body[j];
#pragma unroll
      for (int k = 0; k < vec::size; ++k) acc = op(acc, load(head + j * vec::size + k, r.v[k]));
    }
  }
  return acc;
}

/// The result written to out is finish(op(init, reduction)): finish maps the accumulator to
/// what the caller sees (the arg reductions turn the identity's index into -1).
template <class Policy, class In, class Acc, class Load, class Op, class Finish>
__global__ void __launch_bounds__(Policy::block,
                                  sizeof(Acc) <= 8 ? Policy::min_blocks_per_sm : Policy::min_blocks_per_sm * 3 / 4)
    single_pass_kernel(const In* __restrict__ in, std::int64_t n, Load load, Op op, Finish finish, Acc identity,
                       Acc init, Acc* __restrict__ out, Acc* __restrict__ partials, unsigned int* ticket) {
  constexpr unsigned block = Policy::block;
  __shared__ block::reduce_storage<Acc, block> storage;
  __shared__ bool last_block;
  const std::int64_t threads = std::int64_t(gridDim.x) * block;
  Acc v = thread_reduce<Policy>(in, n, load, op, identity, std::int64_t(blockIdx.x) * block + threadIdx.x, threads);
  v = block::reduce<block>(v, op, identity, storage);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) store_whole(out, finish(op(init, v)));
    return;
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    // Release this block's partial; acquire all earlier ones. The last ticket sees them all.
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> t(*ticket);
    last_block = t.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
  }
  __syncthreads();  // also orders storage's reads above before its reuse below
  if (!last_block) return;
  __threadfence();
  Acc w = identity;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += block) w = op(w, partials[b]);
  w = block::reduce<block>(w, op, identity, storage);
  if (threadIdx.x == 0) {
    store_whole(out, finish(op(init, w)));
    *ticket = 0;  // ready for the next launch with this workspace
  }
}

/// Blocks of `Kernel` (launched with `block` threads) resident on one multiprocessor, computed
/// once per kernel and device.
template <auto Kernel>
int resident_blocks(int device, unsigned block) {
  static std::atomic<int> cached[64] = {};
  std::atomic<int>& c = cached[device & 63];
  int b = c.load(std::memory_order_relaxed);
  if (b == 0) {
    CURED_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, Kernel, int(block), 0));
    b = std::max(b, 1);
    c.store(b, std::memory_order_relaxed);
  }
  return b;
}

/// Blocks of the kernel resident on one multiprocessor (computed once per instantiation and device).
template <class Policy, class In, class Acc, class Load, class Op, class Finish>
int blocks_per_sm(int device) {
  return resident_blocks<single_pass_kernel<Policy, In, Acc, Load, Op, Finish>>(device, Policy::block);
}

/// The grid for n elements: one full wave at most, and no more blocks than there is work for.
template <class Policy, class In, class Acc, class Load, class Op, class Finish>
std::int64_t grid_for(std::int64_t n, int device, int sm_count) {
  const std::int64_t per_block_iteration = std::int64_t(Policy::block) * vector16<In>::size * Policy::unroll;
  const std::int64_t wave = std::int64_t(blocks_per_sm<Policy, In, Acc, Load, Op, Finish>(device)) * sm_count;
  return std::max<std::int64_t>(1, std::min((n + per_block_iteration - 1) / per_block_iteration, wave));
}


// ---- The arg reductions' kernel ------------------------------------------------------------
//
// Same launch, ticket and last-block scheme as single_pass_kernel, reading the same tiles
// (block b takes tiles b, b + grid, ... of `block * unroll` 16-byte vectors; block 0 also
// takes the unaligned head, the tail goes with the tile it would start), but each block
// carries an arg_local pair, {32-bit key, value}: 8 bytes for float, so a shuffle level moves
// two words instead of four. The key is the element's place in the block's own sequence of
// tiles (iteration * tile + offset), which orders the block's elements as their indices do;
// it becomes the 64-bit index once, when the block writes its partial. A thread sees its
// elements in increasing order, so along one vector the rule needs no index comparison
// (arg_later). A block with more than 2^30 elements of tiles (never in practice: 2^30 per
// block times a full wave of blocks) reduces them a piece at a time, widening each piece's
// result in thread 0. Every combination is exact and the rule is a total order on (value,
// index), so the result is the same for any grid and bit-identical run to run.

/// An arg pair: an index (a block-local key, or the 64-bit index) and a value.
template <class I, class T>
struct arg_pair {
  I index;
  T value;
};
template <class T>
using arg_local = arg_pair<std::int32_t, T>;

/// The identity's key: no element has it (a piece's keys stay below 2^30 + 2 tiles).
inline constexpr std::int32_t no_local = 0x7fffffff;

/// Inputs the arg kernel reads with vector loads: every element's address is a multiple of
/// its size, and 16 bytes hold a whole number of elements. (Other types take the generic
/// single_pass_kernel with 64-bit pairs.)
template <class T>
inline constexpr bool arg_vectorizable = alignof(T) == sizeof(T) && sizeof(T) <= 16 && 16 % sizeof(T) == 0;

/// arg_pick for pairs with distinct indices (or two identities): b when it comes first in the
/// arg order (NaN first, then the extreme value, then the smaller index).
template <bool Max, class P>
__device__ __forceinline__ P arg_pick_pair(const P& a, const P& b) {
  const bool take_b =
      a.index < b.index ? cured::detail::arg_later<Max>(a.value, b.value) : !cured::detail::arg_later<Max>(b.value, a.value);
  return take_b ? b : a;
}

template <class I, class T>
__device__ __forceinline__ arg_pair<I, T> shuffle_down(const arg_pair<I, T>& v, int offset) {
  return {__shfl_down_sync(0xffffffffu, v.index, offset), warp::shuffle_down(v.value, offset)};
}

/// The block's reduction of v, valid in thread 0. All threads call it; `warp_results` may be
/// reused after a __syncthreads() that follows the call.
template <unsigned Block, bool Max, class P>
__device__ __forceinline__ P arg_block_reduce(P v, P* warp_results) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = arg_pick_pair<Max>(v, shuffle_down(v, offset));
  if constexpr (Block > 32) {
    const unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
    if (lane == 0) warp_results[w] = v;
    __syncthreads();
    if (w == 0) {
      // Lane 0's result depends on lanes [0, Block / 32) only; the others keep what they hold.
      if (lane < Block / 32) v = warp_results[lane];
#pragma unroll
      for (int offset = Block / 64; offset > 0; offset >>= 1) v = arg_pick_pair<Max>(v, shuffle_down(v, offset));
    }
  }
  return v;
}

/// This thread's vectors of one tile, tile[threadIdx.x + u * block] for u < unroll, combined
/// into acc; element k of vector u has the key key0 + u * block * size + k. A vector at or past
/// `count` reads the tile's last vector, tile[count - 1], instead: a copy of an element that
/// is also read under its own, smaller index, so the copy never wins (equal values go to the
/// smaller index) and no load needs a predicate.
template <class Policy, bool Max, class T>
__device__ __forceinline__ void arg_tile(const vector16<T>* __restrict__ tile, int count, int key0,
                                         arg_local<T>& acc) {
  using vec = vector16<T>;
  constexpr int u_count = Policy::unroll, block = int(Policy::block);
  vec r[u_count];
#pragma unroll
  for (int u = 0; u < u_count; ++u) r[u] = tile[min(int(threadIdx.x) + u * block, count - 1)];
  // One chain in key order: no key comparison needed.
  arg_local<T> m = {0, r[0].v[0]};
#pragma unroll
  for (int u = 0; u < u_count; ++u)
#pragma unroll
    for (int k = 0; k < vec::size; ++k)
      if ((u || k) && cured::detail::arg_later<Max>(m.value, r[u].v[k])) m = {u * block * vec::size + k, r[u].v[k]};
  m.index += key0;
  acc = arg_pick_pair<Max>(acc, m);
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
  bool wide;                      ///< tile numbers reach 2^31 - 1: the last block compares 64-bit indices
};

template <class Policy, class T>
arg_layout make_arg_layout(const T* in, std::int64_t n, std::int64_t grid, std::int64_t piece_elements,
                           std::int64_t wide_tiles = no_local) {
  constexpr std::int64_t size = vector16<T>::size, tile_vectors = std::int64_t(Policy::block) * Policy::unroll;
  const std::int64_t head = unaligned_head(in, n), vectors = (n - head) / size;
  const std::int64_t tiles = (vectors + tile_vectors - 1) / tile_vectors, tail_tile = vectors / tile_vectors;
  const bool tail = head + vectors * size < n;
  return {n,
          head,
          vectors,
          tiles / grid,
          tiles % grid,
          tail ? tail_tile % grid : -1,
          tail_tile / grid,
          std::max<std::int64_t>(1, std::min<std::int64_t>(piece_elements, 1 << 30) / (tile_vectors * size)),
          tail_tile >= std::min<std::int64_t>(wide_tiles, no_local)};
}

/// arg_minimum (Max false) or arg_maximum (Max true) of in[0, n) into *out, index -1 when empty.
template <class Policy, bool Max, class T>
__global__ void __launch_bounds__(Policy::block, sizeof(arg_local<T>) <= 8 ? Policy::min_blocks_per_sm
                                                                           : Policy::min_blocks_per_sm * 3 / 4)
    arg_kernel(const T* __restrict__ in, const arg_layout layout, key_value<T>* __restrict__ out,
               key_value<T>* __restrict__ partials, unsigned int* ticket) {
  static_assert(arg_vectorizable<T>);
  using vec = vector16<T>;
  using local = arg_local<T>;
  constexpr unsigned block = Policy::block;
  constexpr int tile_vectors = int(block) * Policy::unroll, tile = tile_vectors * vec::size;
  using wide = arg_pair<long long, T>;  // the last block's pairs: the 64-bit index, no padding to carry
  __shared__ union {
    local keys[block / 32];
    wide indices[block / 32];
  } warp_results;
  __shared__ bool last_block;
  const T identity_value = Max ? cured::detail::lowest<T>() : cured::detail::highest<T>();
  const unsigned t = threadIdx.x, b = blockIdx.x, grid = gridDim.x;
  const vec* __restrict__ body = reinterpret_cast<const vec*>(in + layout.head);

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
                            lead + i * tile + int(t) * vec::size, acc);
    }
    if (tail)
      acc = arg_pick_pair<Max>(
          acc, local{lead + int(tail_iteration) * tile + int(layout.vectors % tile_vectors) * vec::size + int(t),
                     tail_value});
    return arg_block_reduce<block, Max>(acc, warp_results.keys);
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
      __syncthreads();  // before warp_results is reused
    }
    best = partials[b];
  }

  if (grid == 1) {
    if (t == 0) {
      if (best.index == no_index) best.index = -1;
      store_whole(out, best);
    }
    return;
  }
  if (t == 0) {
    partials[b] = best;
    // Release this block's partial; acquire all earlier ones. The last ticket sees them all.
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> tk(*ticket);
    last_block = tk.fetch_add(1u, cuda::memory_order_acq_rel) == grid - 1;
  }
  __syncthreads();  // also orders warp_results' reads above before its reuse below
  if (!last_block) return;
  __threadfence();
  if (!layout.wide) {
    // A partial's key is the number of the tile its element is in (the head's is tile 0, the
    // tail's the tile it follows): different blocks' tiles differ, and their numbers are in
    // index order. The winner's 64-bit index is read back from its block's partial.
    local w{no_local, identity_value};
    for (unsigned i0 = t; i0 < grid; i0 += 4 * block) {  // four partials' loads in flight at once
      std::int64_t index[4];
      T value[4];
#pragma unroll
      for (unsigned u = 0; u < 4; ++u) {
        const unsigned i = i0 + u * block < grid ? i0 + u * block : i0;  // a repeat never wins: same key
        index[u] = partials[i].index;
        value[u] = partials[i].value;
      }
#pragma unroll
      for (unsigned u = 0; u < 4; ++u) {
        const int key =
            index[u] == no_index ? no_local : index[u] < layout.head ? 0 : int(std::uint64_t(index[u] - layout.head) / tile);
        w = arg_pick_pair<Max>(w, local{key, value[u]});
      }
    }
    w = arg_block_reduce<block, Max>(w, warp_results.keys);
    if (t == 0) {
      const unsigned owner = unsigned(w.index) < grid ? unsigned(w.index) : unsigned(w.index) % grid;  // tile's block
      store_whole(out, key_value<T>{w.index == no_local ? -1 : partials[owner].index, w.value});
    }
  } else {  // never in practice: more than 2^31 - 2 tiles (2^44 bytes)
    wide w{no_index, identity_value};
    for (unsigned i = t; i < grid; i += block) w = arg_pick_pair<Max>(w, wide{partials[i].index, partials[i].value});
    w = arg_block_reduce<block, Max>(w, warp_results.indices);
    if (t == 0) store_whole(out, key_value<T>{w.index == no_index ? -1 : w.index, w.value});
  }
  if (t == 0) *ticket = 0;  // ready for the next launch with this workspace
}

/// The arg kernel's grid for n elements: as grid_for, one full wave at most.
template <class Policy, bool Max, class T>
std::int64_t arg_grid_for(std::int64_t n, int device, int sm_count) {
  const std::int64_t per_block_iteration = std::int64_t(Policy::block) * vector16<T>::size * Policy::unroll;
  const std::int64_t wave =
      std::int64_t(resident_blocks<arg_kernel<Policy, Max, T>>(device, Policy::block)) * sm_count;
  return std::max<std::int64_t>(1, std::min((n + per_block_iteration - 1) / per_block_iteration, wave));
}

}  // namespace cured::device
