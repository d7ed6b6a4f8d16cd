// The C interface's segmented statistics: the floating ones (mean, var, std, var_mean, std_mean,
// vector_norm, logsumexp) here, aminmax and the counts in segments_counts.cu.

#include "segment_run.hpp"
#include "cured/segments.cuh"
#include "cured/statistics_segments.cuh"

namespace cured::capi {

static_assert(holds_floating(CURED_C_SHARD), "a family of floating elements compiled for a shard of none "
                                             "(c/CMakeLists.txt's CURED_C_FLOATING_SHARDS)");

template <int Shard>
void segment_floating_statistic(const statistic_call& st, const segment_call& c, std::int32_t in,
                                const cured_array& out) {
  with_floating<Shard>(in, "segmented mean, var, std, vector_norm and logsumexp", [&](auto t) {
    using T = typename decltype(t)::type;
    using F = statistic_t<T>;
    const auto* x = static_cast<const T*>(c.values);
    const segments seg{c.offsets, c.count};
    const strided_view<F> o = as_view<F>(out);
    strided_view<F> mean;
    if (st.second) mean = as_view<F>(*st.second);
    const strided_view<F>* means = st.second ? &mean : nullptr;
    const auto enqueue = [&](workspace& ws, unsigned* status) {
      switch (st.statistic) {
        case CURED_MEAN: return mean_async(x, c.n, seg, o, ws, c.stream, status);
        case CURED_VAR:
        case CURED_VAR_MEAN: return var_mean_async(x, c.n, seg, o, means, st.param, ws, c.stream, status);
        case CURED_STD:
        case CURED_STD_MEAN: return std_mean_async(x, c.n, seg, o, means, st.param, ws, c.stream, status);
        case CURED_VECTOR_NORM: return vector_norm_async(x, c.n, seg, o, st.param, ws, c.stream, status);
        case CURED_LOGSUMEXP: return logsumexp_async(x, c.n, seg, o, ws, c.stream, status);
        default:
          throw std::logic_error(std::string("cured: ") + statistic_rows[st.statistic].name +
                                 " is not a floating statistic");
      }
    };
    segment_run(c, enqueue);
  });
}

template void segment_floating_statistic<CURED_C_SHARD>(const statistic_call&, const segment_call&, std::int32_t,
                                                        const cured_array&);

}  // namespace cured::capi
