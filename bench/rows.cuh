#pragma once
// The rows of one element type: every selected implementation x op x size, on one fresh input
// per size of the selected data family, each result checked against the exact answer (plain
// sums of normal and spread data: against the exact sum, within an error bound).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "bench/answer.cuh"
#include "bench/context.hpp"
#include "bench/implementations.cuh"
#include "bench/ops.cuh"
#include "bench/reference.cuh"
#include "harness/data_family.hpp"
#include "harness/device_buffer.cuh"
#include "harness/inputs.cuh"
#include "harness/parallel_chunks.hpp"

namespace cured::bench {

template <class T>
void run_rows(const std::string& type_name, context& ctx) {
  const data_family data = ctx.opt.data;
  if (data != data_family::exact && !harness::floating_input<T>) {  // parse_options rejects this already
    ctx.progress(type_name + ": no " + std::string(data_name(data)) + " data; skipped");
    return;
  }
  auto impls = implementations<T>(ctx);
  std::erase_if(impls,
                [&](const implementation<T>& im) { return !ctx.opt.selected(im.name) || (im.on_gpu && !ctx.gpu); });
  if (impls.empty()) return;
  const bool need_host = std::any_of(impls.begin(), impls.end(), [](const auto& im) { return !im.on_gpu; });
  for (const std::int64_t n : ctx.opt.sizes) {
    const work_done unit(ctx, n);
    const double bytes = double(n) * sizeof(T);
    input<T> in;
    in.n = n;
    harness::device_buffer<T> dbuf;
    std::string skip;
    try {
      if (ctx.gpu) {
        std::size_t free_b = 0, total_b = 0;
        CURED_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const std::size_t need = std::size_t(bytes) + (std::size_t(256) << 20);
        if (need > free_b) {
          skip = "skipped: needs " + std::to_string(need >> 20) + " MiB of device memory, " +
                 std::to_string(free_b >> 20) + " MiB free";
        } else {
          dbuf = harness::device_buffer<T>(std::size_t(n));
          if (data == data_family::exact) harness::fill_device(dbuf.data(), n, ctx.seed);
          else harness::fill_device_family(dbuf.data(), n, ctx.seed, data);
          in.d = dbuf.data();
          if (need_host) {
            in.h.resize(std::size_t(n));
            CURED_CHECK(cudaMemcpy(in.h.data(), in.d, std::size_t(bytes), cudaMemcpyDeviceToHost));
          }
        }
      } else {
        in.h.resize(std::size_t(n));
        harness::parallel_chunks<int>(n, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i) in.h[i] = harness::family_value<T>(data, ctx.seed, std::uint64_t(i));
          return 0;
        });
      }
    } catch (const std::bad_alloc&) {
      skip = "skipped: not enough host memory";
    }
    // One reference answers every op of this input (normal and spread data: in one pass).
    reference<T> ref(in, data, ctx.seed);
    for (const std::string& op_name : ctx.opt.ops) {
      const op<T>& o = *find_op<T>(op_name);
      if (std::none_of(impls.begin(), impls.end(), [&](const auto& im) { return im.supports(o); })) continue;
      const std::string what = type_name + " " + op_name + " " + std::string(data_name(data)) + " n=" + std::to_string(n);
      answer<T> want;
      if (!skip.empty()) ctx.progress(what + ": " + skip);
      else want = o.expect(ref);
      for (auto& im : impls) {
        if (!im.supports(o)) continue;
        row r;
        r.impl = im.name;
        r.type = type_name;
        r.op = op_name;
        r.data = std::string(data_name(data));
        r.n = n;
        r.block = im.block;
        r.bytes = bytes;
        if (!skip.empty()) {
          r.check = skip;
        } else {
          ctx.progress(what + " " + im.name);
          try {
            const measured<T> m = im.run(o, in, ctx);
            r.cold_ms = m.t.cold_ms;
            r.hot_ms = m.t.hot_ms;
            r.cold_noise = m.t.cold_noise;
            r.check = im.reduces ? compare(o.field, m.got, want) : std::string(no_result_check);
          } catch (const std::exception& e) {
            r.check = std::string("error: ") + e.what();
          }
        }
        ctx.add(std::move(r));
      }
    }
  }
}

}  // namespace cured::bench
