// The reductions along axes (cured/axes.cuh) against the CPU reference (cpu/axis_reference.hpp):
// every subset of the axes of random 1- to 4-D shapes, non-contiguous views (transposes,
// slices, sub-blocks, broadcasts, misaligned bases), outputs of every layout, every op and
// its blocking form, every kernel of the axis dispatch, determinism, graph capture, more than
// 2^32 elements and reduced extents above 2^31, and every bad argument.
//
// Each (type, op) is instantiated once, in `checker`; the shapes vary at run time. The plans
// of the kernel table and the views' own limits are checked without a GPU; every other test
// skips without one. CURED_TEST_MAX_N (the sanitizer runs) drops the views above that many
// elements and thins the rest.

#include <gtest/gtest.h>

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpu/axis_reference.hpp"
#include "cpu/random.hpp"
#include "cured/cured.cuh"
#include "harness/inputs.cuh"
#include "tests/support/elements.cuh"
#include "tests/support/gpu.cuh"

namespace {

using cured::axes;
using cured::index_t;
using cured::strided_view;
using cured::cpu::axis_shape;
using cured::test::device_buffer;
using cured::test::from_double;
using cured::test::is_half;
using cured::test::same_bits;
using cured::test::to_double;

// ---- element types ----------------------------------------------------------------------------

template <class T>
constexpr bool is_floating = std::is_floating_point_v<T> || is_half<T>;

template <class T>
bool is_nan(const T& x) {
  if constexpr (is_floating<T>) return std::isnan(to_double(x));
  else return false;
}

template <class T>
std::string show(const T& x) {
  if constexpr (is_floating<T>) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.17g", to_double(x));
    return buf;
  } else if constexpr (std::is_same_v<T, __int128>) {
    return std::to_string(static_cast<long double>(x));
  } else {
    return std::to_string(x);
  }
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else return "half";
}

/// Sanitizer runs set CURED_TEST_MAX_N: views above it are dropped, and the rest thinned.
bool quick() { return cured::test::max_test_n() < (std::int64_t(1) << 22); }
bool fits(std::int64_t elements) { return elements <= cured::test::max_test_n(); }

// ---- inputs -----------------------------------------------------------------------------------

/// Small nonzero integers in [-8, 8] (sums exact in any order; many ties), real values
/// (uniform in [-1, 1), or any int32: sums within a bound), or small integers with a few NaNs
/// and infinities among them (int32: the extremes).
enum class fill { small_ints, real, specials };

const char* fill_name(fill f) {
  switch (f) {
    case fill::small_ints: return "small integers";
    case fill::real: return "real values";
    case fill::specials: return "specials";
  }
  return "?";
}

template <class T>
T input_value(fill f, std::uint64_t seed, std::uint64_t i) {
  namespace r = cured::random;
  if (f == fill::real) {
    if constexpr (is_floating<T>) return from_double<T>(2 * r::unit(seed, i) - 1);
    else return T(r::word(seed, i));
  }
  if (f == fill::specials) {
    const std::uint64_t pick = r::bits(seed ^ 0x7370656369616c73ull, i) % 499;
    if constexpr (is_floating<T>) {
      if (pick == 0) return from_double<T>(std::numeric_limits<double>::quiet_NaN());
      if (pick == 1) return from_double<T>(INFINITY);
      if (pick == 2) return from_double<T>(-INFINITY);
    } else {
      if (pick == 0) return std::numeric_limits<T>::max();
      if (pick == 1) return std::numeric_limits<T>::lowest();
    }
  }
  return from_double<T>(r::small_int(seed, i));
}

/// A device array and its host copy.
template <class T>
struct mirrored {
  device_buffer<T> d;
  std::vector<T> h;
  explicit mirrored(std::int64_t n) : d(std::size_t(n)), h(std::size_t(n)) {}
  void fill_with(fill f, std::uint64_t seed) {
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = input_value<T>(f, seed, i);
    upload();
  }
  void upload() {
    if (!h.empty()) CURED_CHECK(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    CURED_CHECK(cudaDeviceSynchronize());  // ordered before work on non-blocking streams
  }
};

// ---- views and outputs ------------------------------------------------------------------------

/// A view into a buffer of `buffer` elements, its first element at `offset`.
struct view_case {
  std::string name;
  int rank = 0;
  std::int64_t extents[cured::max_rank] = {};
  std::int64_t strides[cured::max_rank] = {};
  std::int64_t offset = 0;
  std::int64_t buffer = 1;

  std::int64_t size() const {
    std::int64_t n = 1;
    for (int k = 0; k < rank; ++k) n *= extents[k];
    return n;
  }
  /// What a run over it costs: its elements, or its buffer's if more.
  std::int64_t cost() const { return std::max(size(), buffer); }
};

/// A view of `extents` with `strides` (none given: contiguous, row-major), starting at `offset`.
view_case make_case(std::string name, const std::vector<std::int64_t>& extents,
                    const std::vector<std::int64_t>& strides = {}, std::int64_t offset = 0) {
  view_case c;
  c.name = std::move(name);
  c.rank = int(extents.size());
  c.offset = offset;
  std::int64_t step = 1, last = 0;
  for (int k = c.rank - 1; k >= 0; --k) {
    c.extents[k] = extents[k];
    c.strides[k] = strides.empty() ? step : strides[k];
    step *= std::max<std::int64_t>(extents[k], 1);
    if (extents[k] > 0) last += (extents[k] - 1) * c.strides[k];
  }
  c.buffer = offset + last + 1;
  return c;
}

template <class T>
strided_view<const T> view_of(const view_case& c, const T* base) {
  strided_view<const T> v;
  v.data = base + c.offset;
  v.rank = c.rank;
  for (int k = 0; k < c.rank; ++k) {
    v.extents[k] = c.extents[k];
    v.strides[k] = c.strides[k];
  }
  return v;
}

unsigned mask_of(const axes& along, int rank) {
  unsigned mask = 0;
  for (int k = 0; k < along.count; ++k) mask |= 1u << (along.list[k] < 0 ? along.list[k] + rank : along.list[k]);
  return mask;
}

/// The axes of `mask` in a random order, each named k or k - rank at random.
axes along_of(unsigned mask, int rank, std::mt19937_64& rng) {
  axes a;
  for (int k = 0; k < rank; ++k)
    if (mask >> k & 1) a.list[a.count++] = rng() % 2 ? k : k - rank;
  std::shuffle(a.list, a.list + a.count, rng);
  return a;
}

axis_shape shape_of(const view_case& c, unsigned mask) {
  axis_shape s;
  s.rank = c.rank;
  for (int k = 0; k < c.rank; ++k) {
    s.extents[k] = c.extents[k];
    s.strides[k] = c.strides[k];
    s.reduced[k] = mask >> k & 1;
  }
  return s;
}

/// The output views: the kept axes, or every axis with extent 1 where reduced (keepdim);
/// contiguous, or strided (column-major, every other element with gaps, from element 1; the
/// reduced axes of keepdim with an arbitrary stride).
enum class layout { compact, keepdim, strided, keepdim_strided };
constexpr int layout_count = 4;

const char* layout_name(layout l) {
  switch (l) {
    case layout::compact: return "compact output";
    case layout::keepdim: return "keepdim output";
    case layout::strided: return "strided output";
    case layout::keepdim_strided: return "strided keepdim output";
  }
  return "?";
}

std::string list_of(const std::int64_t* v, int n) {
  std::string s = "(";
  for (int k = 0; k < n; ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + ")";
}

std::string describe(const view_case& c, const axes& along, layout l) {
  std::string s = c.name + " " + list_of(c.extents, c.rank) + " strides " + list_of(c.strides, c.rank);
  if (c.offset) s += " at +" + std::to_string(c.offset);
  s += " along {";
  for (int k = 0; k < along.count; ++k) s += (k ? ", " : "") + std::to_string(along.list[k]);
  return s + "} into " + layout_name(l);
}

/// An output view's shape in elements of a scratch buffer of `span`, and each output's offset
/// there, in order (row-major over the kept axes).
struct out_layout {
  int rank = 0;
  std::int64_t extents[cured::max_rank] = {};
  std::int64_t strides[cured::max_rank] = {};
  std::int64_t first = 0;
  std::int64_t span = 1;
  std::vector<std::int64_t> at;
};

out_layout make_layout(const view_case& c, unsigned mask, layout l) {
  out_layout o;
  const bool keep = l == layout::keepdim || l == layout::keepdim_strided;
  const bool spread = l == layout::strided || l == layout::keepdim_strided;
  std::int64_t stride[cured::max_rank] = {};
  if (spread) {
    o.first = 1;
    std::int64_t step = 2;
    for (int k = 0; k < c.rank; ++k) {
      if (mask >> k & 1) {
        stride[k] = 1000003;  // extent 1: never stepped along
        continue;
      }
      stride[k] = step;
      step = step * std::max<std::int64_t>(c.extents[k], 1) + 1;
    }
  } else {
    std::int64_t step = 1;
    for (int k = c.rank - 1; k >= 0; --k) {
      stride[k] = step;
      if (!(mask >> k & 1)) step *= std::max<std::int64_t>(c.extents[k], 1);
    }
  }
  std::vector<int> kept;
  std::int64_t outputs = 1;
  for (int k = 0; k < c.rank; ++k) {
    const bool reduced = mask >> k & 1;
    if (!reduced) {
      kept.push_back(k);
      outputs *= c.extents[k];
    }
    if (reduced && !keep) continue;
    o.extents[o.rank] = reduced ? 1 : c.extents[k];
    o.strides[o.rank] = stride[k];
    ++o.rank;
  }
  std::int64_t index[cured::max_rank] = {};
  o.at.reserve(std::size_t(outputs));
  for (std::int64_t i = 0; i < outputs; ++i) {
    std::int64_t at = o.first;
    for (const int k : kept) at += index[k] * stride[k];
    o.at.push_back(at);
    for (int j = int(kept.size()) - 1; j >= 0; --j) {
      if (++index[kept[j]] < c.extents[kept[j]]) break;
      index[kept[j]] = 0;
    }
  }
  o.span = o.first + 1;
  if (outputs > 0)
    for (const int k : kept) o.span += (c.extents[k] - 1) * stride[k];
  return o;
}

template <class U>
strided_view<U> out_view(const out_layout& o, void* scratch) {
  strided_view<U> v;
  v.data = static_cast<U*>(scratch) + o.first;
  v.rank = o.rank;
  for (int k = 0; k < o.rank; ++k) {
    v.extents[k] = o.extents[k];
    v.strides[k] = o.strides[k];
  }
  return v;
}

/// Device scratch for outputs, grown as needed.
class scratch {
public:
  void* get(std::size_t bytes) {
    if (b_.size() < bytes) b_ = device_buffer<unsigned char>(std::max<std::size_t>(bytes, 4096));
    return b_.data();
  }

private:
  device_buffer<unsigned char> b_;
};

/// The mismatches of one check: counted, the first few kept for the message.
class failures {
public:
  void add(const std::string& what) {
    if (count_ < 4) first_ += "\n    " + what;
    ++count_;
  }
  std::int64_t count() const { return count_; }
  std::string report() const { return ": " + std::to_string(count_) + " mismatches" + first_; }

private:
  std::int64_t count_ = 0;
  std::string first_;
};

// ---- references -------------------------------------------------------------------------------

/// Whether `got`, a floating-point sum of n values in a type of epsilon eps, may be the sum
/// whose exact value rounded once is `want`: equal when every partial sum is exact (integers
/// whose magnitudes sum to at most 2 / eps, in any order), else within n * eps * sum|x| (plus
/// out_rel of |want| for an output narrower than the sum).
bool sum_within(double got, double want, bool integers, std::int64_t n, double abs_sum, double eps,
                double out_rel = 0) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (integers && abs_sum <= 2 / eps) return got == want;
  const double floor = out_rel > 0 ? 0x1p-24 : 0;  // half's smallest subnormal
  return std::abs(got - want) <= double(n) * eps * abs_sum + out_rel * std::abs(want) + floor;
}

template <class T>
std::function<double(std::int64_t)> value_of(const T* h) {
  return [h](std::int64_t at) { return to_double(h[at]); };
}

template <class T>
std::function<double(std::int64_t)> magnitude_of(const T* h) {
  return [h](std::int64_t at) { return std::fabs(to_double(h[at])); };
}

/// A user operator: the largest magnitude (NaNs dropped, as fmaxf drops them).
struct max_magnitude {
  __host__ __device__ float operator()(float a, float b) const { return fmaxf(fabsf(a), fabsf(b)); }
  template <class T>
  __host__ __device__ static T identity() {
    return T(0);
  }
};

struct square {
  __host__ __device__ float operator()(float x) const { return x * x; }
};

constexpr unsigned op_sums = 1, op_order = 2, op_all = 3;

/// Runs every op of T on views and compares each output with the CPU reference: sums
/// (accumulator_t<T>; for float also into half outputs, and transform_reduce of squares),
/// min, max, argmin and argmax (with and without values; for float also reduce with a user
/// operator). Every output is written into poisoned scratch, whose other elements must keep
/// the poison. `blocking`: the blocking forms instead of the asynchronous ones.
template <class T>
class checker {
public:
  using Acc = cured::accumulator_t<T>;

  explicit checker(cured::workspace& ws, cudaStream_t stream = nullptr, bool blocking = false)
      : ws_(ws), stream_(stream), blocking_(blocking) {}

  /// The ops of `ops` on view c of `a` along `along`, into outputs laid out as `l`.
  void check(const mirrored<T>& a, const view_case& c, const axes& along, layout l, fill f, unsigned ops,
             const std::string& where) {
    const unsigned mask = mask_of(along, c.rank);
    const strided_view<const T> in = view_of(c, a.d.data());
    const T* h = a.h.data() + c.offset;
    const axis_shape s = shape_of(c, mask);
    const out_layout o = make_layout(c, mask, l);
    const std::string at = where + ": " + type_name<T>() + " " + describe(c, along, l) + ", " + fill_name(f) +
                           (blocking_ ? ", blocking" : "");
    if (ops & op_sums) sums(in, along, h, s, o, f != fill::real, at);
    if (ops & op_order) order(in, along, h, s, o, at);
  }

private:
  /// Poisons the scratch of `slot`, runs launch(output view), waits and reads the outputs in
  /// order into `got`. False (and a failure) when the call threw.
  template <class U, class Launch>
  bool run(const out_layout& o, int slot, Launch&& launch, std::vector<U>& got, failures& bad) {
    void* base = scratch_[slot].get(std::size_t(o.span) * sizeof(U));
    CURED_CHECK(cudaMemsetAsync(base, 0xA5, std::size_t(o.span) * sizeof(U), stream_));
    try {
      launch(out_view<U>(o, base));
    } catch (const cured::error& e) {
      bad.add(std::string("threw: ") + e.what());
      return false;
    }
    got = read<U>(o, base, bad);
    return true;
  }

  template <class U>
  std::vector<U> read(const out_layout& o, const void* base, failures& bad) {
    std::vector<U> all(std::size_t(o.span));
    CURED_CHECK(cudaMemcpyAsync(all.data(), base, all.size() * sizeof(U), cudaMemcpyDeviceToHost, stream_));
    CURED_CHECK(cudaStreamSynchronize(stream_));
    std::vector<U> r;
    r.reserve(o.at.size());
    std::vector<char> output(all.size(), 0);
    for (const std::int64_t at : o.at) {
      r.push_back(all[at]);
      output[at] = 1;
    }
    U poison;
    std::memset(static_cast<void*>(&poison), 0xA5, sizeof poison);
    std::int64_t written = 0;
    for (std::size_t i = 0; i < all.size(); ++i) written += !output[i] && !same_bits(all[i], poison);
    if (written) bad.add(std::to_string(written) + " elements outside the output view written");
    return r;
  }

  static void expect_none(const failures& bad, const std::string& at, const char* op) {
    EXPECT_EQ(bad.count(), 0) << at << ", " << op << bad.report();
  }

  void sums(const strided_view<const T>& in, const axes& along, const T* h, const axis_shape& s,
            const out_layout& o, bool exact, const std::string& at) {
    const std::int64_t n = s.reduced_size();
    failures bad;
    std::vector<Acc> got;
    const bool ran = run<Acc>(
        o, 0,
        [&](const strided_view<Acc>& out) {
          if (blocking_) cured::sum(in, along, out, stream_);
          else cured::sum_async(in, along, out, ws_, stream_);
        },
        got, bad);
    if constexpr (std::is_integral_v<T>) {
      if (ran) {
        const auto want = cured::cpu::axis_integer_sum(s, [h](std::int64_t i) { return __int128(h[i]); });
        for (std::size_t i = 0; i < got.size(); ++i)
          if (__int128(got[i]) != want[i])
            bad.add("output " + std::to_string(i) + ": got " + show(got[i]) + " want " + show(want[i]));
      }
      expect_none(bad, at, "sum");
    } else {
      constexpr double eps = std::numeric_limits<Acc>::epsilon();
      const auto want = cured::cpu::axis_exact_sum(s, value_of(h), !std::is_same_v<Acc, double>);
      const auto abs_sum = cured::cpu::axis_exact_sum(s, magnitude_of(h), false);
      if (ran)
        for (std::size_t i = 0; i < got.size(); ++i)
          if (!sum_within(double(got[i]), want[i], exact, n, abs_sum[i], eps))
            bad.add("output " + std::to_string(i) + ": got " + show(got[i]) + " want " + show(want[i]) + " (n " +
                    std::to_string(n) + ")");
      expect_none(bad, at, "sum");
      // Exact: the reference bit for bit.
      using R = cured::exact_result_t<T>;
      failures inexact;
      std::vector<R> exact_sums;
      if (run<R>(
              o, 0,
              [&](const strided_view<R>& out) {
                if (blocking_) cured::exact_sum(in, along, out, stream_);
                else cured::exact_sum_async(in, along, out, ws_, stream_);
              },
              exact_sums, inexact))
        for (std::size_t i = 0; i < exact_sums.size(); ++i)
          if (is_nan(R(want[i])) ? !is_nan(exact_sums[i]) : !same_bits(exact_sums[i], R(want[i])))
            inexact.add("output " + std::to_string(i) + ": got " + show(exact_sums[i]) + " want " + show(R(want[i])));
      expect_none(inexact, at, "exact_sum");
      if constexpr (std::is_same_v<T, float>) {
        // Accumulated in float, converted to half once.
        failures narrow;
        std::vector<__half> halves;
        if (run<__half>(
                o, 0,
                [&](const strided_view<__half>& out) {
                  if (blocking_) cured::sum(in, along, out, stream_);
                  else cured::sum_async(in, along, out, ws_, stream_);
                },
                halves, narrow))
          for (std::size_t i = 0; i < halves.size(); ++i) {
            const __half rounded = __float2half_rn(float(want[i]));
            const bool ok = exact && abs_sum[i] <= 2 / eps
                                ? same_bits(halves[i], rounded) || (is_nan(halves[i]) && is_nan(rounded))
                                : sum_within(to_double(halves[i]), want[i], false, n, abs_sum[i], eps, 0x1p-10);
            if (!ok)
              narrow.add("output " + std::to_string(i) + ": got " + show(halves[i]) + " want " + show(rounded));
          }
        expect_none(narrow, at, "sum into half");
        // Squares, then plus, from init 3 (applied once per output).
        failures squares;
        std::vector<float> sq;
        constexpr float init = 3;
        const auto want_sq =
            cured::cpu::axis_exact_sum(s, [h](std::int64_t i) { return double(h[i]) * double(h[i]); }, true);
        if (run<float>(
                o, 0,
                [&](const strided_view<float>& out) {
                  if (blocking_) cured::transform_reduce(in, along, out, square{}, cured::plus{}, init, stream_);
                  else cured::transform_reduce_async(in, along, out, square{}, cured::plus{}, init, ws_, stream_);
                },
                sq, squares))
          for (std::size_t i = 0; i < sq.size(); ++i) {
            const double w = want_sq[i] + init;  // exact when want_sq is: below 2^24, integers
            if (!sum_within(sq[i], w, exact, n + 1, want_sq[i] + init, eps))
              squares.add("output " + std::to_string(i) + ": got " + show(sq[i]) + " want " + show(w));
          }
        expect_none(squares, at, "transform_reduce (squares)");
      }
    }
  }

  void order(const strided_view<const T>& in, const axes& along, const T* h, const axis_shape& s,
             const out_layout& o, const std::string& at) {
    const auto less = [](const T& x, const T& y) { return to_double(x) < to_double(y); };
    const auto nan = [](const T& x) { return is_nan(x); };
    const auto lowest = cured::cpu::axis_arg<false>(s, h, less, nan);
    const auto highest = cured::cpu::axis_arg<true>(s, h, less, nan);
    extreme<false>(in, along, o, lowest, at);
    extreme<true>(in, along, o, highest, at);
    for (const bool values : {false, true}) {
      if (quick() && !values) continue;  // the sanitizer runs: the form with values only
      arg<false>(in, along, o, lowest, values, at);
      arg<true>(in, along, o, highest, values, at);
    }
    if constexpr (std::is_same_v<T, float>) {
      constexpr float init = 2.5f;
      std::vector<float> want;
      cured::cpu::for_each_output(s, [&](std::int64_t, const std::vector<std::int64_t>& elements) {
        float m = init;
        for (const std::int64_t i : elements)
          if (!std::isnan(h[i])) m = std::max(m, std::fabs(h[i]));
        want.push_back(m);
      });
      failures bad;
      std::vector<float> got;
      if (run<float>(
              o, 0,
              [&](const strided_view<float>& out) {
                if (blocking_) cured::reduce(in, along, out, max_magnitude{}, init, stream_);
                else cured::reduce_async(in, along, out, max_magnitude{}, init, ws_, stream_);
              },
              got, bad))
        for (std::size_t i = 0; i < got.size(); ++i)
          if (got[i] != want[i])
            bad.add("output " + std::to_string(i) + ": got " + show(got[i]) + " want " + show(want[i]));
      expect_none(bad, at, "reduce (user operator)");
    }
  }

  template <bool Max>
  void extreme(const strided_view<const T>& in, const axes& along, const out_layout& o,
               const std::vector<cured::cpu::arg_result<T>>& ref, const std::string& at) {
    const T identity = Max ? cured::maximum::identity<T>() : cured::minimum::identity<T>();
    failures bad;
    std::vector<T> got;
    if (run<T>(
            o, 0,
            [&](const strided_view<T>& out) {
              if constexpr (Max) {
                if (blocking_) cured::max(in, along, out, stream_);
                else cured::max_async(in, along, out, ws_, stream_);
              } else {
                if (blocking_) cured::min(in, along, out, stream_);
                else cured::min_async(in, along, out, ws_, stream_);
              }
            },
            got, bad))
      for (std::size_t i = 0; i < got.size(); ++i) {
        const T want = ref[i].index < 0 ? identity : ref[i].value;
        if (is_nan(want) ? !is_nan(got[i]) : to_double(got[i]) != to_double(want))
          bad.add("output " + std::to_string(i) + ": got " + show(got[i]) + " want " + show(want));
      }
    expect_none(bad, at, Max ? "max" : "min");
  }

  template <bool Max>
  void arg(const strided_view<const T>& in, const axes& along, const out_layout& o,
           const std::vector<cured::cpu::arg_result<T>>& ref, bool with_values, const std::string& at) {
    const T identity = Max ? cured::maximum::identity<T>() : cured::minimum::identity<T>();
    failures bad;
    void* values_base = scratch_[1].get(std::size_t(o.span) * sizeof(T));
    CURED_CHECK(cudaMemsetAsync(values_base, 0xA5, std::size_t(o.span) * sizeof(T), stream_));
    const strided_view<T> values = out_view<T>(o, values_base);
    std::vector<index_t> got;
    const bool ran = run<index_t>(
        o, 0,
        [&](const strided_view<index_t>& indices) {
          if constexpr (Max) {
            if (blocking_) with_values ? cured::argmax(in, along, indices, values, stream_)
                                       : cured::argmax(in, along, indices, stream_);
            else with_values ? cured::argmax_async(in, along, indices, values, ws_, stream_)
                             : cured::argmax_async(in, along, indices, ws_, stream_);
          } else {
            if (blocking_) with_values ? cured::argmin(in, along, indices, values, stream_)
                                       : cured::argmin(in, along, indices, stream_);
            else with_values ? cured::argmin_async(in, along, indices, values, ws_, stream_)
                             : cured::argmin_async(in, along, indices, ws_, stream_);
          }
        },
        got, bad);
    if (ran) {
      // Without the values view its scratch must keep the poison everywhere.
      out_layout none = o;
      if (!with_values) none.at.clear();
      const std::vector<T> vals = read<T>(none, values_base, bad);
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i] != ref[i].index) {
          bad.add("output " + std::to_string(i) + ": index " + std::to_string(got[i]) + " want " +
                  std::to_string(ref[i].index));
          continue;
        }
        if (!with_values) continue;
        const T want = ref[i].index < 0 ? identity : ref[i].value;
        if (is_nan(want) ? !is_nan(vals[i]) : !same_bits(vals[i], want))
          bad.add("output " + std::to_string(i) + ": value " + show(vals[i]) + " want " + show(want));
      }
    }
    const char* name = Max ? (with_values ? "argmax with values" : "argmax")
                           : (with_values ? "argmin with values" : "argmin");
    expect_none(bad, at, name);
  }

  cured::workspace& ws_;
  cudaStream_t stream_;
  bool blocking_;
  scratch scratch_[2];
};

// ---- the cases --------------------------------------------------------------------------------

/// Random 1- to 4-D shapes, extents from {0, 1, 2, 3, 31, 32, 33, 257, 1000}, at most `cap`
/// elements each, some at a misaligned base; the same shapes every run (a fixed seed).
std::vector<view_case> random_shapes(std::int64_t cap) {
  static constexpr std::int64_t extents[] = {0, 1, 2, 3, 31, 32, 33, 257, 1000};
  std::mt19937_64 rng(20240611);
  std::vector<view_case> r;
  for (const std::int64_t e : extents) r.push_back(make_case("random", {e}, {}, std::int64_t(rng() % 4)));
  const int per_rank[] = {0, 0, quick() ? 4 : 12, quick() ? 3 : 10, quick() ? 2 : 8};
  std::set<std::vector<std::int64_t>> seen;
  for (int rank = 2; rank <= 4; ++rank) {
    for (int made = 0, tries = 0; made < per_rank[rank] && tries < 100000; ++tries) {
      std::vector<std::int64_t> e(rank);
      std::int64_t size = 1;
      int zeros = 0;
      for (auto& x : e) {
        x = extents[rng() % std::size(extents)];
        zeros += x == 0;
        size *= std::max<std::int64_t>(x, 1);
      }
      if (size > cap || zeros > 1 || !seen.insert(e).second) continue;
      r.push_back(make_case("random", e, {}, std::int64_t(rng() % 4)));
      ++made;
    }
  }
  return r;
}

/// Transposes, slices, sub-blocks, broadcasts, misaligned bases.
std::vector<view_case> noncontiguous_views() {
  std::vector<view_case> r = {
      make_case("transpose", {257, 300}, {1, 257}),
      make_case("transpose", {1000, 33}, {1, 1000}),
      make_case("every other element", {1000}, {2}),
      make_case("every other row and column", {31, 100}, {400, 2}),
      make_case("sub-block of 100 x 300", {50, 243}, {300, 1}, 10 * 300 + 7),
      make_case("sub-block of 10 x 64 x 64", {5, 20, 30}, {4096, 64, 1}, 3 * 4096 + 2 * 64 + 5),
      make_case("broadcast rows", {64, 100}, {0, 1}),
      make_case("broadcast columns", {100, 64}, {1, 0}),
      make_case("broadcast middle", {5, 7, 9}, {9, 0, 1}),
      make_case("broadcast scalar", {31, 33}, {0, 0}),
      make_case("broadcast and transpose", {6, 50, 40}, {0, 1, 50}),
      make_case("padded rows", {64, 128}, {130, 1}),
      make_case("padded rows, aligned", {128, 64}, {256, 1}),
      make_case("transpose with padding", {64, 100}, {1, 70}),
  };
  // Every order of the axes of a 7 x 33 x 40 array.
  int order[] = {0, 1, 2};
  const std::int64_t e[] = {7, 33, 40}, s[] = {33 * 40, 40, 1};
  do {
    r.push_back(make_case("permuted 7 x 33 x 40", {e[order[0]], e[order[1]], e[order[2]]},
                          {s[order[0]], s[order[1]], s[order[2]]}));
  } while (std::next_permutation(order, order + 3));
  for (std::int64_t offset : {1, 2, 3}) {
    r.push_back(make_case("misaligned", {33, 257}, {}, offset));
    r.push_back(make_case("misaligned", {1000, 8}, {}, offset));
    r.push_back(make_case("misaligned", {8, 1000}, {}, offset));
  }
  return r;
}

/// A view, the axes, and the kernel the float sum of it runs (float_sum_kernel).
struct regime_case {
  view_case view;
  axes along;
  std::string kernel;
};

/// Views that reach every kernel of the axis dispatch, named as float_sum_kernel names them
/// (for float; `many_rows`: a wave of warps and a few more, the multiprocessors * 64 + 5).
std::vector<regime_case> regime_cases(std::int64_t many_rows) {
  std::vector<regime_case> r;
  const auto add = [&](view_case v, axes a, std::string k) { r.push_back({std::move(v), a, std::move(k)}); };
  // Rows of at most 32 vectors, lanes for their count rounded up to a power of two:
  // short_rows_kernel where each output is one row of whole aligned vectors (or of elements
  // read one by one), rows_kernel otherwise.
  const std::pair<std::int64_t, const char*> rows[] = {
      {2, "rows 1"},  {3, "rows 1"},         {4, "short rows 1"}, {5, "rows 2"},         {8, "short rows 2"},
      {9, "rows 4"},  {16, "short rows 4"},  {17, "rows 8"},      {31, "rows 8"},        {32, "short rows 8"},
      {33, "rows 16"}, {64, "short rows 16"}, {128, "short rows 32"}};
  for (const auto& [length, kernel] : rows) add(make_case("short rows", {4096, length}), {1}, kernel);
  add(make_case("short rows", {4096, 16}, {}, 1), {-1}, "rows 4");
  add(make_case("short rows", {100, 17}), {1}, "rows 8");
  add(make_case("short rows", {256, 16}), {1}, "short rows 4");
  add(make_case("short rows", {64, 64}), {1}, "short rows 16");
  add(make_case("short rows", {128, 33}), {1}, "rows 16");
  add(make_case("short rows, every other element", {4096, 7}, {14, 2}), {1}, "short rows 8");
  add(make_case("columns, broadcast rows", {1000, 20}, {1, 0}), {1}, "columns V4");
  // rows_kernel with a warp per output: longer (or misaligned) rows, as many as a wave of warps;
  // fewer of them: long_rows_kernel.
  add(make_case("a wave of rows", {many_rows, 100}, {}, 1), {1}, "rows 32");
  add(make_case("misaligned rows", {4096, 100}, {}, 1), {1}, "long rows");
  add(make_case("a wave of rows", {many_rows, 257}), {1}, "rows 32");
  add(make_case("a wave of padded rows", {many_rows, 129}, {130, 1}, 3), {1}, "rows 32");
  // long_rows_kernel: fewer longer rows; split when too few to fill the device.
  add(make_case("long rows", {1000, 5000}), {1}, "long rows");
  add(make_case("rows of a few KiB", {1000, 1000}), {1}, "rows 32");
  add(make_case("long rows", {64, 8192}), {1}, "long rows split");
  add(make_case("few long rows", {3, 1 << 20}), {1}, "long rows split");
  add(make_case("few long rows", {3, 300000}, {}, 3), {-1}, "long rows split");
  add(make_case("one long row, every other element", {4500}, {2}), {0}, "long rows split");
  // Every axis of one contiguous run: the whole-array kernels; of other views: the rows.
  add(make_case("whole array", {600, 700}), {0, 1}, "whole array");
  add(make_case("whole array", {3, 5, 7}), {2, 0, 1}, "whole array");
  add(make_case("whole array", {(1 << 20) + 3}, {}, 1), {0}, "whole array");
  add(make_case("whole array", {70, 70}, {}, 2), {0, 1}, "whole array");
  add(make_case("whole array", {1, 1, 1}), {0, 2}, "whole array");
  add(make_case("every axis, every other element", {500, 400}, {800, 2}), {0, 1}, "long rows split");
  add(make_case("every axis, transposed", {400, 500}, {1, 400}), {1, 0}, "whole array");
  add(make_case("every axis, sub-block", {50, 243}, {300, 1}, 3007), {0, 1}, "long rows");
  add(make_case("every axis, broadcast", {64, 100}, {0, 1}), {0, 1}, "long rows");
  // columns_kernel: vectors of 4 where contiguous and aligned, else scalars; rows split over
  // blocks when the tiles are too few.
  add(make_case("few rows, many columns", {4, 1 << 18}), {0}, "columns V4");
  add(make_case("few rows, many columns", {4, 1000}), {0}, "columns V4");
  add(make_case("few rows, many columns", {3, 100003}), {0}, "columns V1");
  add(make_case("many rows, few columns", {1 << 18, 4}), {0}, "columns V4 split");
  add(make_case("many rows, few columns", {1 << 16, 4}, {}, 1), {0}, "columns V1 split");
  add(make_case("many rows, few columns", {1 << 18, 3}), {0}, "columns V1 split");
  add(make_case("many rows, few columns", {1250, 4}), {0}, "columns V4 split");
  add(make_case("many rows, few columns", {1000, 3}), {-2}, "columns V1 split");
  add(make_case("middle axis", {8, 5000, 8}), {1}, "columns V4 split");
  add(make_case("middle axis", {64, 300, 64}), {1}, "columns V4 split");
  add(make_case("middle axis", {16, 300, 64}, {}, 2), {1}, "columns V1 split");
  add(make_case("middle axis", {8, 300, 2}), {1}, "columns V1");
  add(make_case("NCHW", {8, 16, 28, 28}), {0, 2, 3}, "long rows");
  add(make_case("NCHW", {32, 64, 7, 7}), {0, 2, 3}, "long rows split");
  add(make_case("NCHW", {2, 4, 5, 5}), {3, 0, 2}, "long rows");
  add(make_case("NCHW channels", {8, 16, 28, 28}), {1}, "columns V4");
  add(make_case("no axis", {300, 200}), {}, "columns V4");
  // Empty: outputs of no elements, no outputs, one element.
  add(make_case("empty rows", {5, 0}), {1}, "columns V1");
  add(make_case("empty", {0}), {0}, "short rows 1");
  add(make_case("no outputs", {0, 5}), {1}, "none");
  add(make_case("one element", {}), {}, "whole array");
  return r;
}

/// Every kernel variant the axis dispatch has for float sums.
const char* const every_kernel[] = {
    "whole array",  "short rows 1", "short rows 2",    "short rows 4", "short rows 8",     "short rows 16",
    "short rows 32", "rows 1",      "rows 2",          "rows 4",       "rows 8",           "rows 16",
    "rows 32",      "long rows",    "long rows split", "columns V4",   "columns V4 split", "columns V1",
    "columns V1 split"};

/// The kernel the float sum of `in` along `along` into a contiguous output runs: the
/// dispatch's own decisions (dispatch_axes.cuh), replayed.
std::string float_sum_kernel(const strided_view<const float>& in, const axes& along, cured::workspace& ws) {
  namespace cd = cured::detail;
  namespace dv = cured::device;
  using load = cured::thread::transform_load<float, cured::thread::identity_transform>;
  using store = dv::plain_store<float, float, cured::plus>;
  using policy = cd::axis_policy;
  const cd::axis_plan plan = cd::plan_of(cd::canonicalize(in, along), false);
  if (plan.kind == cd::axis_plan::regime::none) return "none";
  if (plan.kind == cd::axis_plan::regime::rows) {
    dv::row_shape s = plan.rows;
    if (s.kept.count == 0 && s.outer.count == 0 && s.stride == 1) return "whole array";
    s.vectors = true;  // a float pointer is float-aligned
    s.aligned = s.stride == 1 && reinterpret_cast<std::uintptr_t>(in.data) % 16 == 0 && s.length % 4 == 0;
    for (const dv::axis_walk* w : {&s.kept, &s.outer})
      for (int k = 0; k < w->count; ++k) s.aligned &= w->in_stride[k] % 4 == 0;
    constexpr auto long_kernel = dv::long_rows_kernel<policy, float, float, load, cured::plus, store>;
    bool one_round = false;
    const unsigned lanes = cd::tile_rows<float, float, long_kernel>(s, one_round, plan.row_vectors_per_lane, ws);
    if (lanes == 0) return s.splits > 1 ? "long rows split" : "long rows";
    return (one_round ? "short rows " : "rows ") + std::to_string(lanes);
  }
  dv::column_shape s = plan.columns;
  const bool vectors = cd::column_vectors(in.data, s);
  if (vectors) cd::tile_columns<4, float, dv::columns_kernel<policy, 4, float, float, load, cured::plus, store>>(s, ws);
  else cd::tile_columns<1, float, dv::columns_kernel<policy, 1, float, float, load, cured::plus, store>>(s, ws);
  return std::string(vectors ? "columns V4" : "columns V1") + (s.splits > 1 ? " split" : "");
}

/// The fills each view runs with, and the ops each fill checks.
std::vector<std::pair<fill, unsigned>> fills() {
  if (quick()) return {{fill::small_ints, op_all}};
  return {{fill::small_ints, op_all}, {fill::real, op_sums}, {fill::specials, op_all}};
}

std::uint64_t seed_of(std::uint64_t seed, fill f) { return cured::random::mix(seed + std::uint64_t(f)); }

/// Every subset of the axes of each view (named in a random order), outputs in every layout
/// in turn, every fill.
template <class T>
void check_every_subset(const std::vector<view_case>& views, std::uint64_t seed, checker<T>& check) {
  std::mt19937_64 rng(seed);
  int turn = 0;
  for (const view_case& c : views) {
    if (!fits(c.cost())) continue;
    mirrored<T> a(c.buffer);
    for (const auto& [f, ops] : fills()) {
      a.fill_with(f, seed_of(seed, f));
      for (unsigned mask = 0; mask < (1u << c.rank); ++mask)
        check.check(a, c, along_of(mask, c.rank, rng), layout(turn++ % layout_count), f, ops, "every subset");
    }
  }
}

// ---- without a GPU ----------------------------------------------------------------------------

// Any non-null address, 16-byte aligned: planning reads no element.
const float* const fake = reinterpret_cast<const float*>(std::uintptr_t(1) << 20);

// The plan of each case of the kernel table is the regime its kernel belongs to: none, the
// whole array, rows, or columns (read as vectors or not). The lanes and splits need the device
// (EveryKernelOfTheDispatch).
TEST(AxesNoDevice, KernelTablePlansItsRegimes) {
  namespace cd = cured::detail;
  for (const regime_case& r : regime_cases(132 * 64 + 5)) {
    const strided_view<const float> in = view_of(r.view, fake);
    const cd::axis_plan plan = cd::plan_of(cd::canonicalize(in, r.along), false);
    const std::string where = describe(r.view, r.along, layout::compact) + ": " + r.kernel;
    const std::string& k = r.kernel;
    if (k == "none") {
      EXPECT_EQ(plan.kind, cd::axis_plan::regime::none) << where;
    } else if (k.rfind("columns", 0) == 0) {
      ASSERT_EQ(plan.kind, cd::axis_plan::regime::columns) << where;
      EXPECT_EQ(cd::column_vectors(in.data, plan.columns), k.rfind("columns V4", 0) == 0) << where;
    } else {
      ASSERT_EQ(plan.kind, cd::axis_plan::regime::rows) << where;
      const cured::device::row_shape& s = plan.rows;
      EXPECT_EQ(s.kept.count == 0 && s.outer.count == 0 && s.stride == 1, k == "whole array") << where;
    }
  }
}

// What the public API rejects before it needs a device: more than 8 axes, views of more than
// 8 axes, as many strides as extents, more than 2^62 elements. (Every other check runs in a
// call, which takes a workspace, which takes a device: BadInputIsACuredErrorBeforeAnyLaunch.)
TEST(AxesNoDevice, ViewsAndAxesCheckTheirLimits) {
  EXPECT_THROW((axes{0, 1, 2, 3, 4, 5, 6, 7, 8}), cured::error);
  EXPECT_THROW((axes{0, 0, 0, 0, 0, 0, 0, 0, 0}), cured::error);
  EXPECT_EQ((axes{0, 1, 2, 3, 4, 5, 6, 7}).count, 8);
  EXPECT_EQ(axes::all(4).count, 4);
  EXPECT_THROW(cured::view(fake, {1, 1, 1, 1, 1, 1, 1, 1, 1}), cured::error);
  EXPECT_THROW(cured::view(fake, {2, 3}, {3}), cured::error);
  const std::int64_t big = std::int64_t(1) << 31;
  EXPECT_THROW(cured::view(fake, {big, big, 4}), cured::error);
  EXPECT_NO_THROW(cured::view(fake, {big, big}, {0, 0}));  // a broadcast of 2^62 elements
}

// ---- on the GPU -------------------------------------------------------------------------------

template <class T>
class AxesTyped : public ::testing::Test {};
struct type_names {
  template <class T>
  static std::string GetName(int) {
    return type_name<T>();
  }
};
using axis_types = ::testing::Types<float, double, std::int32_t, __half>;
TYPED_TEST_SUITE(AxesTyped, axis_types, type_names);

// Every subset of the axes (in a random order, as k or k - rank) of random 1- to 4-D shapes.
TYPED_TEST(AxesTyped, EveryAxisSubsetOfRandomShapes) {
  CURED_REQUIRE_GPU();
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws;
  checker<TypeParam> check(ws);
  check_every_subset(random_shapes(std::min<std::int64_t>(cured::test::max_test_n(), 1 << 17)), seed, check);
}

// Transposes, every other element, sub-blocks of larger arrays, zero strides, misaligned bases.
TYPED_TEST(AxesTyped, NonContiguousViews) {
  CURED_REQUIRE_GPU();
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws;
  checker<TypeParam> check(ws);
  check_every_subset(noncontiguous_views(), seed, check);
}

// Every kernel of the axis dispatch and each of its variants (float: lanes, batches, vectors,
// splits), every op on each.
TYPED_TEST(AxesTyped, EveryKernelOfTheDispatch) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws;
  checker<T> check(ws);
  std::set<std::string> hit;
  for (const regime_case& r : regime_cases(std::int64_t(ws.sm_count()) * 64 + 5)) {
    if (!fits(r.view.cost())) continue;
    mirrored<T> a(r.view.buffer);
    if constexpr (std::is_same_v<T, float>) {
      // The table names the kernels of today's tuning; a case that moves to another kernel is
      // reported, and only a kernel that no case reaches fails the test.
      const std::string kernel = float_sum_kernel(view_of(r.view, a.d.data()), r.along, ws);
      if (kernel != r.kernel)
        std::printf("[   NOTE   ] %s: runs %s, not %s\n", describe(r.view, r.along, layout::compact).c_str(),
                    kernel.c_str(), r.kernel.c_str());
      hit.insert(kernel);
    }
    for (const auto& [f, ops] : fills()) {
      if (f != fill::small_ints && r.view.cost() > (1 << 20)) continue;  // the CPU reference's time
      a.fill_with(f, seed_of(seed, f));
      check.check(a, r.view, r.along, layout::compact, f, ops, r.kernel);
      if (r.view.size() <= (1 << 16)) check.check(a, r.view, r.along, layout::keepdim_strided, f, ops, r.kernel);
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    if (!quick())
      for (const char* k : every_kernel) EXPECT_TRUE(hit.count(k)) << "no case runs " << k;
  }
}

// The blocking forms of every op, on the default stream and on a stream of their own.
TYPED_TEST(AxesTyped, BlockingFormsEveryOp) {
  CURED_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws;
  cudaStream_t stream;
  CURED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::vector<regime_case> cases = {
      {make_case("short rows", {300, 9}), {1}, ""},
      {make_case("one long row, every other element", {4500}, {2}), {0}, ""},
      {make_case("many rows, few columns", {1250, 4}), {0}, ""},
      {make_case("middle axis", {8, 300, 2}, {}, 1), {1}, ""},
      {make_case("whole array", {31, 33}), {0, 1}, ""},
      {make_case("transpose", {40, 30}, {1, 40}), {-1}, ""},
      {make_case("empty rows", {5, 0}), {1}, ""},
  };
  for (const cudaStream_t s : {cudaStream_t(nullptr), stream}) {
    checker<T> check(ws, s, true);
    int turn = 0;
    for (const regime_case& r : cases) {
      mirrored<T> a(r.view.buffer);
      a.fill_with(fill::small_ints, seed);
      check.check(a, r.view, r.along, layout(turn++ % layout_count), fill::small_ints, op_all,
                  s ? "own stream" : "default stream");
    }
  }
  CURED_CHECK(cudaStreamDestroy(stream));
}

// Each order of every subset of the axes gives the same outputs (the index is over the reduced
// axes in the view's order, whatever order they are named in).
TEST(Axes, AxisOrderDoesNotMatter) {
  CURED_REQUIRE_GPU();
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws;
  checker<float> check(ws);
  const view_case c = quick() ? make_case("4-D", {3, 5, 2, 7}) : make_case("4-D", {3, 31, 2, 33});
  mirrored<float> a(c.buffer);
  a.fill_with(fill::small_ints, seed);
  int turn = 0;
  for (unsigned mask = 0; mask < 16; ++mask) {
    std::vector<int> list;
    for (int k = 0; k < 4; ++k)
      if (mask >> k & 1) list.push_back(k);
    do {
      axes along;
      for (const int k : list) along.list[along.count++] = turn % 2 ? k - 4 : k;
      check.check(a, c, along, layout(turn++ % layout_count), fill::small_ints, quick() ? op_order : op_all,
                  "axis order");
    } while (std::next_permutation(list.begin(), list.end()));
  }
}

// The same call twice, and on another workspace and stream: the same bits (float sums of real
// values over shapes whose outputs are split over blocks, and of the whole array).
TEST(Axes, SumsAreBitIdenticalRunToRun) {
  CURED_REQUIRE_GPU();
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws, other;
  cudaStream_t stream;
  CURED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::vector<regime_case> cases =
      quick() ? std::vector<regime_case>{{make_case("", {1250, 4}), {0}, ""},
                                         {make_case("", {4500}, {2}), {0}, ""},
                                         {make_case("", {8, 300, 2}), {1}, ""},
                                         {make_case("", {70, 70}), {0, 1}, ""}}
              : std::vector<regime_case>{{make_case("", {1 << 18, 4}), {0}, ""},
                                         {make_case("", {1 << 18, 3}), {0}, ""},
                                         {make_case("", {3, 1 << 20}), {1}, ""},
                                         {make_case("", {8, 5000, 8}), {1}, ""},
                                         {make_case("", {64, 300, 64}), {1}, ""},
                                         {make_case("", {8, 16, 28, 28}), {0, 2, 3}, ""},
                                         {make_case("", {1000, 1000}), {0, 1}, ""}};
  for (const regime_case& r : cases) {
    mirrored<float> a(r.view.buffer);
    a.fill_with(fill::real, seed);
    const strided_view<const float> in = view_of(r.view, a.d.data());
    const out_layout o = make_layout(r.view, mask_of(r.along, r.view.rank), layout::compact);
    std::vector<float> got[3];
    for (int run = 0; run < 3; ++run) {
      device_buffer<float> out(std::size_t(o.span));
      if (run < 2) cured::sum_async(in, r.along, out_view<float>(o, out.data()), ws);
      else cured::sum_async(in, r.along, out_view<float>(o, out.data()), other, stream);
      CURED_CHECK(cudaDeviceSynchronize());
      got[run].resize(std::size_t(o.span));
      CURED_CHECK(cudaMemcpy(got[run].data(), out.data(), got[run].size() * sizeof(float), cudaMemcpyDeviceToHost));
    }
    const std::string where = describe(r.view, r.along, layout::compact);
    EXPECT_EQ(std::memcmp(got[0].data(), got[1].data(), got[0].size() * sizeof(float)), 0) << where << ": run twice";
    EXPECT_EQ(std::memcmp(got[0].data(), got[2].data(), got[0].size() * sizeof(float)), 0)
        << where << ": another workspace and stream";
  }
  CURED_CHECK(cudaStreamDestroy(stream));
}

// sum_async and argmax_async captured into a graph on a non-blocking stream, replayed twice over
// new inputs (outputs split over blocks: each replay must find the counters reset).
// Outputs whose rounding the double-double estimate cannot settle alone (a tie with a tail
// beyond double-double, cancellation, an estimate that overflows, results near zero, zeros of
// either sign, NaN and infinities), padded with -0 to rows of several widths, read as rows and
// as columns: every exact sum bit for bit the reference's.
template <class T>
std::vector<std::vector<T>> hard_sums() {
  constexpr T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  constexpr T big = std::numeric_limits<T>::max(), tiny = std::numeric_limits<T>::denorm_min();
  constexpr T half_ulp = std::numeric_limits<T>::epsilon() / 2;  // 1 + half_ulp: a tie
  const T far = std::is_same_v<T, float> ? T(0x1p-80) : T(0x1p-200);
  const T huge = std::is_same_v<T, float> ? T(0x1p100) : T(0x1p1000);
  return {{1, half_ulp, far},   {1, half_ulp, -far},  {-1, -half_ulp, -far}, {1, half_ulp},
          {1, half_ulp, tiny},  {1, -half_ulp / 2, -far},                     {-0.0, -0.0},
          {0.0, -0.0},          {huge, 1, -huge},     {big, big, -big},      {big, big},
          {-big, -big},         {nan, 1},             {inf, 1},              {inf, -inf},
          {-inf, 2},            {tiny, tiny, tiny},   {tiny, -tiny},         {std::numeric_limits<T>::min(), -tiny},
          {big, -big, far},     {3, -far, far / 2}};
}

template <class T>
void check_hard_sums(std::int64_t width) {
  const auto cases = hard_sums<T>();
  const std::int64_t rows = std::int64_t(cases.size());
  // Row r's values spread over its width; the rest -0 (which keeps an all -0 row's sign).
  std::vector<T> by_rows(std::size_t(rows * width), T(-0.0)), by_columns(by_rows.size());
  std::vector<T> want(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto& v = cases[std::size_t(r)];
    for (std::size_t k = 0; k < v.size(); ++k) by_rows[std::size_t(r * width) + k * std::size_t(width) / v.size()] = v[k];
    want[std::size_t(r)] = cured::cpu::exact_sum(std::span<const T>(by_rows.data() + r * width, std::size_t(width)));
  }
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < width; ++c) by_columns[std::size_t(c * rows + r)] = by_rows[std::size_t(r * width + c)];
  device_buffer<T> a(by_rows.size()), b(by_rows.size()), out(static_cast<std::size_t>(rows));
  CURED_CHECK(cudaMemcpy(a.data(), by_rows.data(), by_rows.size() * sizeof(T), cudaMemcpyHostToDevice));
  CURED_CHECK(cudaMemcpy(b.data(), by_columns.data(), by_rows.size() * sizeof(T), cudaMemcpyHostToDevice));
  cured::workspace ws;
  for (const bool columns : {false, true}) {
    CURED_CHECK(cudaMemset(out.data(), 0xA5, std::size_t(rows) * sizeof(T)));
    if (columns) cured::exact_sum_async(cured::view(static_cast<const T*>(b.data()), {width, rows}), {0}, cured::view(out.data(), {rows}), ws);
    else cured::exact_sum_async(cured::view(static_cast<const T*>(a.data()), {rows, width}), {1}, cured::view(out.data(), {rows}), ws);
    std::vector<T> got(static_cast<std::size_t>(rows));
    CURED_CHECK(cudaMemcpy(got.data(), out.data(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
    for (std::int64_t r = 0; r < rows; ++r) {
      const T g = got[std::size_t(r)], w = want[std::size_t(r)];
      EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : same_bits(g, w))
          << type_name<T>() << (columns ? " columns" : " rows") << " of " << width << ", case " << r << ": got "
          << show(g) << " want " << show(w);
    }
  }
}

TEST(Axes, ExactSumsOfHardOutputs) {
  CURED_REQUIRE_GPU();
  for (const std::int64_t width : {3, 37, 5000, 100000}) {
    if (!fits(width * 32)) continue;
    check_hard_sums<float>(width);
    check_hard_sums<double>(width);
  }
}

// Two rows of 2^24 + 1000 floats, each with one output left to the exact pass: its block adds
// more elements than fit between two carry passes of its limbs.
TEST(Axes, ExactSumOfLongHardRows) {
  CURED_REQUIRE_GPU();
  const std::int64_t width = (std::int64_t(1) << 24) + 1000;
  if (!fits(2 * width)) GTEST_SKIP() << "above CURED_TEST_MAX_N";
  std::vector<float> h(std::size_t(2 * width), -0.0f);
  const float tail[3] = {1, 0x1p-24f, 0x1p-80f};
  const std::int64_t at[3] = {0, width - 600, width - 1};
  for (int k = 0; k < 3; ++k) {
    h[std::size_t(at[k])] = tail[k];
    h[std::size_t(width + at[k])] = -tail[k];
  }
  device_buffer<float> d(h.size()), out(2);
  CURED_CHECK(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  cured::workspace ws;
  cured::exact_sum_async(cured::view(static_cast<const float*>(d.data()), {2, width}), {1}, cured::view(out.data(), {2}), ws);
  float got[2];
  CURED_CHECK(cudaMemcpy(got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got[0], 1 + 0x1p-23f);
  EXPECT_EQ(got[1], -(1 + 0x1p-23f));
}

TEST(Axes, GraphCaptureAndReplay) {
  CURED_REQUIRE_GPU();
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cured::workspace ws;
  cudaStream_t stream;
  CURED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::vector<regime_case> cases = {
      {quick() ? make_case("columns", {1250, 4}) : make_case("columns", {1 << 18, 4}), {0}, ""},
      {quick() ? make_case("long rows", {4500}, {2}) : make_case("long rows", {3, 1 << 20}), {-1}, ""}};
  for (const regime_case& r : cases) {
    mirrored<float> a(r.view.buffer);
    const strided_view<const float> in = view_of(r.view, a.d.data());
    const unsigned mask = mask_of(r.along, r.view.rank);
    const out_layout o = make_layout(r.view, mask, layout::compact);
    device_buffer<float> sums(std::size_t(o.span)), values(std::size_t(o.span));
    device_buffer<index_t> indices(std::size_t(o.span));
    cudaGraph_t graph;
    CURED_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    cured::sum_async(in, r.along, out_view<float>(o, sums.data()), ws, stream);
    cured::argmax_async(in, r.along, out_view<index_t>(o, indices.data()), out_view<float>(o, values.data()), ws,
                        stream);
    CURED_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CURED_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    const axis_shape s = shape_of(r.view, mask);
    for (int replay = 0; replay < 2; ++replay) {
      a.fill_with(fill::small_ints, seed + replay);
      CURED_CHECK(cudaGraphLaunch(exec, stream));
      CURED_CHECK(cudaStreamSynchronize(stream));
      std::vector<float> got(std::size_t(o.span)), got_values(std::size_t(o.span));
      std::vector<index_t> got_indices(std::size_t(o.span));
      CURED_CHECK(cudaMemcpy(got.data(), sums.data(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
      CURED_CHECK(cudaMemcpy(got_values.data(), values.data(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
      CURED_CHECK(
          cudaMemcpy(got_indices.data(), indices.data(), got.size() * sizeof(index_t), cudaMemcpyDeviceToHost));
      const float* h = a.h.data() + r.view.offset;
      const auto want = cured::cpu::axis_exact_sum(s, value_of(h), true);
      const auto want_arg = cured::cpu::axis_arg<true>(
          s, h, [](float x, float y) { return x < y; }, [](float x) { return std::isnan(x); });
      failures bad;
      for (std::size_t i = 0; i < o.at.size(); ++i) {
        const std::int64_t at = o.at[i];
        if (got[at] != want[i] || got_indices[at] != want_arg[i].index || got_values[at] != want_arg[i].value)
          bad.add("output " + std::to_string(i) + ": sum " + show(got[at]) + " want " + show(want[i]) + ", argmax " +
                  std::to_string(got_indices[at]) + " want " + std::to_string(want_arg[i].index));
      }
      EXPECT_EQ(bad.count(), 0) << describe(r.view, r.along, layout::compact) << ", replay " << replay
                                << bad.report();
    }
    CURED_CHECK(cudaGraphExecDestroy(exec));
    CURED_CHECK(cudaGraphDestroy(graph));
  }
  CURED_CHECK(cudaStreamDestroy(stream));
}

/// f must throw a cured::error for a bad argument (code cudaSuccess: no CUDA call failed).
template <class F>
void expect_argument_error(const std::string& what, F&& f) {
  try {
    f();
    ADD_FAILURE() << what << ": no error";
  } catch (const cured::error& e) {
    EXPECT_EQ(e.code(), cudaSuccess) << what << ": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not a cured::error: " << e.what();
  }
}

// Every bad argument throws cured::error, and before any launch: the outputs keep their poison
// and the workspace serves the next call.
TEST(Axes, BadInputIsACuredErrorBeforeAnyLaunch) {
  CURED_REQUIRE_GPU();
  cured::workspace ws;
  device_buffer<float> d(64), out(64), values(64);
  device_buffer<index_t> idx(64);
  CURED_CHECK(cudaMemset(d.data(), 0, 64 * sizeof(float)));
  for (void* p : {static_cast<void*>(out.data()), static_cast<void*>(values.data())})
    CURED_CHECK(cudaMemset(p, 0xA5, 64 * sizeof(float)));
  CURED_CHECK(cudaMemset(idx.data(), 0xA5, 64 * sizeof(index_t)));
  CURED_CHECK(cudaDeviceSynchronize());
  const auto x = cured::view(static_cast<const float*>(d.data()), {4, 16});
  const auto rows = cured::view(out.data(), {4});
  const auto row_indices = cured::view(idx.data(), {4});
  const auto row_values = cured::view(values.data(), {4});
  std::vector<float> host(64, 1.0f), host_out(4);
  std::vector<index_t> host_indices(4);
  strided_view<const float> nine_axes = x, minus_one_axes = x;
  nine_axes.rank = 9;
  minus_one_axes.rank = -1;
  const float* null_in = nullptr;
  float* null_out = nullptr;
  const std::int64_t huge = std::int64_t(1) << 61;
  const std::vector<std::pair<std::string, std::function<void()>>> bad = {
      {"axis 2 of two", [&] { cured::sum_async(x, {2}, rows, ws); }},
      {"axis -3 of two", [&] { cured::min_async(x, {-3}, rows, ws); }},
      {"an axis named twice", [&] { cured::sum_async(x, {1, 1}, rows, ws); }},
      {"an axis named twice, once from the end", [&] { cured::argmax_async(x, {1, -1}, row_indices, ws); }},
      {"more than 8 axes", [&] { cured::sum_async(x, {0, 1, 0, 1, 0, 1, 0, 1, 0}, rows, ws); }},
      {"a view of 9 axes", [&] { cured::max_async(nine_axes, {1}, rows, ws); }},
      {"a view of -1 axes", [&] { cured::max_async(minus_one_axes, {}, rows, ws); }},
      {"a negative extent", [&] { cured::sum_async(cured::view(d.data(), {4, -16}), {1}, rows, ws); }},
      {"a negative stride",
       [&] { cured::sum_async(cured::view(d.data() + 48, {4, 16}, {-16, 1}), {1}, rows, ws); }},
      {"a view of more than 2^62 bytes",
       [&] { cured::sum_async(cured::view(d.data(), {2, 2}, {huge, 1}), {1}, rows, ws); }},
      {"an output of 3 axes", [&] { cured::sum_async(x, {1}, cured::view(out.data(), {4, 1, 1}), ws); }},
      {"an output of extent 5", [&] { cured::sum_async(x, {1}, cured::view(out.data(), {5}), ws); }},
      {"an output of the reduced axis", [&] { cured::sum_async(x, {1}, cured::view(out.data(), {16}), ws); }},
      {"a keepdim output of extent 2 on the reduced axis",
       [&] { cured::sum_async(x, {1}, cured::view(out.data(), {4, 2}), ws); }},
      {"an output overlapping the input", [&] { cured::sum_async(x, {1}, cured::view(d.data() + 60, {4}), ws); }},
      {"an output whose elements overlap",
       [&] { cured::sum_async(x, {1}, cured::view(out.data(), {4}, {0}), ws); }},
      {"a null input", [&] { cured::sum_async(cured::view(null_in, {4, 16}), {1}, rows, ws); }},
      {"a null output", [&] { cured::sum_async(x, {1}, cured::view(null_out, {4}), ws); }},
      {"a host input", [&] { cured::sum_async(cured::view(host.data(), {4, 16}), {1}, rows, ws); }},
      {"a host input, every axis",
       [&] { cured::sum_async(cured::view(host.data(), {4, 16}), {0, 1}, cured::view(out.data(), {}), ws); }},
      {"a host output", [&] { cured::max_async(x, {1}, cured::view(host_out.data(), {4}), ws); }},
      {"a host output, every axis", [&] { cured::sum_async(x, {0, 1}, cured::view(host_out.data(), {}), ws); }},
      {"host indices", [&] { cured::argmax_async(x, {1}, cured::view(host_indices.data(), {4}), ws); }},
      {"host values", [&] { cured::argmax_async(x, {1}, row_indices, cured::view(host_out.data(), {4}), ws); }},
      {"an arg reduction of a host input",
       [&] { cured::argmin_async(cured::view(host.data(), {4, 16}), {1}, row_indices, ws); }},
      {"values of another stride",
       [&] { cured::argmin_async(x, {1}, row_indices, cured::view(values.data(), {4}, {2}), ws); }},
      {"values of another extent",
       [&] { cured::argmin_async(x, {1}, row_indices, cured::view(values.data(), {3}), ws); }},
      {"values of another rank",
       [&] { cured::argmin_async(x, {1}, row_indices, cured::view(values.data(), {4, 1}), ws); }},
      {"values overlapping the indices",
       [&] {
         float* inside = reinterpret_cast<float*>(idx.data()) + 1;
         cured::argmax_async(x, {1}, row_indices, cured::view(inside, {4}), ws);
       }},
      {"values overlapping the input",
       [&] { cured::argmax_async(x, {1}, row_indices, cured::view(d.data() + 60, {4}), ws); }},
      {"indices of the wrong extent", [&] { cured::argmax_async(x, {0}, row_indices, row_values, ws); }},
      {"reduce_async: an output of 2 axes",
       [&] { cured::reduce_async(x, {1}, cured::view(out.data(), {2, 2}), max_magnitude{}, 0.0f, ws); }},
      {"transform_reduce_async: a repeated axis",
       [&] { cured::transform_reduce_async(x, {0, 0}, rows, square{}, cured::plus{}, 0.0f, ws); }},
      {"blocking sum: axis 2 of two", [&] { cured::sum(x, {2}, rows); }},
      {"blocking min: an output of the wrong extent", [&] { cured::min(x, {0}, rows); }},
      {"blocking max: a host input", [&] { cured::max(cured::view(host.data(), {4, 16}), {1}, rows); }},
      {"blocking argmin: values of another stride",
       [&] { cured::argmin(x, {1}, row_indices, cured::view(values.data(), {4}, {2})); }},
      {"blocking argmax: an axis named twice", [&] { cured::argmax(x, {0, 0}, row_indices); }},
      {"blocking reduce: an output overlapping the input",
       [&] { cured::reduce(x, {1}, cured::view(d.data() + 60, {4}), max_magnitude{}, 0.0f); }},
      {"blocking transform_reduce: a null output",
       [&] { cured::transform_reduce(x, {1}, cured::view(null_out, {4}), square{}, cured::plus{}, 0.0f); }},
  };
  for (const auto& [what, call] : bad) expect_argument_error(what, call);
  CURED_CHECK(cudaDeviceSynchronize());
  const auto poisoned = [](const void* p, std::size_t bytes) {
    std::vector<unsigned char> h(bytes);
    CURED_CHECK(cudaMemcpy(h.data(), p, bytes, cudaMemcpyDeviceToHost));
    return std::count(h.begin(), h.end(), 0xA5) == std::ptrdiff_t(bytes);
  };
  EXPECT_TRUE(poisoned(out.data(), 64 * sizeof(float))) << "a call that threw wrote the output";
  EXPECT_TRUE(poisoned(values.data(), 64 * sizeof(float))) << "a call that threw wrote the values";
  EXPECT_TRUE(poisoned(idx.data(), 64 * sizeof(index_t))) << "a call that threw wrote the indices";
  // The workspace serves the next call.
  cured::sum_async(x, {1}, rows, ws);
  cured::argmax_async(x, {1}, row_indices, row_values, ws);
  std::vector<float> sums(4), maxima(4);
  std::vector<index_t> indices(4);
  CURED_CHECK(cudaMemcpy(sums.data(), out.data(), 4 * sizeof(float), cudaMemcpyDeviceToHost));
  CURED_CHECK(cudaMemcpy(maxima.data(), values.data(), 4 * sizeof(float), cudaMemcpyDeviceToHost));
  CURED_CHECK(cudaMemcpy(indices.data(), idx.data(), 4 * sizeof(index_t), cudaMemcpyDeviceToHost));
  EXPECT_EQ(sums, std::vector<float>(4, 0.0f));
  EXPECT_EQ(maxima, std::vector<float>(4, 0.0f));
  EXPECT_EQ(indices, std::vector<index_t>(4, 0));
}

// Views with no elements may be null: no outputs (nothing to write), or outputs of no elements
// (the identity; index -1 and the identity's value).
TEST(Axes, EmptyViewsNeedNoData) {
  CURED_REQUIRE_GPU();
  cured::workspace ws;
  const float* null_in = nullptr;
  float* null_out = nullptr;
  device_buffer<float> out(5), values(5);
  device_buffer<index_t> idx(5);
  EXPECT_NO_THROW(cured::sum_async(cured::view(null_in, {0, 16}), {1}, cured::view(null_out, {0}), ws));
  EXPECT_NO_THROW(cured::argmax_async(cured::view(null_in, {0, 16}), {1}, cured::view(idx.data(), {0}),
                                      cured::view(null_out, {0}), ws));
  const auto empty_rows = cured::view(null_in, {5, 0});
  const auto read = [&](const auto* d) {
    std::vector<std::remove_const_t<std::remove_pointer_t<decltype(d)>>> h(5);
    CURED_CHECK(cudaMemcpy(h.data(), d, 5 * sizeof(h[0]), cudaMemcpyDeviceToHost));
    return h;
  };
  cured::sum_async(empty_rows, {1}, cured::view(out.data(), {5}), ws);
  EXPECT_EQ(read(out.data()), std::vector<float>(5, 0.0f));
  cured::max_async(empty_rows, {1}, cured::view(out.data(), {5}), ws);
  EXPECT_EQ(read(out.data()), std::vector<float>(5, -INFINITY));
  cured::argmin_async(empty_rows, {1}, cured::view(idx.data(), {5}), cured::view(values.data(), {5}), ws);
  EXPECT_EQ(read(idx.data()), std::vector<index_t>(5, -1));
  EXPECT_EQ(read(values.data()), std::vector<float>(5, INFINITY));
  CURED_CHECK(cudaMemset(out.data(), 0xff, 5 * sizeof(float)));
  cured::exact_sum_async(empty_rows, {1}, cured::view(out.data(), {5}), ws);
  for (const float v : read(out.data())) EXPECT_TRUE(v == 0 && !std::signbit(v)) << "exact_sum of nothing: +0";
  cured::sum(cured::view(null_in, {0}), {0}, cured::view(out.data(), {}));
  EXPECT_EQ(read(out.data())[0], 0.0f);
  cured::argmax(cured::view(null_in, {0}), {0}, cured::view(idx.data(), {}), cured::view(values.data(), {}));
  EXPECT_EQ(read(idx.data())[0], -1);
  EXPECT_EQ(read(values.data())[0], -INFINITY);
}

// A float view of 2^16 x 2^17 elements (2^33) with stride 0 along axis 0, over 2^17 elements,
// and its transpose: every output in closed form.
TEST(Axes, LargeBroadcastMoreThan2To32Elements) {
  CURED_REQUIRE_GPU();
  const std::int64_t rows = std::int64_t(1) << 16, cols = std::int64_t(1) << 17;
  if (rows * cols > cured::test::max_test_n()) GTEST_SKIP() << "above CURED_TEST_MAX_N";
  const std::uint64_t seed = cured::harness::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  mirrored<float> x(cols);
  x.fill_with(fill::small_ints, seed);
  // A unique maximum at the last column and a unique minimum at the one before.
  x.h[cols - 1] = 100;
  x.h[cols - 2] = -100;
  x.upload();
  mirrored<double> xd(cols);
  for (std::int64_t j = 0; j < cols; ++j) xd.h[j] = x.h[j];
  xd.upload();
  double total = 0;
  for (const float v : x.h) total += v;
  cured::workspace ws;
  const auto wide = cured::view(static_cast<const float*>(x.d.data()), {rows, cols}, {0, 1});
  const auto tall = cured::view(static_cast<const float*>(x.d.data()), {cols, rows}, {1, 0});
  // Along the broadcast axis: 2^16 copies of x[j] (partial sums below 2^24: exact).
  device_buffer<float> per_column(cols);
  cured::sum_async(wide, {0}, cured::view(per_column.data(), {cols}), ws);
  std::vector<float> got(cols);
  CURED_CHECK(cudaMemcpy(got.data(), per_column.data(), cols * sizeof(float), cudaMemcpyDeviceToHost));
  std::int64_t bad = 0;
  for (std::int64_t j = 0; j < cols; ++j) bad += got[j] != float(rows) * x.h[j];
  EXPECT_EQ(bad, 0) << "sum along the broadcast axis";
  // Along the other: the sum of x in every row.
  device_buffer<float> per_row(rows);
  cured::sum_async(tall, {0}, cured::view(per_row.data(), {rows}), ws);
  got.resize(rows);
  CURED_CHECK(cudaMemcpy(got.data(), per_row.data(), rows * sizeof(float), cudaMemcpyDeviceToHost));
  bad = 0;
  for (std::int64_t i = 0; i < rows; ++i) bad += got[i] != float(total);
  EXPECT_EQ(bad, 0) << "sum along the contiguous axis (the transpose's axis 0)";
  // Every axis, in double: 2^16 times the sum of x, exact.
  device_buffer<double> all(1);
  cured::sum_async(cured::view(static_cast<const double*>(xd.d.data()), {rows, cols}, {0, 1}), {0, 1},
                   cured::view(all.data(), {}), ws);
  double got_all = 0;
  CURED_CHECK(cudaMemcpy(&got_all, all.data(), sizeof(double), cudaMemcpyDeviceToHost));
  EXPECT_EQ(got_all, double(rows) * total) << "double sum of every axis";
  // The arg reductions of every axis of the transpose: the flat index j * 2^16, past 2^32.
  device_buffer<index_t> index(1);
  device_buffer<float> value(1);
  index_t got_index = 0;
  float got_value = 0;
  for (const bool max : {false, true}) {
    if (max) cured::argmax_async(tall, {0, 1}, cured::view(index.data(), {}), cured::view(value.data(), {}), ws);
    else cured::argmin_async(tall, {1, 0}, cured::view(index.data(), {}), cured::view(value.data(), {}), ws);
    CURED_CHECK(cudaMemcpy(&got_index, index.data(), sizeof(index_t), cudaMemcpyDeviceToHost));
    CURED_CHECK(cudaMemcpy(&got_value, value.data(), sizeof(float), cudaMemcpyDeviceToHost));
    const std::int64_t j = max ? cols - 1 : cols - 2;
    EXPECT_EQ(got_index, j * rows) << (max ? "argmax" : "argmin") << " of every axis";
    EXPECT_EQ(got_value, max ? 100.0f : -100.0f);
  }
  // Every axis of the wide view: the first extreme lies in row 0.
  cured::argmax_async(wide, {0, 1}, cured::view(index.data(), {}), ws);
  CURED_CHECK(cudaMemcpy(&got_index, index.data(), sizeof(index_t), cudaMemcpyDeviceToHost));
  EXPECT_EQ(got_index, cols - 1) << "argmax of every axis of the broadcast view";
  // Along the contiguous axis: the last column of every row.
  device_buffer<index_t> per_row_index(rows);
  cured::argmax_async(wide, {1}, cured::view(per_row_index.data(), {rows}), ws);
  std::vector<index_t> indices(rows);
  CURED_CHECK(cudaMemcpy(indices.data(), per_row_index.data(), rows * sizeof(index_t), cudaMemcpyDeviceToHost));
  EXPECT_EQ(indices, std::vector<index_t>(rows, cols - 1)) << "argmax along the contiguous axis";
}

// Reduced extents above 2^31: a half array of 2^31 + 5 elements (4 GiB) with a few nonzero
// elements past 2^31, reduced as rows (long rows), as the whole array, and as columns of
// stride 0; and a double view of 2^31 + 5 rows with stride 0.
TEST(Axes, LargeReducedExtentAbove2To31) {
  CURED_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 31) + 5;
  if (n > cured::test::max_test_n()) GTEST_SKIP() << "above CURED_TEST_MAX_N";
  const std::size_t need = std::size_t(n) * sizeof(__half) + (std::size_t(1) << 30);
  if (cured::test::free_device_bytes() < need) GTEST_SKIP() << "needs " << (need >> 20) << " MiB of device memory";
  cured::workspace ws;
  device_buffer<__half> d(static_cast<std::size_t>(n));
  CURED_CHECK(cudaMemset(d.data(), 0, std::size_t(n) * sizeof(__half)));
  const std::int64_t low = (std::int64_t(1) << 31) + 1, high = (std::int64_t(1) << 31) + 3;
  for (const auto& [at, v] : {std::pair{std::int64_t(5), 1.0f}, std::pair{low, -3.0f}, std::pair{high, 7.0f},
                              std::pair{high + 1, 7.0f}}) {
    const __half h = __float2half_rn(v);
    CURED_CHECK(cudaMemcpy(d.data() + at, &h, sizeof h, cudaMemcpyHostToDevice));
  }
  const __half* base = d.data();
  struct shaped {
    const char* name;
    strided_view<const __half> in;
    axes along;
    std::int64_t outputs;
  };
  const shaped shapes[] = {
      {"two rows of stride 0 over the array", cured::view(base, {2, n}, {0, 1}), {1}, 2},
      {"the whole array", cured::view(base, {n}), {0}, 1},
      {"two columns of stride 0", cured::view(base, {n, 2}, {1, 0}), {0}, 2},
  };
  device_buffer<float> sums(2);
  device_buffer<__half> extremes(2), values(2);
  device_buffer<index_t> indices(2);
  for (const shaped& s : shapes) {
    const std::int64_t m = s.outputs;
    const auto out_of = [&](auto* p) { return m == 1 ? cured::view(p, {}) : cured::view(p, {m}); };
    const auto read = [&](const auto* p) {
      std::vector<std::remove_const_t<std::remove_pointer_t<decltype(p)>>> h(static_cast<std::size_t>(m));
      CURED_CHECK(cudaMemcpy(h.data(), p, std::size_t(m) * sizeof(h[0]), cudaMemcpyDeviceToHost));
      return h;
    };
    cured::sum_async(s.in, s.along, out_of(sums.data()), ws);
    EXPECT_EQ(read(sums.data()), std::vector<float>(std::size_t(m), 12.0f)) << s.name << ": sum";
    cured::exact_sum_async(s.in, s.along, out_of(sums.data()), ws);
    EXPECT_EQ(read(sums.data()), std::vector<float>(std::size_t(m), 12.0f)) << s.name << ": exact_sum";
    for (const bool max : {false, true}) {
      if (max) cured::max_async(s.in, s.along, out_of(extremes.data()), ws);
      else cured::min_async(s.in, s.along, out_of(extremes.data()), ws);
      for (const __half v : read(extremes.data()))
        EXPECT_EQ(__half2float(v), max ? 7.0f : -3.0f) << s.name << (max ? ": max" : ": min");
      if (max) cured::argmax_async(s.in, s.along, out_of(indices.data()), out_of(values.data()), ws);
      else cured::argmin_async(s.in, s.along, out_of(indices.data()), out_of(values.data()), ws);
      EXPECT_EQ(read(indices.data()), std::vector<index_t>(std::size_t(m), max ? high : low))
          << s.name << (max ? ": argmax" : ": argmin");
      for (const __half v : read(values.data()))
        EXPECT_EQ(__half2float(v), max ? 7.0f : -3.0f) << s.name << (max ? ": argmax value" : ": argmin value");
    }
  }
  // 2^31 + 5 rows of stride 0 over 8 doubles: n * x[j], exact.
  const double x[8] = {1, -2, 3, -4, 5, -6, 7, 8};
  device_buffer<double> dx(8), column_sums(8);
  CURED_CHECK(cudaMemcpy(dx.data(), x, sizeof x, cudaMemcpyHostToDevice));
  cured::sum_async(cured::view(static_cast<const double*>(dx.data()), {n, 8}, {0, 1}), {0},
                   cured::view(column_sums.data(), {8}), ws);
  double got[8];
  CURED_CHECK(cudaMemcpy(got, column_sums.data(), sizeof got, cudaMemcpyDeviceToHost));
  for (int j = 0; j < 8; ++j) EXPECT_EQ(got[j], double(n) * x[j]) << "column " << j << " of the broadcast";
}

}  // namespace
