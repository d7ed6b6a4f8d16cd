#pragma once
// The axis rows of one element type: every selected implementation (cured, cub, floor) x op x
// axis workload, on one fresh input of the exact family per element count (the workloads of a
// count share it), each result checked output by output against the CPU reference.
//
// cured: the library's asynchronous axis call on a cured::workspace, one launch per sample.
// cub: cub::DeviceSegmentedReduce over the rows (begin offsets i * L from a counting iterator,
// the end offsets the next row's begin), its temporary storage allocated once, untimed; only for
// workloads whose reduced elements are contiguous rows. floor: enqueue_read_write over the
// input and the output's bytes. Every row's bytes are the workload's: the input read plus the
// output written (sums: the accumulator; min, max: T; argmin, argmax: int64 indices).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/answer.cuh"
#include "bench/axis_ops.cuh"
#include "bench/axis_reference.cuh"
#include "bench/context.hpp"
#include "bench/outputs.cuh"
#include "harness/device_buffer.cuh"
#include "harness/inputs.cuh"

namespace cured::bench {

/// A contiguous row-major view of `extents` at `data`.
template <class U>
strided_view<U> row_major_view(U* data, const std::vector<std::int64_t>& extents) {
  strided_view<U> v;
  v.data = data;
  v.rank = int(extents.size());
  std::int64_t stride = 1;
  for (int k = v.rank - 1; k >= 0; --k) {
    v.extents[k] = extents[std::size_t(k)];
    v.strides[k] = stride;
    stride *= extents[std::size_t(k)];
  }
  return v;
}

/// The extents a workload keeps, in order (none when every axis is reduced).
inline std::vector<std::int64_t> kept_extents(const axis_workload& w) {
  std::vector<std::int64_t> kept;
  for (std::size_t k = 0; k < w.shape.size(); ++k)
    if (std::find(w.axes.begin(), w.axes.end(), int(k)) == w.axes.end()) kept.push_back(w.shape[k]);
  return kept;
}

inline cured::axes axes_of(const axis_workload& w) {
  cured::axes along;
  for (const int a : w.axes) along.list[along.count++] = a;
  return along;
}

/// What the rows of one workload share.
template <class T>
struct axis_case {
  const std::string& type_name;
  const axis_workload& w;
  strided_view<const T> in;  ///< the input on the device; data null when skipped
  axis_reference<T>* ref;    ///< null when skipped
  std::string skip;          ///< why the workload does not run ("skipped: ...", "error: ..."); empty when it does
  workspace& ws;
  harness::device_buffer<unsigned>& sink;
};

/// The rows of op E on one workload: cured, cub (rows only), floor, as selected.
template <class T, class E>
void run_axis_op(const axis_case<T>& c, context& ctx) {
  if constexpr (!op_takes<E, T>()) return;
  using Out = typename E::template out<T>;
  using CubOut = typename E::template cub_out<T>;
  const axis_workload& w = c.w;
  const std::int64_t n = w.elements(), outputs = w.outputs();
  const std::string what = c.type_name + " " + std::string(E::name) + " " + shape_text(w.shape) + " axes " +
                           axes_text(w.axes);
  harness::device_buffer<Out> out;
  std::vector<Out> want;
  bool want_known = false;
  for (const std::string& impl : ctx.opt.impls) {
    if (impl == "cub" && (!w.rows() || !op_has_cub<E>())) continue;  // CUB's segments are rows
    row r;
    r.impl = impl;
    r.type = c.type_name;
    r.op = std::string(E::name);
    r.n = n;
    r.shape = w.shape;
    r.axes = w.axes;
    r.outputs = outputs;
    r.bytes = double(n) * sizeof(T) + double(outputs) * sizeof(Out);
    if (!c.skip.empty()) {
      r.check = c.skip;
      ctx.add(std::move(r));
      continue;
    }
    ctx.progress(what + " " + impl);
    try {
      if (out.size() == 0) out = harness::device_buffer<Out>(std::size_t(outputs));
      // A kernel that leaves an output unwritten must not pass on an earlier one's value. (On
      // the bench's stream, which does not wait for the legacy default stream.)
      CURED_CHECK(cudaMemsetAsync(out.data(), 0xff, std::size_t(outputs) * sizeof(Out), ctx.stream));
      const auto expected = [&]() -> const std::vector<Out>& {
        if (!want_known) {
          want = E::template expect<T>(*c.ref);
          want_known = true;
        }
        return want;
      };
      if (impl == "cured") {
        const strided_view<Out> o = row_major_view(out.data(), kept_extents(w));
        const cured::axes along = axes_of(w);
        time_row(r, ctx, [&](cudaStream_t s) { E::template cured<T>(c.in, along, o, c.ws, s); });
        r.check = compare_outputs(copy_back(out, outputs, ctx.stream), expected());
      } else if (impl == "cub") {
        if constexpr (op_has_cub<E>()) {
          const row_offsets begin = row_offsets_of(w.reduced());
          const std::vector<CubOut> raw =
              time_cub_row<CubOut>(r, ctx, outputs, [&](void* temp, std::size_t& bytes, CubOut* o, cudaStream_t s) {
                return E::template cub<T>(temp, bytes, c.in.data, o, outputs, begin, s);
              });
          std::vector<Out> got(raw.size());
          std::transform(raw.begin(), raw.end(), got.begin(), [](const CubOut& x) { return E::template from_cub<T>(x); });
          r.check = compare_outputs(got, expected());
        }
      } else if (impl == "floor") {
        const std::size_t in_bytes = std::size_t(n) * sizeof(T), out_bytes = std::size_t(outputs) * sizeof(Out);
        time_row(r, ctx, [&](cudaStream_t s) {
          enqueue_read_write(c.in.data, in_bytes, out.data(), out_bytes, c.sink.data(), ctx.dev, s);
        });
        r.check = std::string(no_result_check_axes);
      }
    } catch (const std::exception& e) {
      r.check = std::string("error: ") + e.what();
    }
    ctx.add(std::move(r));
  }
}

template <class T>
void run_axis_rows(const std::string& type_name, context& ctx) {
  if (!ctx.gpu) return;  // main says why: every axis implementation runs on the GPU
  const auto& workloads = ctx.opt.workloads;
  // One input per element count, in order of first appearance.
  std::vector<std::int64_t> counts;
  for (const auto& w : workloads)
    if (std::find(counts.begin(), counts.end(), w.elements()) == counts.end()) counts.push_back(w.elements());
  workspace ws;
  harness::device_buffer<unsigned> sink(1);
  for (const std::int64_t n : counts) {
    std::int64_t most_outputs = 0;
    for (const auto& w : workloads)
      if (w.elements() == n) most_outputs = std::max(most_outputs, w.outputs());
    harness::device_buffer<T> d;
    std::vector<T> h;
    std::string skip;
    try {
      std::size_t free_b = 0, total_b = 0;
      CURED_CHECK(cudaMemGetInfo(&free_b, &total_b));
      // The input, cured's output and CUB's (up to 16 bytes an output), 256 MiB to spare.
      const double need = double(n) * sizeof(T) + double(most_outputs) * 24 + double(std::size_t(256) << 20);
      if (need > double(free_b)) {
        skip = "skipped: needs " + std::to_string(std::int64_t(need / (1 << 20))) + " MiB of device memory, " +
               std::to_string(free_b >> 20) + " MiB free";
      } else {
        d = harness::device_buffer<T>(std::size_t(n));
        harness::fill_device(d.data(), n, ctx.seed);
        h.resize(std::size_t(n));
        CURED_CHECK(cudaMemcpy(h.data(), d.data(), std::size_t(n) * sizeof(T), cudaMemcpyDeviceToHost));
      }
    } catch (const std::bad_alloc&) {
      skip = "skipped: not enough host memory";
    } catch (const std::exception& e) {
      skip = std::string("error: ") + e.what();
    }
    for (const auto& w : workloads) {
      if (w.elements() != n) continue;
      const work_done unit(ctx, n);
      std::optional<axis_reference<T>> ref;
      if (skip.empty()) ref.emplace(h.data(), w);
      const axis_case<T> c{type_name, w, row_major_view<const T>(skip.empty() ? d.data() : nullptr, w.shape),
                           ref ? &*ref : nullptr, skip, ws, sink};
      for (const std::string& op_name : ctx.opt.ops)
        with_axis_op(op_name, [&](auto entry) { run_axis_op<T, typename decltype(entry)::type>(c, ctx); });
    }
  }
}

}  // namespace cured::bench
