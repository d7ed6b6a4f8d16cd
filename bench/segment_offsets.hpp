#pragma once
// The segment lengths of cured-bench's segmented workloads (--segments, --segments-grid): how
// each distribution cuts n values into segments, as the int64 offsets cured::segments and
// cub::DeviceSegmentedReduce take. Plain C++, deterministic from the seed.
//
//   cured::bench::segment_distribution d{segment_distribution::kind::powerlaw};
//   std::vector<std::int64_t> off = cured::bench::segment_offsets(d, n, seed);  // count + 1 offsets
//
// Every distribution covers exactly n values: offsets[0] = 0, offsets[count] = n, never
// decreasing. uniform: segments of `length`, the last one the remainder. powerlaw: lengths
// floor(2^(20 u)) for u uniform in [0, 1) (1 .. 2^20 - 1, a Zipf-like law: every octave equally
// likely), the last one clipped to end at n. onebig: n/2 values in one segment in the middle,
// segments of 4 on either side (the last one shorter when the values after the big one are not
// a multiple of 4).
// empty-mixed: each segment empty with probability 1/3, else of a length uniform in 1..200,
// the last one clipped to end at n.

#include <cstdint>
#include <string>
#include <vector>

namespace cured::bench {

struct segment_distribution {
  enum class kind { uniform, powerlaw, onebig, empty_mixed };
  kind k = kind::uniform;
  std::int64_t length = 1;  ///< uniform: every segment's length, at least 1; unused by the others

  bool operator==(const segment_distribution&) const = default;
};

/// powerlaw: lengths below 2^powerlaw_log2_max.
inline constexpr int powerlaw_log2_max = 20;
/// onebig: the length of every segment but the big one.
inline constexpr std::int64_t onebig_small_length = 4;
/// empty-mixed: the longest segment.
inline constexpr std::int64_t empty_mixed_max_length = 200;

/// "uniform:4", "powerlaw", "onebig" or "empty-mixed": the text --segments reads.
std::string distribution_text(const segment_distribution& d);

/// The offsets of d's segments over n >= 0 values, count + 1 of them (n = 0: {0}). Powerlaw and
/// empty-mixed draw from cured::random with `seed`; the others do not depend on it.
std::vector<std::int64_t> segment_offsets(const segment_distribution& d, std::int64_t n, std::uint64_t seed);

}  // namespace cured::bench
