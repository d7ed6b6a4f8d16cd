// The exact sums on the GPU: every result must be the bits of the exact sum rounded once
// (cured::cpu::exact_sum / exact_accumulator, and closed forms where the answer is known),
// for every form (blocking, async, shaped grids and blocks), any order,
// any alignment, special values, graphs, workspace reuse and more than 2^32 elements.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpu/reference.hpp"
#include "cured/cured.cuh"
#include "tests/library/exact_values.cuh"
#include "tests/support/gpu.cuh"

namespace {

using namespace cured::test::exact_values;
using cured::exact_result_t;
using cured::test::device_buffer;
using shape = cured::detail::launch_options;


/// Runs the exact sum in every form on one workspace and compares each with the expected bits.
template <class T>
class sums {
public:
  using R = exact_result_t<T>;

  R blocking(const T* d, std::int64_t n, cudaStream_t s = nullptr) { return cured::exact_sum(d, n, s); }
  R async(const T* d, std::int64_t n) {
    poison();
    cured::exact_sum_async(d, n, out_.data(), ws_);
    return read();
  }
  R shaped(const T* d, std::int64_t n, shape sh) {
    poison();
    cured::detail::exact_sum<cured::detail::mode::async>(d, n, out_.data(), ws_, nullptr, sh);
    return read();
  }
  int max_grid() const { return ws_.sm_count() * cured::workspace::max_blocks_per_sm; }

  /// The blocking and async forms, blocks of 128 and 256; with `shapes` also a
  /// few fixed grids (for small n: one block on a large input is slow).
  void check(const T* d, std::int64_t n, R want, const std::string& where, bool shapes = false) {
    EXPECT_TRUE(same_result(blocking(d, n), want)) << where << ", blocking";
    EXPECT_TRUE(same_result(async(d, n), want)) << where << ", async";
    std::vector<shape> list = {{.grid = 0, .exact_block = 128}};
    if (shapes)
      for (int grid : {1, 7, 1000})
        if (grid <= max_grid()) list.push_back({.grid = grid, .exact_block = grid == 7 ? 256u : 128u});
    for (const shape& sh : list)
      EXPECT_TRUE(same_result(shaped(d, n, sh), want))
          << where << ", grid " << sh.grid << " block " << sh.exact_block;
  }
  /// Uploads x and checks every form against `want`, and `want` against the CPU reference.
  void check(const std::vector<T>& x, R want, const std::string& where, bool shapes = true) {
    EXPECT_TRUE(same_result(reference(x), want)) << where << ": the CPU reference disagrees with the closed form";
    const device_buffer<T> d = upload(x);
    check(d.data(), std::int64_t(x.size()), want, where, shapes);
  }
  cured::workspace& ws() { return ws_; }

private:
  void poison() { CURED_CHECK(cudaMemset(out_.data(), 0xA5, sizeof(R))); }
  R read() {
    R r;
    CURED_CHECK(cudaMemcpy(&r, out_.data(), sizeof(R), cudaMemcpyDeviceToHost));
    return r;
  }
  cured::workspace ws_;
  device_buffer<R> out_{1};
};

/// A case with its closed-form answer (a double that R represents exactly).
template <class T>
struct known {
  std::vector<T> x;
  double want;
};

template <class T>
void check_known(const std::vector<known<T>>& cases, const char* what) {
  using R = exact_result_t<T>;
  sums<T> s;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const double w = cases[c].want;
    if (!std::isnan(w) && !std::isinf(w) && double(R(w)) != w) ADD_FAILURE() << what << " case " << c << ": bad test";
    s.check(cases[c].x, R(w), std::string(what) + " case " + std::to_string(c));
  }
}

struct type_names {
  template <class T>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, __half>) return "half";
    else return "bfloat16";
  }
};

template <class T>
class ExactAll : public ::testing::Test {};
using all_types = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(ExactAll, all_types, type_names);

template <class T>
class ExactWide : public ::testing::Test {};
using wide_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ExactWide, wide_types, type_names);

/// Random inputs made once per type and range: `full` spans the smallest subnormal to near the
/// largest value, `narrow` the exponents around 1 (every element matters to the rounding).
template <class T>
const std::vector<T>& random_inputs(bool full) {
  static const std::vector<T> data[2] = {[] {
                                           std::mt19937_64 g(0x5eed0001 + sizeof(T));
                                           std::vector<T> v(std::size_t(std::min<std::int64_t>(
                                               30000001, cured::test::max_test_n())));
                                           for (auto& x : v) x = random_value<T>(g, bias<T> - 10, bias<T> + 10);
                                           return v;
                                         }(),
                                         [] {
                                           std::mt19937_64 g(0x5eed0002 + sizeof(T));
                                           std::vector<T> v(std::size_t(std::min<std::int64_t>(
                                               30000001, cured::test::max_test_n())));
                                           for (auto& x : v) x = random_value<T>(g, 0, full_hi<T>);
                                           return v;
                                         }()};
  return data[full];
}

// ---- tests ---------------------------------------------------------------------------------

TYPED_TEST(ExactAll, RandomInputsOfEverySizeMatchTheReference) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  sums<T> s;
  for (bool full : {true, false}) {
    const std::vector<T>& h = random_inputs<T>(full);
    const device_buffer<T> d = upload(h);
    for (std::int64_t n : {1LL, 2LL, 3LL, 255LL, 256LL, 257LL, 4095LL, 4096LL, 4097LL, (1LL << 20) + 1, 100000LL,
                           1000000LL, 10000000LL, 30000001LL}) {
      if (n > std::int64_t(h.size())) continue;
      s.check(d.data(), n, reference(std::span<const T>(h.data(), std::size_t(n))),
              std::string(full ? "full" : "narrow") + " range, n " + std::to_string(n), n <= 4097);
    }
  }
}

TYPED_TEST(ExactAll, MassiveCancellation) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const T big = from_double<T>(std::is_same_v<T, __half> ? 60000.0 : std::is_same_v<T, double> ? 1e300 : 1e30);
  const T one = make<T>(1), t = tiny<T>(), max = max_finite<T>(), mn = min_normal<T>();
  const double tw = widen(t);
  check_known<T>({{{big, one, neg(big)}, 1.0},
                  {{big, t, neg(big)}, tw},
                  {{neg(big), t, big}, tw},
                  {{t, big, neg(big)}, tw},
                  {{big, neg(big), t, neg(t)}, 0.0},
                  {{big, one, neg(big), neg(one), t}, tw},
                  {{max, t, neg(max)}, tw},
                  {{max, neg(max), mn}, widen(mn)},
                  {{big, big, big, neg(big), neg(big), neg(big), t, t, neg(t), t}, 2 * tw},
                  {{one, big, neg(one), neg(big)}, 0.0},
                  {{big, neg(t), neg(big)}, -tw}},
                 "cancellation");
  // Large: random values of the whole range and their negations, shuffled, plus a remainder.
  sums<T> s;
  std::mt19937_64 g(21);
  for (std::int64_t pairs : {1000LL, 500000LL, 3000000LL}) {
    if (!fits(2 * pairs + 3)) continue;
    for (int variant = 0; variant < 3; ++variant) {
      std::vector<T> x;
      x.reserve(std::size_t(2 * pairs + 3));
      for (std::int64_t i = 0; i < pairs; ++i) {
        const T v = random_value<T>(g, 0, full_hi<T>);
        x.push_back(v);
        x.push_back(neg(v));
      }
      double want = 0;
      if (variant == 0) x.insert(x.end(), {t, t, t}), want = 3 * tw;
      if (variant == 1) x.insert(x.end(), {one, neg(t)});  // 1 - tiny: the reference rounds it
      if (variant == 2) x.push_back(neg(t)), want = -tw;
      std::shuffle(x.begin(), x.end(), g);
      const exact_result_t<T> w = variant == 1 ? reference(x) : exact_result_t<T>(want);
      s.check(x, w, "pairs " + std::to_string(pairs) + " variant " + std::to_string(variant), pairs <= 1000);
    }
  }
}

TYPED_TEST(ExactAll, NanAndInfinityRules) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using R = exact_result_t<T>;
  sums<T> s;
  std::mt19937_64 g(3);
  const T max = max_finite<T>();
  for (std::int64_t n : {1LL, 2LL, 257LL, 100003LL, (1LL << 20) + 1}) {
    if (!fits(n)) continue;
    const std::vector<std::vector<std::pair<std::int64_t, T>>> placements = {
        {{0, nan<T>()}},
        {{n - 1, nan<T>()}},
        {{n / 2, nan<T>()}},
        {{n / 2, neg(nan<T>())}},
        {{n / 3, snan<T>()}},
        {{0, inf<T>()}},
        {{n - 1, neg(inf<T>())}},
        {{0, inf<T>()}, {n - 1, neg(inf<T>())}},
        {{n / 3, inf<T>()}, {n / 2, inf<T>()}},
        {{n / 2, neg(inf<T>())}, {n / 3, nan<T>()}},
        {{n - 1, inf<T>()}, {0, neg(max)}, {n / 2, neg(max)}},      // inf wins over a finite overflow
        {{0, neg(inf<T>())}, {n / 2, max}, {n - 1, max}},
        {{n / 4, inf<T>()}, {n / 2, nan<T>()}, {3 * n / 4, neg(inf<T>())}}};
    for (std::size_t p = 0; p < placements.size(); ++p) {
      std::vector<T> x(static_cast<std::size_t>(n));
      for (auto& v : x) v = random_value<T>(g, bias<T> - 5, bias<T> + 5);
      for (auto [i, v] : placements[p]) x[std::size_t(i)] = v;
      bool any_nan = false, pos = false, ninf = false;  // the rules, from the data (placements may overlap)
      for (const T& v : x) {
        any_nan |= is_nan(v);
        pos |= widen(v) == INFINITY;
        ninf |= widen(v) == -INFINITY;
      }
      // (n = 1, 2: overlapping placements can leave no special value at all)
      const R want = any_nan || (pos && ninf) ? std::numeric_limits<R>::quiet_NaN()
                     : pos                    ? std::numeric_limits<R>::infinity()
                     : ninf                   ? -std::numeric_limits<R>::infinity()
                                              : reference(x);
      s.check(x, want, "n " + std::to_string(n) + " placement " + std::to_string(p), n <= 257);
    }
  }
}

TYPED_TEST(ExactAll, SignedZeros) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const T z = make<T>(0), nz = neg_zero<T>(), one = make<T>(1), t = tiny<T>();
  check_known<T>({{{nz}, -0.0},
                  {{nz, nz, nz}, -0.0},
                  {{nz, z}, 0.0},
                  {{z, nz}, 0.0},
                  {{z}, 0.0},
                  {{one, neg(one)}, 0.0},
                  {{neg(one), one}, 0.0},
                  {{t, neg(t)}, 0.0},
                  {{nz, neg(t), t, nz}, 0.0},
                  {{}, 0.0}},
                 "zeros");
  sums<T> s;
  const std::int64_t n = std::min<std::int64_t>((1 << 20) + 1, cured::test::max_test_n());
  using R = exact_result_t<T>;
  for (int variant = 0; variant < 6; ++variant) {
    std::vector<T> x(std::size_t(n), variant == 5 ? z : nz);
    if (variant == 1) x[std::size_t(n / 2)] = z;
    if (variant == 2) x.back() = z;
    if (variant == 3) x.front() = neg(one), x.back() = one;
    if (variant == 4 && n > 2) x[1] = t, x[std::size_t(n - 2)] = neg(t);
    s.check(x, variant == 0 ? R(-0.0) : R(0.0), "n " + std::to_string(n) + " variant " + std::to_string(variant));
  }
  // Empty: null and non-null pointers, every form; blocks without elements keep -0 intact.
  device_buffer<T> some(4);
  for (const T* p : {static_cast<const T*>(nullptr), static_cast<const T*>(some.data())})
    s.check(p, 0, R(0.0), p ? "empty, non-null" : "empty, null", true);
}

TYPED_TEST(ExactAll, Subnormals) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using R = exact_result_t<T>;
  const T t = tiny<T>(), mn = min_normal<T>();
  const T below = from_bits<T>(mant_mask<T>);  // the largest subnormal
  check_known<T>({{{t, t, neg(t)}, widen(t)},
                  {{t, t, t, t, t}, 5 * widen(t)},
                  {{below, t}, widen(mn)},            // crosses into the normal range exactly
                  {{mn, neg(t)}, widen(below)},       // and back
                  {{below, below}, 2 * widen(below)},
                  {{neg(t), neg(t)}, -2 * widen(t)}},
                 "subnormal");
  sums<T> s;
  std::mt19937_64 g(5);
  const double unit = widen(t);
  for (int variant = 0; variant < 4; ++variant) {
    // 0: 64 small positive subnormals, the sum stays subnormal; 1: 2^20+1 positive ones cross
    // into the normal range (with rounding for float and double); 2: random signs; 3: pairs.
    const std::int64_t n = variant == 0 ? 64 : variant == 1 ? (1 << 20) + 1 : variant == 2 ? 100003 : 1 << 20;
    if (!fits(n)) continue;
    std::vector<T> x(static_cast<std::size_t>(n));
    unsigned __int128 m_sum = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      std::uint64_t m = g() & mant_mask<T>;
      if (variant == 0) m = m >> 6 | 1;
      if (variant == 3 && i % 2) m = to_bits(x[std::size_t(i - 1)]) & mant_mask<T>;
      const bool negative = (variant == 2 && (g() & 1)) || (variant == 3 && i % 2);
      x[std::size_t(i)] = from_bits<T>(m | (negative ? sign_bit<T> : 0));
      m_sum += m;
    }
    std::shuffle(x.begin(), x.end(), g);
    R want = reference(x);
    if (variant == 0 || (variant == 1 && m_sum < (std::uint64_t(1) << 53))) {  // float, half, bfloat16
      const R closed = R(double(m_sum) * unit);  // exact in double, then rounded once
      EXPECT_TRUE(same_result(want, closed)) << "the CPU reference, variant " << variant;
      if (variant == 0 && !is_narrow<T>) EXPECT_EQ(std::fpclassify(closed), FP_SUBNORMAL);
    }
    if (variant == 3) EXPECT_TRUE(same_result(want, R(0.0)));
    s.check(x, want, "variant " + std::to_string(variant), n <= 100003);
  }
}

TYPED_TEST(ExactAll, NearOverflow) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using R = exact_result_t<T>;
  const T max = max_finite<T>(), one = make<T>(1), t = tiny<T>();
  if constexpr (!is_narrow<T>) {
    constexpr int p = std::numeric_limits<T>::digits;
    const T half_ulp = make<T>(std::ldexp(1.0, fmt<T>::exp_max - bias<T> - p));  // half an ulp of max
    const T quarter_ulp = make<T>(std::ldexp(1.0, fmt<T>::exp_max - bias<T> - p - 1));
    const double m = widen(max);
    check_known<T>({{{max, max, neg(max)}, m},
                    {{max, max}, INFINITY},
                    {{neg(max), neg(max)}, -INFINITY},
                    {{max, half_ulp}, INFINITY},  // a tie: max is odd, so it rounds up, to inf
                    {{neg(max), neg(half_ulp)}, -INFINITY},
                    {{max, half_ulp, neg(t)}, m},  // just below the tie
                    {{max, quarter_ulp}, m},
                    {{max, max, max, neg(max), neg(max)}, m},
                    {{max, max, one, neg(max), neg(max)}, 1.0},
                    {{neg(max), neg(max), max, neg(t)}, -m}},
                   "overflow");
  }
  sums<T> s;
  // Many largest values: the accumulator holds sums far beyond the largest finite value.
  const std::int64_t k = std::min<std::int64_t>(100000, cured::test::max_test_n() / 2 - 2);
  std::mt19937_64 g(9);
  for (int variant = 0; variant < 4; ++variant) {
    std::vector<T> x(std::size_t(k), max);
    x.insert(x.end(), std::size_t(k - (variant == 1)), neg(max));
    if (variant == 0) x.push_back(one);
    if (variant == 3) x.push_back(max);
    if (variant != 2) std::shuffle(x.begin(), x.end(), g);
    const R want = reference(x);
    if (variant == 0) EXPECT_TRUE(same_result(want, R(1.0)));
    if (variant == 1 || variant == 3) EXPECT_TRUE(same_result(want, R(widen(max))));
    if (variant == 2) EXPECT_TRUE(same_result(want, R(0.0)));
    s.check(x, want, "copies of max, variant " + std::to_string(variant), false);
  }
  // Pairs of huge values that cancel to a few of their ulps.
  const std::int64_t pairs = std::min<std::int64_t>(100000, cured::test::max_test_n() / 2);
  std::vector<T> x;
  for (std::int64_t i = 0; i < pairs; ++i) {
    const T v = random_value<T>(g, fmt<T>::exp_max - 20, fmt<T>::exp_max);
    const std::uint64_t b = to_bits(v);
    x.push_back(v);
    x.push_back(neg(from_bits<T>((b & mant_mask<T>) == 0 || (b & mant_mask<T>) == mant_mask<T> ? b : b + (g() % 3) - 1)));
  }
  std::shuffle(x.begin(), x.end(), g);
  const R want = reference(x);
  EXPECT_TRUE(std::isfinite(want));
  s.check(x, want, "cancelling huge pairs", false);
  // Random huge values: overflow or not, as the exact sum says.
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<T> y(1000 + std::size_t(trial) * 7);
    for (auto& v : y) v = random_value<T>(g, fmt<T>::exp_max - 3, fmt<T>::exp_max);
    s.check(y, reference(y), "huge values, trial " + std::to_string(trial), false);
  }
}

TYPED_TEST(ExactWide, TiesRoundToEven) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  constexpr int p = std::numeric_limits<T>::digits;
  const double u = std::ldexp(1.0, -p);  // half an ulp of 1
  const T one = make<T>(1), t = tiny<T>();
  const auto m = [](double x) { return make<T>(x); };
  const double two_p = std::ldexp(1.0, p), mn2 = 2 * widen(min_normal<T>()), tw = widen(t);
  check_known<T>({{{one, m(u)}, 1.0},                          // tie, down to even
                  {{one, m(3 * u)}, 1 + 4 * u},                // tie, up to even
                  {{m(1 + 2 * u), m(u)}, 1 + 4 * u},           // odd: up
                  {{one, m(u), t}, 1 + 2 * u},                 // a sticky bit far below breaks the tie
                  {{t, one, m(u)}, 1 + 2 * u},
                  {{m(1 + 2 * u), m(u), neg(t)}, 1 + 2 * u},  // just below the tie
                  {{one, m(u), neg(t)}, 1.0},
                  {{m(-1), m(-u)}, -1.0},
                  {{m(-1), m(-3 * u)}, -(1 + 4 * u)},
                  {{m(-1), m(-u), neg(t)}, -(1 + 2 * u)},
                  {{one, m(u / 2), m(u / 2)}, 1.0},            // the tie from two halves
                  {{m(u / 2), one, m(u / 2), t}, 1 + 2 * u},
                  {{m(two_p), one}, two_p},
                  {{m(two_p + 2), one}, two_p + 4},
                  {{m(two_p), one, t}, two_p + 2},
                  {{m(mn2), t}, mn2},                          // ties just above the subnormals
                  {{m(mn2 + 2 * tw), t}, mn2 + 4 * tw},
                  {{m(mn2), t, t, neg(t)}, mn2}},
                 "tie");
  sums<T> s;
  std::mt19937_64 g(13);
  // 2^p and c ones: a tie (c odd) decided by c mod 4, the ones spread over many elements.
  for (std::int64_t c : {(1LL << 20) + 1, (1LL << 20) + 3, 4097LL, 4099LL}) {
    if (!fits(c + 1)) continue;
    std::vector<T> x(std::size_t(c), one);
    x.push_back(m(two_p));
    std::shuffle(x.begin(), x.end(), g);
    const double want = two_p + double(c) + (c % 4 == 1 ? -1 : 1);
    s.check(x, T(want), "2^p plus " + std::to_string(c) + " ones", c < 5000);
  }
  // Random: a + half an ulp of a, split into 2^k pieces, among cancelling pairs of any size,
  // with a sticky term of either sign or none; either sign overall.
  for (int trial = 0; trial < 48; ++trial) {
    T a = random_value<T>(g, bias<T> - 20, bias<T> + 20, true);
    a = from_bits<T>(trial % 2 ? to_bits(a) | 1 : to_bits(a) & ~std::uint64_t(1));  // odd or even
    const T next = std::nextafter(a, std::numeric_limits<T>::infinity());
    const int k = trial % 13;
    const T piece = (next - a) / 2 / T(1 << k);
    std::vector<T> x = {a};
    x.insert(x.end(), std::size_t(1) << k, piece);
    const std::int64_t pairs = fits(200000) ? std::int64_t(g() % 50000) : 100;
    for (std::int64_t i = 0; i < pairs; ++i) {
      const T v = random_value<T>(g, 0, full_hi<T>);
      x.push_back(v);
      x.push_back(-v);
    }
    const int sticky = trial % 3;  // 0 none, 1 toward +inf, 2 toward zero
    if (sticky == 1) x.push_back(t);
    if (sticky == 2) x.push_back(neg(t));
    T want = sticky == 1 ? next : sticky == 2 ? a : (to_bits(a) & 1 ? next : a);
    if (trial % 4 >= 2) {
      for (auto& v : x) v = -v;
      want = -want;
    }
    std::shuffle(x.begin(), x.end(), g);
    s.check(x, want, "random tie, trial " + std::to_string(trial), false);
  }
}

TYPED_TEST(ExactAll, PermutationsGiveTheSameBits) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const std::int64_t n = std::min<std::int64_t>(100003, cured::test::max_test_n());
  const std::vector<T>& src = random_inputs<T>(true);
  std::vector<T> x(src.begin(), src.begin() + n);
  const exact_result_t<T> want = reference(x);
  sums<T> s;
  std::mt19937_64 g(17);
  for (int r = 0; r < 8; ++r) {
    if (r < 5) std::shuffle(x.begin(), x.end(), g);
    if (r == 5) std::reverse(x.begin(), x.end());
    if (r == 6) std::sort(x.begin(), x.end(), [](T a, T b) { return widen(a) < widen(b); });
    if (r == 7) std::sort(x.begin(), x.end(), [](T a, T b) { return std::fabs(widen(a)) > std::fabs(widen(b)); });
    const device_buffer<T> d = upload(x);
    EXPECT_TRUE(same_result(s.blocking(d.data(), n), want)) << "permutation " << r;
    EXPECT_TRUE(same_result(s.async(d.data(), n), want)) << "permutation " << r;
    EXPECT_TRUE(same_result(s.shaped(d.data(), n, {.grid = 7, .exact_block = 128}), want)) << "permutation " << r;
  }
}

TYPED_TEST(ExactAll, EveryGridAndBlockGivesTheSameBits) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  sums<T> s;
  const std::vector<T>& h = random_inputs<T>(false);
  const device_buffer<T> d = upload(std::vector<T>(h.begin(), h.begin() + std::min<std::size_t>(h.size(), 3000017)));
  for (std::int64_t n : {0LL, 1LL, 3LL, 1000LL, 4097LL, 1000003LL, 3000017LL}) {
    if (!fits(n)) continue;
    const exact_result_t<T> want = reference(std::span<const T>(h.data(), std::size_t(n)));
    for (unsigned block : {0u, 128u, 256u})
      for (int grid : {0, 1, 2, 7, 132, 1000}) {
        if (grid > s.max_grid()) continue;
        const shape sh{.grid = grid, .exact_block = block};
        EXPECT_TRUE(same_result(s.shaped(n ? d.data() : nullptr, n, sh), want))
            << "n " << n << " grid " << grid << " block " << block;
      }
  }
  // Other block sizes and negative grids are errors.
  for (unsigned block : {1u, 64u, 192u, 512u, 1024u})
    EXPECT_THROW(s.shaped(d.data(), 10, {.grid = 0, .exact_block = block}), cured::error) << "block " << block;
  EXPECT_THROW(s.shaped(d.data(), 10, {.grid = -1, .exact_block = 128}), cured::error);
  EXPECT_TRUE(same_result(s.async(d.data(), 10), reference(std::span<const T>(h.data(), 10))))
      << "after the errors";
}

TYPED_TEST(ExactAll, MisalignedInputs) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  sums<T> s;
  const std::vector<T>& h = random_inputs<T>(false);
  const std::int64_t total = std::min<std::int64_t>((1 << 20) + 16, std::int64_t(h.size()));
  const device_buffer<T> d = upload(std::vector<T>(h.begin(), h.begin() + total));
  const std::int64_t last_offset = std::max<std::int64_t>(3, 16 / sizeof(T) - 1);
  for (std::int64_t off = 1; off <= last_offset; ++off)
    for (std::int64_t n : {1LL, 2LL, 3LL, 255LL, 256LL, 257LL, 4095LL, 4097LL, (1LL << 20) + 1}) {
      if (off + n > total) continue;
      s.check(d.data() + off, n, reference(std::span<const T>(h.data() + off, std::size_t(n))),
              "offset " + std::to_string(off) + " n " + std::to_string(n), n <= 4097);
    }
}

/// All positive values at the top of a bin (or of the range): the most any bin, register or
/// expansion must hold between flushes, with one block (128 threads: the most elements per
/// thread; eight flush intervals each), misaligned too (a head and a tail element beside the
/// intervals). And a bin's top alternating with random values of its bottom binade, then the
/// same values negated: the bins climb as high as they can with odd units and come back to
/// a small exact sum, so any rounding inside them shows in the result.
TYPED_TEST(ExactAll, FullBinsStayExact) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  sums<T> s;
  const std::int64_t n = std::min<std::int64_t>(8 * 128 * 8192 + 5, cured::test::max_test_n());
  constexpr bool half = std::is_same_v<T, __half>;
  const int top = half ? fmt<T>::exp_max : fmt<T>::exp_max - 24;
  const int mid = std::min(16 * 7 + 15, top);  // the top of bin 7
  std::mt19937_64 g(23);
  // -1: tops of random bins; -2: bin 7's top and random values of its bottom binade (half:
  // 65504 and subnormals; double: the top and 52 binades below), then their negations.
  for (int e : {0, 15, mid, top, -1, -2}) {
    std::vector<T> x(static_cast<std::size_t>(n) + 3);
    const std::size_t first = e == -2 ? x.size() / 2 : x.size();
    for (std::size_t i = 0; i < first; ++i) {
      std::uint64_t ee = std::uint64_t(e >= 0 ? e : std::min(16 * int(g() % 16) + 15, top)), m = mant_mask<T>;
      if (e == -2) {
        ee = std::uint64_t(half ? top : mid);
        if (i % 2) ee = half ? 0 : std::is_same_v<T, double> ? ee - 52 : ee - 15, m = g() & mant_mask<T>;
      }
      x[i] = from_bits<T>((ee << fmt<T>::mant) | m);
    }
    for (std::size_t i = first; i < x.size(); ++i) x[i] = i - first < first ? neg(x[i - first]) : make<T>(0);
    const device_buffer<T> d = upload(x);
    for (std::int64_t off = 0; off <= 3; ++off) {
      const exact_result_t<T> want = reference(std::span<const T>(x.data() + off, std::size_t(n)));
      for (shape sh : {shape{.grid = 1, .exact_block = 128}, shape{.grid = 1, .exact_block = 256},
                       shape{.grid = 2, .exact_block = 128}, shape{}})
        EXPECT_TRUE(same_result(s.shaped(d.data() + off, n, sh), want))
            << "exponent " << e << " offset " << off << " grid " << sh.grid << " block " << sh.exact_block;
    }
  }
}

TYPED_TEST(ExactAll, OneWorkspaceManyCallsInARow) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using R = exact_result_t<T>;
  std::mt19937_64 g(29);
  std::vector<std::vector<T>> inputs = {{nan<T>(), make<T>(1)}, std::vector<T>(5000, neg_zero<T>()), {},
                                        {max_finite<T>(), max_finite<T>()}, {inf<T>(), make<T>(2)}};
  for (std::int64_t n : {100003LL, 4097LL, 3LL}) {
    std::vector<T> x(std::size_t(std::min(n, cured::test::max_test_n())));
    for (auto& v : x) v = random_value<T>(g, bias<T> - 10, bias<T> + 10);
    inputs.push_back(x);
  }
  inputs.push_back({tiny<T>(), max_finite<T>(), neg(max_finite<T>())});
  std::vector<device_buffer<T>> d;
  std::vector<R> want;
  for (const auto& x : inputs) d.push_back(upload(x)), want.push_back(reference(x));
  const int calls = 120;
  cured::workspace ws;
  device_buffer<R> out(calls);
  CURED_CHECK(cudaMemset(out.data(), 0xA5, calls * sizeof(R)));
  // Back to back on one stream, no synchronization between calls, varying grids and blocks.
  for (int c = 0; c < calls; ++c) {
    const std::size_t i = std::size_t(c) % inputs.size();
    const auto n = std::int64_t(inputs[i].size());
    const shape sh{.grid = c % 3 == 1 ? 1 + c % 9 : 0, .exact_block = c % 2 ? 128u : 256u};
    if (c % 3 == 0) cured::exact_sum_async(d[i].data(), n, out.data() + c, ws);
    else cured::detail::exact_sum<cured::detail::mode::async>(d[i].data(), n, out.data() + c, ws, nullptr, sh);
  }
  std::vector<R> got(calls);
  CURED_CHECK(cudaMemcpy(got.data(), out.data(), calls * sizeof(R), cudaMemcpyDeviceToHost));
  for (int c = 0; c < calls; ++c)
    EXPECT_TRUE(same_result(got[std::size_t(c)], want[std::size_t(c) % inputs.size()])) << "call " << c;
  // The blocking form, on the default stream and on a stream of its own.
  cudaStream_t st;
  CURED_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (int c = 0; c < 40; ++c) {
    const std::size_t i = std::size_t(c) % inputs.size();
    const R r = cured::exact_sum(d[i].data(), std::int64_t(inputs[i].size()), c % 2 ? st : nullptr);
    EXPECT_TRUE(same_result(r, want[i])) << "blocking call " << c;
  }
  CURED_CHECK(cudaStreamDestroy(st));
}

TYPED_TEST(ExactAll, GraphCaptureAndReplay) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using R = exact_result_t<T>;
  const std::int64_t n = std::min<std::int64_t>(1000003, cured::test::max_test_n());  // doubles: both passes
  device_buffer<T> d(static_cast<std::size_t>(n));
  device_buffer<R> out(2);
  cured::workspace ws;
  cudaStream_t s;
  CURED_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CURED_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cured::exact_sum_async(d.data(), n, out.data(), ws, s);
  cured::detail::exact_sum<cured::detail::mode::async>(d.data(), n, out.data() + 1, ws, s,
                                                       {.grid = 7, .exact_block = 128});
  CURED_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CURED_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  std::mt19937_64 g(31);
  for (int replay = 0; replay < 8; ++replay) {
    std::vector<T> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = random_value<T>(g, bias<T> - 10, bias<T> + 10);
    if (replay == 2) x[std::size_t(n / 2)] = nan<T>();
    if (replay == 3) std::fill(x.begin(), x.end(), neg_zero<T>());
    if (replay == 5) {  // cancels to one tiny value: the double estimate cannot decide it
      for (std::int64_t i = 0; i + 1 < n; i += 2) x[std::size_t(i + 1)] = neg(x[std::size_t(i)]);
      x.back() = tiny<T>();
      if (n % 2 == 0) x[std::size_t(n - 2)] = make<T>(0);
    }
    const R want = reference(x);
    CURED_CHECK(cudaMemcpyAsync(d.data(), x.data(), std::size_t(n) * sizeof(T), cudaMemcpyHostToDevice, s));
    CURED_CHECK(cudaMemsetAsync(out.data(), 0xA5, 2 * sizeof(R), s));
    CURED_CHECK(cudaGraphLaunch(exec, s));
    R got[2];
    CURED_CHECK(cudaMemcpyAsync(got, out.data(), 2 * sizeof(R), cudaMemcpyDeviceToHost, s));
    CURED_CHECK(cudaStreamSynchronize(s));
    EXPECT_TRUE(same_result(got[0], want)) << "replay " << replay;
    EXPECT_TRUE(same_result(got[1], want)) << "replay " << replay << ", grid 7";
  }
  CURED_CHECK(cudaGraphExecDestroy(exec));
  CURED_CHECK(cudaGraphDestroy(graph));
  CURED_CHECK(cudaStreamDestroy(s));
}

TEST(Exact, BadInputIsACuredError) {
  CURED_REQUIRE_GPU();
  device_buffer<float> d(100), out(1);
  CURED_CHECK(cudaMemset(d.data(), 0, 100 * sizeof(float)));
  cured::workspace ws;
  std::vector<float> host(100, 1.0f);
  std::vector<double> host_d(100, 1.0);
  const float* none = nullptr;
  EXPECT_THROW(cured::exact_sum(none, 10), cured::error);
  EXPECT_THROW(cured::exact_sum_async(none, 10, out.data(), ws), cured::error);
  EXPECT_THROW(cured::exact_sum(host.data(), 100), cured::error);
  EXPECT_THROW(cured::exact_sum(host_d.data(), 100), cured::error);
  EXPECT_THROW(cured::exact_sum_async(host.data(), 100, out.data(), ws), cured::error);
  EXPECT_THROW(cured::exact_sum(d.data(), -1), cured::error);
  EXPECT_THROW(cured::exact_sum_async(d.data(), -1, out.data(), ws), cured::error);
  EXPECT_THROW(cured::exact_sum_async(d.data(), 100, static_cast<float*>(nullptr), ws), cured::error);
  float host_out = 0;
  EXPECT_THROW(cured::exact_sum_async(d.data(), 100, &host_out, ws), cured::error);
  // The workspace still works, and n = 0 needs no input.
  const float one = 1.0f;
  CURED_CHECK(cudaMemcpy(d.data() + 7, &one, sizeof one, cudaMemcpyHostToDevice));
  cured::exact_sum_async(d.data(), 100, out.data(), ws);
  float got = 0;
  CURED_CHECK(cudaMemcpy(&got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same_result(got, 1.0f));
  EXPECT_TRUE(same_result(cured::exact_sum(none, 0), 0.0f));
  cured::exact_sum_async(none, 0, out.data(), ws);
  CURED_CHECK(cudaMemcpy(&got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same_result(got, 0.0f));
}

TEST(Exact, WorkspaceOfAnotherDeviceIsAnError) {
  CURED_REQUIRE_GPU();
  int count = 0;
  CURED_CHECK(cudaGetDeviceCount(&count));
  if (count < 2) GTEST_SKIP() << "needs two devices";
  CURED_CHECK(cudaSetDevice(1));
  cured::workspace ws1;
  CURED_CHECK(cudaSetDevice(0));
  device_buffer<float> d(100), out(1);
  EXPECT_THROW(cured::exact_sum_async(d.data(), 100, out.data(), ws1), cured::error);
}

// ---- more than 2^32 elements, filled on the device -----------------------------------------

/// Element i is pattern(i % 70): +(1 + (r % 7) eps) at even r, -(1/2 + (r % 5) eps / 2) at odd r.
template <class T>
__host__ __device__ double pattern(std::int64_t r) {
  const double eps = std::is_same_v<T, __half> ? 0x1p-10 : 0x1p-20;
  return r % 2 == 0 ? 1 + double(r % 7) * eps : -(0.5 + double(r % 5) * eps / 2);
}

template <class T>
__global__ void fill_pattern(T* x, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = from_double<T>(pattern<T>(i % 70));
}

template <class T>
void more_than_2_to_32_elements() {
  using R = exact_result_t<T>;
  const std::int64_t n = (std::int64_t(1) << 32) + 3;
  const std::size_t need = std::size_t(n) * sizeof(T) + (std::size_t(1) << 30);
  if (n > cured::test::max_test_n()) GTEST_SKIP() << "above CURED_TEST_MAX_N";
  if (cured::test::free_device_bytes() < need) GTEST_SKIP() << "needs " << (need >> 20) << " MiB of device memory";
  device_buffer<T> d(static_cast<std::size_t>(n));
  fill_pattern<T><<<4096, 256>>>(d.data(), n);
  CURED_CHECK_LAUNCH();
  // Plant 2^10 at n - 2 (past 2^32): it must be counted.
  const std::int64_t at = n - 2;
  const T planted = make<T>(1024);
  CURED_CHECK(cudaMemcpy(d.data() + at, &planted, sizeof(T), cudaMemcpyHostToDevice));
  // The exact total, per residue class: count * value is exact in double (26 + 23 bits).
  cured::cpu::exact_accumulator acc;
  for (std::int64_t r = 0; r < 70; ++r) {
    EXPECT_EQ(widen(from_double<T>(pattern<T>(r))), pattern<T>(r)) << "pattern not representable";
    acc.add(double(n / 70 + (r < n % 70)) * pattern<T>(r));
  }
  acc.add(1024.0);
  acc.add(-pattern<T>(at % 70));
  R want;
  if constexpr (std::is_same_v<R, double>) want = acc.round_to_double();
  else want = acc.round_to_float();
  EXPECT_TRUE(same_result(cured::exact_sum(d.data(), n), want)) << "blocking";
  cured::workspace ws;
  device_buffer<R> out(1);
  cured::exact_sum_async(d.data(), n, out.data(), ws);
  R got;
  CURED_CHECK(cudaMemcpy(&got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same_result(got, want)) << "async";
}

TEST(Exact, MoreThan2To32Floats) {
  CURED_REQUIRE_GPU();
  more_than_2_to_32_elements<float>();
}

TEST(Exact, MoreThan2To32Halves) {
  CURED_REQUIRE_GPU();
  more_than_2_to_32_elements<__half>();
}

TEST(Exact, MoreThan2To32Doubles) {
  CURED_REQUIRE_GPU();
  more_than_2_to_32_elements<double>();
}

}  // namespace
