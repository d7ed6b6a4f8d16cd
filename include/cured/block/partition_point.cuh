#pragma once
// A block-wide search: the first index of [lo, hi) where a monotone predicate turns false.
//
//   const std::int64_t k = cured::block::partition_point<256>(0, n, [&](std::int64_t j) { return a[j] < x; });
//
// Contract: every thread of the block (Block threads) calls it with the same arguments and gets
// the same answer; before(j) is true on a prefix of [lo, hi) and false after it. Each round
// tests Block evenly spaced indices at once (one load each, a __syncthreads_count), so n
// indices take ceil(log_Block(n)) rounds: 2^26 of them four rounds of 256. On a predicate that
// is not monotone it still returns an index of [lo, hi] after at most as many rounds.

#include <cstdint>

namespace cured::block {

template <unsigned Block, class Before>
__device__ std::int64_t partition_point(std::int64_t lo, std::int64_t hi, Before before) {
  while (lo < hi) {
    const std::int64_t step = (hi - lo + Block - 1) / Block;
    const std::int64_t j = lo + std::int64_t(threadIdx.x) * step;
    const std::int64_t c = __syncthreads_count(j < hi && before(j));
    if (c == 0) {
      hi = lo;
    } else if (step == 1) {
      lo += c;
      hi = lo;
    } else {
      const std::int64_t next_hi = hi < lo + c * step ? hi : lo + c * step;
      lo += (c - 1) * step + 1;
      hi = next_hi;
    }
  }
  return lo;
}

}  // namespace cured::block
