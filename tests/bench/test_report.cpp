// cured-bench's reports: CSV reads back field by field, JSON parses (with nlohmann-json),
// the table and markdown line up, fill_derived computes the right ratios, exit_status.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/report.hpp"

namespace cb = cured::bench;

namespace {

constexpr double nan_v = cb::not_measured;
constexpr std::size_t csv_columns = 16;
constexpr std::size_t display_columns = 15;
constexpr std::size_t csv_axis_columns = 20;  // with axis rows: shape, axes, outputs, pct_floor
constexpr std::size_t axis_display_columns = 14;
constexpr std::size_t csv_segment_columns = 19;  // with segment rows: dist, segments, pct_floor
constexpr std::size_t segment_display_columns = 13;

const std::string tricky = "got \"3\", want 4\\n\nsecond line\tand | pipe";

cb::row make_row(std::string impl, std::string type, std::int64_t n, double cold, double hot, int block = 0,
                 std::string check = "ok") {
  cb::row r;
  r.impl = std::move(impl);
  r.type = std::move(type);
  r.op = "sum";
  r.n = n;
  r.block = block;
  r.cold_ms = cold;
  r.cold_noise = std::isnan(cold) ? nan_v : 1.25;
  r.hot_ms = hot;
  r.bytes = double(n) * (r.type == "double" ? 8 : 4);
  r.check = std::move(check);
  return r;
}

/// An axis row: `impl` on `shape` reduced along `axes`, float in, float out.
cb::row make_axis_row(std::string impl, std::vector<std::int64_t> shape, std::vector<int> axes, double cold,
                      std::string check = "ok", std::string op = "sum") {
  cb::row r;
  r.impl = std::move(impl);
  r.type = "float";
  r.op = std::move(op);
  r.n = 1;
  for (const auto e : shape) r.n *= e;
  r.outputs = 1;
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (std::find(axes.begin(), axes.end(), int(k)) == axes.end()) r.outputs *= shape[k];
  r.shape = std::move(shape);
  r.axes = std::move(axes);
  r.cold_ms = cold;
  r.hot_ms = cold / 2;
  r.bytes = 4.0 * double(r.n + r.outputs);
  r.check = std::move(check);
  return r;
}

/// A segment row: `impl` over n float values in `segments` segments drawn by `dist`, float sums.
cb::row make_segment_row(std::string impl, std::int64_t n, std::string dist, std::int64_t segments, double cold,
                         std::string check = "ok", std::string op = "sum") {
  cb::row r;
  r.impl = std::move(impl);
  r.type = "float";
  r.op = std::move(op);
  r.n = n;
  r.dist = std::move(dist);
  r.segments = segments;
  r.cold_ms = cold;
  r.hot_ms = cold / 2;
  r.bytes = 4.0 * double(n) + 8.0 * double(segments + 1) + 4.0 * double(segments);
  r.check = std::move(check);
  return r;
}

cb::run_info make_info() {
  cb::run_info info;
  info.device = "NVIDIA H200 \"test\" \\ unit";
  info.sm_count = 132;
  info.l2_mb = 60;
  info.peak_gbps = 4800;
  info.ceiling_gbps = 4000;
  info.command = "cured-bench --sizes 1M,2^20 --out \"a b.json\"";
  info.date = "2025-01-01 00:00:00 UTC";
  info.samples = 0;
  info.cured_version = "0.1.0";
  info.cuda_runtime = "13.0";
  info.cuda_driver = "13.1";
  info.cccl = "3.0.1";
  return info;
}

/// A varied set: every implementation, a hot-only row, an unmeasured row, awkward strings.
std::vector<cb::row> sample_rows() {
  std::vector<cb::row> rows;
  const char* impls[] = {"step1", "step2", "step3", "step4", "step5", "step6", "step7", "step8",
                         "step9", "step10", "cured", "cub", "thrust", "cpu", "cpu-mt"};
  double t = 0.5;
  for (const char* impl : impls) {
    const bool ladder = std::string(impl).starts_with("step");
    rows.push_back(make_row(impl, "float", 1 << 20, t, t / 2, ladder ? 256 : 0));
    t *= 0.8;
  }
  rows.push_back(make_row("cpu", "double", 123456789, nan_v, 12.5));
  rows.push_back(make_row("cub", "int32", 1000, nan_v, nan_v, 0, "skipped: needs 1 MiB, 0 MiB free"));
  rows.push_back(make_row("step7", "int32", 1000, 0.001, nan_v, 256, tricky));
  rows.push_back(make_row("cured", "double", 1 << 26, 0.2, 0.19));
  rows.back().op = "exact_sum";
  rows.back().data = "spread";
  rows.push_back(make_row("cub", "float", 1 << 26, 0.1, 0.09, 0, "ok"));
  rows.back().data = "normal";
  cb::fill_derived(rows, make_info());
  return rows;
}

std::string render(cb::options::format f, const std::vector<cb::row>& rows, const cb::run_info& info = make_info()) {
  std::ostringstream os;
  cb::write_report(os, f, info, rows);
  return os.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);) lines.push_back(line);
  return lines;
}

// ---- a strict RFC 4180 reader -------------------------------------------------------------

/// Records of `text`; fails the test on a malformed quote.
std::vector<std::vector<std::string>> read_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      EXPECT_TRUE(field.empty() && !was_quoted) << "quote inside an unquoted field at " << i;
      quoted = was_quoted = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      was_quoted = false;
    } else if (c == '\n') {
      record.push_back(field);
      records.push_back(record);
      record.clear();
      field.clear();
      was_quoted = false;
    } else {
      EXPECT_FALSE(was_quoted) << "text after a closing quote at " << i;
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quote";
  EXPECT_TRUE(record.empty() && field.empty()) << "last line without a newline";
  return records;
}

/// A parsed report; keys keep the file's order.
using json = nlohmann::ordered_json;

/// The keys of a whole-array row, in order; axis and segment rows add theirs after them.
const std::vector<std::string> row_keys = {"impl", "type", "op", "data", "n", "block", "cold_ms", "cold_noise",
                                           "hot_ms", "bytes", "gbps", "pct_ceiling", "pct_peak", "vs_step1",
                                           "vs_cub", "check"};

std::vector<std::string> keys_of(const json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

std::vector<std::string> plus(std::vector<std::string> keys, const std::vector<std::string>& more) {
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}

/// `v` is null where `want` is NaN (not measured), else the number `want`.
void expect_number(const json& v, double want, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(v.is_null()) << what << " is " << v;
  } else {
    ASSERT_TRUE(v.is_number()) << what << " is " << v;
    EXPECT_EQ(v.get<double>(), want) << what;
  }
}

/// `v` is the integer `want`, written as one (the scripts take no 3.0 for 3).
void expect_integer(const json& v, std::int64_t want, const std::string& what) {
  ASSERT_TRUE(v.is_number_integer()) << what << " is " << v;
  EXPECT_EQ(v.get<std::int64_t>(), want) << what;
}

/// Unescaped '|' in a markdown line: one more than its cells.
std::size_t md_pipes(const std::string& line) {
  std::size_t pipes = 0;
  for (std::size_t i = 0; i < line.size(); ++i)
    if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++pipes;
  return pipes;
}

}  // namespace

// ---- the test's own checkers catch what they should -------------------------------------

TEST(JsonChecker, RejectsInvalidJson) {
  for (const char* bad : {"{", "{\"a\": nan}", "{\"a\": NaN}", "{\"a\": inf}", "{\"a\": Infinity}", "{\"a\": 1,}",
                          "[1 2]", "{\"a\": \"x\ny\"}", "{\"a\": \"\\q\"}", "{\"a\": 01}", "{\"a\": 1.}", "{a: 1}",
                          "{\"a\": 1} x", "\"unterminated", "{\"a\": \"\xff\"}", "{\"a\": 1} // note"})
    EXPECT_THROW(json::parse(bad), json::parse_error) << bad;
  EXPECT_NO_THROW(json::parse("{\"a\": [1, -2.5e+3, null, true, \"\\u00e9\\\"\"]}"));
}

// ---- fill_derived -----------------------------------------------------------------------

TEST(FillDerived, BandwidthAndPercentages) {
  cb::run_info info;
  info.ceiling_gbps = 1000;
  info.peak_gbps = 2000;
  std::vector<cb::row> rows = {make_row("step1", "float", 1000000, 0.008, 0.004, 256),
                               make_row("cpu", "float", 1000000, nan_v, 0.002),
                               make_row("cub", "float", 1000000, nan_v, nan_v, 0, "skipped: no memory")};
  cb::fill_derived(rows, info);
  EXPECT_DOUBLE_EQ(rows[0].gbps, 500);  // 4e6 bytes / 8e-6 s
  EXPECT_DOUBLE_EQ(rows[0].pct_ceiling, 50);
  EXPECT_DOUBLE_EQ(rows[0].pct_peak, 25);
  EXPECT_DOUBLE_EQ(rows[1].gbps, 2000);  // hot, as cold was not measured
  EXPECT_DOUBLE_EQ(rows[1].pct_ceiling, 200);
  EXPECT_TRUE(std::isnan(rows[2].gbps));
  EXPECT_TRUE(std::isnan(rows[2].pct_ceiling));
  EXPECT_TRUE(std::isnan(rows[2].pct_peak));

  cb::fill_derived(rows, cb::run_info{});  // no ceiling, no peak
  EXPECT_DOUBLE_EQ(rows[0].gbps, 500);
  EXPECT_TRUE(std::isnan(rows[0].pct_ceiling));
  EXPECT_TRUE(std::isnan(rows[0].pct_peak));
}

TEST(FillDerived, SpeedupsMatchTypeOpAndSize) {
  std::vector<cb::row> rows = {
      make_row("step1", "float", 1000, 0.008, 0.004, 256),  // 0
      make_row("step7", "float", 1000, 0.002, 0.001, 256),  // 1
      make_row("cub", "float", 1000, 0.004, 0.004),          // 2
      make_row("cpu", "float", 1000, nan_v, 0.016),          // 3: hot only
      make_row("cub", "int32", 1000, 0.001, 0.001),          // 4: another type
      make_row("step7", "int32", 1000, 0.002, 0.002, 256),   // 5: no step1 of its own
      make_row("step7", "float", 2000, 0.002, 0.002, 256),   // 6: another size, no refs
      make_row("thrust", "float", 1000, nan_v, nan_v),       // 7: not measured
  };
  rows.push_back(make_row("step7", "float", 1000, 0.001, 0.001, 256));  // 8: another op
  rows.back().op = "max";
  cb::fill_derived(rows, {});
  EXPECT_DOUBLE_EQ(rows[0].vs_step1, 1);
  EXPECT_DOUBLE_EQ(rows[0].vs_cub, 0.5);
  EXPECT_DOUBLE_EQ(rows[1].vs_step1, 4);
  EXPECT_DOUBLE_EQ(rows[1].vs_cub, 2);
  EXPECT_DOUBLE_EQ(rows[2].vs_step1, 2);
  EXPECT_DOUBLE_EQ(rows[2].vs_cub, 1);
  EXPECT_DOUBLE_EQ(rows[3].vs_step1, 0.25);  // hot against hot: 0.004 / 0.016
  EXPECT_DOUBLE_EQ(rows[3].vs_cub, 0.25);
  EXPECT_TRUE(std::isnan(rows[4].vs_step1));
  EXPECT_DOUBLE_EQ(rows[4].vs_cub, 1);
  EXPECT_TRUE(std::isnan(rows[5].vs_step1));
  EXPECT_DOUBLE_EQ(rows[5].vs_cub, 0.5);
  EXPECT_TRUE(std::isnan(rows[6].vs_step1));
  EXPECT_TRUE(std::isnan(rows[6].vs_cub));
  EXPECT_TRUE(std::isnan(rows[7].vs_step1));
  EXPECT_TRUE(std::isnan(rows[7].vs_cub));
  EXPECT_TRUE(std::isnan(rows[8].vs_step1));
  EXPECT_TRUE(std::isnan(rows[8].vs_cub));
}

TEST(FillDerived, SpeedupsMatchTheDataFamily) {
  std::vector<cb::row> rows = {make_row("cub", "float", 1000, 0.004, 0.004),     // 0: exact data
                               make_row("cub", "float", 1000, 0.008, 0.008),     // 1: normal data
                               make_row("cured", "float", 1000, 0.002, 0.002),   // 2: normal data
                               make_row("cured", "float", 1000, 0.001, 0.001),   // 3: exact data
                               make_row("cured", "float", 1000, 0.002, 0.002)};  // 4: spread data, no cub
  rows[1].data = rows[2].data = "normal";
  rows[4].data = "spread";
  cb::fill_derived(rows, {});
  EXPECT_DOUBLE_EQ(rows[2].vs_cub, 4);  // against the normal cub row, not the exact one
  EXPECT_DOUBLE_EQ(rows[3].vs_cub, 4);
  EXPECT_TRUE(std::isnan(rows[4].vs_cub));
}

TEST(FillDerived, ReferenceWithoutTimesGivesNaN) {
  std::vector<cb::row> rows = {make_row("step1", "float", 64, nan_v, nan_v, 256, "skipped: x"),
                               make_row("cub", "float", 64, 0.001, nan_v),
                               make_row("cured", "float", 64, nan_v, 0.001)};
  cb::fill_derived(rows, {});
  EXPECT_TRUE(std::isnan(rows[1].vs_step1));
  EXPECT_DOUBLE_EQ(rows[1].vs_cub, 1);
  EXPECT_TRUE(std::isnan(rows[2].vs_cub));  // cub has no hot time, cured no cold one
  EXPECT_TRUE(std::isnan(rows[2].vs_step1));
}

TEST(FillDerived, ZeroBytesAndEmpty) {
  std::vector<cb::row> none;
  cb::fill_derived(none, make_info());
  EXPECT_TRUE(none.empty());
  std::vector<cb::row> rows = {make_row("cub", "float", 0, 0.003, 0.002)};
  cb::fill_derived(rows, make_info());
  EXPECT_DOUBLE_EQ(rows[0].gbps, 0);
  rows[0].cold_ms = 0;
  rows[0].hot_ms = nan_v;
  cb::fill_derived(rows, make_info());
  EXPECT_TRUE(std::isnan(rows[0].gbps));
}

// ---- csv --------------------------------------------------------------------------------

TEST(Csv, EveryLineHasEveryFieldAndReadsBack) {
  const auto rows = sample_rows();
  const std::string text = render(cb::options::format::csv, rows);
  EXPECT_EQ(text.find('#'), std::string::npos) << "no comment lines in CSV";
  EXPECT_EQ(text.find("nan"), std::string::npos);
  const auto records = read_csv(text);
  ASSERT_EQ(records.size(), rows.size() + 1);
  EXPECT_EQ(records[0], (std::vector<std::string>{"impl", "type", "op", "data", "n", "block", "cold_ms", "hot_ms",
                                                  "bytes", "gbps", "pct_ceiling", "pct_peak", "vs_step1", "vs_cub",
                                                  "check", "cold_noise"}));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& f = records[i + 1];
    const auto& r = rows[i];
    ASSERT_EQ(f.size(), csv_columns) << "line " << i + 2;
    EXPECT_EQ(f[0], r.impl);
    EXPECT_EQ(f[1], r.type);
    EXPECT_EQ(f[2], r.op);
    EXPECT_EQ(f[3], r.data);
    EXPECT_EQ(std::stoll(f[4]), r.n);
    EXPECT_EQ(f[5], r.block > 0 ? std::to_string(r.block) : "");
    const double values[] = {r.cold_ms, r.hot_ms, r.bytes, r.gbps, r.pct_ceiling, r.pct_peak, r.vs_step1, r.vs_cub};
    for (std::size_t k = 0; k < std::size(values); ++k) {
      if (std::isnan(values[k])) {
        EXPECT_EQ(f[6 + k], "") << records[0][6 + k] << " of line " << i + 2;
      } else {
        EXPECT_EQ(std::stod(f[6 + k]), values[k]) << records[0][6 + k] << " of line " << i + 2;  // round trip
      }
    }
    EXPECT_EQ(f[14], r.check);
    if (std::isnan(r.cold_noise)) EXPECT_EQ(f[15], "");
    else EXPECT_EQ(std::stod(f[15]), r.cold_noise);
  }
}

TEST(Csv, QuotesOnlyWhenNeeded) {
  std::vector<cb::row> rows = {make_row("cub", "float", 10, 1, 1, 0, "plain check"),
                               make_row("cub", "float", 20, 1, 1, 0, "a,b"),
                               make_row("cub", "float", 30, 1, 1, 0, "say \"hi\"")};
  const auto lines = lines_of(render(cb::options::format::csv, rows));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(lines[1].ends_with(",plain check,1.25"));  // the check, then the noise
  EXPECT_TRUE(lines[2].ends_with(",\"a,b\",1.25"));
  EXPECT_TRUE(lines[3].ends_with(",\"say \"\"hi\"\"\",1.25"));
  EXPECT_EQ(lines[1].find('"'), std::string::npos);
}

TEST(Csv, EmptyIsJustTheHeader) {
  EXPECT_EQ(read_csv(render(cb::options::format::csv, {})).size(), 1u);
}

// ---- json -------------------------------------------------------------------------------

TEST(Json, ParsesAndRoundTrips) {
  const auto rows = sample_rows();
  const auto info = make_info();
  const std::string text = render(cb::options::format::json, rows, info);
  for (const char* token : {"nan", "NaN", "inf", "Infinity"}) EXPECT_EQ(text.find(token), std::string::npos) << token;
  json doc;
  ASSERT_NO_THROW(doc = json::parse(text)) << text;
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(keys_of(doc), (std::vector<std::string>{"run", "rows"}));
  const json& run = doc.at("run");
  EXPECT_EQ(keys_of(run), (std::vector<std::string>{"device", "sm_count", "l2_mb", "peak_gbps", "ceiling_gbps",
                                                    "command", "date", "samples", "cured_version", "cuda_runtime",
                                                    "cuda_driver", "cccl"}));
  EXPECT_EQ(run.at("device"), info.device);
  EXPECT_EQ(run.at("command"), info.command);
  EXPECT_EQ(run.at("date"), info.date);
  expect_integer(run.at("sm_count"), 132, "sm_count");
  expect_number(run.at("l2_mb"), 60, "l2_mb");
  expect_number(run.at("peak_gbps"), 4800, "peak_gbps");
  expect_number(run.at("ceiling_gbps"), 4000, "ceiling_gbps");
  expect_integer(run.at("samples"), 0, "samples");
  EXPECT_EQ(run.at("cured_version"), "0.1.0");
  EXPECT_EQ(run.at("cuda_runtime"), "13.0");
  EXPECT_EQ(run.at("cuda_driver"), "13.1");
  EXPECT_EQ(run.at("cccl"), "3.0.1");
  const json& out = doc.at("rows");
  ASSERT_TRUE(out.is_array());
  ASSERT_EQ(out.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& o = out[i];
    const cb::row& r = rows[i];
    const std::string where = "row " + std::to_string(i) + " ";
    EXPECT_EQ(keys_of(o), row_keys) << where;
    EXPECT_EQ(o.at("impl"), r.impl);
    EXPECT_EQ(o.at("type"), r.type);
    EXPECT_EQ(o.at("op"), r.op);
    EXPECT_EQ(o.at("data"), r.data);
    expect_integer(o.at("n"), r.n, where + "n");
    EXPECT_EQ(o.at("check"), r.check);
    if (r.block > 0) {
      expect_integer(o.at("block"), r.block, where + "block");
    } else {
      EXPECT_TRUE(o.at("block").is_null()) << where;
    }
    const std::pair<const char*, double> numbers[] = {
        {"cold_ms", r.cold_ms},         {"cold_noise", r.cold_noise}, {"hot_ms", r.hot_ms},
        {"bytes", r.bytes},             {"gbps", r.gbps},             {"pct_ceiling", r.pct_ceiling},
        {"pct_peak", r.pct_peak},       {"vs_step1", r.vs_step1},     {"vs_cub", r.vs_cub}};
    for (const auto& [key, v] : numbers) expect_number(o.at(key), v, where + key);
  }
  // the run on one line, then one row per line, as "key": value (scripts/device_check.sh greps
  // rows for "check": ")
  const auto lines = lines_of(text);
  ASSERT_EQ(lines.size(), rows.size() + 5);
  EXPECT_EQ(lines[1].rfind("  \"run\": {\"device\": ", 0), 0u) << lines[1];
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(lines[3 + i].rfind("    {\"impl\": \"" + rows[i].impl + "\", ", 0), 0u) << lines[3 + i];
    EXPECT_NE(lines[3 + i].find(", \"check\": \""), std::string::npos) << lines[3 + i];
  }
}

TEST(Json, EscapesEveryAwkwardCharacter) {
  cb::run_info info;
  info.device = std::string("quote\" backslash\\ newline\n cr\r tab\t bell\x07 nul") + '\0' + " end";
  info.command = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80";  // valid UTF-8 passes through
  info.date = "bad \xff\xc3 utf8 \xed\xa0\x80";             // invalid bytes become U+FFFD
  const std::string text = render(cb::options::format::json, {make_row("cub", "float", 1, 1, 1, 0, tricky)}, info);
  EXPECT_NE(text.find("\\\""), std::string::npos);
  EXPECT_NE(text.find("\\\\"), std::string::npos);
  EXPECT_NE(text.find("\\n"), std::string::npos);
  EXPECT_NE(text.find("\\u0007"), std::string::npos);
  EXPECT_NE(text.find("\\u0000"), std::string::npos);
  json doc;
  ASSERT_NO_THROW(doc = json::parse(text)) << text;  // which also rejects bytes that are not UTF-8
  EXPECT_EQ(doc.at("run").at("device"), info.device);
  EXPECT_EQ(doc.at("run").at("command"), info.command);
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(doc.at("run").at("date"), "bad " + fffd + fffd + " utf8 " + fffd + fffd + fffd);
  EXPECT_EQ(doc.at("rows").at(0).at("check"), tricky);
  EXPECT_TRUE(doc.at("run").at("peak_gbps").is_null());
  EXPECT_TRUE(doc.at("run").at("ceiling_gbps").is_null());
}

TEST(Json, EmptyRowsAndExtremeNumbers) {
  json doc;
  ASSERT_NO_THROW(doc = json::parse(render(cb::options::format::json, {})));
  ASSERT_TRUE(doc.at("rows").is_array());
  EXPECT_TRUE(doc.at("rows").empty());
  cb::row r = make_row("cub", "float", std::int64_t(1) << 62, 1e-9, 123456.789);
  r.bytes = 1.8446744073709552e19;
  r.gbps = std::numeric_limits<double>::infinity();
  r.vs_cub = -std::numeric_limits<double>::infinity();
  r.pct_peak = 1e300;
  const std::string text = render(cb::options::format::json, {r});
  ASSERT_NO_THROW(doc = json::parse(text)) << text;
  const json& o = doc.at("rows").at(0);
  expect_integer(o.at("n"), std::int64_t(1) << 62, "n");  // exact, not rounded through a double
  expect_number(o.at("cold_ms"), 1e-9, "cold_ms");
  expect_number(o.at("hot_ms"), 123456.789, "hot_ms");
  expect_number(o.at("bytes"), 1.8446744073709552e19, "bytes");
  EXPECT_TRUE(o.at("gbps").is_null());  // infinities are not JSON
  EXPECT_TRUE(o.at("vs_cub").is_null());
  expect_number(o.at("pct_peak"), 1e300, "pct_peak");
  r.bytes = 4096;
  EXPECT_NE(render(cb::options::format::json, {r}).find("\"bytes\": 4096,"), std::string::npos);  // not 4096.0
}

// ---- table ------------------------------------------------------------------------------

TEST(Table, HeaderAndEveryImplementation) {
  const auto rows = sample_rows();
  const std::string text = render(cb::options::format::table, rows);
  EXPECT_NE(text.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(text.find("4000.0 GB/s"), std::string::npos);
  EXPECT_NE(text.find("4800.0 GB/s"), std::string::npos);
  EXPECT_NE(text.find("132 SMs"), std::string::npos);
  EXPECT_NE(text.find(make_info().command), std::string::npos);
  EXPECT_NE(text.find("cured 0.1.0, CUDA runtime 13.0, driver for CUDA 13.1, CCCL 3.0.1"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  for (const auto name : {"step1", "step2", "step3", "step4", "step5", "step6", "step7", "step8", "step9", "step10",
                          "cured", "cub", "thrust", "cpu", "cpu-mt"})
    EXPECT_NE(text.find(std::string("\n") + name + " "), std::string::npos) << name;
  for (const char* title : {"impl", "type", "op", "data", "n", "block", "cold ms", "noise%", "hot ms", "GB/s", "%ceil", "%peak",
                            "x step1", "x cub", "check"})
    EXPECT_NE(text.find(title), std::string::npos) << title;
  EXPECT_NE(text.find("0.5000"), std::string::npos);   // times with four decimals
  EXPECT_NE(text.find("123456789"), std::string::npos);  // n printed plainly
}

TEST(Table, ColumnsLineUp) {
  auto rows = sample_rows();
  const std::string text = render(cb::options::format::table, rows);
  const auto lines = lines_of(text);
  std::size_t header = 0;
  while (header < lines.size() && !lines[header].starts_with("impl")) ++header;
  ASSERT_LT(header + 2 + rows.size(), lines.size() + 1);
  const std::string& titles = lines[header];
  const std::size_t check_at = titles.rfind("check");
  const std::size_t n_end = titles.find(" n ") + 2;  // right-aligned: numbers end under the title
  ASSERT_EQ(check_at, titles.size() - 5);
  EXPECT_EQ(lines[header + 1].find_first_not_of("- "), std::string::npos);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string& line = lines[header + 2 + i];
    ASSERT_GE(line.size(), check_at) << line;
    std::string check = rows[i].check;
    for (char& c : check)
      if (c == '\n' || c == '\t') c = ' ';
    EXPECT_EQ(line.substr(check_at), check) << line;
    EXPECT_TRUE(line.starts_with(rows[i].impl + " ")) << line;
    const std::string n = std::to_string(rows[i].n);
    EXPECT_EQ(line.substr(n_end - n.size(), n.size()), n) << line;
  }
  EXPECT_EQ(lines.size(), header + 2 + rows.size());
}

TEST(Table, NotMeasuredShowsDash) {
  cb::run_info info;
  const std::string text = render(cb::options::format::table, {make_row("cpu", "float", 5, nan_v, nan_v)}, info);
  const auto lines = lines_of(text);
  ASSERT_FALSE(lines.empty());
  std::istringstream cells(lines.back());
  std::vector<std::string> words;
  for (std::string w; cells >> w;) words.push_back(w);
  EXPECT_EQ(words, (std::vector<std::string>{"cpu", "float", "sum", "exact", "5", "-", "-", "-", "-", "-", "-", "-", "-",
                                             "-", "ok"}));
  EXPECT_NE(text.find("unknown device"), std::string::npos);
  EXPECT_NE(render(cb::options::format::table, {}).find("(no rows)"), std::string::npos);
}

// ---- markdown ---------------------------------------------------------------------------

TEST(Markdown, EveryTableLineHasEveryColumn) {
  const auto rows = sample_rows();
  const std::string text = render(cb::options::format::md, rows);
  const auto lines = lines_of(text);
  ASSERT_GE(lines.size(), rows.size() + 4);
  EXPECT_NE(lines[0].find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(lines[0].find(make_info().command), std::string::npos);
  EXPECT_EQ(lines[1], "");
  std::size_t table_lines = 0;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    EXPECT_TRUE(line.starts_with("|") && line.ends_with("|")) << line;
    EXPECT_EQ(md_pipes(line), display_columns + 1) << line;
    ++table_lines;
  }
  EXPECT_EQ(table_lines, rows.size() + 2);
  EXPECT_NE(lines[3].find("---:"), std::string::npos);  // numbers align right
  EXPECT_NE(text.find("and \\| pipe"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
}

TEST(Markdown, CommandWithBackticksStaysCode) {
  cb::run_info info;
  info.command = "cured-bench `x` ``y``";
  const auto lines = lines_of(render(cb::options::format::md, {}, info));
  EXPECT_NE(lines[0].find("``` cured-bench `x` ``y`` ```"), std::string::npos) << lines[0];
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(md_pipes(lines[2]), display_columns + 1);
}

// ---- exit status ------------------------------------------------------------------------

TEST(ExitStatus, OkAndSkippedPassEverythingElseFails) {
  EXPECT_EQ(cb::exit_status({}), 0);
  std::vector<cb::row> rows = {make_row("cub", "float", 1, 1, 1), make_row("cpu", "float", 1, 1, 1)};
  EXPECT_EQ(cb::exit_status(rows), 0);
  rows.push_back(make_row("thrust", "float", 1, nan_v, nan_v, 0, "skipped: needs 9 MiB of device memory"));
  EXPECT_EQ(cb::exit_status(rows), 0);
  rows.push_back(make_row("floor", "float", 1, 1, 1, 0, std::string(cb::no_result_check)));
  EXPECT_EQ(cb::exit_status(rows), 0);
  for (const char* bad : {"got 3 want 4", "", "error: out of memory", "OK", " ok", "Skipped: x", "ok ", "n/a", "n/a: x"}) {
    auto failing = rows;
    failing.push_back(make_row("step1", "float", 1, 1, 1, 256, bad));
    EXPECT_EQ(cb::exit_status(failing), 1) << "'" << bad << "'";
  }
}

// ---- axis rows --------------------------------------------------------------------------

/// Whole-array rows and the axis rows of two workloads of the same n, one of them also with another axis.
std::vector<cb::row> mixed_rows() {
  std::vector<cb::row> rows = {make_row("cub", "float", 1 << 20, 0.5, 0.25), make_row("floor", "float", 1 << 20, 0.2, 0.1, 0, "n/a: reads only")};
  rows.push_back(make_axis_row("cured", {1024, 1024}, {1}, 0.004));                              // 2
  rows.push_back(make_axis_row("cub", {1024, 1024}, {1}, 0.008));                                // 3
  rows.push_back(make_axis_row("floor", {1024, 1024}, {1}, 0.0036, std::string(cb::no_result_check_axes)));  // 4
  rows.push_back(make_axis_row("cured", {1024, 1024}, {0}, 0.005));                              // 5: no cub
  rows.push_back(make_axis_row("floor", {1024, 1024}, {0}, 0.004, std::string(cb::no_result_check_axes)));  // 6
  rows.push_back(make_axis_row("cured", {256, 64, 64}, {0, 2}, 0.004, "got 1 want 2 at output 3 (1 of 64 outputs wrong)"));  // 7: no floor
  cb::fill_derived(rows, make_info());
  return rows;
}

TEST(AxisRows, FloorAndCubOfTheSameWorkloadOnly) {
  const auto rows = mixed_rows();
  EXPECT_FALSE(rows[0].axis());
  EXPECT_TRUE(rows[2].axis());
  EXPECT_DOUBLE_EQ(rows[2].gbps, 4.0 * (1 << 20) * 1.0009765625 / 4e3);  // bytes read and written over the cold time
  EXPECT_DOUBLE_EQ(rows[2].pct_floor, 90);   // floor 0.0036 ms / 0.004 ms
  EXPECT_DOUBLE_EQ(rows[2].vs_cub, 2);
  EXPECT_DOUBLE_EQ(rows[3].pct_floor, 45);
  EXPECT_DOUBLE_EQ(rows[3].vs_cub, 1);
  EXPECT_TRUE(std::isnan(rows[4].pct_floor));  // the floor's own
  EXPECT_DOUBLE_EQ(rows[5].pct_floor, 80);    // axis 0: its own floor, not axis 1's
  EXPECT_TRUE(std::isnan(rows[5].vs_cub));    // and no cub row of its own
  EXPECT_TRUE(std::isnan(rows[7].pct_floor));
  // whole-array rows and axis rows never refer to each other
  EXPECT_DOUBLE_EQ(rows[0].vs_cub, 1);
  EXPECT_TRUE(std::isnan(rows[0].pct_floor));
  EXPECT_TRUE(std::isnan(rows[1].pct_floor));
  std::vector<cb::row> alone = {make_row("cured", "float", 1 << 20, 0.1, 0.1), make_axis_row("cub", {1024, 1024}, {1}, 0.2)};
  cb::fill_derived(alone, {});
  EXPECT_TRUE(std::isnan(alone[0].vs_cub));
}

TEST(AxisRows, CsvAppendsTheAxisColumnsOnlyWhenThereAreAxisRows) {
  const auto rows = mixed_rows();
  const auto records = read_csv(render(cb::options::format::csv, rows));
  ASSERT_EQ(records.size(), rows.size() + 1);
  ASSERT_EQ(records[0].size(), csv_axis_columns);
  EXPECT_EQ(std::vector<std::string>(records[0].begin() + 15, records[0].end()),
            (std::vector<std::string>{"shape", "axes", "outputs", "pct_floor", "cold_noise"}));
  for (const auto& f : records) ASSERT_EQ(f.size(), csv_axis_columns);
  EXPECT_EQ(records[1][15], "");  // a whole-array row
  EXPECT_EQ(records[1][18], "");
  EXPECT_EQ(records[3][15], "1024x1024");
  EXPECT_EQ(records[3][16], "1");
  EXPECT_EQ(records[3][17], "1024");
  EXPECT_EQ(std::stod(records[3][18]), rows[2].pct_floor);
  EXPECT_EQ(records[5][18], "");  // the floor's own
  EXPECT_EQ(records[8][15], "256x64x64");
  EXPECT_EQ(records[8][16], "0,2");  // quoted in the file, read back whole
  EXPECT_EQ(records[8][14], rows[7].check);
  // without axis rows, as before them
  EXPECT_EQ(read_csv(render(cb::options::format::csv, sample_rows()))[0].size(), csv_columns);
}

TEST(AxisRows, JsonHasShapeAxesOutputsAndFloorOnAxisRowsOnly) {
  const auto rows = mixed_rows();
  json doc;
  ASSERT_NO_THROW(doc = json::parse(render(cb::options::format::json, rows))) << render(cb::options::format::json, rows);
  const json& out = doc.at("rows");
  ASSERT_EQ(out.size(), rows.size());
  EXPECT_EQ(keys_of(out[0]), row_keys);
  for (std::size_t i = 2; i < rows.size(); ++i) {
    const json& o = out[i];
    const std::string where = "row " + std::to_string(i) + " ";
    EXPECT_EQ(keys_of(o), plus(row_keys, {"shape", "axes", "outputs", "pct_floor"})) << where;
    ASSERT_TRUE(o.at("shape").is_array()) << where;
    ASSERT_EQ(o.at("shape").size(), rows[i].shape.size()) << where;
    for (std::size_t k = 0; k < rows[i].shape.size(); ++k)
      expect_integer(o.at("shape")[k], rows[i].shape[k], where + "shape");
    ASSERT_TRUE(o.at("axes").is_array()) << where;
    ASSERT_EQ(o.at("axes").size(), rows[i].axes.size()) << where;
    for (std::size_t k = 0; k < rows[i].axes.size(); ++k)
      expect_integer(o.at("axes")[k], rows[i].axes[k], where + "axes");
    expect_integer(o.at("outputs"), rows[i].outputs, where + "outputs");
    expect_number(o.at("pct_floor"), rows[i].pct_floor, where + "pct_floor");
  }
}

TEST(AxisRows, TableAndMarkdownGiveAxisRowsATableOfTheirOwn) {
  const auto rows = mixed_rows();
  const auto lines = lines_of(render(cb::options::format::table, rows));
  std::vector<std::size_t> headers;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].starts_with("impl ")) headers.push_back(i);
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_NE(lines[headers[0]].find("x step1"), std::string::npos);
  const std::string& titles = lines[headers[1]];
  for (const char* title : {"shape", "axes", "%floor", "x cub", "GB/s", "check"})
    EXPECT_NE(titles.find(title), std::string::npos) << title;
  EXPECT_EQ(titles.find("x step1"), std::string::npos);
  EXPECT_EQ(lines[headers[1] - 1], "");
  ASSERT_EQ(lines.size(), headers[1] + 2 + 6);
  const std::size_t check_at = titles.rfind("check");
  for (std::size_t i = 0; i < 6; ++i) {
    const std::string& line = lines[headers[1] + 2 + i];
    EXPECT_TRUE(line.starts_with(rows[2 + i].impl + " ")) << line;
    EXPECT_EQ(line.substr(check_at), rows[2 + i].check) << line;
  }
  EXPECT_NE(lines[headers[1] + 2].find("1024x1024"), std::string::npos);
  EXPECT_NE(lines[headers[1] + 2].find(" 90.0 "), std::string::npos) << lines[headers[1] + 2];
  // axis rows alone: one table, theirs
  const std::vector<cb::row> axis_only(rows.begin() + 2, rows.end());
  std::size_t tables = 0;
  for (const auto& line : lines_of(render(cb::options::format::table, axis_only)))
    if (line.starts_with("impl ")) {
      ++tables;
      EXPECT_NE(line.find("%floor"), std::string::npos);
    }
  EXPECT_EQ(tables, 1u);

  const auto md = lines_of(render(cb::options::format::md, rows));
  std::size_t whole_lines = 0, axis_lines = 0;
  for (std::size_t i = 2; i < md.size(); ++i) {
    if (md[i].empty()) continue;
    const std::size_t pipes = md_pipes(md[i]);
    if (pipes == display_columns + 1) ++whole_lines;
    else if (pipes == axis_display_columns + 1) ++axis_lines;
    else ADD_FAILURE() << md[i];
  }
  EXPECT_EQ(whole_lines, 2u + 2);
  EXPECT_EQ(axis_lines, 6u + 2);
}

TEST(AxisRows, TheFloorsCheckPasses) {
  std::vector<cb::row> rows = {make_axis_row("floor", {4, 4}, {1}, 1, std::string(cb::no_result_check_axes))};
  EXPECT_EQ(cb::exit_status(rows), 0);
  rows.push_back(make_axis_row("cured", {4, 4}, {1}, 1, "got 1 want 2 at output 0 (1 of 4 outputs wrong)"));
  EXPECT_EQ(cb::exit_status(rows), 1);
}

// ---- segment rows -----------------------------------------------------------------------

/// The segment rows of two distributions of one n (one without a floor), and of another n.
std::vector<cb::row> segment_rows() {
  const std::int64_t n = 1 << 24;
  std::vector<cb::row> rows;
  rows.push_back(make_segment_row("cured", n, "uniform:4", n / 4, 0.1));                                  // 0
  rows.push_back(make_segment_row("cub", n, "uniform:4", n / 4, 2.5));                                    // 1
  rows.push_back(make_segment_row("floor", n, "uniform:4", n / 4, 0.09, std::string(cb::no_result_check_axes)));  // 2
  rows.push_back(make_segment_row("cured", n, "powerlaw", 230, 0.05));                                    // 3
  rows.push_back(make_segment_row("floor", n, "powerlaw", 230, 0.04, std::string(cb::no_result_check_axes)));  // 4
  rows.push_back(make_segment_row("cured", n, "empty-mixed", 250000, 0.06, tricky));                      // 5: no floor, no cub
  rows.push_back(make_segment_row("cub", 1 << 20, "uniform:4", 1 << 18, nan_v, "skipped: needs 9 MiB"));  // 6
  rows.push_back(make_segment_row("cured", 1 << 20, "uniform:4", 1 << 18, 0.01));                         // 7: another n
  cb::fill_derived(rows, make_info());
  return rows;
}

TEST(SegmentRows, FloorAndCubOfTheSameWorkloadOnly) {
  const auto rows = segment_rows();
  EXPECT_TRUE(rows[0].segmented());
  EXPECT_FALSE(rows[0].axis());
  const double bytes = 4.0 * (1 << 24) + 8.0 * ((1 << 22) + 1) + 4.0 * (1 << 22);
  EXPECT_NEAR(rows[0].gbps, bytes / 1e5, 1e-9);  // the values and offsets read and the output written, over the cold time
  EXPECT_NEAR(rows[0].pct_floor, 90, 1e-9);      // floor 0.09 ms / 0.1 ms
  EXPECT_NEAR(rows[0].vs_cub, 25, 1e-9);
  EXPECT_NEAR(rows[1].pct_floor, 3.6, 1e-9);
  EXPECT_DOUBLE_EQ(rows[1].vs_cub, 1);
  EXPECT_TRUE(std::isnan(rows[2].pct_floor));  // the floor's own
  EXPECT_NEAR(rows[3].pct_floor, 80, 1e-9);    // powerlaw: its own floor, not uniform:4's
  EXPECT_TRUE(std::isnan(rows[3].vs_cub));     // and no cub row of its own
  EXPECT_TRUE(std::isnan(rows[5].pct_floor));
  EXPECT_TRUE(std::isnan(rows[7].pct_floor));  // another n: no floor
  EXPECT_TRUE(std::isnan(rows[7].vs_cub));     // its cub row has no time
  // segment rows, axis rows and whole-array rows never refer to each other
  std::vector<cb::row> mixed = {make_row("cub", "float", 1 << 24, 0.2, 0.1), make_row("floor", "float", 1 << 24, 0.1, 0.1),
                                make_segment_row("cured", 1 << 24, "uniform:4", 1 << 22, 0.1)};
  cb::fill_derived(mixed, {});
  EXPECT_TRUE(std::isnan(mixed[2].vs_cub));
  EXPECT_TRUE(std::isnan(mixed[2].pct_floor));
  EXPECT_TRUE(std::isnan(mixed[0].pct_floor));
}

TEST(SegmentRows, CsvAppendsDistSegmentsAndFloorOnlyWhenThereAreSegmentRows) {
  const auto rows = segment_rows();
  const auto records = read_csv(render(cb::options::format::csv, rows));
  ASSERT_EQ(records.size(), rows.size() + 1);
  EXPECT_EQ(std::vector<std::string>(records[0].begin() + 15, records[0].end()),
            (std::vector<std::string>{"dist", "segments", "pct_floor", "cold_noise"}));
  for (const auto& f : records) ASSERT_EQ(f.size(), csv_segment_columns);
  EXPECT_EQ(records[1][15], "uniform:4");
  EXPECT_EQ(records[1][16], std::to_string(1 << 22));
  EXPECT_EQ(std::stod(records[1][17]), rows[0].pct_floor);
  EXPECT_EQ(records[3][17], "");  // the floor's own
  EXPECT_EQ(records[6][14], tricky);
  EXPECT_EQ(records[6][15], "empty-mixed");
  EXPECT_EQ(records[7][16], std::to_string(1 << 18));
  // beside whole-array and axis rows: shape, axes, outputs, then dist, segments, then pct_floor
  std::vector<cb::row> all = mixed_rows();
  all.push_back(rows[0]);
  const auto both = read_csv(render(cb::options::format::csv, all));
  EXPECT_EQ(std::vector<std::string>(both[0].begin() + 15, both[0].end()),
            (std::vector<std::string>{"shape", "axes", "outputs", "dist", "segments", "pct_floor", "cold_noise"}));
  for (const auto& f : both) ASSERT_EQ(f.size(), csv_axis_columns + 2);
  EXPECT_EQ(both[1][15], "");  // a whole-array row
  EXPECT_EQ(both[1][20], "");
  EXPECT_EQ(both[3][15], "1024x1024");  // an axis row
  EXPECT_EQ(both[3][18], "");
  EXPECT_EQ(std::stod(both[3][20]), all[2].pct_floor);
  EXPECT_EQ(both.back()[15], "");  // the segment row
  EXPECT_EQ(both.back()[18], "uniform:4");
  // without segment rows, as before them
  EXPECT_EQ(read_csv(render(cb::options::format::csv, mixed_rows()))[0].size(), csv_axis_columns);
}

TEST(SegmentRows, JsonHasDistSegmentsAndFloorOnSegmentRowsOnly) {
  auto rows = segment_rows();
  rows.insert(rows.begin(), make_row("cub", "float", 1000, 0.1, 0.1));
  json doc;
  ASSERT_NO_THROW(doc = json::parse(render(cb::options::format::json, rows))) << render(cb::options::format::json, rows);
  const json& out = doc.at("rows");
  ASSERT_EQ(out.size(), rows.size());
  EXPECT_EQ(keys_of(out[0]), row_keys);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const json& o = out[i];
    const std::string where = "row " + std::to_string(i) + " ";
    EXPECT_EQ(keys_of(o), plus(row_keys, {"dist", "segments", "pct_floor"})) << where;
    EXPECT_EQ(o.at("dist"), rows[i].dist) << where;
    expect_integer(o.at("segments"), rows[i].segments, where + "segments");
    expect_integer(o.at("n"), rows[i].n, where + "n");
    expect_number(o.at("pct_floor"), rows[i].pct_floor, where + "pct_floor");
  }
  EXPECT_EQ(out[6].at("check"), tricky);
}

TEST(SegmentRows, TableAndMarkdownGiveSegmentRowsATableOfTheirOwn) {
  std::vector<cb::row> rows = mixed_rows();
  const std::size_t first_segment = rows.size();
  for (const auto& r : segment_rows()) rows.push_back(r);
  const auto lines = lines_of(render(cb::options::format::table, rows));
  std::vector<std::size_t> headers;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].starts_with("impl ")) headers.push_back(i);
  ASSERT_EQ(headers.size(), 3u);  // whole-array, axis, segment
  const std::string& titles = lines[headers[2]];
  for (const char* title : {"type", "op", " n", "dist", "segments", "cold ms", "GB/s", "%floor", "x cub", "check"})
    EXPECT_NE(titles.find(title), std::string::npos) << title;
  EXPECT_EQ(titles.find("shape"), std::string::npos);
  EXPECT_EQ(lines[headers[2] - 1], "");
  ASSERT_EQ(lines.size(), headers[2] + 2 + 8);
  const std::size_t check_at = titles.rfind("check");
  for (std::size_t i = 0; i < 8; ++i) {
    const std::string& line = lines[headers[2] + 2 + i];
    EXPECT_TRUE(line.starts_with(rows[first_segment + i].impl + " ")) << line;
    if (i != 5) {  // 5: tricky, on one line
      EXPECT_EQ(line.substr(check_at), rows[first_segment + i].check) << line;
    }
  }
  const std::string& first = lines[headers[2] + 2];
  for (const char* cell : {" 16777216 ", " uniform:4 ", " 4194304 ", " 90.0 ", " 25.00 "})
    EXPECT_NE(first.find(cell), std::string::npos) << cell << " in " << first;
  // the whole-array and axis tables as without segment rows
  const auto before = lines_of(render(cb::options::format::table, mixed_rows()));
  EXPECT_EQ(std::vector<std::string>(lines.begin(), lines.begin() + std::ptrdiff_t(headers[2] - 1)), before);
  // segment rows alone: one table, theirs
  std::size_t tables = 0;
  for (const auto& line : lines_of(render(cb::options::format::table, segment_rows())))
    if (line.starts_with("impl ")) {
      ++tables;
      EXPECT_NE(line.find("segments"), std::string::npos);
    }
  EXPECT_EQ(tables, 1u);

  const auto md = lines_of(render(cb::options::format::md, segment_rows()));
  std::size_t segment_lines = 0;
  for (std::size_t i = 2; i < md.size(); ++i) {
    if (md[i].empty()) continue;
    if (md_pipes(md[i]) == segment_display_columns + 1) ++segment_lines;
    else ADD_FAILURE() << md[i];
  }
  EXPECT_EQ(segment_lines, 8u + 2);
  EXPECT_NE(md[2].find("| dist | segments |"), std::string::npos) << md[2];
}

TEST(SegmentRows, TheFloorsCheckPasses) {
  std::vector<cb::row> rows = segment_rows();
  rows.erase(rows.begin() + 5);  // the tricky check
  EXPECT_EQ(cb::exit_status(rows), 0);
  rows.push_back(make_segment_row("cured", 64, "onebig", 9, 1, "got 1 want 2 at output 4 (1 of 9 outputs wrong)"));
  EXPECT_EQ(cb::exit_status(rows), 1);
}

// ---- scripts/plot_bandwidth.py --check reads what write_report writes -------------------

TEST(PlotScript, ChecksTheJsonReport) {
  const std::string python = CURED_PYTHON;
  if (python.empty()) GTEST_SKIP() << "no python3";
  const auto dir = std::filesystem::temp_directory_path() / ("cured_tests_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto good = dir / "good.json", bad = dir / "bad.json", wrong = dir / "wrong.json";
  {
    std::ofstream f(good);
    cb::write_report(f, cb::options::format::json, make_info(), sample_rows());
  }
  {
    std::ofstream f(bad);
    f << "{\"run\": {}, \"rows\": [";
  }
  {
    std::ofstream f(wrong);
    f << "{\"run\": {\"device\": \"x\"}, \"rows\": [{\"impl\": \"cub\", \"n\": \"many\"}]}";
  }
  auto run = [&](const std::filesystem::path& p) {
    const std::string cmd = "\"" + python + "\" \"" CURED_PLOT_SCRIPT "\" --check \"" + p.string() + "\" > \"" +
                            (dir / "log.txt").string() + "\" 2>&1";
    return std::system(cmd.c_str());
  };
  EXPECT_EQ(run(good), 0);
  EXPECT_NE(run(bad), 0);
  EXPECT_NE(run(wrong), 0);
  std::filesystem::remove_all(dir);
}

// ---- scripts/plot_axes.py --check and scripts/axes_table.py read what write_report writes -

TEST(PlotScript, AxesScriptsReadTheJsonReport) {
  const std::string python = CURED_PYTHON;
  if (python.empty()) GTEST_SKIP() << "no python3";
  const auto dir = std::filesystem::temp_directory_path() / ("cured_tests_bench_axes_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto good = dir / "axes.json", log = dir / "log.txt";
  {
    std::ofstream f(good);
    cb::write_report(f, cb::options::format::json, make_info(), mixed_rows());
  }
  auto run = [&](const std::string& script, const std::string& args) {
    const std::string cmd = "\"" + python + "\" \"" + script + "\" " + args + " \"" + good.string() + "\" > \"" +
                            log.string() + "\" 2>&1";
    return std::system(cmd.c_str());
  };
  EXPECT_EQ(run(CURED_PLOT_AXES_SCRIPT, "--check"), 0);
  EXPECT_EQ(run(CURED_AXES_TABLE_SCRIPT, "--detail"), 0);
  std::ifstream f(log);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("| float | sum | 2^20 | 3 | 80.0 | 1024x1024 axes 0 |"), std::string::npos) << text;
  EXPECT_NE(text.find("256x64x64 axes 0,2 cured: got 1 want 2 at output 3"), std::string::npos) << text;  // listed as wrong
  std::filesystem::remove_all(dir);
}

// ---- scripts/segments_table.py reads what write_report writes -------------------------------

TEST(PlotScript, SegmentsTableReadsTheJsonReport) {
  const std::string python = CURED_PYTHON;
  if (python.empty()) GTEST_SKIP() << "no python3";
  const auto dir = std::filesystem::temp_directory_path() / ("cured_tests_bench_segments_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto good = dir / "segments.json", log = dir / "log.txt";
  {
    std::ofstream f(good);
    cb::write_report(f, cb::options::format::json, make_info(), segment_rows());
  }
  const std::string cmd = "\"" + python + "\" \"" CURED_SEGMENTS_TABLE_SCRIPT "\" \"" + good.string() + "\" > \"" +
                          log.string() + "\" 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream f(log);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("| 2^24 | uniform:4 | 4194304 | "), std::string::npos) << text;
  EXPECT_NE(text.find("| 90.0 | 70 | 25.00 |"), std::string::npos) << text;
  EXPECT_NE(text.find("- float sum 2^24: >= 70% of floor on every distribution: met (worst 80.0% at 2^24 powerlaw"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("- float sum 2^24 empty-mixed cured: got"), std::string::npos) << text;  // listed as wrong
  std::filesystem::remove_all(dir);
}

// ---- streamed rows ----------------------------------------------------------------------

TEST(Stream, OneLineARowUnderItsHeader) {
  const std::string header = cb::stream_header();
  EXPECT_EQ(header.rfind("impl", 0), 0u);
  EXPECT_EQ(std::count(header.begin(), header.end(), '\n'), 1);
  for (const char* title : {"cold ms", "noise%", "hot ms", "GB/s", "check"}) EXPECT_NE(header.find(title), std::string::npos);
  for (const auto& r : sample_rows()) {
    const std::string line = cb::stream_line(r);
    EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
    EXPECT_EQ(line.back(), '\n');
    EXPECT_EQ(line.rfind(r.impl, 0), 0u) << line;
    EXPECT_EQ(line.find("nan"), std::string::npos) << line;
  }
  cb::row r;
  r.impl = "cured";
  r.type = "float";
  r.op = "sum";
  r.n = 1 << 20;
  r.bytes = 4 << 20;
  r.cold_ms = 0.004;
  r.cold_noise = 2.5;
  r.check = tricky;
  const std::string line = cb::stream_line(r);
  EXPECT_NE(line.find("exact 1048576"), std::string::npos) << line;
  EXPECT_NE(line.find("1048.6"), std::string::npos) << line;  // GB/s from bytes and the cold time
  EXPECT_NE(line.find(" 2.5 "), std::string::npos) << line;
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;  // the check's newline folded
}
