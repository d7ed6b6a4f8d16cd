#pragma once
// Reference reductions along axes on the CPU: what the axis reductions are checked against.
// Written from the definition, one output at a time, with no merging of axes, so that it
// shares nothing with the library's canonical form.
//
//   cured::cpu::axis_shape s = {2, {4, 5}, {5, 1}, {false, true}};   // rows of 5, reduced
//   auto sums = cured::cpu::axis_exact_sum(s, [&](std::int64_t at) { return double(h[at]); }, false);
//
// Outputs come in row-major order over the kept axes; an output's elements in row-major order
// over the reduced axes, whose flat index there is the arg reductions' index. Contracts per
// output as cured::cpu's whole-array references (reference.hpp): sums exact and rounded once,
// NaN and tie rules of min, max, argmin and argmax; an output with no elements gets the empty
// sum, nullopt or index -1.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "cpu/reference.hpp"

namespace cured::cpu {

/// A view's extents and strides (elements) and which of its axes are reduced.
struct axis_shape {
  int rank = 0;
  std::int64_t extents[8] = {};
  std::int64_t strides[8] = {};
  bool reduced[8] = {};

  std::int64_t outputs() const;       ///< the product of the kept extents
  std::int64_t reduced_size() const;  ///< the product of the reduced extents
};

/// For each output in order, f(output, offsets): the offsets of its elements in order.
void for_each_output(const axis_shape& s, const std::function<void(std::int64_t, const std::vector<std::int64_t>&)>& f);

/// Each output's exact sum of value(offset), rounded once to float (to_float) or double.
std::vector<double> axis_exact_sum(const axis_shape& s, const std::function<double(std::int64_t)>& value,
                                   bool to_float);

/// Each output's exact integer sum of value(offset).
std::vector<__int128> axis_integer_sum(const axis_shape& s, const std::function<__int128(std::int64_t)>& value);

/// Each output's argmin (Max false) or argmax (Max true) of data[offset]: the first flat index
/// of the extreme value, the first NaN's when there is one, -1 when empty. less(a, b): a < b;
/// is_nan(a): whether a is NaN (false for integers).
template <bool Max, class T, class Less, class IsNan>
std::vector<arg_result<T>> axis_arg(const axis_shape& s, const T* data, Less less, IsNan is_nan) {
  std::vector<arg_result<T>> r;
  for_each_output(s, [&](std::int64_t, const std::vector<std::int64_t>& at) {
    arg_result<T> best{-1, T{}};
    for (std::size_t i = 0; i < at.size(); ++i) {
      const T x = data[at[i]];
      if (best.index >= 0 && is_nan(best.value)) break;
      if (best.index < 0 || is_nan(x) || (Max ? less(best.value, x) : less(x, best.value)))
        best = {std::int64_t(i), x};
    }
    r.push_back(best);
  });
  return r;
}

}  // namespace cured::cpu
