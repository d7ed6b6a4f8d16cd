#pragma once
// The ops cured-bench times, in canonical order (--ops, --list, the rows). Plain C++: the
// command line's view of op_table (bench/ops.cuh), whose entries say how each implementation
// runs each op; ops.cuh checks at compile time that its entries carry these names in this order.

#include <array>
#include <string_view>

namespace cured::bench {

inline constexpr std::array<std::string_view, 6> op_names_in_order = {"sum",    "exact_sum", "min",
                                                                     "max",    "argmin",    "argmax"};

}  // namespace cured::bench
