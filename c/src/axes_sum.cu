// The C interface's sums along axes: each pair of input and output types it provides, one
// instantiation each.

#include "capi.hpp"
#include "cured/axes.cuh"

namespace cured::capi {

namespace {

/// Sums of In into Out, accumulated in Acc.
template <class In, class Out, class Acc>
void sum_as(const cured_array& in, const axes& along, const cured_array& out, workspace& ws, cudaStream_t s) {
  sum_async<Acc>(as_view<const In>(in), along, as_view<Out>(out), ws, s);
}

}  // namespace

void axis_sum(const cured_array& in, const axes& along, const cured_array& out, workspace& ws, cudaStream_t s) {
  const std::int32_t o = out.dtype;
  switch (in.dtype) {
    case CURED_BOOL:
    case CURED_UINT8:
      if (o == CURED_INT64) return sum_as<std::uint8_t, std::int64_t, std::int64_t>(in, along, out, ws, s);
      break;
    case CURED_INT8:
      if (o == CURED_INT64) return sum_as<std::int8_t, std::int64_t, std::int64_t>(in, along, out, ws, s);
      break;
    case CURED_INT16:
      if (o == CURED_INT64) return sum_as<std::int16_t, std::int64_t, std::int64_t>(in, along, out, ws, s);
      break;
    case CURED_INT32:
      if (o == CURED_INT64) return sum_as<std::int32_t, std::int64_t, std::int64_t>(in, along, out, ws, s);
      break;
    case CURED_INT64:
      if (o == CURED_INT64) return sum_as<std::int64_t, std::int64_t, std::int64_t>(in, along, out, ws, s);
      break;
    case CURED_FLOAT16:
      if (o == CURED_FLOAT16) return sum_as<__half, __half, float>(in, along, out, ws, s);
      if (o == CURED_FLOAT32) return sum_as<__half, float, float>(in, along, out, ws, s);
      break;
    case CURED_BFLOAT16:
      if (o == CURED_BFLOAT16) return sum_as<__nv_bfloat16, __nv_bfloat16, float>(in, along, out, ws, s);
      if (o == CURED_FLOAT32) return sum_as<__nv_bfloat16, float, float>(in, along, out, ws, s);
      break;
    case CURED_FLOAT32:
      if (o == CURED_FLOAT32) return sum_as<float, float, float>(in, along, out, ws, s);
      if (o == CURED_FLOAT64) return sum_as<float, double, double>(in, along, out, ws, s);
      break;
    case CURED_FLOAT64:
      if (o == CURED_FLOAT64) return sum_as<double, double, double>(in, along, out, ws, s);
      break;
    default: break;
  }
  throw unsupported(std::string("cured: no sum of ") + dtype_name(in.dtype) + " into " + dtype_name(o));
}

}  // namespace cured::capi
