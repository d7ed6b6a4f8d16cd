#pragma once
// Device-wide reductions: one kernel launch for any n.
//
//   float s  = cured::sum(d_x, n);                      // blocking: the result on the host
//   double d = cured::sum<double>(d_x, n);              // explicit accumulator type
//   auto  am = cured::argmax(d_x, n);                   // {index, value}; first index on ties
//   cured::workspace ws;
//   cured::sum_async(d_x, n, d_out, ws, stream);        // no sync, no allocation, graph-capturable
//   cured::transform_reduce_async(d_x, n, d_out, square{}, cured::plus{}, 0.0, ws, stream);
//
// Inputs are device (or managed) arrays of any alignment and 64-bit length. Sums accumulate
// in cured::accumulator_t<T> unless told otherwise; min/max propagate NaN; argmin/argmax
// return the first index of the extreme value, the first NaN's index when there is one, and
// index -1 for an empty input; the empty sum, min and max are the operator's identity
// (0, +inf / largest, -inf / lowest). Results are bit-identical run to run for the same input,
// n, pointer alignment and device. Bad arguments and failed launches throw cured::error.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cured/accumulate.cuh"
#include "cured/device/single_pass.cuh"
#include "cured/error.cuh"
#include "cured/ops.cuh"
#include "cured/workspace.cuh"

namespace cured {

namespace detail {

/// Converts each element to the accumulator, through an optional transform.
template <class Acc, class Transform>
struct transform_load {
  Transform transform;
  template <class T>
  __device__ __forceinline__ Acc operator()(std::int64_t, const T& x) const {
    return Acc(transform(x));
  }
};

struct identity_transform {
  template <class T>
  __host__ __device__ __forceinline__ const T& operator()(const T& x) const {
    return x;
  }
};

/// Pairs each element with its index, for the arg reductions.
template <class T>
struct index_load {
  __device__ __forceinline__ key_value<T> operator()(std::int64_t i, const T& x) const { return {i, x}; }
};

struct no_finish {
  template <class Acc>
  __device__ __forceinline__ const Acc& operator()(const Acc& a) const {
    return a;
  }
};

/// The identity's index never reaches the caller: an empty input reports -1.
struct arg_finish {
  template <class T>
  __device__ __forceinline__ key_value<T> operator()(key_value<T> a) const {
    if (a.index == no_index) a.index = -1;
    return a;
  }
};

/// async: the result goes to the caller's device memory; blocking: to the workspace's mapped
/// host memory, with a completion report the caller waits for before it reads the result or
/// uses the workspace again.
enum class mode { async, blocking };

/// What every entry point does around its launches: checks n and the pointers, holds the
/// workspace for the call (device, thread and stream checks), runs `enqueue(use)`, and turns a
/// failed launch into a cured::error naming `what`.
template <mode M, class In, class Out, class Enqueue>
void guarded_launch(const In* in, std::int64_t n, Out* out, workspace& ws, cudaStream_t stream, const char* what,
                    Enqueue&& enqueue) {
  if (n < 0) throw_invalid("negative element count " + std::to_string(n));
  workspace::use use(ws, stream, M == mode::blocking);
  if (n > 0) use.check_pointer(in, 0, "the input");
  if constexpr (M == mode::async) use.check_pointer(out, 1, "the output");
  (void)cudaGetLastError();  // an earlier, unrelated error must not be taken for this launch's
  enqueue(use);
  const cudaError_t launch_error = cudaGetLastError();
  use.enqueued();  // before throwing: a launched kernel must still be tracked
  if (launch_error != cudaSuccess) detail::throw_cuda(launch_error, what, __FILE__, __LINE__);
}

/// Test hook of the single-pass and arg kernels: a grid to launch instead of the automatic one
/// (0: automatic; at most sm_count * workspace::max_blocks_per_sm). With it, small inputs take
/// many blocks, many tiles per block, and the combining block's path.
inline std::atomic<std::int64_t> grid_override{0};

/// The automatic grid, or the test hook's.
inline std::int64_t grid_or_override(std::int64_t grid, const workspace& ws) {
  const std::int64_t forced = grid_override.load(std::memory_order_relaxed);
  return forced > 0 ? std::min<std::int64_t>(forced, std::int64_t(ws.sm_count()) * workspace::max_blocks_per_sm) : grid;
}

/// Test hook of the single-pass kernel, before grid_override: a grid of this many blocks as
/// one cluster (0: automatic; clamped to the largest cluster the device runs, and ignored
/// where that is 1). With it, small inputs take the combination in a cluster at every size.
inline std::atomic<unsigned> cluster_override{0};

/// The automatic shape of a launch whose clusters run `Kernel`, or the test hooks'.
template <auto Kernel>
device::launch_shape shape_or_override(const device::launch_shape& automatic, const workspace& ws, unsigned block) {
  if (const unsigned forced = cluster_override.load(std::memory_order_relaxed); forced > 1) {
    const unsigned c = std::min({forced, device::max_cluster, device::cluster_limit<Kernel>(ws.device(), block)});
    if (c > 1) return {c, c, block};
  }
  if (grid_override.load(std::memory_order_relaxed) > 0) return {grid_or_override(automatic.grid, ws), 1, block};
  return automatic;
}

/// The kernel's launch state in workspace ws for an input of `bytes`, reporting its completion
/// as `use` says (use null: no report).
inline device::launch_state launch_state_for(workspace& ws, std::int64_t bytes, workspace::use* use) {
  device::launch_state st;
  st.stream_first = bytes <= device::stream_first_limit * std::int64_t(ws.l2_bytes());
  st.ticket = ws.ticket();
  st.slots = ws.slots();
  if (use) st.done = use->report_to();
  return st;
}

/// The one launcher behind every reduction but the arg and exact ones.
template <mode M, class Acc, class In, class Load, class Op, class Finish>
void launch(const In* in, std::int64_t n, Acc* out, Load load, Op op, Finish finish, Acc init, workspace& ws,
            cudaStream_t stream) {
  static_assert(sizeof(Acc) <= workspace::max_accumulator_bytes, "cured: accumulator larger than 64 bytes");
  static_assert(std::is_trivially_copyable_v<Acc>, "cured: accumulators must be trivially copyable");
  using policy = device::policy;
  constexpr auto kernel = device::single_pass_kernel<policy, In, Acc, Load, Op, Finish>;
  constexpr auto cluster_kernel = device::single_pass_kernel<policy, In, Acc, Load, Op, Finish, true>;
  guarded_launch<M>(in, n, out, ws, stream, "single_pass_kernel launch", [&](workspace::use& use) {
    const Acc identity = identity_of<Op, Acc>(op);
    const device::launch_shape shape = shape_or_override<cluster_kernel>(
        device::shape_for<policy, In, Acc, Load, Op, Finish>(n, ws.device(), ws.sm_count()), ws, policy::block);
    if (shape.small) {
      using small = device::small_policy;
      device::small_kernel<small, In, Acc, Load, Op, Finish><<<1, small::block, 0, stream>>>(
          out, use.report_to(), device::span_of(in, n), init, identity, load, op, finish);
      return;
    }
    const device::launch_state st = launch_state_for(ws, n * std::int64_t(sizeof(In)), &use);
    device::launch_kernel(shape.cluster > 1 ? cluster_kernel : kernel, shape, stream, out, st, device::span_of(in, n),
                          init, identity, load, op, finish);
  });
}

template <mode M, class T, class Init, class Transform, class Op>
void transform_reduce(const T* d_in, std::int64_t n, Init* d_out, Transform transform, Op op, Init init, workspace& ws,
                      cudaStream_t stream) {
  launch<M, Init>(d_in, n, d_out, transform_load<Init, Transform>{transform}, op, no_finish{}, init, ws, stream);
}

/// Test hook of the arg kernel, left alone otherwise: the elements of a piece (keys within a
/// piece are 32-bit; see device::arg_kernel; at most 2^30). With it small, a small input takes
/// several pieces.
inline std::atomic<std::int64_t> arg_piece_elements{std::int64_t(1) << 30};

/// The arg kernel's grid for n elements.
template <bool Max, class T>
std::int64_t arg_grid(std::int64_t n, const workspace& ws) {
  return grid_or_override(device::arg_grid_for<device::arg_policy, Max, T>(n, ws.device(), ws.sm_count()), ws);
}

template <mode M, class ArgOp, class T>
void arg_reduce(const T* d_in, std::int64_t n, key_value<T>* d_out, workspace& ws, cudaStream_t stream) {
  using kv = key_value<T>;
  if constexpr (!device::arg_vectorizable<T>) {
    launch<M, kv>(d_in, n, d_out, index_load<T>{}, ArgOp{}, arg_finish{}, ArgOp::template identity<kv>(), ws, stream);
  } else {
    static_assert(sizeof(kv) <= workspace::max_accumulator_bytes);
    constexpr bool max = std::is_same_v<ArgOp, arg_maximum>;
    static_assert(max || std::is_same_v<ArgOp, arg_minimum>);
    using policy = device::arg_policy;
    guarded_launch<M>(d_in, n, d_out, ws, stream, "arg_kernel launch", [&](workspace::use& use) {
      const std::int64_t grid = arg_grid<max, T>(n, ws);
      device::arg_kernel<policy, max, T><<<unsigned(grid), policy::block, 0, stream>>>(
          d_out, launch_state_for(ws, n * std::int64_t(sizeof(T)), &use), d_in,
          device::make_arg_layout<policy>(d_in, n, grid, arg_piece_elements.load(std::memory_order_relaxed)),
          static_cast<kv*>(ws.partials()));
    });
  }
}

/// The calling thread's workspace for the blocking forms: one per device, made on first use.
inline workspace& thread_workspace() {
  thread_local std::vector<std::unique_ptr<workspace>> per_device;
  const int device = workspace::current_device();
  if (per_device.size() <= std::size_t(device)) per_device.resize(device + 1);
  if (!per_device[device]) per_device[device] = std::make_unique<workspace>(device);
  return *per_device[device];
}

/// Runs `enqueue(d_result, ws)` (a mode::blocking launch into the thread's workspace), waits
/// for the result and returns it.
template <class Acc, class Enqueue>
Acc blocking(cudaStream_t stream, Enqueue enqueue) {
  workspace& ws = thread_workspace();
  ws.arm_completion();
  enqueue(static_cast<Acc*>(ws.host_result_on_device()), ws);
  Acc r;
  ws.wait_for_result(stream, &r, sizeof(Acc));
  return r;
}

template <class Explicit, class T>
using sum_type = std::conditional_t<std::is_void_v<Explicit>, accumulator_t<T>, Explicit>;

}  // namespace detail

// ---- asynchronous: result written to device memory, nothing waited for ---------------------

/// d_out[0] = init op transform(d_in[0]) op ... op transform(d_in[n-1]).
template <class T, class Init, class Transform, class Op>
void transform_reduce_async(const T* d_in, std::int64_t n, Init* d_out, Transform transform, Op op, Init init,
                            workspace& ws, cudaStream_t stream = nullptr) {
  detail::transform_reduce<detail::mode::async>(d_in, n, d_out, transform, op, init, ws, stream);
}

/// d_out[0] = init op d_in[0] op ... op d_in[n-1], accumulated in Init.
template <class T, class Init, class Op>
void reduce_async(const T* d_in, std::int64_t n, Init* d_out, Op op, Init init, workspace& ws,
                  cudaStream_t stream = nullptr) {
  transform_reduce_async(d_in, n, d_out, detail::identity_transform{}, op, init, ws, stream);
}

/// Sum in Acc (default cured::accumulator_t<T>).
template <class Acc = void, class T>
void sum_async(const T* d_in, std::int64_t n, detail::sum_type<Acc, T>* d_out, workspace& ws,
               cudaStream_t stream = nullptr) {
  using acc = detail::sum_type<Acc, T>;
  reduce_async(d_in, n, d_out, plus{}, acc(0), ws, stream);
}

template <class T>
void min_async(const T* d_in, std::int64_t n, T* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  reduce_async(d_in, n, d_out, minimum{}, minimum::identity<T>(), ws, stream);
}

template <class T>
void max_async(const T* d_in, std::int64_t n, T* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  reduce_async(d_in, n, d_out, maximum{}, maximum::identity<T>(), ws, stream);
}

template <class T>
void argmin_async(const T* d_in, std::int64_t n, key_value<T>* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::arg_reduce<detail::mode::async, arg_minimum>(d_in, n, d_out, ws, stream);
}

template <class T>
void argmax_async(const T* d_in, std::int64_t n, key_value<T>* d_out, workspace& ws, cudaStream_t stream = nullptr) {
  detail::arg_reduce<detail::mode::async, arg_maximum>(d_in, n, d_out, ws, stream);
}

// ---- blocking: the result returned on the host ---------------------------------------------

template <class T, class Init, class Transform, class Op>
Init transform_reduce(const T* d_in, std::int64_t n, Transform transform, Op op, Init init,
                      cudaStream_t stream = nullptr) {
  return detail::blocking<Init>(stream, [&](Init* d_out, workspace& ws) {
    detail::transform_reduce<detail::mode::blocking>(d_in, n, d_out, transform, op, init, ws, stream);
  });
}

template <class T, class Init, class Op>
Init reduce(const T* d_in, std::int64_t n, Op op, Init init, cudaStream_t stream = nullptr) {
  return transform_reduce(d_in, n, detail::identity_transform{}, op, init, stream);
}

template <class Acc = void, class T>
detail::sum_type<Acc, T> sum(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  using acc = detail::sum_type<Acc, T>;
  return reduce(d_in, n, plus{}, acc(0), stream);
}

template <class T>
T min(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return reduce(d_in, n, minimum{}, minimum::identity<T>(), stream);
}

template <class T>
T max(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return reduce(d_in, n, maximum{}, maximum::identity<T>(), stream);
}

template <class T>
key_value<T> argmin(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::blocking<key_value<T>>(stream, [&](key_value<T>* d_out, workspace& ws) {
    detail::arg_reduce<detail::mode::blocking, arg_minimum>(d_in, n, d_out, ws, stream);
  });
}

template <class T>
key_value<T> argmax(const T* d_in, std::int64_t n, cudaStream_t stream = nullptr) {
  return detail::blocking<key_value<T>>(stream, [&](key_value<T>* d_out, workspace& ws) {
    detail::arg_reduce<detail::mode::blocking, arg_maximum>(d_in, n, d_out, ws, stream);
  });
}

}  // namespace cured
