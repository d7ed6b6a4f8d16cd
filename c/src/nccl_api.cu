// libcured_nccl: cured_nccl.h's C interface over cured/nccl.cuh. Every call is blocking, so
// that a mismatch between the ranks' calls is an error returned on every rank.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <utility>

#include "abi.hpp"
#include "capi.hpp"
#include "cured/nccl.cuh"
#include "cured_nccl.h"

struct cured_nccl_comm_s {
  ncclComm_t comm = nullptr;
  int ranks = 0, rank = 0, device = 0;
};

namespace cured::capi {

namespace {

namespace nc = cured::nccl::detail;
namespace ew = cured::device::elementwise;

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

/// Calls f(tag<T>{}) for the element types the reductions across ranks take.
template <class F>
void with_rank_element(std::int32_t t, F&& f) {
  switch (t) {
    case CURED_FLOAT32: return f(tag<float>{});
    case CURED_FLOAT64: return f(tag<double>{});
    case CURED_FLOAT16: return f(tag<__half>{});
    case CURED_BFLOAT16: return f(tag<__nv_bfloat16>{});
    case CURED_INT32: return f(tag<std::int32_t>{});
    case CURED_INT64: return f(tag<std::int64_t>{});
    default:
      throw unsupported(std::string("cured: no reduction across ranks of ") + dtype_name(t) +
                        " (float32, float64, float16, bfloat16, int32, int64)");
  }
}

template <class From, class To>
__global__ void convert_kernel(const From* from, To* to) {
  *to = To(float(*from));
}

template <class T>
__global__ void split_kernel(const key_value<T>* from, std::int64_t* index, T* value) {
  *index = from->index;
  if (value) *value = from->value;
}

/// A call whose checks failed joins the collective the other ranks are in (a poisoned
/// contribution), so that they fail instead of waiting; then its own error is rethrown.
void join_failed(std::int32_t op, ncclComm_t comm, workspace& ws, cudaStream_t stream, std::exception_ptr error) {
  const auto rethrow = [&](auto&&...) { std::rethrow_exception(error); };
  if (op == CURED_EXACT_SUM) {
    auto* send = reinterpret_cast<exact::shard_sum*>(nc::records(ws) + nc::exact_send_offset);
    auto* total = reinterpret_cast<exact::shard_sum*>(nc::records(ws) + nc::exact_total_offset);
    constexpr std::size_t words = sizeof(exact::shard_sum) / sizeof(std::int64_t);
    nc::run(
        ws, stream, nullptr, nullptr, false, nullptr, send, rethrow,
        [&] { nc::check(ncclAllReduce(send, total, words, ncclInt64, ncclSum, comm, stream), comm, "ncclAllReduce"); },
        [](unsigned*) {});
  } else {
    nc::plain(comm, ws, stream, nullptr, nullptr, false, rethrow, [](const auto*, int, unsigned*) {});
  }
}

/// op of one rank's shard (the _async forms' course, the output checked by the caller), its
/// status word in mapped host memory.
template <class T>
void reduce_typed(std::int32_t op, const T* in, std::int64_t n, void* out, void* values, ncclComm_t comm,
                  workspace& ws, cudaStream_t stream, unsigned* status) {
  nc::scratch mem(ws.device(), stream);
  switch (op) {
    case CURED_SUM:
      if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
        float* partial = mem.get<float>(1);
        nc::reduce(in, n, partial, plus{}, 0.f, "sum", comm, ws, stream, status, false);
        convert_kernel<float, T><<<1, 1, 0, stream>>>(partial, static_cast<T*>(out));
      } else {
        using S = cured::detail::sum_type<void, T>;
        nc::reduce(in, n, static_cast<S*>(out), plus{}, S(0), "sum", comm, ws, stream, status, false);
      }
      break;
    case CURED_MIN:
      nc::reduce(in, n, static_cast<T*>(out), minimum{}, minimum::identity<T>(), "min", comm, ws, stream, status, false);
      break;
    case CURED_MAX:
      nc::reduce(in, n, static_cast<T*>(out), maximum{}, maximum::identity<T>(), "max", comm, ws, stream, status, false);
      break;
    case CURED_ARGMIN:
    case CURED_ARGMAX: {
      auto* kv = mem.get<key_value<T>>(1);
      if (op == CURED_ARGMIN)
        nc::arg<false>(in, n, kv, comm, ws, stream, status, false);
      else
        nc::arg<true>(in, n, kv, comm, ws, stream, status, false);
      split_kernel<T><<<1, 1, 0, stream>>>(kv, static_cast<std::int64_t*>(out), static_cast<T*>(values));
      break;
    }
    case CURED_EXACT_SUM:
      if constexpr (!std::is_integral_v<T>)
        nc::exact_sum(in, n, static_cast<exact_result_t<T>*>(out), comm, ws, stream, status, false);
      break;
    default: fail("unknown op " + std::to_string(op));
  }
  CURED_CHECK(cudaGetLastError());
  CURED_CHECK(cudaStreamSynchronize(stream));
}

/// Throws on every rank when the status word says the ranks' calls differ, or NCCL failed.
void check_ranks(ncclComm_t comm, unsigned status) {
  ncclResult_t async_error = ncclSuccess;
  nc::check(ncclCommGetAsyncError(comm, &async_error), comm, "ncclCommGetAsyncError");
  nc::check(async_error, comm, "a collective");
  if (status) throw_invalid(cured::detail::ranks::status_message(status));
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
    nc::check(ncclGetVersion(&v), nullptr, "ncclGetVersion");
    *version = v;
  });
}

cured_status cured_nccl_unique_id(uint8_t* id) {
  return guarded([&] {
    if (!id) fail("id is null");
    ncclUniqueId u;
    nc::check(ncclGetUniqueId(&u), nullptr, "ncclGetUniqueId");
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
    ncclUniqueId u;
    std::memcpy(&u, id, sizeof u);
    auto* c = new cured_nccl_comm_s;
    const ncclResult_t r = ncclCommInitRank(&c->comm, ranks, u, rank);
    if (r != ncclSuccess) {
      delete c;
      nc::check(r, nullptr, "ncclCommInitRank");
    }
    c->ranks = ranks;
    c->rank = rank;
    c->device = device;
    *comm = c;
  });
}

cured_status cured_nccl_comm_destroy(cured_nccl_comm comm) {
  return guarded([&] {
    if (!comm) return;
    const current_device_guard caller;
    CURED_CHECK(cudaSetDevice(comm->device));
    const ncclResult_t r = comm->comm ? ncclCommDestroy(comm->comm) : ncclSuccess;
    const int device = comm->device;
    delete comm;
    nc::check(r, nullptr, "ncclCommDestroy");
    nc::trim_scratch(device);  // the exact all-reduce's scratch that no call holds
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
    cured::workspace& ws = cured::detail::thread_workspace();
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
      join_failed(op, c.comm, ws, s, std::current_exception());
    }
    { cured::workspace::use wait(ws, s, true); }  // this thread's earlier call on another stream, finished
    auto* word = static_cast<volatile unsigned*>(const_cast<void*>(ws.host_result()));
    *word = 0;
    auto* status = static_cast<unsigned*>(ws.host_result_on_device());
    with_rank_element(in->dtype, [&](auto t) {
      using T = typename decltype(t)::type;
      reduce_typed<T>(op, static_cast<const T*>(in->data), n, out->data, values ? values->data : nullptr, c.comm, ws,
                      s, status);
    });
    check_ranks(c.comm, *word);
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
    nc::scratch mem(c.device, s);
    auto* calls = mem.get<std::int64_t>(2 * std::int64_t(c.ranks));
    const std::int64_t mine[2] = {dtype, n};
    CURED_CHECK(cudaMemcpyAsync(calls + 2 * c.rank, mine, sizeof mine, cudaMemcpyHostToDevice, s));
    nc::check(ncclAllGather(calls + 2 * c.rank, calls, 2, ncclInt64, c.comm, s), c.comm, "ncclAllGather");
    std::vector<std::int64_t> all(2 * std::size_t(c.ranks));
    CURED_CHECK(cudaMemcpyAsync(all.data(), calls, all.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost, s));
    CURED_CHECK(cudaStreamSynchronize(s));
    if (failed) std::rethrow_exception(failed);
    for (int r = 0; r < c.ranks; ++r)
      if (all[2 * r] != dtype || all[2 * r + 1] != n)
        fail("the ranks' all_gather calls differ: rank " + std::to_string(r) + " gives " +
             (all[2 * r] < 0 ? std::string("a failed call") :
                               std::to_string(all[2 * r + 1]) + " elements of " + dtype_name(std::int32_t(all[2 * r]))) +
             ", rank " + std::to_string(c.rank) + " " + std::to_string(n) + " of " + dtype_name(dtype));
    if (bytes > 0) {
      nc::check(ncclAllGather(in->data, out->data, std::size_t(bytes), ncclUint8, c.comm, s), c.comm, "ncclAllGather");
      CURED_CHECK(cudaStreamSynchronize(s));
    }
    check_ranks(c.comm, 0);
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
      if (!is_floating(in->dtype))
        throw unsupported(std::string("cured: the exact all-reduce takes floating elements, not ") +
                          dtype_name(in->dtype));
      if (out->dtype != float_result(in->dtype))
        fail(std::string("the output is ") + dtype_name(out->dtype) + ", not " + dtype_name(float_result(in->dtype)));
      if (out->rank != 1 || out->extents[0] != r.m || (r.m > 1 && out->strides[0] != 1))
        fail("the output is not " + std::to_string(r.m) + " contiguous elements");
    } catch (...) {
      // Join the call's first collective with a call that fails its own checks.
      try {
        nc::exact_all_reduce<float>(nullptr, -1, 0, 0, nullptr, c.comm, s);
      } catch (...) {
      }
      throw;
    }
    with_code(in->dtype, [&](auto code) {
      using T = element_t<decltype(code)::value>;
      if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
        nc::exact_all_reduce<T>(static_cast<const T*>(in->data), r.rows, r.stride, r.m,
                                static_cast<cured::exact_result_t<T>*>(out->data), c.comm, s);
    });
    check_ranks(c.comm, 0);
  });
}

}  // extern "C"
