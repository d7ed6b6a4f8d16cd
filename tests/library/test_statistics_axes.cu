// The one-pass statistics along axes (cured/statistics_axes.cuh) and per segment
// (cured/statistics_segments.cuh) against long double references per output
// (statistics_reference.hpp): rows short and long, columns, several reduced axes, empty
// reductions, strided and half outputs, segments of every length with empty ones, NaN and
// -inf rows; second outputs and bad offsets rejected. Every test skips without a GPU.

#include <gtest/gtest.h>

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cured/cured.cuh"
#include "harness/statistics_reference.hpp"
#include "tests/support/gpu.cuh"

namespace {

using cured::test::device_buffer;
using cured::test::upload;
using cured::harness::near;
using cured::harness::reference_of;
using cured::harness::statistics_reference;

template <class T>
std::vector<T> download(const device_buffer<T>& d, std::size_t n) {
  std::vector<T> h(n);
  if (n) CURED_CHECK(cudaMemcpy(h.data(), d.data(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

/// Device outputs of every statistic for `count` results.
struct outputs {
  explicit outputs(std::size_t count)
      : count(count), f(11 * count + 1), nz(count + 1), truth(2 * count + 1) {}
  std::size_t count;
  device_buffer<float> f;  // mean, var, var_mean's var and mean, std, min, max, norms 1, 2, inf, lse
  device_buffer<std::int64_t> nz;
  device_buffer<bool> truth;  // any, all
  float* at(int k) const { return f.data() + k * count; }
};

/// Launches every statistic into o: launch(k, kind) for the float outputs, then the counts.
struct launches {
  std::function<void(float*)> mean, var1, lse, std0;
  std::function<void(float*, float*)> var_mean0, aminmax;
  std::function<void(float*, double)> norm;
  std::function<void(std::int64_t*)> count;
  std::function<void(bool*, bool)> truth;
};

void run(const launches& l, const outputs& o) {
  l.mean(o.at(0));
  l.var1(o.at(1));
  l.var_mean0(o.at(2), o.at(3));
  l.std0(o.at(4));
  l.aminmax(o.at(5), o.at(6));
  l.norm(o.at(7), 1);
  l.norm(o.at(8), 2);
  l.norm(o.at(9), INFINITY);
  l.lse(o.at(10));
  l.count(o.nz.data());
  l.truth(o.truth.data(), false);
  l.truth(o.truth.data() + o.count, true);
}

/// Each output's statistics against the reference of its values, chained through at most
/// `chain` elements per thread.
void check(const outputs& o, const std::vector<std::vector<double>>& groups, double chain) {
  const std::vector<float> f = download(o.f, 11 * o.count);
  const std::vector<std::int64_t> nz = download(o.nz, o.count);
  std::vector<char> truth(2 * o.count);
  if (o.count) CURED_CHECK(cudaMemcpy(truth.data(), o.truth.data(), truth.size(), cudaMemcpyDeviceToHost));
  const double u = 0x1p-24;
  int failures = 0;
  for (std::size_t g = 0; g < groups.size() && failures < 5; ++g) {
    const statistics_reference r = reference_of(groups[g]);
    const auto got = [&](int k) { return double(f[k * o.count + g]); };
    const long double n = r.count, k = chain + std::log2(n + 2) + 8;
    const long double mean_bound = 2 * k * u * (n > 0 ? r.abs_sum / n : 0);
    const auto var_bound = [&](long double v) { return 4 * k * u * r.kappa() * v + 4 * u * v; };
    const bool ok = near(got(0), r.mean, mean_bound) && near(got(1), r.var(1), var_bound(r.var(1))) &&
                    near(got(2), r.var(0), var_bound(r.var(0))) &&
                    (std::isinf((double)r.mean) ? std::isnan(got(3)) || got(3) == (double)r.mean
                                                : near(got(3), r.mean, mean_bound + 2 * k * u * std::sqrt(r.m2 / (n > 0 ? n : 1)))) &&
                    near(got(4), std::sqrt(r.var(0)), var_bound(r.var(0)) / std::sqrt(r.var(0) > 0 ? r.var(0) : 1) + 2 * u * std::sqrt(r.var(0))) &&
                    near(got(5), r.min, 0) && near(got(6), r.max, 0) && near(got(7), r.abs_sum, 2 * k * u * r.abs_sum) &&
                    near(got(8), std::sqrt(r.squares), (1.01 * u + k * 0x1p-53) * std::sqrt(r.squares)) &&
                    near(got(9), r.abs_max, 0) &&
                    near(got(10), r.log_sum_exp, 0x1p-20 + 2 * k * u + 2 * u * std::fabs(r.log_sum_exp)) &&
                    nz[g] == r.nonzero && bool(truth[g]) == (r.nonzero > 0) &&
                    bool(truth[o.count + g]) == (r.nonzero == r.count);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "output " << g << " of " << r.count << " values: mean " << got(0) << "/" << double(r.mean)
                    << " var " << got(1) << "/" << double(r.var(1)) << " var0 " << got(2) << "/" << double(r.var(0))
                    << " vm.mean " << got(3) << " std " << got(4) << " min " << got(5) << "/" << double(r.min)
                    << " max " << got(6) << "/" << double(r.max) << " l1 " << got(7) << "/" << double(r.abs_sum)
                    << " l2 " << got(8) << "/" << double(std::sqrt(r.squares)) << " linf " << got(9) << " lse "
                    << got(10) << "/" << double(r.log_sum_exp) << " nz " << nz[g] << "/" << r.nonzero;
    }
  }
}

/// Values with a few NaN, -inf and zero elements mixed in (rate 0: none).
std::vector<float> values(std::size_t n, std::uint64_t seed, double special_rate) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(3.0, 4.0);
  std::uniform_real_distribution<double> p(0, 1);
  std::vector<float> v(n);
  for (auto& x : v) {
    x = float(d(rng));
    const double q = p(rng);
    if (q < special_rate) x = NAN;
    else if (q < 2 * special_rate) x = -INFINITY;
    else if (q < 4 * special_rate) x = 0;
  }
  return v;
}

/// The statistics of x along `along` into outputs of `count` elements in the kept axes' order.
launches axis_launches(cured::strided_view<const float> x, cured::axes along, std::int64_t count) {
  const auto v = [count](auto* p) { return cured::view(p, {count}); };
  launches l;
  l.mean = [=](float* o) { cured::mean(x, along, v(o)); };
  l.var1 = [=](float* o) { cured::var(x, along, v(o)); };
  l.var_mean0 = [=](float* a, float* b) { cured::var_mean(x, along, v(a), v(b), 0.0); };
  l.std0 = [=](float* o) { cured::std(x, along, v(o), 0.0); };
  l.aminmax = [=](float* a, float* b) { cured::aminmax(x, along, v(a), v(b)); };
  l.norm = [=](float* o, double p) { cured::vector_norm(x, along, v(o), p); };
  l.lse = [=](float* o) { cured::logsumexp(x, along, v(o)); };
  l.count = [=](std::int64_t* o) { cured::count_nonzero(x, along, v(o)); };
  l.truth = [=](bool* o, bool all) {
    if (all) cured::all(x, along, v(o));
    else cured::any(x, along, v(o));
  };
  return l;
}

TEST(StatisticsAxes, RowsAndColumns) {
  CURED_REQUIRE_GPU();
  for (const auto& [rows, length] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1000, 1}, {777, 3}, {4096, 32}, {513, 37}, {64, 1000}, {3, 70001}, {1, 300000}, {20000, 5},
           // rows of 2 to 64 vectors, four or more a lane (statistic_row_vectors), and unaligned ones
           {100, 6}, {2048, 16}, {400, 40}, {1024, 64}, {333, 127}, {512, 128}, {300, 256}}) {
    if (rows * length > cured::test::max_test_n()) continue;
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(length));
    const std::vector<float> h = values(std::size_t(rows * length), rows + length, 0.001);
    const device_buffer<float> d = upload(h);
    const auto x = cured::view(static_cast<const float*>(d.data()), {rows, length});
    std::vector<std::vector<double>> by_row(rows), by_column(length);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < length; ++c) {
        by_row[r].push_back(h[r * length + c]);
        by_column[c].push_back(h[r * length + c]);
      }
    outputs o_rows(rows), o_columns(length);
    run(axis_launches(x, {1}, rows), o_rows);
    check(o_rows, by_row, double(length));
    run(axis_launches(x, {0}, length), o_columns);
    check(o_columns, by_column, double(rows));
  }
}

TEST(StatisticsAxes, SeveralAxesAndEmptyReductions) {
  CURED_REQUIRE_GPU();
  const std::int64_t a = 6, b = 50, c = 33;
  const std::vector<float> h = values(std::size_t(a * b * c), 3, 0.002);
  const device_buffer<float> d = upload(h);
  const auto x = cured::view(static_cast<const float*>(d.data()), {a, b, c});
  std::vector<std::vector<double>> groups(b);
  for (std::int64_t i = 0; i < a; ++i)
    for (std::int64_t j = 0; j < b; ++j)
      for (std::int64_t k = 0; k < c; ++k) groups[j].push_back(h[(i * b + j) * c + k]);
  outputs o(b);
  run(axis_launches(x, {0, 2}, b), o);
  check(o, groups, double(a * c));
  // A reduced axis of extent 0: every output of no elements.
  const auto empty = cured::view(static_cast<const float*>(d.data()), {7, 0});
  outputs e(7);
  run(axis_launches(empty, {1}, 7), e);
  check(e, std::vector<std::vector<double>>(7), 1);
}

// Every axis of a contiguous array: the whole-array kernels, bit-identical to the whole-array
// functions; converted to a half output once.
TEST(StatisticsAxes, EveryAxisOfAContiguousArray) {
  CURED_REQUIRE_GPU();
  const std::int64_t a = 64, b = 1000, n = a * b;
  std::vector<float> h = values(std::size_t(n), 21, 0);  // finite: every statistic is a number
  for (std::size_t i = 5; i < h.size(); i += 997) h[i] = 0;  // some zeros: counts below n, all() false
  const device_buffer<float> d = upload(h);
  const float* p = d.data();
  const auto x = cured::view(p, {a, b});
  device_buffer<float> f(4);
  device_buffer<std::int64_t> c(1);
  device_buffer<std::uint8_t> t(2);
  device_buffer<__half> hf(1);
  const auto one = [](auto* q) { return cured::view(q, {1, 1}); };  // extent 1 on the reduced axes
  cured::logsumexp(x, {0, 1}, one(f.data()));
  cured::vector_norm(x, {1, 0}, one(f.data() + 1), 2.0);
  cured::mean(x, {0, 1}, one(f.data() + 2));
  cured::var(x, {0, 1}, one(f.data() + 3));
  cured::count_nonzero(x, {0, 1}, one(c.data()));
  cured::any(x, {0, 1}, one(t.data()));
  cured::all(x, {0, 1}, one(t.data() + 1));
  cured::mean(x, {0, 1}, one(hf.data()));
  const auto got = download(f, 4);
  const float want[4] = {cured::logsumexp(p, n), cured::vector_norm(p, n, 2.0), cured::mean(p, n), cured::var(p, n)};
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(std::isfinite(want[i])) << i;
    EXPECT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0) << i << ": " << got[i] << " vs " << want[i];
  }
  EXPECT_EQ(download(c, 1)[0], cured::count_nonzero(p, n));
  const auto truth = download(t, 2);
  EXPECT_EQ(truth[0], std::uint8_t(cured::any(p, n)));
  EXPECT_EQ(truth[1], std::uint8_t(cured::all(p, n)));
  EXPECT_EQ(__half2float(download(hf, 1)[0]), __half2float(__float2half(want[2])));
  EXPECT_LT(download(c, 1)[0], n);
  EXPECT_EQ(truth[0], 1);
  EXPECT_EQ(truth[1], 0);
}

TEST(StatisticsAxes, HalfInputStridedAndConvertedOutputs) {
  CURED_REQUIRE_GPU();
  const std::int64_t rows = 300, length = 129;
  const std::vector<float> f = values(std::size_t(rows * length), 9, 0);
  std::vector<__half> h(f.size());
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = __float2half(f[i]);
  const device_buffer<__half> d = upload(h);
  device_buffer<__half> var(2 * rows);
  device_buffer<double> mean(2 * rows);
  const auto x = cured::view(static_cast<const __half*>(d.data()), {rows, length});
  cured::var_mean(x, {1}, cured::view(var.data(), {rows}, {2}), cured::view(mean.data(), {rows}, {2}));
  const auto hv = download(var, 2 * rows);
  const auto hm = download(mean, 2 * rows);
  for (std::int64_t r = 0; r < rows; ++r) {
    std::vector<double> g;
    for (std::int64_t c = 0; c < length; ++c) g.push_back(double(__half2float(h[r * length + c])));
    const statistics_reference ref = reference_of(g);
    EXPECT_NEAR(double(__half2float(hv[2 * r])), double(ref.var(1)), 1e-3 * double(ref.var(1))) << r;
    EXPECT_NEAR(hm[2 * r], double(ref.mean), 1e-5 * (1 + std::fabs(double(ref.mean)))) << r;
  }
}

TEST(StatisticsAxes, SecondOutputMustMatchTheFirst) {
  CURED_REQUIRE_GPU();
  device_buffer<float> d(64), a(8), b(16);
  const auto x = cured::view(static_cast<const float*>(d.data()), {8, 8});
  EXPECT_THROW(cured::var_mean(x, {1}, cured::view(a.data(), {8}), cured::view(b.data(), {8}, {2})), cured::error);
  EXPECT_THROW(cured::aminmax(x, {1}, cured::view(a.data(), {8}), cured::view(a.data() + 4, {8})), cured::error);
  EXPECT_THROW(cured::var(x, {1}, cured::view(a.data(), {8}), -2.0), cured::error);
  EXPECT_THROW(cured::vector_norm(x, {1}, cured::view(a.data(), {8}), 0.5), cured::error);
}

// ---- segments ------------------------------------------------------------------------------------

launches segment_launches(const float* x, std::int64_t n, cured::segments seg) {
  launches l;
  l.mean = [=](float* o) { cured::mean(x, n, seg, o); };
  l.var1 = [=](float* o) { cured::var(x, n, seg, o); };
  l.var_mean0 = [=](float* a, float* b) { cured::var_mean(x, n, seg, a, b, 0.0); };
  l.std0 = [=](float* o) { cured::std(x, n, seg, o, 0.0); };
  l.aminmax = [=](float* a, float* b) { cured::aminmax(x, n, seg, a, b); };
  l.norm = [=](float* o, double p) { cured::vector_norm(x, n, seg, o, p); };
  l.lse = [=](float* o) { cured::logsumexp(x, n, seg, o); };
  l.count = [=](std::int64_t* o) { cured::count_nonzero(x, n, seg, o); };
  l.truth = [=](bool* o, bool all) {
    if (all) cured::all(x, n, seg, o);
    else cured::any(x, n, seg, o);
  };
  return l;
}

TEST(StatisticsSegments, EveryLength) {
  CURED_REQUIRE_GPU();
  std::mt19937_64 rng(17);
  std::vector<std::int64_t> offsets{5};
  for (int s = 0; s < 3000; ++s) {
    const int kind = int(rng() % 20);
    const std::int64_t len = kind == 0 ? 0 : kind < 12 ? std::int64_t(rng() % 9) : kind < 19 ? std::int64_t(rng() % 700)
                                                                                             : std::int64_t(rng() % 40000);
    offsets.push_back(offsets.back() + len);
  }
  const std::int64_t n = offsets.back() + 3;
  if (n > cured::test::max_test_n()) GTEST_SKIP() << "larger than CURED_TEST_MAX_N";
  const std::vector<float> h = values(std::size_t(n), 23, 0.0005);
  const device_buffer<float> d = upload(h);
  const device_buffer<std::int64_t> d_off = upload(offsets);
  const std::int64_t count = std::int64_t(offsets.size()) - 1;
  std::vector<std::vector<double>> groups(count);
  double longest = 1;
  for (std::int64_t s = 0; s < count; ++s) {
    for (std::int64_t i = offsets[s]; i < offsets[s + 1]; ++i) groups[s].push_back(h[i]);
    longest = std::max(longest, double(groups[s].size()));
  }
  outputs o(count);
  run(segment_launches(d.data(), n, {d_off.data(), count}), o);
  check(o, groups, longest);
}

TEST(StatisticsSegments, Pairs) {
  CURED_REQUIRE_GPU();
  // Begin and end pairs with gaps between them: none, short, and long enough to go unread.
  std::mt19937_64 rng(29);
  std::vector<std::int64_t> begins, ends;
  std::int64_t at = 3;
  for (int s = 0; s < 2000; ++s) {
    const int kind = int(rng() % 10);
    at += kind < 4 ? 0 : kind < 8 ? std::int64_t(rng() % 30) : std::int64_t(rng() % 3000);
    begins.push_back(at);
    at += rng() % 3 ? std::int64_t(rng() % 12) : std::int64_t(rng() % 5000);
    ends.push_back(at);
  }
  const std::int64_t n = at + 10;
  if (n > cured::test::max_test_n()) GTEST_SKIP() << "larger than CURED_TEST_MAX_N";
  const std::vector<float> h = values(std::size_t(n), 31, 0.0005);
  const device_buffer<float> d = upload(h);
  const device_buffer<std::int64_t> d_begins = upload(begins), d_ends = upload(ends);
  const std::int64_t count = std::int64_t(begins.size());
  std::vector<std::vector<double>> groups(count);
  double longest = 1;
  for (std::int64_t s = 0; s < count; ++s) {
    for (std::int64_t i = begins[s]; i < ends[s]; ++i) groups[s].push_back(h[i]);
    longest = std::max(longest, double(groups[s].size()));
  }
  outputs o(count);
  run(segment_launches(d.data(), n, cured::segments::pairs(d_begins.data(), d_ends.data(), count)), o);
  check(o, groups, longest);
}

TEST(StatisticsSegments, BadOffsetsAndOutputs) {
  CURED_REQUIRE_GPU();
  const std::vector<std::int64_t> offsets{0, 4, 2, 8};
  const device_buffer<float> d = upload(std::vector<float>(8, 1.0f));
  const device_buffer<std::int64_t> d_off = upload(offsets);
  device_buffer<float> a(3), b(6);
  EXPECT_THROW(cured::var_mean(d.data(), 8, {d_off.data(), 3}, a.data(), b.data()), cured::error);
  EXPECT_THROW(cured::logsumexp(d.data(), 8, {d_off.data(), 3}, a.data()), cured::error);
  const device_buffer<std::int64_t> good = upload(std::vector<std::int64_t>{0, 4, 4, 8});
  EXPECT_THROW(cured::aminmax(d.data(), 8, {good.data(), 3}, cured::view(a.data(), {3}), cured::view(b.data(), {3}, {2})),
               cured::error);
  EXPECT_THROW(cured::var_mean(d.data(), 8, {good.data(), 3}, a.data(), a.data()), cured::error);
  cured::var_mean(d.data(), 8, {good.data(), 3}, a.data(), b.data(), 0.0);
  const auto var = download(a, 3), mean = download(b, 3);
  EXPECT_EQ(var[0], 0.0f);
  EXPECT_TRUE(std::isnan(var[1]) && std::isnan(mean[1]));  // the empty segment
  EXPECT_EQ(mean[2], 1.0f);
}

}  // namespace
