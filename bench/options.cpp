// cured-bench's command line: CLI11 reads the options; the value grammars it has no form for
// (sizes, steps, shapes, axes, distributions, seeds, lists of names) and the rules between
// options are here.

#include "bench/options.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

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

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

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

[[noreturn]] void bad_size(std::string_view text) { throw parse_error("cannot parse size " + quote(text)); }
[[noreturn]] void too_large(std::string_view text) { throw parse_error("size " + quote(text) + " is larger than 2^62"); }

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
  if (v % d != 0) throw parse_error("size " + quote(text) + " is not a whole number");
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
    if (item.empty()) throw parse_error("empty item in list " + quote(list));
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
    if (it == canonical.end()) throw parse_error("unknown " + std::string(what) + " " + quote(item) + " (see --list)");
    chosen[std::size_t(it - canonical.begin())] = true;
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < canonical.size(); ++i)
    if (chosen[i]) out.emplace_back(canonical[i]);
  return out;
}

/// opt.types narrowed to those with workloads of `has` (type_name_entry::axes or ::segments):
/// a type named in `listed` (--types as given) without them is an error naming `mode`; one that
/// came from "all" is left out.
void keep_types_with(options& opt, bool type_name_entry::*has, std::string_view listed, const std::string& mode,
                     std::string_view workloads) {
  std::vector<std::string> kept;
  std::string takes;
  for (const auto& t : type_table)
    if (t.*has) takes += (takes.empty() ? "" : ", ") + std::string(t.name);
  const auto items = split_list(listed);
  for (const auto& type : opt.types) {
    const auto row = std::find_if(type_table.begin(), type_table.end(), [&](const auto& t) { return t.name == type; });
    if (row != type_table.end() && (*row).*has) {
      kept.push_back(type);
    } else if (std::find(items.begin(), items.end(), type) != items.end()) {
      throw parse_error("type " + quote(type) + " has no " + std::string(workloads) + " (" + mode + " takes " + takes +
                        ")");
    }
  }
  opt.types = std::move(kept);
}

int parse_step(std::string_view s) {
  const auto v = parse_whole<int>(s);
  if (!v || *v < 1 || *v > step_count) throw parse_error("unknown step " + quote(s) + " (steps are 1 to 10)");
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
  if (!v) throw parse_error("cannot parse seed " + quote(s) + " (a 64-bit unsigned number, decimal or 0x hex)");
  return *v;
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
      throw parse_error(std::string(what) + " " + quote(item) + " does not run on " + std::string(workloads) + " (" +
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
    if (extent.empty()) throw parse_error("cannot parse shape " + quote(text) + ": an empty extent" + std::string(form));
    std::int64_t e = 0;
    try {
      e = parse_size(extent);
    } catch (const parse_error& error) {
      throw parse_error("cannot parse shape " + quote(text) + ": " + error.what() + std::string(form));
    }
    if (e == 0) throw parse_error("shape " + quote(text) + " has an extent 0: extents are at least 1");
    shape.push_back(e);
    product = mul_sat(product, u128(e));
  }
  if (shape.size() > 8)
    throw parse_error("shape " + quote(text) + " has " + std::to_string(shape.size()) + " axes: at most 8");
  if (product > u128(size_limit)) throw parse_error("shape " + quote(text) + " has more than 2^62 elements");
  return shape;
}

std::vector<std::vector<std::int64_t>> parse_shapes(std::string_view list) {
  std::vector<std::vector<std::int64_t>> shapes;
  for (const auto part : split(list, ';')) {
    const auto items = split_spaces(part);
    if (items.empty()) throw parse_error("empty item in shape list " + quote(list));
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
      throw parse_error("cannot parse axis " + quote(item) +
                        " (axes are whole numbers, negative ones counting from the last axis)");
    axes.push_back(negative ? -*v : *v);
  }
  return axes;
}

std::vector<int> normalize_axes(const std::vector<int>& axes, int rank, std::string_view shape) {
  std::vector<int> out;
  for (const int a : axes) {
    if (a < -rank || a >= rank)
      throw parse_error("axis " + std::to_string(a) + " is out of range for shape " + quote(shape) + " (" +
                        std::to_string(rank) + (rank == 1 ? " axis: " : " axes: ") + std::to_string(-rank) + ".." +
                        std::to_string(rank - 1) + ")");
    const int axis = a < 0 ? a + rank : a;
    if (std::find(out.begin(), out.end(), axis) != out.end())
      throw parse_error("axis " + std::to_string(axis) + " of shape " + quote(shape) + " is named twice in --axes");
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
      throw parse_error("bad segment distribution " + quote(text) + ": " + e.what());
    }
    if (length < 1) throw parse_error("segment length of " + quote(text) + " is 0 (uniform:L takes L of at least 1)");
    return {kind::uniform, length};
  }
  if (text == "uniform")
    throw parse_error("segment distribution 'uniform' needs a length: uniform:L (uniform:4, uniform:2^20)");
  if (text == "powerlaw") return {kind::powerlaw};
  if (text == "onebig") return {kind::onebig};
  if (text == "empty-mixed") return {kind::empty_mixed};
  throw parse_error("unknown segment distribution " + quote(text) + " (uniform:L, powerlaw, onebig or empty-mixed)");
}

std::vector<segment_distribution> parse_distributions(std::string_view list) {
  std::vector<segment_distribution> dists;
  std::size_t start = 0;
  while (true) {
    const auto at = list.find_first_of(",;", start);
    const std::string_view item = list.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start);
    if (item.empty()) throw parse_error("empty item in distribution list " + quote(list));
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
    throw parse_error("size " + quote(text) + " is negative");
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
    if (lo > hi) throw parse_error("size range " + quote(item) + " runs backwards");
    const std::size_t before = sizes.size();
    for (std::int64_t p = 1; p <= hi; p *= 2) {
      if (p >= lo) sizes.push_back(p);
      if (p == size_limit) break;
    }
    if (sizes.size() == before) throw parse_error("size range " + quote(item) + " holds no power of two");
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
    if (a > b) throw parse_error("step range " + quote(item) + " runs backwards");
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

// ---- the command line: CLI11 reads it; the grammars above read the values -----------------

namespace {

constexpr std::size_t help_width = 90;   ///< --help's lines, at most (a longer word aside)
constexpr std::size_t help_column = 19;  ///< where the options' descriptions start

const std::string general_group = "options (--opt VALUE or --opt=VALUE; lists are comma-separated)";
const std::string axis_group = "axis workloads (instead of --sizes; --steps, --block and other --data do not apply)";
const std::string segment_group =
    "segmented workloads (the values of --sizes cut into segments by int64 offsets; --steps, --block and other "
    "--data do not apply)";

/// `text` in lines of at most `width` characters, broken at spaces; '\n' ends a line too.
std::string wrap(std::string_view text, std::size_t width) {
  std::string out;
  bool first = true;
  for (const auto paragraph : split(text, '\n')) {
    if (!first) out += '\n';
    first = false;
    std::size_t used = 0;
    for (const auto word : split_spaces(paragraph)) {
      if (used > 0 && used + 1 + word.size() > width) {
        out += '\n';
        used = 0;
      } else if (used > 0) {
        out += ' ';
        ++used;
      }
      out += word;
      used += word.size();
    }
  }
  return out;
}

/// `text` with every line after the first indented by `by` spaces.
std::string indented(std::string_view text, std::size_t by) {
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == '\n') out.append(by, ' ');
  }
  return out;
}

template <class Names>
std::string joined(const Names& names) {
  std::string text;
  for (const auto& n : names) {
    if (!text.empty()) text += ' ';
    text += n;
  }
  return text;
}

/// --help: the usage forms, the description, each group of options under its heading with its
/// note after it, and the footer, wrapped to help_width.
class help_formatter final : public CLI::Formatter {
 public:
  struct form {
    std::string args, what;  ///< what: "" for none
  };

  help_formatter(std::vector<form> forms, std::map<std::string, std::string> notes)
      : forms_(std::move(forms)), notes_(std::move(notes)) {}

  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode) const override {
    std::string out;
    std::size_t args_width = 0;
    for (const auto& f : forms_) args_width = std::max(args_width, f.args.size());
    for (std::size_t i = 0; i < forms_.size(); ++i) {
      std::string line = (i == 0 ? "usage: " : "       ") + app->get_name() + " " + forms_[i].args;
      if (!forms_[i].what.empty()) {
        const std::size_t column = line.size() - forms_[i].args.size() + args_width + 3;
        line.resize(column, ' ');
        line += indented(wrap(forms_[i].what, help_width - column), column);
      }
      out += line + '\n';
    }
    out += '\n' + wrap(app->get_description(), help_width) + '\n';
    for (const std::string& group : app->get_groups()) {
      const auto opts = app->get_options(
          [&](const CLI::Option* o) { return o->get_group() == group && o->nonpositional(); });
      if (group.empty() || opts.empty()) continue;
      out += '\n' + wrap(group + ":", help_width) + '\n';
      for (const CLI::Option* o : opts) out += option_lines(o);
      if (const auto note = notes_.find(group); note != notes_.end())
        out += "  " + indented(wrap(note->second, help_width - 2), 2) + '\n';
    }
    out += '\n' + wrap(app->get_footer(), help_width) + '\n';
    return out;
  }

  /// One option: "  NAME META" padded to help_column (the description on the next line when
  /// longer), then its description, each further line indented to help_column. Built here rather
  /// than by CLI11's make_option, whose layout differs between CLI11 versions.
  std::string option_lines(const CLI::Option* o) const {
    std::string left = "  " + o->get_name(false, true);
    if (!o->get_option_text().empty()) left += " " + o->get_option_text();
    const std::string desc = make_option_desc(o);
    if (desc.empty()) return left + '\n';
    if (left.size() >= help_column)
      left += '\n' + std::string(help_column, ' ');
    else
      left.resize(help_column, ' ');
    return left + indented(desc, help_column) + '\n';
  }

  /// The description, then "[default: X]" where the option names its default.
  std::string make_option_desc(const CLI::Option* o) const override {
    const std::size_t width = help_width - help_column;
    std::string text = wrap(o->get_description(), width);
    if (!o->get_default_str().empty()) {
      const std::string d = "[default: " + o->get_default_str() + "]";
      const std::size_t last_line = text.size() - (text.rfind('\n') + 1);
      text += (last_line + 1 + d.size() <= width ? " " : "\n") + d;
    }
    return text;
  }

 private:
  std::vector<form> forms_;
  std::map<std::string, std::string> notes_;
};

/// The command line as CLI11 leaves it: options bound to opt where CLI11 checks the value
/// itself, the others as text for the grammars and for the rules between options.
struct command_line {
  CLI::App app{"", "cured-bench"};
  options opt;
  std::string impl, steps, sizes, types, ops, mode = "both", format{format_name(opt.fmt)},
      data{data_name(opt.data)}, seed, axes, segments;
  std::array<std::string, 3> report_paths;  ///< --json, --csv, --md
  std::vector<std::string> shapes;          ///< every --shape
  std::string size_arg, step_arg;           ///< the seeds' form: N and STEP
  int threads = 0;                          ///< the seeds' form: THREADS

  command_line();
  bool given(const std::string& name) const { return app.count(name) > 0; }
};

constexpr std::array<options::format, 3> report_formats = {options::format::json, options::format::csv,
                                                            options::format::md};

command_line::command_line() {
  app.description(
      "Times every selected reduction over every size, type and op, cold (L2 flushed) and hot, checks each "
      "result against an exact reference, and reports time, GB/s, % of the device's measured read ceiling and "
      "of its theoretical peak, and speedups over step1 and CUB. Axis workloads (reductions along axes of an "
      "N-D array) and segmented workloads (one result per segment of an array) report GB/s over the bytes "
      "read and written, and % of the floor's GB/s measured in the same run. The seeds' form times size N with "
      "ladder step STEP (default 1) and THREADS per block beside cub, thrust and cpu.");
  app.footer("exit status: 0 when every result checked ok (or was skipped), 1 when one was wrong, 2 for bad "
             "arguments.");
  app.formatter(std::make_shared<help_formatter>(
      std::vector<help_formatter::form>{
          {"[options]", ""},
          {"--shape SHAPES --axes AXES [options]", "axis workloads"},
          {"--axes-grid [options]", "the default axis grid"},
          {"--segments DISTS [options]", "segmented workloads"},
          {"--segments-grid [options]", "the default segment grid"},
          {"N [STEP [THREADS]]", "the seeds' form"}},
      std::map<std::string, std::string>{
          {axis_group,
           "With them, --impl takes cured (the library's asynchronous axis call), cub "
           "(cub::DeviceSegmentedReduce over the rows: shapes whose reduced axes are the trailing ones only) and "
           "floor (a kernel that reads the input and writes the output's bytes) [default: all]; --ops takes " +
               joined(axis_op_names_in_order) +
               ", or all [default: sum]; --types takes float double int32 half bfloat16 (uint32 has whole "
               "arrays only). Sums write the accumulator: int32 into int64, half into float; exact_sum the "
               "correctly rounded sum, floating types, no cub rows; argmin and argmax int64 indices."},
          {segment_group,
           "With them, --sizes defaults to 2^24,2^28; --impl takes cured (the library's asynchronous segmented "
           "call), cured-pairs (the same segments as begin and end pairs), cub (cub::DeviceSegmentedReduce over "
           "the offsets) and floor (a kernel that reads the values and the offsets and writes the output's "
           "bytes) [default: cured,cub,floor]; --ops takes " +
               joined(segment_op_names_in_order) +
               ", or all [default: sum]. Outputs as with axis workloads; argmin and argmax give the index within "
               "the segment, -1 for an empty one."}}));
  // -h and --help are a flag like --list: main prints usage().
  app.set_help_flag();
  app.option_defaults()
      ->group(general_group)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->disable_flag_override();

  const CLI::Validator needs_value(
      [](std::string& v) { return v.empty() ? std::string("needs a value") : std::string(); }, "");
  // Whole numbers are decimal: CLI11 would read 010 as octal. (A transform runs before the checks.)
  const CLI::Validator decimal(
      [](std::string& v) {
        if (v.empty()) return std::string("needs a value");
        if (!all_digits(v)) return quote(v) + " is not a whole number";
        v.erase(0, std::min(v.find_first_not_of('0'), v.size() - 1));
        return std::string();
      },
      "");
  const CLI::Validator block_size(
      [](std::string& v) {
        const auto b = parse_whole<std::int64_t>(v);
        return b && *b >= 32 && *b <= 1024 && (*b & (*b - 1)) == 0 ? std::string()
                                                                    : v + " is not a power of two from 32 to 1024";
      },
      "");
  // The checks' messages are cured-bench's own, the same under every CLI11 version. (No
  // description: a message that a value is missing names the option's meta name alone.)
  const auto one_of = [](std::vector<std::string> names) {
    return CLI::Validator(
        [names](std::string& v) {
          if (std::find(names.begin(), names.end(), v) != names.end()) return std::string();
          std::string list;
          for (const std::string& n : names) list += (list.empty() ? "" : ",") + n;
          return v + " not in {" + list + "}";
        },
        "");
  };
  const auto at_least = [](int lo) {
    return CLI::Validator(
        [lo](std::string& v) {
          const auto n = parse_whole<std::int64_t>(v);
          return n && *n >= lo && *n <= std::numeric_limits<int>::max()
                     ? std::string()
                     : "Value " + v + " not in range " + std::to_string(lo) + " to " +
                           std::to_string(std::numeric_limits<int>::max());
        },
        "");
  };
  const auto valued = [&](const std::string& name, auto& value, const std::string& meta, const std::string& what) {
    return app.add_option(name, value, what)->option_text(meta)->type_name(meta)->check(needs_value);
  };
  const auto names_of = [](const auto& names) { return std::vector<std::string>(names.begin(), names.end()); };

  valued("--impl", impl, "LIST",
         "implementations: step1..step10, cured, cured-blocking, cub, cublas (the dot op), thrust, cpu, cpu-mt, "
         "floor (a kernel that only reads the input: no reduction, no result; the least time any one-launch "
         "reduction can take), or the groups ladder (every step of --steps) and all")
      ->default_str("all");
  valued("--steps", steps, "LIST",
         "ladder steps to run, e.g. 1,3,5-7: added to --impl's list, and what the groups ladder and all stand "
         "for")
      ->default_str("1-10");
  valued("--block", opt.block, "N", "threads per block for the ladder steps: 32, 64, ..., 1024")
      ->transform(decimal)
      ->check(block_size)
      ->capture_default_str();
  valued("--sizes", sizes, "LIST",
         "element counts: 1048576, 2^20, 1e6, 1M (10^6), 1Mi (2^20), 4000x4000, and ranges 2^10..2^20 (every "
         "power of two between)")
      ->default_str("2^14,1000x1000,4000x4000,11000x11000");
  app.add_flag("--sweep", opt.sweep, "the full sweep: 2^10..2^30 and 1000x1000..11000x11000");
  valued("--types", types, "LIST", joined(type_list) + ", or all")->default_str("float,int32");
  valued("--ops", ops, "LIST",
         joined(op_names_in_order) +
             ", or all. exact_sum: cured's correctly rounded sum, floating types; rows for cured, cured-blocking "
             "and cpu only. exact_dot and dot: the dot product of the input's two halves, exact (cured) and in "
             "floating point (cub's fused TransformReduce, cublas's Sdot/Ddot)")
      ->default_str("sum");
  valued("--data", data, "FAMILY",
         "the inputs: exact (small integers: every sum exact), normal (N(0,1) values), spread (random exponents "
         "over the type's whole range), cancel (uniform in [-1,1)), boundary (an exact sum on a rounding tie "
         "under cancellation) or subnormal; all but exact take the floating types, and default to --types "
         "float,double")
      ->check(one_of(names_of(data_list)))
      ->capture_default_str();
  valued("--mode", mode, "MODE", "cold, hot or both")
      ->check(one_of(std::vector<std::string>{"cold", "hot", "both"}))
      ->capture_default_str();
  valued("--samples", opt.samples, "N", "timed samples per measurement")
      ->transform(decimal)
      ->check(at_least(1))
      ->default_str("automatic");
  valued("--device", opt.device, "N", "CUDA device")
      ->transform(decimal)
      ->check(at_least(0))
      ->capture_default_str();
  std::vector<std::string> formats;
  for (auto f : {options::format::table, options::format::csv, options::format::json, options::format::md})
    formats.emplace_back(format_name(f));
  valued("--format", format, "FMT",
         "table, csv, json or md. A table on stdout shows each row as it is measured; the progress and the time "
         "left go to stderr")
      ->check(one_of(formats))
      ->capture_default_str();
  valued("--out", opt.out, "FILE", "write the report to FILE instead of stdout");
  valued("--json", report_paths[0], "FILE", "also write the report as JSON to FILE");
  valued("--csv", report_paths[1], "FILE", "also write the report as CSV to FILE");
  valued("--md", report_paths[2], "FILE",
         "also write the report as markdown to FILE. --json, --csv and --md go together in one run, each to a "
         "file of its own; every report file is opened before the run starts");
  valued("--seed", seed, "N",
         "seed of the random inputs, for reproducible runs: a 64-bit unsigned number, decimal or 0x hex")
      ->default_str("fresh");
  app.add_flag("--list", opt.list, "list the implementations, types and ops, then exit");
  app.add_flag("--version", opt.version, "print the versions of cured-bench, CUDA and CCCL, then exit");
  app.add_flag("-h,--help", opt.help, "show this text, then exit");

  valued("--shape", shapes, "SHAPES",
         "contiguous row-major arrays to reduce: extents joined by 'x', outermost first, rank 1 to 8 "
         "(4096x1024, 64x4096x64, 8x2^20x8); several separated by ';' or spaces (\"4096x1024;1024x4096\"), and "
         "--shape may be given again (every shape is kept)")
      ->group(axis_group)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  valued("--axes", axes, "AXES", "the axes each shape is reduced along: 1, 0,2, -1 (from the last)")
      ->group(axis_group);
  app.add_flag("--axes-grid", opt.axes_grid,
               "the default grid: rows x cols of 2^20, 2^24 and 2^28 elements, rows 1, 4, 16, ... up to half of "
               "them, along axis 1 and along axis 0; then 64x4096x64, 1024x256x256, 8x2^20x8 and 4096x64x256 "
               "along axis 1")
      ->group(axis_group);

  valued("--segments", segments, "DISTS",
         "how the segments' lengths are drawn, separated by ',' or ';': uniform:L (every segment L values, the "
         "last one the remainder; L a size: uniform:4, uniform:2^20), powerlaw (floor(2^(20u)) for u uniform in "
         "[0,1): 1 to below 2^20, the last one clipped), onebig (one segment of n/2 in the middle, the others of "
         "4), empty-mixed (a third empty, the others 1..200 long); drawn from the run's seed (--seed)")
      ->group(segment_group);
  app.add_flag("--segments-grid", opt.segments_grid,
               "uniform:1, uniform:4, uniform:16, ... uniform:4^14 (lengths above n left out), powerlaw, onebig "
               "and empty-mixed")
      ->group(segment_group);

  // The seeds' form N [STEP [THREADS]] (the usage forms show it; help_formatter lists no positional).
  app.add_option("N", size_arg);
  app.add_option("STEP", step_arg);
  app.add_option("THREADS", threads)->transform(decimal)->check(block_size);
}

}  // namespace

options parse_options(int argc, const char* const* argv) {
  command_line cl;
  // Before CLI11 sees them: a flag given a value (CLI11 would take --sweep=true, --sweep={} and
  // --sweep=), and "--opt=" with nothing after it (CLI11 would take the next argument instead).
  for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i) {
    const std::string_view arg = argv[i];
    const std::size_t equals = arg.find('=');
    if (!arg.starts_with("--") || equals == std::string_view::npos || equals <= 2) continue;
    const std::string name(arg.substr(0, equals));
    const CLI::Option* o = cl.app.get_option_no_throw(name);
    if (o == nullptr) continue;
    if (o->get_expected_max() == 0) throw parse_error(name + " is a flag: it takes no value");
    if (equals + 1 == arg.size()) throw parse_error(name + ": needs a value");
  }
  try {
    cl.app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    throw parse_error(e.what());
  }

  options& opt = cl.opt;
  std::optional<std::string> impl_list_arg;
  std::optional<std::vector<int>> steps_arg;
  std::optional<std::vector<std::int64_t>> sizes_arg;
  std::optional<std::string> ops_arg;
  std::vector<std::vector<std::int64_t>> shapes;  // every --shape, in order
  std::optional<std::vector<int>> axes_arg;
  std::optional<std::vector<segment_distribution>> segments_arg;
  const bool block_given = cl.given("--block"), types_given = cl.given("--types");
  std::vector<std::string> positional;
  if (cl.given("N")) positional.push_back(cl.size_arg);
  if (cl.given("STEP")) positional.push_back(cl.step_arg);
  if (cl.given("THREADS")) positional.push_back(std::to_string(cl.threads));

  if (cl.given("--impl")) {
    std::vector<std::string_view> known(impl_list.begin(), impl_list.end());
    known.push_back("ladder");
    parse_names(cl.impl, known, "implementation");  // validates now; expanded after --steps is known
    impl_list_arg = cl.impl;
  }
  if (cl.given("--steps")) steps_arg = parse_steps(cl.steps);
  if (cl.given("--sizes")) sizes_arg = parse_sizes(cl.sizes);
  if (types_given) opt.types = parse_names(cl.types, type_list, "type");
  if (cl.given("--ops")) {
    opt.ops = parse_names(cl.ops, op_names_in_order, "op");
    ops_arg = cl.ops;
  }
  opt.cold = cl.mode != "hot";
  opt.hot = cl.mode != "cold";
  for (auto f : {options::format::table, options::format::csv, options::format::json, options::format::md})
    if (cl.format == format_name(f)) opt.fmt = f;
  opt.data = data_family(std::find(data_list.begin(), data_list.end(), cl.data) - data_list.begin());
  // --json, --csv and --md: one report each, in the order of their last values.
  for (const CLI::Option* o : cl.app.parse_order())
    for (std::size_t i = 0; i < report_formats.size(); ++i)
      if (o->get_name() == "--" + std::string(format_name(report_formats[i]))) {
        std::erase_if(opt.reports, [&](const options::report_file& r) { return r.fmt == report_formats[i]; });
        opt.reports.push_back({report_formats[i], cl.report_paths[i]});
      }
  if (cl.given("--seed")) {
    opt.seed = parse_seed(cl.seed);
    opt.seed_given = true;
  }
  for (const auto& list : cl.shapes)
    for (auto& shape : parse_shapes(list)) shapes.push_back(std::move(shape));
  if (cl.given("--axes")) axes_arg = parse_axes(cl.axes);
  if (cl.given("--segments")) segments_arg = parse_distributions(cl.segments);

  // Each report its own file: two streams on one path would interleave.
  std::vector<std::string_view> paths;
  if (!opt.out.empty()) paths.push_back(opt.out);
  for (const auto& r : opt.reports) {
    if (std::find(paths.begin(), paths.end(), r.path) != paths.end())
      throw parse_error("report file " + quote(r.path) + " given twice (--out, --json, --csv, --md: a file each)");
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
      throw parse_error("unexpected argument " + quote(positional[0]) +
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
    else keep_types_with(opt, &type_name_entry::segments, cl.types, mode, "segmented workloads");
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
      throw parse_error("unexpected argument " + quote(positional[0]) + " (the positional form N [STEP [THREADS]] does not apply with " +
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
    else keep_types_with(opt, &type_name_entry::axes, cl.types, mode, "axis workloads");
    return opt;
  }

  // The seeds' positional form: N [STEP [THREADS]].
  std::optional<int> positional_step;
  if (!positional.empty()) {
    opt.seed_positional = true;
    if (sizes_arg) throw parse_error("size " + quote(positional[0]) + " given both as an argument and with --sizes");
    if (opt.sweep) throw parse_error("size " + quote(positional[0]) + " given beside --sweep, which runs its own sizes");
    sizes_arg = std::vector<std::int64_t>{parse_size(positional[0])};
    if (positional.size() >= 2) {
      if (impl_list_arg || steps_arg)
        throw parse_error("step " + quote(positional[1]) + " given both as an argument and with --impl or --steps");
      positional_step = parse_step(positional[1]);
    }
    if (positional.size() >= 3) {
      if (block_given)
        throw parse_error("block size " + quote(positional[2]) + " given both as an argument and with --block");
      opt.block = cl.threads;
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
        throw parse_error("type " + quote(t) + " has no " + std::string(data_name(opt.data)) +
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
      throw parse_error("implementation " + quote(item) + " applies to segmented workloads only (--segments)");
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
  const command_line cl;
  return cl.app.help();
}

}  // namespace cured::bench
