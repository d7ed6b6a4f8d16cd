// The C interface's exact sums along axes and exact dot products, for the floating types.

#include "capi.hpp"
#include "cured/axes.cuh"
#include "cured/exact.cuh"

namespace cured::capi {

static_assert(holds_floating(CURED_C_SHARD), "a family of floating elements compiled for a shard of none "
                                             "(c/CMakeLists.txt's CURED_C_FLOATING_SHARDS)");

template <int Shard>
void axis_exact(const cured_array& in, const axes& along, const cured_array& out, workspace& ws, cudaStream_t s) {
  with_floating<Shard>(in.dtype, "exact_sum", [&](auto t) {
    using T = typename decltype(t)::type;
    exact_sum_async(as_view<const T>(in), along, as_view<exact_result_t<T>>(out), ws, s);
  });
}

template void axis_exact<CURED_C_SHARD>(const cured_array&, const axes&, const cured_array&, workspace&, cudaStream_t);

template <int Shard>
void exact_dot(const cured_array& x, const cured_array& y, std::int64_t n, const cured_array& out, workspace& ws,
               cudaStream_t s) {
  with_floating<Shard>(x.dtype, "exact_dot", [&](auto t) {
    using T = typename decltype(t)::type;
    exact_dot_async(static_cast<const T*>(x.data), static_cast<const T*>(y.data), n,
                    static_cast<exact_result_t<T>*>(out.data), ws, s);
  });
}

template void exact_dot<CURED_C_SHARD>(const cured_array&, const cured_array&, std::int64_t, const cured_array&,
                                       workspace&, cudaStream_t);

}  // namespace cured::capi
