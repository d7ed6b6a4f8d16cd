// Every kernel family of the library, instantiated once each (float; double where its exact
// sums take another kernel; int32 for the integer paths), so that compiling this file for an
// architecture compiles every kind of kernel cured launches there. Never run: the ctests
// cured_architecture_<sm> compile it for each architecture the README promises.

#include <cured/cured.cuh>
#include <cured/detail/ranks.cuh>

#include <cstdint>

// External linkage: each function is compiled although nothing calls it.
namespace cured_every_family {

void whole_arrays(const float* x, const double* d, const std::int32_t* i, std::int64_t n, cured::workspace& ws,
                  cudaStream_t s, float* out, double* dout, cured::key_value<float>* arg) {
  cured::sum_async(x, n, out, ws, s);
  cured::sum_async(i, n, reinterpret_cast<std::int64_t*>(dout), ws, s);
  cured::min_async(x, n, out, ws, s);
  cured::max_async(x, n, out, ws, s);
  cured::argmax_async(x, n, arg, ws, s);
  cured::exact_sum_async(x, n, out, ws, s);
  cured::exact_sum_async(d, n, dout, ws, s);
  cured::exact_dot_async(x, x, n, out, ws, s);
  cured::exact_dot_async(d, d, n, dout, ws, s);
}

void statistics(const float* x, std::int64_t n) {
  (void)cured::var_mean(x, n);
  (void)cured::aminmax(x, n);
  (void)cured::vector_norm(x, n);
  (void)cured::logsumexp(x, n);
  (void)cured::count_nonzero(x, n);
}

void axes(float* x, const double* d, float* out, double* dout, cured::index_t* arg) {
  auto m = cured::view(x, {64, 64});
  cured::sum(m, {1}, cured::view(out, {64}));
  cured::sum(m, {0}, cured::view(out, {64}));
  cured::sum(m, {0, 1}, cured::view(out, {}));
  cured::argmax(m, {1}, cured::view(arg, {64}));
  cured::exact_sum(m, {1}, cured::view(out, {64}));
  cured::exact_sum(cured::view(d, {64, 64}), {1}, cured::view(dout, {64}));
  cured::var_mean(m, {1}, cured::view(out, {64}), cured::view(out + 64, {64}));
  cured::logsumexp(m, {0}, cured::view(out, {64}));
}

void segments(const float* x, const double* d, std::int64_t n, const std::int64_t* offsets, float* out,
              double* dout, cured::index_t* arg) {
  const cured::segments seg{offsets, 64};
  cured::sum(x, n, seg, out);
  cured::max(x, n, seg, out);
  cured::argmax(x, n, seg, arg);
  cured::exact_sum(x, n, seg, out);
  cured::exact_sum(d, n, seg, dout);
  cured::logsumexp(x, n, seg, out);
}

void ranks(const float* x, const double* d, std::int64_t n, cured::detail::ranks::record* records,
           cured::exact::shard_sum* shards, float* out, double* dout, cured::key_value<float>* arg, unsigned* status,
           cured::workspace& ws, cudaStream_t s) {
  namespace r = cured::detail::ranks;
  r::local_plain<float>(x, n, records, cured::thread::identity_transform{}, cured::plus{}, r::tag_of<float>("sum"),
                        ws, s);
  r::combine_plain(records, 2, out, status, cured::plus{}, 0.0f, s);
  r::local_arg<true>(x, n, records, r::tag_of<float>("argmax"), ws, s);
  r::combine_arg<true>(records, 2, arg, status, s);
  r::local_exact(d, n, shards, ws, s);
  r::round_exact<double>(shards, dout, status, s);
}

}  // namespace cured_every_family
