// The C interface's segmented sums, min and max.

#include "segment_run.hpp"
#include "cured/segments.cuh"

namespace cured::capi {

template <int Shard>
void segment_sum(const segment_call& c, std::int32_t in, const cured_array& out) {
  with_sum<Shard>(in, out.dtype, [](std::int32_t t) { return in_segments(t); }, [&](auto i, auto o, auto a) {
    using In = typename decltype(i)::type;
    using Out = typename decltype(o)::type;
    const auto* x = static_cast<const In*>(c.values);
    const segments seg{c.offsets, c.count};
    const strided_view<Out> v = as_view<Out>(out);
    segment_run(c, [&](workspace& ws, unsigned* st) {
      sum_async<typename decltype(a)::type>(x, c.n, seg, v, ws, c.stream, st);
    });
  });
}

template <int Shard>
void segment_extremum(bool max, const segment_call& c, std::int32_t in, const cured_array& out) {
  with_segment_element<Shard>(in, "min or max", [&](auto t) {
    using T = typename decltype(t)::type;
    const auto* x = static_cast<const T*>(c.values);
    const segments seg{c.offsets, c.count};
    const strided_view<T> o = as_view<T>(out);
    segment_run(c, [&](workspace& ws, unsigned* st) {
      max ? max_async(x, c.n, seg, o, ws, c.stream, st) : min_async(x, c.n, seg, o, ws, c.stream, st);
    });
  });
}

template void segment_sum<CURED_C_SHARD>(const segment_call&, std::int32_t, const cured_array&);
template void segment_extremum<CURED_C_SHARD>(bool, const segment_call&, std::int32_t, const cured_array&);

}  // namespace cured::capi
