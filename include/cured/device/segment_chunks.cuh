#pragma once
// A thread's part of a chunk in segments_kernel's chunk walk (segments.cuh): the chunk's items
// (its values, staged in shared memory, and its segment ends, each at its position among the
// items) in runs of V a thread; the ends among a thread's V items close segments.

#include <cstdint>

#include "cured/thread/element_load.cuh"

namespace cured::device {

/// What a thread's items gave: the part after its last end (or all of them), and, where an end
/// was among them (`closed`), the part before its first end, that segment and its length.
template <class Acc>
struct chunk_part {
  Acc acc, before_first;
  bool closed;
  std::int64_t first_segment, first_length;
};

/// Thread t's items [t V, t V + V) of the chunk's `items` (k ends at positions[0, k), the
/// values between them in elements[]), the chunk beginning at value i in open segment s (begun
/// at `begin`): store(segment, part, length) for every segment that begins and ends among them.
template <int V, class In, class Acc, class Load, class Op, class Store>
__device__ __forceinline__ chunk_part<Acc> walk_chunk(const int* positions, const In* elements, int k, int items,
                                                      std::int64_t s, std::int64_t i, std::int64_t begin,
                                                      const Acc& identity, const Load& load, const Op& op,
                                                      const Store& store) {
  const int at = int(threadIdx.x) * V;
  chunk_part<Acc> r{identity, identity, false, 0, 0};
  if (at < items) {
    int lo = 0, hi = k;  // the first end at or after `at`
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (positions[mid] < at) lo = mid + 1;
      else hi = mid;
    }
    int e = lo, el = at - lo;
    std::int64_t seg_begin = e ? i + positions[e - 1] - (e - 1) : begin;
#pragma unroll
    for (int q = 0; q < V; ++q) {
      if (at + q >= items) break;
      if (e < k && positions[e] == at + q) {
        const std::int64_t seg_end = i + el;
        const std::int64_t length = seg_end - seg_begin;
        if (!r.closed) {
          r.before_first = r.acc;
          r.first_segment = s + e;
          r.first_length = length;
          r.closed = true;
        } else {
          store(s + e, r.acc, length);
        }
        r.acc = identity;
        seg_begin = seg_end;
        ++e;
      } else {
        thread::add_later(r.acc, i + el - seg_begin, elements[el], load, op);
        ++el;
      }
    }
  }
  return r;
}

}  // namespace cured::device
