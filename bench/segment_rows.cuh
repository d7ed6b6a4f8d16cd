#pragma once
// The segment rows of one element type: every selected implementation (cured, cured-pairs, cub,
// floor) x op x segmented workload, on one fresh input of the exact family per size (the
// distributions of a size share it), each result checked segment by segment against the CPU
// reference.
//
// The offsets of each (size, distribution) are drawn on the host (segment_offsets), copied to
// the device once and shared by every op and implementation. cured: the library's asynchronous
// segmented call on a cured::workspace, one launch per sample; cured-pairs: the same call with
// the same segments in the pair form (cured::segments::pairs, the ends a copy of offsets + 1 in
// an array of their own, so that the pair path runs and reads count more offsets). cub:
// cub::DeviceSegmentedReduce over the same offsets (the begin offsets, and the end offsets one
// further), its temporary storage allocated once, untimed. floor: enqueue_read_write over the
// values and the offsets, and the output's bytes. Every row's bytes are the workload's: the
// values and the count + 1 offsets read, plus the output written (sums: the accumulator; min,
// max: T; argmin, argmax: int64 indices).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "bench/context.hpp"
#include "bench/outputs.cuh"
#include "bench/segment_offsets.hpp"
#include "bench/segment_ops.cuh"
#include "bench/segment_reference.cuh"
#include "harness/device_buffer.cuh"
#include "harness/inputs.cuh"
#include "harness/parallel_chunks.hpp"

namespace cured::bench {

/// What the rows of one segmented workload share.
template <class T>
struct segment_case {
  const std::string& type_name;
  const segment_workload& w;
  const std::vector<std::int64_t>& offsets;  ///< on the host: count + 1 of them (empty when not drawn)
  std::int64_t count;                        ///< segments (0 when not drawn)
  const T* values;                           ///< on the device; null when skipped
  const std::int64_t* d_offsets;             ///< on the device; null when skipped
  const std::int64_t* d_ends;                ///< offsets + 1 in an array of their own, for cured-pairs; or null
  segment_reference<T>* ref;                 ///< null when skipped
  std::string skip;  ///< why the workload does not run ("skipped: ...", "error: ..."); empty when it does
  workspace& ws;
  harness::device_buffer<unsigned>& sink;
};

/// The largest input op E's CUB form takes (its `cub_max_n`, where it has one).
template <class E>
constexpr std::int64_t cub_max_n() {
  if constexpr (requires { E::cub_max_n; }) return E::cub_max_n;
  else return std::numeric_limits<std::int64_t>::max();
}

/// The rows of op E on one workload: cured, cub, floor, as selected.
template <class T, class E>
void run_segment_op(const segment_case<T>& c, context& ctx) {
  if constexpr (!op_takes<E, T>()) return;
  using Out = typename E::template out<T>;
  using CubOut = typename E::template cub_out<T>;
  const std::int64_t n = c.w.n, count = c.count;
  const std::string dist = distribution_text(c.w.dist);
  const std::string what = c.type_name + " " + std::string(E::name) + " n=" + std::to_string(n) + " " + dist;
  harness::device_buffer<Out> out;
  std::vector<Out> want;
  bool want_known = false;
  for (const std::string& impl : ctx.opt.impls) {
    if (impl == "cub" && !op_has_cub<E>()) continue;
    row r;
    r.impl = impl;
    r.type = c.type_name;
    r.op = std::string(E::name);
    r.n = n;
    r.dist = dist;
    r.segments = count;
    r.bytes = double(n) * sizeof(T) + double(count + 1) * sizeof(std::int64_t) + double(count) * sizeof(Out);
    if (!c.skip.empty()) {
      r.check = c.skip;
      ctx.add(std::move(r));
      continue;
    }
    if (impl == "cub" && n > cub_max_n<E>()) {
      r.check = "skipped: cub's " + std::string(E::name) + " indexes the values with int (n above 2^31 - 1)";
      ctx.add(std::move(r));
      continue;
    }
    ctx.progress(what + " " + impl);
    try {
      if (out.size() == 0) out = harness::device_buffer<Out>(std::size_t(count));
      // A kernel that leaves an output unwritten must not pass on an earlier one's value. (On
      // the bench's stream, which does not wait for the legacy default stream.)
      CURED_CHECK(cudaMemsetAsync(out.data(), 0xff, std::size_t(count) * sizeof(Out), ctx.stream));
      const auto expected = [&]() -> const std::vector<Out>& {
        if (!want_known) {
          want = E::template expect<T>(*c.ref);
          want_known = true;
        }
        return want;
      };
      if (impl == "cured" || impl == "cured-pairs") {
        const segments seg =
            impl == "cured" ? segments{c.d_offsets, count} : segments::pairs(c.d_offsets, c.d_ends, count);
        time_row(r, ctx, [&](cudaStream_t s) { E::template cured<T>(c.values, n, seg, out.data(), c.ws, s); });
        r.check = compare_outputs(copy_back(out, count, ctx.stream), expected());
      } else if (impl == "cub") {
        if constexpr (op_has_cub<E>()) {
          const std::vector<CubOut> raw =
              time_cub_row<CubOut>(r, ctx, count, [&](void* temp, std::size_t& bytes, CubOut* o, cudaStream_t s) {
                return E::template cub<T>(temp, bytes, c.values, o, count, c.d_offsets, s);
              });
          std::vector<Out> got(raw.size());
          harness::parallel_chunks<int>(count, [&](std::int64_t b, std::int64_t e) {
            for (std::int64_t s = b; s < e; ++s)
              got[std::size_t(s)] = E::template from_cub<T>(raw[std::size_t(s)], c.offsets[std::size_t(s) + 1] -
                                                                                     c.offsets[std::size_t(s)]);
            return 0;
          });
          r.check = compare_outputs(got, expected());
        }
      } else if (impl == "floor") {
        const std::size_t values_bytes = std::size_t(n) * sizeof(T), offsets_bytes = std::size_t(count + 1) * 8,
                          out_bytes = std::size_t(count) * sizeof(Out);
        time_row(r, ctx, [&](cudaStream_t s) {
          enqueue_read_write(c.values, values_bytes, c.d_offsets, offsets_bytes, out.data(), out_bytes, c.sink.data(),
                             ctx.dev, s);
        });
        r.check = std::string(no_result_check_axes);
      }
    } catch (const std::exception& e) {
      r.check = std::string("error: ") + e.what();
    }
    ctx.add(std::move(r));
  }
}

/// "skipped: ..." when `need` bytes of device memory are more than are free; "" otherwise.
inline std::string device_memory_short(double need) {
  std::size_t free_b = 0, total_b = 0;
  CURED_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (need <= double(free_b)) return "";
  return "skipped: needs " + std::to_string(std::int64_t(need / (1 << 20))) + " MiB of device memory, " +
         std::to_string(free_b >> 20) + " MiB free";
}

template <class T>
void run_segment_rows(const std::string& type_name, context& ctx) {
  if (!ctx.gpu) return;  // main says why: every segmented implementation runs on the GPU
  const double spare = double(std::size_t(256) << 20);
  workspace ws;
  harness::device_buffer<unsigned> sink(1);
  const bool pairs = ctx.opt.selected("cured-pairs");  // (its ends: offsets + 1 in an array of their own)
  for (const std::int64_t n : ctx.opt.sizes) {
    // The values, shared by the size's distributions.
    harness::device_buffer<T> d;
    std::vector<T> h;
    std::string skip;
    try {
      skip = device_memory_short(double(n) * sizeof(T) + spare);
      if (skip.empty()) {
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
    for (const auto& w : ctx.opt.segment_workloads) {
      if (w.n != n) continue;
      const work_done unit(ctx, n);
      std::vector<std::int64_t> offsets;
      harness::device_buffer<std::int64_t> d_offsets, d_ends;
      std::string wskip = skip;
      try {
        offsets = segment_offsets(w.dist, n, ctx.seed);
        const std::int64_t count = std::int64_t(offsets.size()) - 1;
        ctx.progress(type_name + " n=" + std::to_string(n) + " " + distribution_text(w.dist) + ": " +
                     std::to_string(count) + " segments");
        // The offsets (and the ends), cured's output and CUB's (up to 16 bytes an output), 256 MiB to spare.
        if (wskip.empty())
          wskip = device_memory_short(double(count + 1) * 8 + double(count) * (pairs ? 32 : 24) + spare);
        if (wskip.empty()) {
          d_offsets = harness::device_buffer<std::int64_t>(offsets.size());
          CURED_CHECK(cudaMemcpy(d_offsets.data(), offsets.data(), offsets.size() * sizeof(std::int64_t),
                                 cudaMemcpyHostToDevice));
          if (pairs && count > 0) {
            d_ends = harness::device_buffer<std::int64_t>(std::size_t(count));
            CURED_CHECK(cudaMemcpy(d_ends.data(), d_offsets.data() + 1, std::size_t(count) * sizeof(std::int64_t),
                                   cudaMemcpyDeviceToDevice));
          }
        }
      } catch (const std::bad_alloc&) {
        if (wskip.empty()) wskip = "skipped: not enough host memory";
      } catch (const std::exception& e) {
        if (wskip.empty()) wskip = std::string("error: ") + e.what();
      }
      std::optional<segment_reference<T>> ref;
      if (wskip.empty()) ref.emplace(h.data(), offsets);
      const segment_case<T> c{type_name,
                              w,
                              offsets,
                              offsets.empty() ? 0 : std::int64_t(offsets.size()) - 1,
                              wskip.empty() ? d.data() : nullptr,
                              wskip.empty() ? d_offsets.data() : nullptr,
                              wskip.empty() && d_ends.size() > 0 ? d_ends.data() : nullptr,
                              ref ? &*ref : nullptr,
                              wskip,
                              ws,
                              sink};
      for (const std::string& op_name : ctx.opt.ops)
        with_segment_op(op_name, [&](auto entry) { run_segment_op<T, typename decltype(entry)::type>(c, ctx); });
    }
  }
}

}  // namespace cured::bench
