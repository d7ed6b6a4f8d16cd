#pragma once
// cured-bench's results and the report writers (table, CSV, JSON, markdown). Plain C++, no CUDA.
//
//   std::vector<cured::bench::row> rows = ...;     // impl, type, op, data, n, times, bytes, check
//   cured::bench::fill_derived(rows, info);        // GB/s, % of ceiling, peak and floor, speedups
//   cured::bench::write_report(std::cout, opt.fmt, info, rows);
//   return cured::bench::exit_status(rows);
//
// NaN means "not measured" or "not applicable" everywhere: `-` in the table and markdown, an
// empty field in CSV, null in JSON. So does block 0.

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/options.hpp"

namespace cured::bench {

inline constexpr double not_measured = std::numeric_limits<double>::quiet_NaN();

/// One implementation x type x op x data family x size, or x axis workload (an axis row:
/// shape not empty), or x segmented workload (a segment row: dist not empty).
struct row {
  std::string impl, type, op;
  std::string data = "exact";           ///< the input family (data_names()): exact, normal or spread
  std::int64_t n = 0;                   ///< elements of the input
  int block = 0;                        ///< threads per block; 0 = not applicable
  double cold_ms = not_measured;        ///< median time, L2 flushed before each sample
  double cold_noise = not_measured;     ///< the cold samples' relative standard deviation, %
  double hot_ms = not_measured;         ///< time with the input left in L2
  double bytes = 0;                     ///< bytes of input read; axis and segment rows: read plus written
  std::vector<std::int64_t> shape;      ///< axis rows: the input's extents; empty: a whole-array row
  std::vector<int> axes;                ///< axis rows: the reduced axes, ascending
  std::int64_t outputs = 0;             ///< axis rows: elements of the output
  std::string dist;                     ///< segment rows: the distribution (distribution_text); empty: not one
  std::int64_t segments = 0;            ///< segment rows: the number of segments (and of outputs)
  double pct_floor = not_measured;      ///< axis and segment rows but the floor's: the floor's time / this time, %
  double gbps = not_measured;           ///< bytes / cold time (hot when cold is not measured), 1 GB/s = 1e9 B/s
  double pct_ceiling = not_measured;    ///< gbps as % of the run's measured streaming-read ceiling
  double pct_peak = not_measured;       ///< gbps as % of the device's theoretical peak
  double vs_step1 = not_measured;       ///< time of step1 / this time, same type, op, data and n
  double vs_cub = not_measured;         ///< time of cub / this time, same type, op, data and n
  std::string check;                    ///< "ok", the error ("got 3 want 4"), "skipped: reason", or no_result_check

  bool axis() const { return !shape.empty(); }
  bool segmented() const { return !dist.empty(); }
};

/// What the whole run shares.
struct run_info {
  std::string device;
  int sm_count = 0;
  double l2_mb = 0;
  double peak_gbps = not_measured;      ///< theoretical, from the device attributes
  double ceiling_gbps = not_measured;   ///< measured streaming-read bandwidth in this run
  std::string command;
  std::string date;
  int samples = 0;                      ///< 0 = automatic
  std::string cured_version;            ///< the project's version
  std::string cuda_runtime, cuda_driver;  ///< "13.0": the runtime linked, the newest CUDA the driver takes
  std::string cccl;                     ///< "3.0.1": the CCCL (CUB, Thrust) compiled in
};

/// Computes gbps, pct_ceiling, pct_peak, vs_step1, vs_cub and pct_floor of every row from its
/// times and bytes (overwriting them). Ratios compare cold times when both rows have one, else
/// hot times; NaN where the reference row or a time is missing. A row's references have its
/// type, op, data and n, for axis rows its shape and axes, and for segment rows its dist
/// (rows of different kinds never refer to each other); pct_floor is set on axis and segment
/// rows only, except the floor's own.
void fill_derived(std::vector<row>& rows, const run_info& info);

/// Writes the report. table: aligned columns under a header naming the device and ceiling;
/// csv: a header line and one line per row, nothing else (RFC 4180 quoting); json:
/// {"run": {...}, "rows": [{...}, ...]}; md: a line naming the device and command, then a
/// GitHub table. Axis rows: in the table and markdown, a table of their own after the
/// whole-array rows' (impl, type, op, shape, axes, times, GB/s, % of floor, ceiling and peak,
/// x cub, check); in CSV, when there are any, the columns shape, axes, outputs and pct_floor
/// after the others (empty on whole-array rows); in JSON, the keys shape and axes (arrays),
/// outputs and pct_floor on axis rows only. Segment rows: in the table and markdown, a table of
/// their own after the others (impl, type, op, n, dist, segments, times, GB/s, % of floor, x cub,
/// check); in CSV, when there are any, the columns dist and segments after the axis columns
/// (or after the others), then pct_floor; in JSON, the keys dist, segments and pct_floor on
/// segment rows only. A report without axis or segment rows is as before them. Every row's
/// cold_noise is CSV's last column and a JSON key (after cold_ms); the table and markdown show it
/// as noise% after cold ms.
void write_report(std::ostream& os, options::format fmt, const run_info& info, const std::vector<row>& rows);

/// The rows as they are measured, before the derived columns exist: a header, then one line
/// per row (impl, type, op, the input, cold ms, noise, hot ms, GB/s, check), fixed widths.
std::string stream_header();
std::string stream_line(const row& r);

/// The check of a row that computes no result (the read floor).
inline constexpr std::string_view no_result_check = "n/a: reads only";
/// The check of an axis or segment row that computes no result (the floor: reads the input,
/// writes the output's bytes).
inline constexpr std::string_view no_result_check_axes = "n/a: reads and writes only";

/// 0 when every check is "ok", starts with "skipped", or is no_result_check or
/// no_result_check_axes, else 1.
int exit_status(const std::vector<row>& rows);

}  // namespace cured::bench
