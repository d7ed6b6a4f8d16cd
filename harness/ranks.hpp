#pragma once
// Ranks as processes, for the NCCL tests and benchmark: run_ranks(R, body) forks R processes;
// rank r takes GPU r modulo the GPU count, joins one NCCL communicator of R ranks (rank 0
// makes the unique id and hands it to the others through a pipe) and runs body(ctx). The
// parent touches neither CUDA nor NCCL (a process that has initialized CUDA must not fork),
// waits for every rank, kills them all after `timeout_s`, and returns 0 when each returned 0,
// else the first nonzero code (no_device when there is no GPU).
//
//   return cured::harness::run_ranks(4, [](cured::harness::rank_context& ctx) {
//     float s = cured::nccl::sum(d, n, ctx.comm);  ...  return 0;
//   });

#include <cuda_runtime_api.h>
#include <nccl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

namespace cured::harness {

struct rank_context {
  int rank = 0, ranks = 1, device = 0, devices = 0;
  ncclComm_t comm = nullptr;
};

/// A rank's exit code when the machine has no CUDA device (ctest's SKIP_RETURN_CODE).
constexpr int no_device = 77;

namespace detail {
inline bool full_io(int fd, void* p, std::size_t bytes, bool write_it) {
  auto* c = static_cast<char*>(p);
  while (bytes > 0) {
    const ssize_t k = write_it ? ::write(fd, c, bytes) : ::read(fd, c, bytes);
    if (k <= 0) return false;
    c += k;
    bytes -= std::size_t(k);
  }
  return true;
}

/// One rank's process: the communicator, the body, its exit code.
inline int rank_main(int rank, int ranks, int fd_read, int fd_write, const std::function<int(rank_context&)>& body) {
  rank_context ctx;
  ctx.rank = rank;
  ctx.ranks = ranks;
  ncclUniqueId id;
  if (rank == 0) {
    if (ncclResult_t r = ncclGetUniqueId(&id); r != ncclSuccess) {
      std::fprintf(stderr, "rank 0: ncclGetUniqueId failed: %s\n", ncclGetErrorString(r));
      return 2;
    }
    for (int k = 1; k < ranks; ++k)
      if (!full_io(fd_write, &id, sizeof id, true)) return 2;
  } else if (!full_io(fd_read, &id, sizeof id, false)) {
    std::fprintf(stderr, "rank %d: no NCCL unique id from rank 0\n", rank);
    return 2;
  }
  if (cudaGetDeviceCount(&ctx.devices) != cudaSuccess || ctx.devices == 0) {
    std::fprintf(stderr, "rank %d: no CUDA device\n", rank);
    return no_device;
  }
  ctx.device = rank % ctx.devices;
  if (cudaSetDevice(ctx.device) != cudaSuccess) return 2;
  if (ncclResult_t r = ncclCommInitRank(&ctx.comm, ranks, id, rank); r != ncclSuccess) {
    std::fprintf(stderr, "rank %d: ncclCommInitRank (%d ranks on %d GPUs) failed: %s (%s)\n", rank, ranks,
                 ctx.devices, ncclGetErrorString(r), ncclGetLastError(nullptr));
    return 3;
  }
  const int code = body(ctx);
  ncclCommDestroy(ctx.comm);
  return code;
}
}  // namespace detail

/// Runs body on `ranks` processes joined by one NCCL communicator; see the header.
inline int run_ranks(int ranks, const std::function<int(rank_context&)>& body, int timeout_s = 600) {
  int fds[2];
  if (ranks < 1 || ::pipe(fds) != 0) return 2;
  std::fflush(nullptr);
  std::vector<pid_t> pids;
  for (int r = 0; r < ranks; ++r) {
    const pid_t pid = ::fork();
    if (pid < 0) return 2;
    if (pid == 0) {
      const int code = detail::rank_main(r, ranks, fds[0], fds[1], body);
      std::fflush(nullptr);
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  ::close(fds[0]);
  ::close(fds[1]);
  int result = 0;
  std::size_t left = pids.size();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (left > 0) {
    int status = 0;
    const pid_t done = ::waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      --left;
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      if (code != 0 && result == 0) result = code;
      continue;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "ranks still running after %d s: killed\n", timeout_s);
      for (pid_t p : pids) ::kill(p, SIGKILL);
      while (::waitpid(-1, &status, 0) > 0) {
      }
      return 124;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return result;
}

}  // namespace cured::harness
