#include "cpu/reference.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

namespace cured::cpu {
namespace {

constexpr int k_chunk_bits = 32;
constexpr std::int64_t k_chunk_mask = (std::int64_t{1} << k_chunk_bits) - 1;
// Each add puts less than 2^32 into a chunk, so 2^30 adds after a normalization keep every
// chunk below 2^62 + 2^32 in magnitude.
constexpr std::int64_t k_normalize_every = std::int64_t{1} << 30;
// Position (in units of 2^-1074) of the quantum of the smallest float subnormal, 2^-149.
constexpr int k_float_min_quantum = 1074 - 149;  // in units of 2^-1074
// Spans at least this long are summed by several threads.
constexpr std::size_t k_parallel_min = std::size_t{1} << 20;

// Propagates carries in c[0..n): afterwards c[0..n-1) lie in [0, 2^32) and c[n-1] holds the
// sign (and any carry out). Relies on >> being an arithmetic shift (C++20).
void propagate(std::int64_t* c, int n) {
  for (int i = 0; i + 1 < n; ++i) {
    const std::int64_t carry = c[i] >> k_chunk_bits;
    c[i] &= k_chunk_mask;
    c[i + 1] += carry;
  }
}

// Bits [pos, pos + count) of the nonnegative normalized magnitude m, count <= 64.
std::uint64_t extract_bits(const std::int64_t* m, int n, int pos, int count) {
  const int idx = pos / k_chunk_bits;
  const int off = pos % k_chunk_bits;
  unsigned __int128 w = 0;
  for (int k = 2; k >= 0; --k) {
    w <<= k_chunk_bits;
    if (idx + k < n) w |= static_cast<std::uint32_t>(m[idx + k]);
  }
  const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << count) - 1;
  return static_cast<std::uint64_t>((w >> off) & mask);
}

// Whether any bit of m below position pos is set.
bool any_bits_below(const std::int64_t* m, int pos) {
  const int idx = pos / k_chunk_bits;
  for (int i = 0; i < idx; ++i) {
    if (m[i] != 0) return true;
  }
  const int off = pos % k_chunk_bits;
  return off != 0 && (m[idx] & ((std::int64_t{1} << off) - 1)) != 0;
}

template <class T>
T exact_sum_float(std::span<const T> x) {
  const auto sum_range = [](std::span<const T> part) {
    exact_accumulator acc;
    for (const T v : part) acc.add(v);
    return acc;
  };
  exact_accumulator total;
  const std::size_t n = x.size();
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t parts = std::min(hw, n / k_parallel_min);
  if (parts <= 1) {
    total = sum_range(x);
  } else {
    std::vector<exact_accumulator> accs(parts);
    std::vector<std::thread> pool;
    pool.reserve(parts - 1);
    const auto part = [&](std::size_t k) {
      const std::size_t begin = k * (n / parts) + std::min(k, n % parts);
      const std::size_t end = (k + 1) * (n / parts) + std::min(k + 1, n % parts);
      return x.subspan(begin, end - begin);
    };
    for (std::size_t k = 1; k < parts; ++k) {
      pool.emplace_back([&, k] { accs[k] = sum_range(part(k)); });
    }
    accs[0] = sum_range(part(0));
    for (auto& t : pool) t.join();
    for (const auto& a : accs) total.merge(a);
  }
  if constexpr (std::is_same_v<T, float>) {
    return total.round_to_float();
  } else {
    return total.round_to_double();
  }
}

template <class Acc, class T>
Acc exact_sum_int(std::span<const T> x) {
  Acc s = 0;
  for (const T v : x) s += v;
  return s;
}

template <class T>
double sum_abs_impl(std::span<const T> x) {
  double s = 0.0;
  for (const T v : x) s += std::fabs(static_cast<double>(v));
  return s;
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// The first index of the extreme value under `better` (strict), or of the first NaN.
template <class T, class Better>
arg_result<T> arg_extreme(std::span<const T> x, Better better) {
  if (x.empty()) return {-1, T{}};
  std::size_t best = 0;
  if (is_nan(x[0])) return {0, x[0]};
  for (std::size_t i = 1; i < x.size(); ++i) {
    if (is_nan(x[i])) return {static_cast<std::int64_t>(i), x[i]};
    if (better(x[i], x[best])) best = i;
  }
  return {static_cast<std::int64_t>(best), x[best]};
}

template <class T>
arg_result<T> argmin_impl(std::span<const T> x) {
  return arg_extreme(x, [](T a, T b) { return a < b; });
}

template <class T>
arg_result<T> argmax_impl(std::span<const T> x) {
  return arg_extreme(x, [](T a, T b) { return a > b; });
}

template <class T>
std::optional<T> value_of(const arg_result<T>& r) {
  if (r.index < 0) return std::nullopt;
  return r.value;
}

}  // namespace

exact_accumulator::exact_accumulator()
    : chunk_{},
      adds_since_normalize_(0),
      has_nan_(false),
      has_pos_inf_(false),
      has_neg_inf_(false),
      all_negative_zero_(true),
      empty_(true) {}

void exact_accumulator::add(double x) {
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const bool negative = (bits >> 63) != 0;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t significand = bits & ((std::uint64_t{1} << 52) - 1);
  empty_ = false;
  if (bits != (std::uint64_t{1} << 63)) all_negative_zero_ = false;
  if (biased == 0x7ff) {
    if (significand != 0) {
      has_nan_ = true;
    } else if (negative) {
      has_neg_inf_ = true;
    } else {
      has_pos_inf_ = true;
    }
    return;
  }
  // value = significand * 2^(pos - 1074)
  int pos = 0;
  if (biased != 0) {
    significand |= std::uint64_t{1} << 52;
    pos = biased - 1;
  } else if (significand == 0) {
    return;
  }
  add_at(significand, pos + k_offset, negative);
}

void exact_accumulator::add_product(double a, double b) {
  empty_ = false;
  const bool negative = std::signbit(a) != std::signbit(b);
  if (std::isnan(a) || std::isnan(b) || (std::isinf(a) && b == 0) || (std::isinf(b) && a == 0)) {
    all_negative_zero_ = false;
    has_nan_ = true;
    return;
  }
  if (std::isinf(a) || std::isinf(b)) {
    all_negative_zero_ = false;
    (negative ? has_neg_inf_ : has_pos_inf_) = true;
    return;
  }
  if (!negative || (a != 0 && b != 0)) all_negative_zero_ = false;
  if (a == 0 || b == 0) return;
  // |a| = ma * 2^(ea - 1074), |b| = mb * 2^(eb - 1074): the product is ma * mb (below 2^106)
  // in units of 2^-2148, added as two pieces of 53 bits.
  auto split = [](double v, std::uint64_t& m, int& e) {
    const auto bits = std::bit_cast<std::uint64_t>(v);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    m = bits & ((std::uint64_t{1} << 52) - 1);
    e = biased ? biased - 1 : 0;
    if (biased) m |= std::uint64_t{1} << 52;
  };
  std::uint64_t ma, mb;
  int ea, eb;
  split(a, ma, ea);
  split(b, mb, eb);
  const unsigned __int128 p = static_cast<unsigned __int128>(ma) * mb;
  const std::uint64_t piece = (std::uint64_t{1} << 53) - 1;
  add_at(static_cast<std::uint64_t>(p) & piece, ea + eb, negative);
  add_at(static_cast<std::uint64_t>(p >> 53), ea + eb + 53, negative);
}

void exact_accumulator::add_at(std::uint64_t significand, int pos, bool negative) {
  if (significand == 0) return;
  const int idx = pos / k_chunk_bits;
  const auto shifted = static_cast<unsigned __int128>(significand) << (pos % k_chunk_bits);
  // Branch-free negation: (v ^ m) - m is v when m == 0 and -v when m == -1.
  const std::int64_t m = -static_cast<std::int64_t>(negative);
  const auto lo = static_cast<std::int64_t>(static_cast<std::uint64_t>(shifted) & k_chunk_mask);
  const auto mid = static_cast<std::int64_t>(static_cast<std::uint64_t>(shifted >> 32) & k_chunk_mask);
  const auto hi = static_cast<std::int64_t>(static_cast<std::uint64_t>(shifted >> 64));
  chunk_[idx] += (lo ^ m) - m;
  chunk_[idx + 1] += (mid ^ m) - m;
  chunk_[idx + 2] += (hi ^ m) - m;
  if (++adds_since_normalize_ >= k_normalize_every) normalize();
}

void exact_accumulator::normalize() {
  propagate(chunk_, k_chunks);
  adds_since_normalize_ = 0;
}

void exact_accumulator::merge(const exact_accumulator& other) {
  exact_accumulator o = other;
  o.normalize();
  normalize();
  for (int i = 0; i < k_chunks; ++i) chunk_[i] += o.chunk_[i];
  normalize();
  has_nan_ = has_nan_ || o.has_nan_;
  has_pos_inf_ = has_pos_inf_ || o.has_pos_inf_;
  has_neg_inf_ = has_neg_inf_ || o.has_neg_inf_;
  all_negative_zero_ = all_negative_zero_ && o.all_negative_zero_;
  empty_ = empty_ && o.empty_;
}

int exact_accumulator::sign() const {
  std::int64_t c[k_chunks];
  std::copy(chunk_, chunk_ + k_chunks, c);
  propagate(c, k_chunks);
  if (c[k_chunks - 1] < 0) return -1;
  return std::any_of(c, c + k_chunks, [](std::int64_t v) { return v != 0; }) ? 1 : 0;
}

// The finite sum rounded to `precision` significant bits, with quanta no finer than
// 2^(min_quantum - 1074), ties to even, exponent unbounded; returned as a double (inf when
// beyond the double range). An exact zero comes back as +0; a nonzero value that rounds to
// zero keeps its sign.
double exact_accumulator::round_to(int precision, int min_quantum) const {
  std::int64_t m[k_chunks];
  std::copy(chunk_, chunk_ + k_chunks, m);
  propagate(m, k_chunks);
  const bool negative = m[k_chunks - 1] < 0;
  if (negative) {
    for (auto& v : m) v = -v;
    propagate(m, k_chunks);
  }
  int top = k_chunks - 1;
  while (top >= 0 && m[top] == 0) --top;
  if (top < 0) return 0.0;
  const int lead = top * k_chunk_bits + 63 - std::countl_zero(static_cast<std::uint64_t>(m[top]));
  const int shift = std::max(lead - (precision - 1), min_quantum + k_offset);
  std::uint64_t r = extract_bits(m, k_chunks, shift, precision);
  const bool half = shift > 0 && extract_bits(m, k_chunks, shift - 1, 1) != 0;
  const bool sticky = shift > 1 && any_bits_below(m, shift - 1);
  if (half && (sticky || (r & 1) != 0)) ++r;
  const double v = std::ldexp(static_cast<double>(r), shift - 1074 - k_offset);
  return negative ? -v : v;
}

double exact_accumulator::round_to_double() const {
  if (has_nan_ || (has_pos_inf_ && has_neg_inf_)) return std::numeric_limits<double>::quiet_NaN();
  if (has_pos_inf_) return std::numeric_limits<double>::infinity();
  if (has_neg_inf_) return -std::numeric_limits<double>::infinity();
  if (sign() == 0) return (!empty_ && all_negative_zero_) ? -0.0 : 0.0;
  return round_to(DBL_MANT_DIG, 0);
}

float exact_accumulator::round_to_float() const {
  if (has_nan_ || (has_pos_inf_ && has_neg_inf_)) return std::numeric_limits<float>::quiet_NaN();
  if (has_pos_inf_) return std::numeric_limits<float>::infinity();
  if (has_neg_inf_) return -std::numeric_limits<float>::infinity();
  if (sign() == 0) return (!empty_ && all_negative_zero_) ? -0.0f : 0.0f;
  // Exact in double (24 bits, exponent within double's range) unless it overflows float.
  const double v = round_to(FLT_MANT_DIG, k_float_min_quantum);
  if (std::fabs(v) > FLT_MAX) return v < 0 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  return static_cast<float>(v);
}

namespace {
template <class T>
T exact_dot_float(std::span<const T> x, std::span<const T> y) {
  if (x.size() != y.size()) throw std::invalid_argument("exact_dot: inputs of different lengths");
  exact_accumulator acc;
  for (std::size_t i = 0; i < x.size(); ++i) acc.add_product(x[i], y[i]);
  if constexpr (std::is_same_v<T, float>) return acc.round_to_float();
  else return acc.round_to_double();
}
}  // namespace

float exact_sum(std::span<const float> x) { return exact_sum_float(x); }
float exact_dot(std::span<const float> x, std::span<const float> y) { return exact_dot_float(x, y); }
double exact_dot(std::span<const double> x, std::span<const double> y) { return exact_dot_float(x, y); }
double exact_sum(std::span<const double> x) { return exact_sum_float(x); }
__int128 exact_sum(std::span<const std::int32_t> x) { return exact_sum_int<__int128>(x); }
__int128 exact_sum(std::span<const std::int64_t> x) { return exact_sum_int<__int128>(x); }
unsigned __int128 exact_sum(std::span<const std::uint32_t> x) { return exact_sum_int<unsigned __int128>(x); }
unsigned __int128 exact_sum(std::span<const std::uint64_t> x) { return exact_sum_int<unsigned __int128>(x); }

double sum_abs(std::span<const float> x) { return sum_abs_impl(x); }
double sum_abs(std::span<const double> x) { return sum_abs_impl(x); }

std::optional<float> min(std::span<const float> x) { return value_of(argmin_impl(x)); }
std::optional<float> max(std::span<const float> x) { return value_of(argmax_impl(x)); }
std::optional<double> min(std::span<const double> x) { return value_of(argmin_impl(x)); }
std::optional<double> max(std::span<const double> x) { return value_of(argmax_impl(x)); }
std::optional<std::int32_t> min(std::span<const std::int32_t> x) { return value_of(argmin_impl(x)); }
std::optional<std::int32_t> max(std::span<const std::int32_t> x) { return value_of(argmax_impl(x)); }
arg_result<float> argmin(std::span<const float> x) { return argmin_impl(x); }
arg_result<float> argmax(std::span<const float> x) { return argmax_impl(x); }
arg_result<double> argmin(std::span<const double> x) { return argmin_impl(x); }
arg_result<double> argmax(std::span<const double> x) { return argmax_impl(x); }
arg_result<std::int32_t> argmin(std::span<const std::int32_t> x) { return argmin_impl(x); }
arg_result<std::int32_t> argmax(std::span<const std::int32_t> x) { return argmax_impl(x); }

}  // namespace cured::cpu
