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
 * device memory of the current device. The library links the CUDA runtime statically; streams
 * of any runtime in the process (PyTorch's, CuPy's) are the driver's and work as they are. */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define CURED_C_API __declspec(dllexport)
#else
#define CURED_C_API __attribute__((visibility("default")))
#endif

/* Bumped when a declaration here changes incompatibly. */
#define CURED_C_ABI_VERSION 1
#define CURED_C_MAX_RANK 8

typedef enum cured_status {
  CURED_SUCCESS = 0,
  CURED_ERROR_INVALID = 1,     /* a bad argument: shape, axes, pointer, offsets */
  CURED_ERROR_UNSUPPORTED = 2, /* an element type, or pair of input and output types, not provided */
  CURED_ERROR_CUDA = 3,        /* a CUDA call failed (no device, out of memory, a launch) */
  CURED_ERROR_INTERNAL = 4     /* anything else: a bug to report */
} cured_status;

/* Element types. CURED_BOOL is one byte, 0 or 1. */
typedef enum cured_dtype {
  CURED_BOOL = 0,
  CURED_INT8 = 1,
  CURED_UINT8 = 2,
  CURED_INT16 = 3,
  CURED_INT32 = 4,
  CURED_INT64 = 5,
  CURED_FLOAT16 = 6,
  CURED_BFLOAT16 = 7,
  CURED_FLOAT32 = 8,
  CURED_FLOAT64 = 9,
  CURED_DTYPE_COUNT = 10
} cured_dtype;

typedef enum cured_op {
  CURED_SUM = 0,       /* accumulated in int64 (integers, bool), float (half, bfloat16, float) or double */
  CURED_MIN = 1,       /* NaN propagates */
  CURED_MAX = 2,
  CURED_ARGMIN = 3,    /* int64 index of the first extreme (or first NaN) over the reduced axes, -1 when empty */
  CURED_ARGMAX = 4,
  CURED_EXACT_SUM = 5, /* floating inputs: the exact sum rounded once (float, or double for double) */
  CURED_OP_COUNT = 6
} cured_op;

/* The one-pass statistics (cured/statistics*.cuh), by cured_statistic_reduce and
 * cured_segment_statistic. `param` is the correction (ddof, >= 0) of the variances and standard
 * deviations, p (1, 2 or INFINITY) of the norm, and unused by the others. The two-part
 * statistics write their second part to `second`. */
typedef enum cured_statistic {
  CURED_MEAN = 0,          /* floating inputs: float32 results (float64 for float64), NaN when empty */
  CURED_VAR = 1,           /* Welford and Chan: m2 / max(n - ddof, 0) */
  CURED_STD = 2,           /* its square root */
  CURED_VAR_MEAN = 3,      /* out: the variance, second: the mean */
  CURED_STD_MEAN = 4,      /* out: the standard deviation, second: the mean */
  CURED_NORM = 5,          /* p = 1, 2 (scaled: no overflow, no underflow) or INFINITY; 0 when empty */
  CURED_LOGSUMEXP = 6,     /* a running maximum: -inf when empty or all -inf */
  CURED_AMINMAX = 7,       /* any input: out the minimum, second the maximum, of the input's type;
                              NaN propagates; the identities (+max, lowest) when empty */
  CURED_COUNT_NONZERO = 8, /* any input: int64; NaN counts, -0.0 does not */
  CURED_ANY = 9,           /* any input: bool; false when empty */
  CURED_ALL = 10,          /* any input: bool; true when empty */
  CURED_STATISTIC_COUNT = 11
} cured_statistic;

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
/* The message of the calling thread's last failed call ("" if none). */
CURED_C_API const char* cured_last_error(void);

/* The output type of `op` on `in` elements. `requested` is -1 for the default (sum: int64 for
 * integers and bool, the input's type for floating types; exact_sum: float, or double for
 * double; argmin/argmax: int64; min/max: the input's type) or a cured_dtype to ask for (sums of
 * floating inputs into a wider floating type); CURED_ERROR_UNSUPPORTED when not provided. */
CURED_C_API cured_status cured_result_dtype(int32_t op, int32_t in, int32_t requested, int32_t* out);

/* `op` of `in` along the `naxes` axes in `axes` (each in -rank..rank-1, at most once; naxes 0:
 * each element alone; every axis: one output) into `out`, whose axes are the kept axes in order,
 * or all of the input's with extent 1 on the reduced ones. `values` (argmin/argmax only, NULL
 * otherwise or when not wanted): also the extreme values, with the extents and strides of out. */
CURED_C_API cured_status cured_reduce(int32_t op, const cured_array* in, const int32_t* axes, int32_t naxes,
                                      const cured_array* out, const cured_array* values, void* stream,
                                      cured_workspace ws);

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

/* The output type (of both parts) of `statistic` on `in` elements; CURED_ERROR_UNSUPPORTED for
 * a floating statistic of integers. */
CURED_C_API cured_status cured_statistic_dtype(int32_t statistic, int32_t in, int32_t* out);

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
