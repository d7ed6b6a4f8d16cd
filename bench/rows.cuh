#pragma once
// The rows of one element type: every selected implementation x op x size, on one fresh input
// per size of the selected data family, each result checked against the exact answer (plain
// sums of normal and spread data: against the exact sum, within an error bound).

#include <cuda_runtime_api.h>

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
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
#include "cpu/reference.hpp"
#include "cured/cured.cuh"
#include "ladder/ladder.cuh"

namespace cured::bench {

enum class op_kind { sum, exact_sum, min, max, argmin, argmax };

inline std::optional<op_kind> op_from_name(const std::string& s) {
  if (s == "sum") return op_kind::sum;
  if (s == "exact_sum") return op_kind::exact_sum;
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
  } else if constexpr (std::is_same_v<T, double>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", double(float(v)));
    return buf;
  }
}

/// The element types with exact sums (cured::exact_sum): the floating ones.
template <class T>
inline constexpr bool exact_sum_type = floating_input<T>;

/// What any implementation of an op returns, in one shape: the sum in the accumulator (also the
/// result of exact_sum, whose type cured::exact_result_t<T> is the accumulator of every
/// floating T), the extreme value, and the index for the arg ops.
template <class T>
struct answer {
  accumulator_t<T> sum{};
  T value{};
  std::int64_t index = -1;
  /// Expected answers only: a plain sum of inexact data (normal, spread) checks ok when within
  /// this distance of `sum`, the correctly rounded exact sum; unset: bit for bit.
  std::optional<double> sum_tolerance;
};

template <class T>
double as_double(const T& x) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) return double(float(x));
  else return double(x);
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// "ok", or what differs.
template <class T>
std::string compare(op_kind op, const answer<T>& got, const answer<T>& want) {
  switch (op) {
    case op_kind::sum:
      if (want.sum_tolerance) {
        const double error = std::fabs(as_double(got.sum) - as_double(want.sum));
        if (error <= *want.sum_tolerance) return "ok";  // false for NaN
        char buf[160];
        std::snprintf(buf, sizeof buf, " (error %.3g, bound %.3g)", error, *want.sum_tolerance);
        return "got " + value_string(got.sum) + " want " + value_string(want.sum) + buf;
      }
      [[fallthrough]];
    case op_kind::exact_sum:
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
  if (op == op_kind::sum || op == op_kind::exact_sum) {
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

/// What the checks need of an input of the normal or spread family, from one pass over its
/// values: the exact sum, the sum of magnitudes (for the error bound of plain sums), the first
/// smallest and the first largest element.
template <class T>
struct summary {
  cpu::exact_accumulator exact;
  double abs = 0;
  std::int64_t lo = -1, hi = -1;
  T lo_value{}, hi_value{};

  void add(std::int64_t i, const T& x) {
    const double d = as_double(x);  // exact for every floating T
    exact.add(d);
    abs += std::fabs(d);
    if (lo < 0 || detail::less(x, lo_value)) lo = i, lo_value = x;
    if (hi < 0 || detail::less(hi_value, x)) hi = i, hi_value = x;
  }
  /// Adds `later`, a summary of elements after every element of this one (first indices win).
  void merge(const summary& later) {
    exact.merge(later.exact);
    abs += later.abs;
    if (later.lo >= 0 && (lo < 0 || detail::less(later.lo_value, lo_value))) lo = later.lo, lo_value = later.lo_value;
    if (later.hi >= 0 && (hi < 0 || detail::less(hi_value, later.hi_value))) hi = later.hi, hi_value = later.hi_value;
  }
};

/// The summary of h[0, size), elements numbered from `first`, over every core.
template <class T>
summary<T> summarize_host(const T* h, std::int64_t size, std::int64_t first) {
  const auto parts = parallel_chunks<summary<T>>(size, [&](std::int64_t b, std::int64_t e) {
    summary<T> s;
    for (std::int64_t i = b; i < e; ++i) s.add(first + i, h[i]);
    return s;
  });
  summary<T> all;
  for (const auto& p : parts) all.merge(p);  // chunks in index order
  return all;
}

/// The summary of d[0, n) as the device holds it, copied back 256 MiB at a time.
template <class T>
summary<T> summarize_device(const T* d, std::int64_t n) {
  const std::int64_t chunk = std::max<std::int64_t>(1, (std::int64_t(256) << 20) / std::int64_t(sizeof(T)));
  std::vector<T> h(std::size_t(std::min(n, chunk)));
  summary<T> all;
  for (std::int64_t b = 0; b < n; b += chunk) {
    const std::int64_t m = std::min(chunk, n - b);
    CURED_CHECK(cudaMemcpy(h.data(), d + b, std::size_t(m) * sizeof(T), cudaMemcpyDeviceToHost));
    all.merge(summarize_host(h.data(), m, b));
  }
  return all;
}

/// The expected answers for inexact data from its summary: exact sums correctly rounded and
/// checked bit for bit; plain sums within n * eps * sum |x| of the exact sum (eps of the
/// accumulator), a bound that holds for any order of additions; extremes exact.
template <class T>
answer<T> expected_from(op_kind op, std::int64_t n, const summary<T>& s) {
  using acc = accumulator_t<T>;
  answer<T> a;
  switch (op) {
    case op_kind::sum:
    case op_kind::exact_sum:
      if constexpr (std::is_same_v<acc, double>) a.sum = s.exact.round_to_double();
      else a.sum = acc(s.exact.round_to_float());
      if (op == op_kind::sum) a.sum_tolerance = double(n) * double(std::numeric_limits<acc>::epsilon()) * s.abs;
      return a;
    case op_kind::min:
    case op_kind::argmin:
      a.index = s.lo;
      a.value = n > 0 ? s.lo_value : minimum::identity<T>();
      return a;
    default:
      a.index = s.hi;
      a.value = n > 0 ? s.hi_value : maximum::identity<T>();
      return a;
  }
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
  bool reduces = true;  ///< false: no result to check (the floor): no_result_check
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
    if (op == op_kind::sum || op == op_kind::exact_sum) {
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
      case op_kind::argmax:
        return cub::DeviceReduce::ArgMax(temp, bytes, in.d, out.value.data(), out.index.data(), in.n, s);
      default: return cudaErrorNotSupported;  // exact_sum: not offered
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
          case op_kind::exact_sum:
            if constexpr (exact_sum_type<T>) {
              static_assert(std::is_same_v<exact_result_t<T>, accumulator_t<T>>);
              exact_sum_async(in.d, in.n, out.sum.data(), ws, s);
            }
            break;
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
      case op_kind::exact_sum:
        if constexpr (exact_sum_type<T>) m.got.sum = exact_sum(in.d, in.n, c.stream);
        break;
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

/// The read floor: a kernel that only reads the input (enqueue_read), timed as the reductions are.
template <class T>
measured<T> run_floor(op_kind, const input<T>& in, context& c) {
  device_buffer<unsigned> sink(1);
  measured<T> m;
  m.t = time_async([&](cudaStream_t s) { enqueue_read(in.d, std::size_t(in.n) * sizeof(T), sink.data(), c.dev, s); },
                   plan_of(c, false), *c.flusher, c.stream);
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
      case op_kind::exact_sum: break;  // not offered
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
  // Which ops each implementation offers; the other combinations make no rows.
  auto sum_only = [](op_kind op) { return op == op_kind::sum; };
  auto plain_ops = [](op_kind op) { return op != op_kind::exact_sum; };
  auto cured_ops = [](op_kind op) { return op != op_kind::exact_sum || exact_sum_type<T>; };
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
  all.push_back({"cured", 0, true, cured_ops, run_cured<T>});
  all.push_back({"cured-blocking", 0, true, cured_ops, run_cured_blocking<T>});
  all.push_back({"cub", 0, true, plain_ops, run_cub<T>});
  all.push_back({"thrust", 0, true, plain_ops, run_thrust<T>});
  all.push_back({"floor", 0, true, [](op_kind) { return true; }, run_floor<T>, false});
  if constexpr (ladder_type<T>) {
    // cpu: the serial sum, and for float and double the reference exact sum (cured::cpu::exact_sum).
    auto cpu_ops = [](op_kind op) { return op == op_kind::sum || (op == op_kind::exact_sum && exact_sum_type<T>); };
    all.push_back({"cpu", 0, false, cpu_ops, [](op_kind op, const input<T>& in, context& c) {
                     measured<T> m;
                     m.t = time_blocking(
                         [&] {
                           if constexpr (exact_sum_type<T>) {
                             if (op == op_kind::exact_sum) {
                               m.got.sum = cpu::exact_sum(std::span<const T>(in.h));
                               return;
                             }
                           }
                           m.got.sum = cpu::serial_sum(std::span<const T>(in.h));
                         },
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
  const data_family data = ctx.opt.data;
  if (data != data_family::exact && !floating_input<T>) {  // parse_options rejects this already
    ctx.progress(type_name + ": no " + std::string(data_name(data)) + " data; skipped");
    return;
  }
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
          if (data == data_family::exact) fill_device(dbuf.data(), n, ctx.seed);
          else fill_device_family(dbuf.data(), n, ctx.seed, data);
          in.d = dbuf.data();
          if (need_host) {
            in.h.resize(std::size_t(n));
            CURED_CHECK(cudaMemcpy(in.h.data(), in.d, std::size_t(bytes), cudaMemcpyDeviceToHost));
          }
        }
      } else {
        in.h.resize(std::size_t(n));
        parallel_chunks<int>(n, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i) in.h[i] = family_value<T>(data, ctx.seed, std::uint64_t(i));
          return 0;
        });
      }
    } catch (const std::bad_alloc&) {
      skip = "skipped: not enough host memory";
    }
    // Normal and spread data: one pass over the values (the device's own, copied back: the
    // host's libm may round the generator's log and cos differently) answers every op.
    std::optional<summary<T>> values;
    for (const std::string& op_name : ctx.opt.ops) {
      const op_kind op = *op_from_name(op_name);
      if (std::none_of(impls.begin(), impls.end(), [&](const auto& im) { return im.supports(op); })) continue;
      const std::string what = type_name + " " + op_name + " " + std::string(data_name(data)) + " n=" + std::to_string(n);
      answer<T> want;
      if (!skip.empty()) {
        ctx.progress(what + ": " + skip);
      } else if (data == data_family::exact) {
        want = expected<T>(op, n, ctx.seed);
      } else {
        if (!values) values = in.h.empty() ? summarize_device(in.d, n) : summarize_host(in.h.data(), n, 0);
        want = expected_from(op, n, *values);
      }
      for (auto& im : impls) {
        if (!im.supports(op)) continue;
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
            const measured<T> m = im.run(op, in, ctx);
            r.cold_ms = m.t.cold_ms;
            r.hot_ms = m.t.hot_ms;
            r.check = im.reduces ? compare(op, m.got, want) : std::string(no_result_check);
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
