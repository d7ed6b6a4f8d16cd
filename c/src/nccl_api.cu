// libcured_nccl: cured_nccl.h's C interface over cured/nccl.cuh's public forms. Every call is
// blocking, so that a mismatch between the ranks' calls is an error returned on every rank.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "abi.hpp"
#include "capi.hpp"
#include "cured/nccl.cuh"
#include "cured_nccl.h"

/// A communicator, with a workspace of its device and a little device memory of its own (the
/// argmin/argmax and 16-bit sums' partials, every rank's call record of an all-gather).
struct cured_nccl_comm_s {
  ncclComm_t comm = nullptr;
  int ranks = 0, rank = 0, device = 0;
  std::unique_ptr<cured::workspace> ws;
  void* scratch = nullptr;

  static constexpr std::size_t partial_bytes = 64;  ///< then 2 int64 a rank
  std::int64_t* calls() const { return reinterpret_cast<std::int64_t*>(static_cast<char*>(scratch) + partial_bytes); }
};

namespace cured::capi {

namespace {

thread_local std::string last_error;

template <class F>
cured_status guarded(F&& f) noexcept {
  return capi::guarded(last_error, std::forward<F>(f));
}

const cured_nccl_comm_s& comm_of(cured_nccl_comm c) {
  if (!c || !c->comm) fail("null communicator");
  return *c;
}

/// The communicator's device made current for the call; the caller's restored after it.
struct on_device {
  current_device_guard caller;
  explicit on_device(const cured_nccl_comm_s& c) { CURED_CHECK(cudaSetDevice(c.device)); }
};

/// Calls f(tag<T>{}) for t's C++ type where the reductions across ranks take t: the element
/// types of the table's `segments` column (the segmented reductions take the same).
template <class F>
void with_rank_element(std::int32_t t, F&& f) {
  if (!in_segments(t))
    throw unsupported(std::string("cured: no reduction across ranks of ") + dtype_name(t) + " (it takes " +
                      names_where(in_segments) + ")");
  with_code(t, [&](auto code) {
    if constexpr (dtype_rows[decltype(code)::value].segments != 0) f(tag<element_t<decltype(code)::value>>{});
  });
}

template <class T>
constexpr bool is_16_bit_float = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <class From, class To>
__global__ void convert_kernel(const From* from, To* to) {
  *to = To(float(*from));
}

template <class T>
__global__ void split_kernel(const key_value<T>* from, std::int64_t* index, T* value) {
  *index = from->index;
  if (value) *value = from->value;
}

/// A call whose checks failed joins the collective the other ranks are in, through the public
/// form with no arguments it accepts (its own checks poison the contribution), so that they
/// fail instead of waiting; then its own error is rethrown.
[[noreturn]] void join_failed(std::int32_t op, const cured_nccl_comm_s& c, cudaStream_t stream,
                              std::exception_ptr error) {
  try {
    if (op == CURED_EXACT_SUM)
      cured::nccl::exact_sum_async(static_cast<const float*>(nullptr), 1, nullptr, c.comm, *c.ws, stream);
    else
      cured::nccl::sum_async(static_cast<const float*>(nullptr), 1, nullptr, c.comm, *c.ws, stream);
  } catch (...) {
  }
  std::rethrow_exception(error);
}

/// op of one rank's shard through the _async form (its status word the workspace's), then the
/// wait, the status and NCCL's errors.
template <class T>
void reduce_typed(std::int32_t op, const T* in, std::int64_t n, void* out, void* values, const cured_nccl_comm_s& c,
                  cudaStream_t stream) {
  workspace& ws = *c.ws;
  switch (op) {
    case CURED_SUM:
      if constexpr (is_16_bit_float<T>) {  // float partials (the accumulator), rounded once
        auto* partial = static_cast<float*>(c.scratch);
        cured::nccl::sum_async<float>(in, n, partial, c.comm, ws, stream);
        convert_kernel<float, T><<<1, 1, 0, stream>>>(partial, static_cast<T*>(out));
      } else {
        cured::nccl::sum_async(in, n, static_cast<accumulator_t<T>*>(out), c.comm, ws, stream);
      }
      break;
    case CURED_MIN: cured::nccl::min_async(in, n, static_cast<T*>(out), c.comm, ws, stream); break;
    case CURED_MAX: cured::nccl::max_async(in, n, static_cast<T*>(out), c.comm, ws, stream); break;
    case CURED_ARGMIN:
    case CURED_ARGMAX: {
      auto* kv = static_cast<key_value<T>*>(c.scratch);
      if (op == CURED_ARGMIN)
        cured::nccl::argmin_async(in, n, kv, c.comm, ws, stream);
      else
        cured::nccl::argmax_async(in, n, kv, c.comm, ws, stream);
      split_kernel<T><<<1, 1, 0, stream>>>(kv, static_cast<std::int64_t*>(out), static_cast<T*>(values));
      break;
    }
    case CURED_EXACT_SUM:
      if constexpr (!std::is_integral_v<T>)
        cured::nccl::exact_sum_async(in, n, static_cast<exact_result_t<T>*>(out), c.comm, ws, stream);
      break;
    default: fail("unknown op " + std::to_string(op));
  }
  CURED_CHECK(cudaGetLastError());
  unsigned status = 0;
  CURED_CHECK(cudaMemcpyAsync(&status, ws.rank_status(), sizeof status, cudaMemcpyDeviceToHost, stream));
  CURED_CHECK(cudaStreamSynchronize(stream));
  cured::nccl::check_status(c.comm, status);
}

/// One element of device memory of type `dtype`: the results of cured_nccl_reduce.
void check_scalar(const cured_array* a, const char* what, std::int32_t dtype) {
  check_array(a, what);
  if (a->dtype != dtype) fail(std::string(what) + " is " + dtype_name(a->dtype) + ", not " + dtype_name(dtype));
  if (dense_count(*a, what) != 1) fail(std::string(what) + " does not have exactly one element");
}

/// cured_nccl_exact_all_reduce's input as rows of m elements.
struct rows_of {
  std::int64_t rows = 1, stride = 0, m = 0;
};
rows_of rows_view(const cured_array& in) {
  rows_of r;
  if (in.rank == 1) {
    r.m = in.extents[0];
    if (r.m > 1 && in.strides[0] != 1) fail("the input's elements are not contiguous");
    r.stride = r.m;
  } else if (in.rank == 2) {
    r.rows = in.extents[0];
    r.m = in.extents[1];
    r.stride = in.strides[0];
    if (r.m > 1 && in.strides[1] != 1) fail("the input's rows are not contiguous");
  } else {
    fail("the input has " + std::to_string(in.rank) + " axes, not 1 or 2");
  }
  if (r.rows < 0 || r.m < 0) fail("the input has a negative extent");
  return r;
}

}  // namespace

}  // namespace cured::capi

using namespace cured::capi;

extern "C" {

int32_t cured_nccl_abi_version(void) { return CURED_NCCL_ABI_VERSION; }

const char* cured_nccl_last_error(void) { return last_error.c_str(); }

cured_status cured_nccl_version(int32_t* version) {
  return guarded([&] {
    if (!version) fail("version is null");
    int v = 0;
    cured::nccl::check(ncclGetVersion(&v), nullptr, "ncclGetVersion");
    *version = v;
  });
}

cured_status cured_nccl_unique_id(uint8_t* id) {
  return guarded([&] {
    if (!id) fail("id is null");
    ncclUniqueId u;
    cured::nccl::check(ncclGetUniqueId(&u), nullptr, "ncclGetUniqueId");
    static_assert(sizeof u == CURED_NCCL_UNIQUE_ID_BYTES);
    std::memcpy(id, &u, sizeof u);
  });
}

cured_status cured_nccl_comm_create(const uint8_t* id, int32_t ranks, int32_t rank, int32_t device,
                                    cured_nccl_comm* comm) {
  return guarded([&] {
    if (!id || !comm) fail("id or comm is null");
    *comm = nullptr;
    if (ranks < 1 || rank < 0 || rank >= ranks)
      fail("rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " ranks");
    int devices = 0;
    CURED_CHECK(cudaGetDeviceCount(&devices));
    if (device < 0 || device >= devices)
      fail("device " + std::to_string(device) + " (the machine has " + std::to_string(devices) + ")");
    const current_device_guard caller;
    CURED_CHECK(cudaSetDevice(device));
    auto c = std::make_unique<cured_nccl_comm_s>();
    c->ranks = ranks;
    c->rank = rank;
    c->device = device;
    c->ws = std::make_unique<cured::workspace>(device);
    CURED_CHECK(cudaMalloc(&c->scratch, cured_nccl_comm_s::partial_bytes + 16 * std::size_t(ranks)));
    ncclUniqueId u;
    std::memcpy(&u, id, sizeof u);
    const ncclResult_t r = ncclCommInitRank(&c->comm, ranks, u, rank);
    if (r != ncclSuccess) {
      (void)cudaFree(c->scratch);
      cured::nccl::check(r, nullptr, "ncclCommInitRank");
    }
    *comm = c.release();
  });
}

cured_status cured_nccl_comm_destroy(cured_nccl_comm comm) {
  return guarded([&] {
    if (!comm) return;
    const std::unique_ptr<cured_nccl_comm_s> c(comm);
    const current_device_guard caller;
    CURED_CHECK(cudaSetDevice(c->device));
    const ncclResult_t r = c->comm ? ncclCommDestroy(c->comm) : ncclSuccess;
    (void)cudaFree(c->scratch);
    cured::nccl::check(r, nullptr, "ncclCommDestroy");
    cured::nccl::release_scratch(c->device);  // the exact all-reduce's memory that no call holds
  });
}

cured_status cured_nccl_comm_info(cured_nccl_comm comm, int32_t* ranks, int32_t* rank, int32_t* device) {
  return guarded([&] {
    const cured_nccl_comm_s& c = comm_of(comm);
    if (ranks) *ranks = c.ranks;
    if (rank) *rank = c.rank;
    if (device) *device = c.device;
  });
}

cured_status cured_nccl_reduce(int32_t op, const cured_array* in, const cured_array* out, const cured_array* values,
                               cured_nccl_comm comm, void* stream) {
  return guarded([&] {
    const cured_nccl_comm_s& c = comm_of(comm);
    const on_device device(c);
    const auto s = static_cast<cudaStream_t>(stream);
    std::int64_t n = 0;
    try {
      check_array(in, "the input");
      n = dense_count(*in, "the input");
      check_scalar(out, "the output", result_dtype(op, in->dtype, -1, family::axes));
      const bool arg = op == CURED_ARGMIN || op == CURED_ARGMAX;
      if (values && !arg) fail("values are for argmin and argmax only");
      if (values) check_scalar(values, "the values", in->dtype);
      with_rank_element(in->dtype, [](auto) {});
      cured::workspace::check_device_pointer(out->data, "the output", c.device);
      if (values) cured::workspace::check_device_pointer(values->data, "the values", c.device);
    } catch (...) {
      join_failed(op, c, s, std::current_exception());
    }
    with_rank_element(in->dtype, [&](auto t) {
      using T = typename decltype(t)::type;
      reduce_typed<T>(op, static_cast<const T*>(in->data), n, out->data, values ? values->data : nullptr, c, s);
    });
  });
}

cured_status cured_nccl_all_gather(const cured_array* in, const cured_array* out, cured_nccl_comm comm, void* stream) {
  return guarded([&] {
    const cured_nccl_comm_s& c = comm_of(comm);
    const on_device device(c);
    const auto s = static_cast<cudaStream_t>(stream);
    std::int64_t n = -1, bytes = 0;
    std::int32_t dtype = -1;
    std::exception_ptr failed;
    try {
      check_array(in, "the input");
      check_array(out, "the output");
      n = dense_count(*in, "the input");
      if (out->dtype != in->dtype) fail("the output's type is not the input's");
      if (dense_count(*out, "the output") != n * c.ranks)
        fail("the output does not have ranks (" + std::to_string(c.ranks) + ") times the input's elements");
      bytes = n * std::int64_t(dtype_bytes(in->dtype));
      if (n > 0) {
        cured::workspace::check_device_pointer(in->data, "the input", c.device);
        cured::workspace::check_device_pointer(out->data, "the output", c.device);
      }
      dtype = in->dtype;
    } catch (...) {
      failed = std::current_exception();
      n = -1;
      dtype = -1;
    }
    // Every rank's call (type and count) first, so that unlike calls fail on every rank.
    const std::int64_t mine[2] = {dtype, n};
    CURED_CHECK(cudaMemcpyAsync(c.calls() + 2 * c.rank, mine, sizeof mine, cudaMemcpyHostToDevice, s));
    cured::nccl::check(ncclAllGather(c.calls() + 2 * c.rank, c.calls(), 2, ncclInt64, c.comm, s), c.comm,
                       "ncclAllGather");
    std::vector<std::int64_t> all(2 * std::size_t(c.ranks));
    CURED_CHECK(cudaMemcpyAsync(all.data(), c.calls(), all.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost, s));
    CURED_CHECK(cudaStreamSynchronize(s));
    if (failed) std::rethrow_exception(failed);
    for (int r = 0; r < c.ranks; ++r)
      if (all[2 * r] != dtype || all[2 * r + 1] != n)
        fail("the ranks' all_gather calls differ: rank " + std::to_string(r) + " gives " +
             (all[2 * r] < 0 ? std::string("a failed call") :
                               std::to_string(all[2 * r + 1]) + " elements of " + dtype_name(std::int32_t(all[2 * r]))) +
             ", rank " + std::to_string(c.rank) + " " + std::to_string(n) + " of " + dtype_name(dtype));
    if (bytes > 0) {
      cured::nccl::check(ncclAllGather(in->data, out->data, std::size_t(bytes), ncclUint8, c.comm, s), c.comm,
                         "ncclAllGather");
      CURED_CHECK(cudaStreamSynchronize(s));
    }
    cured::nccl::check_status(c.comm, 0);
  });
}

cured_status cured_nccl_exact_all_reduce(const cured_array* in, const cured_array* out, cured_nccl_comm comm,
                                         void* stream) {
  return guarded([&] {
    const cured_nccl_comm_s& c = comm_of(comm);
    const on_device device(c);
    const auto s = static_cast<cudaStream_t>(stream);
    rows_of r;
    try {
      check_array(in, "the input");
      check_array(out, "the output");
      r = rows_view(*in);
      const std::int32_t result = result_dtype(CURED_EXACT_SUM, in->dtype, -1, family::axes);
      if (out->dtype != result)
        fail(std::string("the output is ") + dtype_name(out->dtype) + ", not " + dtype_name(result));
      if (out->rank != 1 || out->extents[0] != r.m || (r.m > 1 && out->strides[0] != 1))
        fail("the output is not " + std::to_string(r.m) + " contiguous elements");
    } catch (...) {
      // Join the call's first collective with a call that fails its own checks.
      try {
        cured::nccl::exact_all_reduce(static_cast<const float*>(nullptr), -1, 0, 0, nullptr, c.comm, s);
      } catch (...) {
      }
      throw;
    }
    with_code(in->dtype, [&](auto code) {
      using T = element_t<decltype(code)::value>;
      if constexpr (dtype_rows[decltype(code)::value].kind == CURED_KIND_FLOATING)
        cured::nccl::exact_all_reduce(static_cast<const T*>(in->data), r.rows, r.stride, r.m,
                                      static_cast<cured::exact_result_t<T>*>(out->data), c.comm, s);
    });
    cured::nccl::check_status(c.comm, 0);
  });
}

}  // extern "C"
