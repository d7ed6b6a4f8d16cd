#pragma once
// The C interface's internals: the tables of cured_c.h as C++ (element types as C++ types, the
// type rules), arrays as views, and the entry points of each family. Each family's translation
// unit (axes_*.cu, segments_*.cu) is compiled once per shard of the element types, its entry
// points instantiated for that shard (CURED_C_SHARD, c/CMakeLists.txt) with the shard's kernels
// only: a build's cores compile the pieces side by side, and each kernel is instantiated once
// (but the counts of uint8's zeros, which int8's shard needs too).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cured/types/view.cuh"
#include "cured/workspace.cuh"
#include "cured_c.h"

namespace cured::capi {

/// An element type or a pair of types the interface does not provide.
struct unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- the tables' rows ---------------------------------------------------------------------

#define CURED_DTYPE_ROW_(ENUM, code, name, bytes, kind, dl_code, dl_bits, typestr, segments, Cxx) \
  cured_dtype_info{name, bytes, kind, dl_code, dl_bits, typestr, segments},
inline constexpr cured_dtype_info dtype_rows[] = {CURED_DTYPE_TABLE(CURED_DTYPE_ROW_)};
#undef CURED_DTYPE_ROW_

#define CURED_OP_ROW_(ENUM, code, name, result) cured_reduction_info{name, result, 1, CURED_PARAM_NONE},
inline constexpr cured_reduction_info op_rows[] = {CURED_OP_TABLE(CURED_OP_ROW_)};
#undef CURED_OP_ROW_

#define CURED_STATISTIC_ROW_(ENUM, code, name, result, parts, param) cured_reduction_info{name, result, parts, param},
inline constexpr cured_reduction_info statistic_rows[] = {CURED_STATISTIC_TABLE(CURED_STATISTIC_ROW_)};
#undef CURED_STATISTIC_ROW_

// Each table's codes are its rows' positions.
#define CURED_CODE_(ENUM, code, ...) code,
inline constexpr int dtype_codes[] = {CURED_DTYPE_TABLE(CURED_CODE_)};
inline constexpr int op_codes[] = {CURED_OP_TABLE(CURED_CODE_)};
inline constexpr int statistic_codes[] = {CURED_STATISTIC_TABLE(CURED_CODE_)};
#undef CURED_CODE_
template <std::size_t N>
constexpr bool codes_are_positions(const int (&codes)[N]) {
  for (std::size_t k = 0; k < N; ++k)
    if (codes[k] != int(k)) return false;
  return true;
}
static_assert(codes_are_positions(dtype_codes) && codes_are_positions(op_codes) &&
                  codes_are_positions(statistic_codes),
              "cured_c.h: each table's codes must be 0, 1, 2, ... in the order of its rows");

constexpr bool is_dtype(std::int32_t t) { return t >= 0 && t < CURED_DTYPE_COUNT; }
constexpr bool is_floating(std::int32_t t) { return is_dtype(t) && dtype_rows[t].kind == CURED_KIND_FLOATING; }
/// Whether the segmented reductions (other than the counts) take elements of type t.
constexpr bool in_segments(std::int32_t t) { return is_dtype(t) && dtype_rows[t].segments != 0; }
inline const char* dtype_name(std::int32_t t) { return is_dtype(t) ? dtype_rows[t].name : "an unknown type"; }
inline std::size_t dtype_bytes(std::int32_t t) { return is_dtype(t) ? std::size_t(dtype_rows[t].bytes) : 1; }

/// The names of the element types for which takes(code) holds, ", "-separated.
template <class Takes>
std::string names_where(Takes takes) {
  std::string names;
  for (std::int32_t t = 0; t < CURED_DTYPE_COUNT; ++t)
    if (takes(t)) names += (names.empty() ? "" : ", ") + std::string(dtype_rows[t].name);
  return names;
}

/// The default sum of t: int64 for integers and bool, t itself for floating types.
constexpr std::int32_t sum_default(std::int32_t t) { return is_floating(t) ? t : CURED_INT64; }

/// Whether a sum of `in` into `out` is provided: the default, or a row of the widenings' table.
constexpr bool sum_provided(std::int32_t in, std::int32_t out) {
  if (!is_dtype(in)) return false;
  if (out == sum_default(in)) return true;
#define CURED_WIDENING_(IN, OUT) if (in == CURED_##IN && out == CURED_##OUT) return true;
  CURED_SUM_WIDENING_TABLE(CURED_WIDENING_)
#undef CURED_WIDENING_
  return false;
}

/// The exact sum's and the floating statistics' type: float32, or float64 for float64.
constexpr std::int32_t float_result(std::int32_t t) { return t == CURED_FLOAT64 ? CURED_FLOAT64 : CURED_FLOAT32; }

// ---- element types as C++ types -------------------------------------------------------------

template <class T>
struct tag {
  using type = T;
};

/// Calls f(std::integral_constant<std::int32_t, t>{}) with t as a constant; unsupported for
/// codes outside the table.
template <class F>
decltype(auto) with_code(std::int32_t t, F&& f) {
  switch (t) {
#define CURED_CASE_(ENUM, code, ...) \
  case code: return f(std::integral_constant<std::int32_t, code>{});
    CURED_DTYPE_TABLE(CURED_CASE_)
#undef CURED_CASE_
    default: throw unsupported("cured: unknown element type " + std::to_string(t));
  }
}

/// The C++ type of a cured_dtype's elements (bool as its byte).
template <std::int32_t T>
struct element;
#define CURED_ELEMENT_(ENUM, code, name, bytes, kind, dl_code, dl_bits, typestr, segments, Cxx) \
  template <>                                                                                   \
  struct element<code> {                                                                        \
    using type = Cxx;                                                                           \
  };
CURED_DTYPE_TABLE(CURED_ELEMENT_)
#undef CURED_ELEMENT_
template <std::int32_t T>
using element_t = typename element<T>::type;

// ---- shards of the element types ------------------------------------------------------------

/// The shards: floating types of 4 and 8 bytes, of 2 bytes, int8 and int16, and the other
/// integers and bool (c/CMakeLists.txt compiles the families once for each of 0 .. shard_count - 1).
/// Four pieces of about equal compile time; each more costs every family a unit's fixed time.
inline constexpr int shard_count = 4;
constexpr int shard_of(std::int32_t t) {
  if (!is_dtype(t)) return 0;  // (a family's unit of shard 0 throws for an unknown type)
  const cured_dtype_info& row = dtype_rows[t];
  if (row.kind == CURED_KIND_FLOATING) return row.bytes >= 4 ? 0 : 1;
  return row.kind == CURED_KIND_SIGNED && row.bytes < 4 ? 2 : 3;
}
constexpr bool shards_in_range() {
  for (std::int32_t t = 0; t < CURED_DTYPE_COUNT; ++t)
    if (shard_of(t) < 0 || shard_of(t) >= shard_count) return false;
  return true;
}
static_assert(shards_in_range(), "shard_of gives a shard outside 0 .. shard_count - 1");

/// Whether shard k holds a floating type. The families of floating elements alone (axes_exact,
/// axes_moments, axes_norms, segments_statistics) are compiled for those shards only
/// (c/CMakeLists.txt's cured_c_floating_families): their entry points exist there alone.
constexpr bool holds_floating(int k) {
  for (std::int32_t t = 0; t < CURED_DTYPE_COUNT; ++t)
    if (is_floating(t) && shard_of(t) == k) return true;
  return false;
}

/// Calls f(std::integral_constant<int, shard_of(t)>{}): the shard whose entry points take t.
template <int K = 0, class F>
void with_shard(std::int32_t t, F&& f) {
  if constexpr (K + 1 < shard_count) {
    if (shard_of(t) != K) return with_shard<K + 1>(t, f);
  }
  f(std::integral_constant<int, K>{});
}

/// with_shard for the families of floating elements alone, whose entry points exist in the
/// shards that hold floating types: a type of another shard is a logic error (every caller
/// refuses other types before it dispatches).
template <class F>
void with_floating_shard(std::int32_t t, F&& f) {
  with_shard(t, [&](auto shard) {
    if constexpr (holds_floating(decltype(shard)::value))
      f(shard);
    else
      throw std::logic_error(std::string("cured: a family of floating elements called for ") + dtype_name(t));
  });
}

#ifdef CURED_C_SHARD_COUNT
static_assert(CURED_C_SHARD_COUNT == shard_count, "c/CMakeLists.txt's CURED_C_SHARD_COUNT is not shard_count");
#endif

/// with_code for the types of shard Shard, whose kernels a family's entry point for Shard
/// instantiates; a type of another shard is a logic error (with_shard sends none there).
template <int Shard, class F>
void with_code_of_shard(std::int32_t t, F&& f) {
  with_code(t, [&](auto code) {
    if constexpr (shard_of(decltype(code)::value) == Shard)
      f(code);
    else
      throw std::logic_error(std::string("cured: ") + dtype_name(t) + " sent to the wrong shard");
  });
}

/// Calls f(tag<T>{}) with the C++ type of the elements of every type of shard Shard for which
/// Takes(code) holds; otherwise throws unsupported(refusal()).
template <int Shard, class Takes, class Refusal, class F>
void with_element_if(std::int32_t t, Takes takes, Refusal refusal, F&& f) {
  with_code_of_shard<Shard>(t, [&](auto code) {
    constexpr std::int32_t c = decltype(code)::value;
    if constexpr (takes(c))
      f(tag<element_t<c>>{});
    else
      throw unsupported(refusal());
  });
}

/// with_element_if for every type.
template <int Shard, class F>
void with_element(std::int32_t t, F&& f) {
  with_element_if<Shard>(t, [](std::int32_t) { return true; }, [] { return std::string(); }, f);
}

/// The element types of the segmented reductions (`what` names the op in the error for others).
template <int Shard, class F>
void with_segment_element(std::int32_t t, const char* what, F&& f) {
  const auto takes = [](std::int32_t c) { return in_segments(c); };
  with_element_if<Shard>(t, takes, [&] {
    return std::string("cured: no segmented ") + what + " of " + dtype_name(t) + " (it takes " + names_where(takes) +
           ")";
  }, f);
}

/// The floating element types.
template <int Shard, class F>
void with_floating(std::int32_t t, const char* what, F&& f) {
  const auto takes = [](std::int32_t c) { return is_floating(c); };
  with_element_if<Shard>(t, takes, [&] {
    return std::string("cured: ") + what + " takes floating elements, not " + dtype_name(t) + " (" +
           names_where(takes) + ")";
  }, f);
}

template <std::size_t Bytes>
using unsigned_of = std::conditional_t<Bytes == 1, std::uint8_t, std::conditional_t<Bytes == 2, std::uint16_t,
                                       std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>>>;

/// Calls f(tag<T>{}) with a type whose zero elements are those of a cured_dtype's: integers as
/// the unsigned integers of their size (zero is the same bits), floating types as themselves
/// (-0.0 is zero).
template <int Shard, class F>
void with_zero_class(std::int32_t t, F&& f) {
  with_code_of_shard<Shard>(t, [&](auto code) {
    constexpr std::int32_t c = decltype(code)::value;
    if constexpr (is_floating(c))
      f(tag<element_t<c>>{});
    else
      f(tag<unsigned_of<sizeof(element_t<c>)>>{});
  });
}

/// Calls f(tag<In>{}, tag<Out>{}, tag<Acc>{}) for a sum of `in` into `out` that the rules
/// provide (Acc: float for half and bfloat16 results, else the result's type); Family(in) must
/// hold too (the segmented sums take fewer input types).
template <int Shard, class Family, class F>
void with_sum(std::int32_t in, std::int32_t out, Family family, F&& f) {
  with_code_of_shard<Shard>(in, [&](auto in_code) {
    constexpr std::int32_t I = decltype(in_code)::value;
    with_code(out, [&](auto out_code) {
      constexpr std::int32_t O = decltype(out_code)::value;
      if constexpr (sum_provided(I, O) && family(I)) {
        using Out = element_t<O>;
        using Acc = std::conditional_t<O == CURED_FLOAT16 || O == CURED_BFLOAT16, float, Out>;
        f(tag<element_t<I>>{}, tag<Out>{}, tag<Acc>{});
      } else {
        throw unsupported(std::string("cured: no sum of ") + dtype_name(I) + " into " + dtype_name(O));
      }
    });
  });
}

/// The view of an array's elements as T (the array's type already checked to be T's).
template <class T>
strided_view<T> as_view(const cured_array& a) {
  strided_view<T> v;
  v.data = static_cast<T*>(a.data);
  v.rank = a.rank;
  for (int k = 0; k < a.rank; ++k) {
    v.extents[k] = a.extents[k];
    v.strides[k] = a.strides[k];
  }
  return v;
}

// ---- the families (axes_*.cu, segments_*.cu) --------------------------------------------------
// Each entry point is a template on the shard of its input's element type (with_shard picks it),
// instantiated by the family's unit compiled for that shard.

template <int Shard>
void axis_sum(const cured_array& in, const axes& along, const cured_array& out, workspace& ws, cudaStream_t s);
template <int Shard>
void axis_extremum(bool max, const cured_array& in, const axes& along, const cured_array& out, workspace& ws,
                   cudaStream_t s);
template <int Shard>
void axis_arg(bool max, const cured_array& in, const axes& along, const cured_array& out, const cured_array* values,
              workspace& ws, cudaStream_t s);
template <int Shard>
void axis_exact(const cured_array& in, const axes& along, const cured_array& out, workspace& ws, cudaStream_t s);
/// The exact dot product of the n elements of x and y (dense, one floating type) into out's one element.
template <int Shard>
void exact_dot(const cured_array& x, const cured_array& y, std::int64_t n, const cured_array& out, workspace& ws,
               cudaStream_t s);

/// A segmented call: the values as a pointer and count, the offsets, and where the status goes
/// (check: the blocking form, which throws for bad offsets; else the async form on ws).
struct segment_call {
  const void* values;
  std::int64_t n;
  const std::int64_t* offsets;
  std::int64_t count;
  unsigned* status;
  bool check;
  workspace* ws;
  cudaStream_t stream;
};

// ---- the statistics (axes_moments.cu, axes_norms.cu, axes_counts.cu, segments_statistics.cu,
// segments_counts.cu) ---------------------------------------------------------------------------

/// Which statistic, its parameter (correction or p), and its second output (null for one part).
struct statistic_call {
  std::int32_t statistic;
  double param;
  const cured_array* second;
};

/// mean, var, std, var_mean, std_mean of floating elements (var and std as var_mean and std_mean
/// without the second output: one kernel for both).
template <int Shard>
void axis_moments(const statistic_call& st, const cured_array& in, const axes& along, const cured_array& out,
                  workspace& ws, cudaStream_t s);
/// vector_norm and logsumexp of floating elements.
template <int Shard>
void axis_norms(const statistic_call& st, const cured_array& in, const axes& along, const cured_array& out,
                workspace& ws, cudaStream_t s);
/// aminmax, count_nonzero, any and all of any element type.
template <int Shard>
void axis_counts(const statistic_call& st, const cured_array& in, const axes& along, const cured_array& out,
                 workspace& ws, cudaStream_t s);
template <int Shard>
void segment_floating_statistic(const statistic_call& st, const segment_call& c, std::int32_t in,
                                const cured_array& out);
template <int Shard>
void segment_counts(const statistic_call& st, const segment_call& c, std::int32_t in, const cured_array& out);

template <int Shard>
void segment_sum(const segment_call& c, std::int32_t in, const cured_array& out);
template <int Shard>
void segment_extremum(bool max, const segment_call& c, std::int32_t in, const cured_array& out);
template <int Shard>
void segment_arg(bool max, const segment_call& c, std::int32_t in, const cured_array& out);
template <int Shard>
void segment_exact(const segment_call& c, std::int32_t in, const cured_array& out);

}  // namespace cured::capi
