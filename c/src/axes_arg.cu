// The C interface's argmin and argmax along axes, for every element type.

#include "capi.hpp"
#include "cured/axes.cuh"

namespace cured::capi {

template <int Shard>
void axis_arg(bool max, const cured_array& in, const axes& along, const cured_array& out, const cured_array* values,
              workspace& ws, cudaStream_t s) {
  with_element<Shard>(in.dtype, [&](auto t) {
    using T = typename decltype(t)::type;
    const strided_view<const T> x = as_view<const T>(in);
    const strided_view<index_t> indices = as_view<index_t>(out);
    if (values) {
      const strided_view<T> v = as_view<T>(*values);
      max ? argmax_async(x, along, indices, v, ws, s) : argmin_async(x, along, indices, v, ws, s);
    } else {
      max ? argmax_async(x, along, indices, ws, s) : argmin_async(x, along, indices, ws, s);
    }
  });
}

template void axis_arg<CURED_C_SHARD>(bool, const cured_array&, const axes&, const cured_array&, const cured_array*,
                                      workspace&, cudaStream_t);

}  // namespace cured::capi
