#pragma once
// What the rows of axis and segmented workloads share: outputs copied back and checked output
// by output, and what an entry of their op tables (bench/axis_ops.cuh, bench/segment_ops.cuh)
// offers.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "bench/answer.cuh"
#include "bench/context.hpp"
#include "harness/device_buffer.cuh"
#include "harness/parallel_chunks.hpp"

namespace cured::bench {

/// "ok", or what the first output that differs holds, and how many differ (bit for bit, over
/// every core).
template <class Out>
std::string compare_outputs(const std::vector<Out>& got, const std::vector<Out>& want) {
  if (got.size() != want.size())
    return "got " + std::to_string(got.size()) + " outputs, want " + std::to_string(want.size());
  struct count {
    std::size_t wrong = 0, first = 0;
  };
  const auto parts = harness::parallel_chunks<count>(std::int64_t(got.size()), [&](std::int64_t b, std::int64_t e) {
    count c;
    for (std::int64_t i = b; i < e; ++i)
      if (!same_bits(got[std::size_t(i)], want[std::size_t(i)]) && c.wrong++ == 0) c.first = std::size_t(i);
    return c;
  });
  std::size_t wrong = 0, first = 0;
  for (const count& c : parts) {  // chunks in order: the first chunk with a wrong output has the first one
    if (c.wrong > 0 && wrong == 0) first = c.first;
    wrong += c.wrong;
  }
  if (wrong == 0) return "ok";
  return "got " + value_string(got[first]) + " want " + value_string(want[first]) + " at output " +
         std::to_string(first) + " (" + std::to_string(wrong) + " of " + std::to_string(got.size()) + " outputs wrong)";
}

/// d[0, count) on the host, once the work on `stream` has finished.
template <class U>
std::vector<U> copy_back(const harness::device_buffer<U>& d, std::int64_t count, cudaStream_t stream) {
  CURED_CHECK(cudaStreamSynchronize(stream));
  std::vector<U> h(static_cast<std::size_t>(count));
  if (count > 0) CURED_CHECK(cudaMemcpy(h.data(), d.data(), std::size_t(count) * sizeof(U), cudaMemcpyDeviceToHost));
  return h;
}

/// Times launch(stream) as every row is timed (cold and hot, the context's plan) into r.
template <class Launch>
void time_row(row& r, context& ctx, Launch&& launch) {
  const timing t = time_async(launch, plan_of(ctx, false), *ctx.flusher, ctx.stream);
  r.cold_ms = t.cold_ms;
  r.hot_ms = t.hot_ms;
  r.cold_noise = t.cold_noise;
}

/// Times a CUB call, call(temp, bytes, outputs, stream), into r: count outputs of CubOut, their
/// bits set first; the size query and the temporary storage untimed. Returns the outputs.
template <class CubOut, class Call>
std::vector<CubOut> time_cub_row(row& r, context& ctx, std::int64_t count, Call&& call) {
  harness::device_buffer<CubOut> out(static_cast<std::size_t>(count));
  CURED_CHECK(cudaMemsetAsync(out.data(), 0xff, std::size_t(count) * sizeof(CubOut), ctx.stream));
  std::size_t bytes = 0;
  CURED_CHECK(call(nullptr, bytes, out.data(), ctx.stream));
  harness::device_buffer<char> temp(std::max<std::size_t>(bytes, 1));
  time_row(r, ctx, [&](cudaStream_t s) { CURED_CHECK(call(temp.data(), bytes, out.data(), s)); });
  return copy_back(out, count, ctx.stream);
}

/// Whether op entry E has rows for T (its `takes<T>`, where it has one).
template <class E, class T>
constexpr bool op_takes() {
  if constexpr (requires { E::template takes<T>; }) return E::template takes<T>;
  else return true;
}

/// Whether op entry E has a CUB peer: a `from_cub`, which reads CUB's output (and, for segments,
/// the segment's length) as cured's. Asked with a call: nvcc's front end holds the address of a
/// function template's specialization in a requires-expression unsatisfied where the host
/// compiler does not, so the CUB calls would reach the host code without their kernels in the
/// device code (every CUB row failing with cudaErrorInvalidResourceHandle).
template <class E>
constexpr bool op_has_cub() {
  using cub_output = const typename E::template cub_out<float>&;
  return requires(cub_output x) { E::template from_cub<float>(x); } ||
         requires(cub_output x, std::int64_t length) { E::template from_cub<float>(x, length); };
}

/// Whether an op table (a std::tuple of entries) names its ops in the order of `order`.
template <class... Entries, class Order>
constexpr bool ops_named_in_order(std::type_identity<std::tuple<Entries...>>, const Order& order) {
  constexpr std::array<std::string_view, sizeof...(Entries)> names = {Entries::name...};
  return names.size() == order.size() && std::equal(names.begin(), names.end(), order.begin());
}

template <class F, class... Entries>
bool with_op_of(std::string_view name, F& f, std::type_identity<std::tuple<Entries...>>) {
  return ((Entries::name == name ? (f(std::type_identity<Entries>{}), true) : false) || ...);
}

/// Calls f(std::type_identity<E>{}) for the entry E of the op table Table named `name`; false
/// when none is.
template <class Table, class F>
bool with_op(std::string_view name, F&& f) {
  return with_op_of(name, f, std::type_identity<Table>{});
}

}  // namespace cured::bench
