// The segmented reductions (cured/segments.cuh) against references written here from the
// definitions, one segment at a time: every op on float, double, int32 and half; lengths
// around the warp, the chunk and the block's range; uniform, power-law, one-big and
// empty-mixed distributions; 2^26 segments of 1..4; a segment above 2^31 elements; offsets
// that do not start at 0; misaligned values; strided outputs; NaN and tie rules per segment;
// determinism, graph capture, and offsets that decrease or leave [0, n] reported by the status
// word and by the blocking forms; the begin and end pair form, with gaps and without. Every
// test skips without a GPU but the message's.
// CURED_TEST_MAX_N (the sanitizer runs) drops the cases above that many values.

#include <gtest/gtest.h>

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/random.hpp"
#include "cpu/reference.hpp"
#include "cured/cured.cuh"
#include "tests/support/elements.cuh"
#include "tests/support/gpu.cuh"

namespace {

using cured::index_t;
using cured::test::device_buffer;
using cured::test::from_double;
using cured::test::is_half;
using cured::test::same_bits;
using cured::test::to_double;
using offsets_t = std::vector<std::int64_t>;

template <class T>
bool is_nan(const T& x) {
  if constexpr (std::is_integral_v<T>) return false;
  else return std::isnan(to_double(x));
}

bool fits(std::int64_t values) { return values <= cured::test::max_test_n(); }

// ---- inputs -----------------------------------------------------------------------------------

/// Offsets of segments of the given lengths, the first at `first`.
offsets_t offsets_of(const std::vector<std::int64_t>& lengths, std::int64_t first = 0) {
  offsets_t o{first};
  for (std::int64_t l : lengths) o.push_back(o.back() + l);
  return o;
}

/// The distributions of the benchmark, drawn here for n values.
offsets_t uniform_offsets(std::int64_t n, std::int64_t length) {
  return offsets_of(std::vector<std::int64_t>(n / length, length));
}

offsets_t powerlaw_offsets(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> lengths;
  std::int64_t total = 0;
  for (std::uint64_t i = 0; total < n; ++i) {
    // P(length >= L) ~ 1 / L over 1..2^20.
    const double u = cured::random::unit(seed, i);
    const std::int64_t l = std::min<std::int64_t>(std::int64_t(std::pow(2.0, 20 * u)), n - total);
    lengths.push_back(l);
    total += l;
  }
  return offsets_of(lengths);
}

offsets_t onebig_offsets(std::int64_t n, std::int64_t tiny) {
  std::vector<std::int64_t> lengths;
  const std::int64_t half = n / 2, count = (n - half) / tiny;
  for (std::int64_t i = 0; i < count / 2; ++i) lengths.push_back(tiny);
  lengths.push_back(half);
  for (std::int64_t i = count / 2; i < count; ++i) lengths.push_back(tiny);
  lengths.back() += n - half - count * tiny;
  return offsets_of(lengths);
}

offsets_t empty_mixed_offsets(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> lengths;
  std::int64_t total = 0;
  for (std::uint64_t i = 0; total < n; ++i) {
    const std::uint64_t b = cured::random::bits(seed, i);
    const std::int64_t l = b % 3 == 0 ? 0 : std::min<std::int64_t>(1 + std::int64_t((b >> 8) % 200), n - total);
    lengths.push_back(l);
    total += l;
  }
  return offsets_of(lengths);
}

/// Small nonzero integers (sums exact in any order, many ties), with a few NaNs and infinities
/// (integers: the extremes) when `specials`.
template <class T>
std::vector<T> values_of(std::int64_t n, std::uint64_t seed, bool specials) {
  std::vector<T> v(n);
  for (std::int64_t i = 0; i < n; ++i) {
    v[i] = from_double<T>(cured::random::small_int(seed, i));
    if (!specials) continue;
    const std::uint64_t pick = cured::random::bits(seed ^ 0x5eed, i) % 997;
    if constexpr (std::is_integral_v<T>) {
      if (pick == 0) v[i] = std::numeric_limits<T>::max();
      if (pick == 1) v[i] = std::numeric_limits<T>::lowest();
    } else {
      if (pick == 0) v[i] = from_double<T>(std::numeric_limits<double>::quiet_NaN());
      if (pick == 1) v[i] = from_double<T>(INFINITY);
      if (pick == 2) v[i] = from_double<T>(-INFINITY);
    }
  }
  return v;
}

template <class T>
device_buffer<T> to_device(const std::vector<T>& h) {
  device_buffer<T> d(std::max<std::size_t>(h.size(), 1));
  if (!h.empty()) CURED_CHECK(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
std::vector<T> to_host(const T* d, std::size_t n) {
  std::vector<T> h(n);
  if (n) CURED_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// ---- the references ---------------------------------------------------------------------------

template <class T>
using sum_t = cured::accumulator_t<T>;

/// The sum of small integers (exact), in the accumulator's type; NaN/inf rules of IEEE.
template <class T>
sum_t<T> reference_sum(const T* x, std::int64_t len) {
  if constexpr (std::is_integral_v<T>) {
    std::int64_t s = 0;
    for (std::int64_t i = 0; i < len; ++i) s += x[i];
    return s;
  } else {
    double s = 0;
    for (std::int64_t i = 0; i < len; ++i) s += to_double(x[i]);
    return sum_t<T>(s);
  }
}

/// First index of the extreme value, the first NaN's when there is one, -1 when empty.
template <bool Max, class T>
index_t reference_arg(const T* x, std::int64_t len) {
  index_t best = -1;
  for (std::int64_t i = 0; i < len; ++i) {
    if (best >= 0 && is_nan(x[best])) break;
    const double a = to_double(x[i]);
    if (best < 0 || is_nan(x[i]) || (Max ? to_double(x[best]) < a : a < to_double(x[best]))) best = i;
  }
  return best;
}

/// min/max: NaN if any, else the extreme, the identity when empty.
template <bool Max, class T>
T reference_extreme(const T* x, std::int64_t len) {
  if (len == 0) return Max ? cured::maximum::identity<T>() : cured::minimum::identity<T>();
  return x[reference_arg<Max>(x, len)];
}

template <class T>
cured::exact_result_t<T> reference_exact(const T* x, std::int64_t len) {
  if constexpr (std::is_same_v<T, double>) {
    return cured::cpu::exact_sum(std::span<const double>(x, std::size_t(len)));
  } else {
    std::vector<float> f(len);
    for (std::int64_t i = 0; i < len; ++i) f[i] = float(to_double(x[i]));
    return cured::cpu::exact_sum(std::span<const float>(f));
  }
}

// ---- the checks -------------------------------------------------------------------------------

/// Every op the type has, on the segments of `h` given by `off`, against the references; `what`
/// names the case in failures. Values at data + shift (a misalignment). With `ends`, the pair
/// form: segment s is [off[s], (*ends)[s]).
template <class T>
void check_ops(const std::vector<T>& h, const offsets_t& off, const std::string& what, int shift = 0,
               const offsets_t* ends = nullptr) {
  const std::int64_t n = std::int64_t(h.size()), count = std::int64_t(off.size()) - (ends ? 0 : 1);
  const auto begin_of = [&](std::int64_t s) { return off[s]; };
  const auto length_of = [&](std::int64_t s) { return (ends ? (*ends)[s] : off[s + 1]) - off[s]; };
  std::vector<T> shifted(h.size() + shift);
  std::copy(h.begin(), h.end(), shifted.begin() + shift);
  const device_buffer<T> d = to_device(shifted);
  const T* x = d.data() + shift;
  const device_buffer<std::int64_t> d_off = to_device(off), d_ends = to_device(ends ? *ends : offsets_t{});
  const cured::segments seg =
      ends ? cured::segments::pairs(d_off.data(), d_ends.data(), count) : cured::segments{d_off.data(), count};
  cured::workspace ws;
  device_buffer<sum_t<T>> sums(count + 1);
  device_buffer<T> extremes(count + 1);
  device_buffer<index_t> indices(count + 1);
  unsigned* status = nullptr;
  CURED_CHECK(cudaMalloc(&status, sizeof(unsigned)));
  const auto expect_ok = [&](const char* op) {
    unsigned s = 0;
    CURED_CHECK(cudaMemcpy(&s, status, sizeof s, cudaMemcpyDeviceToHost));
    EXPECT_EQ(s, 0u) << what << ": " << op << " reported bad offsets";
  };
  std::int64_t bad = 0;
  const auto report = [&](const char* op, std::int64_t s, const std::string& got, const std::string& want) {
    if (++bad <= 5)
      ADD_FAILURE() << what << ": " << op << " of segment " << s << " (length " << length_of(s) << "): got "
                    << got << ", want " << want;
  };

  cured::sum_async(x, n, seg, sums.data(), ws, nullptr, status);
  expect_ok("sum");
  {
    const auto got = to_host(sums.data(), count);
    for (std::int64_t s = 0; s < count; ++s) {
      const sum_t<T> want = reference_sum(h.data() + begin_of(s), length_of(s));
      if (!same_bits(got[s], want) && !(is_nan(got[s]) && is_nan(want)))
        report("sum", s, std::to_string(double(got[s])), std::to_string(double(want)));
    }
  }
  const auto check_extreme = [&](auto max_constant) {
    constexpr bool Max = decltype(max_constant)::value;
    if constexpr (Max) cured::max_async(x, n, seg, extremes.data(), ws, nullptr, status);
    else cured::min_async(x, n, seg, extremes.data(), ws, nullptr, status);
    expect_ok(Max ? "max" : "min");
    const auto got = to_host(extremes.data(), count);
    for (std::int64_t s = 0; s < count; ++s) {
      const T want = reference_extreme<Max>(h.data() + begin_of(s), length_of(s));
      if (!same_bits(got[s], want) && !(is_nan(got[s]) && is_nan(want)))
        report(Max ? "max" : "min", s, std::to_string(to_double(got[s])), std::to_string(to_double(want)));
    }
  };
  check_extreme(std::false_type{});
  check_extreme(std::true_type{});
  const auto check_arg = [&](auto max_constant) {
    constexpr bool Max = decltype(max_constant)::value;
    if constexpr (Max) cured::argmax_async(x, n, seg, indices.data(), extremes.data(), ws, nullptr, status);
    else cured::argmin_async(x, n, seg, indices.data(), ws, nullptr, status);
    expect_ok(Max ? "argmax" : "argmin");
    const auto got = to_host(indices.data(), count);
    const auto got_values = to_host(extremes.data(), count);
    for (std::int64_t s = 0; s < count; ++s) {
      const index_t want = reference_arg<Max>(h.data() + begin_of(s), length_of(s));
      if (got[s] != want) report(Max ? "argmax" : "argmin", s, std::to_string(got[s]), std::to_string(want));
      else if (Max && want >= 0 && !same_bits(got_values[s], h[begin_of(s) + want]))
        report("argmax's value", s, std::to_string(to_double(got_values[s])),
               std::to_string(to_double(h[begin_of(s) + want])));
    }
  };
  check_arg(std::false_type{});
  check_arg(std::true_type{});
  if constexpr (!std::is_integral_v<T>) {
    using E = cured::exact_result_t<T>;
    device_buffer<E> exact(count + 1);
    cured::exact_sum_async(x, n, seg, exact.data(), ws, nullptr, status);
    expect_ok("exact_sum");
    const auto got = to_host(exact.data(), count);
    for (std::int64_t s = 0; s < count; ++s) {
      const E want = reference_exact(h.data() + begin_of(s), length_of(s));
      if (!same_bits(got[s], want) && !(is_nan(got[s]) && is_nan(want)))
        report("exact_sum", s, std::to_string(double(got[s])), std::to_string(double(want)));
    }
  }
  CURED_CHECK(cudaFree(status));
}

/// Real values for the exact sums: uniform in [-1, 1) scaled by 2^(+-40) here and there, so
/// that segments cancel and fall near rounding boundaries.
template <class T>
std::vector<T> real_values(std::int64_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t b = cured::random::bits(seed, i);
    double x = 2 * cured::random::unit(seed ^ 0xabc, i) - 1;
    if (b % 7 == 0) x = std::ldexp(x, 40);
    if (b % 11 == 0) x = -to_double(v[i > 0 ? i - 1 : 0]);
    v[i] = from_double<T>(x);
  }
  return v;
}

template <class T>
void check_exact(const std::vector<T>& h, const offsets_t& off, const std::string& what) {
  using E = cured::exact_result_t<T>;
  const std::int64_t n = std::int64_t(h.size()), count = std::int64_t(off.size()) - 1;
  const device_buffer<T> d = to_device(h);
  const device_buffer<std::int64_t> d_off = to_device(off);
  device_buffer<E> out(count + 1);
  cured::exact_sum(d.data(), n, cured::segments{d_off.data(), count}, out.data());
  const auto got = to_host(out.data(), count);
  std::int64_t bad = 0;
  for (std::int64_t s = 0; s < count; ++s) {
    const E want = reference_exact(h.data() + off[s], off[s + 1] - off[s]);
    if (!same_bits(got[s], want) && ++bad <= 5)
      ADD_FAILURE() << what << ": exact_sum of segment " << s << ": got " << got[s] << ", want " << want;
  }
}

template <class T>
class Segments : public ::testing::Test {};
using element_types = ::testing::Types<float, double, std::int32_t, __half>;
TYPED_TEST_SUITE(Segments, element_types);

// ---- lengths and distributions ----------------------------------------------------------------

TYPED_TEST(Segments, EdgeLengths) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  // Around a warp, a chunk (2048 items) and a run; empty segments among them, first and last.
  std::vector<std::int64_t> lengths = {0, 1, 2, 31, 32, 33, 0, 0, 255, 256, 257, 2047, 2048, 2049,
                                       4095, 4096, 4097, 1, 0, 65535, 65536, 65537, 3, 0};
  std::mt19937_64 rng(7);
  for (int round = 0; round < 3; ++round) {
    std::shuffle(lengths.begin(), lengths.end(), rng);
    const offsets_t off = offsets_of(lengths);
    const auto h = values_of<T>(off.back(), 100 + round, true);
    check_ops<T>(h, off, "edge lengths, round " + std::to_string(round));
  }
}

TYPED_TEST(Segments, Distributions) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const std::int64_t n = fits(1 << 22) ? (1 << 22) : 5000;
  for (std::int64_t length : {1, 4, 16, 64, 256, 1024, 4096, 65536, 1 << 22}) {
    if (length > n) continue;
    check_ops<T>(values_of<T>(n, length, true), uniform_offsets(n, length), "uniform " + std::to_string(length));
  }
  check_ops<T>(values_of<T>(n, 11, true), powerlaw_offsets(n, 11), "powerlaw");
  check_ops<T>(values_of<T>(n, 12, true), onebig_offsets(n, 3), "onebig");
  check_ops<T>(values_of<T>(n, 13, true), empty_mixed_offsets(n, 13), "empty-mixed");
}

TYPED_TEST(Segments, RunsOfShortSegments) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  // Runs of 1 to 3000 segments of 0 to `most` values (a thread each when 64 or more follow one
  // another; windows of a mean above 4 by groups of lanes), each run ended by one of most + 1, 300
  // or 9000 values; misaligned values in round 1; in round 2 from most / 2 values (a mean above 8
  // where most is 16).
  constexpr std::int64_t most = cured::detail::segment_policy::short_max<T>;
  const std::int64_t n = fits(1 << 21) ? (1 << 21) : 5000;
  for (int round = 0; round < 3; ++round) {
    const std::int64_t least = round == 2 ? most / 2 : 0;
    std::vector<std::int64_t> lengths;
    std::int64_t total = 0;
    for (std::uint64_t i = 0; total < n; ++i) {
      const std::uint64_t b = cured::random::bits(40 + round, i);
      const std::int64_t run = 1 + std::int64_t(b % 3000);
      const std::int64_t longer = b >> 20 & 1 ? most + 1 : b >> 21 & 1 ? 300 : 9000;
      for (std::int64_t s = 0; s < run && total < n; ++s) {
        const auto drawn = least + std::int64_t(cured::random::bits(50 + round, total) % (most + 1 - least));
        const auto l = std::min<std::int64_t>(drawn, n - total);
        lengths.push_back(l);
        total += l;
      }
      lengths.push_back(std::min(longer, n - total));
      total += lengths.back();
    }
    const offsets_t off = offsets_of(lengths);
    check_ops<T>(values_of<T>(n, 60 + round, true), off, "runs of short segments, round " + std::to_string(round),
                 round % 2);
    // The same as begin and end pairs, each without its first value: gaps of 0 and 1 among them.
    offsets_t begins(lengths.size()), ends(lengths.size());
    for (std::size_t s = 0; s < lengths.size(); ++s) {
      begins[s] = off[s] + (lengths[s] > 0 ? 1 : 0);
      ends[s] = off[s + 1];
    }
    check_ops<T>(values_of<T>(n, 70 + round, true), begins, "runs of short pairs, round " + std::to_string(round),
                 round, &ends);
  }
}

TYPED_TEST(Segments, MediumSegmentsInGroups) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  // Runs of 1 to 600 segments from group_min values up, their lengths from one of six ranges (so
  // that the windows take 2 to 32 lanes a segment), now and then one shorter between them;
  // misaligned values in round 1, begin and end pairs with gaps of 0 to 40 values in round 2.
  constexpr std::int64_t low = cured::detail::segment_policy::group_min<T>;
  const std::int64_t n = fits(1 << 22) ? (1 << 22) : 5000;
  const std::int64_t ranges[][2] = {{low, 48}, {48, 100}, {100, 200}, {200, 400}, {400, 1000}, {1000, 8191}};
  for (int round = 0; round < 3; ++round) {
    std::vector<std::int64_t> lengths;
    std::int64_t total = 0;
    for (std::uint64_t i = 0; total < n; ++i) {
      const std::uint64_t b = cured::random::bits(80 + round, i);
      const auto& range = ranges[b % 6];
      const std::int64_t run = 1 + std::int64_t(b >> 8 & 0xffff) % 600;
      for (std::int64_t s = 0; s < run && total < n; ++s) {
        const auto drawn = range[0] + std::int64_t(cured::random::bits(90 + round, total) % (range[1] - range[0]));
        lengths.push_back(std::min(drawn, n - total));
        total += lengths.back();
      }
      if (b >> 30 & 1) {
        lengths.push_back(std::min(std::int64_t(b >> 32) % low, n - total));
        total += lengths.back();
      }
    }
    const offsets_t off = offsets_of(lengths);
    const std::string what = "medium segments, round " + std::to_string(round);
    if (round < 2) {
      check_ops<T>(values_of<T>(n, 100 + round, true), off, what, round);
      continue;
    }
    offsets_t begins(lengths.size()), ends(lengths.size());
    for (std::size_t s = 0; s < lengths.size(); ++s) {
      begins[s] = off[s] + std::min<std::int64_t>(lengths[s], std::int64_t(cured::random::bits(110, s) % 41));
      ends[s] = off[s + 1];
    }
    check_ops<T>(values_of<T>(n, 100 + round, true), begins, what, 0, &ends);
  }
}

TYPED_TEST(Segments, RandomOffsetsNotFromZero) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  std::mt19937_64 rng(21);
  for (int round = 0; round < 4; ++round) {
    const std::int64_t n = std::int64_t(rng() % (fits(300000) ? 300000 : 4000)) + 1;
    const std::int64_t count = std::int64_t(rng() % 2000) + 1;
    offsets_t off(count + 1);
    for (auto& o : off) o = std::int64_t(rng() % std::uint64_t(n + 1));
    std::sort(off.begin(), off.end());  // [off[0], off[count]) inside [0, n), rest unused
    const auto h = values_of<T>(n, 300 + round, true);
    check_ops<T>(h, off, "random offsets, round " + std::to_string(round), round % 4);
  }
}

TYPED_TEST(Segments, AllEmpty) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  check_ops<T>(values_of<T>(100, 1, false), offsets_t(5001, 37), "5000 empty segments at 37");
  check_ops<T>(std::vector<T>{}, offsets_t(3, 0), "3 empty segments of no values");
}

TYPED_TEST(Segments, MisalignedValues) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const std::int64_t n = fits(200000) ? 200000 : 4000;
  for (int shift : {1, 2, 3})
    check_ops<T>(values_of<T>(n, 40 + shift, true), uniform_offsets(n, 1000), "misaligned by " + std::to_string(shift),
                 shift);
}

// ---- every walk on every distribution ------------------------------------------------------------

/// Sums, min and max of the segments of `h` given by `off` (values at data + shift) through the
/// walk and grid of `options`, against the references.
template <class T>
void check_walk(const std::vector<T>& h, const offsets_t& off, const std::string& what, int shift,
                const cured::detail::segment_options& options) {
  using cured::thread::identity_transform;
  using cured::thread::transform_load;
  const std::int64_t n = std::int64_t(h.size()), count = std::int64_t(off.size()) - 1;
  std::vector<T> shifted(h.size() + shift);
  std::copy(h.begin(), h.end(), shifted.begin() + shift);
  const device_buffer<T> d = to_device(shifted);
  const T* x = d.data() + shift;
  const device_buffer<std::int64_t> d_off = to_device(off);
  const cured::segments seg{d_off.data(), count};
  cured::workspace ws;
  device_buffer<sum_t<T>> sums(count + 1);
  device_buffer<T> extremes(count + 1);
  device_buffer<unsigned> status(1);
  std::int64_t bad = 0;
  const auto check = [&](const char* op, const auto* d_got, auto want_of) {
    unsigned st = 1;
    CURED_CHECK(cudaMemcpy(&st, status.data(), sizeof st, cudaMemcpyDeviceToHost));
    EXPECT_EQ(st, 0u) << what << ": " << op << " reported bad offsets";
    const auto got = to_host(d_got, count);
    for (std::int64_t s = 0; s < count; ++s) {
      const auto want = want_of(h.data() + off[s], off[s + 1] - off[s]);
      if (!same_bits(got[s], want) && !(is_nan(got[s]) && is_nan(want)) && ++bad <= 5)
        ADD_FAILURE() << what << ": " << op << " of segment " << s << " (length " << off[s + 1] - off[s]
                      << "): got " << to_double(got[s]) << ", want " << to_double(want);
    }
  };
  cured::detail::segment_plain(x, n, seg, sums.data(), transform_load<sum_t<T>, identity_transform>{}, cured::plus{},
                               sum_t<T>(0), ws, nullptr, status.data(), options);
  check("sum", sums.data(), [](const T* v, std::int64_t len) { return reference_sum(v, len); });
  cured::detail::segment_plain(x, n, seg, extremes.data(), transform_load<T, identity_transform>{},
                               cured::minimum{}, cured::minimum::identity<T>(), ws, nullptr, status.data(), options);
  check("min", extremes.data(), [](const T* v, std::int64_t len) { return reference_extreme<false>(v, len); });
  cured::detail::segment_plain(x, n, seg, extremes.data(), transform_load<T, identity_transform>{},
                               cured::maximum{}, cured::maximum::identity<T>(), ws, nullptr, status.data(), options);
  check("max", extremes.data(), [](const T* v, std::int64_t len) { return reference_extreme<true>(v, len); });
}

TYPED_TEST(Segments, EveryWalkAndGrid) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using walk = cured::device::segment_walk;
  // Each walk on lengths it is not launched for by the mean too, on its own grid and on grids of
  // 7 and 61 blocks (ranges that cut windows, chunks and segments anywhere).
  const std::int64_t n = fits(300007) ? 300007 : 4999;
  std::vector<std::pair<std::string, offsets_t>> cases;
  for (std::int64_t length : {1, 3, 4, 5, 16, 17, 64, 255, 256, 1000, 4096, 4097, 20000})
    cases.emplace_back("uniform " + std::to_string(length), uniform_offsets(n, length));
  cases.emplace_back("powerlaw", powerlaw_offsets(n, 31));
  cases.emplace_back("onebig", onebig_offsets(n, 3));
  cases.emplace_back("empty-mixed", empty_mixed_offsets(n, 32));
  {
    std::vector<std::int64_t> lengths = {0, 1, 2, 31, 32, 33, 0, 0, 255, 256, 257, 2047, 2048, 2049,
                                         4095, 4096, 4097, 1, 0, 65535, 65536, 65537, 3, 0};
    std::shuffle(lengths.begin(), lengths.end(), std::mt19937_64(33));
    offsets_t edges = offsets_of(lengths);
    if (edges.back() <= n) cases.emplace_back("edge lengths", edges);
    offsets_t random(1001);
    std::mt19937_64 rng(34);
    for (auto& o : random) o = std::int64_t(rng() % std::uint64_t(n + 1));
    std::sort(random.begin(), random.end());
    cases.emplace_back("random offsets", random);
    std::vector<std::int64_t> runs;  // runs of empty segments between short and long ones
    for (std::int64_t total = 0, i = 0; total < n; ++i) {
      const std::uint64_t b = cured::random::bits(35, i);
      const std::int64_t l = b % 5 == 0 ? 0 : b % 5 == 1 ? std::int64_t(b >> 8) % 9000 : std::int64_t(b >> 8) % 9;
      const std::int64_t empties = b % 7 == 0 ? std::int64_t(b >> 40) % 5000 : 0;
      for (std::int64_t e = 0; e < empties; ++e) runs.push_back(0);
      runs.push_back(std::min(l, n - total));
      total += runs.back();
    }
    cases.emplace_back("runs of empty segments", offsets_of(runs));
  }
  for (const walk w : {walk::grouped, walk::mixed, walk::chunks}) {
    for (const std::int64_t grid : {std::int64_t(0), std::int64_t(7), std::int64_t(61)}) {
      const cured::detail::segment_options options{false, w, grid};
      for (std::size_t c = 0; c < cases.size(); ++c) {
        const int shift = int(c % 3);
        check_walk<T>(values_of<T>(n, 500 + c, true), cases[c].second,
                      cases[c].first + ", walk " + std::to_string(int(w)) + ", grid " + std::to_string(grid) +
                          ", shift " + std::to_string(shift),
                      shift, options);
      }
    }
  }
}

// ---- the pair form ------------------------------------------------------------------------------

/// Begin and end pairs: pair s of lengths[s] values after gaps[s % gaps.size()] values; n, the
/// values' count, with 7 after the last pair.
struct pairs_t {
  offsets_t begins, ends;
  std::int64_t n = 0;
};

pairs_t pairs_of(const std::vector<std::int64_t>& lengths, const std::vector<std::int64_t>& gaps) {
  pairs_t p;
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    p.n += gaps[s % gaps.size()];
    p.begins.push_back(p.n);
    p.n += lengths[s];
    p.ends.push_back(p.n);
  }
  p.n += 7;
  return p;
}

TYPED_TEST(Segments, Pairs) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  // Lengths around a warp, a chunk and a run, gaps from none to long enough to go unread
  // (256), misaligned values.
  std::vector<std::int64_t> lengths = {0, 1, 2, 31, 33, 255, 256, 300, 2049, 4097, 9000, 70000, 3, 0, 5, 1, 0};
  std::vector<std::int64_t> gaps = {0, 1, 5, 100, 255, 256, 257, 1000, 10000, 0, 0, 3};
  std::mt19937_64 rng(17);
  for (int round = 0; round < 3; ++round) {
    std::shuffle(lengths.begin(), lengths.end(), rng);
    std::shuffle(gaps.begin(), gaps.end(), rng);
    const pairs_t p = pairs_of(lengths, gaps);
    if (!fits(p.n)) continue;
    check_ops<T>(values_of<T>(p.n, 500 + round, true), p.begins, "pairs, round " + std::to_string(round), round,
                 &p.ends);
  }
  // Many pairs: 0..L values at the start of slots of L, and slots filled (ends apart from begins).
  const std::int64_t n = fits(1 << 21) ? (1 << 21) : 5000;
  for (std::int64_t slot : {1, 4, 16, 300, 5000}) {
    pairs_t padded, filled;
    for (std::int64_t s = 0; s < n / slot; ++s) {
      const auto length = std::int64_t(cured::random::bits(std::uint64_t(slot), std::uint64_t(s)) % (slot + 1));
      padded.begins.push_back(s * slot);
      padded.ends.push_back(s * slot + length);
      filled.begins.push_back(s * slot);
      filled.ends.push_back((s + 1) * slot);
    }
    const auto h = values_of<T>(n, 600 + slot, true);
    check_ops<T>(h, padded.begins, "pairs in slots of " + std::to_string(slot), 0, &padded.ends);
    check_ops<T>(h, filled.begins, "pairs filling slots of " + std::to_string(slot), 0, &filled.ends);
  }
}

TEST(Segments, PairsOfOneArray) {
  CURED_REQUIRE_GPU();
  // ends == begins + 1 is the form of one array; both give the same bits.
  const std::int64_t n = 100000;
  const auto d = to_device(values_of<float>(n, 2, true));
  const auto d_off = to_device(powerlaw_offsets(n, 5));
  const std::int64_t count = std::int64_t(powerlaw_offsets(n, 5).size()) - 1;
  device_buffer<float> a(count), b(count);
  cured::sum(d.data(), n, cured::segments{d_off.data(), count}, a.data());
  cured::sum(d.data(), n, cured::segments::pairs(d_off.data(), d_off.data() + 1, count), b.data());
  const auto ha = to_host(a.data(), count), hb = to_host(b.data(), count);
  EXPECT_EQ(std::memcmp(ha.data(), hb.data(), count * sizeof(float)), 0);
}

TEST(Segments, BadPairsAreReported) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = 1 << 20;
  const auto d = to_device(values_of<float>(n, 1, false));
  cured::workspace ws;
  device_buffer<float> out(1 << 18);  // (room for n / 8 indices)
  device_buffer<unsigned> status(1);
  const auto status_of = [&](const offsets_t& begins, const offsets_t& ends) {
    const auto d_b = to_device(begins), d_e = to_device(ends);
    const auto seg = cured::segments::pairs(d_b.data(), d_e.data(), std::int64_t(begins.size()));
    cured::sum_async(d.data(), n, seg, out.data(), ws, nullptr, status.data());
    unsigned s = 0;
    CURED_CHECK(cudaMemcpy(&s, status.data(), sizeof s, cudaMemcpyDeviceToHost));
    if (s) EXPECT_THROW(cured::argmax(d.data(), n, seg, reinterpret_cast<index_t*>(out.data())), cured::error);
    return s;
  };
  EXPECT_EQ(status_of({0, 10}, {5, 20}), 0u);
  EXPECT_EQ(status_of({0, 10}, {12, 20}), unsigned(cured::offsets_decrease));  // pairs overlap
  EXPECT_EQ(status_of({0, 10, 30}, {5, 8, 40}), unsigned(cured::offsets_decrease));  // an end before its begin
  EXPECT_EQ(status_of({-1, 10}, {5, 20}), unsigned(cured::offsets_outside));
  EXPECT_EQ(status_of({0, 10}, {5, n + 1}), unsigned(cured::offsets_outside));
  // Among many short pairs and among long ones with long gaps, an overlap and a reversed pair.
  for (const std::int64_t slot : {8, 20000}) {
    const std::int64_t count = n / slot;
    offsets_t begins(count), ends(count);
    for (std::int64_t s = 0; s < count; ++s) {
      begins[s] = s * slot + 1;
      ends[s] = s * slot + slot / 2;
    }
    for (const std::int64_t at : {std::int64_t(0), count / 2, count - 2}) {
      offsets_t e = ends;
      e[at] = begins[at + 1] + 1;
      EXPECT_EQ(status_of(begins, e), unsigned(cured::offsets_decrease)) << "slot " << slot << ", overlap at " << at;
      e = ends;
      e[at + 1] = begins[at + 1] - 1;
      EXPECT_EQ(status_of(begins, e), unsigned(cured::offsets_decrease)) << "slot " << slot << ", reversed at " << at;
    }
  }
  // Bad arguments.
  const auto d_b = to_device(offsets_t{0, 10}), d_e = to_device(offsets_t{5, 20});
  const offsets_t host_ends{5, 20};
  EXPECT_THROW(cured::segments::pairs(d_b.data(), nullptr, 2), cured::error);
  EXPECT_THROW(cured::sum_async(d.data(), n, cured::segments::pairs(d_b.data(), host_ends.data(), 2), out.data(), ws),
               cured::error);
  device_buffer<std::int64_t> ends_and_out(4);
  CURED_CHECK(cudaMemcpy(ends_and_out.data(), host_ends.data(), 16, cudaMemcpyHostToDevice));
  EXPECT_THROW(cured::sum_async(d.data(), n, cured::segments::pairs(d_b.data(), ends_and_out.data(), 2),
                                reinterpret_cast<float*>(ends_and_out.data() + 1), ws),
               cured::error);  // the output overlaps the ends
}

TEST(Segments, ManyTinySegments) {
  CURED_REQUIRE_GPU();
  // 2^26 segments of 1..4 int32 values (2^26 segments of length 4: CUB's slowest case).
  const std::int64_t count = std::int64_t(1) << 26;
  if (!fits(count * 4)) GTEST_SKIP() << "above CURED_TEST_MAX_N";
  std::vector<std::int64_t> lengths(count);
  for (std::int64_t s = 0; s < count; ++s) lengths[s] = 1 + std::int64_t(cured::random::bits(5, s) % 4);
  const offsets_t off = offsets_of(lengths);
  const std::int64_t n = off.back();
  std::vector<std::int32_t> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = cured::random::small_int(6, i);
  const device_buffer<std::int32_t> d = to_device(h);
  const device_buffer<std::int64_t> d_off = to_device(off);
  device_buffer<std::int64_t> sums(count);
  device_buffer<index_t> idx(count);
  const cured::segments seg{d_off.data(), count};
  cured::sum(d.data(), n, seg, sums.data());
  cured::argmax(d.data(), n, seg, idx.data());
  const auto got = to_host(sums.data(), count);
  const auto got_idx = to_host(idx.data(), count);
  std::int64_t bad = 0;
  for (std::int64_t s = 0; s < count && bad < 5; ++s) {
    const std::int64_t want = reference_sum(h.data() + off[s], lengths[s]);
    const index_t want_idx = reference_arg<true>(h.data() + off[s], lengths[s]);
    if (got[s] != want || got_idx[s] != want_idx) {
      ++bad;
      ADD_FAILURE() << "segment " << s << ": sum " << got[s] << " want " << want << ", argmax " << got_idx[s]
                    << " want " << want_idx;
    }
  }
}

TEST(Segments, SegmentAboveTwoToThe31) {
  CURED_REQUIRE_GPU();
  const std::int64_t long_length = (std::int64_t(1) << 31) + 7, n = long_length + 100;
  if (!fits(n)) GTEST_SKIP() << "above CURED_TEST_MAX_N";
  if (cured::test::free_device_bytes() < std::size_t(n) * 4 + (std::size_t(1) << 30)) GTEST_SKIP() << "device memory";
  device_buffer<std::int32_t> d(n);
  CURED_CHECK(cudaMemset(d.data(), 0x01, std::size_t(n) * 4));  // every value 0x01010101
  const std::int64_t planted = 50 + long_length - 3;                 // the maximum, near the end
  const std::int32_t big = 0x7f000000;
  CURED_CHECK(cudaMemcpy(d.data() + planted, &big, 4, cudaMemcpyHostToDevice));
  const offsets_t off = {0, 50, 50 + long_length, n};
  const device_buffer<std::int64_t> d_off = to_device(off);
  device_buffer<std::int64_t> sums(3);
  device_buffer<index_t> idx(3);
  const cured::segments seg{d_off.data(), 3};
  cured::sum(d.data(), n, seg, sums.data());
  cured::argmax(d.data(), n, seg, idx.data());
  const std::int64_t one = 0x01010101;
  const auto got = to_host(sums.data(), 3);
  EXPECT_EQ(got[0], 50 * one);
  EXPECT_EQ(got[1], (long_length - 1) * one + big);
  EXPECT_EQ(got[2], 50 * one);
  cured::workspace ws;
  for (const auto w : {cured::device::segment_walk::grouped, cured::device::segment_walk::mixed}) {
    const cured::detail::segment_options options{false, w};  // (the mean takes the chunks' walk)
    cured::detail::segment_plain(d.data(), n, seg, sums.data(),
                                 cured::thread::transform_load<std::int64_t, cured::thread::identity_transform>{},
                                 cured::plus{}, std::int64_t(0), ws, nullptr, nullptr, options);
    EXPECT_EQ(to_host(sums.data(), 3), got) << "walk " << int(w);
  }
  const auto got_idx = to_host(idx.data(), 3);
  EXPECT_EQ(got_idx[0], 0);
  EXPECT_EQ(got_idx[1], long_length - 3);
  EXPECT_EQ(got_idx[2], 0);
}

// ---- exact sums ---------------------------------------------------------------------------------

TEST(Segments, ExactSumsOfRealValues) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = fits(1 << 21) ? (1 << 21) : 5000;
  for (std::int64_t length : {1, 3, 100, 5000, 300000}) {
    if (length > n) continue;
    check_exact<float>(real_values<float>(n, length), uniform_offsets(n, length), "float, length " + std::to_string(length));
    check_exact<double>(real_values<double>(n, length), uniform_offsets(n, length),
                        "double, length " + std::to_string(length));
  }
  check_exact<double>(real_values<double>(n, 9), powerlaw_offsets(n, 9), "double, powerlaw");
  check_exact<__half>(real_values<__half>(n, 10), empty_mixed_offsets(n, 10), "half, empty-mixed");
}

TEST(Segments, ExactSumsOfHardSegments) {
  CURED_REQUIRE_GPU();
  // Segments the double-double pass cannot decide: a tie at 2^-80 beyond 1 + 2^-53, exact
  // cancellation to a tiny value, huge terms that cancel, and a zero of each sign.
  std::vector<double> h;
  offsets_t off{0};
  const auto segment = [&](std::vector<double> xs, int copies) {
    for (int c = 0; c < copies; ++c) {
      h.insert(h.end(), xs.begin(), xs.end());
      off.push_back(std::int64_t(h.size()));
    }
  };
  segment({1.0, 0x1p-53, 0x1p-106, -0x1p-106, 0x1p-160}, 3);
  segment({0x1p1000, 1.0, -0x1p1000, 0x1p-1000}, 2);
  segment({1e308, 1e308, -1e308, -1e308, 3.0}, 1);
  segment({-0.0, -0.0}, 1);
  segment({0.0, -0.0}, 1);
  std::vector<double> longer(70000, 0x1p-30);
  longer.push_back(0x1p40);
  longer.push_back(-0x1p40);
  segment(longer, 2);
  check_exact<double>(h, off, "hard segments");
}

// ---- user operators, strided outputs ------------------------------------------------------------

struct square {
  __host__ __device__ double operator()(float x) const { return double(x) * double(x); }
};

struct bit_or {
  template <class T>
  static constexpr T identity() {
    return T(0);
  }
  __host__ __device__ std::int32_t operator()(std::int32_t a, std::int32_t b) const { return a | b; }
};

TEST(Segments, UserOperatorsAndStridedOutputs) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = 100000;
  const offsets_t off = powerlaw_offsets(n, 3);
  const std::int64_t count = std::int64_t(off.size()) - 1;
  std::vector<float> hf(n);
  std::vector<std::int32_t> hi(n);
  for (std::int64_t i = 0; i < n; ++i) {
    hf[i] = float(cured::random::small_int(8, i));
    hi[i] = std::int32_t(cured::random::word(9, i));
  }
  const auto df = to_device(hf);
  const auto di = to_device(hi);
  const auto d_off = to_device(off);
  const cured::segments seg{d_off.data(), count};
  device_buffer<double> squares(3 * count);
  device_buffer<std::int32_t> ors(count);
  cured::transform_reduce(df.data(), n, seg, cured::view(squares.data(), {count}, {3}), square{}, cured::plus{}, 0.5);
  cured::reduce(di.data(), n, seg, ors.data(), bit_or{}, std::int32_t(0));
  const auto got_sq = to_host(squares.data(), 3 * count);
  const auto got_or = to_host(ors.data(), count);
  for (std::int64_t s = 0; s < count; ++s) {
    double want = 0.5;
    std::int32_t want_or = 0;
    for (std::int64_t i = off[s]; i < off[s + 1]; ++i) {
      want += double(hf[i]) * hf[i];
      want_or |= hi[i];
    }
    ASSERT_EQ(got_sq[3 * s], want) << "segment " << s;
    ASSERT_EQ(got_or[s], want_or) << "segment " << s;
  }
}

// ---- determinism, graphs ------------------------------------------------------------------------

TEST(Segments, DeterministicAndCapturable) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = fits(1 << 22) ? (1 << 22) : 5000;
  std::vector<float> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = float(2 * cured::random::unit(4, i) - 1);
  const auto d = to_device(h);
  const offsets_t off = powerlaw_offsets(n, 4);
  const std::int64_t count = std::int64_t(off.size()) - 1;
  const auto d_off = to_device(off);
  const cured::segments seg{d_off.data(), count};
  device_buffer<float> a(count), b(count), e(count);
  cured::workspace ws;
  cudaStream_t stream;
  CURED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cured::sum_async(d.data(), n, seg, a.data(), ws, stream);
  CURED_CHECK(cudaStreamSynchronize(stream));
  const auto first = to_host(a.data(), count);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CURED_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  cured::sum_async(d.data(), n, seg, b.data(), ws, stream);
  cured::exact_sum_async(d.data(), n, seg, e.data(), ws, stream);
  CURED_CHECK(cudaStreamEndCapture(stream, &graph));
  CURED_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    CURED_CHECK(cudaMemsetAsync(b.data(), 0, count * sizeof(float), stream));
    CURED_CHECK(cudaGraphLaunch(exec, stream));
    CURED_CHECK(cudaStreamSynchronize(stream));
    const auto again = to_host(b.data(), count);
    ASSERT_EQ(std::memcmp(first.data(), again.data(), count * sizeof(float)), 0) << "replay " << replay;
    const auto exact = to_host(e.data(), count);
    for (std::int64_t s = 0; s < count; ++s)
      ASSERT_EQ(exact[s], reference_exact(h.data() + off[s], off[s + 1] - off[s])) << "segment " << s;
  }
  CURED_CHECK(cudaGraphExecDestroy(exec));
  CURED_CHECK(cudaGraphDestroy(graph));
  CURED_CHECK(cudaStreamDestroy(stream));
}

// ---- bad offsets and arguments ------------------------------------------------------------------

TEST(Segments, BadOffsetsAreReported) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = 1 << 20;
  const auto h = values_of<float>(n, 1, false);
  const auto d = to_device(h);
  cured::workspace ws;
  device_buffer<float> out(1 << 20);
  device_buffer<unsigned> status(1);
  const auto status_of = [&](const offsets_t& off) {
    const auto d_off = to_device(off);
    const cured::segments seg{d_off.data(), std::int64_t(off.size()) - 1};
    cured::sum_async(d.data(), n, seg, out.data(), ws, nullptr, status.data());
    unsigned s = 0;
    CURED_CHECK(cudaMemcpy(&s, status.data(), sizeof s, cudaMemcpyDeviceToHost));
    unsigned fallback = 0;
    cured::max_async(d.data(), n, seg, out.data(), ws);
    CURED_CHECK(cudaMemcpy(&fallback, ws.segment_status(), sizeof fallback, cudaMemcpyDeviceToHost));
    EXPECT_EQ(s, fallback);
    for (const auto w : {cured::device::segment_walk::grouped, cured::device::segment_walk::mixed,
                         cured::device::segment_walk::chunks}) {
      const cured::detail::segment_options options{false, w};
      unsigned by_walk = 0;
      cured::detail::segment_plain(d.data(), n, seg, out.data(),
                                   cured::thread::transform_load<float, cured::thread::identity_transform>{},
                                   cured::plus{}, 0.f, ws, nullptr, status.data(), options);
      CURED_CHECK(cudaMemcpy(&by_walk, status.data(), sizeof by_walk, cudaMemcpyDeviceToHost));
      EXPECT_EQ(s, by_walk) << "walk " << int(w);
    }
    EXPECT_THROW(cured::exact_sum(d.data(), n, seg, out.data()), cured::error);
    return s;
  };
  // A decrease at the start, in the middle, at the end: of segments a thread each (4), a window's
  // groups of lanes (12), medium windows (64), mixed windows (empty-mixed).
  for (const offsets_t& off : {uniform_offsets(n, 4), uniform_offsets(n, 12), uniform_offsets(n, 64),
                               empty_mixed_offsets(n, 5)}) {
    for (std::size_t at : {std::size_t(1), off.size() / 2, off.size() - 2}) {
      offsets_t bad = off;
      bad[at] = bad[at - 1] - 1 >= 0 ? bad[at - 1] - 1 : bad[at + 1] + 1;
      EXPECT_NE(status_of(bad), 0u) << "decrease at " << at << " of " << off.size();
      bad = off;
      std::swap(bad[at], bad[at + 1]);
      bad[at] += 2;
      EXPECT_NE(status_of(bad), 0u) << "swap at " << at << " of " << off.size();
    }
  }
  EXPECT_EQ(status_of({0, 100, 50, n}), unsigned(cured::offsets_decrease));
  EXPECT_EQ(status_of({0, n / 2, n / 4, n / 2 + 10, n}), unsigned(cured::offsets_decrease));
  EXPECT_EQ(status_of({0, n, n + 1}), unsigned(cured::offsets_outside));
  EXPECT_EQ(status_of({-1, 5, n}), unsigned(cured::offsets_outside));
  EXPECT_EQ(status_of({10, 20, 5}), unsigned(cured::offsets_outside) | 0u);
  // A huge offset in the middle of a long segment: values read stay within [0, n).
  EXPECT_NE(status_of({0, std::int64_t(1) << 60, n}), 0u);
  EXPECT_NE(status_of({0, -(std::int64_t(1) << 60), n}), 0u);
  // After all that, the same workspace gives right answers.
  check_ops<float>(h, uniform_offsets(n, 1000), "after bad offsets");
  const auto d_off = to_device(uniform_offsets(n, 4));
  cured::sum_async(d.data(), n, cured::segments{d_off.data(), n / 4}, out.data(), ws);
  unsigned s = 1;
  CURED_CHECK(cudaMemcpy(&s, ws.segment_status(), sizeof s, cudaMemcpyDeviceToHost));
  EXPECT_EQ(s, 0u);
  try {
    cured::sum(d.data(), n, cured::segments{to_device(offsets_t{0, 9, 3}).data(), 2}, out.data());
    ADD_FAILURE() << "no throw";
  } catch (const cured::error& e) {
    EXPECT_NE(std::string(e.what()).find("below the one before"), std::string::npos) << e.what();
  }
}

TEST(Segments, BadArgumentsThrow) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = 1000;
  const auto d = to_device(values_of<float>(n, 1, false));
  const auto d_off = to_device(uniform_offsets(n, 10));
  const cured::segments seg{d_off.data(), 100};
  device_buffer<float> out(100);
  cured::workspace ws;
  std::vector<float> host_out(100);
  const offsets_t host_offsets = uniform_offsets(n, 10);
  EXPECT_THROW(cured::sum_async(d.data(), n, cured::segments{nullptr, 100}, out.data(), ws), cured::error);
  EXPECT_THROW(cured::sum_async(d.data(), n, cured::segments{host_offsets.data(), 100}, out.data(), ws), cured::error);
  EXPECT_THROW(cured::sum_async(d.data(), n, cured::segments{d_off.data(), -1}, out.data(), ws), cured::error);
  EXPECT_THROW(cured::sum_async(d.data(), -5, seg, out.data(), ws), cured::error);
  EXPECT_THROW(cured::sum_async(static_cast<const float*>(nullptr), n, seg, out.data(), ws), cured::error);
  EXPECT_THROW(cured::sum_async(d.data(), n, seg, host_out.data(), ws), cured::error);
  EXPECT_THROW(cured::sum_async(d.data(), n, seg, static_cast<float*>(nullptr), ws), cured::error);
  EXPECT_THROW(cured::sum_async(d.data(), n, seg, d.data() + 10, ws), cured::error);  // overlaps the values
  EXPECT_THROW(cured::sum_async(d.data(), n, seg, cured::view(out.data(), {99}), ws), cured::error);
  EXPECT_THROW(cured::sum_async(d.data(), n, seg, cured::view(out.data(), {10, 10}), ws), cured::error);
  device_buffer<index_t> idx(100);
  EXPECT_THROW(cured::argmax_async(d.data(), n, seg, idx.data(), reinterpret_cast<float*>(idx.data()), ws),
               cured::error);  // values overlap the indices
  unsigned host_status = 0;
  EXPECT_THROW(cured::sum_async(d.data(), n, seg, out.data(), ws, nullptr, &host_status), cured::error);
  // No segments: nothing to do, status 0.
  device_buffer<unsigned> status(1);
  CURED_CHECK(cudaMemset(status.data(), 0xff, sizeof(unsigned)));
  cured::sum_async(d.data(), n, cured::segments{d_off.data(), 0}, out.data(), ws, nullptr, status.data());
  unsigned s = 1;
  CURED_CHECK(cudaMemcpy(&s, status.data(), sizeof s, cudaMemcpyDeviceToHost));
  EXPECT_EQ(s, 0u);
}

}  // namespace
