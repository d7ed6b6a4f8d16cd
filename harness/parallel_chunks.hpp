#pragma once
// Host work over [0, n) split across the host's cores. Plain C++.

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace cured::harness {

/// f(begin, end) over [0, n) split across the host's cores; returns the per-chunk results in order.
template <class R, class F>
std::vector<R> parallel_chunks(std::int64_t n, F f) {
  const unsigned threads = n < (1 << 20) ? 1u : std::max(1u, std::thread::hardware_concurrency());
  std::vector<R> results(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    const std::int64_t b = n * t / threads, e = n * (t + 1) / threads;
    pool.emplace_back([&, t, b, e] { results[t] = f(b, e); });
  }
  for (auto& th : pool) th.join();
  return results;
}

}  // namespace cured::harness
