#pragma once
// The implementations cured-bench times for element type T: the ladder's steps, the library
// in its two forms, CUB, Thrust, the read floor and the CPU. Each offers the ops whose op
// table entry (bench/ops.cuh) names it, and runs them as that entry says, timed cold and hot.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/answer.cuh"
#include "bench/context.hpp"
#include "bench/ops.cuh"
#include "cured/cured.cuh"
#include "harness/device_buffer.cuh"
#include "ladder/ladder.cuh"

namespace cured::bench {

template <class T>
struct measured {
  timing t;
  answer<T> got;
};

/// An implementation cured-bench can time for element type T.
template <class T>
struct implementation {
  std::string name;
  int block = 0;  ///< threads per block, for the ladder rows
  bool on_gpu = true;
  std::function<bool(const op<T>&)> supports;
  std::function<measured<T>(const op<T>&, const input<T>&, context&)> run;
  bool reduces = true;  ///< false: no result to check (the floor): no_result_check
};

/// The element types the ladder's steps are instantiated for.
template <class T>
concept ladder_type = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
                      std::is_same_v<T, std::uint32_t>;

/// cub::DeviceReduce: the temporary storage sized and allocated once, untimed.
template <class T>
measured<T> run_cub(const op<T>& o, const input<T>& in, context& c) {
  device_answer<T> out;
  std::size_t bytes = 0;
  CURED_CHECK(o.cub(nullptr, bytes, in, out, c.stream));
  harness::device_buffer<char> temp(std::max<std::size_t>(bytes, 1));
  measured<T> m;
  m.t = time_async([&](cudaStream_t s) { CURED_CHECK(o.cub(temp.data(), bytes, in, out, s)); }, plan_of(c, false),
                   *c.flusher, c.stream);
  m.got = out.read(o.field);
  return m;
}

/// cuBLAS: one handle, its stream the timing's and its results in device memory, created untimed.
template <class T>
measured<T> run_cublas(const op<T>& o, const input<T>& in, context& c) {
  cublasHandle_t h = nullptr;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw error("cuBLAS: cublasCreate failed");
  measured<T> m;
  try {
    device_answer<T> out;
    if (cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS)
      throw error("cuBLAS: cublasSetPointerMode failed");
    m.t = time_async(
        [&](cudaStream_t s) {
          if (cublasSetStream(h, s) != CUBLAS_STATUS_SUCCESS) throw error("cuBLAS: cublasSetStream failed");
          o.cublas(h, in, out);
        },
        plan_of(c, false), *c.flusher, c.stream);
    m.got = out.read(o.field);
  } catch (...) {
    cublasDestroy(h);
    throw;
  }
  cublasDestroy(h);
  return m;
}

/// The library's asynchronous form, one launch per sample.
template <class T>
measured<T> run_cured(const op<T>& o, const input<T>& in, context& c) {
  device_answer<T> out;
  workspace ws;
  measured<T> m;
  m.t = time_async([&](cudaStream_t s) { o.cured(in, out, ws, s); }, plan_of(c, false), *c.flusher, c.stream);
  m.got = o.field == answer_field::index ? out.read_key_value() : out.read(o.field);
  return m;
}

/// A call that waits for its answer and returns it on the host (cured's blocking forms, Thrust), timed
/// as a user sees it: launch, copy back, synchronize.
template <class T>
measured<T> run_blocking(void (*call)(const input<T>&, answer<T>&, cudaStream_t), const input<T>& in,
                             context& c) {
  measured<T> m;
  m.t = time_blocking([&] { call(in, m.got, c.stream); }, plan_of(c, false), [&] {
    c.flusher->flush(c.stream);
    CURED_CHECK(cudaStreamSynchronize(c.stream));
  });
  return m;
}

/// The read floor: a kernel that only reads the input (enqueue_read), timed as the reductions are.
template <class T>
measured<T> run_floor(const op<T>&, const input<T>& in, context& c) {
  harness::device_buffer<unsigned> sink(1);
  measured<T> m;
  m.t = time_async([&](cudaStream_t s) { enqueue_read(in.d, std::size_t(in.n) * sizeof(T), sink.data(), c.dev, s); },
                   plan_of(c, false), *c.flusher, c.stream);
  return m;
}

/// A CPU call on the host's copy of the input.
template <class T>
measured<T> run_on_cpu(void (*call)(std::span<const T>, answer<T>&), const input<T>& in, context& c) {
  measured<T> m;
  m.t = time_blocking([&] { call(std::span<const T>(in.h), m.got); }, plan_of(c, true), [] {});
  return m;
}

template <class T>
std::vector<implementation<T>> implementations(const context& ctx) {
  std::vector<implementation<T>> all;
  if constexpr (ladder_type<T>) {
    for (const auto& step : ladder::steps()) {
      all.push_back({"step" + std::to_string(step.number), ctx.opt.block, true, [](const op<T>& o) { return o.ladder; },
                     [&step](const op<T>&, const input<T>& in, context& c) {
                       ladder::workspace ws;
                       device_answer<T> out;
                       measured<T> m;
                       m.t = time_async(
                           [&](cudaStream_t s) { step.run<T>()(in.d, in.n, out.sum.data(), c.opt.block, ws, s); },
                           plan_of(c, false), *c.flusher, c.stream);
                       m.got = out.read(answer_field::sum);
                       return m;
                     }});
    }
  }
  all.push_back({"cured", 0, true, [](const op<T>& o) { return o.cured != nullptr; }, run_cured<T>});
  all.push_back({"cured-blocking", 0, true, [](const op<T>& o) { return o.cured_blocking != nullptr; },
                 [](const op<T>& o, const input<T>& in, context& c) { return run_blocking(o.cured_blocking, in, c); }});
  all.push_back({"cub", 0, true, [](const op<T>& o) { return o.cub != nullptr; }, run_cub<T>});
  all.push_back({"cublas", 0, true, [](const op<T>& o) { return o.cublas != nullptr; }, run_cublas<T>});
  all.push_back({"thrust", 0, true, [](const op<T>& o) { return o.thrust != nullptr; },
                 [](const op<T>& o, const input<T>& in, context& c) { return run_blocking(o.thrust, in, c); }});
  all.push_back({"floor", 0, true, [](const op<T>&) { return true; }, run_floor<T>, false});
  if constexpr (cpu_type<T>) {
    all.push_back({"cpu", 0, false, [](const op<T>& o) { return o.cpu != nullptr; },
                   [](const op<T>& o, const input<T>& in, context& c) { return run_on_cpu(o.cpu, in, c); }});
    all.push_back({"cpu-mt", 0, false, [](const op<T>& o) { return o.cpu_mt != nullptr; },
                   [](const op<T>& o, const input<T>& in, context& c) { return run_on_cpu(o.cpu_mt, in, c); }});
  }
  return all;
}

}  // namespace cured::bench
