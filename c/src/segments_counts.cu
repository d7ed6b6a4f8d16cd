// The C interface's segmented aminmax (the element types of the segmented reductions),
// count_nonzero, any and all (every element type, integers through the unsigned type of their
// size).

#include "segment_run.hpp"
#include "cured/segments.cuh"
#include "cured/statistics_segments.cuh"

namespace cured::capi {

template <int Shard>
void segment_counts(const statistic_call& st, const segment_call& c, std::int32_t in, const cured_array& out) {
  const segments seg{c.offsets, c.count};
  if (st.statistic == CURED_AMINMAX)
    return with_segment_element<Shard>(in, "aminmax", [&](auto t) {
      using T = typename decltype(t)::type;
      const auto* x = static_cast<const T*>(c.values);
      const strided_view<T> lo = as_view<T>(out), hi = as_view<T>(*st.second);
      segment_run(c, [&](workspace& ws, unsigned* st) { aminmax_async(x, c.n, seg, lo, hi, ws, c.stream, st); });
    });
  with_zero_class<Shard>(in, [&](auto t) {
    using T = typename decltype(t)::type;
    const auto* x = static_cast<const T*>(c.values);
    segment_run(c, [&](workspace& ws, unsigned* status) {
      switch (st.statistic) {
        case CURED_COUNT_NONZERO:
          return count_nonzero_async(x, c.n, seg, as_view<std::int64_t>(out), ws, c.stream, status);
        case CURED_ANY: return any_async(x, c.n, seg, as_view<std::uint8_t>(out), ws, c.stream, status);
        default: return all_async(x, c.n, seg, as_view<std::uint8_t>(out), ws, c.stream, status);
      }
    });
  });
}

template void segment_counts<CURED_C_SHARD>(const statistic_call&, const segment_call&, std::int32_t,
                                            const cured_array&);

}  // namespace cured::capi
