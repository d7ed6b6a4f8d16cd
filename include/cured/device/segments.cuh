#pragma once
// The segmented reductions' kernel: store(s, reduction of values[offset(s), offset(s + 1)),
// length) for every segment s (segment_args.cuh: one array of offsets, or begin and end pairs
// with the gaps between them), balanced over blocks by elements and segment ends alike.
//
// The values and the segment ends merge into one sequence of items (the end of segment j
// comes before value i when offset(j + 1) <= i: it is item j + offset(j + 1) - offset(0)).
// Each block of one wave takes an equal range of items, finds its first end with a block-wide
// search (block/partition_point.cuh) and walks from segment to segment:
//  - Policy::run_min values or more, the rest of the range, or what is left of a segment begun
//    in an earlier block: 16-byte vectors read by the whole block, then a block reduction;
//  - medium segments, up to Block in a row (from Policy::warp_min values, or group_min after a
//    chunk with none shorter), or (Mixed) mixed ones below warp_min of a mean of group_min (first,
//    and after a chunk of that mean): a group of 2 to 32 lanes each, by their mean (segment_groups.cuh);
//  - Block / 4 or more in a row of at most Policy::short_max values: a thread, or a group of
//    lanes (Grouped), each (segment_threads.cuh);
//  - other short ones: a chunk of items, its values staged in shared memory, its ends as
//    positions. A mean length up to 8, none much longer: a group of 1, 2 or 4 lanes a segment
//    (segment_groups.cuh); else each thread walks V items, stores the segments that start and
//    end among them, and a segmented scan over the threads brings it what came before its
//    first end. The chunk ends at its last end.
// A segment cut by a range is combined by the last of its blocks to arrive, in block order
// (grid/split_combine.cuh); a gap between pairs is passed over unread unless short among short
// pairs. Every order of combination depends only on the offsets and the launch: results are
// bit-identical run to run.
//
// Each offset is read by the window, chunk or walk that meets it and checked against the one
// before it; the last block checks that the blocks' ranges of ends meet. Offsets that decrease
// or leave [0, n] always set a bit of *status, and no value outside [0, n) is read.

#include <cstdint>
#include <type_traits>

#include "cured/block/block_reduce.cuh"
#include "cured/block/partition_point.cuh"
#include "cured/block/segmented_scan.cuh"
#include "cured/device/segment_args.cuh"
#include "cured/device/segment_chunks.cuh"
#include "cured/device/segment_groups.cuh"
#include "cured/device/segment_threads.cuh"
#include "cured/grid/split_combine.cuh"
#include "cured/thread/load.cuh"
#include "cured/thread/reduce_row.cuh"
#include "cured/warp/warp_reduce.cuh"

namespace cured::device {

template <class Policy, bool Pairs, segment_walk Walk, class In, class Acc, class Load, class Op, class Store>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks_per_sm)
    segments_kernel(const In* __restrict__ in, const segment_shape shape, Acc identity, Load load, Op op, Store store,
                    segment_scratch scratch, unsigned* status) {
  constexpr bool Grouped = Walk == segment_walk::grouped, Mixed = Walk == segment_walk::mixed;
  constexpr unsigned B = Policy::block;
  constexpr int V = Policy::template items_per_thread<In>;
  constexpr int batch = Policy::template end_batch<In>;
  constexpr std::int64_t run_min = Policy::run_min, warp_min = Policy::warp_min;
  constexpr std::int64_t group_min = Policy::template group_min<In>;
  static_assert((V - 1) % batch == 0);
  constexpr int T = int(B) * V;
  __shared__ int positions[T];
  __shared__ In elements[T];
  __shared__ medium_windows<B> medium;
  __shared__ unsigned chunk_short;
  __shared__ short_windows<Policy, In, Acc> windows;
  __shared__ block::reduce_storage<Acc, B> tmp;
  __shared__ Acc warp_total[B / 32], warp_before[B / 32];
  __shared__ bool warp_closed[B / 32];
  __shared__ Acc carry;      // the open segment's part from the block's start or last end
  __shared__ Acc head_part;  // the block's first segment, when it started in an earlier block
  const unsigned t = threadIdx.x, lane = t % 32, w = t / 32;
  const auto off = [&](std::int64_t j) { return shape.template offset<Pairs>(j); };
  constexpr int by = Pairs ? 2 : 1;  // (the pair form's pairs: every other segment, between the gaps)
  const std::int64_t S = shape.segments, G = gridDim.x, b = blockIdx.x;
  const std::int64_t o0 = off(0), oS = off(S);
  unsigned error = (o0 < 0 || oS > shape.n || oS < o0) ? segment_offsets_outside : 0u;
  // The block's items [D0, D1) and the segment ends it walked [first, s).
  std::int64_t first = S, s = S;
  if (!error) {
    const std::int64_t total = S + (oS - o0), per = (total + G - 1) / G;
    const std::int64_t D0 = smaller(total, b * per), D1 = smaller(total, D0 + per);
    if (D0 < D1) {
      first = block::partition_point<B>(0, S, [&](std::int64_t j) { return j + (off(j + 1) - o0) < D0; });
      s = first;
      std::int64_t d = D0, i = o0 + D0 - first;  // the next item, the next element
      std::int64_t begin = off(s);                // the open segment's first element
      if (s >= S || i < o0 || i > oS || begin > i || off(s + 1) < i) error = segment_offsets_decrease;
      const bool head_from_before = !error && begin < i;  // the first segment has elements in earlier blocks
      bool head_open = true;
      Acc run = identity;  // this thread's part of the open segment, from runs
      bool run_dirty = false;
      const std::uint64_t l2 = thread::l2_policy(shape.stream_first);
      if (t == 0) carry = identity;
      __syncthreads();
      std::int64_t known_for = -1, known_end = 0;  // an end fetched ahead: segment known_for's
      bool many = false;                           // the last chunk had Block ends or more
      short_cursor windows_at;                     // (segment_threads.cuh)
      bool medium_next = true;                     // try medium segments from group_min values
      bool mixed_next = Mixed;                     // try mixed windows (first, and after a chunk of that mean)
      while (!error && d < D1) {
        // The open segment's end (-1, an error below, for values after the last end).
        const std::int64_t next_end = s >= S ? -1 : known_for == s ? known_end : off(s + 1);
        const std::int64_t gap = next_end - i;
        if (gap < 0 || next_end > oS) {
          error = segment_offsets_decrease;
          break;
        }
        const bool fresh = i == begin;  // nothing of the open segment read yet
        const bool pass = is_gap<Pairs>(s) && (gap >= warp_min || off(s + 2) - next_end >= warp_min);  // unread
        if (pass || gap >= run_min || d + gap >= D1 || (!fresh && gap >= warp_min)) {
          // A run (the next segment's end fetched meanwhile).
          const std::int64_t len = smaller(gap, D1 - d);
          if (s + 1 < S) {
            known_for = s + 1;
            known_end = off(s + 2);
          }
          if (!is_gap<Pairs>(s))
            thread::reduce_row<true>(run, in + i, len, 1, i - begin, 1, t, B, shape.vectors, l2, load, op);
          run_dirty = true;
          i += len;
          d += len;
          if (d == D1) break;
          // Its end is in the range: close it.
          const Acc r = is_gap<Pairs>(s) ? identity : block::reduce<B>(run, op, tmp);
          if (t == 0) {
            const Acc value = op(carry, r);
            if (head_open && head_from_before) head_part = value;
            else store(s, value, next_end - begin);
            carry = identity;
          }
          run = identity;
          run_dirty = false;
          head_open = false;
          begin = next_end;
          ++s;
          ++d;
          __syncthreads();
          continue;
        }
        if (gap >= warp_min || (fresh && ((medium_next && gap >= group_min) || mixed_next))) {  // (up to Block)
          const unsigned g =
              medium_window<Policy, Pairs, Mixed, In>(medium, shape, s, i, gap, D1 - d, oS, medium_next, mixed_next);
          if (g > 0) {
            reduce_medium_segments<B>(medium.ends, g, unsigned(s & (by - 1)), by, in, s, i, shape.vectors, l2,
                                      identity, load, op, store);
            const std::int64_t last = medium.ends[g - 1];
            d += (last - i) + g;
            i = begin = last;
            s += g;
            head_open = false;
            __syncthreads();  // the window, read
            continue;
          }
          __syncthreads();
        }
        if (windows_at.try_next && fresh && gap <= windows.Short) {  // a window of short segments
          const auto [g, last] = reduce_short_segments<Pairs, Grouped>(windows, windows_at, in, shape, s, i, D1 - d,
                                                                       oS, identity, load, op, store);
          if (g > 0) {
            d += (last - i) + g;
            i = begin = last;
            s += g;
            head_open = false;
            continue;
          }
        }
        // A chunk (its first end inside: gap < warp_min <= items): values staged while its ends
        // are counted, each end's position in the chunk (item e + end - i) after them.
        const std::int64_t items = smaller(T, D1 - d);
        const std::int64_t staged = smaller(items, oS - i);
        if (t == 0) chunk_short = 0;
#pragma unroll
        for (int r = 0; r < V; ++r)
          if (t + r * B < staged) thread::stage_element(elements + t + r * B, in + i + t + r * B, shape.async_copy);
        __pipeline_commit();
        // Its ends: Block (Block * (1 + batch) after a chunk of Block ends or more: one round
        // trip), then batches of Block * batch while every thread's last is inside.
        std::int64_t k = 0;
        const auto count_ends = [&](int r0, auto width) {
          constexpr int W = decltype(width)::value;
          std::int64_t at[W];
#pragma unroll
          for (int u = 0; u < W; ++u) {
            const std::int64_t j = s + t + (r0 + u) * B;
            at[u] = j < S ? off(j + 1) : std::int64_t(1) << 62;
          }
#pragma unroll
          for (int u = 0; u < W; ++u) {
            const std::int64_t e = t + (r0 + u) * B, pos = e + (at[u] - i);
            const bool inside = pos < items;  // (a negative one is caught below)
            positions[e] = inside ? int(larger(pos, -1)) : -1;
            const std::int64_t c = __syncthreads_count(inside);
            k += c;
            if (c < B) return false;
          }
          return true;
        };
        bool more = many ? count_ends(0, std::integral_constant<int, 1 + batch>{})
                         : count_ends(0, std::integral_constant<int, 1>{});
        for (int r = many ? 1 + batch : 1; more && r < V; r += batch)
          more = count_ends(r, std::integral_constant<int, batch>{});
        many = k >= B;
        // The chunk ends at its last end: the next step starts on a segment's first value.
        const std::int64_t used = k > 0 ? positions[k - 1] + 1 : 0;
        const std::int64_t m = used - k;  // the chunk's elements
        windows_at.try_next = m <= k * windows.Short && m >= k * windows.MinMean;
        __pipeline_wait_prior(0);
        if (k == 0 || m < 0 || m > staged) {  // (the first end is inside: gap < items)
          error = segment_offsets_decrease;
          break;
        }
        __syncthreads();
        const int first_pair = int(s & (by - 1)), g = group_lanes(m, Pairs ? (k - first_pair + 2) / 2 : k);
        bool bad = false, longer = g == 0;
        for (int e = int(t); e < k; e += int(B)) {
          const int before = e ? positions[e - 1] : -1, length = positions[e] - before - 1;
          const bool pair = ((e - first_pair) & (by - 1)) == 0;
          bad |= positions[e] < 0 || positions[e] <= before;
          longer |= pair && length > group_longest(g);
          if (pair && e > 0 && length < group_min) atomicOr(&chunk_short, 1u);
        }
        if (__syncthreads_or(bad)) {
          error = segment_offsets_decrease;
          break;
        }
        const bool grouped = !__syncthreads_or(longer);
        medium_next = chunk_short == 0;  // (no whole segment of the chunk below group_min)
        if constexpr (Mixed) mixed_next = m >= group_min * k;
        if (run_dirty) {
          const Acc r = block::reduce<B>(run, op, tmp);
          if (t == 0) carry = op(carry, r);
          run = identity;
          run_dirty = false;
          __syncthreads();
        }
        if (grouped) {  // (thread 0, the first group's first lane, reads carry before it resets it)
          reduce_in_groups<B>(positions, elements, int(k), first_pair, by, g, i - begin, identity, load, op,
                              [&](int e, Acc p, int c) {
            if (e > 0) store(s + e, p, c);
            else if (head_open && head_from_before) head_part = op(carry, p);
            else store(s, op(carry, p), i + c - begin);
          });
          if (t == 0) carry = identity;
        } else {
          const chunk_part<Acc> part =
              walk_chunk<V>(positions, elements, int(k), int(used), s, i, begin, identity, load, op, store);
          // What comes before each thread since the last end.
          block::segmented_prefix<B>(part.closed, part.acc, identity, op, carry, warp_total, warp_before,
                                     warp_closed, lane, w, [&](const Acc& before) {
            const Acc value = op(before, part.before_first);
            if (head_open && head_from_before && part.first_segment == first) head_part = value;
            else store(part.first_segment, value, part.first_length);
          });
        }
        begin = i + positions[k - 1] - (k - 1);
        head_open = false;
        s += k;
        i += m;
        d += used;
        __syncthreads();  // the positions and elements, read, before the next chunk's
      }
      __pipeline_wait_prior(0);  // (a last window's fetch of ends, landed before the block ends)
      if (run_dirty) {  // uniform: error is
        const Acc r = block::reduce<B>(run, op, tmp);
        if (t == 0) carry = op(carry, r);
      }
      __syncthreads();
      const auto block_of_end = [&](std::int64_t j) { return (j + (off(j + 1) - o0)) / per; };
      const auto join = [&](std::int64_t slot, const Acc* part, std::int64_t from, std::int64_t to,
                            std::int64_t segment) {
        if (t == 0) grid::store_part(scratch.parts, slot, *part);
        if (!grid::last_to_arrive(scratch.counters + from, unsigned(to - from + 1))) return;
        // A segment spanning blocks from..to: `from`'s part after its last end, then the others'
        // before their first end, combined by the last to arrive.
        const std::int64_t count = to - from + 1, each = (count + B - 1) / B;
        Acc r = identity;
        for (std::int64_t q = from + t * each; q < smaller(to + 1, from + (t + 1) * each); ++q)
          r = op(r, grid::load_part<Acc>(scratch.parts, q == from ? 2 * q + 1 : 2 * q));
        r = block::reduce<B>(r, op, tmp);
        if (t == 0) store(segment, r, off(segment + 1) - off(segment));
        __syncthreads();
      };
      if (!error && head_from_before) {
        // The first segment began in an earlier block: a middle part here (no end) or its last.
        const std::int64_t from = (first + off(first) - o0) / per;
        const std::int64_t to = head_open ? block_of_end(first) : b;
        if (from >= 0 && from < b && to >= b && to < G) join(2 * b, head_open ? &carry : &head_part, from, to, first);
        else error = segment_offsets_decrease;
      }
      if (!error && s < S && begin < i && (!head_open || !head_from_before)) {
        // The open segment started in this block and ends in a later one.
        const std::int64_t to = block_of_end(s);
        if (to > b && to < G) join(2 * b + 1, &carry, b, to, s);
        else error = segment_offsets_decrease;
      }
    }
  }
  finish_segments<B>(scratch, first, s, error, S, status);
}

}  // namespace cured::device
