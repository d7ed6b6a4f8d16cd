// The C interface's exact sums along axes, for the floating types.

#include "capi.hpp"
#include "cured/axes.cuh"

namespace cured::capi {

template <int Shard>
void axis_exact(const cured_array& in, const axes& along, const cured_array& out, workspace& ws, cudaStream_t s) {
  with_floating<Shard>(in.dtype, "exact_sum", [&](auto t) {
    using T = typename decltype(t)::type;
    exact_sum_async(as_view<const T>(in), along, as_view<exact_result_t<T>>(out), ws, s);
  });
}

template void axis_exact<CURED_C_SHARD>(const cured_array&, const axes&, const cured_array&, workspace&, cudaStream_t);

}  // namespace cured::capi
