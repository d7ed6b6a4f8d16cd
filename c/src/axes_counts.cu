// The C interface's aminmax, count_nonzero, any and all along axes, for every element type
// (the counts of integers through the unsigned type of their size: the same zeros).

#include "capi.hpp"
#include "cured/statistics_axes.cuh"

namespace cured::capi {

template <int Shard>
void axis_counts(const statistic_call& st, const cured_array& in, const axes& along, const cured_array& out,
                 workspace& ws, cudaStream_t s) {
  if (st.statistic == CURED_AMINMAX)
    return with_element<Shard>(in.dtype, [&](auto t) {
      using T = typename decltype(t)::type;
      aminmax_async(as_view<const T>(in), along, as_view<T>(out), as_view<T>(*st.second), ws, s);
    });
  with_zero_class<Shard>(in.dtype, [&](auto t) {
    using T = typename decltype(t)::type;
    const strided_view<const T> x = as_view<const T>(in);
    switch (st.statistic) {
      case CURED_COUNT_NONZERO: return count_nonzero_async(x, along, as_view<std::int64_t>(out), ws, s);
      case CURED_ANY: return any_async(x, along, as_view<std::uint8_t>(out), ws, s);
      default: return all_async(x, along, as_view<std::uint8_t>(out), ws, s);
    }
  });
}

template void axis_counts<CURED_C_SHARD>(const statistic_call&, const cured_array&, const axes&, const cured_array&,
                                         workspace&, cudaStream_t);

}  // namespace cured::capi
