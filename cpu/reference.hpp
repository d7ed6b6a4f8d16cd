#pragma once
// Reference reductions on the CPU: what every test and benchmark row is checked against.
//
//   float  r = cured::cpu::exact_sum(std::span<const float>(v));  // correctly rounded
//   auto  am = cured::cpu::argmax(std::span<const float>(v));     // {index, value}
//
// Contracts
// - exact_sum of float/double: the exact mathematical sum, rounded once to the input type,
//   round-to-nearest-even; any NaN -> NaN; +inf and -inf together -> NaN; an exact sum
//   beyond the largest finite value -> inf of its sign; subnormals exact; an exact zero is
//   -0 only when every input is -0 (and n > 0); the empty sum is +0.
// - exact_dot of float/double: the exact sum of the exact products, rounded once, as above.
// - exact_sum of integers: the exact sum as a 128-bit integer (never overflows for any
//   n below 2^62).
// - min/max: NaN propagates (the result is NaN when any input is NaN); empty -> nullopt.
// - argmin/argmax: the first index of the extreme value; when any NaN is present, the
//   index of the first NaN; empty -> index -1.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace cured::cpu {

/// An exact accumulator of floating-point values (a "superaccumulator"): it holds the exact
/// sum of every finite value added, however many (up to 2^62), plus NaN/inf flags.
/// Adding is O(1); rounding at the end is O(size of the accumulator).
class exact_accumulator {
public:
  exact_accumulator();
  void add(double x);
  void add(float x) { add(static_cast<double>(x)); }
  /// Adds the exact product a * b (never rounded: products beyond the double range or below
  /// its subnormals count exactly; NaN for a NaN or inf * 0; a zero product's sign is the xor
  /// of the signs).
  void add_product(double a, double b);
  void merge(const exact_accumulator& other);
  /// The exact sum rounded once to double / float (round-to-nearest-even), IEEE special rules.
  double round_to_double() const;
  float round_to_float() const;
  /// Sign of the exact finite sum: -1, 0, +1 (ignores NaN/inf).
  int sign() const;

private:
  // The finite sum is a fixed-point number in units of 2^-2148 (2^-1074 squared, the unit of
  // products): sum of chunk_[i] * 2^(32 i). Between normalizations chunks may leave [0, 2^32);
  // normalize() propagates carries so that every chunk but the last lies in [0, 2^32) and the
  // last carries the sign. 140 chunks cover 2^-2148 .. 2^2332: the largest product of doubles
  // times 2^62 fits with room to spare.
  // Fixed-size storage so the class stays copyable and allocation-free.
  static constexpr int k_chunks = 140;
  static constexpr int k_offset = 1074;  ///< a double's unit 2^-1074 in units of 2^-2148
  std::int64_t chunk_[k_chunks];
  std::int64_t adds_since_normalize_;
  bool has_nan_, has_pos_inf_, has_neg_inf_, all_negative_zero_, empty_;
  void normalize();
  void add_at(std::uint64_t significand, int pos, bool negative);  ///< significand * 2^pos units
  double round_to(int precision, int min_quantum) const;
};

float exact_sum(std::span<const float> x);
double exact_sum(std::span<const double> x);
/// The exact dot product sum x[i] * y[i] (x and y of one length), rounded once, with the
/// products' rules of exact_accumulator::add_product.
float exact_dot(std::span<const float> x, std::span<const float> y);
double exact_dot(std::span<const double> x, std::span<const double> y);
__int128 exact_sum(std::span<const std::int32_t> x);
__int128 exact_sum(std::span<const std::int64_t> x);
unsigned __int128 exact_sum(std::span<const std::uint32_t> x);
unsigned __int128 exact_sum(std::span<const std::uint64_t> x);

/// Sum of |x_i| in double, for error bounds of floating-point sums.
double sum_abs(std::span<const float> x);
double sum_abs(std::span<const double> x);

template <class T>
struct arg_result {
  std::int64_t index;  ///< -1 for the empty input
  T value;
};

std::optional<float> min(std::span<const float> x);
std::optional<float> max(std::span<const float> x);
std::optional<double> min(std::span<const double> x);
std::optional<double> max(std::span<const double> x);
std::optional<std::int32_t> min(std::span<const std::int32_t> x);
std::optional<std::int32_t> max(std::span<const std::int32_t> x);
arg_result<float> argmin(std::span<const float> x);
arg_result<float> argmax(std::span<const float> x);
arg_result<double> argmin(std::span<const double> x);
arg_result<double> argmax(std::span<const double> x);
arg_result<std::int32_t> argmin(std::span<const std::int32_t> x);
arg_result<std::int32_t> argmax(std::span<const std::int32_t> x);

}  // namespace cured::cpu
