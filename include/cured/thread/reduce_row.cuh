#pragma once
// A thread's share of a row that a group of lanes reads together: elements lane, lane + lanes,
// ... of the row, 16-byte vectors where the row allows them. The axis kernels of the row regime
// (device/axis_rows.cuh) and the segment kernels (device/segments.cuh, segment_groups.cuh) call
// it, then combine the lanes' totals themselves (warp::reduce, block::reduce).
//
//   reduce_row(acc, p, length, stride, index, multiplier, lane, lanes, vectors, l2, load, op);

#include <cstdint>
#include <type_traits>

#include "cured/types/ops.cuh"
#include "cured/thread/element_load.cuh"
#include "cured/thread/load.cuh"

namespace cured::thread {

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

}  // namespace cured::thread
