#include "bench/report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <span>
#include <string_view>
#include <tuple>

#include <nlohmann/json.hpp>

namespace cured::bench {

namespace {

bool measured(double v) { return std::isfinite(v); }

/// Whether v is written as an integer (60, not 60.0) in every report: whole and below 1e15.
bool written_whole(double v) { return v == std::floor(v) && std::fabs(v) < 1e15; }

/// Shortest text that reads back to v; whole numbers without an exponent. Requires finite v.
std::string number_text(double v) {
  if (written_whole(v)) return std::to_string(std::int64_t(v));
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("0");
}

/// v with `decimals` digits after the point; "-" when not measured.
std::string fixed(double v, int decimals) {
  if (!measured(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string block_text(int block) { return block > 0 ? std::to_string(block) : "-"; }

/// One line of text: newlines and tabs become spaces (table and markdown cells).
std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return out;
}

/// bytes / the cold time (the hot time where no cold one was measured), in GB/s; NaN without a time.
double gbps_of(const row& r) {
  const double ms = measured(r.cold_ms) ? r.cold_ms : r.hot_ms;
  return measured(ms) && ms > 0 ? r.bytes / (ms * 1e6) : not_measured;
}

/// "cured 0.1.0, CUDA runtime 13.0, driver CUDA 13.0, CCCL 3.0.1" (what is known of it).
std::string versions_text(const run_info& info) {
  std::string text = "cured " + (info.cured_version.empty() ? std::string("?") : info.cured_version);
  if (!info.cuda_runtime.empty()) text += ", CUDA runtime " + info.cuda_runtime;
  if (!info.cuda_driver.empty()) text += ", driver for CUDA " + info.cuda_driver;
  if (!info.cccl.empty()) text += ", CCCL " + info.cccl;
  return text;
}

// ---- table ------------------------------------------------------------------------------

struct column {
  std::string_view title;
  bool left;  ///< text columns align left, numbers right
};

constexpr column table_columns[] = {{"impl", true},    {"type", true},   {"op", true},      {"data", true},
                                    {"n", false},
                                    {"block", false},  {"cold ms", false}, {"noise%", false}, {"hot ms", false},
                                    {"GB/s", false},
                                    {"%ceil", false},  {"%peak", false},  {"x step1", false}, {"x cub", false},
                                    {"check", true}};

/// The columns of axis rows.
constexpr column axis_columns[] = {{"impl", true},     {"type", true},    {"op", true},     {"shape", true},
                                   {"axes", true},     {"cold ms", false}, {"noise%", false}, {"hot ms", false},
                                   {"GB/s", false},
                                   {"%floor", false},  {"%ceil", false},  {"%peak", false},  {"x cub", false},
                                   {"check", true}};

std::vector<std::string> display_cells(const row& r) {
  return {one_line(r.impl),       one_line(r.type),        one_line(r.op),
          one_line(r.data),       std::to_string(r.n),    block_text(r.block),     fixed(r.cold_ms, 4),
          fixed(r.cold_noise, 1), fixed(r.hot_ms, 4),     fixed(r.gbps, 1),        fixed(r.pct_ceiling, 1),
          fixed(r.pct_peak, 1),   fixed(r.vs_step1, 2),    fixed(r.vs_cub, 2),
          one_line(r.check)};
}

/// The columns of segment rows.
constexpr column segment_columns[] = {{"impl", true},     {"type", true},    {"op", true},      {"n", false},
                                      {"dist", true},     {"segments", false}, {"cold ms", false}, {"noise%", false},
                                      {"hot ms", false},
                                      {"GB/s", false},    {"%floor", false}, {"x cub", false},  {"check", true}};

std::vector<std::string> axis_cells(const row& r) {
  return {one_line(r.impl),         one_line(r.type),        one_line(r.op),
          shape_text(r.shape),      axes_text(r.axes),       fixed(r.cold_ms, 4),
          fixed(r.cold_noise, 1),   fixed(r.hot_ms, 4),      fixed(r.gbps, 1),        fixed(r.pct_floor, 1),
          fixed(r.pct_ceiling, 1),  fixed(r.pct_peak, 1),    fixed(r.vs_cub, 2),
          one_line(r.check)};
}

std::vector<std::string> segment_cells(const row& r) {
  return {one_line(r.impl),       one_line(r.type),         one_line(r.op),      std::to_string(r.n),
          one_line(r.dist),       std::to_string(r.segments), fixed(r.cold_ms, 4), fixed(r.cold_noise, 1),
          fixed(r.hot_ms, 4),
          fixed(r.gbps, 1),       fixed(r.pct_floor, 1),    fixed(r.vs_cub, 2),  one_line(r.check)};
}

enum class row_kind { whole, axis, segment };

row_kind kind_of(const row& r) { return r.axis() ? row_kind::axis : r.segmented() ? row_kind::segment : row_kind::whole; }

/// The rows of one kind, in order.
std::vector<const row*> rows_of_kind(const std::vector<row>& rows, row_kind kind) {
  std::vector<const row*> out;
  for (const auto& r : rows)
    if (kind_of(r) == kind) out.push_back(&r);
  return out;
}

bool any_rows_of_kind(const std::vector<row>& rows, row_kind kind) {
  return std::any_of(rows.begin(), rows.end(), [&](const row& r) { return kind_of(r) == kind; });
}

/// Aligned columns under their titles and a rule.
template <class Cells>
void write_aligned(std::ostream& os, std::span<const column> columns, const std::vector<const row*>& rows, Cells cells_of) {
  const std::size_t count = columns.size();
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size());
  for (const row* r : rows) cells.push_back(cells_of(*r));
  std::vector<std::size_t> width(count);
  for (std::size_t c = 0; c < count; ++c) {
    width[c] = columns[c].title.size();
    for (const auto& line : cells) width[c] = std::max(width[c], line[c].size());
  }
  auto put = [&](std::size_t c, std::string_view text) {
    const std::string pad(width[c] - text.size(), ' ');
    if (c > 0) os << "  ";
    if (c + 1 == count) {
      os << text;  // last column: no trailing spaces
    } else if (columns[c].left) {
      os << text << pad;
    } else {
      os << pad << text;
    }
  };
  for (std::size_t c = 0; c < count; ++c) put(c, columns[c].title);
  os << "\n";
  for (std::size_t c = 0; c < count; ++c) put(c, std::string(width[c], '-'));
  os << "\n";
  for (const auto& line : cells) {
    for (std::size_t c = 0; c < count; ++c) put(c, line[c]);
    os << "\n";
  }
}

/// write(columns, rows, cells) for each kind of row there is, in the order whole-array, axis,
/// segment (whole-array when there are no rows at all), a blank line between two.
template <class Write>
void write_tables(std::ostream& os, const std::vector<row>& rows, Write write) {
  const auto whole = rows_of_kind(rows, row_kind::whole), axis = rows_of_kind(rows, row_kind::axis),
             segment = rows_of_kind(rows, row_kind::segment);
  bool first = true;
  const auto table = [&](std::span<const column> columns, const std::vector<const row*>& of_kind, auto cells_of) {
    if (!first) os << "\n";
    write(columns, of_kind, cells_of);
    first = false;
  };
  if (!whole.empty() || (axis.empty() && segment.empty())) table(table_columns, whole, display_cells);
  if (!axis.empty()) table(axis_columns, axis, axis_cells);
  if (!segment.empty()) table(segment_columns, segment, segment_cells);
}

void write_table(std::ostream& os, const run_info& info, const std::vector<row>& rows) {
  os << "cured-bench on " << (info.device.empty() ? "an unknown device" : one_line(info.device));
  if (info.sm_count > 0) os << " (" << info.sm_count << " SMs, " << fixed(info.l2_mb, 1) << " MiB L2)";
  os << "\nread ceiling " << fixed(info.ceiling_gbps, 1) << " GB/s measured, peak " << fixed(info.peak_gbps, 1)
     << " GB/s theoretical; samples " << (info.samples > 0 ? std::to_string(info.samples) : "auto") << "\n";
  os << one_line(versions_text(info)) << "\n";
  if (!info.command.empty()) os << "command: " << one_line(info.command) << "\n";
  if (!info.date.empty()) os << "date: " << one_line(info.date) << "\n";
  os << "\n";

  write_tables(os, rows, [&](std::span<const column> columns, const std::vector<const row*>& of_kind, auto cells_of) {
    write_aligned(os, columns, of_kind, cells_of);
  });
  if (rows.empty()) os << "(no rows)\n";
}

// ---- markdown ---------------------------------------------------------------------------

std::string md_cell(std::string_view s) {
  std::string out;
  for (char c : one_line(s)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

/// `s` as inline code, fenced with more backticks than it holds in a row.
std::string md_code(std::string_view s) {
  std::size_t run = 0, longest = 0;
  for (char c : s) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  const std::string fence(longest + 1, '`');
  return fence + " " + one_line(s) + " " + fence;
}

/// A GitHub table of `rows`.
template <class Cells>
void write_md_table(std::ostream& os, std::span<const column> columns, const std::vector<const row*>& rows,
                    Cells cells_of) {
  os << "|";
  for (const auto& c : columns) os << " " << c.title << " |";
  os << "\n|";
  for (const auto& c : columns) os << (c.left ? " --- |" : " ---: |");
  os << "\n";
  for (const row* r : rows) {
    os << "|";
    for (const auto& cell : cells_of(*r)) os << " " << md_cell(cell) << " |";
    os << "\n";
  }
}

void write_md(std::ostream& os, const run_info& info, const std::vector<row>& rows) {
  os << "Device: " << (info.device.empty() ? "unknown" : one_line(info.device)) << "; read ceiling "
     << fixed(info.ceiling_gbps, 1) << " GB/s, peak " << fixed(info.peak_gbps, 1) << " GB/s; command: "
     << (info.command.empty() ? "unknown" : md_code(info.command)) << "; " << md_cell(versions_text(info)) << "\n\n";
  write_tables(os, rows, [&](std::span<const column> columns, const std::vector<const row*>& of_kind, auto cells_of) {
    write_md_table(os, columns, of_kind, cells_of);
  });
}

// ---- csv --------------------------------------------------------------------------------

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_number(double v) { return measured(v) ? number_text(v) : std::string(); }

void write_csv(std::ostream& os, const std::vector<row>& rows) {
  const bool axis = any_rows_of_kind(rows, row_kind::axis), segment = any_rows_of_kind(rows, row_kind::segment);
  os << "impl,type,op,data,n,block,cold_ms,hot_ms,bytes,gbps,pct_ceiling,pct_peak,vs_step1,vs_cub,check"
     << (axis ? ",shape,axes,outputs" : "") << (segment ? ",dist,segments" : "") << (axis || segment ? ",pct_floor" : "")
     << ",cold_noise\n";
  for (const auto& r : rows) {
    os << csv_field(r.impl) << ',' << csv_field(r.type) << ',' << csv_field(r.op) << ',' << csv_field(r.data) << ','
       << r.n << ','
       << (r.block > 0 ? std::to_string(r.block) : std::string()) << ',' << csv_number(r.cold_ms) << ','
       << csv_number(r.hot_ms) << ',' << csv_number(r.bytes) << ',' << csv_number(r.gbps) << ','
       << csv_number(r.pct_ceiling) << ',' << csv_number(r.pct_peak) << ',' << csv_number(r.vs_step1) << ','
       << csv_number(r.vs_cub) << ',' << csv_field(r.check);
    if (axis && r.axis()) {
      os << ',' << csv_field(shape_text(r.shape)) << ',' << csv_field(axes_text(r.axes)) << ',' << r.outputs;
    } else if (axis) {
      os << ",,,";
    }
    if (segment && r.segmented()) {
      os << ',' << csv_field(r.dist) << ',' << r.segments;
    } else if (segment) {
      os << ",,";
    }
    if (axis || segment) os << ',' << (r.axis() || r.segmented() ? csv_number(r.pct_floor) : std::string());
    os << ',' << csv_number(r.cold_noise) << "\n";
  }
}

// ---- json -------------------------------------------------------------------------------

using ordered_json = nlohmann::ordered_json;

/// null when not measured; whole numbers as integers (60, not 60.0), as number_text writes them.
ordered_json json_number(double v) {
  if (!measured(v)) return nullptr;
  if (written_whole(v)) return std::int64_t(v);
  return v;
}

ordered_json run_json(const run_info& info) {
  return {{"device", info.device},
          {"sm_count", info.sm_count},
          {"l2_mb", json_number(info.l2_mb)},
          {"peak_gbps", json_number(info.peak_gbps)},
          {"ceiling_gbps", json_number(info.ceiling_gbps)},
          {"command", info.command},
          {"date", info.date},
          {"samples", info.samples},
          {"cured_version", info.cured_version},
          {"cuda_runtime", info.cuda_runtime},
          {"cuda_driver", info.cuda_driver},
          {"cccl", info.cccl}};
}

ordered_json row_json(const row& r) {
  ordered_json o = {{"impl", r.impl},
                    {"type", r.type},
                    {"op", r.op},
                    {"data", r.data},
                    {"n", r.n},
                    {"block", r.block > 0 ? ordered_json(r.block) : ordered_json(nullptr)},
                    {"cold_ms", json_number(r.cold_ms)},
                    {"cold_noise", json_number(r.cold_noise)},
                    {"hot_ms", json_number(r.hot_ms)},
                    {"bytes", json_number(r.bytes)},
                    {"gbps", json_number(r.gbps)},
                    {"pct_ceiling", json_number(r.pct_ceiling)},
                    {"pct_peak", json_number(r.pct_peak)},
                    {"vs_step1", json_number(r.vs_step1)},
                    {"vs_cub", json_number(r.vs_cub)},
                    {"check", r.check}};
  if (r.axis()) {
    o["shape"] = r.shape;
    o["axes"] = r.axes;
    o["outputs"] = r.outputs;
  }
  if (r.segmented()) {
    o["dist"] = r.dist;
    o["segments"] = r.segments;
  }
  if (r.axis() || r.segmented()) o["pct_floor"] = json_number(r.pct_floor);
  return o;
}

/// `v` on one line as {"key": value, ...} and [a, b]: dump() writes one line without spaces
/// or one value per line, and scripts/device_check.sh greps rows for `"check": "`. Bytes of
/// strings that are not UTF-8 become U+FFFD (dump throws on them by default).
void write_one_line(std::ostream& os, const ordered_json& v) {
  const auto text = [](const ordered_json& scalar) {
    return scalar.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  };
  if (v.is_object()) {
    os << '{';
    const char* separator = "";
    for (const auto& [key, value] : v.items()) {
      os << separator << text(key) << ": ";
      write_one_line(os, value);
      separator = ", ";
    }
    os << '}';
  } else if (v.is_array()) {
    os << '[';
    const char* separator = "";
    for (const auto& element : v) {
      os << separator;
      write_one_line(os, element);
      separator = ", ";
    }
    os << ']';
  } else {
    os << text(v);
  }
}

/// The run on one line, then one row per line.
void write_json(std::ostream& os, const run_info& info, const std::vector<row>& rows) {
  os << "{\n  \"run\": ";
  write_one_line(os, run_json(info));
  os << ",\n  \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    os << (i == 0 ? "\n    " : ",\n    ");
    write_one_line(os, row_json(rows[i]));
  }
  os << (rows.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

/// time_ref / time_this: cold when both have a cold time, else hot; NaN otherwise.
double speedup(const row& ref, const row& r) {
  if (measured(ref.cold_ms) && measured(r.cold_ms) && r.cold_ms > 0) return ref.cold_ms / r.cold_ms;
  if (measured(ref.hot_ms) && measured(r.hot_ms) && r.hot_ms > 0) return ref.hot_ms / r.hot_ms;
  return not_measured;
}

double percent(double part, double whole) {
  return measured(part) && measured(whole) && whole > 0 ? 100.0 * part / whole : not_measured;
}

}  // namespace

void fill_derived(std::vector<row>& rows, const run_info& info) {
  // type, op, data, n, for axis rows the shape and axes, for segment rows the dist ("" where not one)
  using key = std::tuple<std::string, std::string, std::string, std::int64_t, std::string, std::string, std::string>;
  const auto key_of = [](const row& r) {
    return r.axis() ? key{r.type, r.op, r.data, r.n, shape_text(r.shape), axes_text(r.axes), r.dist}
                    : key{r.type, r.op, r.data, r.n, "", "", r.dist};
  };
  std::map<key, const row*> step1, cub, floor;
  for (const auto& r : rows) {
    if (r.impl == "step1") step1.try_emplace(key_of(r), &r);
    if (r.impl == "cub") cub.try_emplace(key_of(r), &r);
    if (r.impl == "floor" && (r.axis() || r.segmented())) floor.try_emplace(key_of(r), &r);
  }
  // Pointers into rows stay valid: only the derived fields change below, never the size.
  auto ratio = [&](const std::map<key, const row*>& refs, const row& r) {
    const auto it = refs.find(key_of(r));
    return it == refs.end() ? not_measured : speedup(*it->second, r);
  };
  for (auto& r : rows) {
    r.gbps = gbps_of(r);
    r.pct_ceiling = percent(r.gbps, info.ceiling_gbps);
    r.pct_peak = percent(r.gbps, info.peak_gbps);
    r.vs_step1 = ratio(step1, r);
    r.vs_cub = ratio(cub, r);
    r.pct_floor = (r.axis() || r.segmented()) && r.impl != "floor" ? 100.0 * ratio(floor, r) : not_measured;
  }
}

void write_report(std::ostream& os, options::format fmt, const run_info& info, const std::vector<row>& rows) {
  switch (fmt) {
    case options::format::table: write_table(os, info, rows); break;
    case options::format::csv: write_csv(os, rows); break;
    case options::format::json: write_json(os, info, rows); break;
    case options::format::md: write_md(os, info, rows); break;
  }
}

/// The streamed rows' columns, the header's and each row's alike.
constexpr char stream_format[] = "%-14s %-8s %-9s %-24s %12s %8s %11s %9s  %s\n";

std::string stream_header() {
  char line[160];
  std::snprintf(line, sizeof line, stream_format, "impl", "type", "op", "input",
                "cold ms", "noise%", "hot ms", "GB/s", "check");
  return line;
}

std::string stream_line(const row& r) {
  std::string input;
  if (r.axis()) input = shape_text(r.shape) + " axes " + axes_text(r.axes);
  else if (r.segmented()) input = std::to_string(r.n) + " " + r.dist;
  else input = r.data + " " + std::to_string(r.n);
  const double gbps = gbps_of(r);
  char line[512];
  std::snprintf(line, sizeof line, stream_format, one_line(r.impl).c_str(),
                one_line(r.type).c_str(), one_line(r.op).c_str(), one_line(input).c_str(), fixed(r.cold_ms, 4).c_str(),
                fixed(r.cold_noise, 1).c_str(), fixed(r.hot_ms, 4).c_str(), fixed(gbps, 1).c_str(),
                one_line(r.check).substr(0, 200).c_str());
  return line;
}

int exit_status(const std::vector<row>& rows) {
  for (const auto& r : rows)
    if (r.check != "ok" && !r.check.starts_with("skipped") && r.check != no_result_check &&
        r.check != no_result_check_axes)
      return 1;
  return 0;
}

}  // namespace cured::bench
