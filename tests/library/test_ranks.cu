// Reductions split over ranks (cured/detail/ranks.cuh), with the ranks simulated on one GPU:
// each rank's local step writes its record or shard sum, the test moves them as the
// collectives would (an all-gather: the records side by side; an all-reduce: the shards' limbs
// added on the host), and every combine must give the single-GPU result of the concatenation:
// the same bits for min, max, argmin, argmax and exact_sum (for any number of ranks and any
// split, empty shards included), the rank-order fold of the shards' sums for sum, and a
// mismatch status when the ranks' calls differ. cured/nccl.cuh runs the same steps through NCCL
// (tests/nccl).

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cured/cured.cuh"
#include "cured/detail/ranks.cuh"
#include "tests/library/exact_values.cuh"
#include "tests/support/gpu.cuh"

namespace {

namespace rk = cured::detail::ranks;
namespace ex = cured::exact;
using cured::key_value;
using cured::test::device_buffer;
using cured::test::exact_values::same_result;

/// A split of n elements into shards: their lengths, in rank order.
using split = std::vector<std::int64_t>;

/// Splits of n over 1 to 5 ranks: even, uneven, with empty shards, all in one rank.
std::vector<split> splits_of(std::int64_t n) {
  std::vector<split> s = {{n}, {n / 2, n - n / 2}, {0, n, 0}, {n / 3, 0, n / 3 - 1 > 0 ? n / 3 - 1 : 0}};
  s.back().push_back(n - s.back()[0] - s.back()[2]);
  split five;
  std::int64_t left = n;
  for (int r = 0; r < 4; ++r) {
    const std::int64_t k = left / (r + 2) + r;  // uneven, odd offsets
    five.push_back(k < left ? k : left);
    left -= five.back();
  }
  five.push_back(left);
  s.push_back(five);
  return s;
}

std::string describe(const split& s) {
  std::string d = "split {";
  for (std::int64_t k : s) d += std::to_string(k) + ",";
  d.back() = '}';
  return d;
}

template <class T>
double as_double(T x) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) return double(float(x));
  else return double(x);
}

template <class T>
T read(const T* d) {
  T h;
  CURED_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

/// The ranks of one simulated collective: their records, gathered as an all-gather leaves them.
class simulated {
public:
  cured::workspace ws;
  device_buffer<rk::record> records{8};
  device_buffer<ex::shard_sum> shards{8}, total{1};
  device_buffer<unsigned> status{1};

  /// Every rank's local step `local(r, begin, count, record*)` for the shards of `s`.
  template <class Local>
  void gather(const split& s, Local local) {
    std::int64_t begin = 0;
    for (std::size_t r = 0; r < s.size(); ++r) {
      local(int(r), begin, s[r], records.data() + r);
      begin += s[r];
    }
  }
  /// The shards' sums added limb by limb, as ncclAllReduce (int64, sum) adds them.
  void all_reduce(int ranks) {
    std::vector<ex::shard_sum> h(ranks);
    CURED_CHECK(cudaMemcpy(h.data(), shards.data(), ranks * sizeof(ex::shard_sum), cudaMemcpyDeviceToHost));
    ex::shard_sum t{};
    auto* tw = reinterpret_cast<std::uint64_t*>(&t);
    for (const auto& one : h) {
      const auto* w = reinterpret_cast<const std::uint64_t*>(&one);
      for (std::size_t k = 0; k < sizeof(t) / 8; ++k) tw[k] += w[k];  // two's complement, as int64 sums wrap
    }
    CURED_CHECK(cudaMemcpy(total.data(), &t, sizeof t, cudaMemcpyHostToDevice));
  }
  unsigned last_status() { return read(status.data()); }
};

template <class T>
std::vector<T> random_values(std::int64_t n, unsigned seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = T(d(g));
  return v;
}

// ---- plain reductions --------------------------------------------------------------------------

template <class T>
void check_plain(const std::vector<T>& h, const std::string& what) {
  using acc = cured::accumulator_t<T>;
  const std::int64_t n = std::int64_t(h.size());
  const auto d = cured::test::upload(h);
  simulated sim;
  device_buffer<acc> out(1);
  device_buffer<T> ext(1);
  device_buffer<key_value<T>> kv(1);
  const T want_min = cured::min(d.data(), n), want_max = cured::max(d.data(), n);
  const auto want_argmin = cured::argmin(d.data(), n), want_argmax = cured::argmax(d.data(), n);
  for (const split& s : splits_of(n)) {
    const std::string where = what + ", " + describe(s);
    const int ranks = int(s.size());
    // sum: the shards' single-GPU sums folded in rank order, empty shards skipped.
    acc want_sum = acc(0);
    sim.gather(s, [&](int, std::int64_t b, std::int64_t k, rk::record* rec) {
      rk::local_plain<acc>(d.data() + b, k, rec, cured::thread::identity_transform{}, cured::plus{}, 7, sim.ws, nullptr);
      if (k > 0) want_sum = acc(want_sum + cured::sum(d.data() + b, k));
    });
    rk::combine_plain(sim.records.data(), ranks, out.data(), sim.status.data(), cured::plus{}, acc(0), nullptr);
    ASSERT_EQ(sim.last_status(), 0u) << where;
    EXPECT_TRUE(same_result(as_double(read(out.data())), as_double(want_sum))) << where << ", sum";

    const auto plain = [&](auto op, T identity, T want, const char* name) {
      sim.gather(s, [&](int, std::int64_t b, std::int64_t k, rk::record* rec) {
        rk::local_plain<T>(d.data() + b, k, rec, cured::thread::identity_transform{}, op, 9, sim.ws, nullptr);
      });
      rk::combine_plain(sim.records.data(), ranks, ext.data(), sim.status.data(), op, identity, nullptr);
      EXPECT_EQ(sim.last_status(), 0u) << where;
      EXPECT_TRUE(same_result(as_double(read(ext.data())), as_double(want))) << where << ", " << name;
    };
    plain(cured::minimum{}, cured::minimum::identity<T>(), want_min, "min");
    plain(cured::maximum{}, cured::maximum::identity<T>(), want_max, "max");

    const auto arg = [&](auto max, key_value<T> want, const char* name) {
      constexpr bool Max = decltype(max)::value;
      sim.gather(s, [&](int, std::int64_t b, std::int64_t k, rk::record* rec) {
        rk::local_arg<Max>(d.data() + b, k, rec, 11, sim.ws, nullptr);
      });
      rk::combine_arg<Max>(sim.records.data(), ranks, kv.data(), sim.status.data(), nullptr);
      EXPECT_EQ(sim.last_status(), 0u) << where;
      const key_value<T> got = read(kv.data());
      EXPECT_EQ(got.index, want.index) << where << ", " << name;
      EXPECT_TRUE(same_result(as_double(got.value), as_double(want.value))) << where << ", " << name;
    };
    arg(std::false_type{}, want_argmin, "argmin");
    arg(std::true_type{}, want_argmax, "argmax");
  }
}

TEST(Ranks, PlainReductionsMatchOneGpu) {
  CURED_REQUIRE_GPU();
  for (std::int64_t n : {1, 7, 1000, 100003, 3000017}) {
    if (n > cured::test::max_test_n()) continue;
    check_plain(random_values<float>(n, unsigned(n)), "float n=" + std::to_string(n));
    check_plain(random_values<double>(n, unsigned(n) + 1), "double n=" + std::to_string(n));
  }
  check_plain(random_values<__half>(65537, 3), "half");
  std::vector<int> ints(50001);
  for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = int((i * 2654435761u) % 2001) - 1000;
  check_plain(ints, "int");
}

TEST(Ranks, TiesAndNaNAcrossRanks) {
  CURED_REQUIRE_GPU();
  // The extreme value in shards 1 and 2 of {0, 100, 100, 100}: the first global index wins.
  std::vector<float> h(300, 0.5f);
  h[150] = h[250] = 9.f;
  h[120] = h[299] = -9.f;
  check_plain(h, "ties");
  // A NaN in one shard only: min, max, sum give NaN, argmin / argmax its global index.
  h[222] = std::numeric_limits<float>::quiet_NaN();
  check_plain(h, "one NaN");
  const auto d = cured::test::upload(h);
  simulated sim;
  device_buffer<key_value<float>> kv(1);
  sim.gather({100, 100, 100}, [&](int, std::int64_t b, std::int64_t k, rk::record* rec) {
    rk::local_arg<false>(d.data() + b, k, rec, 1, sim.ws, nullptr);
  });
  rk::combine_arg<false>(sim.records.data(), 3, kv.data(), sim.status.data(), nullptr);
  EXPECT_EQ(read(kv.data()).index, 222);
}

TEST(Ranks, AllShardsEmpty) {
  CURED_REQUIRE_GPU();
  const auto d = cured::test::upload(std::vector<float>{});
  simulated sim;
  device_buffer<float> out(1);
  device_buffer<key_value<float>> kv(1);
  sim.gather({0, 0, 0}, [&](int, std::int64_t, std::int64_t, rk::record* rec) {
    rk::local_plain<float>(d.data(), 0, rec, cured::thread::identity_transform{}, cured::minimum{}, 5, sim.ws, nullptr);
  });
  rk::combine_plain(sim.records.data(), 3, out.data(), sim.status.data(), cured::minimum{},
                    cured::minimum::identity<float>(), nullptr);
  EXPECT_EQ(read(out.data()), std::numeric_limits<float>::infinity());
  sim.gather({0, 0}, [&](int, std::int64_t, std::int64_t, rk::record* rec) {
    rk::local_arg<true>(d.data(), 0, rec, 5, sim.ws, nullptr);
  });
  rk::combine_arg<true>(sim.records.data(), 2, kv.data(), sim.status.data(), nullptr);
  EXPECT_EQ(read(kv.data()).index, -1);
  EXPECT_EQ(sim.last_status(), 0u);
}

TEST(Ranks, DifferentCallsAreAMismatchOnEveryRank) {
  CURED_REQUIRE_GPU();
  const auto d = cured::test::upload(random_values<float>(1000, 1));
  simulated sim;
  device_buffer<float> out(1);
  CURED_CHECK(cudaMemset(out.data(), 0x7f, sizeof(float)));
  // Rank 2 of 4 calls max where the others call min: every rank's combine sees it.
  sim.gather({250, 250, 250, 250}, [&](int r, std::int64_t b, std::int64_t k, rk::record* rec) {
    const std::uint64_t tag = r == 2 ? rk::tag_of<float, float, cured::maximum>("max")
                                     : rk::tag_of<float, float, cured::minimum>("min");
    rk::local_plain<float>(d.data() + b, k, rec, cured::thread::identity_transform{}, cured::minimum{}, tag, sim.ws,
                           nullptr);
  });
  rk::combine_plain(sim.records.data(), 4, out.data(), sim.status.data(), cured::minimum{},
                    cured::minimum::identity<float>(), nullptr);
  const unsigned st = sim.last_status();
  EXPECT_EQ(st, rk::mismatch | (3u << 1));
  EXPECT_NE(rk::status_message(st).find("rank 2"), std::string::npos) << rk::status_message(st);
  float untouched;
  std::memset(&untouched, 0x7f, sizeof untouched);
  EXPECT_EQ(read(out.data()), untouched) << "a mismatch leaves the output unwritten";
  // Different tags for different types, operators and kinds.
  EXPECT_NE((rk::tag_of<float, float, cured::plus>("sum")), (rk::tag_of<double, double, cured::plus>("sum")));
  EXPECT_NE((rk::tag_of<float>("argmin")), (rk::tag_of<float>("argmax")));
  EXPECT_EQ((rk::tag_of<float>("argmin")), (rk::tag_of<float>("argmin")));
}

// ---- exact sums --------------------------------------------------------------------------------

/// Values over the whole exponent range, with cancellations, so that every split's shard sums
/// are far from the total and the total must come out of exact integer addition.
template <class T>
std::vector<T> exact_values_of(std::int64_t n, unsigned seed) {
  using namespace cured::test::exact_values;
  std::mt19937_64 g(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = from_bits<T>(g() & (sign_bit<T> | (sign_bit<T> - 1)));
  for (auto& x : v)
    if (!std::isfinite(widen(x))) x = make<T>(1.0);
  if (n > 4) {
    v[0] = max_finite<T>();
    v[n - 1] = neg(max_finite<T>());
    v[n / 2] = tiny<T>();
  }
  return v;
}

template <class T>
void check_exact(const std::vector<T>& h, const std::string& what) {
  using R = cured::exact_result_t<T>;
  const std::int64_t n = std::int64_t(h.size());
  const auto d = cured::test::upload(h);
  const R want = cured::exact_sum(d.data(), n);
  simulated sim;
  device_buffer<R> out(1);
  for (const split& s : splits_of(n)) {
    std::int64_t b = 0;
    for (std::size_t r = 0; r < s.size(); ++r) {
      rk::local_exact(d.data() + b, s[r], sim.shards.data() + r, sim.ws, nullptr);
      b += s[r];
    }
    sim.all_reduce(int(s.size()));
    rk::round_exact<T>(sim.total.data(), out.data(), sim.status.data(), nullptr);
    EXPECT_EQ(sim.last_status(), 0u) << what << ", " << describe(s);
    EXPECT_TRUE(same_result(read(out.data()), want)) << what << ", " << describe(s);
  }
}

template <class T>
class RanksExact : public ::testing::Test {};
using exact_types = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(RanksExact, exact_types);

TYPED_TEST(RanksExact, SameBitsForAnySplit) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  using namespace cured::test::exact_values;
  for (std::int64_t n : {1, 2, 33, 4099, 1000003})
    if (n <= cured::test::max_test_n()) check_exact(exact_values_of<T>(n, unsigned(n)), "n=" + std::to_string(n));
  // Signed zeros: all -0 gives -0 whatever the split, empty shards included.
  check_exact(std::vector<T>(37, neg(make<T>(0.0))), "all -0");
  std::vector<T> z(37, neg(make<T>(0.0)));
  z[30] = make<T>(0.0);
  check_exact(z, "one +0");
  // Specials on one shard only.
  std::vector<T> s = exact_values_of<T>(1000, 5);
  s[900] = from_bits<T>(sign_bit<T> - 1);  // a NaN
  check_exact(s, "one NaN");
  s[900] = make<T>(1.0);
  s[10] = from_bits<T>((sign_bit<T> - 1) & ~mant_mask<T>);  // +inf
  check_exact(s, "one inf");
  s[990] = neg(s[10]);
  check_exact(s, "inf and -inf on different shards");
}

TEST(RanksExactMismatch, DifferentTypesAreAMismatch) {
  CURED_REQUIRE_GPU();
  const auto f = cured::test::upload(std::vector<float>(100, 1.f));
  const auto g = cured::test::upload(std::vector<double>(100, 1.0));
  simulated sim;
  device_buffer<float> out(1);
  rk::local_exact(f.data(), 100, sim.shards.data(), sim.ws, nullptr);
  rk::local_exact(g.data(), 100, sim.shards.data() + 1, sim.ws, nullptr);
  rk::local_exact(f.data(), 100, sim.shards.data() + 2, sim.ws, nullptr);
  sim.all_reduce(3);
  rk::round_exact<float>(sim.total.data(), out.data(), sim.status.data(), nullptr);
  EXPECT_EQ(sim.last_status(), ex::shard_mismatch);
  sim.all_reduce(1);
  rk::round_exact<float>(sim.total.data(), out.data(), sim.status.data(), nullptr);
  EXPECT_EQ(sim.last_status(), 0u);
  EXPECT_EQ(read(out.data()), 100.f);
}

TEST(Ranks, MoreThan2To32ElementsInAll) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 32) + 37;
  if (n > cured::test::max_test_n()) GTEST_SKIP() << "CURED_TEST_MAX_N";
  if (cured::test::free_device_bytes() < std::size_t(n) * 2 + (std::size_t(1) << 30))
    GTEST_SKIP() << "needs " << n * 2 / (1 << 30) << " GiB of free device memory";
  device_buffer<__half> d(n);
  CURED_CHECK(cudaMemset(d.data(), 0, std::size_t(n) * 2));  // all +0
  const std::int64_t at = n - 5;
  const __half one(1.f), two(2.f);
  CURED_CHECK(cudaMemcpy(d.data() + at, &two, 2, cudaMemcpyHostToDevice));
  CURED_CHECK(cudaMemcpy(d.data() + 3, &one, 2, cudaMemcpyHostToDevice));
  simulated sim;
  const split s = {n / 3, n / 3 + 1, n - 2 * (n / 3) - 1};
  device_buffer<key_value<__half>> kv(1);
  sim.gather(s, [&](int, std::int64_t b, std::int64_t k, rk::record* rec) {
    rk::local_arg<true>(d.data() + b, k, rec, 2, sim.ws, nullptr);
  });
  rk::combine_arg<true>(sim.records.data(), 3, kv.data(), sim.status.data(), nullptr);
  EXPECT_EQ(read(kv.data()).index, at);
  std::int64_t b = 0;
  for (std::size_t r = 0; r < s.size(); ++r) {
    rk::local_exact(d.data() + b, s[r], sim.shards.data() + r, sim.ws, nullptr);
    b += s[r];
  }
  sim.all_reduce(3);
  device_buffer<float> out(1);
  rk::round_exact<__half>(sim.total.data(), out.data(), sim.status.data(), nullptr);
  EXPECT_EQ(read(out.data()), 3.f);
}

}  // namespace
