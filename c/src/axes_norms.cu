// The C interface's vector norms (p = 1, 2, inf) and logsumexp along axes.

#include "capi.hpp"
#include "cured/statistics_axes.cuh"

namespace cured::capi {

static_assert(holds_floating(CURED_C_SHARD), "a family of floating elements compiled for a shard of none "
                                             "(c/CMakeLists.txt's CURED_C_FLOATING_SHARDS)");

template <int Shard>
void axis_norms(const statistic_call& st, const cured_array& in, const axes& along, const cured_array& out,
                workspace& ws, cudaStream_t s) {
  with_floating<Shard>(in.dtype, "vector_norm and logsumexp", [&](auto t) {
    using T = typename decltype(t)::type;
    using F = statistic_t<T>;
    const strided_view<const T> x = as_view<const T>(in);
    const strided_view<F> o = as_view<F>(out);
    if (st.statistic == CURED_VECTOR_NORM)
      vector_norm_async(x, along, o, st.param, ws, s);
    else
      logsumexp_async(x, along, o, ws, s);
  });
}

template void axis_norms<CURED_C_SHARD>(const statistic_call&, const cured_array&, const axes&, const cured_array&,
                                        workspace&, cudaStream_t);

}  // namespace cured::capi
