// The C interface's mean, variances and standard deviations along axes: one kernel per element
// type for the mean, one for the variance with its mean, one for the standard deviation with it.

#include "capi.hpp"
#include "cured/statistics_axes.cuh"

namespace cured::capi {

static_assert(holds_floating(CURED_C_SHARD), "a family of floating elements compiled for a shard of none "
                                             "(c/CMakeLists.txt's CURED_C_FLOATING_SHARDS)");

template <int Shard>
void axis_moments(const statistic_call& st, const cured_array& in, const axes& along, const cured_array& out,
                  workspace& ws, cudaStream_t s) {
  with_floating<Shard>(in.dtype, "mean, var and std", [&](auto t) {
    using T = typename decltype(t)::type;
    using F = statistic_t<T>;
    const strided_view<const T> x = as_view<const T>(in);
    const strided_view<F> o = as_view<F>(out);
    strided_view<F> mean;
    if (st.second) mean = as_view<F>(*st.second);
    const strided_view<F>* means = st.second ? &mean : nullptr;
    switch (st.statistic) {
      case CURED_MEAN: return mean_async(x, along, o, ws, s);
      case CURED_VAR:
      case CURED_VAR_MEAN: return var_mean_async(x, along, o, means, st.param, ws, s);
      case CURED_STD:
      case CURED_STD_MEAN: return std_mean_async(x, along, o, means, st.param, ws, s);
      default: throw std::logic_error(std::string("cured: ") + statistic_rows[st.statistic].name + " is not a moment");
    }
  });
}

template void axis_moments<CURED_C_SHARD>(const statistic_call&, const cured_array&, const axes&, const cured_array&,
                                          workspace&, cudaStream_t);

}  // namespace cured::capi
