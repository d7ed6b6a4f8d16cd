#pragma once
// The segments of the segmented reductions (cured/segments.cuh) and the bits of their status
// word.

#include <cstdint>

#include "cured/types/error.cuh"

namespace cured {

/// Segments of an array of n values: segment s holds values [offsets[s], offsets[s + 1]).
/// `offsets`: device memory, count + 1 non-decreasing entries in [0, n] (the first need not
/// be 0; values outside [offsets[0], offsets[count]) belong to no segment).
///
/// The pair form, segments::pairs(begins, ends, count): segment s holds values
/// [begins[s], ends[s]), two device arrays of count entries with begins[0] <= ends[0] <=
/// begins[1] <= ends[1] <= ... in [0, n]; the values between pairs belong to no segment. With
/// ends == begins + 1 it is the form of one array.
struct segments {
  const std::int64_t* offsets = nullptr;  ///< or the begins of the pairs
  std::int64_t count = 0;
  const std::int64_t* ends = nullptr;  ///< the pair form's ends; null for one array of offsets

  static segments pairs(const std::int64_t* begins, const std::int64_t* ends, std::int64_t count) {
    if (ends == nullptr) throw_invalid("the ends are a null pointer");
    return {begins, count, ends};
  }
  /// Whether the segments are pairs with ends of their own (not begins + 1).
  bool paired() const { return ends != nullptr && ends != offsets + 1; }
};

/// The bits of a segmented reduction's status word; 0 when the offsets were valid.
enum segment_error : unsigned {
  offsets_decrease = 1,  ///< some offset is below the one before it
  offsets_outside = 2,   ///< offsets[0] < 0 or offsets[count] > n
};

}  // namespace cured
