#pragma once
// Strips: segments_kernel's walk over short and mixed segments in the Strips kernel
// (segments.cuh), for reductions whose accumulator is at most 8 bytes and whose load takes no
// index (sums, min, max, user operators, the small statistics).
//
// A strip is Block * V values from a 16-byte boundary; thread t holds values [t V, t V + V) of
// it in registers, read as 16-byte vectors straight from global memory, whatever the segments'
// lengths. The segment ends that fall in the strip are read a thread each (one per value at most)
// while the values are in flight, and each non-empty segment's last value is marked in shared
// memory (a bit, and the segment's place among the strip's ends). Each thread then reduces its
// values, closing a segment at each mark; a segmented scan over the threads brings each
// thread's first segment what came before it, and the strip's results, staged in shared memory
// by place, are stored by consecutive threads. A strip without an end adds to the open segment
// by a block reduction.
//
// So a strip costs one round trip for its values and its first Block (or 4 Block) ends, and
// every value one add and a test of its mark, for any lengths and any mixture of them.

#include <cstdint>

#include "cured/block/block_reduce.cuh"
#include "cured/block/segmented_scan.cuh"
#include "cured/device/axis_rows.cuh"
#include "cured/device/segment_args.cuh"
#include "cured/thread/load.cuh"
#include "cured/warp/warp_reduce.cuh"

namespace cured::device {

/// A strip's shared memory: Block * V values' marks, as many results, the scan's warp totals.
template <unsigned B, int V, class Acc>
struct strip_storage {
  static_assert(32 % V == 0 && B * V <= 65536);
  unsigned marks[B * V / 32];      ///< bit p: a non-empty segment's last value is at position p
  unsigned short place[B * V];     ///< at a marked position: that segment's place among the ends
  Acc out[B * V];                  ///< the results, by place
  Acc warp_total[B / 32], warp_before[B / 32];
  bool warp_closed[B / 32];
  long long last_end;              ///< the strip's last end
  long long after;                 ///< the end after it, when read
};

/// The shared memory of segments_kernel's strips: strip_storage where it takes them, else a byte.
template <bool Strips, class Policy, class In, class Acc>
struct strip_shared {
  using type = char;
};
template <class Policy, class In, class Acc>
struct strip_shared<true, Policy, In, Acc> {
  using type = strip_storage<Policy::block, Policy::template strip_values<In>, Acc>;
};

/// What a strip took: ends (segments closed), values up to `next`, the last end (the open
/// segment's first value, when ends > 0), the end of the open segment (-1: not read), and
/// whether it took Block ends or more (the next strip reads four rounds of ends at once).
struct strip_step {
  std::int64_t ends;
  std::int64_t next;
  std::int64_t last_end;
  std::int64_t after;
  bool many;
};

/// x[q] = in[first + q] for the q of [0, V) with first + q in [lo, hi), In{} elsewhere: 16-byte
/// vectors where whole (vectors: in + first on a 16-byte boundary), else element by element.
template <int V, class In>
__device__ __forceinline__ void load_strip_values(In (&x)[V], const In* in, std::int64_t first, std::int64_t lo,
                                                  std::int64_t hi, bool vectors, std::uint64_t l2) {
  if constexpr (vector_element<In> && (V * sizeof(In)) % 16 == 0) {
    if (vectors) {
      using vec = vector16<In>;
      constexpr int size = vec::size;
#pragma unroll
      for (int u = 0; u < V / size; ++u) {
        const std::int64_t q = first + u * size;
        if (q >= lo && q + size <= hi) {
          const vec r = load_vector(reinterpret_cast<const vec*>(in + q), l2);
#pragma unroll
          for (int k = 0; k < size; ++k) x[u * size + k] = r.v[k];
        } else {
#pragma unroll
          for (int k = 0; k < size; ++k) x[u * size + k] = q + k >= lo && q + k < hi ? load_element(in + q + k) : In{};
        }
      }
      return;
    }
  }
#pragma unroll
  for (int q = 0; q < V; ++q) x[q] = first + q >= lo && first + q < hi ? load_element(in + first + q) : In{};
}

/// One strip from value i, the open segment s (begun at `begin`, ending at `next_end`, > i
/// unless s is empty), taking at most `budget` items (values and ends) and no value at or past
/// oS. Called by every thread of the block; ends with a barrier. The open segment's part so far
/// is `carry` (shared), which it updates; segment `first`'s result goes to head_part instead of
/// the output when `head_to_part`. Offsets that decrease or leave [.., oS] set `bad` (the
/// block's answer, in every thread); the strip then takes nothing.
template <class Policy, class In, class Acc, class Load, class Op, class Store, class Storage, class Offset>
__device__ __forceinline__ strip_step reduce_strip(Storage& st, block::reduce_storage<Acc, Policy::block>& tmp,
                                                   const In* in, const segment_shape& shape, const Offset& off,
                                                   std::int64_t s, std::int64_t i, std::int64_t begin,
                                                   std::int64_t next_end, std::int64_t budget, std::int64_t oS,
                                                   bool many, bool head_to_part, Acc& carry, Acc& head_part,
                                                   bool& bad, std::uint64_t l2, const Acc& identity, const Load& load,
                                                   const Op& op, const Store& store) {
  constexpr unsigned B = Policy::block;
  constexpr int V = Policy::template strip_values<In>, T = int(B) * V, Ends = T;
  static_assert(Ends % (4 * B) == 0);
  const unsigned t = threadIdx.x, lane = t % 32, w = t / 32;
  const std::int64_t S = shape.segments;
  // Positions [0, T) are values a + p, a on a 16-byte boundary where the values allow vectors.
  const std::int64_t a =
      shape.vectors ? i - std::int64_t((reinterpret_cast<std::uintptr_t>(in + i) & 15) / sizeof(In)) : i;
  const std::int64_t limit = smaller(smaller(a + T, oS), i + budget);
  const std::int64_t mine_first = a + std::int64_t(t) * V;  // this thread's first position's value
  In x[V];
  load_strip_values(x, in, mine_first, i, limit, shape.vectors, l2);

  // The ends: segment s + e ends at off(s + e + 1); it is the strip's when e < Ends, that end is
  // at most `limit`, and the item it is (e + its end - i) is within the budget: a prefix of e.
  std::int64_t k = 0, last = -1;
  int last_place = -1;
  bool mine_bad = false;
  const auto round = [&](int r0, auto width) {
    constexpr int W = decltype(width)::value;
    std::int64_t at[W];
#pragma unroll
    for (int u = 0; u < W; ++u) {
      const std::int64_t j = s + (r0 + u) * std::int64_t(B) + t;
      at[u] = j < S ? off(j + 1) : std::int64_t(1) << 62;
    }
#pragma unroll
    for (int u = 0; u < W; ++u) {
      const int e = (r0 + u) * int(B) + int(t);
      const std::int64_t j = s + e;
      std::int64_t from = warp::shuffle_up(at[u], 1);
      if (lane == 0) from = e == 0 ? begin : j <= S ? off(j) : at[u];
      const bool inside = e < Ends && j < S && at[u] <= limit && (at[u] - i) + e < budget;
      mine_bad |= j < S && (at[u] < from || at[u] > oS);
      if (inside && !mine_bad) {
        const std::int64_t p = at[u] - 1 - a;
        if (at[u] == from) st.out[e] = identity;
        else if (p >= 0 && p < T) {
          st.place[p] = static_cast<unsigned short>(e);
          atomicOr(&st.marks[p / 32], 1u << (p % 32));
        }
        last = at[u];
        last_place = e;
      }
      const std::int64_t c = __syncthreads_count(inside);
      k += c;
      if (c < B) {
        if (e == k) st.after = j < S ? at[u] : -1;  // (the first end outside, read)
        return false;
      }
    }
    return true;
  };
  if (next_end <= limit) {
    // Block ends first (four Block after a strip of Block or more), then four Block at a time
    // (after one Block, the last round reaches Block past Ends: those are outside).
    bool more = many ? round(0, std::integral_constant<int, 4>{}) : round(0, std::integral_constant<int, 1>{});
    for (int r = many ? 4 : 1; more && r < Ends / int(B); r += 4) more = round(r, std::integral_constant<int, 4>{});
    if (more && t == 0) st.after = -1;  // (not read: the strip took all the ends it may)
  } else if (t == 0) {
    st.after = next_end;  // (the open segment's end is past the strip)
  }
  if (k > 0 && last_place == k - 1) st.last_end = last;
  bad = __syncthreads_or(mine_bad);
  if (bad) return {0, i, begin, -1, many};  // (marks left set: the walk ends here, the next launch clears them)
  // The strip's values: [i, next), next short of `limit` when the block's items or Ends run out.
  std::int64_t next = smaller(limit, i + budget - k);
  if (k == Ends) next = smaller(next, st.last_end);
  const strip_step step{k, next, k > 0 ? std::int64_t(st.last_end) : begin, std::int64_t(st.after), k >= B};

  // This thread's values of [i, next) (bits of `valid`) and marks.
  const auto clamp = [](std::int64_t v) { return int(v < 0 ? 0 : v > V ? V : v); };
  const int lo = clamp(i - mine_first), hi = clamp(next - mine_first);
  constexpr unsigned full = V == 32 ? ~0u : (1u << V) - 1;
  const unsigned valid = (hi == 32 ? ~0u : (1u << hi) - 1) & ~((1u << lo) - 1);
  const unsigned marks = k > 0 ? (st.marks[t * V / 32] >> (t * V % 32)) & full : 0u;
  Acc acc = identity, head = identity;  // (head: the values before this thread's first mark)
  int head_place = -1;
  if (marks == 0) {
#pragma unroll
    for (int q = 0; q < V; ++q)
      if (valid >> q & 1) acc = op(acc, load(0, x[q]));
  } else {
#pragma unroll
    for (int q = 0; q < V; ++q) {
      if (valid >> q & 1) acc = op(acc, load(0, x[q]));
      if (marks >> q & 1) {
        const int e = st.place[t * V + q];
        if (head_place >= 0) st.out[e] = acc;
        else {
          head = acc;
          head_place = e;
        }
        acc = identity;
      }
    }
  }
  if (k == 0) {  // the open segment's part: a block reduction
    const Acc r = block::reduce<B>(acc, op, tmp);
    if (t == 0) carry = op(carry, r);
    __syncthreads();
    return step;
  }
  // What comes before each thread's first mark, from carry.
  block::segmented_prefix<B>(head_place >= 0, acc, identity, op, carry, st.warp_total, st.warp_before,
                             st.warp_closed, lane, w, [&](const Acc& before) {
    const Acc value = op(before, head);
    if (head_place == 0 && head_to_part) head_part = value;
    else st.out[head_place] = value;
  });
  if (t < T / 32) st.marks[t] = 0;  // (read above; the next strip's after the last barrier)
  __syncthreads();
  // The results, by consecutive threads.
  for (int e = int(t); e < k; e += int(B))
    if (e > 0 || !head_to_part) store(s + e, st.out[e], off(s + e + 1) - off(s + e));
  __syncthreads();
  return step;
}

}  // namespace cured::device
