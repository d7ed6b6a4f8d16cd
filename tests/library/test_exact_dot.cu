// The exact dot products on the GPU: every result must be the bits of the exact sum of the
// exact products, rounded once (cured::cpu::exact_dot, and closed forms where the answer is
// known): cancellation, ties, products beyond the range and below the subnormals, NaN and inf,
// the sign of zero, permutations, alignments, graphs and more than 2^32 elements.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cured/cured.cuh"
#include "tests/library/exact_values.cuh"
#include "tests/support/gpu.cuh"

namespace {

using namespace cured::test::exact_values;
using cured::exact_result_t;
using cured::test::device_buffer;
using shape = cured::detail::launch_options;

template <class T>
class ExactDot : public ::testing::Test {};
using all_types = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(ExactDot, all_types);

/// The exact dot product of device arrays in every form on one workspace.
template <class T>
struct dots {
  using R = exact_result_t<T>;
  cured::workspace ws;
  device_buffer<R> out{1};
  R read() {
    R r;
    CURED_CHECK(cudaMemcpy(&r, out.data(), sizeof r, cudaMemcpyDeviceToHost));
    return r;
  }
  R async(const T* x, const T* y, std::int64_t n) {
    cured::exact_dot_async(x, y, n, out.data(), ws);
    return read();
  }
  R shaped(const T* x, const T* y, std::int64_t n, const shape& sh) {
    cured::detail::exact_dot<cured::detail::mode::async>(x, y, n, out.data(), ws, nullptr, sh);
    return read();
  }
  /// Every form against `want`: blocking, async, blocks of 128 and 256, and fixed grids.
  void check(const T* x, const T* y, std::int64_t n, R want, const std::string& where) {
    EXPECT_TRUE(same_result(cured::exact_dot(x, y, n), want)) << where << ", blocking";
    EXPECT_TRUE(same_result(async(x, y, n), want)) << where << ", async";
    const int max_grid = ws.sm_count() * cured::workspace::max_blocks_per_sm;
    for (const shape& sh : {shape{.grid = 0, .exact_block = 128}, shape{.grid = 1, .exact_block = 256},
                            shape{.grid = 7, .exact_block = 128}, shape{.grid = 1000, .exact_block = 256}})
      if (sh.grid <= max_grid)
        EXPECT_TRUE(same_result(shaped(x, y, n, sh), want)) << where << ", grid " << sh.grid << " block " << sh.exact_block;
  }
  /// Uploads x and y and checks every form against `want` and `want` against the CPU reference.
  void check(const std::vector<T>& x, const std::vector<T>& y, R want, const std::string& where) {
    EXPECT_TRUE(same_result(dot_reference<T>(x, y), want)) << where << ": the CPU reference disagrees";
    const device_buffer<T> dx = upload(x), dy = upload(y);
    check(dx.data(), dy.data(), std::int64_t(x.size()), want, where);
  }
};

template <class T>
std::vector<T> normal_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<T> v(n);
  for (auto& e : v) e = from_double<T>(nd(g));
  return v;
}

// ---- against the CPU reference -------------------------------------------------------------

TYPED_TEST(ExactDot, RandomInputsMatchTheReference) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  dots<T> d;
  for (std::int64_t n : {0LL, 1LL, 3LL, 1000LL, 4097LL, 1000003LL}) {
    if (!fits(n)) continue;
    const std::vector<T> x = normal_values<T>(std::size_t(n), 1), y = normal_values<T>(std::size_t(n), 2);
    d.check(x, y, dot_reference<T>(x, y), "n " + std::to_string(n));
  }
}

TYPED_TEST(ExactDot, WholeRangeValuesMatchTheReference) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  dots<T> d;
  std::mt19937_64 g(3);
  for (std::int64_t n : {5LL, 777LL, 65537LL}) {
    if (!fits(n)) continue;
    std::vector<T> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
    // Exponents from the subnormals up: products from far below the subnormals of the result
    // to near its largest value, their sum finite (products of halves stay below 2^32).
    constexpr int e_hi = std::is_same_v<T, __half> ? fmt<T>::exp_max : bias<T> + bias<T> / 2 - 10;
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = random_value<T>(g, 0, e_hi);
      y[i] = random_value<T>(g, 0, e_hi);
    }
    d.check(x, y, dot_reference<T>(x, y), "whole range, n " + std::to_string(n));
  }
}

// ---- closed forms --------------------------------------------------------------------------

TYPED_TEST(ExactDot, HugeTermsCancelToExactlyZeroOrTheSmallOne) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  dots<T> d;
  // Pairs (a, b), (a, -b) of large values, shuffled: every product cancels; then 3 * 0.5.
  std::mt19937_64 g(4);
  std::vector<T> x, y;
  for (int i = 0; i < 5000; ++i) {
    const T a = random_value<T>(g, bias<T>, fmt<T>::exp_max - 2), b = random_value<T>(g, bias<T>, fmt<T>::exp_max - 2);
    x.push_back(a), y.push_back(b), x.push_back(a), y.push_back(neg(b));
  }
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), g);
  std::vector<T> sx, sy;
  for (std::size_t k : order) sx.push_back(x[k]), sy.push_back(y[k]);
  d.check(sx, sy, exact_result_t<T>(0), "cancel to +0");
  sx.push_back(make<T>(3)), sy.push_back(make<T>(0.5));
  d.check(sx, sy, exact_result_t<T>(1.5), "cancel to 1.5");
}

TYPED_TEST(ExactDot, TiesRoundToEven) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using R = exact_result_t<T>;
  dots<T> d;
  // 1 + half an ulp of 1 in R: a tie, to 1; with one more smallest product, above it.
  // 1 * 1 + root * (half_ulp / root) + 3 * 5 + 3 * -5, every factor representable in T.
  const double half_ulp = std::is_same_v<R, double> ? 0x1p-53 : 0x1p-24;
  const double root = std::is_same_v<R, double> ? 0x1p-26 : 0x1p-12;
  std::vector<T> x = {make<T>(1), make<T>(root), make<T>(3), make<T>(3)};
  std::vector<T> y = {make<T>(1), make<T>(half_ulp / root), make<T>(5), make<T>(-5)};
  d.check(x, y, R(1), "1 + half an ulp");
  x.push_back(make<T>(root)), y.push_back(make<T>(root / 1024));
  d.check(x, y, R(1 + 2 * half_ulp), "just above the tie");
}

TYPED_TEST(ExactDot, ProductsBeyondTheRangeCountExactly) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using R = exact_result_t<T>;
  dots<T> d;
  const T big = max_finite<T>();
  // big * big lies far beyond R's largest value (for double: beyond 2^2046); it cancels.
  d.check({big, big, make<T>(2)}, {big, neg(big), make<T>(3)}, R(6), "cancelled overflow");
  // An uncancelled product beyond R's range: inf of its sign (products of halves stay below
  // 2^32, far inside float's range).
  const std::vector<T> x = {big, make<T>(1)}, y = {neg(big), make<T>(1)};
  const R want = dot_reference<T>(x, y);
  if constexpr (!std::is_same_v<T, __half>)
    EXPECT_TRUE(same_result(want, -std::numeric_limits<R>::infinity())) << "reference";
  d.check(x, y, want, "overflow");
}

TYPED_TEST(ExactDot, ProductsBelowTheSubnormalsCountExactly) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using R = exact_result_t<T>;
  dots<T> d;
  // The smallest subnormal of T squared: far below R's smallest subnormal (for half and float
  // results: 2^-48 and 2^-298 are below 2^-149 only for float and bfloat16).
  const T t = tiny<T>();
  const double tt = widen(t) * widen(t);  // exact in double except for double inputs
  std::vector<T> x(64, t), y(64, t);
  exact_result_t<T> want = dot_reference<T>(x, y);
  if constexpr (!std::is_same_v<T, double>) EXPECT_TRUE(same_result(want, R(64 * tt))) << "reference";
  d.check(x, y, want, "64 squares of the smallest subnormal");
  // Products of the smallest subnormal and a power of two that land exactly on R's smallest
  // subnormal, half of it (a tie: to +0) and one and a half of it (a tie: to two of it).
  const double r_tiny = std::is_same_v<R, double> ? 0x1p-1074 : 0x1p-149;
  const double scale = r_tiny / widen(t) / 2;  // t * scale = half of R's smallest subnormal
  if (std::isfinite(scale) && widen(from_double<T>(scale)) == scale) {
    const T s = from_double<T>(scale);
    d.check({t}, {s}, R(0), "half of the smallest subnormal");
    d.check({t, t, t}, {s, s, s}, R(2 * r_tiny), "one and a half of the smallest subnormal");
    d.check({t, t}, {s, s}, R(r_tiny), "the smallest subnormal");
  }
}

TYPED_TEST(ExactDot, SpecialValuesFollowIeee) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using R = exact_result_t<T>;
  dots<T> d;
  const T one = make<T>(1), two = make<T>(2), zero = make<T>(0), i = inf<T>(), n = nan<T>();
  const R r_inf = std::numeric_limits<R>::infinity();
  d.check({one, n}, {one, one}, std::numeric_limits<R>::quiet_NaN(), "NaN");
  d.check({one, snan<T>()}, {one, one}, std::numeric_limits<R>::quiet_NaN(), "signalling NaN");
  d.check({one, i}, {one, zero}, std::numeric_limits<R>::quiet_NaN(), "inf * 0");
  d.check({i, two}, {neg(zero), one}, std::numeric_limits<R>::quiet_NaN(), "inf * -0");
  d.check({i, one}, {two, one}, r_inf, "inf * 2");
  d.check({i, one}, {neg(two), one}, -r_inf, "inf * -2");
  d.check({i, i}, {two, neg(two)}, std::numeric_limits<R>::quiet_NaN(), "inf - inf");
  // An exact zero is -0 only when every product is -0.
  d.check({neg(zero), zero}, {one, neg(one)}, -R(0), "-0 + -0");
  d.check({neg(zero), neg(zero)}, {one, neg(one)}, -R(0) + R(0), "-0 + +0");
  d.check({one, neg(one)}, {one, one}, R(0), "1 - 1");
  d.check({}, {}, R(0), "empty");
}

TYPED_TEST(ExactDot, PermutationsAndSwapsGiveTheSameBits) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  dots<T> d;
  std::mt19937_64 g(5);
  const std::size_t n = fits(300000) ? 300000 : 3000;
  std::vector<T> x(n), y(n);
  for (std::size_t k = 0; k < n; ++k) {
    x[k] = random_value<T>(g, 1, fmt<T>::exp_max / 2 + bias<T> / 2);
    y[k] = random_value<T>(g, 1, fmt<T>::exp_max / 2 + bias<T> / 2);
  }
  const auto want = dot_reference<T>(x, y);
  d.check(x, y, want, "original");
  d.check(y, x, want, "x and y swapped");
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  for (int r = 0; r < 3; ++r) {
    std::shuffle(order.begin(), order.end(), g);
    std::vector<T> px(n), py(n);
    for (std::size_t k = 0; k < n; ++k) px[k] = x[order[k]], py[k] = y[order[k]];
    const device_buffer<T> dx = upload(px), dy = upload(py);
    EXPECT_TRUE(same_result(d.shaped(dx.data(), dy.data(), std::int64_t(n), {.grid = 7, .exact_block = 128}), want))
        << "permutation " << r;
  }
}

TYPED_TEST(ExactDot, AnyAlignmentOfEitherInput) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  dots<T> d;
  const std::size_t n = fits(100003) ? 100003 : 2000;
  const std::vector<T> x = normal_values<T>(n + 16, 6), y = normal_values<T>(n + 16, 7);
  const device_buffer<T> dx = upload(x), dy = upload(y);
  for (int ox : {0, 1, 3})
    for (int oy : {0, 1, 2, 7}) {
      for (std::size_t m : {std::size_t(1), std::size_t(9), n}) {
        const auto want = dot_reference<T>(std::span<const T>(x.data() + ox, m), std::span<const T>(y.data() + oy, m));
        d.check(dx.data() + ox, dy.data() + oy, std::int64_t(m), want,
                "offsets " + std::to_string(ox) + ", " + std::to_string(oy) + ", n " + std::to_string(m));
      }
    }
}

TYPED_TEST(ExactDot, CapturedInAGraph) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using R = exact_result_t<T>;
  const std::size_t n = fits(70001) ? 70001 : 3001;
  const std::vector<T> x = normal_values<T>(n, 8), y = normal_values<T>(n, 9);
  const device_buffer<T> dx = upload(x), dy = upload(y);
  const R want = dot_reference<T>(x, y);
  cured::workspace ws;
  device_buffer<R> out(1);
  cudaStream_t s;
  CURED_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CURED_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cured::exact_dot_async(dx.data(), dy.data(), std::int64_t(n), out.data(), ws, s);
  CURED_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CURED_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < 3; ++r) {
    CURED_CHECK(cudaMemsetAsync(out.data(), 0xff, sizeof(R), s));
    CURED_CHECK(cudaGraphLaunch(exec, s));
    CURED_CHECK(cudaStreamSynchronize(s));
    R got;
    CURED_CHECK(cudaMemcpy(&got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_TRUE(same_result(got, want)) << "replay " << r;
  }
  CURED_CHECK(cudaGraphExecDestroy(exec));
  CURED_CHECK(cudaGraphDestroy(graph));
  CURED_CHECK(cudaStreamDestroy(s));
}

TEST(ExactDotErrors, BadInputIsACuredError) {
  CURED_REQUIRE_GPU();
  device_buffer<float> x(10), y(10), out(1);
  cured::workspace ws;
  EXPECT_THROW(cured::exact_dot_async(x.data(), static_cast<const float*>(nullptr), 10, out.data(), ws), cured::error);
  EXPECT_THROW(cured::exact_dot_async(static_cast<const float*>(nullptr), y.data(), 10, out.data(), ws), cured::error);
  EXPECT_THROW(cured::exact_dot_async(x.data(), y.data(), -1, out.data(), ws), cured::error);
  EXPECT_THROW(cured::exact_dot_async(x.data(), y.data(), 10, static_cast<float*>(nullptr), ws), cured::error);
  std::vector<float> host(10, 1.0f);
  EXPECT_THROW((void)cured::exact_dot(host.data(), y.data(), 10), cured::error) << "host memory";
  // Nothing is read for n = 0: null inputs are fine.
  EXPECT_EQ(cured::exact_dot(static_cast<const float*>(nullptr), static_cast<const float*>(nullptr), 0), 0.0f);
}

// ---- the warp's rounding against the one-thread rounding -----------------------------------

template <class Out, int W>
__global__ void warp_round_kernel(const std::int64_t* limbs, int count, int base, Out* out) {
  std::int64_t v[W];
  for (int k = 0; k < W; ++k) {
    const int j = int(threadIdx.x) * W + k;
    v[k] = j < count ? limbs[blockIdx.x * count + j] : 0;
  }
  const Out r = cured::exact::warp_round<Out>(v, base, 0u, false);
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

template <class Out, int W>
void check_warp_round(int count, int base) {
  std::mt19937_64 g(11);
  std::vector<std::int64_t> all;
  const int cases = 400;
  for (int c = 0; c < cases; ++c) {
    std::vector<std::int64_t> l(std::size_t(count), 0);
    const int kind = c % 5;
    // The highest limb in play, low enough that the number stays inside the layout's range.
    const int top = 1 + int(g() % std::uint64_t(count - 3));
    for (int j = 0; j <= top; ++j) {
      if (kind == 0) l[j] = std::int64_t(g() >> 3) - (std::int64_t(1) << 60);  // carry-save, both signs
      else if (kind == 1) l[j] = 0xffffffffLL;                                    // a carry ripples through
      else if (kind == 2) l[j] = j == top ? -1 : 0;                                // a negative power of two
      else if (kind == 3) l[j] = j < 2 ? std::int64_t(g() % 1000) : 0;            // near the bottom: subnormals
      else l[j] = (g() & 1) ? 0xffffffffLL : 0;                                    // ties and sticky bits
    }
    if (kind == 1) l[0] += 1 + std::int64_t(g() % 3);
    if (kind == 4 && (g() & 1)) l[top] = -l[top] - 1;
    all.insert(all.end(), l.begin(), l.end());
  }
  device_buffer<std::int64_t> d(all.size());
  CURED_CHECK(cudaMemcpy(d.data(), all.data(), all.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice));
  device_buffer<Out> out(cases);
  warp_round_kernel<Out, W><<<cases, 32>>>(d.data(), count, base, out.data());
  CURED_CHECK_LAUNCH();
  std::vector<Out> got(cases);
  CURED_CHECK(cudaMemcpy(got.data(), out.data(), cases * sizeof(Out), cudaMemcpyDeviceToHost));
  for (int c = 0; c < cases; ++c) {
    const Out want = cured::exact::round_fixed<Out>(all.data() + std::size_t(c) * count, count, base, 0u, false);
    EXPECT_TRUE(same_result(got[c], want)) << "case " << c << " (kind " << c % 5 << "), " << count << " limbs";
  }
}

TEST(ExactWarpRound, MatchesTheOneThreadRounding) {
  CURED_REQUIRE_GPU();
  namespace ex = cured::exact;
  check_warp_round<float, 1>(ex::layout<float>::limbs, ex::layout<float>::base);
  check_warp_round<double, 3>(ex::layout<double>::limbs, ex::layout<double>::base);
  check_warp_round<float, 1>(ex::float_dot_layout::limbs, ex::float_dot_layout::base);
  check_warp_round<double, 5>(ex::double_dot_layout::limbs, ex::double_dot_layout::base);
}

// ---- more than 2^32 elements -----------------------------------------------------------------

__global__ void fill_halves(__half* x, __half* y, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    x[i] = __float2half_rn(i % 3 == 0 ? 2.0f : 0.5f);  // products 2 * 3 and 0.5 * -1.5
    y[i] = __float2half_rn(i % 3 == 0 ? 3.0f : -1.5f);
  }
}

TEST(ExactDotLarge, MoreThan2To32Halves) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 32) + 5;
  const std::size_t need = 2 * std::size_t(n) * sizeof(__half) + (std::size_t(1) << 30);
  if (n > cured::test::max_test_n()) GTEST_SKIP() << "above CURED_TEST_MAX_N";
  if (cured::test::free_device_bytes() < need) GTEST_SKIP() << "needs " << (need >> 20) << " MiB of device memory";
  device_buffer<__half> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  fill_halves<<<4096, 256>>>(x.data(), y.data(), n);
  CURED_CHECK_LAUNCH();
  // Every third product is 6, the others -0.75: both partial totals are exact in double, and
  // the CPU accumulator rounds their exact sum to float.
  const std::int64_t sixes = (n + 2) / 3, others = n - sixes;
  const double want = 6.0 * double(sixes) - 0.75 * double(others);
  cured::cpu::exact_accumulator acc;
  acc.add(6.0 * double(sixes));
  acc.add(-0.75 * double(others));
  EXPECT_TRUE(same_result(cured::exact_dot(x.data(), y.data(), n), acc.round_to_float())) << "want about " << want;
}

}  // namespace
