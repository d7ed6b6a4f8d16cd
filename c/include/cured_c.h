#ifndef CURED_C_H
#define CURED_C_H
/* cured's C interface: the reductions of the C++ library behind a stable C ABI, for any
 * language that can call C (Python through ctypes, Julia, Rust, C#).
 *
 *   cured_array x = {d_x, CURED_FLOAT32, 2, {4096, 1024}, {1024, 1}};
 *   cured_array y = {d_y, CURED_FLOAT32, 1, {4096}, {1}};
 *   int32_t dim = 1;
 *   if (cured_reduce(CURED_SUM, &x, &dim, 1, &y, NULL, stream, NULL) != CURED_SUCCESS)
 *     fprintf(stderr, "%s\n", cured_last_error());
 *
 * Every function returns a cured_status; on failure cured_last_error() gives the message (per
 * host thread, until that thread's next call). Nothing prints, exits or throws across the ABI.
 * Reductions enqueue their kernels on `stream` (a cudaStream_t, NULL for the legacy default
 * stream) and return without waiting, except where a function says otherwise. Arrays are
 * device (or managed) memory: a call runs on its input's device (its workspace's, when one is
 * given) and restores the caller's current device before it returns. The library links the
 * CUDA runtime statically and needs only the driver (580 or newer for CUDA 13); streams of any
 * runtime in the process (PyTorch's, CuPy's) are the driver's and work as they are. */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's functions: exported when building it (CURED_C_BUILDING, set by its CMake
 * target), imported by its users. */
#if defined(_WIN32)
#if defined(CURED_C_BUILDING)
#define CURED_C_API __declspec(dllexport)
#else
#define CURED_C_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define CURED_C_API __attribute__((visibility("default")))
#else
#define CURED_C_API
#endif

/* Bumped when a declaration here changes incompatibly or a function is added (a caller that
 * checks for its own version then finds every function it declares). */
#define CURED_C_ABI_VERSION 3
#define CURED_C_MAX_RANK 8

typedef enum cured_status {
  CURED_SUCCESS = 0,
  CURED_ERROR_INVALID = 1,     /* a bad argument: shape, axes, pointer, offsets */
  CURED_ERROR_UNSUPPORTED = 2, /* an element type, or pair of input and output types, not provided */
  CURED_ERROR_CUDA = 3,        /* a CUDA call failed (no device, out of memory, a launch) */
  CURED_ERROR_INTERNAL = 4     /* anything else: a bug to report */
} cured_status;

/* The tables: every element type, op and statistic is one row below, and everything else is
 * made from these rows: the enums that follow, the library's instantiations and type rules,
 * and (through cured_dtype_query, cured_op_query and cured_statistic_query) the Python
 * package's maps. Adding a type or an op is adding a row here and its kernels' instantiation.
 *
 * Element types: X(ENUM, code, name, bytes, kind, DLPack code, DLPack bits, NumPy typestr,
 * segments, C++ type). `name` is NumPy's, CuPy's and torch's (torch.float32); the typestr is
 * __array_interface__'s without its byte order ("" where NumPy has none); `segments`: the
 * segmented reductions take it (count_nonzero, any and all take every type), and so do the
 * reductions across ranks (cured_nccl.h); the C++ type is
 * the library's for the elements (bool as its byte). */
#define CURED_DTYPE_TABLE(X)                                                                    \
  X(BOOL, 0, "bool", 1, CURED_KIND_BOOL, 6, 8, "b1", 0, std::uint8_t)                           \
  X(INT8, 1, "int8", 1, CURED_KIND_SIGNED, 0, 8, "i1", 0, std::int8_t)                          \
  X(UINT8, 2, "uint8", 1, CURED_KIND_UNSIGNED, 1, 8, "u1", 0, std::uint8_t)                     \
  X(INT16, 3, "int16", 2, CURED_KIND_SIGNED, 0, 16, "i2", 0, std::int16_t)                      \
  X(INT32, 4, "int32", 4, CURED_KIND_SIGNED, 0, 32, "i4", 1, std::int32_t)                      \
  X(INT64, 5, "int64", 8, CURED_KIND_SIGNED, 0, 64, "i8", 1, std::int64_t)                      \
  X(FLOAT16, 6, "float16", 2, CURED_KIND_FLOATING, 2, 16, "f2", 1, __half)                      \
  X(BFLOAT16, 7, "bfloat16", 2, CURED_KIND_FLOATING, 4, 16, "", 1, __nv_bfloat16)               \
  X(FLOAT32, 8, "float32", 4, CURED_KIND_FLOATING, 2, 32, "f4", 1, float)                       \
  X(FLOAT64, 9, "float64", 8, CURED_KIND_FLOATING, 2, 64, "f8", 1, double)

/* Sums into a wider floating type than the default, as X(input, output): each is provided. */
#define CURED_SUM_WIDENING_TABLE(X) \
  X(FLOAT16, FLOAT32)               \
  X(BFLOAT16, FLOAT32)              \
  X(FLOAT32, FLOAT64)

/* Ops (cured_reduce, cured_segment_reduce): X(ENUM, code, name, result). Results: SUM int64 for
 * integers and bool, the input's type for floating types (or a widening above); SAME the
 * input's type; INDEX int64; EXACT float32 (float64 for float64), floating inputs only.
 *   SUM:    NaN and infinities as IEEE addition gives them
 *   MIN:    NaN propagates (torch's amin)
 *   MAX:    (torch's amax)
 *   ARGMIN: the int64 index of the first extreme (or first NaN) over the reduced axes, -1 when empty
 *   EXACT_SUM: the exact sum rounded once */
#define CURED_OP_TABLE(X)                          \
  X(SUM, 0, "sum", CURED_RESULT_SUM)               \
  X(MIN, 1, "min", CURED_RESULT_SAME)              \
  X(MAX, 2, "max", CURED_RESULT_SAME)              \
  X(ARGMIN, 3, "argmin", CURED_RESULT_INDEX)       \
  X(ARGMAX, 4, "argmax", CURED_RESULT_INDEX)       \
  X(EXACT_SUM, 5, "exact_sum", CURED_RESULT_EXACT)

/* The one-pass statistics (cured_statistic_reduce, cured_segment_statistic): X(ENUM, code,
 * name, result, parts, param). Results: MOMENT float32 (float64 for float64), floating inputs
 * only; SAME the input's type; COUNT int64; TRUTH bool. parts: 2 writes the second part to
 * `second`. param: what the call's `param` is (CURED_PARAM_NONE: unused).
 *   MEAN: NaN when empty;  VAR: Welford and Chan, m2 / max(n - correction, 0);  STD: its root
 *   VAR_MEAN, STD_MEAN: out the variance (deviation), second the mean
 *   VECTOR_NORM: p = 1, 2 (scaled: no overflow, no underflow) or INFINITY; 0 when empty
 *   LOGSUMEXP: a running maximum; -inf when empty or all -inf
 *   AMINMAX: out the minimum, second the maximum; NaN propagates; the identities when empty
 *   COUNT_NONZERO: NaN counts, -0.0 does not;  ANY: false when empty;  ALL: true when empty */
#define CURED_STATISTIC_TABLE(X)                                                       \
  X(MEAN, 0, "mean", CURED_RESULT_MOMENT, 1, CURED_PARAM_NONE)                         \
  X(VAR, 1, "var", CURED_RESULT_MOMENT, 1, CURED_PARAM_CORRECTION)                     \
  X(STD, 2, "std", CURED_RESULT_MOMENT, 1, CURED_PARAM_CORRECTION)                     \
  X(VAR_MEAN, 3, "var_mean", CURED_RESULT_MOMENT, 2, CURED_PARAM_CORRECTION)           \
  X(STD_MEAN, 4, "std_mean", CURED_RESULT_MOMENT, 2, CURED_PARAM_CORRECTION)           \
  X(VECTOR_NORM, 5, "vector_norm", CURED_RESULT_MOMENT, 1, CURED_PARAM_ORDER)          \
  X(LOGSUMEXP, 6, "logsumexp", CURED_RESULT_MOMENT, 1, CURED_PARAM_NONE)               \
  X(AMINMAX, 7, "aminmax", CURED_RESULT_SAME, 2, CURED_PARAM_NONE)                     \
  X(COUNT_NONZERO, 8, "count_nonzero", CURED_RESULT_COUNT, 1, CURED_PARAM_NONE)        \
  X(ANY, 9, "any", CURED_RESULT_TRUTH, 1, CURED_PARAM_NONE)                            \
  X(ALL, 10, "all", CURED_RESULT_TRUTH, 1, CURED_PARAM_NONE)

#define CURED_TABLE_ENUM_(ENUM, code, ...) CURED_##ENUM = code,
#define CURED_TABLE_COUNT_(...) +1

/* Element types. CURED_BOOL is one byte, 0 or 1. */
typedef enum cured_dtype { CURED_DTYPE_TABLE(CURED_TABLE_ENUM_) CURED_DTYPE_COUNT = 0 CURED_DTYPE_TABLE(CURED_TABLE_COUNT_) } cured_dtype;
typedef enum cured_op { CURED_OP_TABLE(CURED_TABLE_ENUM_) CURED_OP_COUNT = 0 CURED_OP_TABLE(CURED_TABLE_COUNT_) } cured_op;
typedef enum cured_statistic {
  CURED_STATISTIC_TABLE(CURED_TABLE_ENUM_) CURED_STATISTIC_COUNT = 0 CURED_STATISTIC_TABLE(CURED_TABLE_COUNT_)
} cured_statistic;

/* The table's columns. */
typedef enum cured_kind { CURED_KIND_BOOL = 0, CURED_KIND_SIGNED = 1, CURED_KIND_UNSIGNED = 2, CURED_KIND_FLOATING = 3 } cured_kind;
typedef enum cured_result {
  CURED_RESULT_SUM = 0,
  CURED_RESULT_SAME = 1,
  CURED_RESULT_INDEX = 2,
  CURED_RESULT_EXACT = 3,
  CURED_RESULT_MOMENT = 4,
  CURED_RESULT_COUNT = 5,
  CURED_RESULT_TRUTH = 6
} cured_result;
typedef enum cured_param { CURED_PARAM_NONE = 0, CURED_PARAM_CORRECTION = 1, CURED_PARAM_ORDER = 2 } cured_param;

/* One row of the element types' table. */
typedef struct cured_dtype_info {
  const char* name;
  int32_t bytes;
  int32_t kind; /* a cured_kind */
  int32_t dlpack_code;
  int32_t dlpack_bits;
  const char* typestr;
  int32_t segments;
} cured_dtype_info;

/* One row of the ops' or the statistics' table. */
typedef struct cured_reduction_info {
  const char* name;
  int32_t result; /* a cured_result */
  int32_t parts;  /* 1, or 2 for the statistics with a second output */
  int32_t param;  /* a cured_param */
} cured_reduction_info;

/* A strided view of device memory: element (i_0, ..., i_{rank-1}) lies at
 * data + (i_0 * strides[0] + ...) * element size. Strides in elements, >= 0 (0 broadcasts). */
typedef struct cured_array {
  void* data;
  int32_t dtype; /* a cured_dtype */
  int32_t rank;  /* 0..CURED_C_MAX_RANK */
  int64_t extents[CURED_C_MAX_RANK];
  int64_t strides[CURED_C_MAX_RANK];
} cured_array;

/* Scratch for the reductions (cured::workspace): use one from one stream at a time. Passing
 * NULL where a function takes one uses the library's own, one per host thread, device and
 * stream, created on first use and kept until the process ends (so CUDA graphs that captured
 * a call stay valid). */
typedef struct cured_workspace_s* cured_workspace;

CURED_C_API int32_t cured_abi_version(void);
/* The library's version, "major.minor.patch" (the project's, as CMake and the Python package
 * read it); a static string. */
CURED_C_API const char* cured_version(void);
/* A status's name and meaning, "CURED_ERROR_INVALID: invalid argument" (a static string; "unknown
 * status" for other values). cured_last_error() tells what failed. */
CURED_C_API const char* cured_status_string(cured_status status);
/* The message of the calling thread's last failed call ("" if none). */
CURED_C_API const char* cured_last_error(void);

/* The tables' rows: CURED_ERROR_INVALID for a code outside the table. */
CURED_C_API cured_status cured_dtype_query(int32_t dtype, cured_dtype_info* info);
CURED_C_API cured_status cured_op_query(int32_t op, cured_reduction_info* info);
CURED_C_API cured_status cured_statistic_query(int32_t statistic, cured_reduction_info* info);

/* The output type of `op` on `in` elements along axes (cured_reduce). `requested` is -1 for the
 * default (the op's result column) or a cured_dtype to ask for (a sum widening);
 * CURED_ERROR_UNSUPPORTED when not provided. Whatever it allows, cured_reduce takes. */
CURED_C_API cured_status cured_result_dtype(int32_t op, int32_t in, int32_t requested, int32_t* out);
/* The same for cured_segment_reduce: the element types whose `segments` column is 1. */
CURED_C_API cured_status cured_segment_result_dtype(int32_t op, int32_t in, int32_t requested, int32_t* out);

/* `op` of `in` along the `naxes` axes in `axes` (each in -rank..rank-1, at most once; naxes 0:
 * each element alone; every axis: one output) into `out`, whose axes are the kept axes in order,
 * or all of the input's with extent 1 on the reduced ones. `values` (argmin/argmax only, NULL
 * otherwise or when not wanted): also the extreme values, with the extents and strides of out. */
CURED_C_API cured_status cured_reduce(int32_t op, const cured_array* in, const int32_t* axes, int32_t naxes,
                                      const cured_array* out, const cured_array* values, void* stream,
                                      cured_workspace ws);

/* The exact dot product of `x` and `y` (one floating type, the same extents, each dense in
 * row-major order), rounded once into `out`'s one element: float64 for float64 inputs, float32
 * for the others (cured_result_dtype's CURED_EXACT_SUM column). The same bits for any order and
 * device; a NaN operand or inf * 0 gives NaN. */
CURED_C_API cured_status cured_exact_dot(const cured_array* x, const cured_array* y, const cured_array* out,
                                         void* stream, cured_workspace ws);

/* `op` of each segment s of the rank-1 array `values`: elements [offsets[s], offsets[s + 1])
 * (count + 1 non-decreasing int64 offsets in device memory, within [0, n]), into the rank-1
 * `out` of count elements (argmin/argmax: the index within the segment). Offsets that
 * decrease or leave [0, n] are found by the kernel: with `check` nonzero the call waits for
 * the stream and returns CURED_ERROR_INVALID naming them; with `check` 0 it returns at once
 * and the kernel writes the reason's bits to `*status` (device, managed or mapped memory; 0
 * when valid; 1: decreasing, 2: outside [0, n]) when `status` is not NULL. */
CURED_C_API cured_status cured_segment_reduce(int32_t op, const cured_array* values, const int64_t* offsets,
                                              int64_t count, const cured_array* out, uint32_t* status,
                                              int32_t check, void* stream, cured_workspace ws);

/* The output type (of both parts) of `statistic` on `in` elements (cured_statistic_reduce);
 * CURED_ERROR_UNSUPPORTED for a floating statistic of integers. */
CURED_C_API cured_status cured_statistic_dtype(int32_t statistic, int32_t in, int32_t* out);
/* The same for cured_segment_statistic: the counts (count_nonzero, any, all) of every type, the
 * others of the element types whose `segments` column is 1. */
CURED_C_API cured_status cured_segment_statistic_dtype(int32_t statistic, int32_t in, int32_t* out);

/* `statistic` of `in` along `axes`, as cured_reduce, into `out`, and into `second` (the extents
 * and strides of out, overlapping neither out nor in) for var_mean, std_mean and aminmax; NULL
 * for the others. */
CURED_C_API cured_status cured_statistic_reduce(int32_t statistic, const cured_array* in, const int32_t* axes,
                                                int32_t naxes, double param, const cured_array* out,
                                                const cured_array* second, void* stream, cured_workspace ws);

/* `statistic` of each segment, as cured_segment_reduce, into `out` (and `second`, the
 * extents of out, for the two-part statistics). */
CURED_C_API cured_status cured_segment_statistic(int32_t statistic, const cured_array* values, const int64_t* offsets,
                                                 int64_t count, double param, const cured_array* out,
                                                 const cured_array* second, uint32_t* status, int32_t check,
                                                 void* stream, cured_workspace ws);

CURED_C_API cured_status cured_workspace_create(int32_t device, cured_workspace* ws);
CURED_C_API cured_status cured_workspace_destroy(cured_workspace ws);

#ifdef __cplusplus
}
#endif

#endif /* CURED_C_H */
