#pragma once
// A thread's reduction of its share of an input: Policy::unroll 16-byte loads in flight per
// iteration, scalar loads for the unaligned head and the tail.
//
//   Acc v = thread_reduce<Policy>(span, load, op, identity, thread, threads, l2_policy(first));
//
// Contract: thread t of `threads` takes vectors t, t + threads, ... of the span in increasing
// order, then its element of the head and of the tail, if any; load(i, in[i]) makes element i
// an Acc. The assignment depends only on the span and the thread count.

#include <cstdint>
#include <type_traits>

#include "cured/thread/element_load.cuh"
#include "cured/thread/load.cuh"

namespace cured::thread {

/// op over element(integral_constant<int, i>) for i in [Lo, Hi), as a balanced tree.
template <int Lo, int Hi, class Element, class Op>
__device__ __forceinline__ auto tree_reduce(Element& element, Op& op) {
  static_assert(Lo < Hi);
  if constexpr (Hi - Lo == 1) return element(std::integral_constant<int, Lo>{});
  else return op(tree_reduce<Lo, (Lo + Hi) / 2>(element, op), tree_reduce<(Lo + Hi) / 2, Hi>(element, op));
}

/// This thread's reduction of load(i, in[i]) over its share of the span. The last, partial
/// round of vectors is issued as one predicated round, so its loads are in flight together.
/// OneRound: the caller knows that one round (Policy::unroll vectors per thread) covers the
/// span, so there is no loop, and the round's elements combine as a tree (with one chain,
/// ptxas put the first vector's adds before the later vectors' loads:
/// docs/PERF.md#the-one-round-combines-as-a-tree).
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
        if constexpr (adds_all<Op, Acc, loaded_t<Load, In>, u_count * vec::size>) {
          add_round_at_once(acc, r, [&](int u, int k) { return head + (j + u * threads) * vec::size + k; }, load, op);
        } else {
#pragma unroll
          for (int u = 0; u < u_count; ++u)
#pragma unroll
            for (int k = 0; k < vec::size; ++k)
              acc = op(acc, load(head + (j + u * threads) * vec::size + k, r[u].v[k]));
        }
      }
    }
    // The last round: fewer than u_count vectors left for this thread (OneRound: at most u_count).
    constexpr int last = OneRound ? u_count : u_count - 1;
    vec r[last];
#pragma unroll
    for (int u = 0; u < last; ++u)
      if (j + u * threads < vectors) r[u] = load_vector(body + j + u * threads, l2);
    if constexpr (OneRound) {
      // A vector past the span counts as the identity.
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

}  // namespace cured::thread
