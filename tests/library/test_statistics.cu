// The one-pass statistics of whole arrays (cured/statistics.cuh) against long double
// references (statistics_reference.hpp), within each method's error bound: float, double,
// half and bfloat16; sizes from 0 over every launch shape; NaN and infinities, one element,
// constant inputs, huge and tiny values for the norm, -inf for logsumexp, ill-conditioned
// variances; the asynchronous forms, determinism, bad arguments; and above 2^32 elements.
// The operators' tests (statistic_ops.cuh) run on the host, with or without a GPU; the others
// skip without one.

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "cured/cured.cuh"
#include "harness/statistics_reference.hpp"
#include "tests/support/elements.cuh"
#include "tests/support/gpu.cuh"

namespace {

using cured::harness::chain_of;
using cured::test::device_buffer;
using cured::test::from_double;
using cured::test::to_double;
using cured::test::upload;
using cured::harness::near;
using cured::harness::reference_of;
using cured::harness::statistics_reference;

template <class T>
double unit() {  // the unit roundoff of the statistics' accumulator
  return std::numeric_limits<cured::statistic_t<T>>::epsilon() / 2;
}

/// n values of mean `mu` and spread `sigma`, as T, and their exact values.
template <class T>
std::vector<T> normal_values(std::int64_t n, double mu, double sigma, std::uint64_t seed, std::vector<double>& exact) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(mu, sigma);
  std::vector<T> v(static_cast<std::size_t>(n));
  exact.resize(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = from_double<T>(d(rng));
    exact[i] = to_double(v[i]);
  }
  return v;
}

// ---- the operators, on the host ------------------------------------------------------------------

TEST(StatisticOps, MomentsMatchTwoPassAndCombine) {
  const std::vector<double> x = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  cured::moments_op op;
  auto a = cured::moments_op::identity<cured::moments<double>>();
  auto b = a;
  for (std::size_t i = 0; i < 4; ++i) a = op(a, x[i]);
  for (std::size_t i = 4; i < x.size(); ++i) b = op(b, x[i]);
  const auto m = op(a, b);
  const statistics_reference r = reference_of(x);
  EXPECT_EQ(m.weight, 10);
  EXPECT_NEAR(m.mean, double(r.mean), 1e-15);
  EXPECT_NEAR(m.m2, double(r.m2), 1e-13);
  const auto id = cured::moments_op::identity<cured::moments<double>>();
  EXPECT_EQ(op(id, m).m2, m.m2);
  EXPECT_EQ(op(m, id).mean, m.mean);
}

TEST(StatisticOps, LogSumExpRules) {
  using L = cured::log_sum_exp<double>;
  cured::log_sum_exp_op op;
  const auto total = [&](std::vector<double> x) {
    L s = cured::log_sum_exp_op::identity<L>();
    for (double v : x) s = op(s, v);
    return s.max + std::log(s.sum);
  };
  EXPECT_EQ(total({}), -INFINITY);
  EXPECT_EQ(total({-INFINITY, -INFINITY}), -INFINITY);
  EXPECT_EQ(total({1, INFINITY, 2}), INFINITY);
  EXPECT_EQ(total({INFINITY, INFINITY}), INFINITY);
  EXPECT_TRUE(std::isnan(total({1, NAN, 2})));
  EXPECT_TRUE(std::isnan(total({INFINITY, NAN})));
  EXPECT_NEAR(total({-INFINITY, 1000, 1000}), 1000 + std::log(2.0), 1e-12);
  EXPECT_NEAR(total({0, std::log(3.0)}), std::log(4.0), 1e-15);
  // Combining states: the rescaling either way, and -inf states.
  L a = op(op(cured::log_sum_exp_op::identity<L>(), 5.0), 7.0), b = op(cured::log_sum_exp_op::identity<L>(), -double(INFINITY));
  const L c = op(a, b), d = op(b, a);
  EXPECT_NEAR(c.max + std::log(c.sum), std::log(std::exp(5.0) + std::exp(7.0)), 1e-14);
  EXPECT_NEAR(d.max + std::log(d.sum), std::log(std::exp(5.0) + std::exp(7.0)), 1e-14);
}

// add_all, the kernels' step per round of values, against one value at a time: equal rules for
// infinities and NaN, equal values within rounding otherwise.
TEST(StatisticOps, AddAllMatchesOneAtATime) {
  using L = cured::log_sum_exp<double>;
  using M = cured::moments<double>;
  const cured::log_sum_exp_op lse;
  const cured::moments_op mom;
  const double inf = INFINITY, nan = NAN, big = 1e308;
  const std::vector<std::array<double, 4>> rounds = {
      {1, 2, 3, 4},         {-inf, -inf, -inf, -inf}, {-inf, 5, -inf, 1},  {inf, 1, 2, 3},     {1, nan, 2, 3},
      {nan, nan, nan, nan}, {inf, -inf, 0, 0},        {-700, -1, 0, -800}, {big, big, big, 1}, {nan, 1, inf, 2}};
  const std::vector<std::array<double, 4>> before = {{}, {-inf, -inf, -inf, -inf}, {10, 0, 0, 0}, {inf, 0, 0, 0}, {-3, 7, 7, 0}};
  const auto same = [](double a, double b, double tolerance) {
    return (std::isnan(a) && std::isnan(b)) || a == b || std::fabs(a - b) <= tolerance * std::fabs(b);
  };
  for (std::size_t b = 0; b < before.size(); ++b) {
    for (const auto& x : rounds) {
      std::ostringstream what;
      what << "state " << b << ", round " << x[0] << " " << x[1] << " " << x[2] << " " << x[3];
      SCOPED_TRACE(what.str());
      L l = cured::log_sum_exp_op::identity<L>();
      M m = cured::moments_op::identity<M>();
      for (std::size_t i = 0; i < (b == 0 ? 0 : 3); ++i) {
        l = lse(l, before[b][i]);
        m = mom(m, before[b][i]);
      }
      L l1 = l;
      M m1 = m;
      for (const double v : x) {
        l1 = lse(l1, v);
        m1 = mom(m1, v);
      }
      const double(&xs)[4] = *reinterpret_cast<const double(*)[4]>(x.data());
      const L l4 = lse.add_all(l, xs);
      const M m4 = mom.add_all(m, xs);
      EXPECT_TRUE(same(l4.max + std::log(l4.sum), l1.max + std::log(l1.sum), 1e-15))
          << l4.max << "+log " << l4.sum << " vs " << l1.max << "+log " << l1.sum;
      EXPECT_EQ(m4.weight, m1.weight);
      EXPECT_TRUE(same(m4.mean, m1.mean, 1e-15)) << m4.mean << " vs " << m1.mean;
      EXPECT_TRUE(same(m4.m2, m1.m2, 1e-14)) << m4.m2 << " vs " << m1.m2;
    }
  }
  // Where Welford's difference overflows (-big then big), the round's two passes keep the mean.
  const double spread[4] = {-big, big, 0, 1};
  const M m = mom.add_all(cured::moments_op::identity<M>(), spread);
  EXPECT_EQ(m.mean, 0.25);
  EXPECT_EQ(m.m2, inf);
  EXPECT_TRUE(std::isnan(mom(mom(mom(cured::moments_op::identity<M>(), -big), big), 0.0).mean));
}

TEST(StatisticOps, ScaledSquaresNeitherOverflowNorUnderflow) {
  cured::scaled_squares_op op;
  using S = cured::scaled_squares<double>;
  const auto norm = [&](std::vector<double> x) {
    S s = cured::scaled_squares_op::identity<S>();
    for (double v : x) s = op(s, std::fabs(v));
    return s.root();
  };
  EXPECT_DOUBLE_EQ(norm({3e300, 4e300}), 5e300);
  EXPECT_DOUBLE_EQ(norm({3e-300, 4e-300}), 5e-300);
  EXPECT_DOUBLE_EQ(norm({3e-320, 4e-320}), std::hypot(3e-320, 4e-320));
  EXPECT_DOUBLE_EQ(norm({1e300, 1, 1e-300}), 1e300);
  EXPECT_DOUBLE_EQ(norm({1e-300, 1}), 1);
  EXPECT_DOUBLE_EQ(norm({}), 0);
  EXPECT_EQ(norm({1, INFINITY}), INFINITY);
  EXPECT_TRUE(std::isnan(norm({INFINITY, NAN})));
  EXPECT_TRUE(std::isnan(norm({1e-300, NAN})));
}

TEST(StatisticOps, MinMaxPropagatesNaN) {
  cured::min_max_op op;
  auto m = cured::min_max_op::identity<cured::min_max<float>>();
  EXPECT_EQ(m.min, INFINITY);
  EXPECT_EQ(m.max, -INFINITY);
  m = op(op(m, 2.0f), -1.0f);
  EXPECT_EQ(m.min, -1.0f);
  EXPECT_EQ(m.max, 2.0f);
  m = op(m, NAN);
  EXPECT_TRUE(std::isnan(m.min) && std::isnan(m.max));
}

// ---- whole arrays on the device ------------------------------------------------------------------

template <class T>
class Statistics : public ::testing::Test {};
using floating_types = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(Statistics, floating_types);

/// Whether m2 (n var) fits T's statistics' accumulator F: it overflows beyond F's range and
/// underflows below its normals, as torch's does, so the spreads are checked where it fits.
template <class T>
bool m2_fits(const statistics_reference& r) {
  using F = cured::statistic_t<T>;
  return r.m2 == 0 || std::isnan((double)r.m2) ||
         (r.m2 > std::numeric_limits<F>::min() * 0x1p30 && r.m2 < std::numeric_limits<F>::max() / 4);
}

/// var_mean (ddof) of n values of T against the reference: var within (k + depth) u kappa
/// relative, within a factor of 4; the mean within a sum's bound over n.
template <class T, class R>
void expect_var_mean(const R& vm, const statistics_reference& r, std::int64_t n, double ddof) {
  const double u = unit<T>(), k = chain_of(n);
  const long double mean_bound = 2 * k * u * (n ? r.abs_sum / n : 0);
  const long double want = r.var(ddof);
  const long double bound = 4 * k * u * r.kappa() * want + 4 * u * want;
  EXPECT_TRUE(near(vm.var, want, bound)) << "var " << vm.var << " vs " << double(want) << " ddof " << ddof;
  if (std::isinf((double)r.mean))  // Welford's mean: NaN once an infinity meets another value
    EXPECT_TRUE(std::isnan(vm.mean) || vm.mean == (double)r.mean) << "mean " << vm.mean;
  else
    EXPECT_TRUE(near(vm.mean, r.mean, mean_bound + 2 * k * u * std::sqrt(r.m2 / (n ? n : 1))))
        << "mean " << vm.mean << " vs " << double(r.mean);
}

/// logsumexp of n values of T against the reference: absolute error within 2^-20 (float's
/// exponentials) plus the sum's and the result's roundings.
template <class T>
void expect_logsumexp(double lse, const statistics_reference& r, std::int64_t n) {
  const double u = unit<T>(), k = chain_of(n);
  const double exp_error = std::is_same_v<cured::statistic_t<T>, float> ? 0x1p-20 : 0x1p-50;
  EXPECT_TRUE(near(lse, r.log_sum_exp, exp_error + 2 * k * u + 2 * u * std::fabs(r.log_sum_exp)))
      << lse << " vs " << double(r.log_sum_exp);
}

/// Every statistic of `h` against the reference of its exact values `x`.
template <class T>
void check_all(const std::vector<T>& h, const std::vector<double>& x, const std::string& what) {
  SCOPED_TRACE(what + ", n = " + std::to_string(h.size()));
  const std::int64_t n = std::int64_t(h.size());
  const device_buffer<T> d = upload(h);
  const statistics_reference r = reference_of(x);
  const double u = unit<T>(), k = chain_of(n);
  // mean: a sum's bound over n.
  const long double mean_bound = 2 * k * u * (n ? r.abs_sum / n : 0);
  EXPECT_TRUE(near(cured::mean(d.data(), n), r.mean, mean_bound)) << cured::mean(d.data(), n) << " vs " << double(r.mean);
  // var and std: (k + depth) u kappa relative, within a factor of 4; mean within the mean's bound.
  for (const double ddof : {0.0, 1.0}) {
    if (!m2_fits<T>(r)) break;
    const auto vm = cured::var_mean(d.data(), n, ddof);
    const long double want = r.var(ddof);
    const long double bound = 4 * k * u * r.kappa() * want + 4 * u * want;
    expect_var_mean<T>(vm, r, n, ddof);
    const auto sm = cured::std_mean(d.data(), n, ddof);
    EXPECT_TRUE(near(sm.std, std::sqrt(want), (bound / 2 + 2 * u * want) / (want > 0 ? std::sqrt(want) : 1)))
        << "std " << sm.std;
    EXPECT_EQ(std::memcmp(&sm.mean, &vm.mean, sizeof vm.mean), 0);
    const auto v = cured::var(d.data(), n, ddof), s = cured::std(d.data(), n, ddof);
    EXPECT_EQ(std::memcmp(&v, &vm.var, sizeof v), 0);
    EXPECT_EQ(std::memcmp(&s, &sm.std, sizeof s), 0);
  }
  // aminmax: exact.
  const auto mm = cured::aminmax(d.data(), n);
  EXPECT_TRUE(near(to_double(mm.min), r.min, 0)) << to_double(mm.min) << " vs " << double(r.min);
  EXPECT_TRUE(near(to_double(mm.max), r.max, 0)) << to_double(mm.max) << " vs " << double(r.max);
  // norms: 1 as a sum; 2 from squares in double (float, bfloat16), float (half) or Blue's
  // (double), then one rounding; inf exact.
  EXPECT_TRUE(near(cured::vector_norm(d.data(), n, 1), r.abs_sum, 2 * k * u * r.abs_sum));
  const long double l2 = std::sqrt(r.squares);
  const double sq_u = std::is_same_v<T, __half> || std::is_same_v<T, double> ? u : 0x1p-53;
  EXPECT_TRUE(near(cured::vector_norm(d.data(), n, 2), l2, (1.01 * u + k * sq_u) * l2))
      << cured::vector_norm(d.data(), n, 2) << " vs " << double(l2);
  EXPECT_TRUE(near(cured::vector_norm(d.data(), n, INFINITY), r.abs_max, 0));
  expect_logsumexp<T>(cured::logsumexp(d.data(), n), r, n);
  EXPECT_EQ(cured::count_nonzero(d.data(), n), r.nonzero);
  EXPECT_EQ(cured::any(d.data(), n), r.nonzero > 0);
  EXPECT_EQ(cured::all(d.data(), n), r.nonzero == n);
}

TYPED_TEST(Statistics, Sizes) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  for (const std::int64_t n : {0, 1, 2, 3, 31, 1000, 4096, 4097, 16385, 100003, 1 << 20, (1 << 22) + 5}) {
    if (n > cured::test::max_test_n()) continue;
    std::vector<double> x;
    const auto h = normal_values<T>(n, 1.5, 2.0, 7 + n, x);
    check_all(h, x, "normal");
  }
}

TYPED_TEST(Statistics, IllConditionedVariance) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  if constexpr (!std::is_same_v<T, __half>) {  // half's spacing at 1000 is 0.5
    // Mean 1000, spread 1: kappa about 1000, where sum(x^2) - n mean^2 in T loses about
    // u kappa^2 relative (60% in float) and Welford keeps (k + depth) u kappa.
    const std::int64_t n = std::min<std::int64_t>(1 << 20, cured::test::max_test_n());
    std::vector<double> x;
    const auto h = normal_values<T>(n, 1000.0, 1.0, 11, x);
    check_all(h, x, "mean 1000, spread 1");
  }
}

TYPED_TEST(Statistics, SpecialValues) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const double big = std::is_same_v<T, __half> ? 60000.0 : std::is_same_v<T, double> ? 1e300 : 1e30;
  const double tiny = std::is_same_v<T, __half> ? 1e-7 : std::is_same_v<T, double> ? 1e-300 : 1e-30;
  const std::vector<std::vector<double>> cases = {
      {7},                                  // one element: var NaN with ddof 1, 0 with ddof 0
      {2.5, 2.5, 2.5, 2.5, 2.5},            // constant: var exactly 0
      {1, NAN, 3},                          // NaN: every floating statistic NaN
      {1, INFINITY, 3},                     // +inf
      {-INFINITY, -INFINITY},               // logsumexp -inf
      {-INFINITY, 2, -INFINITY, 3},         // -inf among numbers
      {0, -0.0, 0, 0},                      // zeros: any false, all false
      {big, big, -big, big},                // 2-norm without overflow
      {tiny, -tiny, tiny, tiny, tiny},      // 2-norm without underflow
  };
  for (const auto& c : cases) {
    std::vector<T> h;
    std::vector<double> x;
    for (double v : c) {
      h.push_back(from_double<T>(v));
      x.push_back(to_double(h.back()));
    }
    check_all(h, x, "special");
  }
  // Longer runs of the same kinds, over many threads (at 2^22 + 3 each thread's whole rounds
  // take the operators' add_all).
  for (const std::int64_t n : {5000, 300001, (1 << 22) + 3}) {
    if (n > cured::test::max_test_n()) continue;
    std::vector<T> h(std::size_t(n), from_double<T>(big));
    std::vector<double> x(h.size(), to_double(h[0]));
    check_all(h, x, "all big");
    for (auto& v : h) v = from_double<T>(tiny);
    for (auto& v : x) v = to_double(h[0]);
    check_all(h, x, "all tiny");
    for (std::size_t i = 0; i < h.size(); ++i) {
      h[i] = from_double<T>(i % 7 == 3 ? -INFINITY : double(i % 13));
      x[i] = to_double(h[i]);
    }
    check_all(h, x, "-inf every seventh");
    h[h.size() / 3] = from_double<T>(INFINITY);
    x[x.size() / 3] = INFINITY;
    check_all(h, x, "one +inf");
    h[h.size() / 2] = from_double<T>(NAN);
    x[x.size() / 2] = NAN;
    check_all(h, x, "one NaN");
  }
}

// Grids of one and two blocks over 3.4 rounds of the kernel's loads, from an aligned and a
// misaligned start, at sizes the sanitizers run: each thread takes whole rounds through the
// operators' add_all before its last partial round and its head and tail, and two blocks meet
// through the hand-over.
TYPED_TEST(Statistics, RoundsOfFewBlocks) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using policy = cured::detail::single_pass_policy;
  using cured::detail::mode;
  const std::int64_t round = std::int64_t(policy::block) * policy::unroll * std::int64_t(16 / sizeof(T));
  const std::int64_t n = 3 * round + round * 2 / 5;
  std::vector<double> all;
  std::vector<T> h = normal_values<T>(n + 1, 1.5, 2.0, 17, all);
  cured::workspace ws;
  device_buffer<cured::var_mean_result<cured::statistic_t<T>>> vm(1);
  device_buffer<cured::statistic_t<T>> lse(1);
  const auto first = [](const auto& b) {  // b's first element, on the host
    std::remove_pointer_t<decltype(b.data())> v;
    CURED_CHECK(cudaMemcpy(&v, b.data(), sizeof v, cudaMemcpyDeviceToHost));
    return v;
  };
  for (const std::string values : {"normal", "-inf every seventh, one +inf"}) {
    if (values != "normal") {
      for (std::size_t i = 3; i < h.size(); i += 7) h[i] = from_double<T>(-INFINITY), all[i] = -INFINITY;
      h[h.size() / 2] = from_double<T>(INFINITY), all[all.size() / 2] = INFINITY;
    }
    const device_buffer<T> d = upload(h);
    for (const std::int64_t grid : {1, 2})
      for (const std::int64_t start : {0, 1}) {
        SCOPED_TRACE(values + ", grid " + std::to_string(grid) + ", start " + std::to_string(start));
        const statistics_reference r = reference_of(std::vector<double>(all.begin() + start, all.begin() + start + n));
        const cured::detail::launch_options o{.grid = grid};
        cured::detail::whole_statistic<mode::async>(d.data() + start, n, lse.data(),
                                                    cured::detail::logsumexp_statistic<T>(), ws, nullptr, o);
        const auto s = cured::detail::var_statistic<cured::detail::statistic_kind::var_mean, T>(1.0);
        cured::detail::whole_statistic<mode::async>(d.data() + start, n, vm.data(), s, ws, nullptr, o);
        expect_logsumexp<T>(first(lse), r, n);
        if (m2_fits<T>(r)) expect_var_mean<T>(first(vm), r, n, 1.0);
      }
  }
}

TEST(StatisticsWhole, ConstantIsExact) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = std::min<std::int64_t>(3 << 20, cured::test::max_test_n());
  const std::vector<float> h(std::size_t(n), 0.1f);
  const device_buffer<float> d = upload(h);
  const auto vm = cured::var_mean(d.data(), n, 0.0);
  EXPECT_EQ(vm.var, 0.0f);
  EXPECT_EQ(vm.mean, 0.1f);
}

TEST(StatisticsWhole, AsyncFormsMatchAndRepeat) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = std::min<std::int64_t>((1 << 22) + 77, cured::test::max_test_n());
  std::vector<double> x;
  const auto h = normal_values<float>(n, -3.0, 10.0, 5, x);
  const device_buffer<float> d = upload(h);
  cured::workspace ws;
  cudaStream_t s;
  CURED_CHECK(cudaStreamCreate(&s));
  device_buffer<cured::var_mean_result<float>> vm(2);
  device_buffer<cured::min_max<float>> mm(1);
  device_buffer<float> f(4);
  device_buffer<std::int64_t> c(1);
  device_buffer<bool> b(2);
  for (int rep = 0; rep < 2; ++rep) {
    cured::var_mean_async(d.data(), n, vm.data() + rep, 1.0, ws, s);
    cured::aminmax_async(d.data(), n, mm.data(), ws, s);
    cured::vector_norm_async(d.data(), n, f.data(), 2.0, ws, s);
    cured::logsumexp_async(d.data(), n, f.data() + 1, ws, s);
    cured::mean_async(d.data(), n, f.data() + 2, ws, s);
    cured::std_async(d.data(), n, f.data() + 3, 1.0, ws, s);
    cured::count_nonzero_async(d.data(), n, c.data(), ws, s);
    cured::any_async(d.data(), n, b.data(), ws, s);
    cured::all_async(d.data(), n, b.data() + 1, ws, s);
  }
  CURED_CHECK(cudaStreamSynchronize(s));
  CURED_CHECK(cudaStreamDestroy(s));
  cured::var_mean_result<float> got[2];
  CURED_CHECK(cudaMemcpy(got, vm.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::memcmp(&got[0], &got[1], sizeof got[0]), 0);  // deterministic
  const auto blocking = cured::var_mean(d.data(), n);
  EXPECT_EQ(std::memcmp(&got[0], &blocking, sizeof blocking), 0);
  float fs[4];
  CURED_CHECK(cudaMemcpy(fs, f.data(), sizeof fs, cudaMemcpyDeviceToHost));
  const float want[4] = {cured::vector_norm(d.data(), n), cured::logsumexp(d.data(), n), cured::mean(d.data(), n),
                         cured::std(d.data(), n)};
  EXPECT_EQ(std::memcmp(fs, want, sizeof fs), 0);
  cured::min_max<float> m;
  CURED_CHECK(cudaMemcpy(&m, mm.data(), sizeof m, cudaMemcpyDeviceToHost));
  EXPECT_EQ(m.min, cured::aminmax(d.data(), n).min);
  std::int64_t count;
  CURED_CHECK(cudaMemcpy(&count, c.data(), sizeof count, cudaMemcpyDeviceToHost));
  EXPECT_EQ(count, cured::count_nonzero(d.data(), n));
}

TEST(StatisticsWhole, IntegersForCountsAndExtremes) {
  CURED_REQUIRE_GPU();
  std::vector<std::int32_t> h(100000);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::int32_t((i * 7919) % 1001) - 500;
  const device_buffer<std::int32_t> d = upload(h);
  const auto mm = cured::aminmax(d.data(), std::int64_t(h.size()));
  EXPECT_EQ(mm.min, -500);
  EXPECT_EQ(mm.max, 500);
  std::int64_t nz = 0;
  for (auto v : h) nz += v != 0;
  EXPECT_EQ(cured::count_nonzero(d.data(), std::int64_t(h.size())), nz);
  EXPECT_TRUE(cured::any(d.data(), std::int64_t(h.size())));
  EXPECT_FALSE(cured::all(d.data(), std::int64_t(h.size())));
}

TEST(StatisticsWhole, BadArguments) {
  const float* none = nullptr;
  EXPECT_THROW(cured::var(none, 0, -1.0), cured::error);
  EXPECT_THROW(cured::var(none, 0, NAN), cured::error);
  EXPECT_THROW(cured::vector_norm(none, 0, 3.0), cured::error);
  EXPECT_THROW(cured::vector_norm(none, 0, 0.0), cured::error);
  CURED_REQUIRE_GPU();
  EXPECT_THROW(cured::mean(none, -1), cured::error);
  std::vector<float> host(4, 1.0f);
  EXPECT_THROW(cured::mean(host.data(), 4), cured::error);  // host memory
}

TEST(StatisticsWhole, AboveTwoToThe32) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 32) + 9;
  if (n > cured::test::max_test_n() || cured::test::free_device_bytes() < std::size_t(n) * 2 + (std::size_t(1) << 30))
    GTEST_SKIP() << "needs 8.6 GB of device memory";
  device_buffer<__half> d(static_cast<std::size_t>(n));
  CURED_CHECK(cudaMemset(d.data(), 0x3c, std::size_t(n) * 2));  // every element 0x3c3c = 1.05859375
  CURED_CHECK(cudaMemset(d.data() + n - 4, 0, 6));              // three zeros near the end
  const double v = 1.05859375;
  EXPECT_EQ(cured::count_nonzero(d.data(), n), n - 3);
  EXPECT_FALSE(cured::all(d.data(), n));
  const auto mm = cured::aminmax(d.data(), n);
  EXPECT_EQ(float(mm.min), 0.0f);
  EXPECT_EQ(float(mm.max), float(v));
  const double mean = v * double(n - 3) / double(n);
  EXPECT_NEAR(cured::mean(d.data(), n), mean, 1e-3);
  const auto vm = cured::var_mean(d.data(), n, 0.0);
  EXPECT_NEAR(vm.mean, mean, 1e-3);
  EXPECT_NEAR(vm.var, v * v * 3.0 / double(n), 1e-6);
  EXPECT_NEAR(cured::vector_norm(d.data(), n), v * std::sqrt(double(n - 3)), 2e-3 * v * std::sqrt(double(n)));
}

}  // namespace
