#pragma once
// The input families the harness generates (cured-bench's --data). Plain C++, shared by the
// command line (bench/options.hpp) and the device generators (inputs.cuh).

namespace cured::harness {

/// exact: small integers (floating types) or random words (integers), every sum exact in any
///        order, so every implementation's sum must match bit for bit;
/// normal: N(0, 1) values, floating types only: typical data;
/// spread: random sign and mantissa, binary exponent uniform over the type's finite range
///         (subnormals included) up to a cap that keeps sums of up to 2^34 elements finite:
///         adversarial data for exact sums. Floating types only.
/// cancel: uniform in [-1, 1): a large sum cancels to a result orders of magnitude below
///         sum |x|. Floating types only.
/// boundary: 1, then half an ulp of 1 in the sum's result type, then pairs v, -v of N(0, 1)
///         values: for even n the exact sum is a rounding tie, hidden under cancellation.
///         Floating types only.
/// subnormal: random sign and significand with the smallest exponent: every element a
///         subnormal (or zero). Floating types only.
enum class data_family { exact, normal, spread, cancel, boundary, subnormal };

}  // namespace cured::harness
