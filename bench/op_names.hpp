#pragma once
// The ops cured-bench times, in canonical order (--ops, --list, the rows). Plain C++: the
// command line's view of op_table (bench/ops.cuh), whose entries say how each implementation
// runs each op; ops.cuh checks at compile time that its entries carry these names in this order.
// The ops of axis workloads and of segmented workloads are subsets, in the same order: the
// command line's view of axis_op_entries (bench/axis_ops.cuh) and segment_op_entries
// (bench/segment_ops.cuh), checked there the same way.

#include <array>
#include <cstddef>
#include <string_view>

namespace cured::bench {

/// exact_dot and dot: the dot product of the input's two halves; mean .. any: the one-pass
/// statistics of the whole input (bench/ops.cuh).
inline constexpr std::array<std::string_view, 15> op_names_in_order = {
    "sum", "exact_sum", "min",  "max",       "argmin",        "argmax", "exact_dot", "dot", "mean", "var_mean",
    "aminmax", "vector_norm", "logsumexp", "count_nonzero", "any"};

/// The ops of axis workloads (--shape, --axes-grid): every op.
inline constexpr std::array<std::string_view, 6> axis_op_names_in_order = {"sum",    "exact_sum", "min",
                                                                          "max",    "argmin",    "argmax"};

/// The ops of segmented workloads (--segments, --segments-grid): every op.
inline constexpr std::array<std::string_view, 6> segment_op_names_in_order = {"sum",    "exact_sum", "min",
                                                                             "max",    "argmin",    "argmax"};

/// Whether `names` are op names, in the order of op_names_in_order.
template <std::size_t N>
constexpr bool ops_in_order(const std::array<std::string_view, N>& names) {
  std::size_t at = 0;
  for (const std::string_view name : names) {
    while (at < op_names_in_order.size() && op_names_in_order[at] != name) ++at;
    if (at == op_names_in_order.size()) return false;
    ++at;
  }
  return true;
}
static_assert(ops_in_order(axis_op_names_in_order), "axis_op_names_in_order must be op names, in the order of op_names_in_order");
static_assert(ops_in_order(segment_op_names_in_order),
              "segment_op_names_in_order must be op names, in the order of op_names_in_order");

}  // namespace cured::bench
