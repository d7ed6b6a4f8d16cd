// The C interface's segmented sums, min and max.

#include "capi.hpp"
#include "cured/segments.cuh"

namespace cured::capi {

namespace {

template <class In, class Out, class Acc>
void sum_as(const segment_call& c, const cured_array& out) {
  const auto* x = static_cast<const In*>(c.values);
  const segments seg{c.offsets, c.count};
  const strided_view<Out> o = as_view<Out>(out);
  segment_run(c, [&](workspace& ws, unsigned* st) { sum_async<Acc>(x, c.n, seg, o, ws, c.stream, st); });
}

}  // namespace

void segment_sum(const segment_call& c, std::int32_t in, const cured_array& out) {
  const std::int32_t o = out.dtype;
  switch (in) {
    case CURED_INT32:
      if (o == CURED_INT64) return sum_as<std::int32_t, std::int64_t, std::int64_t>(c, out);
      break;
    case CURED_INT64:
      if (o == CURED_INT64) return sum_as<std::int64_t, std::int64_t, std::int64_t>(c, out);
      break;
    case CURED_FLOAT16:
      if (o == CURED_FLOAT16) return sum_as<__half, __half, float>(c, out);
      break;
    case CURED_BFLOAT16:
      if (o == CURED_BFLOAT16) return sum_as<__nv_bfloat16, __nv_bfloat16, float>(c, out);
      break;
    case CURED_FLOAT32:
      if (o == CURED_FLOAT32) return sum_as<float, float, float>(c, out);
      break;
    case CURED_FLOAT64:
      if (o == CURED_FLOAT64) return sum_as<double, double, double>(c, out);
      break;
    default: break;
  }
  throw unsupported(std::string("cured: no segmented sum of ") + dtype_name(in) + " into " + dtype_name(o));
}

void segment_extremum(bool max, const segment_call& c, std::int32_t in, const cured_array& out) {
  with_segment_element(in, "min or max", [&](auto t) {
    using T = typename decltype(t)::type;
    const auto* x = static_cast<const T*>(c.values);
    const segments seg{c.offsets, c.count};
    const strided_view<T> o = as_view<T>(out);
    segment_run(c, [&](workspace& ws, unsigned* st) {
      max ? max_async(x, c.n, seg, o, ws, c.stream, st) : min_async(x, c.n, seg, o, ws, c.stream, st);
    });
  });
}

}  // namespace cured::capi
