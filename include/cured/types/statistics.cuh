#pragma once
// The result types of the one-pass statistics (cured/statistics.cuh).

#include <type_traits>

#include "cured/types/accumulate.cuh"

namespace cured {

/// var_mean's result: the variance and the mean.
template <class F>
struct var_mean_result {
  F var;
  F mean;
};

/// std_mean's result: the standard deviation and the mean.
template <class F>
struct std_mean_result {
  F std;
  F mean;
};

/// The floating type the statistics of T accumulate in and return: float for half, bfloat16
/// and float, double for double.
template <class T>
using statistic_t = std::enable_if_t<std::is_floating_point_v<accumulator_t<T>>, accumulator_t<T>>;

}  // namespace cured
