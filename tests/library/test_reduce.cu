// The library's device-wide reductions: every type x op x size against host references,
// special values, alignment, graphs, streams, threads and bad input.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "cured/cured.cuh"
#include "harness/exact_answers.cuh"
#include "harness/inputs.cuh"
#include "tests/support/gpu.cuh"

namespace {

using cured::accumulator_t;
using cured::key_value;
using cured::test::device_buffer;

template <class T>
double as_double(const T& v) {
  if constexpr (cured::detail::is_half_like<T>) return double(float(v));
  else return double(v);
}

template <class T>
std::string show(const T& v) {
  if constexpr (std::is_floating_point_v<T> || cured::detail::is_half_like<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", as_double(v));
    return buf;
  } else {
    return std::to_string(v);
  }
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::vector<T> to_host(const T* d, std::int64_t n) {
  std::vector<T> h(n);
  if (n) CURED_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// Host references with the documented rules, written plainly.
template <class T>
T ref_min(const std::vector<T>& h, std::int64_t off, std::int64_t n, bool want_max) {
  T best = want_max ? cured::maximum::identity<T>() : cured::minimum::identity<T>();
  for (std::int64_t i = 0; i < n; ++i) {
    const T x = h[off + i];
    if (cured::detail::is_nan(x)) return x;
    if (want_max ? as_double(x) > as_double(best) : as_double(x) < as_double(best)) best = x;
  }
  return best;
}

template <class T>
std::int64_t ref_arg(const std::vector<T>& h, std::int64_t off, std::int64_t n, bool want_max) {
  std::int64_t best = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    const T x = h[off + i];
    if (cured::detail::is_nan(x)) return i;
    if (best < 0 || (want_max ? as_double(x) > as_double(h[off + best]) : as_double(x) < as_double(h[off + best])))
      best = i;
  }
  return best;
}

template <class T>
accumulator_t<T> ref_sum(const std::vector<T>& h, std::int64_t off, std::int64_t n) {
  __int128 s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += cured::harness::as_int128(h[off + i]);
  return accumulator_t<T>(s);
}

/// Checks sum, min, max, argmin, argmax of d[off, off + n) (async and blocking forms).
template <class T>
void check_all_ops(const T* d, const std::vector<T>& h, std::int64_t off, std::int64_t n, cured::workspace& ws,
                   const std::string& where) {
  using acc = accumulator_t<T>;
  device_buffer<acc> d_sum(1);
  device_buffer<T> d_ext(1);
  device_buffer<key_value<T>> d_arg(1);
  const T* in = d + off;
  CURED_CHECK(cudaMemset(d_sum.data(), 0xA5, sizeof(acc)));
  cured::sum_async(in, n, d_sum.data(), ws);
  const acc want_sum = ref_sum(h, off, n);
  const acc got_sum = to_host(d_sum.data(), 1)[0];
  EXPECT_TRUE(same_bits(got_sum, want_sum)) << where << " sum: got " << show(got_sum) << " want " << show(want_sum);
  EXPECT_TRUE(same_bits(cured::sum(in, n), want_sum)) << where << " blocking sum";
  for (bool want_max : {false, true}) {
    const char* name = want_max ? "max" : "min";
    CURED_CHECK(cudaMemset(d_ext.data(), 0xA5, sizeof(T)));
    if (want_max) cured::max_async(in, n, d_ext.data(), ws);
    else cured::min_async(in, n, d_ext.data(), ws);
    const T got = to_host(d_ext.data(), 1)[0];
    const T want = ref_min(h, off, n, want_max);
    EXPECT_TRUE(same_bits(got, want) || (cured::detail::is_nan(got) && cured::detail::is_nan(want)))
        << where << " " << name << ": got " << show(got) << " want " << show(want);
    CURED_CHECK(cudaMemset(d_arg.data(), 0xA5, sizeof(key_value<T>)));
    if (want_max) cured::argmax_async(in, n, d_arg.data(), ws);
    else cured::argmin_async(in, n, d_arg.data(), ws);
    const key_value<T> kv = to_host(d_arg.data(), 1)[0];
    const std::int64_t want_index = ref_arg(h, off, n, want_max);
    EXPECT_EQ(kv.index, want_index) << where << " arg" << name;
    if (want_index >= 0 && kv.index == want_index)
      EXPECT_TRUE(same_bits(kv.value, h[off + want_index])) << where << " arg" << name << " value";
  }
}

template <class T>
class ReduceTest : public ::testing::Test {};
using all_types = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
                                   std::int64_t, std::uint64_t, __half, __nv_bfloat16, float, double>;
TYPED_TEST_SUITE(ReduceTest, all_types);

TYPED_TEST(ReduceTest, EveryOpAndSizeMatchesTheReference) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws;
  for (std::int64_t n : {0LL, 1LL, 2LL, 31LL, 32LL, 33LL, 127LL, 128LL, 129LL, 1023LL, 1024LL, 1025LL, 4095LL, 4096LL,
                         4097LL, 16383LL, 16385LL, 1000LL * 1000, 16777213LL, 4000LL * 4000, 11000LL * 11000}) {
    if (n > cured::test::max_test_n()) continue;
    device_buffer<T> d(n);
    cured::harness::fill_device(d.data(), n, seed);
    const std::vector<T> h = to_host(d.data(), n);
    check_all_ops(d.data(), h, 0, n, ws, "n " + std::to_string(n));
  }
}

TYPED_TEST(ReduceTest, MisalignedInputs) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws;
  const std::int64_t total = (1 << 20) + 64;
  device_buffer<T> d(total);
  cured::harness::fill_device(d.data(), total, seed);
  const std::vector<T> h = to_host(d.data(), total);
  // Offsets 1..15 bytes: every element offset that keeps T's own alignment.
  for (std::int64_t off = 1; off * std::int64_t(sizeof(T)) < 16; ++off)
    for (std::int64_t n : {1LL, 7LL, 33LL, 4099LL, (1LL << 20) + 3})
      if (n <= cured::test::max_test_n()) check_all_ops(d.data(), h, off, n, ws, "offset " + std::to_string(off * sizeof(T)) + " bytes, n " + std::to_string(n));
}

using cured::detail::launch_options;
using cured::detail::mode;

/// The library's dispatch with launch options (the public forms pass none): transform_reduce
/// and the arg reductions, async into `out` or blocking.
template <class Acc, class T, class Transform, class Op>
Acc reduce_with(const launch_options& o, bool blocking, const T* in, std::int64_t n, Transform transform, Op op,
                Acc init, cured::workspace& ws, device_buffer<Acc>& out) {
  const cured::thread::transform_load<Acc, Transform> load{transform};
  CURED_CHECK(cudaMemset(out.data(), 0xA5, sizeof(Acc)));  // a launch that writes nothing fails the check
  if (blocking)
    return cured::detail::blocking<Acc>(nullptr, [&](Acc* d, cured::workspace& w) {
      cured::detail::reduce<mode::blocking>(in, n, d, load, op, cured::thread::no_finish{}, init, w, nullptr, o);
    });
  cured::detail::reduce<mode::async>(in, n, out.data(), load, op, cured::thread::no_finish{}, init, ws, nullptr, o);
  return to_host(out.data(), 1)[0];
}

template <bool Max, class T>
key_value<T> arg_with(const launch_options& o, bool blocking, const T* in, std::int64_t n, cured::workspace& ws,
                      device_buffer<key_value<T>>& out) {
  if (blocking)
    return cured::detail::blocking<key_value<T>>(nullptr, [&](key_value<T>* d, cured::workspace& w) {
      cured::detail::arg_reduce<mode::blocking, Max>(in, n, d, w, nullptr, o);
    });
  CURED_CHECK(cudaMemset(out.data(), 0xA5, sizeof(key_value<T>)));
  cured::detail::arg_reduce<mode::async, Max>(in, n, out.data(), ws, nullptr, o);
  return to_host(out.data(), 1)[0];
}

/// Where some of the arg kernel's tiles of in[0, n) start (the second; the last of the first
/// round of blocks and the next, which block 0 takes next; the middle one; the last one), and
/// where its tail starts.
template <class T>
std::vector<std::int64_t> arg_tile_starts(const T* in, std::int64_t n, cured::workspace& ws, const launch_options& o) {
  using policy = cured::detail::arg_policy;
  constexpr std::int64_t size = cured::thread::vector16<T>::size, tile = policy::block * policy::unroll * size;
  const std::int64_t grid = cured::detail::arg_grid<true, T>(n, ws, o);
  const std::int64_t head = cured::thread::unaligned_head(in, n), vectors = (n - head) / size;
  const std::int64_t tiles = (vectors * size + tile - 1) / tile;
  std::vector<std::int64_t> starts;
  for (std::int64_t k : {std::int64_t(1), grid - 1, grid, tiles / 2, tiles - 1})
    if (k >= 1 && k < tiles && std::find(starts.begin(), starts.end(), head + k * tile) == starts.end())
      starts.push_back(head + k * tile);
  starts.push_back(head + vectors * size);
  return starts;
}

/// argmin and argmax of in[0, n) (async and blocking) against the host reference.
template <class T>
void check_args(const T* in, const std::vector<T>& h, std::int64_t off, std::int64_t n, cured::workspace& ws,
                const std::string& where, const launch_options& o = {}) {
  device_buffer<key_value<T>> d_arg(1);
  for (bool want_max : {false, true}) {
    const std::int64_t want = ref_arg(h, off, n, want_max);
    for (bool blocking : {false, true}) {
      const key_value<T> kv = want_max ? arg_with<true>(o, blocking, in, n, ws, d_arg)
                                       : arg_with<false>(o, blocking, in, n, ws, d_arg);
      const std::string what = where + (blocking ? " blocking" : "") + (want_max ? " argmax" : " argmin");
      EXPECT_EQ(kv.index, want) << what;
      if (want >= 0 && kv.index == want) EXPECT_TRUE(same_bits(kv.value, h[off + want])) << what << " value";
    }
    // The public blocking form, which takes the automatic launch.
    const key_value<T> pub = want_max ? cured::argmax(in, n) : cured::argmin(in, n);
    EXPECT_EQ(pub.index, want) << where << (want_max ? " cured::argmax" : " cured::argmin");
  }
}

// Equal extremes (and NaNs) on both sides of the boundaries between the arg kernel's tiles, at
// the unaligned head and at the tail; as launched, and with a grid of 3 blocks (each takes
// many tiles), also with pieces of one tile (a block reduction and a widening each, as for
// more than 2^30 elements per block).
TYPED_TEST(ReduceTest, ArgTiesAndNansAcrossTiles) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws;
  const std::int64_t total = 1000003 + 16;
  if (total > cured::test::max_test_n()) GTEST_SKIP() << "above CURED_TEST_MAX_N";
  device_buffer<T> d(total);
  cured::harness::fill_device(d.data(), total, seed);
  std::vector<T> h = to_host(d.data(), total);
  const auto put = [&](std::int64_t i, T v) {
    h[i] = v;
    CURED_CHECK(cudaMemcpy(d.data() + i, &v, sizeof(T), cudaMemcpyHostToDevice));
  };
  constexpr bool floating = std::is_floating_point_v<T> || cured::detail::is_half_like<T>;
  const T top = cured::detail::highest<T>(), bottom = cured::detail::lowest<T>();
  struct shaped_run {
    std::int64_t piece, cap;
  };
  const std::int64_t big = std::int64_t(1) << 30;
  for (const shaped_run r : {shaped_run{big, 0}, shaped_run{big, 3}, shaped_run{1, 3}}) {
    const launch_options o{.grid = r.cap, .arg_piece_elements = r.piece};
    const std::string shaped = "piece " + std::to_string(r.piece) + " cap " + std::to_string(r.cap);
    for (std::int64_t n : {5000LL, 100003LL, 1000003LL}) {
      for (std::int64_t off : {0LL, 1LL}) {
        const T* in = d.data() + off;
        const std::string at = shaped + " n " + std::to_string(n) + " offset " + std::to_string(off);
        check_args(in, h, off, n, ws, at + " random", o);
        std::vector<std::int64_t> spots = arg_tile_starts(in, n, ws, o);
        spots.push_back(n - 1);
        // Pairs p < q: the same extreme at both, then (floating) NaN at both, then a NaN at q
        // and an infinity at p.
        for (std::int64_t s : spots) {
          for (auto [p, q] : {std::pair{s - 1, s}, std::pair{std::int64_t(0), s}}) {
            if (p < 0 || q >= n || p == q) continue;
            const T keep_p = h[off + p], keep_q = h[off + q];
            const std::string where = at + " pair " + std::to_string(p) + "," + std::to_string(q);
            for (T v : {top, bottom}) {
              put(off + p, v);
              put(off + q, v);
              check_args(in, h, off, n, ws, where + " extreme", o);
            }
            if constexpr (floating) {
              const T nan = T(std::numeric_limits<float>::quiet_NaN());
              put(off + p, nan);
              put(off + q, nan);
              check_args(in, h, off, n, ws, where + " nan,nan", o);
              put(off + p, top);
              check_args(in, h, off, n, ws, where + " inf,nan", o);
            }
            put(off + p, keep_p);
            put(off + q, keep_q);
          }
        }
      }
    }
    // Every element the identity's value (lowest for argmax, highest for argmin): index 0.
    for (std::int64_t n : {1LL, 4099LL, 1000003LL}) {
      for (T v : {top, bottom}) {
        std::vector<T> same(n + 1, v);
        device_buffer<T> e(n + 1);
        CURED_CHECK(cudaMemcpy(e.data(), same.data(), (n + 1) * sizeof(T), cudaMemcpyHostToDevice));
        for (std::int64_t off : {0LL, 1LL})
          check_args(e.data() + off, same, off, n, ws, shaped + " all equal, n " + std::to_string(n), o);
      }
    }
  }
}

template <class T>
class FloatingTest : public ::testing::Test {};
using floating_types = ::testing::Types<__half, __nv_bfloat16, float, double>;
TYPED_TEST_SUITE(FloatingTest, floating_types);

TYPED_TEST(FloatingTest, NanAndInfinityPlacements) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws;
  const T nan = T(std::numeric_limits<float>::quiet_NaN());
  const T inf = T(std::numeric_limits<float>::infinity());
  const T ninf = T(-std::numeric_limits<float>::infinity());
  for (std::int64_t n : {1LL, 100LL, 300000LL}) {
    if (n > cured::test::max_test_n()) continue;
    const std::vector<std::vector<std::pair<std::int64_t, T>>> placements = {
        {{0, nan}},          {{n - 1, nan}},         {{n / 2, nan}},
        {{n / 3, nan}, {n / 2, nan}, {n - 1, nan}}, {{n / 2, inf}},       {{n / 2, ninf}},
        {{0, inf}, {n - 1, ninf}},                  {{n / 3, inf}, {n / 2, inf}, {n / 4, ninf}, {n / 5, ninf}}};
    for (std::size_t p = 0; p < placements.size(); ++p) {
      std::vector<T> h(n);
      for (std::int64_t i = 0; i < n; ++i) h[i] = cured::harness::real_value<T>(seed, i);
      for (auto [i, v] : placements[p]) h[i] = v;
      device_buffer<T> d(n);
      CURED_CHECK(cudaMemcpy(d.data(), h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      const std::string where = "n " + std::to_string(n) + " placement " + std::to_string(p);
      for (bool want_max : {false, true}) {
        const T got = want_max ? cured::max(d.data(), n) : cured::min(d.data(), n);
        const T want = ref_min(h, 0, n, want_max);
        EXPECT_TRUE(same_bits(got, want) || (cured::detail::is_nan(got) && cured::detail::is_nan(want)))
            << where << (want_max ? " max" : " min") << " got " << show(got) << " want " << show(want);
        const auto kv = want_max ? cured::argmax(d.data(), n) : cured::argmin(d.data(), n);
        EXPECT_EQ(kv.index, ref_arg(h, 0, n, want_max)) << where << (want_max ? " argmax" : " argmin");
      }
      const double s = as_double(cured::sum(d.data(), n));
      bool any_nan = false, pos = false, neg = false;  // from the data: placements may overlap
      for (const T& x : h) {
        any_nan |= cured::detail::is_nan(x);
        pos |= same_bits(x, inf);
        neg |= same_bits(x, ninf);
      }
      if (any_nan || (pos && neg)) EXPECT_TRUE(std::isnan(s)) << where << " sum " << s;
      else if (pos) EXPECT_EQ(s, std::numeric_limits<double>::infinity()) << where;
      else if (neg) EXPECT_EQ(s, -std::numeric_limits<double>::infinity()) << where;
    }
  }
}

TYPED_TEST(FloatingTest, EmptyInputGivesTheIdentity) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  EXPECT_EQ(as_double(cured::sum(static_cast<const T*>(nullptr), 0)), 0.0);
  EXPECT_EQ(as_double(cured::min(static_cast<const T*>(nullptr), 0)), std::numeric_limits<double>::infinity());
  EXPECT_EQ(as_double(cured::max(static_cast<const T*>(nullptr), 0)), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(cured::argmin(static_cast<const T*>(nullptr), 0).index, -1);
  EXPECT_EQ(cured::argmax(static_cast<const T*>(nullptr), 0).index, -1);
}

TEST(Reduce, EmptyIntegerInputGivesTheIdentity) {
  CURED_REQUIRE_GPU();
  const int* none = nullptr;
  EXPECT_EQ(cured::sum(none, 0), 0);
  EXPECT_EQ(cured::min(none, 0), std::numeric_limits<int>::max());
  EXPECT_EQ(cured::max(none, 0), std::numeric_limits<int>::lowest());
  EXPECT_EQ(cured::argmax(none, 0).index, -1);
}

TEST(Reduce, RealSumsAreBitIdenticalRunToRunAndWithinTheBound) {
  CURED_REQUIRE_GPU();
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (std::int64_t n : {1000LL, 1LL << 20, 50000017LL}) {
    if (n > cured::test::max_test_n()) continue;
    device_buffer<float> d(n);
    cured::harness::fill_device<float, true>(d.data(), n, seed);
    const float first = cured::sum(d.data(), n);
    for (int r = 0; r < 5; ++r) EXPECT_TRUE(same_bits(cured::sum(d.data(), n), first)) << "n " << n;
    const double in_double = cured::sum<double>(d.data(), n);
    const std::vector<float> h = to_host(d.data(), n);
    double exact = 0;  // not exact, but double is 2^29 times finer than float here
    for (float x : h) exact += x;
    EXPECT_NEAR(in_double, exact, 1e-9 * exact);
    int sms = 0;
    CURED_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    // Longest rounding chain: the per-thread loop (n / threads of one wave, plus one vector),
    // the block's and the partials' trees (2 x 10 levels and the partial loop), init.
    using policy = cured::detail::single_pass_policy;
    const double wave = double(sms) * policy::block * policy::min_blocks_per_sm;
    const double chain = 2 * std::ceil(std::log2(double(n))) + 24 + std::ceil(double(n) / wave);
    EXPECT_NEAR(double(first), exact, chain * 0x1p-24 * exact);
  }
}

/// A 24-byte accumulator (six words in a slot): sum, count, smallest and largest element.
struct stats {
  std::int64_t sum, count;
  std::int32_t lo, hi;
};
struct stats_op {
  __host__ __device__ stats operator()(const stats& a, const stats& b) const {
    return {a.sum + b.sum, a.count + b.count, a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
  }
  __host__ __device__ stats identity() const { return {0, 0, INT32_MAX, INT32_MIN}; }
};
struct to_stats {
  __host__ __device__ stats operator()(std::int32_t x) const { return {x, 1, x, x}; }
};

// Every combination of partials at the small sizes the sanitizers run (under the launch
// options a test gives): accumulators of one, two and six slot words, async and blocking,
// many launches in a row on one workspace (each must leave the slots and the ticket as it
// found them), and the arg reductions.
void check_combinations(const launch_options& o, const std::string& shape) {
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::int64_t n_max = std::min<std::int64_t>(cured::test::max_test_n(), 100003);
  device_buffer<std::int32_t> d(n_max);
  cured::harness::fill_device(d.data(), n_max, seed);
  const std::vector<std::int32_t> h = to_host(d.data(), n_max);
  cured::workspace ws;
  device_buffer<std::int64_t> d_sum(1);
  device_buffer<std::int32_t> d_max(1);
  device_buffer<stats> d_stats(1);
  const cured::thread::identity_transform as_is;
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(5), std::int64_t(4999), n_max}) {
    if (n > n_max) continue;
    const std::string where = shape + ", n " + std::to_string(n);
    stats want{0, n, INT32_MAX, INT32_MIN};
    for (std::int64_t i = 0; i < n; ++i) {
      want.sum += h[i];
      want.lo = std::min(want.lo, h[i]);
      want.hi = std::max(want.hi, h[i]);
    }
    for (bool blocking : {false, true}) {
      const std::string at = where + (blocking ? " blocking" : "");
      EXPECT_EQ(reduce_with(o, blocking, d.data(), n, as_is, cured::plus{}, std::int64_t(0), ws, d_sum), want.sum)
          << at << " sum";
      EXPECT_EQ(reduce_with(o, blocking, d.data(), n, as_is, cured::maximum{}, INT32_MIN, ws, d_max), want.hi)
          << at << " max";
      const stats got =
          reduce_with(o, blocking, d.data(), n, to_stats{}, stats_op{}, stats_op{}.identity(), ws, d_stats);
      EXPECT_TRUE(got.sum == want.sum && got.count == want.count && got.lo == want.lo && got.hi == want.hi)
          << at << " stats";
    }
    check_args(d.data(), h, 0, n, ws, where, o);
  }
}

// The combining block's path: grids from 2 blocks to more blocks than the combining block has
// threads.
TEST(Reduce, ForcedGridsCombineEveryBlock) {
  CURED_REQUIRE_GPU();
  const std::int64_t most = std::int64_t(cured::workspace().sm_count()) * cured::workspace::max_blocks_per_sm;
  for (std::int64_t grid : {std::int64_t(2), std::int64_t(3), std::int64_t(7), std::int64_t(1025), most})
    if (grid <= most) check_combinations({.grid = grid}, "grid " + std::to_string(grid));
}

// The combination in one cluster (Hopper and later): clusters of 2 to 16 blocks, as many as
// the device runs; the arg reductions keep their own kernel.
TEST(Reduce, ForcedClustersCombineEveryBlock) {
  CURED_REQUIRE_GPU();
  int major = 0;
  CURED_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  using policy = cured::detail::single_pass_policy;
  using load = cured::thread::transform_load<std::int64_t, cured::thread::identity_transform>;
  constexpr auto kernel = cured::device::single_pass_kernel<policy, std::int32_t, std::int64_t, load, cured::plus,
                                                            cured::thread::no_finish, true>;
  const unsigned limit = cured::detail::cluster_limit<kernel>(0, policy::block);
  // Built for Hopper, a Hopper device runs clusters: otherwise the option would be ignored and
  // this test would check the plain grids again. Capped below 90 (CURED_ARCH_CAP), no device
  // does, and the option falls back to the plain grids.
  if (!cured::detail::cap_allows(90)) EXPECT_EQ(limit, 1u);
  else if (major >= 9) EXPECT_GE(limit, 8u);
  for (unsigned blocks : {2u, 3u, 5u, 8u, 16u})
    check_combinations({.cluster = blocks}, "cluster of up to " + std::to_string(blocks) + " blocks");
}

struct square {
  __host__ __device__ std::int64_t operator()(std::int32_t x) const { return std::int64_t(x) * x; }
};

TEST(Reduce, TransformReduceSumOfSquares) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = 1000003;
  std::vector<std::int32_t> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = std::int32_t(cured::random::bits(7, i) % 20001) - 10000;
  device_buffer<std::int32_t> d(n);
  CURED_CHECK(cudaMemcpy(d.data(), h.data(), n * 4, cudaMemcpyHostToDevice));
  std::int64_t want = 0;
  for (auto x : h) want += std::int64_t(x) * x;
  EXPECT_EQ(cured::transform_reduce(d.data(), n, square{}, cured::plus{}, std::int64_t(0)), want);
  EXPECT_EQ(cured::transform_reduce(d.data(), n, square{}, cured::plus{}, std::int64_t(5)), want + 5);  // init once
  EXPECT_EQ(cured::reduce(d.data(), n, cured::maximum{}, std::numeric_limits<std::int32_t>::lowest()),
            *std::max_element(h.begin(), h.end()));
}

/// A user type and operator: the range (smallest and largest) in one pass.
struct range {
  float lo, hi;
};
struct range_op {
  __host__ __device__ range operator()(const range& a, const range& b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
  }
  __host__ __device__ range identity() const { return {INFINITY, -INFINITY}; }
};
struct to_range {
  __host__ __device__ range operator()(float x) const { return {x, x}; }
};

TEST(Reduce, UserTypeWithUserOperator) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = 333333;
  device_buffer<float> d(n);
  cured::harness::fill_device<float, true>(d.data(), n, 11);
  const std::vector<float> h = to_host(d.data(), n);
  const range r = cured::transform_reduce(d.data(), n, to_range{}, range_op{}, range{INFINITY, -INFINITY});
  EXPECT_EQ(r.lo, *std::min_element(h.begin(), h.end()));
  EXPECT_EQ(r.hi, *std::max_element(h.begin(), h.end()));
}

/// 16 bytes but only 8-byte aligned: at an odd element offset no element is 16-byte aligned.
struct two_doubles {
  double a, b;
};
struct add_pair {
  __host__ __device__ double operator()(const two_doubles& p) const { return p.a + p.b; }
};

// Up to 1024 elements (16 KiB) the one-block small_kernel reduces them, above it the
// single-pass kernel.
TEST(Reduce, TypeAlignedBelowItsSize) {
  CURED_REQUIRE_GPU();
  const std::int64_t n_max = 100003;
  std::vector<two_doubles> h(n_max + 1);
  for (std::int64_t i = 0; i <= n_max; ++i)
    h[i] = {double(cured::random::small_int(5, 2 * i)), double(cured::random::small_int(5, 2 * i + 1))};
  device_buffer<two_doubles> d(n_max + 1);
  CURED_CHECK(cudaMemcpy(d.data(), h.data(), (n_max + 1) * sizeof(two_doubles), cudaMemcpyHostToDevice));
  for (std::int64_t n : {std::int64_t(1), std::int64_t(7), std::int64_t(1024), std::int64_t(1025), n_max}) {
    if (n > cured::test::max_test_n()) continue;
    for (std::int64_t off : {0, 1}) {
      double want = 0;
      for (std::int64_t i = 0; i < n; ++i) want += h[off + i].a + h[off + i].b;
      EXPECT_EQ(cured::transform_reduce(d.data() + off, n, add_pair{}, cured::plus{}, 0.0), want)
          << "n " << n << ", offset " << off;
    }
  }
}

TEST(Reduce, SumOfBoolsCountsTheTrueValues) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = 1 << 20;
  std::vector<char> h(n);
  std::uint64_t want = 0;
  for (std::int64_t i = 0; i < n; ++i) want += (h[i] = char(cured::random::bits(3, i) % 3 == 0));
  device_buffer<bool> d(n);
  CURED_CHECK(cudaMemcpy(d.data(), h.data(), n, cudaMemcpyHostToDevice));
  EXPECT_EQ(cured::sum(d.data(), n), want);
}

TEST(Reduce, GraphCaptureAndReplay) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = 5000011;
  device_buffer<float> d(n);
  device_buffer<float> out(1);
  cured::workspace ws;
  cudaStream_t s;
  CURED_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CURED_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cured::sum_async(d.data(), n, out.data(), ws, s);
  CURED_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CURED_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    cured::harness::fill_device(d.data(), n, seed);
    CURED_CHECK(cudaGraphLaunch(exec, s));
    CURED_CHECK(cudaStreamSynchronize(s));
    EXPECT_EQ(to_host(out.data(), 1)[0], float(cured::harness::exact_family_sum<float>(n, seed))) << "replay " << seed;
  }
  CURED_CHECK(cudaGraphExecDestroy(exec));
  CURED_CHECK(cudaGraphDestroy(graph));
  CURED_CHECK(cudaStreamDestroy(s));
}

TEST(Reduce, SeveralStreamsAndHostThreadsAtOnce) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = 3000017;
  device_buffer<std::int32_t> d(n);
  cured::harness::fill_device(d.data(), n, 99);
  const std::int64_t want = std::int64_t(cured::harness::exact_family_sum<std::int32_t>(n, 99));
  const std::int64_t want_less_one = want - std::int64_t(cured::harness::exact_value<std::int32_t>(99, n - 1));
  std::vector<std::thread> pool;
  std::vector<int> bad(8, 0);
  for (int t = 0; t < 8; ++t) {
    pool.emplace_back([&, t] {
      CURED_CHECK(cudaSetDevice(0));
      cudaStream_t s;
      CURED_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      cured::workspace ws;
      device_buffer<std::int64_t> out(1);
      for (int r = 0; r < 20; ++r) {
        if (t % 2) {  // alternate n and n - 1: a stale result cannot pass
          const std::int64_t m = n - (r % 2);
          bad[t] += cured::sum(d.data(), m, s) != (r % 2 ? want_less_one : want);
        } else {
          CURED_CHECK(cudaMemsetAsync(out.data(), 0xA5, 8, s));
          cured::sum_async(d.data(), n, out.data(), ws, s);
          std::int64_t got;
          CURED_CHECK(cudaMemcpyAsync(&got, out.data(), 8, cudaMemcpyDeviceToHost, s));
          CURED_CHECK(cudaStreamSynchronize(s));
          bad[t] += got != want;
        }
      }
      CURED_CHECK(cudaStreamDestroy(s));
    });
  }
  for (auto& th : pool) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
}

// The blocking forms take their result from the kernel's report, which comes before the
// kernel ends (the combining block still clears the workspace's slots): a call on another
// stream must wait for that. Alternate streams, sizes that combine through the slots and in a
// cluster, and a stream destroyed between calls.
TEST(Reduce, BlockingFormsAlternateStreams) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = std::min<std::int64_t>(3000017, cured::test::max_test_n());
  device_buffer<std::int32_t> d(n);
  cured::harness::fill_device(d.data(), n, 7);
  const std::vector<std::int32_t> h = to_host(d.data(), n);
  cudaStream_t s[2];
  for (auto& x : s) CURED_CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  const auto sum_of = [&](std::int64_t m) { return std::accumulate(h.begin(), h.begin() + m, std::int64_t(0)); };
  int bad = 0;
  for (std::int64_t m : {n, std::min<std::int64_t>(n, 100003), std::min<std::int64_t>(n, 20000)}) {
    const std::int64_t want = sum_of(m);
    const std::int64_t first_max = std::max_element(h.begin(), h.begin() + m) - h.begin();
    for (int r = 0; r < 60; ++r) {
      const cudaStream_t x = s[r % 2];
      bad += cured::sum(d.data(), m, x) != want;
      bad += cured::argmax(d.data(), m, x).index != first_max;
      bad += cured::max(d.data(), m, x) != h[first_max];
    }
  }
  EXPECT_EQ(bad, 0);
  const std::int64_t want = sum_of(n);
  EXPECT_EQ(cured::sum(d.data(), n, s[0]), want);
  CURED_CHECK(cudaStreamDestroy(s[0]));
  EXPECT_EQ(cured::sum(d.data(), n, s[1]), want);
  CURED_CHECK(cudaStreamDestroy(s[1]));
  EXPECT_EQ(cured::sum(d.data(), n), want);
}

__global__ void spin_kernel(long long ns) {
  const long long start = clock64();
  while (clock64() - start < ns) {
  }
}

TEST(Reduce, WorkspaceOnTwoStreamsAtOnceIsAnError) {
  CURED_REQUIRE_GPU();
  cudaStream_t a, b;
  CURED_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CURED_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  device_buffer<float> d(1000), out(1);
  device_buffer<key_value<float>> arg(1);
  cured::harness::fill_device(d.data(), 1000, 1);
  cured::workspace ws;
  const std::function<void(cudaStream_t)> calls[] = {
      [&](cudaStream_t s) { cured::sum_async(d.data(), 1000, out.data(), ws, s); },
      [&](cudaStream_t s) { cured::argmax_async(d.data(), 1000, arg.data(), ws, s); },
      [&](cudaStream_t s) { cured::exact_sum_async(d.data(), 1000, out.data(), ws, s); }};
  for (const auto& call : calls) {
    call(a);  // load the kernel before the clock starts
    CURED_CHECK(cudaStreamSynchronize(a));
    spin_kernel<<<1, 1, 0, a>>>(200000000LL);  // ~0.1 s of clocks: stream a is busy
    call(a);
    EXPECT_THROW(call(b), cured::error);
    CURED_CHECK(cudaStreamSynchronize(a));
    EXPECT_NO_THROW(call(b));  // in turn: fine
    CURED_CHECK(cudaStreamSynchronize(b));
    EXPECT_NO_THROW(call(a));  // and back
    CURED_CHECK(cudaStreamSynchronize(a));
  }
  CURED_CHECK(cudaStreamDestroy(a));
  CURED_CHECK(cudaStreamDestroy(b));
}

// A workspace given to one stream (as the C interface gives its own) runs there without the
// cross-stream event, in order, and refuses another stream.
TEST(Reduce, DedicatedWorkspaceTakesItsStreamAlone) {
  CURED_REQUIRE_GPU();
  cudaStream_t a, b;
  CURED_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CURED_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  const std::int64_t n = std::min<std::int64_t>(1 << 20, cured::test::max_test_n());
  device_buffer<std::int32_t> d(n);
  device_buffer<std::int64_t> out(40);
  cured::harness::fill_device(d.data(), n, 3);
  const std::vector<std::int32_t> h = to_host(d.data(), n);
  cured::workspace ws;
  ws.dedicate_to(a);
  for (int r = 0; r < 40; ++r) cured::sum_async(d.data(), n - r, out.data() + r, ws, a);
  EXPECT_THROW(cured::sum_async(d.data(), n, out.data(), ws, b), cured::error);
  CURED_CHECK(cudaStreamSynchronize(a));
  const std::vector<std::int64_t> got = to_host(out.data(), 40);
  for (int r = 0; r < 40; ++r)
    EXPECT_EQ(got[r], std::accumulate(h.begin(), h.end() - r, std::int64_t(0))) << r;
  CURED_CHECK(cudaStreamDestroy(a));
  CURED_CHECK(cudaStreamDestroy(b));
}

TEST(Reduce, BadInputIsACuredError) {
  CURED_REQUIRE_GPU();
  device_buffer<float> d(100), out(1);
  cured::workspace ws;
  std::vector<float> host(100, 1.0f);
  EXPECT_THROW(cured::sum(static_cast<const float*>(nullptr), 10), cured::error);
  EXPECT_THROW(cured::sum(host.data(), 100), cured::error);
  EXPECT_THROW(cured::sum(d.data(), -1), cured::error);
  EXPECT_THROW(cured::sum_async(d.data(), 100, static_cast<float*>(nullptr), ws), cured::error);
  float host_out = 0;
  EXPECT_THROW(cured::sum_async(d.data(), 100, &host_out, ws), cured::error);
  try {
    cured::max(host.data(), 100);
    ADD_FAILURE() << "no error for a host pointer";
  } catch (const cured::error& e) {
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
  }
}

TEST(Reduce, WorkspaceOfAnotherDeviceIsAnError) {
  CURED_REQUIRE_GPU();
  int count = 0;
  CURED_CHECK(cudaGetDeviceCount(&count));
  if (count < 2) GTEST_SKIP() << "needs two devices";
  CURED_CHECK(cudaSetDevice(1));
  cured::workspace ws1;
  CURED_CHECK(cudaSetDevice(0));
  device_buffer<float> d(100), out(1);
  EXPECT_THROW(cured::sum_async(d.data(), 100, out.data(), ws1), cured::error);
}

template <class T>
void large_sum_test() {
  using acc = accumulator_t<T>;
  const std::int64_t n = (std::int64_t(1) << 32) + 3;
  const std::size_t need = std::size_t(n) * sizeof(T) + (std::size_t(1) << 30);
  if (n > cured::test::max_test_n()) GTEST_SKIP() << "above CURED_TEST_MAX_N";
  if (cured::test::free_device_bytes() < need) GTEST_SKIP() << "needs " << (need >> 20) << " MiB of device memory";
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  device_buffer<T> d(n);
  cured::harness::fill_device(d.data(), n, seed);
  EXPECT_EQ(show(cured::sum(d.data(), n)), show(acc(cured::harness::exact_family_sum<T>(n, seed))));
  if constexpr (std::is_floating_point_v<T>) {
    // A unique maximum planted near the end checks indices past 2^32.
    const T big = T(100);
    CURED_CHECK(cudaMemcpy(d.data() + n - 2, &big, sizeof(T), cudaMemcpyHostToDevice));
    EXPECT_EQ(cured::argmax(d.data(), n).index, n - 2);
  }
}

TEST(Reduce, LargeInt8MoreThan2To32Elements) {
  CURED_REQUIRE_GPU();
  large_sum_test<std::int8_t>();
}

TEST(Reduce, LargeFloatMoreThan2To32Elements) {
  CURED_REQUIRE_GPU();
  large_sum_test<float>();
}

}  // namespace
