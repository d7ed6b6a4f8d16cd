// cured-bench's reports: CSV reads back field by field, JSON parses (with a strict parser here),
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
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

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

// ---- a strict JSON parser (RFC 8259), enough to read reports back -------------------------

struct json {
  enum class kind { null, boolean, number, string, array, object } k = kind::null;
  double num = 0;
  bool b = false;
  std::string str;
  std::vector<json> arr;
  std::map<std::string, json> obj;
  const json& operator[](const std::string& key) const {
    static const json missing;
    const auto it = obj.find(key);
    EXPECT_NE(it, obj.end()) << "missing key " << key;
    return it == obj.end() ? missing : it->second;
  }
};

struct json_error : std::runtime_error {
  using runtime_error::runtime_error;
};

class json_parser {
public:
  explicit json_parser(std::string_view s) : s_(s) {}
  json parse_document() {
    json v = value();
    skip_ws();
    if (i_ != s_.size()) fail("trailing text");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string& what) { throw json_error(what + " at offset " + std::to_string(i_)); }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  char peek() {
    skip_ws();
    if (i_ >= s_.size()) fail("unexpected end");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  json value() {
    json v;
    const char c = peek();
    if (c == '{') {
      v.k = json::kind::object;
      ++i_;
      if (peek() == '}') {
        ++i_;
        return v;
      }
      while (true) {
        if (peek() != '"') fail("expected a key");
        std::string key = string();
        expect(':');
        if (!v.obj.emplace(key, value()).second) fail("duplicate key " + key);
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.k = json::kind::array;
      ++i_;
      if (peek() == ']') {
        ++i_;
        return v;
      }
      while (true) {
        v.arr.push_back(value());
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.k = json::kind::string;
      v.str = string();
      return v;
    }
    if (literal("null")) return v;
    if (literal("true") || literal("false")) {
      v.k = json::kind::boolean;
      v.b = s_[i_ - 1] == 'e' && s_[i_ - 2] == 'u';
      return v;
    }
    v.k = json::kind::number;
    v.num = number();
    return v;
  }
  double number() {
    const std::size_t start = i_;
    auto digits = [&] {
      const std::size_t d = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      return i_ - d;
    };
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    const std::size_t int_start = i_;
    const std::size_t n = digits();
    if (n == 0) fail("bad value");
    if (n > 1 && s_[int_start] == '0') fail("leading zero");
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (digits() == 0) fail("bad fraction");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (digits() == 0) fail("bad exponent");
    }
    return std::stod(std::string(s_.substr(start, i_ - start)));
  }
  unsigned hex4() {
    if (i_ + 4 > s_.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[i_++];
      v *= 16;
      if (h >= '0' && h <= '9') v += unsigned(h - '0');
      else if (h >= 'a' && h <= 'f') v += unsigned(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v += unsigned(h - 'A' + 10);
      else fail("bad hex digit");
    }
    return v;
  }
  static void put_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }
  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      switch (s_[i_++]) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': put_utf8(out, hex4()); break;
        default: fail("bad escape");
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

json parse_json(const std::string& text) { return json_parser(text).parse_document(); }

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
  for (const char* bad : {"{", "{\"a\": nan}", "{\"a\": NaN}", "{\"a\": inf}", "{\"a\": 1,}", "[1 2]",
                          "{\"a\": \"x\ny\"}", "{\"a\": \"\\q\"}", "{\"a\": 01}", "{\"a\": 1.}", "{a: 1}",
                          "{\"a\": 1} x", "{\"a\": 1, \"a\": 2}", "\"unterminated"})
    EXPECT_THROW(parse_json(bad), json_error) << bad;
  EXPECT_NO_THROW(parse_json("{\"a\": [1, -2.5e+3, null, true, \"\\u00e9\\\"\"]}"));
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
  ASSERT_NO_THROW(doc = parse_json(text)) << text;
  ASSERT_EQ(doc.k, json::kind::object);
  EXPECT_EQ(doc.obj.size(), 2u);
  const json& run = doc["run"];
  EXPECT_EQ(run["device"].str, info.device);
  EXPECT_EQ(run["command"].str, info.command);
  EXPECT_EQ(run["date"].str, info.date);
  EXPECT_EQ(run["sm_count"].num, 132);
  EXPECT_EQ(run["l2_mb"].num, 60);
  EXPECT_EQ(run["peak_gbps"].num, 4800);
  EXPECT_EQ(run["ceiling_gbps"].num, 4000);
  EXPECT_EQ(run["samples"].num, 0);
  EXPECT_EQ(run["cured_version"].str, "0.1.0");
  EXPECT_EQ(run["cuda_runtime"].str, "13.0");
  EXPECT_EQ(run["cuda_driver"].str, "13.1");
  EXPECT_EQ(run["cccl"].str, "3.0.1");
  const json& out = doc["rows"];
  ASSERT_EQ(out.k, json::kind::array);
  ASSERT_EQ(out.arr.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& o = out.arr[i];
    const cb::row& r = rows[i];
    EXPECT_EQ(o.obj.size(), csv_columns);
    EXPECT_EQ(o["impl"].str, r.impl);
    EXPECT_EQ(o["type"].str, r.type);
    EXPECT_EQ(o["op"].str, r.op);
    EXPECT_EQ(o["data"].str, r.data);
    EXPECT_EQ(o["n"].num, double(r.n));
    EXPECT_EQ(o["check"].str, r.check);
    if (r.block > 0) {
      EXPECT_EQ(o["block"].num, r.block);
    } else {
      EXPECT_EQ(o["block"].k, json::kind::null);
    }
    const std::pair<const char*, double> numbers[] = {
        {"cold_ms", r.cold_ms},         {"hot_ms", r.hot_ms},     {"bytes", r.bytes},
        {"gbps", r.gbps},               {"pct_ceiling", r.pct_ceiling}, {"pct_peak", r.pct_peak},
        {"vs_step1", r.vs_step1},       {"vs_cub", r.vs_cub}};
    for (const auto& [key, v] : numbers) {
      if (std::isnan(v)) {
        EXPECT_EQ(o[key].k, json::kind::null) << key << " of row " << i;
      } else {
        ASSERT_EQ(o[key].k, json::kind::number) << key << " of row " << i;
        EXPECT_EQ(o[key].num, v) << key << " of row " << i;
      }
    }
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
  ASSERT_NO_THROW(doc = parse_json(text)) << text;
  EXPECT_EQ(doc["run"]["device"].str, info.device);
  EXPECT_EQ(doc["run"]["command"].str, info.command);
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(doc["run"]["date"].str, "bad " + fffd + fffd + " utf8 " + fffd + fffd + fffd);
  EXPECT_EQ(doc["rows"].arr.at(0)["check"].str, tricky);
  EXPECT_EQ(doc["run"]["peak_gbps"].k, json::kind::null);
  EXPECT_EQ(doc["run"]["ceiling_gbps"].k, json::kind::null);
}

TEST(Json, EmptyRowsAndExtremeNumbers) {
  json doc;
  ASSERT_NO_THROW(doc = parse_json(render(cb::options::format::json, {})));
  EXPECT_TRUE(doc["rows"].arr.empty());
  cb::row r = make_row("cub", "float", std::int64_t(1) << 62, 1e-9, 123456.789);
  r.bytes = 1.8446744073709552e19;
  r.gbps = std::numeric_limits<double>::infinity();
  r.vs_cub = -std::numeric_limits<double>::infinity();
  r.pct_peak = 1e300;
  const std::string text = render(cb::options::format::json, {r});
  ASSERT_NO_THROW(doc = parse_json(text)) << text;
  const json& o = doc["rows"].arr.at(0);
  EXPECT_EQ(o["n"].num, double(std::int64_t(1) << 62));
  EXPECT_EQ(o["cold_ms"].num, 1e-9);
  EXPECT_EQ(o["hot_ms"].num, 123456.789);
  EXPECT_EQ(o["bytes"].num, 1.8446744073709552e19);
  EXPECT_EQ(o["gbps"].k, json::kind::null);  // infinities are not JSON
  EXPECT_EQ(o["vs_cub"].k, json::kind::null);
  EXPECT_EQ(o["pct_peak"].num, 1e300);
  EXPECT_NE(text.find("\"n\": 4611686018427387904"), std::string::npos);  // exact, not rounded
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
  ASSERT_NO_THROW(doc = parse_json(render(cb::options::format::json, rows))) << render(cb::options::format::json, rows);
  const auto& out = doc["rows"].arr;
  ASSERT_EQ(out.size(), rows.size());
  EXPECT_EQ(out[0].obj.size(), csv_columns);
  EXPECT_EQ(out[0].obj.count("shape"), 0u);
  for (std::size_t i = 2; i < rows.size(); ++i) {
    const json& o = out[i];
    EXPECT_EQ(o.obj.size(), csv_axis_columns);
    ASSERT_EQ(o["shape"].k, json::kind::array);
    ASSERT_EQ(o["shape"].arr.size(), rows[i].shape.size());
    for (std::size_t k = 0; k < rows[i].shape.size(); ++k) EXPECT_EQ(o["shape"].arr[k].num, double(rows[i].shape[k]));
    ASSERT_EQ(o["axes"].arr.size(), rows[i].axes.size());
    for (std::size_t k = 0; k < rows[i].axes.size(); ++k) EXPECT_EQ(o["axes"].arr[k].num, rows[i].axes[k]);
    EXPECT_EQ(o["outputs"].num, double(rows[i].outputs));
    if (std::isnan(rows[i].pct_floor)) {
      EXPECT_EQ(o["pct_floor"].k, json::kind::null);
    } else {
      EXPECT_EQ(o["pct_floor"].num, rows[i].pct_floor);
    }
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
  ASSERT_NO_THROW(doc = parse_json(render(cb::options::format::json, rows))) << render(cb::options::format::json, rows);
  const auto& out = doc["rows"].arr;
  ASSERT_EQ(out.size(), rows.size());
  EXPECT_EQ(out[0].obj.size(), csv_columns);
  EXPECT_EQ(out[0].obj.count("dist"), 0u);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const json& o = out[i];
    EXPECT_EQ(o.obj.size(), csv_columns + 3);
    EXPECT_EQ(o.obj.count("shape"), 0u);
    EXPECT_EQ(o["dist"].str, rows[i].dist);
    EXPECT_EQ(o["segments"].num, double(rows[i].segments));
    EXPECT_EQ(o["n"].num, double(rows[i].n));
    if (std::isnan(rows[i].pct_floor)) {
      EXPECT_EQ(o["pct_floor"].k, json::kind::null);
    } else {
      EXPECT_EQ(o["pct_floor"].num, rows[i].pct_floor);
    }
  }
  EXPECT_EQ(out[6]["check"].str, tricky);
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
