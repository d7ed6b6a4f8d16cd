#ifndef CURED_NCCL_H
#define CURED_NCCL_H
/* cured's reductions across GPUs behind a C ABI: libcured_nccl, built beside libcured_c where
 * NCCL is found, for callers that are not C++ (the Python package's cured.distributed).
 *
 *   uint8_t id[CURED_NCCL_UNIQUE_ID_BYTES];
 *   if (rank == 0) cured_nccl_unique_id(id);
 *   ... send id to every rank (torch.distributed, MPI, a file) ...
 *   cured_nccl_comm comm;
 *   cured_nccl_comm_create(id, ranks, rank, device, &comm);      // collective: every rank calls it
 *   cured_nccl_reduce(CURED_SUM, &shard, &out, NULL, comm, stream);
 *   cured_nccl_exact_all_reduce(&grad, &grad, comm, stream);     // in place, each element rounded once
 *   cured_nccl_comm_destroy(comm);
 *
 * Arrays, types, ops and statuses are cured_c.h's. Every call here is collective (each rank of
 * the communicator makes the same calls in the same order) and blocking: it enqueues on
 * `stream` (the communicator's device) and returns once the results are written, so that a
 * rank whose call differs from the others' (another op, element type or element count) gets
 * CURED_ERROR_INVALID, on every rank, instead of a collective that waits forever. A call that
 * fails its own argument checks still joins the collective that checks the call, so the other
 * ranks fail too rather than wait. Each call switches to the communicator's device and restores
 * the caller's current device before it returns. Messages: cured_nccl_last_error(). */

#include <stdint.h>

#include "cured_c.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CURED_NCCL_ABI_VERSION 1
#define CURED_NCCL_UNIQUE_ID_BYTES 128

typedef struct cured_nccl_comm_s* cured_nccl_comm;

CURED_C_API int32_t cured_nccl_abi_version(void);
/* The message of the calling thread's last failed call here ("" if none). */
CURED_C_API const char* cured_nccl_last_error(void);
/* The NCCL version the library runs with (NCCL's code: 22803 for 2.28.3). */
CURED_C_API cured_status cured_nccl_version(int32_t* version);

/* A new NCCL unique id (CURED_NCCL_UNIQUE_ID_BYTES bytes) for cured_nccl_comm_create: one rank
 * makes it and hands it to the others. */
CURED_C_API cured_status cured_nccl_unique_id(uint8_t* id);
/* This rank's communicator of `ranks` ranks on CUDA device `device`; every rank calls it with
 * the same id, and it returns once all have. */
CURED_C_API cured_status cured_nccl_comm_create(const uint8_t* id, int32_t ranks, int32_t rank, int32_t device,
                                                cured_nccl_comm* comm);
/* Frees the communicator (not collective), and gives back to the driver the device memory that
 * cured_nccl_exact_all_reduce keeps between calls on its device. NULL is allowed. */
CURED_C_API cured_status cured_nccl_comm_destroy(cured_nccl_comm comm);
CURED_C_API cured_status cured_nccl_comm_info(cured_nccl_comm comm, int32_t* ranks, int32_t* rank, int32_t* device);

/* `op` (cured_c.h's op table) of the concatenation, in rank order, of every rank's `in` (dense
 * row-major, any number of axes, any element count; empty allowed; an element type whose
 * `segments` column in cured_c.h's table is 1) into `out`: one element
 * (any rank with one element) of cured_result_dtype(op, in, -1)'s type, on every rank.
 *   SUM, MIN, MAX: the ranks' partials combined in rank order (deterministic for a given number
 *     of ranks and split); ARGMIN, ARGMAX: the int64 index in the concatenation (the first
 *     extreme, or the first NaN; -1 when every shard is empty), and, when `values` is not NULL
 *     (one element of in's type), the extreme value; EXACT_SUM: the exact sum of the whole,
 *     rounded once: the same bits for any number of ranks and any split. */
CURED_C_API cured_status cured_nccl_reduce(int32_t op, const cured_array* in, const cured_array* out,
                                           const cured_array* values, cured_nccl_comm comm, void* stream);

/* Every rank's `in` (dense, the same element type and count on every rank) into `out` (dense,
 * ranks times as many elements, rank r's at r * count): for combining partial results. */
CURED_C_API cured_status cured_nccl_all_gather(const cured_array* in, const cured_array* out, cured_nccl_comm comm,
                                               void* stream);

/* The elementwise exact sum across ranks: out[i] = the exact sum over every rank r and every
 * row j of rank r's in[j][i], rounded once to out's type: float32 for float32, float16 and
 * bfloat16 elements, float64 for float64 (cured_result_dtype's EXACT_SUM column). The same
 * bits for any number of ranks and any split of the rows; NaN and infinities as IEEE addition
 * of the exact sum gives them; a zero is -0 only when every term is -0.
 *   in: rank 1 (m elements: one row) or rank 2 (rows x m, stride 1 along m, any row stride;
 *     the rows may differ between ranks, 0 allowed); every rank's m and type agree.
 *   out: rank 1, m dense elements on every rank; may be `in` itself (an in-place all-reduce
 *     of a float32 or float64 array). */
CURED_C_API cured_status cured_nccl_exact_all_reduce(const cured_array* in, const cured_array* out,
                                                     cured_nccl_comm comm, void* stream);

#ifdef __cplusplus
}
#endif

#endif /* CURED_NCCL_H */
