#pragma once
// The blocks per multiprocessor a kernel's launch bounds ask for.

#include <cstddef>

namespace cured::device {

/// Policy::min_blocks_per_sm when each thread carries Bytes of running value, or three quarters
/// of it (from 4 up) for values over 8 bytes, which would spill under the smaller register cap.
template <class Policy, std::size_t Bytes>
inline constexpr int min_blocks_for = Bytes <= 8 || Policy::min_blocks_per_sm < 4 ? Policy::min_blocks_per_sm
                                                                                  : Policy::min_blocks_per_sm * 3 / 4;

}  // namespace cured::device
