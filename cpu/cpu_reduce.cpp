#include "cpu/cpu_reduce.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace cured::cpu {
namespace {

template <class Acc, class T>
Acc serial(std::span<const T> x) {
  Acc s = 0;
  for (const T v : x) s += v;
  return s;
}

template <class Acc, class T>
Acc parallel(std::span<const T> x, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t n = x.size();
  if (n < parallel_min_elements || threads <= 1) return serial<Acc>(x);
  const std::size_t parts = std::min<std::size_t>(threads, n);
  const auto chunk = [&](std::size_t k) {
    const std::size_t begin = k * (n / parts) + std::min(k, n % parts);
    const std::size_t end = (k + 1) * (n / parts) + std::min(k + 1, n % parts);
    return x.subspan(begin, end - begin);
  };
  std::vector<Acc> partial(parts);
  std::vector<std::thread> pool;
  pool.reserve(parts - 1);
  for (std::size_t k = 1; k < parts; ++k) {
    pool.emplace_back([&, k] { partial[k] = serial<Acc>(chunk(k)); });
  }
  partial[0] = serial<Acc>(chunk(0));
  for (auto& t : pool) t.join();
  Acc s = partial[0];
  for (std::size_t k = 1; k < parts; ++k) s += partial[k];
  return s;
}

}  // namespace

float serial_sum(std::span<const float> x) { return serial<float>(x); }
double serial_sum(std::span<const double> x) { return serial<double>(x); }
std::int64_t serial_sum(std::span<const std::int32_t> x) { return serial<std::int64_t>(x); }
std::uint64_t serial_sum(std::span<const std::uint32_t> x) { return serial<std::uint64_t>(x); }

float parallel_sum(std::span<const float> x, unsigned threads) { return parallel<float>(x, threads); }
double parallel_sum(std::span<const double> x, unsigned threads) { return parallel<double>(x, threads); }
std::int64_t parallel_sum(std::span<const std::int32_t> x, unsigned threads) {
  return parallel<std::int64_t>(x, threads);
}
std::uint64_t parallel_sum(std::span<const std::uint32_t> x, unsigned threads) {
  return parallel<std::uint64_t>(x, threads);
}

}  // namespace cured::cpu
