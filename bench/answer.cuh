#pragma once
// One op's input and answer, in the one shape every implementation shares, and the check of
// an answer against the expected one.

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cured/cured.cuh"
#include "harness/device_buffer.cuh"
#include "harness/exact_answers.cuh"
#include "harness/statistics_reference.hpp"

namespace cured::bench {

/// One input array on the device (and on the host when a CPU implementation runs).
template <class T>
struct input {
  std::int64_t n = 0;
  const T* d = nullptr;
  std::vector<T> h;
};

/// Which part of an answer an op produces, and so which part is checked.
enum class answer_field { sum, value, index, statistic };

/// What any implementation of an op returns, in one shape: the sum in the accumulator (also the
/// result of exact_sum, whose type cured::exact_result_t<T> is the accumulator of every
/// floating T), the extreme value, and the index for the arg ops.
template <class T>
struct answer {
  accumulator_t<T> sum{};
  T value{};
  std::int64_t index = -1;
  /// Expected answers only: a plain sum of inexact data (normal, spread) checks ok when within
  /// this distance of `sum`, the correctly rounded exact sum; unset: bit for bit.
  std::optional<double> sum_tolerance;
  /// The statistics (answer_field::statistic): the result's bytes as the library wrote them;
  /// expected answers: the one or two parts, their bounds, and how to read them from bytes.
  unsigned char bytes[64] = {};
  double part[2] = {0, 0};
  double part_bound[2] = {0, 0};
  int parts = 0;
  double (*read_part)(const unsigned char*, int) = nullptr;
};

/// Part k of a result of type R (one value, or a statistics' pair), as a double.
template <class R>
double part_of(const unsigned char* bytes, int k) {
  R r;
  std::memcpy(&r, bytes, sizeof r);
  const auto as_double = [](const auto& v) { return harness::as_double(v); };
  if constexpr (requires { r.min; }) return as_double(k ? r.max : r.min);
  else if constexpr (requires { r.var; }) return as_double(k ? r.mean : r.var);
  else return as_double(r);
}

template <class T>
std::string value_string(const T& v) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else if constexpr (std::is_same_v<T, double>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", double(float(v)));
    return buf;
  }
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// "ok", or what differs in `field`.
template <class T>
std::string compare(answer_field field, const answer<T>& got, const answer<T>& want) {
  switch (field) {
    case answer_field::sum:
      if (want.sum_tolerance) {
        const double error = std::fabs(harness::as_double(got.sum) - harness::as_double(want.sum));
        if (error <= *want.sum_tolerance) return "ok";  // false for NaN
        char buf[160];
        std::snprintf(buf, sizeof buf, " (error %.3g, bound %.3g)", error, *want.sum_tolerance);
        return "got " + value_string(got.sum) + " want " + value_string(want.sum) + buf;
      }
      return same_bits(got.sum, want.sum) ? "ok" : "got " + value_string(got.sum) + " want " + value_string(want.sum);
    case answer_field::value:
      return same_bits(got.value, want.value) ? "ok"
                                              : "got " + value_string(got.value) + " want " + value_string(want.value);
    case answer_field::index:
      break;
    case answer_field::statistic: {
      std::string bad;
      for (int k = 0; k < want.parts; ++k) {
        const double g = want.read_part(got.bytes, k);
        if (harness::near(g, want.part[k], want.part_bound[k])) continue;
        char buf[160];
        std::snprintf(buf, sizeof buf, "part %d: got %.9g want %.9g (bound %.3g) ", k, g, want.part[k], want.part_bound[k]);
        bad += buf;
      }
      return bad.empty() ? "ok" : bad;
    }
  }
  return got.index == want.index ? "ok" : "got index " + std::to_string(got.index) + " want " + std::to_string(want.index);
}

/// Device storage for any op's result, read back into an answer.
template <class T>
struct device_answer {
  harness::device_buffer<accumulator_t<T>> sum{1};
  harness::device_buffer<T> value{1};
  harness::device_buffer<std::int64_t> index{1};
  harness::device_buffer<key_value<T>> kv{1};  ///< cured's arg ops answer a key_value
  harness::device_buffer<unsigned char> bytes{64};  ///< the statistics' results

  /// `field` read back from sum, value or index.
  answer<T> read(answer_field field) const {
    answer<T> a;
    switch (field) {
      case answer_field::sum:
        CURED_CHECK(cudaMemcpy(&a.sum, sum.data(), sizeof(a.sum), cudaMemcpyDeviceToHost));
        break;
      case answer_field::value:
        CURED_CHECK(cudaMemcpy(&a.value, value.data(), sizeof(T), cudaMemcpyDeviceToHost));
        break;
      case answer_field::index:
        CURED_CHECK(cudaMemcpy(&a.index, index.data(), sizeof(a.index), cudaMemcpyDeviceToHost));
        break;
      case answer_field::statistic:
        CURED_CHECK(cudaMemcpy(a.bytes, bytes.data(), sizeof a.bytes, cudaMemcpyDeviceToHost));
        break;
    }
    return a;
  }
  /// The index from kv.
  answer<T> read_key_value() const {
    key_value<T> pair;
    CURED_CHECK(cudaMemcpy(&pair, kv.data(), sizeof pair, cudaMemcpyDeviceToHost));
    answer<T> a;
    a.index = pair.index;
    return a;
  }
};

}  // namespace cured::bench
