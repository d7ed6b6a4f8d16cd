#include "bench/options.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

#include "bench/op_names.hpp"
#include "bench/type_names.hpp"

namespace cured::bench {

namespace {

constexpr int step_count = 10;
constexpr std::int64_t size_limit = std::int64_t(1) << 62;

using u128 = unsigned __int128;
constexpr u128 u128_max = ~u128(0);

constexpr std::array<std::string_view, 19> impl_list = {
    "step1", "step2",          "step3", "step4",  "step5",  "step6", "step7", "step8",  "step9",
    "step10", "cured", "cured-blocking", "cured-pairs", "cub", "cublas", "thrust", "floor", "cpu", "cpu-mt"};
/// The implementations of segmented workloads only (left out of the others' "all").
constexpr std::string_view segments_only_impl = "cured-pairs";
/// The implementations of axis workloads, in impl_list's order.
constexpr std::array<std::string_view, 3> axis_impl_list = {"cured", "cub", "floor"};
/// The implementations of segmented workloads, in impl_list's order.
constexpr std::array<std::string_view, 4> segment_impl_list = {"cured", "cured-pairs", "cub", "floor"};
constexpr std::array<std::string_view, 6> data_list = {"exact", "normal", "spread", "cancel", "boundary", "subnormal"};

/// The names of bench/types.txt's types, in its order.
constexpr auto type_list = [] {
  std::array<std::string_view, type_table.size()> names;
  for (std::size_t i = 0; i < type_table.size(); ++i) names[i] = type_table[i].name;
  return names;
}();

/// Whether `type` has the families other than exact.
bool floating_type(std::string_view type) {
  return std::any_of(type_table.begin(), type_table.end(),
                     [&](const type_name_entry& t) { return t.name == type && t.floating; });
}

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

/// Whole-string base-10 integer; no sign, no spaces.
template <class Int>
std::optional<Int> parse_whole(std::string_view s) {
  if (s.empty() || s.front() == '+') return std::nullopt;
  Int v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Saturating arithmetic: u128_max stands for "too large".
u128 mul_sat(u128 a, u128 b) {
  if (a == 0 || b == 0) return 0;
  if (a == u128_max || b == u128_max || b > u128_max / a) return u128_max;
  return a * b;
}

u128 pow_sat(u128 base, std::uint64_t exp) {
  u128 r = 1;
  while (exp > 0) {
    if (exp & 1) r = mul_sat(r, base);
    exp >>= 1;
    if (exp > 0) base = mul_sat(base, base);
  }
  return r;
}

u128 digits_sat(std::string_view s) {
  u128 v = 0;
  for (char c : s) {
    const u128 t = mul_sat(v, 10);
    v = t > u128_max - 9 ? u128_max : t + u128(c - '0');
  }
  return v;
}

/// Exponents beyond this saturate any base >= 2 anyway.
std::uint64_t exponent_of(std::string_view s) {
  std::uint64_t e = 0;
  for (char c : s) e = std::min<std::uint64_t>(e * 10 + std::uint64_t(c - '0'), 1000);
  return e;
}

[[noreturn]] void bad_size(std::string_view text) { throw parse_error("cannot parse size " + quoted(text)); }
[[noreturn]] void too_large(std::string_view text) { throw parse_error("size " + quoted(text) + " is larger than 2^62"); }

/// "D[.D]" times `scale`, exact: the value must be a whole number.
u128 scaled_decimal(std::string_view mantissa, u128 scale, std::string_view text) {
  const auto dot = mantissa.find('.');
  const std::string_view whole = mantissa.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : mantissa.substr(dot + 1);
  if (!all_digits(whole) || (dot != std::string_view::npos && !all_digits(frac))) bad_size(text);
  if (frac.size() > 30) bad_size(text);
  const u128 m = digits_sat(std::string(whole) + std::string(frac));
  if (m == 0) return 0;
  const u128 v = mul_sat(m, scale);
  if (v == u128_max) too_large(text);
  const u128 d = pow_sat(10, frac.size());
  if (v % d != 0) throw parse_error("size " + quoted(text) + " is not a whole number");
  return v / d;
}

/// One factor of a product: every size form except "x".
u128 parse_factor(std::string_view f, std::string_view text) {
  if (f.empty()) bad_size(text);
  if (const auto caret = f.find('^'); caret != std::string_view::npos) {
    const std::string_view base = f.substr(0, caret), exp = f.substr(caret + 1);
    if (!all_digits(base) || !all_digits(exp)) bad_size(text);
    return pow_sat(digits_sat(base), exponent_of(exp));
  }
  if (const auto e = f.find_first_of("eE"); e != std::string_view::npos) {
    std::string_view exp = f.substr(e + 1);
    if (!exp.empty() && exp.front() == '+') exp.remove_prefix(1);
    if (!all_digits(exp)) bad_size(text);
    return scaled_decimal(f.substr(0, e), pow_sat(10, exponent_of(exp)), text);
  }
  static constexpr struct {
    std::string_view suffix;
    u128 scale;
  } suffixes[] = {{"Ki", u128(1) << 10}, {"Mi", u128(1) << 20}, {"Gi", u128(1) << 30}, {"Ti", u128(1) << 40},
                  {"k", 1000},           {"K", 1000},           {"M", 1000000},      {"G", 1000000000},
                  {"T", 1000000000000}};
  for (const auto& s : suffixes)
    if (f.size() > s.suffix.size() && f.ends_with(s.suffix))
      return scaled_decimal(f.substr(0, f.size() - s.suffix.size()), s.scale, text);
  return scaled_decimal(f, 1, text);
}

std::vector<std::string_view> split(std::string_view list, char sep) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  while (true) {
    const auto at = list.find(sep, start);
    items.push_back(list.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return items;
}

/// Comma-separated items, none empty.
std::vector<std::string_view> split_list(std::string_view list) {
  auto items = split(list, ',');
  for (const auto& item : items)
    if (item.empty()) throw parse_error("empty item in list " + quoted(list));
  return items;
}

/// Names from `canonical` (plus "all"), deduplicated, in canonical order.
std::vector<std::string> parse_names(std::string_view list, std::span<const std::string_view> canonical,
                                     std::string_view what) {
  std::vector<bool> chosen(canonical.size(), false);
  for (const auto item : split_list(list)) {
    if (item == "all") {
      std::fill(chosen.begin(), chosen.end(), true);
      continue;
    }
    const auto it = std::find(canonical.begin(), canonical.end(), item);
    if (it == canonical.end()) throw parse_error("unknown " + std::string(what) + " " + quoted(item) + " (see --list)");
    chosen[std::size_t(it - canonical.begin())] = true;
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < canonical.size(); ++i)
    if (chosen[i]) out.emplace_back(canonical[i]);
  return out;
}

int parse_step(std::string_view s) {
  const auto v = parse_whole<int>(s);
  if (!v || *v < 1 || *v > step_count) throw parse_error("unknown step " + quoted(s) + " (steps are 1 to 10)");
  return *v;
}

int parse_block(std::string_view s) {
  const auto v = parse_whole<std::int64_t>(s);
  if (!v) throw parse_error("cannot parse block size " + quoted(s));
  if (*v < 32 || *v > 1024 || (*v & (*v - 1)) != 0)
    throw parse_error("block size " + std::string(s) + " is not a power of two from 32 to 1024");
  return int(*v);
}

int parse_count(std::string_view s, std::string_view option, int min) {
  const auto v = parse_whole<int>(s);
  if (!v || *v < min)
    throw parse_error(std::string(option) + " takes a whole number of at least " + std::to_string(min) + ", not " +
                      quoted(s));
  return *v;
}

std::uint64_t parse_seed(std::string_view s) {
  std::optional<std::uint64_t> v;
  if (s.size() > 2 && (s.starts_with("0x") || s.starts_with("0X"))) {
    std::uint64_t x = 0;
    const auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), x, 16);
    if (ec == std::errc() && end == s.data() + s.size()) v = x;
  } else {
    v = parse_whole<std::uint64_t>(s);
  }
  if (!v) throw parse_error("cannot parse seed " + quoted(s) + " (a 64-bit unsigned number, decimal or 0x hex)");
  return *v;
}

data_family parse_data(std::string_view s) {
  for (std::size_t i = 0; i < data_list.size(); ++i)
    if (s == data_list[i]) return data_family(i);
  throw parse_error("unknown data family " + quoted(s) + " (exact, normal, spread, cancel, boundary or subnormal)");
}

options::format parse_format(std::string_view s) {
  for (auto f : {options::format::table, options::format::csv, options::format::json, options::format::md})
    if (s == format_name(f)) return f;
  throw parse_error("unknown format " + quoted(s) + " (table, csv, json or md)");
}

/// Which options take a value; every other known option is a flag.
bool takes_value(std::string_view name) {
  static constexpr std::string_view valued[] = {"impl",   "steps",  "block", "sizes", "types", "ops",  "mode",
                                                "samples", "device", "format", "out", "seed",  "data", "shape",
                                                "axes",    "segments", "json", "csv", "md"};
  return std::find(std::begin(valued), std::end(valued), name) != std::end(valued);
}

bool is_flag(std::string_view name) {
  return name == "list" || name == "help" || name == "version" || name == "sweep" || name == "axes-grid" ||
         name == "segments-grid";
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// The items of `part` separated by runs of whitespace.
std::vector<std::string_view> split_spaces(std::string_view part) {
  std::vector<std::string_view> items;
  std::size_t i = 0;
  while (i < part.size()) {
    while (i < part.size() && is_space(part[i])) ++i;
    std::size_t j = i;
    while (j < part.size() && !is_space(part[j])) ++j;
    if (j > i) items.push_back(part.substr(i, j - i));
    i = j;
  }
  return items;
}

/// Names of `list` (validated by parse_names already) for a run of axis or segmented workloads
/// (`workloads`, as messages name them): "all" stands for every name of `axis_names`; a name
/// outside it throws, naming what the workloads take.
std::vector<std::string> axis_names(std::string_view list, std::span<const std::string_view> axis_names,
                                    std::string_view what, std::string_view mode,
                                    std::string_view workloads = "axis workloads") {
  std::vector<bool> chosen(axis_names.size(), false);
  for (const auto item : split_list(list)) {
    if (item == "all") {
      std::fill(chosen.begin(), chosen.end(), true);
      continue;
    }
    const auto it = std::find(axis_names.begin(), axis_names.end(), item);
    if (it == axis_names.end()) {
      std::string names;
      for (const auto n : axis_names) {
        if (!names.empty()) names += ", ";
        names += n;
      }
      throw parse_error(std::string(what) + " " + quoted(item) + " does not run on " + std::string(workloads) + " (" +
                        std::string(mode) + " takes " + names + ")");
    }
    chosen[std::size_t(it - axis_names.begin())] = true;
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < axis_names.size(); ++i)
    if (chosen[i]) out.emplace_back(axis_names[i]);
  return out;
}

}  // namespace

std::span<const std::string_view> implementation_names() { return impl_list; }
std::span<const std::string_view> type_names() { return type_list; }
std::span<const std::string_view> op_names() { return op_names_in_order; }
std::span<const std::string_view> data_names() { return data_list; }
std::span<const std::string_view> axis_implementation_names() { return axis_impl_list; }
std::span<const std::string_view> axis_op_names() { return axis_op_names_in_order; }
std::span<const std::string_view> segment_implementation_names() { return segment_impl_list; }
std::span<const std::string_view> segment_op_names() { return segment_op_names_in_order; }

std::int64_t axis_workload::elements() const {
  std::int64_t n = 1;
  for (const std::int64_t e : shape) n *= e;
  return n;
}

std::int64_t axis_workload::outputs() const {
  std::int64_t n = 1;
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (std::find(axes.begin(), axes.end(), int(k)) == axes.end()) n *= shape[k];
  return n;
}

std::int64_t axis_workload::reduced() const {
  std::int64_t n = 1;
  for (const int a : axes) n *= shape[std::size_t(a)];
  return n;
}

bool axis_workload::rows() const {
  bool reduced_before = false;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    const bool reduced = std::find(axes.begin(), axes.end(), int(k)) != axes.end();
    if (!reduced && reduced_before) return false;
    reduced_before |= reduced;
  }
  return true;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text;
  for (const std::int64_t e : shape) {
    if (!text.empty()) text += 'x';
    text += std::to_string(e);
  }
  return text;
}

std::string axes_text(const std::vector<int>& axes) {
  std::string text;
  for (const int a : axes) {
    if (!text.empty()) text += ',';
    text += std::to_string(a);
  }
  return text;
}

std::vector<std::int64_t> parse_shape(std::string_view text) {
  constexpr std::string_view form = " (a shape is extents joined by 'x', as in 4096x1024 or 8x2^20x8)";
  std::vector<std::int64_t> shape;
  u128 product = 1;
  for (const auto extent : split(text, 'x')) {
    if (extent.empty()) throw parse_error("cannot parse shape " + quoted(text) + ": an empty extent" + std::string(form));
    std::int64_t e = 0;
    try {
      e = parse_size(extent);
    } catch (const parse_error& error) {
      throw parse_error("cannot parse shape " + quoted(text) + ": " + error.what() + std::string(form));
    }
    if (e == 0) throw parse_error("shape " + quoted(text) + " has an extent 0: extents are at least 1");
    shape.push_back(e);
    product = mul_sat(product, u128(e));
  }
  if (shape.size() > 8)
    throw parse_error("shape " + quoted(text) + " has " + std::to_string(shape.size()) + " axes: at most 8");
  if (product > u128(size_limit)) throw parse_error("shape " + quoted(text) + " has more than 2^62 elements");
  return shape;
}

std::vector<std::vector<std::int64_t>> parse_shapes(std::string_view list) {
  std::vector<std::vector<std::int64_t>> shapes;
  for (const auto part : split(list, ';')) {
    const auto items = split_spaces(part);
    if (items.empty()) throw parse_error("empty item in shape list " + quoted(list));
    for (const auto item : items) shapes.push_back(parse_shape(item));
  }
  return shapes;
}

std::vector<int> parse_axes(std::string_view list) {
  std::vector<int> axes;
  for (const auto item : split_list(list)) {
    const bool negative = item.front() == '-';
    const std::string_view digits = negative ? item.substr(1) : item;
    const auto v = all_digits(digits) ? parse_whole<int>(digits) : std::nullopt;
    if (!v)
      throw parse_error("cannot parse axis " + quoted(item) +
                        " (axes are whole numbers, negative ones counting from the last axis)");
    axes.push_back(negative ? -*v : *v);
  }
  return axes;
}

std::vector<int> normalize_axes(const std::vector<int>& axes, int rank, std::string_view shape) {
  std::vector<int> out;
  for (const int a : axes) {
    if (a < -rank || a >= rank)
      throw parse_error("axis " + std::to_string(a) + " is out of range for shape " + quoted(shape) + " (" +
                        std::to_string(rank) + (rank == 1 ? " axis: " : " axes: ") + std::to_string(-rank) + ".." +
                        std::to_string(rank - 1) + ")");
    const int axis = a < 0 ? a + rank : a;
    if (std::find(out.begin(), out.end(), axis) != out.end())
      throw parse_error("axis " + std::to_string(axis) + " of shape " + quoted(shape) + " is named twice in --axes");
    out.push_back(axis);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<axis_workload> default_axis_grid() {
  std::vector<axis_workload> grid;
  for (const int e : {20, 24, 28}) {
    const std::int64_t n = std::int64_t(1) << e;
    for (const int axis : {1, 0})
      for (std::int64_t rows = 1; rows <= n / 2; rows *= 4) grid.push_back({{rows, n / rows}, {axis}});
  }
  for (const auto& shape : {std::vector<std::int64_t>{64, 4096, 64}, std::vector<std::int64_t>{1024, 256, 256},
                            std::vector<std::int64_t>{8, std::int64_t(1) << 20, 8},
                            std::vector<std::int64_t>{4096, 64, 256}})
    grid.push_back({shape, {1}});
  return grid;
}

segment_distribution parse_distribution(std::string_view text) {
  using kind = segment_distribution::kind;
  if (text.starts_with("uniform:")) {
    std::int64_t length = 0;
    try {
      length = parse_size(text.substr(8));
    } catch (const parse_error& e) {
      throw parse_error("bad segment distribution " + quoted(text) + ": " + e.what());
    }
    if (length < 1) throw parse_error("segment length of " + quoted(text) + " is 0 (uniform:L takes L of at least 1)");
    return {kind::uniform, length};
  }
  if (text == "uniform")
    throw parse_error("segment distribution 'uniform' needs a length: uniform:L (uniform:4, uniform:2^20)");
  if (text == "powerlaw") return {kind::powerlaw};
  if (text == "onebig") return {kind::onebig};
  if (text == "empty-mixed") return {kind::empty_mixed};
  throw parse_error("unknown segment distribution " + quoted(text) + " (uniform:L, powerlaw, onebig or empty-mixed)");
}

std::vector<segment_distribution> parse_distributions(std::string_view list) {
  std::vector<segment_distribution> dists;
  std::size_t start = 0;
  while (true) {
    const auto at = list.find_first_of(",;", start);
    const std::string_view item = list.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start);
    if (item.empty()) throw parse_error("empty item in distribution list " + quoted(list));
    const segment_distribution d = parse_distribution(item);
    if (std::find(dists.begin(), dists.end(), d) == dists.end()) dists.push_back(d);
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return dists;
}

std::vector<segment_distribution> default_segment_grid() {
  using kind = segment_distribution::kind;
  std::vector<segment_distribution> grid;
  for (std::int64_t length = 1; length <= std::int64_t(1) << 28; length *= 4) grid.push_back({kind::uniform, length});
  for (const kind k : {kind::powerlaw, kind::onebig, kind::empty_mixed}) grid.push_back({k});
  return grid;
}

std::vector<std::int64_t> default_segment_sizes() { return {std::int64_t(1) << 24, std::int64_t(1) << 28}; }

std::vector<segment_workload> segment_workloads_of(const std::vector<std::int64_t>& sizes,
                                                   const std::vector<segment_distribution>& dists, bool grid) {
  std::vector<segment_workload> workloads;
  for (const std::int64_t n : sizes)
    for (const auto& d : dists)
      if (!grid || d.k != segment_distribution::kind::uniform || d.length <= n) workloads.push_back({n, d});
  return workloads;
}

std::string_view data_name(data_family f) {
  const auto i = std::size_t(f);
  return i < data_list.size() ? data_list[i] : "exact";
}

std::string_view format_name(options::format f) {
  switch (f) {
    case options::format::table: return "table";
    case options::format::csv: return "csv";
    case options::format::json: return "json";
    case options::format::md: return "md";
  }
  return "table";
}

std::int64_t parse_size(std::string_view text) {
  if (!text.empty() && text.front() == '-') {
    try {
      parse_size(text.substr(1));
    } catch (const parse_error&) {
      bad_size(text);
    }
    throw parse_error("size " + quoted(text) + " is negative");
  }
  u128 product = 1;
  for (const auto factor : split(text, 'x')) {
    product = mul_sat(product, parse_factor(factor, text));
    if (product > u128(size_limit) && product != u128_max) product = u128_max;
  }
  if (product > u128(size_limit)) too_large(text);
  return std::int64_t(product);
}

std::vector<std::int64_t> parse_sizes(std::string_view list) {
  std::vector<std::int64_t> sizes;
  for (const auto item : split_list(list)) {
    const auto dots = item.find("..");
    if (dots == std::string_view::npos) {
      sizes.push_back(parse_size(item));
      continue;
    }
    const std::int64_t lo = parse_size(item.substr(0, dots)), hi = parse_size(item.substr(dots + 2));
    if (lo > hi) throw parse_error("size range " + quoted(item) + " runs backwards");
    const std::size_t before = sizes.size();
    for (std::int64_t p = 1; p <= hi; p *= 2) {
      if (p >= lo) sizes.push_back(p);
      if (p == size_limit) break;
    }
    if (sizes.size() == before) throw parse_error("size range " + quoted(item) + " holds no power of two");
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::vector<int> parse_steps(std::string_view list) {
  std::vector<int> steps;
  for (const auto item : split_list(list)) {
    const auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      steps.push_back(parse_step(item));
      continue;
    }
    const int a = parse_step(item.substr(0, dash)), b = parse_step(item.substr(dash + 1));
    if (a > b) throw parse_error("step range " + quoted(item) + " runs backwards");
    for (int s = a; s <= b; ++s) steps.push_back(s);
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

std::vector<std::int64_t> default_sizes() { return {std::int64_t(1) << 14, 1000 * 1000, 4000 * 4000, 11000 * 11000}; }

std::vector<std::int64_t> sweep_sizes() {
  std::vector<std::int64_t> sizes;
  for (std::int64_t side : {1000, 2000, 4000, 6000, 11000}) sizes.push_back(side * side);
  for (int e = 10; e <= 30; ++e) sizes.push_back(std::int64_t(1) << e);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

options parse_options(int argc, const char* const* argv) {
  options opt;
  std::optional<std::string> impl_list_arg;
  std::optional<std::vector<int>> steps_arg;
  std::optional<std::vector<std::int64_t>> sizes_arg;
  std::optional<std::string> ops_arg;
  std::vector<std::vector<std::int64_t>> shapes;  // every --shape, in order
  std::optional<std::vector<int>> axes_arg;
  std::optional<std::vector<segment_distribution>> segments_arg;
  bool block_given = false, types_given = false;
  std::vector<std::string_view> positional;
  bool only_positional = false;

  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (only_positional || arg.empty() || arg.front() != '-' || arg == "-") {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    if (arg == "-h") {
      opt.help = true;
      continue;
    }
    if (!arg.starts_with("--")) throw parse_error("unknown option " + quoted(arg) + " (see --help)");
    const auto eq = arg.find('=');
    const std::string_view name = arg.substr(2, eq == std::string_view::npos ? std::string_view::npos : eq - 2);
    const std::string option = "--" + std::string(name);
    if (is_flag(name)) {
      if (eq != std::string_view::npos) throw parse_error("option " + quoted(option) + " takes no value");
      (name == "list"        ? opt.list
       : name == "help"      ? opt.help
       : name == "version"   ? opt.version
       : name == "sweep"     ? opt.sweep
       : name == "axes-grid" ? opt.axes_grid
                             : opt.segments_grid) = true;
      continue;
    }
    if (!takes_value(name)) throw parse_error("unknown option " + quoted(option) + " (see --help)");
    std::string_view value;
    if (eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
    } else {
      if (i + 1 >= argc) throw parse_error("option " + quoted(option) + " needs a value");
      value = argv[++i];
    }
    if (value.empty()) throw parse_error("option " + quoted(option) + " needs a value");

    if (name == "impl") {
      std::vector<std::string_view> known(impl_list.begin(), impl_list.end());
      known.push_back("ladder");
      parse_names(value, known, "implementation");  // validates now; expanded after --steps is known
      impl_list_arg = std::string(value);
    } else if (name == "steps") {
      steps_arg = parse_steps(value);
    } else if (name == "block") {
      opt.block = parse_block(value);
      block_given = true;
    } else if (name == "sizes") {
      sizes_arg = parse_sizes(value);
    } else if (name == "types") {
      opt.types = parse_names(value, type_list, "type");
      types_given = true;
    } else if (name == "ops") {
      opt.ops = parse_names(value, op_names_in_order, "op");
      ops_arg = std::string(value);
    } else if (name == "mode") {
      if (value == "cold" || value == "hot" || value == "both") {
        opt.cold = value != "hot";
        opt.hot = value != "cold";
      } else {
        throw parse_error("unknown mode " + quoted(value) + " (cold, hot or both)");
      }
    } else if (name == "samples") {
      opt.samples = parse_count(value, option, 1);
    } else if (name == "device") {
      opt.device = parse_count(value, option, 0);
    } else if (name == "format") {
      opt.fmt = parse_format(value);
    } else if (name == "data") {
      opt.data = parse_data(value);
    } else if (name == "out") {
      opt.out = std::string(value);
    } else if (name == "json" || name == "csv" || name == "md") {
      const options::format f = parse_format(name);
      std::erase_if(opt.reports, [&](const options::report_file& r) { return r.fmt == f; });
      opt.reports.push_back({f, std::string(value)});
    } else if (name == "seed") {
      opt.seed = parse_seed(value);
      opt.seed_given = true;
    } else if (name == "shape") {
      for (auto& shape : parse_shapes(value)) shapes.push_back(std::move(shape));
    } else if (name == "axes") {
      axes_arg = parse_axes(value);
    } else if (name == "segments") {
      segments_arg = parse_distributions(value);
    }
  }

  // Each report its own file: two streams on one path would interleave.
  std::vector<std::string_view> paths;
  if (!opt.out.empty()) paths.push_back(opt.out);
  for (const auto& r : opt.reports) {
    if (std::find(paths.begin(), paths.end(), r.path) != paths.end())
      throw parse_error("report file " + quoted(r.path) + " given twice (--out, --json, --csv, --md: a file each)");
    paths.push_back(r.path);
  }

  // Segmented workloads: --segments or --segments-grid over the sizes; the axis and ladder
  // options do not apply.
  if (segments_arg || opt.segments_grid) {
    const std::string mode = opt.segments_grid ? "--segments-grid" : "--segments";
    if (opt.segments_grid && segments_arg)
      throw parse_error("--segments-grid runs its own distributions: give it without --segments");
    if (opt.axes_grid || !shapes.empty() || axes_arg)
      throw parse_error(std::string(opt.axes_grid ? "--axes-grid" : !shapes.empty() ? "--shape" : "--axes") +
                        " does not apply with " + mode + " (a run times one kind of workload)");
    const auto not_with = [&](std::string_view option) {
      throw parse_error(std::string(option) + " does not apply with " + mode + " (segmented workloads have no ladder steps)");
    };
    if (steps_arg) not_with("--steps");
    if (block_given) not_with("--block");
    if (opt.sweep) not_with("--sweep");
    if (!positional.empty())
      throw parse_error("unexpected argument " + quoted(positional[0]) +
                        " (the positional form N [STEP [THREADS]] does not apply with " + mode + "; sizes go to --sizes)");
    if (opt.data != data_family::exact)
      throw parse_error("--data " + std::string(data_name(opt.data)) + " does not apply with " + mode +
                        ": segmented workloads take the exact family (small integers: every sum exact)");
    opt.sizes = sizes_arg ? *sizes_arg : default_segment_sizes();
    if (opt.sizes.front() == 0)
      throw parse_error("size 0 has no segments (" + mode + " takes sizes of at least 1)");
    opt.segment_workloads =
        segment_workloads_of(opt.sizes, opt.segments_grid ? default_segment_grid() : *segments_arg, opt.segments_grid);
    // (the pair form only when asked for: it times cured's call again on the same segments)
    opt.impls = axis_names(impl_list_arg.value_or("cured,cub,floor"), segment_impl_list, "implementation", mode,
                           "segmented workloads");
    opt.ops = ops_arg ? axis_names(*ops_arg, segment_op_names_in_order, "op", mode, "segmented workloads")
                      : std::vector<std::string>{"sum"};
    if (!types_given) opt.types = {"float", "int32"};
    return opt;
  }

  // Axis workloads: --shape with --axes, or --axes-grid; the whole-array options do not apply.
  if (opt.axes_grid && (!shapes.empty() || axes_arg))
    throw parse_error("--axes-grid runs its own shapes and axes: give it without --shape and --axes");
  if (!shapes.empty() && !axes_arg) throw parse_error("--shape needs --axes (the axes to reduce, e.g. --axes 1)");
  if (axes_arg && shapes.empty()) throw parse_error("--axes needs --shape (the array to reduce, e.g. --shape 4096x1024)");
  if (opt.axes_grid || !shapes.empty()) {
    const std::string mode = opt.axes_grid ? "--axes-grid" : "--shape";
    const auto not_with = [&](std::string_view option) {
      throw parse_error(std::string(option) + " does not apply with " + mode +
                        " (axis workloads have shapes, not sizes, and no ladder steps)");
    };
    if (sizes_arg) not_with("--sizes");
    if (steps_arg) not_with("--steps");
    if (block_given) not_with("--block");
    if (opt.sweep) not_with("--sweep");
    if (!positional.empty())
      throw parse_error("unexpected argument " + quoted(positional[0]) + " (the positional form N [STEP [THREADS]] does not apply with " +
                        mode + ")");
    if (opt.data != data_family::exact)
      throw parse_error("--data " + std::string(data_name(opt.data)) + " does not apply with " + mode +
                        ": axis workloads take the exact family (small integers: every sum exact)");
    if (opt.axes_grid) {
      opt.workloads = default_axis_grid();
    } else {
      for (const auto& shape : shapes) {
        axis_workload w{shape, normalize_axes(*axes_arg, int(shape.size()), shape_text(shape))};
        if (std::find(opt.workloads.begin(), opt.workloads.end(), w) == opt.workloads.end())
          opt.workloads.push_back(std::move(w));
      }
    }
    opt.impls = axis_names(impl_list_arg.value_or("all"), axis_impl_list, "implementation", mode);
    opt.ops = ops_arg ? axis_names(*ops_arg, axis_op_names_in_order, "op", mode) : std::vector<std::string>{"sum"};
    if (!types_given) opt.types = {"float", "int32"};
    return opt;
  }

  // The seeds' positional form: N [STEP [THREADS]].
  std::optional<int> positional_step;
  if (positional.size() > 3)
    throw parse_error("unexpected argument " + quoted(positional[3]) + " (the positional form is N [STEP [THREADS]])");
  if (!positional.empty()) {
    opt.seed_positional = true;
    if (sizes_arg) throw parse_error("size " + quoted(positional[0]) + " given both as an argument and with --sizes");
    if (opt.sweep) throw parse_error("size " + quoted(positional[0]) + " given beside --sweep, which runs its own sizes");
    sizes_arg = std::vector<std::int64_t>{parse_size(positional[0])};
    if (positional.size() >= 2) {
      if (impl_list_arg || steps_arg)
        throw parse_error("step " + quoted(positional[1]) + " given both as an argument and with --impl or --steps");
      positional_step = parse_step(positional[1]);
    }
    if (positional.size() >= 3) {
      if (block_given)
        throw parse_error("block size " + quoted(positional[2]) + " given both as an argument and with --block");
      opt.block = parse_block(positional[2]);
    }
    if (!impl_list_arg && !steps_arg) {
      // The seeds compared one kernel (step 1 unless given) with Thrust and the CPU; CUB is the reference.
      impl_list_arg = "step" + std::to_string(positional_step.value_or(1)) + ",cub,thrust,cpu";
    }
  }
  if (opt.sweep && sizes_arg) throw parse_error("--sweep runs its own sizes: give it without --sizes");
  opt.sizes = sizes_arg ? *sizes_arg : opt.sweep ? sweep_sizes() : default_sizes();
  if (opt.data == data_family::exact) {
    if (!types_given) opt.types = {"float", "int32"};
  } else if (!types_given) {
    opt.types = {"float", "double"};
  } else {
    for (const auto& t : opt.types)
      if (!floating_type(t))
        throw parse_error("type " + quoted(t) + " has no " + std::string(data_name(opt.data)) +
                          " data (--data other than exact takes the floating types: float, double, half, bfloat16)");
  }
  if (opt.ops.empty()) opt.ops = {"sum"};

  // Implementations: groups expand to the ladder steps of --steps (all ten without it); steps
  // named one by one are always kept; --steps alone selects its steps beside every peer.
  std::vector<bool> chosen(impl_list.size(), false);
  bool ladder_group = false;
  const std::string impl_text = impl_list_arg.value_or("all");
  for (const auto item : split_list(impl_text)) {
    if (item == "all" || item == "ladder") {
      ladder_group = true;
      if (item == "all")
        for (std::size_t i = step_count; i < impl_list.size(); ++i) chosen[i] = impl_list[i] != segments_only_impl;
      continue;
    }
    if (item == segments_only_impl)
      throw parse_error("implementation " + quoted(item) + " applies to segmented workloads only (--segments)");
    chosen[std::size_t(std::find(impl_list.begin(), impl_list.end(), item) - impl_list.begin())] = true;
  }
  if (steps_arg) {
    for (int s : *steps_arg) chosen[std::size_t(s - 1)] = true;
  } else if (ladder_group) {
    for (int s = 1; s <= step_count; ++s) chosen[std::size_t(s - 1)] = true;
  }
  for (std::size_t i = 0; i < impl_list.size(); ++i)
    if (chosen[i]) {
      opt.impls.emplace_back(impl_list[i]);
      if (i < std::size_t(step_count)) opt.steps.push_back(int(i) + 1);
    }
  return opt;
}

std::string usage() {
  std::string text = R"(usage: cured-bench [options]
       cured-bench --shape SHAPES --axes AXES [options]   axis workloads
       cured-bench --axes-grid [options]                  the default axis grid
       cured-bench --segments DISTS [options]             segmented workloads
       cured-bench --segments-grid [options]              the default segment grid
       cured-bench N [STEP [THREADS]]     the seeds' form: size N, ladder step STEP (default 1)
                                          and THREADS per block, beside cub, thrust and cpu

Times every selected reduction over every size, type and op, cold (L2 flushed) and hot,
checks each result against an exact reference, and reports time, GB/s, % of the device's
measured read ceiling and of its theoretical peak, and speedups over step1 and CUB.
Axis workloads (reductions along axes of an N-D array) and segmented workloads (one result
per segment of an array) report GB/s over the bytes read and written, and % of the floor's
GB/s measured in the same run.

options (--opt VALUE or --opt=VALUE; lists are comma-separated):
  --impl LIST      implementations: step1..step10, cured, cured-blocking, cub, cublas (the
                   dot op), thrust, cpu, cpu-mt,
                   floor (a kernel that only reads the input: no reduction, no result;
                   the least time any one-launch reduction can take), or the groups
                   ladder (every step of --steps) and all                 [all]
  --steps LIST     ladder steps to run, e.g. 1,3,5-7: added to --impl's list, and
                   what the groups ladder and all stand for               [1-10]
  --block N        threads per block for the ladder: 32, 64, ..., 1024    [256]
  --sizes LIST     element counts: 1048576, 2^20, 1e6, 1M (10^6), 1Mi (2^20),
                   4000x4000, and ranges 2^10..2^20 (every power of two between)
                   [2^14,1000x1000,4000x4000,11000x11000]
  --sweep          the full sweep: 2^10 .. 2^30 and 1000x1000 .. 11000x11000
  --types LIST     @TYPES@, or all@TYPES_PAD@[float,int32]
  --ops LIST       @OPS@, or all@OPS_PAD@[sum]
                   (exact_sum: cured's correctly rounded sum, floating types;
                   rows for cured, cured-blocking and cpu only; exact_dot and
                   dot: the dot product of the input's two halves, exact
                   (cured) and in floating point (cub's fused TransformReduce,
                   cublas's Sdot/Ddot))
  --data FAMILY    the inputs: exact (small integers: every sum exact),
                   normal (N(0,1) values), spread (random exponents over the
                   type's whole range), cancel (uniform in [-1,1)), boundary
                   (an exact sum on a rounding tie under cancellation) or
                   subnormal; all but exact take the floating types,
                   and default to --types float,double               [exact]
  --mode MODE      cold, hot or both                                      [both]
  --samples N      timed samples per measurement (default: automatic)
  --device N       CUDA device                                            [0]
  --format FMT     table, csv, json or md                                 [table]
  --out FILE       write the report to FILE instead of stdout
  --json FILE, --csv FILE, --md FILE
                   also write the report as JSON, CSV or markdown to FILE (any
                   of them in one run); every report file is opened before the
                   run starts. A table on stdout shows each row as it is
                   measured, the progress and the time left go to stderr
  --seed N         seed of the random inputs, for reproducible runs       [fresh]
  --list           list the implementations, types and ops, then exit
  --version        print the versions of cured-bench, CUDA and CCCL, then exit
  -h, --help       show this text, then exit

axis workloads (instead of --sizes; --steps, --block and other --data do not apply):
  --shape SHAPES   contiguous row-major arrays to reduce: extents joined by 'x',
                   outermost first, rank 1 to 8 (4096x1024, 64x4096x64, 8x2^20x8);
                   several separated by ';' or spaces ("4096x1024;1024x4096"),
                   and --shape may be given again (every shape is kept)
  --axes AXES      the axes each shape is reduced along: 1, 0,2, -1 (from the last)
  --axes-grid      the default grid: rows x cols of 2^20, 2^24 and 2^28 elements,
                   rows 1, 4, 16, ... up to half of them, along axis 1 and along
                   axis 0; then 64x4096x64, 1024x256x256, 8x2^20x8 and
                   4096x64x256 along axis 1
  with them, --impl takes cured (the library's asynchronous axis call), cub
                   (cub::DeviceSegmentedReduce over the rows: shapes whose reduced
                   axes are the trailing ones only) and floor (a kernel that
                   reads the input and writes the output's bytes)         [all]
  and --ops takes  @AXIS_OPS@, or all@AXIS_OPS_PAD@[sum]
                   (sums write the accumulator: int32 into int64, uint32 into
                   uint64, half into float; exact_sum the correctly rounded sum,
                   floating types, no cub rows; argmin and argmax int64 indices)

segmented workloads (the values of --sizes cut into segments by int64 offsets; --steps,
--block and other --data do not apply):
  --segments DISTS how the segments' lengths are drawn, separated by ',' or ';':
                   uniform:L (every segment L values, the last one the remainder; L a
                   size: uniform:4, uniform:2^20), powerlaw (floor(2^(20u)) for u uniform
                   in [0,1): 1 to below 2^20, the last one clipped), onebig (one segment
                   of n/2 in the middle, the others of 4), empty-mixed (a third empty,
                   the others 1 .. 200 long); drawn from the run's seed (--seed)
  --segments-grid  uniform:1, uniform:4, uniform:16, ... uniform:4^14 (lengths above n
                   left out), powerlaw, onebig and empty-mixed
  with them, --sizes defaults to 2^24,2^28; --impl takes cured (the library's asynchronous
                   segmented call), cured-pairs (the same segments as begin and end
                   pairs), cub (cub::DeviceSegmentedReduce over the offsets) and
                   floor (a kernel that reads the values and the offsets and writes the
                   output's bytes)                          [cured,cub,floor]
  and --ops takes  @SEGMENT_OPS@, or all@SEGMENT_OPS_PAD@[sum]
                   (outputs as with axis workloads; argmin and argmax give the index
                   within the segment, -1 for an empty one)

exit status: 0 when every result checked ok (or was skipped), 1 when one was wrong,
2 for bad arguments.
)";
  // The lists of types and ops come from their tables, padded to the defaults' column.
  const auto fill = [&](const std::string& key, const std::string& pad_key, const auto& names) {
    std::string list;
    for (const auto& n : names) {
      if (!list.empty()) list += ' ';
      list += n;
    }
    std::size_t at = text.find(key);
    text = text.substr(0, at) + list + text.substr(at + key.size());
    at = text.find(pad_key);
    const std::size_t used = at - (text.rfind('\n', at) + 1), column = 74;
    text = text.substr(0, at) + std::string(used < column ? column - used : 1, ' ') + text.substr(at + pad_key.size());
  };
  fill("@TYPES@", "@TYPES_PAD@", type_list);
  fill("@OPS@", "@OPS_PAD@", op_names_in_order);
  fill("@AXIS_OPS@", "@AXIS_OPS_PAD@", axis_op_names_in_order);
  fill("@SEGMENT_OPS@", "@SEGMENT_OPS_PAD@", segment_op_names_in_order);
  return text;
}

}  // namespace cured::bench
