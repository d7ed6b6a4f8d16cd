// cured::nccl: an array split over the GPUs of this machine, one rank per GPU (here a thread
// per GPU of one process; one process per GPU under MPI works the same way), reduced with one
// call per rank over the caller's NCCL communicator. Every rank gets the result for the whole
// array; exact_sum gives the same bits for any number of GPUs and any split. Built when NCCL is
// found (CMake target cured::nccl). Needs a CUDA device; without one it says so and exits
// with 77, which ctest reports as skipped.

#include <cured/cured.cuh>
#include <cured/nccl.cuh>

#include "example_support.hpp"

#include <nccl.h>

#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

using cured_example::expect;
using cured_example::to_device;

constexpr std::int64_t total = 10'000'000;

/// Rank r of `ranks`: its shard of 1, 2, 3, ..., total (uneven shards: the last takes the rest).
void rank_main(int r, int ranks, ncclUniqueId id, std::vector<double>& sums, std::vector<float>& exact,
               std::vector<std::int64_t>& where) {
  CURED_CHECK(cudaSetDevice(r));
  const std::int64_t begin = total / ranks * r, n = r + 1 < ranks ? total / ranks : total - begin;
  std::vector<float> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = float((begin + i) % 1000);
  float* d_shard = to_device(h);

  // docs:begin nccl-sum
  ncclComm_t comm;
  ncclCommInitRank(&comm, ranks, id, r);  // the caller's communicator: one rank per GPU

  double s = cured::nccl::sum<double>(d_shard, n, comm);   // the whole array's sum, on every rank
  auto  m = cured::nccl::argmax(d_shard, n, comm);         // {index in the whole array, value}
  float e = cured::nccl::exact_sum(d_shard, n, comm);      // same bits for any ranks and split
  // docs:end nccl-sum

  sums[r] = s;
  exact[r] = e;
  where[r] = m.index;
  ncclCommDestroy(comm);
  CURED_CHECK(cudaFree(d_shard));
}

void run() {
  int ranks = 0;
  CURED_CHECK(cudaGetDeviceCount(&ranks));
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  ncclUniqueId id;
  if (ncclGetUniqueId(&id) != ncclSuccess) throw cured::error("ncclGetUniqueId failed");
  std::vector<double> sums(ranks);
  std::vector<float> exact(ranks);
  std::vector<std::int64_t> where(ranks);
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> failed(ranks);
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        rank_main(r, ranks, id, sums, exact, where);
      } catch (...) {
        failed[r] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& f : failed)
    if (f) std::rethrow_exception(f);
  // 0 + 1 + ... + 999 = 499500, total / 1000 times; the first 999 is at index 999.
  const double want = 499500.0 * (total / 1000);
  for (int r = 0; r < ranks; ++r) {
    expect(sums[r] == want, "the sum on every rank", sums[r], want);
    expect(exact[r] == float(want), "the exact sum on every rank", exact[r], want);
    expect(where[r] == 999, "the global argmax on every rank", double(where[r]), 999);
  }
}

}  // namespace

int main() { return cured_example::run_example("nccl_sum", run); }
