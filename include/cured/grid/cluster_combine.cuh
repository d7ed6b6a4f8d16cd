#pragma once
// The combination of a grid that is one thread-block cluster (Hopper): each block's partial
// goes straight into block 0's shared memory, no round trip through L2.
//
//   __shared__ cluster_inbox<Acc> inbox;
//   cluster_block_started(inbox);                  // first thing, every thread
//   ... the block's reduction into v (thread 0) ...
//   if (combine_in_cluster(v, op, identity, inbox)) deliver(out, v, done);
//
// The partials combine in rank order: the result depends only on the cluster's size.

#include <cooperative_groups.h>

#include <cstdint>
#include <cstring>

#include "cured/grid/hand_over.cuh"
#include "cured/warp/warp_reduce.cuh"

namespace cured::grid {

/// Most blocks of a cluster (Hopper's non-portable cluster limit; the portable one is 8).
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
/// waits for the phase to complete (long since done by then: off the path to the loads).
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
  // Relaxed: the fence above orders the mbarrier's initialisation before it (a release arrival
  // held every block's first loads back: docs/PERF.md#clusters-for-middle-sizes).
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
      thread::words_of(v, w);
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

}  // namespace cured::grid
