#include "bench/segment_offsets.hpp"

#include <algorithm>
#include <cmath>

#include "cpu/random.hpp"
#include "harness/parallel_chunks.hpp"

namespace cured::bench {

namespace {

// The random streams of the drawn distributions, apart from the inputs' (seed itself): their
// names in ASCII, as harness::normal_value names its second stream.
constexpr std::uint64_t powerlaw_stream = 0x706f7765726c6177ull;     // "powerlaw"
constexpr std::uint64_t empty_mixed_stream = 0x656d7074796d6978ull;  // "emptymix"

/// count + 1 offsets, offsets[i] = at(i), over the host's cores.
template <class At>
std::vector<std::int64_t> offsets_of(std::int64_t count, At at) {
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(count + 1));
  harness::parallel_chunks<int>(count + 1, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) offsets[std::size_t(i)] = at(i);
    return 0;
  });
  return offsets;
}

/// Segments of length(i) for i = 0, 1, ... until they cover n, the last one clipped.
template <class Length>
std::vector<std::int64_t> drawn_offsets(std::int64_t n, std::int64_t mean_length, Length length) {
  std::vector<std::int64_t> offsets;
  offsets.reserve(std::size_t(n / mean_length + 16));
  offsets.push_back(0);
  std::int64_t at = 0;
  for (std::uint64_t i = 0; at < n; ++i) {
    at += std::min(length(i), n - at);
    offsets.push_back(at);
  }
  return offsets;
}

}  // namespace

std::string distribution_text(const segment_distribution& d) {
  switch (d.k) {
    case segment_distribution::kind::uniform: return "uniform:" + std::to_string(d.length);
    case segment_distribution::kind::powerlaw: return "powerlaw";
    case segment_distribution::kind::onebig: return "onebig";
    case segment_distribution::kind::empty_mixed: return "empty-mixed";
  }
  return "";
}

std::vector<std::int64_t> segment_offsets(const segment_distribution& d, std::int64_t n, std::uint64_t seed) {
  if (n == 0) return {0};
  switch (d.k) {
    case segment_distribution::kind::uniform: {
      const std::int64_t length = d.length, count = (n + length - 1) / length;
      return offsets_of(count, [&](std::int64_t i) { return std::min(i * length, n); });
    }
    case segment_distribution::kind::powerlaw: {
      // The mean of floor(2^(20 u)) is about (2^20 - 1) / (20 ln 2), some 75,000.
      return drawn_offsets(n, 65536, [&](std::uint64_t i) {
        const double u = random::unit(seed ^ powerlaw_stream, i);
        return std::int64_t(std::exp2(double(powerlaw_log2_max) * u));
      });
    }
    case segment_distribution::kind::onebig: {
      constexpr std::int64_t small = onebig_small_length;
      const std::int64_t big = n / 2;
      const std::int64_t before = (n - big) / 2 / small * small, after = n - big - before;
      const std::int64_t small_before = before / small, small_after = (after + small - 1) / small;
      return offsets_of(small_before + 1 + small_after, [&](std::int64_t i) {
        if (i <= small_before) return i * small;
        return before + big + std::min((i - small_before - 1) * small, after);
      });
    }
    case segment_distribution::kind::empty_mixed: {
      return drawn_offsets(n, empty_mixed_max_length / 3, [&](std::uint64_t i) {
        const std::uint64_t b = random::bits(seed ^ empty_mixed_stream, i);
        return b % 3 == 0 ? std::int64_t(0) : 1 + std::int64_t((b >> 32) % std::uint64_t(empty_mixed_max_length));
      });
    }
  }
  return {0};
}

}  // namespace cured::bench
