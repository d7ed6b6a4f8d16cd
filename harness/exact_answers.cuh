#pragma once
// The exact answers for an input of each family, for checking every implementation: the
// exact family's recomputed on the host from (seed, i) in parallel; the normal and spread
// families' from one pass over the values the device holds (the host's libm may round the
// generator's log and cos differently, so the host never regenerates them).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cpu/reference.hpp"
#include "cured/cured.cuh"
#include "harness/inputs.cuh"
#include "harness/parallel_chunks.hpp"

namespace cured::harness {

/// An integer-valued element as a 128-bit integer (half and bfloat16 through float).
template <class T>
__int128 as_int128(const T& x) {
  if constexpr (std::is_integral_v<T>) return __int128(x);
  else return __int128(double(float(x)));
}

/// An element as a double: exact for every floating T and for integers below 2^53.
template <class T>
double as_double(const T& x) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) return double(float(x));
  else return double(x);
}

/// The exact sum of the exact family of T over [0, n), as a 128-bit integer.
template <class T>
__int128 exact_family_sum(std::int64_t n, std::uint64_t seed) {
  auto parts = parallel_chunks<__int128>(n, [&](std::int64_t b, std::int64_t e) {
    __int128 s = 0;
    for (std::int64_t i = b; i < e; ++i) s += as_int128(exact_value<T>(seed, std::uint64_t(i)));
    return s;
  });
  __int128 s = 0;
  for (auto p : parts) s += p;
  return s;
}

/// An element and its index; index -1 for none (an empty input).
template <class T>
struct indexed {
  std::int64_t index = -1;
  T value{};
};

/// The first smallest (want_max false) or first largest (want_max true) element of the exact
/// family of T over [0, n), in cured::detail::less's order.
template <class T>
indexed<T> exact_family_extreme(std::int64_t n, std::uint64_t seed, bool want_max) {
  auto better = [&](const T& x, const T& y) { return want_max ? detail::less(y, x) : detail::less(x, y); };
  const auto parts = parallel_chunks<indexed<T>>(n, [&](std::int64_t b, std::int64_t e) {
    indexed<T> r;
    for (std::int64_t i = b; i < e; ++i) {
      const T x = exact_value<T>(seed, std::uint64_t(i));
      if (r.index < 0 || better(x, r.value)) r = {i, x};
    }
    return r;
  });
  indexed<T> all;
  for (const indexed<T>& p : parts)  // chunks in index order: strict improvement keeps the first index
    if (p.index >= 0 && (all.index < 0 || better(p.value, all.value))) all = p;
  return all;
}

/// What the checks need of an input of the normal or spread family, from one pass over its
/// values: the exact sum, the sum of magnitudes (for the error bound of plain sums), the first
/// smallest and the first largest element.
template <class T>
struct summary {
  cpu::exact_accumulator exact;
  double abs = 0;
  indexed<T> lo, hi;

  void add(std::int64_t i, const T& x) {
    const double d = as_double(x);  // exact for every floating T
    exact.add(d);
    abs += std::fabs(d);
    if (lo.index < 0 || detail::less(x, lo.value)) lo = {i, x};
    if (hi.index < 0 || detail::less(hi.value, x)) hi = {i, x};
  }
  /// Adds `later`, a summary of elements after every element of this one (first indices win).
  void merge(const summary& later) {
    exact.merge(later.exact);
    abs += later.abs;
    if (later.lo.index >= 0 && (lo.index < 0 || detail::less(later.lo.value, lo.value))) lo = later.lo;
    if (later.hi.index >= 0 && (hi.index < 0 || detail::less(hi.value, later.hi.value))) hi = later.hi;
  }
};

/// The summary of h[0, size), elements numbered from `first`, over every core.
template <class T>
summary<T> summarize_host(const T* h, std::int64_t size, std::int64_t first) {
  const auto parts = parallel_chunks<summary<T>>(size, [&](std::int64_t b, std::int64_t e) {
    summary<T> s;
    for (std::int64_t i = b; i < e; ++i) s.add(first + i, h[i]);
    return s;
  });
  summary<T> all;
  for (const auto& p : parts) all.merge(p);  // chunks in index order
  return all;
}

/// The summary of d[0, n) as the device holds it, copied back 256 MiB at a time.
template <class T>
summary<T> summarize_device(const T* d, std::int64_t n) {
  const std::int64_t chunk = std::max<std::int64_t>(1, (std::int64_t(256) << 20) / std::int64_t(sizeof(T)));
  std::vector<T> h(std::size_t(std::min(n, chunk)));
  summary<T> all;
  for (std::int64_t b = 0; b < n; b += chunk) {
    const std::int64_t m = std::min(chunk, n - b);
    CURED_CHECK(cudaMemcpy(h.data(), d + b, std::size_t(m) * sizeof(T), cudaMemcpyDeviceToHost));
    all.merge(summarize_host(h.data(), m, b));
  }
  return all;
}

}  // namespace cured::harness
