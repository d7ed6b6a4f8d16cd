// The C interface's sums along axes: each pair of input and output types the rules provide
// (capi.hpp, from cured_c.h's tables), one instantiation each.

#include "capi.hpp"
#include "cured/axes.cuh"

namespace cured::capi {

template <int Shard>
void axis_sum(const cured_array& in, const axes& along, const cured_array& out, workspace& ws, cudaStream_t s) {
  with_sum<Shard>(in.dtype, out.dtype, [](std::int32_t) { return true; }, [&](auto i, auto o, auto a) {
    using In = typename decltype(i)::type;
    using Out = typename decltype(o)::type;
    sum_async<typename decltype(a)::type>(as_view<const In>(in), along, as_view<Out>(out), ws, s);
  });
}

template void axis_sum<CURED_C_SHARD>(const cured_array&, const axes&, const cured_array&, workspace&, cudaStream_t);

}  // namespace cured::capi
