// The C interface's exact sums along axes, for the floating types.

#include "capi.hpp"
#include "cured/axes.cuh"

namespace cured::capi {

void axis_exact(const cured_array& in, const axes& along, const cured_array& out, workspace& ws, cudaStream_t s) {
  const auto run = [&](auto t) {
    using T = typename decltype(t)::type;
    exact_sum_async(as_view<const T>(in), along, as_view<exact_result_t<T>>(out), ws, s);
  };
  switch (in.dtype) {
    case CURED_FLOAT16: return run(tag<__half>{});
    case CURED_BFLOAT16: return run(tag<__nv_bfloat16>{});
    case CURED_FLOAT32: return run(tag<float>{});
    case CURED_FLOAT64: return run(tag<double>{});
    default: throw unsupported(std::string("cured: exact_sum takes floating elements, not ") + dtype_name(in.dtype));
  }
}

}  // namespace cured::capi
