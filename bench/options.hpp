#pragma once
// cured-bench's command line: what to time (implementations, sizes, types, ops, modes) and
// how to report it. Plain C++, no CUDA: parse_options only validates and normalizes.
//
//   cured::bench::options opt = cured::bench::parse_options(argc, argv);  // throws parse_error
//
// Every list comes back without duplicates, in canonical order: impls and steps in the order of
// implementation_names() and 1..10, types and ops in the order of type_names() and op_names(),
// sizes ascending; axis workloads in the order given (the grid's: by size, then axis, then rows);
// segmented workloads by size, then distribution in the order given (the grid's).

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/segment_offsets.hpp"
#include "harness/data_family.hpp"

namespace cured::bench {

/// The input families --data selects: the harness's.
using harness::data_family;

/// One axis workload: a contiguous row-major array of `shape` reduced along `axes`.
struct axis_workload {
  std::vector<std::int64_t> shape;  ///< extents, outermost first: 1..8 of them, each >= 1
  std::vector<int> axes;            ///< the reduced axes: 0..rank-1, ascending, each once

  std::int64_t elements() const;  ///< the product of the extents
  std::int64_t outputs() const;   ///< the product of the kept extents (1 when every axis is reduced)
  std::int64_t reduced() const;   ///< elements per output: the product of the reduced extents
  /// Whether each output's elements are one contiguous run, the outputs one after another (no
  /// kept axis of extent above 1 after a reduced one): rows, as cub::DeviceSegmentedReduce takes them.
  bool rows() const;
  bool operator==(const axis_workload&) const = default;
};

/// One segmented workload: n values cut into segments by `dist` (segment_offsets).
struct segment_workload {
  std::int64_t n = 0;
  segment_distribution dist;

  bool operator==(const segment_workload&) const = default;
};

struct options {
  /// expanded, canonical order: step1..step10, cured, cured-blocking, cured-pairs, cub, cublas, thrust, floor, cpu, cpu-mt
  std::vector<std::string> impls;
  std::vector<int> steps;           ///< the ladder steps in impls, ascending (empty when no step is selected)
  int block = 256;                  ///< threads per block for the ladder steps: a power of two in [32, 1024]
  std::vector<std::int64_t> sizes;  ///< element counts, ascending (empty when workloads is not; segmented workloads': theirs)
  /// --shape/--axes or --axes-grid: the axis workloads, timed instead of whole arrays of sizes.
  std::vector<axis_workload> workloads;
  bool axes_grid = false;           ///< --axes-grid: workloads is default_axis_grid()
  /// --segments or --segments-grid: the segmented workloads, timed instead of whole arrays.
  std::vector<segment_workload> segment_workloads;
  bool segments_grid = false;       ///< --segments-grid: the distributions of default_segment_grid()
  std::vector<std::string> types;   ///< names from type_names(); floating types only unless data is exact
  std::vector<std::string> ops;     ///< names from op_names()
  data_family data = data_family::exact;  ///< --data: the input family (data_names())
  bool cold = true, hot = true;     ///< --mode cold|hot|both; at least one is true
  int samples = 0;                  ///< 0 = automatic (the timing code decides), else >= 1
  int device = 0;
  enum class format { table, csv, json, md } fmt = format::table;
  std::string out;                  ///< --out FILE ("" = stdout)
  /// --json, --csv, --md FILE: more reports of the same rows, one per format (the last given).
  struct report_file {
    format fmt;
    std::string path;
  };
  std::vector<report_file> reports;
  bool sweep = false;               ///< --sweep: sizes are sweep_sizes()
  bool list = false, help = false, version = false;
  bool seed_positional = false;     ///< the seeds' "N [STEP [THREADS]]" form was used
  std::uint64_t seed = 0;           ///< --seed, for reproducible inputs; meaningful when seed_given
  bool seed_given = false;

  /// The run times axis workloads (cured, cub and floor over workloads) instead of whole arrays.
  bool axis_mode() const { return !workloads.empty(); }
  /// The run times segmented workloads (cured, cub and floor over segment_workloads).
  bool segment_mode() const { return !segment_workloads.empty(); }
  /// Implementation `name` is among impls.
  bool selected(std::string_view name) const { return std::find(impls.begin(), impls.end(), name) != impls.end(); }
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
/// Axis workloads: --shape (repeatable; each a list, parse_shapes) with --axes (parse_axes,
/// every axis checked against every shape's rank), or --axes-grid alone. They run the
/// implementations of axis_implementation_names() (default all three) and the ops of
/// axis_op_names() (default sum; "all" means those six), exact data only; --sizes, --steps,
/// --block and the positional form are errors beside them.
/// Segmented workloads: --segments (parse_distributions) or --segments-grid, over the sizes of
/// --sizes (default_segment_sizes() without it; each at least 1), with the implementations, ops,
/// types and data rules of axis workloads; --shape, --axes and --axes-grid are errors beside them.
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

/// A --shape item: extents joined by 'x', outermost first, each a size without 'x' (parse_size:
/// "4096", "2^20", "1Mi", "1e3"), each at least 1, 1 to 8 of them, their product at most 2^62.
/// Throws parse_error naming the shape.
std::vector<std::int64_t> parse_shape(std::string_view text);

/// A --shape value: shapes separated by ';' or whitespace ("4096x1024;64x4096x64",
/// "4096x1024 1024x4096"), in the order given. Throws parse_error (an empty item between two ';').
std::vector<std::vector<std::int64_t>> parse_shapes(std::string_view list);

/// An --axes value: comma-separated axis numbers, negative ones counting from the last axis
/// ("1", "0,2", "-1"), as given; parse_options checks them against each shape. Throws parse_error.
std::vector<int> parse_axes(std::string_view list);

/// `axes` (as parse_axes gives them) of an array of `rank` axes: each in -rank..rank-1, made
/// non-negative, ascending; an axis named twice throws. `shape` names the shape in messages.
std::vector<int> normalize_axes(const std::vector<int>& axes, int rank, std::string_view shape);

/// The --axes-grid workloads. For n = 2^20, 2^24 and 2^28: rows x cols with rows*cols = n and
/// rows = 1, 4, 16, ... up to n/2, reduced along axis 1, then the same shapes along axis 0;
/// then the 3-D shapes 64x4096x64, 1024x256x256, 8x2^20x8 and 4096x64x256 along axis 1.
std::vector<axis_workload> default_axis_grid();

/// A --segments item: "uniform:L" (L a size, parse_size, at least 1), "powerlaw", "onebig" or
/// "empty-mixed". Throws parse_error naming the item.
segment_distribution parse_distribution(std::string_view text);

/// A --segments value: distributions separated by ',' or ';' ("uniform:4,powerlaw"), in the
/// order given, duplicates dropped. Throws parse_error (an empty item, a bad distribution).
std::vector<segment_distribution> parse_distributions(std::string_view list);

/// The --segments-grid distributions: uniform:1, uniform:4, uniform:16, ..., uniform:4^14 (= 2^28),
/// then powerlaw, onebig and empty-mixed.
std::vector<segment_distribution> default_segment_grid();

/// The sizes of segmented workloads without --sizes: 2^24 and 2^28.
std::vector<std::int64_t> default_segment_sizes();

/// The workloads of `sizes` (ascending) x `dists`: by size, then in the order of dists. With
/// `grid`, uniform lengths above the size are left out.
std::vector<segment_workload> segment_workloads_of(const std::vector<std::int64_t>& sizes,
                                                   const std::vector<segment_distribution>& dists, bool grid);

/// "4096x1024"; "0,2".
std::string shape_text(const std::vector<std::int64_t>& shape);
std::string axes_text(const std::vector<int>& axes);

/// The --help text (several lines, ending in a newline).
std::string usage();

/// The default run's sizes: 2^14 (launch-bound), 1000x1000 (in L2), 4000x4000 and 11000x11000
/// (from HBM): the seeds' comparison in minutes.
std::vector<std::int64_t> default_sizes();
/// --sweep: 1000x1000, 2000x2000, 4000x4000, 6000x6000, 11000x11000 and 2^10 .. 2^30, ascending, unique.
std::vector<std::int64_t> sweep_sizes();

/// The canonical orders: every implementation, type and op name parse_options accepts
/// (besides the groups "ladder" and "all", and "all" for types and ops).
std::span<const std::string_view> implementation_names();
std::span<const std::string_view> type_names();
std::span<const std::string_view> op_names();

/// The implementations and ops of axis workloads, in canonical order (subsets of the above).
std::span<const std::string_view> axis_implementation_names();
std::span<const std::string_view> axis_op_names();

/// The implementations and ops of segmented workloads, in canonical order (subsets of the above).
std::span<const std::string_view> segment_implementation_names();
std::span<const std::string_view> segment_op_names();

/// The --data names, in data_family order: "exact", "normal", "spread".
std::span<const std::string_view> data_names();
std::string_view data_name(data_family f);

/// "table", "csv", "json" or "md".
std::string_view format_name(options::format f);

}  // namespace cured::bench
