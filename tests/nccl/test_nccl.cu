// cured::nccl on real communicators: ranks as processes (harness/ranks.hpp), each checking its
// result against the CPU reference of the whole array: every op on even, uneven and empty
// shards, NaN on one rank only, ties across ranks, more than 2^32 elements in all, exact_sum's
// bits across rank counts (sub-communicators of 1, 2, 4 ... ranks) and splits, mismatched calls
// and NCCL errors.
//
//   cured_tests_nccl --ranks=2          (default 1; ranks beyond the GPUs share them, which
//                                        NCCL refuses: the launch then fails)

#include <gtest/gtest.h>

#include <cuda_fp16.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "cpu/reference.hpp"
#include "cured/cured.cuh"
#include "cured/nccl.cuh"
#include "harness/ranks.hpp"
#include "tests/support/gpu.cuh"

namespace {

using cured::key_value;
using cured::test::device_buffer;
cured::harness::rank_context ctx;

/// Shard lengths over `ranks` ranks for n elements: 0 even, 1 uneven, 2 all on the last rank.
std::vector<std::int64_t> split_of(std::int64_t n, int ranks, int kind) {
  std::vector<std::int64_t> s(ranks, 0);
  if (kind == 2) {
    s.back() = n;
    return s;
  }
  std::int64_t left = n;
  for (int r = 0; r + 1 < ranks; ++r) {
    s[r] = kind == 0 ? n / ranks : std::min<std::int64_t>(left, (left * (r + 1)) / (ranks + 1) + 3);
    left -= s[r];
  }
  s.back() = left;
  return s;
}

/// This rank's shard of h under split s (device copy) and where it starts.
template <class T>
device_buffer<T> shard_of(const std::vector<T>& h, const std::vector<std::int64_t>& s, int rank, std::int64_t* begin) {
  std::int64_t b = 0;
  for (int r = 0; r < rank; ++r) b += s[r];
  *begin = b;
  return cured::test::upload(std::vector<T>(h.begin() + b, h.begin() + b + s[rank]));
}

template <class T>
std::vector<T> values(std::int64_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> d(-1000, 1000);
  std::vector<T> v(n);
  for (auto& x : v) x = T(d(g));
  return v;
}

template <class T>
key_value<T> cpu_arg(const std::vector<T>& h, bool max) {
  key_value<T> best{-1, T(0)};
  for (std::size_t i = 0; i < h.size(); ++i) {
    const bool nan = h[i] != h[i];
    if (best.index >= 0 && best.value != best.value) break;
    if (best.index < 0 || nan || (max ? h[i] > best.value : h[i] < best.value)) best = {std::int64_t(i), h[i]};
  }
  return best;
}

/// Every rank's bits of x, all equal.
template <class T>
bool same_on_every_rank(T x) {
  device_buffer<T> mine(1), all(ctx.ranks);
  CURED_CHECK(cudaMemcpy(mine.data(), &x, sizeof x, cudaMemcpyHostToDevice));
  if (ncclAllGather(mine.data(), all.data(), sizeof x, ncclUint8, ctx.comm, nullptr) != ncclSuccess) return false;
  std::vector<T> h(ctx.ranks);
  CURED_CHECK(cudaMemcpy(h.data(), all.data(), ctx.ranks * sizeof x, cudaMemcpyDeviceToHost));
  for (const T& y : h)
    if (std::memcmp(&y, &x, sizeof x) != 0) return false;
  return true;
}

struct abs_max {
  template <class T>
  __host__ __device__ static T identity() {
    return T(0);
  }
  template <class T>
  __host__ __device__ T operator()(T a, T b) const {  // the larger magnitude; on a tie the larger value
    return fabs(a) != fabs(b) ? (fabs(a) > fabs(b) ? a : b) : (a > b ? a : b);
  }
};

template <class T>
void check_all_ops(const std::vector<T>& h, int kind, const std::string& what) {
  const auto s = split_of(std::int64_t(h.size()), ctx.ranks, kind);
  std::int64_t begin = 0;
  const auto d = shard_of(h, s, ctx.rank, &begin);
  const std::int64_t n = s[ctx.rank];
  const std::string where = what + ", split " + std::to_string(kind);
  double ref = 0, magnitude = 0;
  for (T x : h) ref += double(x), magnitude += std::abs(double(x));
  const auto sum = cured::nccl::sum(d.data(), n, ctx.comm);
  EXPECT_NEAR(double(sum), ref, (sizeof(T) == 4 ? 1e-5 : 1e-12) * magnitude) << where;
  EXPECT_TRUE(same_on_every_rank(sum)) << where;
  EXPECT_EQ(cured::nccl::sum(d.data(), n, ctx.comm), sum) << where << ": the same bits again";
  if (!h.empty()) {
    EXPECT_EQ(cured::nccl::min(d.data(), n, ctx.comm), *std::min_element(h.begin(), h.end())) << where;
    EXPECT_EQ(cured::nccl::max(d.data(), n, ctx.comm), *std::max_element(h.begin(), h.end())) << where;
  }
  for (bool max : {false, true}) {
    const key_value<T> got = max ? cured::nccl::argmax(d.data(), n, ctx.comm) : cured::nccl::argmin(d.data(), n, ctx.comm);
    const key_value<T> want = cpu_arg(h, max);
    EXPECT_EQ(got.index, want.index) << where << (max ? ", argmax" : ", argmin");
    if (want.index >= 0) EXPECT_EQ(got.value, want.value) << where;
  }
  T am = T(0);
  for (T x : h) am = abs_max{}(am, x);
  EXPECT_EQ(cured::nccl::reduce(d.data(), n, abs_max{}, T(0), ctx.comm), am) << where << ", reduce";
  const auto exact = cured::nccl::exact_sum(d.data(), n, ctx.comm);
  EXPECT_EQ(exact, cured::cpu::exact_sum(std::span<const T>(h))) << where << ", exact_sum";
}

TEST(Nccl, EveryOpMatchesTheWholeArray) {
  for (int kind : {0, 1, 2})
    for (std::int64_t n : {std::int64_t(0), std::int64_t(5), std::int64_t(100003), std::int64_t(1) << 24}) {
      check_all_ops(values<float>(n, unsigned(n) + kind), kind, "float n=" + std::to_string(n));
      check_all_ops(values<double>(n, unsigned(n) + kind + 7), kind, "double n=" + std::to_string(n));
    }
}

TEST(Nccl, NaNOnOneRankAndTiesAcrossRanks) {
  std::vector<float> h(4000, 1.f);
  for (std::size_t i = 0; i < h.size(); i += 997) h[i] = 7.f;  // ties in every rank's shard
  for (std::size_t i = 5; i < h.size(); i += 991) h[i] = -7.f;
  check_all_ops(h, 0, "ties");
  check_all_ops(h, 1, "ties");
  h[3999] = std::numeric_limits<float>::quiet_NaN();  // the last rank's shard only
  const auto s = split_of(4000, ctx.ranks, 0);
  std::int64_t begin = 0;
  const auto d = shard_of(h, s, ctx.rank, &begin);
  const std::int64_t n = s[ctx.rank];
  EXPECT_TRUE(std::isnan(cured::nccl::sum(d.data(), n, ctx.comm)));
  EXPECT_TRUE(std::isnan(cured::nccl::min(d.data(), n, ctx.comm)));
  EXPECT_TRUE(std::isnan(cured::nccl::exact_sum(d.data(), n, ctx.comm)));
  EXPECT_EQ(cured::nccl::argmin(d.data(), n, ctx.comm).index, 3999);
  EXPECT_EQ(cured::nccl::argmax(d.data(), n, ctx.comm).index, 3999);
}

TEST(Nccl, ExactSumBitsForEveryRankCountAndSplit) {
  // Values over a wide exponent range with cancellation: shard sums far from the total.
  std::mt19937 g(11);
  std::vector<double> h(300007);
  for (auto& x : h) x = std::ldexp(double(std::int64_t(g()) - (1ll << 31)), int(g() % 200) - 100);
  h[7] = 1e300;
  h[300000] = -1e300;
  const double want = cured::cpu::exact_sum(std::span<const double>(h));
  std::vector<float> f(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) f[i] = float(std::ldexp(h[i], -40));  // within float's range
  f[7] = 3e38f;
  f[300000] = -3e38f;
  const float want_f = cured::cpu::exact_sum(std::span<const float>(f));
  for (int sub = 1; sub <= ctx.ranks; sub *= 2) {
    ncclComm_t comm = ctx.comm;
    if (sub < ctx.ranks)
      ASSERT_EQ(ncclCommSplit(ctx.comm, ctx.rank < sub ? 0 : NCCL_SPLIT_NOCOLOR, ctx.rank, &comm, nullptr), ncclSuccess);
    if (ctx.rank < sub) {
      for (int kind : {0, 1, 2}) {
        const auto s = split_of(std::int64_t(h.size()), sub, kind);
        std::int64_t begin = 0;
        const auto d = shard_of(h, s, ctx.rank, &begin);
        const auto df = shard_of(f, s, ctx.rank, &begin);
        EXPECT_EQ(cured::nccl::exact_sum(d.data(), s[ctx.rank], comm), want) << sub << " ranks, split " << kind;
        EXPECT_EQ(cured::nccl::exact_sum(df.data(), s[ctx.rank], comm), want_f) << sub << " ranks, split " << kind;
      }
      if (comm != ctx.comm) ncclCommDestroy(comm);
    }
  }
}

TEST(Nccl, AsyncFormsAndGraphs) {
  const auto h = values<float>(1 << 20, 3);
  const auto s = split_of(1 << 20, ctx.ranks, 1);
  std::int64_t begin = 0;
  const auto d = shard_of(h, s, ctx.rank, &begin);
  cured::workspace ws;
  cudaStream_t stream;
  CURED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  device_buffer<float> out(1);
  device_buffer<unsigned> status(1);
  const float want = cured::nccl::sum(d.data(), s[ctx.rank], ctx.comm);
  cudaGraph_t graph;
  CURED_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  cured::nccl::sum_async(d.data(), s[ctx.rank], out.data(), ctx.comm, ws, stream, status.data());
  CURED_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CURED_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int k = 0; k < 3; ++k) {
    CURED_CHECK(cudaMemset(out.data(), 0, sizeof(float)));
    CURED_CHECK(cudaGraphLaunch(exec, stream));
    CURED_CHECK(cudaStreamSynchronize(stream));
    float got;
    unsigned st;
    CURED_CHECK(cudaMemcpy(&got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
    CURED_CHECK(cudaMemcpy(&st, status.data(), sizeof st, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, want) << "replay " << k;
    EXPECT_EQ(st, 0u);
  }
  device_buffer<float> e(1);
  cured::nccl::exact_sum_async(d.data(), s[ctx.rank], e.data(), ctx.comm, ws, stream);
  CURED_CHECK(cudaStreamSynchronize(stream));
  float got;
  CURED_CHECK(cudaMemcpy(&got, e.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, cured::cpu::exact_sum(std::span<const float>(h)));
  CURED_CHECK(cudaGraphExecDestroy(exec));
  CURED_CHECK(cudaGraphDestroy(graph));
  CURED_CHECK(cudaStreamDestroy(stream));
}

TEST(Nccl, MoreThan2To32ElementsInAll) {
  const std::int64_t total = (std::int64_t(1) << 32) + 9;
  const std::int64_t n = total / ctx.ranks + (ctx.rank == ctx.ranks - 1 ? total % ctx.ranks : 0);
  if (cured::test::free_device_bytes() < std::size_t(n) * 2 + (std::size_t(1) << 30)) GTEST_SKIP() << "device memory";
  device_buffer<__half> d(n);
  CURED_CHECK(cudaMemset(d.data(), 0, std::size_t(n) * 2));
  const __half one(1.f), three(3.f);
  CURED_CHECK(cudaMemcpy(d.data() + n - 2, &one, 2, cudaMemcpyHostToDevice));  // on every rank
  if (ctx.rank == ctx.ranks - 1) CURED_CHECK(cudaMemcpy(d.data() + n - 1, &three, 2, cudaMemcpyHostToDevice));
  EXPECT_EQ(cured::nccl::exact_sum(d.data(), n, ctx.comm), float(ctx.ranks + 3));
  EXPECT_EQ(cured::nccl::argmax(d.data(), n, ctx.comm).index, total - 1);
}

TEST(Nccl, ErrorsReachEveryRank) {
  const auto d = cured::test::upload(values<float>(1000, 1));
  // A null communicator and a bad pointer: cured::error, and the next calls still work.
  EXPECT_THROW(cured::nccl::sum(d.data(), 1000, nullptr), cured::error);
  if (ctx.ranks == 1) {
    EXPECT_THROW(cured::nccl::sum(static_cast<const float*>(nullptr), 1000, ctx.comm), cured::error);
    EXPECT_THROW(cured::nccl::exact_sum(static_cast<const float*>(nullptr), 1000, ctx.comm), cured::error);
  } else {
    // Rank 1 calls max while the others call min; then rank 0 passes a null pointer: every
    // rank throws, none waits.
    try {
      if (ctx.rank == 1) (void)cured::nccl::max(d.data(), 1000, ctx.comm);
      else (void)cured::nccl::min(d.data(), 1000, ctx.comm);
      ADD_FAILURE() << "no error for mismatched calls";
    } catch (const cured::error& e) {
      EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
    }
    const float* p = ctx.rank == 0 ? nullptr : d.data();
    EXPECT_THROW(cured::nccl::sum(p, 1000, ctx.comm), cured::error);
    EXPECT_THROW(cured::nccl::exact_sum(p, 1000, ctx.comm), cured::error);
    // A communicator of another device than the workspace's.
    cured::workspace other((ctx.device + 1) % ctx.devices);
    device_buffer<float> out(1);
    if (ctx.devices > 1) EXPECT_THROW(cured::nccl::sum_async(d.data(), 1000, out.data(), ctx.comm, other), cured::error);
  }
  EXPECT_EQ(cured::nccl::sum(d.data(), 0, ctx.comm), 0.f) << "the communicator still works";
}


// ---- the elementwise exact all-reduce ---------------------------------------------------------

template <class T>
std::vector<T> download(const device_buffer<T>& d, std::int64_t n) {
  std::vector<T> h(n);
  if (n > 0) CURED_CHECK(cudaMemcpy(h.data(), d.data(), std::size_t(n) * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

/// `total` rows of m values that hard cases fill: terms 2^200 apart, cancellation down to the
/// last bits, ties, subnormals, signed zeros, NaN and infinities in a few elements.
template <class T>
std::vector<T> hard_rows(int total, std::int64_t m, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<double> normal;
  constexpr int wide_spread = std::is_same_v<T, __half> ? 8 : 60;  // half: no overflow to inf
  std::uniform_int_distribution<int> spread(-wide_spread, wide_spread);
  std::vector<T> h(std::size_t(total) * m);
  const double big = std::is_same_v<T, __half> ? 1e4 : std::is_same_v<T, float> ? 1e30 : 1e200;
  const double tiny = std::is_same_v<T, __half> ? 1e-7 : std::is_same_v<T, float> ? 1e-40 : 1e-310;
  for (std::int64_t i = 0; i < m; ++i)
    for (int r = 0; r < total; ++r) {
      double v = normal(g) * std::ldexp(1.0, i % 3 == 0 ? spread(g) : 0);
      switch (i % 11) {
        case 1: v = r == 0 ? big : r == 1 ? -big : v * 1e-3; break;  // cancellation of the largest
        case 2: v = r % 2 ? tiny : -tiny * 0.5; break;                // subnormals
        case 3: v = r == 0 ? 1.0 : std::ldexp(1.0, -24 - r); break;    // just above and below ties
        case 4: v = -0.0; break;                                      // every term -0
        case 5: v = r == 0 ? -0.0 : 0.0; break;
        default: break;
      }
      h[std::size_t(r) * m + i] = T(v);
    }
  if (m > 40 && total >= 2) {
    h[7] = T(std::numeric_limits<double>::quiet_NaN());
    h[std::size_t(m) + 8] = T(std::numeric_limits<double>::infinity());
    h[std::size_t(m) + 9] = T(std::numeric_limits<double>::infinity());
    h[std::size_t(total - 1) * m + 9] = T(-std::numeric_limits<double>::infinity());
  }
  return h;
}

/// The exact sums of the columns of h (total rows of m) on one GPU: segments of the transposed rows.
template <class T>
std::vector<cured::exact_result_t<T>> column_sums(const std::vector<T>& h, int total, std::int64_t m) {
  std::vector<T> t(h.size());
  std::vector<std::int64_t> offsets(m + 1);
  for (std::int64_t i = 0; i < m; ++i)
    for (int r = 0; r < total; ++r) t[std::size_t(i) * total + r] = h[std::size_t(r) * m + i];
  for (std::int64_t i = 0; i <= m; ++i) offsets[i] = i * total;
  const auto d = cured::test::upload(t);
  const auto o = cured::test::upload(offsets);
  device_buffer<cured::exact_result_t<T>> out(m);
  cured::exact_sum(d.data(), std::int64_t(t.size()), cured::segments{o.data(), m}, out.data());
  return download(out, m);
}

/// Rank r's rows of h: r, r + ranks, r + 2 * ranks ... (none for some ranks when total < ranks).
template <class T>
std::vector<T> my_rows(const std::vector<T>& h, int total, std::int64_t m, std::int64_t* rows) {
  std::vector<T> mine;
  *rows = 0;
  for (int r = ctx.rank; r < total; r += ctx.ranks, ++*rows) mine.insert(mine.end(), h.begin() + r * m, h.begin() + (r + 1) * m);
  return mine;
}

template <class T>
void expect_bits(const std::vector<T>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0) << "element " << i << ": " << double(got[i]) << " vs "
                                                          << double(want[i]);
}

/// exact_only: the seam that sends every element through the exact pass.
template <class T>
void exact_all_reduce_case(int total, std::int64_t m, unsigned seed, bool exact_only = false) {
  using R = cured::exact_result_t<T>;
  const auto h = hard_rows<T>(total, m, seed);
  std::int64_t rows = 0;
  const auto mine = my_rows(h, total, m, &rows);
  const auto in = cured::test::upload(mine.empty() ? std::vector<T>(1) : mine);
  device_buffer<R> out(m > 0 ? m : 1);
  cured::nccl::detail::exact_all_reduce(in.data(), rows, m, m, out.data(), ctx.comm, nullptr, exact_only);
  if (m > 0) expect_bits(download(out, m), column_sums(h, total, m));
}

// Every path: one int64 an element (float, half), two (double; float with many rows), the
// exact pass for undecided elements and blocks with NaN or infinities (the hard data's), and the
// exact pass for every element (the seam).
TEST(Nccl, ExactAllReduceBitsOfHardData) {
  for (std::int64_t m : {std::int64_t(1), std::int64_t(3), std::int64_t(4099), std::int64_t(300000)}) {
    if (m > cured::test::max_test_n()) continue;
    SCOPED_TRACE(m);
    exact_all_reduce_case<float>(4, m, 1);
    exact_all_reduce_case<double>(4, m, 2);
    exact_all_reduce_case<__half>(3, m, 3);
    exact_all_reduce_case<float>(1, m, 4);  // most ranks without rows
    exact_all_reduce_case<float>(9, m, 5);
    if (m <= 4099) {
      exact_all_reduce_case<float>(200, m, 6);  // 200 terms an element: two int64s
      exact_all_reduce_case<float>(4, m, 7, true);
      exact_all_reduce_case<double>(4, m, 8, true);
    }
  }
}

TEST(Nccl, ExactAllReduceInPlaceAndEmpty) {
  const std::int64_t m = std::min<std::int64_t>(70001, cured::test::max_test_n());
  auto h = hard_rows<float>(ctx.ranks, m, 7);
  const auto want = column_sums(h, ctx.ranks, m);
  auto d = cured::test::upload(std::vector<float>(h.begin() + ctx.rank * m, h.begin() + (ctx.rank + 1) * m));
  cured::nccl::exact_all_reduce(d.data(), m, ctx.comm);
  expect_bits(download(d, m), want);
  // No rows anywhere: +0; no elements: nothing.
  device_buffer<float> out(5);
  cured::nccl::exact_all_reduce(d.data(), 0, m, 5, out.data(), ctx.comm);
  expect_bits(download(out, 5), std::vector<float>(5, 0.f));
  cured::nccl::exact_all_reduce(d.data(), 1, 0, 0, out.data(), ctx.comm);
}

TEST(Nccl, ExactAllReduceMismatchesReachEveryRank) {
  const auto d = cured::test::upload(values<float>(1000, 3));
  const auto e = cured::test::upload(values<double>(1000, 3));
  device_buffer<float> out(1000);
  device_buffer<double> out64(1000);
  if (ctx.ranks > 1) {
    const std::int64_t m = ctx.rank == 1 ? 999 : 1000;
    EXPECT_THROW(cured::nccl::exact_all_reduce(d.data(), 1, m, m, out.data(), ctx.comm), cured::error);
    if (ctx.rank == 1)
      EXPECT_THROW(cured::nccl::exact_all_reduce(e.data(), 1, 1000, 1000, out64.data(), ctx.comm), cured::error);
    else
      EXPECT_THROW(cured::nccl::exact_all_reduce(d.data(), 1, 1000, 1000, out.data(), ctx.comm), cured::error);
  }
  const float* bad = ctx.rank == 0 ? nullptr : d.data();
  EXPECT_THROW(cured::nccl::exact_all_reduce(bad, 1, 1000, 1000, out.data(), ctx.comm), cured::error);
  // Still usable after the errors.
  cured::nccl::exact_all_reduce(d.data(), 1, 1000, 1000, out.data(), ctx.comm);
}
}  // namespace

int main(int argc, char** argv) {
  int ranks = 1;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--ranks=", 8) == 0) ranks = std::atoi(argv[i] + 8);
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink multicast stays off (its results vary between calls)
  return cured::harness::run_ranks(ranks, [&](cured::harness::rank_context& c) {
    ctx = c;
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
  });
}
