#pragma once
// The rows of one element type: every selected implementation x op x size, on one fresh input
// per size, each result checked against the exact answer.

#include <cuda_runtime_api.h>

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/context.hpp"
#include "bench/device_buffer.cuh"
#include "bench/inputs.cuh"
#include "cpu/cpu_reduce.hpp"
#include "cured/cured.cuh"
#include "ladder/ladder.cuh"

namespace cured::bench {

enum class op_kind { sum, min, max, argmin, argmax };

inline std::optional<op_kind> op_from_name(const std::string& s) {
  if (s == "sum") return op_kind::sum;
  if (s == "min") return op_kind::min;
  if (s == "max") return op_kind::max;
  if (s == "argmin") return op_kind::argmin;
  if (s == "argmax") return op_kind::argmax;
  return std::nullopt;
}

template <class T>
std::string value_string(const T& v) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", double(float(v)));
    return buf;
  }
}

/// What any implementation of an op returns, in one shape: the sum in the accumulator, the
/// extreme value, and the index for the arg ops.
template <class T>
struct answer {
  accumulator_t<T> sum{};
  T value{};
  std::int64_t index = -1;
};

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// "ok", or what differs.
template <class T>
std::string compare(op_kind op, const answer<T>& got, const answer<T>& want) {
  switch (op) {
    case op_kind::sum:
      return same_bits(got.sum, want.sum) ? "ok" : "got " + value_string(got.sum) + " want " + value_string(want.sum);
    case op_kind::min:
    case op_kind::max:
      return same_bits(got.value, want.value) ? "ok"
                                              : "got " + value_string(got.value) + " want " + value_string(want.value);
    default:
      return got.index == want.index ? "ok" : "got index " + std::to_string(got.index) + " want " + std::to_string(want.index);
  }
}

/// The exact answers for the exact input family, recomputed on the host from (seed, i).
template <class T>
answer<T> expected(op_kind op, std::int64_t n, std::uint64_t seed) {
  answer<T> a;
  if (op == op_kind::sum) {
    a.sum = accumulator_t<T>(exact_family_sum<T>(n, seed));
    return a;
  }
  const bool want_max = op == op_kind::max || op == op_kind::argmax;
  struct best {
    std::int64_t index = -1;
    T value{};
  };
  auto better = [&](const T& x, const T& y) { return want_max ? detail::less(y, x) : detail::less(x, y); };
  const auto parts = parallel_chunks<best>(n, [&](std::int64_t b, std::int64_t e) {
    best r;
    for (std::int64_t i = b; i < e; ++i) {
      const T x = exact_value<T>(seed, std::uint64_t(i));
      if (r.index < 0 || better(x, r.value)) r = {i, x};
    }
    return r;
  });
  best all;
  for (const best& p : parts)  // chunks in index order: strict improvement keeps the first index
    if (p.index >= 0 && (all.index < 0 || better(p.value, all.value))) all = p;
  if (n == 0) {
    a.value = want_max ? maximum::identity<T>() : minimum::identity<T>();
    return a;
  }
  a.index = all.index;
  a.value = exact_value<T>(seed, std::uint64_t(all.index));
  return a;
}

/// One input array on the device (and on the host when a CPU implementation runs).
template <class T>
struct input {
  std::int64_t n = 0;
  const T* d = nullptr;
  std::vector<T> h;
};

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
  std::function<bool(op_kind)> supports;
  std::function<measured<T>(op_kind, const input<T>&, context&)> run;
};

inline timing_plan plan_of(const context& ctx, bool cpu) {
  timing_plan p;
  p.cold = ctx.opt.cold;
  p.hot = ctx.opt.hot;
  p.samples = ctx.opt.samples;
  p.min_samples = cpu ? 3 : 10;
  return p;
}

/// Device storage for any op's result, read back into an answer.
template <class T>
struct device_answer {
  device_buffer<accumulator_t<T>> sum{1};
  device_buffer<T> value{1};
  device_buffer<std::int64_t> index{1};
  device_buffer<key_value<T>> kv{1};
  answer<T> read(op_kind op) const {
    answer<T> a;
    if (op == op_kind::sum) {
      CURED_CHECK(cudaMemcpy(&a.sum, sum.data(), sizeof(a.sum), cudaMemcpyDeviceToHost));
    } else if (op == op_kind::min || op == op_kind::max) {
      CURED_CHECK(cudaMemcpy(&a.value, value.data(), sizeof(T), cudaMemcpyDeviceToHost));
    } else {
      CURED_CHECK(cudaMemcpy(&a.index, index.data(), sizeof(a.index), cudaMemcpyDeviceToHost));
    }
    return a;
  }
};

template <class T>
constexpr bool ladder_type = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                             std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t>;

template <class T>
measured<T> run_cub(op_kind op, const input<T>& in, context& c) {
  device_answer<T> out;
  // CUB's two-phase call: the first sizes the temporary storage, allocated once, untimed.
  auto call = [&](void* temp, std::size_t& bytes, cudaStream_t s) {
    switch (op) {
      case op_kind::sum:  // Sum with the accumulator named: half sums into float
        return cub::DeviceReduce::Reduce(temp, bytes, in.d, out.sum.data(), in.n, ::cuda::std::plus<accumulator_t<T>>{},
                                         accumulator_t<T>(0), s);
      case op_kind::min: return cub::DeviceReduce::Min(temp, bytes, in.d, out.value.data(), in.n, s);
      case op_kind::max: return cub::DeviceReduce::Max(temp, bytes, in.d, out.value.data(), in.n, s);
      case op_kind::argmin:
        return cub::DeviceReduce::ArgMin(temp, bytes, in.d, out.value.data(), out.index.data(), in.n, s);
      default: return cub::DeviceReduce::ArgMax(temp, bytes, in.d, out.value.data(), out.index.data(), in.n, s);
    }
  };
  std::size_t bytes = 0;
  CURED_CHECK(call(nullptr, bytes, c.stream));
  device_buffer<char> temp(std::max<std::size_t>(bytes, 1));
  measured<T> m;
  m.t = time_async([&](cudaStream_t s) { CURED_CHECK(call(temp.data(), bytes, s)); }, plan_of(c, false), *c.flusher,
                   c.stream);
  m.got = out.read(op);
  return m;
}

template <class T>
measured<T> run_cured(op_kind op, const input<T>& in, context& c) {
  device_answer<T> out;
  workspace ws;
  measured<T> m;
  m.t = time_async(
      [&](cudaStream_t s) {
        switch (op) {
          case op_kind::sum: sum_async(in.d, in.n, out.sum.data(), ws, s); break;
          case op_kind::min: min_async(in.d, in.n, out.value.data(), ws, s); break;
          case op_kind::max: max_async(in.d, in.n, out.value.data(), ws, s); break;
          case op_kind::argmin: argmin_async(in.d, in.n, out.kv.data(), ws, s); break;
          case op_kind::argmax: argmax_async(in.d, in.n, out.kv.data(), ws, s); break;
        }
      },
      plan_of(c, false), *c.flusher, c.stream);
  if (op == op_kind::argmin || op == op_kind::argmax) {
    key_value<T> kv;
    CURED_CHECK(cudaMemcpy(&kv, out.kv.data(), sizeof kv, cudaMemcpyDeviceToHost));
    m.got.index = kv.index;
  } else {
    m.got = out.read(op);
  }
  return m;
}

/// The blocking forms, as a user calls them: launch, copy back, synchronize.
template <class T>
measured<T> run_cured_blocking(op_kind op, const input<T>& in, context& c) {
  measured<T> m;
  auto call = [&] {
    switch (op) {
      case op_kind::sum: m.got.sum = sum(in.d, in.n, c.stream); break;
      case op_kind::min: m.got.value = min(in.d, in.n, c.stream); break;
      case op_kind::max: m.got.value = max(in.d, in.n, c.stream); break;
      case op_kind::argmin: m.got.index = argmin(in.d, in.n, c.stream).index; break;
      case op_kind::argmax: m.got.index = argmax(in.d, in.n, c.stream).index; break;
    }
  };
  m.t = time_blocking(call, plan_of(c, false), [&] {
    c.flusher->flush(c.stream);
    CURED_CHECK(cudaStreamSynchronize(c.stream));
  });
  return m;
}

/// thrust::reduce / min_element / max_element as users call them: allocation and synchronization included.
template <class T>
measured<T> run_thrust(op_kind op, const input<T>& in, context& c) {
  using acc = accumulator_t<T>;
  measured<T> m;
  const auto policy = thrust::cuda::par.on(c.stream);
  auto call = [&] {
    switch (op) {
      case op_kind::sum: m.got.sum = thrust::reduce(policy, in.d, in.d + in.n, acc(0), thrust::plus<acc>()); break;
      case op_kind::min: m.got.value = thrust::reduce(policy, in.d, in.d + in.n, minimum::identity<T>(), thrust::minimum<T>()); break;
      case op_kind::max: m.got.value = thrust::reduce(policy, in.d, in.d + in.n, maximum::identity<T>(), thrust::maximum<T>()); break;
      case op_kind::argmin: m.got.index = thrust::min_element(policy, in.d, in.d + in.n) - in.d; break;
      case op_kind::argmax: m.got.index = thrust::max_element(policy, in.d, in.d + in.n) - in.d; break;
    }
  };
  m.t = time_blocking(call, plan_of(c, false), [&] {
    c.flusher->flush(c.stream);
    CURED_CHECK(cudaStreamSynchronize(c.stream));
  });
  return m;
}

template <class T>
std::vector<implementation<T>> implementations(const context& ctx) {
  std::vector<implementation<T>> all;
  auto sum_only = [](op_kind op) { return op == op_kind::sum; };
  auto any_op = [](op_kind) { return true; };
  if constexpr (ladder_type<T>) {
    for (const auto& step : ladder::steps()) {
      all.push_back({"step" + std::to_string(step.number), ctx.opt.block, true, sum_only,
                     [&step](op_kind, const input<T>& in, context& c) {
                       ladder::workspace ws;
                       device_answer<T> out;
                       measured<T> m;
                       m.t = time_async(
                           [&](cudaStream_t s) { step.run<T>()(in.d, in.n, out.sum.data(), c.opt.block, ws, s); },
                           plan_of(c, false), *c.flusher, c.stream);
                       m.got = out.read(op_kind::sum);
                       return m;
                     }});
    }
  }
  all.push_back({"cured", 0, true, any_op, run_cured<T>});
  all.push_back({"cured-blocking", 0, true, any_op, run_cured_blocking<T>});
  all.push_back({"cub", 0, true, any_op, run_cub<T>});
  all.push_back({"thrust", 0, true, any_op, run_thrust<T>});
  if constexpr (ladder_type<T>) {
    all.push_back({"cpu", 0, false, sum_only, [](op_kind, const input<T>& in, context& c) {
                     measured<T> m;
                     m.t = time_blocking([&] { m.got.sum = cpu::serial_sum(std::span<const T>(in.h)); },
                                         plan_of(c, true), [] {});
                     return m;
                   }});
    all.push_back({"cpu-mt", 0, false, sum_only, [](op_kind, const input<T>& in, context& c) {
                     measured<T> m;
                     m.t = time_blocking([&] { m.got.sum = cpu::parallel_sum(std::span<const T>(in.h)); },
                                         plan_of(c, true), [] {});
                     return m;
                   }});
  }
  return all;
}

inline bool selected(const options& opt, const std::string& name) {
  return std::find(opt.impls.begin(), opt.impls.end(), name) != opt.impls.end();
}

template <class T>
void run_rows(const std::string& type_name, context& ctx) {
  auto impls = implementations<T>(ctx);
  std::erase_if(impls, [&](const implementation<T>& im) { return !selected(ctx.opt, im.name) || (im.on_gpu && !ctx.gpu); });
  if (impls.empty()) return;
  const bool need_host = std::any_of(impls.begin(), impls.end(), [](const auto& im) { return !im.on_gpu; });
  for (const std::int64_t n : ctx.opt.sizes) {
    const double bytes = double(n) * sizeof(T);
    input<T> in;
    in.n = n;
    device_buffer<T> dbuf;
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
          dbuf = device_buffer<T>(std::size_t(n));
          fill_device(dbuf.data(), n, ctx.seed);
          in.d = dbuf.data();
          if (need_host) {
            in.h.resize(std::size_t(n));
            CURED_CHECK(cudaMemcpy(in.h.data(), in.d, std::size_t(bytes), cudaMemcpyDeviceToHost));
          }
        }
      } else {
        in.h.resize(std::size_t(n));
        parallel_chunks<int>(n, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i) in.h[i] = exact_value<T>(ctx.seed, std::uint64_t(i));
          return 0;
        });
      }
    } catch (const std::bad_alloc&) {
      skip = "skipped: not enough host memory";
    }
    for (const std::string& op_name : ctx.opt.ops) {
      const op_kind op = *op_from_name(op_name);
      const std::string what = type_name + " " + op_name + " n=" + std::to_string(n);
      answer<T> want;
      if (skip.empty()) want = expected<T>(op, n, ctx.seed);
      else ctx.progress(what + ": " + skip);
      for (auto& im : impls) {
        if (!im.supports(op)) continue;
        row r;
        r.impl = im.name;
        r.type = type_name;
        r.op = op_name;
        r.n = n;
        r.block = im.block;
        r.bytes = bytes;
        if (!skip.empty()) {
          r.check = skip;
        } else {
          ctx.progress(what + " " + im.name);
          try {
            const measured<T> m = im.run(op, in, ctx);
            r.cold_ms = m.t.cold_ms;
            r.hot_ms = m.t.hot_ms;
            r.check = compare(op, m.got, want);
          } catch (const std::exception& e) {
            r.check = std::string("error: ") + e.what();
          }
        }
        ctx.rows.push_back(r);
      }
    }
  }
}

}  // namespace cured::bench
