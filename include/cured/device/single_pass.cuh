#pragma once
// The device-wide reduction kernel: one launch for every n.
//
// A grid of at most one full wave of blocks grid-strides over the input with 16-byte loads,
// `unroll` of them in flight per thread (scalar loads for the unaligned head and the tail).
// Each block reduces its threads' values with shuffles. A grid of one block writes the result
// directly; the smallest inputs (16 KiB) take small_kernel, one block of 256 threads in
// straight-line code. A grid that is one thread-block cluster (Hopper; middle sizes; the
// kernel's Cluster instantiation) hands its partials to block 0 by writes into block 0's
// shared memory that its mbarrier counts: no round trip through L2. In a larger grid each
// block draws a start ticket before its loads; the block that draws the last one (every other
// block has started by then, so waiting for them cannot deadlock) combines the others'
// partials as they arrive, in block order, applies `init` and writes the result; the others
// publish their partial and leave. The assignment of elements to threads and the order of
// every combination depend only on n, the pointer's alignment and the device, so results are
// bit-identical run to run. argmin and argmax take arg_kernel (below): the same tiles, with
// 32-bit keys local to each block.

#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "cured/block/block_reduce.cuh"
#include "cured/error.cuh"
#include "cured/ops.cuh"
#include "cured/workspace.cuh"

/// A development probe (bench/probe/timeline.cu) defines CURED_PROBE(point, value) before
/// including the library to timestamp the stages of single_pass_kernel and small_kernel in
/// thread 0 of each block: 0 entry, 1 the thread's own loads' value, 2 the block's reduction,
/// 3 a cluster's combination done (every block), 4 the combining block's thread 0 has its share
/// of the partials, 5 all combined, 6 the result written. `value` is what the stage produced,
/// so that the timestamp cannot come before it. Otherwise it expands to nothing.
#ifndef CURED_PROBE
#define CURED_PROBE(point, value) ((void)0)
#endif

namespace cured::device {

/// Tuning of the single-pass kernel: one block of 1024 threads per multiprocessor, four
/// 16-byte loads in flight per thread (64 KiB per multiprocessor, as many bytes in flight as
/// eight blocks of 256). Fewer, larger blocks launch faster, and one block covers 64 KiB of
/// input without the handshake between blocks (docs/PERF.md).
struct policy {
  static constexpr unsigned block = 1024;  ///< threads per block
  static constexpr int unroll = 4;         ///< 16-byte loads in flight per thread per iteration
  static constexpr int min_blocks_per_sm = 1;
};

/// Tuning of small_kernel, the one block that reduces an input one round of its loads covers
/// (16 KiB): as CUB's single-tile kernel, 256 threads with four loads each start and finish
/// sooner than 1024 with one (docs/PERF.md).
struct small_policy {
  static constexpr unsigned block = 256;
  static constexpr int unroll = 4;
};

/// Tuning of the arg kernel: 256 threads, four blocks per multiprocessor (64 KiB of loads in
/// flight per multiprocessor, as single_pass_kernel; wider pairs get three). With eight (32
/// registers) the float kernel spilled and ptxas split each tile's four loads into two trips
/// to memory: 0.2-0.5 us slower at 2^13..2^21 floats and 1.6 us at 2^22 (docs/PERF.md).
struct arg_policy {
  static constexpr unsigned block = 256;
  static constexpr int unroll = 4;
  static constexpr int min_blocks_per_sm = 4;
};

template <class T>
struct alignas(16) vector16 {
  static constexpr int size = sizeof(T) <= 16 ? int(16 / sizeof(T)) : 1;
  T v[size];
};

/// Elements before the first 16-byte boundary of `in` (at most n).
template <class T>
__host__ __device__ inline std::int64_t unaligned_head(const T* in, std::int64_t n) {
  // Unsigned and branch-free: this is on the path to every block's first load.
  const std::int64_t head = std::int64_t(((16 - reinterpret_cast<std::uintptr_t>(in)) & 15) / sizeof(T));
  return head < n ? head : n;
}

// ---- Loads ---------------------------------------------------------------------------------

/// The L2 policy of the kernels' 16-byte input loads (load_vector): inputs of at most
/// stream_first_limit L2 sizes are read with evict_first priority. Read once, they then
/// displace each other rather than the L2's other lines, dirty ones included, which would have
/// to be written back first. Larger inputs are read with evict_unchanged, which measures as
/// plain loads; on the H200 evict_first (and evict_normal, more so) is slower than plain loads
/// on inputs of 8 L2 sizes and more. (The policy travels in the load's memory descriptor: the
/// same instruction either way.)
inline constexpr std::int64_t stream_first_limit = 4;

__device__ __forceinline__ std::uint64_t l2_policy(bool evict_first) {
  std::uint64_t p = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (evict_first) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  else asm("createpolicy.fractional.L2::evict_unchanged.b64 %0, 1.0;" : "=l"(p));
#else
  (void)evict_first;
#endif
  return p;
}

/// *p through the non-coherent path with the cache policy `l2` (from l2_policy). The input
/// must not change while the kernel runs.
template <class V>
__device__ __forceinline__ V load_vector(const V* p, std::uint64_t l2) {
  static_assert(sizeof(V) == 16 && alignof(V) == 16);
  uint4 r;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
      : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
      : "l"(p), "l"(l2));
#else
  (void)l2;
  r = __ldg(reinterpret_cast<const uint4*>(p));
#endif
  V v;
  memcpy(&v, &r, sizeof(V));
  return v;
}

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

/// Where an input's elements lie for the kernels' loads: the scalar head before the first
/// 16-byte boundary, the 16-byte vectors after it, the scalar tail. A pure function of the
/// pointer and n, computed once on the host for single_pass_kernel, which takes it as a
/// parameter, instead of in every thread before its first load (which measured no faster or
/// slower: docs/PERF.md); the exact kernels compute it on the device.
template <class In>
struct input_span {
  const In* in = nullptr;
  std::int64_t n = 0;
  std::int64_t head = 0;     ///< elements before the first vector (at most n)
  std::int64_t vectors = 0;  ///< whole 16-byte vectors after the head
  std::int64_t tail = 0;     ///< the first element after the vectors
  bool vectorized = true;    ///< false: no element starts on a 16-byte boundary; scalar loads only
};

template <class In>
__host__ __device__ inline input_span<In> span_of(const In* in, std::int64_t n) {
  input_span<In> s;
  s.in = in;
  s.n = n;
  if constexpr (sizeof(In) > 16 || 16 % sizeof(In) != 0) {
    s.vectorized = false;
  } else {
    // A type aligned below its size (a struct of two doubles at an 8-byte offset ...): no
    // element starts on a 16-byte boundary, so no vector load is safe.
    if constexpr (alignof(In) < sizeof(In)) s.vectorized = reinterpret_cast<std::uintptr_t>(in) % sizeof(In) == 0;
    if (s.vectorized) {
      s.head = unaligned_head(in, n);
      s.vectors = std::int64_t(std::uint64_t(n - s.head) / vector16<In>::size);
      s.tail = s.head + s.vectors * vector16<In>::size;
    }
  }
  return s;
}

/// op over element(integral_constant<int, i>) for i in [Lo, Hi), as a balanced tree.
template <int Lo, int Hi, class Element, class Op>
__device__ __forceinline__ auto tree_reduce(Element& element, Op& op) {
  static_assert(Lo < Hi);
  if constexpr (Hi - Lo == 1) return element(std::integral_constant<int, Lo>{});
  else return op(tree_reduce<Lo, (Lo + Hi) / 2>(element, op), tree_reduce<(Lo + Hi) / 2, Hi>(element, op));
}

/// This thread's reduction of load(i, in[i]) over its share of the span: its 16-byte vectors
/// (vector thread, thread + threads, ... after the head) in increasing order, then its element
/// of the head and of the tail, if any. The last, partial round of vectors is issued as one
/// predicated round, so its loads are in flight together too. OneRound: the caller knows that
/// one round (Policy::unroll vectors per thread) covers the span (small_kernel), so there is
/// no loop: the round's predicated loads are the thread's first instructions after their
/// addresses, and its elements combine as a tree.
template <class Policy, bool OneRound = false, class In, class Acc, class Load, class Op>
__device__ __forceinline__ Acc thread_reduce(const input_span<In>& s, Load& load, Op& op, const Acc& identity,
                                             std::int64_t thread, std::int64_t threads, std::uint64_t l2) {
  using vec = vector16<In>;
  const In* __restrict__ in = s.in;
  Acc acc = identity;
  if constexpr (sizeof(In) > 16 || 16 % sizeof(In) != 0) {
    for (std::int64_t i = thread; i < s.n; i += threads) acc = op(acc, load(i, in[i]));
  } else {
    if constexpr (alignof(In) < sizeof(In)) {
      if (!s.vectorized) {  // uniform branch
        for (std::int64_t i = thread; i < s.n; i += threads) acc = op(acc, load(i, in[i]));
        return acc;
      }
    }
    const std::int64_t head = s.head, vectors = s.vectors, tail = s.tail;
    const vec* __restrict__ body = reinterpret_cast<const vec*>(in + head);
    // The scalar head and tail are loaded first and combined last, after the vectors, so that
    // no vector load waits behind them.
    In head_value{}, tail_value{};
    const bool has_head = thread < head, has_tail = thread < s.n - tail;
    if (has_head) head_value = in[thread];
    if (has_tail) tail_value = in[tail + thread];
    std::int64_t j = thread;
    constexpr int u_count = Policy::unroll;
    if constexpr (!OneRound) {
      for (; j + (u_count - 1) * threads < vectors; j += u_count * threads) {
        vec r[u_count];
#pragma unroll
        for (int u = 0; u < u_count; ++u) r[u] = load_vector(body + j + u * threads, l2);
#pragma unroll
        for (int u = 0; u < u_count; ++u)
#pragma unroll
          for (int k = 0; k < vec::size; ++k)
            acc = op(acc, load(head + (j + u * threads) * vec::size + k, r[u].v[k]));
      }
    }
    // The last round: fewer than u_count vectors left for this thread (OneRound: at most u_count).
    constexpr int last = OneRound ? u_count : u_count - 1;
    vec r[last];
#pragma unroll
    for (int u = 0; u < last; ++u)
      if (j + u * threads < vectors) r[u] = load_vector(body + j + u * threads, l2);
    if constexpr (OneRound) {
      // The round's elements combine as a tree, not as one chain: with a chain, ptxas placed
      // the first vector's adds before the later vectors' loads in small_kernel's double sums,
      // three trips to memory instead of one (2048 doubles: 4.80 us against 4.13 with the tree;
      // docs/PERF.md). A vector past the span counts as the identity.
      const auto element = [&](auto i) -> Acc {
        constexpr int u = decltype(i)::value / vec::size, k = decltype(i)::value % vec::size;
        return j + u * threads < vectors ? Acc(load(head + (j + u * threads) * vec::size + k, r[u].v[k])) : identity;
      };
      acc = op(acc, tree_reduce<0, last * vec::size>(element, op));
    } else {
#pragma unroll
      for (int u = 0; u < last; ++u)
        if (j + u * threads < vectors)
#pragma unroll
          for (int k = 0; k < vec::size; ++k)
            acc = op(acc, load(head + (j + u * threads) * vec::size + k, r[u].v[k]));
    }
    if (has_head) acc = op(acc, load(thread, head_value));
    if (has_tail) acc = op(acc, load(tail + thread, tail_value));
  }
  return acc;
}

// ---- Handing partials between blocks -------------------------------------------------------

/// A block's partial as the workspace holds it: one 64-bit word per 32 bits of the value, the
/// upper half a tag (publish: 1; a blocking launch's report: the call's number). Each word is
/// written and read whole (single-copy atomic), so a word's value is seen exactly when its tag
/// is; no fence is needed between a partial and its tag. Between launches every slot is 0.
/// Slots are packed, a block's after the one before: the combining block's polls of 32 slots
/// touch as few L2 sectors as there can be (polling traffic delays the partials it waits for:
/// slots padded to 32 bytes, or a slot per warp, made the hand-over microseconds slower on the
/// H200; docs/PERF.md).
template <class Acc>
struct slot {
  static constexpr int words = int((sizeof(Acc) + 3) / 4);
  static_assert(words <= 32, "cured: accumulator too large for a slot");
  /// Slots one thread of the combining block polls at once (their words all in flight).
  static constexpr int batch = words >= 8 ? 1 : 8 / words;
};

__device__ __forceinline__ void store_relaxed(std::uint64_t* p, std::uint64_t v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ std::uint64_t load_relaxed(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

/// v's 32-bit words, padded with zeros.
template <class Acc>
__device__ __forceinline__ void words_of(const Acc& v, unsigned (&w)[slot<Acc>::words]) {
#pragma unroll
  for (int k = 0; k < slot<Acc>::words; ++k) w[k] = 0;
  memcpy(w, &v, sizeof(Acc));
}

/// Writes v into slot s (slot<Acc>::words words at s), tagged 1.
template <class Acc>
__device__ __forceinline__ void publish(std::uint64_t* s, const Acc& v) {
  unsigned w[slot<Acc>::words];
  words_of(v, w);
#pragma unroll
  for (int k = 0; k < slot<Acc>::words; ++k) store_relaxed(s + k, (std::uint64_t(1) << 32) | w[k]);
}

/// In one thread: the combination, in block order, of the partials of blocks first, first +
/// stride, ... below `count`: `own` for block own_index, the others' from their slots, each
/// waited for and then cleared. The slots of a batch are polled together, so that their round
/// trips overlap.
template <class Acc, class Op>
__device__ __forceinline__ Acc collect_share(std::uint64_t* slots, unsigned first, unsigned stride, unsigned count,
                                             Op& op, const Acc& identity, unsigned own_index, const Acc& own) {
  constexpr int words = slot<Acc>::words, batch = slot<Acc>::batch;
  constexpr unsigned all = words == 32 ? ~0u : (1u << words) - 1;
  Acc acc = identity;
  for (; first < count; first += batch * stride) {
    std::uint64_t x[batch][words];
    unsigned pending[batch];  // per slot: words not yet seen published
#pragma unroll
    for (int k = 0; k < batch; ++k) {
      const unsigned i = first + k * stride;
      pending[k] = i < count && i != own_index ? all : 0u;
    }
    for (bool waiting = true; waiting;) {
#pragma unroll
      for (int k = 0; k < batch; ++k)
#pragma unroll
        for (int w = 0; w < words; ++w)
          if (pending[k] & (1u << w)) x[k][w] = load_relaxed(slots + std::size_t(first + k * stride) * words + w);
      waiting = false;
#pragma unroll
      for (int k = 0; k < batch; ++k) {
#pragma unroll
        for (int w = 0; w < words; ++w)
          if ((pending[k] & (1u << w)) && (x[k][w] >> 32) != 0) pending[k] &= ~(1u << w);
        waiting |= pending[k] != 0;
      }
    }
#pragma unroll
    for (int k = 0; k < batch; ++k) {
      const unsigned i = first + k * stride;
      if (i >= count) break;
      if (i == own_index) {
        acc = op(acc, own);
        continue;
      }
      unsigned w32[words];
#pragma unroll
      for (int w = 0; w < words; ++w) {
        w32[w] = unsigned(x[k][w]);
        store_relaxed(slots + std::size_t(i) * words + w, 0);
      }
      Acc v;
      memcpy(&v, w32, sizeof(Acc));
      acc = op(acc, v);
    }
  }
  return acc;
}

/// Thread 0, once, with the launch's result: writes it to *out or, for a host that waits on
/// mapped memory (the blocking forms, cured::completion), as report words: the value's 32-bit
/// word k in the lower half of word k, the call's completion value in the upper half. Each word
/// is written whole (single-copy atomic), so the host takes the result once every word carries
/// the value: one trip to host memory and no system-wide fence before it.
template <class T>
__device__ __forceinline__ void deliver(T* out, const T& v, const completion& c) {
  if (!c.words) {
    store_whole(out, v);
    return;
  }
  unsigned w[slot<T>::words];
  words_of(v, w);
#pragma unroll
  for (int k = 0; k < slot<T>::words; ++k)
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(c.words + k), "l"((std::uint64_t(c.value) << 32) | w[k])
                 : "memory");
}

/// What a launch needs besides its input: the input's L2 policy, the workspace's start ticket
/// and slots, and where to report the result (blocking forms).
struct launch_state {
  bool stream_first = false;  ///< load with evict_first (see l2_policy)
  unsigned int* ticket = nullptr;
  std::uint64_t* slots = nullptr;
  completion done;
};

/// The blocks per multiprocessor a kernel's launch bounds ask for when each thread carries
/// Bytes of running value: Policy's, or three quarters of it (from 4 up) for values over 8
/// bytes, which would spill under the smaller register cap.
template <class Policy, std::size_t Bytes>
inline constexpr int min_blocks_for = Bytes <= 8 || Policy::min_blocks_per_sm < 4 ? Policy::min_blocks_per_sm
                                                                                  : Policy::min_blocks_per_sm * 3 / 4;

/// First thing in every block of a grid of several: thread 0 draws the block's start ticket
/// (returned in thread 0; the block that draws grid - 1 combines), and block 0 brings the
/// slots' lines (Words 8-byte words per block) into L2 ahead of the combining block's polls.
template <int Words>
__device__ __forceinline__ unsigned draw_start_ticket(const launch_state& st) {
  const unsigned t = threadIdx.x, grid = gridDim.x;
  unsigned start = 0;
  if (grid > 1) {
    if (t == 0) start = atomicInc(st.ticket, grid - 1);  // wraps to 0 after the last block: ready for the next launch
    if (blockIdx.x == 0)
      for (unsigned line = t; line * 128 < grid * Words * 8u; line += blockDim.x)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(reinterpret_cast<const char*>(st.slots) + line * 128));
  }
  return start;
}

/// The end of a block of a grid of several, after the block's reduction (v valid in thread 0),
/// in every thread: every block but the combining one (start ticket grid - 1) publishes its
/// partial and leaves; in the combining block every thread combines its share of the partials
/// (blocks t, t + blockDim.x, ...: one each, for grids up to a block's threads), and
/// block_combine(share) (valid in thread 0; all threads call it) combines the shares, into v in
/// thread 0. Returns true in the combining block's thread 0, false everywhere else. (Warp 0
/// alone polling several slots per lane, which spares the other blocks a barrier and the
/// combining block its block-wide reduction, measured no faster: docs/PERF.md.)
template <class Acc, class Op, class BlockCombine>
__device__ __forceinline__ bool hand_over(unsigned ticket, Acc& v, Op& op, const Acc& identity, const launch_state& st,
                                          BlockCombine&& block_combine) {
  __shared__ bool combines;
  __shared__ Acc own;
  const unsigned t = threadIdx.x, grid = gridDim.x;
  if (t == 0) {
    combines = ticket == grid - 1;
    if (combines) own = v;
    else publish(st.slots + std::size_t(blockIdx.x) * slot<Acc>::words, v);
  }
  __syncthreads();  // also: the block's reduction storage may be reused
  if (!combines) return false;
  v = block_combine(collect_share(st.slots, t, blockDim.x, grid, op, identity, blockIdx.x, own));
  return t == 0;
}

// ---- Combining partials within one cluster ------------------------------------------------

/// Most blocks of a cluster whose partials single_pass_kernel combines in shared memory
/// (Hopper's non-portable cluster limit; the portable one is 8).
inline constexpr unsigned max_cluster = 16;

/// Block 0's side of a cluster's hand-over: the other blocks' partials, as 32-bit words, and
/// the mbarrier that counts their bytes as they land.
template <class Acc>
struct cluster_inbox {
  unsigned words[max_cluster][slot<Acc>::words];
  std::uint64_t arrived;
};

/// First thing in every thread of a grid that is one cluster: block 0's thread 0 arms its
/// inbox (the bytes of the other blocks' partials), then every thread arrives at the cluster
/// barrier's first phase, which says this block has started (and block 0's inbox is armed). A
/// block may write another's shared memory only once that one has started; combine_in_cluster
/// waits for the phase to complete (long since done by then: it costs no time on the path to
/// the loads).
template <class Acc>
__device__ __forceinline__ void cluster_block_started(cluster_inbox<Acc>& inbox) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    const unsigned bar = unsigned(__cvta_generic_to_shared(&inbox.arrived));
    const unsigned bytes = (cluster.num_blocks() - 1) * slot<Acc>::words * 4;
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
  }
  // Relaxed: the fence above orders the mbarrier's initialisation before it (an arrival with
  // release semantics here held every block's first loads back by about 0.25 us).
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#else
  (void)inbox;
#endif
}

/// In a grid that is one cluster, after cluster_block_started and the block's reduction (v
/// valid in thread 0), in every thread: once every block has started, thread 0 of each other
/// block sends v into block 0's inbox (st.async: a write into another block's shared memory that
/// counts its bytes on that block's mbarrier) and its block leaves; block 0's first warp waits
/// until every byte has landed and combines the partials in rank order. True in block 0's
/// thread 0 only, where v then holds the combination; the other threads may return.
template <class Acc, class Op>
__device__ __forceinline__ bool combine_in_cluster(Acc& v, Op& op, const Acc& identity, cluster_inbox<Acc>& inbox) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), t = threadIdx.x;
  constexpr int words = slot<Acc>::words;
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");  // every block has started
  if (rank != 0) {
    if (t == 0) {
      unsigned w[words];
      words_of(v, w);
      const unsigned to = unsigned(__cvta_generic_to_shared(&inbox.words[rank][0]));
      const unsigned bar = unsigned(__cvta_generic_to_shared(&inbox.arrived));
      unsigned remote_to, remote_bar;
      asm("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote_to) : "r"(to));
      asm("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote_bar) : "r"(bar));
#pragma unroll
      for (int k = 0; k < words; ++k)
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                     ::"r"(remote_to + 4 * k), "r"(w[k]), "r"(remote_bar)
                     : "memory");
    }
    return false;
  }
  if (t >= 32) return false;
  const unsigned bar = unsigned(__cvta_generic_to_shared(&inbox.arrived));
  for (unsigned done = 0; !done;)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar)
        : "memory");
  Acc p = t == 0 ? v : identity;
  if (t > 0 && t < cluster.num_blocks()) memcpy(&p, inbox.words[t], sizeof(Acc));
  v = warp::reduce(p, op);
  return t == 0;
#else
  (void)v, (void)op, (void)identity, (void)inbox;
  return false;
#endif
}

/// The result written to out is finish(op(init, reduction)): finish maps the accumulator to
/// what the caller sees (the arg reductions turn the identity's index into -1). `input` comes
/// from span_of on the host. What the kernel's end reads (out, st, init) comes first, beside
/// what its start reads.
///
/// Cluster: the kernel of launches whose grid is one thread-block cluster (combine_in_cluster);
/// the others take the kernel without it. Kept apart, the cluster barrier, its checks of the
/// launch (constant reads the compiler puts before it) and the distributed shared memory stay
/// out of the one-block and hand-over launches: in development runs the kernel that held both
/// paths took 0.07-0.22 us longer at one block (2^10..2^13 floats) than the same kernel without
/// the cluster path (docs/PERF.md).
///
/// Blocks of Policy::block threads (a multiple of 32); inputs small_kernel takes never come here
/// unless a test forces a shape.
template <class Policy, class In, class Acc, class Load, class Op, class Finish, bool Cluster = false>
__global__ void __launch_bounds__(Policy::block, min_blocks_for<Policy, sizeof(Acc)>)
    single_pass_kernel(Acc* __restrict__ out, const launch_state st, const input_span<In> input, Acc init,
                       Acc identity, Load load, Op op, Finish finish) {
  __shared__ block::reduce_storage<Acc, Policy::block> storage;
  constexpr unsigned block = Policy::block;
  const unsigned t = threadIdx.x, b = blockIdx.x, grid = gridDim.x;
  CURED_PROBE(0, 0);
  __shared__ cluster_inbox<Acc> inbox;  // block 0's, in a cluster
  if constexpr (Cluster) cluster_block_started(inbox);
  const unsigned ticket = Cluster ? 0 : draw_start_ticket<slot<Acc>::words>(st);
  Acc v = thread_reduce<Policy>(input, load, op, identity, std::int64_t(b) * block + t, std::int64_t(grid) * block,
                                l2_policy(st.stream_first));
  CURED_PROBE(1, v);
  // In the one thread that holds the whole reduction, after every other write of the launch.
  const auto write_result = [&](const Acc& total) {
    deliver(out, finish(op(init, total)), st.done);
    CURED_PROBE(6, total);
  };
  v = block::reduce<block>(v, op, identity, storage);
  CURED_PROBE(2, v);
  if constexpr (Cluster) {
    const bool combines = combine_in_cluster(v, op, identity, inbox);
    CURED_PROBE(3, v);
    if (combines) write_result(v);
  } else if (grid == 1) {
    if (t == 0) write_result(v);
  } else if (hand_over(ticket, v, op, identity, st, [&](const Acc& share) {
               CURED_PROBE(4, share);
               return block::reduce<block>(share, op, identity, storage);
             })) {
    CURED_PROBE(5, v);
    write_result(v);
  }
}

/// The reduction of an input that one round of Policy::block threads' loads covers
/// (one_round_covers: up to 16 KiB with small_policy), in one block: the result written as single_pass_kernel
/// writes it. Straight-line code (thread_reduce's one-round form): each thread issues its (at
/// most Policy::unroll) predicated vector loads after the few instructions that place them.
/// Traced on the H200 (2^10..2^12 floats), its loads' data arrive 0.13-0.16 us sooner than in
/// single_pass_kernel's one block, as soon as in a minimal hand-written block; timed from launch
/// to completion the two measured the same within the noise (docs/PERF.md).
template <class Policy, class In, class Acc, class Load, class Op, class Finish>
__global__ void __launch_bounds__(Policy::block)
    small_kernel(Acc* __restrict__ out, const completion done, const input_span<In> input, Acc init, Acc identity,
                 Load load, Op op, Finish finish) {
  constexpr unsigned block = Policy::block;
  __shared__ block::reduce_storage<Acc, block> storage;
  CURED_PROBE(0, 0);
  Acc v = thread_reduce<Policy, true>(input, load, op, identity, threadIdx.x, block, l2_policy(true));
  CURED_PROBE(1, v);
  v = block::reduce<block>(v, op, identity, storage);
  CURED_PROBE(2, v);
  if (threadIdx.x == 0) {
    deliver(out, finish(op(init, v)), done);
    CURED_PROBE(6, v);
  }
}

/// Whether one round of Policy's loads (Policy::unroll vectors for each of Policy::block
/// threads) covers n elements of In: one block of Policy reduces them without a loop.
template <class Policy, class In>
constexpr bool one_round_covers(std::int64_t n) {
  return n <= std::int64_t(Policy::block) * Policy::unroll * vector16<In>::size;
}

/// compute() for `device`, computed once per device and call site (each call site's lambda
/// is its own type); compute() must not return 0, which marks "not yet".
template <class T, class Compute>
T once_per_device(int device, Compute compute) {
  static std::atomic<T> cached[64] = {};
  std::atomic<T>& c = cached[device & 63];
  T v = c.load(std::memory_order_relaxed);
  if (v == 0) {
    v = compute();
    c.store(v, std::memory_order_relaxed);
  }
  return v;
}

/// Blocks of `Kernel` (launched with `block` threads) resident on one multiprocessor, computed
/// once per kernel and device.
template <auto Kernel>
int resident_blocks(int device, unsigned block) {
  return once_per_device<int>(device, [&] {
    int b = 0;
    CURED_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, Kernel, int(block), 0));
    return std::max(b, 1);
  });
}

/// How a kernel is launched: `grid` blocks of `block` threads, all in one cluster when
/// `cluster` (then equal to grid) is above 1.
struct launch_shape {
  std::int64_t grid = 1;
  unsigned cluster = 1;
  unsigned block = 0;
  bool small = false;  ///< small_kernel's launch: one block of small_policy::block threads
};

/// A launch configuration of `shape`; `dims` (which the configuration points to) holds the
/// cluster's dimensions.
inline cudaLaunchConfig_t cluster_config(const launch_shape& shape, cudaStream_t stream, cudaLaunchAttribute& dims) {
  dims = {};
  dims.id = cudaLaunchAttributeClusterDimension;
  dims.val.clusterDim.x = shape.cluster;
  dims.val.clusterDim.y = dims.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(shape.grid));
  config.blockDim = dim3(shape.block);
  config.stream = stream;
  config.attrs = &dims;
  config.numAttrs = 1;
  return config;
}

/// The largest cluster of `Kernel` (launched with `block` threads) that the device can run, up
/// to max_cluster: 1 before Hopper, or when the kernel was compiled for an earlier
/// architecture (its code then has no cluster path). Computed once per kernel and device.
template <auto Kernel>
unsigned cluster_limit(int device, unsigned block) {
  return once_per_device<unsigned>(device, [&] {
    unsigned limit = 1;
    int major = 0;
    cudaFuncAttributes attr{};
    CURED_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CURED_CHECK(cudaFuncGetAttributes(&attr, Kernel));
    if (major >= 9 && attr.ptxVersion >= 90) {
      const bool non_portable =
          cudaFuncSetAttribute(Kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
      for (unsigned size = non_portable ? max_cluster : 8; size > 1 && limit == 1; size /= 2) {
        cudaLaunchAttribute dims;
        const cudaLaunchConfig_t config = cluster_config({size, size, block}, nullptr, dims);
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, Kernel, &config) == cudaSuccess && clusters > 0) limit = size;
      }
      (void)cudaGetLastError();  // a size the device refused is not the caller's error
    }
    return limit;
  });
}

/// kernel<<<shape.grid, shape.block, 0, stream>>>(args...), as one cluster when
/// shape.cluster > 1. A failed launch is left to cudaGetLastError, as with <<<>>>.
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), const launch_shape& shape, cudaStream_t stream, Args&&... args) {
  if (shape.cluster <= 1) {
    kernel<<<unsigned(shape.grid), shape.block, 0, stream>>>(std::forward<Args>(args)...);
    return;
  }
  cudaLaunchAttribute dims;
  const cudaLaunchConfig_t config = cluster_config(shape, stream, dims);
  (void)cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

/// The shape for n elements: small_kernel's one block when one round of its loads covers the
/// input; one block of Policy::block threads when one round of theirs does (no handshake);
/// otherwise a block of Policy::block threads per round of one vector per thread, so that
/// the per-element work (a conversion, a 64-bit add) spreads over as many multiprocessors as
/// there is input for: up to twice the largest cluster, as one cluster of at most that many
/// blocks (partials through shared memory; a cluster's blocks share a GPC's bandwidth, so larger
/// inputs go faster on more multiprocessors), beyond that as a plain grid of up to one full wave.
template <class Policy, class In, class Acc, class Load, class Op, class Finish>
launch_shape shape_for(std::int64_t n, int device, int sm_count) {
  constexpr auto kernel = single_pass_kernel<Policy, In, Acc, Load, Op, Finish>;
  constexpr auto cluster_kernel = single_pass_kernel<Policy, In, Acc, Load, Op, Finish, true>;
  constexpr std::int64_t size = vector16<In>::size;
  if (one_round_covers<small_policy, In>(n)) return {1, 1, small_policy::block, true};
  if (one_round_covers<Policy, In>(n)) return {1, 1, Policy::block};
  const std::int64_t one_round = std::int64_t(Policy::block) * size;
  const std::int64_t blocks = (n + one_round - 1) / one_round;
  const unsigned cluster = cluster_limit<cluster_kernel>(device, Policy::block);
  if (cluster > 1 && blocks <= 2 * std::int64_t(cluster)) {
    const unsigned c = unsigned(std::min<std::int64_t>(blocks, cluster));
    return {c, c, Policy::block};
  }
  const std::int64_t wave = std::int64_t(resident_blocks<kernel>(device, Policy::block)) * sm_count;
  return {std::min(blocks, wave), 1, Policy::block};
}


// ---- The arg reductions' kernel ------------------------------------------------------------
//
// Same launch, start ticket and combining block as single_pass_kernel, reading the same tiles
// (block b takes tiles b, b + grid, ... of `block * unroll` 16-byte vectors; block 0 also
// takes the unaligned head, the tail goes with the tile it would start), but each block
// carries an arg_local pair, {32-bit key, value}: 8 bytes for float, so a shuffle level moves
// two words instead of four. The key is the element's place in the block's own sequence of
// tiles (iteration * tile + offset), which orders the block's elements as their indices do;
// it becomes the 64-bit index once, when the block writes its partial. A thread sees its
// elements in increasing order, so along one vector the rule needs no index comparison
// (arg_later). A block with more than 2^30 elements of tiles (never in practice: 2^30 per
// block times a full wave of blocks) reduces them a piece at a time, widening each piece's
// result in thread 0. The combining block compares 64-bit indices. Every combination is exact
// and the rule is a total order on (value, index), so the result is the same for any grid and
// bit-identical run to run.

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
                                         arg_local<T>& acc, std::uint64_t l2) {
  using vec = vector16<T>;
  constexpr int u_count = Policy::unroll, block = int(Policy::block);
  vec r[u_count];
#pragma unroll
  for (int u = 0; u < u_count; ++u) r[u] = load_vector(tile + min(int(threadIdx.x) + u * block, count - 1), l2);
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
};

template <class Policy, class T>
arg_layout make_arg_layout(const T* in, std::int64_t n, std::int64_t grid, std::int64_t piece_elements) {
  constexpr std::int64_t size = vector16<T>::size, tile_vectors = std::int64_t(Policy::block) * Policy::unroll;
  const input_span<T> s = span_of(in, n);  // vectorized: arg_vectorizable<T>
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

/// arg_minimum (Max false) or arg_maximum (Max true) of in[0, n) into *out, index -1 when empty.
/// The parameters come in single_pass_kernel's order: what the end needs beside what the start
/// reads.
template <class Policy, bool Max, class T>
__global__ void __launch_bounds__(Policy::block, min_blocks_for<Policy, sizeof(arg_local<T>)>)
    arg_kernel(key_value<T>* __restrict__ out, const launch_state st, const T* __restrict__ in, const arg_layout layout,
               key_value<T>* __restrict__ partials) {
  static_assert(arg_vectorizable<T>);
  using vec = vector16<T>;
  using local = arg_local<T>;
  constexpr unsigned block = Policy::block;
  constexpr int tile_vectors = int(block) * Policy::unroll, tile = tile_vectors * vec::size;
  using wide = arg_pair<long long, T>;  // the combining block's pairs: the 64-bit index, no padding to carry
  __shared__ union {
    local keys[block / 32];
    wide indices[block / 32];
  } warp_results;
  const T identity_value = Max ? cured::detail::lowest<T>() : cured::detail::highest<T>();
  const unsigned t = threadIdx.x, b = blockIdx.x, grid = gridDim.x;
  const vec* __restrict__ body = reinterpret_cast<const vec*>(in + layout.head);
  const unsigned ticket = draw_start_ticket<slot<key_value<T>>::words>(st);
  const std::uint64_t l2 = l2_policy(st.stream_first);

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
      deliver(out, best, st.done);
    }
    return;
  }
  const auto pick = [](const key_value<T>& x, const key_value<T>& y) { return arg_pick_pair<Max>(x, y); };
  if (hand_over(ticket, best, pick, key_value<T>{no_index, identity_value}, st, [&](const key_value<T>& share) {
        const wide w = arg_block_reduce<block, Max>(wide{share.index, share.value}, warp_results.indices);
        return key_value<T>{w.index, w.value};
      }))
    deliver(out, key_value<T>{best.index == no_index ? -1 : best.index, best.value}, st.done);
}

/// The arg kernel's grid for n elements: a block per tile, one full wave at most.
template <class Policy, bool Max, class T>
std::int64_t arg_grid_for(std::int64_t n, int device, int sm_count) {
  const std::int64_t per_block_iteration = std::int64_t(Policy::block) * vector16<T>::size * Policy::unroll;
  const std::int64_t wave =
      std::int64_t(resident_blocks<arg_kernel<Policy, Max, T>>(device, Policy::block)) * sm_count;
  return std::max<std::int64_t>(1, std::min((n + per_block_iteration - 1) / per_block_iteration, wave));
}

}  // namespace cured::device
