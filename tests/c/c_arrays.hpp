#pragma once
// The C interface's tests: arrays described as the C interface takes them.

#include <cstdint>
#include <vector>

#include "cured_c.h"

namespace cured::test {

/// A cured_array of `data`'s elements of `dtype`, with these extents and strides (in elements).
inline cured_array array_of(void* data, std::int32_t dtype, std::vector<std::int64_t> extents,
                            std::vector<std::int64_t> strides) {
  cured_array a{};
  a.data = data;
  a.dtype = dtype;
  a.rank = std::int32_t(extents.size());
  for (std::size_t k = 0; k < extents.size(); ++k) {
    a.extents[k] = extents[k];
    a.strides[k] = strides[k];
  }
  return a;
}

}  // namespace cured::test
