#pragma once
// The op table: one entry per op, saying its name, the answer field it produces, its expected
// answer, and how each implementation runs it. An implementation an entry does not name (or
// whose call does not compile for T: a constraint) does not offer the op, and makes no row.
// Adding an op is adding one entry here and its name to op_names.hpp.

#include <cuda_runtime_api.h>

#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "bench/answer.cuh"
#include "bench/op_names.hpp"
#include "bench/reference.cuh"
#include "cpu/cpu_reduce.hpp"
#include "cpu/reference.hpp"
#include "cured/cured.cuh"

namespace cured::bench {

/// The element types with exact sums (cured::exact_sum): the floating ones.
template <class T>
concept exact_sum_type = harness::floating_input<T>;

/// The element types of cured::cpu's sums (serial_sum, parallel_sum).
template <class T>
concept cpu_type = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
                   std::is_same_v<T, std::uint32_t>;

/// One op for element type T, as the rows use it; a null call: not offered.
template <class T>
struct op {
  std::string_view name;
  answer_field field;
  answer<T> (*expect)(reference<T>&);
  bool ladder;  ///< the ladder steps compute it (they compute plain sums)
  /// CUB's two-phase call: with temp null it only sets bytes, the temporary storage it needs.
  cudaError_t (*cub)(void* temp, std::size_t& bytes, const input<T>&, device_answer<T>&, cudaStream_t) = nullptr;
  /// cuBLAS's call, on a handle whose stream is set and whose pointer mode is device.
  void (*cublas)(cublasHandle_t, const input<T>&, device_answer<T>&) = nullptr;
  /// Enqueues the library's asynchronous form.
  void (*cured)(const input<T>&, device_answer<T>&, workspace&, cudaStream_t) = nullptr;
  /// The library's blocking form: launch, copy back, synchronize.
  void (*cured_blocking)(const input<T>&, answer<T>&, cudaStream_t) = nullptr;
  /// Thrust as users call it: its allocation and synchronization included.
  void (*thrust)(const input<T>&, answer<T>&, cudaStream_t) = nullptr;
  void (*cpu)(std::span<const T>, answer<T>&) = nullptr;     ///< serial, on the host's copy
  void (*cpu_mt)(std::span<const T>, answer<T>&) = nullptr;  ///< over every core, on the host's copy
};

/// sum: in the accumulator (half sums into float); plain sums of inexact data are checked
/// within an error bound.
struct sum_op {
  static constexpr std::string_view name = "sum";
  static constexpr answer_field field = answer_field::sum;
  static constexpr bool ladder = true;
  template <class T>
  static answer<T> expect(reference<T>& r) {
    answer<T> a;
    a.sum = r.sum();
    a.sum_tolerance = r.plain_sum_bound();
    return a;
  }
  template <class T>
  static cudaError_t cub(void* temp, std::size_t& bytes, const input<T>& in, device_answer<T>& out, cudaStream_t s) {
    // Reduce with the accumulator named, as Sum would sum half in half.
    return cub::DeviceReduce::Reduce(temp, bytes, in.d, out.sum.data(), in.n, ::cuda::std::plus<accumulator_t<T>>{},
                                     accumulator_t<T>(0), s);
  }
  template <class T>
  static void cured(const input<T>& in, device_answer<T>& out, workspace& ws, cudaStream_t s) {
    cured::sum_async(in.d, in.n, out.sum.data(), ws, s);
  }
  template <class T>
  static void cured_blocking(const input<T>& in, answer<T>& got, cudaStream_t s) {
    got.sum = cured::sum(in.d, in.n, s);
  }
  template <class T>
  static void thrust(const input<T>& in, answer<T>& got, cudaStream_t s) {
    using acc = accumulator_t<T>;
    got.sum = thrust::reduce(thrust::cuda::par.on(s), in.d, in.d + in.n, acc(0), thrust::plus<acc>());
  }
  template <cpu_type T>
  static void cpu(std::span<const T> h, answer<T>& got) {
    got.sum = cpu::serial_sum(h);
  }
  template <cpu_type T>
  static void cpu_mt(std::span<const T> h, answer<T>& got) {
    got.sum = cpu::parallel_sum(h);
  }
};

/// exact_sum: the correctly rounded sum (floating types), checked bit for bit.
struct exact_sum_op {
  static constexpr std::string_view name = "exact_sum";
  static constexpr answer_field field = answer_field::sum;
  static constexpr bool ladder = false;
  template <class T>
  static answer<T> expect(reference<T>& r) {
    answer<T> a;
    a.sum = r.sum();
    return a;
  }
  template <exact_sum_type T>
  static void cured(const input<T>& in, device_answer<T>& out, workspace& ws, cudaStream_t s) {
    static_assert(std::is_same_v<exact_result_t<T>, accumulator_t<T>>);
    cured::exact_sum_async(in.d, in.n, out.sum.data(), ws, s);
  }
  template <exact_sum_type T>
  static void cured_blocking(const input<T>& in, answer<T>& got, cudaStream_t s) {
    got.sum = cured::exact_sum(in.d, in.n, s);
  }
  template <class T>
    requires exact_sum_type<T> && cpu_type<T>
  static void cpu(std::span<const T> h, answer<T>& got) {
    got.sum = cpu::exact_sum(h);
  }
};

/// min (Max false) and max (Max true): the extreme value (cured::detail::less's order).
template <bool Max>
struct extreme_op {
  static constexpr std::string_view name = Max ? "max" : "min";
  static constexpr answer_field field = answer_field::value;
  static constexpr bool ladder = false;
  template <class T>
  static answer<T> expect(reference<T>& r) {
    answer<T> a;
    a.value = (Max ? r.first_max() : r.first_min()).value;
    return a;
  }
  template <class T>
  static cudaError_t cub(void* temp, std::size_t& bytes, const input<T>& in, device_answer<T>& out, cudaStream_t s) {
    if constexpr (Max) return cub::DeviceReduce::Max(temp, bytes, in.d, out.value.data(), in.n, s);
    else return cub::DeviceReduce::Min(temp, bytes, in.d, out.value.data(), in.n, s);
  }
  template <class T>
  static void cured(const input<T>& in, device_answer<T>& out, workspace& ws, cudaStream_t s) {
    if constexpr (Max) cured::max_async(in.d, in.n, out.value.data(), ws, s);
    else cured::min_async(in.d, in.n, out.value.data(), ws, s);
  }
  template <class T>
  static void cured_blocking(const input<T>& in, answer<T>& got, cudaStream_t s) {
    got.value = Max ? cured::max(in.d, in.n, s) : cured::min(in.d, in.n, s);
  }
  template <class T>
  static void thrust(const input<T>& in, answer<T>& got, cudaStream_t s) {
    const auto policy = thrust::cuda::par.on(s);
    if constexpr (Max)
      got.value = thrust::reduce(policy, in.d, in.d + in.n, maximum::identity<T>(), thrust::maximum<T>());
    else
      got.value = thrust::reduce(policy, in.d, in.d + in.n, minimum::identity<T>(), thrust::minimum<T>());
  }
};

/// argmin (Max false) and argmax (Max true): the first index of the extreme value. cured's
/// asynchronous form writes a key_value.
template <bool Max>
struct arg_op {
  static constexpr std::string_view name = Max ? "argmax" : "argmin";
  static constexpr answer_field field = answer_field::index;
  static constexpr bool ladder = false;
  template <class T>
  static answer<T> expect(reference<T>& r) {
    answer<T> a;
    a.index = (Max ? r.first_max() : r.first_min()).index;
    return a;
  }
  template <class T>
  static cudaError_t cub(void* temp, std::size_t& bytes, const input<T>& in, device_answer<T>& out, cudaStream_t s) {
    if constexpr (Max)
      return cub::DeviceReduce::ArgMax(temp, bytes, in.d, out.value.data(), out.index.data(), in.n, s);
    else
      return cub::DeviceReduce::ArgMin(temp, bytes, in.d, out.value.data(), out.index.data(), in.n, s);
  }
  template <class T>
  static void cured(const input<T>& in, device_answer<T>& out, workspace& ws, cudaStream_t s) {
    if constexpr (Max) cured::argmax_async(in.d, in.n, out.kv.data(), ws, s);
    else cured::argmin_async(in.d, in.n, out.kv.data(), ws, s);
  }
  template <class T>
  static void cured_blocking(const input<T>& in, answer<T>& got, cudaStream_t s) {
    got.index = (Max ? cured::argmax(in.d, in.n, s) : cured::argmin(in.d, in.n, s)).index;
  }
  template <class T>
  static void thrust(const input<T>& in, answer<T>& got, cudaStream_t s) {
    const auto policy = thrust::cuda::par.on(s);
    if constexpr (Max) got.index = thrust::max_element(policy, in.d, in.d + in.n) - in.d;
    else got.index = thrust::min_element(policy, in.d, in.d + in.n) - in.d;
  }
};

/// The dot products time two streams of n / 2 elements: the input's halves x = in[0, n / 2)
/// and y = in[n / 2, 2 (n / 2)), so that they read the bytes the sums of the same n read.
template <class T>
const T* dot_y(const input<T>& in) {
  return in.d + in.n / 2;
}

/// exact_dot: the correctly rounded dot product of the halves (floating types), checked bit
/// for bit.
struct exact_dot_op {
  static constexpr std::string_view name = "exact_dot";
  static constexpr answer_field field = answer_field::sum;
  static constexpr bool ladder = false;
  template <class T>
  static answer<T> expect(reference<T>& r) {
    answer<T> a;
    a.sum = r.dot();
    return a;
  }
  template <exact_sum_type T>
  static void cured(const input<T>& in, device_answer<T>& out, workspace& ws, cudaStream_t s) {
    cured::exact_dot_async(in.d, dot_y(in), in.n / 2, out.sum.data(), ws, s);
  }
  template <exact_sum_type T>
  static void cured_blocking(const input<T>& in, answer<T>& got, cudaStream_t s) {
    got.sum = cured::exact_dot(in.d, dot_y(in), in.n / 2, s);
  }
};

/// Element i's product x[i] * y[i] in the accumulator: CUB's transform for a fused dot product.
template <class T>
struct pair_product {
  const T* x;
  const T* y;
  __device__ accumulator_t<T> operator()(std::int64_t i) const {
    return accumulator_t<T>(x[i]) * accumulator_t<T>(y[i]);
  }
};

/// dot: the dot product of the halves in floating point, the exact one's peers: CUB's
/// TransformReduce over the pairs (one fused pass over both) and cuBLAS's dot (cublasSdot,
/// cublasDdot; bench/implementations.cuh). Checked within m * eps * sum |x_i y_i|.
struct dot_op {
  static constexpr std::string_view name = "dot";
  static constexpr answer_field field = answer_field::sum;
  static constexpr bool ladder = false;
  template <class T>
  static answer<T> expect(reference<T>& r) {
    answer<T> a;
    a.sum = r.dot();
    a.sum_tolerance = r.dot_bound();
    return a;
  }
  template <exact_sum_type T>
  static cudaError_t cub(void* temp, std::size_t& bytes, const input<T>& in, device_answer<T>& out, cudaStream_t s) {
    using acc = accumulator_t<T>;
    return cub::DeviceReduce::TransformReduce(temp, bytes, thrust::counting_iterator<std::int64_t>(0), out.sum.data(),
                                              in.n / 2, ::cuda::std::plus<acc>{}, pair_product<T>{in.d, dot_y(in)},
                                              acc(0), s);
  }
  template <class T>
    requires std::is_same_v<T, float> || std::is_same_v<T, double>
  static void cublas(cublasHandle_t h, const input<T>& in, device_answer<T>& out) {
    cublasStatus_t st;
    if constexpr (std::is_same_v<T, float>) st = cublasSdot_64(h, in.n / 2, in.d, 1, dot_y(in), 1, out.sum.data());
    else st = cublasDdot_64(h, in.n / 2, in.d, 1, dot_y(in), 1, out.sum.data());
    if (st != CUBLAS_STATUS_SUCCESS) throw error(std::string("cuBLAS dot: ") + cublasGetStatusString(st));
  }
};

/// The one-pass statistics (cured/statistics.cuh), checked against the long double
/// reference within each method's bound (harness/statistics_reference.hpp): mean, var_mean
/// (ddof 1), aminmax, norm (p = 2), logsumexp, count_nonzero, any.
enum class statistic { mean, var_mean, aminmax, vector_norm, logsumexp, count_nonzero, any };

template <statistic S>
struct statistic_op {
  static constexpr std::string_view name = S == statistic::mean          ? "mean"
                                           : S == statistic::var_mean      ? "var_mean"
                                           : S == statistic::aminmax       ? "aminmax"
                                           : S == statistic::vector_norm          ? "vector_norm"
                                           : S == statistic::logsumexp     ? "logsumexp"
                                           : S == statistic::count_nonzero ? "count_nonzero"
                                                                           : "any";
  static constexpr answer_field field = answer_field::statistic;
  static constexpr bool ladder = false;
  /// The element types it takes: floating ones for the moments, norms and logsumexp.
  template <class T>
  static constexpr bool takes = !(S == statistic::mean || S == statistic::var_mean || S == statistic::vector_norm ||
                                  S == statistic::logsumexp) ||
                                harness::floating_input<T>;

  template <class T>
  static auto call(const T* d, std::int64_t n, cudaStream_t s) {
    if constexpr (S == statistic::mean) return cured::mean(d, n, s);
    else if constexpr (S == statistic::var_mean) return cured::var_mean(d, n, 1.0, s);
    else if constexpr (S == statistic::aminmax) return cured::aminmax(d, n, s);
    else if constexpr (S == statistic::vector_norm) return cured::vector_norm(d, n, 2.0, s);
    else if constexpr (S == statistic::logsumexp) return cured::logsumexp(d, n, s);
    else if constexpr (S == statistic::count_nonzero) return cured::count_nonzero(d, n, s);
    else return cured::any(d, n, s);
  }
  template <class T>
  using result = decltype(call<T>(nullptr, 0, nullptr));

  template <class T>
  static answer<T> expect(reference<T>& ref) {
    answer<T> a;
    if constexpr (takes<T>) {
      const harness::statistics_reference& r = ref.statistics();
      const std::int64_t n = r.count;
      const double u = std::numeric_limits<std::conditional_t<harness::floating_input<T>, accumulator_t<T>, float>>::epsilon() / 2;
      const double k = harness::chain_of(n);
      const long double mean_bound = 2 * k * u * (n ? r.abs_sum / n : 0);
      a.read_part = &part_of<result<T>>;
      a.parts = 1;
      if constexpr (S == statistic::mean) {
        a.part[0] = double(r.mean), a.part_bound[0] = double(mean_bound);
      } else if constexpr (S == statistic::var_mean) {
        const long double v = r.var(1);
        a.parts = 2;
        a.part[0] = double(v), a.part_bound[0] = double(4 * k * u * r.kappa() * v + 4 * u * v);
        a.part[1] = double(r.mean), a.part_bound[1] = double(mean_bound + 2 * k * u * std::sqrt(r.m2 / (n ? n : 1)));
      } else if constexpr (S == statistic::aminmax) {
        a.parts = 2;
        a.part[0] = n ? double(r.min) : harness::as_double(minimum::identity<T>());
        a.part[1] = n ? double(r.max) : harness::as_double(maximum::identity<T>());
      } else if constexpr (S == statistic::vector_norm) {
        const double squares_u = std::is_same_v<T, __half> || std::is_same_v<T, double> ? u : 0x1p-53;
        const long double l2 = std::sqrt(r.squares);
        a.part[0] = double(l2), a.part_bound[0] = double((1.01 * u + k * squares_u) * l2);
      } else if constexpr (S == statistic::logsumexp) {
        const double exp_error = std::is_same_v<statistic_t<T>, float> ? 0x1p-20 : 0x1p-50;
        a.part[0] = double(r.log_sum_exp);
        a.part_bound[0] = double(exp_error + 2 * k * u + 2 * u * std::fabs(r.log_sum_exp));
      } else if constexpr (S == statistic::count_nonzero) {
        a.part[0] = double(r.nonzero);
      } else {
        a.part[0] = r.nonzero > 0;
      }
    }
    return a;
  }
  template <class T>
    requires takes<T>
  static void cured(const input<T>& in, device_answer<T>& out, workspace& ws, cudaStream_t s) {
    using R = result<T>;
    R* d = reinterpret_cast<R*>(out.bytes.data());
    if constexpr (S == statistic::mean) cured::mean_async(in.d, in.n, d, ws, s);
    else if constexpr (S == statistic::var_mean) cured::var_mean_async(in.d, in.n, d, 1.0, ws, s);
    else if constexpr (S == statistic::aminmax) cured::aminmax_async(in.d, in.n, d, ws, s);
    else if constexpr (S == statistic::vector_norm) cured::vector_norm_async(in.d, in.n, d, 2.0, ws, s);
    else if constexpr (S == statistic::logsumexp) cured::logsumexp_async(in.d, in.n, d, ws, s);
    else if constexpr (S == statistic::count_nonzero) cured::count_nonzero_async(in.d, in.n, d, ws, s);
    else cured::any_async(in.d, in.n, d, ws, s);
  }
  template <class T>
    requires takes<T>
  static void cured_blocking(const input<T>& in, answer<T>& got, cudaStream_t s) {
    const result<T> r = call(in.d, in.n, s);
    std::memcpy(got.bytes, &r, sizeof r);
  }
};

/// The table, in the order of op_names_in_order.
using op_entries = std::tuple<sum_op, exact_sum_op, extreme_op<false>, extreme_op<true>, arg_op<false>, arg_op<true>,
                              exact_dot_op, dot_op, statistic_op<statistic::mean>, statistic_op<statistic::var_mean>,
                              statistic_op<statistic::aminmax>, statistic_op<statistic::vector_norm>,
                              statistic_op<statistic::logsumexp>, statistic_op<statistic::count_nonzero>,
                              statistic_op<statistic::any>>;

template <class... Entries>
constexpr bool named_in_order(std::type_identity<std::tuple<Entries...>>) {
  constexpr std::array<std::string_view, sizeof...(Entries)> names = {Entries::name...};
  return names.size() == op_names_in_order.size() && std::equal(names.begin(), names.end(), op_names_in_order.begin());
}
static_assert(named_in_order(std::type_identity<op_entries>{}), "op_entries and op_names_in_order disagree");

/// Entry E as an op<T>: each call E offers for T, the others null. Each test is on a call, not
/// on the call's address: nvcc emits no device code for kernels reached only from a function
/// whose address a requirement names.
template <class T, class E>
op<T> op_of() {
  op<T> o{E::name, E::field, &E::template expect<T>, E::ladder};
  if constexpr (requires(void* t, std::size_t& b, const input<T>& in, device_answer<T>& out, cudaStream_t s) {
                  E::template cub<T>(t, b, in, out, s);
                })
    o.cub = &E::template cub<T>;
  if constexpr (requires(cublasHandle_t h, const input<T>& in, device_answer<T>& out) {
                  E::template cublas<T>(h, in, out);
                })
    o.cublas = &E::template cublas<T>;
  if constexpr (requires(const input<T>& in, device_answer<T>& out, workspace& ws, cudaStream_t s) {
                  E::template cured<T>(in, out, ws, s);
                })
    o.cured = &E::template cured<T>;
  if constexpr (requires(const input<T>& in, answer<T>& got, cudaStream_t s) { E::template cured_blocking<T>(in, got, s); })
    o.cured_blocking = &E::template cured_blocking<T>;
  if constexpr (requires(const input<T>& in, answer<T>& got, cudaStream_t s) { E::template thrust<T>(in, got, s); })
    o.thrust = &E::template thrust<T>;
  if constexpr (requires(std::span<const T> h, answer<T>& got) { E::template cpu<T>(h, got); }) o.cpu = &E::template cpu<T>;
  if constexpr (requires(std::span<const T> h, answer<T>& got) { E::template cpu_mt<T>(h, got); })
    o.cpu_mt = &E::template cpu_mt<T>;
  return o;
}

template <class T, class... Entries>
std::vector<op<T>> ops_of(std::type_identity<std::tuple<Entries...>>) {
  return {op_of<T, Entries>()...};
}

/// The op named `name` (one of op_names_in_order) for element type T; null for another name.
template <class T>
const op<T>* find_op(std::string_view name) {
  static const std::vector<op<T>> table = ops_of<T>(std::type_identity<op_entries>{});
  const auto it = std::find_if(table.begin(), table.end(), [&](const op<T>& o) { return o.name == name; });
  return it == table.end() ? nullptr : &*it;
}

}  // namespace cured::bench
