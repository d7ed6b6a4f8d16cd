#include "cpu/axis_reference.hpp"

namespace cured::cpu {

std::int64_t axis_shape::outputs() const {
  std::int64_t n = 1;
  for (int k = 0; k < rank; ++k)
    if (!reduced[k]) n *= extents[k];
  return n;
}

std::int64_t axis_shape::reduced_size() const {
  std::int64_t n = 1;
  for (int k = 0; k < rank; ++k)
    if (reduced[k]) n *= extents[k];
  return n;
}

namespace {

/// Every index tuple over the axes where pick(axis) holds, in row-major order: f(offset of the
/// tuple from `base`).
template <class Pick, class F>
void walk(const axis_shape& s, Pick pick, std::int64_t base, F&& f) {
  std::int64_t index[8] = {};
  for (int k = 0; k < s.rank; ++k)
    if (pick(k) && s.extents[k] == 0) return;
  for (;;) {
    std::int64_t at = base;
    for (int k = 0; k < s.rank; ++k)
      if (pick(k)) at += index[k] * s.strides[k];
    f(at);
    int k = s.rank - 1;
    for (; k >= 0; --k) {
      if (!pick(k)) continue;
      if (++index[k] < s.extents[k]) break;
      index[k] = 0;
    }
    if (k < 0) return;
  }
}

}  // namespace

void for_each_output(const axis_shape& s, const std::function<void(std::int64_t, const std::vector<std::int64_t>&)>& f) {
  std::int64_t output = 0;
  std::vector<std::int64_t> offsets;
  walk(s, [&](int k) { return !s.reduced[k]; }, 0, [&](std::int64_t base) {
    offsets.clear();
    walk(s, [&](int k) { return s.reduced[k]; }, base, [&](std::int64_t at) { offsets.push_back(at); });
    f(output++, offsets);
  });
}

std::vector<double> axis_exact_sum(const axis_shape& s, const std::function<double(std::int64_t)>& value,
                                   bool to_float) {
  std::vector<double> r;
  for_each_output(s, [&](std::int64_t, const std::vector<std::int64_t>& at) {
    exact_accumulator acc;
    for (const std::int64_t i : at) acc.add(value(i));
    r.push_back(to_float ? double(acc.round_to_float()) : acc.round_to_double());
  });
  return r;
}

std::vector<__int128> axis_integer_sum(const axis_shape& s, const std::function<__int128(std::int64_t)>& value) {
  std::vector<__int128> r;
  for_each_output(s, [&](std::int64_t, const std::vector<std::int64_t>& at) {
    __int128 sum = 0;
    for (const std::int64_t i : at) sum += value(i);
    r.push_back(sum);
  });
  return r;
}

}  // namespace cured::cpu
