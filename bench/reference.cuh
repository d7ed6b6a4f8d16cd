#pragma once
// The exact answers for one input, each computed on first use: for the exact family from
// (seed, i) on the host, for the normal and spread families from one pass over the values the
// device holds (copied back) or the host's copy of them.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "bench/answer.cuh"
#include "cpu/reference.hpp"
#include "cured/cured.cuh"
#include "harness/data_family.hpp"
#include "harness/exact_answers.cuh"
#include "harness/statistics_reference.hpp"

namespace cured::bench {

template <class T>
class reference {
public:
  /// `in` must outlive this reference.
  reference(const input<T>& in, harness::data_family data, std::uint64_t seed) : in_(in), data_(data), seed_(seed) {}

  /// The exact sum, correctly rounded to the accumulator (every sum of the exact family is exact).
  accumulator_t<T> sum() {
    using acc = accumulator_t<T>;
    if (exact_family()) return acc(harness::exact_family_sum<T>(in_.n, seed_));
    if constexpr (std::is_same_v<acc, double>) return values().exact.round_to_double();
    else return acc(values().exact.round_to_float());
  }

  /// How far a plain sum may be from sum(): n * eps * sum |x| (eps of the accumulator), a bound
  /// that holds for any order of additions. Unset for the exact family: its plain sums are exact.
  std::optional<double> plain_sum_bound() {
    if (exact_family()) return std::nullopt;
    return double(in_.n) * double(std::numeric_limits<accumulator_t<T>>::epsilon()) * values().abs;
  }

  /// The first smallest element; of an empty input, index -1 and minimum's identity.
  harness::indexed<T> first_min() {
    harness::indexed<T> r = exact_family() ? harness::exact_family_extreme<T>(in_.n, seed_, false) : values().lo;
    if (in_.n == 0) r.value = minimum::identity<T>();
    return r;
  }

  /// The first largest element; of an empty input, index -1 and maximum's identity.
  harness::indexed<T> first_max() {
    harness::indexed<T> r = exact_family() ? harness::exact_family_extreme<T>(in_.n, seed_, true) : values().hi;
    if (in_.n == 0) r.value = maximum::identity<T>();
    return r;
  }

  /// The exact dot product of the input's halves x = in[0, n / 2) and y = in[n / 2, 2 (n / 2)),
  /// rounded once to the accumulator (bench/ops.cuh, exact_dot).
  accumulator_t<T> dot() { return dots().exact; }
  /// How far a plain dot product of the halves may be from dot(): m * eps * sum |x_i y_i|.
  double dot_bound() { return dots().bound; }

  /// The statistics of the values (bench/ops.cuh, statistic_op), in long double.
  const harness::statistics_reference& statistics() {
    if (!statistics_) {
      const std::vector<T> h = host_values();
      std::vector<double> x(h.size());
      for (std::size_t i = 0; i < h.size(); ++i) x[i] = harness::as_double(h[i]);
      statistics_ = harness::reference_of(x);
    }
    return *statistics_;
  }

private:
  /// The values on the host: the input's copy, or one read back.
  std::vector<T> host_values() const {
    std::vector<T> h = in_.h;
    if (h.empty() && in_.n > 0) {
      h.resize(std::size_t(in_.n));
      CURED_CHECK(cudaMemcpy(h.data(), in_.d, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
    }
    return h;
  }

  struct dot_values {
    accumulator_t<T> exact;
    double bound;
  };
  const dot_values& dots() {
    if (!dots_) {
      const std::vector<T> h = host_values();
      const std::size_t m = std::size_t(in_.n / 2);
      cpu::exact_accumulator acc;
      double abs = 0;
      for (std::size_t i = 0; i < m; ++i) {
        const double a = double(float_of(h[i])), b = double(float_of(h[m + i]));
        acc.add_product(a, b);
        abs += std::fabs(a * b);
      }
      dot_values v;
      if constexpr (std::is_same_v<accumulator_t<T>, double>) v.exact = acc.round_to_double();
      else v.exact = acc.round_to_float();
      v.bound = double(m) * double(std::numeric_limits<accumulator_t<T>>::epsilon()) * abs;
      dots_ = v;
    }
    return *dots_;
  }
  /// x as float or double, exactly.
  static auto float_of(T x) {
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) return float(x);
    else return x;
  }
  bool exact_family() const { return data_ == harness::data_family::exact; }

  /// The normal and spread families' one pass.
  const harness::summary<T>& values() {
    if (!values_)
      values_ = in_.h.empty() ? harness::summarize_device(in_.d, in_.n) : harness::summarize_host(in_.h.data(), in_.n, 0);
    return *values_;
  }

  const input<T>& in_;
  harness::data_family data_;
  std::uint64_t seed_;
  std::optional<harness::summary<T>> values_;
  std::optional<dot_values> dots_;
  std::optional<harness::statistics_reference> statistics_;
};

}  // namespace cured::bench
