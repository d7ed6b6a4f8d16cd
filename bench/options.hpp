#pragma once
// cured-bench's command line: what to time (implementations, sizes, types, ops, modes) and
// how to report it. Plain C++, no CUDA: parse_options only validates and normalizes.
//
//   cured::bench::options opt = cured::bench::parse_options(argc, argv);  // throws parse_error
//
// Every list comes back without duplicates, in canonical order: impls and steps in the order of
// implementation_names() and 1..10, types and ops in the order of type_names() and op_names(),
// sizes ascending.

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/data_family.hpp"

namespace cured::bench {

/// The input families --data selects: the harness's.
using harness::data_family;

struct options {
  std::vector<std::string> impls;   ///< expanded, canonical order: step1..step10, cured, cured-blocking, cub, thrust, floor, cpu, cpu-mt
  std::vector<int> steps;           ///< the ladder steps in impls, ascending (empty when no step is selected)
  int block = 256;                  ///< threads per block for the ladder steps: a power of two in [32, 1024]
  std::vector<std::int64_t> sizes;  ///< element counts, ascending
  std::vector<std::string> types;   ///< names from type_names(); floating types only unless data is exact
  std::vector<std::string> ops;     ///< names from op_names()
  data_family data = data_family::exact;  ///< --data: the input family (data_names())
  bool cold = true, hot = true;     ///< --mode cold|hot|both; at least one is true
  int samples = 0;                  ///< 0 = automatic (the timing code decides), else >= 1
  int device = 0;
  enum class format { table, csv, json, md } fmt = format::table;
  std::string out;                  ///< --out FILE ("" = stdout)
  bool list = false, help = false;
  bool seed_positional = false;     ///< the seeds' "N [STEP [THREADS]]" form was used
  std::uint64_t seed = 0;           ///< --seed, for reproducible inputs; meaningful when seed_given
  bool seed_given = false;
};

/// A bad command line; what() is one line naming the bad value.
struct parse_error : std::runtime_error {
  using runtime_error::runtime_error;
};

/// Parses argv[1..argc) (argv[0] is the program name). Throws parse_error.
/// Long options take "--opt VALUE" or "--opt=VALUE"; a repeated option keeps its last value.
/// Implementations: --impl names (default all) where the groups "ladder" and "all" stand for
/// the steps of --steps when it is given; steps of --steps and steps named in --impl are always
/// selected ("--impl cub --steps 2" = step2, cub; "--steps 1,3" = step1, step3 and every peer).
/// --data normal or spread: the default types are float,double, and integer types are an error.
/// Positional "N [STEP [THREADS]]" (the seeds' form): sizes {N}, block THREADS, and unless
/// --impl or --steps is given, impls {stepSTEP, cub, thrust, cpu} with STEP 1 when omitted.
options parse_options(int argc, const char* const* argv);

/// An element count. Forms: "1048576"; "2^20" (any base ^ exponent); "1e6", "1.5e6" (must be a
/// whole number); "1k", "1M", "1G", "1T" (powers of 1000) and "1Ki", "1Mi", "1Gi", "1Ti" (powers
/// of 1024); "4000x4000" (a product of any of these forms). Zero is allowed; negatives, junk and
/// values above 2^62 throw parse_error.
std::int64_t parse_size(std::string_view text);

/// A --sizes list: comma-separated sizes (parse_size) and ranges "LO..HI", meaning every power
/// of two p with LO <= p <= HI. Sorted ascending, duplicates removed. Throws parse_error.
std::vector<std::int64_t> parse_sizes(std::string_view list);

/// A --steps list: comma-separated step numbers and ranges "A-B", within 1..10. Sorted
/// ascending, duplicates removed. Throws parse_error.
std::vector<int> parse_steps(std::string_view list);

/// The --help text (several lines, ending in a newline).
std::string usage();

/// 1000x1000, 2000x2000, 4000x4000, 6000x6000, 11000x11000 and 2^10 .. 2^30, ascending, unique.
std::vector<std::int64_t> default_sizes();

/// The canonical orders: every implementation, type and op name parse_options accepts
/// (besides the groups "ladder" and "all", and "all" for types and ops).
std::span<const std::string_view> implementation_names();
std::span<const std::string_view> type_names();
std::span<const std::string_view> op_names();

/// The --data names, in data_family order: "exact", "normal", "spread".
std::span<const std::string_view> data_names();
std::string_view data_name(data_family f);

/// "table", "csv", "json" or "md".
std::string_view format_name(options::format f);

}  // namespace cured::bench
