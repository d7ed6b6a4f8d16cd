// The C interface's segmented argmin, argmax and exact sums.

#include "segment_run.hpp"
#include "cured/segments.cuh"

namespace cured::capi {

template <int Shard>
void segment_arg(bool max, const segment_call& c, std::int32_t in, const cured_array& out) {
  with_segment_element<Shard>(in, "argmin or argmax", [&](auto t) {
    using T = typename decltype(t)::type;
    const auto* x = static_cast<const T*>(c.values);
    const segments seg{c.offsets, c.count};
    const strided_view<index_t> o = as_view<index_t>(out);
    segment_run(c, [&](workspace& ws, unsigned* st) {
      max ? argmax_async(x, c.n, seg, o, ws, c.stream, st) : argmin_async(x, c.n, seg, o, ws, c.stream, st);
    });
  });
}

template <int Shard>
void segment_exact(const segment_call& c, std::int32_t in, const cured_array& out) {
  with_floating<Shard>(in, "segmented exact_sum", [&](auto t) {
    using T = typename decltype(t)::type;
    const auto* x = static_cast<const T*>(c.values);
    const segments seg{c.offsets, c.count};
    const strided_view<exact_result_t<T>> o = as_view<exact_result_t<T>>(out);
    segment_run(c, [&](workspace& ws, unsigned* st) { exact_sum_async(x, c.n, seg, o, ws, c.stream, st); });
  });
}

template void segment_arg<CURED_C_SHARD>(bool, const segment_call&, std::int32_t, const cured_array&);
template void segment_exact<CURED_C_SHARD>(const segment_call&, std::int32_t, const cured_array&);

}  // namespace cured::capi
