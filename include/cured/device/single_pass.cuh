#pragma once
// The whole-array reduction kernels: one launch for every n.
//
// single_pass_kernel: a grid of at most one full wave of blocks grid-strides over the input
// (thread_reduce), each block reduces its threads' values (block::reduce), and the blocks'
// partials meet in one of three ways, chosen by the launch: a grid of one block writes its
// result directly; a grid that is one thread-block cluster (the Cluster instantiation)
// combines in block 0's shared memory (combine_in_cluster); a larger grid hands its partials
// to the block that draws the last start ticket (hand_over). small_kernel: one block for the
// inputs one round of its loads covers, in straight-line code.
//
// The result is finish(op(init, total)). The assignment of elements to threads and the order
// of every combination depend only on n, the pointer's alignment and the launch, so results
// are bit-identical run to run.

#include <cstdint>

#include "cured/block/block_reduce.cuh"
#include "cured/thread/deliver.cuh"
#include "cured/types/completion.cuh"
#include "cured/device/launch_bounds.cuh"
#include "cured/grid/cluster_combine.cuh"
#include "cured/grid/hand_over.cuh"
#include "cured/thread/load.cuh"
#include "cured/thread/reduce.cuh"

namespace cured::device {

/// Whether one round of Policy's loads (Policy::unroll vectors for each of Policy::block
/// threads) covers n elements of In: one block of Policy reduces them without a loop.
template <class Policy, class In>
constexpr bool one_round_covers(std::int64_t n) {
  return n <= std::int64_t(Policy::block) * Policy::unroll * thread::vector16<In>::size;
}

/// finish(op(init, reduction of load(i, input[i]))) into *out (or st.done's report words), as an
/// Out. `input` comes from span_of on the host. Cluster: the kernel of launches whose grid is one
/// thread-block cluster; kept apart, the cluster barrier and its checks stay out of the other
/// launches (docs/PERF.md#clusters-for-middle-sizes). Blocks of Policy::block threads.
template <class Policy, class In, class Acc, class Load, class Op, class Finish, bool Cluster = false, class Out = Acc>
__global__ void __launch_bounds__(Policy::block, min_blocks_for<Policy, sizeof(Acc)>)
    single_pass_kernel(Out* __restrict__ out, const grid::launch_state st, const thread::input_span<In> input, Acc init,
                       Acc identity, Load load, Op op, Finish finish) {
  constexpr unsigned block = Policy::block;
  __shared__ block::reduce_storage<Acc, block> storage;
  __shared__ grid::cluster_inbox<Acc> inbox;  // block 0's, in a cluster
  const unsigned t = threadIdx.x, b = blockIdx.x, grid = gridDim.x;
  if constexpr (Cluster) grid::cluster_block_started(inbox);
  const unsigned ticket = Cluster ? 0 : grid::draw_start_ticket<grid::slot<Acc>::words>(st);
  Acc v = thread::thread_reduce<Policy>(input, load, op, identity, std::int64_t(b) * block + t,
                                        std::int64_t(grid) * block, thread::l2_policy(st.stream_first));
  v = block::reduce<block>(v, op, storage);
  // In the one thread that holds the whole reduction, after every other write of the launch.
  const auto write_result = [&](const Acc& total) {
    thread::deliver(out, Out(finish(op(init, total))), st.done);
  };
  if constexpr (Cluster) {
    if (grid::combine_in_cluster(v, op, identity, inbox)) write_result(v);
  } else if (grid == 1) {
    if (t == 0) write_result(v);
  } else if (grid::hand_over(ticket, v, op, identity, st,
                             [&](const Acc& share) { return block::reduce<block>(share, op, storage); })) {
    write_result(v);
  }
}

/// The reduction of an input that one round of Policy::block threads' loads covers
/// (one_round_covers), in one block, written as single_pass_kernel writes it. Straight-line
/// code: each thread issues its (at most Policy::unroll) predicated vector loads right after
/// the few instructions that place them (docs/PERF.md#small_kernel-for-inputs-of-16-kib-and-less).
template <class Policy, class In, class Acc, class Load, class Op, class Finish, class Out = Acc>
__global__ void __launch_bounds__(Policy::block)
    small_kernel(Out* __restrict__ out, const completion done, const thread::input_span<In> input, Acc init,
                 Acc identity, Load load, Op op, Finish finish) {
  constexpr unsigned block = Policy::block;
  __shared__ block::reduce_storage<Acc, block> storage;
  Acc v = thread::thread_reduce<Policy, true>(input, load, op, identity, threadIdx.x, block, thread::l2_policy(true));
  v = block::reduce<block>(v, op, storage);
  if (threadIdx.x == 0) thread::deliver(out, Out(finish(op(init, v))), done);
}

}  // namespace cured::device
