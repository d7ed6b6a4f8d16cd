// The C interface's min and max along axes, for every element type.

#include "capi.hpp"
#include "cured/axes.cuh"

namespace cured::capi {

template <int Shard>
void axis_extremum(bool max, const cured_array& in, const axes& along, const cured_array& out, workspace& ws,
                   cudaStream_t s) {
  with_element<Shard>(in.dtype, [&](auto t) {
    using T = typename decltype(t)::type;
    if (max)
      max_async(as_view<const T>(in), along, as_view<T>(out), ws, s);
    else
      min_async(as_view<const T>(in), along, as_view<T>(out), ws, s);
  });
}

template void axis_extremum<CURED_C_SHARD>(bool, const cured_array&, const axes&, const cured_array&, workspace&,
                                           cudaStream_t);

}  // namespace cured::capi
