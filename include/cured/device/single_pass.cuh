#pragma once
// The device-wide reduction kernel: one launch for every n.
//
// A grid of at most one full wave of blocks grid-strides over the input with 16-byte loads,
// `unroll` of them in flight per thread (scalar loads for the unaligned head and the tail).
// Each block reduces its threads' values with shuffles and writes one partial; the block that
// draws the last ticket adds the partials in block order, applies `init`, writes the result
// and resets the ticket. A grid of one block writes the result directly. The assignment of
// elements to threads and the order of every combination depend only on n, the pointer's
// alignment and the device, so results are bit-identical run to run.

#include <cuda/atomic>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "cured/block/block_reduce.cuh"
#include "cured/error.cuh"

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

/// Blocks of the kernel resident on one multiprocessor (computed once per instantiation and device).
template <class Policy, class In, class Acc, class Load, class Op, class Finish>
int blocks_per_sm(int device) {
  static std::atomic<int> cached[64] = {};
  std::atomic<int>& c = cached[device & 63];
  int b = c.load(std::memory_order_relaxed);
  if (b == 0) {
    CURED_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &b, single_pass_kernel<Policy, In, Acc, Load, Op, Finish>, int(Policy::block), 0));
    b = std::max(b, 1);
    c.store(b, std::memory_order_relaxed);
  }
  return b;
}

/// The grid for n elements: one full wave at most, and no more blocks than there is work for.
template <class Policy, class In, class Acc, class Load, class Op, class Finish>
std::int64_t grid_for(std::int64_t n, int device, int sm_count) {
  const std::int64_t per_block_iteration = std::int64_t(Policy::block) * vector16<In>::size * Policy::unroll;
  const std::int64_t wave = std::int64_t(blocks_per_sm<Policy, In, Acc, Load, Op, Finish>(device)) * sm_count;
  return std::max<std::int64_t>(1, std::min((n + per_block_iteration - 1) / per_block_iteration, wave));
}

}  // namespace cured::device
